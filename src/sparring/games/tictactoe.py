"""Tic-tac-toe, a tiny solved game for tests.

Bit ``3*r + c`` is row ``r`` (0 = top, written 1) and column ``c`` (written a-c).  The
position array is ``uint64[4]``: X stones, O stones, ply count, status.  Moves are written
``a1``..``c3``; a position as 9 cells row by row (``x``, ``o``, ``.``).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from sparring.errors import MoveParseError, PositionParseError
from sparring.games.base import (
    DRAW,
    FIRST_WINS,
    ONGOING,
    SECOND_WINS,
    Game,
    Kernels,
    Planes,
    Policy,
    State,
    dihedral_symmetries,
)
from sparring.games.bits import random_set_bit
from sparring.rng import RngState

X, O, PLY, STATUS = 0, 1, 2, 3  # noqa: E741 - the pieces are called X and O
_LINES = np.array(
    [0b111, 0b111000, 0b111000000, 0b1001001, 0b10010010, 0b100100100, 0b100010001, 0b1010100],
    dtype=np.uint64,
)
_FULL = np.uint64(0x1FF)
_ONE = np.uint64(1)


@nb.njit(cache=True, inline="always")
def _has_line(p: np.uint64) -> bool:
    for line in _LINES:  # noqa: SIM110 - numba has no any() over generators
        if p & line == line:
            return True
    return False


@nb.njit(cache=True)
def legal_moves(state: State, out: np.ndarray) -> int:
    if state[STATUS] != ONGOING:
        return 0
    empty = ~(state[X] | state[O]) & _FULL
    n = 0
    for i in range(9):
        if empty & (_ONE << np.uint64(i)):
            out[n] = i
            n += 1
    return n


@nb.njit(cache=True, inline="always")
def _play_bit(state: State, bit: np.uint64) -> None:
    side = int(state[PLY] % np.uint64(2))
    state[side] |= bit
    state[PLY] += _ONE
    if _has_line(state[side]):
        state[STATUS] = np.uint64(FIRST_WINS if side == 0 else SECOND_WINS)
    elif state[PLY] == np.uint64(9):
        state[STATUS] = np.uint64(DRAW)


@nb.njit(cache=True)
def play(state: State, move: int) -> None:
    _play_bit(state, _ONE << np.uint64(move))


@nb.njit(cache=True)
def status(state: State) -> int:
    return int(state[STATUS])


@nb.njit(cache=True)
def to_move(state: State) -> int:
    return int(state[PLY] % np.uint64(2))


@nb.njit(cache=True)
def random_playout(state: State, rng: RngState) -> int:
    while state[STATUS] == ONGOING:
        _play_bit(state, random_set_bit(~(state[X] | state[O]) & _FULL, rng))
    return int(state[STATUS])


@nb.njit(cache=True)
def encode_planes(state: State, out: np.ndarray) -> None:
    """Write the input planes of :meth:`TicTacToe.encode` to ``out`` (float32[3, 3, 3])."""
    side = 1.0 if state[PLY] % np.uint64(2) == np.uint64(0) else -1.0
    for i in range(9):
        bit = np.uint64(i)
        r, c = divmod(i, 3)
        out[0, r, c] = float((state[X] >> bit) & _ONE)
        out[1, r, c] = float((state[O] >> bit) & _ONE)
        out[2, r, c] = side


KERNELS = Kernels(legal_moves, play, status, to_move, random_playout, encode_planes)


class TicTacToe(Game):
    """Tic-tac-toe on a 3x3 board; X moves first."""

    name = "tictactoe"
    num_actions = 9
    board_shape = (3, 3)
    kernels = KERNELS
    max_game_length = 9
    side_names = ("X", "O")

    def initial_state(self) -> State:
        return np.zeros(4, dtype=np.uint64)

    def ply(self, state: State) -> int:
        return int(state[PLY])

    def _grid(self, state: State, side: int) -> np.ndarray:
        idx = np.arange(9, dtype=np.uint64)
        return ((state[side] >> idx) & _ONE).astype(np.bool_).reshape(3, 3)

    def encode(self, state: State) -> Planes:
        planes = np.empty((3, 3, 3), dtype=np.float32)
        encode_planes(state, planes)
        return planes

    def symmetries(self, planes: Planes, policy: Policy) -> list[tuple[Planes, Policy]]:
        return dihedral_symmetries(planes, policy, 3, 0)

    def move_to_text(self, move: int) -> str:
        r, c = divmod(move, 3)
        return f"{'abc'[c]}{r + 1}"

    def _parse_move_token(self, text: str) -> int:
        t = text.lower()
        if len(t) == 2 and t[0] in "abc" and t[1] in "123":
            return (int(t[1]) - 1) * 3 + "abc".index(t[0])
        raise MoveParseError(f"tictactoe: bad move {text!r}: expected a square a1-c3")

    def position_to_text(self, state: State) -> str:
        cells = np.where(self._grid(state, X), "x", np.where(self._grid(state, O), "o", "."))
        return "".join(cells.reshape(-1))

    def parse_position(self, text: str) -> State:
        t = text.strip()
        if len(t) != 9:
            raise PositionParseError(f"tictactoe: bad position {text!r}: expected 9 cells")
        x = o = 0
        for i, ch in enumerate(t):
            if ch == "x":
                x |= 1 << i
            elif ch == "o":
                o |= 1 << i
            elif ch != ".":
                raise PositionParseError(
                    f"tictactoe: bad position: cell {i + 1} is {ch!r}; use x, o or ."
                )
        nx, no = bin(x).count("1"), bin(o).count("1")
        if nx - no not in (0, 1):
            raise PositionParseError(f"tictactoe: bad position {text!r}: {nx} x and {no} o")
        state = np.array([x, o, nx + no, ONGOING], dtype=np.uint64)
        x_line, o_line = bool(_has_line(np.uint64(x))), bool(_has_line(np.uint64(o)))
        if x_line and o_line:
            raise PositionParseError(f"tictactoe: bad position {text!r}: both sides have a line")
        if (x_line and nx == no) or (o_line and nx > no):
            raise PositionParseError(
                f"tictactoe: bad position {text!r}: a move was played after the game was won"
            )
        if x_line:
            state[STATUS] = FIRST_WINS
        elif o_line:
            state[STATUS] = SECOND_WINS
        elif nx + no == 9:
            state[STATUS] = DRAW
        return state

    def render(self, state: State) -> str:
        xs, os_ = self._grid(state, X), self._grid(state, O)
        lines = ["  a b c"]
        for r in range(3):
            cells = ["X" if xs[r, c] else "O" if os_[r, c] else "." for c in range(3)]
            lines.append(f"{r + 1} " + " ".join(cells))
        return "\n".join(lines)
