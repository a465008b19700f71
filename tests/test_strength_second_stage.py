"""The floor's second stage in the target inversion (sparring.strength.target.StrengthCurve).

Hand-made calibrations: the first stage has a gap between floor 1 (the least visited legal
move) and the plateau at floor 0.95; where second-stage points (``1 < f <= 2``) are measured,
targets in the gap get a second-stage setting, every other target the first stage's.
Second-stage points on a line make the PCHIP interpolant that line, so the floor levels are
exact.
"""

from __future__ import annotations

import math

import pytest

from sparring.strength.selection import StrengthSetting
from sparring.strength.target import (
    Calibration,
    CalibrationPoint,
    elo_for_setting,
    setting_for_elo,
    strength_curve,
)

INF = math.inf

FIRST_STAGE = [  # (z, floor, elo)
    (INF, 0.0, 2000.0),
    (0.0, 0.0, 1800.0),
    (-INF, 0.0, 1500.0),
    (-INF, 0.9, 1100.0),
    (-INF, 0.95, 910.0),  # the plateau [0.95, 1)
    (-INF, 1.0, 600.0),  # the least visited legal move
]
SECOND_STAGE = [(-INF, 1.25, 700.0), (-INF, 1.5, 800.0), (-INF, 1.75, 900.0)]


def _calibration(points: list[tuple[float, float, float]]) -> Calibration:
    return Calibration(
        game="othello6",
        base={"base": "az", "model": "othello6", "sims": "200"},
        baseline=StrengthSetting(0.0, 0.1),
        scale="test",
        points=tuple(
            CalibrationPoint(StrengthSetting(z, 0.1, f), f"spec{i}", f"L{i}", elo, 20.0)
            for i, (z, f, elo) in enumerate(points)
        ),
    )


def test_without_second_stage_points_the_gap_plays_the_first_stage() -> None:
    cal = _calibration(FIRST_STAGE)
    curve = strength_curve(cal)
    assert curve.second is None and curve.low == 600.0 and curve.high == 2000.0
    # 700 lies between floor 1 (t = -3) and floor 0.95 (t = -2.95), two knots apart on a
    # PCHIP over six knots; the old inversion's answer: floor 0.98 or so, on the plateau.
    gap = setting_for_elo(cal, 700.0)
    assert gap.setting.z == -INF and 0.95 < gap.setting.floor < 1.0 and not gap.clamped
    assert elo_for_setting(cal, gap.setting) == pytest.approx(700.0)
    weakest = setting_for_elo(cal, 500.0)
    assert weakest.clamped and weakest.setting == StrengthSetting(-INF, 0.1, 1.0)
    assert weakest.expected_elo == 600.0


def test_second_stage_fills_the_gap_below_the_plateau() -> None:
    cal = _calibration(FIRST_STAGE + SECOND_STAGE)
    curve = strength_curve(cal)
    assert curve.second is not None and curve.split == 910.0
    assert list(curve.second.t) == [1.0, 1.25, 1.5, 1.75]
    assert (curve.low, curve.high) == (600.0, 2000.0)
    # On the line 600 + 400 (f - 1): 650 -> 1.125, 850 -> 1.625, 899 -> 1.7475.
    for elo, floor in ((650.0, 1.125), (700.0, 1.25), (850.0, 1.625), (899.0, 1.7475)):
        result = setting_for_elo(cal, elo)
        assert not result.clamped and result.setting.z == -INF
        assert result.setting.floor == pytest.approx(floor, abs=1e-9)
        assert elo_for_setting(cal, result.setting) == pytest.approx(elo)
    # The weakest Elo itself: floor 1 (the knot), not a setting on the plateau.
    assert setting_for_elo(cal, 600.0).setting == StrengthSetting(-INF, 0.1, 1.0)
    # Above the second stage's top (900) but below the split (910): the first stage, as before.
    above = setting_for_elo(cal, 905.0)
    assert 0.95 < above.setting.floor < 1.0
    # From the plateau up the first stage alone, the same settings as without the second stage.
    first_only = _calibration(FIRST_STAGE)
    for elo in (910.0, 1000.0, 1300.0, 1900.0, 2000.0):
        assert setting_for_elo(cal, elo).setting == setting_for_elo(first_only, elo).setting
    # Below the weakest: clamped to floor 1.
    assert setting_for_elo(cal, 550.0).setting == StrengthSetting(-INF, 0.1, 1.0)
    # A second-stage setting's Elo; beyond the measured f = 1.75 it is clamped to 900.
    assert elo_for_setting(cal, StrengthSetting(-INF, 0.1, 1.5)) == pytest.approx(800.0)
    assert elo_for_setting(cal, StrengthSetting(-INF, 0.1, 2.0)) == pytest.approx(900.0)


def test_second_stage_is_made_monotone_and_may_hold_the_weakest_point() -> None:
    # f = 1.25 measured above f = 1.5 (noise): pooled into one knot at f = 1.375, Elo 760.
    noisy = [(-INF, 1.25, 770.0), (-INF, 1.5, 750.0), (-INF, 1.75, 900.0)]
    curve = strength_curve(_calibration(FIRST_STAGE + noisy))
    assert curve.second is not None
    assert list(curve.second.t) == [1.0, 1.375, 1.75]
    assert list(curve.second.elo) == [600.0, 760.0, 900.0]
    assert setting_for_elo(_calibration(FIRST_STAGE + noisy), 760.0).setting.floor == 1.375
    # f = 1.1 measured below f = 1: the weakest setting is f = 1.1, and the range starts there.
    lower = [(-INF, 1.1, 580.0), (-INF, 1.5, 800.0)]
    cal = _calibration(FIRST_STAGE + lower)
    curve = strength_curve(cal)
    assert curve.low == 580.0 and curve.weakest() == StrengthSetting(-INF, 0.1, 1.1)
    clamped = setting_for_elo(cal, 500.0)
    assert clamped.clamped and clamped.setting == StrengthSetting(-INF, 0.1, 1.1)
    assert clamped.expected_elo == 580.0
    # 590: below floor 1 but covered by the second stage (580 at 1.1 up to 800 at 1.5).
    assert setting_for_elo(cal, 590.0).setting.floor == pytest.approx(1.1 + 0.4 * 10 / 220)


def test_a_second_stage_without_floor_one_is_not_used() -> None:
    points = [p for p in FIRST_STAGE if p[1] != 1.0] + SECOND_STAGE
    curve = strength_curve(_calibration(points))
    assert curve.second is None and curve.low == 910.0
