"""The configuration of the dynamic strength adjustment experiment (:class:`AdaptConfig`) and
the command line's inputs to it: ``--opponents`` text split into specs, ``--opponent-elos``
read from numbers, a ladder or a calibration."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

from sparring.errors import ConfigError
from sparring.evaluation.ladder import read_ladder
from sparring.evaluation.match import MatchConfig, _check_int, _check_text, _config_from_mapping
from sparring.evaluation.series import SeriesConfig
from sparring.experiments.adapt.specs import default_baseline
from sparring.players.registry import parse_player
from sparring.players.settings import SASettings

STORE_NAME = "games.sqlite"
"""The game store in the output directory when no other is given."""


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
