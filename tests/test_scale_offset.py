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
    think = [0.1] * 50  # sparring's moves
    return {
        "asked": asked,
        "anchor": anchor,
        "result": result,
        "notes": list(notes),
        "think": think,
    }


def _fit(fit_elo: float, anchor: int, result: float) -> dict:
    """A game of a level the fit puts at ``fit_elo``."""
    return {**_game(fit_elo, anchor, result), "fit_elo": fit_elo}


def test_the_offset_on_hand_worked_results() -> None:
    # a level the fit puts at 1600 scoring 1 of 2 against 1600: no offset
    c, _ = offset.fit_offset([_fit(1600, 1600, 1.0), _fit(1600, 1600, 0.0)])
    assert c == pytest.approx(0.0, abs=1e-6)
    # 1 of 4 against 1600 at the fit's 1600: 1600 - 400 log10(3), so -400 log10(3)
    games = [_fit(1600, 1600, r) for r in (1.0, 0.0, 0.0, 0.0)]
    c, half = offset.fit_offset(games)
    assert c == pytest.approx(-400 * math.log10(3), abs=1e-6)
    k = math.log(10) / 400
    assert half == pytest.approx(1.96 / math.sqrt(4 * k * k * 0.25 * 0.75), rel=1e-4)
    # two levels 200 apart, each 1 of 2 against an anchor 100 below its fit's Elo: -100
    games = [_fit(1000, 900, r) for r in (1.0, 0.0)] + [_fit(1200, 1100, r) for r in (1.0, 0.0)]
    c, _ = offset.fit_offset(games)
    assert c == pytest.approx(-100.0, abs=1e-6)


def test_levels_the_clock_cut_are_left_out(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    games = [_game(1000, 1350, 0.0), _game(2100, 2000, 1.0, ("clock too short: 20 of 35",)),
             _game(2100, 2000, 0.0), _game(1200, 1350, 1.0)]  # fmt: skip
    (run / "games.jsonl").write_text("".join(json.dumps(g) + "\n" for g in games))
    kept, cut = offset.level_games([run])
    assert [g["asked"] for g in kept] == [1000, 1200] and cut == [(str(run), 2100)]
    assert all(g["run"] == str(run) for g in kept)
    # one notice in 100 moves of 2100: cut at any share below 1%, kept at 1%
    assert offset.level_games([run], 0.009)[1] == [(str(run), 2100)]
    kept, cut = offset.level_games([run], 0.01)
    assert [g["asked"] for g in kept] == [1000, 2100, 2100, 1200] and cut == []


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


def test_a_run_says_the_offset_its_games_were_played_at() -> None:
    assert offset.run_arg("runs/a") == (Path("runs/a"), (0.0,))
    assert offset.run_arg("runs/a+b@-134.7") == (Path("runs/a+b"), (-134.7,))
    assert offset.run_arg("r@-60,-150") == (Path("r"), (-60.0, -150.0))
    with pytest.raises(Exception, match="must be numbers"):
        offset.run_arg("r@x")


def _chain_file(tmp_path: Path) -> Path:
    # simulations 2..8 (the fit's 1000..1400), then leaf nodes 1000..4000 (1300..1900)
    sims = tuple(ScalePoint(v, e, 100.0, 20, 10.0) for v, e in ((2, 1000), (8, 1400)))
    nodes = tuple(ScalePoint(v, e, 100.0, 20, 10.0) for v, e in ((1000, 1300), (4000, 1900)))
    above = ExternalScale("chess", "fit", "sf_nodes", {"sims": 8}, nodes, command="fit it")
    chain = ExternalScale("chess", "fit", "sims", {"sf_nodes": 1000}, sims, "fit it", above)
    path = tmp_path / "chain.json"
    path.write_text(chain.to_json())
    return path


def test_each_knob_takes_its_own_offset_from_the_games_it_played(tmp_path: Path) -> None:
    path = _chain_file(tmp_path)
    fit = ExternalScale.read(path)
    runs = []
    for name, played_at, games in [
        # played on the fit: 1200 is 5 simulations, 1600 is 2,000 leaf nodes
        ("first", (0.0,), [_game(1200, 1200, r) for r in (1.0, 0.0)]
         + [_game(1600, 1500, r) for r in (1.0, 0.0)]),
        # played on the chain moved by -100: asked 1100 is the fit's 1200 again
        ("second", (-100.0,), [_game(1100, 1200, r) for r in (1.0, 0.0)]),
    ]:  # fmt: skip
        run = tmp_path / name
        run.mkdir()
        (run / "games.jsonl").write_text("".join(json.dumps(g) + "\n" for g in games))
        runs.append((run, played_at))
    games, _ = offset.level_games([run for run, _ in runs])
    played = offset.played_settings(games, runs, fit)
    assert [(g["link"], g["fit_elo"]) for g in played] == [
        (0, 1200.0), (0, 1200.0), (1, 1600.0), (1, 1600.0), (0, 1200.0), (0, 1200.0)
    ]  # fmt: skip
    # the simulations' games are even at the fit's Elo (0), the leaf's even 100 lower
    per_knob = offset.fit_offsets(played, 2, per_knob=True)
    assert [c for c, _ in per_knob] == [pytest.approx(0.0, abs=1e-6), pytest.approx(-100.0)]
    one = offset.fit_offsets(played, 2, per_knob=False)
    assert one[0] == one[1] and -100.0 < one[0][0] < 0.0
    # the log-likelihood of even results at the offsets that make them even: 6 log(1/2)
    assert offset.log_likelihood(played, [0.0, -100.0]) == pytest.approx(6 * math.log(0.5))
    argv = [f"{runs[0][0]}@0", f"{runs[1][0]}@-100", "--scale", str(path), "--label", "m"]
    assert offset.main([*argv, "--per-knob"]) == 0
    moved = ExternalScale.read(path)
    assert [s.offset for s in moved.segments()] == [0.0, -100.0]
    assert [p.elo for p in moved.above.points] == [1200.0, 1800.0]  # type: ignore[union-attr]


def test_compare_leaves_each_run_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    games = [
        {"run": run, "link": link, "fit_elo": 1500.0, "anchor": 1500, "result": r}
        for run in ("a", "b")
        for link, results in ((0, (1.0, 0.0)), (1, (1.0, 0.0, 0.0, 0.0)))
        for r in results
    ]
    # both runs alike: each knob's offset from one run fits the other exactly
    assert offset.compare(games, 2) == "per-knob"
    out = capsys.readouterr().out
    assert out.count("left out, 6 games") == 2 and "per-knob" in out.splitlines()[-1]
