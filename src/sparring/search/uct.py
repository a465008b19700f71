"""UCT Monte Carlo tree search with random playouts (AlphaDDA appendix 3, Eq. 12).

The search of AlphaDDA's MCTS1-MCTS4 baselines (the player is :mod:`sparring.players.uct`).

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

The search returns the root statistics (:class:`~sparring.search.stats.RootStats`); the
player plays the most visited root child, ties broken at random.

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

Games with Python-only rules (chess).  The search is written once as plain functions
(``register_jitable`` helpers); for a game whose kernels are Python callables,
:func:`uct_search` runs the very same code as Python over the same arrays, with the
playout of :func:`sparring.search.pyrules.capped_playout` instead of the game's
``random_playout`` (random chess games run to hundreds of plies): at most
``max_playout_plies`` random plies, an unfinished playout adjudicated by material (see that
module).  It is much slower than the compiled search (BENCHMARKS.md, "Chess").
"""

from __future__ import annotations

import functools
import math
import time
import warnings
from collections.abc import Callable
from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt
from numba.extending import register_jitable

from sparring.errors import GameOverError
from sparring.games.base import DRAW, FIRST_WINS, ONGOING, Game, Kernels, State
from sparring.rng import RngState
from sparring.search.kernels import KERNEL_TYPES, STATE_TYPE, as_state, is_compiled
from sparring.search.limit import ChunkSizer, Limit, LimitClock
from sparring.search.pyrules import DEFAULT_PLAYOUT_PLIES, capped_playout
from sparring.search.stats import RootStats

DEFAULT_C = 0.5
"""Exploration constant ``C`` of Eq. 12 (AlphaDDA appendix 3)."""
DEFAULT_N_OPEN = 5
"""Visit count at which a leaf is expanded (``N_open``, AlphaDDA appendix 3)."""
EPSILON = 1e-7
"""``epsilon`` of Eq. 12."""


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


@register_jitable(inline="always")
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
    stats: npt.NDArray[np.float64],
    links: npt.NDArray[np.int32],
    n_nodes: int,
    max_depth: int,
) -> int:
    """The compiled search (Eq. 12): ``simulations`` more simulations on the tree held in
    ``stats`` / ``links`` with ``n_nodes`` nodes (0: a new tree, the root expanded first);
    returns the new node count.

    Each node is two small records so that a node's data shares a cache line: ``stats``
    (float64) holds ``q/(N+eps)``, ``1/sqrt(N+eps)`` (both kept up to date by
    backpropagation, so that selection is one multiply-add per child), ``q`` and ``N``;
    ``links`` (int32) holds the first child, the number of children (0 for a leaf), the move
    into the node and the player who made it.  Records are initialised when their node is
    created (the arrays come from ``np.empty``: most of the capacity is usually never
    touched).  The caller sizes the arrays (:func:`tree_capacity` of all the simulations run
    on the tree).  ``max_depth`` bounds the length of a path (the game's
    ``max_game_length`` + 1).  A search run in several calls on the same tree and random
    stream is the search run in one.
    """
    inv_sqrt0 = 1.0 / math.sqrt(EPSILON)
    path = np.zeros(max_depth + 1, dtype=np.int64)
    path_mover = np.zeros(max_depth + 1, dtype=np.int64)
    moves_buf = np.empty(num_actions, dtype=np.int64)
    state = root_state.copy()

    if n_nodes == 0:
        # Expand the root at once (as the authors' code does).
        n_nodes = 1
        stats[0, _MEAN] = 0.0
        stats[0, _INV_SQRT] = inv_sqrt0
        stats[0, _VALUE] = 0.0
        stats[0, _VISITS] = 0.0
        links[0, _MOVE] = -1
        links[0, _MOVER] = 1 - to_move(root_state)
        n_nodes = _expand(
            0, state, n_nodes, stats, links, moves_buf, inv_sqrt0, legal_moves, to_move
        )

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
    return n_nodes


@functools.cache
def _uct_run() -> Callable[..., Any]:
    """The compiled search, built (or loaded from numba's disk cache) on first use."""
    i64, f64 = nb.types.int64, nb.types.float64
    stats_type = nb.types.Array(f64, 2, "C")
    links_type = nb.types.Array(nb.types.int32, 2, "C")
    signature = (
        *KERNEL_TYPES, STATE_TYPE, i64, STATE_TYPE, f64, i64, i64, stats_type, links_type, i64,
        i64,
    )  # fmt: skip
    with warnings.catch_warnings():  # numba: "first-class function type is experimental"
        warnings.simplefilter("ignore", nb.NumbaExperimentalFeatureWarning)
        return nb.njit(signature, cache=True)(_uct_run_impl)


class _Tree:
    """The node records of one UCT search, grown as simulations are added."""

    def __init__(self, capacity: int) -> None:
        self.stats = np.empty((capacity, 4), dtype=np.float64)
        self.links = np.empty((capacity, 4), dtype=np.int32)
        self.nodes = 0

    def reserve(self, capacity: int) -> None:
        """Make room for ``capacity`` nodes, keeping those made."""
        if capacity <= len(self.stats):
            return
        size = max(capacity, 2 * len(self.stats))
        stats = np.empty((size, 4), dtype=np.float64)
        links = np.empty((size, 4), dtype=np.int32)
        stats[: self.nodes] = self.stats[: self.nodes]
        links[: self.nodes] = self.links[: self.nodes]
        self.stats, self.links = stats, links

    def root(
        self,
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """(root moves, root visits, root value sums)."""
        start, k = int(self.links[0, _FIRST]), int(self.links[0, _COUNT])
        children = slice(start, start + k)
        return (
            self.links[children, _MOVE].astype(np.int64),
            self.stats[children, _VISITS].astype(np.int64),
            self.stats[children, _VALUE].copy(),
        )

    def root_stats(self, to_move: int) -> RootStats:
        """The root statistics of the tree as it is (``to_move``: the root's player)."""
        moves, visits, values = self.root()
        means = np.where(visits > 0, values / np.maximum(visits, 1), 0.0)
        total = int(visits.sum())
        uniform = np.full(len(moves), 1.0 / max(len(moves), 1), dtype=np.float32)
        return RootStats(
            moves=moves,
            visits=visits,
            q=means,
            priors=uniform,
            search_priors=uniform.copy(),
            network_value=math.nan,
            value=float(values.sum() / total) if total > 0 else 0.0,
            simulations=total,
            to_move=to_move,
            nodes=self.nodes,
            pv=self.principal_variation(),
        )

    def principal_variation(self) -> npt.NDArray[np.int64]:
        """The most visited child at each node from the root (first on ties) while visited."""
        line: list[int] = []
        node = 0
        while self.links[node, _COUNT] > 0:
            start = int(self.links[node, _FIRST])
            visits = self.stats[start : start + int(self.links[node, _COUNT]), _VISITS]
            best = int(np.argmax(visits))
            if visits[best] <= 0.0:
                break
            node = start + best
            line.append(int(self.links[node, _MOVE]))
        return np.array(line, dtype=np.int64)


def _run(
    game: Game | None,
    kernels: Kernels,
    state: State,
    simulations: int,
    rng_state: RngState,
    c: float,
    n_open: int,
    num_actions: int,
    max_depth: int,
    max_playout_plies: int = DEFAULT_PLAYOUT_PLIES,
    clock: LimitClock | None = None,
    to_move: int = 0,
) -> _Tree:
    """Run the search; returns its tree.  With an interruptible ``clock``, or one that
    reports progress, the simulations run in chunks (:class:`~sparring.search.limit.ChunkSizer`)
    on one tree, the clock asked between chunks (and given the root's statistics, the root's
    player ``to_move``, when a report is due); without, in one compiled call."""
    if is_compiled(kernels):
        run: Callable[..., Any] = _uct_run()
        playout: Any = kernels.random_playout
    elif game is not None:  # Python-only rules: the same search, run as Python
        run = _uct_run_impl
        playout = capped_playout(game, max_playout_plies)
    else:
        raise TypeError("a UCT search over Python kernels needs the game")
    root = as_state(state)

    def chunk(tree: _Tree, sims: int) -> None:
        tree.nodes = int(run(
            kernels.legal_moves, kernels.play, kernels.status, kernels.to_move, playout, root,
            int(sims), rng_state, float(c), int(n_open), int(num_actions), tree.stats,
            tree.links, int(tree.nodes), int(max_depth),
        ))  # fmt: skip

    if clock is None or not (clock.interruptible or clock.reports):
        tree = _Tree(tree_capacity(simulations, num_actions, n_open))
        chunk(tree, simulations)
        return tree
    sizer = ChunkSizer(clock, first=16 if is_compiled(kernels) else 1)
    tree = _Tree(tree_capacity(min(simulations, 1024), num_actions, n_open))
    chunk(tree, 0)  # the root, expanded
    done = 0
    while done < simulations and not clock.hit(tree.nodes, sizer.lookahead):
        sims = sizer.next(simulations - done)
        tree.reserve(tree_capacity(done + sims, num_actions, n_open))
        began = time.perf_counter()
        chunk(tree, sims)
        sizer.done(sims, time.perf_counter() - began)
        done += sims
        if done < simulations and clock.due():
            clock.report(tree.root_stats(to_move), "uct")
    return tree


def uct_search(
    game: Game,
    state: State,
    simulations: int,
    rng_state: RngState,
    c: float = DEFAULT_C,
    n_open: int = DEFAULT_N_OPEN,
    max_playout_plies: int = DEFAULT_PLAYOUT_PLIES,
    limit: Limit | None = None,
    clock: LimitClock | None = None,
) -> RootStats:
    """Run ``simulations`` UCT simulations (AlphaDDA appendix 3, Eq. 12) from ``state``.

    ``rng_state`` (see :func:`sparring.rng.new_rng_state`) is advanced in place; the same
    stream gives the same search.  ``state`` is not modified.  ``max_playout_plies`` caps the
    playouts of games with Python-only rules (chess) only; compiled games play to the end.
    The result's ``q`` is each root child's ``q_c / N_c`` (0 if unvisited), its ``priors``
    uniform and its ``network_value`` NaN (no evaluator).  ``limit``
    (:class:`~sparring.search.limit.Limit`) caps the simulations and, with a time, node or
    stop bound, runs them in compiled chunks on one tree, checking between chunks (``clock``:
    a started clock of ``limit`` to use instead of a new one).  Chunks do not change the
    search: run to the end, it is the search of one call.
    """
    if simulations < 1:
        raise ValueError("simulations must be >= 1")
    if n_open < 1:
        raise ValueError("n_open must be >= 1")
    if max_playout_plies < 0:
        raise ValueError("max_playout_plies must be >= 0")
    if game.is_terminal(state):
        raise GameOverError(f"{game.name}: the game is over, there is nothing to search")
    if limit is not None:
        simulations = limit.cap(simulations)
        if clock is None:
            clock = limit.start()
    if clock is not None:
        clock.budget = simulations
    tree = _run(
        game,
        game.kernels,
        state,
        simulations,
        rng_state,
        c,
        n_open,
        game.num_actions,
        game.max_game_length + 1,
        max_playout_plies,
        clock,
        game.to_move(state),
    )
    return tree.root_stats(game.to_move(state))


UCTResult = RootStats
"""UCT's result: the shared root-statistics record (old name)."""


__all__ = [
    "DEFAULT_C",
    "DEFAULT_N_OPEN",
    "EPSILON",
    "UCTResult",
    "tree_capacity",
    "uct_search",
]
