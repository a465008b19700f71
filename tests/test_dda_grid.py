"""AlphaDDA's grid search: the metric D (Eq. 11), the grids (Tables A2-A4), the successive
halving rule and a resumable run on tiny players (tic-tac-toe UCT settings stand in for an
AlphaDDA kind: the runner is the same for any kind)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sparring.errors import ConfigError, SparringError
from sparring.evaluation.series import run_series_set
from sparring.evaluation.store import GameStore
from sparring.experiments.dda_grid import (
    PAPER_GRIDS,
    DDAGridConfig,
    GridSetting,
    canonical_value,
    d_bootstrap_sd,
    expand_grid,
    halving_schedule,
    parse_grid_option,
    run_grid,
    series_config,
    successive_halving,
    survivor_count,
    write_report,
)
from sparring.strength.alphadda import SideCounts, metric_d


# ---- D (Eq. 11) ----------------------------------------------------------------------------------
def test_metric_d_hand_made_table() -> None:
    """Five opponents, 20 games a side (W/L/D first · second):
    AlphaZero 2/17/1 · 0/20/0 -> |2-17| + |0-20| = 35
    MCTS1     9/8/3  · 7/12/1 -> 1 + 5 = 6
    MCTS2     12/6/2 · 10/10/0 -> 6 + 0 = 6
    Minimax1  10/10/0 · 9/11/0 -> 0 + 2 = 2
    Random    20/0/0 · 19/1/0 -> 20 + 18 = 38;   D = 35 + 6 + 6 + 2 + 38 = 87."""
    table = {
        "AlphaZero": SideCounts(2, 17, 1, 0, 20, 0),
        "MCTS1": SideCounts(9, 8, 3, 7, 12, 1),
        "MCTS2": SideCounts(12, 6, 2, 10, 10, 0),
        "Minimax1": SideCounts(10, 10, 0, 9, 11, 0),
        "Random": SideCounts(20, 0, 0, 19, 1, 0),
    }
    assert [table[k].imbalance for k in table] == [35, 6, 6, 2, 38]
    assert metric_d(table) == 87
    # Draws do not count; a side's wins cannot cancel the other side's losses.
    assert metric_d({"X": SideCounts(5, 0, 15, 0, 5, 15)}) == 10
    assert metric_d({}) == 0
    assert table["MCTS1"].games == 40 and table["MCTS1"].games_first == 20


def test_side_counts_add_and_validation() -> None:
    c = SideCounts().add(1.0, True).add(0.0, True).add(0.5, False).add(0.0, False)
    assert c == SideCounts(1, 1, 0, 0, 1, 1)
    assert c + c == SideCounts(2, 2, 0, 0, 2, 2)
    with pytest.raises(SparringError):
        SideCounts(-1)
    with pytest.raises(SparringError):
        c.add(0.25, True)


def test_d_bootstrap_sd() -> None:
    """One-sided cells have no spread; a 1 win / 1 loss cell of 2 games: |W - L| is 2 with
    probability 1/2 and 0 otherwise, sd 1 (within sampling error of 1000 resamples)."""
    assert d_bootstrap_sd({"X": SideCounts(4, 0, 0, 0, 4, 0)}) == 0.0
    assert d_bootstrap_sd({"X": SideCounts(1, 1, 0)}) == pytest.approx(1.0, abs=0.05)
    assert d_bootstrap_sd({"X": SideCounts(1, 1, 0)}) == d_bootstrap_sd({"X": SideCounts(1, 1)})


# ---- grids ---------------------------------------------------------------------------------------
def test_paper_grid_sizes() -> None:
    """Tables A2-A4: Connect4 AlphaDDA1 has 4 x 3 x 5 x 3 = 180 settings, AlphaDDA2
    4 x 5 x 6 = 120, AlphaDDA3 5 x 5 = 25; 6x6 Othello 5 x 4 x 4 x 3 = 240, 4 x 4 x 5 = 80,
    5 x 6 = 30."""
    sizes = {key: len(DDAGridConfig(game=key[0], kind=key[1]).settings()) for key in PAPER_GRIDS}
    assert sizes[("connect4", "alphadda1")] == 180
    assert sizes[("connect4", "alphadda2")] == 120
    assert sizes[("connect4", "alphadda3")] == 25
    assert sizes[("othello6", "alphadda1")] == 240
    assert sizes[("othello6", "alphadda2")] == 80
    assert sizes[("othello6", "alphadda3")] == 30
    assert sizes[("othello", "alphadda1")] == 160


def test_grid_expansion_and_overrides() -> None:
    config = DDAGridConfig(
        game="connect4",
        kind="alphadda1",
        grid=(parse_grid_option("nh=1,2"), parse_grid_option("nmax=200.0")),
        options=(("history", "code"),),
    )
    settings = config.settings()
    # nh replaced, A_sim and B_sim0 from Table A2, N_max replaced: 2 x 3 x 5 x 1.
    assert len(settings) == 30
    assert settings[0] == GridSetting(
        index=0,
        values=(("nh", "1"), ("asim", "1.6"), ("bsim0", "-1.6"), ("nmax", "200")),
        spec="alphadda1:nh=1,asim=1.6,bsim0=-1.6,nmax=200,history=code",
    )
    # The last key varies fastest.
    assert settings[1].spec.startswith("alphadda1:nh=1,asim=1.6,bsim0=-1.5,")
    assert settings[-1].label == "nh=2,asim=2.4,bsim0=-1.2,nmax=200"
    # A key the paper's grid lacks extends it.
    extended = DDAGridConfig(game="connect4", kind="alphadda3", grid=(("sims", ("50", "100")),))
    assert len(extended.settings()) == 50
    assert extended.settings()[1].spec == "alphadda3:nh=1,c=0.25,sims=100"
    assert [s.spec for s in expand_grid("uct", (("sims", ("1", "2")),), (("c", "1"),))] == [
        "uct:sims=1,c=1",
        "uct:sims=2,c=1",
    ]
    # Every spec of a paper grid builds its player's settings.
    from sparring.players.registry import parse_player

    for key in PAPER_GRIDS:
        for setting in DDAGridConfig(game=key[0], kind=key[1]).settings()[::17]:
            parse_player(setting.spec)


def test_canonical_values_and_bad_configs() -> None:
    assert [canonical_value(v) for v in ("2.0", "2", "-0.90", " 0.0 ", "-0", "code")] == [
        "2",
        "2",
        "-0.9",
        "0",
        "0",
        "code",
    ]
    with pytest.raises(ConfigError, match="given twice"):
        parse_grid_option("asim=2,2.0")
    with pytest.raises(ConfigError, match="no paper grid"):
        DDAGridConfig(game="tictactoe", kind="uct")
    with pytest.raises(ConfigError, match="even"):
        DDAGridConfig(game="connect4", kind="alphadda3", games=5)
    with pytest.raises(ConfigError, match="keep"):
        DDAGridConfig(game="connect4", kind="alphadda3", keep=1.0)
    with pytest.raises(ConfigError, match="unknown key"):
        DDAGridConfig.from_mapping({"game": "connect4", "kind": "alphadda3", "rounds": 3})
    config = DDAGridConfig(
        game="connect4", kind="alphadda1", grid=(("nh", ("1", "2")),), halving=True
    )
    assert DDAGridConfig.from_mapping(json.loads(json.dumps(config.to_mapping()))) == config


# ---- successive halving ------------------------------------------------------------------------
def test_halving_schedule_and_survivor_count() -> None:
    assert halving_schedule(4, 40) == (4, 8, 16, 32, 40)
    assert halving_schedule(2, 40) == (2, 4, 8, 16, 32, 40)
    assert halving_schedule(10, 40) == (10, 20, 40)
    assert halving_schedule(40, 40) == (40,)
    assert [survivor_count(n, 0.5, 3) for n in (180, 90, 45, 23, 5, 3, 2)] == [
        90,
        45,
        23,
        12,
        3,
        3,
        2,
    ]
    assert survivor_count(180, 0.25, 3) == 45 and survivor_count(12, 0.25, 3) == 3


def test_successive_halving_on_a_stub() -> None:
    """Eight settings with hand-made D per round (games 2, 4, 8), keep 1/2, final 2:
    round 1 D = 5 1 4 1 3 6 2 0 -> the 4 best: 7 (0), 1 (1), 3 (1, tie: grid order), 6 (2);
    round 2 D of 1 3 6 7 = 4 2 9 3 -> 3 (2), 7 (3);
    round 3 (last, 8 games) D of 3 7 = 5 4 -> best 7."""
    table = {
        2: [5, 1, 4, 1, 3, 6, 2, 0],
        4: {1: 4, 3: 2, 6: 9, 7: 3},
        8: {3: 5, 7: 4},
    }
    asked: list[tuple[tuple[int, ...], int]] = []

    def evaluate(settings: object, games: int) -> dict[int, float]:
        indices = tuple(settings)  # type: ignore[call-overload]
        asked.append((indices, games))
        row = table[games]
        return {i: float(row[i]) for i in indices}

    rounds = successive_halving(8, halving_schedule(2, 8), 0.5, 2, evaluate)
    assert asked == [(tuple(range(8)), 2), ((1, 3, 6, 7), 4), ((3, 7), 8)]
    assert [r.survivors for r in rounds] == [(7, 1, 3, 6), (3, 7), ()]
    assert rounds[-1].scores == (5.0, 4.0)
    assert min(zip(rounds[-1].scores, rounds[-1].settings, strict=True))[1] == 7


# ---- runs on tiny players ----------------------------------------------------------------------
def _tiny(**changes: object) -> DDAGridConfig:
    base: dict[str, object] = {
        "game": "tictactoe",
        "kind": "uct",
        "grid": (("sims", ("1", "3", "9", "27")),),
        "opponents": ("random", "mcts4"),
        "games": 8,
        "first_games": 2,
        "final": 1,
        "seed": 5,
    }
    base.update(changes)
    return DDAGridConfig(**base)  # type: ignore[arg-type]


def _moves(store: GameStore) -> dict[tuple[str, int, int], tuple[int, ...]]:
    return {r.key: r.moves for r in store.iter_games()}


def test_resume_after_a_kill_replays_nothing(tmp_path: Path) -> None:
    """A full grid run on a store that a killed run left half full plays only the missing
    games, and every game equals the one an uninterrupted run plays."""
    config = _tiny()
    with GameStore(tmp_path / "fresh.sqlite") as fresh:
        whole = run_grid(config, fresh, progress=False)
        reference = _moves(fresh)
    assert whole.played == 4 * 2 * 8 == len(reference)
    with GameStore(tmp_path / "killed.sqlite") as store:
        configs = [
            series_config(config, s, o, config.games)
            for s in config.settings()
            for o in config.opponents
        ]
        run_series_set(configs, store, workers=1, progress=False, stop_after=27)
        assert store.count() == 27
        resumed = run_grid(config, store, progress=False)
        assert resumed.played == 64 - 27
        assert _moves(store) == reference
    assert [(s.setting.index, s.d) for s in resumed.scores] == [
        (s.setting.index, s.d) for s in whole.scores
    ]


def test_halving_shares_the_full_grids_games(tmp_path: Path) -> None:
    """A halving run's games are prefixes of the full grid's (same store: the full run then
    plays only the rest), its report compares its pick with the full grid's best, and the
    best of every round is the smallest D of that round."""
    halving = _tiny(halving=True, workers=2)
    with GameStore(tmp_path / "games.sqlite") as store:
        first = run_grid(halving, store, progress=False)
        assert [r.games for r in first.rounds] == [2, 4, 8]
        assert [len(r.settings) for r in first.rounds] == [4, 2, 1]
        assert first.full_grid is None
        used = first.games_used
        # settings dropped after round 1 (2), after round 2 (1), the last (1); 2 opponents
        assert used == 2 * (2 * 2 + 1 * 4 + 1 * 8) == first.played
        full = run_grid(_tiny(), store, progress=False)
        assert full.played == 64 - used
        again = run_grid(halving, store, progress=False)
        assert again.played == 0
    assert again.full_grid is not None and again.full_best is not None
    best = again.best
    assert best.d == min(s.d for s in again.scores if s.games == 8)
    full_d = {s.setting.index: s.d for s in full.scores}
    assert again.full_best.d == min(full_d.values())
    paths = write_report(again, tmp_path / "out", "sparring dda-grid ...")
    data = json.loads(paths["results"].read_text())
    assert data["full_grid"]["halving_pick"]["D"] == full_d[best.setting.index]
    assert data["best"]["D"] == best.d and data["games_used"] == used
    assert "## Against the full grid" in paths["report"].read_text()


def test_cli_plan_and_run(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from sparring.cli import app

    plan = CliRunner().invoke(
        app, ["dda-grid", "connect4", "alphadda1", "--out", str(tmp_path), "--halving", "--plan"]
    )
    assert plan.exit_code == 0, plan.output
    assert "180 settings" in plan.output and "round 5: 12 settings, 40 games" in plan.output
    args = [
        "dda-grid",
        "tictactoe",
        "uct",
        "--grid",
        "sims=1,9",
        "-o",
        "random",
        "--games",
        "2",
        "--out",
        str(tmp_path / "run"),
        "--no-progress",
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "run" / "results.json").read_text())
    assert len(data["settings"]) == 2 and data["command"].startswith("sparring ")
    assert (tmp_path / "run" / "games.sqlite").is_file()
