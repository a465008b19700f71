"""Putting ladder-only ratings into a calibration: ``sparring ladder-extend --into``.

A calibration (:mod:`sparring.experiments.calibration`) rates every setting of the
strength-adjusted player in one joint Bradley-Terry fit: its games against the baseline and
its links to the ladder together.  A level check (:mod:`sparring.experiments.target_check`)
rates the level it plays against the ladder players nearest its target alone.  Where the two
disagree (the same setting scores differently against the baseline's relatives than against
the ladder's players, which happens near the top of a ladder of other searches), the points a
target chooses are better rated the way the check rates them: :func:`rerate` replaces their
Elo and standard error by ratings against the ladder alone (the new rungs of ``sparring
ladder-extend``), keeping their games against the baseline for the record, and adds the
settings the calibration did not have.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from sparring.errors import ConfigError, UnknownPlayerError
from sparring.evaluation.rungs import RungResult
from sparring.players.registry import PlayerSpec
from sparring.strength.selection import StrengthSetting, parse_z
from sparring.strength.target import Calibration, CalibrationPoint, sa_spec

_SETTING_KEYS = ("z", "rth", "floor")


def setting_of(spec: str, calibration: Calibration) -> StrengthSetting:
    """The setting of ``spec``, an ``sa`` spec with ``calibration``'s search options and
    nothing but the setting and a display ``name`` besides (else :class:`ConfigError`)."""
    try:
        parsed = PlayerSpec.parse(spec)
    except UnknownPlayerError as exc:
        raise ConfigError(f"bad player spec {spec!r}: {exc}") from None
    if parsed.kind != "sa":
        raise ConfigError(f"{spec!r} is not a strength-adjusted (sa:) player")
    options = {k: v for k, v in parsed.options.items() if k != "name"}
    search = {k: v for k, v in options.items() if k not in _SETTING_KEYS}
    if search != dict(calibration.base):
        raise ConfigError(
            f"{spec!r} searches with {search}, the calibration with {dict(calibration.base)}"
        )
    if "z" not in options:
        raise ConfigError(f"{spec!r} names no z")
    try:
        return StrengthSetting(
            parse_z(options["z"]),
            float(options.get("rth", calibration.main_rth)),
            float(options.get("floor", 0.0)),
        )
    except ValueError as exc:
        raise ConfigError(f"bad setting in {spec!r}: {exc}") from None


def rerate(
    calibration: Calibration, rated: Sequence[RungResult], record: Mapping[str, Any]
) -> Calibration:
    """``calibration`` with each player of ``rated`` (an ``sa`` spec of its search, rated
    against the ladder alone) as the Elo, standard error and ladder games of its setting's
    point, the baseline's included; a setting it lacks becomes a new point (no games against
    the baseline).  ``record`` (e.g. the seed, the opponents, the games) is appended to the
    summary's ``ladder_ratings`` list with the settings it rated."""
    if not rated:
        raise ConfigError("no rated players to put into the calibration")
    new: dict[StrengthSetting, RungResult] = {}
    for result in rated:
        setting = setting_of(result.player.spec, calibration)
        if setting in new:
            raise ConfigError(f"{setting.label()} is rated twice")
        new[setting] = result
    points: list[CalibrationPoint] = []
    for point in calibration.points:
        rating = new.pop(point.setting) if point.setting in new else None
        points.append(
            point
            if rating is None
            else dataclasses.replace(
                point,
                elo=rating.player.elo,
                stderr=rating.player.stderr,
                ladder_games=rating.games,
            )
        )
    for setting, result in sorted(new.items(), key=lambda item: (item[0].floor, item[0].z)):
        spec = sa_spec(calibration.base, setting)
        player = result.player
        points.append(
            CalibrationPoint(
                setting, spec, player.name, player.elo, player.stderr, ladder_games=result.games
            )
        )
    summary = dict(calibration.summary)
    earlier = summary.get("ladder_ratings")
    labels = [setting_of(r.player.spec, calibration).label() for r in rated]
    entry = {"settings": labels, **record}
    summary["ladder_ratings"] = [*(earlier if isinstance(earlier, list) else []), entry]
    weakest = min(points, key=lambda p: p.elo)
    strongest = max(points, key=lambda p: p.elo)
    summary["weakest"] = {"setting": weakest.setting.label(), "elo": round(weakest.elo, 1)}
    summary["strongest"] = {"setting": strongest.setting.label(), "elo": round(strongest.elo, 1)}
    return dataclasses.replace(calibration, points=tuple(points), summary=summary)


__all__ = ["rerate", "setting_of"]
