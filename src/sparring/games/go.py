"""Go on a square board (19x19 by default, 9x9 and other sizes for tests), compiled with numba.

Rules
-----
* Captures as usual; **suicide is illegal** (a move that leaves its own group without a
  liberty is illegal unless it captures).  This is the rule of the Fox server and of
  Chinese/Japanese rules; every move of the 22,000 Fox games in ``shared/data/strength/go``
  replays legally under it.
* **Simple ko only**: a move that captures exactly one stone with a single stone that is
  left with exactly one liberty forbids the immediate recapture at the captured point.
  Positional superko is not implemented (longer cycles such as triple ko are possible, and
  the ply cap below ends them).
* Pass is action ``size*size``.  The game ends after **two consecutive passes**, or when the
  **ply cap** is reached (default ``2*size*size`` plies, as in OpenSpiel's ``go``; 722 on
  19x19, above the longest Fox game of 535 moves).  Resignation is not a move.
* **Area scoring (Tromp-Taylor)**: a player's score is the number of their stones plus the
  empty points whose regions reach only their colour; Black wins when
  ``black - white - komi > 0`` (:data:`FIRST_WINS`), White when it is ``< 0``, a draw at 0.
  No dead-stone removal: at the end every stone on the board counts as alive.
* Black (player 0) moves first, unless a position says otherwise (handicap setups).

These rules agree with OpenSpiel's ``go`` (checked on random 9x9 games in ``tests/test_go.py``).

Kernels
-------
:data:`KERNELS` are numba functions usable by the compiled searches (UCT, minimax, PUCT),
with a compiled ``encode``.  The random playout is **not** uniform over all legal moves: it
draws uniformly among the legal points that do not fill one of the mover's own single-point
eyes and passes when there is none (uniform play would fill eyes and recapture until the ply
cap, which makes the results noise).  Whole games replay in one compiled loop:
:meth:`Go.replay_planes`, :meth:`Go.replay_states`, :meth:`Go.first_illegal`.

Position array (``uint64``, like every built-in game, so compiled searches take it)
---------------------------------------------------------------------------------------
Words 0-15 are a header, read as signed ``int64`` (``state.view(np.int64)``): size, player to
move (0 Black, 1 White), ply, consecutive passes, ko point (-1 none), stones captured by
Black, by White, status, ``2*komi``, ply cap, the last four moves (most recent first, -1
none), two spare words.  The words after it hold the board as ``int8`` cells
(``state[16:].view(np.int8)[:size*size]``), row-major from the **top** row (SGF order):
0 empty, 1 Black, 2 White -- 62 words (496 bytes) on 19x19.  Action ``r*size + c`` is the
point in row ``r`` from the top and column ``c`` from the left, so actions, board cells and
input planes share one layout.  All kernels read the size from the header; one compiled set
serves every board size.

Input planes (:meth:`Go.encode`, ``num_planes = 15``; absolute colours)
-----------------------------------------------------------------------
0. Black stones, 1. White stones, 2. side to move (+1 everywhere when Black is to move,
-1 when White is),
3-6. the last 1, 2, 3, 4 moves (a one at the point played; nothing for a pass or before the
start),
7-9. Black stones whose group has 1, 2, >=3 liberties, 10-12. the same for White,
13. the ko point (recapture forbidden),
14. ones (marks the board inside the zero padding of convolutions).

This is lighter than the paper's AlphaZero features (eight past boards per colour); the
last-move and liberty planes carry most of that history's information.

Text
----
Moves in GTP coordinates: columns ``A``-``T`` skipping ``I``, rows ``1``-``19`` from the
bottom, and ``pass``.  SGF coordinates (``dp``; ``""``/``tt`` pass) via :func:`sgf_to_move` and
:func:`move_to_sgf`.  A position is written FEN-like on one line, see
:meth:`Go.position_to_text`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numba as nb
import numpy as np
import numpy.typing as npt

from sparring.errors import (
    BadValueError,
    IllegalMoveError,
    MoveParseError,
    PositionParseError,
)
from sparring.games.base import (
    DRAW,
    FIRST_WINS,
    ONGOING,
    SECOND_WINS,
    Game,
    GameParams,
    Kernels,
    MoveFilter,
    Planes,
    Policy,
    State,
    dihedral_symmetries,
)
from sparring.rng import RngState, random_below

# ---- layout ---------------------------------------------------------------------------------
SIZE, TO_MOVE, PLY, PASSES, KO, CAPS_B, CAPS_W, STATUS, KOMI2, MAX_PLY = range(10)
LAST = 10
"""Header words ``LAST:LAST+N_LAST``: the last moves, most recent first (-1: none)."""
N_LAST = 4
HEADER = 16
EMPTY, BLACK, WHITE = 0, 1, 2
NUM_PLANES = 15
GTP_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
MAX_SIZE = len(GTP_COLUMNS)


# ---- compiled helpers -------------------------------------------------------------------------
@nb.njit(cache=True, inline="always")
def _hdr(state: np.ndarray) -> np.ndarray:
    """The header words of a position as signed integers (a view)."""
    return state.view(np.int64)


@nb.njit(cache=True, inline="always")
def _board(state: np.ndarray, nn: int) -> np.ndarray:
    """The ``nn`` board cells of a position as ``int8`` (a view)."""
    return state[HEADER:].view(np.int8)[:nn]


@nb.njit(cache=True, inline="always")
def _nbr(p: int, k: int, n: int) -> int:
    """The k-th (0..3) orthogonal neighbour of point ``p``, or -1 off the board."""
    r = p // n
    c = p - r * n
    if k == 0:
        return p - n if r > 0 else -1
    if k == 1:
        return p + n if r < n - 1 else -1
    if k == 2:
        return p - 1 if c > 0 else -1
    return p + 1 if c < n - 1 else -1


@nb.njit(cache=True, inline="always")
def _new_stamp(mark: np.ndarray, nn: int) -> int:
    """A fresh visit stamp; ``mark[nn]`` holds the counter."""
    s = mark[nn] + 1
    mark[nn] = s
    return s


@nb.njit(cache=True)
def _has_liberty_except(
    board: np.ndarray, start: int, skip: int, n: int, mark: np.ndarray, stack: np.ndarray
) -> bool:
    """Whether the group at ``start`` has a liberty other than point ``skip``."""
    colour = board[start]
    stamp = _new_stamp(mark, n * n)
    mark[start] = stamp
    stack[0] = start
    top = 1
    while top > 0:
        top -= 1
        p = stack[top]
        for k in range(4):
            q = _nbr(p, k, n)
            if q < 0:
                continue
            v = board[q]
            if v == EMPTY:
                if q != skip:
                    return True
            elif v == colour and mark[q] != stamp:
                mark[q] = stamp
                stack[top] = q
                top += 1
    return False


@nb.njit(cache=True)
def _remove_group(board: np.ndarray, start: int, n: int, stack: np.ndarray) -> int:
    """Empty the group at ``start``; return its number of stones."""
    colour = board[start]
    board[start] = EMPTY
    stack[0] = start
    top = 1
    count = 0
    while top > 0:
        top -= 1
        p = stack[top]
        count += 1
        for k in range(4):
            q = _nbr(p, k, n)
            if q >= 0 and board[q] == colour:
                board[q] = EMPTY
                stack[top] = q
                top += 1
    return count


@nb.njit(cache=True)
def _legal_point(
    board: np.ndarray, p: int, colour: int, ko: int, n: int, mark: np.ndarray, stack: np.ndarray
) -> bool:
    """Whether ``colour`` may play on point ``p``: empty, not the ko point, not suicide."""
    if board[p] != EMPTY or p == ko:
        return False
    for k in range(4):
        q = _nbr(p, k, n)
        if q >= 0 and board[q] == EMPTY:
            return True
    for k in range(4):
        q = _nbr(p, k, n)
        if q < 0:
            continue
        has_other = _has_liberty_except(board, q, p, n, mark, stack)
        if board[q] == colour:
            if has_other:  # joins a group that keeps a liberty
                return True
        elif not has_other:  # captures the neighbouring group
            return True
    return False


@nb.njit(cache=True)
def _area(state: np.ndarray) -> tuple[int, int]:
    """Tromp-Taylor area (black, white): stones plus empty regions reaching one colour only."""
    h = _hdr(state)
    n = int(h[SIZE])
    nn = n * n
    board = _board(state, nn)
    seen = np.zeros(nn, dtype=np.bool_)
    stack = np.empty(nn, dtype=np.int32)
    black = 0
    white = 0
    for p in range(nn):
        v = board[p]
        if v == BLACK:
            black += 1
        elif v == WHITE:
            white += 1
        elif not seen[p]:
            seen[p] = True
            stack[0] = p
            top = 1
            size = 0
            touch_b = False
            touch_w = False
            while top > 0:
                top -= 1
                x = stack[top]
                size += 1
                for k in range(4):
                    q = _nbr(x, k, n)
                    if q < 0:
                        continue
                    w = board[q]
                    if w == EMPTY:
                        if not seen[q]:
                            seen[q] = True
                            stack[top] = q
                            top += 1
                    elif w == BLACK:
                        touch_b = True
                    else:
                        touch_w = True
            if touch_b and not touch_w:
                black += size
            elif touch_w and not touch_b:
                white += size
    return black, white


@nb.njit(cache=True)
def _final_status(state: np.ndarray) -> int:
    h = _hdr(state)
    black, white = _area(state)
    diff2 = 2 * (black - white) - int(h[KOMI2])
    if diff2 > 0:
        return FIRST_WINS
    if diff2 < 0:
        return SECOND_WINS
    return DRAW


@nb.njit(cache=True)
def _play(state: np.ndarray, move: int, mark: np.ndarray, stack: np.ndarray) -> None:
    h = _hdr(state)
    n = int(h[SIZE])
    nn = n * n
    me = int(h[TO_MOVE])
    board = _board(state, nn)
    if move == nn:
        h[PASSES] += 1
        h[KO] = -1
    else:
        colour = me + 1
        opp = 3 - colour
        board[move] = colour
        captured = 0
        cap_point = -1
        for k in range(4):
            q = _nbr(move, k, n)
            if q >= 0 and board[q] == opp and not _has_liberty_except(board, q, -1, n, mark, stack):
                captured += _remove_group(board, q, n, stack)
                cap_point = q
        ko = -1
        if captured == 1:
            lone = True  # a single stone whose only liberty is the captured point
            for k in range(4):
                q = _nbr(move, k, n)
                if q >= 0 and q != cap_point and board[q] != opp:
                    lone = False
            if lone:
                ko = cap_point
        h[KO] = ko
        if me == 0:
            h[CAPS_B] += captured
        else:
            h[CAPS_W] += captured
        h[PASSES] = 0
    for i in range(N_LAST - 1, 0, -1):
        h[LAST + i] = h[LAST + i - 1]
    h[LAST] = move
    h[PLY] += 1
    h[TO_MOVE] = 1 - me
    if h[PASSES] >= 2 or h[PLY] >= h[MAX_PLY]:
        h[STATUS] = _final_status(state)


@nb.njit(cache=True)
def _move_is_legal(state: np.ndarray, move: int, mark: np.ndarray, stack: np.ndarray) -> bool:
    h = _hdr(state)
    if h[STATUS] != ONGOING:
        return False
    n = int(h[SIZE])
    nn = n * n
    if move == nn:
        return True
    if move < 0 or move > nn:
        return False
    board = _board(state, nn)
    return _legal_point(board, move, int(h[TO_MOVE]) + 1, int(h[KO]), n, mark, stack)


@nb.njit(cache=True, inline="always")
def _work(nn: int) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(nn + 1, dtype=np.int32), np.empty(nn, dtype=np.int32)


@nb.njit(cache=True, inline="always")
def _state_work(state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ``(mark, stack)`` scratch arrays of :func:`_work` sized for ``state``'s board."""
    h = _hdr(state)
    return _work(int(h[SIZE]) * int(h[SIZE]))


@nb.njit(cache=True, inline="always")
def _is_eye(board: np.ndarray, p: int, colour: int, n: int) -> bool:
    """A single-point eye of ``colour``: all orthogonal neighbours ``colour`` and at most one
    diagonal held by the opponent (none on the edge)."""
    for k in range(4):
        q = _nbr(p, k, n)
        if q >= 0 and board[q] != colour:
            return False
    r = p // n
    c = p - r * n
    opp = 3 - colour
    bad = 0
    off = False
    for dr in (-1, 1):
        for dc in (-1, 1):
            rr = r + dr
            cc = c + dc
            if rr < 0 or rr >= n or cc < 0 or cc >= n:
                off = True
            elif board[rr * n + cc] == opp:
                bad += 1
    return bad == 0 if off else bad <= 1


@nb.njit(cache=True)
def _encode(state: np.ndarray, out: np.ndarray) -> None:
    """Write the :data:`NUM_PLANES` input planes of ``state`` into ``out[P, n, n]``."""
    h = _hdr(state)
    n = int(h[SIZE])
    nn = n * n
    board = _board(state, nn)
    out[:] = 0.0
    side = 1.0 if h[TO_MOVE] == 0 else -1.0
    for p in range(nn):
        r = p // n
        c = p - r * n
        v = board[p]
        if v == BLACK:
            out[0, r, c] = 1.0
        elif v == WHITE:
            out[1, r, c] = 1.0
        out[2, r, c] = side
        out[14, r, c] = 1.0
    for i in range(N_LAST):
        m = int(h[LAST + i])
        if 0 <= m < nn:
            out[3 + i, m // n, m % n] = 1.0
    ko = int(h[KO])
    if ko >= 0:
        out[13, ko // n, ko % n] = 1.0
    # liberties per group
    done = np.zeros(nn, dtype=np.bool_)
    lib_mark = np.zeros(nn, dtype=np.int32)
    members = np.empty(nn, dtype=np.int32)
    stamp = 0
    for p in range(nn):
        v = board[p]
        if v == EMPTY or done[p]:
            continue
        stamp += 1
        done[p] = True
        members[0] = p
        size = 1
        head = 0
        libs = 0
        while head < size:
            x = members[head]
            head += 1
            for k in range(4):
                q = _nbr(x, k, n)
                if q < 0:
                    continue
                w = board[q]
                if w == EMPTY:
                    if lib_mark[q] != stamp:
                        lib_mark[q] = stamp
                        libs += 1
                elif w == v and not done[q]:
                    done[q] = True
                    members[size] = q
                    size += 1
        plane = (7 if v == BLACK else 10) + (min(libs, 3) - 1)
        for j in range(size):
            x = members[j]
            out[plane, x // n, x % n] = 1.0


# ---- kernels ----------------------------------------------------------------------------------
@nb.njit(cache=True)
def legal_moves(state: State, out: np.ndarray) -> int:
    """Kernel: the legal points (empty, not ko, not suicide) and pass, into ``out``."""
    h = _hdr(state)
    if h[STATUS] != ONGOING:
        return 0
    n = int(h[SIZE])
    nn = n * n
    board = _board(state, nn)
    colour = int(h[TO_MOVE]) + 1
    ko = int(h[KO])
    mark, stack = _work(nn)
    k = 0
    for p in range(nn):
        if board[p] == EMPTY and _legal_point(board, p, colour, ko, n, mark, stack):
            out[k] = p
            k += 1
    out[k] = nn
    return k + 1


@nb.njit(cache=True)
def play(state: State, move: int) -> None:
    """Kernel: play a legal move (point or pass) in place."""
    mark, stack = _state_work(state)
    _play(state, move, mark, stack)


@nb.njit(cache=True)
def status(state: State) -> int:
    h = _hdr(state)
    return int(h[STATUS])


@nb.njit(cache=True)
def to_move(state: State) -> int:
    h = _hdr(state)
    return int(h[TO_MOVE])


@nb.njit(cache=True)
def random_playout(state: State, rng: RngState) -> int:
    """Kernel: random play to the end, in place; returns the final status.

    Each move is drawn uniformly among the legal points that do not fill one of the mover's
    own single-point eyes; a player with no such point passes.  (Uniform play over all legal
    moves would fill eyes and cycle through captures until the ply cap, scoring noise.)
    """
    h = _hdr(state)
    n = int(h[SIZE])
    nn = n * n
    board = _board(state, nn)
    mark, stack = _work(nn)
    cand = np.empty(nn, dtype=np.int32)
    while h[STATUS] == ONGOING:
        colour = int(h[TO_MOVE]) + 1
        ko = int(h[KO])
        cnt = 0
        for p in range(nn):
            if board[p] == EMPTY:
                cand[cnt] = p
                cnt += 1
        chosen = nn
        while cnt > 0:
            i = random_below(rng, cnt)
            p = cand[i]
            if not _is_eye(board, p, colour, n) and _legal_point(
                board, p, colour, ko, n, mark, stack
            ):
                chosen = p
                break
            cnt -= 1
            cand[i] = cand[cnt]
        _play(state, chosen, mark, stack)
    return int(h[STATUS])


@nb.njit(cache=True)
def encode_kernel(state: State, out: np.ndarray) -> None:
    """Kernel: write the input planes of ``state`` into ``out`` (``float32[15, n, n]``)."""
    _encode(state, out)


KERNELS = Kernels(legal_moves, play, status, to_move, random_playout, encode=encode_kernel)


@nb.njit(cache=True)
def replay_planes_kernel(state: State, moves: np.ndarray, out: np.ndarray) -> int:
    """Play ``moves`` from ``state`` (in place), writing the planes *before* each move to
    ``out[i]``; return the index of the first illegal move, or -1 when all are legal."""
    mark, stack = _state_work(state)
    for i in range(moves.shape[0]):
        m = int(moves[i])
        if not _move_is_legal(state, m, mark, stack):
            return i
        _encode(state, out[i])
        _play(state, m, mark, stack)
    return -1


@nb.njit(cache=True)
def replay_states_kernel(state: State, moves: np.ndarray, out: np.ndarray) -> int:
    """Play ``moves`` from ``state`` (in place), writing the position before move ``i`` to
    ``out[i]`` and the final one to ``out[len(moves)]``; return the first illegal index or -1."""
    mark, stack = _state_work(state)
    for i in range(moves.shape[0]):
        m = int(moves[i])
        if not _move_is_legal(state, m, mark, stack):
            return i
        out[i, :] = state
        _play(state, m, mark, stack)
    out[moves.shape[0], :] = state
    return -1


@nb.njit(cache=True)
def first_illegal_kernel(state: State, moves: np.ndarray) -> int:
    """Play ``moves`` from ``state`` in place; the index of the first illegal move or -1."""
    mark, stack = _state_work(state)
    for i in range(moves.shape[0]):
        m = int(moves[i])
        if not _move_is_legal(state, m, mark, stack):
            return i
        _play(state, m, mark, stack)
    return -1


@nb.njit(cache=True)
def area_kernel(state: State) -> tuple[int, int]:
    """Tromp-Taylor area of (Black, White)."""
    return _area(state)


@nb.njit(cache=True)
def own_eyes_kernel(state: State, out: np.ndarray) -> None:
    """Write into ``out`` (bool, one entry per action) whether each action fills a
    single-point eye of the player to move (False for the pass and for occupied points)."""
    h = _hdr(state)
    n = int(h[SIZE])
    nn = n * n
    board = _board(state, nn)
    colour = int(h[TO_MOVE]) + 1
    for p in range(nn):
        out[p] = board[p] == EMPTY and _is_eye(board, p, colour, n)
    out[nn] = False


# ---- coordinates --------------------------------------------------------------------------
def _row_col(move: int, size: int) -> tuple[int, int] | None:
    """``(row from the top, column)`` of a point action, None for the pass; ValueError for an
    action off the board."""
    nn = size * size
    if move == nn:
        return None
    if not 0 <= move < nn:
        raise ValueError(f"go: move {move} outside 0..{nn}")
    return divmod(move, size)


def move_to_gtp(move: int, size: int) -> str:
    """GTP text of an action: ``D4``, ``Q16``, ``pass``."""
    point = _row_col(move, size)
    if point is None:
        return "pass"
    r, c = point
    return f"{GTP_COLUMNS[c]}{size - r}"


def gtp_to_move(text: str, size: int) -> int:
    """The action of a GTP vertex (case-insensitive) or ``pass``; MoveParseError if malformed."""
    token = text.strip().upper()
    if token == "PASS":
        return size * size
    cols = GTP_COLUMNS[:size]
    if len(token) >= 2 and token[0] in cols and token[1:].isdigit():
        row = int(token[1:])
        if 1 <= row <= size:
            return (size - row) * size + cols.index(token[0])
    raise MoveParseError(
        f"go{size}: bad move {text!r}: expected a point A1-{cols[-1]}{size} (no I) or 'pass'"
    )


def move_to_sgf(move: int, size: int) -> str:
    """SGF coordinates of an action (``dp``; the empty string for a pass)."""
    point = _row_col(move, size)
    if point is None:
        return ""
    r, c = point
    return "abcdefghijklmnopqrstuvwxyz"[c] + "abcdefghijklmnopqrstuvwxyz"[r]


def sgf_to_move(text: str, size: int) -> int:
    """The action of SGF coordinates (column letter, then row letter from the top); ``""`` and,
    on boards up to 19x19, ``tt`` are a pass.  MoveParseError if malformed."""
    token = text.strip()
    if token == "" or (token == "tt" and size <= 19):
        return size * size
    if len(token) == 2 and token.isascii() and token.isalpha() and token.islower():
        c = ord(token[0]) - ord("a")
        r = ord(token[1]) - ord("a")
        if c < size and r < size:
            return r * size + c
    raise MoveParseError(f"go{size}: bad SGF point {text!r}")


_ROW_TOKEN = re.compile(r"\d+|[xo.]|.")


def _h(state: State) -> npt.NDArray[np.int64]:
    """The header words of a position as signed integers (a view)."""
    return state.view(np.int64)


def _cells(state: State, nn: int) -> npt.NDArray[np.int8]:
    """The board cells of a position (a view)."""
    return state[HEADER:].view(np.int8)[:nn]


def fixed_handicap_points(count: int, size: int) -> list[int]:
    """The points (actions) of GTP's fixed handicap placement of ``count`` stones on a
    ``size x size`` board (GTP 2 draft, section 4.1.1): the star points on the third line
    below 13x13 and the fourth line from 13x13 up, in the order D4 Q16 D16 Q4, then the centre
    for an odd count, the side star points D10 Q10 for 6-9 and K4 K16 for 8-9; 2..4 stones
    on even boards and on 7x7, 2..9 on odd boards from 9x9.  :class:`BadValueError` (key
    ``handicap``) when there is no such placement."""
    most = max_fixed_handicap(size)
    if most == 0:
        raise BadValueError(f"go: no fixed handicap placement on a {size}x{size} board", "handicap")
    if isinstance(count, bool) or not isinstance(count, int) or not 2 <= count <= most:
        raise BadValueError(
            f"go: a fixed handicap on {size}x{size} is 2..{most} stones, not {count!r}", "handicap"
        )
    low = 2 if size < 13 else 3  # edge distance of the star points, 0-based
    mid, high = (size - 1) // 2, size - 1 - low
    # (row from the bottom, column) per stone: GTP's D4 Q16 D16 Q4 D10 Q10 K4 K16 K10 scheme
    corners = [(low, low), (high, high), (high, low), (low, high)]
    sides = {6: [(mid, low), (mid, high)], 8: [(mid, low), (mid, high), (low, mid), (high, mid)]}
    chosen = corners[: min(count, 4)]
    if count >= 5:
        chosen += sides[count - count % 2] if count >= 6 else []
        if count % 2 == 1:
            chosen.append((mid, mid))
    return [(size - 1 - row) * size + col for row, col in chosen]


def max_fixed_handicap(size: int) -> int:
    """The most stones of GTP's fixed handicap placement on ``size x size``: 0 below 7x7,
    4 on 7x7 and on even boards, 9 on odd boards from 9x9."""
    if size < 7:
        return 0
    return 4 if size == 7 or size % 2 == 0 else 9


KOMI_LIMIT = 200.0
"""The largest komi (either sign) :class:`Go` accepts; 19x19 has 361 points, and no game
is played at a komi near this."""


class Go(Game):
    """Go with captures, simple ko, suicide forbidden, Tromp-Taylor area scoring and komi.

    ``size`` 2..25 (19 standard), ``komi`` in half points (7.5 default, at most
    :data:`KOMI_LIMIT` either way), ``max_ply`` the ply cap that ends a game (default
    ``2*size*size``).  :class:`BadValueError` names the parameter that is out of range.
    A move may be played for either side (:meth:`with_side_to_move`, GTP's ``play``), and
    the initial position may hold handicap stones (:meth:`handicap_position`).
    """

    record_format = "sgf"
    side_names = ("Black", "White")
    plays_out_of_turn = True

    def __init__(self, size: int = 19, komi: float = 7.5, max_ply: int | None = None) -> None:
        if isinstance(size, bool) or not isinstance(size, int | np.integer):
            raise BadValueError(f"go: board size must be an integer, not {size!r}", "size")
        if not 2 <= size <= MAX_SIZE:
            raise BadValueError(f"go: board size must be 2..{MAX_SIZE}, not {size}", "size")
        if isinstance(komi, bool) or not isinstance(komi, int | float | np.number):
            raise BadValueError(f"go: komi must be a number, not {komi!r}", "komi")
        if not np.isfinite(komi) or komi * 2 != round(komi * 2) or abs(komi) > KOMI_LIMIT:
            raise BadValueError(
                f"go: komi must be a multiple of 0.5 in -{KOMI_LIMIT:g}..{KOMI_LIMIT:g}, "
                f"not {komi}",
                "komi",
            )
        size = int(size)
        cap = 2 * size * size if max_ply is None else max_ply
        if isinstance(cap, bool) or not isinstance(cap, int | np.integer) or not 1 <= cap <= 32000:
            raise BadValueError(f"go: max_ply must be 1..32000, not {cap!r}", "max_ply")
        cap = int(cap)
        self.size = size
        self.komi = float(komi)
        self.max_ply = cap
        self.name = "go" if size == 19 else f"go{size}"
        self.num_actions = size * size + 1
        self.pass_move = size * size
        self.board_shape = (size, size)
        self.num_planes = NUM_PLANES
        self.kernels = KERNELS
        self.max_game_length = cap
        self.state_length = HEADER + (size * size + 7) // 8

    # ---- parameters and capabilities --------------------------------------------------------
    def params(self) -> GameParams:
        """``size`` and ``komi``, and ``max_ply`` when it is not the default ``2*size*size``."""
        params: GameParams = {"size": self.size, "komi": self.komi}
        if self.max_ply != 2 * self.size * self.size:
            params["max_ply"] = self.max_ply
        return params

    def score_text(self, state: State) -> str | None:
        """``Score (area, Tromp-Taylor): Black b, White w, komi k: Black wins by m.``"""
        black, white = self.area(state)
        margin = self.score_margin(state)
        verdict = (
            f"Black wins by {margin:g}"
            if margin > 0
            else f"White wins by {-margin:g}"
            if margin < 0
            else "a draw"
        )
        return (
            f"Score (area, Tromp-Taylor): Black {black}, White {white}, komi {self.komi:g}: "
            f"{verdict}."
        )

    def with_side_to_move(self, state: State, player: int) -> State:
        """A copy of ``state`` with ``player`` (0 Black, 1 White) to move, for a move out of
        turn (GTP ``play b D4`` while White is to move).  Handing the move to the other side
        clears the ko point (the ko forbade only the next move of the side to move) and keeps
        the pass count; the same side keeps the position as it is."""
        if player not in (0, 1):
            raise BadValueError(f"{self.name}: a side is 0 (Black) or 1 (White), not {player!r}")
        out = state.copy()
        h = _h(out)
        if int(h[TO_MOVE]) != player:
            h[TO_MOVE] = player
            h[KO] = -1
        return out

    def max_handicap(self) -> int:
        """Free placement takes up to ``size*size - 1`` stones (GTP's bound)."""
        return self.size * self.size - 1

    def fixed_handicap(self, count: int) -> list[int]:
        """GTP's fixed placement of ``count`` stones (:func:`fixed_handicap_points`)."""
        return fixed_handicap_points(count, self.size)

    def handicap_position(self, points: Sequence[int]) -> State:
        """The empty board with Black stones on ``points`` (2..``size*size - 1`` distinct
        points, pass excluded) and White to move, as after GTP's ``fixed_handicap`` or
        ``set_free_handicap``.  :class:`BadValueError` (key ``handicap``) names a bad point."""
        nn = self.size * self.size
        pts = [int(p) for p in points]
        if not 2 <= len(pts) <= nn - 1:
            raise BadValueError(
                f"{self.name}: a handicap is 2..{nn - 1} stones, not {len(pts)}", "handicap"
            )
        for p in pts:
            if not 0 <= p < nn:
                raise BadValueError(
                    f"{self.name}: handicap point {p} is not on the board", "handicap"
                )
        if len(set(pts)) != len(pts):
            raise BadValueError(f"{self.name}: a handicap point is given twice", "handicap")
        return self.setup(black=pts, to_move=1)

    # ---- positions ------------------------------------------------------------------------
    def initial_state(self) -> State:
        return self.setup()

    def setup(
        self,
        black: Sequence[int] = (),
        white: Sequence[int] = (),
        to_move: int = 0,
    ) -> State:
        """A position with the given stones (actions) placed, e.g. handicap stones, and
        ``to_move`` (0 Black, 1 White) to play; ply 0.  Raises ValueError for overlapping
        points or groups without liberties."""
        n = self.size
        state = np.zeros(self.state_length, dtype=np.uint64)
        h = _h(state)
        h[SIZE] = n
        h[TO_MOVE] = to_move
        h[KO] = -1
        h[KOMI2] = round(self.komi * 2)
        h[MAX_PLY] = self.max_ply
        h[LAST : LAST + N_LAST] = -1
        board = _cells(state, n * n)
        for colour, points in ((BLACK, black), (WHITE, white)):
            for p in points:
                if not 0 <= p < n * n:
                    raise ValueError(f"{self.name}: setup point {p} is off the board")
                if board[p] != EMPTY:
                    raise ValueError(f"{self.name}: setup point {move_to_gtp(p, n)} twice")
                board[p] = colour
        dead = self._group_without_liberty(state)
        if dead >= 0:
            raise ValueError(f"{self.name}: the group at {move_to_gtp(dead, n)} has no liberty")
        if to_move not in (0, 1):
            raise ValueError(f"{self.name}: to_move must be 0 or 1")
        return state

    def _group_without_liberty(self, state: State) -> int:
        n = self.size
        nn = n * n
        board = _cells(state, nn)
        mark = np.zeros(nn + 1, dtype=np.int32)
        stack = np.empty(nn, dtype=np.int32)
        for p in range(nn):
            if board[p] != EMPTY and not _has_liberty_except(board, p, -1, n, mark, stack):
                return p
        return -1

    def ply(self, state: State) -> int:
        return int(_h(state)[PLY])

    def stones(self, state: State) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
        """Boolean (size, size) grids of Black's and White's stones, top row first."""
        board = _cells(state, self.size * self.size).reshape(self.size, self.size)
        return board == BLACK, board == WHITE

    def board(self, state: State) -> npt.NDArray[np.int8]:
        """The board as a (size, size) array, top row first: 0 empty, 1 Black, 2 White."""
        return _cells(state, self.size * self.size).reshape(self.size, self.size).copy()

    def ko_point(self, state: State) -> int:
        """The point where the player to move may not recapture, or -1."""
        return int(_h(state)[KO])

    def captures(self, state: State) -> tuple[int, int]:
        """Stones captured so far by (Black, White)."""
        return int(_h(state)[CAPS_B]), int(_h(state)[CAPS_W])

    def area(self, state: State) -> tuple[int, int]:
        """Tromp-Taylor area (Black, White) of the position as it stands."""
        b, w = area_kernel(state)
        return int(b), int(w)

    def consecutive_passes(self, state: State) -> int:
        """Passes in a row just played (0, 1; 2 ends the game)."""
        return int(_h(state)[PASSES])

    def own_eyes(self, state: State) -> npt.NDArray[np.bool_]:
        """A mask over the actions: the empty points that are single-point eyes of the player
        to move (the rule of :func:`random_playout`); False for the pass.  Filling one's own
        eye never helps under area scoring, so players that must finish games skip them."""
        out = np.empty(self.num_actions, dtype=np.bool_)
        own_eyes_kernel(state, out)
        return out

    def score_margin(self, state: State) -> float:
        """Black's area minus White's area minus komi (positive: Black ahead)."""
        b, w = self.area(state)
        return b - w - int(_h(state)[KOMI2]) / 2.0

    def passes_to_win(self, state: State) -> bool:
        """The pass-to-win rule: the opponent has just passed and the player to move is ahead
        by the Tromp-Taylor area count (komi included), so passing ends the game won."""
        if self.consecutive_passes(state) != 1:
            return False
        return self.score_margin(state) * (1.0 if self.to_move(state) == 0 else -1.0) > 0

    def move_filter(self, state: State) -> MoveFilter:
        """Go's finishing rules, the usual ones of Go programs under area scoring: pass to
        win (:meth:`passes_to_win`), and no filling of one's own single-point eyes
        (:meth:`own_eyes`, the rule of the random playouts)."""
        if self.passes_to_win(state):
            return MoveFilter(True, np.zeros(self.num_actions, dtype=np.bool_), self.pass_move)
        return MoveFilter(False, self.own_eyes(state), self.pass_move)

    # ---- replay ------------------------------------------------------------------------------
    def _moves_array(self, moves: Sequence[int] | npt.NDArray[np.integer]) -> npt.NDArray[np.int64]:
        arr = np.ascontiguousarray(np.asarray(moves, dtype=np.int64).reshape(-1))
        return arr

    def _start(self, initial: State | None) -> State:
        return self.initial_state() if initial is None else np.array(initial, dtype=np.uint64)

    def _raise_illegal(self, moves: npt.NDArray[np.int64], i: int) -> None:
        m = int(moves[i])
        text = move_to_gtp(m, self.size) if 0 <= m < self.num_actions else str(m)
        raise IllegalMoveError(f"{self.name}: move {i + 1} ({text}) is illegal")

    def first_illegal(
        self, moves: Sequence[int] | npt.NDArray[np.integer], initial: State | None = None
    ) -> int:
        """Index of the first illegal move of ``moves`` played from ``initial`` (the empty
        board by default), or -1 when the whole sequence is legal.  One compiled loop."""
        return int(first_illegal_kernel(self._start(initial), self._moves_array(moves)))

    def replay_states(
        self, moves: Sequence[int] | npt.NDArray[np.integer], initial: State | None = None
    ) -> npt.NDArray[np.uint64]:
        """All positions of a game: ``out[i]`` before move ``i``, ``out[len(moves)]`` the final
        one; shape ``(len(moves)+1, state_length)``.  IllegalMoveError names a bad move."""
        arr = self._moves_array(moves)
        out = np.empty((arr.shape[0] + 1, self.state_length), dtype=np.uint64)
        bad = int(replay_states_kernel(self._start(initial), arr, out))
        if bad >= 0:
            self._raise_illegal(arr, bad)
        return out

    def replay_planes(
        self, moves: Sequence[int] | npt.NDArray[np.integer], initial: State | None = None
    ) -> npt.NDArray[np.float32]:
        """Input planes before every move of a game, shape ``(len(moves), num_planes, n, n)``:
        the (position, move) pairs of a record in one compiled loop.  IllegalMoveError names
        the first illegal move."""
        arr = self._moves_array(moves)
        n = self.size
        out = np.empty((arr.shape[0], NUM_PLANES, n, n), dtype=np.float32)
        bad = int(replay_planes_kernel(self._start(initial), arr, out))
        if bad >= 0:
            self._raise_illegal(arr, bad)
        return out

    # ---- network input ------------------------------------------------------------------------
    def encode(self, state: State) -> Planes:
        """The 15 input planes described in the module docstring."""
        out = np.empty((NUM_PLANES, self.size, self.size), dtype=np.float32)
        encode_kernel(state, out)
        return out

    def symmetries(self, planes: Planes, policy: Policy) -> list[tuple[Planes, Policy]]:
        """The 8 rotations/reflections; pass is left in place."""
        return dihedral_symmetries(planes, policy, self.size, 1)

    # ---- text ---------------------------------------------------------------------------------
    def move_to_text(self, move: int) -> str:
        return move_to_gtp(move, self.size)

    def _parse_move_token(self, text: str) -> int:
        return gtp_to_move(text, self.size)

    def position_to_text(self, state: State) -> str:
        """One line: board rows from the top separated by ``/`` (``x`` Black, ``o`` White, a
        number for that many empty points), the side to move (``b``/``w``), then the fields
        that differ from their defaults: ``ko=D4``, ``passes=1``, ``ply=37``,
        ``captures=3,2`` (by Black, by White), ``last=D4,Q16,pass`` (most recent first).

        Example: ``9/9/2x6/9/4o4/9/9/9/9 b ply=2 last=E5,C7``.
        """
        n = self.size
        board = _cells(state, n * n)
        rows = []
        for r in range(n):
            parts: list[str] = []
            empty = 0
            for c in range(n):
                v = board[r * n + c]
                if v == EMPTY:
                    empty += 1
                    continue
                if empty:
                    parts.append(str(empty))
                    empty = 0
                parts.append("x" if v == BLACK else "o")
            if empty:
                parts.append(str(empty))
            rows.append("".join(parts))
        h = _h(state)
        fields = ["/".join(rows), "b" if h[TO_MOVE] == 0 else "w"]
        if h[KO] >= 0:
            fields.append(f"ko={move_to_gtp(int(h[KO]), n)}")
        if h[PASSES]:
            fields.append(f"passes={int(h[PASSES])}")
        if h[PLY]:
            fields.append(f"ply={int(h[PLY])}")
        if h[CAPS_B] or h[CAPS_W]:
            fields.append(f"captures={int(h[CAPS_B])},{int(h[CAPS_W])}")
        last = [int(m) for m in h[LAST : LAST + N_LAST] if m >= 0]
        if last:
            fields.append("last=" + ",".join(move_to_gtp(m, n) for m in last))
        return " ".join(fields)

    def parse_position(self, text: str) -> State:
        """Read :meth:`position_to_text`'s form (``.`` is also accepted for one empty point);
        komi and ply cap come from this game.  PositionParseError says what is wrong."""
        n = self.size
        name = self.name
        parts = text.split()
        if len(parts) < 2:
            raise PositionParseError(
                f"{name}: bad position {text!r}: expected {n} '/'-separated rows and b or w"
            )
        rows = parts[0].split("/")
        if len(rows) != n:
            raise PositionParseError(f"{name}: bad position: {len(rows)} rows, expected {n}")
        state = self.initial_state()
        board = _cells(state, n * n)
        for r, row in enumerate(rows):
            c = 0
            for tok in _ROW_TOKEN.findall(row):
                if tok.isdigit():
                    c += int(tok)
                elif tok in "xo.":
                    if c < n and tok != ".":
                        board[r * n + c] = BLACK if tok == "x" else WHITE
                    c += 1
                else:
                    raise PositionParseError(
                        f"{name}: bad position: row {r + 1} has {tok!r}; use x, o, . or a count"
                    )
                if c > n:
                    break
            if c != n:
                raise PositionParseError(
                    f"{name}: bad position: row {r + 1} {row!r} has {c} points, expected {n}"
                )
        side = parts[1].lower()
        if side not in ("b", "w"):
            raise PositionParseError(
                f"{name}: bad position: side to move {parts[1]!r}; expected b or w"
            )
        _h(state)[TO_MOVE] = 0 if side == "b" else 1
        seen: set[str] = set()
        for field in parts[2:]:
            key, eq, value = field.partition("=")
            if not eq or key not in ("ko", "passes", "ply", "captures", "last"):
                raise PositionParseError(
                    f"{name}: bad position: unknown field {field!r}; "
                    "expected ko=, passes=, ply=, captures= or last="
                )
            if key in seen:
                raise PositionParseError(f"{name}: bad position: field {key!r} given twice")
            seen.add(key)
            self._parse_field(state, key, value)
        dead = self._group_without_liberty(state)
        if dead >= 0:
            raise PositionParseError(
                f"{name}: bad position: the group at {move_to_gtp(dead, n)} has no liberty"
            )
        h = _h(state)
        if h[PASSES] >= 2 or h[PLY] >= h[MAX_PLY]:
            h[STATUS] = _final_status(state)
        return state

    def _parse_field(self, state: State, key: str, value: str) -> None:
        n = self.size
        name = self.name
        try:
            if key == "ko":
                ko = gtp_to_move(value, n)
                if ko == n * n or _cells(state, n * n)[ko] != EMPTY:
                    raise PositionParseError(
                        f"{name}: bad position: ko point {value!r} is not an empty point"
                    )
                _h(state)[KO] = ko
            elif key == "last":
                moves = [gtp_to_move(v, n) for v in value.split(",")]
                if len(moves) > N_LAST:
                    raise PositionParseError(
                        f"{name}: bad position: last= holds at most {N_LAST} moves"
                    )
                for i, m in enumerate(moves):
                    _h(state)[LAST + i] = m
            elif key == "captures":
                b, w = value.split(",")
                if not (b.isdigit() and w.isdigit()) or max(int(b), int(w)) > 32000:
                    raise ValueError
                _h(state)[CAPS_B : CAPS_W + 1] = int(b), int(w)
            else:
                if not value.isdigit():
                    raise ValueError
                v = int(value)
                if (key == "passes" and v > 2) or (key == "ply" and v > 32000):
                    raise ValueError
                _h(state)[PASSES if key == "passes" else PLY] = v
        except MoveParseError as err:
            raise PositionParseError(f"{name}: bad position: {key}={value!r}: {err}") from None
        except ValueError as err:
            if isinstance(err, PositionParseError):
                raise
            raise PositionParseError(
                f"{name}: bad position: bad value in {key}={value!r}"
            ) from None

    def render(self, state: State) -> str:
        n = self.size
        board = _cells(state, n * n)
        cols = "   " + " ".join(GTP_COLUMNS[:n])
        lines = [cols]
        ko = int(_h(state)[KO])
        for r in range(n):
            cells = []
            for c in range(n):
                v = board[r * n + c]
                p = r * n + c
                cells.append("X" if v == BLACK else "O" if v == WHITE else "*" if p == ko else ".")
            lines.append(f"{n - r:2d} " + " ".join(cells) + f" {n - r}")
        lines.append(cols)
        b, w = self.area(state)
        side = "X (Black)" if _h(state)[TO_MOVE] == 0 else "O (White)"
        lines.append(
            f"{side} to move, ply {int(_h(state)[PLY])}; area X {b} - O {w}, komi {self.komi:g}"
        )
        return "\n".join(lines)


__all__ = [
    "KERNELS",
    "NUM_PLANES",
    "Go",
    "gtp_to_move",
    "move_to_gtp",
    "move_to_sgf",
    "sgf_to_move",
]
