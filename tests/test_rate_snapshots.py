"""research/rate_snapshots.py's goal arithmetic (the training options': "where a goal is missed,
the plot says how far and at what slope") and the Elo margin it rests on, on hand-worked numbers."""

from __future__ import annotations

import argparse
import math
from types import ModuleType

import pytest

from script_module import load_script
from sparring.elo import elo_margin, expected_score


@pytest.fixture(scope="module")
def script() -> ModuleType:
    return load_script("rate_snapshots")


def test_elo_margin_inverts_eq_16() -> None:
    assert elo_margin(0.5) == 0.0
    assert elo_margin(0.9) == pytest.approx(400 * math.log10(9))  # 381.70
    assert elo_margin(0.95) == pytest.approx(511.50, abs=0.01)  # 400 log10(19)
    assert elo_margin(0.2) == pytest.approx(-400 * math.log10(4))
    for share in (0.01, 0.3, 0.77, 0.999):
        assert expected_score(1500 + elo_margin(share), 1500) == pytest.approx(share)
    for bad in (0.0, 1.0, -0.1, 1.5):
        with pytest.raises(ValueError, match="strictly between 0 and 1"):
            elo_margin(bad)


def test_goal_elo_is_the_hardest_rung(script: ModuleType) -> None:
    ladder = {"MCTS1": 1983.0, "Minimax1": 1734.0}
    goal = script.goal_elo(ladder, [("MCTS1", 0.95), ("Minimax1", 0.95)])
    assert goal == pytest.approx(1983 + 400 * math.log10(19))
    assert script.goal_elo(ladder, [("Minimax1", 0.5)]) == 1734.0


def test_trend_fits_the_later_half(script: ModuleType) -> None:
    # 6 points: the later 3 lie on y = 100 x + 5 exactly; the first 3 are ignored
    xs = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    ys = [900.0, -50.0, 7.0, 305.0, 405.0, 505.0]
    slope, se = script.trend(xs, ys)
    assert slope == pytest.approx(100.0)
    assert se == pytest.approx(0.0, abs=1e-9)
    # 7 points: the later ceil(7 / 2) = 4; y = 0, 1, 0, 1 at x = 3..6 -> slope 0.2
    slope, se = script.trend([0, 1, 2, 3, 4, 5, 6], [9, 9, 9, 0, 1, 0, 1])
    assert slope == pytest.approx(0.2)
    # fitted 0.2, 0.4, 0.6, 0.8: residuals -0.2, 0.6, -0.6, 0.2 -> sqrt(0.8 / 2 / 5)
    assert se == pytest.approx(math.sqrt(0.8 / 2 / 5))
    assert script.trend([1.0, 2.0], [1.0, 2.0]) is None
    assert script.trend([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]) is None


def test_against_goal_says_how_far_and_how_long(script: ModuleType) -> None:
    g = script.against_goal([1.0, 2.0, 3.0], [2000.0, 2100.0, 2200.0], 2500.0)
    assert (g["gap"], g["slope"], g["more"]) == (300.0, pytest.approx(100.0), pytest.approx(3.0))
    assert script.goal_text(g, " Elo", "CPU-h") == (
        "300 Elo short, +100 +- 0 Elo/CPU-h (~3.0 more CPU-h at that slope)"
    )
    falling = script.against_goal([1.0, 2.0, 3.0], [2200.0, 2100.0, 2000.0], 2500.0)
    assert math.isinf(falling["more"])
    assert "no clear rise" in script.goal_text(falling, " Elo", "CPU-h")
    # rising, but within twice its standard error: no time to the goal is given
    noisy = script.against_goal([1.0, 2.0, 3.0], [2000.0, 2300.0, 2100.0], 2500.0)
    assert noisy["slope"] == pytest.approx(50.0) and noisy["slope_se"] > 25.0
    assert math.isinf(noisy["more"])
    assert script.goal_text(noisy, " Elo", "CPU-h").startswith("400 Elo short, +50 +- ")
    assert script.goal_text(script.against_goal([1.0], [2000.0], 2500.0), "", "h") == (
        "500 short, no trend (fewer than 3 snapshots)"
    )
    met = script.against_goal([1.0, 2.0], [2400.0, 2600.0], 2500.0)
    assert met["more"] == 0.0 and math.isnan(met["slope"])
    assert script.goal_text(met, " Elo", "CPU-h") == "goal met (+100 Elo)"
    assert script.against_goal([], [], 2500.0) is None


def test_goal_argument_is_checked(script: ModuleType) -> None:
    assert script.goal_arg("gnugo:level=10=0.5") == ("gnugo:level=10", 0.5)
    for bad, why in (("MCTS1", "RUNG=SHARE"), ("MCTS1=x", "not a number"), ("MCTS1=1", "between")):
        with pytest.raises(argparse.ArgumentTypeError, match=why):
            script.goal_arg(bad)


def test_training_cost_adds_the_worker_processes_cpu_time(script: ModuleType) -> None:
    # Iterations 1-2 in one process, 3-4 with self-play in worker processes (their CPU time
    # is logged per iteration; the process's own is cumulative).
    log = {
        1: {"cpu_seconds": 10.0},
        2: {"cpu_seconds": 20.0},
        3: {"cpu_seconds": 22.0, "selfplay_remote_cpu_seconds": 100.0},
        4: {"cpu_seconds": 24.0, "selfplay_remote_cpu_seconds": 50.0},
        5: {"cpu_seconds": 34.0},
    }
    assert script.training_cpu_seconds(log) == {1: 10.0, 2: 20.0, 3: 122.0, 4: 174.0, 5: 184.0}
    assert math.isnan(script.training_cpu_seconds({7: {}})[7])


def test_a_resumed_run_keeps_its_earlier_points(script: ModuleType) -> None:
    def point(run: str, iteration: int, elo: float) -> dict[str, object]:
        return {"run": run, "iteration": iteration, "elo": elo}

    earlier = [point("go9", 20, 1.0), point("go9", 40, 2.0), point("other", 20, 3.0)]
    rated = [point("go9", 60, 6.0), point("go9", 40, 4.0)]
    # go9's 20 is kept; its 40 is the new rating; a run not rated now is left out.
    assert script.keep_earlier(rated, earlier) == [
        point("go9", 20, 1.0),
        point("go9", 40, 4.0),
        point("go9", 60, 6.0),
    ]
    assert script.keep_earlier([], earlier) == []
