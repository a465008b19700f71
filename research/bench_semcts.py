"""SE-MCTS cost: simulations per second with and without the Eq. 6 hook, same network.

Positions: plies 20, 60 and 100 of the first games of a candidate file (Go 5d, chess
1800-2000) in /work/shared/data (read in place).  For each position and each mode, one warm-up
search, then ``--repeats`` timed searches of ``--sims`` simulations; the figure is the total
simulations over the total time.  "plain" is the PUCT search with the estimator's policy and
value (the trunk alone, ``StrengthEvaluator.evaluate``), "SE-MCTS" the same search with
:class:`~sparring.search.semcts.SEMCTSConfig`'s hook and ``beta - beta_t(d)`` of every leaf's
edge (``CentredStrengthEvaluator.evaluate_edge_aux``), as the players search.  Also the
per-move time of the ``sparring play go --rank 3d`` and ``sparring play chess --elo 1500``
players (``se-inf-mcts:rank=3d`` and ``se-inf-mcts:elo=1500``, 100 simulations, the kinds'
default networks) on each game's positions.  The two modes alternate search by search, so that a
change in the machine's load hits both alike.

Usage: ``PYTHONPATH=src python research/bench_semcts.py [--sims 100] [--repeats 3]``
(prints Markdown rows).
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import numpy as np

import sparring.kinds  # noqa: F401  (registers the player kinds)
from sparring.games.base import Game, State
from sparring.games.chess import Chess
from sparring.games.go import Go
from sparring.nn.estimators import resolve_estimator
from sparring.nn.strength_eval import CentredStrengthEvaluator, RankTarget, StrengthEvaluator
from sparring.players.human_mcts import load_strength_evaluator
from sparring.players.registry import make_player
from sparring.records import read_pgn_games, read_sgf_games
from sparring.search.puct import PUCTConfig, search
from sparring.search.semcts import SEMCTSConfig

DATA = Path(os.environ.get("SPARRING_DATA", "/work/shared/data")) / "strength"
PLIES = (20, 60, 100)


def positions(game_name: str, games: int) -> tuple[Game, list[tuple[int, State]]]:
    """(ply, position) at :data:`PLIES` of the first ``games`` long-enough candidate games."""
    out: list[tuple[int, State]] = []
    if game_name == "go":
        go = Go(19)
        records = read_sgf_games(DATA / "go" / "candidating" / "5d.sgf")
        game: Game = go
    else:
        chess = Chess()
        records = read_pgn_games(DATA / "chess" / "candidating" / "1800-2000.pgn")  # type: ignore[assignment]
        game = chess
    for record in records:
        if len(record.moves) <= max(PLIES):
            continue
        state = record.initial_state(game)  # type: ignore[arg-type]
        for ply, move in enumerate(record.moves):
            if ply in PLIES:
                out.append((ply, state))
            state = game.play(state, int(move))
        if len(out) >= games * len(PLIES):
            break
    return game, out


def rates(game: Game, evaluator: StrengthEvaluator, states: list[tuple[int, State]],
          sims: int, repeats: int, target: RankTarget) -> tuple[float, float]:  # fmt: skip
    """(plain, SE-MCTS) simulations per second, the two searches alternating."""
    centred = CentredStrengthEvaluator(evaluator, target)  # as the players search: target 0
    modes = (
        (evaluator, PUCTConfig(simulations=sims)),
        (centred, PUCTConfig(simulations=sims, score_hook=SEMCTSConfig(0.0).hook())),
    )
    done, spent = [0, 0], [0.0, 0.0]
    for _, state in states:
        for ev, config in modes:
            search(game, state, ev, config)  # warm-up
        for _ in range(repeats):
            for i, (ev, config) in enumerate(modes):
                start = time.perf_counter()
                result = search(game, state, ev, config)
                spent[i] += time.perf_counter() - start
                done[i] += result.simulations
    return done[0] / spent[0], done[1] / spent[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sims", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--games", type=int, default=2)
    args = parser.parse_args()
    print(f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}; torch 1 thread")  # fmt: skip
    print()
    print("| game | estimator | positions | sims/search | plain sims/s | SE-MCTS sims/s | ratio |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for game_name, rank in (("go", "5d"), ("chess", "1800-2000")):
        game, states = positions(game_name, args.games)
        name = f"{game_name}-se-inf"
        evaluator, metadata = load_strength_evaluator(game, resolve_estimator(name))
        target = RankTarget.from_metadata(metadata, rank)
        plain, se = rates(game, evaluator, states, args.sims, args.repeats, target)
        print(f"| {game_name} | {name} (target {rank}) | {len(states)} | {args.sims} | "
              f"{plain:,.0f} | {se:,.0f} | {se / plain:.2f} |")  # fmt: skip
    print()
    for game_name, spec, command in (
        ("go", "se-inf-mcts:rank=3d", "sparring play go --rank 3d"),
        ("chess", "se-inf-mcts:elo=1500", "sparring play chess --elo 1500"),
    ):
        game, states = positions(game_name, args.games)
        player = make_player(spec, game, 1)
        player.select_move(game, states[0][1])  # warm-up
        times = []
        for _, state in states:
            start = time.perf_counter()
            player.select_move(game, state)
            times.append(time.perf_counter() - start)
        print(f"`{command}` player ({spec}, 100 simulations, its default network): per move "
              f"median {np.median(times):.2f} s, max {max(times):.2f} s over {len(times)} "
              f"positions  ")  # fmt: skip


if __name__ == "__main__":
    main()
