"""Typed player settings, the shared player cache, sa: specs and clamped target Elos."""

from __future__ import annotations

import logging
import math
import subprocess
import sys
import warnings
from dataclasses import replace
from pathlib import Path

import pytest

from sparring.errors import (
    IncompatiblePlayerError,
    PlayerSettingsError,
    UnknownKindError,
    UnknownPlayerError,
)
from sparring.evaluation.match import GameTask, play_task
from sparring.experiments.calibration import CalibrationConfig
from sparring.games import get_game
from sparring.levels import level_table
from sparring.players import make_player
from sparring.players.cache import PlayerCache
from sparring.players.registry import build_player, parse_player, settings_from_json
from sparring.players.settings import (
    AlphaZeroSettings,
    MinimaxSettings,
    RandomSettings,
    SASettings,
    UCTSettings,
)
from sparring.strength.selection import StrengthSetting
from sparring.strength.target import (
    Calibration,
    CalibrationPoint,
    file_sha256,
    sa_spec,
    save_calibration,
)

INF = math.inf


# ---- spec text -> typed settings ------------------------------------------------------------
def test_specs_parse_into_typed_settings() -> None:
    assert parse_player("random") == RandomSettings()
    assert parse_player("mcts2") == UCTSettings(simulations=100, name="MCTS2")
    assert parse_player("uct:sims=64,c=1.5,open=2,name=Fast") == UCTSettings(64, 1.5, 2, "Fast")
    assert parse_player("minimax2") == MinimaxSettings(3, 2.0, "ones", "Minimax2")
    assert parse_player("minimax:depth=2,table=ONES") == MinimaxSettings(2, 100.0, "ones")
    assert parse_player("az:sims=8,cpuct=2") == AlphaZeroSettings(simulations=8, c_puct=2.0)
    assert parse_player("sa:base=uct,sims=30,z=-1") == SASettings(
        base="uct", simulations=30, strength=StrengthSetting(-1.0, 0.1)
    )
    assert parse_player("sa:floor=0.5") == SASettings(strength=StrengthSetting(-INF, 0.1, 0.5))
    assert parse_player("sa:model=connect4,elo=1500") == SASettings(model="connect4", elo=1500.0)


@pytest.mark.parametrize(
    "spec",
    [
        "random:name=R",
        "uct:sims=64,c=1.5,open=2,name=Fast",
        "minimax:depth=2,r=10,table=ones",
        "az:model=connect4,sims=8,cpuct=2,dropout=0.25,name=Net",
        "az:rootrand=0.2",
        "sa:base=uct,sims=30,c=0.7,open=3,z=-1.5,rth=0.2,select=topn,n=2,name=S",
        "sa:base=uct,z=-inf,rth=0.1,floor=0.5",
        "sa:model=connect4,elo=1500,calibration=c.json",
    ],
)
def test_settings_spec_text_round_trips(spec: str) -> None:
    settings = parse_player(spec)
    assert parse_player(settings.spec()) == settings


def test_settings_validate_their_fields() -> None:
    with pytest.raises(UnknownPlayerError, match="sims must be >= 1"):
        UCTSettings(simulations=0)
    with pytest.raises(UnknownPlayerError, match="table must be"):
        MinimaxSettings(table="odd")  # type: ignore[arg-type]
    with pytest.raises(UnknownPlayerError, match="dropout must be in"):
        AlphaZeroSettings(dropout=1.0)
    with pytest.raises(UnknownPlayerError, match="either elo or z"):
        SASettings(elo=1500.0, strength=StrengthSetting(1.0))
    with pytest.raises(UnknownPlayerError, match="cpuct is for base=az"):
        SASettings(base="uct", c_puct=1.0)
    with pytest.raises(UnknownPlayerError, match="elo must be a finite number"):
        SASettings(elo=math.inf)
    # Spec errors stay one line naming the spec.
    with pytest.raises(UnknownPlayerError) as info:
        make_player("uct:sims=0", get_game("tictactoe"))
    assert str(info.value) == "player 'uct:sims=0': sims must be >= 1"
    with pytest.raises(UnknownPlayerError) as info:
        make_player("uct:sims=many", get_game("tictactoe"))
    assert str(info.value) == "player 'uct:sims=many': sims='many' is not an integer"
    with pytest.raises(UnknownPlayerError) as info:
        make_player("minimax", get_game("go9"))
    assert str(info.value) == "player 'minimax': minimax has no evaluation function for go9"


def test_build_player_from_settings_plays_like_the_spec() -> None:
    game = get_game("tictactoe")
    state = game.initial_state()
    for spec in ("uct:sims=40", "sa:base=uct,sims=40,z=1", "minimax:depth=2", "random"):
        typed = build_player(parse_player(spec), game, seed=5)
        named = make_player(spec, game, seed=5)
        assert typed.name == named.name
        assert [typed.select_move(game, state) for _ in range(3)] == [
            named.select_move(game, state) for _ in range(3)
        ]


# ---- sa: spec text ----------------------------------------------------------------------------
def test_sa_spec_builds_every_sa_spec() -> None:
    assert sa_spec(elo=1500) == "sa:elo=1500"
    assert sa_spec({"base": "uct", "sims": "50"}, StrengthSetting(-INF, 0.1, 0.5)) == (
        "sa:base=uct,sims=50,z=-inf,rth=0.1,floor=0.5"
    )
    assert sa_spec({"base": "az"}, calibration="c.json", elo=1400.5, name="X") == (
        "sa:base=az,calibration=c.json,elo=1400.5,name=X"
    )
    # The calibration grid's specs (part of each match's run key) keep their text.
    config = CalibrationConfig("tictactoe", base="base=uct,sims=50")
    assert config.spec(StrengthSetting(INF, 0.25)) == "sa:base=uct,sims=50,z=+inf,rth=0.25"
    assert config.spec(StrengthSetting(-1.5, 0.1)) == "sa:base=uct,sims=50,z=-1.5,rth=0.1"


# ---- the player cache -------------------------------------------------------------------------
def _tiny_network(tmp_path: Path) -> tuple[Path, Path]:
    """A tiny tictactoe network and a calibration of ``sa:base=az,sims=4`` tied to it."""
    pytest.importorskip("torch")
    from sparring.nn.model import NetworkConfig, build_model, save_model

    game = get_game("tictactoe")
    model = tmp_path / "net.pt"
    save_model(model, build_model(NetworkConfig.for_game(game, blocks=1, channels=8), 0))
    points = [(INF, 0.1, 0.0, 1600.0), (0.0, 0.1, 0.0, 1400.0), (-INF, 0.1, 0.0, 1200.0)]
    calibration = Calibration(
        game="tictactoe",
        base={"base": "az", "sims": "4"},
        baseline=StrengthSetting(0.0, 0.1),
        scale="test",
        points=tuple(
            CalibrationPoint(StrengthSetting(z, rth, f), f"s{i}", f"L{i}", elo, 20.0)
            for i, (z, rth, f, elo) in enumerate(points)
        ),
        model_sha256=file_sha256(model),
    )
    return model, save_calibration(calibration, tmp_path / "net.calibration.json")


def test_cache_reads_hashes_and_fits_once_per_process(tmp_path: Path) -> None:
    model, _ = _tiny_network(tmp_path)
    game = get_game("tictactoe")
    cache = PlayerCache()
    players = [
        make_player(f"sa:model={model},elo={elo}", game, seed, cache)
        for seed in range(5)
        for elo in (1300, 1500)
    ]
    players.append(make_player(f"az:model={model},sims=4", game, 9, cache))
    stats = cache.stats
    assert (stats.networks_loaded, stats.calibrations_read, stats.files_hashed) == (1, 1, 1)
    assert stats.curves_fitted == 2 and stats.notices == 0  # one fit per target Elo
    assert {p.name for p in players} == {"SA(elo=1300)", "SA(elo=1500)", "AlphaZero"}
    evaluators = {id(p.search.evaluator) for p in players[:-1]}  # type: ignore[attr-defined]
    assert evaluators == {id(players[-1].evaluator)}  # type: ignore[attr-defined]
    # A network with play-time dropout draws from the player's generator: not shared.
    make_player(f"az:model={model},sims=4,dropout=0.1", game, 1, cache)
    assert cache.stats.networks_loaded == 1
    # A file rewritten in place is read anew.
    model.write_bytes(model.read_bytes())
    make_player(f"sa:model={model},elo=1500", game, 0, cache)
    assert (cache.stats.networks_loaded, cache.stats.files_hashed) == (2, 2)


def test_evaluation_cache_answers_repeated_positions_with_the_same_moves() -> None:
    """PlayerCache(evaluation_cache=N) (the service's workers): a game's next search finds
    the positions its last one evaluated, and every move is the one searched without it."""
    from sparring.players.base import RandomPlayer
    from sparring.search.evaluator import CachedEvaluator
    from sparring.session import GameSession

    game = get_game("connect4")
    plain, cached = PlayerCache(), PlayerCache(evaluation_cache=10_000)
    moves = []
    for cache in (plain, cached):
        ai = make_player("az:sims=40", game, 3, cache)
        session = GameSession(game, (RandomPlayer(seed=5), ai))
        while not session.is_over:
            session.play_player()
        moves.append(session.moves)
    assert moves[0] == moves[1]
    (evaluator,) = cached._evaluators.values()
    assert isinstance(evaluator, CachedEvaluator) and evaluator.hits > 0
    assert not any(isinstance(e, CachedEvaluator) for e in plain._evaluators.values())
    with pytest.raises(ValueError, match="evaluation_cache"):
        PlayerCache(evaluation_cache=-1)


def test_match_games_reuse_the_worker_cache(tmp_path: Path) -> None:
    from sparring.evaluation import match

    model, _ = _tiny_network(tmp_path)
    specs = (f"sa:model={model},elo=1300", f"sa:model={model},elo=1500")
    tasks = [
        GameTask("r", 0, i, "tictactoe", *specs, "A", "B", i % 2 == 0, 100 + i) for i in range(4)
    ]
    play_task(tasks[0])
    before = replace(match._WORKER_PLAYERS.stats)
    records = [play_task(task) for task in tasks[1:]]
    assert match._WORKER_PLAYERS.stats == before  # nothing read, hashed or fitted again
    # Per-game seeding is kept: replaying a game with fresh players gives the same moves.
    again = play_task(tasks[2])
    assert again.moves == records[1].moves


# ---- a target Elo outside the calibration -----------------------------------------------------
def test_clamped_target_is_said_once_and_labelled_by_what_it_plays(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    model, _ = _tiny_network(tmp_path)
    game = get_game("tictactoe")
    cache = PlayerCache()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no Python warning (with its source line) any more
        with caplog.at_level(logging.WARNING, logger="sparring.players"):
            strong = [make_player(f"sa:model={model},elo=99999", game, s, cache) for s in (0, 1)]
            weak = make_player(f"sa:model={model},elo=-50", game, 0, cache)
    assert strong[0].name == "SA(elo=1600, clamped from 99999)"
    assert strong[0].setting == StrengthSetting(INF, 0.1)  # type: ignore[attr-defined]
    assert weak.name == "SA(elo=1200, clamped from -50)"
    assert [r.getMessage() for r in caplog.records] == [
        "target Elo 99999 is outside the calibrated range 1200..1600 of tictactoe (test); "
        "playing the strongest setting (z=+inf,rth=0.1, Elo 1600)",
        "target Elo -50 is outside the calibrated range 1200..1600 of tictactoe (test); "
        "playing the weakest setting (z=-inf,rth=0.1, Elo 1200)",
    ]


def test_cli_says_a_clamped_target_in_one_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "sparring", "play", "connect4", "--elo", "99999"],
        input="quit\n",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # the level resolver clamps: the player is asked a measured Elo
    said = " ".join(result.stdout.split())  # the terminal wraps long lines
    top = math.floor(level_table("connect4").elo_range[1])  # type: ignore[index]
    assert said.startswith(f"Level: Elo {top} (the Connect Four baseline ladder)")
    assert (
        f"Elo 99999 is outside the measured range 614..{top} of the Connect Four baseline "
        f"ladder; playing the strongest level, {top}"
    ) in said


# ---- range checks that used to be missing -----------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "key", "message"),
    [
        ("uct:c=-1", "c", "c must be >= 0, not -1"),
        ("uct:c=nan", "c", "c must be a finite number"),
        ("minimax:depth=1000", "depth", "depth must be <= 12, not 1000"),
        ("az:sims=1000000000", "sims", "sims must be <= 100000, not 1000000000"),
        ("sa:base=uct,sims=100001", "sims", "sims must be <= 100000"),
        ("alphadda2:sims=1000000000", "sims", "sims must be <= 100000"),
        ("dsa:sims=1000000000", "sims", "sims must be <= 100000"),
        ("se-inf-mcts:rank=3d,sims=1000000000", "sims", "sims must be <= 100000"),
        ("uct:open=0", "open", "open must be >= 1"),
    ],
)
def test_out_of_range_specs_are_one_line_errors_naming_the_key(
    spec: str, key: str, message: str
) -> None:
    with pytest.raises(PlayerSettingsError) as info:
        make_player(spec, get_game("tictactoe"), 0)
    assert info.value.key == key
    assert str(info.value).startswith(f"player {spec!r}: ") and message in str(info.value)
    assert "\n" not in str(info.value)


def test_error_classes_say_what_was_wrong() -> None:
    with pytest.raises(UnknownKindError) as kind:
        parse_player("nosuch:x=1")
    assert kind.value.key == "kind"
    with pytest.raises(UnknownKindError) as option:
        parse_player("uct:depth=3")
    assert option.value.key == "depth"
    with pytest.raises(PlayerSettingsError) as value:
        parse_player("uct:sims=many")
    assert value.value.key == "sims"
    with pytest.raises(IncompatiblePlayerError):
        make_player("minimax", get_game("go9"))


def test_built_players_keep_their_settings_and_seed() -> None:
    game = get_game("tictactoe")
    player = make_player("mcts2:name=M", game, seed=7)
    assert player.settings == UCTSettings(100, name="M") and player.seed == 7
    assert player.settings.to_json() == {"kind": "uct", "sims": 100, "c": 0.5, "open": 5,
                                         "name": "M"}  # fmt: skip
    built = build_player(settings_from_json(player.settings.to_json()), game, 7)
    assert built.settings == player.settings and built.seed == 7
    state = game.initial_state()
    assert built.select_move(game, state) == player.select_move(game, state)


def test_sa_with_a_calibration_and_no_elo_takes_its_search_options(tmp_path: Path) -> None:
    _, calibration = _tiny_network(tmp_path)  # measured with base=az,sims=4
    game = get_game("tictactoe")
    model = tmp_path / "net.pt"
    player = make_player(f"sa:model={model},calibration={calibration},z=1", game, 0)
    assert player.search.config.simulations == 4  # type: ignore[attr-defined]
    with pytest.raises(UnknownPlayerError, match="measured with sims=4, not sims=8"):
        make_player(f"sa:model={model},calibration={calibration},sims=8,z=1", game, 0)
