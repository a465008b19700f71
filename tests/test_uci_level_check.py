"""The chess level check's pieces (scripts/uci_level_check.py): the Elo fit on hand-worked
results, the anchors a level plays, the clocks each side gets and the summary's lines."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import chess.engine
import pytest
from tests.script_module import load_script

check = load_script("uci_level_check")
K = math.log(10) / 400.0


def _game(asked: float | None, anchor: int, result: float, **more: object) -> dict:
    return {"asked": asked, "anchor": anchor, "result": result, "think": [0.1, 0.3],
            "notes": [], **more}  # fmt: skip


def test_fit_elo_on_hand_worked_results() -> None:
    # one win and one loss against 1600: 1600, and the likelihood's curvature 2 * K^2 / 4
    elo, half = check.fit_elo([_game(1500, 1600, 1.0), _game(1500, 1600, 0.0)])
    assert elo == pytest.approx(1600.0, abs=1e-6)
    assert half == pytest.approx(1.96 / math.sqrt(2 * K * K * 0.25), rel=1e-4)
    # 3 of 4 against 1600: p = 3/4, so 1600 + 400 log10(3)
    games = [_game(1500, 1600, r) for r in (1.0, 1.0, 1.0, 0.0)]
    assert check.fit_elo(games)[0] == pytest.approx(1600 + 400 * math.log10(3), abs=1e-6)
    # 1 of 2 against 1350 and 1 of 2 against 2000: the middle, 1675
    mixed = [_game(1600, 1350, 1.0), _game(1600, 1350, 0.0), _game(1600, 2000, 1.0),
             _game(1600, 2000, 0.0)]  # fmt: skip
    assert check.fit_elo(mixed)[0] == pytest.approx(1675.0, abs=1e-6)


def test_nearest_anchors() -> None:
    anchors = [1350, 1600, 2000]
    assert check.nearest_anchors(1000, anchors) == [1350, 1600]
    assert check.nearest_anchors(1900, anchors) == [1600, 2000]
    assert check.nearest_anchors(2100, anchors) == [1600, 2000]
    assert check.nearest_anchors(None, anchors) == anchors  # the strongest: every anchor


def test_clocks_each_side_gets() -> None:
    args = argparse.Namespace(movetime=0.0, anchor_movetime=0.5, increment=2.0)
    ours = check._clock_limit(args, [170.0, 181.5])
    assert ours == chess.engine.Limit(
        white_clock=170.0, black_clock=181.5, white_inc=2.0, black_inc=2.0
    )
    assert check._clock_limit(args, [170.0, 181.5], anchor=True) == chess.engine.Limit(time=0.5)
    assert check._anchor_clock(args) == "movetime 0.5"
    same = argparse.Namespace(movetime=0.5, anchor_movetime=0.0, increment=0.0)
    assert check._clock_limit(same, [0.0, 0.0], anchor=True) == chess.engine.Limit(time=0.5)
    assert check._anchor_clock(same) is None


def test_summary_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    games = [
        _game(1000.0, 1350, 0.0, anchor_depth=[9, 14]),
        _game(1000.0, 1350, 1.0, anchor_depth=[11, 15]),
        _game(
            2000.0,
            2000,
            1.0,
            notes=["clock too short for this level: 20 of 35"],
            clock="movetime 0.25",
        ),
        _game(2000.0, 2000, 0.0, clock="movetime 0.25"),  # its second move took 0.3 s
    ]
    (tmp_path / "games.jsonl").write_text("".join(json.dumps(g) + "\n" for g in games))
    assert check.summary(tmp_path) == 0
    lines = capsys.readouterr().out.splitlines()
    half = 1.96 / math.sqrt(2 * K * K * 0.25)
    assert lines == [
        f"     1000: 1/2 vs 1350; measured 1350 ± {half:.0f} (error +350); 0.20 s a move, "
        "longest 0.30 s after the first; "
        "0 clock-short notices; the anchors' searches reached depth >= 9",
        f"     2000: 1/2 vs 2000; measured 2000 ± {half:.0f} (error +0); 0.20 s a move, "
        "longest 0.30 s after the first (2 of 2 over the movetime); 1 clock-short notices",
        f"RMS {math.sqrt(350**2 / 2):.1f} over 2 asked Elos; monotone: True",
    ]


def test_summary_pools_runs_and_keeps_the_asked_elos(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one, two, both = tmp_path / "one", tmp_path / "two", tmp_path / "both"
    games = [
        _game(1000.0, 1350, 0.0),
        _game(1000.0, 1350, 1.0),
        _game(1500.0, 1350, 1.0),
        _game(1500.0, 1350, 0.5),
    ]
    for folder, mine in ((one, games[::2]), (two, games[1::2]), (both, games)):
        folder.mkdir()
        (folder / "games.jsonl").write_text("".join(json.dumps(g) + "\n" for g in mine))
    check.summary(both)
    together = capsys.readouterr().out
    assert check.main([str(one), "--with", str(two), "--summary"]) == 0
    assert capsys.readouterr().out == together
    assert check.main([str(one), "--with", str(two), "--elos", "1500", "--summary"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and lines[0].startswith("     1500: 1.5/2 vs 1350")
    assert lines[1].endswith("over 1 asked Elos; monotone: True")


def test_two_processes_share_a_run_by_claims(tmp_path: Path) -> None:
    key = (1500.0, 1600, 3, "clock 3+2", "movetime 0.5")
    assert check.claim(tmp_path, key)  # the first takes it, and may take it again
    assert check.claim(tmp_path, key)
    name = next((tmp_path / "claims").iterdir())
    name.write_text("1")  # held by a live process (init) that is not this one
    assert not check.claim(tmp_path, key)
    name.write_text("999999999")  # held by a process that is gone: taken
    assert check.claim(tmp_path, key)
    path = tmp_path / "games.jsonl"
    assert check.played_keys(path) == set()
    game = {"asked": 1500.0, "anchor": 1600, "index": 3, "clock": "clock 3+2"}
    path.write_text(json.dumps(game) + "\n")
    assert check.played_keys(path) == {(1500.0, 1600, 3, "clock 3+2", None)}


def test_cpu_times_leave_guest_time_out() -> None:
    # user nice system idle iowait irq softirq steal guest guest_nice: guest (40, 5) is
    # already inside user and nice, so busy is 100+5+20+0+1+2 and the total adds idle+iowait.
    line = "cpu  100 5 20 300 10 0 1 2 40 5"
    assert check.cpu_times(line) == (128.0, 438.0)
    assert check.cpu_times("cpu") == (0.0, 0.0)


def test_cpu_busy_share() -> None:
    assert check.busy_share((10.0, 100.0), (60.0, 150.0)) == 1.0
    assert check.busy_share((10.0, 100.0), (35.0, 150.0)) == 0.5
    assert check.busy_share((10.0, 100.0), (10.0, 100.0)) is None
    busy, total = check.cpu_times()
    assert 0 <= busy <= total
