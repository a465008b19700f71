"""Where self-play's time goes: the network against everything else.

Plays ``--games`` self-play games of a run config with a saved network on the local CPU
(``--backend``: ONNX Runtime by default, ``onnx-int8`` for the int8 network; one thread)
under cProfile, and prints the simulations per second and the share of the time spent in
the evaluator, e.g.::

    .venv/bin/python research/profile_selfplay.py othello configs/othello.toml \\
        checkpoints/othello/model.pt --games 16
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from pathlib import Path

import numpy as np

from sparring.games import get_game
from sparring.nn.model import load_model
from sparring.training.config import TrainConfig
from sparring.training.selfplay import SelfPlaySettings, play_games, selfplay_evaluator


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("config", type=Path)
    parser.add_argument("model", type=Path)
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--backend", default="onnx")
    args = parser.parse_args()
    game = get_game(args.game)
    config = TrainConfig.from_toml(
        args.config,
        args.game,
        device="cpu",
        parallel_games=args.games,
        games_per_iteration=args.games,
    )
    evaluator = selfplay_evaluator(game, load_model(args.model).eval(), args.backend, 1, "cpu")
    warm = TrainConfig.from_mapping(
        config.to_mapping() | {"simulations": 8, "fast_simulations": 2, "parallel_games": 2}
    )
    play_games(game, evaluator, SelfPlaySettings.from_config(warm), 2, np.random.default_rng(0))
    profile = cProfile.Profile()
    start = time.perf_counter()
    profile.enable()
    batch = play_games(
        game, evaluator, SelfPlaySettings.from_config(config), args.games, np.random.default_rng(1)
    )
    profile.disable()
    seconds = time.perf_counter() - start
    stats = pstats.Stats(profile)
    network = sum(  # cumulative time of the evaluator's evaluate (the network and a softmax)
        row[3]
        for (path, _, name), row in stats.stats.items()  # type: ignore[attr-defined]
        if name == "evaluate" and path.endswith(str(Path("nn", "evaluators.py")))
    )
    sims = batch.simulations
    print(
        f"{args.games} games, {batch.moves} moves, {sims} simulations in {seconds:.1f} s: "
        f"{sims / seconds:.0f} simulations/s; network {network:.1f} s "
        f"({100 * network / seconds:.0f}%), the rest {1e6 * (seconds - network) / sims:.1f} us "
        "a simulation"
    )


if __name__ == "__main__":
    main()
