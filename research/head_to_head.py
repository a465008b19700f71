"""Two networks head to head from random openings (the training-options
comparison: has an option reached the shipped network?).

Plays ``--games`` games between network A and network B (names or paths), each a PUCT
search of ``--sims`` simulations playing its most visited move, in float32 (ONNX Runtime).
Each game starts from ``--random-plies`` uniformly random moves, one opening per pair of
games (colours swapped; game ``i`` uses opening ``i // 2``), so that the games differ;
``--first-game`` continues a series with new openings.  Prints A's score with a 95% interval
and the Elo difference; ``--json`` appends the result as one JSON line.  E.g.::

    .venv/bin/python research/head_to_head.py othello6 \\
        checkpoints/cmp-othello6-lean/snapshots/iter-0200.pt othello6 --games 100
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np

from sparring.games import get_game
from sparring.games.base import Game, Outcome
from sparring.nn.evaluators import make_evaluator
from sparring.nn.loading import network_file
from sparring.nn.model import load_model
from sparring.search.evaluator import Evaluator
from sparring.search.puct import PUCTConfig, search_batch
from sparring.training.selfplay import best_move


def play(
    game: Game,
    first: Evaluator,
    second: Evaluator,
    config: PUCTConfig,
    opening: int,
    plies: int,
    seed: int,
    seconds: list[float] | None = None,
) -> Outcome:
    """One game from opening ``opening`` (``plies`` random moves), ``first`` moving first;
    the search seconds of ``first`` and ``second`` are added to ``seconds[0]`` and
    ``seconds[1]`` when given."""
    rng = np.random.default_rng(opening)
    state = game.initial_state()
    for _ in range(plies):
        moves = game.legal_moves(state)
        state = game.play(state, int(moves[int(rng.integers(len(moves)))]))
        if game.status(state) is not Outcome.ONGOING:
            return game.status(state)
    search_rng = np.random.default_rng(seed)
    while game.status(state) is Outcome.ONGOING:
        side = game.to_move(state)
        start = time.perf_counter()
        (result,) = search_batch(game, [state], second if side else first, config, search_rng)
        if seconds is not None:
            seconds[side] += time.perf_counter() - start
        state = game.play(state, best_move(result, search_rng))
    return game.status(state)


def summarize(score: float, games: int) -> tuple[float, float, float]:
    """A score of ``score`` points in ``games`` games: the share, the half-width of its 95%
    interval (normal approximation) and the Elo difference (the share clipped to
    0.001-0.999)."""
    p = score / games
    half = 1.96 * math.sqrt(max(p * (1 - p), 1e-9) / games)
    clipped = min(max(p, 1e-3), 1 - 1e-3)
    return p, half, -400 * math.log10(1 / clipped - 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("a", help="network A (name or path)")
    parser.add_argument("b", help="network B (name or path)")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--sims", type=int, default=200)
    parser.add_argument("--random-plies", type=int, default=4)
    parser.add_argument(
        "--first-game", type=int, default=0, help="index of the first game (more games: 100)"
    )
    parser.add_argument("--json", type=Path, default=None, help="append the result here")
    args = parser.parse_args()
    game = get_game(args.game)
    nets = [
        make_evaluator(load_model(network_file(game, name)).eval(), backend="onnx")
        for name in (args.a, args.b)
    ]
    config = PUCTConfig(simulations=args.sims)
    score = 0.0
    for index in range(args.first_game, args.first_game + args.games):
        a_first = index % 2 == 0
        first, second = (nets[0], nets[1]) if a_first else (nets[1], nets[0])
        outcome = play(game, first, second, config, index // 2, args.random_plies, index)
        score += outcome.score_for(0 if a_first else 1)
    p, half, elo = summarize(score, args.games)
    print(
        f"{args.a} scored {score:g}/{args.games} = {p:.3f} +- {half:.3f} (95%) against "
        f"{args.b} at {args.sims} simulations: {elo:+.0f} Elo"
    )
    if args.json is not None:
        with args.json.open("a") as fh:
            record = {"a": args.a, "b": args.b, "games": args.games, "sims": args.sims,
                      "random_plies": args.random_plies, "first_game": args.first_game,
                      "score": score, "elo": elo}  # fmt: skip
            fh.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()
