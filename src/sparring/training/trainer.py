"""The AlphaZero training loop of AlphaDDA app. 1.3: self-play, augmentation, learning.

A run lives in one directory:

* ``checkpoint.pt``: network, optimiser, counters and random states, rewritten atomically
  after every ``checkpoint_every`` iterations, so ``kill -9`` loses at most the iterations
  since; re-running the same command resumes from it and redoes them exactly (the same
  random draws, the same replay queue: the resumed run's network is the uninterrupted one's);
* ``replay.npz``: the replay queue of the checkpoint.  A new queue is written as
  ``replay.next.npz``, then the checkpoint (which records the queue's sample count), then it
  is renamed to ``replay.npz``; a resume finishes or discards an interrupted rename by that
  count, so the queue always matches the checkpoint;
* ``model.pt``: the latest network (:func:`sparring.nn.model.save_model`), loadable by players;
* ``log.jsonl``: one JSON line per iteration (losses, timings, evaluation results), appended
  before the iteration's checkpoint; a resume drops the lines of iterations after its
  checkpoint (they are redone), so the log holds each iteration once;
* ``training.png``: loss and evaluation curves, redrawn after every evaluation;
* ``config.json``: the run's configuration (a resumed run must use the same one);
* ``snapshots/iter-NNNN.pt``: copies of the network every ``snapshot_every`` iterations.

Loss (AlphaDDA Eq. 10): ``l = (c_win - v)^2 - pi^T log p``; SGD with momentum and weight decay.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
import torch.nn.functional as F

from sparring.errors import ConfigError, IncompatibleError
from sparring.games import get_game
from sparring.games.base import Game
from sparring.nn.model import NetworkConfig, PolicyValueNet, build_model, save_model
from sparring.rundir import (
    Curve,
    Panel,
    TrainingPlot,
    append_log,
    atomic_torch_save,
    atomic_write,
    check_run_config,
    read_log,
)
from sparring.search.puct import PUCTConfig
from sparring.training.config import TrainConfig
from sparring.training.replay import ReplayQueue
from sparring.training.selfplay import (
    SelfPlaySettings,
    augment,
    play_games,
    selfplay_evaluator,
)

if TYPE_CHECKING:
    from sparring.training.distributed import SelfPlayBackend

CHECKPOINT_FORMAT = "sparring-train-checkpoint-v1"
RESUMABLE_CHANGES = frozenset(
    {
        "iterations",
        "eval_every",
        "eval_games",
        "eval_opponents",
        "threads",
        "checkpoint_every",
        "learning_rate_drops",
        "learning_rate_factor",
        "snapshot_every",
        "device",
        "selfplay_device",
        "parallel_games",
        "games_per_iteration",
        "learn_fraction",
        "epochs",
    }
)
"""Config fields a resumed run may change; any other difference is refused.  ``device``,
``selfplay_device`` and ``parallel_games`` change how fast self-play runs on a machine (GPU or
CPU, games in flight: a machine with a GPU wants large batches), not what it learns from,
though the samples drawn differ from an unchanged run's.  ``games_per_iteration``,
``learn_fraction`` and ``epochs`` let a run continued on a machine with many cores play more
games an iteration and learn more of the queue an iteration (the same SGD steps per new
sample with, say, 8 times the games and ``learn_fraction`` 1 with 2 epochs instead of 0.25
with 1); each iteration's record says the games it played (``first_wins``, ``second_wins``,
``draws``) and its ``sgd_steps``."""


@dataclass
class TrainState:
    """What a checkpoint restores besides the network and optimiser."""

    iteration: int = 0
    """Iterations completed."""
    games: int = 0
    """Self-play games played."""
    positions: int = 0
    """Training positions recorded (before augmentation): the full searches' positions (all
    the moves without playout cap randomization)."""
    seconds: float = 0.0
    """Wall-clock seconds spent in completed iterations, over all sessions."""
    cpu_seconds: float = 0.0
    """CPU seconds of the training process (all its threads: :func:`time.process_time`) spent
    in completed iterations, over all sessions: the cost measure of the training-options
    comparison, unaffected by other jobs sharing the machine."""


class Trainer:
    """Runs (and resumes) one training run in ``out_dir``."""

    def __init__(
        self,
        config: TrainConfig,
        out_dir: Path,
        self_play_backend: SelfPlayBackend | None = None,
    ) -> None:
        """``self_play_backend``: where self-play runs (None: this process, from the run's
        generator; a :class:`~sparring.training.distributed.RaySelfPlay`: Ray actors, with
        other samples, see :mod:`sparring.training.distributed`)."""
        config.check_opponents()  # now, not at the first evaluation
        self.device = _torch_device(config.device)  # before anything is written
        self.config = config
        self.self_play_backend = self_play_backend
        self.out = out_dir
        self.game: Game = get_game(config.game)
        self.game.require_compiled("training")
        self.out.mkdir(parents=True, exist_ok=True)
        mapping = config.to_mapping()
        check_run_config(self.out, mapping, RESUMABLE_CHANGES | self._added_fields(mapping))
        torch.set_num_threads(config.threads)
        net_config = NetworkConfig.for_game(
            self.game, blocks=config.blocks, channels=config.channels
        )
        self.model: PolicyValueNet = build_model(net_config, seed=config.seed).to(self.device)
        self.optimizer = torch.optim.SGD(
            self.model.parameters(),
            lr=config.learning_rate,
            momentum=config.momentum,
            weight_decay=config.weight_decay,
        )
        plane_shape = (self.game.num_planes, *self.game.board_shape)
        self.replay = ReplayQueue(config.queue_size, plane_shape, self.game.num_actions)
        self.rng = np.random.default_rng(config.seed)
        self.torch_rng = torch.Generator().manual_seed(config.seed)
        self.state = TrainState()
        self._resume()

    # ---- persistence ---------------------------------------------------------------------
    def _added_fields(self, mapping: dict[str, Any]) -> frozenset[str]:
        """The config fields that the run in ``out`` (if any) recorded no value for, because
        they were added to :class:`TrainConfig` after it started, and that hold their default
        here: that run behaved as their default, so resuming it may not count them as
        changed (any other value is still refused)."""
        path = self.out / "config.json"
        if not path.exists():
            return frozenset()
        try:
            theirs = json.loads(path.read_text())
        except (OSError, ValueError):
            return frozenset()  # check_run_config reports it
        defaults = TrainConfig(game=self.config.game).to_mapping()
        return frozenset(
            key for key in mapping if key not in theirs and mapping[key] == defaults.get(key)
        )

    def _resume(self) -> None:
        path = self.out / "checkpoint.pt"
        if not path.exists():
            return
        payload = torch.load(path, map_location="cpu", weights_only=False)
        if payload.get("format") != CHECKPOINT_FORMAT:
            raise ConfigError(f"{path}: not a sparring training checkpoint")
        self.model.load_state_dict(payload["model"])
        self.optimizer.load_state_dict(payload["optimizer"])
        self.rng.bit_generator.state = payload["numpy_rng"]
        self.torch_rng.set_state(payload["torch_rng"])
        self.state = TrainState(**payload["state"])
        replay = self.out / "replay.npz"
        pending = self.out / "replay.next.npz"
        wanted = payload.get("replay_added")  # absent in checkpoints before it was recorded
        if pending.exists():
            if wanted is not None and _replay_added(pending) == wanted:
                os.replace(pending, replay)  # the checkpoint was written: finish the rename
            else:
                pending.unlink()  # killed before the checkpoint: the old queue is its own
        if replay.exists():
            if wanted is not None and _replay_added(replay) != wanted:
                raise IncompatibleError(
                    f"{replay} holds {_replay_added(replay)} samples ever added, the "
                    f"checkpoint {wanted}: not the checkpoint's replay queue"
                )
            self.replay.load(replay)
        self._trim_log()

    def _trim_log(self) -> None:
        """Drop the log lines of iterations after the checkpoint (logged before a kill that
        came before their checkpoint; the resumed run redoes and logs them) and torn lines."""
        path = self.out / "log.jsonl"
        if not path.exists():
            return
        records = read_log(path)
        kept = [r for r in records if int(r.get("iteration", 0)) <= self.state.iteration]
        if len(kept) == len(records) and path.read_bytes().endswith(b"\n"):
            return
        atomic_write(path, "".join(json.dumps(r) + "\n" for r in kept).encode())

    def save_checkpoint(self) -> None:
        """Write the replay queue (``replay.next.npz``), then the checkpoint, then rename the
        queue to ``replay.npz``, then the model, each atomically (see the module doc)."""
        pending = self.out / "replay.next.npz"
        self.replay.save(pending)
        atomic_torch_save(
            self.out / "checkpoint.pt",
            {
                "format": CHECKPOINT_FORMAT,
                "model": self.model.state_dict(),
                "optimizer": self.optimizer.state_dict(),
                "numpy_rng": self.rng.bit_generator.state,
                "torch_rng": self.torch_rng.get_state(),
                "state": vars(self.state),
                "config": self.config.to_mapping(),
                "replay_added": self.replay.added,
            },
        )
        os.replace(pending, self.out / "replay.npz")
        self.save_model(self.out / "model.pt")

    def save_model(self, path: Path) -> None:
        """Write the current network (evaluation mode) atomically."""
        tmp = path.with_name(path.name + ".tmp")
        save_model(tmp, self.model.eval())
        os.replace(tmp, path)

    def _log(self, record: dict[str, Any]) -> None:
        """Append ``record`` to the run's ``log.jsonl`` (crash-safe, see :func:`append_log`)."""
        append_log(self.out / "log.jsonl", record)

    # ---- the three steps -----------------------------------------------------------------
    def self_play(self) -> dict[str, Any]:
        """*Self-play* and *Augmentation*: add ``N_self`` games' samples to the queue.

        The record's ``positions`` (= ``full_searches``) counts the recorded samples (before
        augmentation), ``moves`` the moves played, ``simulations`` the simulations of all
        the searches, and ``mean_length`` the moves per game, so the cost of a sample shows
        with playout cap randomization."""
        c = self.config
        remote: dict[str, Any] = {}
        if self.self_play_backend is None:
            evaluator = selfplay_evaluator(
                self.game, self.model.eval(), c.backend, c.threads, c.play_device
            )
            settings = SelfPlaySettings.from_config(c)
            batch = play_games(self.game, evaluator, settings, c.games_per_iteration, self.rng)
        else:
            backend = self.self_play_backend
            batch = backend.play(c, self.model.eval(), self.state.iteration + 1)
            remote = {"selfplay_remote_cpu_seconds": backend.last_cpu_seconds}
        planes, pi, z = augment(self.game, batch.planes, batch.pi, batch.z)
        self.replay.add(planes, pi, z)
        self.state.games += batch.games
        self.state.positions += len(batch.z)
        first = sum(1 for r in batch.results if r.value == 1)
        second = sum(1 for r in batch.results if r.value == 2)
        return {
            "positions": len(batch.z),
            "moves": batch.moves,
            "full_searches": batch.full_searches,
            "simulations": batch.simulations,
            "mean_length": float(np.mean(batch.lengths)),
            "first_wins": first,
            "second_wins": second,
            "draws": batch.games - first - second,
        } | remote

    def learn(self) -> dict[str, float]:
        """*Learning*: ``N_epoch`` passes of mini-batch SGD over the queue (Eq. 10).  Besides
        the mean losses the record has ``value_std``, the mean spread of the value head's
        outputs within a mini-batch: near 0 the value head has died (a constant output; the
        8x8 Othello run at learning rate 0.08 showed it, docs/research/training.md)."""
        c = self.config
        planes, pi, z = self.replay.arrays()
        n = len(z)
        if n == 0:  # nothing recorded yet (playout cap randomization can record no move)
            nan = float("nan")
            rate = c.learning_rate_at(self.state.iteration + 1)
            return {
                "loss_value": nan,
                "loss_policy": nan,
                "value_std": nan,
                "sgd_steps": 0,
                "learning_rate": rate,
            }
        for group in self.optimizer.param_groups:
            group["lr"] = c.learning_rate_at(self.state.iteration + 1)
        self.model.train()
        totals = {"loss_value": 0.0, "loss_policy": 0.0, "value_std": 0.0}
        steps = 0
        for _ in range(c.epochs):
            order = self.rng.permutation(n)
            starts = range(0, n - c.batch_size + 1 if n >= c.batch_size else 1, c.batch_size)
            if c.learn_fraction < 1:  # the first share of this random order's mini-batches
                starts = starts[: max(1, round(c.learn_fraction * len(starts)))]
            for start in starts:
                idx = np.sort(order[start : start + c.batch_size])
                x = torch.from_numpy(planes[idx].astype(np.float32)).to(self.device)
                target_pi = torch.from_numpy(pi[idx]).to(self.device)
                target_z = torch.from_numpy(z[idx]).to(self.device)
                if c.learn_precision == "bfloat16":
                    with torch.autocast(self.device.type, dtype=torch.bfloat16):
                        logits, value = self.model(x)
                    logits, value = logits.float(), value.float()
                else:
                    logits, value = self.model(x)
                loss_value = F.mse_loss(value, target_z)
                loss_policy = -(target_pi * F.log_softmax(logits, dim=1)).sum(dim=1).mean()
                loss = loss_value + loss_policy
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                self.optimizer.step()
                totals["loss_value"] += loss_value.item()
                totals["loss_policy"] += loss_policy.item()
                totals["value_std"] += value.detach().std().item() if len(idx) > 1 else 0.0
                steps += 1
        self.model.eval()
        means = {k: v / max(steps, 1) for k, v in totals.items()}
        return means | {"sgd_steps": steps, "learning_rate": self.optimizer.param_groups[0]["lr"]}

    def evaluate(self) -> dict[str, float]:
        """Score of the current network (most visited move, no noise) against each opponent."""
        from sparring.evaluation.match import play_game
        from sparring.players import make_player
        from sparring.players.alphazero import AlphaZeroPlayer

        c = self.config
        evaluator = selfplay_evaluator(
            self.game, self.model.eval(), c.backend, c.threads, c.play_device
        )
        scores: dict[str, float] = {}
        for spec in c.eval_opponents:
            total = 0.0
            for i in range(c.eval_games):
                seed = int(self.rng.integers(2**31))
                az = AlphaZeroPlayer(
                    evaluator, PUCTConfig(simulations=c.simulations, c_puct=c.c_puct), seed=seed
                )
                opponent = make_player(spec, self.game, seed + 1)
                record = play_game(self.game, (az, opponent), a_first=(i % 2 == 0), seed=seed)
                total += record.score_a
            scores[f"score_vs_{spec}"] = total / c.eval_games
        return scores

    # ---- the loop ------------------------------------------------------------------------
    def run(
        self,
        iterations: int | None = None,
        report: Callable[[int, int, dict[str, Any]], None] | None = None,
        phase: Callable[[str], None] | None = None,
        seconds: float | None = None,
    ) -> TrainState:
        """Iterate until ``iterations`` (default: the config's ``N_iter``) are done, or (with
        ``seconds``) until the first iteration that ends ``seconds`` or more after the call,
        which is then checkpointed whatever ``checkpoint_every`` says."""
        c = self.config
        target = c.iterations if iterations is None else iterations
        deadline = None if seconds is None else time.monotonic() + seconds
        while self.state.iteration < target:
            start = time.perf_counter()
            cpu_start = time.process_time()
            if phase:
                phase("self-play")
            record: dict[str, Any] = {"iteration": self.state.iteration + 1}
            t = time.perf_counter()
            record |= self.self_play()
            record["selfplay_seconds"] = time.perf_counter() - t
            if phase:
                phase("learning")
            t = time.perf_counter()
            record |= self.learn()
            record["learn_seconds"] = time.perf_counter() - t
            self.state.iteration += 1
            if c.eval_every and self.state.iteration % c.eval_every == 0:
                if phase:
                    phase("evaluation")
                t = time.perf_counter()
                record |= self.evaluate()
                record["eval_seconds"] = time.perf_counter() - t
            self.state.seconds += time.perf_counter() - start
            self.state.cpu_seconds += time.process_time() - cpu_start
            record |= {
                "games": self.state.games,
                "queue": len(self.replay),
                "total_seconds": self.state.seconds,
                "cpu_seconds": self.state.cpu_seconds,
            }
            if c.snapshot_every and self.state.iteration % c.snapshot_every == 0:
                snapshots = self.out / "snapshots"
                snapshots.mkdir(exist_ok=True)
                self.save_model(snapshots / f"iter-{self.state.iteration:04d}.pt")
            self._log(record)  # before the checkpoint: a resume drops it if that never came
            out_of_time = deadline is not None and time.monotonic() >= deadline
            if (
                self.state.iteration % c.checkpoint_every == 0
                or self.state.iteration == target
                or out_of_time
            ):
                self.save_checkpoint()
            if any(k.startswith("score_vs_") for k in record):
                TRAINING_PLOT.write(self.out / "log.jsonl", self.out / "training.png")
            if report:
                report(self.state.iteration, target, record)
            if out_of_time:
                break
        return self.state


def _torch_device(name: str) -> torch.device:
    """The PyTorch device of :attr:`TrainConfig.device`; :class:`ConfigError` when it is a
    GPU that PyTorch cannot use here."""
    if name != "cpu" and not torch.cuda.is_available():
        raise ConfigError(
            f"train config: device {name!r}, but PyTorch sees no CUDA GPU here "
            '(torch.cuda.is_available() is False); use device = "cpu"',
            "device",
        )
    device = torch.device(name)
    if device.type == "cuda" and (device.index or 0) >= torch.cuda.device_count():
        raise ConfigError(
            f"train config: device {name!r}, but PyTorch sees "
            f"{torch.cuda.device_count()} CUDA GPU(s) here (cuda:0 is the first)",
            "device",
        )
    return device


def _replay_added(path: Path) -> int:
    """The count of samples ever added to the replay queue saved at ``path``."""
    with np.load(path) as data:
        return int(data["added"])


TRAINING_PLOT = TrainingPlot(
    "iteration",
    (
        Panel(
            "training loss (Eq. 10)",
            (
                Curve("loss_value", "value loss (z - v)^2"),
                Curve("loss_policy", "policy loss -pi log p"),
            ),
        ),
        Panel("score against baselines", (Curve("score_vs_*", style="o-"),), ylim=(-0.05, 1.05)),
    ),
    figsize=(10, 4),
    dpi=100,
)
"""``training.png``: the losses of Eq. 10 and the evaluation scores against iterations."""
