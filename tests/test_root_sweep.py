"""The root sweep (``sparring.search.sweep.RootSweep``): one simulation per root child first,
highest prior first, then Eq. 8; hand-worked on tic-tac-toe's empty board."""

from __future__ import annotations

import numpy as np
import pytest

from sparring.games import get_game
from sparring.search.puct import PUCTConfig, search
from sparring.search.sweep import RootSweep

TTT = get_game("tictactoe")
ROOT_PRIORS = np.array([0.04, 0.5, 0.03, 0.2, 0.05, 0.1, 0.05, 0.02, 0.01], dtype=np.float32)
"""Priors of the empty board's nine moves; by falling prior (ties in move order):
1, 3, 5, 4, 6, 0, 2, 7, 8."""


class FixedEvaluator:
    """The empty board gets :data:`ROOT_PRIORS`; every other position uniform priors over its
    legal moves.  Values are 0, except that whoever holds the cell ``good`` is winning: +0.9
    for the side to move if it is its stone, -0.9 if it is the opponent's."""

    def __init__(self, good: int | None = None) -> None:
        self.good = good

    def evaluate(
        self, planes: np.ndarray, legal: np.ndarray, states: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        first = planes[:, 0].reshape(len(planes), -1)  # the first player's stones,
        second = planes[:, 1].reshape(len(planes), -1)  # the second's; plane 2: +1 first to move
        own = np.where(planes[:, 2, :1, :1].reshape(-1, 1) > 0, first, second)
        stones = first + second
        priors = legal.astype(np.float32) / legal.sum(axis=1, keepdims=True)
        values = np.zeros(len(planes), dtype=np.float32)
        for i, occupied in enumerate(stones):
            if occupied.sum() == 0:
                priors[i] = ROOT_PRIORS
            elif self.good is not None and occupied[self.good] == 1:
                values[i] = 0.9 if own[i, self.good] == 1 else -0.9
        return priors, values


def _visits(
    simulations: int, sweep: bool, good: int | None = None, c_puct: float = 1.25
) -> list[int]:
    plan = RootSweep() if sweep else None
    config = PUCTConfig(simulations=simulations, c_puct=c_puct, root_plan=plan)
    result = search(TTT, TTT.initial_state(), FixedEvaluator(good), config)
    assert result.simulations == simulations
    return result.visits.tolist()


@pytest.mark.parametrize(
    ("simulations", "visits"),
    [
        # fewer simulations than children: the highest priors (1, 3, 5, 4, 6) one each
        (5, [0, 1, 0, 1, 1, 1, 1, 0, 0]),
        (9, [1] * 9),
        # then Eq. 8 with every Q = 0: U = 1.25 P sqrt(N) / (1 + n) sends simulations 10-12 to
        # move 1 (P 0.5: 0.5/2, 0.5/3 and 0.5/4 of the factor against move 3's 0.2/2)
        (12, [1, 4, 1, 1, 1, 1, 1, 1, 1]),
    ],
)
def test_every_child_once_by_falling_prior_then_eq8(simulations: int, visits: list[int]) -> None:
    assert _visits(simulations, sweep=True) == visits


def test_without_the_sweep_low_priors_are_never_tried() -> None:
    plain = _visits(12, sweep=False)
    assert sum(plain) == 12 and plain[8] == 0 and plain[7] == 0 and plain[1] >= 5


def test_the_sweep_finds_the_good_move_the_prior_ignores() -> None:
    # Holding cell 8 (prior 0.01) wins.  Eq. 8 alone never tries move 8 in 30 simulations;
    # with the sweep it is tried ninth, and its value then wins it most of the visits:
    # [1, 3, 1, 1, 1, 1, 1, 1, 20] at C_puct 1.25, [1, 1, 1, 1, 1, 1, 1, 1, 22] at 0.25.
    expected = {1.25: [1, 3, 1, 1, 1, 1, 1, 1, 20], 0.25: [1, 1, 1, 1, 1, 1, 1, 1, 22]}
    for c_puct, visits in expected.items():
        assert _visits(30, sweep=False, good=8, c_puct=c_puct)[8] == 0
        assert _visits(30, sweep=True, good=8, c_puct=c_puct) == visits


def test_the_plan_draws_nothing_and_repeats() -> None:
    config = PUCTConfig(simulations=20, root_plan=RootSweep())
    runs = [search(TTT, TTT.initial_state(), FixedEvaluator(), config, rng=r) for r in (1, 2)]
    assert runs[0].visits.tolist() == runs[1].visits.tolist()


def test_the_move_is_the_most_visited_with_ties_broken_by_value() -> None:
    # 5 simulations: moves 1, 3, 5, 4, 6 one visit each (a tie); move 6 holds the winning
    # cell, so the run selects it (Q +0.9) where a random pick among the five would not.
    config = PUCTConfig(simulations=5, root_plan=RootSweep())
    result = search(TTT, TTT.initial_state(), FixedEvaluator(good=6), config)
    assert result.visits.tolist() == [0, 1, 0, 1, 1, 1, 1, 0, 0]
    assert result.selected_move == 6
    # all Q equal (0): the higher prior, move 1 (P 0.5)
    plain = search(TTT, TTT.initial_state(), FixedEvaluator(), config)
    assert plain.selected_move == 1
    # after the sweep the most visited wins outright: move 1 with 4 visits (12 simulations)
    twelve = search(
        TTT,
        TTT.initial_state(),
        FixedEvaluator(),
        PUCTConfig(simulations=12, root_plan=RootSweep()),
    )
    assert twelve.visits.tolist()[1] == 4 and twelve.selected_move == 1


def test_a_searching_player_plays_the_plans_selected_move() -> None:
    from dataclasses import replace

    from sparring.players.registry import make_player

    chess = get_game("chess")
    player = make_player("human-mcts:sims=20,sweep=true", chess, 0)
    move = player.select_move(chess, chess.initial_state())
    root = player.last_result  # type: ignore[attr-defined]
    assert root.selected_move == move and sorted(root.visits.tolist()) == [1] * 20
    other = int(next(m for m in root.moves if m != move))
    assert player.pick(chess, chess.initial_state(), replace(root, selected_move=other)) == other  # type: ignore[attr-defined]
