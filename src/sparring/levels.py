"""Levels: one request for a strength, one function that turns it into a player.

A person asks for a *level*: "Elo 1500", "5 kyu", "the strongest", "adaptive" (or for
nothing: the game's default AI).  :class:`Level` is that request, typed; :func:`resolve` is
the one function that turns it into :class:`~sparring.players.settings_base.PlayerSettings`
and a :class:`LevelReport` (what is played, on which scale, what was measured, how long a
move takes).  Every front end calls it: ``sparring play``, ``sparring levels``, match specs
``level:...``, the service's catalog and game creation, ``sparring gtp``, ``sparring uci``
and the Python API.  No other module maps an Elo or a rank to settings (a test reads the
source and fails if one does).

Each game has one shipped :class:`LevelTable` (package data, ``models/levels/GAME.json``,
written by ``sparring levels-build``): its scale with the scale's name and anchor, every
measured level (the setting, the games behind it, the interval, seconds a move on the
reference machine, a 2-core CPU), its strongest measured setting, its ranks where a rank
ladder was measured, and its adaptive opponents.  The scales:

* Connect Four, 6x6 and 8x8 Othello: the game's *baseline ladder* (Random = 1000); a level is
  Wu et al.'s strength-adjusted search on the shipped network's calibration (``sa:elo=E``,
  AAAI 2019, Eq. 1 with the calibrated ``z`` and ``R_th``); an Elo between two measured
  points is interpolated on the calibration's monotone curve.
* Chess: Stockfish 15.1's ``UCI_Elo``; a level is the human-like search with Stockfish's
  leaf values and a number of root moves looked at (``human-mcts:sf_elo=E``,
  :mod:`sparring.players.external_scale`).
* Go 19x19: GNU Go 3.8 at level 1 = 1000 (19x19, komi 7.5); a level is ``sa-mcts:gnugo_elo=E``
  (the play network's 32-simulation search with SA's ``z``).
* Go 9x9: GNU Go 3.8 at level 1 = 1000 (9x9); the levels are the shipped 9x9 network's
  measured simulation counts (an Elo between them is played at the nearest one, and said).

A level is defined by *work* (simulations, Stockfish nodes), never by seconds: a clock given
by a protocol or a GUI only bounds it (the engines say when it is too short).  An Elo outside
the measured range is played at the nearest end and the report says so
(:attr:`LevelReport.notice`).  Go ranks are offered only where a rank ladder was measured:
on 19x19, a handicap ladder from 20k to 9k (each rung, Black at komi 0.5, level with the rung
above; the top rung at GNU Go level 10's assumed 9 kyu; docs/strength/go-ladder.md); a rank
elsewhere is refused with what is offered.  A chess rating band is not a chess level (the
bands choose human-like moves, not a strength).
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from typing import Any, ClassVar

from sparring.errors import BadValueError, IncompatiblePlayerError
from sparring.games.base import Game
from sparring.players.alphadda import AlphaDDA1Settings, FloorSettings
from sparring.players.base import Player
from sparring.players.cache import PlayerCache
from sparring.players.external import find_program
from sparring.players.human_like import HumanMCTSSettings, SAMCTSSettings
from sparring.players.registry import PlayerSpec, build_player, check_options, parse_player
from sparring.players.settings import DSASettings, SASettings, default_ai
from sparring.players.settings_base import PlayerSettings, SettingsBase

LEVEL_KINDS = ("elo", "rank", "strongest", "adaptive")
"""What a :class:`Level` may ask for (None: the game's default AI)."""
ADAPTIVE_MODES: dict[str, str] = {
    "bayes": "dsa",
    "intra": "dsa-intra",
    "alphadda1-floor": "alphadda1-floor",
}
"""Adaptive opponents -> the key their state is kept under in a profile (per game).
``bayes`` uses the key of ``sparring play --adaptive`` (``dsa``), so the command line and
the service continue the same state."""
TABLE_FORMAT = "sparring-levels"
"""``format`` of a level table file."""


@dataclass(frozen=True)
class Level:
    """A request for a strength: ``kind`` is one of :data:`LEVEL_KINDS`.

    ``elo`` (kind ``elo``) is on the game's scale (:attr:`LevelTable.scale`); ``rank`` (kind
    ``rank``) a rank such as ``5k`` or ``3d``; ``mode`` (kind ``adaptive``) one of
    :data:`ADAPTIVE_MODES`; ``style`` how human-like the moves are, where the game's table
    measured more than one (None: the measured default); ``simulations`` (kind
    ``strongest`` only) replaces the simulations of the game's default AI (the strongest
    level where that is the default): the player is then no longer a measured level, and
    the report says so.
    """

    kind: str
    elo: float | None = None
    rank: str | None = None
    mode: str | None = None
    style: str | None = None
    simulations: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in LEVEL_KINDS:
            raise BadValueError(
                f"a level is one of {', '.join(LEVEL_KINDS)}, not {self.kind!r}", key="level"
            )
        wanted = {"elo": "elo", "rank": "rank", "adaptive": "mode"}.get(self.kind)
        for name in ("elo", "rank", "mode"):
            given = getattr(self, name) is not None
            if given != (name == wanted):
                need = f"needs {name}" if name == wanted else f"takes no {name}"
                raise BadValueError(f"a level of kind {self.kind!r} {need}", key=name)
        if self.elo is not None:
            if isinstance(self.elo, bool) or not isinstance(self.elo, int | float):
                raise BadValueError(f"elo must be a number, not {self.elo!r}", key="elo")
            if not math.isfinite(self.elo):
                raise BadValueError(f"elo must be a finite number, not {self.elo}", key="elo")
        if self.mode is not None and self.mode not in ADAPTIVE_MODES:
            raise BadValueError(
                f"adaptive modes are {', '.join(ADAPTIVE_MODES)}; not {self.mode!r}", key="mode"
            )
        if self.simulations is not None:
            if self.kind != "strongest":
                raise BadValueError(
                    "simulations go with the strongest level only (a measured level fixes "
                    "its own work)",
                    key="simulations",
                )
            if isinstance(self.simulations, bool) or not isinstance(self.simulations, int):
                raise BadValueError("simulations must be a whole number", key="simulations")
            if self.simulations < 1:
                raise BadValueError("simulations must be at least 1", key="simulations")

    @classmethod
    def at_elo(cls, elo: float, style: str | None = None) -> Level:
        """The level at ``elo`` on the game's scale."""
        return cls("elo", elo=float(elo), style=style)

    @classmethod
    def at_rank(cls, rank: str, style: str | None = None) -> Level:
        """The level at ``rank`` (``5k``, ``3d``; see :func:`normal_rank`)."""
        return cls("rank", rank=normal_rank(rank), style=style)

    @classmethod
    def strongest(cls, style: str | None = None, simulations: int | None = None) -> Level:
        """The game's strongest measured setting."""
        return cls("strongest", style=style, simulations=simulations)

    @classmethod
    def adaptive(cls, mode: str = "bayes") -> Level:
        """An opponent that adapts to the player (:data:`ADAPTIVE_MODES`)."""
        return cls("adaptive", mode=mode)

    @classmethod
    def parse(cls, text: str) -> Level:
        """A level from text: ``1500`` / ``elo 1500`` / ``elo=1500``, ``5k`` / ``5 kyu`` /
        ``3d`` / ``3 dan``, ``strongest``, ``adaptive`` / ``adaptive:intra``.
        :class:`~sparring.errors.BadValueError` naming the text otherwise."""
        words = text.strip().lower()
        match = re.fullmatch(r"(?:elo\s*[=:]?\s*)?([+-]?\d+(?:\.\d+)?)", words)
        if match:
            return cls.at_elo(float(match.group(1)))
        if words in ("strongest", "full", "full strength", "max"):
            return cls.strongest()
        if words == "adaptive" or words.startswith("adaptive:"):
            mode = words.partition(":")[2] or "bayes"
            return cls.adaptive(mode)
        if re.fullmatch(r"\d+\s*(?:k|kyu|d|dan)", words):
            return cls.at_rank(words)
        raise BadValueError(
            f"level {text!r}: give an Elo (1500), a rank (5k, 3d), 'strongest' or 'adaptive'",
            key="level",
        )

    def text(self) -> str:
        """The level as :meth:`parse` reads it (and as labels say it)."""
        if self.kind == "elo":
            return f"elo {self.elo:g}"
        if self.kind == "rank":
            return str(self.rank)
        if self.kind == "adaptive":
            return f"adaptive:{self.mode}"
        return "strongest"


RANK_SCALE = "the handicap ladder anchored on GNU Go 3.8"
"""The scale a Go rank is on (docs/strength/go-ladder.md)."""


def rank_words(rank: str) -> str:
    """``12k`` -> ``12 kyu``, ``3d`` -> ``3 dan`` (a rank as a label says it)."""
    number, kind = rank[:-1], rank[-1]
    return f"{number} {'kyu' if kind == 'k' else 'dan'}" if number.isdigit() else rank


def normal_rank(text: str) -> str:
    """A Go rank written as players write it, in its short form: ``5 kyu`` -> ``5k``,
    ``3 Dan`` -> ``3d``.  :class:`~sparring.errors.BadValueError` for anything else."""
    match = re.fullmatch(r"(\d+)\s*(k|kyu|d|dan)", text.strip().lower())
    if not match or int(match.group(1)) < 1:
        raise BadValueError(f"a rank is like 5k or 3d, not {text!r}", key="rank")
    return f"{int(match.group(1))}{match.group(2)[0]}"


# ---- the tables ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class LevelRow:
    """One measured level: its setting, what it was measured to be and what it costs."""

    setting: str
    """The player spec that is played (the resolver's settings' :meth:`spec`)."""
    elo: float | None
    """Its Elo on the table's scale (None: measured on another anchor, see :attr:`note`)."""
    plus_minus: float | None = None
    """The 95% half-interval of :attr:`elo` (None where the source gives none)."""
    games: int | None = None
    """Games behind the Elo."""
    seconds: float | None = None
    """Seconds a move on the reference machine (median of the measured moves)."""
    rank: str | None = None
    """The rank this row plays (rank ladders only)."""
    note: str = ""
    """Where the measurement comes from, in words."""

    def to_json(self) -> dict[str, Any]:
        """The row as stored in the table file."""
        return {
            "setting": self.setting,
            "elo": self.elo,
            "plus_minus": self.plus_minus,
            "games": self.games,
            "seconds": self.seconds,
            "rank": self.rank,
            "note": self.note,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LevelRow:
        """The row of :meth:`to_json`."""
        return cls(
            str(data["setting"]),
            None if data.get("elo") is None else float(data["elo"]),
            None if data.get("plus_minus") is None else float(data["plus_minus"]),
            None if data.get("games") is None else int(data["games"]),
            None if data.get("seconds") is None else float(data["seconds"]),
            data.get("rank"),
            str(data.get("note", "")),
        )


@dataclass(frozen=True)
class LevelTable:
    """The levels of one game (see the module doc)."""

    game: str
    scale: str
    """The scale's name (``Stockfish 15.1 UCI_Elo``)."""
    anchor: str
    """What fixes the scale's origin (``Random = 1000``)."""
    source: str
    """The shipped file the Elo levels come from, and how they were measured."""
    kind: str
    """How an Elo is played: ``calibration`` (``sa:elo=E``), ``stockfish`` (``human-mcts:
    sf_elo=E``), ``gnugo`` (``sa-mcts:gnugo_elo=E``), ``rows`` (the nearest row), ``none``."""
    rows: tuple[LevelRow, ...] = ()
    """The measured Elo levels, weakest first."""
    strongest: LevelRow | None = None
    ranks: tuple[LevelRow, ...] = ()
    """A measured rank ladder, weakest first (empty: no rank is offered)."""
    adaptive: tuple[str, ...] = ()
    default: str = "strongest"
    """What no level asks for: ``strongest``, or a spec of the game's default AI."""
    reference: str = "a 2-core CPU"
    command: str = ""
    """The command that wrote the table."""
    notes: tuple[str, ...] = field(default=())

    @property
    def elo_range(self) -> tuple[float, float] | None:
        """The lowest and highest Elo measured (None: no Elo levels)."""
        elos = [r.elo for r in self.rows if r.elo is not None]
        return (min(elos), max(elos)) if elos else None

    @property
    def whole_range(self) -> tuple[int, int] | None:
        """The whole Elo numbers inside :attr:`elo_range`: the range an Elo is clamped to
        (the ends the page shows and ``UCI_Elo`` offers); None: no Elo levels."""
        if self.elo_range is None:
            return None
        low, high = self.elo_range
        return math.ceil(low), math.floor(high)

    def to_json(self) -> dict[str, Any]:
        """The table file's content."""
        return {
            "format": TABLE_FORMAT,
            "version": 1,
            "game": self.game,
            "scale": self.scale,
            "anchor": self.anchor,
            "source": self.source,
            "kind": self.kind,
            "rows": [r.to_json() for r in self.rows],
            "strongest": None if self.strongest is None else self.strongest.to_json(),
            "ranks": [r.to_json() for r in self.ranks],
            "adaptive": list(self.adaptive),
            "default": self.default,
            "reference": self.reference,
            "command": self.command,
            "notes": list(self.notes),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LevelTable:
        """The table of :meth:`to_json`; :class:`BadValueError` for another format."""
        if data.get("format") != TABLE_FORMAT:
            raise BadValueError(f"not a level table (format {data.get('format')!r})", "format")
        strongest = data.get("strongest")
        return cls(
            game=str(data["game"]),
            scale=str(data["scale"]),
            anchor=str(data["anchor"]),
            source=str(data["source"]),
            kind=str(data["kind"]),
            rows=tuple(LevelRow.from_json(r) for r in data.get("rows", [])),
            strongest=None if strongest is None else LevelRow.from_json(strongest),
            ranks=tuple(LevelRow.from_json(r) for r in data.get("ranks", [])),
            adaptive=tuple(data.get("adaptive", [])),
            default=str(data.get("default", "strongest")),
            reference=str(data.get("reference", "")),
            command=str(data.get("command", "")),
            notes=tuple(data.get("notes", [])),
        )

    def scale_label(self) -> str:
        """``Stockfish 15.1 UCI_Elo (anchor ...)`` for labels and help."""
        return f"{self.scale} ({self.anchor})"


TABLE_GAMES = ("connect4", "othello6", "othello", "go9", "go", "chess")
"""The games with a shipped level table."""


@cache
def level_table(game_name: str) -> LevelTable:
    """The shipped level table of ``game_name`` (an empty one, of kind ``none``, for a game
    without one: only its default AI is offered)."""
    path = resources.files("sparring") / "models" / "levels" / f"{game_name}.json"
    if not path.is_file():
        return LevelTable(game_name, "", "", "", "none", default="default")
    return LevelTable.from_json(json.loads(path.read_text()))


# ---- the resolver -------------------------------------------------------------------------------
@dataclass(frozen=True)
class LevelReport:
    """What :func:`resolve` chose, for people and records."""

    game: str
    level: Level | None
    label: str
    """A label a player understands: ``Elo 1500 (Stockfish 15.1 UCI_Elo)``."""
    spec: str
    """The settings' spec text."""
    scale: str | None = None
    elo: float | None = None
    """The Elo played (the asked one unless clamped or snapped to a measured row)."""
    notice: str | None = None
    """Said when the asked level is not what is played (clamped, nearest row, not measured)."""
    seconds: float | None = None
    """Seconds a move of the measured row nearest to the level (reference machine)."""
    measured: bool = True
    """Whether the level lies on the table's measured levels."""
    adaptive_key: str | None = None
    """The profile key of an adaptive level's state."""

    def to_json(self) -> dict[str, Any]:
        """The report as the service and ``--json`` outputs give it."""
        return {
            "game": self.game,
            "level": None if self.level is None else self.level.text(),
            "label": self.label,
            "spec": self.spec,
            "scale": self.scale,
            "elo": self.elo,
            "notice": self.notice,
            "seconds": self.seconds,
            "measured": self.measured,
            "adaptive_key": self.adaptive_key,
        }


def _game_name(game: Any) -> str:
    name = game if isinstance(game, str) else getattr(game, "name", None)
    if not isinstance(name, str):
        raise BadValueError(f"a game or its name, not {game!r}", key="game")
    return name


_REPORTS: dict[tuple[str, PlayerSettings], LevelReport] = {}
"""The reports of settings :func:`resolve` returned (bounded), for :func:`describe`."""
_REPORTS_KEPT = 512


def resolve(game: Any, level: Level | None = None) -> tuple[PlayerSettings, LevelReport]:
    """The player settings of ``level`` in ``game`` (a :class:`~sparring.games.base.Game` or
    its name) and the report of what they are.  ``level`` None: the game's default AI.

    Raises :class:`~sparring.errors.IncompatiblePlayerError` for a kind of level the game
    does not offer (its message names what is offered) and
    :class:`~sparring.errors.BadValueError` for a bad style or rank.
    """
    name = _game_name(game)
    settings, report = _resolve(name, level)
    if len(_REPORTS) >= _REPORTS_KEPT:
        _REPORTS.pop(next(iter(_REPORTS)))
    with contextlib.suppress(TypeError):  # settings holding unhashable values: not kept
        _REPORTS[(name, settings)] = report
    return settings, report


def describe(game: Any, settings: PlayerSettings) -> LevelReport | None:
    """The report of ``settings`` if :func:`resolve` returned them for ``game`` (None for
    settings that came from elsewhere, such as a player spec)."""
    try:
        return _REPORTS.get((_game_name(game), settings))
    except TypeError:
        return None


def _resolve(name: str, level: Level | None) -> tuple[PlayerSettings, LevelReport]:
    table = level_table(name)
    if level is None:
        if table.default == "strongest" and table.strongest is not None:
            return _strongest(table, Level.strongest(), default=True)
        return _default(table, None)
    _check_style(table, level)
    if level.kind == "elo":
        assert level.elo is not None
        return _elo(table, level, float(level.elo))
    if level.kind == "rank":
        return _rank(table, level)
    if level.kind == "adaptive":
        return _adaptive(table, level)
    return _strongest(table, level)


def _check_style(table: LevelTable, level: Level) -> None:
    """Only the measured style exists so far: any other is refused (it was not measured)."""
    if level.style not in (None, "measured"):
        raise IncompatiblePlayerError(
            f"{table.game}: style {level.style!r} was not measured at any level; the levels "
            "play the measured style (give a player spec for another)",
            key="style",
        )


def _default(table: LevelTable, level: Level | None) -> tuple[PlayerSettings, LevelReport]:
    sims = None if level is None else level.simulations
    settings = default_ai(table.game, sims)
    notice = None if sims is None else f"{sims} simulations a move: not a measured level"
    label = "the default AI"
    return settings, LevelReport(table.game, level, label, settings.spec(), notice=notice,
                                 measured=False)  # fmt: skip


def offered(table: LevelTable) -> str:
    """What ``table``'s game offers, in words (for refusals)."""
    parts = []
    if table.whole_range is not None:
        low, high = table.whole_range
        parts.append(f"an Elo from {low} to {high} on {table.scale_label()}")
    if table.ranks:
        parts.append(f"a rank from {table.ranks[0].rank} to {table.ranks[-1].rank}")
    if table.strongest is not None:
        parts.append("'strongest'")
    if table.adaptive:
        parts.append("'adaptive'")
    return ", ".join(parts) if parts else "only its default AI"


def _elo(table: LevelTable, level: Level, elo: float) -> tuple[PlayerSettings, LevelReport]:
    if table.elo_range is None:
        raise IncompatiblePlayerError(
            f"{table.game} has no Elo levels; it offers {offered(table)}", key="elo"
        )
    low, high = table.whole_range or table.elo_range
    played = min(max(elo, low), high)
    settings: PlayerSettings
    notice = None
    if table.kind == "rows":
        row = min(table.rows, key=lambda r: (abs((r.elo or 0.0) - elo), r.elo or 0.0))
        played = float(row.elo or 0.0)
        if played != elo:
            notice = (
                f"Elo {elo:g} is not a measured {table.game} level; playing the nearest, "
                f"{played:.0f}"
            )
        settings = _parse(row.setting)
    else:
        settings = _elo_settings(table.kind, played)
        if played != elo:
            end = "weakest" if elo < low else "strongest"
            notice = (
                f"Elo {elo:g} is outside the measured range {low:.0f}..{high:.0f} of "
                f"{table.scale}; playing the {end} level, {played:.0f}"
            )
    label = f"Elo {played:.0f} ({table.scale})"
    return settings, LevelReport(
        table.game,
        level,
        label,
        settings.spec(),
        table.scale,
        played,
        notice,
        _nearest(table.rows, played).seconds,
    )


def _elo_settings(kind: str, elo: float) -> PlayerSettings:
    """The settings that play ``elo`` on a scale of ``kind`` (the scale's own file chooses
    the knob when the player is built, and says so when it clamps)."""
    if kind == "stockfish":
        return HumanMCTSSettings(sf_elo=elo)
    if kind == "gnugo":
        return SAMCTSSettings(gnugo_elo=elo)
    return SASettings(elo=elo)


def _nearest(rows: tuple[LevelRow, ...], elo: float) -> LevelRow:
    return min(rows, key=lambda r: abs((r.elo if r.elo is not None else math.inf) - elo))


def _rank(table: LevelTable, level: Level) -> tuple[PlayerSettings, LevelReport]:
    by_rank = {r.rank: r for r in table.ranks}
    row = by_rank.get(level.rank)
    if row is None:
        if not table.ranks:
            raise IncompatiblePlayerError(
                f"{table.game} has no measured rank ladder; it offers {offered(table)}",
                key="rank",
            )
        raise BadValueError(
            f"{table.game}: the measured ranks are {table.ranks[0].rank} to "
            f"{table.ranks[-1].rank}; not {level.rank!r}",
            key="rank",
        )
    settings = _parse(row.setting)
    return settings, LevelReport(
        table.game, level, f"{rank_words(str(row.rank))} ({RANK_SCALE})", settings.spec(),
        RANK_SCALE,
        row.elo, None, row.seconds,
    )  # fmt: skip


def _adaptive(table: LevelTable, level: Level) -> tuple[PlayerSettings, LevelReport]:
    mode = str(level.mode)
    if mode not in table.adaptive:
        raise IncompatiblePlayerError(
            f"{table.game} has no adaptive opponent (those need a calibrated network); it "
            f"offers {offered(table)}",
            key="mode",
        )
    settings: PlayerSettings
    if mode == "alphadda1-floor":
        settings = AlphaDDA1Settings(floor=FloorSettings())
    else:
        settings = DSASettings(mode="intra" if mode == "intra" else "bayes")
    label = {
        "bayes": "adaptive (between games)",
        "intra": "adaptive (within a game)",
        "alphadda1-floor": "adaptive (AlphaDDA1)",
    }[mode]
    return settings, LevelReport(
        table.game, level, label, settings.spec(), table.scale, adaptive_key=ADAPTIVE_MODES[mode]
    )


def _strongest(
    table: LevelTable, level: Level, default: bool = False
) -> tuple[PlayerSettings, LevelReport]:
    row = table.strongest
    if row is None or (level.simulations is not None and table.default != "strongest"):
        return _default(table, level)  # other simulations: the default AI's search
    settings = _parse(row.setting)
    notice = None
    measured = True
    if level.simulations is not None:
        settings = _with_simulations(settings, level.simulations)
        measured = False
        notice = f"{level.simulations} simulations a move: not a measured level"
    elif "sf_nodes" in row.setting and not find_program("stockfish"):
        settings = HumanMCTSSettings()
        measured = False
        notice = "Stockfish is not installed: the strongest level needs it; playing unrated"
    elo = row.elo
    label = "the strongest level" + ("" if elo is None else f", Elo {elo:.0f} ({table.scale})")
    return settings, LevelReport(
        table.game, None if default else level, label, settings.spec(), table.scale, elo,
        notice, row.seconds, measured,
    )  # fmt: skip


def _with_simulations(settings: PlayerSettings, simulations: int) -> PlayerSettings:
    if not hasattr(settings, "simulations"):
        raise IncompatiblePlayerError(
            f"{settings.spec()} takes no simulations", key="simulations"
        )  # pragma: no cover - every strongest setting searches
    return replace(settings, simulations=simulations)  # type: ignore[type-var]


def _parse(spec: str) -> PlayerSettings:
    return parse_player(spec)


def with_elo(settings: PlayerSettings, elo: float) -> PlayerSettings:
    """A strength-adjusted player of one's own (``sa:...,calibration=PATH``) at ``elo`` on
    its own calibration: the one place besides :func:`resolve` where an Elo becomes settings.
    :class:`~sparring.errors.BadValueError` for settings that are not ``sa``."""
    if not isinstance(settings, SASettings):
        raise BadValueError(
            f"an Elo needs a strength-adjusted player (sa:...), not {settings.spec()!r}; e.g. "
            f"sa:base=uct,sims=300,calibration=PATH",
            key="elo",
        )
    return settings.at_elo(elo)


# ---- a level as a player spec (match and tournament specs) ----------------------------------
@dataclass(frozen=True)
class LevelSettings(SettingsBase):
    """``level:at=LEVEL``: the resolver's player for ``LEVEL`` (:meth:`Level.parse` text:
    ``1500``, ``5k``, ``strongest``, ``adaptive:intra``) in the game it is built for, so that
    ``sparring match connect4 level:at=1500 mcts1`` plays the level the page and the engines
    play."""

    kind: ClassVar[str] = "level"
    OPTION_KEYS: ClassVar[dict[str, str]] = {"at": "at"}

    at: str = "strongest"
    """The level, as :meth:`Level.parse` reads it."""

    def __post_init__(self) -> None:
        self.check_types()
        Level.parse(self.at)  # a bad level is refused when the spec is read


def build_level_player(
    settings: LevelSettings, game: Game, seed: int | None, cache: PlayerCache
) -> Player:
    """The resolver's player for ``settings.at`` in ``game``, seeded with ``seed``."""
    resolved, _ = resolve(game, Level.parse(settings.at))
    return build_player(resolved, game, seed, cache)


def parse_level(spec: PlayerSpec) -> LevelSettings:
    """``level[:at=LEVEL]``."""
    check_options(spec, {"at"})
    return LevelSettings(spec.options.get("at", "strongest"))


KINDS = {
    "level": (
        LevelSettings,
        parse_level,
        "a level as the page and the engines play it: at=1500 (an Elo on the game's scale), "
        "at=5k, at=strongest, at=adaptive[:intra]",
    ),
}
"""The ``level`` kind (registered by :mod:`sparring.kinds`)."""


__all__ = [
    "ADAPTIVE_MODES",
    "KINDS",
    "LEVEL_KINDS",
    "TABLE_GAMES",
    "Level",
    "LevelReport",
    "LevelRow",
    "LevelSettings",
    "LevelTable",
    "build_level_player",
    "describe",
    "level_table",
    "normal_rank",
    "offered",
    "rank_words",
    "resolve",
    "with_elo",
]
