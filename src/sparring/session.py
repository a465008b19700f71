"""A game in progress between two sides: :class:`GameSession`.

One object holds everything about one game that the command line's ``play``, the match
runner, a service or an engine (GTP, UCI) needs: the position, the two sides, the record so far
and the lifecycle of the players taking part.

Sides
    ``players[i]`` plays as player ``i`` of the game (0 moves first from the initial position:
    Black in Go and Othello, White in chess, X in tic-tac-toe and Connect4).  A side may be
    None: a person or an external program whose moves are supplied with :meth:`play`.  The two
    players must be different objects (a player sees each move once, as one side).  Where the
    game allows it (:attr:`~sparring.games.base.Game.plays_out_of_turn`: Go), :meth:`play`
    takes a move for a named side out of turn (GTP's ``play b D4`` while White is to move),
    and a Go session may start with handicap stones (:meth:`place_handicap`: GTP's fixed or
    free placement).

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
    undone.  :meth:`undo_turn` is the policy of a person's ``undo`` in ``sparring play``: take
    back their last move and the replies after it.

Records
    The moves, who played each (:attr:`movers`), the seconds each mover took
    (:attr:`think_times`; 0 for moves given to :meth:`play` without a time) and what the
    mover's decision said about each (:attr:`annotations`: its
    :attr:`~sparring.players.base.Decision.annotation`).  :meth:`record` returns what a
    :class:`~sparring.evaluation.store.GameRecord` needs; :meth:`export` writes the game's
    record format (:attr:`~sparring.games.base.Game.record_format`: SGF for Go, PGN for
    chess) or a plain move list (every game) through :mod:`sparring.records`.

Snapshots
    :meth:`snapshot` is a JSON-serialisable dict holding the whole session: the game and its
    parameters (board size, komi), the handicap stones, the start position, the moves, and for
    each player its settings (JSON, :meth:`PlayerSettings.to_json`), seed, the state it saved
    when the session started, its random streams (:meth:`~Player.random_state`) and what it
    knows about the game in progress (:meth:`~Player.live_state`).  :meth:`restore` in
    another process rebuilds the players from their settings, tells them the game again and
    puts their random streams and live state back, so that the next move equals the one the
    uninterrupted session would play (``tests/test_snapshot_conformance.py`` checks it for
    every registered kind).  Version-1 snapshots (no players' settings) still restore with
    players given by the caller.
"""

from __future__ import annotations

import copy
import dataclasses
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from sparring.errors import (
    BadValueError,
    GameOverError,
    IllegalMoveError,
    NoPlayerError,
    SnapshotError,
    SparringError,
    UnsupportedGameError,
)
from sparring.games.base import Game, Outcome, RecordFormat, State
from sparring.players.base import (
    Annotation,
    Decision,
    JsonValue,
    Player,
    PlayerState,
    says_resigned,
)

if TYPE_CHECKING:
    from sparring.players.cache import PlayerCache
    from sparring.search.limit import Limit

SNAPSHOT_FORMAT = "sparring.session"
SNAPSHOT_VERSION = 2
"""Version 2 adds the game's parameters, the handicap, who played each move and each
player's settings, seed, random state and live state; version 1 is still read."""


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
    """The natural record of ``game`` (:attr:`Game.record_format`): SGF for Go, PGN for
    chess, a move list otherwise."""
    return game.record_format


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
    side without one); ``handicap`` places handicap stones (see :meth:`place_handicap`: a
    count for the fixed placement or the points).  Constructing a session calls each
    player's ``new_game`` (and, when ``start`` is already over, ``game_over``).  See the
    module docstring for the lifecycle.
    """

    def __init__(
        self,
        game: Game,
        players: Sequence[Player | None] = (None, None),
        *,
        start: State | None = None,
        names: Sequence[str] | None = None,
        handicap: int | Sequence[int] | None = None,
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
        self._handicap: tuple[int, ...] = ()
        self._saved: tuple[PlayerState | None, PlayerState | None] = (
            first.save_state() if first is not None else None,
            second.save_state() if second is not None else None,
        )
        self._tell_new_game()
        if handicap is not None:
            if isinstance(handicap, int | np.integer) and not isinstance(handicap, bool):
                self.place_handicap(int(handicap))
            else:
                self.place_handicap(points=handicap)  # type: ignore[arg-type]

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
        """The position the session started from, handicap stones included (a copy)."""
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

    def legal_moves(self, side: int | None = None) -> list[int]:
        """The legal moves now for the side to move, or for ``side`` where the game lets a
        side move out of turn (empty when the game is over)."""
        if self.is_over:
            return []
        state = self._states[-1] if side is None else self._position_for(side)
        return [int(m) for m in self.game.legal_moves(state)]

    @property
    def handicap(self) -> tuple[int, ...]:
        """The handicap stones placed at the start (points), empty when none."""
        return self._handicap

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
        """What the mover reported about each move (its :attr:`Decision.annotation`), or
        None."""
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

    # ---- setting up ------------------------------------------------------------------------------
    def place_handicap(
        self, count: int | None = None, *, points: Sequence[int] | None = None
    ) -> list[int]:
        """Put handicap stones on the board and return their points: ``count`` stones in the
        game's fixed placement (GTP ``fixed_handicap``: Go's star points) or the given
        ``points`` (GTP ``set_free_handicap``); the other side then moves.

        Only before the first move, from the game's initial position, once.  The players are
        told the game again (their start-of-session state, then ``new_game``).  Raises
        :class:`~sparring.errors.UnsupportedGameError` for a game without handicaps,
        :class:`~sparring.errors.BadValueError` (key ``handicap``) for a count without a
        fixed placement or a bad point, :class:`~sparring.errors.IllegalMoveError` once a
        move was played or stones were placed.
        """
        if (count is None) == (points is None):
            raise BadValueError("give a handicap count or its points, not both", "handicap")
        if self._moves or self._handicap:
            raise IllegalMoveError(
                f"{self.game.name}: handicap stones go on the empty board before the first move"
            )
        initial = self.game.initial_state()
        if not np.array_equal(self._states[0], initial):
            raise IllegalMoveError(
                f"{self.game.name}: handicap stones go on the initial position, not on a "
                "position given as start"
            )
        if count is not None:
            if isinstance(count, bool) or not isinstance(count, int | np.integer):
                raise BadValueError(f"a handicap is a number of stones, not {count!r}", "handicap")
            chosen = [int(p) for p in self.game.fixed_handicap(int(count))]
        else:
            assert points is not None
            chosen = []
            for p in points:
                if isinstance(p, bool) or not isinstance(p, int | np.integer):
                    raise BadValueError(f"a handicap point is a move number, not {p!r}", "handicap")
                chosen.append(int(p))
        begin = self.game.handicap_position(chosen)
        self._states[0] = begin
        self._outcome = self.game.status(begin)
        self._handicap = tuple(chosen)
        self._retell()
        return chosen

    # ---- moves -----------------------------------------------------------------------------------
    def play(
        self,
        move: int,
        *,
        side: int | None = None,
        think_time: float = 0.0,
        annotation: Annotation = None,
    ) -> None:
        """Play ``move`` for the side to move, or for ``side`` (0 or 1) where the game lets a
        side move out of turn (Go: GTP's ``play b D4`` while White is to move; the other side
        then moves), whoever chose it: a person, an engine's controller, a replayed record.

        Raises :class:`~sparring.errors.GameOverError` when the game is over and
        :class:`~sparring.errors.IllegalMoveError` when ``move`` is not a legal move or
        ``side`` may not move now, naming the move and changing nothing;
        :class:`~sparring.errors.BadValueError` for a ``side`` other than 0 or 1.
        ``think_time`` and ``annotation`` are stored with the move.
        """
        if isinstance(move, bool) or not isinstance(move, int | np.integer):
            raise IllegalMoveError(f"{self.game.name}: {move!r} is not a move")
        move = int(move)
        if self.is_over:
            raise GameOverError(
                f"{self.game.name}: the game is over ({self._end_text()}); "
                f"move {self._move_text(move)} not played"
            )
        mover = self.to_move if side is None else self._check_side(side)
        position = self._position_for(mover)
        if not self.game.is_legal(position, move):
            raise IllegalMoveError(
                f"{self.game.name}: illegal move {self._move_text(move)} for player "
                f"{mover} at ply {self.ply}"
            )
        self._push(move, float(think_time), annotation, mover, position)

    def play_player(self, limit: Limit | None = None) -> int:
        """Let the side to move (a :class:`Player`) choose a move, play it and return it:
        :meth:`play_decision`'s move."""
        return self.play_decision(limit).move

    def play_decision(self, limit: Limit | None = None) -> Decision:
        """Let the side to move (a :class:`Player`) decide (:meth:`Player.play`), play its
        move and return the whole :class:`~sparring.players.base.Decision`: the move, the
        player's analysis of it and its annotation.

        The player gets a copy of the position and ``limit`` (a bound on its thinking, e.g.
        an engine's ``genmove`` time; None: its own settings); its decision is timed
        (:func:`time.perf_counter`) and its :attr:`~Decision.annotation` is kept with the
        move.  A move that is not a legal move raises
        :class:`~sparring.errors.IllegalMoveError` naming the player (its entry in
        :attr:`names`), the move and the position (nothing is changed);
        :class:`~sparring.errors.GameOverError` when the game is over; :class:`NoPlayerError`
        when the side to move has no player.

        A player resigns by saying so in its annotation: when the decision's annotation is
        ``{"resigned": true, ...}`` (:attr:`Decision.resigned`; GNU Go's ``genmove`` answer
        ``resign``), the side resigns (:meth:`resign`) instead of playing: the decision's
        move is the player's placeholder (a pass) and is *not* played, :attr:`resigned`
        names the side and the game is over.
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
        decision = player.play(self.game, state.copy(), limit)
        elapsed = time.perf_counter() - began
        chosen: object = decision.move if isinstance(decision, Decision) else decision
        if (
            not isinstance(decision, Decision)
            or isinstance(chosen, bool)
            or not isinstance(chosen, int | np.integer)
        ):
            raise IllegalMoveError(
                f"{self.game.name}: player {self.names[side]!r} returned {chosen!r}, not a move, "
                f"at ply {self.ply}"
            )
        move = int(chosen)
        if decision.resigned:
            self.resign(side)
            return dataclasses.replace(decision, move=move)
        if not self.game.is_legal(state, move):
            raise IllegalMoveError(
                f"{self.game.name}: player {self.names[side]!r} chose the illegal move "
                f"{self._move_text(move)} at ply {self.ply} in position "
                f"{self.game.position_to_text(state)}"
            )
        self._push(move, elapsed, decision.annotation, side, state)
        if type(decision.move) is not int:  # (e.g. a numpy integer)
            decision = dataclasses.replace(decision, move=move)
        return decision

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
        self._retell()

    def takeback_count(self, side: int) -> int:
        """How many moves :meth:`undo_turn` takes back for ``side``: its last move and every
        move after it (0 when ``side`` has not moved)."""
        for i in range(len(self._movers) - 1, -1, -1):
            if self._movers[i] == side:
                return len(self._movers) - i
        return 0

    def undo_turn(self, side: int) -> int:
        """Take back ``side``'s last move and the replies after it, so that ``side`` chooses
        that move again (a person's ``undo`` against an AI); the number of moves taken back,
        0 (and nothing done) when ``side`` has not moved.  GameOverError after a
        resignation."""
        count = self.takeback_count(self._check_side(side))
        if count:
            self.undo(count)
        return count

    # ---- records ---------------------------------------------------------------------------------
    def export(self, fmt: RecordFormat | None = None, **headers: str) -> str:
        """The game written as ``fmt`` (default: the game's :attr:`~Game.record_format`):
        ``"sgf"`` (Go), ``"pgn"`` (chess) or ``"moves"`` (a plain move list, every game; see
        :mod:`sparring.records.movelist`).  ``headers`` add tags (PGN: ``Event="..."``) or
        root properties (SGF: ``GN="..."``; a handicap adds ``HA``).  UnsupportedGameError for
        SGF of a game other than Go, PGN of a game other than chess, or a move list of a game
        with moves out of turn (a move list cannot say who played them)."""
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
                movers=self._movers,
                handicap=len(self._handicap),
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
            if self._out_of_turn():
                raise UnsupportedGameError(
                    f"{self.game.name}: moves were played out of turn, which a move list "
                    "cannot record; write SGF"
                )
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
        """The session as JSON values, for :meth:`restore` (see the module docstring).

        ``game`` and ``game_params`` (:meth:`Game.params`), ``handicap`` (points), ``start``
        (the position text before any handicap, None for the initial position), ``names``,
        ``moves``, ``movers``, ``think_times``, ``annotations``, ``resigned`` and ``players``:
        per side None (no player) or its ``settings`` (JSON, None for a player built without
        typed settings), ``seed``, ``start_state`` (its :meth:`~Player.save_state` when the
        session started), ``random_state`` and ``live_state`` as they are now.
        """
        start = self.game.initial_state() if self._handicap else self._states[0]
        initial = self.game.initial_state()
        same_start = start.shape == initial.shape and bool(np.array_equal(start, initial))
        sides: list[JsonValue] = []
        for player, saved in zip(self._players, self._saved, strict=True):
            sides.append(None if player is None else _player_record(player, saved))
        return {
            "format": SNAPSHOT_FORMAT,
            "version": SNAPSHOT_VERSION,
            "game": self.game.name,
            "game_params": dict(self.game.params()),
            "handicap": list(self._handicap),
            "start": None if same_start else self.game.position_to_text(start),
            "names": list(self.names),
            "moves": list(self._moves),
            "movers": list(self._movers),
            "think_times": list(self._think_times),
            "annotations": list(self._annotations),
            "resigned": self._resigned,
            "players": sides,
        }

    @classmethod
    def restore(
        cls,
        snapshot: Mapping[str, Any],
        players: Sequence[Player | None] | None = None,
        *,
        game: Game | None = None,
        cache: PlayerCache | None = None,
        timings: dict[str, float] | None = None,
    ) -> GameSession:
        """A session rebuilt from :meth:`snapshot` by replaying its moves.

        With ``players`` None (the default) each side's player is rebuilt from the settings
        and seed in the snapshot (:func:`~sparring.players.registry.build_player`, sharing
        ``cache``), given its start-of-session state, told the game again, and its random
        streams and live state are put back: the session continues with the moves the
        uninterrupted one would play.  A side whose player had no typed settings needs
        ``players``.

        Given ``players`` take the sides (they need not be the original objects): each player
        first gets the start-of-session state saved for its side
        (:meth:`~Player.restore_state`; skipped where none was saved, so a player that keeps
        state may replace one that kept none), then the usual lifecycle (``new_game``,
        ``observe`` for every move, ``game_over`` if the game had ended); their random
        streams are their own.

        ``game`` defaults to the registered game named in the snapshot built with its
        parameters.  :class:`SnapshotError` says what is wrong with a malformed snapshot, and
        that a version-1 snapshot holds no players to rebuild.  ``timings``, when given,
        receives the seconds spent building the players (``"build"``) and telling them the
        game again (``"replay"``: the moves replayed, the states put back).
        """
        from sparring.games import get_game

        if not isinstance(snapshot, Mapping) or snapshot.get("format") != SNAPSHOT_FORMAT:
            raise SnapshotError("not a sparring session snapshot (no format 'sparring.session')")
        version = snapshot.get("version")
        if version not in (1, SNAPSHOT_VERSION) or isinstance(version, bool):
            raise SnapshotError(
                f"session snapshot version {version!r} is not supported "
                f"(expected 1 or {SNAPSHOT_VERSION})"
            )
        name = snapshot.get("game")
        if not isinstance(name, str):
            raise SnapshotError(f"session snapshot: game must be a name, not {name!r}")
        params = snapshot.get("game_params", {})
        if not isinstance(params, Mapping):
            raise SnapshotError("session snapshot: game_params must be an object")
        if game is None:
            try:
                game = get_game(name, **params)
            except SparringError as err:
                raise SnapshotError(f"session snapshot: {err}") from None
        elif game.name != name:
            raise SnapshotError(f"session snapshot is of {name}, not {game.name}")
        moves = _list_of(snapshot, "moves", int)
        movers = _list_of(snapshot, "movers", int, default=None)
        times = _list_of(snapshot, "think_times", float, default=[0.0] * len(moves))
        notes = snapshot.get("annotations", [None] * len(moves))
        names = _list_of(snapshot, "names", str, default=None)
        handicap = _list_of(snapshot, "handicap", int, default=[])
        if not isinstance(notes, list) or len(notes) != len(moves):
            raise SnapshotError("session snapshot: annotations must be a list, one per move")
        if len(times) != len(moves):
            raise SnapshotError("session snapshot: think_times must have one entry per move")
        if movers is not None and (len(movers) != len(moves) or set(movers) - {0, 1}):
            raise SnapshotError("session snapshot: movers must be 0 or 1, one per move")
        resigned = snapshot.get("resigned")
        if resigned not in (None, 0, 1) or isinstance(resigned, bool):
            raise SnapshotError(f"session snapshot: resigned must be 0, 1 or null: {resigned!r}")
        start_text = snapshot.get("start")
        if start_text is not None and not isinstance(start_text, str):
            raise SnapshotError("session snapshot: start must be a position text or null")
        try:
            start = None if start_text is None else game.parse_position(start_text)
        except SparringError as err:
            raise SnapshotError(f"session snapshot: start: {err}") from None
        records = _side_records(snapshot, version == 1)
        rebuilt = players is None
        began = time.perf_counter()
        sides = _rebuild_players(records, game, cache) if players is None else tuple(players)
        built = time.perf_counter()
        if len(sides) != 2:
            raise ValueError(f"a session needs two sides, got {len(sides)}")
        for player, record in zip(sides, records, strict=True):
            saved = None if record is None else record.get("start_state")
            if player is not None and saved is not None:
                _restore(player.restore_state, saved, player, "start_state")
        session = cls(game, sides, start=start, names=names)
        if handicap:
            try:
                session.place_handicap(points=handicap)
            except SparringError as err:
                raise SnapshotError(f"session snapshot: handicap: {err}") from None
        for i, (move, seconds, note) in enumerate(zip(moves, times, notes, strict=True)):
            side = None if movers is None else movers[i]
            try:
                session.play(move, side=side, think_time=seconds, annotation=note)
            except (IllegalMoveError, GameOverError) as err:
                raise SnapshotError(f"session snapshot: move {i + 1}: {err}") from None
        if resigned is not None:
            session.resign(int(resigned))
        if rebuilt:
            for player, record in zip(sides, records, strict=True):
                if player is None or record is None:
                    continue
                if "live_state" in record:
                    _restore(player.restore_live_state, record["live_state"], player, "live_state")
                if record.get("random_state") is not None:
                    _restore(
                        player.set_random_state, record["random_state"], player, "random_state"
                    )
        if timings is not None:
            timings["build"] = built - began
            timings["replay"] = time.perf_counter() - built
        return session

    def catch_up(self, snapshot: Mapping[str, Any]) -> bool:
        """Bring this session to ``snapshot`` (of the same game, further on) instead of
        restoring it: play the moves the snapshot holds beyond this session's (with their
        movers, think times and annotations), put each player's live state and random streams
        back from the snapshot (as :meth:`restore` does after its replay), and say whether
        this session's :meth:`snapshot` now equals ``snapshot`` field for field (a side
        without a player here: its record is not compared).

        False when the snapshot does not continue this session (another game, a move taken
        back, a result never stored): the session may then have changed and is of no more
        use; restore the snapshot instead.  A session continued this way plays on exactly as
        the restored one would (the snapshot holds everything a player needs to go on:
        ``tests/test_snapshot_conformance.py``).
        """
        moves = snapshot.get("moves")
        movers = snapshot.get("movers")
        times = snapshot.get("think_times")
        notes = snapshot.get("annotations")
        records = snapshot.get("players")
        if not (
            isinstance(moves, list)
            and isinstance(movers, list)
            and isinstance(times, list)
            and isinstance(notes, list)
            and isinstance(records, list)
            and len(records) == 2
        ):
            return False
        played = self.ply
        if len(moves) < played or self._moves != moves[:played]:
            return False
        try:
            for i in range(played, len(moves)):
                self.play(moves[i], side=movers[i], think_time=times[i], annotation=notes[i])
            for player, record in zip(self._players, records, strict=True):
                if player is None or not isinstance(record, dict):
                    continue
                if "live_state" in record:
                    player.restore_live_state(record["live_state"])
                if record.get("random_state") is not None:
                    player.set_random_state(record["random_state"])
        except (SparringError, ValueError, TypeError, KeyError, IndexError):
            return False
        return self.matches(snapshot)

    def matches(self, snapshot: Mapping[str, Any]) -> bool:
        """Whether :meth:`snapshot` equals ``snapshot`` field for field, a side without a
        player here excepted (its record is not compared)."""
        mine = self.snapshot()
        if set(mine) != set(snapshot):
            return False
        if any(mine[k] != snapshot[k] for k in mine if k != "players"):
            return False
        theirs, ours = snapshot["players"], mine["players"]
        if not isinstance(theirs, list) or not isinstance(ours, list) or len(theirs) != 2:
            return False
        return all(p is None or ours[i] == theirs[i] for i, p in enumerate(self._players))

    def copy(self) -> GameSession:
        """An independent copy of a session without players (the record, the positions and
        the result; :meth:`catch_up` on the copy leaves this one as it is).  ValueError for a
        session with a player (a player cannot be copied)."""
        if any(p is not None for p in self._players):
            raise ValueError("a session with players cannot be copied")
        other = copy.copy(self)
        other._states = list(self._states)  # (positions are never changed in place)
        other._moves = list(self._moves)
        other._movers = list(self._movers)
        other._think_times = list(self._think_times)
        other._annotations = list(self._annotations)
        return other

    # ---- internals -------------------------------------------------------------------------------
    def _check_side(self, side: int) -> int:
        if isinstance(side, bool) or side not in (0, 1):
            raise BadValueError(f"a side is 0 or 1, not {side!r}", "side")
        return int(side)

    def _position_for(self, side: int) -> State:
        """The current position with ``side`` to move (the position itself when it is)."""
        state = self._states[-1]
        if side == self.game.to_move(state):
            return state
        if not self.game.plays_out_of_turn:
            names = self.game.side_names
            raise IllegalMoveError(
                f"{self.game.name}: {names[side]} (player {side}) may not move now: "
                f"{names[1 - side]} is to move and {self.game.name} moves in turn"
            )
        return self.game.with_side_to_move(state, side)

    def _out_of_turn(self) -> bool:
        """Whether some move was played by the side not to move."""
        return any(
            self.game.to_move(before) != mover
            for before, mover in zip(self._states, self._movers, strict=False)
        )

    def _push(
        self, move: int, think_time: float, annotation: Annotation, mover: int, position: State
    ) -> None:
        child, outcome = advance(self.game, position, move)
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

    def _retell(self) -> None:
        """Put the players back to their start-of-session state and tell them the game so
        far again (after an undo or a handicap)."""
        self._told_over = False
        for player, saved in zip(self._players, self._saved, strict=True):
            if player is not None and saved is not None:
                player.restore_state(saved)
        self._tell_new_game(replay=True)

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


def _player_record(player: Player, saved: PlayerState | None) -> dict[str, JsonValue]:
    """One side of :meth:`GameSession.snapshot`."""
    settings = getattr(player, "settings", None)
    seed = getattr(player, "seed", None)
    return {
        "name": player.name,
        "settings": None if settings is None else settings.to_json(),
        "seed": seed if isinstance(seed, int) and not isinstance(seed, bool) else None,
        "start_state": saved,
        "random_state": player.random_state(),
        "live_state": player.live_state(),
    }


def _side_records(snapshot: Mapping[str, Any], version_1: bool) -> list[dict[str, Any] | None]:
    """Per side the player record of a snapshot (version 1: only the start states)."""
    if version_1:
        saved = snapshot.get("player_states", [None, None])
        if not isinstance(saved, list) or len(saved) != 2:
            raise SnapshotError("session snapshot: player_states must be a list of two")
        return [None if s is None else {"start_state": s, "settings": None} for s in saved]
    sides = snapshot.get("players", [None, None])
    if not isinstance(sides, list) or len(sides) != 2:
        raise SnapshotError("session snapshot: players must be a list of two")
    for i, side in enumerate(sides):
        if side is not None and not isinstance(side, dict):
            raise SnapshotError(f"session snapshot: players[{i}] must be an object or null")
    return list(sides)


def _rebuild_players(
    records: Sequence[Mapping[str, Any] | None], game: Game, cache: PlayerCache | None
) -> tuple[Player | None, Player | None]:
    """The players of a snapshot, built from their settings and seeds."""
    built: list[Player | None] = []
    for i, record in enumerate(records):
        if record is None:
            built.append(None)
            continue
        data = record.get("settings")
        if data is None:
            raise SnapshotError(
                f"session snapshot: player {i} ({record.get('name', '?')}) has no settings "
                "to rebuild it from (a version-1 snapshot or a player without typed "
                "settings); pass the players to restore()"
            )
        from sparring.players.registry import build_player, settings_from_json

        seed = record.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise SnapshotError(f"session snapshot: player {i}: seed must be an integer or null")
        try:
            settings = settings_from_json(data)
            built.append(build_player(settings, game, seed, cache))
        except SparringError as err:
            raise SnapshotError(f"session snapshot: player {i}: {err}") from None
    return built[0], built[1]


def _restore(method: Any, data: Any, player: Player, what: str) -> None:
    """Call a player's restore ``method`` with ``data``; a malformed record becomes a
    :class:`SnapshotError` naming the player and the field."""
    try:
        method(data)
    except (ValueError, TypeError, KeyError) as err:
        raise SnapshotError(f"session snapshot: {player.name}: {what}: {err}") from None


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


__all__ = [
    "SNAPSHOT_FORMAT",
    "SNAPSHOT_VERSION",
    "Annotation",
    "Decision",
    "GameSession",
    "NoPlayerError",
    "RecordFormat",
    "SessionRecord",
    "SnapshotError",
    "advance",
    "default_format",
    "says_resigned",
]
