"""How closely the searching kinds keep a time limit, and how fast they stop on a flag.

For each game and kind below, a player with a simulation budget far beyond the limit is asked
for ``--calls`` moves (positions of a seeded random game, cycled) under
``Limit(time=--time)``; the *overshoot* is the wall time of ``select_move`` minus the limit.
Then it is asked ``--calls`` more times under ``Limit(stop=event)`` with the event set from a
timer thread after ``--time`` seconds; *stop to return* is the time from ``event.set()`` to
``select_move`` returning.  Each player is warmed up first (compilation, network loading).
Goal: overshoot median <= 10 ms, 95th percentile <= 25 ms.

    PYTHONPATH=src python scripts/bench_limit.py --calls 50 --time 0.05 --markdown BENCHMARKS.md

The table is printed (and appended to ``--markdown`` with the command, date and machine).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import threading
import time
from pathlib import Path

import numpy as np

import sparring.kinds  # noqa: F401  (registers the player kinds)
from sparring.games import get_game
from sparring.games.base import Game, State
from sparring.players import PlayerCache, make_player
from sparring.players.base import Player
from sparring.players.minimax import MinimaxPlayer
from sparring.players.uct import UCTPlayer
from sparring.search.limit import Limit

CASES: list[tuple[str, str]] = [
    ("connect4", "uct"),
    ("othello6", "uct"),
    ("go9", "uct:sims=100000"),
    ("chess", "uct:sims=100000"),
    ("connect4", "minimax"),
    ("othello6", "minimax"),
    ("connect4", "az:sims=100000"),
    ("othello6", "az:sims=100000"),
    ("connect4", "sa:sims=100000,z=1,rth=0.1"),
    ("go9", "sa:base=uct,sims=100000,z=1,rth=0.1"),
    ("connect4", "dsa:mode=inter,sims=100000"),
    ("connect4", "alphadda1:asim=1,bsim0=-10,nmax=100000"),
    ("connect4", "alphadda2:sims=100000"),
    ("connect4", "alphadda3:sims=100000"),
    ("go", "human-mcts:sims=20000"),
    ("chess", "human-mcts:sims=20000"),
    ("go", "sa-mcts:sims=20000,z=1"),
    ("go", "se-inf-mcts:sims=20000,rank=3d"),
    ("chess", "se-inf-mcts:sims=20000,rank=1600-1800"),
    ("chess", "se-mcts:sims=20000,rank=1600-1800"),
]
"""(game, kind): ``uct`` and ``minimax`` alone are built directly with budgets a spec does not
allow (10**8 simulations; depth 40), the others from their spec."""


def build(game: Game, spec: str, cache: PlayerCache) -> Player:
    if spec == "uct":
        return UCTPlayer("UCT", simulations=100_000_000, seed=1)
    if spec == "minimax":
        return MinimaxPlayer("Minimax", depth=40, seed=1)
    return make_player(spec, game, seed=1, cache=cache)


def positions(game: Game, count: int = 10) -> list[State]:
    """Positions of a seeded random game (plies 2, 4, ...), stopping before its end."""
    rng = np.random.default_rng(7)
    state = game.initial_state()
    found: list[State] = []
    ply = 0
    while len(found) < count and not game.is_terminal(state):
        moves = game.legal_moves(state)
        state = game.play(state, int(moves[rng.integers(len(moves))]))
        ply += 1
        if ply % 2 == 0 and not game.is_terminal(state):
            found.append(state.copy())
    return found


def measure(game: Game, player: Player, states: list[State], calls: int, limit_s: float
            ) -> tuple[list[float], list[float]]:  # fmt: skip
    """(overshoots, stop-to-return times) in seconds."""
    player.new_game(game, 0)
    player.select_move(game, states[0], Limit(time=limit_s))  # warm up
    over: list[float] = []
    for i in range(calls):
        state = states[i % len(states)]
        began = time.perf_counter()
        move = player.select_move(game, state, Limit(time=limit_s))
        over.append(time.perf_counter() - began - limit_s)
        assert game.is_legal(state, move)
    stops: list[float] = []
    for i in range(calls):
        state = states[i % len(states)]
        event = threading.Event()
        set_at: list[float] = []

        def fire(event: threading.Event = event, set_at: list[float] = set_at) -> None:
            set_at.append(time.perf_counter())
            event.set()

        timer = threading.Timer(limit_s, fire)
        timer.start()
        move = player.select_move(game, state, Limit(stop=event))
        returned = time.perf_counter()
        timer.join()
        assert game.is_legal(state, move) and set_at
        stops.append(returned - set_at[0])
    return over, stops


def p95(values: list[float]) -> float:
    return float(np.percentile(values, 95))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--time", type=float, default=0.05)
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args()
    cache = PlayerCache()
    header = (
        "| game | kind | median overshoot (ms) | p95 overshoot (ms) | max overshoot (ms) "
        "| median stop to return (ms) | p95 stop to return (ms) |\n"
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
    )
    rows = []
    print(header, flush=True)
    for game_name, spec in CASES:
        game = get_game(game_name)
        player = build(game, spec, cache)
        over, stops = measure(game, player, positions(game), args.calls, args.time)
        row = (
            f"| {game_name} | {spec.split(':')[0]} | {1000 * statistics.median(over):.1f} "
            f"| {1000 * p95(over):.1f} | {1000 * max(over):.1f} "
            f"| {1000 * statistics.median(stops):.1f} | {1000 * p95(stops):.1f} |"
        )
        rows.append(row)
        print(row, flush=True)
    if args.markdown is not None:
        command = (
            f"PYTHONPATH=src python scripts/bench_limit.py --calls {args.calls} "
            f"--time {args.time} --markdown {args.markdown}"
        )
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        text = (
            f"\nCommand: `{command}`  \n"
            f"Date: {datetime.date.today().isoformat()}; machine: {platform.machine()}, "
            f"{os.cpu_count()} CPUs, load average {load:.1f} at the end; "
            f"{args.calls} calls per row, limit {1000 * args.time:.0f} ms\n\n"
            + header
            + "\n"
            + "\n".join(rows)
            + "\n"
        )
        with args.markdown.open("a") as out:
            out.write(text)


if __name__ == "__main__":
    main()
