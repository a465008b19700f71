"""What an AI move of the service costs in its worker, and what two ways to cut it give.

Usage (from the repository root)::

    .venv/bin/python scripts/bench_service_search.py [--games 12] [--sims 200] [--out FILE]

1. *Batching network calls across games*: the shipped Connect4 network's cost per position
   when ONNX Runtime evaluates batches of 1..64 positions (what sharing one batched search
   among the AI moves of concurrent games could save at most).
2. *The workers' evaluation cache* (:class:`~sparring.players.cache.PlayerCache` with
   ``evaluation_cache``, as ``sparring serve`` runs it): ``--games`` Connect4 games, a random
   person against ``az`` at ``--sims`` simulations, played through the service's own worker
   jobs (:mod:`sparring.service.worker`) once without and once with the cache, alternating
   game by game; the AI move jobs' times, the cache's hit rate, and whether every AI move was
   the same.

Prints a JSON summary (also written to ``--out``).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

import sparring.kinds  # noqa: F401 - registers the player kinds
from sparring.games import get_game
from sparring.players.cache import PlayerCache
from sparring.players.registry import build_player, settings_from_json
from sparring.search.evaluator import CachedEvaluator
from sparring.service import worker
from sparring.session import GameSession


def batch_costs(sims: int, repeats: int = 300) -> list[dict[str, float]]:
    """Milliseconds per call and per position of the shipped network at batch 1..64."""
    game = get_game("connect4")
    player = build_player(settings_from_json({"kind": "az", "sims": sims}), game, 0, PlayerCache())
    evaluator: Any = player.evaluator  # type: ignore[attr-defined]
    planes = np.stack([game.encode(game.initial_state())]).astype(np.float32)
    rows = []
    for batch in (1, 4, 8, 16, 32, 64):
        x = np.repeat(planes, batch, axis=0)
        for _ in range(20):
            evaluator.forward(x)
        start = time.perf_counter()
        for _ in range(repeats):
            evaluator.forward(x)
        ms = (time.perf_counter() - start) / repeats * 1000
        rows.append(
            {"batch": batch, "ms_per_call": round(ms, 4), "ms_per_position": round(ms / batch, 4)}
        )
    return rows


def cache_effect(games: int, sims: int) -> dict[str, Any]:
    """AI move job times without and with the evaluation cache (same games, same seeds)."""
    game = get_game("connect4")
    worker.init_worker(("sparring.kinds",))
    process = worker._process()
    caches = {"without": PlayerCache(), "with": PlayerCache(evaluation_cache=50_000)}
    times: dict[str, list[float]] = {"without": [], "with": []}
    same = 0
    for seed in range(games):
        moves: dict[str, list[int]] = {}
        for name, cache in caches.items():
            process.cache = cache
            snap = worker.new_game(
                "connect4", {}, {"kind": "az", "sims": sims}, seed, 0, "p", None
            )["snapshot"]
            rng = random.Random(seed)
            moves[name] = []
            while True:
                legal = GameSession.restore(snap, players=(None, None), game=game).legal_moves()
                result = worker.human_move(snap, 0, rng.choice(legal))
                snap = result["snapshot"]
                if result["over"]:
                    break
                start = time.perf_counter()
                result = worker.ai_move(snap, 0, 60.0)
                times[name].append(time.perf_counter() - start)
                moves[name].append(int(result["move"]))
                snap = result["snapshot"]
                if result["over"]:
                    break
        same += moves["without"] == moves["with"]
    (evaluator,) = caches["with"]._evaluators.values()
    assert isinstance(evaluator, CachedEvaluator)
    return {
        "games": games,
        "ai_moves": len(times["with"]),
        "games_with_the_same_ai_moves": same,
        "cache_hits": evaluator.hits,
        "cache_misses": evaluator.misses,
        "hit_rate": round(evaluator.hits / max(1, evaluator.hits + evaluator.misses), 3),
        **{
            f"ai_move_ms_{name}": {
                "mean": round(statistics.mean(v) * 1000, 1),
                "median": round(statistics.median(v) * 1000, 1),
            }
            for name, v in times.items()
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--sims", type=int, default=200)
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    out = {
        "command": "scripts/bench_service_search.py " + f"--games {args.games} --sims {args.sims}",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "network_batches": batch_costs(args.sims),
        "evaluation_cache": cache_effect(args.games, args.sims),
    }
    text = json.dumps(out, indent=1)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
