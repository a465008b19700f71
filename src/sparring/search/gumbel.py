"""Gumbel AlphaZero's root: sequential halving over Gumbel-sampled actions and the
completed-Q policy target (Danihelka, Guez, Schrittwieser and Silver, ICLR 2022, "Policy
improvement by planning with Gumbel"), as a root plan of the one batched PUCT search.

:class:`GumbelRoot` is a :class:`~sparring.search.puct.RootPlan` (``PUCTConfig(root_plan=
GumbelRoot(...))``, see :mod:`sparring.search.puct`, "Root plans"); it decides the root child of
every simulation and, at the end, the move to play and the training target.  The design
follows DeepMind's ``mctx`` (``gumbel_muzero_policy``); the notation is the paper's.

* **Gumbel-top-k sampling** (paper Sections 2-3, Algorithm 1).  One ``g(a) ~ Gumbel(0, 1)``
  per legal root move (``noise=True``, self-play), or ``g = 0`` (``noise=False``, play).  The
  ``logits(a)`` are ``log P(a)`` of the priors the search uses (the ``E_PRIOR`` column, floored
  at the smallest positive float32 so that a legal move of prior 0 keeps a finite logit).
  The ``m = min(considered, legal moves)`` actions with the largest ``g + logits`` are (with
  noise) a sample of ``m`` actions without replacement from ``softmax(logits)``, (without) the
  ``m`` largest priors; with the schedule below the first ``m`` simulations visit exactly them.
* **Sequential halving** (Algorithm 2, "Sequential Halving with Gumbel";
  :func:`considered_visit_sequence`).  Phases follow each other until the ``n`` simulations
  are spent: a phase with ``k`` actions still considered (``k = m`` at first) gives each
  ``max(1, floor(n / (ceil(log2 m) k)))`` more visits, then ``k`` becomes ``max(2, k // 2)``.  As a
  schedule: simulation ``i`` may only visit a root child whose visit count equals the
  sequence's entry ``i``; among those it takes the argmax of ``g + logits + sigma(completedQ)``
  (the best half survives each phase because the weaker ones are never brought up to the next
  level).  ``m = 1`` (or a single legal move): every simulation visits the top action.
* **Completed Q** (Appendix D, ``mctx``'s ``qtransform_completed_by_mix_value`` with
  rescaling).  A visited root child has ``q(a) = W(a) / N(a)`` (the root
  player's value, in ``[-1, 1]``); an unvisited one gets the mixed value
  ``v_mix = (v + sum_b N(b) * sum_{b visited} P(b) q(b) / sum_{b visited} P(b)) / (1 + sum_b N(b))``
  with ``v`` the network's value of the root (``v_mix = v`` when nothing is visited).  The
  completed values are rescaled min-max to ``[0, 1]`` (a constant vector becomes all 0: the
  denominator is at least 1e-8, as in ``mctx``) and then transformed by eq. 8,
  ``sigma(q) = (c_visit + max_b N(b)) * c_scale * q``.
* **Results** (:meth:`GumbelRun.finish`).  ``improved_policy = softmax(logits +
  sigma(completedQ))`` over the root's legal moves (eq. 11; the self-play training target,
  :meth:`~sparring.search.stats.RootStats.training_policy`), and ``selected_move``, the argmax
  of ``g + logits + sigma(completedQ)`` among the most visited children (the winner of
  sequential halving, ``mctx``'s final action).

What this variant does *not* change (results made with it should say so):

* Below the root the selection stays AlphaDDA's Eq. 8 (PUCT, with the search's
  ``c_puct`` and first-play rules).  The paper's deterministic non-root selection (Section 5,
  ``argmax(pi'(a) - N(a) / (1 + sum_b N(b)))``) is not built.
* The root plan takes one simulation per tree and round, so ``leaves_per_batch`` has no effect
  and no virtual loss is ever applied (batching comes from many trees).
* The search's own Dirichlet noise, if also configured (``PUCTConfig.dirichlet_alpha``), is
  mixed into ``E_PRIOR`` before the plan starts, so it would enter the logits and the
  training target: self-play with Gumbel should not add Dirichlet noise (the Gumbel draws are
  the exploration; the trainer does not add it).
* Defaults: ``c_visit = 50``, ``c_scale = 1.0`` (the paper's values for Go and chess;
  ``mctx`` defaults to ``c_scale = 0.1``), ``considered = 16`` (``mctx``'s default).

Randomness: :meth:`GumbelRoot.begin` draws ``generator.gumbel(size=count)`` for each tree in
the order of the search's positions, only for an ongoing root with at least one move and only
with ``noise=True`` (after the search's Dirichlet draws, if any).  So searching positions one
by one with one shared generator gives exactly the batch's result, and ``noise=False`` leaves
the generator untouched.

The per-round decisions of all trees run in one compiled loop (:func:`_plan_trees`) over the
search's arrays; the float arithmetic is float64 throughout.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numba as nb
import numpy as np
import numpy.typing as npt

from sparring.errors import BadValueError
from sparring.games.base import ONGOING
from sparring.search.puct import (
    E_PRIOR,
    E_VALUE,
    E_VISITS,
    N_EDGE_COUNT,
    N_EDGE_START,
    N_STATUS,
    N_VALUE,
    PUCTConfig,
    RootArrays,
)
from sparring.search.stats import RootStats

_PRIOR_FLOOR = float(np.finfo(np.float32).tiny)
"""Priors are floored here before taking logs (and in the mixed value's weights)."""
_RESCALE_EPSILON = 1e-8
"""The smallest denominator of the min-max rescaling (``mctx``'s ``epsilon``)."""


def considered_visit_sequence(max_considered: int, simulations: int) -> npt.NDArray[np.int64]:
    """Sequential halving as a schedule (paper Algorithm 2; ``mctx``'s
    ``get_sequence_of_considered_visits``): entry ``i`` is the visit count a root child must
    have for simulation ``i`` to visit it, with ``max_considered`` actions considered at first
    and ``simulations`` simulations in all.  ``max_considered <= 1``: ``0, 1, 2, ...`` (one
    action takes every simulation)."""
    if max_considered < 0 or simulations < 0:
        raise BadValueError("max_considered and simulations must be >= 0", key="considered")
    if max_considered <= 1:
        return np.arange(simulations, dtype=np.int64)
    phases = math.ceil(math.log2(max_considered))
    sequence: list[int] = []
    considered = max_considered
    level = 0  # the considered actions all have this many visits at the start of a phase
    while len(sequence) < simulations:
        per_action = max(1, simulations // (phases * considered))
        for _ in range(per_action):
            sequence.extend([level] * considered)
            level += 1
        considered = max(2, considered // 2)
    return np.array(sequence[:simulations], dtype=np.int64)


def considered_visit_table(max_considered: int, simulations: int) -> npt.NDArray[np.int64]:
    """Row ``m`` (``0 <= m <= max_considered``): :func:`considered_visit_sequence` ``(m,
    simulations)``, the schedule of a root with ``m`` actions considered (``mctx``'s
    ``get_table_of_considered_visits``); shape ``(max_considered + 1, simulations)``."""
    table = np.zeros((max_considered + 1, simulations), dtype=np.int64)
    for m in range(max_considered + 1):
        table[m] = considered_visit_sequence(m, simulations)
    return table


@nb.njit(cache=True)
def _sigma_into(
    visits: np.ndarray,
    q: np.ndarray,
    priors: np.ndarray,
    network_value: float,
    c_visit: float,
    c_scale: float,
    out: np.ndarray,
) -> None:
    """``out[a] = sigma(rescaled completedQ(a))`` (module doc); ``q[a]`` is read only where
    ``visits[a] > 0``."""
    count = visits.shape[0]
    total = 0
    max_visits = 0
    prior_sum = 0.0
    weighted = 0.0
    for a in range(count):
        n = visits[a]
        if n > 0:
            p = max(priors[a], _PRIOR_FLOOR)
            total += n
            prior_sum += p
            weighted += p * q[a]
            max_visits = max(max_visits, n)
    mixed = network_value
    if total > 0:
        mixed = (network_value + total * (weighted / prior_sum)) / (1.0 + total)
    low = np.inf
    high = -np.inf
    for a in range(count):
        out[a] = q[a] if visits[a] > 0 else mixed
        low = min(low, out[a])
        high = max(high, out[a])
    scale = (c_visit + max_visits) * c_scale / max(high - low, _RESCALE_EPSILON)
    for a in range(count):
        out[a] = (out[a] - low) * scale


@nb.njit(cache=True)
def _argmax_considered(
    visits: np.ndarray, base: np.ndarray, sigma: np.ndarray, considered_visit: int
) -> int:
    """The child with ``considered_visit`` visits maximising ``base + sigma`` (the first on
    ties); if none has that count (a schedule cut short), the maximiser over all children."""
    best = -1
    best_score = -np.inf
    for a in range(visits.shape[0]):
        if visits[a] != considered_visit:
            continue
        score = base[a] + sigma[a]
        if best < 0 or score > best_score:
            best = a
            best_score = score
    if best < 0:
        for a in range(visits.shape[0]):
            score = base[a] + sigma[a]
            if best < 0 or score > best_score:
                best = a
                best_score = score
    return best


@nb.njit(cache=True)
def _plan_trees(
    node_i: np.ndarray,
    node_f: np.ndarray,
    edge_i: np.ndarray,
    edge_f: np.ndarray,
    tree_done: np.ndarray,
    tree_target: np.ndarray,
    base: np.ndarray,
    priors: np.ndarray,
    considered: np.ndarray,
    table: np.ndarray,
    c_visit: float,
    c_scale: float,
    picks: np.ndarray,
) -> None:
    """One round's root picks of every tree still searching: ``picks[t, tree_done[t]]`` is the
    index of the root child with the schedule's visit count maximising ``g + logits +
    sigma(completedQ)`` (``base[t]`` holds ``g + logits``, ``priors[t]`` the priors, padded to
    the widest root; ``considered[t]`` the row of ``table`` for tree ``t``)."""
    width = base.shape[1]
    visits = np.zeros(width, dtype=np.int64)
    q = np.zeros(width, dtype=np.float64)
    sigma = np.zeros(width, dtype=np.float64)
    for t in range(tree_done.shape[0]):
        simulation = tree_done[t]
        if simulation >= tree_target[t]:
            continue
        start = node_i[t, N_EDGE_START]
        count = node_i[t, N_EDGE_COUNT]
        if count <= 0:
            picks[t, simulation] = -1
            continue
        for a in range(count):
            n = edge_i[start + a, E_VISITS]
            visits[a] = n
            q[a] = edge_f[start + a, E_VALUE] / n if n > 0 else 0.0
        _sigma_into(
            visits[:count], q[:count], priors[t, :count], node_f[t, N_VALUE], c_visit, c_scale,
            sigma[:count],
        )  # fmt: skip
        level = table[considered[t], simulation] if simulation < table.shape[1] else -1
        picks[t, simulation] = _argmax_considered(
            visits[:count], base[t, :count], sigma[:count], level
        )


def prior_logits(priors: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """``log P`` with ``P`` floored at the smallest positive float32 (module doc)."""
    return np.log(np.maximum(np.asarray(priors, dtype=np.float64), _PRIOR_FLOOR))


@nb.njit(cache=True)
def _softmax_into(logits: np.ndarray, sigma: np.ndarray, out: np.ndarray) -> None:
    """``out = softmax(logits + sigma)`` (float64)."""
    high = -np.inf
    for a in range(logits.shape[0]):
        high = max(high, logits[a] + sigma[a])
    total = 0.0
    for a in range(logits.shape[0]):
        out[a] = math.exp(logits[a] + sigma[a] - high)
        total += out[a]
    for a in range(logits.shape[0]):
        out[a] /= total


@nb.njit(cache=True)
def _finish_tree(
    visits: np.ndarray,
    q: np.ndarray,
    priors: np.ndarray,
    logits: np.ndarray,
    base: np.ndarray,
    network_value: float,
    c_visit: float,
    c_scale: float,
    policy: np.ndarray,
) -> int:
    """One root's improved policy (into ``policy``) and the index of its selected move."""
    sigma = np.empty(visits.shape[0], dtype=np.float64)
    _sigma_into(visits, q, priors, network_value, c_visit, c_scale, sigma)
    _softmax_into(logits, sigma, policy)
    most = 0
    for a in range(visits.shape[0]):
        most = max(most, visits[a])
    return _argmax_considered(visits, base, sigma, most)


def improved_policy(logits: npt.ArrayLike, sigma: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """``softmax(logits + sigma(completedQ))`` (paper eq. 11) as float32 summing to 1."""
    x = np.ascontiguousarray(logits, dtype=np.float64)
    out = np.zeros(len(x), dtype=np.float64)
    if len(x) > 0:
        _softmax_into(x, np.ascontiguousarray(sigma, dtype=np.float64), out)
    return out.astype(np.float32)


@dataclass(frozen=True)
class GumbelRoot:
    """Gumbel AlphaZero's root plan (module doc): ``PUCTConfig(root_plan=GumbelRoot())``."""

    considered: int = 16
    """``m``: actions sampled without replacement by Gumbel-top-k (at most the legal moves)."""
    c_visit: float = 50.0
    """``c_visit`` of eq. 8, ``sigma(q) = (c_visit + max_b N(b)) * c_scale * q``."""
    c_scale: float = 1.0
    """``c_scale`` of eq. 8 (the paper's Go and chess value; ``mctx`` defaults to 0.1)."""
    noise: bool = True
    """Draw the Gumbel variables (self-play); False: ``g = 0`` (play: deterministic)."""

    def __post_init__(self) -> None:
        if isinstance(self.considered, bool) or not isinstance(self.considered, int):
            raise BadValueError("considered must be an integer", key="considered")
        if self.considered < 1:
            raise BadValueError("considered must be >= 1", key="considered")
        for key in ("c_visit", "c_scale"):
            value = getattr(self, key)
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise BadValueError(f"{key} must be a number", key=key)
            if not math.isfinite(value) or value < 0:
                raise BadValueError(f"{key} must be finite and >= 0", key=key)
        if not isinstance(self.noise, bool):
            raise BadValueError("noise must be true or false", key="noise")

    def begin(
        self, arrays: RootArrays, config: PUCTConfig, generator: np.random.Generator
    ) -> GumbelRun:
        """Draw the Gumbel variables (tree order, module doc) and build the schedule table."""
        n_trees = len(arrays.tree_done)
        counts = np.zeros(n_trees, dtype=np.int64)
        for t in range(n_trees):
            counts[t] = max(int(arrays.node_i[t, N_EDGE_COUNT]), 0)
        width = max(int(counts.max(initial=0)), 1)
        priors = np.zeros((n_trees, width), dtype=np.float64)
        logits = np.zeros((n_trees, width), dtype=np.float64)
        gumbel = np.zeros((n_trees, width), dtype=np.float64)
        for t in range(n_trees):
            count = int(counts[t])
            if count == 0:
                continue
            p = arrays.edge_f[arrays.root_edges(t), E_PRIOR]
            priors[t, :count] = p
            logits[t, :count] = prior_logits(p)
            if self.noise and arrays.node_i[t, N_STATUS] == ONGOING:
                gumbel[t, :count] = generator.gumbel(size=count)
        considered = np.minimum(counts, self.considered)
        simulations = max(config.simulations, 1)
        table = considered_visit_table(int(considered.max(initial=0)), simulations)
        return GumbelRun(self, priors, logits, gumbel, considered, table)


@dataclass
class GumbelRun:
    """One search call's Gumbel root plan (made by :meth:`GumbelRoot.begin`).  Arrays have one
    row per tree, padded to the widest root."""

    root: GumbelRoot
    priors: npt.NDArray[np.float64]
    """The priors the search uses (``E_PRIOR``)."""
    logits: npt.NDArray[np.float64]
    """:func:`prior_logits` of :attr:`priors`."""
    gumbel: npt.NDArray[np.float64]
    """The Gumbel draws ``g`` (0 without noise)."""
    considered: npt.NDArray[np.int64]
    """``m`` per tree: ``min(considered, legal moves)``."""
    table: npt.NDArray[np.int64]
    """:func:`considered_visit_table` up to the largest ``m``."""

    def __post_init__(self) -> None:
        self.base = np.ascontiguousarray(self.gumbel + self.logits)

    def plan(self, arrays: RootArrays, picks: npt.NDArray[np.int64]) -> None:
        """Write every searching tree's next root pick (the compiled :func:`_plan_trees`)."""
        _plan_trees(
            arrays.node_i, arrays.node_f, arrays.edge_i, arrays.edge_f,
            arrays.tree_done, arrays.tree_target, self.base, self.priors, self.considered,
            self.table, float(self.root.c_visit), float(self.root.c_scale), picks,
        )  # fmt: skip

    def finish(self, t: int, stats: RootStats) -> RootStats:
        """Tree ``t``'s result with the improved policy (eq. 11) and the selected move (the
        best of the most visited children by ``g + logits + sigma``); a terminal root is
        returned unchanged."""
        count = len(stats.moves)
        if count == 0:
            return stats
        policy = np.zeros(count, dtype=np.float64)
        best = _finish_tree(
            np.ascontiguousarray(stats.visits, dtype=np.int64),
            np.ascontiguousarray(stats.q, dtype=np.float64),
            self.priors[t, :count], self.logits[t, :count], self.base[t, :count],
            float(stats.network_value), float(self.root.c_visit), float(self.root.c_scale), policy,
        )  # fmt: skip
        return replace(
            stats,
            improved_policy=policy.astype(np.float32),
            selected_move=int(stats.moves[best]),
        )


__all__ = [
    "GumbelRoot",
    "GumbelRun",
    "considered_visit_sequence",
    "considered_visit_table",
    "improved_policy",
    "prior_logits",
]
