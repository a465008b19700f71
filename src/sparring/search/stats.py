"""The root statistics every search returns (:class:`RootStats`).

One record for the PUCT search (:mod:`sparring.search.puct`, AlphaDDA app. 1.2) and UCT with
random playouts (:mod:`sparring.search.uct`, AlphaDDA app. 3), in the spirit of ``mctx``'s
search outputs: arrays indexed alike, one entry per legal move of the root, in the game's
move-generation order.  Players choose their move from it (the most visited edge, or a
strength-adjusted draw from the visit counts) and report it in their decision's analysis
and annotation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class RootStats:
    """The root statistics of one search.  Arrays are indexed alike, one entry per legal move."""

    moves: npt.NDArray[np.int64]
    """The legal moves of the root, in the game's move-generation order (empty if terminal)."""
    visits: npt.NDArray[np.int64]
    """Visit counts ``N(s_root, a)``; they sum to :attr:`simulations`."""
    q: npt.NDArray[np.float64]
    """Mean values ``Q(s_root, a) = W / N`` in ``[-1, 1]`` for the player to move at the root
    (+1 = certain win).  Unvisited moves: PUCT gives :attr:`PUCTConfig.unvisited_q
    <sparring.search.puct.PUCTConfig.unvisited_q>`, UCT 0.  (UCT's ``W`` counts +1/-1/0 per
    playout result, so its ``Q`` is the same scale.)"""
    priors: npt.NDArray[np.float32]
    """The priors ``P(s_root, a)`` given by the evaluator (before any Dirichlet noise); UCT,
    which has no priors, gives the uniform ``1 / len(moves)``."""
    search_priors: npt.NDArray[np.float32]
    """The priors the search used: :attr:`priors` mixed with the root Dirichlet noise (equal
    to :attr:`priors` without noise, and for UCT)."""
    network_value: float
    """The evaluator's value ``v(s_root)`` for the player to move (exact if the root is
    terminal); NaN for UCT, which calls no evaluator."""
    value: float
    """The search's value of the root for the player to move: ``sum W / sum N`` over the root's
    edges (:attr:`network_value` when no simulation ran)."""
    simulations: int
    """Simulations done (0 for a terminal root)."""
    to_move: int
    """The player to move at the root (0 first, 1 second)."""
    nodes: int
    """Tree nodes created by the search, the root included."""
    pv: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """The principal variation: from the root, the most visited move at each node of the
    tree while it has visits (the first in move order on ties); empty if no simulation ran."""
    improved_policy: npt.NDArray[np.float32] | None = None
    """A policy over :attr:`moves` (summing to 1) that a root plan computed as the training
    target instead of the visit counts (Gumbel AlphaZero's completed-Q policy, KataGo's pruned
    visits); None: the visit counts are the target (:meth:`training_policy`)."""
    selected_move: int | None = None
    """The move a root plan selected to play (Gumbel AlphaZero: the winner of sequential
    halving); None: the caller chooses from the visit counts."""

    @classmethod
    def from_visits(
        cls, moves: npt.ArrayLike, visits: npt.ArrayLike, to_move: int = 0
    ) -> RootStats:
        """A root known only by its moves and visit counts (no values: ``q`` and the values
        NaN, uniform priors), e.g. a search stand-in in tests."""
        m = np.asarray(moves, dtype=np.int64)
        n = np.asarray(visits, dtype=np.int64)
        uniform = np.full(len(m), 1.0 / max(len(m), 1), dtype=np.float32)
        return cls(
            moves=m,
            visits=n,
            q=np.full(len(m), math.nan),
            priors=uniform,
            search_priors=uniform.copy(),
            network_value=math.nan,
            value=math.nan,
            simulations=int(n.sum()),
            to_move=to_move,
            nodes=1 + len(m),
        )

    def best_win_rate(self) -> float | None:
        """``(1 + Q) / 2`` of the most visited move (the first in move order on ties), or
        None without values: Wu et al.'s ``W`` for intra-game DSA."""
        if len(self.visits) == 0:
            return None
        q = float(self.q[int(np.argmax(self.visits))])
        if math.isnan(q):
            return None
        return min(max((1.0 + q) / 2.0, 0.0), 1.0)

    @property
    def win_rates(self) -> npt.NDArray[np.float64]:
        """``(Q + 1) / 2``: expected score in ``[0, 1]`` (a draw counting 1/2) of each move."""
        return (self.q + 1.0) / 2.0

    def best_moves(self) -> npt.NDArray[np.int64]:
        """The most visited moves (several when tied; empty for a terminal root)."""
        if len(self.moves) == 0:
            return self.moves.copy()
        return self.moves[self.visits == self.visits.max()]

    def policy(self, num_actions: int) -> npt.NDArray[np.float32]:
        """Search probabilities ``pi``: visit counts over the full action space, summing to 1
        (AlphaDDA app. 1.3); uniform over the legal moves if no simulation ran."""
        pi = np.zeros(num_actions, dtype=np.float32)
        if len(self.moves) == 0:
            return pi
        total = int(self.visits.sum())
        if total == 0:
            pi[self.moves] = 1.0 / len(self.moves)
        else:
            pi[self.moves] = self.visits / total
        return pi

    def training_policy(self, num_actions: int) -> npt.NDArray[np.float32]:
        """The self-play training target over the full action space: :attr:`improved_policy`
        where a root plan gave one, else :meth:`policy` (the visit counts)."""
        if self.improved_policy is None or len(self.moves) == 0:
            return self.policy(num_actions)
        pi = np.zeros(num_actions, dtype=np.float32)
        pi[self.moves] = self.improved_policy
        return pi


__all__ = ["RootStats"]
