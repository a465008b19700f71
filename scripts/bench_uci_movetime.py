"""How long ``sparring uci`` takes to answer ``go movetime M``, and its first move.

Usage (from the repository root)::

    .venv/bin/python scripts/bench_uci_movetime.py [--player SPEC] [--movetime 100 500]
        [--positions 10] [--first 3] [--out FILE]

Starts ``python -m sparring uci`` (the interpreter running this script) and talks to it line by
line.  With ``--player`` the engine plays that spec (the ``Player`` option, e.g.
``uct:sims=2000``); without, the ``Simulations`` option is set to 100000 so that only the
clock ends a search of the default player.  For each ``--movetime`` value it asks for a move
with ``position ... `` and ``go movetime M`` in ``--positions`` positions of a game of random
moves (seed 0; the engine's own moves are not played) after one ``isready``; the time of an
answer is measured from writing ``go`` to reading ``bestmove``.  ``--first N`` starts N fresh
engines and times their first move (``uci``, the options, ``ucinewgame``, ``isready`` as
python-chess sends them, then ``position startpos`` and ``go movetime`` of the largest
``--movetime``): the ``isready`` round trip (where the one-off costs are paid) and the first
``go`` are reported apart.  Prints JSON: per move time the mean, median, 95th percentile and
maximum in milliseconds, and the overshoot of the maximum over ``M``.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import chess


class Engine:
    """``sparring uci`` as a subprocess, its lines read into a queue by a thread."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "sparring", "uci"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
            env=os.environ.copy(),
        )
        self.lines: queue.Queue[tuple[float, str]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put((time.perf_counter(), line.rstrip("\n")))

    def send(self, line: str) -> float:
        """Write ``line``; the time it was written."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return time.perf_counter()

    def until(self, prefix: str, timeout: float = 120.0) -> tuple[float, list[str]]:
        """The time the first line starting with ``prefix`` was read, and the lines up to it."""
        seen = []
        while True:
            when, line = self.lines.get(timeout=timeout)
            seen.append(line)
            if line.startswith(prefix):
                return when, seen

    def start(self, player: str) -> float:
        """``uci``, the options, ``ucinewgame`` and ``isready``; the ``isready`` round trip."""
        self.send("uci")
        self.until("uciok")
        if player:
            self.send(f"setoption name Player value {player}")
        else:
            self.send("setoption name Simulations value 100000")
        self.send("ucinewgame")
        sent = self.send("isready")
        return self.until("readyok")[0] - sent

    def move(self, board: chess.Board, movetime: int) -> float:
        """Seconds from ``go movetime`` to ``bestmove`` at ``board``."""
        moves = " ".join(m.uci() for m in board.move_stack)
        self.send(f"position startpos moves {moves}" if moves else "position startpos")
        sent = self.send(f"go movetime {movetime}")
        when, lines = self.until("bestmove")
        best = lines[-1].split()[1]
        if chess.Move.from_uci(best) not in board.legal_moves:
            raise AssertionError(f"illegal bestmove {best} at {board.fen()}")
        return when - sent

    def close(self) -> None:
        self.send("quit")
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def summary(seconds: list[float], movetime: int) -> dict[str, float | int]:
    """Mean, median, 95th percentile and maximum (ms) of ``seconds``, and the overshoot."""
    ms = sorted(t * 1000 for t in seconds)
    return {
        "moves": len(ms),
        "mean_ms": round(statistics.fmean(ms), 1),
        "median_ms": round(statistics.median(ms), 1),
        "p95_ms": round(ms[min(len(ms) - 1, int(0.95 * len(ms)))], 1),
        "max_ms": round(ms[-1], 1),
        "max_overshoot_ms": round(ms[-1] - movetime, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--player", default="", help="a chess player spec (Player option)")
    parser.add_argument("--movetime", type=int, nargs="+", default=[100], help="milliseconds")
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--first", type=int, default=0, help="fresh engines for the first move")
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    out: dict[str, object] = {
        "command": " ".join(["scripts/bench_uci_movetime.py", *sys.argv[1:]]),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "player": args.player or "default (Simulations 100000)",
    }
    engine = Engine()
    try:
        engine.start(args.player)
        for movetime in args.movetime:
            rng = random.Random(0)
            board = chess.Board()
            times: list[float] = []
            while len(times) < args.positions:
                if board.is_game_over():
                    board = chess.Board()
                times.append(engine.move(board, movetime))
                board.push(rng.choice(list(board.legal_moves)))
            out[f"movetime_{movetime}"] = summary(times, movetime)
    finally:
        engine.close()
    if args.first:
        movetime = max(args.movetime)
        ready, first = [], []
        for _ in range(args.first):
            fresh = Engine()
            try:
                ready.append(fresh.start(args.player))
                first.append(fresh.move(chess.Board(), movetime))
            finally:
                fresh.close()
        out["first_isready_ms"] = [round(t * 1000, 1) for t in ready]
        out[f"first_move_{movetime}"] = summary(first, movetime)
    text = json.dumps(out, indent=1)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
