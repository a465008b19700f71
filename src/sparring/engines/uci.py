"""``sparring uci``: a chess engine speaking UCI over a player and a game session.

Commands: ``uci``, ``debug``, ``isready``, ``setoption``, ``register``, ``ucinewgame``,
``position startpos|fen FEN [moves ...]``, ``go`` (``movetime``, ``wtime btime winc binc
movestogo``, ``nodes``, ``depth``, ``infinite``, ``ponder``; ``searchmoves`` and ``mate``
are read and ignored with an ``info string``), ``stop``, ``ponderhit``, ``quit``.  A bad
command (unknown, malformed, illegal move, bad FEN, an option out of range, a command that
needs the search to be idle while it runs) gets one ``info string error ...`` line and
changes nothing, with two exceptions: a refused ``position`` leaves the engine without a
position (never the one before, which belongs to another game or another side to move), and
a ``go`` that cannot search (no position, a refused ``position`` before it, a bad parameter)
is answered ``info string error ...`` and ``bestmove 0000``, the null move, so that a GUI
waiting for its ``bestmove`` does not hang.  The engine never exits on bad input.

Search
    ``go`` runs *one* search of the player's own simulation count in a worker thread, under a
    :class:`~sparring.search.limit.Limit` bounded by the move's time, ``nodes``, ``depth``
    (at most ``2**d`` simulations) and a stop flag that ``stop`` sets: the player's setting
    fixes its work, the clock is only an upper bound.  While it runs, at most every
    :data:`INFO_INTERVAL` seconds, the search's progress reports
    (:attr:`~sparring.search.limit.Limit.progress`) become one ``info`` line per ``MultiPV``
    line (depth, nodes, nps, time since ``go`` was read, score ``cp`` and with ``UCI_ShowWDL``
    ``wdl``, pv), the most visited moves first.  ``depth`` is ``floor(log2(simulations))``
    (at least 1; minimax: its depth), so that ``go depth d`` reports ``d``.  After the
    search, the final block comes from the player's
    :class:`~sparring.search.analysis.MoveAnalysis` with the move played as ``multipv 1``
    (its score, its pv when the search's principal variation starts with it), sent last:
    the last ``info`` before ``bestmove`` always carries the move played.  When the clock
    ended the search before the player's simulations (the setting's level), an ``info
    string clock too short for this level: N of M simulations in S s`` says so first;
    ``bestmove`` is then the best move found so far.  ``ponder`` is the next move of the
    pv.  Under ``go infinite`` and ``go ponder`` the ``bestmove`` waits for ``stop`` (or
    ``ponderhit``, which starts the clock).

Time
    ``movetime T``: ``T`` minus ``Move Overhead``.  ``wtime/btime`` (the side to move's):
    ``left / movestogo + 0.8 * inc`` (``movestogo`` 30 when absent), at most half of
    ``left``, minus ``Move Overhead``.  The clock starts when ``go`` is read, so what ``go``
    does before the search counts, and the search stops :data:`FINISH_MARGIN` early for what
    follows it (the pick, the analysis, the last lines).  One-off costs (loading the network,
    compiling, starting Stockfish for a leaf engine) are paid before: when the player is built
    (``setoption``, ``isready``, ``ucinewgame``, ``position``: a first tiny search), and the
    game replayed for the player at ``position``.  A setting's own cap (a spec's
    ``movetime=S``) applies too; the shorter wins.  ``nodes N``: the search's node bound.

Options
    ``UCI_LimitStrength`` and ``UCI_Elo`` (:data:`ELO_MIN` .. :data:`ELO_MAX`, the chess
    level table's Elo levels on Stockfish 15.1's ``UCI_Elo`` scale; a value outside, up to
    :data:`ELO_ACCEPTED`, is played at the nearest end and said): the level resolver's
    player for that Elo (:func:`sparring.levels.resolve`; ``sparring levels chess`` lists
    what each level was measured at), said in ``info string level ...`` lines with its
    seconds a move on a 2-core CPU and any notice, at the first ``go`` after the change (where
    GUIs and python-chess read ``info`` lines).  ``Style`` (``measured``, the only style
    measured), ``Simulations`` (0: the level's own work; N: full strength with N simulations,
    no measured level), ``Player`` (a player spec that replaces the strength options, e.g.
    ``uct:sims=50``), ``MultiPV``, ``UCI_ShowWDL``, ``Move Overhead``, ``Ponder``.  Without a
    limited strength the player is the strongest level (Stockfish's value at 10,000 nodes a
    leaf over the human policy's root sweep, 35 root moves; ``human-mcts``, unrated, when
    Stockfish is not installed).  ``UCI_Opponent`` (sent by GUIs and lichess-bot:
    ``[title] rating|none computer|human name``) is read and checked; with ``Match Opponent``
    on, a rated opponent's rating becomes the strength asked for (as ``UCI_Elo`` with
    ``UCI_LimitStrength``, clamped to ``UCI_Elo``'s range, said in an ``info string``), plus
    ``UCI_RatingAdv`` (points to play above, or below when negative, the opponent's rating).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TextIO

from sparring.engines.common import (
    PlayerSeat,
    SearchWorker,
    StopFlag,
    level_lines,
    move_value,
    ranked_moves,
    strength_settings,
    value_to_cp,
    value_to_winrate,
)
from sparring.engines.front import STYLES, uci_elo_range, uci_identity
from sparring.errors import SparringError
from sparring.games import get_game
from sparring.games.base import State
from sparring.players.registry import parse_player
from sparring.players.settings_base import PlayerSettings
from sparring.search.analysis import MoveAnalysis
from sparring.search.limit import Limit
from sparring.session import GameSession

ELO_MIN, ELO_MAX = uci_elo_range()
"""``UCI_Elo``'s range: the chess level table's Elo levels (Stockfish 15.1's ``UCI_Elo``
scale, :func:`sparring.levels.level_table`)."""
ELO_ACCEPTED = (0, 4000)
"""The ``UCI_Elo`` values taken: one outside :data:`ELO_MIN` .. :data:`ELO_MAX` (a GUI's or
lichess-bot's setting from before the range moved) is played at the measured end, the
resolver's notice said at the next ``go``."""
MAX_DEPTH = 17
"""The largest ``go depth`` that bounds anything: ``2**17`` simulations, above the players'
100,000 cap."""
INFO_INTERVAL = 0.5
"""Seconds between two ``info`` blocks while a search runs."""
FINISH_MARGIN = 0.01
"""Seconds of a move's time kept for what follows the search (the pick, the analysis, the
last ``info`` lines and ``bestmove``)."""
NULL_MOVE = "0000"
"""The ``bestmove`` of a ``go`` that cannot search (UCI's null move)."""
DEFAULT_MOVES_TO_GO = 30
"""Moves the remaining clock time is shared over when ``movestogo`` is not given."""


class UCIError(Exception):
    """A bad UCI command; its message becomes ``info string error ...``."""


@dataclass
class SpinOption:
    """A UCI ``spin`` option: the range it shows, and the values it takes (the range unless
    ``accepted`` says otherwise)."""

    default: int
    low: int
    high: int
    accepted: tuple[int, int] | None = None

    @property
    def taken(self) -> tuple[int, int]:
        """The values ``setoption`` takes."""
        return self.accepted or (self.low, self.high)


@dataclass
class EngineOptions:
    """The values of the engine's UCI options."""

    limit_strength: bool = False
    elo: int = 1500
    style: str = "measured"
    simulations: int = 0
    """0: the level's own work; otherwise full strength with this many simulations (no
    measured level)."""
    player: str = ""
    multipv: int = 1
    show_wdl: bool = False
    move_overhead: int = 30
    ponder: bool = False
    opponent: str = ""
    """``UCI_Opponent`` as sent (empty: none)."""
    match_opponent: bool = False
    rating_adv: int = 0


SPINS: dict[str, tuple[str, SpinOption]] = {
    "uci_elo": ("elo", SpinOption(1500, ELO_MIN, ELO_MAX, ELO_ACCEPTED)),
    "simulations": ("simulations", SpinOption(0, 0, 100_000)),
    "multipv": ("multipv", SpinOption(1, 1, 64)),
    "move overhead": ("move_overhead", SpinOption(30, 0, 5000)),
    "uci_ratingadv": ("rating_adv", SpinOption(0, -1000, 1000)),
}
CHECKS: dict[str, str] = {
    "uci_limitstrength": "limit_strength",
    "uci_showwdl": "show_wdl",
    "ponder": "ponder",
    "match opponent": "match_opponent",
}
TITLES = ("GM", "IM", "FM", "WGM", "WIM", "WFM", "CM", "WCM", "NM", "LM", "BOT", "none")
"""Titles a ``UCI_Opponent`` value may start with (``none``: no title)."""


@dataclass(frozen=True)
class Opponent:
    """A parsed ``UCI_Opponent``: ``[title] rating|none computer|human name``."""

    title: str | None
    rating: int | None
    computer: bool
    name: str


def parse_opponent(text: str) -> Opponent:
    """Read a ``UCI_Opponent`` value (UCI 2006: ``<title> <rating> <computer|human> <name>``,
    ``none`` for an unknown title or rating; the title may be left out);
    :class:`UCIError` saying what is wrong."""
    words = text.split()
    if words and words[0] in TITLES:
        title: str | None = None if words[0] == "none" else words[0]
        words = words[1:]
    else:
        title = None
    if len(words) < 2 or words[1].lower() not in ("computer", "human"):
        raise UCIError(
            f"option UCI_Opponent: {text!r} is not '[title] rating|none computer|human name'"
        )
    if words[0] == "none":
        rating = None
    else:
        try:
            rating = int(words[0])
        except ValueError:
            raise UCIError(f"option UCI_Opponent: rating {words[0]!r} is not a number") from None
        if not 0 <= rating <= 4000:
            raise UCIError(f"option UCI_Opponent: rating {rating} outside 0..4000")
    return Opponent(title, rating, words[1].lower() == "computer", " ".join(words[2:]))


@dataclass
class GoParams:
    """The parameters of a ``go`` command (milliseconds as given)."""

    movetime: int | None = None
    wtime: int | None = None
    btime: int | None = None
    winc: int | None = None
    binc: int | None = None
    movestogo: int | None = None
    depth: int | None = None
    nodes: int | None = None
    infinite: bool = False
    ponder: bool = False
    ignored: list[str] = field(default_factory=list)


_GO_INTS = ("movetime", "wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate")


def parse_go(tokens: list[str]) -> GoParams:
    """Read ``go``'s parameters; :class:`UCIError` for an unknown word or a bad number."""
    params = GoParams()
    i = 0
    while i < len(tokens):
        word = tokens[i]
        if word in ("infinite", "ponder"):
            setattr(params, word, True)
            i += 1
        elif word == "searchmoves":
            params.ignored.append("searchmoves")
            i += 1
            while i < len(tokens) and tokens[i] not in (*_GO_INTS, "infinite", "ponder"):
                i += 1
        elif word in _GO_INTS:
            if i + 1 >= len(tokens):
                raise UCIError(f"go {word} needs a number")
            text = tokens[i + 1]
            try:
                value = int(text)
            except ValueError:
                raise UCIError(f"go {word} {text!r}: not an integer") from None
            if word in ("movestogo", "depth", "nodes", "mate") and value <= 0:
                raise UCIError(f"go {word} must be positive, not {value}")
            if word == "mate":
                params.ignored.append("mate")
            else:
                setattr(params, word, value)
            i += 2
        else:
            raise UCIError(f"go: unknown parameter {word!r}")
    return params


def think_time(params: GoParams, side: int, overhead_ms: int) -> float | None:
    """Seconds to think for ``side`` (0 White) under ``params`` (see the module doc); None
    when no time bound applies."""
    if params.movetime is not None:
        ms = float(params.movetime)
    else:
        left = params.wtime if side == 0 else params.btime
        if left is None:
            return None
        inc = (params.winc if side == 0 else params.binc) or 0
        togo = params.movestogo or DEFAULT_MOVES_TO_GO
        ms = min(left / togo + 0.8 * inc, 0.5 * max(left, 0))
    return max(0.0, (ms - overhead_ms) / 1000.0)


def search_depth(analysis: MoveAnalysis) -> int:
    """The ``depth`` an ``info`` line reports: minimax's depth; for the other searches
    ``floor(log2(simulations))``, at least 1 (``go depth d`` searches at most ``2**d``)."""
    if analysis.depth is not None:
        return analysis.depth
    return max(1, analysis.simulations.bit_length() - 1)


def asked_elo(options: EngineOptions) -> float | None:
    """The Elo the options ask for: with ``Match Opponent`` on and a rated ``UCI_Opponent``,
    its rating plus ``UCI_RatingAdv`` clamped to ``UCI_Elo``'s range; else ``UCI_Elo`` when
    ``UCI_LimitStrength`` is on; else None (full strength)."""
    if options.match_opponent and options.opponent:
        rating = parse_opponent(options.opponent).rating
        if rating is not None:
            return float(min(ELO_MAX, max(ELO_MIN, rating + options.rating_adv)))
    return float(options.elo) if options.limit_strength else None


class UCIEngine:
    """The UCI protocol over a :class:`PlayerSeat` (see the module doc).  ``out`` receives the
    engine's lines; :meth:`run` reads commands until ``quit`` or the end of input."""

    def __init__(
        self,
        out: TextIO | None = None,
        *,
        seed: int | None = None,
        options: EngineOptions | None = None,
    ) -> None:
        self.out = sys.stdout if out is None else out
        self.seed = seed
        self.game = get_game("chess")
        self.options = EngineOptions() if options is None else options
        self.settings = self._settings(self.options)
        self.seat: PlayerSeat | None = None
        self.position: tuple[State, list[int]] | None = None
        self._refused: str | None = None
        """Why the last ``position`` was refused (None after a good one)."""
        self._seated: tuple[State, list[int]] | None = None
        """The position the seat's session holds (:attr:`position` once replayed there)."""
        self.worker = SearchWorker(self.send)
        self._lock = threading.Lock()
        self._infinite = threading.Event()
        """Set while the running search must wait for ``stop``/``ponderhit`` to answer."""
        self._pending_time: float | None = None
        """The thinking time of the running ``go`` (started at ``ponderhit`` when pondering)."""
        self._told: list[str] = []
        """What the engine says of its player at the next ``go`` (:meth:`_build`)."""
        self._told_rating: str | None = None
        """What it says of the opponent's rating at the next ``go`` (``Match Opponent``)."""

    # ---- output ----------------------------------------------------------------------------
    def send(self, line: str) -> None:
        """Write one line and flush (from the protocol loop or the search thread)."""
        with self._lock:
            self.out.write(line + "\n")
            self.out.flush()

    def error(self, message: str) -> None:
        """The reply to a bad command."""
        self.send(f"info string error {' '.join(message.split())}")

    # ---- the loop ----------------------------------------------------------------------------
    def run(self, lines: Iterable[str]) -> None:
        """Handle ``lines`` until ``quit`` (or the end of input); stops a running search."""
        try:
            for line in lines:
                if not self.handle(line):
                    break
        finally:
            self.worker.stop()

    def handle(self, line: str) -> bool:
        """Handle one command line; False after ``quit``."""
        tokens = line.split()
        if not tokens:
            return True
        command, args = tokens[0], tokens[1:]
        if command == "quit":
            return False
        method = getattr(self, "cmd_" + command, None) if command.isidentifier() else None
        if method is None:
            self.error(f"unknown command {command!r}")
            return True
        try:
            method(args)
        except (UCIError, SparringError) as exc:
            self.error(str(exc))
        except Exception as exc:  # never die on input: report anything unforeseen
            self.error(f"{command}: internal error: {type(exc).__name__}: {exc}")
        return True

    def _idle(self, command: str) -> None:
        if self.worker.busy:
            raise UCIError(f"{command} while searching: send stop first")

    # ---- commands ----------------------------------------------------------------------------
    def cmd_uci(self, args: list[str]) -> None:
        for line in uci_identity():
            self.send(line)

    def cmd_debug(self, args: list[str]) -> None:
        if args not in (["on"], ["off"]):
            raise UCIError("debug on|off")

    def cmd_register(self, args: list[str]) -> None:
        """Nothing to register; accepted."""

    def cmd_isready(self, args: list[str]) -> None:
        if not self.worker.busy:
            try:
                self._ensure_seat()
            finally:
                self.send("readyok")
        else:
            self.send("readyok")

    def cmd_ucinewgame(self, args: list[str]) -> None:
        self._idle("ucinewgame")
        self.position, self._refused, self._seated = None, None, None
        self._ensure_seat().reset()  # built now, if not yet: not in the first go's time

    def cmd_setoption(self, args: list[str]) -> None:
        self._idle("setoption")
        if not args or args[0] != "name":
            raise UCIError("setoption name <id> [value <x>]")
        rest = args[1:]
        if "value" in rest:
            k = rest.index("value")
            name, value = " ".join(rest[:k]), " ".join(rest[k + 1 :])
        else:
            name, value = " ".join(rest), ""
        key = name.lower()
        options = EngineOptions(**vars(self.options))
        if key in SPINS:
            attr, spin = SPINS[key]
            try:
                number = int(value)
            except ValueError:
                raise UCIError(f"option {name}: {value!r} is not an integer") from None
            low, high = spin.taken
            if not low <= number <= high:
                raise UCIError(f"option {name}: {number} outside {low}..{high}")
            setattr(options, attr, number)
        elif key in CHECKS:
            if value.lower() not in ("true", "false"):
                raise UCIError(f"option {name}: {value!r} is not true or false")
            setattr(options, CHECKS[key], value.lower() == "true")
        elif key == "style":
            if value not in STYLES:
                raise UCIError(f"option Style: {value!r} is not one of {', '.join(STYLES)}")
            options.style = value
        elif key == "player":
            options.player = "" if value in ("", "<empty>") else value
        elif key == "uci_opponent":
            options.opponent = "" if value in ("", "<empty>") else value
            if options.opponent:
                parse_opponent(options.opponent)
        else:
            raise UCIError(f"unknown option {name!r}")
        settings = self._settings(options)  # raises, changing nothing, on a bad combination
        self._build(settings)  # raises, changing nothing, when the player cannot be built
        self.options, self.settings = options, settings
        if options.match_opponent and options.opponent and not options.player:
            rating = parse_opponent(options.opponent).rating
            if rating is None:
                self._told_rating = "the opponent's rating is unknown: UCI_Elo decides"
            else:
                elo = asked_elo(options)
                asked = rating + options.rating_adv
                said = "" if elo == asked else f" (clamped from {asked})"
                self._told_rating = f"playing at Elo {elo:g}{said} for the opponent's {rating}"

    def cmd_position(self, args: list[str]) -> None:
        self._idle("position")
        self.position = None  # a refused position leaves none, never the one before
        try:
            self.position = self._parse_position(args)
        except (UCIError, SparringError) as exc:
            self._refused = " ".join(str(exc).split())
            raise
        self._refused = None
        self._seat_position()  # build the player and replay the game now, not in go's time

    def _parse_position(self, args: list[str]) -> tuple[State, list[int]]:
        """The start and moves of a ``position`` command; raises when it is bad."""
        if not args:
            raise UCIError("position startpos|fen FEN [moves ...]")
        if "moves" in args:
            k = args.index("moves")
            head, move_texts = args[:k], args[k + 1 :]
        else:
            head, move_texts = args, []
        if head == ["startpos"]:
            start = self.game.initial_state()
        elif head and head[0] == "fen" and len(head) > 1:
            start = self.game.parse_position(" ".join(head[1:]))
        else:
            raise UCIError(f"position: expected startpos or fen FEN, not {' '.join(head)!r}")
        check = GameSession(self.game, start=start)
        moves: list[int] = []
        for text in move_texts:
            move = self.game.parse_move(text)
            check.play(move)  # IllegalMoveError / GameOverError name the move
            moves.append(move)
        return start, moves

    def _seat_position(self) -> PlayerSeat:
        """The seat with :attr:`position` in its session, to move (replayed when it changed)."""
        seat = self._ensure_seat()
        if self.position is not None and self._seated is not self.position:
            start, moves = self.position
            seat.set_session(start, moves)
            seat.seat(seat.session.to_move)
            self._seated = self.position
        return seat

    def cmd_go(self, args: list[str]) -> None:
        received = time.monotonic()  # the move's clock starts now
        self._idle("go")  # (the running search answers with its own bestmove)
        try:
            params = parse_go(args)
            if self.position is None and self._refused is not None:
                raise UCIError(f"go without a position: the last one was refused ({self._refused})")
            if self.position is None:
                raise UCIError("go before position: send position startpos|fen ... first")
            seat = self._seat_position()
        except (UCIError, SparringError) as exc:  # every go is answered
            self.error(str(exc))
            self.send(f"bestmove {NULL_MOVE}")
            return
        session = seat.session
        for line in [self._told_rating, *self._told]:
            if line is not None:
                self.send(f"info string {line}")
        self._told, self._told_rating = [], None
        for word in params.ignored:
            self.send(f"info string {word} is not supported; ignored")
        if session.is_over:
            self.send("info string the game is over: no legal move")
            self.send("bestmove (none)")
            return
        seconds = think_time(params, session.to_move, self.options.move_overhead)
        if seconds is not None:
            seconds = max(0.0, seconds - FINISH_MARGIN)
        wait = params.infinite or params.ponder
        if wait:
            self._infinite.set()
        else:
            self._infinite.clear()
        self._pending_time = seconds
        deadline = None if seconds is None or wait else received + seconds
        self.worker.start(lambda f: self._search(f, seat, params, received), deadline=deadline)

    def cmd_stop(self, args: list[str]) -> None:
        if not self.worker.busy:
            return  # nothing to stop: UCI expects no answer
        self._infinite.clear()
        self.worker.stop()

    def cmd_ponderhit(self, args: list[str]) -> None:
        if not self.worker.busy:
            return
        seconds = self._pending_time
        if seconds is not None:
            self.worker.flag.stop_in(seconds)
        self._infinite.clear()

    # ---- the search ----------------------------------------------------------------------------
    def _settings(self, options: EngineOptions) -> PlayerSettings:
        if options.player:
            return parse_player(options.player)
        return strength_settings(
            self.game,
            elo=asked_elo(options),
            style=options.style,
            simulations=None
            if options.limit_strength or not options.simulations
            else options.simulations,
        )

    def prepare(self) -> None:
        """Build the player now (its network loaded, its search compiled) rather than at the
        first ``isready``, ``ucinewgame`` or ``go``; a player that cannot be built is said in
        an ``info string error`` line, as at those commands."""
        try:
            self._ensure_seat()
        except SparringError as exc:
            self.error(str(exc))

    def _ensure_seat(self) -> PlayerSeat:
        return self._build(self.settings)

    def _build(self, settings: PlayerSettings) -> PlayerSeat:
        """The seat with a player of ``settings`` (built when they changed)."""
        if self.seat is None:
            self.seat = PlayerSeat(self.game, settings, self.seed)
            self._seated = None
        elif self.seat.settings != settings:
            self.seat.set_settings(settings)
        else:
            return self.seat
        # a first tiny search pays the one-off costs (compiling, the network's first batch,
        # starting a leaf engine) here rather than inside the first timed go
        self.seat.player.select_move(self.game, self.game.initial_state(), Limit(simulations=1))
        # said at the next go, where GUIs and python-chess read info lines (a line between
        # commands is an "unexpected engine output" warning there); a newer build replaces it
        notices = getattr(self.seat.player, "notices", ())
        self._told = level_lines(self.seat.settings, self.game) + [str(n) for n in notices]
        return self.seat

    def _search(self, flag: StopFlag, seat: PlayerSeat, params: GoParams, received: float) -> str:
        """The worker: one search (module doc); returns the ``bestmove`` line.  ``received``:
        when ``go`` was read (:func:`time.monotonic`)."""
        game, state = seat.game, seat.session.state
        player = seat.player
        limit = Limit(
            simulations=None if params.depth is None else 2 ** min(params.depth, MAX_DEPTH),
            nodes=params.nodes,
            time=flag.remaining(),  # the deadline as a time bound too: stopped a step early
            stop=flag,
            progress=lambda analysis: self._info(analysis, received),
            progress_every=INFO_INTERVAL,
        )
        best: int | None = None
        analysis: MoveAnalysis | None = None
        try:
            decision = player.play(game, state.copy(), limit)
            best, analysis = int(decision.move), decision.analysis
        except Exception as exc:  # the search must still answer with a legal move
            self.error(f"search failed: {type(exc).__name__}: {exc}")
        if best is None or not game.is_legal(state, best):
            best, analysis = int(game.legal_moves(state)[0]), None
        while self._infinite.is_set() and not flag.event.is_set():
            flag.event.wait(0.01)
        short = self._short_clock(flag, params, analysis, received)
        if short is not None:
            self.send(f"info string {short}")
        if analysis is None:
            ms = max(1, int(1000 * (time.monotonic() - received)))
            self.send(f"info time {ms} pv {game.move_to_text(best)}")
        else:
            self._info(analysis, received, played=best)
        text = f"bestmove {game.move_to_text(best)}"
        if analysis is not None and len(analysis.pv) >= 2 and analysis.pv[0] == best:
            after = state.copy()
            game.kernels.play(after, best)
            reply = analysis.pv[1]
            if not game.is_terminal(after) and game.is_legal(after, reply):
                text += f" ponder {game.move_to_text(reply)}"
        return text

    @staticmethod
    def _short_clock(
        flag: StopFlag, params: GoParams, analysis: MoveAnalysis | None, received: float
    ) -> str | None:
        """What to say when the clock (not ``stop``, not ``go nodes``) ended the search before
        its simulations; None when it did not."""
        if analysis is None or not analysis.stopped or analysis.budget is None:
            return None
        if analysis.simulations >= analysis.budget or flag.event.is_set():
            return None
        if params.nodes is not None and analysis.nodes >= params.nodes:
            return None
        seconds = time.monotonic() - received
        return (
            f"clock too short for this level: {analysis.simulations} of {analysis.budget} "
            f"simulations in {seconds:.2f} s"
        )

    def _info(self, analysis: MoveAnalysis, received: float, played: int | None = None) -> None:
        """One ``info`` line per ``MultiPV`` line of ``analysis``, time counted from
        ``received``.  During the search (``played`` None): the most visited moves first, in
        order.  The final block (``played``, the move played): that move as ``multipv 1``,
        then the others, sent from the last ``multipv`` to the first, so that the move played
        is the last line before ``bestmove``."""
        seconds = max(time.monotonic() - received, 1e-6)
        ms = max(1, int(seconds * 1000))
        nodes = analysis.nodes
        head = f"info depth {search_depth(analysis)}"
        tail = f"nodes {nodes} nps {int(nodes / seconds)} time {ms}"
        order = ranked_moves(analysis)
        entries: list[tuple[int, int | None]] = [(analysis.moves[i], i) for i in order]
        if played is not None:
            scored = [(m, i) for m, i in entries if m == played]
            entries = (scored or [(played, None)]) + [(m, i) for m, i in entries if m != played]
        lines = []
        for k, (move, index) in enumerate(entries[: self.options.multipv], start=1):
            pv = list(analysis.pv) if analysis.pv and analysis.pv[0] == move else [move]
            score = ""
            if index is not None:
                value = move_value(analysis, index)
                score = f" score cp {value_to_cp(value)}"
                if self.options.show_wdl:
                    win = round(1000 * value_to_winrate(value))
                    score += f" wdl {win} 0 {1000 - win}"
            lines.append(
                f"{head} multipv {k}{score} {tail} "
                f"pv {' '.join(self.game.move_to_text(m) for m in pv)}"
            )
        for line in reversed(lines) if played is not None else lines:
            self.send(line)
