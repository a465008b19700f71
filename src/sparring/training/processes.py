"""Self-play in local worker processes: ``sparring train --selfplay-workers K``.

The trainer's own self-play is one process: one core walks every tree while the network
evaluates their leaves.  On a machine with many cores (and perhaps a GPU, see
:attr:`~sparring.training.config.TrainConfig.device`) :class:`ProcessSelfPlay` splits each
iteration's ``games_per_iteration`` games among ``K`` spawned worker processes, exactly as
:class:`~sparring.training.distributed.RaySelfPlay` splits them among ``K`` Ray actors: share
``i`` of iteration ``t`` is played by a :class:`~sparring.training.distributed.SelfPlayActor`
from :func:`~sparring.training.distributed.share_rng` ``(seed, t, i)`` with the network of the
iteration (its config and CPU weights, pickled to each share once an iteration), and the
shares' samples are merged in share order.  So the samples are the same as with ``K`` Ray
actors (on the same device), reproducible, and resumable after ``kill -9`` for the same ``K``
(a different ``K`` splits the games differently).

Each worker evaluates on the config's ``play_device`` (``selfplay_device``, else ``device``):
with ``cuda`` every worker holds its own CUDA context and the GPU serves the ``K`` processes'
batches; the learner stays in the trainer's process (on ``device``).  A worker that dies
makes the iteration fail (the pool is broken); the run resumes from its last checkpoint when
the command is run again.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from sparring.errors import BadValueError
from sparring.games import get_game
from sparring.nn.model import PolicyValueNet
from sparring.training.config import TrainConfig
from sparring.training.distributed import (
    SelfPlayActor,
    merge_batches,
    network_payload,
    split_games,
)
from sparring.training.selfplay import SelfPlayBatch, SelfPlaySettings


def play_share(
    config: TrainConfig,
    settings: SelfPlaySettings,
    network: dict[str, Any],
    iteration: int,
    games: int,
    share: int,
) -> tuple[SelfPlayBatch, float]:
    """Share ``share`` of iteration ``iteration`` (``games`` games) in this process: the
    batch and the CPU seconds spent (the worker processes' task)."""
    actor = SelfPlayActor(config.game, config.backend, config.threads, device=config.play_device)
    return actor.play(network, iteration, settings, games, config.seed, share)


@dataclass
class ProcessSelfPlay:
    """Self-play in ``workers`` spawned local processes (see the module doc)."""

    workers: int
    """``K``: worker processes, one share of the games each.  Results depend on it."""
    _pool: ProcessPoolExecutor | None = field(default=None, init=False, repr=False)
    _cpu: float = field(default=0.0, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise BadValueError(
                f"--selfplay-workers must be >= 1, not {self.workers}", key="--selfplay-workers"
            )

    @property
    def description(self) -> str:
        """``"processes (K workers)"``."""
        return f"processes ({self.workers} workers)"

    @property
    def last_cpu_seconds(self) -> float:
        """CPU seconds the workers spent on the last :meth:`play`."""
        return self._cpu

    def play(self, config: TrainConfig, model: PolicyValueNet, iteration: int) -> SelfPlayBatch:
        """Iteration ``iteration``'s games in the worker processes, merged in share order."""
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn")
            )
        settings = SelfPlaySettings.from_config(config)
        shares = split_games(config.games_per_iteration, self.workers)
        network = network_payload(model)
        futures: dict[int, Future[tuple[SelfPlayBatch, float]]] = {
            share: self._pool.submit(play_share, config, settings, network, iteration, n, share)
            for share, n in enumerate(shares)
            if n > 0
        }
        try:
            results = {share: future.result() for share, future in futures.items()}
        except BaseException:
            self.close()
            raise
        self._cpu = sum(cpu for _, cpu in results.values())
        game = get_game(config.game)
        plane_shape = (game.num_planes, *game.board_shape)
        return merge_batches([results[i][0] for i in sorted(results)], plane_shape)

    def close(self) -> None:
        """Stop the worker processes (the next :meth:`play` starts new ones)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


__all__ = ["ProcessSelfPlay", "play_share"]
