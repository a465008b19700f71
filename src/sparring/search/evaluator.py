"""The evaluator protocol: what a search asks for the priors ``P(s, .)`` and value ``v(s)``.

AlphaDDA appendix 1.2, *Expand and Evaluate*: "the DNN evaluates the leaf node and outputs
``v(s_L)`` and ``p_a(s_L)``".  An :class:`Evaluator` does this for a whole batch of leaves at
once: it receives their input planes (AlphaDDA app. 1.1) and legal-move masks and returns

* ``priors``: float32 ``[B, num_actions]``, zero on illegal moves and summing to 1 over the
  legal ones (a softmax of the policy logits restricted to the legal moves), and
* ``values``: float32 ``[B]`` in ``[-1, 1]``, the expected result for the **side to move** in
  each position (+1 a win, -1 a loss, 0 a draw).

An :class:`AuxEvaluator` also returns one auxiliary float per position (e.g. SE-MCTS's
strength score ``beta``), which the PUCT search backs up into a per-edge sum for its score
hook (:mod:`sparring.search.hooks`).

This module needs no network library; the network evaluators (PyTorch, ONNX Runtime) live in
:mod:`sparring.nn.evaluators`, which implements this protocol.  Network-free evaluators here:

* :class:`UniformEvaluator`: uniform priors, value 0 (tests, stubs).
* :class:`RolloutEvaluator`: uniform priors, value from random playouts with the game's
  compiled kernels (tests, a network-free baseline).
* :class:`LeafValueEvaluator`: the base of evaluators that wrap another, keeping its priors
  (and auxiliary outputs) and giving the leaves other values; :class:`RolloutValueEvaluator`
  takes them, wholly or in part, from random playouts (AlphaGo's mixed leaf evaluation, for a
  network whose value head says little).
* :class:`CachedEvaluator`: wraps another evaluator with a cache of positions already
  evaluated (transpositions, and the overlap between consecutive searches of a game).
"""

from __future__ import annotations

import functools
import zlib
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numba as nb
import numpy as np
import numpy.typing as npt

from sparring.games.base import DRAW, FIRST_WINS, Game
from sparring.rng import RngState, new_rng_state
from sparring.search.kernels import (
    STATE_TYPE,
    STATES_TYPE,
    kernel_addresses,
    random_playout_at,
    to_move_at,
)

PlanesBatch = npt.NDArray[np.float32]
"""Input planes of a batch of positions, float32 ``[B, num_planes, rows, cols]``."""
LegalBatch = npt.NDArray[np.bool_]
"""Legal-move masks of a batch of positions, bool ``[B, num_actions]``."""
StateBatch = npt.NDArray[Any]
"""Positions of a batch, one game state array per row, ``[B, state_length]``."""
Priors = npt.NDArray[np.float32]
Values = npt.NDArray[np.float32]


@runtime_checkable
class Evaluator(Protocol):
    """Batched leaf evaluation for the PUCT search (AlphaDDA app. 1.2, *Expand and Evaluate*).

    The arrays passed in are views of the search's buffers, valid only during the call: an
    evaluator must not keep them.
    """

    def evaluate(
        self, planes: PlanesBatch, legal: LegalBatch, states: StateBatch | None = None
    ) -> tuple[Priors, Values]:
        """Priors ``[B, A]`` (normalised over legal moves) and values ``[B]`` (side to move).

        ``states`` holds the positions themselves; the search always passes them, and
        evaluators that need them (:class:`RolloutEvaluator`) require them.
        """
        ...


Aux = npt.NDArray[np.float32]
"""One auxiliary float per position of a batch, float32 ``[B]`` (:class:`AuxEvaluator`)."""


@runtime_checkable
class AuxEvaluator(Evaluator, Protocol):
    """An evaluator that also gives one auxiliary float per position (e.g. SE-MCTS's strength
    score ``beta(s, a)`` of the move into the position, Chen et al. 2025 Sec. 3.3).

    The PUCT search calls :meth:`evaluate_aux` instead of :meth:`evaluate` when its score hook
    asks for it (:attr:`sparring.search.hooks.ScoreHook.uses_aux`), and backs the auxiliary
    value up along the path into a per-edge sum, like the value but without sign changes.
    """

    def evaluate_aux(
        self, planes: PlanesBatch, legal: LegalBatch, states: StateBatch | None = None
    ) -> tuple[Priors, Values, Aux]:
        """:meth:`Evaluator.evaluate`'s priors and values, and the auxiliary floats ``[B]``."""
        ...


Moves = npt.NDArray[np.int64]
"""One move per position of a batch, int64 ``[B]`` (:class:`EdgeAuxEvaluator`)."""


@runtime_checkable
class EdgeAuxEvaluator(AuxEvaluator, Protocol):
    """An :class:`AuxEvaluator` whose auxiliary output belongs to the *edge* into each leaf:
    it needs the position before the move and the move (SE-MCTS's ``beta(s, a)`` from a
    strength estimator that scores state-action pairs, Chen et al. 2025 Sec. 3.3).

    The PUCT search prefers :meth:`evaluate_edge_aux` to :meth:`evaluate_aux` when the
    evaluator has it.
    """

    def evaluate_edge_aux(
        self,
        planes: PlanesBatch,
        legal: LegalBatch,
        states: StateBatch,
        parents: StateBatch,
        moves: Moves,
    ) -> tuple[Priors, Values, Aux]:
        """Priors and values of the leaves ``states`` and the auxiliary float of the edge
        into each: ``parents[b]`` is the position before the move ``moves[b]`` that led to
        ``states[b]``; a root (no edge) has ``moves[b] = -1`` and ``parents[b] = states[b]``,
        and its auxiliary output is never backed up (any value will do)."""
        ...


@nb.njit(cache=True)
def masked_softmax(logits: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Softmax of each row of ``logits`` over the entries where ``legal`` is True (else 0).

    A row with no legal entry is all zeros.
    """
    rows, cols = logits.shape
    out = np.zeros((rows, cols), dtype=np.float32)
    for b in range(rows):
        top = -np.inf
        for a in range(cols):
            if legal[b, a] and logits[b, a] > top:
                top = logits[b, a]
        if top == -np.inf:
            continue
        total = 0.0
        for a in range(cols):
            if legal[b, a]:
                e = np.exp(np.float64(logits[b, a]) - top)
                out[b, a] = e
                total += e
        for a in range(cols):
            out[b, a] = out[b, a] / total
    return out


def uniform_priors(legal: LegalBatch) -> Priors:
    """Uniform priors over the legal moves of each row (all zeros for a row with none)."""
    counts = legal.sum(axis=1, keepdims=True).astype(np.float32)
    return np.where(legal, 1.0 / np.maximum(counts, 1.0), 0.0).astype(np.float32)


class UniformEvaluator:
    """Uniform priors over the legal moves and value 0 for every position (tests, stubs)."""

    def evaluate(
        self, planes: PlanesBatch, legal: LegalBatch, states: StateBatch | None = None
    ) -> tuple[Priors, Values]:
        return uniform_priors(legal), np.zeros(len(legal), dtype=np.float32)


def _rollout_values_impl(
    random_playout_address: int,
    to_move_address: int,
    states: np.ndarray,
    rng: RngState,
    playouts: int,
) -> np.ndarray:
    random_playout = random_playout_at(random_playout_address)
    to_move = to_move_at(to_move_address)
    n = states.shape[0]
    values = np.zeros(n, dtype=np.float32)
    for b in range(n):
        mover = to_move(states[b])
        total = 0.0
        for _ in range(playouts):
            s = states[b].copy()
            result = random_playout(s, rng)
            if result != DRAW:
                winner = 0 if result == FIRST_WINS else 1
                won = winner == mover
                total += 1.0 if won else -1.0
        values[b] = total / playouts
    return values


@functools.cache
def _rollout_values() -> Callable[..., np.ndarray]:
    """:func:`_rollout_values_impl` compiled for kernels passed by address (any game)."""
    i64 = nb.types.int64
    signature = nb.types.Array(nb.types.float32, 1, "C")(i64, i64, STATES_TYPE, STATE_TYPE, i64)
    return nb.njit(signature, cache=True)(_rollout_values_impl)


class RolloutEvaluator:
    """Uniform priors; value = mean result of ``playouts`` uniformly random playouts.

    The playouts use the game's compiled ``random_playout`` and a SplitMix64 stream seeded
    from ``seed`` (:mod:`sparring.rng`), so a search with this evaluator is reproducible.
    The value is from the point of view of the side to move in each position.
    """

    def __init__(self, game: Game, seed: int = 0, playouts: int = 1) -> None:
        if playouts < 1:
            raise ValueError("playouts must be >= 1")
        self.kernels = kernel_addresses(game.kernels)
        self.playouts = int(playouts)
        self.rng_state = new_rng_state(seed)

    def evaluate(
        self, planes: PlanesBatch, legal: LegalBatch, states: StateBatch | None = None
    ) -> tuple[Priors, Values]:
        if states is None:
            raise ValueError("RolloutEvaluator needs the positions (states=...)")
        values = _rollout_values()(
            self.kernels.random_playout.address,
            self.kernels.to_move.address,
            np.ascontiguousarray(states, dtype=np.uint64),
            self.rng_state,
            self.playouts,
        )
        return uniform_priors(legal), values


class LeafValueEvaluator(ABC):
    """Base of the evaluators that keep a wrapped ``evaluator``'s priors (and auxiliary
    outputs) and give the leaves other values (:meth:`leaf_values`).

    It has the methods of an :class:`EdgeAuxEvaluator`; each passes the call to
    ``evaluator``'s method of the same name (the human-like kinds' strength evaluators have all
    three), so a search with or without SE-MCTS's score hook gets the wrapped evaluator's
    priors and ``beta`` unchanged.  The search always passes the positions.
    """

    def __init__(self, evaluator: Evaluator) -> None:
        self.evaluator = evaluator

    @abstractmethod
    def leaf_values(self, values: Values, states: StateBatch) -> Values:
        """The values of the leaves ``states``, given the wrapped evaluator's ``values``."""

    def _values(self, values: Values, states: StateBatch | None) -> Values:
        if states is None:
            raise ValueError(f"{type(self).__name__} needs the positions (states=...)")
        return self.leaf_values(values, states)

    def evaluate(
        self, planes: PlanesBatch, legal: LegalBatch, states: StateBatch | None = None
    ) -> tuple[Priors, Values]:
        """The wrapped evaluator's priors; :meth:`leaf_values`."""
        priors, values = self.evaluator.evaluate(planes, legal, states)
        return priors, self._values(values, states)

    def evaluate_aux(
        self, planes: PlanesBatch, legal: LegalBatch, states: StateBatch | None = None
    ) -> tuple[Priors, Values, Aux]:
        """The wrapped evaluator's priors and auxiliary outputs; :meth:`leaf_values`."""
        method = getattr(self.evaluator, "evaluate_aux", None)
        if method is None:
            raise TypeError("the wrapped evaluator has no evaluate_aux")
        priors, values, aux = method(planes, legal, states)
        return priors, self._values(values, states), aux

    def evaluate_edge_aux(
        self,
        planes: PlanesBatch,
        legal: LegalBatch,
        states: StateBatch,
        parents: StateBatch,
        moves: Moves,
    ) -> tuple[Priors, Values, Aux]:
        """The wrapped evaluator's priors and edge outputs; :meth:`leaf_values`."""
        method = getattr(self.evaluator, "evaluate_edge_aux", None)
        if method is None:
            raise TypeError("the wrapped evaluator has no evaluate_edge_aux")
        priors, values, aux = method(planes, legal, states, parents, moves)
        return priors, self._values(values, states), aux


class RolloutValueEvaluator(LeafValueEvaluator):
    """``evaluator``'s priors (and auxiliary outputs); values mixed with random playouts.

    The value of a leaf is ``(1 - mix) * v_net + mix * v_rollout`` (AlphaGo's leaf evaluation,
    Silver et al. 2016, ``V(s_L) = (1 - lambda) v(s_L) + lambda z_L``, here with the mean
    result of ``playouts`` playouts for ``z_L``), ``v_rollout`` the mean result of the game's
    compiled ``random_playout`` from the side to move's view (+1 a win, -1 a loss, 0 a draw).
    Each position's playouts draw from a SplitMix64 stream seeded by ``seed`` and the
    position's bytes, so a position gets the same value in any batch, search or restored
    player.  The other methods are :class:`LeafValueEvaluator`'s.
    """

    def __init__(
        self, evaluator: Evaluator, game: Game, seed: int, playouts: int, mix: float = 1.0
    ) -> None:
        if playouts < 1:
            raise ValueError("playouts must be >= 1")
        if not 0.0 <= mix <= 1.0:
            raise ValueError("mix must be in [0, 1]")
        super().__init__(evaluator)
        self.kernels = kernel_addresses(game.kernels)
        self.seed = int(seed) % (1 << 63)
        self.playouts = int(playouts)
        self.mix = float(mix)

    def rollout_values(self, states: StateBatch) -> Values:
        """The playouts' mean result for each position (side to move's view)."""
        run = _rollout_values()
        out = np.empty(len(states), dtype=np.float32)
        for i, state in enumerate(np.ascontiguousarray(states, dtype=np.uint64)):
            rng = new_rng_state((self.seed * 1_000_003 + zlib.crc32(state.tobytes())) % (1 << 63))
            out[i] = run(
                self.kernels.random_playout.address,
                self.kernels.to_move.address,
                state[None, :],
                rng,
                self.playouts,
            )[0]
        return out

    def leaf_values(self, values: Values, states: StateBatch) -> Values:
        """``(1 - mix) * values + mix *`` :meth:`rollout_values`."""
        rollout = self.rollout_values(states)
        if self.mix == 1.0:
            return rollout
        mixed = (1.0 - self.mix) * np.asarray(values, dtype=np.float32) + self.mix * rollout
        return mixed.astype(np.float32)


class CachedEvaluator:
    """Wraps an evaluator with a cache of its outputs keyed by position (transpositions).

    A position reached again, by another move order in the same tree, in a later search of
    the same game (the next move's tree overlaps the last one's) or in another game of a
    batch, is not sent to the network again.  At most ``capacity`` positions are kept; the
    least recently used go first.  Only for deterministic evaluators: with head dropout > 0
    (AlphaDDA2) a cached output would repeat one damaged evaluation.  The search always
    passes the positions; calls without them go straight to the wrapped evaluator.
    """

    def __init__(self, evaluator: Evaluator, capacity: int = 200_000) -> None:
        if capacity < 1:
            raise ValueError("capacity must be >= 1")
        self.evaluator = evaluator
        self.capacity = int(capacity)
        self._cache: OrderedDict[bytes, tuple[Priors, float]] = OrderedDict()
        self.hits = 0
        """Positions answered from the cache."""
        self.misses = 0
        """Positions sent to the wrapped evaluator."""

    def __len__(self) -> int:
        return len(self._cache)

    def clear(self) -> None:
        """Forget every cached output (e.g. after the network's weights change)."""
        self._cache.clear()

    def evaluate(
        self, planes: PlanesBatch, legal: LegalBatch, states: StateBatch | None = None
    ) -> tuple[Priors, Values]:
        if states is None:
            return self.evaluator.evaluate(planes, legal, states)
        n = len(states)
        priors = np.empty(legal.shape, dtype=np.float32)
        values = np.empty(n, dtype=np.float32)
        keys = [states[b].tobytes() for b in range(n)]
        miss: list[int] = []
        first_row: dict[bytes, int] = {}
        for b, key in enumerate(keys):
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                priors[b] = hit[0]
                values[b] = hit[1]
                self.hits += 1
            elif key not in first_row:
                first_row[key] = b
                miss.append(b)
        if miss:
            rows = np.array(miss, dtype=np.int64)
            p, v = self.evaluator.evaluate(planes[rows], legal[rows], states[rows])
            for i, b in enumerate(miss):
                priors[b] = p[i]
                values[b] = v[i]
                self._cache[keys[b]] = (np.array(p[i], dtype=np.float32), float(v[i]))
            self.misses += len(miss)
            while len(self._cache) > self.capacity:
                self._cache.popitem(last=False)
        for b, key in enumerate(keys):  # duplicates within the batch
            if key in first_row and first_row[key] != b:
                priors[b] = priors[first_row[key]]
                values[b] = values[first_row[key]]
                self.hits += 1
        return priors, values


__all__ = [
    "Aux",
    "AuxEvaluator",
    "CachedEvaluator",
    "EdgeAuxEvaluator",
    "Evaluator",
    "LeafValueEvaluator",
    "LegalBatch",
    "Moves",
    "PlanesBatch",
    "Priors",
    "RolloutEvaluator",
    "RolloutValueEvaluator",
    "StateBatch",
    "UniformEvaluator",
    "Values",
    "masked_softmax",
    "uniform_priors",
]
