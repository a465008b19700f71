"""Connect Four on the standard 7-column, 6-row board, with bitboards.

Layout (after J. Tromp / P. Pons): bit ``7*c + r`` is column ``c`` (0 = left), row ``r``
(0 = bottom); row 6 of each column is an always-empty sentinel.  The position array is
``uint64[4]``: stones of the player to move, all stones, ply count, status.

Moves are columns 0..6, written ``1``..``7``.  A position is written as the sequence of
columns played from the empty board, e.g. ``4453`` (the usual solver notation).
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
)
from sparring.games.bits import random_set_bit
from sparring.rng import RngState

WIDTH = 7
HEIGHT = 6
_H1 = HEIGHT + 1
_ONE = np.uint64(1)
_ZERO = np.uint64(0)
BOTTOM = np.uint64(sum(1 << (c * _H1) for c in range(WIDTH)))
BOARD = np.uint64(int(BOTTOM) * ((1 << HEIGHT) - 1))

CUR, MASK, PLY, STATUS = 0, 1, 2, 3


@nb.njit(cache=True, inline="always")
def _has_four(p: np.uint64) -> bool:
    for s in (1, 7, 6, 8):  # vertical, horizontal, two diagonals
        sh = np.uint64(s)
        m = p & (p >> sh)
        if m & (m >> (sh + sh)):
            return True
    return False


@nb.njit(cache=True)
def legal_moves(state: State, out: np.ndarray) -> int:
    if state[STATUS] != ONGOING:
        return 0
    possible = (state[MASK] + BOTTOM) & BOARD
    n = 0
    for c in range(WIDTH):
        if possible & (np.uint64(0x7F) << np.uint64(c * _H1)):
            out[n] = c
            n += 1
    return n


@nb.njit(cache=True, inline="always")
def _play_bit(state: State, move_bit: np.uint64) -> None:
    mask = state[MASK] | move_bit
    mover = state[CUR] | move_bit
    state[CUR] = mover ^ mask
    state[MASK] = mask
    ply = state[PLY] + _ONE
    state[PLY] = ply
    if _has_four(mover):
        state[STATUS] = (
            np.uint64(FIRST_WINS) if ply % np.uint64(2) == _ONE else np.uint64(SECOND_WINS)
        )
    elif ply == np.uint64(WIDTH * HEIGHT):
        state[STATUS] = np.uint64(DRAW)


@nb.njit(cache=True)
def play(state: State, move: int) -> None:
    column = np.uint64(0x7F) << np.uint64(move * _H1)
    _play_bit(state, (state[MASK] + BOTTOM) & column & BOARD)


@nb.njit(cache=True)
def status(state: State) -> int:
    return int(state[STATUS])


@nb.njit(cache=True)
def to_move(state: State) -> int:
    return int(state[PLY] % np.uint64(2))


@nb.njit(cache=True)
def random_playout(state: State, rng: RngState) -> int:
    while state[STATUS] == ONGOING:
        possible = (state[MASK] + BOTTOM) & BOARD
        _play_bit(state, random_set_bit(possible, rng))
    return int(state[STATUS])


@nb.njit(cache=True)
def encode_planes(state: State, out: np.ndarray) -> None:
    """Write the input planes of :meth:`Connect4.encode` to ``out`` (float32[3, HEIGHT, WIDTH])."""
    cur = state[CUR]
    other = cur ^ state[MASK]
    first_to_move = state[PLY] % np.uint64(2) == _ZERO
    first = cur if first_to_move else other
    second = other if first_to_move else cur
    side = 1.0 if first_to_move else -1.0
    for c in range(WIDTH):
        for r in range(HEIGHT):
            bit = np.uint64(c * _H1 + r)
            row = HEIGHT - 1 - r
            out[0, row, c] = float((first >> bit) & _ONE)
            out[1, row, c] = float((second >> bit) & _ONE)
            out[2, row, c] = side


KERNELS = Kernels(legal_moves, play, status, to_move, random_playout, encode_planes)


class Connect4(Game):
    """Connect Four, 7 columns by 6 rows; four in a row wins, a full board is a draw."""

    name = "connect4"
    num_actions = WIDTH
    board_shape = (HEIGHT, WIDTH)
    kernels = KERNELS
    max_game_length = WIDTH * HEIGHT
    side_names = ("X", "O")

    def initial_state(self) -> State:
        return np.zeros(4, dtype=np.uint64)

    def ply(self, state: State) -> int:
        return int(state[PLY])

    def stones(self, state: State) -> tuple[np.ndarray, np.ndarray]:
        """Boolean (rows, columns) grids of the first and second player's stones, top row first."""
        cur = int(state[CUR])
        other = cur ^ int(state[MASK])
        first, second = (cur, other) if int(state[PLY]) % 2 == 0 else (other, cur)
        grids = []
        for bits in (first, second):
            g = np.zeros((HEIGHT, WIDTH), dtype=np.bool_)
            for c in range(WIDTH):
                for r in range(HEIGHT):
                    if bits >> (c * _H1 + r) & 1:
                        g[HEIGHT - 1 - r, c] = True
            grids.append(g)
        return grids[0], grids[1]

    def encode(self, state: State) -> Planes:
        planes = np.empty((3, HEIGHT, WIDTH), dtype=np.float32)
        encode_planes(state, planes)
        return planes

    def symmetries(self, planes: Planes, policy: Policy) -> list[tuple[Planes, Policy]]:
        mirrored = (np.ascontiguousarray(planes[:, :, ::-1]), policy[::-1].copy())
        return [(planes, policy), mirrored]

    def move_to_text(self, move: int) -> str:
        return str(move + 1)

    def _parse_move_token(self, text: str) -> int:
        if len(text) != 1 or text not in "1234567":
            raise MoveParseError(f"connect4: bad move {text!r}: expected a column 1-7")
        return int(text) - 1

    def position_to_text(self, state: State) -> str:
        """Rows from the top, ``/``-separated; ``x`` first player, ``o`` second, ``.`` empty."""
        first, second = self.stones(state)
        return "/".join(
            "".join("x" if first[r, c] else "o" if second[r, c] else "." for c in range(WIDTH))
            for r in range(HEIGHT)
        )

    def parse_position(self, text: str) -> State:
        """Read a board (see :meth:`position_to_text`) or a move sequence such as ``4453``."""
        text = text.strip()
        if "/" in text:
            return self._parse_board(text)
        state = self.initial_state()
        for i, ch in enumerate(text):
            if ch not in "1234567":
                raise PositionParseError(
                    f"connect4: bad position {text!r}: character {i + 1} {ch!r} is not a column 1-7"
                )
            if state[STATUS] != ONGOING:
                raise PositionParseError(
                    f"connect4: bad position {text!r}: the game is over before move {i + 1}"
                )
            col = int(ch) - 1
            if not self.is_legal(state, col):
                raise PositionParseError(
                    f"connect4: bad position {text!r}: move {i + 1} ({ch}) is in a full column"
                )
            play(state, col)
        return state

    def _parse_board(self, text: str) -> State:
        rows = text.split("/")
        if len(rows) != HEIGHT:
            raise PositionParseError(
                f"connect4: bad position {text!r}: {len(rows)} rows, expected {HEIGHT}"
            )
        first = second = 0
        for i, row in enumerate(rows):
            if len(row) != WIDTH:
                raise PositionParseError(
                    f"connect4: bad position: row {i + 1} {row!r} has {len(row)} cells, "
                    f"expected {WIDTH}"
                )
            r = HEIGHT - 1 - i
            for c, ch in enumerate(row):
                if ch == "x":
                    first |= 1 << (c * _H1 + r)
                elif ch == "o":
                    second |= 1 << (c * _H1 + r)
                elif ch != ".":
                    raise PositionParseError(
                        f"connect4: bad position: row {i + 1} has {ch!r}; use x, o or ."
                    )
        mask = first | second
        for c in range(WIDTH):
            col = (mask >> (c * _H1)) & 0x7F
            if col & (col + 1):
                raise PositionParseError(
                    f"connect4: bad position {text!r}: column {c + 1} has a stone above a gap"
                )
        n_first, n_second = bin(first).count("1"), bin(second).count("1")
        if n_first - n_second not in (0, 1):
            raise PositionParseError(
                f"connect4: bad position {text!r}: {n_first} x and {n_second} o stones"
            )
        ply = n_first + n_second
        cur = first if ply % 2 == 0 else second
        state = np.array([cur, mask, ply, ONGOING], dtype=np.uint64)
        first_four = bool(_has_four(np.uint64(first)))
        second_four = bool(_has_four(np.uint64(second)))
        if first_four and second_four:
            raise PositionParseError(f"connect4: bad position {text!r}: both players have four")
        if (first_four and ply % 2 == 0) or (second_four and ply % 2 == 1):
            raise PositionParseError(
                f"connect4: bad position {text!r}: a move was played after the game was won"
            )
        if first_four:
            state[STATUS] = FIRST_WINS
        elif second_four:
            state[STATUS] = SECOND_WINS
        elif ply == WIDTH * HEIGHT:
            state[STATUS] = DRAW
        return state

    def render(self, state: State) -> str:
        first, second = self.stones(state)
        rows = []
        for r in range(HEIGHT):
            cells = ["X" if first[r, c] else "O" if second[r, c] else "." for c in range(WIDTH)]
            rows.append(" ".join(cells))
        rows.append(" ".join(str(c + 1) for c in range(WIDTH)))
        return "\n".join(rows)


__all__ = ["KERNELS", "Connect4"]
