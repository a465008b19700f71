"""The networks shipped in src/sparring/models load by name and play sensibly."""

from __future__ import annotations

import pytest

from sparring.evaluation.match import play_game
from sparring.games import get_game
from sparring.nn.zoo import default_model, shipped_models
from sparring.players import make_player

CALIBRATED_GAMES = ("connect4", "othello6", "othello")
"""Games whose shipped network has an Elo calibration beside it."""
SHIPPED_GAMES = (*CALIBRATED_GAMES, "go9")


@pytest.mark.parametrize("game_name", SHIPPED_GAMES)
def test_model_is_shipped_with_a_model_card(game_name: str) -> None:
    path = default_model(game_name)
    assert path is not None and path == shipped_models()[game_name]
    assert path.with_suffix(".md").is_file()


@pytest.mark.parametrize("game_name", SHIPPED_GAMES)
def test_shipped_model_beats_random_with_a_small_search(game_name: str) -> None:
    game = get_game(game_name)
    wins = 0
    for i in range(4):
        players = (make_player("az:sims=32", game, seed=i), make_player("random", game, seed=i))
        record = play_game(game, players, a_first=(i % 2 == 0), seed=i)
        wins += record.score_a == 1.0
    assert wins == 4


@pytest.mark.parametrize(
    "moves",
    [
        "334455",  # the first player wins on the bottom row with column 2 or 6
        "3030302",  # the second player wins with a vertical four in column 0
    ],
)
def test_connect4_model_takes_an_immediate_win(moves: str) -> None:
    game = get_game("connect4")
    state = game.initial_state()
    for ch in moves:
        state = game.play(state, int(ch))
    player = make_player("az:sims=100", game, seed=0)
    move = player.select_move(game, state)
    after = game.play(state, move)
    assert game.is_terminal(after), f"played {move}, not a winning move"


@pytest.mark.parametrize("name", CALIBRATED_GAMES)
def test_shipped_calibration_belongs_to_the_shipped_network(name: str) -> None:
    from sparring.strength.target import (
        calibration_path_for_model,
        file_sha256,
        load_calibration,
        setting_for_elo,
    )

    model = shipped_models()[name]
    assert model.suffix == ".onnx"  # the players run the ONNX export
    path = calibration_path_for_model(model)
    assert path is not None and path.is_file()
    calibration = load_calibration(path)
    # measured with the .pt; the .onnx the players run is its export (scripts/export_onnx.py)
    source = model.with_suffix(".pt")
    assert calibration.model_sha256 == file_sha256(source), "recalibrate after a new network"
    assert calibration.onnx_sha256 == file_sha256(model), "run scripts/export_onnx.py"
    weak, strong = setting_for_elo(calibration, 900), setting_for_elo(calibration, 2100)
    assert weak.setting.floor > 0 and strong.setting.floor == 0
    # The floor reaches below Random (1000 on the ladder scale).
    assert min(p.elo for p in calibration.points) < 1000
    game = get_game(name)
    player = make_player(f"sa:model={name},elo=1500", game, seed=0)
    assert game.is_legal(game.initial_state(), player.select_move(game, game.initial_state()))


@pytest.mark.parametrize("name", CALIBRATED_GAMES)
def test_every_adaptive_opponent_of_the_service_plays_on_each_calibrated_game(name: str) -> None:
    """The adaptive AIs the page offers (DSA bayes and intra, AlphaDDA1 with the floor) build
    on every game with a calibrated network, AlphaDDA's three games included, and move."""
    from sparring.levels import ADAPTIVE_MODES, Level
    from sparring.players.registry import build_player
    from sparring.service.catalog import build_catalog, opponent_for

    info = build_catalog()[name]
    assert info.adaptive == list(ADAPTIVE_MODES)
    game = get_game(name)
    for mode in ADAPTIVE_MODES:
        settings, report = opponent_for(info, Level.adaptive(mode))
        assert report.adaptive_key == ADAPTIVE_MODES[mode]
        player = build_player(settings, game, seed=0)
        player.new_game(game, 0)
        state = game.initial_state()
        assert game.is_legal(state, player.select_move(game, state))


def test_target_check_players_are_named_by_the_chosen_setting() -> None:
    from sparring.experiments.target_check import target_spec
    from sparring.strength.target import calibration_path_for_model, load_calibration

    path = calibration_path_for_model(shipped_models()["connect4"])
    assert path is not None
    calibration = load_calibration(path)
    weak, strong = (target_spec(calibration, path, elo) for elo in (900, 2100))
    assert "floor=" in weak.split("name=")[1] and "floor=" not in strong.split("name=")[1]


def test_strength_target_takes_a_shipped_network_by_name() -> None:
    from typer.testing import CliRunner

    from sparring.cli import app
    from sparring.strength.target import calibration_path_for_model, load_calibration
    from sparring.strength.target import setting_for_elo as choose

    runner = CliRunner()
    out = runner.invoke(app, ["strength-target", "othello", "--elo", "1500"])
    assert out.exit_code == 0, out.output
    path = calibration_path_for_model(shipped_models()["othello"])
    assert path is not None
    chosen = choose(load_calibration(path), 1500)
    assert f"setting: {chosen.setting.label()} " in out.output
    assert out.output.splitlines()[-1] == "or:      sa:model=othello,elo=1500"
    missing = runner.invoke(app, ["strength-target", "no-such-network", "--elo", "1500"])
    assert missing.exit_code != 0 and "'no-such-network' not found" in str(missing.exception)


def test_the_default_ai_is_the_shipped_network_under_the_games_rules() -> None:
    """9x9 Go's everyday AI (service, ``sparring play``, GTP) is its shipped network under
    Go's finishing rules, as it was trained and rated; a size without one keeps MCTS1."""
    from sparring.engines.common import strength_settings
    from sparring.players.settings import AlphaZeroSettings, UCTSettings, default_ai

    assert default_ai("go9") == AlphaZeroSettings(finish=True)
    assert default_ai("othello") == AlphaZeroSettings(finish=False)
    assert default_ai("go9", 50) == AlphaZeroSettings(simulations=50, finish=True)
    assert default_ai("go13") == UCTSettings(simulations=300, name="MCTS1")
    assert default_ai("go13", 40) == UCTSettings(simulations=40, name="MCTS1")
    assert strength_settings(get_game("go9")) == AlphaZeroSettings(finish=True)
    assert strength_settings(get_game("go9"), simulations=8).spec() == "az:sims=8,finish=yes"
