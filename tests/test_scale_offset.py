"""The offset that moves a scale to a front end's anchors (scripts/scale_offset.py): the
fit on hand-worked results, the levels left out, and the written file."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from tests.script_module import load_script

from sparring.players.external_scale import ExternalScale, ScalePoint

load_script("uci_level_check")  # the script imports its Elo fit, as run from scripts/
offset = load_script("scale_offset")


def _game(asked: float, anchor: int, result: float, notes: tuple[str, ...] = ()) -> dict:
    return {"asked": asked, "anchor": anchor, "result": result, "notes": list(notes)}


def test_the_offset_on_hand_worked_results() -> None:
    # a level the fit puts at 1600 scoring 1 of 2 against 1600: no offset
    c, _ = offset.fit_offset([_game(1600, 1600, 1.0), _game(1600, 1600, 0.0)], {1600: 1600.0})
    assert c == pytest.approx(0.0, abs=1e-6)
    # 1 of 4 against 1600 at the fit's 1600: 1600 - 400 log10(3), so -400 log10(3)
    games = [_game(1600, 1600, r) for r in (1.0, 0.0, 0.0, 0.0)]
    c, half = offset.fit_offset(games, {1600: 1600.0})
    assert c == pytest.approx(-400 * math.log10(3), abs=1e-6)
    k = math.log(10) / 400
    assert half == pytest.approx(1.96 / math.sqrt(4 * k * k * 0.25 * 0.75), rel=1e-4)
    # two levels 200 apart, each 1 of 2 against an anchor 100 below its fit's Elo: -100
    games = [_game(1000, 900, r) for r in (1.0, 0.0)] + [_game(1200, 1100, r) for r in (1.0, 0.0)]
    c, _ = offset.fit_offset(games, {1000: 1000.0, 1200: 1200.0})
    assert c == pytest.approx(-100.0, abs=1e-6)


def test_levels_the_clock_cut_are_left_out(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    games = [_game(1000, 1350, 0.0), _game(2100, 2000, 1.0, ("clock too short: 20 of 35",)),
             _game(2100, 2000, 0.0), _game(1200, 1350, 1.0)]  # fmt: skip
    (run / "games.jsonl").write_text("".join(json.dumps(g) + "\n" for g in games))
    kept, cut = offset.level_games([run])
    assert [g["asked"] for g in kept] == [1000, 1200] and cut == [2100]


def test_the_script_writes_the_moved_scale_and_again_the_same(tmp_path: Path) -> None:
    points = tuple(ScalePoint(v, e, 100.0, 20, 10.0) for v, e in ((2, 1000), (8, 1400)))
    scale = ExternalScale("chess", "fit", "sims", {"cpuct": 0.25}, points, command="fit it")
    path = tmp_path / "scale.json"
    path.write_text(scale.to_json())
    run = tmp_path / "run"
    run.mkdir()
    # asked 1200 plays 5 simulations (the fit's 1200); 1 of 4 against 1200
    games = [_game(1200, 1200, r) for r in (1.0, 0.0, 0.0, 0.0)]
    (run / "games.jsonl").write_text("".join(json.dumps(g) + "\n" for g in games))
    argv = [str(run), "--scale", str(path), "--label", "moved"]
    assert offset.main(argv) == 0
    moved = ExternalScale.read(path)
    c = round(-400 * math.log10(3), 1)
    assert moved.offset == c and moved.scale == "moved"
    assert [p.elo for p in moved.points] == [pytest.approx(1000 + c), pytest.approx(1400 + c)]
    assert moved.command.startswith("fit it; then moved by: python scripts/scale_offset.py ")
    first = path.read_text()
    assert offset.main(argv) == 0  # the moved file is taken back to its fit first
    assert path.read_text() == first
