"""Depth-limited minimax with hand-made evaluations: AlphaDDA's Minimax1 and Minimax2.

AlphaDDA appendix 4.  The tree below the current position is searched to a depth of
``N_depth = 3`` plies (the player's move, the opponent's reply, the player's next move).
Leaves (positions at depth 3, and terminal positions at any depth) are evaluated from the
point of view of the minimax player; a node where the minimax player is to move takes the
maximum of its children, a node where the opponent is to move the minimum; the move of the
root child with the largest value is played.  Passes (Othello) are moves like any other and
use up one ply of depth.

Leaf evaluations (``c_minimax`` = +1 for the player who searches, and a colour ``c`` counts
+1 for that player's discs and -1 for the opponent's):

* **Connect4.**  Every *connection* of two same-colour discs is worth ``R * c_disc *
  c_minimax`` and every connection of three is worth ``R**2 * c_disc * c_minimax``; the leaf
  value is the sum over the board.  A terminal position is worth ``R**3 * c_win *
  c_minimax`` (0 for a draw).  Minimax1 has ``R = 100``, Minimax2 ``R = 2``.

  *What a connection is.*  The paper speaks of "connections of two (three) same-color
  discs"; we read a connection as a **maximal contiguous run** of exactly two (three)
  same-colour discs along one of the four line directions (vertical, horizontal, both
  diagonals): the cells just before and after the run, along that direction, are not
  discs of the same colour (they may be empty, the opponent's, or off the board).  So ``xxx``
  counts once as a three and not also as two twos, and runs are counted whatever lies
  around them (a run blocked by the opponent still counts).  This is the literal reading
  of "connection" and is also what the authors' released code (``minimax.py``,
  ``Check_row``/``Check_column``/``Check_diagonal*``) computes.  Runs of four or more only
  occur in terminal positions, which are scored by the terminal value.  With ``R = 2`` the
  terminal value (8) can be smaller than a heuristic leaf value, so Minimax2 may prefer a
  quiet position to a win; that is what the paper's formula gives and is kept.
* **Othello (6x6 and 8x8).**  Eq. 13: ``E = sum_x sum_y v(x, y) o(x, y) c_minimax`` with
  ``o`` = +1 / -1 / 0 for a first-player disc / second-player disc / empty square, i.e. the
  table weights of the player's discs minus those of the opponent's discs.  Minimax1 uses
  the tables of Eq. 14 (6x6) and Eq. 15 (8x8), Minimax2 weights every square 1 (disc
  difference).  A terminal position is worth ``E_end = 1000 c_win c_minimax``.  When the
  number of empty squares at the root is at most 6 ("the last six turns"), the search goes
  to the end of the game (no depth limit), so endgame play is exact.
* **Tic-tac-toe** (not in the paper; for tests): a terminal position is worth
  ``1000 c_win c_minimax`` and any other leaf 0.  With at most 9 empty squares the search
  always goes to the end of the game, so the player is perfect.

Ties between root moves of equal value are broken uniformly at random with the player's
random generator (the paper does not say; the authors' code takes the first in move order).
Values are not discounted by depth, as in the paper: a win in one and a forced win in three
are worth the same.  Connect4 has no exact-endgame rule (the paper gives it for Othello
only).  Where the authors' released code departs from the paper text we follow the paper:
their Connect4 ``minimax2.py`` scores connections ``100 (n - 1)`` with a 10**6 win, and their
Othello code deepens the endgame search to 6 plies rather than to the end of the game.

Implementation: an iterative, compiled alpha-beta search (fail-soft) over the game's numba
kernels, which are passed in as first-class function values like the evaluation kernel.
Alpha-beta returns the same minimax value as plain minimax.  So that ties at the root are
found exactly, every root child is searched with the window ``(nextafter(best, -inf),
+inf)``: a child whose value equals the best so far is then valued exactly, and only
children worse than the best get a mere upper bound.  ``exact_values=True`` searches every
root child with an infinite window, so that every root value is exact.
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

from sparring.errors import GameOverError, IncompatiblePlayerError
from sparring.games import connect4 as c4
from sparring.games import othello as oth
from sparring.games import tictactoe as ttt
from sparring.games.base import DRAW, FIRST_WINS, ONGOING, Game, State
from sparring.games.bits import popcount
from sparring.games.connect4 import Connect4
from sparring.games.othello import Othello
from sparring.games.tictactoe import TicTacToe
from sparring.players.base import Decision, Player
from sparring.players.cache import PlayerCache
from sparring.players.settings import (
    MINIMAX_DEFAULT_DEPTH,
    MINIMAX_PRESETS,
    MinimaxSettings,
    TableName,
)
from sparring.search.analysis import MoveAnalysis
from sparring.search.kernels import (
    KERNEL_TYPES,
    STATE_TYPE,
    STATES_TYPE,
    as_state,
    check_compiled,
)
from sparring.search.limit import ChunkSizer, Limit, LimitClock

DEFAULT_DEPTH = MINIMAX_DEFAULT_DEPTH
"""``N_depth`` of AlphaDDA appendix 4."""
OTHELLO_EXACT_EMPTIES = 6
"""Othello: search to the end of the game when at most this many squares are empty."""
OTHELLO_WIN_VALUE = 1000.0
"""Othello: ``E_end = 1000 c_win c_minimax``."""
TICTACTOE_WIN_VALUE = 1000.0

OTHELLO6_TABLE = np.array(
    [
        [30, -5, 2, 2, -5, 30],
        [-5, -15, 3, 3, -15, -5],
        [2, 3, 0, 0, 3, 2],
        [2, 3, 0, 0, 3, 2],
        [-5, -15, 3, 3, -15, -5],
        [30, -5, 2, 2, -5, 30],
    ],
    dtype=np.float64,
)
"""Eq. 14: square values ``v(x, y)`` of Minimax1 on the 6x6 board."""

OTHELLO8_TABLE = np.array(
    [
        [120, -20, 20, 5, 5, 20, -20, 120],
        [-20, -40, -5, -5, -5, -5, -40, -20],
        [20, -5, 15, 3, 3, 15, -5, 20],
        [5, -5, 3, 3, 3, 3, -5, 5],
        [5, -5, 3, 3, 3, 3, -5, 5],
        [20, -5, 15, 3, 3, 15, -5, 20],
        [-20, -40, -5, -5, -5, -5, -40, -20],
        [120, -20, 20, 5, 5, 20, -20, 120],
    ],
    dtype=np.float64,
)
"""Eq. 15: square values ``v(x, y)`` of Minimax1 on the 8x8 board."""

PARAMS_TYPE = nb.types.Array(nb.types.float64, 1, "C")
EVALUATE_TYPE = nb.types.FunctionType(nb.types.float64(STATE_TYPE, nb.types.int64, PARAMS_TYPE))
"""Numba type of an evaluation kernel ``(state, player, params) -> value for player``."""

_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@nb.njit(cache=True, inline="always")
def _terminal_value(status: int, me: int, win_value: float) -> float:
    """``win_value * c_win * c_minimax``: +win_value if ``me`` won, -win_value if it lost."""
    if status == DRAW:
        return 0.0
    return win_value if (status == FIRST_WINS) == (me == 0) else -win_value


# ---- Connect4 --------------------------------------------------------------------------
@nb.njit(cache=True)
def connect4_connections(discs: np.uint64) -> tuple[int, int]:
    """(twos, threes): maximal runs of exactly 2 and 3 of ``discs`` along the four lines.

    ``discs`` is a Connect4 bitboard (bit ``7*column + row``, row 6 an always-empty
    sentinel, so shifts never wrap from one line onto another).
    """
    twos = 0
    threes = 0
    for s in (1, 7, 6, 8):  # vertical, horizontal, the two diagonals
        sh = np.uint64(s)
        two = discs & (discs >> sh)  # x and x+s are discs
        three = two & (discs >> (sh + sh))
        four = three & (discs >> (sh + sh + sh))
        start = discs & ~(discs << sh)  # x is a disc and x-s is not
        twos += popcount(start & two & ~three)
        threes += popcount(start & three & ~four)
    return twos, threes


@nb.njit(cache=True)
def connect4_evaluate(state: State, me: int, params: npt.NDArray[np.float64]) -> float:
    """AlphaDDA appendix 4, Connect4: ``sum R c_disc c_minimax`` over connections of two and
    ``R**2 ...`` over connections of three; ``R**3 c_win c_minimax`` when terminal.

    ``params[0]`` is ``R``; the value is from the point of view of player ``me``.
    """
    r = params[0]
    status = int(state[c4.STATUS])
    if status != ONGOING:
        return _terminal_value(status, me, r * r * r)
    cur = state[c4.CUR]
    other = cur ^ state[c4.MASK]
    mover = int(state[c4.PLY] % np.uint64(2))
    mine = cur if mover == me else other
    theirs = other if mover == me else cur
    my2, my3 = connect4_connections(mine)
    their2, their3 = connect4_connections(theirs)
    return r * (my2 - their2) + r * r * (my3 - their3)


# ---- Othello ---------------------------------------------------------------------------
@nb.njit(cache=True)
def othello_evaluate(state: State, me: int, params: npt.NDArray[np.float64]) -> float:
    """AlphaDDA Eq. 13: ``E = sum v(x, y) o(x, y) c_minimax``; ``1000 c_win c_minimax`` when
    terminal.  ``params`` is the square table flattened row by row (``N*N`` values; bit
    ``N*r + c`` of the board is square ``(r, c)``).
    """
    status = int(state[oth.STATUS])
    if status != ONGOING:
        return _terminal_value(status, me, OTHELLO_WIN_VALUE)
    black = state[oth.BLACK]
    white = state[oth.WHITE]
    total = 0.0
    for i in range(params.shape[0]):
        bit = _ONE << np.uint64(i)
        if black & bit:
            total += params[i]
        elif white & bit:
            total -= params[i]
    return total if me == 0 else -total


# ---- tic-tac-toe -----------------------------------------------------------------------
@nb.njit(cache=True)
def tictactoe_evaluate(state: State, me: int, params: npt.NDArray[np.float64]) -> float:
    """Win/loss only: ``params[0] * c_win * c_minimax`` when terminal, else 0."""
    status = int(state[ttt.STATUS])
    if status != ONGOING:
        return _terminal_value(status, me, params[0])
    return 0.0


# ---- the search ------------------------------------------------------------------------
def _minimax_value_impl(
    legal_moves: Any,
    play: Any,
    status: Any,
    to_move: Any,
    evaluate: Any,
    params: npt.NDArray[np.float64],
    me: int,
    states: npt.NDArray[np.uint64],
    moves: npt.NDArray[np.int64],
    work: npt.NDArray[np.float64],
    counters: npt.NDArray[np.int64],
    depth: int,
    alpha: float,
    beta: float,
    budget: int,
    resume: npt.NDArray[np.float64],
) -> tuple[float, int, bool]:
    """Fail-soft alpha-beta value, for player ``me``, of the position in ``states[0]``,
    searched ``depth`` plies deep, the number of leaves evaluated, and whether the search
    finished.

    An iterative depth-first search over explicit stacks: ``states[d]`` is the position at
    ply ``d`` of the current line, ``moves[d]`` its legal moves, ``counters[d] = (number of
    moves, next move index, maximising?)`` and ``work[d] = (best value, alpha, beta)``.
    After ``budget`` leaves (``budget <= 0``: no bound) it returns unfinished, the ply and
    the last leaf's value saved in ``resume`` (``[ply, value, resumed?]``); called again with
    ``resume[2] = 1`` and the same stacks it goes on where it stopped (``alpha`` and ``beta``
    are then unused), so that a search run in chunks is the search run at once.
    """
    leaves = 0
    if resume[2] != 0.0:
        d = int(resume[0])
        v = resume[1]
        descending = False
    else:
        d = 0
        work[0, 1] = alpha
        work[0, 2] = beta
        descending = True
        v = 0.0
    while True:
        if descending:
            st = states[d]
            if d == depth or status(st) != ONGOING:
                v = evaluate(st, me, params)
                leaves += 1
                descending = False
                if leaves == budget:
                    resume[0] = d
                    resume[1] = v
                    resume[2] = 1.0
                    return v, leaves, False
            else:
                counters[d, 0] = legal_moves(st, moves[d])
                counters[d, 1] = 1
                maximising = to_move(st) == me
                counters[d, 2] = 1 if maximising else 0
                work[d, 0] = -np.inf if maximising else np.inf
                states[d + 1, :] = st
                play(states[d + 1], moves[d, 0])
                work[d + 1, 1] = work[d, 1]
                work[d + 1, 2] = work[d, 2]
                d += 1
                continue
        # Hand the value ``v`` of the node at ply ``d`` to its parent.
        if d == 0:
            resume[2] = 0.0
            return v, leaves, True
        d -= 1
        if counters[d, 2] == 1:
            if v > work[d, 0]:
                work[d, 0] = v
            if work[d, 0] > work[d, 1]:
                work[d, 1] = work[d, 0]
        else:
            if v < work[d, 0]:
                work[d, 0] = v
            if work[d, 0] < work[d, 2]:
                work[d, 2] = work[d, 0]
        i = counters[d, 1]
        if work[d, 1] >= work[d, 2] or i == counters[d, 0]:
            v = work[d, 0]  # cut-off or all children done: this node is finished too
            continue
        states[d + 1, :] = states[d]
        play(states[d + 1], moves[d, i])
        counters[d, 1] = i + 1
        work[d + 1, 1] = work[d, 1]
        work[d + 1, 2] = work[d, 2]
        d += 1
        descending = True


def _minimax_root_impl(
    legal_moves: Any,
    play: Any,
    status: Any,
    to_move: Any,
    evaluate: Any,
    root_state: State,
    params: npt.NDArray[np.float64],
    depth: int,
    num_actions: int,
    exact_values: bool,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], int]:
    """Values of the root's children (root moves, values, leaves evaluated).

    Unless ``exact_values``, a child worse than the best so far gets an upper bound instead
    of its value; every child whose value equals the maximum is valued exactly.
    """
    me = to_move(root_state)
    root_moves_buf = np.empty(num_actions, dtype=np.int64)
    k = legal_moves(root_state, root_moves_buf)
    n = root_state.shape[0]
    levels = max(depth, 1) + 1
    states = np.empty((levels, n), dtype=np.uint64)
    moves = np.empty((levels, num_actions), dtype=np.int64)
    work = np.empty((levels, 3), dtype=np.float64)
    counters = np.zeros((levels, 3), dtype=np.int64)
    root_moves = root_moves_buf[:k].copy()
    values = np.empty(k, dtype=np.float64)
    resume = np.zeros(3, dtype=np.float64)
    best = -np.inf
    leaves = 0
    for i in range(k):
        states[0, :] = root_state
        play(states[0], root_moves[i])
        alpha = -np.inf if exact_values else np.nextafter(best, -np.inf)
        v, n_leaves, _ = _minimax_value(
            legal_moves,
            play,
            status,
            to_move,
            evaluate,
            params,
            me,
            states,
            moves,
            work,
            counters,
            depth - 1,
            alpha,
            np.inf,
            0,
            resume,
        )
        leaves += n_leaves
        values[i] = v
        if v > best:
            best = v
    return root_moves, values, leaves


_minimax_value = nb.njit(cache=True)(_minimax_value_impl)


@functools.cache
def _minimax_root() -> Callable[..., Any]:
    """The compiled root search, built (or loaded from numba's disk cache) on first use."""
    i64 = nb.types.int64
    signature = (
        *KERNEL_TYPES[:4],
        EVALUATE_TYPE,
        STATE_TYPE,
        PARAMS_TYPE,
        i64,
        i64,
        nb.types.boolean,
    )
    return nb.njit(signature, cache=True)(_minimax_root_impl)


@functools.cache
def _minimax_chunk() -> Callable[..., Any]:
    """:func:`_minimax_value_impl` compiled for calls from Python (the chunks of a limited
    search), the kernels typed as in :func:`_minimax_root`."""
    i64, f64 = nb.types.int64, nb.types.float64
    signature = (
        *KERNEL_TYPES[:4], EVALUATE_TYPE, PARAMS_TYPE, i64, STATES_TYPE,
        nb.types.Array(i64, 2, "C"), nb.types.Array(f64, 2, "C"), nb.types.Array(i64, 2, "C"),
        i64, f64, f64, i64, PARAMS_TYPE,
    )  # fmt: skip
    return nb.njit(signature, cache=True)(_minimax_value_impl)


def _limited_root(
    game: Game,
    root: State,
    ev: Evaluator,
    depth: int,
    exact_values: bool,
    clock: LimitClock,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], int, int]:
    """Iterative deepening under ``clock``: the root values of the deepest iteration
    completed (depth 1 always completes: one evaluation per root move), that depth and the
    leaves evaluated.  Each iteration is :func:`_minimax_root_impl`'s search at its depth,
    run as compiled chunks of leaves with the clock asked between them."""
    k = game.kernels
    chunk = _minimax_chunk()
    me = int(game.to_move(root))
    buffer = np.empty(game.num_actions, dtype=np.int64)
    root_moves = buffer[: int(k.legal_moves(root, buffer))].copy()  # the kernel's order
    n = root.shape[0]
    sizer = ChunkSizer(clock, first=256)
    resume = np.zeros(3, dtype=np.float64)
    leaves = 0
    result = (root_moves, np.zeros(len(root_moves)), 0)
    for d in range(1, depth + 1):
        if d > 1 and clock.hit(leaves, sizer.lookahead):
            break
        levels = d + 1
        states = np.empty((levels, n), dtype=np.uint64)
        moves = np.empty((levels, game.num_actions), dtype=np.int64)
        work = np.empty((levels, 3), dtype=np.float64)
        counters = np.zeros((levels, 3), dtype=np.int64)
        values = np.empty(len(root_moves), dtype=np.float64)
        best = -np.inf
        complete = True
        for i, move in enumerate(root_moves):
            states[0, :] = root
            k.play(states[0], int(move))
            alpha = -np.inf if exact_values else float(np.nextafter(best, -np.inf))
            resume[:] = 0.0
            while True:
                budget = 0 if d == 1 else sizer.next(1 << 40)
                began = time.perf_counter()
                v, n_leaves, finished = chunk(
                    k.legal_moves, k.play, k.status, k.to_move, ev.kernel, ev.params, me,
                    states, moves, work, counters, d - 1, alpha, np.inf, budget, resume,
                )  # fmt: skip
                sizer.done(int(n_leaves), time.perf_counter() - began)
                leaves += int(n_leaves)
                if finished:
                    break
                if clock.hit(leaves, sizer.lookahead):
                    complete = False
                    break
            if not complete:
                break
            values[i] = v
            best = max(best, float(v))
        if not complete:
            break
        result = (root_moves, values, d)
    return result[0], result[1], result[2], leaves


# ---- per-game evaluators ---------------------------------------------------------------
@dataclass(frozen=True)
class Evaluator:
    """A leaf evaluation for one game: compiled kernel, its parameters, endgame rule."""

    kernel: Callable[..., float]
    """``(state, player, params) -> value for player`` (numba)."""
    params: npt.NDArray[np.float64]
    exact_empties: int
    """Search to the end of the game when at most this many squares are empty (-1: never)."""


def othello_table(size: int, table: TableName) -> npt.NDArray[np.float64]:
    """The square values of Eq. 14 / Eq. 15 (``"paper"``) or all ones (``"ones"``)."""
    if table == "ones":
        return np.ones((size, size), dtype=np.float64)
    if table == "paper":
        return (OTHELLO8_TABLE if size == 8 else OTHELLO6_TABLE).copy()
    raise ValueError(f"unknown Othello table {table!r}; use 'paper' or 'ones'")


def evaluator_for(game: Game, r: float = 100.0, table: TableName = "paper") -> Evaluator:
    """The AlphaDDA appendix-4 evaluation of ``game`` (``r``: Connect4's ``R``; ``table``:
    Othello's square values)."""
    if isinstance(game, Connect4):
        return Evaluator(connect4_evaluate, np.array([float(r)]), -1)
    if isinstance(game, Othello):
        values = np.ascontiguousarray(othello_table(game.size, table).reshape(-1))
        return Evaluator(othello_evaluate, values, OTHELLO_EXACT_EMPTIES)
    if isinstance(game, TicTacToe):
        return Evaluator(tictactoe_evaluate, np.array([TICTACTOE_WIN_VALUE]), 9)
    raise ValueError(f"minimax has no evaluation function for {game.name}")


def empty_squares(game: Game, state: State) -> int:
    """Number of empty squares of ``state`` (Othello, Connect4, tic-tac-toe)."""
    if isinstance(game, Othello):
        return game.size * game.size - bin(int(state[oth.BLACK]) | int(state[oth.WHITE])).count("1")
    if isinstance(game, Connect4):
        return c4.WIDTH * c4.HEIGHT - int(state[c4.PLY])
    if isinstance(game, TicTacToe):
        return 9 - game.ply(state)
    raise ValueError(f"minimax has no evaluation function for {game.name}")


def evaluate(
    game: Game, state: State, player: int, r: float = 100.0, table: TableName = "paper"
) -> float:
    """The leaf value of ``state`` for ``player`` (0 or 1) under the appendix-4 evaluation."""
    ev = evaluator_for(game, r, table)
    return float(ev.kernel(as_state(state), int(player), ev.params))


@dataclass(frozen=True)
class MinimaxResult:
    """The root of one minimax search."""

    moves: npt.NDArray[np.int64]
    """The legal moves of the root, in move-generation order."""
    values: npt.NDArray[np.float64]
    """Minimax value of each move for the player to move: exact for the best moves; for the
    others an upper bound below the best value (exact with ``exact_values=True``)."""
    depth: int
    """The depth searched (the game's length bound when the endgame was searched exactly)."""
    leaves: int
    """Number of leaves evaluated."""
    stopped: bool = False
    """Whether a limit ended the search before ``depth`` (the values are then those of the
    deepest completed iteration, :attr:`depth`)."""

    def best_moves(self) -> npt.NDArray[np.int64]:
        """The moves of maximal value (several when tied)."""
        return self.moves[self.values == self.values.max()]


def minimax_search(
    game: Game,
    state: State,
    depth: int = DEFAULT_DEPTH,
    r: float = 100.0,
    table: TableName = "paper",
    exact_values: bool = False,
    exact_endgame: bool = True,
    limit: Limit | None = None,
    clock: LimitClock | None = None,
) -> MinimaxResult:
    """Minimax (AlphaDDA appendix 4) from ``state`` for the player to move.

    ``depth`` plies, or to the end of the game when ``exact_endgame`` and at most the
    game's endgame threshold of squares are empty (Othello: 6; tic-tac-toe: always).
    ``exact_values`` values every root move exactly (otherwise only the best ones).
    ``limit`` with a time, node (leaves) or stop bound searches by iterative deepening,
    depth 1, 2, ... up to ``depth``, in compiled chunks of leaves checked between chunks,
    and returns the deepest completed iteration (:attr:`MinimaxResult.depth`, with
    :attr:`MinimaxResult.stopped`); run to the end it gives the values of the search
    without a limit.  (``Limit.simulations`` does not apply to minimax.)
    """
    if depth < 1:
        raise ValueError("depth must be >= 1")
    if game.is_terminal(state):
        raise GameOverError(f"{game.name}: the game is over, there is nothing to search")
    ev = evaluator_for(game, r, table)
    check_compiled(game.kernels, "minimax")
    if exact_endgame and empty_squares(game, state) <= ev.exact_empties:
        depth = max(depth, game.max_game_length)
    if clock is None and limit is not None:
        clock = limit.start()
    if clock is not None and clock.interruptible:
        moves, values, done, leaves = _limited_root(
            game, as_state(state), ev, int(depth), bool(exact_values), clock
        )
        return MinimaxResult(moves, values, done, leaves, done < depth)
    k = game.kernels
    moves, values, leaves = _minimax_root()(
        k.legal_moves,
        k.play,
        k.status,
        k.to_move,
        ev.kernel,
        as_state(state),
        ev.params,
        int(depth),
        int(game.num_actions),
        bool(exact_values),
    )
    return MinimaxResult(moves, values, int(depth), int(leaves))


class MinimaxPlayer(Player):
    """AlphaDDA's Minimax player (appendix 4): depth-3 minimax with the game's evaluation.

    ``r`` is Connect4's ``R`` (Minimax1: 100, Minimax2: 2); ``table`` is Othello's square
    values (Minimax1: ``"paper"``, Eq. 14/15; Minimax2: ``"ones"``).  Ties for the best
    root move are broken uniformly at random with the player's generator.
    """

    def __init__(
        self,
        name: str = "Minimax",
        depth: int = DEFAULT_DEPTH,
        seed: int | None = None,
        r: float = 100.0,
        table: TableName = "paper",
    ) -> None:
        super().__init__(name, seed)
        if depth < 1:
            raise ValueError("depth must be >= 1")
        if table not in ("paper", "ones"):
            raise ValueError(f"unknown Othello table {table!r}; use 'paper' or 'ones'")
        if not math.isfinite(r):
            raise ValueError("r must be a finite number")
        self.depth = depth
        self.r = r
        self.table: TableName = table
        self.last_result: MinimaxResult | None = None

    def search(
        self, game: Game, state: State, limit: Limit | None = None, clock: LimitClock | None = None
    ) -> MinimaxResult:
        """The root values of a search from ``state`` with this player's settings (under
        ``limit``: iterative deepening, see :func:`minimax_search`)."""
        result = minimax_search(
            game, state, self.depth, self.r, self.table, limit=limit, clock=clock
        )
        self.last_result = result
        return result

    def select_move(self, game: Game, state: State, limit: Limit | None = None) -> int:
        return self.play(game, state, limit).move

    def play(self, game: Game, state: State, limit: Limit | None = None) -> Decision:
        clock = LimitClock(limit)
        result = self.search(game, state, limit, clock)
        best = result.best_moves()
        move = int(best[self.rng.integers(len(best))])
        k = len(result.moves)
        analysis = MoveAnalysis(
            move=move,
            search="minimax",
            moves=tuple(int(m) for m in result.moves),
            visits=(0,) * k,
            q=tuple(float(v) for v in result.values),
            priors=(1.0 / k,) * k,
            pv=(move,),
            value=float(result.values.max()),
            nodes=result.leaves,
            depth=result.depth,
            time=clock.elapsed(),
            stopped=result.stopped,
        )
        return Decision(move, analysis)


def build_minimax_player(
    settings: MinimaxSettings, game: Game, seed: int | None, cache: PlayerCache
) -> MinimaxPlayer:
    """The ``minimax`` player (and Minimax1-2) of ``settings``: Connect4, Othello and
    tic-tac-toe, with compiled rules."""
    game.require_compiled("Minimax")
    if not isinstance(game, Connect4 | Othello | TicTacToe):
        raise IncompatiblePlayerError(f"minimax has no evaluation function for {game.name}")
    return MinimaxPlayer(settings.name, settings.depth, seed, settings.r, settings.table)


__all__ = [
    "DEFAULT_DEPTH",
    "EVALUATE_TYPE",
    "MINIMAX_PRESETS",
    "OTHELLO6_TABLE",
    "OTHELLO8_TABLE",
    "Evaluator",
    "MinimaxPlayer",
    "MinimaxResult",
    "TableName",
    "build_minimax_player",
    "connect4_connections",
    "connect4_evaluate",
    "empty_squares",
    "evaluate",
    "evaluator_for",
    "minimax_search",
    "othello_evaluate",
    "othello_table",
    "tictactoe_evaluate",
]
