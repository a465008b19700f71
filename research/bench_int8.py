"""Float32 against int8 networks on this CPU: time a position and agreement.

For each game's network (``--model NAME|PATH`` per game, default the shipped one): time
ONNX Runtime (one thread) on batches of ``--batch`` random-game positions, in float32 and
in int8 (:func:`sparring.nn.evaluators.quantize_onnx`, calibrated on
:func:`sparring.training.selfplay.random_positions` seed 0), and compare their outputs on
2,000 other random-game positions (seed 1): the share of equal policy arg-maxes and the
mean absolute value difference.  E.g.::

    .venv/bin/python research/bench_int8.py connect4 othello6 othello=checkpoints/othello/model.pt
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from sparring.games import get_game
from sparring.nn.evaluators import make_evaluator
from sparring.nn.loading import network_file
from sparring.nn.model import load_model
from sparring.training.selfplay import CALIBRATION_POSITIONS, random_positions


def seconds_per_batch(evaluator: object, planes: np.ndarray, budget: float) -> float:
    """Median seconds of ``evaluator.forward(planes)`` over ``budget`` seconds of calls."""
    forward = evaluator.forward  # type: ignore[attr-defined]
    for _ in range(5):
        forward(planes)
    times = []
    start = time.perf_counter()
    while time.perf_counter() - start < budget:
        t = time.perf_counter()
        forward(planes)
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="+", help="GAME or GAME=MODEL")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    print(
        "| game | network | float32 us/position | int8 us/position | speed-up | "
        "equal arg-max | mean abs value diff |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for item in args.games:
        name, _, model_name = item.partition("=")
        game = get_game(name)
        file = network_file(game, model_name or None)
        model = load_model(file).eval()
        plain = make_evaluator(model, backend="onnx", threads=1)
        int8 = make_evaluator(
            model,
            backend="onnx-int8",
            threads=1,
            calibration=random_positions(game, CALIBRATION_POSITIONS, seed=0),
        )
        test = random_positions(game, 2000, seed=1)
        batch = test[: args.batch]
        t_plain = seconds_per_batch(plain, batch, args.seconds) / len(batch)
        t_int8 = seconds_per_batch(int8, batch, args.seconds) / len(batch)
        logits_p, values_p = plain.forward(test)
        logits_q, values_q = int8.forward(test)
        agree = float(np.mean(logits_p.argmax(1) == logits_q.argmax(1)))
        diff = float(np.mean(np.abs(values_p - values_q)))
        print(
            f"| {name} | {file.name} | {1e6 * t_plain:.0f} | {1e6 * t_int8:.0f} | "
            f"{t_plain / t_int8:.1f}x | {100 * agree:.1f}% | {diff:.3f} |"
        )


if __name__ == "__main__":
    main()
