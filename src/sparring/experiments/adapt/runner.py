"""Running the dynamic strength adjustment experiment: every series and baseline match
played (or resumed) and stored, and the numbers of :mod:`.statistics` gathered into one
:class:`AdaptResult`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from rich.console import Console

from sparring.evaluation.backend import Backend
from sparring.evaluation.match import GameCallback, player_labels, run_match
from sparring.evaluation.series import run_series_set
from sparring.evaluation.store import GameStore
from sparring.experiments.adapt.config import AdaptConfig
from sparring.experiments.adapt.statistics import (
    AdaptiveStats,
    Moments,
    WinRate,
    _own_seconds,
    adaptive_stats,
)
from sparring.games import get_game


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
    backend: Backend | None = None,
) -> AdaptResult:
    """Play (or resume) the experiment: all series in one pool (:func:`run_series_set`), then
    the baseline matches; every game is stored as it ends (``store=None``: in memory).

    ``stop_after`` plays at most that many new games in all (series first); ``on_game`` gets
    every newly stored game (an exception it raises stops the run with the game stored).
    ``backend`` plays the games (default: the local pool of ``config.workers``).
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
            backend=backend,
        )
        played = sum(s.played for s in series)
        budget = None if stop_after is None else stop_after - played
        baselines = []
        for match in config.baseline_configs():
            if budget is not None and budget <= 0:
                budget = 0
            result = run_match(
                match,
                db,
                progress=progress,
                console=console,
                on_game=on_game,
                stop_after=budget,
                backend=backend,
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
