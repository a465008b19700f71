"""Re-measuring the floor of an existing calibration: :func:`merge_floor` and
``sparring calibrate --merge-floor``."""

from __future__ import annotations

import dataclasses
import json
import math
import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from sparring.errors import ConfigError
from sparring.experiments.calibration import merge_floor
from sparring.strength.selection import StrengthSetting
from sparring.strength.target import (
    Calibration,
    CalibrationPoint,
    load_calibration,
    save_calibration,
    setting_for_elo,
)

INF = math.inf


def _cal(points: list[tuple[float, float, float]], summary: dict[str, object]) -> Calibration:
    """A connect4 calibration of ``(z, floor, elo)`` points at ``R_th = 0.1``."""
    return Calibration(
        game="connect4",
        base={"base": "az", "model": "connect4", "sims": "200"},
        baseline=StrengthSetting(0.0, 0.1),
        scale="ladder",
        points=tuple(
            CalibrationPoint(StrengthSetting(z, 0.1, f), f"spec{z}/{f}", f"L{z}/{f}", elo, 20.0)
            for z, f, elo in points
        ),
        games_per_point=200,
        model_sha256="abc",
        summary=summary,
    )


OLD = _cal(
    [
        (0.0, 0.0, 2000.0),
        (INF, 0.0, 2200.0),
        (-INF, 0.0, 1800.0),
        (-INF, 0.5, 1500.0),
        (-INF, 0.9, 900.0),
        (-INF, 1.0, 650.0),
    ],
    {"seed": 2026, "weakest": {"setting": "old", "elo": 650.0}},
)
UPDATE = _cal(
    [(0.0, 0.0, 3000.0), (-INF, 0.9, 850.0), (-INF, 0.95, 760.0), (-INF, 1.0, 600.0)],
    {"seed": 2026, "link_games": 80, "floor_opponents": ["random", "uct5"]},
)


def test_merge_replaces_same_settings_adds_new_ones_and_keeps_the_rest() -> None:
    merged = merge_floor(OLD, UPDATE)
    got = [(p.z, p.floor, p.elo) for p in merged.points]
    # The old order with floor 0.9 and 1 replaced, the new level 0.95 added at the end; the
    # update's baseline (3000) is not a floor point and is not taken.
    assert got == [
        (0.0, 0.0, 2000.0),
        (INF, 0.0, 2200.0),
        (-INF, 0.0, 1800.0),
        (-INF, 0.5, 1500.0),
        (-INF, 0.9, 850.0),
        (-INF, 1.0, 600.0),
        (-INF, 0.95, 760.0),
    ]
    assert merged.summary["weakest"] == {"setting": "z=-inf,rth=0.1,floor=1", "elo": 600.0}
    assert merged.summary["strongest"] == {"setting": "z=+inf,rth=0.1", "elo": 2200.0}
    record = {
        "floor": [0.9, 0.95, 1.0],
        "link_games": 80,
        "seed": 2026,
        "floor_opponents": ["random", "uct5"],
    }
    assert merged.summary["floor_updates"] == [record]
    # A second update (floor 1 again, more games) is recorded after the first.
    again = dataclasses.replace(
        UPDATE, points=UPDATE.points[-1:], summary={"link_games": 160, "seed": 2026}
    )
    twice = merge_floor(merged, again)
    assert twice.summary["floor_updates"] == [
        record,
        {"floor": [1.0], "link_games": 160, "seed": 2026},
    ]
    assert [p.elo for p in twice.points] == [p.elo for p in merged.points]
    assert merged.summary["seed"] == 2026 and merged.games_per_point == 200
    assert OLD.summary["weakest"] == {"setting": "old", "elo": 650.0}  # not mutated
    # The target inversion sees the new points: 850 is floor 0.9 exactly.
    chosen = setting_for_elo(merged, 850.0).setting
    assert chosen.z == -INF and chosen.floor == pytest.approx(0.9)


def test_merge_adds_points_of_the_z_curve_that_the_target_then_uses() -> None:
    """A z-only update (``--z -5 --floor none``): its new z points go in after the old
    points, the record names their z, and a target between -inf and -2 now lands on them."""
    old = _cal([(0.0, 0.0, 2000.0), (-2.0, 0.0, 1900.0), (-INF, 0.0, 1700.0)], {"seed": 1})
    update = _cal([(0.0, 0.0, 2010.0), (-5.0, 0.0, 1850.0), (-10.0, 0.0, 1780.0)], {"seed": 7})
    merged = merge_floor(old, update)
    assert [(p.z, p.elo) for p in merged.points] == [
        (0.0, 2000.0),  # the old baseline stays
        (-2.0, 1900.0),
        (-INF, 1700.0),
        (-10.0, 1780.0),
        (-5.0, 1850.0),
    ]
    assert merged.summary["floor_updates"] == [{"floor": [], "z": [-10.0, -5.0], "seed": 7}]
    assert setting_for_elo(merged, 1850.0).setting.z == pytest.approx(-5.0)
    assert setting_for_elo(old, 1850.0).setting.z != pytest.approx(-5.0)


@pytest.mark.parametrize(
    "change",
    [
        {"game": "othello6"},
        {"scale": "relative"},
        {"model_sha256": "def"},
        {"base": {"base": "az", "model": "connect4", "sims": "100"}},
        {"baseline": StrengthSetting(1.0, 0.1)},
    ],
)
def test_merge_refuses_another_scale_or_player(change: dict[str, object]) -> None:
    with pytest.raises(ConfigError, match="cannot merge the update"):
        merge_floor(OLD, dataclasses.replace(UPDATE, **change))  # type: ignore[arg-type]


def test_merge_needs_floor_points() -> None:
    no_floor = dataclasses.replace(UPDATE, points=UPDATE.points[:1])
    with pytest.raises(ConfigError, match="no points but its baseline"):
        merge_floor(OLD, no_floor)


def test_cli_floor_only_run_merged_into_a_calibration(tmp_path: Path) -> None:
    from sparring.cli.strength import register

    ladder = tmp_path / "ladder.json"
    ladder.write_text(
        json.dumps(
            {
                "game": "tictactoe",
                "anchor": "Random=1000",
                "players": [{"name": "Random", "spec": "random", "elo": 1000.0, "stderr": 0.0}],
            }
        )
    )
    app = typer.Typer()
    register(app)
    app.command("noop")(lambda: None)
    runner = CliRunner()

    def calibrate(*extra: str) -> None:
        args = ["calibrate", "tictactoe", "--base", "base=uct,sims=20", "--rth", "0.1"]
        args += ["--ladder", str(ladder), "--store", str(tmp_path / "s.sqlite"), "--no-progress"]
        result = runner.invoke(app, [*args, *extra])
        assert result.exit_code == 0, result.output

    full = tmp_path / "full"
    calibrate(
        "--z=-inf,0,inf", "--floor", "0.5", "--games", "2", "--link-games", "2", "--out", str(full)
    )
    shipped = tmp_path / "shipped.calibration.json"
    save_calibration(load_calibration(full / "calibration.json"), shipped)
    before = load_calibration(shipped)
    # Floor only: no z grid, the baseline plays no ladder link, one game per setting against
    # the baseline; written over the shipped file it was merged with.
    calibrate(
        "--z",
        "none",
        "--floor",
        "0.5,1",
        "--games",
        "1",
        "--ladder-opponents",
        "",
        "--floor-opponents",
        "random",
        "--link-games",
        "3",
        "--out",
        str(tmp_path / "f"),
        "--calibration",
        str(shipped),
        "--merge-floor",
        str(shipped),
    )
    after = load_calibration(shipped)
    old = {p.setting: p for p in before.points}
    new = {p.setting: p for p in after.points}
    assert set(new) == set(old) | {StrengthSetting(-INF, 0.1, 1.0)}
    for setting in (StrengthSetting(0.0, 0.1), StrengthSetting(INF, 0.1), StrengthSetting(-INF)):
        assert new[setting] == old[setting]  # the grid is kept as it was
    half = StrengthSetting(-INF, 0.1, 0.5)
    assert new[half].games == 1 and old[half].games == 2  # re-measured by the floor-only run
    assert after.summary["floor_updates"] == [
        {"floor": [0.5, 1.0], "link_games": 3, "seed": 0, "floor_opponents": ["random"]}
    ]


def _with(cal: Calibration, floor: float, **change: object) -> Calibration:
    """``cal`` with its floor point of level ``floor`` changed."""
    points = tuple(
        dataclasses.replace(p, **change) if p.floor == floor else p  # type: ignore[arg-type]
        for p in cal.points
    )
    return dataclasses.replace(cal, points=points)


def test_pool_combines_by_inverse_variance_and_adds_the_rest() -> None:
    old = _with(OLD, 1.0, games=1, score=0.0)  # 650 +- 20
    update = _with(_with(UPDATE, 1.0, stderr=40.0, games=3, score=1.0), 0.9, stderr=20.0)
    pooled = merge_floor(old, update, pool=True)
    by = {(p.z, p.floor): p for p in pooled.points}
    # Floor 1: weights 1/400 and 1/1600: (650*4 + 600*1)/5 = 640, stderr (5/1600)^-1/2 = 17.889.
    assert by[(-INF, 1.0)].elo == pytest.approx(640.0)
    assert by[(-INF, 1.0)].stderr == pytest.approx(1600**0.5 / 5**0.5)
    assert by[(-INF, 1.0)].games == 4 and by[(-INF, 1.0)].score == pytest.approx(0.75)
    # Floor 0.9: equal errors, the mean of 900 and 850; stderr 20/sqrt(2).
    assert by[(-INF, 0.9)].elo == pytest.approx(875.0)
    assert by[(-INF, 0.9)].stderr == pytest.approx(20.0 / 2**0.5)
    # A level measured only in the update is added, the rest kept; the order is the old one.
    assert by[(-INF, 0.95)].elo == 760.0 and by[(-INF, 0.5)].elo == 1500.0
    assert [(p.z, p.floor) for p in pooled.points][-1] == (-INF, 0.95)
    assert pooled.summary["floor_updates"][-1]["pooled"] is True  # type: ignore[index]
    assert pooled.summary["weakest"] == {"setting": "z=-inf,rth=0.1,floor=1", "elo": 640.0}


def test_pool_refuses_a_zero_standard_error() -> None:
    with pytest.raises(ConfigError, match=re.escape("cannot pool z=-inf,rth=0.1,floor=1")):
        merge_floor(OLD, _with(UPDATE, 1.0, stderr=0.0), pool=True)


def test_cli_pool_floor_needs_merge_floor(tmp_path: Path) -> None:
    from sparring.cli.strength import register

    app = typer.Typer()
    register(app)
    app.command("noop")(lambda: None)
    result = CliRunner().invoke(
        app, ["calibrate", "tictactoe", "--pool-floor", "--store", str(tmp_path / "s.sqlite")]
    )
    assert result.exit_code == 2 and "--pool-floor needs --merge-floor" in result.output
    assert not (tmp_path / "s.sqlite").exists()
