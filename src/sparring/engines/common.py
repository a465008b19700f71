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

import numpy as np

from sparring.errors import (
    BadValueError,
    GameOverError,
    IllegalMoveError,
    IncompatibleError,
    IncompatiblePlayerError,
)
from sparring.games.base import Game, State
from sparring.players.base import Player
from sparring.players.cache import PlayerCache
from sparring.players.registry import build_player
from sparring.players.settings_base import PlayerSettings
from sparring.search.analysis import MoveAnalysis
from sparring.search.limit import Limit
from sparring.session import GameSession, says_resigned

STYLES: tuple[str, ...] = ("measured", "human-like", "plain")
"""How a limited strength is reached: ``measured`` (chess, an Elo) plays the human-like
search with Stockfish's leaf values at the setting the shipped Stockfish scale measured at
that Elo (``human-mcts:sf_elo=E``, :mod:`sparring.estimation.external_scale`; a chess band
falls back to ``human-like``); in 19x19 Go ``measured`` plays the rank-conditioned play
network (``human-mcts:model=go-play,rank=R,sims=32``; full strength at ``9d``), the Go
setting rated against GNU Go (session 34's network at 9d: 1035 +- 108 with GNU Go level 10
at 1000; session 32's, now ``go-play-early``: 1017 +- 108 with level 1 at 1000 at 9d, 1108 +-
113 at 3-5k, docs/external-strength.md: the rank chooses which human moves it imitates, not
its strength); ``human-like`` plays SE-inf-MCTS at the
rank (Chen et al., Eq. 6: a search that aims at the rank's strength score), ``plain`` plays
SA-MCTS (Wu et al.'s strength index ``z`` for the rank, from the shipped z table, over the
same search).  Only ``measured`` is
rated on an external scale (docs/external-strength.md): the rank styles choose how
human-like the moves are for a rating band, not how strong they are.  In chess, full
strength with ``measured`` is the strongest measured setting
(:func:`~sparring.estimation.human_like.strongest_chess`) when Stockfish is installed."""

GO_PLAY_NETWORK = "go-play"
"""The shipped Go play network that Go's ``measured`` style plays (45.5% of held-out human
moves against 33.5% for the SE kinds' network; docs/estimation.md, "A play network")."""
GO_MEASURED_SIMULATIONS = 32
"""Simulations a move of Go's ``measured`` style: the count its GNU Go games were played
with (0.46 s a move on this project's CPU with the 10 x 128 network)."""

HUMAN_LIKE_GAMES: tuple[str, ...] = ("go", "chess")
"""Games (19x19 Go, chess) whose human-like player kinds take a rank or an Elo."""


def strength_settings(
    game: Game,
    *,
    rank: str | None = None,
    elo: float | None = None,
    style: str = "measured",
    simulations: int | None = None,
) -> PlayerSettings:
    """The player settings for a strength asked in a protocol's terms.

    In chess, ``elo`` with ``style="measured"`` gives ``human-mcts:sf_elo=E`` (the shipped
    Stockfish scale chooses the simulations; ``simulations`` is ignored, and an Elo outside
    the scale is clamped, as the player's analysis says).  In 19x19 Go, ``style="measured"``
    gives the play network at the rank (:data:`GO_PLAY_NETWORK`, ``9d`` without one) with
    :data:`GO_MEASURED_SIMULATIONS` unless ``simulations`` says otherwise, and ``elo`` (an Elo
    on GNU Go's scale, GNU Go 3.8 at level 1 = 1000) gives ``sa-mcts:gnugo_elo=E``: SA's ``z``
    over the play network, chosen by the shipped GNU Go scale with its own simulations
    (``simulations`` is ignored; an Elo outside the scale is clamped).  In 19x19 Go and chess
    (:data:`HUMAN_LIKE_GAMES`), ``rank`` (Go ``9d`` ... ``3-5k``, chess an Elo band such as
    ``1400-1600``) or, in chess with the other styles, ``elo`` (the band holding it, 1000 to
    2600) gives ``se-inf-mcts`` at that rank (``style="human-like"``, and ``measured`` for a
    chess band) or ``sa-mcts`` at it (``style="plain"``); without either, the full strength: in
    chess with ``style="measured"`` and Stockfish installed the strongest measured setting
    (:func:`~sparring.estimation.human_like.strongest_chess`, its own 35 simulations:
    ``simulations`` is ignored), else the same search as the ranks' (``human-mcts``).
    Elsewhere (9x9 or 13x13 Go) only the default exists: the size's shipped network
    (``az`` under Go's finishing rules; 9x9 has one, :func:`~sparring.players.settings.default_ai`),
    else UCT with MCTS1's 300 simulations.  ``simulations`` overrides the player's default
    count.  Raises :class:`~sparring.errors.IncompatiblePlayerError` for a rank or Elo in a
    game without human-like players or a Go Elo with a rank or another style, and the
    settings' own errors for a bad rank or Elo (:class:`~sparring.errors.PlayerSettingsError`).
    """
    from sparring.estimation.human_like import (
        DEFAULT_SIMULATIONS,
        GO_RANKS,
        HumanMCTSSettings,
        SAMCTSSettings,
        SEInfMCTSSettings,
        elo_band,
        strongest_chess,
    )
    from sparring.players.external import find_program
    from sparring.players.settings import default_ai

    if style not in STYLES:
        raise BadValueError(f"style is one of {', '.join(STYLES)}, not {style!r}", key="style")
    if game.name not in HUMAN_LIKE_GAMES:
        if rank is not None or elo is not None:
            raise IncompatiblePlayerError(
                f"{game.name}: ranks and Elos need 19x19 Go or chess (the human-like "
                "networks); give a player spec instead",
                key="rank" if rank is not None else "elo",
            )
        return default_ai(game.name, simulations)
    if elo is not None:
        if game.name != "chess":
            return _go_elo(float(elo), style, rank)
        if style == "measured":
            return HumanMCTSSettings(sf_elo=float(elo))
        rank = elo_band(elo)
    if game.name == "go" and style == "measured":
        return HumanMCTSSettings(
            model=GO_PLAY_NETWORK,
            rank=GO_RANKS[0] if rank is None else rank,
            simulations=GO_MEASURED_SIMULATIONS if simulations is None else simulations,
        )
    sims = DEFAULT_SIMULATIONS if simulations is None else simulations
    if rank is None:
        if game.name == "chess" and style == "measured" and find_program("stockfish"):
            return strongest_chess()
        return HumanMCTSSettings(simulations=sims)
    if style == "plain":
        return SAMCTSSettings(rank=rank, simulations=sims)
    return SEInfMCTSSettings(rank=rank, simulations=sims)


def _go_elo(elo: float, style: str, rank: str | None) -> PlayerSettings:
    """19x19 Go at an Elo on GNU Go's scale: ``sa-mcts:gnugo_elo=E`` (the shipped scale,
    :func:`~sparring.estimation.external_scale.default_scale`, chooses z and the search,
    the simulations among them)."""
    from sparring.estimation.human_like import SAMCTSSettings

    if style != "measured" or rank is not None:
        raise IncompatiblePlayerError(
            "a Go Elo is played as measured (on GNU Go's scale), without a rank; the "
            "human-like and plain styles take a rank (9d..1d, 1-2k, 3-5k)",
            key="elo",
        )
    return SAMCTSSettings(gnugo_elo=elo)


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

    def move(self, side: int, limit: Limit | None = None, commit: bool = True) -> int:
        """The player's move for ``side`` (0 or 1) under ``limit``, played in the session
        when ``commit`` (GTP ``genmove``; ``reg_genmove`` only asks).  ``side`` may be the
        side not to move where the game allows moves out of turn (Go): the player then
        searches the position with ``side`` to move.  Raises
        :class:`~sparring.errors.GameOverError` when the game is over."""
        self.seat(side)
        s = self.session
        game = s.game
        if s.is_over:
            raise GameOverError(f"{game.name}: the game is over")
        if commit and s.to_move == side:
            return s.play_player(limit)
        state = s.state if s.to_move == side else game.with_side_to_move(s.state, side)
        began = time.perf_counter()
        move = int(self.player.select_move(game, state, limit))
        if commit and self.resigns(side, committed=False):
            s.resign(side)
        elif commit:
            s.play(
                move,
                side=side,
                think_time=time.perf_counter() - began,
                annotation=self.player.move_info(),
            )
        elif not game.is_legal(state, move):
            raise IllegalMoveError(f"{self.player.name} chose the illegal move {move}")
        return move

    def resigns(self, side: int, committed: bool) -> bool:
        """Whether the player resigned ``side``'s game with the move just asked for: the
        session's resignation when it was played, the player's annotation
        (``{"resigned": true}``, as GNU Go's ``resign`` gives) when it was only asked."""
        if committed:
            return self.session.resigned == side
        return says_resigned(self.player.move_info())

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
        self, run: Callable[[StopFlag], str | None], seconds: float | None = None
    ) -> StopFlag:
        """Run ``run(flag)`` in a new thread with a fresh stop flag (stopping ``seconds``
        from now when given), which is returned; its answer goes to ``done``."""
        if self._active:
            raise RuntimeError("a search is already running")
        self.join()  # a finished search may still be handing over its answer
        flag = self.flag = StopFlag()
        if seconds is not None:
            flag.stop_in(seconds)

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
