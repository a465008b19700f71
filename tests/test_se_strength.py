"""Strength by rank (``sparring se-strength``): config, rank parsing, the monotonicity check,
the z fit, resuming, and SA-MCTS's z-per-rank table.  Games use chess with uniformly random
templates (``random:name=R{rank}``): a few hundred cheap plies a game."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from sparring.errors import ConfigError, UnknownPlayerError
from sparring.evaluation.store import GameStore
from sparring.experiments.se_strength import (
    Score,
    SEStrengthConfig,
    fit_logistic,
    inversions,
    monotone_within_ci,
    parse_ranks,
    round_robin_ranks,
    run_se_strength,
    write_report,
    z_at_half,
)

RANDOM = "random:name=R{rank}"


# ---- config and ranks ------------------------------------------------------------------------
def test_config_rejects_unknown_keys_and_bad_values() -> None:
    with pytest.raises(ConfigError, match="unknown key 'gmes'"):
        SEStrengthConfig.from_mapping({"game": "go", "gmes": 4})
    with pytest.raises(ConfigError, match="games must be even"):
        SEStrengthConfig(game="go", games=3)
    with pytest.raises(ConfigError, match="mode must be one of"):
        SEStrengthConfig(game="go", mode="ladder")
    with pytest.raises(ConfigError, match="game must be one of go, chess"):
        SEStrengthConfig(game="connect4")
    with pytest.raises(ConfigError, match=r"has no \{rank\}"):
        SEStrengthConfig(game="go", programs=("se-inf-mcts:rank=3d",))
    with pytest.raises(ConfigError, match=r"has no \{z\}"):
        SEStrengthConfig(game="go", mode="z-fit", programs=("sa-mcts:z=0",))
    with pytest.raises(ConfigError, match="two or more distinct"):
        SEStrengthConfig(game="go", mode="z-fit", z_grid=(0.5, 0.5))
    config = SEStrengthConfig(game="chess", programs=(RANDOM,), ranks=("r2", "1000-1200"))
    assert SEStrengthConfig.from_mapping(config.to_mapping()) == config
    assert SEStrengthConfig.from_mapping(json.loads(json.dumps(config.to_mapping()))) == config


def test_rank_parsing() -> None:
    assert parse_ranks("go", "3d,r1,2k") == ("9d", "3d", "1-2k")
    assert parse_ranks("chess", ["1000-1200", "r1"]) == ("2400-2600", "1000-1200")
    assert parse_ranks("go", "all")[0] == "9d" and len(parse_ranks("go", "all")) == 11
    assert round_robin_ranks("go") == ("8d", "6d", "4d", "2d", "1-2k")
    assert round_robin_ranks("chess") == ("2200-2400", "1800-2000", "1400-1600", "1000-1200")
    for game, text, message in [
        ("go", "12d", "unknown rank '12d'"),
        ("go", "1400-1600", "'1400-1600' is not a go rank"),
        ("chess", "3d", "'3d' is not a chess rank"),
        ("go", "r12", "go has ranks r1..r11"),
        ("chess", "r9", "chess has ranks r1..r8"),
        ("go", "3d,r7", r"'r7' \(3d\) is given twice"),
        ("go", " , ", "no ranks given"),
    ]:
        with pytest.raises(ConfigError, match=message) as info:
            parse_ranks(game, text)
        assert "\n" not in str(info.value)


def test_pairings_of_each_mode() -> None:
    anchor = SEStrengthConfig(game="go", programs=("se-inf-mcts:rank={rank},sims=16",))
    pairs = anchor.pairings()
    assert len(pairs) == 11 and pairs[0].spec_a == "se-inf-mcts:rank=9d,sims=16"
    assert {p.spec_b for p in pairs} == {"se-inf-mcts:rank=5d,sims=16"}
    rr = SEStrengthConfig(
        game="go", mode="round-robin", programs=("sa-mcts:rank={rank}", "se-inf-mcts:rank={rank}")
    )
    assert len(rr.pairings()) == 45  # ten players: the paper's Table 5
    zfit = SEStrengthConfig(game="chess", mode="z-fit", ranks=("r1",), z_grid=(1.0, -0.5))
    assert [(p.spec_a, p.spec_b) for p in zfit.pairings()] == [
        ("sa-mcts:z=-0.5", "se-inf-mcts:rank=2400-2600"),
        ("sa-mcts:z=1", "se-inf-mcts:rank=2400-2600"),
    ]
    assert zfit.series_configs()[0].series == 10  # 20 games: 10 series of one game a colour


# ---- monotonicity and scores -----------------------------------------------------------------
def test_monotone_within_ci_on_hand_made_intervals() -> None:
    # a non-increasing curve 0.6, 0.5, 0.5 passes through all three
    assert monotone_within_ci([(0.5, 0.7), (0.3, 0.5), (0.45, 0.6)])
    # the third lies wholly above the first: 0.75 > 0.7
    assert not monotone_within_ci([(0.5, 0.7), (0.3, 0.5), (0.75, 0.9)])
    # touching ends count as overlapping
    assert monotone_within_ci([(0.2, 0.4), (0.4, 0.6)])
    assert not monotone_within_ci([(0.2, 0.4), (0.41, 0.6)])
    assert monotone_within_ci([(math.nan, math.nan), (0.1, 0.2)])
    assert inversions([0.7, 0.5, 0.6, 0.2]) == 1
    assert inversions([0.2, 0.5, 0.6]) == 3


def test_score_counts_draws_half() -> None:
    s = Score(wins=3, losses=5, draws=2)
    assert s.games == 10 and s.points == 4.0 and s.rate == 0.4
    lo, hi = s.interval()
    assert lo == pytest.approx(0.168178, abs=1e-6) and hi == pytest.approx(0.687330, abs=1e-6)


# ---- the z fit -------------------------------------------------------------------------------
def test_z_fit_recovers_a_logistic_exactly() -> None:
    """Scores that are exactly ``n / (1 + exp(-2 (z - 0.25)))``: the fit returns a = -0.5,
    b = 2 and the 50% point z = 0.25."""
    grid = [-1.0, -0.5, 0.0, 0.5, 1.0]
    n = 100
    points = [n / (1 + math.exp(-2 * (z - 0.25))) for z in grid]
    fit = fit_logistic(grid, points, [n] * 5)
    assert fit is not None
    assert fit[0] == pytest.approx(-0.5, abs=1e-9) and fit[1] == pytest.approx(2.0, abs=1e-9)
    result = z_at_half("5d", grid, points, [n] * 5)
    assert result.method == "logistic" and result.z == pytest.approx(0.25, abs=1e-9)


def test_z_fit_on_hand_made_win_rates() -> None:
    # symmetric around z = 0: 2/10, 5/10, 8/10 -> the 50% point is exactly 0
    result = z_at_half("1d", [-1.0, 0.0, 1.0], [2, 5, 8], [10, 10, 10])
    assert result.method == "logistic" and result.z == pytest.approx(0.0, abs=1e-9)
    assert result.b is not None and result.b > 0
    # separated (0/10 then 10/10): no finite fit; linear interpolation between the two
    separated = z_at_half("1d", [-1.0, 0.0, 1.0], [0, 0, 10], [10, 10, 10])
    assert separated.method == "interpolated" and separated.z == pytest.approx(0.5)
    # every game won: z lies below the grid, nothing to interpolate
    assert z_at_half("1d", [0.0, 1.0], [10, 10], [10, 10]).method == "none"
    # a crossing outside the grid is flagged
    far = z_at_half("1d", [0.0, 1.0], [1, 3], [10, 10])
    assert far.method == "extrapolated" and far.z is not None and far.z > 1.0


# ---- runs ------------------------------------------------------------------------------------
def test_resume_replays_nothing(tmp_path: Path) -> None:
    config = SEStrengthConfig(
        game="chess", programs=(RANDOM,), ranks=("r1", "r8"), games=4, anchor_rank="r4"
    )
    with GameStore(tmp_path / "games.sqlite") as db:
        first = run_se_strength(config, db, progress=False, stop_after=3)
        assert (first.played, first.skipped, first.complete) == (3, 0, False)
        second = run_se_strength(config, db, progress=False)
        assert (second.played, second.skipped, second.complete) == (5, 3, True)
        third = run_se_strength(config, db, progress=False)
        assert (third.played, third.skipped) == (0, 8)
    with GameStore(":memory:") as fresh:
        whole = run_se_strength(config, fresh, progress=False)
    assert [[g.moves for g in r] for r in whole.records] == [
        [g.moves for g in r] for r in third.records
    ]
    paths = write_report(third, tmp_path / "out", "cmd")
    report = paths["report"].read_text()
    assert "| 2400-2600 | 4 |" in report and "8 of 8 games stored" in report
    data = json.loads(paths["results"].read_text())
    assert data["config"]["ranks"] == ["2400-2600", "1000-1200"]
    assert paths["plot"].stat().st_size > 0


def test_round_robin_elo_and_z_fit_files(tmp_path: Path) -> None:
    rr = SEStrengthConfig(
        game="chess", mode="round-robin", programs=(RANDOM,), ranks=("r2", "r4", "r6"), games=2
    )
    with GameStore(":memory:") as db:
        result = run_se_strength(rr, db, progress=False)
    assert result.player_names() == ("R2200-2400", "R1800-2000", "R1400-1600")
    fit = result.elo()
    assert fit.rating("R2200-2400") == 1500.0 and len(fit.ratings) == 3
    assert "Elo (95% CI)" in write_report(result, tmp_path / "rr")["report"].read_text()
    zfit = SEStrengthConfig(
        game="chess",
        mode="z-fit",
        programs=("random:name=Z{z}",),
        anchor="random:name=A{rank}",
        ranks=("r3",),
        z_grid=(0.0, 1.0),
        games=2,
    )
    with GameStore(":memory:") as db:
        zres = run_se_strength(zfit, db, progress=False)
    paths = write_report(zres, tmp_path / "z")
    table = json.loads(paths["ztable"].read_text())
    assert table["game"] == "chess" and set(table["z"]) <= {"2000-2200"}


# ---- sa-mcts:rank=R ---------------------------------------------------------------------------
def test_z_table_interpolates_between_fitted_ranks() -> None:
    """Go ranks by position: 8d = 1, 6d = 3, 2d = 7, 3-5k = 10 (9d = 0)."""
    from sparring.players.human_mcts import ZTable

    table = ZTable("go", {"8d": 2.0, "6d": 1.0, "2d": 3.0})
    assert table.z_at("6d") == (1.0, "fitted")
    assert table.z_at("7d") == (1.5, "interpolated")
    assert table.z_at("5d") == (1.5, "interpolated")  # a quarter of the way from 1.0 to 3.0
    assert table.z_at("3d") == (2.5, "interpolated")
    assert table.z_at("9d") == (2.0, "nearest")
    assert table.z_at("3-5k") == (3.0, "nearest")
    chess = ZTable("chess", {"2200-2400": -1.0, "1000-1200": 2.0})
    assert chess.z_at("1800-2000") == (0.0, "interpolated")  # 2 of the 6 steps from r2 to r8


def test_sa_mcts_reads_z_from_a_table(tmp_path: Path) -> None:
    from sparring.games import get_game
    from sparring.players.human_like import SAMCTSSettings
    from sparring.players.human_mcts import ZTable, sa_mcts_z
    from sparring.players.registry import parse_player

    path = tmp_path / "ztable.json"
    path.write_text(ZTable("go", {"5d": 0.2, "3d": 0.05}).to_json())
    settings = parse_player(f"sa-mcts:rank=5D,ztable={path},sims=4")
    assert isinstance(settings, SAMCTSSettings)
    assert settings.spec() == f"sa-mcts:rank=5d,sims=4,ztable={path}"
    assert parse_player(settings.spec()) == settings
    assert settings.display_name() == "SA-MCTS(5d)"
    assert sa_mcts_z(settings, get_game("go")) == 0.2
    assert parse_player("sa-mcts:z=-0.2").spec() == "sa-mcts:z=-0.2"

    def sa(spec: str) -> SAMCTSSettings:
        settings = parse_player(spec)
        assert isinstance(settings, SAMCTSSettings)
        return settings

    # 4d lies halfway between 5d and 3d; 1d is beyond the weakest fitted rank, 9d beyond
    # the strongest: the nearest fitted rank's z
    assert sa_mcts_z(sa(f"sa-mcts:rank=4d,ztable={path}"), get_game("go")) == pytest.approx(0.125)
    assert sa_mcts_z(sa(f"sa-mcts:rank=1d,ztable={path}"), get_game("go")) == 0.05
    assert sa_mcts_z(sa(f"sa-mcts:rank=9d,ztable={path}"), get_game("go")) == 0.2
    empty = tmp_path / "empty.json"
    empty.write_text(ZTable("go", {}).to_json())
    with pytest.raises(UnknownPlayerError, match="has no z for any rank"):
        sa_mcts_z(sa(f"sa-mcts:rank=1d,ztable={empty}"), get_game("go"))
    with pytest.raises(UnknownPlayerError, match="is for go"):
        sa_mcts_z(sa(f"sa-mcts:elo=1500,ztable={path}"), get_game("chess"))
    nowhere = tmp_path / "none.json"
    with pytest.raises(UnknownPlayerError, match=r"none\.json' not found") as info:
        sa_mcts_z(sa(f"sa-mcts:rank=3d,ztable={nowhere}"), get_game("go"))
    assert "\n" not in str(info.value)
    for spec, message in [
        ("sa-mcts:z=0.5,rank=3d", "one of z=Z, rank=R, sf_elo=E and gnugo_elo=E, not z and rank"),
        ("sa-mcts:ztable=x.json,z=1", "ztable=PATH needs rank=R and no z=Z"),
        ("sa-mcts:ztable=x.json,rank=3d,z=1,model=m.pt", "ztable=PATH needs rank=R and no z=Z"),
        ("sa-mcts:sims=10", "sa-mcts needs z=Z, rank=R with a z-per-rank table"),
    ]:
        with pytest.raises(UnknownPlayerError, match=message):
            parse_player(spec)


def test_sa_mcts_over_a_play_network_takes_its_rank_and_z_together(tmp_path: Path) -> None:
    """With a play network the rank is the network's input and z the strength: the SA
    player searches that rank's policy and draws with the given z; with an estimator the
    pair is refused when built, and without a model when parsed."""
    from tests.tiny_networks import tiny_go_network

    from sparring.errors import PlayerSettingsError
    from sparring.games import get_game
    from sparring.players.cache import PlayerCache
    from sparring.players.human_like import SAMCTSSettings
    from sparring.players.human_mcts import sa_mcts_z
    from sparring.players.registry import make_player, parse_player, settings_from_json

    go = get_game("go")
    _, play = tiny_go_network(tmp_path, "play")
    spec = f"sa-mcts:rank=9d,z=-1.5,sims=4,model={play}"
    settings = parse_player(spec)
    assert isinstance(settings, SAMCTSSettings)
    assert settings.spec() == spec and settings_from_json(settings.to_json()) == settings
    assert settings.display_name() == "SA-MCTS(9d, z=-1.5)"
    assert sa_mcts_z(settings, go) == -1.5
    player = make_player(spec, go, seed=3, cache=PlayerCache())
    assert player.setting.z == -1.5  # type: ignore[attr-defined]
    state = go.initial_state()
    assert go.legal_mask(state)[player.select_move(go, state)]
    _, estimator = tiny_go_network(tmp_path, "se_inf")
    with pytest.raises(PlayerSettingsError, match="rank=R needs a play network"):
        make_player(f"sa-mcts:rank=9d,z=1,sims=4,model={estimator}", go, seed=3)
    with pytest.raises(UnknownPlayerError, match="not z and rank"):
        parse_player("sa-mcts:rank=9d,z=1")


def test_sa_mcts_rank_without_a_table_names_the_default_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sparring.games import get_game
    from sparring.players import human_mcts
    from sparring.players.registry import make_player

    monkeypatch.setattr(human_mcts, "ESTIMATOR_DIR", tmp_path)  # a directory with no table
    with pytest.raises(UnknownPlayerError, match=r"go-sa-z\.json' not found") as info:
        make_player("sa-mcts:rank=3d,sims=2", get_game("go"))
    assert "\n" not in str(info.value)


def test_shipped_chess_z_table_covers_every_band() -> None:
    """The shipped chess table (se-strength --z-fit, docs/research/strength-estimation.md) gives
    every band a z, and ``sa-mcts:elo=E`` reads its band's."""
    import json

    from sparring.estimation.data import CHESS_RANKS
    from sparring.games import get_game
    from sparring.players.human_like import SAMCTSSettings
    from sparring.players.human_mcts import default_z_table, sa_mcts_z
    from sparring.players.registry import parse_player

    path = default_z_table("chess")
    data = json.loads(path.read_text())
    assert data["game"] == "chess" and set(data["z"]) == set(CHESS_RANKS)
    assert "--z-fit" in data["command"]
    settings = parse_player("sa-mcts:elo=1500,sims=4")
    assert isinstance(settings, SAMCTSSettings)
    assert sa_mcts_z(settings, get_game("chess")) == data["z"]["1400-1600"]


def test_shipped_go_z_table_serves_every_rank() -> None:
    """The shipped Go table was fitted at the round robin's ranks 8d, 6d, 4d, 2d, 1-2k
    (se-strength --z-fit --ranks r2,r4,r6,r8,r10); the other ranks are interpolated (9d and
    3-5k take their neighbour's z)."""
    import json

    from sparring.games import get_game
    from sparring.players.human_like import SAMCTSSettings
    from sparring.players.human_mcts import ZTable, default_z_table, sa_mcts_z
    from sparring.players.registry import parse_player

    path = default_z_table("go")
    data = json.loads(path.read_text())
    assert data["game"] == "go" and list(data["z"]) == ["8d", "6d", "4d", "2d", "1-2k"]
    assert "--z-fit" in data["command"] and "--ranks r2,r4,r6,r8,r10" in data["command"]
    table = ZTable.read(path)
    z = data["z"]
    assert table.z_at("9d") == (z["8d"], "nearest")
    assert table.z_at("3-5k") == (z["1-2k"], "nearest")
    assert table.z_at("5d") == (pytest.approx((z["6d"] + z["4d"]) / 2), "interpolated")
    settings = parse_player("sa-mcts:rank=3d,sims=4")
    assert isinstance(settings, SAMCTSSettings)
    assert sa_mcts_z(settings, get_game("go")) == pytest.approx((z["4d"] + z["2d"]) / 2)


def test_cli_plan_run_and_errors(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from sparring.cli import app

    runner = CliRunner()
    plan = runner.invoke(
        app, ["se-strength", "go", "--out", str(tmp_path / "p"), "--round-robin", "--plan"]
    )
    assert plan.exit_code == 0, plan.output
    assert "10 pairings x 20 games = 200 games" in plan.output  # 5 ranks, one template
    args = ["se-strength", "chess", "--out", str(tmp_path / "run"), "-p", RANDOM]
    run = runner.invoke(app, [*args, "--ranks", "r1,r8", "--games", "2", "--no-progress"])
    assert run.exit_code == 0, run.output
    data = json.loads((tmp_path / "run" / "results.json").read_text())
    assert [p["rank"] for p in data["pairings"]] == ["2400-2600", "1000-1200"]
    assert data["command"].startswith("sparring ")
    for extra, needle in [
        (["--ranks", "3d"], "'3d' is not a chess rank"),
        (["--round-robin", "--z-fit"], "not both"),
        (["--games", "3"], "games must be even"),
    ]:
        bad = runner.invoke(app, [*args, *extra])
        assert bad.exit_code != 0 and needle in str(bad.exception or bad.output), bad.output
