"""Othello (Reversi) on 8x8 and 6x6 boards, with bitboards.

Bit ``N*r + c`` is row ``r`` (0 = top, written 1) and column ``c`` (0 = left, written a).
The position array is ``uint64[5]``: black (first player) discs, white discs, player to move,
ply count (passes included), status.  A player with no legal placement must pass: the pass is
then the only legal move, action ``N*N``.  The game ends when neither player can move; the
player with more discs wins (AlphaDDA section 4.1).

Moves are written ``d3`` or ``pass``.  A position is written as ``N*N`` characters, row by row
from the top (``x`` black, ``o`` white, ``.`` empty), a space, and the side to move (``x``/``o``).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from sparring.errors import BadValueError, MoveParseError, PositionParseError
from sparring.games.base import (
    DRAW,
    FIRST_WINS,
    ONGOING,
    SECOND_WINS,
    Game,
    GameParams,
    Kernels,
    Planes,
    Policy,
    State,
    dihedral_symmetries,
)
from sparring.games.bits import lowest_bit_index, popcount, random_set_bit
from sparring.rng import RngState

BLACK, WHITE, TO_MOVE, PLY, STATUS = 0, 1, 2, 3, 4
_ONE = np.uint64(1)
_ZERO = np.uint64(0)


def _geometry(n: int) -> np.ndarray:
    """Per-direction (left shift, right shift, mask after shift) for an ``n x n`` board."""
    full = (1 << (n * n)) - 1
    not_first_col = full & ~sum(1 << (n * r) for r in range(n))
    not_last_col = full & ~sum(1 << (n * r + n - 1) for r in range(n))
    rows = [
        (1, 0, not_first_col),  # east
        (0, 1, not_last_col),  # west
        (n, 0, full),  # south
        (0, n, full),  # north
        (n + 1, 0, not_first_col),  # south-east
        (n - 1, 0, not_last_col),  # south-west
        (0, n - 1, not_first_col),  # north-east
        (0, n + 1, not_last_col),  # north-west
    ]
    return np.array(rows, dtype=np.uint64)


GEOMETRY_8 = _geometry(8)
GEOMETRY_6 = _geometry(6)


@nb.njit(cache=True, inline="always")
def _shift(x: np.uint64, geo: np.ndarray, d: int) -> np.uint64:
    if geo[d, 0] != _ZERO:
        return (x << geo[d, 0]) & geo[d, 2]
    return (x >> geo[d, 1]) & geo[d, 2]


@nb.njit(cache=True)
def placements(own: np.uint64, opp: np.uint64, geo: np.ndarray, n: int) -> np.uint64:
    """Bitboard of the squares where ``own`` may place a disc (Kogge-Stone-free dumb fill)."""
    empty = ~(own | opp) & geo[2, 2]
    moves = _ZERO
    for d in range(8):
        t = _shift(own, geo, d) & opp
        for _ in range(n - 3):
            t |= _shift(t, geo, d) & opp
        moves |= _shift(t, geo, d) & empty
    return moves


@nb.njit(cache=True)
def flips(own: np.uint64, opp: np.uint64, move_bit: np.uint64, geo: np.ndarray) -> np.uint64:
    """Discs of ``opp`` turned over when ``own`` places a disc on ``move_bit``."""
    turned = _ZERO
    for d in range(8):
        line = _ZERO
        x = _shift(move_bit, geo, d)
        while x & opp:
            line |= x
            x = _shift(x, geo, d)
        if x & own:
            turned |= line
    return turned


@nb.njit(cache=True, inline="always")
def _finish(state: State, geo: np.ndarray, n: int) -> None:
    """Set the status after a move: ongoing unless neither side can move."""
    mover = state[TO_MOVE]
    own = state[BLACK] if mover == _ZERO else state[WHITE]
    opp = state[WHITE] if mover == _ZERO else state[BLACK]
    if placements(own, opp, geo, n) != _ZERO or placements(opp, own, geo, n) != _ZERO:
        return
    b = popcount(state[BLACK])
    w = popcount(state[WHITE])
    state[STATUS] = np.uint64(FIRST_WINS if b > w else SECOND_WINS if w > b else DRAW)


@nb.njit(cache=True)
def _play(state: State, move: int, geo: np.ndarray, n: int) -> None:
    mover = state[TO_MOVE]
    if move != n * n:
        bit = _ONE << np.uint64(move)
        if mover == _ZERO:
            f = flips(state[BLACK], state[WHITE], bit, geo)
            state[BLACK] |= bit | f
            state[WHITE] ^= f
        else:
            f = flips(state[WHITE], state[BLACK], bit, geo)
            state[WHITE] |= bit | f
            state[BLACK] ^= f
    state[TO_MOVE] = _ONE - mover
    state[PLY] += _ONE
    _finish(state, geo, n)


@nb.njit(cache=True)
def _legal(state: State, out: np.ndarray, geo: np.ndarray, n: int) -> int:
    if state[STATUS] != ONGOING:
        return 0
    own = state[BLACK] if state[TO_MOVE] == _ZERO else state[WHITE]
    opp = state[WHITE] if state[TO_MOVE] == _ZERO else state[BLACK]
    m = placements(own, opp, geo, n)
    if m == _ZERO:
        out[0] = n * n
        return 1
    k = 0
    while m != _ZERO:
        low = m & (~m + _ONE)
        out[k] = lowest_bit_index(low)
        k += 1
        m ^= low
    return k


@nb.njit(cache=True)
def _random_playout(state: State, rng: RngState, geo: np.ndarray, n: int) -> int:
    if state[STATUS] != ONGOING:
        return int(state[STATUS])
    own = state[BLACK] if state[TO_MOVE] == _ZERO else state[WHITE]
    opp = state[WHITE] if state[TO_MOVE] == _ZERO else state[BLACK]
    plies = 0
    passed = False
    while True:
        m = placements(own, opp, geo, n)
        if m == _ZERO:
            if passed:
                break
            passed = True
        else:
            passed = False
            bit = random_set_bit(m, rng)
            f = flips(own, opp, bit, geo)
            own |= bit | f
            opp ^= f
        own, opp = opp, own
        plies += 1
    # ``own`` is the side to move after ``plies`` half-moves, both sides having just passed.
    plies -= 1  # the final pass that ended the game is not played
    mover_now = (int(state[TO_MOVE]) + plies) % 2
    black = opp if mover_now == 0 else own
    white = own if mover_now == 0 else opp
    state[BLACK] = black
    state[WHITE] = white
    state[TO_MOVE] = np.uint64(mover_now)
    state[PLY] += np.uint64(plies)
    b = popcount(black)
    w = popcount(white)
    state[STATUS] = np.uint64(FIRST_WINS if b > w else SECOND_WINS if w > b else DRAW)
    return int(state[STATUS])


@nb.njit(cache=True)
def status(state: State) -> int:
    return int(state[STATUS])


@nb.njit(cache=True)
def to_move(state: State) -> int:
    return int(state[TO_MOVE])


@nb.njit(cache=True)
def legal_moves_8(state: State, out: np.ndarray) -> int:
    return _legal(state, out, GEOMETRY_8, 8)


@nb.njit(cache=True)
def play_8(state: State, move: int) -> None:
    _play(state, move, GEOMETRY_8, 8)


@nb.njit(cache=True)
def random_playout_8(state: State, rng: RngState) -> int:
    return _random_playout(state, rng, GEOMETRY_8, 8)


@nb.njit(cache=True)
def legal_moves_6(state: State, out: np.ndarray) -> int:
    return _legal(state, out, GEOMETRY_6, 6)


@nb.njit(cache=True)
def play_6(state: State, move: int) -> None:
    _play(state, move, GEOMETRY_6, 6)


@nb.njit(cache=True)
def random_playout_6(state: State, rng: RngState) -> int:
    return _random_playout(state, rng, GEOMETRY_6, 6)


@nb.njit(cache=True)
def _encode(state: State, out: np.ndarray, n: int) -> None:
    """Write the input planes of :meth:`Othello.encode` to ``out`` (float32[3, n, n])."""
    side = 1.0 if state[TO_MOVE] == _ZERO else -1.0
    for i in range(n * n):
        bit = np.uint64(i)
        r, c = divmod(i, n)
        out[0, r, c] = float((state[BLACK] >> bit) & _ONE)
        out[1, r, c] = float((state[WHITE] >> bit) & _ONE)
        out[2, r, c] = side


@nb.njit(cache=True)
def encode_8(state: State, out: np.ndarray) -> None:
    _encode(state, out, 8)


@nb.njit(cache=True)
def encode_6(state: State, out: np.ndarray) -> None:
    _encode(state, out, 6)


KERNELS_8 = Kernels(legal_moves_8, play_8, status, to_move, random_playout_8, encode_8)
KERNELS_6 = Kernels(legal_moves_6, play_6, status, to_move, random_playout_6, encode_6)


class Othello(Game):
    """Othello on an ``size x size`` board (8: the standard game; 6: AlphaDDA's 6x6 Othello)."""

    side_names = ("Black", "White")

    def __init__(self, size: int = 8) -> None:
        if isinstance(size, bool) or size not in (6, 8):
            raise BadValueError(
                f"othello: board size must be 6 or 8 (6x6 and 8x8 boards), not {size!r}", "size"
            )
        size = int(size)
        self.size = size
        self.name = "othello" if size == 8 else "othello6"
        self.num_actions = size * size + 1
        self.pass_move = size * size
        self.board_shape = (size, size)
        self.kernels = KERNELS_8 if size == 8 else KERNELS_6
        self.geometry = GEOMETRY_8 if size == 8 else GEOMETRY_6
        # Every ply either fills a square or passes, and two passes in a row end the game.
        self.max_game_length = 2 * (size * size - 4) + 1

    def params(self) -> GameParams:
        """The board ``size`` (6 or 8)."""
        return {"size": self.size}

    def initial_state(self) -> State:
        n = self.size
        h = n // 2
        white = (1 << (n * (h - 1) + h - 1)) | (1 << (n * h + h))
        black = (1 << (n * (h - 1) + h)) | (1 << (n * h + h - 1))
        return np.array([black, white, 0, 0, ONGOING], dtype=np.uint64)

    def ply(self, state: State) -> int:
        return int(state[PLY])

    def discs(self, state: State) -> tuple[np.ndarray, np.ndarray]:
        """Boolean (size, size) grids of black's and white's discs."""
        n = self.size
        idx = np.arange(n * n, dtype=np.uint64)
        black = ((state[BLACK] >> idx) & _ONE).astype(np.bool_).reshape(n, n)
        white = ((state[WHITE] >> idx) & _ONE).astype(np.bool_).reshape(n, n)
        return black, white

    def disc_count(self, state: State) -> tuple[int, int]:
        """(black, white) number of discs."""
        return bin(int(state[BLACK])).count("1"), bin(int(state[WHITE])).count("1")

    def score_text(self, state: State) -> str | None:
        """``Black 36 discs, White 28 (Black wins by 8).``"""
        black, white = self.disc_count(state)
        verdict = (
            f"Black wins by {black - white}"
            if black > white
            else f"White wins by {white - black}"
            if white > black
            else "a draw"
        )
        return f"Black {black} discs, White {white} ({verdict})."

    def encode(self, state: State) -> Planes:
        planes = np.empty((3, self.size, self.size), dtype=np.float32)
        _encode(state, planes, self.size)
        return planes

    def symmetries(self, planes: Planes, policy: Policy) -> list[tuple[Planes, Policy]]:
        return dihedral_symmetries(planes, policy, self.size, 1)

    def move_to_text(self, move: int) -> str:
        if move == self.pass_move:
            return "pass"
        r, c = divmod(move, self.size)
        return f"{'abcdefgh'[c]}{r + 1}"

    def _parse_move_token(self, text: str) -> int:
        token = text.lower()
        if token == "pass":
            return self.pass_move
        cols = "abcdefgh"[: self.size]
        if len(token) == 2 and token[0] in cols and token[1] in "12345678"[: self.size]:
            return (int(token[1]) - 1) * self.size + cols.index(token[0])
        last = cols[-1]
        raise MoveParseError(
            f"{self.name}: bad move {text!r}: expected a square a1-{last}{self.size} or 'pass'"
        )

    def position_to_text(self, state: State) -> str:
        black, white = self.discs(state)
        cells = np.where(black, "x", np.where(white, "o", ".")).reshape(-1)
        return "".join(cells) + " " + ("x" if self.to_move(state) == 0 else "o")

    def parse_position(self, text: str) -> State:
        n = self.size
        parts = text.split()
        if len(parts) != 2 or parts[1] not in ("x", "o"):
            raise PositionParseError(
                f"{self.name}: bad position {text!r}: expected {n * n} cells, a space and x or o"
            )
        board, side = parts
        if len(board) != n * n:
            raise PositionParseError(
                f"{self.name}: bad position: {len(board)} cells, expected {n * n}"
            )
        black = white = 0
        for i, ch in enumerate(board):
            if ch == "x":
                black |= 1 << i
            elif ch == "o":
                white |= 1 << i
            elif ch != ".":
                raise PositionParseError(
                    f"{self.name}: bad position: cell {i + 1} is {ch!r}; use x, o or ."
                )
        h = n // 2
        centre = [n * (h - 1) + h - 1, n * (h - 1) + h, n * h + h - 1, n * h + h]
        if any(not (black | white) >> i & 1 for i in centre):
            raise PositionParseError(
                f"{self.name}: bad position {text!r}: the four centre squares must be occupied"
            )
        filled = bin(black | white).count("1")
        state = np.array(
            [black, white, 0 if side == "x" else 1, filled - 4, ONGOING], dtype=np.uint64
        )
        geo, mover = self.geometry, int(state[TO_MOVE])
        own, opp = (
            (np.uint64(black), np.uint64(white))
            if mover == 0
            else (np.uint64(white), np.uint64(black))
        )
        if placements(own, opp, geo, n) == 0 and placements(opp, own, geo, n) == 0:
            b, w = bin(black).count("1"), bin(white).count("1")
            state[STATUS] = FIRST_WINS if b > w else SECOND_WINS if w > b else DRAW
        return state

    def render(self, state: State) -> str:
        black, white = self.discs(state)
        n = self.size
        lines = ["  " + " ".join("abcdefgh"[:n])]
        for r in range(n):
            cells = ["X" if black[r, c] else "O" if white[r, c] else "." for c in range(n)]
            lines.append(f"{r + 1} " + " ".join(cells))
        b, w = self.disc_count(state)
        lines.append(f"X (black) {b} - O (white) {w}")
        return "\n".join(lines)
