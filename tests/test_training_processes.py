"""Support for cheaper training: self-play in local worker processes (``--selfplay-workers``), the
training ``device``, the time limit of :meth:`Trainer.run` (``--minutes``), and the
evaluators' device handling."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch")

import torch
from tests.test_cli_bad_input import one_line_error, run_main
from tests.test_training import TINY

from sparring.errors import BadValueError, ConfigError
from sparring.games import get_game
from sparring.nn.evaluators import (
    OnnxEvaluator,
    TorchEvaluator,
    make_evaluator,
    onnxruntime_available,
)
from sparring.nn.model import NetworkConfig, PolicyValueNet, build_model
from sparring.rundir import check_run_config, read_log
from sparring.training.config import TrainConfig
from sparring.training.distributed import (
    SelfPlayActor,
    merge_batches,
    network_payload,
    split_games,
)
from sparring.training.processes import ProcessSelfPlay, play_share
from sparring.training.selfplay import SelfPlayBatch, SelfPlaySettings
from sparring.training.trainer import RESUMABLE_CHANGES, Trainer

C4 = get_game("connect4")
CONFIG = TrainConfig.for_game("connect4", **(TINY | {"games_per_iteration": 5}))


def _model(seed: int = 0) -> PolicyValueNet:
    """A tiny Connect4 network (the config's size)."""
    net = NetworkConfig.for_game(C4, blocks=CONFIG.blocks, channels=CONFIG.channels)
    return build_model(net, seed=seed).eval()


def _in_process(
    config: TrainConfig, model: PolicyValueNet, iteration: int, k: int
) -> SelfPlayBatch:
    """What ``k`` worker processes should return: the shares played here, merged."""
    settings = SelfPlaySettings.from_config(config)
    payload = network_payload(model)
    batches = []
    for share, games in enumerate(split_games(config.games_per_iteration, k)):
        actor = SelfPlayActor(config.game, config.backend, config.threads)
        batch, _ = actor.play(payload, iteration, settings, games, config.seed, share)
        batches.append(batch)
    return merge_batches(batches, (C4.num_planes, *C4.board_shape))


def _assert_same(a: SelfPlayBatch, b: SelfPlayBatch) -> None:
    assert a.planes.dtype == b.planes.dtype and np.array_equal(a.planes, b.planes)
    assert np.array_equal(a.pi, b.pi)
    assert np.array_equal(a.z, b.z)
    assert a.games == b.games
    assert a.results == b.results
    assert a.lengths == b.lengths
    assert (a.moves, a.full_searches, a.simulations) == (b.moves, b.full_searches, b.simulations)


@pytest.fixture(scope="module")
def workers() -> Iterator[ProcessSelfPlay]:
    """Two worker processes, shared by the tests of this module."""
    pool = ProcessSelfPlay(2)
    yield pool
    pool.close()


def test_worker_processes_play_the_shares_of_the_actors(workers: ProcessSelfPlay) -> None:
    assert split_games(5, 2) == [3, 2]
    model = _model()
    expected = _in_process(CONFIG, model, 3, 2)
    assert expected.games == 5 and len(expected.lengths) == 5
    assert len(expected.z) == expected.full_searches > 0
    batch = workers.play(CONFIG, model, 3)
    _assert_same(batch, expected)
    assert workers.last_cpu_seconds > 0
    assert workers.description == "processes (2 workers)"
    # Another iteration is another draw of the games.
    other = workers.play(CONFIG, model, 4)
    assert other.games == 5
    assert not (len(other.z) == len(batch.z) and np.array_equal(other.pi, batch.pi))
    # Closed, the pool starts again on the next play, with the same samples.
    workers.close()
    _assert_same(workers.play(CONFIG, model, 3), expected)
    assert workers.last_cpu_seconds > 0


def test_worker_processes_use_the_network_given(workers: ProcessSelfPlay) -> None:
    # The weights travel with each play: another network gives the in-process samples of
    # that network, not of the one the workers saw first.
    model = _model(seed=7)
    _assert_same(workers.play(CONFIG, model, 3), _in_process(CONFIG, model, 3, 2))


@pytest.mark.parametrize("count", [0, -1])
def test_worker_count_must_be_positive(count: int) -> None:
    with pytest.raises(BadValueError) as info:
        ProcessSelfPlay(count)
    assert info.value.key == "--selfplay-workers"
    assert f"not {count}" in str(info.value)


@pytest.mark.parametrize("device", ["cpu", "cuda", "cuda:1", "cuda:12"])
def test_device_accepts_cpu_and_cuda_devices(device: str) -> None:
    assert TrainConfig.for_game("connect4", device=device).device == device


@pytest.mark.parametrize("device", ["gpu", "cuda:x", "CPU", "cuda:", "cuda:-1", " cpu", "mps"])
def test_device_rejects_other_names(device: str) -> None:
    with pytest.raises(ConfigError) as info:
        TrainConfig.for_game("connect4", device=device)
    assert info.value.key == "device"
    assert repr(device) in str(info.value)


@pytest.mark.parametrize("device", ["cpu", "cuda", "cuda:1"])
def test_selfplay_device_defaults_to_the_learning_device(device: str) -> None:
    config = TrainConfig.for_game("connect4", device=device)
    assert (config.selfplay_device, config.play_device) == ("", device)
    kept = TrainConfig.for_game("connect4", device=device, selfplay_device="cpu")
    assert (kept.device, kept.play_device) == (device, "cpu")


@pytest.mark.parametrize("device", ["gpu", "cuda:x", "CPU", "same"])
def test_selfplay_device_rejects_other_names(device: str) -> None:
    with pytest.raises(ConfigError) as info:
        TrainConfig.for_game("connect4", selfplay_device=device)
    assert info.value.key == "selfplay_device"
    assert repr(device) in str(info.value)


@pytest.mark.skipif(torch.cuda.is_available(), reason="a CUDA GPU is present")
def test_a_worker_plays_on_the_selfplay_device() -> None:
    # A run that learns on a GPU and plays on the CPU: a worker's share needs no GPU (here
    # there is none, so the learning device alone would fail) and is the CPU's share.
    model = _model()
    payload = network_payload(model)
    settings = SelfPlaySettings.from_config(CONFIG)
    gpu = TrainConfig.for_game("connect4", **(TINY | {"games_per_iteration": 5, "device": "cuda"}))
    with pytest.raises((AssertionError, RuntimeError)):
        play_share(gpu, settings, payload, 3, 3, 0)
    on_cpu = TrainConfig.from_mapping(gpu.to_mapping() | {"selfplay_device": "cpu"})
    batch, _ = play_share(on_cpu, settings, payload, 3, 3, 0)
    expected, _ = play_share(CONFIG, settings, payload, 3, 3, 0)
    _assert_same(batch, expected)


def test_device_defaults_to_the_cpu() -> None:
    assert TrainConfig.for_game("connect4").device == "cpu"
    assert TrainConfig.for_game("connect4").to_mapping()["device"] == "cpu"


@pytest.mark.skipif(torch.cuda.is_available(), reason="a CUDA GPU is present")
def test_a_gpu_run_without_a_gpu_is_refused_before_writing(tmp_path: Path) -> None:
    out = tmp_path / "run"
    config = TrainConfig.for_game("connect4", **(TINY | {"device": "cuda"}))
    with pytest.raises(ConfigError) as info:
        Trainer(config, out)
    assert info.value.key == "device"
    assert "cuda" in str(info.value).lower()
    assert not out.exists()


def test_a_run_may_be_resumed_on_another_device(tmp_path: Path) -> None:
    assert "device" in RESUMABLE_CHANGES
    # A run recorded as started on a GPU, with progress: resuming it on the CPU is allowed,
    # another change is not.
    out = tmp_path / "run"
    out.mkdir()
    gpu = TrainConfig.for_game("connect4", **(TINY | {"device": "cuda"})).to_mapping()
    (out / "config.json").write_text(json.dumps(gpu))
    (out / "checkpoint.pt").write_bytes(b"progress")
    cpu = dict(gpu, device="cpu")
    check_run_config(out, cpu, RESUMABLE_CHANGES)
    assert json.loads((out / "config.json").read_text())["device"] == "cpu"
    with pytest.raises(ConfigError, match="channels"):
        check_run_config(out, dict(cpu, channels=16), RESUMABLE_CHANGES)


def test_a_resumed_run_may_play_more_games_and_learn_more_an_iteration(tmp_path: Path) -> None:
    # A run continued on a machine with many cores: 3 games an iteration instead of 2, the
    # whole queue twice instead of a quarter of it once.
    out = tmp_path / "run"
    first = TrainConfig.for_game("connect4", **(TINY | {"learn_fraction": 0.25}))
    Trainer(first, out).run(1)
    more = TrainConfig.from_mapping(
        first.to_mapping() | {"games_per_iteration": 3, "learn_fraction": 1.0, "epochs": 2}
    )
    state = Trainer(more, out).run(2)
    assert (state.iteration, state.games) == (2, 5)
    one, two = read_log(out / "log.jsonl")
    assert [r["first_wins"] + r["second_wins"] + r["draws"] for r in (one, two)] == [2, 3]
    assert one["sgd_steps"] < two["sgd_steps"]
    assert json.loads((out / "config.json").read_text())["epochs"] == 2
    with pytest.raises(ConfigError, match="queue_size"):
        Trainer(TrainConfig.from_mapping(more.to_mapping() | {"queue_size": 600}), out)


def _run_with_limit(
    out: Path, iterations: int, seconds: float
) -> tuple[TrainConfig, int, list[bool], int]:
    """A tiny run (checkpoint_every 5) to ``iterations`` within ``seconds``: its config, the
    iterations done, whether a checkpoint existed at each report, the checkpoint's
    iteration."""
    config = TrainConfig.for_game("connect4", **(TINY | {"checkpoint_every": 5}))
    saved: list[bool] = []

    def report(iteration: int, target: int, record: dict[str, Any]) -> None:
        saved.append((out / "checkpoint.pt").exists())

    state = Trainer(config, out).run(iterations, report=report, seconds=seconds)
    payload = torch.load(out / "checkpoint.pt", map_location="cpu", weights_only=False)
    return config, state.iteration, saved, payload["state"]["iteration"]


def test_run_stops_after_the_first_iteration_past_the_time_limit(tmp_path: Path) -> None:
    config, done, saved, checkpointed = _run_with_limit(tmp_path, 10, 0)
    assert (done, saved, checkpointed) == (1, [True], 1)
    assert [r["iteration"] for r in read_log(tmp_path / "log.jsonl")] == [1]
    assert (tmp_path / "model.pt").exists()
    again = Trainer(config, tmp_path)
    assert again.state.iteration == 1
    assert again.state.games == config.games_per_iteration


def test_a_far_time_limit_changes_nothing(tmp_path: Path) -> None:
    # The contrast: with time left, iteration 1 of 2 is not checkpointed (checkpoint_every
    # 5), the run goes on to its target and checkpoints that.
    assert _run_with_limit(tmp_path, 2, 3600.0)[1:] == (2, [False, True], 2)


def test_torch_evaluator_leaves_the_model_where_it_is() -> None:
    model = _model()
    evaluator = TorchEvaluator(model, threads=1)
    assert evaluator.device == torch.device("cpu")
    assert evaluator.model is model
    assert all(p.device.type == "cpu" for p in model.parameters())
    state = C4.initial_state()
    planes = np.stack([C4.encode(state)]).astype(np.float32)
    logits, values = evaluator.forward(planes)
    with torch.inference_mode():
        want_logits, want_values = model(torch.from_numpy(planes))
    assert logits.dtype == np.float32 and values.dtype == np.float32
    assert np.array_equal(logits, want_logits.numpy())
    assert np.array_equal(values, want_values.numpy())


def test_make_evaluator_keeps_its_cpu_choices() -> None:
    model = _model()
    assert isinstance(make_evaluator(model, backend="torch", device="cpu"), TorchEvaluator)
    assert isinstance(make_evaluator(model, backend="torch"), TorchEvaluator)
    if not onnxruntime_available():
        pytest.skip("onnxruntime is not installed")
    assert isinstance(make_evaluator(model, backend="onnx", device="cpu"), OnnxEvaluator)
    assert isinstance(make_evaluator(model, backend="auto"), OnnxEvaluator)


def _tiny_toml(path: Path, **extra: Any) -> Path:
    """A TOML train config with the tiny settings (and ``extra``)."""
    lines = []
    for key, value in (TINY | extra).items():
        lines.append(f"{key} = {json.dumps(value)}")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_cli_selfplay_workers_need_the_local_backend(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    run = tmp_path / "run"
    code, _, err = run_main(
        monkeypatch,
        capsys,
        "train",
        "connect4",
        "--out",
        str(run),
        "--selfplay-workers",
        "2",
        "--backend",
        "ray",
    )
    assert "--selfplay-workers" in one_line_error(code, err)
    assert not run.exists()


def _train_args(config: Path, run: Path, *extra: str) -> list[str]:
    """``sparring train connect4 --config CONFIG --out RUN EXTRA...`` as arguments."""
    return ["train", "connect4", "--config", str(config), "--out", str(run), *extra]


def test_cli_trains_with_worker_processes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = _tiny_toml(tmp_path / "tiny.toml", games_per_iteration=3)
    run = tmp_path / "run"
    args = _train_args(config, run, "--selfplay-workers", "2", "--iterations", "2")
    code, _, err = run_main(monkeypatch, capsys, *args)
    assert code == 0, err
    records = read_log(run / "log.jsonl")
    assert [r["iteration"] for r in records] == [1, 2]
    assert all(r["selfplay_remote_cpu_seconds"] > 0 for r in records)
    assert (run / "model.pt").exists()


def test_cli_minutes_zero_stops_after_one_iteration(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = _tiny_toml(tmp_path / "tiny.toml", checkpoint_every=5)
    run = tmp_path / "run"
    args = _train_args(config, run, "--iterations", "3", "--minutes", "0")
    code, _, err = run_main(monkeypatch, capsys, *args)
    assert code == 0, err
    records = read_log(run / "log.jsonl")
    assert [r["iteration"] for r in records] == [1]
    assert "selfplay_remote_cpu_seconds" not in records[0]
    payload = torch.load(run / "checkpoint.pt", map_location="cpu", weights_only=False)
    assert payload["state"]["iteration"] == 1
