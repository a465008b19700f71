"""``sparring gtp``: a Go engine speaking the Go Text Protocol (version 2) over a player and
a game session.

Commands: ``protocol_version``, ``name``, ``version``, ``known_command``, ``list_commands``,
``quit``, ``boardsize``, ``clear_board``, ``komi``, ``fixed_handicap``,
``place_free_handicap``, ``set_free_handicap``, ``play``, ``genmove``, ``reg_genmove``,
``kgs-genmove_cleanup``, ``undo``, ``showboard``, ``final_score``, ``final_status_list``,
``time_settings``, ``kgs-time_settings``, ``time_left``, ``lz-analyze`` and the extension
``sparring-strength``.
A bad command (unknown, malformed, an illegal move or vertex, a size or komi the rules do
not take) is answered ``? message`` and changes nothing; the engine never exits on bad
input.

Rules (:mod:`sparring.games.go`): area scoring (Tromp-Taylor), simple ko, no suicide, no
dead-stone removal: ``final_status_list dead`` is always empty and ``kgs-genmove_cleanup``
is ``genmove`` (the players already finish games under Go's finishing rules: no own-eye
fills, pass to win).  The engine never resigns.  The game ends after two passes (or the
rules' ply cap); a ``play`` after the end is refused and ``genmove`` then answers ``pass``
without playing it.

Strength: the engine's player comes from ``--elo`` / ``--rank`` / ``--player`` (``sparring
gtp``) and can be changed at run time with ``sparring-strength`` (no argument: the player's
spec now; ``elo E``: an Elo on the board size's scale, GNU Go 3.8 at level 1 = 1000; ``rank
R``: a rank of a measured rank ladder; ``player SPEC``: any player spec; ``default``: the
board size's default).  Every level comes from the level resolver
(:func:`sparring.levels.resolve`; ``sparring levels go`` and ``sparring levels go9`` list
the measured levels): the level's label, seconds a move and any notice (clamped, the
nearest measured level) are written to standard error, which GTP clients show in their
engine log.

Time: the player's setting fixes its work (its simulations); the clock is only an upper
bound on it.  With ``time_settings main byo_yomi stones`` (Canadian byo-yomi; and
``time_left``), ``genmove`` thinks at most ``left / stones`` in byo-yomi, otherwise
``main_left / max(10, empty points / 3)`` plus 0.8 of a byo-yomi period's time per stone,
less 5% and 50 ms for the protocol (``byo_yomi > 0`` with ``stones = 0`` means no time
limit).  ``kgs-time_settings`` (KGS's form) takes ``none`` (no time settings),
``absolute MAIN``, ``canadian MAIN PERIOD STONES`` (as ``time_settings``) and ``byoyomi
MAIN PERIOD COUNT`` (Japanese byo-yomi: ``COUNT`` periods of ``PERIOD`` seconds; a move
within a period keeps it, so in byo-yomi, where ``time_left`` gives the period's time left
and the periods left, a move thinks within the period, and in the main time the share of
the main time plus 0.8 of a period).  Without time settings, the per-move ``--time`` of
``sparring gtp`` bounds a move, if given (the shorter bound wins when both apply).  The clock
starts when ``genmove`` is read.  When it ends the search before the player's simulations, a
line on standard error says so (``sparring: clock too short for this level: N of M
simulations in S s``) and the best move found so far is played.  One-off costs (compiling
the search, the network's first batch) are paid when the player is built (at start,
``boardsize``, ``komi``, ``sparring-strength``) by a throwaway player of the same settings, so
that the first ``genmove`` does not pay them.

Analysis: ``lz-analyze [colour] [interval]`` (interval in centiseconds, default 100) answers
``=`` and then, at most every interval, one line of ``info move V visits N winrate W prior P
order K pv V ...`` entries, one per root move with visits (Leela Zero's form, which Sabaki
and Lizzie read; winrate and prior in 1/10000 for the colour analysed), until the next
command, which ends the response with an empty line.  The analysing player is the engine's
kind and settings with :data:`ANALYSIS_SIMULATIONS` simulations: one search, whose progress
reports (:attr:`~sparring.search.limit.Limit.progress`) are the lines; the last line is the
full budget's.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TextIO

from sparring.engines.common import (
    PlayerSeat,
    SearchWorker,
    StopFlag,
    level_lines,
    move_value,
    ranked_moves,
    strength_settings,
    value_to_winrate,
)
from sparring.engines.front import PROTOCOL_VERSION, clean_line
from sparring.errors import GameOverError, SparringError
from sparring.games import get_game
from sparring.games.base import Game, State
from sparring.players.base import Player
from sparring.players.registry import build_player, parse_player
from sparring.players.searching import SearchPlayer
from sparring.players.settings_base import PlayerSettings
from sparring.search.analysis import MoveAnalysis
from sparring.search.limit import Limit
from sparring.version import __version__

ANALYSIS_SIMULATIONS = 4096
"""The simulation budget of ``lz-analyze`` (the player's own count when larger): one search
of it, then the analysis waits for the next command."""


class GTPError(Exception):
    """A failed command; its message follows ``?``."""


def parse_colour(text: str) -> int:
    """0 for ``b``/``black``, 1 for ``w``/``white`` (any case); :class:`GTPError` else."""
    colour = text.lower()
    if colour in ("b", "black"):
        return 0
    if colour in ("w", "white"):
        return 1
    raise GTPError(f"syntax error: {text!r} is not a colour")


@dataclass
class TimeSettings:
    """GTP ``time_settings``: main time, byo-yomi time, byo-yomi stones (seconds)."""

    main: float
    byo_yomi: float
    stones: int
    japanese: bool = False
    """Japanese byo-yomi (``kgs-time_settings byoyomi``): ``byo_yomi`` is one period's time
    and ``stones`` the number of periods."""


def gtp_think_time(
    game: Game, state: State, clock: TimeSettings | None, left: tuple[float, int] | None
) -> float | None:
    """Seconds to think for one move (the module doc's rule); None for no time bound."""
    if clock is None:
        return None
    if clock.byo_yomi > 0 and clock.stones == 0:
        return None
    if clock.main <= 0 and clock.byo_yomi <= 0:
        return None
    seconds, stones = left if left is not None else (clock.main, 0)
    if stones > 0:  # in byo-yomi: Japanese, the period's time left; Canadian, shared by stones
        share = seconds if clock.japanese else seconds / stones
    else:
        board = getattr(game, "board", None)
        empty = int((board(state) == 0).sum()) if board is not None else game.num_actions - 1
        share = seconds / max(10.0, empty / 3.0)
        if clock.stones > 0:
            share += 0.8 * clock.byo_yomi / (1 if clock.japanese else clock.stones)
    return max(0.01, 0.95 * share - 0.05)


def parse_kgs_time_settings(args: list[str]) -> TimeSettings | None:
    """``kgs-time_settings``'s arguments as :class:`TimeSettings` (None for ``none``);
    :class:`GTPError` when malformed.  ``byoyomi`` with no period is ``absolute``."""
    usage = (
        "syntax error: kgs-time_settings none | absolute MAIN | byoyomi MAIN PERIOD COUNT | "
        "canadian MAIN PERIOD STONES"
    )
    counts = {"none": 0, "absolute": 1, "byoyomi": 3, "canadian": 3}
    if not args or args[0].lower() not in counts or len(args) != 1 + counts[args[0].lower()]:
        raise GTPError(usage)
    system = args[0].lower()
    numbers = []
    for text in args[1:]:
        try:
            numbers.append(int(text))
        except ValueError:
            raise GTPError(f"syntax error: time {text!r} is not an integer") from None
    if any(n < 0 for n in numbers):
        raise GTPError("syntax error: times and counts must be >= 0")
    if system == "none":
        return None
    if system == "absolute":
        return TimeSettings(float(numbers[0]), 0.0, 0)
    main, period, count = numbers
    if system == "canadian":
        return TimeSettings(float(main), float(period), count)
    if period == 0 or count == 0:
        return TimeSettings(float(main), 0.0, 0)
    return TimeSettings(float(main), float(period), count, japanese=True)


class GTPEngine:
    """GTP over a :class:`PlayerSeat` (see the module doc).  ``out`` receives the
    responses; :meth:`run` reads commands until ``quit`` or the end of input.

    ``strength`` is how the player is chosen: ``None`` (the board size's default),
    ``("rank", R)``, ``("elo", E)`` or ``("player", SPEC)``; ``move_time`` bounds every
    move when no time settings are given; ``style`` is how a rank is played
    (:data:`~sparring.engines.common.STYLES`); ``simulations`` overrides the default
    players' simulation count; ``err`` receives the notices (standard error by default).
    """

    def __init__(
        self,
        out: TextIO | None = None,
        *,
        game: Game | None = None,
        strength: tuple[str, str] | None = None,
        style: str = "measured",
        simulations: int | None = None,
        move_time: float | None = None,
        seed: int | None = None,
        err: TextIO | None = None,
    ) -> None:
        self.out = sys.stdout if out is None else out
        self.err = sys.stderr if err is None else err
        game = get_game("go") if game is None else game
        if not hasattr(game, "size") or not game.name.startswith("go"):
            raise SparringError(f"sparring gtp plays Go, not {game.name}")
        self.style = style
        self.simulations = simulations
        self.move_time = move_time
        self.strength = strength
        self.seat = PlayerSeat(game, self._settings_for(game, strength), seed)
        self._announce()
        self._warmed: set[tuple[object, ...]] = set()
        self._warm()
        self.clock: TimeSettings | None = None
        self.left: dict[int, tuple[float, int]] = {}
        self.worker = SearchWorker()
        self._analysing = False
        self._analysis_args: tuple[Player, State, float] | None = None
        self._analyst: tuple[object, Player] | None = None
        self._lock = threading.Lock()
        self.commands: dict[str, Callable[[list[str]], str]] = {
            "protocol_version": lambda a: PROTOCOL_VERSION,
            "name": lambda a: "sparring",
            "version": lambda a: __version__,
            "known_command": self.cmd_known_command,
            "list_commands": lambda a: "\n".join(self.commands),
            "quit": lambda a: "",
            "boardsize": self.cmd_boardsize,
            "clear_board": self.cmd_clear_board,
            "komi": self.cmd_komi,
            "fixed_handicap": self.cmd_fixed_handicap,
            "place_free_handicap": self.cmd_place_free_handicap,
            "set_free_handicap": self.cmd_set_free_handicap,
            "play": self.cmd_play,
            "genmove": self.cmd_genmove,
            "reg_genmove": self.cmd_reg_genmove,
            "kgs-genmove_cleanup": self.cmd_genmove,
            "undo": self.cmd_undo,
            "showboard": self.cmd_showboard,
            "final_score": self.cmd_final_score,
            "final_status_list": self.cmd_final_status_list,
            "time_settings": self.cmd_time_settings,
            "kgs-time_settings": self.cmd_kgs_time_settings,
            "time_left": self.cmd_time_left,
            "lz-analyze": self.cmd_lz_analyze,
            "sparring-strength": self.cmd_strength,
        }

    # ---- plumbing -------------------------------------------------------------------------
    @property
    def game(self) -> Game:
        """The game (board size and komi) being played."""
        return self.seat.game

    def send(self, text: str) -> None:
        """Write ``text`` and flush (from the loop or the analysis thread)."""
        with self._lock:
            self.out.write(text)
            self.out.flush()

    def run(self, lines: Iterable[str]) -> None:
        """Handle ``lines`` until ``quit`` (or the end of input)."""
        try:
            for line in lines:
                if not self.handle(line):
                    break
        finally:
            self._end_analysis()

    def _end_analysis(self) -> None:
        if self._analysing:
            self.worker.stop()
            self._analysing = False
            self.send("\n")

    def handle(self, raw: str) -> bool:
        """Handle one command line (responding to it); False after ``quit``."""
        line = clean_line(raw)
        if not line:
            return True
        self._end_analysis()
        tokens = line.split()
        ident = ""
        if tokens[0].isdigit():
            ident = tokens.pop(0)
            if not tokens:
                self.send(f"?{ident} syntax error: no command\n\n")
                return True
        name, args = tokens[0], tokens[1:]
        command = self.commands.get(name)
        if command is None:
            self.send(f"?{ident} unknown command\n\n")
            return True
        try:
            result = command(args)
        except (GTPError, SparringError) as exc:
            self.send(f"?{ident} {' '.join(str(exc).split())}\n\n")
            return True
        except Exception as exc:  # never die on input: report anything unforeseen
            self.send(f"?{ident} internal error: {type(exc).__name__}: {exc}\n\n")
            return True
        if name == "lz-analyze" and self._analysis_args is not None:
            self.send(f"={ident}\n")
            self._start_analysis(*self._analysis_args)
            self._analysis_args = None
            return True
        self.send(f"={ident}{' ' if result else ''}{result}\n\n")
        return name != "quit"

    def _settings_for(self, game: Game, strength: tuple[str, str] | None) -> PlayerSettings:
        if strength is None:
            return strength_settings(game, style=self.style, simulations=self.simulations)
        how, value = strength
        if how == "player":
            return parse_player(value)
        if how == "rank":
            return strength_settings(
                game, rank=value, style=self.style, simulations=self.simulations
            )
        if how == "elo":
            try:
                elo = float(value)
            except ValueError:
                raise GTPError(f"syntax error: elo {value!r} is not a number") from None
            return strength_settings(game, elo=elo, style=self.style, simulations=self.simulations)
        raise GTPError(
            f"syntax error: strength is rank R, elo E, player SPEC or default, not {how!r}"
        )

    def _vertex(self, text: str, allow_pass: bool = True) -> int:
        move = self.game.parse_move(text)  # MoveParseError names the bad vertex
        if not allow_pass and move == self.game.num_actions - 1:
            raise GTPError(f"syntax error: {text!r}: a handicap stone goes on a point")
        return move

    def _int(self, text: str, what: str) -> int:
        try:
            return int(text)
        except ValueError:
            raise GTPError(f"syntax error: {what} {text!r} is not an integer") from None

    def _args(self, args: list[str], count: int, usage: str) -> None:
        if len(args) != count:
            raise GTPError(f"syntax error: {usage}")

    def _warm(self) -> None:
        """Pay the one-off costs of the seat's player (compiling the search, the network's
        first batch) now rather than in the first ``genmove``'s time: a throwaway player of
        the same settings (sharing the seat's cache of networks) searches one simulation of
        the empty board, leaving the seat's player, its generator and its game alone.  Once
        per settings and game; players that do not search (external engines) are skipped."""
        game = self.game
        key = (self.seat.settings, game.name, tuple(sorted(game.params().items())))
        if key in self._warmed:
            return
        self._warmed.add(key)
        if not isinstance(self.seat.player, SearchPlayer):
            return
        player = build_player(self.seat.settings, game, self.seat.seed, self.seat.cache)
        try:
            player.select_move(game, game.initial_state(), Limit(simulations=1))
        finally:
            player.close()

    def notice(self, text: str) -> None:
        """One line ``sparring: text`` on :attr:`err` (standard error), which GTP clients
        show apart, in their engine log."""
        self.err.write(f"sparring: {text}\n")
        self.err.flush()

    # ---- setup ---------------------------------------------------------------------------
    def cmd_known_command(self, args: list[str]) -> str:
        self._args(args, 1, "known_command NAME")
        return "true" if args[0] in self.commands else "false"

    def cmd_boardsize(self, args: list[str]) -> str:
        self._args(args, 1, "boardsize SIZE")
        size = self._int(args[0], "size")
        try:
            game = get_game("go", size=size, komi=self.game.komi)  # type: ignore[attr-defined]
            self.seat.set_game(game, self._settings_for(game, self.strength), keep_moves=False)
        except SparringError as exc:
            raise GTPError(f"unacceptable size ({exc})") from None
        self._warm()
        return ""

    def cmd_clear_board(self, args: list[str]) -> str:
        self._args(args, 0, "clear_board")
        self.seat.reset()
        return ""

    def cmd_komi(self, args: list[str]) -> str:
        self._args(args, 1, "komi VALUE")
        try:
            komi = float(args[0])
        except ValueError:
            raise GTPError(f"syntax error: komi {args[0]!r} is not a number") from None
        game = get_game("go", size=self.game.size, komi=komi)  # type: ignore[attr-defined]
        self.seat.set_game(game)
        self._warm()
        return ""

    def _handicap_reply(self, points: list[int]) -> str:
        return " ".join(self.game.move_to_text(p) for p in points)

    def cmd_fixed_handicap(self, args: list[str]) -> str:
        self._args(args, 1, "fixed_handicap NUMBER")
        count = self._int(args[0], "number of stones")
        return self._handicap_reply(self.seat.session.place_handicap(count))

    def cmd_place_free_handicap(self, args: list[str]) -> str:
        self._args(args, 1, "place_free_handicap NUMBER")
        count = self._int(args[0], "number of stones")
        return self._handicap_reply(self.seat.session.place_handicap(count))

    def cmd_set_free_handicap(self, args: list[str]) -> str:
        if len(args) < 2:
            raise GTPError("syntax error: set_free_handicap VERTEX VERTEX ...")
        points = [self._vertex(a, allow_pass=False) for a in args]
        if len(set(points)) != len(points):
            raise GTPError("syntax error: a vertex is given twice")
        self.seat.session.place_handicap(points=points)
        return ""

    # ---- moves ------------------------------------------------------------------------------
    def cmd_play(self, args: list[str]) -> str:
        self._args(args, 2, "play COLOUR VERTEX")
        side = parse_colour(args[0])
        move = self._vertex(args[1])
        try:
            self.seat.session.play(move, side=side)
        except SparringError as exc:
            raise GTPError(f"illegal move ({exc})") from None
        return ""

    def _limit(self, side: int, received: float) -> Limit | None:
        """The bound of a move for ``side`` whose ``genmove`` was read at ``received``
        (:func:`time.perf_counter`): the time left of its share, and a stop at the share's
        end (which also counts what happens before the search starts)."""
        seconds = gtp_think_time(
            self.game, self.seat.session.state, self.clock, self.left.get(side)
        )
        if seconds is None:
            seconds = self.move_time
        elif self.move_time is not None:
            seconds = min(seconds, self.move_time)
        if seconds is None:
            return None
        deadline = received + seconds

        def past() -> bool:
            return time.perf_counter() >= deadline

        return Limit(time=max(0.0, deadline - time.perf_counter()), stop=past)

    def _genmove(self, args: list[str], commit: bool) -> str:
        received = time.perf_counter()  # the move's clock starts now
        self._args(args, 1, "genmove COLOUR")
        side = parse_colour(args[0])
        try:
            decision = self.seat.move(side, self._limit(side, received), commit=commit)
        except GameOverError:
            return "pass"
        self._clock_notice(decision.analysis, received)
        if decision.resigned:
            return "resign"
        return self.game.move_to_text(decision.move)

    def _clock_notice(self, analysis: MoveAnalysis | None, received: float) -> None:
        """Say on standard error when the clock ended the move's search (``analysis``)
        before the player's simulations (the level's work)."""
        if analysis is None or not analysis.stopped or analysis.budget is None:
            return
        if analysis.simulations < analysis.budget:
            self.notice(
                f"clock too short for this level: {analysis.simulations} of {analysis.budget} "
                f"simulations in {time.perf_counter() - received:.2f} s"
            )

    def cmd_genmove(self, args: list[str]) -> str:
        return self._genmove(args, commit=True)

    def cmd_reg_genmove(self, args: list[str]) -> str:
        return self._genmove(args, commit=False)

    def cmd_undo(self, args: list[str]) -> str:
        self._args(args, 0, "undo")
        if not self.seat.session.ply:
            raise GTPError("cannot undo")
        self.seat.session.undo(1)
        return ""

    def cmd_showboard(self, args: list[str]) -> str:
        self._args(args, 0, "showboard")
        return "\n" + self.game.render(self.seat.session.state)

    # ---- scoring -----------------------------------------------------------------------------
    def cmd_final_score(self, args: list[str]) -> str:
        self._args(args, 0, "final_score")
        margin = float(self.game.score_margin(self.seat.session.state))  # type: ignore[attr-defined]
        if margin == 0:
            return "0"
        return f"{'B' if margin > 0 else 'W'}+{abs(margin):g}"

    def cmd_final_status_list(self, args: list[str]) -> str:
        self._args(args, 1, "final_status_list alive|dead|seki")
        status = args[0].lower()
        if status not in ("alive", "dead", "seki"):
            raise GTPError(f"syntax error: {args[0]!r} is not alive, dead or seki")
        if status != "alive":
            return ""  # no dead-stone removal: every stone on the board counts as alive
        black, white = self.game.stones(self.seat.session.state)  # type: ignore[attr-defined]
        points = [int(p) for p in (black | white).ravel().nonzero()[0]]
        return " ".join(self.game.move_to_text(p) for p in points)

    # ---- time --------------------------------------------------------------------------------
    def cmd_time_settings(self, args: list[str]) -> str:
        self._args(args, 3, "time_settings MAIN BYO_YOMI STONES")
        main, byo, stones = (self._int(a, "time") for a in args)
        if min(main, byo, stones) < 0:
            raise GTPError("syntax error: times and stones must be >= 0")
        self.clock = TimeSettings(float(main), float(byo), stones)
        self.left = {}
        return ""

    def cmd_kgs_time_settings(self, args: list[str]) -> str:
        self.clock = parse_kgs_time_settings(args)
        self.left = {}
        return ""

    def cmd_time_left(self, args: list[str]) -> str:
        self._args(args, 3, "time_left COLOUR TIME STONES")
        side = parse_colour(args[0])
        seconds, stones = self._int(args[1], "time"), self._int(args[2], "stones")
        if seconds < 0 or stones < 0:
            raise GTPError("syntax error: time and stones must be >= 0")
        self.left[side] = (float(seconds), stones)
        return ""

    # ---- strength ----------------------------------------------------------------------------
    def cmd_strength(self, args: list[str]) -> str:
        if not args:
            return self.seat.settings.spec()
        how = args[0].lower()
        if how == "default":
            if len(args) != 1:
                raise GTPError("syntax error: sparring-strength default")
            strength: tuple[str, str] | None = None
        elif how in ("rank", "elo", "player") and len(args) == 2:
            strength = (how, args[1])
        else:
            raise GTPError(
                "syntax error: sparring-strength [rank R | elo E | player SPEC | default]"
            )
        settings = self._settings_for(self.game, strength)
        self.seat.set_settings(settings)
        self.strength = strength
        self._announce()
        self._warm()
        return settings.spec()

    def _announce(self) -> None:
        """The player's level, its seconds a move and any notice, on standard error (GTP
        clients show it in their engine log)."""
        for line in level_lines(self.seat.settings, self.game):
            self.notice(line)

    # ---- analysis ----------------------------------------------------------------------------
    def cmd_lz_analyze(self, args: list[str]) -> str:
        side = self.seat.session.to_move
        interval = 1.0
        rest = list(args)
        if rest and not rest[0].isdigit():
            side = parse_colour(rest.pop(0))
        if rest:
            centiseconds = self._int(rest.pop(0), "interval")
            if centiseconds < 0:
                raise GTPError("syntax error: the interval must be >= 0")
            interval = max(0.05, centiseconds / 100.0)
        if rest:
            raise GTPError(f"syntax error: lz-analyze [colour] [interval], not {' '.join(args)!r}")
        session = self.seat.session
        if session.is_over:
            raise GTPError("the game is over")
        state = session.state
        if session.game.to_move(state) != side:
            state = session.game.with_side_to_move(state, side)
        # everything that can fail happens before the "=" of the response
        self._analysis_args = (self._analysis_player(), state, interval)
        return ""

    def _analysis_player(self) -> Player:
        """The player that analyses: the engine's kind and settings with
        :data:`ANALYSIS_SIMULATIONS` simulations (or its own count when larger), built once
        per settings; the engine's player itself for kinds without a simulation count."""
        settings = self.seat.settings
        own = getattr(settings, "simulations", None)
        if not (dataclasses.is_dataclass(settings) and isinstance(own, int)):
            return self.seat.player
        key = (settings, self.game.name, tuple(sorted(self.game.params().items())))
        if self._analyst is None or self._analyst[0] != key:
            wider = dataclasses.replace(settings, simulations=max(own, ANALYSIS_SIMULATIONS))
            player = build_player(wider, self.game, self.seat.seed, self.seat.cache)
            self._analyst = (key, player)
        return self._analyst[1]

    def _start_analysis(self, player: Player, state: State, interval: float) -> None:
        game = self.game

        def progress(analysis: MoveAnalysis) -> None:
            if analysis.moves and any(analysis.visits):
                self.send(self._info_line(analysis) + "\n")

        def run(flag: StopFlag) -> None:
            limit = Limit(stop=flag, progress=progress, progress_every=interval)
            try:
                analysis = player.play(game, state.copy(), limit).analysis
            except Exception as exc:
                self.send(f"info string error {type(exc).__name__}: {exc}\n")
                return
            if flag() or analysis is None or not analysis.moves:
                return  # (stopped by the next command, which ends the response)
            self.send(self._info_line(analysis) + "\n")  # the whole budget: the last line

        self.worker.start(run)
        self._analysing = True

    def _info_line(self, analysis: MoveAnalysis) -> str:
        parts = []
        for k, i in enumerate(ranked_moves(analysis)):
            move = analysis.moves[i]
            winrate = round(10000 * value_to_winrate(move_value(analysis, i)))
            prior = analysis.priors[i] if analysis.priors else 0.0
            pv = analysis.pv if analysis.pv and analysis.pv[0] == move else (move,)
            parts.append(
                f"info move {self.game.move_to_text(move)} visits {analysis.visits[i]} "
                f"winrate {winrate} prior {round(10000 * prior)} order {k} "
                f"pv {' '.join(self.game.move_to_text(m) for m in pv)}"
            )
        return " ".join(parts)
