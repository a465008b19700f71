"""What the engines answer while they start: the protocol's quick commands.

``sparring gtp`` and ``sparring uci`` load their modules, check their options and build their
player (the network read, the search compiled) before they play, which takes seconds on a
small machine.  A GUI starting an engine first asks who it is (GTP ``name``,
``protocol_version``; UCI ``uci``, ``isready``) and may give up after a few seconds without an
answer.  :class:`EngineFront` reads the commands from the first moment and answers those
quick ones itself while the engine starts, in order: a command it cannot answer (and every
command after it) waits for the engine, which then handles them as if it had read them.

This module imports nothing heavy (the standard library and :mod:`sparring.version`), so that
its answers come a fraction of a second after the process starts (BENCHMARKS.md,
"Start-up").  Its answers are the engines' own: :class:`~sparring.engines.gtp.GTPEngine`
and :class:`~sparring.engines.uci.UCIEngine` answer the same commands with the functions
here.

UCI's ``isready`` is answered ``readyok`` at once while the engine starts: the engine takes
commands meanwhile (they wait for it), so a ``go`` sent early waits for the player to be
built, and its clock runs from when it was read.
"""

from __future__ import annotations

import json
import math
import queue
import threading
from collections.abc import Callable, Iterator
from functools import cache
from importlib import resources
from io import StringIO
from typing import TextIO

from sparring.version import __version__

STYLES: tuple[str, ...] = ("measured",)
"""How a level is played: ``measured``, the setting its game's level table measured
(:mod:`sparring.levels`).  No other style was measured at any level, so none other is
offered (a player spec plays any other setting)."""

PROTOCOL_VERSION = "2"
"""GTP's protocol version."""

GTP_COMMANDS: tuple[str, ...] = (
    "protocol_version", "name", "version", "known_command", "list_commands", "quit",
    "boardsize", "clear_board", "komi", "fixed_handicap", "place_free_handicap",
    "set_free_handicap", "play", "genmove", "reg_genmove", "kgs-genmove_cleanup", "undo",
    "showboard", "final_score", "final_status_list", "time_settings", "kgs-time_settings",
    "time_left", "lz-analyze", "sparring-strength",
)  # fmt: skip
"""The GTP engine's commands, in ``list_commands``'s order."""


def measured_elo_range(game: str) -> tuple[float, float] | None:
    """The lowest and highest Elo of ``game``'s shipped level table (None: no Elo levels);
    :attr:`sparring.levels.LevelTable.elo_range`, read from the package data alone."""
    return _elo_range(game)


@cache
def _elo_range(game: str) -> tuple[float, float] | None:
    text = resources.files("sparring").joinpath("models", "levels", f"{game}.json").read_text()
    elos = [row["elo"] for row in json.loads(text)["rows"] if row.get("elo") is not None]
    return (min(elos), max(elos)) if elos else None


@cache
def measured_ranks(game: str) -> tuple[str, ...]:
    """The ranks of ``game``'s shipped rank ladder, weakest first (empty: none);
    :attr:`sparring.levels.LevelTable.ranks`, read from the package data alone."""
    text = resources.files("sparring").joinpath("models", "levels", f"{game}.json").read_text()
    return tuple(str(row["rank"]) for row in json.loads(text).get("ranks", []))


def uci_elo_range() -> tuple[int, int]:
    """``UCI_Elo``'s range: the chess level table's Elo levels, rounded inwards."""
    measured = measured_elo_range("chess")
    if measured is None:  # pragma: no cover - the chess table ships with the package
        raise RuntimeError("the chess level table has no Elo levels")
    low, high = measured
    return math.ceil(low), math.floor(high)


def uci_option_lines() -> list[str]:
    """The ``option`` lines the UCI engine sends after ``uci``."""
    low, high = uci_elo_range()
    return [
        "option name UCI_LimitStrength type check default false",
        f"option name UCI_Elo type spin default 1500 min {low} max {high}",
        "option name Style type combo default measured" + "".join(f" var {s}" for s in STYLES),
        "option name Simulations type spin default 0 min 0 max 100000",
        "option name Player type string default <empty>",
        "option name MultiPV type spin default 1 min 1 max 64",
        "option name UCI_ShowWDL type check default false",
        "option name Move Overhead type spin default 30 min 0 max 5000",
        "option name Ponder type check default false",
        "option name UCI_Opponent type string default <empty>",
        "option name Match Opponent type check default false",
        "option name UCI_RatingAdv type spin default 0 min -1000 max 1000",
    ]


def uci_identity() -> list[str]:
    """The UCI engine's whole answer to ``uci``: its name, author, options and ``uciok``."""
    return [
        f"id name sparring {__version__}",
        "id author the sparring authors",
        *uci_option_lines(),
        "uciok",
    ]


def clean_line(raw: str) -> str:
    """A command line as GTP preprocesses it: control characters (but tabs and newlines)
    removed, tabs made spaces, the comment after ``#`` dropped, surrounding space stripped."""
    text = "".join(c for c in raw if c in "\t\n" or (ord(c) >= 32 and ord(c) != 127))
    return text.replace("\t", " ").split("#", 1)[0].strip()


GTP_QUICK: dict[str, Callable[[list[str]], str]] = {
    "protocol_version": lambda args: PROTOCOL_VERSION,
    "name": lambda args: "sparring",
    "version": lambda args: __version__,
    "list_commands": lambda args: "\n".join(GTP_COMMANDS),
}
"""The GTP commands that need no player, by name: their answer (``known_command`` too)."""


def gtp_quick(raw: str) -> str | None:
    """The whole GTP response to ``raw`` when it is a command that needs no player (a blank
    or comment line: the empty string, no response); None for any other command."""
    tokens = clean_line(raw).split()
    if not tokens:
        return ""
    ident = tokens.pop(0) if tokens[0].isdigit() else ""
    if not tokens:
        return None  # the engine says what is wrong
    name, args = tokens[0], tokens[1:]
    if name == "known_command" and len(args) == 1:
        answer = "true" if args[0] in GTP_COMMANDS else "false"
    elif name in GTP_QUICK:
        answer = GTP_QUICK[name](args)
    else:
        return None
    return f"={ident}{' ' if answer else ''}{answer}\n\n"


def uci_quick(raw: str) -> str | None:
    """The UCI engine's answer to ``uci`` and ``isready`` (``readyok``: while the engine
    starts it takes commands, which wait for it); a blank line: the empty string; None for
    any other command."""
    tokens = raw.split()
    if not tokens:
        return ""
    if tokens[0] == "uci":
        return "\n".join(uci_identity()) + "\n"
    if tokens[0] == "isready":
        return "readyok\n"
    return None


class EngineFront:
    """Reads ``lines`` in a thread from construction on: while nothing waits for the engine,
    a line that ``quick`` answers (a string) is answered on ``out``; the first one it does not
    (None), and every line after it, waits for the engine, which reads them from
    :meth:`lines` once :meth:`hand_over` was called.  Until then the engine writes to
    :attr:`held` (pass it as the engine's output), whose text goes out at the hand-over, after
    the answers given so far."""

    def __init__(self, lines: TextIO, out: TextIO, quick: Callable[[str], str | None]) -> None:
        self.out = out
        self.held = StringIO()
        """Where the engine writes while it starts."""
        self._quick = quick
        self._lines = lines
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._lock = threading.Lock()
        self._waiting = False
        self._handed = False
        threading.Thread(target=self._read, daemon=True, name="engine-front").start()

    def _read(self) -> None:
        for line in self._lines:
            with self._lock:
                if not (self._handed or self._waiting):
                    answer = self._quick(line)
                    if answer is not None:
                        self.out.write(answer)
                        self.out.flush()
                        continue
                    self._waiting = True
            self._queue.put(line)
        self._queue.put(None)

    def hand_over(self) -> None:
        """The engine is ready: what it wrote to :attr:`held` goes out, and from now on every
        line waits for it (answered by it, in order)."""
        with self._lock:
            self._handed = True
            self.out.write(self.held.getvalue())
            self.out.flush()

    def lines(self) -> Iterator[str]:
        """The lines for the engine, in order, until the end of the input."""
        while (line := self._queue.get()) is not None:
            yield line


__all__ = [
    "GTP_COMMANDS",
    "PROTOCOL_VERSION",
    "STYLES",
    "EngineFront",
    "clean_line",
    "gtp_quick",
    "measured_elo_range",
    "measured_ranks",
    "uci_elo_range",
    "uci_identity",
    "uci_option_lines",
    "uci_quick",
]
