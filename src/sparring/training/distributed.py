"""Self-play on a Ray cluster: ``sparring train --backend ray``.

The learner stays in the driver (the process running :class:`~sparring.training.trainer.
Trainer`); only self-play moves to the cluster.  :class:`RaySelfPlay` keeps ``K`` Ray actors
(:class:`SelfPlayActor`), each holding the game and an evaluator of the current network.
Every iteration the driver puts the network (its :class:`~sparring.nn.model.NetworkConfig`
and ``state_dict``) in Ray's object store *once* (``ray.put``); each actor rebuilds its
evaluator from it when the iteration changes and plays its share of ``games_per_iteration``
(:func:`split_games`: the first ``games % K`` actors play one game more).  The shares' samples
come back to the driver, which merges them in share order (:func:`merge_batches`) and adds
them to the replay queue as the local self-play does; learning, checkpoints and resuming are
the trainer's, unchanged.

Determinism: share ``i`` of iteration ``t`` draws from its own generator,
``numpy.random.default_rng(SeedSequence([seed, t, i]))`` (:func:`share_rng`), and the
trainer's own generator is not used by self-play on Ray.  So a run with the same ``K``
gives the same samples and the same network whichever nodes played, and a run resumed after
``kill -9`` of the driver redoes its lost iterations exactly.  A different ``K`` splits the
games differently (other samples), and the samples are not the local backend's (which plays
all the games from the trainer's generator): a resumed run must keep ``K``.

Faults: an actor whose process or node dies during an iteration is replaced by a new actor
(asking for no CPU, so that it can be placed while the other actors hold the cluster's CPUs)
and its share is played again from its start with the same generator (same games); a share
counts once, when its whole batch has arrived, so nothing is added twice.  After
``max_retries`` replacements for one share the error is raised.  An error inside a game is
raised at once, as locally.

Ray is imported only through :func:`~sparring.evaluation.ray_backend.import_ray`, when a
:class:`RaySelfPlay` is made over a :class:`~sparring.evaluation.ray_backend.RayBackend`.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import torch

from sparring.errors import BadValueError
from sparring.evaluation.ray_backend import (
    DEFAULT_RETRIES,
    POLL_SECONDS,
    InterruptFlag,
    RayBackend,
    raise_task_error,
)
from sparring.games import get_game
from sparring.nn.model import PolicyValueNet, build_model
from sparring.training.config import TrainConfig
from sparring.training.selfplay import (
    SelfPlayBatch,
    SelfPlaySettings,
    play_games,
    selfplay_evaluator,
)


class SelfPlayBackend(Protocol):
    """Plays an iteration's self-play games somewhere else than the trainer's process."""

    @property
    def description(self) -> str:
        """The backend in a line of text, e.g. ``"ray (2 actors)"``."""
        ...

    @property
    def last_cpu_seconds(self) -> float:
        """CPU seconds the remote processes spent on the last :meth:`play`."""
        ...

    def play(self, config: TrainConfig, model: PolicyValueNet, iteration: int) -> SelfPlayBatch:
        """The ``games_per_iteration`` games of iteration ``iteration`` (1-based) played with
        ``model``'s current weights, merged in a fixed order."""
        ...

    def close(self) -> None:
        """Release the remote processes and the connection."""
        ...


def split_games(games: int, shares: int) -> list[int]:
    """``games`` split into ``shares`` counts, the first ``games % shares`` one larger."""
    if shares < 1:
        raise BadValueError(f"shares must be >= 1, not {shares}")
    base, extra = divmod(games, shares)
    return [base + (1 if i < extra else 0) for i in range(shares)]


def share_rng(seed: int, iteration: int, share: int) -> np.random.Generator:
    """The generator of share ``share`` of iteration ``iteration`` of the run seeded ``seed``."""
    entropy = [seed % 2**63, iteration, share]
    return np.random.default_rng(np.random.SeedSequence(entropy))


def merge_batches(batches: Sequence[SelfPlayBatch], plane_shape: tuple[int, ...]) -> SelfPlayBatch:
    """The batches' samples and counts, concatenated in the order given."""
    num_actions = batches[0].pi.shape[1] if batches else 0
    planes = [b.planes for b in batches if len(b.z)]
    return SelfPlayBatch(
        np.concatenate(planes) if planes else np.zeros((0, *plane_shape), dtype=np.float32),
        np.concatenate([b.pi for b in batches])
        if batches
        else np.zeros((0, num_actions), dtype=np.float32),
        np.concatenate([b.z for b in batches]).astype(np.float32)
        if batches
        else np.zeros(0, dtype=np.float32),
        sum(b.games for b in batches),
        [r for b in batches for r in b.results],
        [n for b in batches for n in b.lengths],
        sum(b.moves for b in batches),
        sum(b.full_searches for b in batches),
        sum(b.simulations for b in batches),
    )


def network_payload(model: PolicyValueNet) -> dict[str, Any]:
    """What an actor needs to rebuild ``model``: its config and a copy of its weights."""
    return {
        "config": model.config,
        "weights": {k: v.detach().cpu().clone() for k, v in model.state_dict().items()},
    }


class SelfPlayActor:
    """One self-play worker (a Ray actor, or a task of a local worker process): the game and an
    evaluator of the network of the iteration it last played (on ``device``; Ray actors use
    the CPU)."""

    def __init__(
        self, game: str, evaluator_backend: str, threads: int, device: str = "cpu"
    ) -> None:
        torch.set_num_threads(threads)
        self.game = get_game(game)
        self.evaluator_backend = evaluator_backend
        self.threads = threads
        self.device = device
        self.iteration: int | None = None
        self.evaluator: Any = None

    def play(
        self,
        network: dict[str, Any],
        iteration: int,
        settings: SelfPlaySettings,
        games: int,
        seed: int,
        share: int,
    ) -> tuple[SelfPlayBatch, float]:
        """Share ``share`` of iteration ``iteration``: ``games`` games with the network
        ``network`` (rebuilt when the iteration changed); returns the batch and the CPU
        seconds spent."""
        start = time.process_time()
        if self.iteration != iteration or self.evaluator is None:
            model = build_model(network["config"])
            model.load_state_dict(network["weights"])
            self.evaluator = selfplay_evaluator(
                self.game, model.eval(), self.evaluator_backend, self.threads, self.device
            )
            self.iteration = iteration
        batch = play_games(
            self.game, self.evaluator, settings, games, share_rng(seed, iteration, share)
        )
        return batch, time.process_time() - start


@dataclass
class RaySelfPlay:
    """Self-play on the Ray cluster of ``cluster`` with ``actors`` actors (None: one per CPU
    of the cluster when the first iteration starts)."""

    cluster: RayBackend
    """The connection to the cluster (``--backend ray --ray-address``)."""
    actors: int | None = None
    """``K``; None: the cluster's CPUs (at least 1).  Results depend on it (module doc)."""
    max_retries: int = DEFAULT_RETRIES
    """Replacements of a dead actor for one share in one iteration before giving up."""
    replacements: int = field(default=0, init=False)
    """Actors replaced after they died, over the whole run."""
    _handles: list[Any] = field(default_factory=list, init=False, repr=False)
    _cpu: float = field(default=0.0, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.actors is not None and self.actors < 1:
            raise BadValueError(
                f"--selfplay-actors must be >= 1, not {self.actors}", key="--selfplay-actors"
            )
        if self.max_retries < 0:
            raise BadValueError(f"max_retries must be >= 0, not {self.max_retries}")

    @property
    def description(self) -> str:
        """``"ray (K actors)"``."""
        return f"ray ({len(self._handles) or self.actors or '?'} actors)"

    @property
    def last_cpu_seconds(self) -> float:
        """CPU seconds the actors spent on the last :meth:`play` (retried shares' lost work
        not counted)."""
        return self._cpu

    def _new_actor(self, config: TrainConfig, cpus: float) -> Any:
        ray = self.cluster._ray
        remote = ray.remote(num_cpus=cpus, max_restarts=0)(SelfPlayActor)
        return remote.remote(config.game, config.backend, config.threads)

    def _start(self, config: TrainConfig) -> None:
        ray = self.cluster._ray
        self.cluster.connect()
        count = self.actors or max(1, int(ray.cluster_resources().get("CPU", 1)))
        self._handles = [self._new_actor(config, 1.0) for _ in range(count)]

    def play(self, config: TrainConfig, model: PolicyValueNet, iteration: int) -> SelfPlayBatch:
        """Iteration ``iteration``'s games on the actors (see the module doc)."""
        ray = self.cluster._ray
        if not self._handles:
            self._start(config)
        settings = SelfPlaySettings.from_config(config)
        shares = split_games(config.games_per_iteration, len(self._handles))
        network = ray.put(network_payload(model))  # once per iteration
        lost = (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError)

        def submit(share: int) -> Any:
            return self._handles[share].play.remote(
                network, iteration, settings, shares[share], config.seed, share
            )

        pending = {submit(i): i for i, n in enumerate(shares) if n > 0}
        results: dict[int, tuple[SelfPlayBatch, float]] = {}
        retries = [0] * len(shares)
        with InterruptFlag() as flag:  # Ray can lose a Ctrl-C (ray_backend's module doc)
            try:
                while pending:
                    flag.check()
                    ready, _ = ray.wait(list(pending), num_returns=1, timeout=POLL_SECONDS)
                    if not ready:
                        continue
                    share = pending.pop(ready[0])
                    try:
                        results[share] = ray.get(ready[0])
                    except lost:
                        retries[share] += 1
                        if retries[share] > self.max_retries:
                            raise
                        with contextlib.suppress(Exception):
                            ray.kill(self._handles[share])
                        self._handles[share] = self._new_actor(config, 0.0)
                        self.replacements += 1
                        pending[submit(share)] = share
                    except ray.exceptions.RayTaskError as error:
                        raise_task_error(error)
            except BaseException:
                self.close_actors()
                raise
        order = sorted(results)
        self._cpu = sum(results[i][1] for i in order)
        game = get_game(config.game)
        plane_shape = (game.num_planes, *game.board_shape)
        return merge_batches([results[i][0] for i in order], plane_shape)

    def actor_handles(self) -> list[Any]:
        """The actors of the shares (for tests and diagnostics)."""
        return list(self._handles)

    def close_actors(self) -> None:
        """Kill the actors (the next :meth:`play` starts new ones)."""
        ray = self.cluster._ray
        for handle in self._handles:
            with contextlib.suppress(Exception):
                ray.kill(handle)
        self._handles = []

    def close(self) -> None:
        """Kill the actors; the cluster connection is the :class:`RayBackend`'s to close."""
        if self._handles:
            self.close_actors()


__all__ = [
    "RaySelfPlay",
    "SelfPlayActor",
    "SelfPlayBackend",
    "merge_batches",
    "network_payload",
    "share_rng",
    "split_games",
]
