"""Where a Connect4 player's lost games went wrong, by the exact solver (the training-options
comparison: why does AlphaZero lose 26-30 of 200 games against MCTS1 whatever the training?).

Reads the games of one player (its label in a ``sparring match`` / ``study`` store), solves
the position before every move with bitbully, and for each game the player did not win lists
the moves that changed the game-theoretic value for the side that played them (a won position
left for a drawn or lost one, a drawn one for a lost one).  The summary counts the lost games
in which the player had held a won position and then played a losing move itself, with the
plies of those moves and the colour it played.  E.g.::

    .venv/bin/python research/connect4_losses.py runs/c4sims/study.sqlite --player 'AZ[sims=800]'
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sparring.evaluation.oracle import Connect4Solver, SolvedPosition
from sparring.evaluation.store import GameRecord, GameStore

Solve = Callable[[Sequence[int]], SolvedPosition]
"""The position after ``moves`` with the solver's score of every legal move (> 0 win, 0 draw,
< 0 loss for the side to move): :class:`~sparring.evaluation.oracle.Connect4Solver`."""


@dataclass(frozen=True)
class Slip:
    """A move that changed the game-theoretic value for the side that played it."""

    ply: int
    """Index of the move in the game (0: the first move)."""
    by_player: bool
    """Whether the studied player made it (else its opponent)."""
    before: int
    """Sign of the best move's score before it: 1 won, 0 drawn, -1 lost."""
    after: int
    """Sign of the played move's score."""


def slips(moves: Sequence[int], player_seat: int, solve: Solve) -> list[Slip]:
    """The value-changing moves of a game whose player moved at plies ``player_seat``,
    ``player_seat + 2``, ... (a move is one when it is not value-optimal:
    :meth:`~sparring.evaluation.oracle.SolvedPosition.values`)."""
    out: list[Slip] = []
    for ply, move in enumerate(moves):
        before, after = solve(moves[:ply]).values(move)
        if before != after:
            out.append(Slip(ply, ply % 2 == player_seat, before, after))
    return out


@dataclass(frozen=True)
class LostGame:
    """A game the player did not win, and its slips."""

    game_index: int
    first: bool
    """Whether the player moved first."""
    score: float
    plies: int
    slips: tuple[Slip, ...]

    @property
    def threw_a_win(self) -> Slip | None:
        """The player's last move from a won position to a lost one (None if it made none)."""
        found = [s for s in self.slips if s.by_player and s.before == 1 and s.after == -1]
        return found[-1] if found else None


def lost_games(records: Iterable[GameRecord], label: str, solve: Solve) -> list[LostGame]:
    """The games of ``label`` that it drew or lost, with their slips."""
    out = []
    for r in records:
        if label not in (r.label_a, r.label_b):
            continue
        is_a = r.label_a == label
        score = r.score_a if is_a else r.score_b
        if score == 1.0:
            continue
        first = r.a_first == is_a
        found = slips(r.moves, 0 if first else 1, solve)
        out.append(LostGame(r.game_index, first, score, r.plies, tuple(found)))
    return out


def report(games: list[LostGame], label: str, total: int) -> str:
    """A markdown table of the lost and drawn games and a summary line."""
    lines = [
        f"{label}: {total} games, {sum(g.score == 0 for g in games)} lost, "
        f"{sum(g.score == 0.5 for g in games)} drawn",
        "",
        "| game | colour | result | plies | the player's slips (ply: before -> after) "
        "| the opponent's slips |",
        "| ---: | --- | ---: | ---: | --- | --- |",
    ]
    names = {1: "won", 0: "drawn", -1: "lost"}
    for g in games:
        own = ", ".join(
            f"{s.ply}: {names[s.before]} -> {names[s.after]}" for s in g.slips if s.by_player
        )
        other = ", ".join(
            f"{s.ply}: {names[s.before]} -> {names[s.after]}" for s in g.slips if not s.by_player
        )
        colour = "first" if g.first else "second"
        lines.append(f"| {g.game_index} | {colour} | {g.score:g} | {g.plies} | {own} | {other} |")
    losses = [g for g in games if g.score == 0]
    thrown = [g for g in losses if g.threw_a_win is not None]
    plies = sorted(g.threw_a_win.ply for g in thrown if g.threw_a_win is not None)
    left = sorted(g.plies - g.threw_a_win.ply for g in thrown if g.threw_a_win is not None)
    lines += [
        "",
        f"Lost games in which {label} had held a won position and then played a losing move: "
        f"{len(thrown)} of {len(losses)} (as first player {sum(g.first for g in thrown)}, as "
        f"second {sum(not g.first for g in thrown)}); the plies of those moves: "
        + (", ".join(str(p) for p in plies) or "none")
        + ".",
    ]
    if left:
        lines.append(
            f"The games ended {left[0]}-{left[-1]} plies after that move (median "
            f"{statistics.median(left):g}): how far ahead the loss lay when it was played."
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", type=Path, help="SQLite game store")
    parser.add_argument("--player", required=True, help="the player's label in the store")
    parser.add_argument("--spec", help="only the games whose A or B has this exact spec")
    parser.add_argument("--markdown", type=Path, help="write the report here too")
    args = parser.parse_args(argv)
    if not args.store.exists():
        parser.error(f"no store at {args.store}")
    with GameStore(args.store) as db:
        records = [
            r
            for r in db.iter_games()
            if r.game == "connect4" and (args.spec is None or args.spec in (r.spec_a, r.spec_b))
        ]
    mine = [r for r in records if args.player in (r.label_a, r.label_b)]
    if not mine:
        labels = sorted({r.label_a for r in records} | {r.label_b for r in records})
        parser.error(f"no Connect4 game of {args.player!r} in {args.store}; labels: {labels}")
    text = report(lost_games(mine, args.player, Connect4Solver()), args.player, len(mine))
    print(text, end="")
    if args.markdown:
        args.markdown.write_text(text)


if __name__ == "__main__":
    main()
