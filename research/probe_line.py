"""What a searching player thinks along a fixed line of moves.

Replays MOVES (move texts, or move indices with ``--indices``, e.g. a stored game's
``moves``; space- or comma-separated) in GAME and, at every ply
where the player would be to move (``--side``: 0 = first, 1 = second), asks the player
SPEC for a move and prints its choice, its root value and the most visited root moves
(visits, Q, prior); then the final position.  For studying a lost game, e.g. the 8x8
network's 18-ply wipeout against Minimax2 (src/sparring/models/othello.md)::

    .venv/bin/python research/probe_line.py othello "az:model=othello,sims=400" \
        "26 20 37 44 29 17 25 38 43 24 21 51 19 11 18 22 46 55" --indices --side 0
"""

from __future__ import annotations

import argparse
import re

import numpy as np

from sparring.api import build_player, get_game, parse_player


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("spec")
    parser.add_argument("moves", help="move texts (or indices), space- or comma-separated")
    parser.add_argument(
        "--indices", action="store_true", help="MOVES are move indices, not move texts"
    )
    parser.add_argument("--side", type=int, choices=(0, 1), default=0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--top", type=int, default=4, help="root moves shown per ply")
    args = parser.parse_args()

    game = get_game(args.game)
    player = build_player(parse_player(args.spec), game, seed=args.seed)
    state = game.initial_state()
    for ply, token in enumerate(t for t in re.split(r"[,\s]+", args.moves.strip()) if t):
        move = int(token) if args.indices else game.parse_move(token, state)
        if game.to_move(state) == args.side:
            decision = player.play(game, state)
            chosen, a = decision.move, decision.analysis
            played, own = game.move_to_text(move), game.move_to_text(chosen)
            line = f"ply {ply:3d}: played {played:>5}  player {own:>5}"
            if a is not None and a.visits:
                order = np.argsort(a.visits)[::-1][: args.top]
                value = "?" if a.value is None else f"{a.value:+.2f}"
                tops = ", ".join(
                    f"{game.move_to_text(a.moves[j])} {a.visits[j]} "
                    f"q{a.q[j]:+.2f} p{a.priors[j]:.3f}"
                    for j in order
                )
                line += f"  value {value}  [{tops}]"
            print(line)
        state = game.play(state, move)
    print(game.render(state))


if __name__ == "__main__":
    main()
