"""Chess under the :class:`~sparring.games.base.Game` interface, on top of python-chess.

Rules are python-chess's for standard chess.  A game is over when
``Board.outcome(claim_draw=False)`` says so: checkmate, stalemate, insufficient material, the
**75-move rule** and **fivefold repetition**.  The claimable draws (50-move rule, threefold
repetition) do **not** end a game; a player wanting them must be given them by the caller
(Lichess, for instance, ends games at threefold repetition, so the final position of such a
record is still "ongoing" here).  White moves first and is player 0.

Action space (``num_actions = 4272``, absolute squares, python-chess numbering a1=0 .. h8=63)
--------------------------------------------------------------------------------------------
* ``from*64 + to`` (0..4095) for every non-promoting move, castling included (``e1g1``);
* ``4096 + 4*k + p`` for promotions, ``k`` indexing the 44 geometrically possible promotion
  steps (a White pawn from rank 7 to rank 8, or a Black pawn from rank 2 to rank 1, straight
  or capturing to a neighbouring file; see :data:`PROMOTION_STEPS`) and ``p`` the piece
  0 queen, 1 rook, 2 bishop, 3 knight.

Every action has exactly one UCI text (``e2e4``, ``e7e8q``), so :meth:`Chess.move_to_text`
needs no position; actions such as ``a1a1`` exist but are never legal.  The AlphaZero 8x8x73
encoding was not used because its "queen move" planes make ``e7e8`` a rook move or a queen
promotion depending on the position.

Position array (``uint64[331]``)
--------------------------------
Words 0-11 hold the FEN of the position (ASCII, NUL-padded to 96 bytes), word 12 the ply,
13 the status, 14 the player to move, 15 the number ``k`` of reversible moves played since
the last irreversible one (python-chess's notion: pawn moves, captures, moves losing
castling rights or ceding an en-passant capture); words 16-27 the FEN of the position after
that irreversible move (the *base*), then 152 words for the 64-bit repetition keys of the
base and of the ``k`` positions after it (the current one last) and 151 words for those
``k`` moves.  Fivefold repetition is read from the keys, exactly as python-chess counts it
from its move stack; the keys are a deterministic 64-bit mix of python-chess's transposition
key.  The moves let :meth:`Chess.position_to_text` write the history (the 75-move rule
bounds ``k`` by 150).

Kernels
-------
Chess cannot be compiled: :data:`KERNELS` holds **plain Python callables** with the kernel
signatures.  Python-level code (the Game methods, Python searches) works with them;
numba-compiled searches cannot take them, so chess runs only Python-level search.

Input planes (:meth:`Chess.encode`, ``num_planes = 23``; row 0 is rank 8, column 0 file a)
--------------------------------------------------------------------------------------------
0. White pieces, 1. Black pieces, 2. side to move (+1 White, -1 Black),
3-8. White pawns, knights, bishops, rooks, queens, king, 9-14. the same for Black,
15-18. castling rights White O-O, White O-O-O, Black O-O, Black O-O-O (all ones when held),
19. the en-passant target square (only when an en-passant capture is legal),
20. the halfmove clock / 100 everywhere (the 75-move rule ends the game at 1.5),
21. ones when the position has occurred at least twice, 22. at least three times.

No history planes (the paper's AlphaZero features have 119 planes with 8 past positions).

Symmetries: the identity only (castling and pawn direction break the board symmetries;
without castling rights the left-right reflection is one, :func:`mirror_action_table`, which
the human-move training uses but the Game interface does not offer).

Position text: a FEN, followed by ``moves`` and UCI moves when reversible moves lead to the
position (see :meth:`Chess.position_to_text`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import NamedTuple

import chess
import numpy as np
import numpy.typing as npt

from sparring.errors import (
    GameOverError,
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
    Kernels,
    Moves,
    Planes,
    Policy,
    State,
)
from sparring.rng import RngState, random_below

FEN_WORDS = 12
FEN_BYTES = 8 * FEN_WORDS
PLY, STATUS, TO_MOVE, NHIST = 12, 13, 14, 15
BASE = 16
"""Words ``BASE:BASE+12``: the FEN of the position after the last irreversible move."""
MAX_HIST = 151
"""Reversible moves a game can hold in a row: the 75-move rule ends it at 150."""
KEYS = BASE + FEN_WORDS
MOVES = KEYS + MAX_HIST + 1
STATE_LENGTH = MOVES + MAX_HIST
NUM_PLANES = 23
CASTLING_PLANES = slice(15, 19)
"""The four castling-right planes of :func:`encode_board` (all zeros: no side may castle)."""
MAX_GAME_LENGTH = 19176
"""A bound from the 75-move rule: at most 126 zeroing moves (16 pawns x 6 steps, 30 captures),
each stretch between them shorter than 150 plies: ``126 + 127*150``."""

_PIECES = "qrbn"
_PROMOTION_PIECES = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT)


def _promotion_steps() -> list[tuple[int, int]]:
    steps = []
    for from_rank, to_rank in ((6, 7), (1, 0)):
        for f in range(8):
            for df in (-1, 0, 1):
                if 0 <= f + df < 8:
                    steps.append((from_rank * 8 + f, to_rank * 8 + f + df))
    return steps


PROMOTION_STEPS: tuple[tuple[int, int], ...] = tuple(_promotion_steps())
"""The 44 (from, to) square pairs of a promotion, White's first."""
_STEP_INDEX = {step: k for k, step in enumerate(PROMOTION_STEPS)}
NUM_ACTIONS = 4096 + 4 * len(PROMOTION_STEPS)

_MASK64 = (1 << 64) - 1


# ---- actions ----------------------------------------------------------------------------------
def move_to_action(move: chess.Move) -> int:
    """The action of a python-chess move; ValueError for null moves, drops and promotions
    with no action (impossible geometry)."""
    if not move or move.drop is not None:
        raise ValueError(f"chess: no action for move {move.uci()!r}")
    if move.promotion is None:
        return move.from_square * 64 + move.to_square
    k = _STEP_INDEX.get((move.from_square, move.to_square))
    if k is None or move.promotion not in _PROMOTION_PIECES:
        raise ValueError(f"chess: no action for promotion {move.uci()!r}")
    return 4096 + 4 * k + _PROMOTION_PIECES.index(move.promotion)


def action_to_move(action: int) -> chess.Move:
    """The python-chess move of an action (ValueError outside ``0..NUM_ACTIONS-1``)."""
    if 0 <= action < 4096:
        return chess.Move(action // 64, action % 64)
    if 4096 <= action < NUM_ACTIONS:
        k, p = divmod(action - 4096, 4)
        f, t = PROMOTION_STEPS[k]
        return chess.Move(f, t, promotion=_PROMOTION_PIECES[p])
    raise ValueError(f"chess: action {action} outside 0..{NUM_ACTIONS - 1}")


@functools.cache
def mirror_action_table() -> npt.NDArray[np.int64]:
    """``table[a]``: the action of ``a`` reflected left to right (file a <-> h, b <-> g, ...;
    square ``s`` -> ``s ^ 7``), promotions to the same piece.  Chess's rules are symmetric
    under this reflection in a position where no side has a castling right (pawns move along
    files, en passant and promotion reflect), so such a position and its reflection are the
    same problem; with castling rights they are not (the king starts on the e-file).  Used to
    augment human-move training data (:attr:`sparring.estimation.train.SEConfig.mirror`)."""
    table = np.empty(NUM_ACTIONS, dtype=np.int64)
    for a in range(4096):
        table[a] = (a // 64 ^ 7) * 64 + (a % 64 ^ 7)
    for k, (f, t) in enumerate(PROMOTION_STEPS):
        for p in range(4):
            table[4096 + 4 * k + p] = 4096 + 4 * _STEP_INDEX[(f ^ 7, t ^ 7)] + p
    return table


def action_to_uci(action: int) -> str:
    """UCI text of an action: ``e2e4``, ``e7e8q`` (``a1a1`` for the never-legal from=to)."""
    m = action_to_move(action)
    text = chess.SQUARE_NAMES[m.from_square] + chess.SQUARE_NAMES[m.to_square]
    if m.promotion is not None:
        text += chess.piece_symbol(m.promotion)
    return text


def uci_to_action(text: str) -> int:
    """The action of a UCI move text; MoveParseError naming the token if malformed."""
    token = text.strip().lower()
    if (
        len(token) in (4, 5)
        and token[0] in "abcdefgh"
        and token[2] in "abcdefgh"
        and token[1] in "12345678"
        and token[3] in "12345678"
    ):
        f = chess.parse_square(token[:2])
        t = chess.parse_square(token[2:4])
        if len(token) == 4:
            return f * 64 + t
        if token[4] in _PIECES:
            k = _STEP_INDEX.get((f, t))
            if k is not None:
                return 4096 + 4 * k + _PIECES.index(token[4])
            raise MoveParseError(
                f"chess: bad move {text!r}: {token[:4]} is not a pawn promotion step"
            )
    raise MoveParseError(f"chess: bad move {text!r}: expected UCI such as e2e4 or e7e8q")


# ---- positions ------------------------------------------------------------------------------
def repetition_key(board: chess.Board) -> int:
    """A deterministic 64-bit key of the position as python-chess compares positions for
    repetitions (pieces, side to move, castling rights, legal en-passant square)."""
    h = 0x9E3779B97F4A7C15
    key: tuple[int | bool | None, ...] = board._transposition_key()  # type: ignore[assignment]
    for x in key:
        v = -1 if x is None else int(x)
        h = ((h ^ (v & _MASK64)) * 0xBF58476D1CE4E5B9) & _MASK64
        h ^= h >> 31
    return h


class _Position(NamedTuple):
    board: chess.Board
    legal: Moves
    outcome: int  # status ignoring repetitions


@functools.lru_cache(maxsize=8192)
def _position(fen: bytes) -> _Position:
    board = chess.Board(fen.decode("ascii"))
    legal = np.array(sorted(move_to_action(m) for m in board.legal_moves), dtype=np.int64)
    return _Position(board, legal, _outcome_status(board))


def _outcome_status(board: chess.Board) -> int:
    outcome = board.outcome(claim_draw=False)
    if outcome is None:
        return ONGOING
    if outcome.winner is None:
        return DRAW
    return FIRST_WINS if outcome.winner == chess.WHITE else SECOND_WINS


def _fen_bytes(state: State) -> bytes:
    return state[:FEN_WORDS].view(np.uint8).tobytes().rstrip(b"\0")


def _base_fen_bytes(state: State) -> bytes:
    return state[BASE : BASE + FEN_WORDS].view(np.uint8).tobytes().rstrip(b"\0")


def _keys(state: State) -> npt.NDArray[np.uint64]:
    """Repetition keys of the base position and of each position after it, current last."""
    return state[KEYS : KEYS + int(state[NHIST]) + 1]


def _history(state: State) -> list[int]:
    """The reversible moves played since the base position."""
    return [int(m) for m in state[MOVES : MOVES + int(state[NHIST])]]


def _put_fen(state: State, at: int, fen: bytes) -> None:
    if len(fen) > FEN_BYTES:
        raise PositionParseError(f"chess: FEN longer than {FEN_BYTES} characters")
    buf = np.zeros(FEN_BYTES, dtype=np.uint8)
    buf[: len(fen)] = np.frombuffer(fen, dtype=np.uint8)
    state[at : at + FEN_WORDS] = buf.view(np.uint64)


def _write(
    state: State,
    board: chess.Board,
    ply: int,
    base: bytes | None,
    keys: Sequence[int],
    moves: Sequence[int],
) -> None:
    """Store ``board`` into ``state`` with its history: the base position's FEN (None: the
    current position is the base), the reversible ``moves`` played since and the repetition
    ``keys`` of the base and of every later position (current last)."""
    fen = board.fen().encode("ascii")
    keys, moves = list(keys), list(moves)
    if len(moves) > MAX_HIST:  # cannot happen in legal play (75-move rule); keep the latest
        drop = len(moves) - MAX_HIST
        replay = _position(base or fen).board.copy(stack=False)
        for m in moves[:drop]:
            replay.push(action_to_move(m))
        base, keys, moves = replay.fen().encode("ascii"), keys[drop:], moves[drop:]
    _put_fen(state, 0, fen)
    _put_fen(state, BASE, fen if base is None else base)
    state[PLY] = ply
    state[TO_MOVE] = 0 if board.turn == chess.WHITE else 1
    state[NHIST] = len(moves)
    state[KEYS : KEYS + len(keys)] = np.array(keys, dtype=np.uint64)
    state[MOVES : MOVES + len(moves)] = np.array(moves, dtype=np.uint64)
    status = _position(fen).outcome
    if status == ONGOING and keys.count(keys[-1]) >= 5:
        status = DRAW
    state[STATUS] = status


def board_of(state: State) -> chess.Board:
    """A fresh python-chess board of the position (without move stack)."""
    return _position(_fen_bytes(state)).board.copy(stack=False)


def repetitions(state: State) -> int:
    """How many times the current position has occurred (1 the first time)."""
    keys = _keys(state)
    return int(np.count_nonzero(keys == keys[-1])) if keys.size else 1


# ---- kernels (plain Python) -------------------------------------------------------------------
def legal_moves(state: State, out: np.ndarray) -> int:
    """Kernel (Python): write the legal actions in increasing order to ``out``."""
    if state[STATUS] != ONGOING:
        return 0
    legal = _position(_fen_bytes(state)).legal
    out[: legal.size] = legal
    return int(legal.size)


def play(state: State, move: int) -> None:
    """Kernel (Python): play a legal action in place."""
    board = _position(_fen_bytes(state)).board.copy(stack=False)
    m = action_to_move(int(move))
    irreversible = board.is_irreversible(m)
    board.push(m)
    key = repetition_key(board)
    ply = int(state[PLY]) + 1
    if irreversible:
        _write(state, board, ply, None, [key], [])
    else:
        keys = [*(int(k) for k in _keys(state)), key]
        _write(state, board, ply, _base_fen_bytes(state), keys, [*_history(state), int(move)])


def status(state: State) -> int:
    return int(state[STATUS])


def to_move(state: State) -> int:
    return int(state[TO_MOVE])


def random_playout(state: State, rng: RngState) -> int:
    """Kernel (Python): uniformly random legal moves to the end of the game, in place."""
    while state[STATUS] == ONGOING:
        legal = _position(_fen_bytes(state)).legal
        play(state, int(legal[random_below(rng, legal.size)]))
    return int(state[STATUS])


KERNELS = Kernels(legal_moves, play, status, to_move, random_playout, encode=None)


# ---- encoding ------------------------------------------------------------------------------------
_PIECE_TYPES = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING)


def encode_board(board: chess.Board, repetition_count: int, out: np.ndarray) -> None:
    """Write the 23 input planes of ``board`` into ``out`` (``float32[23, 8, 8]``)."""
    masks = [board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK]]
    masks += [board.pieces_mask(pt, chess.WHITE) for pt in _PIECE_TYPES]
    masks += [board.pieces_mask(pt, chess.BLACK) for pt in _PIECE_TYPES]
    words = np.array(masks, dtype="<u8")
    bits = np.unpackbits(words.view(np.uint8), bitorder="little").reshape(14, 8, 8)
    out[:] = 0.0
    out[0:2] = bits[0:2, ::-1, :]
    out[3:15] = bits[2:14, ::-1, :]
    out[2] = 1.0 if board.turn == chess.WHITE else -1.0
    rights = board.clean_castling_rights()
    for i, sq in enumerate((chess.H1, chess.A1, chess.H8, chess.A8)):
        if rights & chess.BB_SQUARES[sq]:
            out[15 + i] = 1.0
    if board.has_legal_en_passant() and board.ep_square is not None:
        ep = board.ep_square
        out[19, 7 - ep // 8, ep % 8] = 1.0
    out[20] = board.halfmove_clock / 100.0
    if repetition_count >= 2:
        out[21] = 1.0
    if repetition_count >= 3:
        out[22] = 1.0


class Chess(Game):
    """Standard chess (python-chess rules, automatic draws only; see the module docstring)."""

    name = "chess"
    num_actions = NUM_ACTIONS
    board_shape = (8, 8)
    num_planes = NUM_PLANES
    kernels = KERNELS
    max_game_length = MAX_GAME_LENGTH
    compiled = False
    """The kernels are Python callables, not numba functions."""
    record_format = "pgn"
    side_names = ("White", "Black")
    side_marks = ("capital letters", "small letters")

    def side_label(self, player: int) -> str:
        """``White (capital letters)`` or ``Black (small letters)``."""
        return f"{self.side_names[player]} ({self.side_marks[player]})"

    # ---- positions ------------------------------------------------------------------------
    def initial_state(self) -> State:
        return self.state_from_board(chess.Board())

    def state_from_board(self, board: chess.Board, ply: int | None = None) -> State:
        """The position of a python-chess board.  Its move stack, if any, supplies the
        repetition history; ``ply`` defaults to the count implied by the fullmove number."""
        root = board.root() if board.move_stack else board
        state = np.zeros(STATE_LENGTH, dtype=np.uint64)
        start = 2 * (root.fullmove_number - 1) + (0 if root.turn == chess.WHITE else 1)
        _write(state, root, start, None, [repetition_key(root)], [])
        for m in board.move_stack:
            play(state, move_to_action(m))
        if ply is not None:
            state[PLY] = ply
        return state

    def board(self, state: State) -> chess.Board:
        """A python-chess board of the position (no move stack)."""
        return board_of(state)

    def fen(self, state: State) -> str:
        return _fen_bytes(state).decode("ascii")

    def ply(self, state: State) -> int:
        return int(state[PLY])

    def repetitions(self, state: State) -> int:
        """How many times the current position has occurred (1 the first time)."""
        return repetitions(state)

    # ---- replay ------------------------------------------------------------------------------
    def replay_states(
        self, moves: Sequence[int] | npt.NDArray[np.integer], initial: State | None = None
    ) -> list[State]:
        """All positions of a game: item ``i`` before move ``i``, the last one after the final
        move.  IllegalMoveError names the first illegal move."""
        state = self.initial_state() if initial is None else initial.copy()
        out = [state.copy()]
        for i, m in enumerate(moves):
            m = int(m)
            if state[STATUS] != ONGOING or not self.is_legal(state, m):
                raise IllegalMoveError(
                    f"chess: move {i + 1} ({self._safe_move_text(m)}) is illegal"
                )
            play(state, m)
            out.append(state.copy())
        return out

    def replay_planes(
        self, moves: Sequence[int] | npt.NDArray[np.integer], initial: State | None = None
    ) -> npt.NDArray[np.float32]:
        """Input planes before every move, shape ``(len(moves), 23, 8, 8)``, replayed on one
        python-chess board.  IllegalMoveError names the first illegal move."""
        moves = [int(m) for m in moves]
        state = self.initial_state() if initial is None else initial
        board = board_of(state)
        keys = [int(k) for k in _keys(state)] or [repetition_key(board)]
        out = np.empty((len(moves), NUM_PLANES, 8, 8), dtype=np.float32)
        over = state[STATUS] != ONGOING
        for i, a in enumerate(moves):
            try:
                m = action_to_move(a)
            except ValueError:
                m = chess.Move.null()
            if over or not m or not board.is_legal(m):
                raise IllegalMoveError(
                    f"chess: move {i + 1} ({self._safe_move_text(a)}) is illegal"
                )
            encode_board(board, keys.count(keys[-1]), out[i])
            irreversible = board.is_irreversible(m)
            board.push(m)
            key = repetition_key(board)
            keys = [key] if irreversible else [*keys, key]
            over = board.outcome(claim_draw=False) is not None or keys.count(key) >= 5
        return out

    # ---- network input ------------------------------------------------------------------------
    def encode(self, state: State) -> Planes:
        """The 23 input planes described in the module docstring."""
        out = np.empty((NUM_PLANES, 8, 8), dtype=np.float32)
        encode_board(_position(_fen_bytes(state)).board, repetitions(state), out)
        return out

    def symmetries(self, planes: Planes, policy: Policy) -> list[tuple[Planes, Policy]]:
        """The identity only: chess has no board symmetry once castling and pawns count."""
        return [(planes, policy)]

    # ---- text ---------------------------------------------------------------------------------
    def move_to_text(self, move: int) -> str:
        """UCI text of an action."""
        return action_to_uci(move)

    def _parse_move_token(self, text: str) -> int:
        return uci_to_action(text)

    def parse_move(self, text: str, state: State | None = None) -> int:
        """Read a UCI move; with a ``state``, standard algebraic notation (``Nf3``, ``O-O``)
        is accepted too, and the move must be legal there."""
        token = text.strip()
        if state is None or not token:
            return super().parse_move(text, state)
        try:
            return super().parse_move(text, state)
        except MoveParseError:
            pass
        if self.is_terminal(state):
            raise GameOverError("chess: the game is over, no move can be played")
        board = board_of(state)
        try:
            return move_to_action(board.parse_san(token))
        except chess.IllegalMoveError:
            raise IllegalMoveError(f"chess: illegal move {token!r} in this position") from None
        except ValueError:
            raise MoveParseError(
                f"chess: bad move {token!r}: expected UCI (e2e4, e7e8q) or SAN (Nf3, O-O)"
            ) from None

    def san(self, state: State, move: int) -> str:
        """Standard algebraic notation of a legal action in ``state``."""
        return board_of(state).san(action_to_move(move))

    def position_to_text(self, state: State) -> str:
        """The FEN of the position when no reversible move leads to it; otherwise, as in the
        UCI ``position`` command, the FEN after the last irreversible move followed by
        ``moves`` and the reversible moves since (at most 150), so that repetitions survive:
        ``r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3 moves f3g1 c6b8``.
        """
        moves = _history(state)
        if not moves:
            return self.fen(state)
        base = _base_fen_bytes(state).decode("ascii")
        return base + " moves " + " ".join(action_to_uci(m) for m in moves)

    def parse_position(self, text: str) -> State:
        """Read a FEN, or ``startpos``, optionally followed by ``moves`` and UCI moves played
        from it (:meth:`position_to_text`'s form).  The FEN must describe a legal position
        (python-chess's :meth:`chess.Board.status`) and the moves must be legal there."""
        fen, _, moves_text = text.strip().partition("moves")
        fen = fen.strip()
        if fen == "startpos":
            state = self.initial_state()
        elif not fen:
            raise PositionParseError(f"chess: bad position {text.strip()!r}: expected a FEN")
        else:
            state = self.state_from_board(self._parse_fen(fen))
        for i, token in enumerate(moves_text.split()):
            try:
                move = uci_to_action(token)
            except MoveParseError as err:
                raise PositionParseError(f"chess: bad position: move {i + 1}: {err}") from None
            if state[STATUS] != ONGOING:
                raise PositionParseError(
                    f"chess: bad position: the game is over before move {i + 1} ({token})"
                )
            if not self.is_legal(state, move):
                raise PositionParseError(
                    f"chess: bad position: move {i + 1} ({token}) is illegal there"
                )
            play(state, move)
        return state

    def _parse_fen(self, fen: str) -> chess.Board:
        try:
            board = chess.Board(fen)
        except ValueError as err:
            raise PositionParseError(f"chess: bad FEN {fen!r}: {err}") from None
        flags = board.status()
        if flags != chess.STATUS_VALID:
            problems = [
                name[len("STATUS_") :].lower().replace("_", " ")
                for name in dir(chess)
                if name.startswith("STATUS_")
                and name != "STATUS_VALID"
                and flags & getattr(chess, name)
            ]
            raise PositionParseError(f"chess: bad FEN {fen!r}: {', '.join(sorted(problems))}")
        if len(board.fen()) > FEN_BYTES:
            raise PositionParseError(f"chess: bad FEN {fen!r}: longer than {FEN_BYTES} characters")
        return board

    def render(self, state: State) -> str:
        board = board_of(state)
        lines = []
        for i, row in enumerate(str(board).splitlines()):
            lines.append(f"{8 - i} {row}")
        lines.append("  a b c d e f g h")
        side = "White" if board.turn == chess.WHITE else "Black"
        lines.append(f"{side} to move, ply {self.ply(state)}")
        return "\n".join(lines)


__all__ = [
    "CASTLING_PLANES",
    "KERNELS",
    "NUM_ACTIONS",
    "PROMOTION_STEPS",
    "Chess",
    "action_to_move",
    "action_to_uci",
    "board_of",
    "encode_board",
    "mirror_action_table",
    "move_to_action",
    "repetition_key",
    "uci_to_action",
]
