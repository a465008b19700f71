"""Root sweep: every root child gets one simulation before Eq. 8 takes over (a root plan).

With a sharp prior (a human policy network) and an accurate leaf value (Stockfish's,
:mod:`sparring.players.engine_value`), Eq. 8 of the PUCT search (AlphaDDA app. 1.2)

.. math:: a = \\arg\\max_a Q(s, a) + C_{puct} P(s, a) \\frac{\\sqrt{N(s)}}{1 + N(s, a)}

spends nearly every simulation on the few moves the prior likes: with ``Q`` in ``[-1, 1]`` and
100 simulations, a move with ``P = 0.005`` is never tried unless every move the prior likes
looks lost, however good it is.  A human policy misses exactly the moves a stronger player
finds, so a search meant to be *strong* with a human prior must look at them.

:class:`RootSweep` (a :class:`~sparring.search.puct.RootPlan` for
:attr:`PUCTConfig.root_plan <sparring.search.puct.PUCTConfig.root_plan>`) gives the first
simulations of every search to the root's children one each, the highest prior first (the
priors the search uses, Dirichlet noise included; ties in move order), until every child has
one visit or the search has no simulation left; then Eq. 8 (or the configured score hook)
decides as usual.  A child already visited (none is, at the start of a search: trees are not
reused) is skipped.  With at least as many simulations as legal moves the search is at least a
one-ply search over its leaf evaluator, and every move it could play has a value; with fewer,
the children with the highest priors are the ones evaluated.  The plan only picks root
children: below the root the search is unchanged, and the root's statistics (visits, ``Q``,
the move played: most visits) are the search's own, except that the run names the move to
play (:attr:`RootStats.selected_move <sparring.search.stats.RootStats.selected_move>`): the
most visited, ties broken by ``Q`` (see :meth:`SweepRun.finish`).  Nothing is random.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from sparring.search.puct import E_PRIOR, E_VISITS, PUCTConfig, RootArrays
from sparring.search.stats import RootStats


@dataclass
class SweepRun:
    """One search call of :class:`RootSweep` (a :class:`~sparring.search.puct.RootPlanRun`)."""

    order: list[npt.NDArray[np.int64]]
    """Per tree, its root children's indices by falling prior (stable: ties in move order)."""

    def plan(self, arrays: RootArrays, picks: npt.NDArray[np.int64]) -> None:
        """Each searching tree's next simulation: its first child in :attr:`order` with no
        visit yet, or -1 (Eq. 8) once every child has one."""
        for t in np.flatnonzero(arrays.tree_done < arrays.tree_target).tolist():
            visits = arrays.edge_i[arrays.root_edges(t), E_VISITS]
            pick = -1
            for child in self.order[t].tolist():
                if visits[child] == 0:
                    pick = child
                    break
            picks[t, int(arrays.tree_done[t])] = pick

    def finish(self, t: int, stats: RootStats) -> RootStats:
        """The search's statistics with :attr:`~sparring.search.stats.RootStats.selected_move`
        set: the most visited child, ties broken by the higher ``Q``, then the higher prior,
        then move order.  Ties are the rule while the sweep lasts (every child tried has one
        visit: fewer simulations than moves, or a limit that stopped the search early), and
        a random pick among them would ignore the values the sweep paid for."""
        if len(stats.moves) == 0 or int(stats.visits.sum()) == 0:
            return stats
        tied = np.flatnonzero(stats.visits == stats.visits.max())
        best = max(tied.tolist(), key=lambda i: (float(stats.q[i]), float(stats.priors[i]), -i))
        return replace(stats, selected_move=int(stats.moves[best]))


@dataclass(frozen=True)
class RootSweep:
    """One simulation for every root child first, highest prior first (module doc)."""

    def begin(
        self, arrays: RootArrays, config: PUCTConfig, generator: np.random.Generator
    ) -> SweepRun:
        """Start one search call (draws nothing from ``generator``)."""
        order = [
            np.argsort(-arrays.edge_f[arrays.root_edges(t), E_PRIOR], kind="stable").astype(
                np.int64
            )
            for t in range(len(arrays.tree_done))
        ]
        return SweepRun(order)


__all__ = ["RootSweep", "SweepRun"]
