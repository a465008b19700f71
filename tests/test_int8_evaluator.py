"""Cheaper training iterations: the int8 network (``backend = "onnx-int8"``, ONNX
Runtime's static quantization calibrated on random positions) and ``learn_fraction`` (fewer
SGD steps per iteration)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

import onnx
from tests.test_training import TINY

from sparring.errors import ConfigError
from sparring.games import get_game
from sparring.nn.evaluators import (
    OnnxEvaluator,
    export_onnx,
    make_evaluator,
    quantize_onnx,
)
from sparring.nn.loading import network_file
from sparring.nn.model import load_model
from sparring.rundir import read_log
from sparring.training.config import TrainConfig
from sparring.training.selfplay import random_positions, selfplay_evaluator
from sparring.training.trainer import Trainer

C4 = get_game("connect4")


def test_random_positions_start_at_the_start_and_repeat_with_the_seed() -> None:
    planes = random_positions(C4, 50, seed=3)
    assert planes.shape == (50, C4.num_planes, *C4.board_shape)
    assert planes.dtype == np.float32
    np.testing.assert_array_equal(planes[0], C4.encode(C4.initial_state()))
    np.testing.assert_array_equal(planes, random_positions(C4, 50, seed=3))
    assert not np.array_equal(planes, random_positions(C4, 50, seed=4))
    # Connect4 games last at most 42 moves: 50 positions span at least two games.
    starts = [i for i in range(50) if np.array_equal(planes[i], planes[0])]
    assert len(starts) >= 2


def test_the_int8_network_is_quantized_and_close_to_the_float_one() -> None:
    model = load_model(network_file(C4, None)).eval()
    calibration = random_positions(C4, 256, seed=0)
    graph = onnx.load_from_string(quantize_onnx(export_onnx(model), calibration))
    ops = {node.op_type for node in graph.graph.node}
    assert {"QuantizeLinear", "DequantizeLinear"} <= ops
    float_net = make_evaluator(model, backend="onnx")
    int8_net = make_evaluator(model, backend="onnx-int8", calibration=calibration)
    assert isinstance(int8_net, OnnxEvaluator) and int8_net.quantized
    assert not float_net.quantized  # type: ignore[union-attr]
    test = random_positions(C4, 300, seed=1)
    logits_f, values_f = float_net.forward(test)
    logits_q, values_q = int8_net.forward(test)
    # Measured on this network (2026-11-26): 96% of the arg-maxes agree, value error 0.03.
    assert np.mean(logits_f.argmax(1) == logits_q.argmax(1)) >= 0.85
    assert np.mean(np.abs(values_f - values_q)) <= 0.08
    assert not np.array_equal(values_f, values_q)  # it is not the float network


def test_int8_needs_calibration_and_unknown_backends_are_named() -> None:
    model = load_model(network_file(C4, None)).eval()
    with pytest.raises(ValueError, match="calibration"):
        make_evaluator(model, backend="onnx-int8")
    with pytest.raises(ValueError, match="onnx-int8"):
        make_evaluator(model, backend="int8")
    with pytest.raises(ValueError, match="non-empty"):
        quantize_onnx(export_onnx(model), np.zeros((0, 3, 6, 7), dtype=np.float32))


def test_selfplay_evaluator_calibrates_int8_on_random_positions() -> None:
    model = load_model(network_file(C4, None)).eval()
    evaluator = selfplay_evaluator(C4, model, "onnx-int8", 1, "cpu")
    assert isinstance(evaluator, OnnxEvaluator) and evaluator.quantized
    plain = selfplay_evaluator(C4, model, "onnx", 1, "cpu")
    assert isinstance(plain, OnnxEvaluator) and not plain.quantized


def test_train_config_backend_values() -> None:
    assert TrainConfig.for_game("connect4", backend="onnx-int8").backend == "onnx-int8"
    with pytest.raises(ConfigError, match="backend"):
        TrainConfig.for_game("connect4", backend="int8")


def test_int8_training_resumes_exactly(tmp_path: Path) -> None:
    config = TrainConfig.for_game("connect4", **(TINY | {"backend": "onnx-int8"}))
    straight = Trainer(config, tmp_path / "straight")
    straight.run(2)
    first = Trainer(config, tmp_path / "resumed")
    first.run(1)
    resumed = Trainer(config, tmp_path / "resumed")
    assert resumed.state.iteration == 1
    resumed.run(2)
    for key, value in straight.model.state_dict().items():
        assert np.array_equal(value.numpy(), resumed.model.state_dict()[key].numpy()), key


def test_learn_fraction_takes_that_share_of_the_mini_batches(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="learn_fraction"):
        TrainConfig.for_game("connect4", learn_fraction=0)
    with pytest.raises(ConfigError, match="learn_fraction"):
        TrainConfig.for_game("connect4", learn_fraction=1.5)
    base = TINY | {"games_per_iteration": 6, "batch_size": 8}
    full = Trainer(TrainConfig.for_game("connect4", **base), tmp_path / "full")
    full.run(1)
    quarter = Trainer(
        TrainConfig.for_game("connect4", **(base | {"learn_fraction": 0.25})), tmp_path / "q"
    )
    quarter.run(1)
    steps_full = [r["sgd_steps"] for r in read_log(tmp_path / "full/log.jsonl")]
    steps_q = [r["sgd_steps"] for r in read_log(tmp_path / "q/log.jsonl")]
    # The same self-play (same seed): the queue holds the same samples, n // 8 mini-batches.
    assert len(full.replay) == len(quarter.replay)
    assert steps_full == [len(full.replay) // 8]
    assert steps_q == [max(1, round(0.25 * (len(full.replay) // 8)))]


def test_bfloat16_learning_is_checked_learns_and_resumes_exactly(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="learn_precision"):
        TrainConfig.for_game("connect4", learn_precision="float16")
    config = TrainConfig.for_game("connect4", **(TINY | {"learn_precision": "bfloat16"}))
    straight = Trainer(config, tmp_path / "straight")
    straight.run(2)
    Trainer(config, tmp_path / "resumed").run(1)
    resumed = Trainer(config, tmp_path / "resumed")
    resumed.run(2)
    plain = Trainer(TrainConfig.for_game("connect4", **TINY), tmp_path / "float32")
    plain.run(2)
    differs = False
    for key, value in straight.model.state_dict().items():
        assert value.dtype == plain.model.state_dict()[key].dtype  # weights stay float32
        assert np.array_equal(value.numpy(), resumed.model.state_dict()[key].numpy()), key
        differs |= not np.array_equal(value.numpy(), plain.model.state_dict()[key].numpy())
    assert differs  # bfloat16 arithmetic really ran
    losses = [r["loss_policy"] for r in read_log(tmp_path / "straight/log.jsonl")]
    assert all(np.isfinite(losses))


def test_the_lean_options_resume_exactly_after_kill_9(tmp_path: Path) -> None:
    # KataGo's forced playouts with playout cap randomization, the int8 self-play network,
    # learning from half the queue in bfloat16: killed in the middle, resumed, equal to the
    # uninterrupted run.
    from tests.test_training_options import KILL_OPTIONS, check_resume_after_kill_9

    options = KILL_OPTIONS | {
        "search_variant": "forced",
        "backend": "onnx-int8",
        "learn_fraction": 0.5,
        "learn_precision": "bfloat16",
    }
    check_resume_after_kill_9(tmp_path, options)
