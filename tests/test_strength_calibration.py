"""Tests of the strength calibration: annotations in the game store, the end-to-end
calibration (resumable), target strength, the strength analysis (Eq. 13-17) and the CLI."""

from __future__ import annotations

import itertools
import json
import math
import sqlite3
import types
import warnings
from pathlib import Path

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from sparring.errors import ConfigError, SparringError, UnknownPlayerError
from sparring.evaluation.bradley_terry import ELO_SCALE
from sparring.evaluation.match import GameTask, play_game, play_task, player_modules
from sparring.evaluation.store import GameRecord, GameStore, RunInfo
from sparring.experiments.calibration import (
    CalibrationConfig,
    fit_with_fixed,
    parse_base,
    run_calibration,
)
from sparring.experiments.calibration_report import FILES, write_report
from sparring.experiments.strength_analysis import (
    Positions,
    analyze_threshold,
    average_candidates,
    e_norm,
    estimate_h,
    fit_linear,
    fit_logistic,
    root_visits_of,
)
from sparring.games import get_game
from sparring.players import make_player
from sparring.players.base import RandomPlayer
from sparring.strength.selection import StrengthSetting
from sparring.strength.target import (
    Calibration,
    CalibrationPoint,
    calibration_path_for_model,
    elo_for_setting,
    isotonic,
    load_calibration,
    save_calibration,
    setting_for_elo,
    strength_axis,
)

INF = math.inf


# ---- annotations in the store -----------------------------------------------------------------
def _record(index: int, annotations: tuple[dict[str, object] | None, ...] | None) -> GameRecord:
    return GameRecord(
        game="tictactoe",
        spec_a="a",
        spec_b="b",
        label_a="A",
        label_b="B",
        a_first=True,
        seed=index,
        moves=(4, 0, 8),
        think_times=(0.1, 0.2, 0.3),
        result=0.5,
        run_key="run",
        game_index=index,
        annotations=annotations,
    )


def test_annotations_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    notes = ({"moves": [0, 4], "visits": [np.int64(3), 7]}, None, {"random": True})
    with GameStore(path) as store:
        store.ensure_run(RunInfo("run", "match", "tictactoe", {}))
        assert store.add_game(_record(0, notes))
        assert store.add_game(_record(1, None))
        assert store.add_game(_record(2, (None, None, None)))
    with GameStore(path) as store:
        games = store.games("run")
    assert games[0].annotations == ({"moves": [0, 4], "visits": [3, 7]}, None, {"random": True})
    assert games[1].annotations is None and games[2].annotations is None
    with pytest.raises(ValueError, match="one entry per move"):
        _record(0, ({},))
    hash(games[0])  # records stay hashable


def test_old_store_gets_the_annotations_column(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    old_schema = """
    CREATE TABLE runs (run_key TEXT PRIMARY KEY, kind TEXT NOT NULL, game TEXT NOT NULL,
        config TEXT NOT NULL, created_at REAL NOT NULL, updated_at REAL NOT NULL);
    CREATE TABLE games (id INTEGER PRIMARY KEY, run_key TEXT NOT NULL REFERENCES runs(run_key),
        pairing INTEGER NOT NULL, game_index INTEGER NOT NULL, game TEXT NOT NULL,
        spec_a TEXT NOT NULL, spec_b TEXT NOT NULL, label_a TEXT NOT NULL, label_b TEXT NOT NULL,
        a_first INTEGER NOT NULL, seed INTEGER NOT NULL, moves TEXT NOT NULL,
        think_times TEXT NOT NULL, result REAL NOT NULL, plies INTEGER NOT NULL,
        finished_at REAL NOT NULL, UNIQUE (run_key, pairing, game_index));
    INSERT INTO runs VALUES ('run', 'match', 'tictactoe', '{}', 1.0, 1.0);
    INSERT INTO games VALUES (1, 'run', 0, 0, 'tictactoe', 'a', 'b', 'A', 'B', 1, 5,
        '[4, 0, 8]', '[0.1, 0.2, 0.3]', 1.0, 3, 2.0);
    PRAGMA user_version = 1;
    """
    with sqlite3.connect(path) as db:
        db.executescript(old_schema)
    with GameStore(path) as store:
        (old,) = store.games("run")
        assert old.annotations is None and old.moves == (4, 0, 8)
        assert store.add_game(_record(1, ({"visits": [1]}, None, None)))
    with sqlite3.connect(path) as db:
        columns = [row[1] for row in db.execute("PRAGMA table_info(games)")]
        version = db.execute("PRAGMA user_version").fetchone()[0]
    assert columns[-2:] == ["annotations", "player_states"] and version == 1
    with GameStore(path) as store:  # reopening does not add it twice
        assert store.games("run")[1].annotations == ({"visits": [1]}, None, None)


def test_play_game_records_the_annotations() -> None:
    game = get_game("tictactoe")
    sa = make_player("sa:base=uct,sims=30,z=1", game, 1)
    record = play_game(game, (sa, RandomPlayer(seed=2)), a_first=False)
    assert record.annotations is not None and len(record.annotations) == record.plies
    assert record.annotations[0] is None  # Random moved first
    assert record.annotations[1] is not None and sum(record.annotations[1]["visits"]) == 30
    visits = root_visits_of([record], game, sa.name)
    assert len(visits) == record.plies // 2 and all(sum(v) == 30 for v in visits)
    plain = play_game(game, (RandomPlayer(seed=1), RandomPlayer(seed=2)))
    assert plain.annotations is None


def test_worker_tasks_import_the_player_module() -> None:
    modules = player_modules(["sa:base=uct", "random"])
    assert modules == ("sparring.kinds",)  # the composition root registers the built-in kinds
    task = GameTask(
        run_key="r",
        pairing=0,
        game_index=0,
        game="tictactoe",
        spec_a="sa:base=uct,sims=20",
        spec_b="random",
        label_a="SA",
        label_b="Random",
        a_first=True,
        seed=3,
        player_modules=("sparring.players.strength",),
    )
    assert play_task(task).annotations is not None


# ---- ratings --------------------------------------------------------------------------------
def test_fit_with_fixed_recovers_ratings() -> None:
    rng = np.random.default_rng(3)
    true = {"A": 1200.0, "B": 1500.0, "C": 1700.0}
    fixed = {"L1": 1000.0, "L2": 1600.0}
    games = []
    for a, b in [("A", "L1"), ("B", "L2"), ("C", "L2"), ("A", "B"), ("B", "C")]:
        ra, rb = true.get(a, fixed.get(a)), true.get(b, fixed.get(b))
        assert ra is not None and rb is not None
        p = 1.0 / (1.0 + 10 ** ((rb - ra) / 400))
        games += [(a, b, float(rng.random() < p)) for _ in range(600)]
    fit = fit_with_fixed(games, fixed, prior_draws=1.0)
    for name, elo in true.items():
        assert abs(fit.rating(name) - elo) < 3.5 * fit.rating_stderr(name) + 5
    assert fit.rating("L1") == 1000.0 and fit.rating_stderr("L1") == 0.0
    assert fit.difference_stderr("A", "B") > 0
    with pytest.raises(ConfigError, match="no games linking"):
        fit_with_fixed([("X", "Y", 1.0)], {"L": 1000.0})


# ---- the strength analysis on synthetic data --------------------------------------------------
def _synthetic_positions(count: int, seed: int) -> Positions:
    rng = np.random.default_rng(seed)
    vectors = []
    for _ in range(count):
        k = int(rng.integers(2, 8))
        vectors.append(rng.multinomial(200, rng.dirichlet(np.full(k, 0.7))) + 1)
    return Positions.from_vectors(vectors)


def test_e_norm_properties() -> None:
    positions = _synthetic_positions(300, 1)
    for rth in (0.05, 0.1, 0.25):
        assert e_norm(positions, INF, rth) == pytest.approx(0.0)
        values = [e_norm(positions, z, rth) for z in (-INF, -2, -1, 0, 1, 2, INF)]
        assert all(a <= b + 1e-12 for a, b in itertools.pairwise(values))
        assert values[0] >= math.log(rth)  # Eq. 7
    # R_th = 0 with zero-visit moves: E_norm(-inf) = -inf and H is undefined.
    zeros = Positions.from_vectors([[10, 0, 3], [5, 5]])
    assert e_norm(zeros, -INF, 0.0) == -INF and e_norm(zeros, 1.0, 0.0) > -INF
    assert estimate_h(0.0, -500.0, -INF) is None
    counts = average_candidates(Positions.from_vectors([[10, 5, 1], [4, 4]]), [0.0, 0.5, 1.0])
    np.testing.assert_allclose(counts, [2.5, 2.0, 1.5])


def test_h_is_recovered_on_synthetic_data() -> None:
    positions = _synthetic_positions(400, 2)
    rth, h_true, top = 0.1, 4.0, 1800.0
    zs = [-INF, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, INF]
    rng = np.random.default_rng(0)
    empirical = {}
    for z in zs:  # Eq. 15 plus measurement noise (none at the two ends, which fix H)
        noise = 0.0 if math.isinf(z) else float(rng.normal(0, 5))
        empirical[z] = top + h_true * e_norm(positions, z, rth) * ELO_SCALE + noise
    analysis = analyze_threshold(positions, rth, empirical)
    assert analysis.h == pytest.approx(h_true, rel=1e-9)
    assert analysis.rmse_empirical is not None and analysis.rmse_empirical < 10
    assert analysis.logistic is not None and analysis.logistic.beta1 > 0
    assert analysis.derived is not None and analysis.positions == 400
    # Eq. 17 directly: -1088 Elo at E_norm(-inf) = -1.003 gives the paper's H of about 6.24.
    h = estimate_h(0.0, -1088.0, -1.003)
    assert h == pytest.approx(6.245, abs=0.01)


def test_fits() -> None:
    z = np.array([-2, -1, 0, 1, 2.0])
    assert fit_linear(z, 100 * z + 5).slope == pytest.approx(100)  # type: ignore[union-attr]
    assert fit_linear([INF, 1.0], [0, 1]) is None
    curve = -1000 + 1000 / (1 + np.exp(-(0.2 + 1.1 * z)))
    fit = fit_logistic(z, curve, -1000.0, 0.0)
    assert fit is not None and fit.beta1 == pytest.approx(1.1, abs=1e-3)
    assert fit.rmse < 1e-3


# ---- target strength --------------------------------------------------------------------------
def _calibration(points: list[tuple[float, float, float, float]]) -> Calibration:
    return Calibration(
        game="connect4",
        base={"base": "uct", "sims": "300"},
        baseline=StrengthSetting(0.0, 0.1),
        scale="test",
        points=tuple(
            CalibrationPoint(StrengthSetting(z, rth, f), f"spec{i}", f"L{i}", elo, 20.0)
            for i, (z, rth, f, elo) in enumerate(points)
        ),
    )


SYNTHETIC = [
    (INF, 0.1, 0.0, 2000.0),
    (2.0, 0.1, 0.0, 1900.0),
    (1.0, 0.1, 0.0, 1910.0),  # noise: not monotone
    (0.0, 0.1, 0.0, 1600.0),
    (-1.0, 0.1, 0.0, 1400.0),
    (-2.0, 0.1, 0.0, 1300.0),
    (-INF, 0.1, 0.0, 1200.0),
    (-INF, 0.1, 1.0, 800.0),
    (-INF, 0.1, 2.0, 1000.0),  # uniform random climbs back to Random
    (1.0, 0.25, 0.0, 1950.0),
    (-INF, 0.25, 0.0, 1500.0),
]


def test_target_interpolation_and_clamping(tmp_path: Path) -> None:
    cal = _calibration(SYNTHETIC)
    path = save_calibration(cal, tmp_path / "c.json")
    assert load_calibration(path) == cal
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mid = setting_for_elo(cal, 1500.0)
        assert not mid.clamped and -1.0 < mid.setting.z < 0.0 and mid.setting.floor == 0.0
        assert elo_for_setting(cal, mid.setting) == pytest.approx(1500.0)
        high = setting_for_elo(cal, 1960.0)  # between z = 2 and z = +inf
        assert high.setting.z > 2.0 and math.isfinite(high.setting.z)
        low = setting_for_elo(cal, 1100.0)  # in the floor: relax R_th
        assert low.setting.z == -INF and 0.0 < low.setting.floor < 1.0
        assert elo_for_setting(cal, low.setting) == pytest.approx(1100.0)
        # Below the first stage's knot above floor 1 (1200), in the second stage's range
        # (800 at f = 1 to 1000 at f = 2, two knots: a line): mixed with random moves.
        mixed = setting_for_elo(cal, 900.0)
        assert mixed.setting == StrengthSetting(-INF, 0.1, 1.5) and not mixed.clamped
        assert setting_for_elo(cal, 1000.0).setting == StrengthSetting(-INF, 0.1, 2.0)
        other = setting_for_elo(cal, 1700.0, rth=0.25)
        assert other.setting.rth == 0.25 and math.isfinite(other.setting.z)
    weakest = setting_for_elo(cal, 500.0)  # clamped, said by the result, no warning
    assert weakest.clamped and weakest.setting == StrengthSetting(-INF, 0.1, 1.0)
    assert weakest.expected_elo == 800.0 and weakest.player_label() == (
        "SA(elo=800, clamped from 500)"
    )
    assert "outside the calibrated range 800..2000" in weakest.describe()
    assert "weakest setting (z=-inf,rth=0.1,floor=1, Elo 800)" in weakest.describe()
    strongest = setting_for_elo(cal, 2500.0)
    assert strongest.setting.z == INF and strongest.clamped
    assert "strongest setting (z=+inf,rth=0.1, Elo 2000)" in strongest.describe()
    assert not mid.clamped and mid.player_label() == "SA(elo=1500)"
    axis = strength_axis(cal)
    assert list(axis.t) == sorted(axis.t) and axis.z_lo == -2.0 and axis.z_hi == 2.0
    with pytest.raises(ConfigError, match="fewer than two"):
        setting_for_elo(cal, 1500.0, rth=0.5)


def test_calibration_files_for_models_and_spec_for_elo(tmp_path: Path) -> None:
    model = tmp_path / "connect4.pt"
    model.write_bytes(b"x")
    assert calibration_path_for_model(model) is None
    (tmp_path / "connect4.calibration.json").write_text("{}")
    assert calibration_path_for_model(model) == tmp_path / "connect4.calibration.json"
    # --elo builds settings (spec text is parsed at the edge only)
    from sparring.cli.basic import opponent_settings

    assert opponent_settings("connect4", None, 1500)[0].spec() == "sa:elo=1500"
    at_elo = opponent_settings("connect4", "sa:base=uct,calibration=c.json,elo=3", 1400.5)[0]
    assert at_elo.spec() == "sa:base=uct,elo=1400.5,calibration=c.json"
    with pytest.raises(SparringError, match="strength-adjusted"):
        opponent_settings("connect4", "mcts1", 1500)
    with pytest.raises(SparringError, match="drop"):
        opponent_settings("connect4", "sa:z=1", 1500)
    with pytest.raises(ConfigError, match="malformed"):
        load_calibration(tmp_path / "connect4.calibration.json")


def test_elo_player_from_a_calibration(tmp_path: Path) -> None:
    cal = _calibration(SYNTHETIC)
    path = save_calibration(cal, tmp_path / "c.json")
    game = get_game("connect4")
    player = make_player(f"sa:base=uct,calibration={path},elo=1500", game, 0)
    assert player.name == "SA(elo=1500)"
    assert player.setting.rth == 0.1 and -1 < player.setting.z < 0  # type: ignore[attr-defined]
    assert player.search.simulations == 300  # type: ignore[attr-defined]
    with pytest.raises(UnknownPlayerError, match="sims=300"):
        make_player(f"sa:base=uct,sims=50,calibration={path},elo=1500", game, 0)
    with pytest.raises(UnknownPlayerError, match="not tictactoe"):
        make_player(f"sa:base=uct,calibration={path},elo=1500", get_game("tictactoe"), 0)


def test_isotonic_pools_every_adjacent_violator() -> None:
    """Pool adjacent violators by hand on a case that needs every merge, the first two blocks
    included: values (4, 3, 5, 1), weights (1, 3, 1, 1).
    4 | 3 -> (4 + 9) / 4 = 3.25 (weight 4); 3.25 | 5 kept; 5 | 1 -> 3 (weight 2);
    3.25 | 3 -> (13 + 6) / 6 = 19/6 over all four."""
    fitted = isotonic([4.0, 3.0, 5.0, 1.0], [1.0, 3.0, 1.0, 1.0])
    assert fitted.tolist() == pytest.approx([19 / 6] * 4, abs=1e-12)
    # Unweighted, strictly decreasing: everything pools into the mean.
    assert isotonic([3.0, 2.0, 1.0], [1.0, 1.0, 1.0]).tolist() == pytest.approx([2.0] * 3)
    # Only the first pair violates: it pools, the rest stays.
    assert isotonic([2.0, 1.0, 3.0, 4.0], [1.0, 1.0, 1.0, 1.0]).tolist() == pytest.approx(
        [1.5, 1.5, 3.0, 4.0]
    )
    assert isotonic([1.0, 2.0, 2.0], [5.0, 1.0, 1.0]).tolist() == [1.0, 2.0, 2.0]


# ---- end to end -------------------------------------------------------------------------------
def test_parse_base() -> None:
    assert parse_base("sa:base=uct,sims=50") == {"base": "uct", "sims": "50"}
    with pytest.raises(ConfigError, match="not a search option"):
        parse_base("base=uct,z=1")


def _ladder(
    tmp_path: Path, extra: list[dict[str, object]] | None = None, filename: str = "ladder.json"
) -> Path:
    path = tmp_path / filename
    players = [{"name": "Random", "spec": "random", "elo": 1000.0, "stderr": 0.0}, *(extra or [])]
    path.write_text(json.dumps({"game": "tictactoe", "anchor": "Random=1000", "players": players}))
    return path


def test_calibration_end_to_end_and_resume(tmp_path: Path) -> None:
    config = CalibrationConfig(
        game="tictactoe",
        base="base=uct,sims=50",
        z_values=(-INF, -1.0, 0.0, 1.0, INF),
        rth_values=(0.1, 0.5),
        floor_values=(1.0, 2.0),
        games=4,
        link_games=4,
        ladder=str(_ladder(tmp_path)),
        workers=1,
    )
    store_path = tmp_path / "cal.sqlite"
    with GameStore(store_path) as store:
        result = run_calibration(config, store)
    # 5 z x 2 R_th with +inf shared (9) and 2 floor levels; the baseline (z=0, R_th=0.1)
    # does not play itself.
    settings = config.settings()
    assert len(settings) == 11 and settings[0] == config.baseline
    assert result.skipped == 0
    # 10 settings x 4 games; the baseline and 3 weak settings x 4 games against Random.
    assert result.played == 10 * 4 + 4 * 4
    assert "ladder" in result.scale
    top = result.point(StrengthSetting(INF, 0.5))
    assert top.elo_vs_top == 0.0 and top.setting.rth == 0.1
    assert result.point(config.baseline).games == 0
    assert all(math.isfinite(p.elo) and p.stderr > 0 for p in result.points)
    assert 0.1 in result.analyses and result.analyses[0.1].positions > 0
    assert result.candidates[0] >= result.candidates[-1] >= 1.0
    files = write_report(result, tmp_path / "report", command="sparring calibrate tictactoe")
    assert set(files) == set(FILES)
    assert all(p.is_file() and p.stat().st_size > 0 for p in files.values())
    text = (tmp_path / "report" / FILES["report"]).read_text()
    assert "Table 1 analogue" in text and "Table 2 analogue" in text and "floor" in text
    cal = load_calibration(files["calibration"])
    assert cal.game == "tictactoe" and cal.base == {"base": "uct", "sims": "50"}
    assert len(cal.points) == 11
    assert setting_for_elo(cal, 1000.0).setting.rth == 0.1
    # Resume: nothing is replayed, the numbers are the same.
    with GameStore(store_path) as store:
        again = run_calibration(config, store)
    assert again.played == 0 and again.skipped == result.played
    assert [p.elo for p in again.points] == pytest.approx([p.elo for p in result.points])


def test_cli_calibrate_and_target(tmp_path: Path) -> None:
    from sparring.cli.strength import register

    app = typer.Typer()
    register(app)
    app.command("noop")(lambda: None)
    runner = CliRunner()
    out = tmp_path / "out"
    args = [
        "calibrate",
        "tictactoe",
        "--base",
        "base=uct,sims=30",
        "--z=-inf,0,inf",
        "--rth",
        "0.1",
        "--floor",
        "2",
        "--games",
        "2",
        "--link-games",
        "2",
        "--ladder",
        str(_ladder(tmp_path)),
        "--store",
        str(tmp_path / "s.sqlite"),
        "--out",
        str(out),
        "--no-progress",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert (out / "calibration.json").is_file() and (out / "report.md").is_file()
    target = runner.invoke(
        app, ["strength-target", str(out / "calibration.json"), "--elo", "99999"]
    )
    assert target.exit_code == 0, target.output
    assert "z=+inf" in target.output and "sa:base=uct,sims=30" in target.output
    bad = runner.invoke(app, [*args[:2], "--z", "x"])
    assert bad.exit_code != 0
    report = tmp_path / "check.md"
    check = runner.invoke(
        app,
        [
            "strength-check",
            str(out / "calibration.json"),
            "--elo",
            "900,1100",
            "--ladder",
            str(_ladder(tmp_path)),
            "--games",
            "2",
            "--store",
            str(tmp_path / "s.sqlite"),
            "--markdown",
            str(report),
            "--no-progress",
        ],
    )
    assert check.exit_code == 0, check.output
    text = report.read_text()
    assert "| 900 |" in text and "| 1100 |" in text and "Random" in text
    with GameStore(tmp_path / "s.sqlite") as store:
        specs = {r.spec_a for r in store.games() if "elo=" in r.spec_a}
    assert len(specs) == 2  # one player per target, two games each against Random


def test_nearest_rungs_picks_the_closest_ladder_players() -> None:
    from sparring.evaluation.ladder import Ladder, LadderPlayer
    from sparring.experiments.target_check import nearest_rungs

    ladder = Ladder(
        "connect4",
        tuple(
            LadderPlayer(name, name.lower(), elo, 0.0)
            for name, elo in [("Random", 1000), ("M2", 1580), ("M1", 1734), ("T", 1983)]
        ),
        "Random=1000",
    )
    assert [p.name for p in nearest_rungs(ladder, 1700, 2)] == ["M2", "M1"]
    assert [p.name for p in nearest_rungs(ladder, 900, 1)] == ["Random"]
    assert len(nearest_rungs(ladder, 1500, 10)) == 4
    with pytest.raises(ConfigError):
        nearest_rungs(ladder, 1500, 0)


def _two_rung_ladder(tmp_path: Path) -> Path:
    uct = {"name": "UCT200", "spec": "uct:sims=200,name=UCT200", "elo": 1700.0, "stderr": 20.0}
    return _ladder(tmp_path, extra=[uct], filename="ladder2.json")


def test_link_nearest_links_every_targetable_setting(tmp_path: Path) -> None:
    common = dict(
        game="tictactoe",
        base="base=uct,sims=50",
        z_values=(-INF, 0.0, INF),
        rth_values=(0.1, 0.5),
        floor_values=(1.0,),
        games=4,
        link_games=2,
        ladder=str(_two_rung_ladder(tmp_path)),
        ladder_opponents=("random",),
    )
    with GameStore(tmp_path / "s.sqlite") as store:
        plain = run_calibration(CalibrationConfig(**common), store)  # type: ignore[arg-type]
        linked = run_calibration(
            CalibrationConfig(**common, link_nearest=1),  # type: ignore[arg-type]
            store,
        )
    assert linked.skipped == plain.played  # the first calibration's games are reused
    for p in linked.points:
        targetable = p.setting.floor > 0 or p.setting.rth == 0.1 or p.setting.z == INF
        assert (len(p.links) >= 1) == (targetable or p.setting == linked.config.baseline)
        if not targetable:
            assert p.links == {}
    # z = -inf at R_th = 0.5 is not on the main curve: no link; the floor is.
    assert linked.point(StrengthSetting(-INF, 0.5)).links == {}
    assert linked.point(StrengthSetting(-INF, 0.1, 1.0)).links
    assert (
        linked.played
        == sum(len(p.links) for p in linked.points) * 2
        - sum(len(p.links) for p in plain.points) * 2
    )
    with pytest.raises(ConfigError):
        CalibrationConfig(**common, link_nearest=-1)  # type: ignore[arg-type]


def test_ladder_extension_rates_new_rungs_against_fixed_ratings(tmp_path: Path) -> None:
    from sparring.evaluation.ladder import read_ladder, save_ladder
    from sparring.evaluation.rungs import rate_rungs, rungs_markdown

    ladder = read_ladder(_two_rung_ladder(tmp_path))
    with GameStore(tmp_path / "r.sqlite") as store:
        results = rate_rungs(ladder, ["uct:sims=3,name=UCT3"], store, games=6, seed=1)
        with pytest.raises(ConfigError, match="already has"):
            rate_rungs(ladder, ["random"], store, games=2)
        again = rate_rungs(ladder, ["uct:sims=3,name=UCT3"], store, games=6, seed=1)
    (rung,) = results
    assert rung.games == 12 and set(rung.scores) == {"Random", "UCT200"}
    assert rung.player.elo == again[0].player.elo and rung.player.stderr > 0
    # A player that beats Random more often than not and loses to UCT200 lies between them.
    if rung.scores["Random"] > 0.5 and rung.scores["UCT200"] < 0.5:
        assert 1000 < rung.player.elo < 1700
    extended = ladder.with_players([rung.player])
    elos = [p.elo for p in extended.players]
    assert elos == sorted(elos, reverse=True)
    save_ladder(tmp_path / "out.json", extended)
    assert read_ladder(tmp_path / "out.json").by_spec("uct:sims=3,name=UCT3").name == "UCT3"
    assert "UCT3" in rungs_markdown(ladder, results, 6)
    assert [p.name for p in extended.nearest(1650, 1)] == ["UCT200"]
    # Only some ladder players (by name or spec): the same games against Random, none other.
    with GameStore(tmp_path / "r.sqlite") as store:
        (only,) = rate_rungs(
            ladder, ["uct:sims=3,name=UCT3"], store, games=6, seed=1, against=["random"]
        )
        with pytest.raises(ConfigError, match="no player 'Nobody'"):
            rate_rungs(ladder, ["uct:sims=4"], store, games=2, against=["Nobody"])
    assert only.games == 6 and only.scores == {"Random": rung.scores["Random"]}
    assert "6 games against each of random," in rungs_markdown(ladder, [only], 6, ["random"])


def test_cli_ladder_extend(tmp_path: Path) -> None:
    from sparring.cli.evaluation import register

    app = typer.Typer()
    register(app)
    runner = CliRunner()
    out = tmp_path / "ext.json"
    args = ["ladder-extend", str(_two_rung_ladder(tmp_path)), "uct:sims=2,name=U2"]
    opts = ["--games", "2", "--out", str(out), "--store", str(tmp_path / "c.sqlite")]
    result = runner.invoke(app, [*args, *opts])
    assert result.exit_code == 0, result.output
    assert len(json.loads(out.read_text())["players"]) == 3
    only = runner.invoke(app, [*args, *opts, "--against", "Random", "--out", str(tmp_path / "o")])
    assert only.exit_code == 0, only.output
    assert "2 games against each of Random," in only.output
    bad = runner.invoke(app, [*args[:2], "nosuchplayer", *opts])
    assert bad.exit_code != 0


def test_check_summary_counts_targets_within_50_on_unrounded_errors() -> None:
    """The check's summary line: largest and mean absolute error, the mean signed error and
    how many targets lie within 50 Elo, counted on the unrounded errors (49.5 is within,
    50.4 is not, though both print as 50 in the table)."""
    from sparring.evaluation.ladder import LadderFit
    from sparring.experiments.target_check import TargetCheck, checks_markdown
    from sparring.strength.target import TargetResult

    def check(target: float, elo: float) -> TargetCheck:
        setting = StrengthSetting(-math.inf, 0.1, 0.5)
        chosen = TargetResult(target, setting, target, False, 600.0, 2500.0)
        return TargetCheck(target, "sa", chosen, LadderFit(elo, 20.0, 320, 160.0), {"R": 0.5})

    checks = [check(1000, 1049.5), check(1500, 1449.6), check(2000, 2050.4)]
    calibration = types.SimpleNamespace(game="othello", scale="a ladder")
    text = checks_markdown(calibration, Path("c.json"), checks, 80)  # type: ignore[arg-type]
    assert "| 1000 | z=-inf,rth=0.1,floor=0.5 | 1050 ± 39 | +50 | 320 | R 0.50 |" in text
    assert text.rstrip().endswith(
        "Largest error 50 Elo; mean absolute error 50 Elo; mean signed error +16.5 Elo; "
        "1 of 3 within 50 Elo (errors unrounded: +49.5, -50.4, +50.4)."
    )
