"""KataGo's forced playouts and policy target pruning, as a root plan of the PUCT search.

David J. Wu, "Accelerating Self-Play Learning in Go" (2019, arXiv:1902.10565), section 3.1
"Forced playouts and policy target pruning".  With Dirichlet noise a good move that the network
gives a low prior can still be starved of visits; KataGo makes sure every root child ``c`` that
the search tried gets at least

.. math:: n_{forced}(c) = \\sqrt{k \\, P(c) \\sum_b N(b)}

visits (``k = 2`` in the paper), and then removes those extra visits from the training target
so that the policy is not taught to play them.

**Forced playouts** (:class:`ForcedPlayouts`, a :class:`~sparring.search.puct.RootPlan`).
Before each simulation of a tree (one simulation per tree and round, the root-plan seam of
:mod:`sparring.search.puct`), the root children with ``N(c) < n_forced(c)`` are *forced*,
``n_forced`` computed with the priors the search uses (``E_PRIOR``: with the root Dirichlet
noise if configured) and the root's visit total so far ``sum_b N(b)`` (the simulations
finished).  If some child is forced, the simulation takes the forced child with the highest
Eq. 8 score ``Q + C_puct P sqrt(N(s)) / (1 + N(s, a))`` (``N(s)`` the root's visits, its own
evaluation included; an unvisited child's ``Q`` is :attr:`PUCTConfig.unvisited_q
<sparring.search.puct.PUCTConfig.unvisited_q>`, or the root's network value with
``first_play_parent``; ties to the first child in move order); otherwise Eq. 8 (or the
configured score hook) chooses as usual.  The paper leaves the order among several forced
children open; KataGo's own code simply favours a forced child over any other.  With a score
hook, the forced children are still ranked by plain Eq. 8.  No simulation is in flight when a
plan runs (one per tree and round), so virtual loss plays no part.

**Policy target pruning** (:func:`prune_policy_target`).  After the search, ``c*`` is the child
with the most playouts (the first in move order on ties).  For every other child ``c``, the
largest whole number of playouts ``r <= min(N(c), floor(n_forced(c)))`` is subtracted such that
``PUCT(c) < PUCT(c*)`` still holds with the reduced count, where ``PUCT(x) = Q(x) + C_puct P(x)
sqrt(N(s)) / (1 + N(x))``, ``PUCT(c*)`` uses the final counts, ``N(s)`` (the root's visits) is
kept at its final value, and ``Q(c)`` is the child's final mean value, unchanged by removing
playouts.  ``PUCT(c)`` grows as ``N(c)`` shrinks, so this is the smallest count in
``[N(c) - floor(n_forced(c)), N(c)]`` still below ``PUCT(c*)``; a child already at or above
``PUCT(c*)`` keeps all its playouts.  Then every child other than ``c*`` left with at most one
playout is pruned to 0, and ``c*`` itself is never reduced or pruned (so a search with any
playout keeps a non-empty target).  KataGo's code subtracts a real-valued amount (the solution
of ``PUCT(c) = PUCT(c*)``); the whole-number version here keeps the counts integer.
``n_forced`` uses ``sum_b N(b)``, the final visit total, as in the paper.

:class:`ForcedPlayouts` with ``prune=True`` sets :attr:`RootStats.improved_policy
<sparring.search.stats.RootStats.improved_policy>` to the pruned counts normalised (the
training target); the move to play is still the caller's, from the unpruned visits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numba as nb
import numpy as np
import numpy.typing as npt

from sparring.errors import BadValueError
from sparring.search.puct import (
    E_PRIOR,
    E_VALUE,
    E_VISITS,
    N_EDGE_COUNT,
    N_EDGE_START,
    N_VALUE,
    N_VISITS,
    PUCTConfig,
    RootArrays,
)
from sparring.search.stats import RootStats


def forced_playouts(
    priors: npt.ArrayLike, total_visits: float, k: float
) -> npt.NDArray[np.float64]:
    """``n_forced(c) = sqrt(k P(c) sum_b N(b))`` for every child (Wu 2019, section 3.1), with
    ``priors`` the priors the search uses at the root and ``total_visits = sum_b N(b)``."""
    if k < 0:
        raise BadValueError(f"k must be >= 0, not {k}", key="k")
    if total_visits < 0:
        raise BadValueError(f"total_visits must be >= 0, not {total_visits}", key="total_visits")
    p = np.asarray(priors, dtype=np.float64)
    return np.sqrt(k * np.maximum(p, 0.0) * float(total_visits))


def prune_policy_target(
    visits: npt.ArrayLike,
    priors: npt.ArrayLike,
    q: npt.ArrayLike,
    c_puct: float,
    k: float,
    parent_visits: float,
    unvisited_q: float,
) -> npt.NDArray[np.float64]:
    """The root's visit counts with the forced playouts removed (module doc, "Policy target
    pruning"): whole counts as float64, not normalised.  ``q[c]`` is child ``c``'s mean value
    for the player to move (``unvisited_q`` is used instead where ``visits[c] == 0``);
    ``parent_visits`` is ``N(s)`` of Eq. 8 (the root's visits, ``1 + sum_b N(b)`` in this
    search).  All zeros when no child was visited."""
    n = np.asarray(visits, dtype=np.int64)
    p = np.asarray(priors, dtype=np.float64)
    values = np.asarray(q, dtype=np.float64)
    if not (n.ndim == p.ndim == values.ndim == 1 and len(n) == len(p) == len(values)):
        raise BadValueError("visits, priors and q must be 1-D arrays of one length", key="visits")
    if np.any(n < 0):
        raise BadValueError("visits must be >= 0", key="visits")
    if c_puct < 0 or parent_visits < 0:
        raise BadValueError("c_puct and parent_visits must be >= 0", key="c_puct")
    out = n.astype(np.float64)
    total = int(n.sum())
    if total == 0:
        return out
    forced = forced_playouts(p, total, k)
    q_used = np.where(n > 0, values, unvisited_q)
    sqrt_n = math.sqrt(parent_visits)
    best = int(np.argmax(n))
    best_puct = q_used[best] + c_puct * p[best] * sqrt_n / (1.0 + n[best])
    for c in range(len(n)):
        if c == best or n[c] == 0:
            continue
        lowest = int(n[c]) - min(int(n[c]), math.floor(forced[c]))
        kept = int(n[c])
        for count in range(lowest, int(n[c])):  # the smallest count still below PUCT(c*)
            if q_used[c] + c_puct * p[c] * sqrt_n / (1.0 + count) < best_puct:
                kept = count
                break
        out[c] = 0.0 if kept <= 1 else float(kept)
    return out


@nb.njit(cache=True)
def _forced_picks(
    node_i: np.ndarray,
    node_f: np.ndarray,
    edge_i: np.ndarray,
    edge_f: np.ndarray,
    tree_done: np.ndarray,
    tree_target: np.ndarray,
    picks: np.ndarray,
    k: float,
    c_puct: float,
    unvisited_q: float,
) -> None:
    """For every tree still searching, write its next root pick: the forced child (``N(c) <
    n_forced(c)``) with the highest Eq. 8 score, or -1 when none is forced.  ``unvisited_q``
    nan: an unvisited child's ``Q`` is the root's network value."""
    for t in range(tree_done.shape[0]):
        done = tree_done[t]
        if done >= tree_target[t]:
            continue
        start = node_i[t, N_EDGE_START]
        count = node_i[t, N_EDGE_COUNT]
        total = 0
        for e in range(start, start + count):
            total += edge_i[e, E_VISITS]
        sqrt_n = math.sqrt(node_i[t, N_VISITS])
        fpu = node_f[t, N_VALUE] if math.isnan(unvisited_q) else unvisited_q
        best = -1
        best_score = -np.inf
        for i in range(count):
            e = start + i
            n = edge_i[e, E_VISITS]
            prior = edge_f[e, E_PRIOR]
            if n >= math.sqrt(k * max(prior, 0.0) * total):
                continue
            q = edge_f[e, E_VALUE] / n if n > 0 else fpu
            score = q + c_puct * prior * sqrt_n / (1.0 + n)
            if score > best_score:
                best_score = score
                best = i
        picks[t, done] = best


@dataclass
class ForcedRun:
    """One search call of :class:`ForcedPlayouts` (a :class:`~sparring.search.puct.RootPlanRun`)."""

    plan_config: ForcedPlayouts
    c_puct: float
    unvisited_q: float
    """nan with ``first_play_parent`` (an unvisited child's ``Q`` is the root's value)."""
    priors: list[npt.NDArray[np.float64]]
    """Per tree, the root priors the search uses (noised), copied by
    :meth:`ForcedPlayouts.begin`."""

    def plan(self, arrays: RootArrays, picks: npt.NDArray[np.int64]) -> None:
        """Write each searching tree's next root pick (module doc, "Forced playouts")."""
        _forced_picks(
            arrays.node_i, arrays.node_f, arrays.edge_i, arrays.edge_f,
            arrays.tree_done, arrays.tree_target, picks,
            float(self.plan_config.k), self.c_puct, self.unvisited_q,
        )  # fmt: skip

    def finish(self, t: int, stats: RootStats) -> RootStats:
        """With ``prune``: ``improved_policy`` = the pruned counts (:func:`prune_policy_target`)
        normalised; unchanged without ``prune``, for a terminal root or with no simulation."""
        if not self.plan_config.prune or len(stats.moves) == 0 or int(stats.visits.sum()) == 0:
            return stats
        unvisited = stats.network_value if math.isnan(self.unvisited_q) else self.unvisited_q
        pruned = prune_policy_target(
            stats.visits, self.priors[t], stats.q, self.c_puct, self.plan_config.k,
            1 + int(stats.visits.sum()), unvisited,
        )  # fmt: skip
        policy = (pruned / pruned.sum()).astype(np.float32)
        return replace(stats, improved_policy=policy)


@dataclass(frozen=True)
class ForcedPlayouts:
    """KataGo's forced playouts and policy target pruning (module doc; Wu 2019, section 3.1):
    a :class:`~sparring.search.puct.RootPlan` for :attr:`PUCTConfig.root_plan
    <sparring.search.puct.PUCTConfig.root_plan>`."""

    k: float = 2.0
    """``n_forced(c) = sqrt(k P(c) sum_b N(b))`` (the paper: 2); 0 forces nothing."""
    prune: bool = True
    """Set :attr:`RootStats.improved_policy <sparring.search.stats.RootStats.improved_policy>`
    to the pruned visit counts (the training target); False: the visit counts stay the target."""

    def __post_init__(self) -> None:
        k = self.k
        if isinstance(k, bool) or not isinstance(k, int | float) or not (0 <= k < math.inf):
            raise BadValueError(f"k must be a finite number >= 0, not {self.k!r}", key="k")
        if not isinstance(self.prune, bool):
            raise BadValueError(f"prune must be true or false, not {self.prune!r}", key="prune")

    def begin(
        self, arrays: RootArrays, config: PUCTConfig, generator: np.random.Generator
    ) -> ForcedRun:
        """Start one search call (draws nothing from ``generator``)."""
        n_trees = len(arrays.tree_done)
        priors = [arrays.edge_f[arrays.root_edges(t), E_PRIOR].copy() for t in range(n_trees)]
        return ForcedRun(
            plan_config=self,
            c_puct=float(config.c_puct),
            unvisited_q=math.nan if config.first_play_parent else float(config.unvisited_q),
            priors=priors,
        )


__all__ = ["ForcedPlayouts", "ForcedRun", "forced_playouts", "prune_policy_target"]
