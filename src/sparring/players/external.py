"""External engines as player kinds: Stockfish over UCI (``stockfish``) and GNU Go over GTP
(``gnugo``).

Each is a typed settings class (strict JSON, JSON Schema, spec text, like the kinds of
:mod:`sparring.players.settings`) and a :class:`~sparring.players.base.Player` that drives the
engine as a subprocess, so that matches, tournaments and sessions play against it like any
other kind (``sparring match chess stockfish:elo=1350 se-inf-mcts:elo=1500``,
``sparring tournament go gnugo:level=1 sa-mcts:rank=5k ...``).

* **Stockfish** (python-chess :class:`chess.engine.SimpleEngine`): every move sends the
  position (the FEN after the last irreversible move and the moves since, so repetitions
  count) with a :class:`chess.engine.Limit` from the settings (``movetime``, ``depth``,
  ``nodes``; the sparring :class:`~sparring.search.limit.Limit`'s time caps ``movetime``).
  ``elo`` sets ``UCI_LimitStrength`` + ``UCI_Elo`` (Stockfish 15.1: 1350-2850), ``skill``
  ``Skill Level`` (0-20).  Without ``elo`` and ``skill``, with ``depth`` or ``nodes`` and no
  ``movetime``, and one thread, the hash is cleared (``ucinewgame``) before every move and
  the moves depend on the position alone: the same games from the same positions (Stockfish's
  skill levels draw their weakening from the clock, so games with ``elo`` / ``skill`` differ).
* **GNU Go** (``gnugo --mode gtp --level L [--capture-all-dead]``, through the small
  :class:`GtpClient`): ``boardsize`` / ``komi`` from the sparring game (``go`` 19x19,
  ``go9``, ``go13``), the moves of both sides with ``play``, its own with ``genmove``.
  ``--capture-all-dead`` (default on) makes GNU Go capture dead stones before passing, so the
  area count sparring's Go makes after two passes (no dead-stone removal) is fair.  No
  ``--seed`` (Debian's GNU Go 3.8 segfaults in some positions with it); without it GNU Go
  seeds itself from the clock, so each ``genmove`` is preceded by ``set_random_seed S`` with
  ``S`` drawn from the player's own generator (retried after a restart with ``S + 1``, ...):
  the same player seed gives the same moves.  GNU Go's ``resign`` is a resignation:
  :meth:`play` returns a pass annotated ``{"resigned": true}`` (a resigning
  :class:`~sparring.players.base.Decision`), which a :class:`GameSession` (matches, the CLI)
  takes as the side resigning, not as its move.  A move GNU Go makes that sparring's rules
  reject (they differ only in corner cases) is taken back and a pass played instead
  (``{"illegal": VERTEX}``).
  A position where GNU Go dies at its level every time is played at level 0
  (:data:`FALLBACK_LEVEL`, ``{"level": 0}``): GNU Go 3.8 segfaults in some positions at
  every level but 0 (and in some at level 0 too: then the move fails as below).

Robustness: an engine that dies (terminated process, broken pipe, end of output) while
choosing a move is restarted, told the game again, and asked again, at most
:data:`MAX_RESTARTS` times per move; then :class:`~sparring.errors.PlayerResourceError`
(which makes a match's game void, to be played again with another seed:
:mod:`sparring.evaluation.match`).
Processes start on first use and are closed when the game ends (:meth:`Player.game_over`),
by :meth:`close`, and when the player is garbage-collected; a later game starts a new one.

:func:`find_program` looks a program up on the PATH and in Debian's ``/usr/games`` (not on
every PATH).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import chess
import chess.engine
import numpy as np

from sparring.errors import IncompatiblePlayerError, PlayerResourceError
from sparring.games.chess import Chess, move_to_action
from sparring.games.go import Go, gtp_to_move, move_to_gtp
from sparring.players.base import Decision, Player
from sparring.players.registry import PlayerSpec, check_options, option_float, option_int
from sparring.players.settings import option_bool
from sparring.players.settings_base import (
    SettingsBase,
    bad_setting,
    check_int,
    check_name,
    check_number,
)

if TYPE_CHECKING:
    from sparring.games.base import Game, State
    from sparring.players.cache import PlayerCache
    from sparring.search.limit import Limit

PROGRAM_DIRS = ("/usr/games", "/usr/local/games")
"""Where :func:`find_program` looks after the PATH (Debian installs engines in /usr/games)."""
MAX_RESTARTS = 2
"""Restarts of a dead engine within one move before the move fails (GNU Go: before the
move is asked for at :data:`FALLBACK_LEVEL`)."""
FALLBACK_LEVEL = 0
"""The GNU Go level of a move that kills GNU Go at its own level :data:`MAX_RESTARTS` + 1
times: Debian's GNU Go 3.8 segfaults in some positions at levels 1-10 and not at 0 (a
position of a 19x19 game against the play network, reproduced with gnugo alone; level 0
and 1 are about equally strong, docs/research/external-strength.md).  The move's annotation says
``{"level": 0}``."""
STOCKFISH_ELO = (1350, 2850)
"""Stockfish 15.1's ``UCI_Elo`` range."""
GNUGO_MAX_SIZE = 19
"""The largest board GNU Go plays."""
MAX_THREADS = 64
"""The most search threads a ``stockfish`` player may ask for."""
MAX_HASH_MB = 4096
"""The largest hash table (MB) a ``stockfish`` player may ask for (bounds that keep a request
from exhausting the machine, like ``sims``)."""
QUIT_WAIT = 2.0
"""Seconds a closing engine gets to exit after ``quit`` before it is killed."""
GTP_TIMEOUT = 300.0
"""Seconds a GTP engine gets to answer one command (GNU Go's slowest ``genmove`` at level 10
on 19x19 takes seconds); an engine silent for longer is killed and counts as died, so a hung
engine is restarted like a crashed one instead of hanging its game."""


def find_program(name: str) -> Path | None:
    """``name`` on the PATH, else in :data:`PROGRAM_DIRS`; None when it is in neither."""
    found = shutil.which(name)
    if found:
        return Path(found)
    for folder in PROGRAM_DIRS:
        path = Path(folder) / name
        if path.is_file() and os.access(path, os.X_OK):
            return path
    return None


def check_program_path(path: str | None, name: str) -> None:
    """:class:`PlayerSettingsError` (``key="path"``) unless ``path`` is None or names a file
    whose name starts with ``name`` (``stockfish``, ``stockfish-15``, ``gnugo``): settings
    may come from a request, and this keeps them from naming any other program."""
    if path is None:
        return
    if not path.strip() or not Path(path).name.startswith(name):
        raise bad_setting("path", f"path must name a {name} program ({name}*), not {path!r}")


def require_program(path: str | None, name: str, key: str = "path") -> Path:
    """The engine program: ``path`` when given (it must be an executable file), else
    :func:`find_program`; :class:`PlayerResourceError` (naming the setting ``key``) when
    there is none."""
    if path is not None:
        found = Path(path)
        if not (found.is_file() and os.access(found, os.X_OK)):
            raise PlayerResourceError(f"{name}: {path} is not an executable file", key=key)
        return found
    program = find_program(name)
    if program is None:
        raise PlayerResourceError(
            f"{name} not found on the PATH or in {', '.join(PROGRAM_DIRS)} "
            f"(install it, e.g. apt-get install {name}, or give path=...)",
            key=key,
        )
    return program


class EngineDied(Exception):
    """The engine process ended, or its pipe broke, during a command."""


class GtpCommandError(Exception):
    """A GTP command answered with ``? message``."""


# ---- GTP -----------------------------------------------------------------------------------------
class GtpClient:
    """A GTP version 2 client over a subprocess's stdin/stdout.

    :meth:`send` writes one command and reads its answer up to the blank line that ends it:
    the text after ``=`` is returned, ``? message`` raises :class:`GtpCommandError`, and an
    ended process, a broken pipe or no answer within ``timeout`` seconds (the process is then
    killed) :class:`EngineDied`.
    """

    def __init__(self, argv: Sequence[str], timeout: float = GTP_TIMEOUT) -> None:
        try:
            self.process = spawn(argv)
        except OSError as err:
            raise PlayerResourceError(f"cannot start {argv[0]}: {err}", key="path") from None
        self.timeout = timeout
        """Seconds an answer may take before the engine is killed (:data:`GTP_TIMEOUT`)."""
        self._finalizer = weakref.finalize(self, stop_process, self.process)

    @property
    def pid(self) -> int:
        """The engine's process id."""
        return self.process.pid

    def send(self, command: str) -> str:
        """The answer to ``command`` (the text after ``=``, stripped)."""
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        # A watchdog kills a silent engine; the read then ends and the engine counts as died.
        silent = threading.Event()

        def kill_silent() -> None:
            silent.set()
            with contextlib.suppress(OSError):
                self.process.kill()

        watchdog = threading.Timer(self.timeout, kill_silent)
        watchdog.daemon = True
        watchdog.start()
        try:
            stdin.write(command + "\n")
            stdin.flush()
            lines: list[str] = []
            while True:
                line = stdout.readline()
                if not line:
                    if silent.is_set():
                        raise EngineDied(
                            f"the engine gave no answer to {command!r} within "
                            f"{self.timeout:g} s (killed)"
                        )
                    raise EngineDied(f"the engine ended during {command!r}")
                line = line.rstrip("\r\n")
                if not line.strip():
                    if lines:
                        break
                    continue  # blank lines before an answer
                lines.append(line)
        except (BrokenPipeError, OSError, ValueError) as err:
            raise EngineDied(f"the engine's pipe broke during {command!r}: {err}") from None
        finally:
            watchdog.cancel()
        text = "\n".join(lines)
        if text.startswith("?"):
            raise GtpCommandError(f"{command!r}: {text[1:].strip()}")
        if not text.startswith("="):
            raise EngineDied(f"not a GTP answer to {command!r}: {text!r}")
        return text[1:].strip()

    def close(self) -> None:
        """Ask the engine to quit; kill it when it does not within :data:`QUIT_WAIT`."""
        self._finalizer()


def spawn(argv: Sequence[str]) -> subprocess.Popen[str]:
    """Start an engine that talks over its standard input and output (text, line-buffered;
    its standard error dropped); OSError when it cannot start."""
    return subprocess.Popen(
        list(argv),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        bufsize=1,
    )


def stop_process(process: subprocess.Popen[str]) -> None:
    """Quit (then kill) ``process`` and reap it, so that no zombie is left."""
    if process.poll() is None:
        with contextlib.suppress(OSError, ValueError):
            assert process.stdin is not None
            process.stdin.write("quit\n")
            process.stdin.flush()
        try:
            process.wait(QUIT_WAIT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    for stream in (process.stdin, process.stdout):
        with contextlib.suppress(OSError, ValueError):
            if stream is not None:
                stream.close()


# ---- settings ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class StockfishSettings(SettingsBase):
    """Stockfish over UCI (python-chess): ``UCI_Elo`` or ``Skill Level``, time, depth, nodes."""

    kind: ClassVar[str] = "stockfish"
    OPTION_KEYS: ClassVar[dict[str, str]] = {
        "elo": "elo",
        "skill": "skill",
        "movetime": "movetime",
        "depth": "depth",
        "nodes": "nodes",
        "threads": "threads",
        "hash_mb": "hash",
        "path": "path",
        "name": "name",
    }
    BOUNDS: ClassVar[dict[str, tuple[float | None, float | None]]] = {
        "elo": STOCKFISH_ELO,
        "skill": (0, 20),
        "movetime": (0.001, 3600),
        "depth": (1, 100),
        "nodes": (1, 10**10),
        "threads": (1, MAX_THREADS),
        "hash_mb": (1, MAX_HASH_MB),
    }

    elo: int | None = None
    """``UCI_Elo`` with ``UCI_LimitStrength`` (1350-2850); null: full strength."""
    skill: int | None = None
    """``Skill Level`` 0-20 (below ``elo``'s range); null: not set (20)."""
    movetime: float | None = 0.1
    """Seconds per move (0.001-3600; capped by a session's time limit); null: no time bound
    (then ``depth`` or ``nodes`` is needed)."""
    depth: int | None = None
    """Search depth in plies (1-100); null: none."""
    nodes: int | None = None
    """Nodes per move (1-10^10); null: none."""
    threads: int = 1
    """Search threads (``Threads``)."""
    hash_mb: int = 16
    """Hash table size in MB (``Hash``)."""
    path: str | None = None
    """The Stockfish program (a file named ``stockfish*``); null: ``stockfish`` on the PATH or
    in /usr/games."""
    name: str = "Stockfish"
    """Display name."""

    def __post_init__(self) -> None:
        self.check_types()
        if self.elo is not None:
            check_int("elo", self.elo, *STOCKFISH_ELO)
        if self.skill is not None:
            check_int("skill", self.skill, 0, 20)
        check_number("movetime", self.movetime, 0.001, 3600.0)
        if self.depth is not None:
            check_int("depth", self.depth, 1, 100)
        if self.nodes is not None:
            check_int("nodes", self.nodes, 1, 10**10)
        check_int("threads", self.threads, 1, MAX_THREADS)
        check_int("hash", self.hash_mb, 1, MAX_HASH_MB)
        if self.movetime is None and self.depth is None and self.nodes is None:
            raise bad_setting("movetime", "movetime=none needs depth or nodes (else no bound)")
        check_program_path(self.path, "stockfish")
        check_name(self.name)

    @property
    def reproducible(self) -> bool:
        """Whether the moves depend on the position alone (see the module doc)."""
        return (
            self.elo is None
            and self.skill is None
            and self.movetime is None
            and self.threads == 1
            and (self.depth is not None or self.nodes is not None)
        )


@dataclass(frozen=True)
class GnuGoSettings(SettingsBase):
    """GNU Go over GTP: ``--level`` 0-10, ``--capture-all-dead``; Go boards up to 19x19."""

    kind: ClassVar[str] = "gnugo"
    OPTION_KEYS: ClassVar[dict[str, str]] = {
        "level": "level",
        "capture_all_dead": "capture_all_dead",
        "path": "path",
        "name": "name",
    }
    BOUNDS: ClassVar[dict[str, tuple[float | None, float | None]]] = {"level": (0, 10)}

    level: int = 1
    """GNU Go's ``--level`` (0-10; 10 is GNU Go's default and strongest)."""
    capture_all_dead: bool = True
    """``--capture-all-dead``: capture dead stones before passing, so that the area count
    after two passes (sparring's Go removes no dead stones) is fair."""
    path: str | None = None
    """The GNU Go program (a file named ``gnugo*``); null: ``gnugo`` on the PATH or in
    /usr/games."""
    name: str = "GNU Go"
    """Display name."""

    def __post_init__(self) -> None:
        self.check_types()
        check_int("level", self.level, 0, 10)
        check_program_path(self.path, "gnugo")
        check_name(self.name)


# ---- players -------------------------------------------------------------------------------------
class StockfishPlayer(Player):
    """Stockfish through python-chess; the engine starts on first use (see the module doc)."""

    def __init__(self, settings: StockfishSettings, program: Path, seed: int | None) -> None:
        super().__init__(settings.name, seed)
        self.config = settings
        self.program = program
        self._engine: chess.engine.SimpleEngine | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self.restarts = 0
        """Engine restarts so far (a dead engine replaced)."""

    @property
    def pid(self) -> int | None:
        """The running engine's process id (None before the first move and after close)."""
        if self._engine is None:
            return None
        transport = self._engine.protocol.transport
        return None if transport is None else int(transport.get_pid())

    def _start(self) -> chess.engine.SimpleEngine:
        if self._engine is not None:
            return self._engine
        try:
            engine = chess.engine.SimpleEngine.popen_uci([str(self.program)])
        except (OSError, chess.engine.EngineError) as err:
            raise PlayerResourceError(
                f"stockfish: cannot start {self.program}: {err}", key="path"
            ) from None
        self._engine = engine
        self._finalizer = weakref.finalize(self, _quit_engine, engine)
        options: dict[str, str | int | bool] = {
            "Threads": self.config.threads,
            "Hash": self.config.hash_mb,
        }
        if self.config.skill is not None:
            options["Skill Level"] = self.config.skill
        if self.config.elo is not None:
            options["UCI_LimitStrength"] = True
            options["UCI_Elo"] = self.config.elo
        engine.configure(options)
        return engine

    def _limit(self, limit: Limit | None) -> chess.engine.Limit:
        movetime = self.config.movetime
        if limit is not None and limit.time is not None:
            movetime = limit.time if movetime is None else min(movetime, limit.time)
        return chess.engine.Limit(time=movetime, depth=self.config.depth, nodes=self.config.nodes)

    def select_move(self, game: Game, state: State, limit: Limit | None = None) -> int:
        board = _chess_board(game, state)
        engine_limit = self._limit(limit)
        last: BaseException | None = None
        for attempt in range(MAX_RESTARTS + 1):
            if attempt:
                self.restarts += 1
            try:
                engine = self._start()
                # A new "game" per move clears the hash: the move depends on the position alone.
                key = object() if self.config.reproducible else self
                result = engine.play(board, engine_limit, game=key)
            except (chess.engine.EngineTerminatedError, BrokenPipeError, EOFError) as err:
                last = err
                self._discard()
                continue
            if result.move is None:
                raise PlayerResourceError(f"stockfish gave no move in {board.fen()}", key="path")
            return move_to_action(result.move)
        raise PlayerResourceError(
            f"stockfish died {MAX_RESTARTS + 1} times choosing a move in {board.fen()}: {last}",
            key="path",
        )

    def _discard(self) -> None:
        """Forget a dead engine (reaping what is left of it)."""
        if self._finalizer is not None:
            self._finalizer()
        self._engine, self._finalizer = None, None

    def game_over(self, game: Game, final_state: State, score: float) -> None:
        self.close()

    def close(self) -> None:
        """Quit the engine (a later move starts a new one)."""
        self._discard()


def _quit_engine(engine: chess.engine.SimpleEngine) -> None:
    """Quit ``engine`` (or close what is left of a dead one)."""
    try:
        engine.quit()
    except (chess.engine.EngineTerminatedError, chess.engine.EngineError, OSError, TimeoutError):
        with contextlib.suppress(Exception):
            engine.close()


def _chess_board(game: Game, state: State) -> chess.Board:
    """A python-chess board of ``state`` with the moves since the last irreversible one on its
    stack (so that the engine sees repetitions)."""
    text = game.position_to_text(state)
    fen, _, moves = text.partition(" moves ")
    board = chess.Board(fen)
    for uci in moves.split():
        board.push_uci(uci)
    return board


class GnuGoPlayer(Player):
    """GNU Go through :class:`GtpClient`; the engine starts on first use and is told the
    game before each of its moves (see the module doc)."""

    def __init__(self, settings: GnuGoSettings, program: Path, seed: int | None) -> None:
        super().__init__(settings.name, seed)
        self.config = settings
        self.program = program
        self._client: GtpClient | None = None
        self._sent: list[str] = []
        """``play`` commands the engine has been given since ``clear_board``."""
        self._wanted: list[str] = []
        """``play`` commands that set up the game so far (the start, then the moves)."""
        self._last: State | None = None
        """The position after the last move observed (None: none since ``new_game``)."""
        self.restarts = 0
        """Engine restarts so far (a dead engine replaced)."""

    @property
    def argv(self) -> list[str]:
        """The engine's command line."""
        argv = [str(self.program), "--mode", "gtp", "--level", str(self.config.level)]
        if self.config.capture_all_dead:
            argv.append("--capture-all-dead")
        return argv

    @property
    def pid(self) -> int | None:
        """The running engine's process id (None when none runs)."""
        return None if self._client is None else self._client.pid

    # -- what the game is ------------------------------------------------------------------------
    def new_game(self, game: Game, player_index: int) -> None:
        self._wanted, self._last = [], None

    def observe(self, game: Game, move: int, state: State) -> None:
        assert isinstance(game, Go)
        if self._last is None:
            self._wanted = []
            before = game.initial_state()
            if not self._follows(game, before, move, state):
                self._wanted = _setup(game, state)
                self._last = state.copy()
                return
            self._last = before
        mover = _mover(game, self._last, move, state)
        self._wanted.append(f"play {'BW'[mover]} {move_to_gtp(move, game.size)}")
        self._last = state.copy()

    @staticmethod
    def _follows(game: Go, before: State, move: int, after: State) -> bool:
        """Whether ``move`` from ``before`` gives the board of ``after``."""
        if not game.is_legal(before, move):
            return False
        return bool(np.array_equal(game.board(game.play(before, move)), game.board(after)))

    def _commands_for(self, game: Go, state: State) -> list[str]:
        """The ``play`` commands that give ``state``: the observed game when it leads there,
        else the stones of ``state``."""
        if self._last is not None and np.array_equal(self._last, state):
            return self._wanted
        if self._last is None and np.array_equal(state, game.initial_state()):
            return []
        self._wanted, self._last = _setup(game, state), state.copy()
        return self._wanted

    # -- the engine ------------------------------------------------------------------------------
    def _sync(self, game: Go, commands: list[str]) -> GtpClient:
        """The engine, started if needed, holding the position of ``commands``."""
        client = self._client
        if client is None:
            client = self._client = GtpClient(self.argv)
            client.send(f"boardsize {game.size}")
            client.send(f"komi {game.komi:g}")
            client.send("clear_board")
            self._sent = []
        if self._sent != commands[: len(self._sent)]:
            client.send("clear_board")
            self._sent = []
        for command in commands[len(self._sent) :]:
            client.send(command)
            self._sent.append(command)
        return client

    def select_move(self, game: Game, state: State, limit: Limit | None = None) -> int:
        return self.play(game, state, limit).move

    def play(self, game: Game, state: State, limit: Limit | None = None) -> Decision:
        assert isinstance(game, Go)
        commands = list(self._commands_for(game, state))
        colour = "BW"[game.to_move(state)]
        # GNU Go seeds itself from the clock; a seed from this player's generator before
        # each genmove makes its moves a function of the position and the player's seed
        seed = int(self.rng.integers(1, 2**31 - 1))
        own = self.config.level
        # GNU Go 3.8 segfaults in some positions at every level but 0 (whatever the seed, and
        # for reg_genmove and kgs-genmove_cleanup too): after the restarts, one try at level 0
        levels = [own] * (MAX_RESTARTS + 1) + ([FALLBACK_LEVEL] if own != FALLBACK_LEVEL else [])
        last: BaseException | None = None
        for attempt, level in enumerate(levels):
            if level == own and attempt:
                self.restarts += 1
            try:
                client = self._sync(game, commands)
                if level != own:
                    client.send(f"level {level}")
                client.send(f"set_random_seed {seed + attempt if level == own else seed}")
                reply = client.send(f"genmove {colour}")
                if level != own:
                    client.send(f"level {own}")
            except EngineDied as err:
                last = err
                self._discard()
                continue
            except GtpCommandError as err:
                raise PlayerResourceError(f"gnugo refused a command: {err}", key="path") from None
            decision = self._accept(game, state, client, colour, reply)
            if level != own:
                decision = Decision(
                    decision.move, annotation={**(decision.annotation or {}), "level": level}
                )
            return decision
        raise PlayerResourceError(
            f"gnugo died {MAX_RESTARTS + 1} times choosing a move at ply {game.ply(state)}"
            f"{'' if own == FALLBACK_LEVEL else ', and once more at level 0'}: {last}",
            key="path",
        )

    def _accept(
        self, game: Go, state: State, client: GtpClient, colour: str, reply: str
    ) -> Decision:
        """The sparring decision of GNU Go's ``genmove`` answer ``reply``: its move, or a pass
        annotated ``{"resigned": true}`` for ``resign``, or ``{"illegal": VERTEX}`` for a
        move sparring's rules reject."""
        if reply.lower() == "resign":
            return Decision(game.pass_move, annotation={"resigned": True})
        move = gtp_to_move(reply, game.size)
        if not game.is_legal(state, move):
            with contextlib.suppress(EngineDied, GtpCommandError):
                client.send("undo")
                return Decision(game.pass_move, annotation={"illegal": reply})
            self._discard()  # the engine's board is unknown now: start again next move
            return Decision(game.pass_move, annotation={"illegal": reply})
        self._sent.append(f"play {colour} {move_to_gtp(move, game.size)}")
        return Decision(move)

    def _discard(self) -> None:
        if self._client is not None:
            self._client.close()
        self._client, self._sent = None, []

    def game_over(self, game: Game, final_state: State, score: float) -> None:
        self.close()

    def close(self) -> None:
        """Quit the engine (a later move starts a new one)."""
        self._discard()


def _mover(game: Go, before: State, move: int, after: State) -> int:
    """Who played ``move`` (0 Black, 1 White): the colour of the new stone, else the side to
    move before it."""
    if move != game.pass_move:
        row, col = divmod(move, game.size)
        cell = int(game.board(after)[row, col])
        if cell in (1, 2):
            return cell - 1
    return game.to_move(before)


def _setup(game: Go, state: State) -> list[str]:
    """``play`` commands that put the stones of ``state`` on an empty board (Black's first;
    no group runs out of liberties on the way, since every group of ``state`` has one)."""
    board = game.board(state)
    commands = []
    for colour, cell in (("B", 1), ("W", 2)):
        for row, col in zip(*np.nonzero(board == cell), strict=True):
            commands.append(
                f"play {colour} {move_to_gtp(int(row) * game.size + int(col), game.size)}"
            )
    return commands


# ---- building ------------------------------------------------------------------------------------
def build_stockfish_player(
    settings: StockfishSettings, game: Game, seed: int | None, cache: PlayerCache
) -> StockfishPlayer:
    """The ``stockfish`` player of ``settings`` (chess only), seeded with ``seed``."""
    if not isinstance(game, Chess):
        raise IncompatiblePlayerError(f"stockfish plays chess, not {game.name}", key="kind")
    return StockfishPlayer(settings, require_program(settings.path, "stockfish"), seed)


def build_gnugo_player(
    settings: GnuGoSettings, game: Game, seed: int | None, cache: PlayerCache
) -> GnuGoPlayer:
    """The ``gnugo`` player of ``settings`` (Go up to 19x19), seeded with ``seed``."""
    if not isinstance(game, Go):
        raise IncompatiblePlayerError(f"gnugo plays Go, not {game.name}", key="kind")
    if game.size > GNUGO_MAX_SIZE:
        raise IncompatiblePlayerError(
            f"gnugo plays boards up to {GNUGO_MAX_SIZE}x{GNUGO_MAX_SIZE}, not {game.name}",
            key="kind",
        )
    return GnuGoPlayer(settings, require_program(settings.path, "gnugo"), seed)


# ---- spec text -----------------------------------------------------------------------------------
def _optional(spec: PlayerSpec, key: str) -> int | None:
    return None if key not in spec.options else option_int(spec, key, 0, low=0)


def parse_stockfish(spec: PlayerSpec) -> StockfishSettings:
    """``stockfish[:elo=E,skill=S,movetime=SECONDS|none,depth=D,nodes=N,threads=T,hash=MB,
    path=PATH,name=NAME]``."""
    check_options(spec, set(StockfishSettings.OPTION_KEYS.values()))
    movetime_text = spec.options.get("movetime", "")
    movetime = None if movetime_text.lower() == "none" else option_float(spec, "movetime", 0.1)
    return StockfishSettings(
        elo=_optional(spec, "elo"),
        skill=_optional(spec, "skill"),
        movetime=movetime,
        depth=_optional(spec, "depth"),
        nodes=_optional(spec, "nodes"),
        threads=option_int(spec, "threads", 1, low=0),
        hash_mb=option_int(spec, "hash", 16, low=0),
        path=spec.options.get("path"),
        name=spec.options.get("name", "Stockfish"),
    )


def parse_gnugo(spec: PlayerSpec) -> GnuGoSettings:
    """``gnugo[:level=L,capture_all_dead=yes|no,path=PATH,name=NAME]``."""
    check_options(spec, set(GnuGoSettings.OPTION_KEYS.values()))
    capture = option_bool(spec, "capture_all_dead")
    return GnuGoSettings(
        level=option_int(spec, "level", 1, low=0),
        capture_all_dead=True if capture is None else capture,
        path=spec.options.get("path"),
        name=spec.options.get("name", "GNU Go"),
    )


KINDS: dict[str, tuple[type[Any], Any, str]] = {
    "stockfish": (
        StockfishSettings,
        parse_stockfish,
        "Stockfish over UCI (chess): stockfish[:elo=1350-2850,skill=0-20,movetime=S|none,"
        "depth=D,nodes=N,threads=T,hash=MB,path=PATH]",
    ),
    "gnugo": (
        GnuGoSettings,
        parse_gnugo,
        "GNU Go over GTP (go, go9, go13): gnugo[:level=0-10,capture_all_dead=yes|no,path=PATH]",
    ),
}
"""The external engine kinds: kind -> (settings class, spec parser, help), for the
composition root (:mod:`sparring.kinds`)."""


__all__ = [
    "KINDS",
    "MAX_RESTARTS",
    "EngineDied",
    "GnuGoPlayer",
    "GnuGoSettings",
    "GtpClient",
    "StockfishPlayer",
    "StockfishSettings",
    "build_gnugo_player",
    "build_stockfish_player",
    "check_program_path",
    "find_program",
    "parse_gnugo",
    "parse_stockfish",
    "require_program",
    "spawn",
    "stop_process",
]
