"""The dynamic strength adjustment experiment (Wu et al., AAAI 2019, Tables 3-4, Fig. 5; and
Fujita's AlphaDDA, PeerJ CS 2022, Tables 5-13 and the appendix 6 figures).

``sparring adapt GAME ADAPTIVE_SPEC --opponents SPEC,SPEC,... --games G --repeats R --out DIR``
plays every adaptive player (e.g. ``dsa:mode=inter,model=connect4``) against every opponent as
``R`` series of ``G`` games (:mod:`sparring.evaluation.series`: the same player objects through
a series, colours alternating, the adaptive player first in the even-numbered games, all
series in one pool, every game stored, a killed run resumes replaying nothing finished), and
the same opponents against the un-adapted base player (the "w/o DSA" row, ``G`` games each with
:func:`~sparring.evaluation.match.run_match`).  :func:`write_report` writes

* ``report.md``: the win / loss / draw tables of every adaptive player against every
  opponent over all games, as first and as second player (the AlphaDDA paper's Tables 5-13
  analogue, with D of Eq. 11, the balanced marks and, for the paper's AlphaDDA players, the
  paper's numbers: :mod:`sparring.experiments.alphadda_paper`), the seconds per game, and per
  adaptive player but AlphaDDA the Table 3 / Table 4 analogue (columns: opponents),
* ``results.json``: every number of the report plus the per-game series (and the example
  traces, and the think times under ``timing``),
* ``adapt.png``: the Fig. 5 analogue (per adaptive player: the game's z and the estimate of
  the opponent's Elo against the game number, one line per opponent, mean over repeats with a
  band of +- one standard deviation over the repeats), when some player is not an AlphaDDA,
* ``traces.png``: the AlphaDDA paper's appendix 6 figures (:func:`plot_traces`): per AlphaDDA
  player and opponent, the per-move ``vbar_n`` and parameter of a few example games.

What is measured (definitions shared by the report, the JSON and the tests):

* **Win / loss / draw shares** of the adaptive player against an opponent, over all games and
  split by who moved first; **balanced**: ``|wins - losses| <= 0.2`` of the games
  (:data:`BALANCED_SHARE`); per row the opponents balanced against, the largest
  ``|wins - losses|`` share, and **D** (Eq. 11, :func:`_d_metric`): the sum over opponents of
  ``|wins - losses|`` as first player plus ``|wins - losses|`` as second player.

* **Win rate** of the adaptive player: mean score over all games (draws counted half; wins,
  draws and losses also given), with a 95% normal interval ``1.96 * sd / sqrt(n)`` where ``sd``
  is the population standard deviation of the per-game scores (for a win/loss series this is
  the paper's ``1.96 sqrt(p (1 - p) / n)``: 50% over 500 games gives +-4.4%, its Table 3).
* **The game's z** is the z annotated on the adaptive player's *last* move of the game: in the
  inter-game modes z is held within a game, so it is the z played; in the intra-game modes it
  is "the value z at the end of the game" of the paper's Table 4.  ``Avg. z`` / ``Std. z`` are
  the mean and population standard deviation over all games of all repeats (the paper's Table 3
  averages over all games: its z = 2 opponent's 1.93 includes the first games at z near 0),
  infinite z left out and counted; the same over the games after the first ``settle`` is
  given too.  ``Elo`` is the same for the annotated calibrated Elo of the setting played.
* **The estimate of the opponent** after a game is the adaptive player's saved state after it
  (``opponent_elo``, or ``elo`` where the player keeps no separate estimate: the step rule's
  next setting *is* its estimate), else the last move's annotation.
* **Games until within** ``within`` Elo (with ``opponent_elos``): per repeat, the smallest
  ``n`` such that the estimate after game ``n`` and after every later game of the series is
  within ``within`` of the opponent's ladder Elo (None: not by the end); reported per repeat
  and as the mean and maximum over the repeats that got there.
* **Separation game** (several opponents): the opponents' *expected order* is that of their
  ladder Elos when given, else of their z when every opponent is an SA player with a fixed z,
  else the order of their mean z over the last ``settle`` games.  The separation game is the
  smallest game number ``n`` (1-based) such that in game ``n`` and every later game the mean z
  lines (mean over repeats of the game's z) are strictly in the expected order with adjacent
  gaps of at least ``separation_margin``; None when the last game is not ordered.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

import numpy as np
from rich.console import Console

from sparring.errors import ConfigError
from sparring.evaluation.ladder import read_ladder
from sparring.evaluation.match import (
    GameCallback,
    MatchConfig,
    _check_int,
    _check_text,
    _config_from_mapping,
    player_labels,
    run_match,
)
from sparring.evaluation.series import SeriesConfig, run_series_set
from sparring.evaluation.store import GameRecord, GameStore
from sparring.games import get_game
from sparring.players.registry import PlayerSpec, parse_player
from sparring.strength.alphadda import SideCounts, metric_d

Z95 = 1.959963984540054
"""Two-sided 95% normal quantile."""

FILES = {
    "report": "report.md",
    "results": "results.json",
    "plot": "adapt.png",
    "traces": "traces.png",
}
"""The files :func:`write_report` writes into the output directory (``adapt.png`` only when
some adaptive player is not an AlphaDDA, ``traces.png`` only when some annotates ``vbar``)."""

BALANCED_SHARE = 0.2
"""A player is *balanced* against an opponent when ``|wins - losses| <= 0.2`` of the games
(issue 15, after the paper's reading of Tables 5-13)."""

TRACE_PARAMETERS = ("sims", "p_drop", "c")
"""The AlphaDDA annotations that carry the parameter a move was played with (AlphaDDA1's
``N_sim``, AlphaDDA2's ``P_drop``, AlphaDDA3's ``C``), in the order they are looked for."""

ALPHADDA_KINDS = ("alphadda1", "alphadda2", "alphadda3")
"""Player kinds of AlphaDDA (:mod:`sparring.players.alphadda`)."""

STORE_NAME = "games.sqlite"
"""The game store in the output directory when no other is given."""

INTRA_MODES = ("intra", "elo-intra")
"""``mode=`` values of the ``dsa`` kind that adapt within a game (Table 4 analogue)."""

PAPER_WITHOUT_DSA = {2.0: 5.6, 1.0: 8.8, 0.0: 50.0, -1.0: 78.4, -2.0: 87.6}
"""Wu et al. 2019, Tables 3-4 "w/o DSA": win rate (%) of ELF's SA player at z = 0 against the
SA opponent at z (Go)."""

PAPER_ROWS: dict[str, tuple[tuple[str, dict[float, float], str], ...]] = {
    "inter": (
        ("inter-game WR", {2.0: 43.4, 1.0: 46.6, 0.0: 52.0, -1.0: 50.0, -2.0: 54.8}, "%"),
        ("inter-game Avg. z", {2.0: 1.93, 1.0: 0.88, 0.0: -0.04, -1.0: -1.06, -2.0: -1.73}, ""),
    ),
    "intra": (
        ("ΔZ=0.2 WR", {2.0: 29.0, 1.0: 38.0, 0.0: 43.0, -1.0: 64.0, -2.0: 71.0}, "%"),
        ("ΔZ=0.2 Avg. z", {2.0: 1.85, 1.0: 0.92, 0.0: -0.10, -1.0: -1.39, -2.0: -1.57}, ""),
        ("ΔZ=0.2 Std. z", {2.0: 1.82, 1.0: 1.81, 0.0: 1.41, -1.0: 1.73, -2.0: 1.56}, ""),
        ("ΔZ=0.1 WR", {2.0: 15.0, 1.0: 32.0, 0.0: 49.0, -1.0: 73.0, -2.0: 72.0}, "%"),
        ("ΔZ=0.1 Avg. z", {2.0: 1.02, 1.0: 0.75, 0.0: -0.21, -1.0: -0.66, -2.0: -0.96}, ""),
        ("ΔZ=0.1 Std. z", {2.0: 0.94, 1.0: 0.90, 0.0: 0.81, -1.0: 0.84, -2.0: 0.85}, ""),
    ),
}
"""The paper's Table 3 (inter) and Table 4 (intra) rows by opponent z (ELF OpenGo, Go), shown
beside the measured rows for SA opponents at those z."""

SEARCH_KEYS = ("base", "model", "sims", "cpuct", "c", "open")
"""Options of an adaptive spec copied into its default baseline (the search it adapts)."""

ELO_MODES = ("elo-inter", "elo-intra", "bayes")
"""``mode=`` values of the ``dsa`` kind that adapt in Elo through the calibration."""


# ---- configuration ---------------------------------------------------------------------------
@dataclass(frozen=True)
class AdaptConfig:
    """One DSA experiment: every adaptive spec against every opponent, ``repeats`` series of
    ``games`` games each, and the opponents against the un-adapted ``baseline``.

    Invalid values raise :class:`~sparring.errors.ConfigError`; :meth:`from_mapping` also
    rejects unknown keys.
    """

    game: str
    """Registry name of the game."""
    adaptive: tuple[str, ...]
    """Specs of the adaptive players (e.g. ``dsa:mode=inter,model=connect4``)."""
    opponents: tuple[str, ...]
    """Specs of the opponents (distinct)."""
    games: int = 100
    """Games per series (the paper: 100)."""
    repeats: int = 5
    """Series per adaptive player and opponent (the paper: 5 inter-game, 1 intra-game)."""
    seed: int = 0
    """Base seed of every series and baseline match."""
    workers: int = 1
    """Worker processes."""
    baseline: str | None = None
    """The un-adapted player of the "w/o DSA" row; None: :func:`default_baseline` of the
    first adaptive spec (its search at its starting setting: z = 0 in the paper's modes)."""
    baseline_games: int | None = None
    """Games of each baseline match; None: ``games``; 0: no baseline row."""
    opponent_elos: tuple[float | None, ...] | None = None
    """The opponents' ladder Elos (aligned with :attr:`opponents`; None entries unknown)."""
    within: float = 100.0
    """Elo distance of the games-until-within table."""
    settle: int = 10
    """Games left out of the "after the first games" averages (and the last games that fix
    the empirical order of the separation rule)."""
    separation_margin: float = 0.0
    """Smallest gap between adjacent mean z lines for them to count as separated (z units)."""
    trace_games: int = 2
    """Example games per adaptive player and opponent whose per-move ``vbar_n`` and parameter
    ``traces.png`` plots (the paper's appendix 6 figures; alternately a game as first and as
    second player; 0: none)."""

    def __post_init__(self) -> None:
        _check_text("adapt", "game", self.game)
        for name in ("adaptive", "opponents"):
            specs = getattr(self, name)
            if not isinstance(specs, tuple) or not specs:
                raise ConfigError(f"adapt config: {name} must be a non-empty list of specs")
            for spec in specs:
                _check_text("adapt", name, spec)
            if len({s.strip() for s in specs}) < len(specs):
                raise ConfigError(f"adapt config: {name} has a spec twice")
        _check_int("adapt", "games", self.games, 1)
        _check_int("adapt", "repeats", self.repeats, 1)
        _check_int("adapt", "seed", self.seed, 0)
        _check_int("adapt", "workers", self.workers, 1)
        _check_int("adapt", "settle", self.settle, 0)
        _check_int("adapt", "trace_games", self.trace_games, 0)
        if self.baseline is not None:
            _check_text("adapt", "baseline", self.baseline)
        if self.baseline_games is not None:
            _check_int("adapt", "baseline_games", self.baseline_games, 0)
        if self.opponent_elos is not None and len(self.opponent_elos) != len(self.opponents):
            raise ConfigError(
                f"adapt config: {len(self.opponent_elos)} opponent Elos for "
                f"{len(self.opponents)} opponents"
            )
        if not (math.isfinite(self.within) and self.within > 0):
            raise ConfigError(f"adapt config: within must be > 0, not {self.within}")
        if not (math.isfinite(self.separation_margin) and self.separation_margin >= 0):
            raise ConfigError("adapt config: separation_margin must be >= 0")

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Self:
        """Build from a dict (e.g. a TOML table or results.json's ``config``); unknown keys
        raise ``ConfigError``; lists become tuples."""
        if isinstance(data, Mapping):
            data = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
        return _config_from_mapping(cls, data, "adapt")

    def to_mapping(self) -> dict[str, Any]:
        """The configuration as a JSON-compatible dict (the inverse of :meth:`from_mapping`)."""
        return {
            k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self).items()
        }

    @property
    def baseline_spec(self) -> str:
        """The spec of the "w/o DSA" player."""
        return self.baseline or default_baseline(self.adaptive[0])

    @property
    def baseline_match_games(self) -> int:
        """Games of each baseline match (0: none)."""
        return self.games if self.baseline_games is None else self.baseline_games

    def series_configs(self) -> list[SeriesConfig]:
        """The series runs, adaptive spec by adaptive spec, opponent by opponent."""
        return [
            SeriesConfig(
                self.game,
                adaptive,
                opponent,
                games_per_series=self.games,
                series=self.repeats,
                seed=self.seed,
                workers=self.workers,
            )
            for adaptive in self.adaptive
            for opponent in self.opponents
        ]

    def baseline_configs(self) -> list[MatchConfig]:
        """The "w/o DSA" matches, one per opponent (none when ``baseline_games`` is 0)."""
        if self.baseline_match_games == 0:
            return []
        return [
            MatchConfig(
                self.game,
                self.baseline_spec,
                opponent,
                games=self.baseline_match_games,
                seed=self.seed,
                workers=self.workers,
            )
            for opponent in self.opponents
        ]


def default_baseline(adaptive: str) -> str:
    """The un-adapted player of an adaptive spec: an ``sa`` player with the adaptive spec's
    search options (:data:`SEARCH_KEYS`) at its starting setting, held fixed.

    AlphaDDA kinds (``alphadda1-3``): ``az`` with the spec's ``model``, ``cpuct``, ``sims``
    and ``rootrand`` (AlphaZero, the player AlphaDDA weakens).
    The z-space modes (``inter``, ``intra``, and other kinds than ``dsa``): ``z = z0`` (0 by
    default) at ``R_th = rth`` (0.1), the paper's "w/o DSA" player (its SA player at z = 0);
    the Elo-space modes: the calibrated setting for their first target (``elo0``,
    default 1500), ``bayes``: for its prior mean (``prior``, default 1500).
    """
    from sparring.strength.dsa import BayesConfig, EloInterGameConfig, EloIntraGameConfig

    parsed = PlayerSpec.parse(adaptive)
    options = parsed.options
    if parsed.kind in ALPHADDA_KINDS:
        az = [f"{k}={options[k]}" for k in ("model", "cpuct", "sims", "rootrand") if k in options]
        return "az:" + ",".join(az) if az else "az"
    mode = adaptive_mode(adaptive)
    search = [f"{k}={v}" for k, v in options.items() if k in SEARCH_KEYS]
    if mode not in ELO_MODES:
        return "sa:" + ",".join(
            [*search, f"rth={options.get('rth', '0.1')}", f"z={options.get('z0', '0')}"]
        )
    if "calibration" in options:
        search.append(f"calibration={options['calibration']}")
    if mode == "bayes":
        start = options.get("prior", f"{BayesConfig().prior_mean:g}")
    elif mode == "elo-inter":
        start = options.get("elo0", f"{EloInterGameConfig().elo0:g}")
    else:
        start = options.get("elo0", f"{EloIntraGameConfig().elo0:g}")
    return "sa:" + ",".join([*search, f"elo={start}"])


def split_specs(text: str) -> tuple[str, ...]:
    """Split ``--opponents`` text into specs: on ``;`` when it holds one, else on commas,
    where a piece ``key=value`` without a ``:`` before its ``=`` continues the spec before it
    (``sa:z=2,rth=0.1,random`` is ``sa:z=2,rth=0.1`` and ``random``)."""
    if ";" in text:
        pieces = [p.strip() for p in text.split(";")]
        if not all(pieces):
            raise ConfigError(f"empty spec in {text!r}")
        return tuple(pieces)
    specs: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            raise ConfigError(f"empty spec in {text!r}")
        eq, colon = piece.find("="), piece.find(":")
        if eq >= 0 and (colon < 0 or colon > eq):
            if not specs:
                raise ConfigError(f"{piece!r} in {text!r} is an option with no spec before it")
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return tuple(specs)


def parse_elos(text: str, opponents: Sequence[str], game: str) -> tuple[float | None, ...]:
    """The opponents' ladder Elos from ``--opponent-elos``: sources joined by ``+``, each
    filling the opponents the earlier ones left unknown:

    * a ladder JSON file (:mod:`sparring.evaluation.ladder`): the opponents it rates;
    * ``calibration`` or ``calibration=PATH``: SA opponents at a fixed setting (``sa:...,z=Z``)
      get the calibration's Elo of that setting (default: the calibration shipped beside the
      game's network), on the calibration's (ladder) scale;
    * numbers separated by commas, one per opponent (``-`` for unknown).
    """
    elos: list[float | None] = [None] * len(opponents)
    for source in (part.strip() for part in text.split("+")):
        if source == "calibration" or source.startswith("calibration="):
            found = _calibration_elos(source.partition("=")[2] or None, opponents, game)
        elif source.endswith(".json") or Path(source).is_file():
            ladder = read_ladder(Path(source))
            found = []
            for spec in opponents:
                try:
                    found.append(ladder.by_spec(spec.strip()).elo)
                except ConfigError:
                    found.append(None)
        else:
            values = [v.strip() for v in source.split(",")]
            if len(values) != len(opponents):
                raise ConfigError(
                    f"--opponent-elos: {len(values)} values for {len(opponents)} opponents"
                )
            try:
                found = [None if v in ("-", "") else float(v) for v in values]
            except ValueError:
                raise ConfigError(
                    f"--opponent-elos: {source!r} is not numbers, a ladder file or calibration"
                ) from None
        elos = [old if old is not None else new for old, new in zip(elos, found, strict=True)]
    return tuple(elos)


def _calibration_elos(path: str | None, opponents: Sequence[str], game: str) -> list[float | None]:
    """The calibration's Elo of every SA opponent at a fixed setting (None for the others)."""
    from sparring.nn.zoo import default_model
    from sparring.players.settings import SASettings
    from sparring.strength.target import (
        calibration_path_for_model,
        elo_for_setting,
        load_calibration,
    )

    if path is None:
        model = default_model(game)
        found = None if model is None else calibration_path_for_model(model)
        if found is None:
            raise ConfigError(f"--opponent-elos: no calibration shipped for {game}")
        path = str(found)
    calibration = load_calibration(path)
    out: list[float | None] = []
    for spec in opponents:
        settings = parse_player(spec)
        strength = settings.strength if isinstance(settings, SASettings) else None
        out.append(None if strength is None else elo_for_setting(calibration, strength))
    return out


def adaptive_mode(spec: str) -> str:
    """The adaptation mode of an adaptive spec: a ``dsa`` spec's ``mode`` (its default when
    absent), ``inter`` for other kinds unless they have a ``mode=`` option."""
    parsed = PlayerSpec.parse(spec)
    if parsed.kind == "dsa":
        from sparring.players.settings import DSA_DEFAULT_MODE

        return parsed.options.get("mode", DSA_DEFAULT_MODE).lower()
    return parsed.options.get("mode", "inter").lower()


def opponent_z(spec: str) -> float | None:
    """The fixed z of an SA opponent spec (``sa:...,z=Z``), else None."""
    try:
        settings = parse_player(spec)
    except Exception:
        return None
    strength = getattr(settings, "strength", None)
    if getattr(settings, "kind", "") != "sa" or strength is None:
        return None
    return float(strength.z)


# ---- per-game numbers ------------------------------------------------------------------------
def _as_float(value: Any) -> float | None:
    """A JSON number or ``"inf"`` / ``"-inf"`` as a float (None for null or junk)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


@dataclass(frozen=True)
class GameNumbers:
    """What one game of a series says about the adaptive player (A)."""

    score: float
    """A's score: 1, 0.5 or 0."""
    z: float | None
    """The z on A's last annotated move (may be +-inf; None: no annotation)."""
    elo: float | None
    """The calibrated Elo on A's last annotated move."""
    estimate_elo: float | None
    """A's estimate of the opponent's Elo after the game."""
    estimate_z: float | None
    """A's estimate of the opponent's z after the game."""


def game_numbers(record: GameRecord) -> GameNumbers:
    """The numbers of one game, A being the adaptive player (see the module docstring)."""
    last: dict[str, Any] = {}
    if record.annotations is not None:
        parity = 0 if record.a_first else 1
        for index, note in enumerate(record.annotations):
            if index % 2 == parity and isinstance(note, dict) and "z" in note:
                last = note
    state = record.player_states[0] if record.player_states is not None else None
    state = state if isinstance(state, dict) else {}

    def estimate(own: str, key: str) -> float | None:
        for source, name in ((state, own), (state, key), (last, own), (last, key)):
            value = _as_float(source.get(name))
            if value is not None:
                return value
        return None

    return GameNumbers(
        score=record.score_a,
        z=_as_float(last.get("z")),
        elo=_as_float(last.get("elo")),
        estimate_elo=estimate("opponent_elo", "elo"),
        estimate_z=estimate("opponent_z", "z"),
    )


def series_matrix(
    records: Sequence[GameRecord], repeats: int, games: int, value: Callable[[GameNumbers], Any]
) -> np.ndarray:
    """A ``repeats x games`` float array of ``value`` of every stored game (NaN: missing)."""
    out = np.full((repeats, games), np.nan)
    for record in records:
        if record.pairing < repeats and record.game_index < games:
            v = value(game_numbers(record))
            out[record.pairing, record.game_index] = np.nan if v is None else v
    return out


# ---- statistics ------------------------------------------------------------------------------
@dataclass(frozen=True)
class WinRate:
    """A player's score over games, draws counted half, with a 95% normal interval."""

    games: int
    wins: int
    draws: int
    losses: int

    @classmethod
    def of(cls, scores: Sequence[float]) -> WinRate:
        """Count the scores (1, 0.5, 0)."""
        return cls(
            len(scores),
            sum(1 for s in scores if s == 1.0),
            sum(1 for s in scores if s == 0.5),
            sum(1 for s in scores if s == 0.0),
        )

    @property
    def rate(self) -> float | None:
        """Mean score (None without games)."""
        return None if self.games == 0 else (self.wins + 0.5 * self.draws) / self.games

    @property
    def ci95(self) -> float | None:
        """Half width of the 95% interval: ``1.96 * sd(scores) / sqrt(games)``."""
        p = self.rate
        if p is None:
            return None
        second = (self.wins + 0.25 * self.draws) / self.games
        return Z95 * math.sqrt(max(second - p * p, 0.0) / self.games)

    @property
    def shares(self) -> tuple[float, float, float] | None:
        """``(win, loss, draw)`` shares of the games, the paper's Tables 5-13 order (None
        without games)."""
        if self.games == 0:
            return None
        return (self.wins / self.games, self.losses / self.games, self.draws / self.games)

    @property
    def imbalance(self) -> float | None:
        """``|wins - losses| / games`` (None without games)."""
        return None if self.games == 0 else abs(self.wins - self.losses) / self.games

    @property
    def balanced(self) -> bool | None:
        """Whether ``|wins - losses| <= BALANCED_SHARE * games`` (None without games); exact
        2 more wins than losses in 10 games is balanced, 3 is not."""
        if self.games == 0:
            return None
        return abs(self.wins - self.losses) <= BALANCED_SHARE * self.games + 1e-9

    def __add__(self, other: WinRate) -> WinRate:
        return WinRate(
            self.games + other.games,
            self.wins + other.wins,
            self.draws + other.draws,
            self.losses + other.losses,
        )

    def to_json(self) -> dict[str, Any]:
        """All numbers as a dict."""
        return {
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "rate": self.rate,
            "ci95": self.ci95,
            "imbalance": self.imbalance,
            "balanced": self.balanced,
        }


def _d_metric(sides: Sequence[tuple[WinRate, WinRate]]) -> int:
    """The paper's performance metric D (Fujita 2022, appendix, Eq. 11) of AlphaDDA's wins and
    losses against each opponent as first and as second player (``sides``: one ``(as_first,
    as_second)`` pair per opponent), by the one implementation
    :func:`sparring.strength.alphadda.metric_d`.  0 is perfectly balanced; draws count nothing."""
    return metric_d(
        {
            str(i): SideCounts(
                wins_first=f.wins,
                losses_first=f.losses,
                draws_first=f.draws,
                wins_second=s.wins,
                losses_second=s.losses,
                draws_second=s.draws,
            )
            for i, (f, s) in enumerate(sides)
        }
    )


@dataclass(frozen=True)
class Moments:
    """Mean and population standard deviation of the finite values; infinities counted."""

    n: int
    mean: float | None
    sd: float | None
    plus_inf: int = 0
    minus_inf: int = 0

    @classmethod
    def of(cls, values: np.ndarray) -> Moments:
        """Of the non-NaN entries of ``values``."""
        v = np.asarray(values, dtype=float).ravel()
        v = v[~np.isnan(v)]
        finite = v[np.isfinite(v)]
        return cls(
            n=int(finite.size),
            mean=float(finite.mean()) if finite.size else None,
            sd=float(finite.std()) if finite.size else None,
            plus_inf=int(np.sum(v == np.inf)),
            minus_inf=int(np.sum(v == -np.inf)),
        )

    def to_json(self) -> dict[str, Any]:
        """All numbers as a dict."""
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class MoveTrace:
    """One example game's per-move value signal of an AlphaDDA player (the paper's appendix
    6 figures): for each of its moves, the turn (1-based ply of the game), ``v_n`` and
    ``vbar_n`` as annotated (the first player's side) and the parameter it set."""

    series: int
    game_index: int
    a_first: bool
    """Whether the adaptive player moved first (its colour ``c`` is +1)."""
    score: float
    """The adaptive player's score."""
    turns: tuple[int, ...]
    v: tuple[float | None, ...]
    vbar: tuple[float, ...]
    parameter: str | None
    """The annotation key of the parameter (:data:`TRACE_PARAMETERS`), None when absent."""
    values: tuple[float | None, ...]
    """The parameter on each move (None where absent)."""
    floor: tuple[float | None, ...] | None
    """The floor level on each move (``floor=on``), None when no move carries one."""

    @property
    def colour(self) -> int:
        """The paper's ``c_AlphaDDA``: +1 moving first, -1 second."""
        return 1 if self.a_first else -1

    def to_json(self) -> dict[str, Any]:
        """Every number."""
        return dataclasses.asdict(self)


def move_trace(record: GameRecord) -> MoveTrace | None:
    """The trace of the adaptive player (A) in one game; None when none of its moves carries
    a ``vbar`` annotation (not an AlphaDDA player)."""
    if record.annotations is None:
        return None
    parity = 0 if record.a_first else 1
    notes = [
        (i + 1, note)
        for i, note in enumerate(record.annotations)
        if i % 2 == parity and isinstance(note, dict) and _as_float(note.get("vbar")) is not None
    ]
    if not notes:
        return None
    key = next((k for k in TRACE_PARAMETERS if any(k in n for _, n in notes)), None)
    floors = [_as_float(n.get("floor")) for _, n in notes]
    return MoveTrace(
        series=record.pairing,
        game_index=record.game_index,
        a_first=record.a_first,
        score=record.score_a,
        turns=tuple(t for t, _ in notes),
        v=tuple(_as_float(n.get("v")) for _, n in notes),
        vbar=tuple(float(_as_float(n["vbar"]) or 0.0) for _, n in notes),
        parameter=key,
        values=tuple(None if key is None else _as_float(n.get(key)) for _, n in notes),
        floor=None if all(f is None for f in floors) else tuple(floors),
    )


def example_traces(records: Sequence[GameRecord], count: int) -> tuple[MoveTrace, ...]:
    """Up to ``count`` example traces from ``records`` (in series and game order),
    alternately a game where the adaptive player moved first and one where it moved second
    while both kinds are left."""
    ordered = sorted(records, key=lambda r: (r.pairing, r.game_index))
    pools = {
        first: [t for r in ordered if r.a_first == first and (t := move_trace(r)) is not None]
        for first in (True, False)
    }
    out: list[MoveTrace] = []
    turn = True
    while len(out) < count and (pools[True] or pools[False]):
        pool = pools[turn] or pools[not turn]
        out.append(pool.pop(0))
        turn = not turn
    return tuple(out)


def games_until_within(estimates: np.ndarray, target: float, within: float) -> int | None:
    """The smallest game number ``n`` (1-based) such that the estimate after game ``n`` and
    after every later game is within ``within`` of ``target``; None when the last is not
    (or is missing)."""
    close = np.abs(np.asarray(estimates, dtype=float) - target) <= within  # NaN -> False
    if close.size == 0 or not close[-1]:
        return None
    outside = np.flatnonzero(~close)
    return 1 if outside.size == 0 else int(outside[-1]) + 2


def separation_game(lines: np.ndarray, order: Sequence[int], margin: float = 0.0) -> int | None:
    """The smallest game number ``n`` (1-based) such that in game ``n`` and every later game
    the rows of ``lines`` (one per opponent, one column per game) taken in ``order`` (expected
    strongest first) are strictly decreasing with gaps of at least ``margin``; None when the
    last game is not so ordered or there are fewer than two lines."""
    values = np.asarray(lines, dtype=float)[list(order)]
    if values.shape[0] < 2 or values.shape[1] == 0:
        return None
    gaps = values[:-1] - values[1:]
    ok = np.all((gaps > 0) & (gaps >= margin), axis=0)  # NaN gaps -> False
    if not ok[-1]:
        return None
    bad = np.flatnonzero(~ok)
    return 1 if bad.size == 0 else int(bad[-1]) + 2


def expected_order(
    opponents: Sequence[str],
    elos: Sequence[float | None] | None,
    lines: np.ndarray,
    settle: int,
) -> tuple[list[int], str]:
    """The opponents' expected order (strongest first) and the rule that gave it: ladder Elos,
    else fixed SA z, else the mean over the last ``settle`` games of ``lines``."""
    if elos is not None and all(e is not None for e in elos):
        keys = [float(e) for e in elos if e is not None]
        return sorted(range(len(keys)), key=lambda i: -keys[i]), "ladder Elo"
    zs = [opponent_z(s) for s in opponents]
    if all(z is not None for z in zs):
        keys = [float(z) for z in zs if z is not None]
        return sorted(range(len(keys)), key=lambda i: -keys[i]), "opponent z"
    tail = np.asarray(lines, dtype=float)[:, -max(settle, 1) :]
    finite = np.where(np.isfinite(tail), tail, np.nan)
    means = [
        float(np.mean(row[~np.isnan(row)])) if np.any(~np.isnan(row)) else 0.0 for row in finite
    ]
    return sorted(range(len(means)), key=lambda i: -means[i]), "mean z of the last games"


def _nan_mean_sd(matrix: np.ndarray) -> tuple[list[float | None], list[float | None]]:
    """Per column mean and population sd over the rows (finite values only)."""
    means: list[float | None] = []
    sds: list[float | None] = []
    for column in np.asarray(matrix, dtype=float).T:
        finite = column[np.isfinite(column)]
        means.append(float(finite.mean()) if finite.size else None)
        sds.append(float(finite.std()) if finite.size else None)
    return means, sds


@dataclass(frozen=True)
class CellStats:
    """The numbers of one adaptive player against one opponent."""

    opponent: str
    """The opponent's spec."""
    label: str
    """The opponent's display label."""
    win: WinRate
    """The adaptive player's score."""
    z: Moments
    """The game's z over all games."""
    z_settled: Moments
    """The game's z over the games after the first ``settle``."""
    elo: Moments
    """The Elo played, over all games."""
    elo_settled: Moments
    """The Elo played after the first ``settle`` games."""
    estimate_final: Moments
    """The estimate of the opponent's Elo after each repeat's last game."""
    ladder_elo: float | None
    """The opponent's ladder Elo (None: not given)."""
    until_within: tuple[int | None, ...] | None
    """Per repeat, :func:`games_until_within` (None when no ladder Elo or no estimate)."""
    z_lines: np.ndarray = field(repr=False)
    """``repeats x games`` game z (NaN missing)."""
    elo_lines: np.ndarray = field(repr=False)
    """``repeats x games`` Elo played."""
    estimate_lines: np.ndarray = field(repr=False)
    """``repeats x games`` estimate of the opponent's Elo after each game."""
    scores: np.ndarray = field(repr=False)
    """``repeats x games`` scores (NaN missing)."""
    first: WinRate = WinRate(0, 0, 0, 0)
    """The adaptive player's score in the games it moved first."""
    second: WinRate = WinRate(0, 0, 0, 0)
    """The adaptive player's score in the games it moved second."""
    seconds: Moments = Moments(0, None, None)
    """Seconds per game: both players' think time (a game's cost)."""
    own_seconds: Moments = Moments(0, None, None)
    """Seconds per game the adaptive player thought."""
    traces: tuple[MoveTrace, ...] = ()
    """Example games' per-move value signal (:func:`example_traces`; AlphaDDA players)."""

    def to_json(self) -> dict[str, Any]:
        """Every number, the per-game series included (non-finite values as strings); not the
        think times (:meth:`AdaptResult.timing_json`), so that it is a function of the games'
        moves and results alone."""
        z_mean, z_sd = _nan_mean_sd(self.z_lines)
        est_mean, est_sd = _nan_mean_sd(self.estimate_lines)
        reached = [n for n in (self.until_within or ()) if n is not None]
        return {
            "opponent": self.opponent,
            "label": self.label,
            "win": self.win.to_json(),
            "first": self.first.to_json(),
            "second": self.second.to_json(),
            "z": self.z.to_json(),
            "z_settled": self.z_settled.to_json(),
            "elo": self.elo.to_json(),
            "elo_settled": self.elo_settled.to_json(),
            "estimate_final": self.estimate_final.to_json(),
            "ladder_elo": self.ladder_elo,
            "until_within": None if self.until_within is None else list(self.until_within),
            "until_within_mean": float(np.mean(reached)) if reached else None,
            "until_within_max": max(reached) if reached else None,
            "per_game": {
                "z_mean": z_mean,
                "z_sd": z_sd,
                "estimate_elo_mean": est_mean,
                "estimate_elo_sd": est_sd,
                "z": _json_matrix(self.z_lines),
                "elo": _json_matrix(self.elo_lines),
                "estimate_elo": _json_matrix(self.estimate_lines),
                "score": _json_matrix(self.scores),
            },
            "traces": [t.to_json() for t in self.traces],
        }


def _json_matrix(matrix: np.ndarray) -> list[list[float | str | None]]:
    out: list[list[float | str | None]] = []
    for row in np.asarray(matrix, dtype=float):
        out.append(
            [
                None
                if math.isnan(v)
                else ("inf" if v == math.inf else "-inf")
                if math.isinf(v)
                else float(v)
                for v in row
            ]
        )
    return out


def cell_stats(
    records: Sequence[GameRecord],
    *,
    opponent: str,
    label: str,
    repeats: int,
    games: int,
    settle: int,
    ladder_elo: float | None = None,
    within: float = 100.0,
    trace_games: int = 0,
) -> CellStats:
    """The numbers of one adaptive player (A) against one opponent from its series' games
    (those within ``repeats`` series of ``games`` games)."""
    wanted = [r for r in records if r.pairing < repeats and r.game_index < games]
    z = series_matrix(records, repeats, games, lambda g: g.z)
    elo = series_matrix(records, repeats, games, lambda g: g.elo)
    estimate = series_matrix(records, repeats, games, lambda g: g.estimate_elo)
    scores = series_matrix(records, repeats, games, lambda g: g.score)
    finals = [row[~np.isnan(row)][-1] for row in estimate if np.any(~np.isnan(row))]
    until = None
    if ladder_elo is not None and np.any(~np.isnan(estimate)):
        until = tuple(games_until_within(row, ladder_elo, within) for row in estimate)
    return CellStats(
        opponent=opponent,
        label=label,
        win=WinRate.of([float(s) for s in scores.ravel() if not math.isnan(s)]),
        z=Moments.of(z),
        z_settled=Moments.of(z[:, settle:]),
        elo=Moments.of(elo),
        elo_settled=Moments.of(elo[:, settle:]),
        estimate_final=Moments.of(np.array(finals, dtype=float)),
        ladder_elo=ladder_elo,
        until_within=until,
        z_lines=z,
        elo_lines=elo,
        estimate_lines=estimate,
        scores=scores,
        first=WinRate.of([r.score_a for r in wanted if r.a_first]),
        second=WinRate.of([r.score_a for r in wanted if not r.a_first]),
        seconds=Moments.of(np.array([sum(r.think_times) for r in wanted], dtype=float)),
        own_seconds=Moments.of(np.array([_own_seconds(r) for r in wanted], dtype=float)),
        traces=example_traces(wanted, trace_games),
    )


def _own_seconds(record: GameRecord) -> float:
    """Seconds the adaptive player (A) thought in ``record``."""
    parity = 0 if record.a_first else 1
    return float(sum(t for i, t in enumerate(record.think_times) if i % 2 == parity))


@dataclass(frozen=True)
class AdaptiveStats:
    """One adaptive player against all opponents."""

    spec: str
    label: str
    mode: str
    cells: tuple[CellStats, ...]
    order: tuple[int, ...]
    """Expected order of the opponents, strongest first (see :func:`expected_order`)."""
    order_rule: str
    separation_z: int | None
    """:func:`separation_game` of the mean z lines."""
    separation_estimate: int | None
    """:func:`separation_game` of the mean estimate-of-opponent-Elo lines (margin 0)."""

    @property
    def intra(self) -> bool:
        """Whether it adapts within games (a Table 4 analogue)."""
        return self.mode in INTRA_MODES

    @property
    def kind(self) -> str:
        """The player kind of the spec."""
        return PlayerSpec.parse(self.spec).kind

    @property
    def dsa_tables(self) -> bool:
        """Whether the report gives it the DSA tables (the Table 3-4 analogue, ``adapt.png``):
        every kind but AlphaDDA's (:data:`ALPHADDA_KINDS`), whose games carry no z."""
        return self.kind not in ALPHADDA_KINDS

    @property
    def d(self) -> int:
        """The metric D of Eq. 11 over all the opponents (:func:`_d_metric`)."""
        return _d_metric([(c.first, c.second) for c in self.cells])

    def max_imbalance(self, side: str = "all") -> float | None:
        """The largest ``|wins - losses| / games`` over the opponents (``side``: ``all``,
        ``first`` or ``second``); None when no opponent has games."""
        values = [v for c in self.cells if (v := _side(c, side).imbalance) is not None]
        return max(values) if values else None

    def balanced_count(self, side: str = "all") -> int:
        """The opponents it is balanced against (:attr:`WinRate.balanced`)."""
        return sum(1 for c in self.cells if _side(c, side).balanced)

    def to_json(self) -> dict[str, Any]:
        """Every number."""
        return {
            "spec": self.spec,
            "label": self.label,
            "mode": self.mode,
            "expected_order": [self.cells[i].opponent for i in self.order],
            "order_rule": self.order_rule,
            "separation_game_z": self.separation_z,
            "separation_game_estimate": self.separation_estimate,
            "d": self.d,
            "max_imbalance": {s: self.max_imbalance(s) for s in SIDES},
            "balanced_opponents": {s: self.balanced_count(s) for s in SIDES},
            "opponents": [c.to_json() for c in self.cells],
        }


SIDES = ("all", "first", "second")
"""All games, the games the adaptive player moved first, those it moved second."""


def _side(cell: CellStats, side: str) -> WinRate:
    """The cell's score over ``side`` (:data:`SIDES`)."""
    if side == "all":
        return cell.win
    if side == "first":
        return cell.first
    if side == "second":
        return cell.second
    raise ValueError(f"side must be one of {SIDES}, not {side!r}")


def _mean_line(matrix: np.ndarray) -> np.ndarray:
    means, _ = _nan_mean_sd(matrix)
    return np.array([np.nan if m is None else m for m in means])


def adaptive_stats(
    config: AdaptConfig,
    spec: str,
    label: str,
    results: Sequence[Sequence[GameRecord]],
    labels: Sequence[str],
) -> AdaptiveStats:
    """The numbers of adaptive player ``spec`` from its series against each opponent."""
    elos = config.opponent_elos
    cells = tuple(
        cell_stats(
            records,
            opponent=opponent,
            label=opp_label,
            repeats=config.repeats,
            games=config.games,
            settle=config.settle,
            ladder_elo=None if elos is None else elos[i],
            within=config.within,
            trace_games=config.trace_games,
        )
        for i, (opponent, opp_label, records) in enumerate(
            zip(config.opponents, labels, results, strict=True)
        )
    )
    z_lines = np.array([_mean_line(c.z_lines) for c in cells])
    est_lines = np.array([_mean_line(c.estimate_lines) for c in cells])
    order, rule = expected_order(config.opponents, elos, z_lines, config.settle)
    return AdaptiveStats(
        spec=spec,
        label=label,
        mode=adaptive_mode(spec),
        cells=cells,
        order=tuple(order),
        order_rule=rule,
        separation_z=separation_game(z_lines, order, config.separation_margin),
        separation_estimate=separation_game(est_lines, order),
    )


# ---- running ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class AdaptResult:
    """The games and numbers of a (possibly partly played) experiment."""

    config: AdaptConfig
    adaptive_labels: tuple[str, ...]
    opponent_labels: tuple[str, ...]
    baseline_label: str
    stats: tuple[AdaptiveStats, ...]
    baseline: tuple[WinRate, ...] | None
    """Per opponent, the baseline player's score (None: no baseline row)."""
    played: int
    """Games played by this call."""
    stored: int
    """Games of the experiment in the store."""
    expected: int
    """Games the experiment asks for."""
    baseline_sides: tuple[tuple[WinRate, WinRate], ...] | None = None
    """Per opponent, the baseline player's score as first and as second player."""
    baseline_seconds: tuple[tuple[Moments, Moments], ...] | None = None
    """Per opponent, the baseline games' seconds per game: both players' and its own."""

    @property
    def complete(self) -> bool:
        """Whether every game is stored."""
        return self.stored == self.expected

    def timing_json(self) -> list[dict[str, Any]]:
        """Per adaptive player and opponent, the seconds per game (both players' think time
        and the adaptive player's own): machine- and load-dependent, so kept out of
        :meth:`to_json`."""
        baseline = (
            [
                {
                    "spec": self.config.baseline_spec,
                    "baseline": True,
                    "opponents": [
                        {
                            "opponent": opponent,
                            "seconds_per_game": both.to_json(),
                            "own_seconds_per_game": own.to_json(),
                        }
                        for opponent, (both, own) in zip(
                            self.config.opponents, self.baseline_seconds, strict=True
                        )
                    ],
                }
            ]
            if self.baseline_seconds is not None
            else []
        )
        return baseline + [
            {
                "spec": stats.spec,
                "opponents": [
                    {
                        "opponent": cell.opponent,
                        "seconds_per_game": cell.seconds.to_json(),
                        "own_seconds_per_game": cell.own_seconds.to_json(),
                    }
                    for cell in stats.cells
                ],
            }
            for stats in self.stats
        ]

    def to_json(self) -> dict[str, Any]:
        """Every number of the report but the think times (:meth:`timing_json`)."""
        return {
            "config": self.config.to_mapping(),
            "baseline_spec": self.config.baseline_spec,
            "baseline_label": self.baseline_label,
            "opponent_labels": list(self.opponent_labels),
            "complete": self.complete,
            "games_stored": self.stored,
            "games_expected": self.expected,
            "baseline": None if self.baseline is None else [w.to_json() for w in self.baseline],
            "baseline_sides": None
            if self.baseline_sides is None
            else [[f.to_json(), s.to_json()] for f, s in self.baseline_sides],
            "adaptive": [s.to_json() for s in self.stats],
        }


def check_config(config: AdaptConfig) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """Validate the game and every spec before any game is played; returns the display labels
    of the adaptive players, the opponents and the baseline."""
    game = get_game(config.game)
    adaptive = player_labels(game, config.adaptive)
    opponents = player_labels(game, config.opponents)
    (baseline,) = player_labels(game, [config.baseline_spec])
    return adaptive, opponents, baseline


def run_adapt(
    config: AdaptConfig,
    store: GameStore | None = None,
    *,
    progress: bool = True,
    console: Console | None = None,
    on_game: GameCallback | None = None,
    stop_after: int | None = None,
) -> AdaptResult:
    """Play (or resume) the experiment: all series in one pool (:func:`run_series_set`), then
    the baseline matches; every game is stored as it ends (``store=None``: in memory).

    ``stop_after`` plays at most that many new games in all (series first); ``on_game`` gets
    every newly stored game (an exception it raises stops the run with the game stored).
    """
    adaptive_labels, opponent_labels, baseline_label = check_config(config)
    own = store is None
    db = GameStore(":memory:") if store is None else store
    try:
        series = run_series_set(
            config.series_configs(),
            db,
            workers=config.workers,
            progress=progress,
            console=console,
            on_game=on_game,
            stop_after=stop_after,
        )
        played = sum(s.played for s in series)
        budget = None if stop_after is None else stop_after - played
        baselines = []
        for match in config.baseline_configs():
            if budget is not None and budget <= 0:
                budget = 0
            result = run_match(
                match, db, progress=progress, console=console, on_game=on_game, stop_after=budget
            )
            played += result.played
            if budget is not None:
                budget -= result.played
            baselines.append(result)
        n = len(config.opponents)
        stats = tuple(
            adaptive_stats(
                config,
                spec,
                label,
                [series[a * n + o].records for o in range(n)],
                opponent_labels,
            )
            for a, (spec, label) in enumerate(zip(config.adaptive, adaptive_labels, strict=True))
        )
        baseline = (
            tuple(WinRate.of([r.score_a for r in b.records]) for b in baselines)
            if baselines
            else None
        )
        baseline_sides = (
            tuple(
                (
                    WinRate.of([r.score_a for r in b.records if r.a_first]),
                    WinRate.of([r.score_a for r in b.records if not r.a_first]),
                )
                for b in baselines
            )
            if baselines
            else None
        )
        baseline_seconds = (
            tuple(
                (
                    Moments.of(np.array([sum(r.think_times) for r in b.records], dtype=float)),
                    Moments.of(np.array([_own_seconds(r) for r in b.records], dtype=float)),
                )
                for b in baselines
            )
            if baselines
            else None
        )
        stored = sum(len(s.records) for s in series) + sum(len(b.records) for b in baselines)
        expected = sum(s.expected for s in series) + sum(b.expected for b in baselines)
        return AdaptResult(
            config=config,
            adaptive_labels=adaptive_labels,
            opponent_labels=opponent_labels,
            baseline_label=baseline_label,
            stats=stats,
            baseline=baseline,
            baseline_sides=baseline_sides,
            baseline_seconds=baseline_seconds,
            played=played,
            stored=stored,
            expected=expected,
        )
    finally:
        if own:
            db.close()


# ---- report ----------------------------------------------------------------------------------
def _pct(win: WinRate | None) -> str:
    if win is None or win.rate is None:
        return "-"
    return f"{100 * win.rate:.1f}% (±{100 * (win.ci95 or 0.0):.1f}%)"


def _num(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _moments(m: Moments, digits: int = 2) -> tuple[str, str]:
    infinite = []
    if m.plus_inf:
        infinite.append(f"{m.plus_inf}×+inf")
    if m.minus_inf:
        infinite.append(f"{m.minus_inf}×-inf")
    note = f" ({', '.join(infinite)} left out)" if infinite else ""
    return _num(m.mean, digits) + note, _num(m.sd, digits)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "| --- |" + " ---: |" * (len(header) - 1)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def adaptive_table(result: AdaptResult, stats: AdaptiveStats) -> str:
    """The Table 3 (inter-game) or Table 4 (intra-game) analogue of one adaptive player:
    one column per opponent."""
    k = result.config.settle
    header = ["", *(c.label for c in stats.cells)]
    rows: list[list[str]] = []
    if result.baseline is not None:
        rows.append([f"w/o DSA WR ({result.baseline_label})", *map(_pct, result.baseline)])
        rows.append(
            [
                "w/o DSA W/D/L",
                *(f"{w.wins}/{w.draws}/{w.losses}" for w in result.baseline),
            ]
        )
    rows.append([f"{stats.label} WR (draws ½)", *(_pct(c.win) for c in stats.cells)])
    rows.append(["W/D/L", *(f"{c.win.wins}/{c.win.draws}/{c.win.losses}" for c in stats.cells)])
    z_all = [_moments(c.z) for c in stats.cells]
    z_late = [_moments(c.z_settled) for c in stats.cells]
    rows.append(["Avg. z (all games)", *(m for m, _ in z_all)])
    rows.append(["Std. z (all games)", *(s for _, s in z_all)])
    rows.append([f"Avg. z (games > {k})", *(m for m, _ in z_late)])
    rows.append([f"Std. z (games > {k})", *(s for _, s in z_late)])
    opp_z = [opponent_z(c.opponent) for c in stats.cells]
    if any(z is not None for z in opp_z):
        rows.append(["opponent z", *(_num(z) for z in opp_z)])
    elo_all = [_moments(c.elo, 0) for c in stats.cells]
    rows.append(["Avg. Elo played", *(m for m, _ in elo_all)])
    rows.append(["Std. Elo played", *(s for _, s in elo_all)])
    rows.append(
        [
            "final estimate of opp. Elo (mean ± sd over repeats)",
            *(
                f"{_num(c.estimate_final.mean, 0)} ± {_num(c.estimate_final.sd, 0)}"
                for c in stats.cells
            ),
        ]
    )
    if any(c.ladder_elo is not None for c in stats.cells):
        rows.append(["opponent ladder Elo", *(_num(c.ladder_elo, 0) for c in stats.cells)])
    rows.append(["games", *(str(c.win.games) for c in stats.cells)])
    if any(z in PAPER_WITHOUT_DSA for z in opp_z):

        def paper(values: dict[float, float], unit: str) -> list[str]:
            return [
                "-" if z is None or z not in values else f"{values[z]:.{1 if unit else 2}f}{unit}"
                for z in opp_z
            ]

        rows.append(["*paper (Go): w/o DSA WR*", *paper(PAPER_WITHOUT_DSA, "%")])
        for name, values, unit in PAPER_ROWS["intra" if stats.intra else "inter"]:
            rows.append([f"*paper (Go): {name}*", *paper(values, unit)])
    return _table(header, rows)


def _wld(win: WinRate | None) -> str:
    """A cell of the win / loss / draw tables: the three shares, ✓ when balanced."""
    shares = None if win is None else win.shares
    if win is None or shares is None:
        return "-"
    return "/".join(f"{x:.2f}" for x in shares) + (" ✓" if win.balanced else "")


PAPER_ROW_KEYS: dict[str, tuple[str, ...]] = {
    "alphadda1": ("nh", "asim", "bsim0", "nmax"),
    "alphadda2": ("nh", "adrop", "pdrop0"),
    "alphadda3": ("nh", "c"),
}
"""The spec options of each AlphaDDA kind that its row of the paper's Tables 1-3 sets."""


def paper_kind(spec: str, game: str | None = None) -> str | None:
    """The AlphaDDA kind of ``spec`` when it is the paper's player, else None: a kind of
    :data:`ALPHADDA_KINDS` with no option but ``model``, ``name``, ``rootrand`` (the author's
    code's random root picks, with which the paper's tables were made) and, given ``game``, the
    options of :data:`PAPER_ROW_KEYS` at the values of the game's row of Tables 1-3
    (``alphadda1:nh=3,asim=2,bsim0=-1.4,nmax=200`` on Connect4).  A spec without options is
    the paper's player unless the game has a tuned default row (``TUNED_1`` ... in
    :mod:`sparring.players.alphadda`)."""
    from sparring.players.alphadda import TABLE_1, TABLE_2, TABLE_3

    parsed = PlayerSpec.parse(spec)
    kind = parsed.kind
    if kind not in ALPHADDA_KINDS:
        return None
    extra = {k: v for k, v in parsed.options.items() if k not in ("model", "name", "rootrand")}
    if not extra:  # the kind's default row: the paper's unless a tuned row is shipped
        from sparring.players.alphadda import DEFAULT_ROWS

        tuned = DEFAULT_ROWS[kind][0]
        return kind if game is None or game not in tuned else None
    tables: dict[str, dict[str, Any]] = {
        "alphadda1": dict(TABLE_1),
        "alphadda2": dict(TABLE_2),
        "alphadda3": dict(TABLE_3),
    }
    row = None if game is None else tables[kind].get(game)
    keys = PAPER_ROW_KEYS[kind]
    if row is None or not set(extra) <= set(keys):
        return None
    for key, text in extra.items():
        try:
            if float(text) != float(row[keys.index(key)]):
                return None
        except ValueError:
            return None
    return kind


def paper_opponent(spec: str) -> str | None:
    """The paper's name of an opponent spec (:data:`~sparring.experiments.alphadda_paper.
    PAPER_OPPONENTS`; options other than ``model`` and ``name`` make it another player, except
    ``rootrand`` of ``az``: the author's code's AlphaZero picks 20% of its root simulations at
    random)."""
    from sparring.experiments.alphadda_paper import PAPER_OPPONENTS

    parsed = PlayerSpec.parse(spec)
    same = {"model", "name"} | ({"rootrand"} if parsed.kind == "az" else set())
    if set(parsed.options) <= same:
        return PAPER_OPPONENTS.get(parsed.kind)
    return None


PAPER_GAMES_PER_SIDE = 50
"""Games per side and opponent behind the paper's Tables 5-13."""


def paper_win_rate(game: str, side: str, kind: str, opponent: str) -> WinRate | None:
    """The paper's result of AlphaDDA ``kind`` against ``opponent`` (the paper's name) as
    counts: rates times the 50 games per side (exact: the paper's side rates are multiples of
    0.02), ``all`` the sum of both sides; None when the paper has no such entry."""
    from sparring.experiments.alphadda_paper import PAPER_TABLES

    tables = PAPER_TABLES.get(game)
    if tables is None or side not in SIDES:
        return None
    if side == "all":
        first = paper_win_rate(game, "first", kind, opponent)
        second = paper_win_rate(game, "second", kind, opponent)
        return None if first is None or second is None else first + second
    row = tables["first" if side == "first" else "second"].get(kind, {}).get(opponent)
    if row is None:
        return None
    wins, losses, draws = (round(x * PAPER_GAMES_PER_SIDE) for x in row)
    return WinRate(PAPER_GAMES_PER_SIDE, wins, draws, losses)


def _pick(pair: tuple[WinRate, WinRate], side: str) -> WinRate:
    """The score over ``side`` from a ``(as_first, as_second)`` pair."""
    first, second = pair
    return first + second if side == "all" else first if side == "first" else second


def wld_row(
    label: str, sides: Sequence[tuple[WinRate, WinRate] | None], side: str = "all"
) -> list[str]:
    """One row of :func:`wld_table` from one ``(as_first, as_second)`` score pair per
    opponent (None: unknown): the cells, the opponents balanced against (of those known),
    the largest ``|W - L|`` share, D of Eq. 11 (:func:`_d_metric`; over one side: that
    side's half) and per game, and the games."""
    known = [pair for pair in sides if pair is not None]
    wins = [_pick(pair, side) for pair in known]
    imbalances = [w.imbalance for w in wins if w.imbalance is not None]
    d = _d_metric(known) if side == "all" else sum(abs(w.wins - w.losses) for w in wins)
    games = sum(w.games for w in wins)
    complete = len(known) == len(sides)
    return [
        label,
        *(_wld(None if pair is None else _pick(pair, side)) for pair in sides),
        f"{sum(1 for w in wins if w.balanced)}/{len(wins)}",
        _num(max(imbalances)) if imbalances else "-",
        str(d) if complete else "-",
        f"{d / games:.2f}" if complete and games else "-",
        str(games),
    ]


def wld_table(result: AdaptResult, side: str = "all") -> str:
    """The combined win / loss / draw table (the paper's Tables 5-13 analogue for every
    adaptive player at once): rows the adaptive players (first the un-adapted baseline when
    it was played), columns the opponents, each cell the win/loss/draw shares over
    ``side``'s games (✓: balanced), then how many opponents the row is balanced against, its
    largest ``|W - L|`` share, D of Eq. 11 over all games (over one side: that side's half
    of D), D per game, and the games; below each row of a paper AlphaDDA, the paper's
    numbers (:mod:`sparring.experiments.alphadda_paper`) for the opponents the paper has."""
    from sparring.experiments.alphadda_paper import PAPER_TABLE_NUMBER

    total = "D (Eq. 11)" if side == "all" else "Σ\\|W-L\\| (this side)"
    header = [
        "player",
        *result.opponent_labels,
        "balanced",
        "max \\|W-L\\| share",
        total,
        "per game",
        "games",
    ]
    rows: list[list[str]] = []
    game = result.config.game
    if result.baseline_sides is not None:
        label = f"w/o adaptation: {result.baseline_label}"
        rows.append(wld_row(label, result.baseline_sides, side))
    numbers: dict[str, int] = {k: v for k, v in PAPER_TABLE_NUMBER.get(game, {}).items()}
    for stats in result.stats:
        rows.append(wld_row(stats.label, [(c.first, c.second) for c in stats.cells], side))
        kind = paper_kind(stats.spec, game)
        if kind is None or not numbers:
            continue
        paper: list[tuple[WinRate, WinRate] | None] = []
        for cell in stats.cells:
            name = paper_opponent(cell.opponent)
            first = None if name is None else paper_win_rate(game, "first", kind, name)
            second = None if name is None else paper_win_rate(game, "second", kind, name)
            paper.append(None if first is None or second is None else (first, second))
        if any(pair is not None for pair in paper):
            rows.append(wld_row(f"*paper, Table {numbers[side]}: AlphaDDA{kind[-1]}*", paper, side))
    return _table(header, rows)


def seconds_table(result: AdaptResult) -> str:
    """Mean seconds per game (both players' think time; the adaptive player's own in
    brackets): rows the adaptive players, columns the opponents."""
    header = ["player", *result.opponent_labels, "all opponents"]
    lines: list[tuple[str, list[tuple[Moments, Moments]]]] = []
    if result.baseline_seconds is not None:
        lines.append((f"w/o adaptation: {result.baseline_label}", list(result.baseline_seconds)))
    for stats in result.stats:
        lines.append((stats.label, [(c.seconds, c.own_seconds) for c in stats.cells]))
    rows = []
    for label, cells in lines:
        row = [label]
        for both, own in cells:
            if both.mean is None or own.mean is None:
                row.append("-")
            else:
                row.append(f"{both.mean:.2f} ({own.mean:.2f})")
        n = sum(both.n for both, _ in cells)
        spent = sum((both.mean or 0.0) * both.n for both, _ in cells)
        row.append("-" if n == 0 else f"{spent / n:.2f}")
        rows.append(row)
    return _table(header, rows)


def within_table(result: AdaptResult) -> str | None:
    """Games until the estimate stays within ``within`` Elo of the ladder Elo: adaptive player
    x opponent (mean and max over the repeats that got there, and how many did)."""
    if result.config.opponent_elos is None:
        return None
    header = ["estimator", *result.opponent_labels]
    rows = []
    for stats in result.stats:
        row = [stats.label]
        for cell in stats.cells:
            if cell.until_within is None:
                row.append("-")
                continue
            reached = [n for n in cell.until_within if n is not None]
            total = len(cell.until_within)
            if not reached:
                row.append(f"never (0/{total})")
            else:
                row.append(f"{np.mean(reached):.1f} (max {max(reached)}, {len(reached)}/{total})")
        rows.append(row)
    return _table(header, rows)


def report_markdown(
    result: AdaptResult, command: str | None = None, note: str | None = None
) -> str:
    """The markdown report (see the module docstring for every definition); ``note`` is a
    paragraph put first (e.g. "smoke run")."""
    c = result.config
    lines = [f"# Dynamic strength adjustment on {c.game}", ""]
    if note:
        lines += [f"**{note}**", ""]
    if command:
        lines += ["Command:", "", "```", command, "```", ""]
    status = "complete" if result.complete else "INCOMPLETE (partial results)"
    baseline = (
        f'Baseline ("w/o DSA"): `{c.baseline_spec}`, {c.baseline_match_games} games per opponent.'
        if c.baseline_match_games
        else "No baseline games."
    )
    lines += [
        f"{c.games} games per series, {c.repeats} series per opponent, seed {c.seed}; "
        f"{result.stored} of {result.expected} games stored ({status}). The adaptive player "
        f"moves first in the even-numbered games of each series. {baseline}",
        "",
        "Adaptive players: "
        + ", ".join(f"{s.label} (`{s.spec}`)" for s in result.stats)
        + ". Opponents: "
        + ", ".join(
            f"{lab} (`{s}`)" for lab, s in zip(result.opponent_labels, c.opponents, strict=True)
        )
        + ".",
        "",
        "## Win / loss / draw by opponent (Tables 5-13 analogue)",
        "",
        "Each cell: the adaptive player's win / loss / draw shares against the opponent "
        f"(the paper's order); ✓: balanced, |wins - losses| <= {BALANCED_SHARE:g} of the "
        "games. Per row: the opponents it is balanced against, its largest |W - L| share, "
        "and D of Eq. 11 (Fujita 2022: the sum over the opponents of |wins - losses| as "
        "first player plus |wins - losses| as second player; 0 is perfect) or, over one "
        "side, that side's half of D. Italic rows: the paper's numbers for the same AlphaDDA "
        f"at its Table 1-3 setting (counts: rates x {PAPER_GAMES_PER_SIDE} games per side).",
        "",
    ]
    for side, title in (
        ("all", "All games (Tables 5, 8, 11)"),
        ("first", "As first player (Tables 6, 9, 12)"),
        ("second", "As second player (Tables 7, 10, 13)"),
    ):
        lines += [f"### {title}", "", wld_table(result, side), ""]
    lines += [
        "### Seconds per game",
        "",
        "Mean seconds per game, both players' think time (the adaptive player's own in "
        "brackets); games ran in parallel on shared cores, so these are upper bounds of the "
        "cost on an idle core.",
        "",
        seconds_table(result),
        "",
    ]
    dsa_players = [stats for stats in result.stats if stats.dsa_tables]
    if dsa_players:
        lines += [
            "## The DSA tables (every adaptive player but AlphaDDA)",
            "",
        ]
    lines += (
        [
            "WR: the adaptive player's mean score, draws counted half, ± the 95% normal interval "
            "(1.96 sd/sqrt(n) of the per-game scores). A game's z is the z on the adaptive "
            "player's last move of the game (inter-game: the z it played; intra-game: the paper's "
            "end-of-game z); averages over all games of all series (the paper's Table 3 and 4), "
            f"and over the games after the first {c.settle}. The estimate of the opponent after "
            "a game is the player's saved opponent_elo (its Elo played next where it keeps none).",
            "",
        ]
        if dsa_players
        else []
    )
    for stats in dsa_players:
        kind = "Table 4 analogue (intra-game)" if stats.intra else "Table 3 analogue (inter-game)"
        lines += [f"## {stats.label}: {kind}", "", f"Spec: `{stats.spec}`", ""]
        lines += [adaptive_table(result, stats), ""]
        order = " > ".join(stats.cells[i].label for i in stats.order)
        sep_z = stats.separation_z
        sep_e = stats.separation_estimate
        lines += [
            f"Separation (expected order by {stats.order_rule}: {order}): the mean z lines "
            "(mean over the series of each game's z) are strictly in this order"
            + (f" with gaps >= {c.separation_margin:g}" if c.separation_margin else "")
            + (
                f" from game {sep_z} on (through game {c.games})"
                if sep_z is not None
                else " not at the last game (never separated)"
            )
            + "; the mean estimated-opponent-Elo lines "
            + (f"from game {sep_e} on." if sep_e is not None else "not at the last game."),
            "",
        ]
    table = within_table(result)
    if table is not None:
        lines += [
            f"## Games until the estimate stays within {c.within:g} Elo of the ladder Elo",
            "",
            "Per series: the first game after which the estimate of the opponent's Elo stays "
            f"within {c.within:g} Elo through game {c.games}; mean and max over the series "
            "that got there, and how many did.",
            "",
            table,
            "",
        ]
    if dsa_players:
        lines += [f"Figure: [{FILES['plot']}]({FILES['plot']}) (Fig. 5 analogue).", ""]
    if any(cell.traces for stats in result.stats for cell in stats.cells):
        lines += [
            f"Figure: [{FILES['traces']}]({FILES['traces']}) (the paper's appendix 6 figures): "
            f"per AlphaDDA player and opponent, up to {c.trace_games} example games (the "
            "first ones stored, alternately as first and as second player): the mean value "
            "v̄_n c and the value v_n c from the player's own side (c its colour; +1: it is "
            "winning) and the parameter it set, against the turn (ply) of the game.",
            "",
        ]
    return "\n".join(lines)


def plot_adapt(result: AdaptResult, path: Path) -> Path:
    """The Fig. 5 analogue: per adaptive player (a row), the game's z (left) and the estimate
    of the opponent's Elo (right) against the game number, one line per opponent, mean over
    the series with a +-1 sd band (finite values only); dashed: the opponent's z / ladder Elo."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    rows = len(result.stats)
    figure = Figure(figsize=(12, 4.2 * rows))
    FigureCanvasAgg(figure)
    axes = figure.subplots(rows, 2, squeeze=False)
    x = np.arange(1, result.config.games + 1)
    colours = [f"C{i}" for i in range(10)]
    for row, stats in enumerate(result.stats):
        for col, (attr, ylabel) in enumerate(
            (("z_lines", "z of the game"), ("estimate_lines", "estimated opponent Elo"))
        ):
            ax = axes[row][col]
            for i, cell in enumerate(stats.cells):
                colour = colours[i % len(colours)]
                mean, sd = _nan_mean_sd(getattr(cell, attr))
                m = np.array([np.nan if v is None else v for v in mean])
                s = np.array([np.nan if v is None else v for v in sd])
                ax.plot(x, m, color=colour, label=cell.label, linewidth=1.4)
                ax.fill_between(x, m - s, m + s, color=colour, alpha=0.15, linewidth=0)
                target = opponent_z(cell.opponent) if col == 0 else cell.ladder_elo
                if target is not None and math.isfinite(target):
                    ax.axhline(target, color=colour, linestyle="--", linewidth=0.8)
            ax.set_xlabel("game")
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_ylabel(ylabel)
            ax.set_title(f"{stats.label} ({stats.mode})", fontsize=10)
            ax.grid(alpha=0.3)
            if col == 0:
                ax.legend(fontsize=8, title="opponent", title_fontsize=8)
    figure.suptitle(
        f"{result.config.game}: dynamic strength adjustment, mean over "
        f"{result.config.repeats} series (band: ±1 sd)",
        fontsize=11,
    )
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    return path


def plot_traces(result: AdaptResult, path: Path) -> Path | None:
    """The paper's appendix 6 figures: for every adaptive player with traces (AlphaDDA) two
    rows of panels, one column per opponent: the mean value ``vbar_n c`` (solid) and the
    value ``v_n c`` (dotted) from the player's own side against the turn, and the parameter
    it set (AlphaDDA1's ``N_sim``, AlphaDDA2's ``P_drop``, AlphaDDA3's ``C``; the floor level
    dashed on a right axis with ``floor=on``), one colour per example game.  None (no file)
    when no adaptive player has traces."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    players = [s for s in result.stats if any(c.traces for c in s.cells)]
    if not players:
        return None
    columns = len(result.opponent_labels)
    height = 2.6 * 2 * len(players)
    figure = Figure(figsize=(3.3 * columns, height))
    FigureCanvasAgg(figure)
    axes = figure.subplots(2 * len(players), columns, squeeze=False)
    for block, stats in enumerate(players):
        for col, cell in enumerate(stats.cells):
            top, bottom = axes[2 * block][col], axes[2 * block + 1][col]
            twin = None
            for i, trace in enumerate(cell.traces):
                colour = f"C{i % 10}"
                c = trace.colour
                side = "1st" if trace.a_first else "2nd"
                outcome = {1.0: "won", 0.5: "drew", 0.0: "lost"}[trace.score]
                label = f"s{trace.series} g{trace.game_index} ({side}, {outcome})"
                x = np.array(trace.turns)
                top.plot(
                    x, c * np.array(trace.vbar), color=colour, marker=".", markersize=3, label=label
                )
                v = np.array([np.nan if u is None else c * u for u in trace.v])
                top.plot(x, v, color=colour, linestyle=":", linewidth=0.9)
                values = np.array([np.nan if u is None else u for u in trace.values])
                bottom.plot(x, values, color=colour, marker=".", markersize=3)
                if trace.floor is not None:
                    twin = twin or bottom.twinx()
                    floor = np.array([np.nan if u is None else u for u in trace.floor])
                    twin.plot(x, floor, color=colour, linestyle="--", linewidth=0.9)
            parameter = next((t.parameter for t in cell.traces if t.parameter), None)
            top.set_ylim(-1.05, 1.05)
            top.axhline(0.0, color="grey", linewidth=0.6)
            top.set_title(f"{stats.label} vs {cell.label}", fontsize=9)
            bottom.set_xlabel("turn")
            if parameter == "sims":
                bottom.set_yscale("log")
            if twin is not None:
                twin.set_ylabel("floor level (dashed)", fontsize=8)
            for ax in (top, bottom):
                ax.xaxis.set_major_locator(MaxNLocator(integer=True))
                ax.grid(alpha=0.3)
            if col == 0:
                top.set_ylabel("v̄_n c (solid), v_n c (dotted)", fontsize=8)
                bottom.set_ylabel(parameter or "parameter", fontsize=8)
            if cell.traces:
                top.legend(fontsize=6, loc="lower left")
    figure.suptitle(
        f"{result.config.game}: per-move value signal and parameter of example games "
        "(own side: +1 = the adaptive player is winning)",
        fontsize=11,
    )
    figure.tight_layout(rect=(0, 0, 1, 1 - 0.5 / height))
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=64)
    return path


def _clean(value: Any) -> Any:
    """Non-finite floats as strings, for strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def write_report(
    result: AdaptResult, out: Path, command: str | None = None, note: str | None = None
) -> dict[str, Path]:
    """Write ``report.md``, ``results.json``, ``adapt.png`` (when some adaptive player is
    not an AlphaDDA) and ``traces.png`` (when some has traces) into ``out``; returns the paths
    written."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {key: out / name for key, name in FILES.items()}
    paths["report"].write_text(report_markdown(result, command, note))
    data = _clean(result.to_json())
    data["timing"] = _clean(result.timing_json())
    if command:
        data["command"] = command
    if note:
        data["note"] = note
    paths["results"].write_text(json.dumps(data, indent=1, allow_nan=False) + "\n")
    if any(stats.dsa_tables for stats in result.stats):
        plot_adapt(result, paths["plot"])
    else:
        del paths["plot"]
    if plot_traces(result, paths["traces"]) is None:
        del paths["traces"]
    return paths
