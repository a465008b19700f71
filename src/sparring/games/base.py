"""The one small interface every game implements.

A position is a flat numpy array (its dtype and layout belong to the game) so that compiled
search code can copy and update it without Python objects.  The hot primitives of each game are
numba functions collected in :class:`Kernels`; generic compiled algorithms (random playouts,
UCT, minimax) take them as arguments.  The :class:`Game` methods are the checked, copying
Python API on top of those kernels.

Moves are integers in ``[0, num_actions)``.  Players are numbered 0 (moves first: Black in
Othello, X in tic-tac-toe, the first player in Connect4) and 1.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, Literal, NamedTuple

import numpy as np
import numpy.typing as npt

from sparring.errors import (
    GameOverError,
    IllegalMoveError,
    MoveParseError,
    UnsupportedGameError,
)

State = npt.NDArray[Any]
"""A position: a flat array whose layout is private to its game."""

RecordFormat = Literal["sgf", "pgn", "moves"]
"""A written record: SGF (Go), PGN (chess) or a plain move list (every game)."""

GameParams = dict[str, int | float]
"""The parameters a game was built with (:meth:`Game.params`), as JSON values:
``get_game(game.name, **game.params())`` builds the same game again."""

Moves = npt.NDArray[np.int64]
Planes = npt.NDArray[np.float32]
Policy = npt.NDArray[np.float32]

# Status codes shared by all kernels (``Kernels.status``).
ONGOING = 0
FIRST_WINS = 1
SECOND_WINS = 2
DRAW = 3


class Outcome(enum.IntEnum):
    """The status of a position, as returned by :meth:`Game.status`."""

    ONGOING = ONGOING
    FIRST_WINS = FIRST_WINS
    SECOND_WINS = SECOND_WINS
    DRAW = DRAW

    def score_for(self, player: int) -> float:
        """1 for a win of ``player`` (0 or 1), 0 for a loss, 0.5 for a draw."""
        if self is Outcome.ONGOING:
            raise ValueError("the game is not over")
        if self is Outcome.DRAW:
            return 0.5
        return 1.0 if (self is Outcome.FIRST_WINS) == (player == 0) else 0.0


_OUTCOMES = tuple(Outcome)  # indexed by status code: avoids an enum lookup per call


class Kernels(NamedTuple):
    """The compiled (numba ``njit``) primitives of one game, for use inside compiled loops.

    Every function takes the position array first and never allocates Python objects.
    """

    legal_moves: Callable[..., int]
    """``(state, out: int64[num_actions]) -> n``: writes the n legal moves to ``out[:n]``."""
    play: Callable[..., None]
    """``(state, move) -> None``: plays a legal move in place (legality is not checked)."""
    status: Callable[..., int]
    """``(state) -> ONGOING | FIRST_WINS | SECOND_WINS | DRAW``."""
    to_move: Callable[..., int]
    """``(state) -> 0 | 1``: the player to move."""
    random_playout: Callable[..., int]
    """``(state, rng) -> status``: plays uniformly random legal moves to the end, in place."""
    encode: Callable[..., None] | None = None
    """``(state, out: float32[num_planes, rows, cols]) -> None``: writes the network input
    planes of :meth:`Game.encode` to ``out`` (None if the game has no compiled encoder)."""


class MoveFilter(NamedTuple):
    """What a game advises a player choosing among searched moves (:meth:`Game.move_filter`):
    Go's finishing rules, for players on networks that hardly ever pass."""

    pass_now: bool
    """Play :attr:`pass_move` now (Go: the opponent has just passed and the player to move
    is ahead by the area count, komi included: passing ends the game won)."""
    avoid: npt.NDArray[np.bool_]
    """A mask over the actions: moves not to play while another move than the pass remains
    (Go: filling one's own single-point eye)."""
    pass_move: int
    """The pass, played when every other move is to be avoided."""


class Game(ABC):
    """A two-player, zero-sum, perfect-information game with a fixed action space."""

    name: str
    """Registry name, e.g. ``"connect4"``."""
    num_actions: int
    """Size of the action space (policy vector length)."""
    board_shape: tuple[int, int]
    """(rows, columns) of the network input planes."""
    num_planes: int = 3
    """Number of input planes of :meth:`encode`."""
    kernels: Kernels
    """Compiled primitives (see :class:`Kernels`)."""
    max_game_length: int
    """An upper bound on the number of plies of any game."""
    compiled: bool = True
    """Whether :attr:`kernels` are numba-compiled (uint64 positions), so compiled searches
    (UCT, Minimax, PUCT) can run this game; chess runs only Python-level code."""

    # ---- capabilities (what callers ask instead of checking the game's name) ----------------
    record_format: RecordFormat = "moves"
    """The game's natural written record: ``"sgf"`` (Go), ``"pgn"`` (chess) or ``"moves"``
    (a plain move list, which every game can write)."""
    side_names: tuple[str, str] = ("first player", "second player")
    """What people call player 0 and player 1 (``Black``/``White`` in Go and Othello,
    ``White``/``Black`` in chess)."""
    side_marks: tuple[str, str] = ("X", "O")
    """How :meth:`render` shows each player's pieces."""
    plays_out_of_turn: bool = False
    """Whether a move may be played for the side *not* to move (Go: GTP's ``play b D4`` when
    White is to move; see :meth:`with_side_to_move`)."""

    def params(self) -> GameParams:
        """The parameters this game was built with (board size, komi, ...), as JSON values;
        ``get_game(self.name, **self.params())`` builds the same game (empty for games
        without parameters)."""
        return {}

    def side_label(self, player: int) -> str:
        """How a person is told which side ``player`` (0 or 1) is: the board mark, with the
        side's name where the two differ (``X (Black)``)."""
        mark, name = self.side_marks[player], self.side_names[player]
        return mark if mark == name else f"{mark} ({name})"

    def score_text(self, state: State) -> str | None:
        """One line on how the finished ``state`` was scored (Go: the area count and komi);
        None (the default) for games decided on the board without a count."""
        return None

    def with_side_to_move(self, state: State, player: int) -> State:
        """A copy of ``state`` with ``player`` (0 or 1) to move.  Games that let a side move
        out of turn (:attr:`plays_out_of_turn`) override it; the default accepts only the
        side already to move and raises :class:`IllegalMoveError` otherwise."""
        if player != self.to_move(state):
            raise IllegalMoveError(
                f"{self.name}: only the side to move ({self.side_names[self.to_move(state)]}) "
                f"may move, not {self.side_names[player]}"
            )
        return state.copy()

    def max_handicap(self) -> int:
        """The most handicap stones :meth:`handicap_position` takes (0: no handicap)."""
        return 0

    def fixed_handicap(self, count: int) -> list[int]:
        """The points of ``count`` handicap stones in the standard fixed placement (GTP
        ``fixed_handicap``); :class:`UnsupportedGameError` for games without handicaps."""
        raise UnsupportedGameError(f"{self.name} has no handicap stones")

    def handicap_position(self, points: Sequence[int]) -> State:
        """The initial position with handicap stones on ``points`` (the other side then
        moves); :class:`UnsupportedGameError` for games without handicaps."""
        raise UnsupportedGameError(f"{self.name} has no handicap stones")

    def move_filter(self, state: State) -> MoveFilter | None:
        """The game's advice to a searching player that must bring games to an end
        (:class:`MoveFilter`), or None (the default): every legal move is fine.  Go gives its
        finishing rules (pass to win, no filling of one's own eyes)."""
        return None

    def require_compiled(self, what: str) -> None:
        """Raise :class:`UnsupportedGameError` if ``what`` needs compiled kernels we lack."""
        if not self.compiled:
            raise UnsupportedGameError(f"{what} needs compiled rules, which {self.name} lacks")

    # ---- positions -------------------------------------------------------------------
    @abstractmethod
    def initial_state(self) -> State:
        """The starting position (a new array)."""

    def legal_moves(self, state: State) -> Moves:
        """The legal moves of ``state`` in increasing order (empty when the game is over)."""
        out = np.empty(self.num_actions, dtype=np.int64)
        n = self.kernels.legal_moves(state, out)
        return np.sort(out[:n])

    def legal_mask(self, state: State) -> npt.NDArray[np.bool_]:
        """A boolean vector of length ``num_actions``: True for legal moves."""
        mask = np.zeros(self.num_actions, dtype=np.bool_)
        mask[self.legal_moves(state)] = True
        return mask

    def is_legal(self, state: State, move: int) -> bool:
        """Whether ``move`` is legal in ``state``."""
        if not 0 <= move < self.num_actions:
            return False
        out = np.empty(self.num_actions, dtype=np.int64)
        n = self.kernels.legal_moves(state, out)
        return bool(np.any(out[:n] == move))

    def play(self, state: State, move: int) -> State:
        """The position after ``move``; ``state`` is left unchanged.

        Raises :class:`GameOverError` if the game is over and :class:`IllegalMoveError` if
        ``move`` is not legal.
        """
        if self.status(state) is not Outcome.ONGOING:
            raise GameOverError(f"{self.name}: the game is over, no move can be played")
        if not self.is_legal(state, int(move)):
            raise IllegalMoveError(f"{self.name}: illegal move {self._safe_move_text(int(move))}")
        child = state.copy()
        self.kernels.play(child, int(move))
        return child

    def status(self, state: State) -> Outcome:
        """Whether the game is over and who won."""
        return _OUTCOMES[int(self.kernels.status(state))]

    def is_terminal(self, state: State) -> bool:
        """Whether the game is over."""
        return self.status(state) is not Outcome.ONGOING

    def to_move(self, state: State) -> int:
        """The player to move: 0 (first) or 1 (second)."""
        return int(self.kernels.to_move(state))

    @abstractmethod
    def ply(self, state: State) -> int:
        """Number of moves (passes included) played since the initial position."""

    # ---- network input -----------------------------------------------------------------
    @abstractmethod
    def encode(self, state: State) -> Planes:
        """Network input planes, shape ``(num_planes, *board_shape)`` (AlphaDDA app. 1.1).

        Plane 0 holds the first player's stones, plane 1 the second player's, and plane 2 is
        filled with the colour of the player to move (+1 first, -1 second).
        """

    @abstractmethod
    def symmetries(self, planes: Planes, policy: Policy) -> list[tuple[Planes, Policy]]:
        """All symmetric images of (planes, policy), the identity first."""

    # ---- text ------------------------------------------------------------------------
    @abstractmethod
    def move_to_text(self, move: int) -> str:
        """The move in this game's notation."""

    @abstractmethod
    def _parse_move_token(self, text: str) -> int:
        """Read one move token; raise :class:`MoveParseError` naming the token if malformed."""

    def parse_move(self, text: str, state: State | None = None) -> int:
        """Read a move; if ``state`` is given, also check that the move is legal there."""
        token = text.strip()
        if not token:
            raise MoveParseError(f"{self.name}: empty move")
        move = self._parse_move_token(token)
        if state is not None:
            if self.is_terminal(state):
                raise GameOverError(f"{self.name}: the game is over, no move can be played")
            if not self.is_legal(state, move):
                raise IllegalMoveError(f"{self.name}: illegal move {token!r} in this position")
        return move

    @abstractmethod
    def position_to_text(self, state: State) -> str:
        """A one-line text of the position that :meth:`parse_position` reads back."""

    @abstractmethod
    def parse_position(self, text: str) -> State:
        """Read a position; raise :class:`PositionParseError` saying what is wrong."""

    @abstractmethod
    def render(self, state: State) -> str:
        """A multi-line board diagram for people."""

    def _safe_move_text(self, move: int) -> str:
        if 0 <= move < self.num_actions:
            return repr(self.move_to_text(move))
        return f"{move} (outside 0..{self.num_actions - 1})"

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def dihedral_symmetries(
    planes: Planes, policy: Policy, size: int, extra_actions: int
) -> list[tuple[Planes, Policy]]:
    """The 8 rotations/reflections of square ``size x size`` planes and board policy.

    ``policy`` has ``size*size`` board entries followed by ``extra_actions`` (such as pass)
    that no symmetry moves.
    """
    board = policy[: size * size].reshape(size, size)
    extra = policy[size * size :]
    images: list[tuple[Planes, Policy]] = []
    for flip in (False, True):
        p = planes[:, :, ::-1] if flip else planes
        b = board[:, ::-1] if flip else board
        for k in range(4):
            rp = np.ascontiguousarray(np.rot90(p, k, axes=(1, 2)))
            rb = np.rot90(b, k).reshape(-1)
            images.append((rp, np.concatenate([rb, extra]).astype(np.float32)))
    return images
