"""A game in progress between two sides: :class:`GameSession`.

One object holds everything about one game that the command line's ``play``, the match
runner, a service or an engine (GTP, UCI) needs: the position, the two sides, the record so far
and the lifecycle of the players taking part.

Sides
    ``players[i]`` plays as player ``i`` of the game (0 moves first from the initial position:
    Black in Go and Othello, White in chess, X in tic-tac-toe and Connect4).  A side may be
    None: a person or an external program whose moves are supplied with :meth:`play`.  The two
    players must be different objects (a player sees each move once, as one side).

Lifecycle (:class:`~sparring.players.base.Player`)
    Each player's ``new_game(game, i)`` is called when the session is made; after *every* move
    (by either side, through :meth:`play` or :meth:`play_player`) both players'
    ``observe(game, move, position_after)`` is called, each with its own copy of the position;
    when the game ends (by a move or by :meth:`resign`) each player's ``game_over(game,
    final_position, its_score)`` is called exactly once.

Undo
    :meth:`undo` takes back moves and *re-tells* the players: each player's state is put back
    to what :meth:`~Player.save_state` returned when the session started
    (:meth:`~Player.restore_state`; skipped when that was None), then ``new_game`` and
    ``observe`` for every remaining move are called again.  A player therefore ends up as if
    the remaining moves had been played directly (its random generator is not rewound), and
    if the game had ended, what its ``game_over`` learned is taken back with the rest;
    ``game_over`` is called again when the game ends again.  A resigned game cannot be
    undone.

Records
    The moves, the seconds each mover took (:attr:`think_times`; 0 for moves given to
    :meth:`play` without a time) and what the mover's :meth:`~Player.move_info` said about each
    (:attr:`annotations`).  :meth:`record` returns what a
    :class:`~sparring.evaluation.store.GameRecord` needs; :meth:`export` writes SGF (Go), PGN
    (chess) or a plain move list (every game) through :mod:`sparring.records`;
    :meth:`snapshot` is a JSON-serialisable dict that :meth:`restore` turns back into a session
    by replaying the moves.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from sparring.errors import (
    GameOverError,
    IllegalMoveError,
    NoPlayerError,
    SnapshotError,
)
from sparring.games.base import Game, Outcome, State
from sparring.players.base import JsonValue, Player, PlayerState

Annotation = dict[str, Any] | None
"""What a player said about one of its moves (:meth:`Player.move_info`), or None."""

RecordFormat = Literal["sgf", "pgn", "moves"]
"""A written record: SGF (Go), PGN (chess) or a plain move list (every game)."""

SNAPSHOT_FORMAT = "sparring.session"
SNAPSHOT_VERSION = 1


def advance(game: Game, state: State, move: int) -> tuple[State, Outcome]:
    """The position after a move already known to be legal, and its status.

    The one step that every game loop shares: :class:`GameSession` calls it after checking
    the move, and self-play (:func:`sparring.training.selfplay.play_games`) for the moves of
    its searches.  ``state`` is left unchanged.
    """
    child = state.copy()
    game.kernels.play(child, int(move))
    return child, game.status(child)


def default_format(game: Game) -> RecordFormat:
    """The natural record of ``game``: SGF for Go, PGN for chess, a move list otherwise."""
    if game.name.startswith("go"):
        return "sgf"
    if game.name == "chess":
        return "pgn"
    return "moves"


@dataclass(frozen=True)
class SessionRecord:
    """What the match store keeps of a game (the fields of
    :class:`~sparring.evaluation.store.GameRecord` that the game itself decides)."""

    moves: tuple[int, ...]
    """The moves played, in order."""
    think_times: tuple[float, ...]
    """Seconds the mover spent on each move."""
    annotations: tuple[Annotation, ...] | None
    """One annotation per move, or None when no move was annotated (GameRecord's rule)."""
    result: float | None
    """Score of player 0 (1, 0.5, 0), None while the game is not over."""
    resigned: int | None
    """The player who resigned, or None."""


class GameSession:
    """A game in progress: its position, its two sides and the record so far.

    ``players[i]`` (or None for a side whose moves come from outside) plays as player ``i``;
    ``start`` is the position to start from (default: the game's initial position);
    ``names`` label the sides in written records (default: the players' names, ``""`` for a
    side without one).  Constructing a session calls each player's ``new_game`` (and, when
    ``start`` is already over, ``game_over``).  See the module docstring for the lifecycle.
    """

    def __init__(
        self,
        game: Game,
        players: Sequence[Player | None] = (None, None),
        *,
        start: State | None = None,
        names: Sequence[str] | None = None,
    ) -> None:
        if len(players) != 2:
            raise ValueError(f"a session needs two sides, got {len(players)}")
        first, second = players
        if first is not None and first is second:
            raise ValueError(f"{first.name}: one player object cannot take both sides")
        self.game = game
        self._players: tuple[Player | None, Player | None] = (first, second)
        if names is None:
            names = tuple(p.name if p is not None else "" for p in self._players)
        if len(names) != 2:
            raise ValueError(f"a session needs two names, got {len(names)}")
        self.names: tuple[str, str] = (str(names[0]), str(names[1]))
        """Labels of player 0 and player 1 in written records."""
        begin = game.initial_state() if start is None else np.array(start, copy=True)
        self._states: list[State] = [begin]
        self._movers: list[int] = []
        self._moves: list[int] = []
        self._think_times: list[float] = []
        self._annotations: list[Annotation] = []
        self._outcome = game.status(begin)
        self._resigned: int | None = None
        self._told_over = False
        self._saved: tuple[PlayerState | None, PlayerState | None] = (
            first.save_state() if first is not None else None,
            second.save_state() if second is not None else None,
        )
        self._tell_new_game()

    # ---- the position ----------------------------------------------------------------------
    @property
    def players(self) -> tuple[Player | None, Player | None]:
        """The sides: ``players[i]`` plays as player ``i`` (None: moves come from outside)."""
        return self._players

    @property
    def state(self) -> State:
        """The current position (a copy)."""
        return self._states[-1].copy()

    @property
    def start_state(self) -> State:
        """The position the session started from (a copy)."""
        return self._states[0].copy()

    def state_at(self, ply: int) -> State:
        """The position after the first ``ply`` moves of the session (a copy)."""
        return self._states[ply].copy()

    @property
    def to_move(self) -> int:
        """The player to move now (0 or 1)."""
        return self.game.to_move(self._states[-1])

    @property
    def player_to_move(self) -> Player | None:
        """The player whose turn it is, or None when that side's moves come from outside."""
        return self._players[self.to_move]

    def legal_moves(self) -> list[int]:
        """The legal moves now (empty when the game is over)."""
        if self.is_over:
            return []
        return [int(m) for m in self.game.legal_moves(self._states[-1])]

    # ---- the result --------------------------------------------------------------------------
    @property
    def outcome(self) -> Outcome:
        """:attr:`Outcome.ONGOING` while the game goes on; who won (by the rules or by a
        resignation) once it is over."""
        return self._outcome

    @property
    def is_over(self) -> bool:
        """Whether the game has ended (by the rules or by a resignation)."""
        return self._outcome is not Outcome.ONGOING

    @property
    def resigned(self) -> int | None:
        """The player who resigned, or None."""
        return self._resigned

    @property
    def result(self) -> float | None:
        """Score of player 0 (1 win, 0.5 draw, 0 loss); None while the game goes on."""
        return self.score_for(0) if self.is_over else None

    def score_for(self, player: int) -> float:
        """Score of ``player`` (0 or 1) in the finished game; ValueError while it goes on."""
        return self._outcome.score_for(player)

    # ---- the record so far ---------------------------------------------------------------------
    @property
    def moves(self) -> tuple[int, ...]:
        """The moves played since the start, in order."""
        return tuple(self._moves)

    @property
    def movers(self) -> tuple[int, ...]:
        """Who played each move (0 or 1)."""
        return tuple(self._movers)

    @property
    def think_times(self) -> tuple[float, ...]:
        """Seconds spent on each move (what :meth:`play` was given for outside moves)."""
        return tuple(self._think_times)

    @property
    def annotations(self) -> tuple[Annotation, ...]:
        """What the mover reported about each move (:meth:`Player.move_info`), or None."""
        return tuple(self._annotations)

    @property
    def ply(self) -> int:
        """Number of moves played since the start."""
        return len(self._moves)

    def move_texts(self) -> list[str]:
        """The moves in the game's notation."""
        return [self.game.move_to_text(m) for m in self._moves]

    def record(self) -> SessionRecord:
        """Moves, think times, annotations and result: what the match runner stores."""
        annotated = any(a is not None for a in self._annotations)
        return SessionRecord(
            moves=tuple(self._moves),
            think_times=tuple(self._think_times),
            annotations=tuple(self._annotations) if annotated else None,
            result=self.result,
            resigned=self._resigned,
        )

    # ---- moves -----------------------------------------------------------------------------------
    def play(self, move: int, *, think_time: float = 0.0, annotation: Annotation = None) -> None:
        """Play ``move`` for the side to move (whoever chose it: a person, an engine's
        controller, a replayed record).

        Raises :class:`~sparring.errors.GameOverError` when the game is over and
        :class:`~sparring.errors.IllegalMoveError` when ``move`` is not a legal move, both
        naming the move and changing nothing.  ``think_time`` and ``annotation`` are stored
        with the move.
        """
        if isinstance(move, bool) or not isinstance(move, int | np.integer):
            raise IllegalMoveError(f"{self.game.name}: {move!r} is not a move")
        move = int(move)
        if self.is_over:
            raise GameOverError(
                f"{self.game.name}: the game is over ({self._end_text()}); "
                f"move {self._move_text(move)} not played"
            )
        if not self.game.is_legal(self._states[-1], move):
            raise IllegalMoveError(
                f"{self.game.name}: illegal move {self._move_text(move)} for player "
                f"{self.to_move} at ply {self.ply}"
            )
        self._push(move, float(think_time), annotation)

    def play_player(self) -> int:
        """Let the side to move (a :class:`Player`) choose a move, play it and return it.

        The player gets a copy of the position; its choice is timed
        (:func:`time.perf_counter`) and what its :meth:`~Player.move_info` returns right
        after is kept as the move's annotation.  A choice that is not a legal move raises
        :class:`~sparring.errors.IllegalMoveError` naming the player (its entry in
        :attr:`names`), the move and the position (nothing is changed);
        :class:`~sparring.errors.GameOverError` when the game is over; :class:`NoPlayerError`
        when the side to move has no player.
        """
        if self.is_over:
            raise GameOverError(f"{self.game.name}: the game is over ({self._end_text()})")
        side = self.to_move
        player = self._players[side]
        if player is None:
            raise NoPlayerError(
                f"{self.game.name}: player {side} ({self.names[side]}) has no Player; "
                "give its move to play()"
            )
        state = self._states[-1]
        began = time.perf_counter()
        chosen = player.select_move(self.game, state.copy())
        elapsed = time.perf_counter() - began
        if isinstance(chosen, bool) or not isinstance(chosen, int | np.integer):
            raise IllegalMoveError(
                f"{self.game.name}: player {self.names[side]!r} returned {chosen!r}, not a move, "
                f"at ply {self.ply}"
            )
        move = int(chosen)
        info = player.move_info()
        if not self.game.is_legal(state, move):
            raise IllegalMoveError(
                f"{self.game.name}: player {self.names[side]!r} chose the illegal move "
                f"{self._move_text(move)} at ply {self.ply} in position "
                f"{self.game.position_to_text(state)}"
            )
        self._push(move, elapsed, info)
        return move

    def step(self) -> int | None:
        """One move by the side to move if it is a :class:`Player` (see :meth:`play_player`);
        None, and nothing done, when the game is over or the side's move must come from
        :meth:`play`."""
        if self.is_over or self.player_to_move is None:
            return None
        return self.play_player()

    def play_out(self) -> Outcome:
        """:meth:`step` until the game is over or a side without a player is to move; the
        outcome then (ONGOING in the second case)."""
        while self.step() is not None:
            pass
        return self._outcome

    def resign(self, player: int) -> None:
        """``player`` (0 or 1) resigns: the other wins, and the players are told the game is
        over.  GameOverError when the game is already over."""
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, not {player!r}")
        if self.is_over:
            raise GameOverError(f"{self.game.name}: the game is over ({self._end_text()})")
        self._resigned = player
        self._outcome = Outcome.SECOND_WINS if player == 0 else Outcome.FIRST_WINS
        self._tell_game_over()

    def undo(self, count: int = 1) -> None:
        """Take back the last ``count`` moves (see the module docstring for what the players
        are told).  ValueError when fewer moves were played; GameOverError after a
        resignation."""
        if self._resigned is not None:
            raise GameOverError(f"{self.game.name}: the game was resigned; it cannot be undone")
        if isinstance(count, bool) or not 1 <= count <= len(self._moves):
            raise ValueError(
                f"cannot take back {count!r} move(s): {len(self._moves)} played since the start"
            )
        keep = len(self._moves) - count
        del self._states[keep + 1 :]
        del self._moves[keep:]
        del self._movers[keep:]
        del self._think_times[keep:]
        del self._annotations[keep:]
        self._outcome = self.game.status(self._states[-1])
        self._told_over = False
        for player, saved in zip(self._players, self._saved, strict=True):
            if player is not None and saved is not None:
                player.restore_state(saved)
        self._tell_new_game(replay=True)

    # ---- records ---------------------------------------------------------------------------------
    def export(self, fmt: RecordFormat | None = None, **headers: str) -> str:
        """The game written as ``fmt`` (default :func:`default_format`): ``"sgf"`` (Go),
        ``"pgn"`` (chess) or ``"moves"`` (a plain move list, every game; see
        :mod:`sparring.records.movelist`).  ``headers`` add tags (PGN: ``Event="..."``) or
        root properties (SGF: ``GN="..."``).  UnsupportedGameError for SGF of a game other
        than Go or PGN of a game other than chess."""
        from sparring.records import write_move_list, write_pgn, write_sgf

        fmt = fmt or default_format(self.game)
        final = self._states[-1]
        if fmt == "sgf":
            return write_sgf(
                self.game,
                self._moves,
                start=self._states[0],
                names=self.names,
                outcome=self._outcome,
                final=final,
                resigned=self._resigned,
                properties=headers,
            )
        if fmt == "pgn":
            return write_pgn(
                self.game,
                self._moves,
                start=self._states[0],
                names=self.names,
                outcome=self._outcome,
                resigned=self._resigned,
                headers=headers,
            )
        if fmt == "moves":
            return write_move_list(
                self.game,
                self._moves,
                start=self._states[0],
                names=self.names,
                outcome=self._outcome,
                resigned=self._resigned,
            )
        raise ValueError(f"unknown record format {fmt!r}; choose sgf, pgn or moves")

    def snapshot(self) -> dict[str, JsonValue]:
        """The session as JSON values, for :meth:`restore`: the game, the start position
        (None for the initial one), the names, the moves with their think times and
        annotations, the resignation and each player's :meth:`~Player.save_state` from the
        start of the session."""
        start = self._states[0]
        initial = self.game.initial_state()
        same_start = start.shape == initial.shape and bool(np.array_equal(start, initial))
        return {
            "format": SNAPSHOT_FORMAT,
            "version": SNAPSHOT_VERSION,
            "game": self.game.name,
            "start": None if same_start else self.game.position_to_text(start),
            "names": list(self.names),
            "moves": list(self._moves),
            "think_times": list(self._think_times),
            "annotations": list(self._annotations),
            "resigned": self._resigned,
            "player_states": list(self._saved),
        }

    @classmethod
    def restore(
        cls,
        snapshot: Mapping[str, Any],
        players: Sequence[Player | None] = (None, None),
        *,
        game: Game | None = None,
    ) -> GameSession:
        """A session rebuilt from :meth:`snapshot` by replaying its moves.

        ``players`` take the sides (they need not be the original objects): each player
        first gets the start-of-session state saved for its side
        (:meth:`~Player.restore_state`; skipped where none was saved, so a player that keeps
        state may replace one that kept none), then the usual lifecycle (``new_game``,
        ``observe`` for every move, ``game_over`` if the game had ended).  ``game`` defaults
        to the registered game named in the snapshot
        (pass it for a non-default configuration, such as Go with another komi).
        :class:`SnapshotError` says what is wrong with a malformed snapshot.
        """
        from sparring.games import get_game

        if not isinstance(snapshot, Mapping) or snapshot.get("format") != SNAPSHOT_FORMAT:
            raise SnapshotError("not a sparring session snapshot (no format 'sparring.session')")
        if snapshot.get("version") != SNAPSHOT_VERSION:
            raise SnapshotError(
                f"session snapshot version {snapshot.get('version')!r} is not supported "
                f"(expected {SNAPSHOT_VERSION})"
            )
        name = snapshot.get("game")
        if not isinstance(name, str):
            raise SnapshotError(f"session snapshot: game must be a name, not {name!r}")
        if game is None:
            game = get_game(name)
        elif game.name != name:
            raise SnapshotError(f"session snapshot is of {name}, not {game.name}")
        moves = _list_of(snapshot, "moves", int)
        times = _list_of(snapshot, "think_times", float, default=[0.0] * len(moves))
        notes = snapshot.get("annotations", [None] * len(moves))
        names = _list_of(snapshot, "names", str, default=None)
        saved = snapshot.get("player_states", [None, None])
        if not isinstance(notes, list) or len(notes) != len(moves):
            raise SnapshotError("session snapshot: annotations must be a list, one per move")
        if len(times) != len(moves):
            raise SnapshotError("session snapshot: think_times must have one entry per move")
        if not isinstance(saved, list) or len(saved) != 2:
            raise SnapshotError("session snapshot: player_states must be a list of two")
        resigned = snapshot.get("resigned")
        if resigned not in (None, 0, 1) or isinstance(resigned, bool):
            raise SnapshotError(f"session snapshot: resigned must be 0, 1 or null: {resigned!r}")
        start_text = snapshot.get("start")
        if start_text is not None and not isinstance(start_text, str):
            raise SnapshotError("session snapshot: start must be a position text or null")
        start = None if start_text is None else game.parse_position(start_text)
        for player, state in zip(players, saved, strict=False):
            if player is not None and state is not None:
                player.restore_state(state)
        session = cls(game, players, start=start, names=names)
        for i, (move, seconds, note) in enumerate(zip(moves, times, notes, strict=True)):
            try:
                session.play(move, think_time=seconds, annotation=note)
            except (IllegalMoveError, GameOverError) as err:
                raise SnapshotError(f"session snapshot: move {i + 1}: {err}") from None
        if resigned is not None:
            session.resign(int(resigned))
        return session

    # ---- internals -------------------------------------------------------------------------------
    def _push(self, move: int, think_time: float, annotation: Annotation) -> None:
        mover = self.to_move
        child, outcome = advance(self.game, self._states[-1], move)
        self._states.append(child)
        self._moves.append(move)
        self._movers.append(mover)
        self._think_times.append(think_time)
        self._annotations.append(annotation)
        self._outcome = outcome
        for player in self._players:
            if player is not None:
                player.observe(self.game, move, child.copy())
        if outcome is not Outcome.ONGOING:
            self._tell_game_over()

    def _tell_new_game(self, replay: bool = False) -> None:
        for seat, player in enumerate(self._players):
            if player is not None:
                player.new_game(self.game, seat)
        if replay:
            for move, child in zip(self._moves, self._states[1:], strict=True):
                for player in self._players:
                    if player is not None:
                        player.observe(self.game, move, child.copy())
        if self.is_over:
            self._tell_game_over()

    def _tell_game_over(self) -> None:
        if self._told_over:
            return
        self._told_over = True
        final = self._states[-1]
        for seat, player in enumerate(self._players):
            if player is not None:
                player.game_over(self.game, final.copy(), self._outcome.score_for(seat))

    def _move_text(self, move: int) -> str:
        if 0 <= move < self.game.num_actions:
            return repr(self.game.move_to_text(move))
        return f"{move} (outside 0..{self.game.num_actions - 1})"

    def _end_text(self) -> str:
        if self._resigned is not None:
            return f"player {self._resigned} resigned"
        if self._outcome is Outcome.DRAW:
            return "a draw"
        return f"player {0 if self._outcome is Outcome.FIRST_WINS else 1} won"

    def __repr__(self) -> str:
        return (
            f"<GameSession {self.game.name} {self.names[0]} vs {self.names[1]}, "
            f"ply {self.ply}, {self._outcome.name.lower()}>"
        )


_REQUIRED: list[Any] = []
"""Marks a snapshot list that must be present (:func:`_list_of`)."""


def _list_of(
    snapshot: Mapping[str, Any], key: str, kind: type, default: list[Any] | None = _REQUIRED
) -> Any:
    """``snapshot[key]`` checked to be a list of ``kind`` (ints accepted for floats)."""
    if key not in snapshot:
        if default is _REQUIRED:
            raise SnapshotError(f"session snapshot: {key} is missing")
        return default
    value = snapshot[key]
    accepted = (int, float) if kind is float else (kind,)
    ok = isinstance(value, list) and all(
        isinstance(v, accepted) and not isinstance(v, bool) for v in value
    )
    if not ok:
        raise SnapshotError(f"session snapshot: {key} must be a list of {kind.__name__}")
    return [kind(v) for v in value]
