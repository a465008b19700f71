"""AlphaZero training: config validation, replay queue, self-play samples, kill-safe resume."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from sparring.errors import ConfigError
from sparring.games import get_game
from sparring.rundir import read_log
from sparring.search.evaluator import UniformEvaluator
from sparring.search.puct import PUCTConfig
from sparring.training.config import TrainConfig
from sparring.training.replay import ReplayQueue
from sparring.training.selfplay import SelfPlaySettings, augment, play_games
from sparring.training.trainer import Trainer

TINY = {
    "games_per_iteration": 2,
    "simulations": 8,
    "parallel_games": 2,
    "queue_size": 500,
    "batch_size": 32,
    "blocks": 1,
    "channels": 8,
    "eval_every": 0,
    "threads": 1,
    "backend": "torch",
}


def test_config_rejects_unknown_keys_and_bad_values() -> None:
    with pytest.raises(ConfigError, match="unknown key 'simulatons'"):
        TrainConfig.from_mapping({"game": "connect4", "simulatons": 3})
    with pytest.raises(ConfigError, match="simulations must be >= 1"):
        TrainConfig.for_game("connect4", simulations=0)
    cfg = TrainConfig.for_game("othello")
    assert (cfg.simulations, cfg.queue_size, cfg.blocks, cfg.opening_moves) == (400, 50000, 5, 6)


def test_config_from_toml(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('simulations = 17\neval_opponents = ["random"]\n')
    cfg = TrainConfig.from_toml(path, "connect4")
    assert cfg.simulations == 17 and cfg.eval_opponents == ("random",)
    path.write_text("bogus = 1\n")
    with pytest.raises(ConfigError, match="bogus"):
        TrainConfig.from_toml(path, "connect4")
    path.write_text('game = "othello"\n')
    with pytest.raises(ConfigError, match="is for game 'othello'"):
        TrainConfig.from_toml(path, "connect4")


def test_replay_queue_ring_and_round_trip(tmp_path: Path) -> None:
    q = ReplayQueue(5, (3, 2, 2), 4)
    for i in range(8):
        planes = np.full((1, 3, 2, 2), i % 2, dtype=np.float32)
        q.add(planes, np.full((1, 4), 0.25, dtype=np.float32), np.array([i], dtype=np.float32))
    assert len(q) == 5
    assert sorted(q.arrays()[2].tolist()) == [3, 4, 5, 6, 7]
    q.save(tmp_path / "r.npz")
    r = ReplayQueue(5, (3, 2, 2), 4)
    r.load(tmp_path / "r.npz")
    assert sorted(r.arrays()[2].tolist()) == [3, 4, 5, 6, 7]
    r.add(
        np.zeros((1, 3, 2, 2), np.float32),
        np.zeros((1, 4), np.float32),
        np.array([9.0], np.float32),
    )
    assert sorted(r.arrays()[2].tolist()) == [4, 5, 6, 7, 9]  # the oldest (3) went first
    small = ReplayQueue(3, (3, 2, 2), 4)
    small.load(tmp_path / "r.npz")
    assert sorted(small.arrays()[2].tolist()) == [5, 6, 7]


def test_self_play_samples_and_outcomes() -> None:
    game = get_game("tictactoe")
    settings = SelfPlaySettings(PUCTConfig(simulations=4, dirichlet_alpha=1.0), 2, 1.0, 3)
    batch = play_games(game, UniformEvaluator(), settings, 5, np.random.default_rng(0))
    assert batch.games == 5 and len(batch.results) == 5
    assert len(batch.z) == sum(batch.lengths) == len(batch.planes)
    np.testing.assert_allclose(batch.pi.sum(axis=1), 1.0, rtol=1e-5)
    assert set(np.unique(batch.z)) <= {-1.0, 0.0, 1.0}
    # z alternates sign along a decisive game (players alternate).
    first = batch.z[: batch.lengths[0]]
    if first[0] != 0:
        assert all(first[i] == -first[i + 1] for i in range(len(first) - 1))
    planes, pi, z = augment(game, batch.planes, batch.pi, batch.z)
    assert len(z) == len(planes) == len(pi) == 8 * len(batch.z)
    np.testing.assert_allclose(pi.sum(axis=1), 1.0, rtol=1e-5)


def test_training_resumes_after_a_kill(tmp_path: Path) -> None:
    config = TrainConfig.for_game("connect4", **TINY)
    trainer = Trainer(config, tmp_path / "run")
    trainer.run(2)
    assert (tmp_path / "run" / "model.pt").exists()
    weights = {k: v.clone() for k, v in trainer.model.state_dict().items()}
    # Simulate kill -9 in the middle of iteration 3: a torn log line and a stray temporary.
    with open(tmp_path / "run" / "log.jsonl", "a") as fh:
        fh.write('{"iteration": 3, "loss')
    (tmp_path / "run" / "checkpoint.pt.tmp").write_bytes(b"partial")
    resumed = Trainer(config, tmp_path / "run")
    assert resumed.state.iteration == 2 and resumed.state.games == 4
    for k, v in resumed.model.state_dict().items():
        assert np.array_equal(v.numpy(), weights[k].numpy())
    assert len(resumed.replay) == len(trainer.replay)
    resumed.run(3)
    records = read_log(tmp_path / "run" / "log.jsonl")
    assert [r["iteration"] for r in records] == [1, 2, 3]
    assert json.loads((tmp_path / "run" / "config.json").read_text())["simulations"] == 8


def test_resume_refuses_a_different_config(tmp_path: Path) -> None:
    Trainer(TrainConfig.for_game("connect4", **TINY), tmp_path / "run").run(1)
    changed = TrainConfig.for_game("connect4", **(TINY | {"simulations": 9}))
    with pytest.raises(ConfigError, match="simulations"):
        Trainer(changed, tmp_path / "run")


def test_learning_rate_steps_down_after_each_drop() -> None:
    cfg = TrainConfig.for_game(
        "connect4", learning_rate=0.02, learning_rate_drops=(3, 5), learning_rate_factor=0.5
    )
    assert [cfg.learning_rate_at(i) for i in (1, 3, 4, 5, 6)] == [0.02, 0.02, 0.01, 0.01, 0.005]
    with pytest.raises(ConfigError, match="learning_rate_factor"):
        TrainConfig.for_game("connect4", learning_rate_factor=0.0)
    with pytest.raises(ConfigError, match="learning_rate_drops"):
        TrainConfig.for_game("connect4", learning_rate_drops=(0,))


def test_a_resumed_run_may_add_a_learning_rate_drop(tmp_path: Path) -> None:
    Trainer(TrainConfig.for_game("connect4", **TINY), tmp_path / "run").run(1)
    dropped = TrainConfig.for_game("connect4", **(TINY | {"learning_rate_drops": (1,)}))
    Trainer(dropped, tmp_path / "run").run(2)
    rates = [r["learning_rate"] for r in read_log(tmp_path / "run" / "log.jsonl")]
    assert rates == pytest.approx([0.02, 0.002])
