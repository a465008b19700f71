"""The one Bradley-Terry / Elo fitter, pinned on hand-worked cases.

Closed forms: for two players, the maximum-likelihood difference makes the predicted score
equal the observed one, ``d = 400 log10(k / (n - k))`` for ``k`` points of ``n`` games; on a
tree of pairings every edge is fitted alone; the covariance is the inverse of the observed
information ``sum_cells n p (1 - p) x x^T`` (natural-log units, times ``ELO_SCALE**2``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from sparring.errors import ConfigError
from sparring.evaluation.bradley_terry import (
    ELO_SCALE,
    PairCounts,
    cell_log_likelihood,
    expected_score,
    fit_bradley_terry,
)

S = ELO_SCALE


def _games(wins: int, draws: int, losses: int) -> tuple[list[int], list[int], list[float]]:
    """Player 0 against player 1 (player 0 first): scores 1, 0.5, 0."""
    score = [1.0] * wins + [0.5] * draws + [0.0] * losses
    return [0] * len(score), [1] * len(score), score


def test_elo_constant_and_expected_score() -> None:
    assert math.isclose(S, 400.0 / math.log(10.0)) and abs(S - 173.7177927613) < 1e-9
    assert expected_score(1500.0, 1400.0) == pytest.approx(1 / (1 + 10 ** (-100 / 400)), 1e-15)
    assert expected_score(1000.0, 1000.0) == 0.5


def test_two_players_closed_form_with_stderr() -> None:
    counts = PairCounts.from_games(("A", "B"), *_games(7, 0, 3))
    fit = fit_bradley_terry(counts, {"B": 1000.0})
    assert fit.rating("B") == 1000.0 and fit.rating_stderr("B") == 0.0
    assert fit.rating("A") == pytest.approx(1000.0 + 400.0 * math.log10(7 / 3), abs=1e-8)
    # information 10 * 0.7 * 0.3 = 2.1 (per nat^2): stderr = S / sqrt(2.1) = 119.87 Elo
    assert fit.rating_stderr("A") == pytest.approx(S / math.sqrt(2.1), abs=1e-8)
    assert fit.log_likelihood == pytest.approx(7 * math.log(0.7) + 3 * math.log(0.3), abs=1e-12)


def test_draws_count_half_and_the_anchor_sets_the_scale() -> None:
    counts = PairCounts.from_games(("A", "B"), *_games(2, 2, 1))  # 3 points of 5
    fit = fit_bradley_terry(counts, {"A": 1500.0})
    assert fit.rating("A") == 1500.0
    assert fit.rating("B") == pytest.approx(1500.0 - 400.0 * math.log10(3 / 2), abs=1e-8)


def test_a_chain_of_three_players_covariance() -> None:
    # A-B: 8 games, B scores 6 -> B - A = S ln 3; B-C: 4 games, C scores 1 -> C - B = -S ln 3.
    first = [1] * 8 + [2] * 4
    second = [0] * 8 + [1] * 4
    score = [1.0] * 6 + [0.0] * 2 + [1.0] * 1 + [0.0] * 3
    counts = PairCounts.from_games(("A", "B", "C"), first, second, score, ordered=False)
    fit = fit_bradley_terry(counts, {"A": 0.0})
    assert fit.ratings == pytest.approx([0.0, S * math.log(3), 0.0], abs=1e-8)
    # w_AB = 8 * 3/4 * 1/4 = 1.5, w_BC = 4 * 1/4 * 3/4 = 0.75; information over (B, C)
    # [[2.25, -0.75], [-0.75, 0.75]], inverse [[2/3, 2/3], [2/3, 2]].
    expected = S**2 * np.array([[0, 0, 0], [0, 2 / 3, 2 / 3], [0, 2 / 3, 2]])
    assert fit.covariance == pytest.approx(expected, abs=1e-6)
    assert fit.difference_stderr("C", "B") == pytest.approx(S / math.sqrt(0.75), abs=1e-8)


def test_first_move_advantage_closed_form() -> None:
    # A first: A scores 8/10; B first: B scores 6/10.  d + h = ln 4, h - d = ln 1.5.
    first = [0] * 10 + [1] * 10
    second = [1] * 10 + [0] * 10
    score = [1.0] * 8 + [0.0] * 2 + [1.0] * 6 + [0.0] * 4
    counts = PairCounts.from_games(("A", "B"), first, second, score)
    fit = fit_bradley_terry(counts, {"B": 0.0}, first_move_advantage=True)
    assert fit.rating("A") == pytest.approx(200.0 * math.log10(8 / 3), abs=1e-8)
    assert fit.first_move_advantage == pytest.approx(200.0 * math.log10(6), abs=1e-8)
    # information over (d, h): cells w1 = 10*.8*.2 = 1.6 (x = (1, 1)), w2 = 10*.6*.4 = 2.4
    # (x = (-1, 1)): [[4, -0.8], [-0.8, 4]] -> var(h) = 4 / 15.36.
    assert fit.first_move_advantage_stderr == pytest.approx(S * math.sqrt(4 / 15.36), abs=1e-8)
    assert fit.rating_stderr("A") == pytest.approx(S * math.sqrt(4 / 15.36), abs=1e-8)
    assert cell_log_likelihood(counts, fit.ratings, fit.first_move_advantage) == pytest.approx(
        fit.log_likelihood, abs=1e-12
    )


def test_several_fixed_players() -> None:
    # X scores 3/4 against L1 (1000) and 1/4 against L2 (1400): the score equation
    # 4 p1 + 4 p2 = 4 holds by symmetry at X = 1200, where p1 = 1 / (1 + 10**-0.5) = 1 - p2,
    # and the information is 8 p1 (1 - p1).
    first = [0] * 8
    second = [1] * 4 + [2] * 4
    score = [1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    counts = PairCounts.from_games(("X", "L1", "L2"), first, second, score, ordered=False)
    fit = fit_bradley_terry(counts, {"L1": 1000.0, "L2": 1400.0}, start=0.0)
    assert fit.rating("X") == pytest.approx(1200.0, abs=1e-8)
    p1 = 1.0 / (1.0 + 10**-0.5)
    assert fit.rating_stderr("X") == pytest.approx(S / math.sqrt(8 * p1 * (1 - p1)), abs=1e-8)
    assert fit.rating("L1") == 1000.0 and fit.rating("L2") == 1400.0


def test_virtual_draws_keep_a_perfect_record_finite() -> None:
    counts = PairCounts.from_games(("A", "B"), *_games(10, 0, 0), ordered=False)
    fit = fit_bradley_terry(counts.with_draws(1.0, every_pair=False), {"B": 0.0})
    assert fit.rating("A") == pytest.approx(400.0 * math.log10(10.5 / 0.5), abs=1e-8)


def test_with_draws_cells() -> None:
    counts = PairCounts.from_games(("A", "B", "C"), [0, 0], [1, 1], [1.0, 0.0])
    every = counts.with_draws(1.0, every_pair=True)
    games, points = every.matrices()
    assert games == pytest.approx(np.array([[0, 2.5, 0.5], [0.5, 0, 0.5], [0.5, 0.5, 0]]))
    assert points == pytest.approx(np.array([[0, 1.25, 0.25], [0.25, 0, 0.25], [0.25, 0.25, 0]]))
    played = counts.with_draws(1.0, every_pair=False)
    assert played.matrices()[0] == pytest.approx(np.array([[0, 2.5, 0], [0.5, 0, 0], [0, 0, 0]]))
    flat = PairCounts.from_games(("A", "B", "C"), [1, 0], [0, 2], [1.0, 0.5], ordered=False)
    assert (flat.first.tolist(), flat.second.tolist()) == ([0, 0], [1, 2])
    assert flat.points.tolist() == [0.0, 0.5]  # B beat A: A's point count is 0
    games, points = flat.with_draws(2.0, every_pair=True).matrices()
    assert games == pytest.approx(np.array([[0, 3, 3], [0, 0, 2], [0, 0, 0]]))
    assert points == pytest.approx(np.array([[0, 1, 1.5], [0, 0, 1], [0, 0, 0]]))


def test_unlinked_players_and_bad_input_are_rejected() -> None:
    counts = PairCounts.from_games(("A", "B", "C", "D"), [0, 2], [1, 3], [1.0, 0.5])
    with pytest.raises(ConfigError, match="C, D have no games"):
        fit_bradley_terry(counts, {"A": 0.0})
    with pytest.raises(ConfigError, match="at least one"):
        fit_bradley_terry(counts, {})
    with pytest.raises(ValueError, match="ordered"):
        fit_bradley_terry(
            PairCounts.from_games(("A", "B"), [0], [1], [1.0], ordered=False),
            {"A": 0.0},
            first_move_advantage=True,
        )
    with pytest.raises(ValueError, match="itself"):
        PairCounts.from_games(("A", "B"), [0], [0], [1.0])
