"""Moves drawn from a network's policy at a temperature, under the game's finishing rules.

A person of a given rank does not play the same game twice; a player that plays the
rank-conditioned policy's top move does.  :class:`PolicySamplingPlayer` evaluates the
position once (the search's root, no simulation) and *draws* its move from the root's
priors ``p`` at temperature ``T``:

    ``P(a) = p(a) ** (1 / T) / sum_b p(b) ** (1 / T)`` over the allowed moves ``a, b``,

which is ``softmax(logits / T)`` restricted to those moves (the priors are the network's
softmax over the legal moves, :func:`~sparring.search.evaluator.masked_softmax`).  ``T = 1``
is the network's own distribution, ``T -> 0`` its top move (``T = 0``: the allowed moves of
the highest prior, uniformly), ``T -> inf`` uniform play among the allowed moves.  A move
whose float32 prior is 0 is never drawn.

Finishing rules (the game's :meth:`~sparring.games.base.Game.move_filter`, the rules the
search players that finish Go games follow, :mod:`sparring.players.finish`):

1. **Pass now**: when the rule says so (Go: the opponent has just passed and the player to
   move is ahead by the Tromp-Taylor area count, komi included), the player passes and the
   game ends won.
2. **Moves to avoid** (Go: filling one's own single-point eye) are never drawn; when no
   allowed move but the pass remains, the player passes.
3. Otherwise the move is drawn from ``P`` above over the legal moves that are not avoided,
   **the pass included** with its prior (a network trained on human games puts almost no
   mass on it before the end: 4e-10 on the empty 19x19 board for ``go-play``).  A game
   between two such players therefore ends by two passes (one drawn or forced, then the
   other's pass to win or its own), or at the game's ply cap; both are scored by the game
   (Go: area).

Randomness: every move draws exactly one uniform ``u`` in [0, 1) from the player's generator
(also when the rules force the pass), and the move is the first allowed action, in action
order, whose cumulative weight exceeds ``u`` times the total.  So the ``k``-th move of a
player seeded ``s`` uses the ``k``-th number of ``numpy.random.default_rng(s).random(...)``,
which lets a batched runner that holds the same priors (one network call over many games,
:mod:`sparring.experiments.go_ladder`) play exactly the games of these players.

:func:`sample_policy_moves` and :func:`policy_probabilities` work on batches (one row per
position, the full action space) and are what both the player and the batched runner call.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np
import numpy.typing as npt

from sparring.games.base import Game, State
from sparring.players.searching import SearchPlayer
from sparring.search.evaluator import Evaluator
from sparring.search.limit import Limit, LimitClock
from sparring.search.puct import PUCTConfig, search
from sparring.search.stats import RootStats

MAX_TEMPERATURE = 100.0
"""The largest temperature a player takes (at 100 the draw is all but uniform)."""
NO_PASS = -1
"""``pass_move`` of a game without a pass action (chess)."""


@nb.njit(cache=True)
def _row_weights(
    priors: np.ndarray, allowed: np.ndarray, temperature: float, pass_move: int, out: np.ndarray
) -> float:
    """Unnormalised weights of one row into ``out`` (float64, zero where not drawn); the
    total, or -1.0 when the pass is forced (no allowed move other than the pass)."""
    actions = priors.shape[0]
    top = 0.0
    others = 0
    for a in range(actions):
        out[a] = 0.0
        if allowed[a]:
            if a != pass_move:
                others += 1
            if priors[a] > top:
                top = priors[a]
    if others == 0 and pass_move >= 0:
        return -1.0
    total = 0.0
    if top <= 0.0:  # every allowed move's prior underflowed: uniform among them
        for a in range(actions):
            if allowed[a]:
                out[a] = 1.0
                total += 1.0
        return total
    log_top = math.log(top)
    for a in range(actions):
        p = priors[a]
        if not allowed[a] or p <= 0.0:
            continue
        if temperature == 0.0:
            w = 1.0 if p == top else 0.0
        elif temperature == 1.0:
            w = np.float64(p)
        else:
            w = math.exp((math.log(p) - log_top) / temperature)
        out[a] = w
        total += w
    return total


@nb.njit(cache=True)
def policy_probabilities(
    priors: np.ndarray,
    allowed: np.ndarray,
    pass_now: np.ndarray,
    temperatures: np.ndarray,
    pass_move: int,
) -> np.ndarray:
    """The probability of every action of each row (float64 ``[B, A]``, rows summing to 1):
    ``priors`` (float32 ``[B, A]``, the network's priors over the legal moves), ``allowed``
    (bool ``[B, A]``: legal and not avoided by the finishing rules; the pass as legal),
    ``pass_now`` (bool ``[B]``: the rules say pass), ``temperatures`` (float64 ``[B]``, >= 0)
    and the game's pass action (:data:`NO_PASS` for none).  See the module doc."""
    rows, actions = priors.shape
    out = np.zeros((rows, actions), dtype=np.float64)
    for b in range(rows):
        if pass_now[b] and pass_move >= 0:
            out[b, pass_move] = 1.0
            continue
        total = _row_weights(priors[b], allowed[b], temperatures[b], pass_move, out[b])
        if total < 0.0:
            out[b, pass_move] = 1.0
            continue
        for a in range(actions):
            out[b, a] = out[b, a] / total
    return out


@nb.njit(cache=True)
def sample_policy_moves(
    priors: np.ndarray,
    allowed: np.ndarray,
    pass_now: np.ndarray,
    temperatures: np.ndarray,
    uniforms: np.ndarray,
    pass_move: int,
) -> np.ndarray:
    """The move of each row (int64 ``[B]``) drawn with the uniform ``uniforms[b]`` in
    [0, 1) from the distribution of :func:`policy_probabilities` (same arguments): the first
    allowed action whose cumulative weight exceeds ``u`` times the row's total.  Rows are
    independent: a row's move does not depend on the other rows."""
    rows, actions = priors.shape
    moves = np.empty(rows, dtype=np.int64)
    weights = np.empty(actions, dtype=np.float64)
    for b in range(rows):
        if pass_now[b] and pass_move >= 0:
            moves[b] = pass_move
            continue
        total = _row_weights(priors[b], allowed[b], temperatures[b], pass_move, weights)
        if total < 0.0:
            moves[b] = pass_move
            continue
        threshold = uniforms[b] * total
        chosen = -1
        last = -1
        running = 0.0
        for a in range(actions):
            w = weights[a]
            if w <= 0.0:
                continue
            last = a
            running += w
            if running > threshold:
                chosen = a
                break
        moves[b] = chosen if chosen >= 0 else last  # rounding at u close to 1
    return moves


def finishing_inputs(
    game: Game, state: State, moves: npt.NDArray[np.int64], priors: npt.NDArray[np.float32]
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_], npt.NDArray[np.bool_], int]:
    """One row of :func:`sample_policy_moves`'s inputs for ``state`` from a root's legal
    ``moves`` and their ``priors``: the priors over the action space, the allowed mask (legal,
    not avoided by the game's :meth:`~sparring.games.base.Game.move_filter`), ``pass_now``
    and the pass action (:data:`NO_PASS` for a game without a filter)."""
    full = np.zeros((1, game.num_actions), dtype=np.float32)
    allowed = np.zeros((1, game.num_actions), dtype=np.bool_)
    full[0, moves] = priors
    allowed[0, moves] = True
    rule = game.move_filter(state)
    if rule is None:
        return full, allowed, np.zeros(1, dtype=np.bool_), NO_PASS
    allowed[0] &= ~rule.avoid
    return full, allowed, np.array([rule.pass_now]), int(rule.pass_move)


class PolicySamplingPlayer(SearchPlayer):
    """Draws its move from the evaluator's priors at ``temperature`` under the game's
    finishing rules (see the module doc): one evaluation of the position a move (a search
    of 0 simulations, whose root carries the priors into the move's analysis)."""

    info_root = True

    def __init__(
        self, evaluator: Evaluator, temperature: float, name: str, seed: int | None = None
    ) -> None:
        if not (math.isfinite(temperature) and 0.0 <= temperature <= MAX_TEMPERATURE):
            raise ValueError(f"temperature must be in [0, {MAX_TEMPERATURE:g}], not {temperature}")
        super().__init__(name, seed, finish=True)
        self.evaluator = evaluator
        self.temperature = float(temperature)
        self.config = PUCTConfig(simulations=0)

    def run_search(
        self, game: Game, state: State, limit: Limit | None, clock: LimitClock
    ) -> RootStats:
        return search(game, state, self.evaluator, self.config, self.rng, limit, clock)

    def probabilities(self, game: Game, state: State, root: RootStats) -> npt.NDArray[np.float64]:
        """The probability of every action at ``state`` given the root's priors."""
        priors, allowed, pass_now, pass_move = finishing_inputs(
            game, state, root.moves, root.priors
        )
        temps = np.full(1, self.temperature)
        return np.asarray(policy_probabilities(priors, allowed, pass_now, temps, pass_move)[0])

    def _draw(self, game: Game, state: State, root: RootStats) -> int:
        u = np.array([self.rng.random()])
        priors, allowed, pass_now, pass_move = finishing_inputs(
            game, state, root.moves, root.priors
        )
        temps = np.full(1, self.temperature)
        return int(sample_policy_moves(priors, allowed, pass_now, temps, u, pass_move)[0])

    def pick_unsearched(self, game: Game, state: State, root: RootStats) -> int:
        """The drawn move (the root has priors and no visits)."""
        return self._draw(game, state, root)

    def pick(self, game: Game, state: State, root: RootStats) -> int:
        """The drawn move (a root with visits, should a caller's limit add simulations)."""
        return self._draw(game, state, root)


__all__ = [
    "MAX_TEMPERATURE",
    "NO_PASS",
    "PolicySamplingPlayer",
    "finishing_inputs",
    "policy_probabilities",
    "sample_policy_moves",
]
