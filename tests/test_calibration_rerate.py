"""Ladder-only ratings put into a calibration (``sparring ladder-extend --into``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sparring.cli import app
from sparring.errors import ConfigError
from sparring.evaluation.ladder import LadderPlayer
from sparring.evaluation.rungs import RungResult
from sparring.experiments.calibration_rerate import rerate, setting_of
from sparring.strength.selection import StrengthSetting
from sparring.strength.target import (
    Calibration,
    CalibrationPoint,
    load_calibration,
    save_calibration,
    setting_for_elo,
)

BASE = {"base": "uct", "sims": "30"}


def _point(z: float, elo: float, games: int = 10, score: float | None = 0.4) -> CalibrationPoint:
    setting = StrengthSetting(z, 0.1)
    spec = "sa:base=uct,sims=30," + setting.label()
    return CalibrationPoint(setting, spec, setting.label(), elo, 20.0, games, score)


def _rated(name: str, spec: str, elo: float, stderr: float, games: int) -> RungResult:
    return RungResult(LadderPlayer(name, spec, elo, stderr), {}, games)


def _calibration() -> Calibration:
    points = (
        _point(0.0, 1500.0, 0, None),
        _point(-1.0, 1300.0),
        _point(1.0, 1700.0, score=0.7),
    )
    return Calibration("connect4", BASE, StrengthSetting(0.0, 0.1), "test scale", points)


def test_rerate_replaces_the_rated_points_and_adds_new_ones() -> None:
    rated = [
        _rated("SA(z=0)", "sa:base=uct,sims=30,z=0,rth=0.1", 1620.0, 30.0, 120),
        _rated("SA(z=-0.5)", "sa:base=uct,sims=30,z=-0.5,rth=0.1,name=Half", 1410.0, 25.0, 80),
    ]
    out = rerate(_calibration(), rated, {"seed": 7})
    by_z = {p.z: p for p in out.points}
    assert [p.z for p in out.points] == [0.0, -1.0, 1.0, -0.5]
    assert (by_z[0.0].elo, by_z[0.0].stderr, by_z[0.0].games) == (1620.0, 30.0, 0)
    assert by_z[0.0].ladder_games == 120
    assert (by_z[-1.0].elo, by_z[-1.0].stderr, by_z[-1.0].ladder_games) == (1300.0, 20.0, None)
    assert (by_z[-0.5].elo, by_z[-0.5].games, by_z[-0.5].score) == (1410.0, 0, None)
    assert by_z[-0.5].ladder_games == 80
    assert by_z[-0.5].spec == "sa:base=uct,sims=30,z=-0.5,rth=0.1"
    assert by_z[1.0].score == 0.7
    assert out.summary["ladder_ratings"] == [
        {"settings": ["z=0,rth=0.1", "z=-0.5,rth=0.1"], "seed": 7}
    ]
    assert out.summary["weakest"] == {"setting": "z=-1,rth=0.1", "elo": 1300.0}
    # 1515 lies between z=-0.5 (1410) and z=0 (1620): the target curve sees the new point
    assert -0.5 < setting_for_elo(out, 1515.0).setting.z < 0.0


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("uct:sims=30", "not a strength-adjusted"),
        ("sa:base=uct,sims=40,z=0,rth=0.1", "searches with"),
        ("sa:base=uct,sims=30,rth=0.1", "names no z"),
        ("sa:base=uct,sims=30,z=high", "bad setting"),
    ],
)
def test_setting_of_refuses_other_players(spec: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        setting_of(spec, _calibration())


def test_rerate_refuses_a_setting_rated_twice() -> None:
    rated = [
        _rated("A", "sa:base=uct,sims=30,z=0,rth=0.1", 1600.0, 30.0, 10),
        _rated("B", "sa:base=uct,sims=30,z=0,rth=0.1,name=B", 1610.0, 30.0, 10),
    ]
    with pytest.raises(ConfigError, match="rated twice"):
        rerate(_calibration(), rated, {})


def test_ladder_extend_into_checks_the_calibration_before_any_game(tmp_path: Path) -> None:
    calibration = save_calibration(_calibration(), tmp_path / "c.json")
    before = calibration.read_text()
    ladder = tmp_path / "ladder.json"
    ladder.write_text(
        '{"game": "connect4", "anchor": "Random=1000", "players": '
        '[{"name": "Random", "spec": "random", "elo": 1000.0, "stderr": 0.0}]}'
    )
    store = tmp_path / "games.sqlite"
    result = CliRunner().invoke(
        app,
        [
            "ladder-extend", str(ladder), "sa:base=uct,sims=99,z=0,rth=0.1",
            "--out", str(tmp_path / "out.json"), "--store", str(store),
            "--into", str(calibration), "--games", "1",
        ],
    )  # fmt: skip
    assert isinstance(result.exception, ConfigError)
    assert "searches with" in str(result.exception)
    assert not store.exists() and calibration.read_text() == before
    assert load_calibration(calibration).points[0].elo == 1500.0


def test_a_ladder_rated_point_round_trips_and_old_files_read(tmp_path: Path) -> None:
    rated = [_rated("SA(z=1)", "sa:base=uct,sims=30,z=1,rth=0.1", 1750.0, 30.0, 120)]
    out = rerate(_calibration(), rated, {})
    path = save_calibration(out, tmp_path / "c.json")
    assert load_calibration(path) == out
    assert '"ladder_games"' in path.read_text()
    plain = save_calibration(_calibration(), tmp_path / "plain.json")
    assert '"ladder_games"' not in plain.read_text()  # files without it are unchanged
