"""Throughput measurements of the network evaluators and the batched PUCT search.

Two numbers matter for an AlphaZero engine on a CPU:

* *network throughput*: positions evaluated per second by an evaluator alone, at a given
  batch size (:func:`benchmark_network`), and
* *search throughput*: simulations per second of :func:`~sparring.search.puct.search_batch`
  with that evaluator (:func:`benchmark_search`).  Searching ``G`` games at once with one
  leaf per tree and batch makes network batches of ``G`` leaves, so the search's overhead is
  ``1 - search rate / network rate`` at batch ``G``.

:func:`sparring.bench.benchmark_search_engine` runs the standard set with a random-weight
network (ONNX Runtime and PyTorch); this module needs no network library.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sparring.games.base import Game, State
from sparring.search.evaluator import (
    Evaluator,
    LegalBatch,
    PlanesBatch,
    Priors,
    StateBatch,
    Values,
)
from sparring.search.puct import PUCTConfig, search_batch


@dataclass(frozen=True)
class BenchRow:
    """One throughput measurement."""

    backend: str
    """Evaluator: ``onnx``, ``torch``, ``uniform``, ..."""
    kind: str
    """``network`` (evaluator alone) or ``search`` (PUCT search with the evaluator)."""
    games: int
    """Trees searched at once (``search``); 0 for ``network`` rows."""
    batch: int
    """Positions per evaluator call (for ``search``: ``games * leaves_per_batch``, at most)."""
    leaves_per_batch: int
    """Leaves collected per tree per evaluator call (``search``); 0 for ``network``."""
    simulations: int
    """Simulations per tree (``search``); 0 for ``network``."""
    seconds: float
    """Wall-clock time measured."""
    rate: float
    """Positions evaluated per second (``network``) or simulations per second (``search``)."""
    evaluations_per_s: float
    """Positions sent to the evaluator per second: equal to :attr:`rate` for ``network``;
    for ``search`` the root evaluations included and the simulations that ended in terminal
    positions (no network call) excluded: compare it with the network rate at the same batch
    size to see the search's overhead."""

    def as_dict(self) -> dict[str, float | int | str]:
        """The row as a plain dictionary (JSON-friendly)."""
        return {
            "backend": self.backend,
            "kind": self.kind,
            "games": self.games,
            "batch": self.batch,
            "leaves_per_batch": self.leaves_per_batch,
            "simulations": self.simulations,
            "seconds": round(self.seconds, 4),
            "rate": round(self.rate, 1),
            "evaluations_per_s": round(self.evaluations_per_s, 1),
        }


def sample_positions(game: Game, count: int, seed: int = 0, max_plies: int = 10) -> list[State]:
    """``count`` ongoing positions reached by 0..``max_plies`` uniformly random moves."""
    rng = np.random.default_rng(seed)
    positions: list[State] = []
    while len(positions) < count:
        state = game.initial_state()
        for _ in range(int(rng.integers(0, max_plies + 1))):
            moves = game.legal_moves(state)
            child = game.play(state, int(moves[rng.integers(len(moves))]))
            if game.is_terminal(child):
                break
            state = child
        positions.append(state)
    return positions


def benchmark_network(
    game: Game,
    evaluator: Evaluator,
    batch: int,
    seconds: float = 2.0,
    backend: str = "?",
    seed: int = 0,
    repeats: int = 3,
) -> BenchRow:
    """Positions per second of ``evaluator.evaluate`` alone at batch size ``batch``.

    After 2 warm-up calls, ``repeats`` rounds of about ``seconds / repeats`` each (at least 2
    calls); the best round's rate is kept (the machine may be shared).
    """
    positions = sample_positions(game, batch, seed)
    planes = np.stack([game.encode(s) for s in positions]).astype(np.float32)
    legal = np.stack([game.legal_mask(s) for s in positions])
    states = np.stack(positions)
    for _ in range(2):
        evaluator.evaluate(planes, legal, states)
    best_rate, best_time = 0.0, 0.0
    for _ in range(max(repeats, 1)):
        calls = 0
        start = time.perf_counter()
        while True:
            evaluator.evaluate(planes, legal, states)
            calls += 1
            elapsed = time.perf_counter() - start
            if calls >= 2 and elapsed >= seconds / max(repeats, 1):
                break
        if calls * batch / elapsed > best_rate:
            best_rate, best_time = calls * batch / elapsed, elapsed
    return BenchRow(backend, "network", 0, batch, 0, 0, best_time, best_rate, best_rate)


class _CountingEvaluator:
    """Passes calls on to an evaluator and counts the positions evaluated."""

    def __init__(self, evaluator: Evaluator) -> None:
        self.evaluator = evaluator
        self.positions = 0

    def evaluate(
        self, planes: PlanesBatch, legal: LegalBatch, states: StateBatch | None = None
    ) -> tuple[Priors, Values]:
        self.positions += len(planes)
        return self.evaluator.evaluate(planes, legal, states)


def benchmark_search(
    game: Game,
    evaluator: Evaluator,
    games: int = 1,
    simulations: int = 200,
    leaves_per_batch: int = 1,
    backend: str = "?",
    seed: int = 0,
    repeats: int = 1,
) -> BenchRow:
    """Simulations per second of :func:`search_batch` over ``games`` positions at once.

    One warm-up search (compilation) of a few simulations, then ``repeats`` timed searches of
    ``simulations`` simulations per tree; the best rate is kept.
    """
    positions = sample_positions(game, games, seed)
    config = PUCTConfig(simulations=simulations, leaves_per_batch=leaves_per_batch)
    search_batch(game, positions[:1], evaluator, PUCTConfig(simulations=4), seed)
    best_rate, best_time, best_evals = 0.0, 0.0, 0.0
    for _ in range(max(repeats, 1)):
        counting = _CountingEvaluator(evaluator)
        start = time.perf_counter()
        results = search_batch(game, positions, counting, config, seed)
        elapsed = time.perf_counter() - start
        done = sum(r.simulations for r in results)
        rate = done / elapsed
        if rate > best_rate:
            best_rate, best_time = rate, elapsed
            best_evals = counting.positions / elapsed
    return BenchRow(
        backend,
        "search",
        games,
        games * leaves_per_batch,
        leaves_per_batch,
        simulations,
        best_time,
        best_rate,
        best_evals,
    )


def format_rows(rows: Sequence[BenchRow]) -> str:
    """A plain-text table of benchmark rows."""
    lines = [
        f"{'backend':8} {'kind':7} {'games':>5} {'batch':>5} {'leaves':>6} {'sims':>5} "
        f"{'seconds':>8} {'rate/s':>10} {'evals/s':>10}"
    ]
    for r in rows:
        lines.append(
            f"{r.backend:8} {r.kind:7} {r.games:5d} {r.batch:5d} {r.leaves_per_batch:6d} "
            f"{r.simulations:5d} {r.seconds:8.2f} {r.rate:10.0f} {r.evaluations_per_s:10.0f}"
        )
    return "\n".join(lines)


__all__ = [
    "BenchRow",
    "benchmark_network",
    "benchmark_search",
    "format_rows",
    "sample_positions",
]
