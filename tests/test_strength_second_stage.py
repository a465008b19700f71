"""The floor's second stage in the target inversion (sparring.strength.target.StrengthCurve).

Hand-made calibrations: the first stage has a gap between floor 1 (the least visited legal
move) and the plateau at floor 0.95; where second-stage points (``1 < f <= 2``) are measured,
every target they cover gets a second-stage setting (in the gap and above the plateau; on a
ladder scale f = 2 is Random), every other target the first stage's.
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
    random_elo_of,
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


def _calibration(
    points: list[tuple[float, float, float]], ladder: dict[str, float] | None = None
) -> Calibration:
    return Calibration(
        game="othello6",
        base={"base": "az", "model": "othello6", "sims": "200"},
        baseline=StrengthSetting(0.0, 0.1),
        scale="test",
        points=tuple(
            CalibrationPoint(StrengthSetting(z, 0.1, f), f"spec{i}", f"L{i}", elo, 20.0)
            for i, (z, f, elo) in enumerate(points)
        ),
        summary={} if ladder is None else {"ladder": ladder},
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
    assert curve.second is not None and curve.first.elo[1] == 910.0  # the plateau
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
    # Above the second stage's top (900), below the plateau (910): the first stage, as before.
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


def test_second_stage_is_used_above_the_plateau_where_it_reaches() -> None:
    # The second stage measured up to 960 at f = 1.9, above the plateau (910): the targets
    # between the plateau and 960 get second-stage settings, not first-stage settings on the
    # steps between f = 0.9 and 0.95 (docs/strength/lowend-bias.md).
    high = [*SECOND_STAGE, (-INF, 1.9, 960.0)]  # 1.9 on the line 600 + 400 (f - 1)
    cal = _calibration(FIRST_STAGE + high)
    for elo, floor in ((905.0, 1.7625), (930.0, 1.825), (960.0, 1.9)):
        result = setting_for_elo(cal, elo)
        assert result.setting.z == -INF and not result.clamped
        assert result.setting.floor == pytest.approx(floor, abs=1e-9)
    # Above the second stage's top: the first stage, between 0.9 (1100) and 0.95 (910).
    assert 0.9 < setting_for_elo(cal, 1000.0).setting.floor < 0.95


def test_f_two_is_random_on_a_ladder_scale() -> None:
    # On a ladder with Random = 1000 and no f = 2 point, the second stage ends at (2, 1000):
    # on the line 600 + 400 (f - 1) again, so the floor levels are exact.
    ladder = {"Random": 1000.0, "MCTS1": 1900.0}
    cal = _calibration(FIRST_STAGE + SECOND_STAGE, ladder)
    assert random_elo_of(cal) == 1000.0
    curve = strength_curve(cal)
    assert curve.second is not None
    assert list(curve.second.t) == [1.0, 1.25, 1.5, 1.75, 2.0]
    assert curve.second.high == 1000.0
    for elo, floor in ((950.0, 1.875), (1000.0, 2.0), (700.0, 1.25)):
        assert setting_for_elo(cal, elo).setting.floor == pytest.approx(floor, abs=1e-9)
    assert elo_for_setting(cal, StrengthSetting(-INF, 0.1, 2.0)) == pytest.approx(1000.0)
    # Above Random: the first stage as before.
    assert 0.9 < setting_for_elo(cal, 1050.0).setting.floor < 0.95
    # Without the ladder the second stage ends at its last point (900 at 1.75), and 950 is
    # played by the first stage.
    assert (
        0.9 < setting_for_elo(_calibration(FIRST_STAGE + SECOND_STAGE), 950.0).setting.floor < 0.95
    )
    # A measured f = 2 point is kept (no anchor added): 1000 lies between 1.75 and 2.
    measured = _calibration([*FIRST_STAGE, *SECOND_STAGE, (-INF, 2.0, 1080.0)], ladder)
    second = strength_curve(measured).second
    assert second is not None and list(second.elo) == [600.0, 700.0, 800.0, 900.0, 1080.0]
    assert 1.75 < setting_for_elo(measured, 1000.0).setting.floor < 2.0


def test_random_elo_needs_a_ladder_with_random() -> None:
    assert random_elo_of(_calibration(FIRST_STAGE)) is None
    assert random_elo_of(_calibration(FIRST_STAGE, {"MCTS1": 1900.0})) is None
    assert random_elo_of(_calibration(FIRST_STAGE, {"Random": 0.0})) == 0.0
