"""Move quality against perfect play: Connect4 positions scored by the exact solver BitBully.

A fixed, seeded set of positions from varied games (uniformly random openings of random
length, so early, middle and late positions all occur) is solved move by move; a player's
choice is *value-optimal* when it keeps the position's game-theoretic value (win, draw or
loss for the side to move) and *score-optimal* when it also has the solver's best score
(the fastest win or the slowest loss).  Positions in which every move has the same value say
nothing about a player, so the report also gives the rate over the *decisive* positions,
those where some move changes the value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sparring.errors import SparringError
from sparring.games import get_game
from sparring.games.base import State
from sparring.players.base import Player


@dataclass(frozen=True)
class SolvedPosition:
    """A position with the solver's score of every legal move."""

    moves: tuple[int, ...]
    """The moves (columns 0-6) that reach it from the empty board."""
    scores: dict[int, int]
    """Solver score of each legal move for the side to move (> 0 win, 0 draw, < 0 loss)."""

    @property
    def best_score(self) -> int:
        return max(self.scores.values())

    def value_optimal(self, move: int) -> bool:
        """Whether ``move`` keeps the game-theoretic value of the position."""
        before, after = self.values(move)
        return before == after

    def values(self, move: int) -> tuple[int, int]:
        """``(before, after)``: the sign of the position's value and of ``move``'s (1 won, 0
        drawn, -1 lost for the side to move); ``move`` is value-optimal when they agree."""
        return int(np.sign(self.best_score)), int(np.sign(self.scores[move]))

    def score_optimal(self, move: int) -> bool:
        """Whether ``move`` has the best solver score."""
        return self.scores[move] == self.best_score

    @property
    def decisive(self) -> bool:
        """Whether some legal move changes the game-theoretic value."""
        return not all(self.value_optimal(m) for m in self.scores)


def _solver():  # type: ignore[no-untyped-def]
    try:
        import bitbully
    except ImportError:
        raise SparringError("the Connect4 oracle needs bitbully: pip install bitbully") from None
    return bitbully


class Connect4Solver:
    """The exact solver (bitbully) as a function of the moves that reach a position."""

    def __init__(self) -> None:
        self._bitbully = _solver()
        self._agent = self._bitbully.BitBully()

    def __call__(self, moves: Sequence[int]) -> SolvedPosition:
        """The position after ``moves`` (columns 0-6) with the score of every legal move."""
        board = self._bitbully.Board(list(moves))
        scores = {int(k): int(v) for k, v in self._agent.score_all_moves(board).items()}
        return SolvedPosition(tuple(int(m) for m in moves), scores)


def connect4_positions(count: int, seed: int = 0, max_plies: int = 36) -> list[SolvedPosition]:
    """``count`` non-terminal positions from seeded random games, each solved move by move."""
    solve = Connect4Solver()
    game = get_game("connect4")
    rng = np.random.default_rng(seed)
    out: list[SolvedPosition] = []
    while len(out) < count:
        length = int(rng.integers(0, max_plies + 1))
        state = game.initial_state()
        moves: list[int] = []
        while len(moves) < length and not game.is_terminal(state):
            legal = game.legal_moves(state)
            move = int(legal[rng.integers(len(legal))])
            state = game.play(state, move)
            moves.append(move)
        if game.is_terminal(state):
            continue
        out.append(solve(moves))
    return out


@dataclass(frozen=True)
class OracleReport:
    """How often a player's moves were optimal."""

    positions: int
    value_optimal: int
    score_optimal: int
    decisive: int
    decisive_value_optimal: int
    won_to_drawn: int = 0
    """Moves from a won position to a drawn one."""
    won_to_lost: int = 0
    """Moves from a won position to a lost one."""
    drawn_to_lost: int = 0
    """Moves from a drawn position to a lost one (with ``won_to_drawn`` and ``won_to_lost``:
    every move that was not value-optimal)."""

    def misses(self) -> str:
        """The moves that were not value-optimal by kind: "won->drawn / won->lost /
        drawn->lost" counts."""
        return f"{self.won_to_drawn} / {self.won_to_lost} / {self.drawn_to_lost}"

    def rates(self) -> dict[str, float]:
        return {
            "value-optimal": self.value_optimal / self.positions,
            "score-optimal": self.score_optimal / self.positions,
            "value-optimal on decisive positions": self.decisive_value_optimal
            / max(self.decisive, 1),
        }


def replay(moves: tuple[int, ...]) -> State:
    """The Connect4 position reached by ``moves``."""
    game = get_game("connect4")
    state = game.initial_state()
    for m in moves:
        state = game.play(state, m)
    return state


def score_player(
    player: Player, positions: list[SolvedPosition], progress: bool = False
) -> OracleReport:
    """Ask ``player`` for a move in every position and count the optimal ones."""
    game = get_game("connect4")
    value = score = decisive = decisive_value = 0
    misses = {(1, 0): 0, (1, -1): 0, (0, -1): 0}
    iterator: object = positions
    if progress:
        from rich.progress import track

        iterator = track(positions, description=f"{player.name}: choosing moves")
    for pos in iterator:  # type: ignore[attr-defined]
        move = player.select_move(game, replay(pos.moves))
        ok = pos.value_optimal(move)
        if not ok:
            misses[pos.values(move)] += 1
        value += ok
        score += pos.score_optimal(move)
        if pos.decisive:
            decisive += 1
            decisive_value += ok
    return OracleReport(
        len(positions),
        value,
        score,
        decisive,
        decisive_value,
        won_to_drawn=misses[(1, 0)],
        won_to_lost=misses[(1, -1)],
        drawn_to_lost=misses[(0, -1)],
    )
