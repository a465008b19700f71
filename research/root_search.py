"""What one search thinks of one position, at several simulation counts (the training-options
comparison: why does the Connect4 `lean` network open in column 2 (counted from 0; the move text
"3"), a draw, at 800 simulations and in the centre, the only win, at 200 and 400?).

Plays ``--moves`` (the game's move texts, space-separated) from the start, builds the player
``SPEC`` once per entry of ``--sims`` (its simulations set to N; seed ``--seed``), searches the
position once and prints, for every legal move, the prior ``P``, the visits ``N`` and ``Q``
(for the player to move) of the root, and on Connect4 the exact solver's score of the move
(> 0 win, 0 draw, < 0 loss for the player to move; bitbully).  E.g.::

    .venv/bin/python research/root_search.py connect4 \
        az:model=checkpoints/cmp-connect4-lean/network-1400.pt --sims 200 400 800 1600
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import sparring.kinds  # noqa: F401 - registers the player kinds
from sparring.errors import SparringError
from sparring.evaluation.oracle import Connect4Solver
from sparring.games import get_game
from sparring.games.base import Game, State
from sparring.players.cache import PlayerCache
from sparring.players.registry import build_player, parse_player


@dataclass(frozen=True)
class RootRow:
    """One legal move of the root as one search saw it."""

    move: str
    """The move's text."""
    prior: float
    visits: int
    q: float
    solver: int | None
    """Connect4: the exact solver's score of the move for the player to move; else None."""


@dataclass(frozen=True)
class RootSearch:
    """One search of the position."""

    simulations: int
    played: str
    """The move the player chose."""
    value: float | None
    rows: tuple[RootRow, ...]


def position(game: Game, texts: Sequence[str]) -> tuple[State, list[int]]:
    """The state after the moves ``texts`` from the start, and the moves as integers."""
    state = game.initial_state()
    moves: list[int] = []
    for text in texts:
        move = game.parse_move(text, state)
        state = game.play(state, move)
        moves.append(move)
    return state, moves


def search_root(
    game_name: str, spec: str, moves: Sequence[str], sims: Sequence[int], seed: int
) -> list[RootSearch]:
    """Search the position after ``moves`` once per simulation count in ``sims`` (the
    player's typed settings with ``simulations`` replaced; one cache, so a network is read
    once)."""
    game = get_game(game_name)
    state, played = position(game, moves)
    settings = parse_player(spec)
    if not dataclasses.is_dataclass(settings) or "simulations" not in {
        f.name for f in dataclasses.fields(settings)
    }:
        raise SystemExit(f"{spec!r} has no simulation count to vary")
    scores = Connect4Solver()(played).scores if game.name == "connect4" else {}
    cache = PlayerCache()
    out: list[RootSearch] = []
    for count in sims:
        player = build_player(dataclasses.replace(settings, simulations=count), game, seed, cache)
        player.new_game(game, game.to_move(state))
        decision = player.play(game, state)
        choice, analysis = decision.move, decision.analysis
        if analysis is None or not analysis.moves:
            raise SystemExit(f"{spec!r} reports no search to show")
        rows = tuple(
            RootRow(
                move=game.move_to_text(move),
                prior=analysis.priors[i],
                visits=analysis.visits[i],
                q=analysis.q[i],
                solver=scores.get(move),
            )
            for i, move in enumerate(analysis.moves)
        )
        out.append(RootSearch(count, game.move_to_text(choice), analysis.value, rows))
    return out


def markdown(searches: Sequence[RootSearch]) -> str:
    """One table: a row per legal move, P, the solver's score, then N and Q per search."""
    first = searches[0]
    solved = any(row.solver is not None for row in first.rows)
    head = ["move", "P"] + (["solver"] if solved else [])
    for search in searches:
        head += [f"N ({search.simulations})", f"Q ({search.simulations})"]
    lines = ["| " + " | ".join(head) + " |", "|" + " ---: |" * len(head)]
    for i, row in enumerate(first.rows):
        cells = [row.move, f"{row.prior:.3f}"] + ([str(row.solver)] if solved else [])
        for search in searches:
            cells += [str(search.rows[i].visits), f"{search.rows[i].q:+.3f}"]
        lines.append("| " + " | ".join(cells) + " |")
    played = ", ".join(
        f"{s.simulations}: {s.played} (root value {s.value:+.3f})"
        if s.value is not None
        else f"{s.simulations}: {s.played}"
        for s in searches
    )
    return "\n".join(lines) + f"\n\nMove chosen at each simulation count: {played}.\n"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("spec", help="a searching player's spec, without sims")
    parser.add_argument("--moves", default="", help="move texts from the start, space-separated")
    parser.add_argument("--sims", type=int, nargs="+", default=[200])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        searches = search_root(args.game, args.spec, args.moves.split(), args.sims, args.seed)
    except SparringError as exc:
        raise SystemExit(f"error: {exc}") from None
    print(markdown(searches))


if __name__ == "__main__":
    main()
