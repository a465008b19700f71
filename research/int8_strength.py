"""Does the int8 network play as well as the float one? (``backend = "onnx-int8"``)

Plays ``--games`` games between the same network run in float32 and in int8 (ONNX Runtime
static quantization, :func:`sparring.nn.evaluators.quantize_onnx`, calibrated on random
positions), each a PUCT search of ``--sims`` simulations playing its most visited move.
Each game starts from ``--random-plies`` uniformly random moves (seeded by the game's index;
each opening is played twice, colours swapped), so that the games differ.  Prints the int8
side's score with a 95% interval, its Elo difference, and each side's search time, e.g.::

    .venv/bin/python research/int8_strength.py othello6 --games 200 --sims 200
"""

from __future__ import annotations

import argparse

from head_to_head import play, summarize  # research/ is on the path of a script run from it

from sparring.games import get_game
from sparring.nn.evaluators import make_evaluator
from sparring.nn.loading import network_file
from sparring.nn.model import load_model
from sparring.search.puct import PUCTConfig
from sparring.training.selfplay import CALIBRATION_POSITIONS, random_positions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--model", default=None, help="network name or path (default: shipped)")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--sims", type=int, default=200)
    parser.add_argument("--random-plies", type=int, default=4)
    args = parser.parse_args()
    game = get_game(args.game)
    model = load_model(network_file(game, args.model)).eval()
    evaluators = {
        "float32": make_evaluator(model, backend="onnx", threads=1),
        "int8": make_evaluator(
            model,
            backend="onnx-int8",
            threads=1,
            calibration=random_positions(game, CALIBRATION_POSITIONS),
        ),
    }
    config = PUCTConfig(simulations=args.sims)
    seconds = {"float32": 0.0, "int8": 0.0}
    score = 0.0
    for index in range(args.games):
        int8_first = index % 2 == 0
        order = ("int8", "float32") if int8_first else ("float32", "int8")
        spent = [0.0, 0.0]
        outcome = play(
            game,
            evaluators[order[0]],
            evaluators[order[1]],
            config,
            index // 2,  # one opening per pair of games
            args.random_plies,
            10_000 + index,
            spent,
        )
        for side, name in enumerate(order):
            seconds[name] += spent[side]
        score += outcome.score_for(0 if int8_first else 1)
    p, half, elo = summarize(score, args.games)
    print(
        f"int8 scored {score:g}/{args.games} = {p:.3f} +- {half:.3f} (95%) against float32 "
        f"at {args.sims} simulations: {elo:+.0f} Elo; search seconds float32 "
        f"{seconds['float32']:.1f}, int8 {seconds['int8']:.1f}"
    )


if __name__ == "__main__":
    main()
