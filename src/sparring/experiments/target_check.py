"""Checking target strengths in play: is a player asked for Elo X measured at Elo X?

For each target Elo, the strength-adjusted player ``sa:BASE,calibration=FILE,elo=X`` (the
setting :func:`~sparring.strength.target.setting_for_elo` picks) plays ``games`` games,
colours alternating, against each of the ``opponents`` ladder players nearest to ``X``; its
Elo is then fitted from those games with the ladder's ratings held fixed
(:func:`~sparring.evaluation.ladder.fit_against_ladder`), the scale the calibration itself
was measured on.  Games go through the resumable match runner, so a re-run replays nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from sparring.errors import ConfigError
from sparring.evaluation.backend import Backend
from sparring.evaluation.ladder import Ladder, LadderFit, LadderPlayer
from sparring.evaluation.rungs import rate_against
from sparring.evaluation.store import GameStore
from sparring.strength.target import Calibration, TargetResult, sa_spec, setting_for_elo


@dataclass(frozen=True)
class TargetCheck:
    """One target Elo played against the ladder."""

    target: float
    """The Elo asked for."""
    spec: str
    """The player spec that was played."""
    chosen: TargetResult
    """The setting the calibration chose for the target."""
    fit: LadderFit
    """Its Elo measured from the games, ladder ratings held fixed."""
    scores: dict[str, float]
    """Mean score against each opponent (by ladder name)."""

    @property
    def error(self) -> float:
        """Measured minus asked-for Elo."""
        return self.fit.elo - self.target


def nearest_rungs(ladder: Ladder, elo: float, count: int) -> list[LadderPlayer]:
    """The ``count`` ladder players rated closest to ``elo`` (see :meth:`Ladder.nearest`)."""
    return ladder.nearest(elo, count)


def target_spec(calibration: Calibration, calibration_path: Path, elo: float) -> str:
    """The ``sa`` spec of the player asked for ``elo`` under ``calibration``.

    Its name carries the setting the calibration chooses, so that a changed calibration file
    makes a new player (and new games in the store) instead of reusing the old games."""
    chosen = setting_for_elo(calibration, elo).setting.label().replace(",", "/")
    name = f"SA[elo={elo:g}/{chosen}]"
    return sa_spec(calibration.base, calibration=calibration_path, elo=elo, name=name)


def check_targets(
    calibration: Calibration,
    calibration_path: Path,
    targets: Sequence[float],
    ladder: Ladder,
    store: GameStore,
    opponents: int = 4,
    games: int = 50,
    seed: int = 0,
    workers: int = 1,
    console: Console | None = None,
    backend: Backend | None = None,
) -> list[TargetCheck]:
    """Play and rate every target (see the module docstring); ``backend`` plays the games
    (None: the local pool of ``workers`` processes)."""
    if ladder.game != calibration.game:
        raise ConfigError(f"the ladder is for {ladder.game}, not {calibration.game}")
    if games < 1 or workers < 1:
        raise ConfigError("games and workers must be >= 1")
    checks: list[TargetCheck] = []
    for target in targets:
        chosen = setting_for_elo(calibration, target)
        spec = target_spec(calibration, calibration_path, target)
        fit, scores = rate_against(
            calibration.game,
            spec,
            nearest_rungs(ladder, target, opponents),
            store,
            games,
            seed,
            workers,
            console,
            backend,
        )
        checks.append(TargetCheck(target, spec, chosen, fit, scores))
    return checks


def checks_markdown(
    calibration: Calibration, calibration_path: Path, checks: Sequence[TargetCheck], games: int
) -> str:
    """A markdown table: target, chosen setting, measured Elo with its interval, error."""
    lines = [
        f"Targets of `{calibration_path}` ({calibration.game}; {calibration.scale}); "
        f"{games} games against each of the nearest ladder players, colours alternating.",
        "",
        "| target | setting chosen | measured Elo (95%) | error | games | scores |",
        "| ---: | --- | ---: | ---: | ---: | --- |",
    ]
    for c in checks:
        note = " (outside the range)" if c.chosen.clamped else ""
        scores = ", ".join(f"{name} {s:.2f}" for name, s in c.scores.items())
        lines.append(
            f"| {c.target:.0f} | {c.chosen.setting.label()}{note} | {c.fit.elo:.0f} ± "
            f"{1.96 * c.fit.stderr:.0f} | {c.error:+.0f} | {c.fit.games} | {scores} |"
        )
    errors = [abs(c.error) for c in checks]
    if errors:
        signed = sum(c.error for c in checks) / len(checks)
        within = sum(e <= 50 for e in errors)
        lines += [
            "",
            f"Largest error {max(errors):.0f} Elo; mean absolute error "
            f"{sum(errors) / len(errors):.0f} Elo; mean signed error {signed:+.1f} Elo; "
            f"{within} of {len(errors)} within 50 Elo (errors unrounded: "
            + ", ".join(f"{c.error:+.1f}" for c in checks)
            + ").",
        ]
    return "\n".join(lines) + "\n"


__all__ = ["TargetCheck", "check_targets", "checks_markdown", "nearest_rungs", "target_spec"]
