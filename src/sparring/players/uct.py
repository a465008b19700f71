"""Plain UCT Monte Carlo tree search with random playouts: AlphaDDA's MCTS1-MCTS4 baselines.

AlphaDDA appendix 3: each simulation has four steps.

* **Selection.** From the root, repeatedly descend to the child ``c`` of ``p`` maximising
  (Eq. 12)

  .. math:: \\mathrm{UCT} = q_c / N_c + C \\sqrt{\\ln(N_p + 1) / (N_c + \\epsilon)},

  with ``C = 0.5`` and ``epsilon = 1e-7``; ``q_c`` is the cumulative value of ``c``,
  ``N_c`` its visit count and ``N_p`` the visit count of ``p``.  For an unvisited child the
  exploitation term ``q_c / N_c`` is taken as ``0 / (0 + epsilon) = 0`` (its exploration
  term, ``~ 3000 C``, then makes every unvisited child be tried before any is revisited;
  among several unvisited children the first in move-generation order is taken).
* **Expansion.** A leaf's children (one per legal move) are created when the leaf is
  reached with a visit count of at least ``N_open = 5``; the simulation then goes on into
  one of the new children by Eq. 12.  The root is expanded at the start of the search.
* **Playout.** From the leaf, uniformly random legal moves to the end of the game (the
  game's compiled ``random_playout``).  A terminal leaf returns its result directly.
* **Backpropagation.** Along the path from the leaf to the root, ``N_i += 1`` and
  ``q_i += +1 / -1 / 0`` when the player who made the move into node ``i`` won / lost /
  drew the simulation.

After ``N_sim`` simulations the move of the most visited root child is played; ties are
broken uniformly at random with the player's random generator.  MCTS1-MCTS4 are 300, 100,
200 and 50 simulations (AlphaDDA section 4.3).

Implementation: the tree lives in preallocated numpy arrays, two small records per node
(float64: ``q/(N+eps)``, ``1/sqrt(N+eps)``, ``q``, ``N``; int32: first child, number of
children, move into the node, player who made it); the children of a node are contiguous.
Positions are not stored: each simulation copies the root position and replays the moves
along its path.  One compiled search serves every game: the game's numba kernels are passed
to it as first-class function values of fixed numba types (``KERNEL_TYPES``), which keeps
the compiled search in numba's disk cache (``cache=True``).  (Passing the kernels as plain
dispatcher arguments also compiles, but the cache then misses in every new process, because
the dispatcher types are not stable across processes, and every game recompiles: several
seconds each.)  All randomness comes from an explicit SplitMix64 stream
(:mod:`sparring.rng`).  A leaf with fewer than ``N_open`` visits goes straight to the game's
``random_playout``, which on a terminal position plays nothing and returns its result.

Differences from the authors' released code (``classical_MCTS.py``), where it departs from
the paper text: that code uses ``0.5 * sqrt(2 ln(N + 1) / n)`` with ``N`` the sum of the
children's visits and gives the first child of every newly expanded node one phantom visit;
this module follows Eq. 12 as printed (``N_p`` = the parent's own visit count) and has no
phantom visits.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from sparring.errors import GameOverError
from sparring.games import GAME_NAMES, get_game
from sparring.games.base import DRAW, FIRST_WINS, ONGOING, Game, Kernels, State
from sparring.players.base import Player
from sparring.players.registry import (
    PlayerSpec,
    check_options,
    option_float,
    option_int,
    register,
)
from sparring.rng import RngState, rng_state_from

# Numba types of the game kernels (:class:`~sparring.games.base.Kernels`) as first-class
# function values.  The compiled searches take the kernels as arguments of these types, so
# one compiled (and disk-cached) search serves every game; a game's kernel is compiled for
# the signature (and converted to a function pointer) on first use.
STATE_TYPE = nb.types.Array(nb.types.uint64, 1, "C")
"""The numba type of a position: every built-in game stores positions as ``uint64[:]``."""
MOVES_TYPE = nb.types.Array(nb.types.int64, 1, "C")
LEGAL_MOVES_TYPE = nb.types.FunctionType(nb.types.int64(STATE_TYPE, MOVES_TYPE))
PLAY_TYPE = nb.types.FunctionType(nb.types.none(STATE_TYPE, nb.types.int64))
STATUS_TYPE = nb.types.FunctionType(nb.types.int64(STATE_TYPE))
TO_MOVE_TYPE = nb.types.FunctionType(nb.types.int64(STATE_TYPE))
RANDOM_PLAYOUT_TYPE = nb.types.FunctionType(nb.types.int64(STATE_TYPE, STATE_TYPE))
KERNEL_TYPES = (LEGAL_MOVES_TYPE, PLAY_TYPE, STATUS_TYPE, TO_MOVE_TYPE, RANDOM_PLAYOUT_TYPE)

DEFAULT_C = 0.5
"""Exploration constant ``C`` of Eq. 12 (AlphaDDA appendix 3)."""
DEFAULT_N_OPEN = 5
"""Visit count at which a leaf is expanded (``N_open``, AlphaDDA appendix 3)."""
EPSILON = 1e-7
"""``epsilon`` of Eq. 12."""

MCTS_PRESETS: dict[str, tuple[str, int]] = {
    "mcts1": ("MCTS1", 300),
    "mcts2": ("MCTS2", 100),
    "mcts3": ("MCTS3", 200),
    "mcts4": ("MCTS4", 50),
}
"""AlphaDDA's MCTS baselines: preset name -> (display name, simulations)."""


def tree_capacity(simulations: int, num_actions: int, n_open: int) -> int:
    """Nodes needed for a search: the root plus the children of every expanded node.

    A node other than the root is expanded only after ``n_open >= 1`` simulations ended at
    it as a leaf (a new child has no visits, so a simulation expands at most one node), so
    at most ``simulations // n_open + 1`` nodes are expanded, the root included.
    """
    if n_open < 1:
        raise ValueError("n_open must be >= 1")
    expansions = simulations // n_open + 1
    return 1 + num_actions * (expansions + 1)


# Columns of the per-node records.
_MEAN, _INV_SQRT, _VALUE, _VISITS = 0, 1, 2, 3  # float64 record
_FIRST, _COUNT, _MOVE, _MOVER = 0, 1, 2, 3  # int32 record


@nb.njit(cache=True, inline="always")
def _expand(
    node: int,
    state: State,
    n_nodes: int,
    stats: npt.NDArray[np.float64],
    links: npt.NDArray[np.int32],
    moves_buf: npt.NDArray[np.int64],
    inv_sqrt0: float,
    legal_moves: Any,
    to_move: Any,
) -> int:
    """Create the children of ``node`` (one per legal move of ``state``); new node count."""
    k = legal_moves(state, moves_buf)
    links[node, _FIRST] = n_nodes
    links[node, _COUNT] = k
    me = to_move(state)
    for i in range(k):
        child = n_nodes + i
        stats[child, _MEAN] = 0.0
        stats[child, _INV_SQRT] = inv_sqrt0
        stats[child, _VALUE] = 0.0
        stats[child, _VISITS] = 0.0
        links[child, _FIRST] = 0
        links[child, _COUNT] = 0
        links[child, _MOVE] = moves_buf[i]
        links[child, _MOVER] = me
    return n_nodes + k


def _uct_run_impl(
    legal_moves: Any,
    play: Any,
    status: Any,
    to_move: Any,
    random_playout: Any,
    root_state: State,
    simulations: int,
    rng: RngState,
    c: float,
    n_open: int,
    num_actions: int,
    capacity: int,
    max_depth: int,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64], int]:
    """The compiled search (Eq. 12); returns (root moves, root visits, root value sums, nodes).

    Each node is two small records so that a node's data shares a cache line: ``stats``
    (float64) holds ``q/(N+eps)``, ``1/sqrt(N+eps)`` (both kept up to date by
    backpropagation, so that selection is one multiply-add per child), ``q`` and ``N``;
    ``links`` (int32) holds the first child, the number of children (0 for a leaf), the move
    into the node and the player who made it.  ``max_depth`` bounds the length of a path
    (the game's ``max_game_length`` + 1).
    """
    # Records are initialised when their node is created (most of the capacity is usually
    # never touched, so it is not zeroed).
    stats = np.empty((capacity, 4), dtype=np.float64)
    links = np.empty((capacity, 4), dtype=np.int32)
    inv_sqrt0 = 1.0 / math.sqrt(EPSILON)
    path = np.zeros(max_depth + 1, dtype=np.int64)
    path_mover = np.zeros(max_depth + 1, dtype=np.int64)
    moves_buf = np.empty(num_actions, dtype=np.int64)
    state = root_state.copy()

    # Expand the root at once (as the authors' code does).
    n_nodes = 1
    stats[0, _MEAN] = 0.0
    stats[0, _INV_SQRT] = inv_sqrt0
    stats[0, _VALUE] = 0.0
    stats[0, _VISITS] = 0.0
    links[0, _MOVE] = -1
    links[0, _MOVER] = 1 - to_move(root_state)
    n_nodes = _expand(0, state, n_nodes, stats, links, moves_buf, inv_sqrt0, legal_moves, to_move)

    for _ in range(simulations):
        state[:] = root_state
        node = 0
        depth = 0
        path[0] = 0
        path_mover[0] = links[0, _MOVER]
        result = ONGOING
        while True:
            if links[node, _COUNT] == 0:
                if stats[node, _VISITS] < n_open:
                    # Playout; on a terminal leaf it plays no move and returns the result.
                    result = random_playout(state, rng)
                    break
                s = status(state)
                if s != ONGOING:
                    result = s  # terminal leaf: its result, never expanded
                    break
                # Expansion: one child per legal move, then go on selecting among them.
                n_nodes = _expand(
                    node, state, n_nodes, stats, links, moves_buf, inv_sqrt0, legal_moves, to_move
                )
            # Selection by Eq. 12, as mean[ch] + (C sqrt(ln(N_p + 1))) * inv_sqrt[ch].
            explore = c * math.sqrt(math.log(stats[node, _VISITS] + 1.0))
            start = links[node, _FIRST]
            best = start
            best_score = -np.inf
            for ch in range(start, start + links[node, _COUNT]):
                score = stats[ch, _MEAN] + explore * stats[ch, _INV_SQRT]
                if score > best_score:
                    best_score = score
                    best = ch
            node = best
            play(state, links[node, _MOVE])
            depth += 1
            path[depth] = node
            path_mover[depth] = links[node, _MOVER]
        # Backpropagation: +1 / -1 / 0 for the player who moved into each node.
        winner = 0 if result == FIRST_WINS else 1
        for d in range(depth + 1):
            nd = path[d]
            n_c = stats[nd, _VISITS] + 1.0
            stats[nd, _VISITS] = n_c
            if result != DRAW:
                stats[nd, _VALUE] += 1.0 if path_mover[d] == winner else -1.0
            stats[nd, _MEAN] = stats[nd, _VALUE] / (n_c + EPSILON)
            stats[nd, _INV_SQRT] = 1.0 / math.sqrt(n_c + EPSILON)

    start = links[0, _FIRST]
    k = links[0, _COUNT]
    root_moves = np.empty(k, dtype=np.int64)
    root_visits = np.empty(k, dtype=np.int64)
    root_values = np.empty(k, dtype=np.float64)
    for i in range(k):
        root_moves[i] = links[start + i, _MOVE]
        root_visits[i] = int(stats[start + i, _VISITS])
        root_values[i] = stats[start + i, _VALUE]
    return root_moves, root_visits, root_values, n_nodes


@functools.cache
def _uct_run() -> Callable[..., Any]:
    """The compiled search, built (or loaded from numba's disk cache) on first use."""
    i64, f64 = nb.types.int64, nb.types.float64
    signature = (*KERNEL_TYPES, STATE_TYPE, i64, STATE_TYPE, f64, i64, i64, i64, i64)
    return nb.njit(signature, cache=True)(_uct_run_impl)


def as_state(state: State) -> State:
    """``state`` as the contiguous ``uint64`` array the compiled searches take (no copy when
    it already is one); :class:`TypeError` for a position of another dtype."""
    if state.dtype != np.uint64 or state.ndim != 1:
        raise TypeError(f"compiled searches need 1-d uint64 positions, not {state.dtype}")
    return np.ascontiguousarray(state)


def check_compiled(kernels: Kernels, what: str) -> None:
    """:class:`TypeError` unless the kernels are numba-compiled (compiled searches need them)."""
    for kernel in kernels[:5]:
        if not isinstance(kernel, nb.core.registry.CPUDispatcher):
            raise TypeError(f"{what} needs numba-compiled game kernels; this game has Python ones")


@dataclass(frozen=True)
class UCTResult:
    """The root statistics of one search."""

    moves: npt.NDArray[np.int64]
    """The legal moves of the root, in move-generation order."""
    visits: npt.NDArray[np.int64]
    """Visit count ``N_c`` of each root child; they sum to the number of simulations."""
    values: npt.NDArray[np.float64]
    """Mean value ``q_c / N_c`` of each root child for the player to move at the root
    (in ``[-1, 1]``; 0 for an unvisited child)."""
    nodes: int
    """Number of tree nodes created."""

    def best_moves(self) -> npt.NDArray[np.int64]:
        """The most visited root moves (several when tied)."""
        return self.moves[self.visits == self.visits.max()]


def _run(
    kernels: Kernels,
    state: State,
    simulations: int,
    rng_state: RngState,
    c: float,
    n_open: int,
    num_actions: int,
    max_depth: int,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64], int]:
    check_compiled(kernels, "UCT")
    capacity = tree_capacity(simulations, num_actions, n_open)
    moves, visits, values, nodes = _uct_run()(
        kernels.legal_moves,
        kernels.play,
        kernels.status,
        kernels.to_move,
        kernels.random_playout,
        as_state(state),
        int(simulations),
        rng_state,
        float(c),
        int(n_open),
        int(num_actions),
        int(capacity),
        int(max_depth),
    )
    return moves, visits, values, int(nodes)


def uct_search(
    game: Game,
    state: State,
    simulations: int,
    rng_state: RngState,
    c: float = DEFAULT_C,
    n_open: int = DEFAULT_N_OPEN,
) -> UCTResult:
    """Run ``simulations`` UCT simulations (AlphaDDA appendix 3, Eq. 12) from ``state``.

    ``rng_state`` (see :func:`sparring.rng.new_rng_state`) is advanced in place; the same
    stream gives the same search.  ``state`` is not modified.
    """
    if simulations < 1:
        raise ValueError("simulations must be >= 1")
    if n_open < 1:
        raise ValueError("n_open must be >= 1")
    if game.is_terminal(state):
        raise GameOverError(f"{game.name}: the game is over, there is nothing to search")
    moves, visits, values, nodes = _run(
        game.kernels,
        state,
        simulations,
        rng_state,
        c,
        n_open,
        game.num_actions,
        game.max_game_length + 1,
    )
    means = np.where(visits > 0, values / np.maximum(visits, 1), 0.0)
    return UCTResult(moves, visits, means, nodes)


def uct_benchmark(
    kernels: Kernels,
    state: State,
    simulations: int,
    rng: RngState,
    c: float = DEFAULT_C,
    n_open: int = DEFAULT_N_OPEN,
    num_actions: int | None = None,
    max_game_length: int | None = None,
) -> float:
    """Simulations per second of one compiled search of ``simulations`` from ``state``.

    ``num_actions`` and ``max_game_length`` (buffer sizes) are looked up among the built-in
    games whose kernels are ``kernels``; give them for another game.  A short search is run
    first so that compilation (or loading from numba's disk cache) is not timed; the timed
    part is the single compiled call, tree allocation included.
    """
    if num_actions is None or max_game_length is None:
        game = _builtin_game_with(kernels)
        num_actions = game.num_actions if num_actions is None else num_actions
        max_game_length = game.max_game_length if max_game_length is None else max_game_length
    if simulations < 1 or n_open < 1:
        raise ValueError("simulations and n_open must be >= 1")
    depth = max_game_length + 1
    _run(kernels, state, 10, rng, c, n_open, num_actions, depth)
    start = time.perf_counter()
    _run(kernels, state, simulations, rng, c, n_open, num_actions, depth)
    return simulations / (time.perf_counter() - start)


def _builtin_game_with(kernels: Kernels) -> Game:
    for name in GAME_NAMES:
        game = get_game(name)
        if game.kernels is kernels or tuple(game.kernels) == tuple(kernels):
            return game
    raise ValueError("unknown kernels: pass num_actions and max_game_length")


class UCTPlayer(Player):
    """AlphaDDA's MCTS player: UCT with random playouts (appendix 3, Eq. 12).

    The player's compiled random stream is drawn once from its seeded generator, so a seeded
    player is reproducible; ties for the most visited root child are broken at random.
    """

    def __init__(
        self,
        name: str = "MCTS",
        simulations: int = 300,
        seed: int | None = None,
        c: float = DEFAULT_C,
        n_open: int = DEFAULT_N_OPEN,
    ) -> None:
        super().__init__(name, seed)
        if simulations < 1:
            raise ValueError("simulations must be >= 1")
        if n_open < 1:
            raise ValueError("n_open must be >= 1")
        self.simulations = simulations
        self.c = c
        self.n_open = n_open
        self._stream = rng_state_from(self.rng)
        self.last_result: UCTResult | None = None

    def reseed(self, seed: int) -> None:
        """Reset the generator and draw the compiled stream from it again (as built)."""
        super().reseed(seed)
        self._stream = rng_state_from(self.rng)

    def search(self, game: Game, state: State) -> UCTResult:
        """The root statistics of a search from ``state`` with this player's settings."""
        result = uct_search(game, state, self.simulations, self._stream, self.c, self.n_open)
        self.last_result = result
        return result

    def select_move(self, game: Game, state: State) -> int:
        best = self.search(game, state).best_moves()
        return int(best[self.rng.integers(len(best))])


@register("uct", "UCT MCTS with random playouts; options sims, c, open, name (AlphaDDA App. 3)")
def _uct(game: Game, spec: PlayerSpec, seed: int | None) -> Player:
    game.require_compiled("UCT")
    check_options(spec, {"sims", "c", "open", "name"})
    return UCTPlayer(
        name=spec.options.get("name", "UCT"),
        simulations=option_int(spec, "sims", 300),
        seed=seed,
        c=option_float(spec, "c", DEFAULT_C),
        n_open=option_int(spec, "open", DEFAULT_N_OPEN),
    )


def _register_preset(kind: str, display: str, simulations: int) -> None:
    @register(kind, f"{display}: UCT MCTS with {simulations} simulations (AlphaDDA); option name")
    def _preset(game: Game, spec: PlayerSpec, seed: int | None) -> Player:
        game.require_compiled("UCT")
        check_options(spec, {"name"})
        return UCTPlayer(spec.options.get("name", display), simulations, seed)


for _kind, (_display, _sims) in MCTS_PRESETS.items():
    _register_preset(_kind, _display, _sims)


__all__ = [
    "DEFAULT_C",
    "DEFAULT_N_OPEN",
    "EPSILON",
    "MCTS_PRESETS",
    "UCTPlayer",
    "UCTResult",
    "tree_capacity",
    "uct_benchmark",
    "uct_search",
]
