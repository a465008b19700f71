"""Ladders and parameter studies: fitting one player against fixed ratings, end to end."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sparring.errors import ConfigError
from sparring.evaluation.ladder import Ladder, LadderPlayer, fit_against_ladder, read_ladder
from sparring.evaluation.store import GameStore


def test_fit_against_ladder_recovers_a_known_rating() -> None:
    rng = np.random.default_rng(5)
    opponents = np.repeat([1200.0, 1500.0, 1800.0], 400)
    true = 1600.0
    p = 1.0 / (1.0 + 10 ** ((opponents - true) / 400))
    scores = (rng.random(len(p)) < p).astype(float)
    fit = fit_against_ladder(opponents, scores)
    assert abs(fit.elo - true) < 3 * fit.stderr
    assert 10 < fit.stderr < 40 and fit.games == 1200


def test_fit_against_ladder_stays_finite_on_a_perfect_record() -> None:
    fit = fit_against_ladder([1000.0] * 20, [1.0] * 20)
    assert np.isfinite(fit.elo) and fit.elo > 1500 and fit.stderr > 100


def test_ladder_lookup_and_errors(tmp_path: Path) -> None:
    ladder = Ladder("connect4", (LadderPlayer("MCTS1", "mcts1", 1900.0, 40.0),), "Random=1000")
    assert ladder.by_spec("mcts1").elo == 1900.0
    with pytest.raises(ConfigError, match="no player 'minimax1'"):
        ladder.by_spec("minimax1")
    with pytest.raises(ConfigError, match="not found"):
        read_ladder(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(ConfigError, match="malformed"):
        read_ladder(tmp_path / "bad.json")


def test_study_end_to_end_on_tictactoe(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from sparring.evaluation.study import StudyConfig, run_study, study_markdown
    from sparring.games import get_game
    from sparring.nn.model import NetworkConfig, build_model, save_model

    game = get_game("tictactoe")
    model_path = tmp_path / "net.pt"
    save_model(model_path, build_model(NetworkConfig.for_game(game, blocks=1, channels=8), 0))
    ladder = Ladder("tictactoe", (LadderPlayer("Random", "random", 1000.0, 0.0),), "Random=1000")
    config = StudyConfig(
        game="tictactoe",
        model=str(model_path),
        parameter="sims",
        values=(2.0, 30.0),
        opponents=("random",),
        games=4,
    )
    assert config.spec(30.0).startswith(f"az:model={model_path},sims=30")
    with GameStore(tmp_path / "s.sqlite") as store:
        points = run_study(config, ladder, store)
        again = run_study(config, ladder, store)  # resumes: nothing replayed
        assert store.count() == 8
    assert [p.value for p in points] == [2.0, 30.0]
    assert [p.fit.elo for p in points] == [p.fit.elo for p in again]
    assert "| 30 |" in study_markdown(config, ladder, points)
    for p in points:
        wins, draws, losses = p.outcomes["random"]
        assert wins + draws + losses == 4
        assert p.scores["random"] == pytest.approx((wins + 0.5 * draws) / 4)
    with pytest.raises(ConfigError, match="unknown study parameter"):
        StudyConfig("tictactoe", "x", "temperature", (1.0,))
