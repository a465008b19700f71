"""How long ``sparring uci`` takes to answer ``go movetime 100``.

Usage (from the repository root)::

    .venv/bin/python scripts/bench_uci_movetime.py [--positions 40] [--movetime 100] [--out FILE]

Starts ``python -m sparring uci`` through python-chess
(:func:`chess.engine.SimpleEngine.popen_uci`), sets ``Simulations`` to 100000 (so that only
the time ends a search), and asks for a move with
``go movetime M`` (python-chess sends it for ``Limit(time=M/1000)``) in ``--positions``
positions of a game of random moves (seed 0; the engine's own moves are not played).  The time of
each answer is measured from sending ``go`` to reading ``bestmove`` (python-chess's ``play``
round trip); prints the median, 95th percentile and maximum, and the overshoot over M.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

import chess
import chess.engine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--movetime", type=int, default=100, help="milliseconds")
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    rng = random.Random(0)
    board = chess.Board()
    times: list[float] = []
    with chess.engine.SimpleEngine.popen_uci([sys.executable, "-m", "sparring", "uci"]) as engine:
        engine.configure({"Simulations": 100000})
        engine.ping()
        while len(times) < args.positions:
            if board.is_game_over():
                board = chess.Board()
            start = time.perf_counter()
            result = engine.play(board, chess.engine.Limit(time=args.movetime / 1000))
            times.append(time.perf_counter() - start)
            assert result.move in board.legal_moves
            board.push(rng.choice(list(board.legal_moves)))
    ms = sorted(t * 1000 for t in times)
    out = {
        "command": f"scripts/bench_uci_movetime.py --positions {args.positions} "
        f"--movetime {args.movetime}",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "positions": len(ms),
        "median_ms": round(statistics.median(ms), 1),
        "p95_ms": round(ms[min(len(ms) - 1, int(0.95 * len(ms)))], 1),
        "max_ms": round(ms[-1], 1),
        "max_overshoot_ms": round(ms[-1] - args.movetime, 1),
    }
    text = json.dumps(out, indent=1)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
