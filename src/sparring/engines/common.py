"""What the GTP and UCI front ends share: the engine's player seated in a session, the
strength settings the protocols' options ask for, the search worker and its stop flag, and
the value scales the protocols print.

The player and the game are kept in a :class:`PlayerSeat`: one
:class:`~sparring.players.base.Player` sitting at one side of one
:class:`~sparring.session.GameSession` (the other side's moves come from the protocol).  An
engine is asked to move for either colour (GTP ``genmove b`` then ``genmove w``; UCI analyses
positions of either side to move), so :meth:`PlayerSeat.seat` moves the player to the side
asked for by building the session again with the same start, handicap and moves (the player
is then told the game from the start: :class:`~sparring.session.GameSession`'s lifecycle
stays whole).  Every change either completes or raises before changing anything.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from sparring.engines.front import STYLES
from sparring.errors import (
    BadValueError,
    GameOverError,
    IllegalMoveError,
    IncompatibleError,
)
from sparring.games.base import Game, State
from sparring.levels import Level, describe, resolve
from sparring.players.base import Decision, Player
from sparring.players.cache import PlayerCache
from sparring.players.human_like import HumanLikeSettings, SAMCTSSettings
from sparring.players.human_mcts import on_scale
from sparring.players.registry import build_player
from sparring.players.settings_base import PlayerSettings
from sparring.search.analysis import MoveAnalysis
from sparring.search.limit import Limit
from sparring.session import GameSession


def protocol_level(
    game: Game,
    *,
    rank: str | None = None,
    elo: float | None = None,
    style: str = "measured",
    simulations: int | None = None,
) -> Level | None:
    """The :class:`~sparring.levels.Level` a protocol's options ask for: ``elo`` (on the
    game's scale, :func:`~sparring.levels.level_table`), ``rank``, or neither (None, the
    game's default AI; with ``simulations``, the strongest level with that many simulations,
    which is then no measured level).  :class:`~sparring.errors.BadValueError` for a bad
    style or for both an Elo and a rank."""
    if style not in STYLES:
        raise BadValueError(f"style is one of {', '.join(STYLES)}, not {style!r}", key="style")
    if rank is not None and elo is not None:
        raise BadValueError("give a rank or an Elo, not both", key="rank")
    if elo is not None:
        return Level.at_elo(float(elo))
    if rank is not None:
        return Level.at_rank(rank)
    return None if simulations is None else Level.strongest(simulations=simulations)


def strength_settings(
    game: Game,
    *,
    rank: str | None = None,
    elo: float | None = None,
    style: str = "measured",
    simulations: int | None = None,
) -> PlayerSettings:
    """The player settings for a strength asked in a protocol's terms: the level resolver's
    (:func:`sparring.levels.resolve`) for :func:`protocol_level`'s level."""
    level = protocol_level(game, rank=rank, elo=elo, style=style, simulations=simulations)
    return resolve(game, level)[0]


def level_lines(settings: PlayerSettings, game: Game) -> list[str]:
    """What an engine says of its player: the level's label and notice when ``settings``
    are a level's (:func:`sparring.levels.describe`), else the spec; for an Elo on an external
    scale also the work the scale chose (simulations, the leaf's nodes)."""
    report = describe(game, settings)
    if report is None:
        return [f"player {settings.spec()}"]
    lines = [f"level {report.label}: player {settings.spec()}"]
    if isinstance(settings, HumanLikeSettings) and settings.asked_elo is not None:
        work, choice = on_scale(settings, game)
        work = replace(work, sf_elo=None, gnugo_elo=None)
        if isinstance(work, SAMCTSSettings) and work.z is None:  # the z knob: its choice
            work = replace(work, z=round(choice.value, 3))
        lines.append(f"its work a move: {work.spec()}")
    if report.seconds is not None:
        lines.append(f"about {report.seconds:.2f} s a move on a 2-core CPU")
    if report.notice:
        lines.append(report.notice)
    return lines


class PlayerSeat:
    """One player at one side of a :class:`GameSession` (see the module doc)."""

    def __init__(
        self,
        game: Game,
        settings: PlayerSettings,
        seed: int | None = None,
        cache: PlayerCache | None = None,
    ) -> None:
        self.cache = PlayerCache() if cache is None else cache
        self.seed = seed
        self.settings = settings
        self.player: Player = build_player(settings, game, seed, self.cache)
        self.side = 1
        """The side the player sits at."""
        self.session = GameSession(game, self._sides(self.player, self.side))

    @property
    def game(self) -> Game:
        """The game being played."""
        return self.session.game

    @staticmethod
    def _sides(player: Player, side: int) -> tuple[Player | None, Player | None]:
        return (player, None) if side == 0 else (None, player)

    def _replay(
        self,
        game: Game,
        player: Player,
        side: int,
        start: State | None,
        handicap: Sequence[int],
        moves: Sequence[int],
        movers: Sequence[int],
    ) -> GameSession:
        """A new session of ``game`` with ``player`` at ``side``, from ``start`` (or the
        handicap stones), with ``moves`` played by ``movers``."""
        sides = self._sides(player, side)
        if handicap:
            session = GameSession(game, sides, handicap=list(handicap))
        else:
            session = GameSession(game, sides, start=start)
        old = self.session
        same = game is old.game
        for i, (move, mover) in enumerate(zip(moves, movers, strict=True)):
            session.play(
                move,
                side=mover,
                think_time=old.think_times[i] if same else 0.0,
                annotation=old.annotations[i] if same else None,
            )
        return session

    def _start(self) -> State | None:
        """The start position to build a session again from; None for the game's initial
        position or when handicap stones define it."""
        s = self.session
        if s.handicap or np.array_equal(s.start_state, s.game.initial_state()):
            return None
        return s.start_state

    def seat(self, side: int) -> None:
        """Put the player at ``side`` (0 or 1), keeping the game so far."""
        if side == self.side:
            return
        s = self.session
        self.session = self._replay(
            s.game, self.player, side, self._start(), s.handicap, s.moves, s.movers
        )
        self.side = side

    def reset(self, start: State | None = None) -> None:
        """A new game from ``start`` (default: the game's initial position)."""
        self.session = GameSession(self.game, self._sides(self.player, self.side), start=start)

    def set_session(self, start: State | None, moves: Sequence[int]) -> None:
        """The game from ``start`` with ``moves`` played in turn (UCI ``position``); raises
        (changing nothing) when a move is illegal."""
        game = self.game
        sides = self._sides(self.player, self.side)
        session = GameSession(game, sides, start=start)
        for move in moves:
            session.play(move)
        self.session = session

    def set_game(
        self, game: Game, settings: PlayerSettings | None = None, keep_moves: bool = True
    ) -> None:
        """Play ``game`` from now on (GTP ``boardsize``, ``komi``) with ``settings`` (default:
        the same): the player is built again for it and, with ``keep_moves``, the moves so
        far are replayed (the start position and handicap too).  Raises, changing nothing,
        when the settings do not fit the game or a move is illegal there."""
        settings = self.settings if settings is None else settings
        player = build_player(settings, game, self.seed, self.cache)
        if keep_moves:
            s = self.session
            start = self._start()
            if start is not None and start.shape != game.initial_state().shape:
                raise IncompatibleError(f"{game.name}: the position does not fit this game")
            session = self._replay(game, player, self.side, start, s.handicap, s.moves, s.movers)
        else:
            session = GameSession(game, self._sides(player, self.side))
        self.player, self.session, self.settings = player, session, settings

    def move(self, side: int, limit: Limit | None = None, commit: bool = True) -> Decision:
        """The player's decision for ``side`` (0 or 1) under ``limit``, played in the session
        when ``commit`` (GTP ``genmove``; ``reg_genmove`` only asks): the move, its
        analysis, and whether the player resigned (:attr:`Decision.resigned`; a committed
        resignation resigns ``side``'s game).  ``side`` may be the side not to move where
        the game allows moves out of turn (Go): the player then searches the position with
        ``side`` to move.  Raises :class:`~sparring.errors.GameOverError` when the game is
        over."""
        self.seat(side)
        s = self.session
        game = s.game
        if s.is_over:
            raise GameOverError(f"{game.name}: the game is over")
        if commit and s.to_move == side:
            return s.play_decision(limit)
        state = s.state if s.to_move == side else game.with_side_to_move(s.state, side)
        began = time.perf_counter()
        decision = self.player.play(game, state, limit)
        move = int(decision.move)
        if commit and decision.resigned:
            s.resign(side)
        elif commit:
            s.play(
                move,
                side=side,
                think_time=time.perf_counter() - began,
                annotation=decision.annotation,
            )
        elif not game.is_legal(state, move):
            raise IllegalMoveError(f"{self.player.name} chose the illegal move {move}")
        return decision

    def set_settings(self, settings: PlayerSettings) -> None:
        """Play with ``settings`` from now on: a new player, told the game so far.  Raises,
        changing nothing, when they do not fit the game."""
        player = build_player(settings, self.game, self.seed, self.cache)
        s = self.session
        session = self._replay(
            s.game, player, self.side, self._start(), s.handicap, s.moves, s.movers
        )
        self.player, self.session, self.settings = player, session, settings


class StopFlag:
    """The stop flag of a search: set by the protocol (``stop``, a new command) or reached
    by a deadline on the monotonic clock (a time limit that starts, for UCI's ``go ponder``,
    only at ``ponderhit``).  A :class:`~sparring.search.limit.Limit`'s ``stop`` callable."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.deadline: float | None = None

    def set(self) -> None:
        """Stop now."""
        self.event.set()

    def stop_in(self, seconds: float) -> None:
        """Stop ``seconds`` from now."""
        self.deadline = time.monotonic() + max(0.0, seconds)

    def stop_at(self, deadline: float) -> None:
        """Stop at ``deadline`` on the monotonic clock (:func:`time.monotonic`)."""
        self.deadline = deadline

    def remaining(self) -> float | None:
        """Seconds left before the deadline (0 when past it); None without a deadline."""
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - time.monotonic())

    def __call__(self) -> bool:
        if self.event.is_set():
            return True
        return self.deadline is not None and time.monotonic() >= self.deadline


class SearchWorker:
    """Runs one search at a time in a daemon thread (the protocol loop keeps reading).

    The search function returns its final answer (UCI's ``bestmove`` line) instead of
    writing it: the worker counts as idle *before* the answer goes out (``done(answer)``), so
    that a client's next command, sent as soon as it reads the answer, never finds the
    search still running."""

    def __init__(self, done: Callable[[str], None] | None = None) -> None:
        self._thread: threading.Thread | None = None
        self._active = False
        self._done = done
        self.flag = StopFlag()

    @property
    def busy(self) -> bool:
        """Whether a search is running (its answer not yet given)."""
        return self._active

    def start(
        self,
        run: Callable[[StopFlag], str | None],
        seconds: float | None = None,
        *,
        deadline: float | None = None,
    ) -> StopFlag:
        """Run ``run(flag)`` in a new thread with a fresh stop flag (stopping ``seconds``
        from now, or at ``deadline`` on the monotonic clock, when given), which is returned;
        its answer goes to ``done``."""
        if self._active:
            raise RuntimeError("a search is already running")
        self.join()  # a finished search may still be handing over its answer
        flag = self.flag = StopFlag()
        if seconds is not None:
            flag.stop_in(seconds)
        if deadline is not None:
            flag.stop_at(deadline)

        def body() -> None:
            try:
                answer = run(flag)
            finally:
                self._active = False
            if answer is not None and self._done is not None:
                self._done(answer)

        self._active = True
        self._thread = threading.Thread(target=body, daemon=True)
        self._thread.start()
        return flag

    def stop(self, wait: bool = True) -> None:
        """Set the stop flag and, with ``wait``, wait for the search (and its answer)."""
        self.flag.set()
        if wait:
            self.join()

    def join(self) -> None:
        """Wait for the running search (if any) to end and give its answer."""
        if self._thread is not None:
            self._thread.join()
            self._thread = None


CP_SCALE = 111.714640912
CP_ANGLE = 1.5620688421
MAX_CP = 12800


def value_to_cp(value: float) -> int:
    """Centipawns of a value in ``[-1, 1]`` for the side to move (Leela Chess Zero's old
    mapping ``cp = 111.714640912 * tan(1.5620688421 * q)``, clipped to +-12800)."""
    if not math.isfinite(value):
        return 0
    q = max(-1.0, min(1.0, value))
    return round(max(-MAX_CP, min(MAX_CP, CP_SCALE * math.tan(CP_ANGLE * q))))


def value_to_winrate(value: float) -> float:
    """The win probability ``(1 + v) / 2`` of a value ``v`` in ``[-1, 1]`` (0.5 when
    unknown)."""
    if not math.isfinite(value):
        return 0.5
    return (1.0 + max(-1.0, min(1.0, value))) / 2.0


def ranked_moves(analysis: MoveAnalysis) -> list[int]:
    """Indices of the root's moves with visits, most visited first (ties: the higher Q,
    then the higher prior); minimax: every move, the best value first."""
    q = analysis.q or (0.0,) * len(analysis.moves)
    priors = analysis.priors or (0.0,) * len(analysis.moves)
    if analysis.search == "minimax":  # no visits: by value
        return sorted(range(len(analysis.moves)), key=lambda i: -q[i])
    order = [i for i, n in enumerate(analysis.visits) if n > 0]
    order.sort(key=lambda i: (-analysis.visits[i], -q[i], -priors[i]))
    return order


def move_value(analysis: MoveAnalysis, index: int) -> float:
    """The value of root move ``index`` for the side to move (its ``Q``; the root's value
    when no ``Q`` is known)."""
    if analysis.q and math.isfinite(analysis.q[index]):
        return float(analysis.q[index])
    return float(analysis.value) if analysis.value is not None else 0.0
