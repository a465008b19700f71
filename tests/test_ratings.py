"""Tests of the maximum-likelihood Elo fit and the AlphaDDA K=8 update (appendix 5)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sparring.errors import ConfigError
from sparring.evaluation.ratings import (
    Anchor,
    GameResults,
    default_anchor,
    expected_score,
    fit_elo,
    incremental_elo,
)
from sparring.evaluation.store import GameRecord

TRUE_ELO = np.array([1000.0, 1150.0, 1400.0, 1600.0])
NAMES = ("Random", "B", "C", "D")


def synthetic(
    games_per_ordered_pair: int, seed: int, advantage: float = 0.0, draw_rate: float = 0.1
) -> GameResults:
    """Round-robin results drawn from the Bradley-Terry model with the ratings TRUE_ELO.

    Draws happen with probability ``draw_rate`` and wins are drawn so that the expected score
    of the first player is exactly the model's.
    """
    rng = np.random.default_rng(seed)
    first, second, score = [], [], []
    n = len(TRUE_ELO)
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            p = expected_score(TRUE_ELO[i] + advantage, TRUE_ELO[j])
            win = (p - draw_rate / 2) / (1 - draw_rate)
            u = rng.random(games_per_ordered_pair)
            draws = u < draw_rate
            wins = rng.random(games_per_ordered_pair) < win
            s = np.where(draws, 0.5, np.where(wins, 1.0, 0.0))
            first += [i] * games_per_ordered_pair
            second += [j] * games_per_ordered_pair
            score += s.tolist()
    return GameResults(NAMES, np.array(first), np.array(second), np.array(score))


def test_mle_recovers_known_ratings_within_ci() -> None:
    results = synthetic(150, seed=1)
    fit = fit_elo(results, confidence=0.99)
    assert fit.anchor == Anchor("Random", 1000.0)
    assert fit.ratings[0] == pytest.approx(1000.0)
    assert np.all(fit.lower <= TRUE_ELO) and np.all(fit.upper >= TRUE_ELO)
    assert np.max(np.abs(fit.ratings - TRUE_ELO)) < 60
    assert fit.stderr[0] == 0.0 and np.all(fit.stderr[1:] > 0)


def test_first_move_advantage_is_recovered() -> None:
    results = synthetic(150, seed=2, advantage=80.0)
    fit = fit_elo(results, first_move_advantage=True)
    assert fit.first_move_advantage is not None
    assert fit.first_move_advantage_stderr is not None
    assert abs(fit.first_move_advantage - 80.0) < 3 * fit.first_move_advantage_stderr
    assert np.all(np.abs(fit.ratings - TRUE_ELO) < 3 * np.maximum(fit.stderr, 1e-9) + 1e-6)
    # Without the parameter the balanced schedule gives the same order, slightly compressed.
    plain = fit_elo(results)
    assert plain.first_move_advantage is None
    assert plain.ranking() == fit.ranking()
    assert np.max(np.abs(plain.ratings - fit.ratings)) < 40


def test_anchor_shifts_all_ratings_equally() -> None:
    results = synthetic(40, seed=3)
    base = fit_elo(results)
    moved = fit_elo(results, anchor=Anchor("C", 2000.0))
    assert moved.rating("C") == pytest.approx(2000.0)
    assert moved.stderr[2] == 0.0
    shift = moved.ratings - base.ratings
    assert np.allclose(shift, shift[0], atol=1e-6)
    # Differences and their uncertainty do not depend on the anchor.
    assert base.difference_stderr("B", "D") == pytest.approx(moved.difference_stderr("B", "D"))
    assert moved.difference_stderr("B", "C") == pytest.approx(moved.stderr[1])


def test_default_anchor_and_parsing() -> None:
    assert default_anchor(["X", "Random"]) == Anchor("Random", 1000.0)
    assert default_anchor(["X", "Y"]) == Anchor("X", 1500.0)
    assert Anchor.parse("MCTS1 = 1731") == Anchor("MCTS1", 1731.0)
    assert Anchor("random", 0.0).index_in(["A", "Random"]) == 1
    for bad in ("Random", "=1000", "Random=strong", "Random=nan"):
        with pytest.raises(ConfigError):
            Anchor.parse(bad)
    with pytest.raises(ConfigError, match="Nobody"):
        Anchor("Nobody", 1.0).index_in(["A", "B"])
    results = GameResults(("X", "Y"), np.array([0]), np.array([1]), np.array([1.0]))
    fit = fit_elo(results)
    assert fit.anchor == Anchor("X", 1500.0) and fit.rating("X") == 1500.0


def test_confidence_interval_shrinks_with_more_games() -> None:
    small = fit_elo(synthetic(25, seed=4))
    large = fit_elo(synthetic(400, seed=4))
    ratio = large.half_width[1:] / small.half_width[1:]
    assert np.all(ratio < 0.35)  # 16 times the games: about a quarter of the width


def test_symmetry() -> None:
    # A beats B 7-3: swapping who is listed first mirrors the ratings.
    first = np.array([0] * 10)
    second = np.array([1] * 10)
    score = np.array([1.0] * 7 + [0.0] * 3)
    ab = fit_elo(GameResults(("A", "B"), first, second, score), anchor=Anchor("A", 0.0))
    ba = fit_elo(GameResults(("A", "B"), second, first, 1.0 - score), anchor=Anchor("A", 0.0))
    assert ab.rating("B") == pytest.approx(ba.rating("B"), abs=1e-6)
    expected = -400 * math.log10(7 / 3)  # the MLE of a two-player match, up to the prior
    assert ab.rating("B") == pytest.approx(expected, abs=0.5)
    # Permuting the players permutes the ratings.
    results = synthetic(30, seed=5)
    perm = np.array([2, 0, 3, 1])
    permuted = GameResults(
        tuple(NAMES[k] for k in np.argsort(perm)),
        perm[results.first],
        perm[results.second],
        results.score,
    )
    a = fit_elo(results)
    b = fit_elo(permuted)
    for name in NAMES:
        assert a.rating(name) == pytest.approx(b.rating(name), abs=1e-6)
    # Two players with identical records against a third get identical ratings.
    tie = GameResults(
        ("P", "Q", "R"),
        np.array([0, 0, 1, 1]),
        np.array([2, 2, 2, 2]),
        np.array([1.0, 0.5, 0.5, 1.0]),
    )
    fit = fit_elo(tie)
    assert fit.rating("P") == pytest.approx(fit.rating("Q"), abs=1e-6)


def test_perfect_records_stay_finite() -> None:
    # W wins every game, L loses every game: the prior keeps the ratings finite.
    first = np.array([0, 1, 0, 2, 1, 2] * 5)
    second = np.array([1, 0, 2, 0, 2, 1] * 5)
    score = np.array([1.0, 0.0, 1.0, 0.0, 1.0, 0.0] * 5)
    fit = fit_elo(GameResults(("W", "M", "L"), first, second, score), anchor=Anchor("M", 1500))
    assert np.all(np.isfinite(fit.ratings)) and np.all(np.isfinite(fit.stderr))
    assert fit.rating("W") > 2000 and fit.rating("L") < 1000
    assert fit.stderr[0] > 200  # and very uncertain
    with pytest.raises(ValueError, match="prior_draws"):
        fit_elo(GameResults(("W", "L"), first[:1], second[:1], score[:1]), prior_draws=0.0)


def test_games_and_points_per_player() -> None:
    results = GameResults(
        ("A", "B", "C"), np.array([0, 1, 2]), np.array([1, 2, 0]), np.array([1.0, 0.5, 0.0])
    )
    fit = fit_elo(results)
    assert fit.games.tolist() == [2, 2, 2]
    assert fit.points.tolist() == [2.0, 0.5, 0.5]


def test_expected_score_eq16() -> None:
    assert expected_score(1500, 1500) == 0.5
    assert expected_score(1900, 1500) == pytest.approx(10 / 11)
    assert expected_score(1500, 1900) == pytest.approx(1 / 11)


def test_incremental_elo_hand_computed() -> None:
    # Game 1: A (first) beats B, both at 1500: A 1504, B 1496.
    # Game 2: B (first) beats A: p(B) = 1 / (1 + 10**(8/400)) = 0.488489, delta = 4.09209
    #         -> B 1500.09209, A 1499.90791.
    # Game 3: A draws C (C first): p(C) = 1/(1+10**(-0.09209/400)) = 0.499868;
    #         delta = 8 (0.5 - 0.499868) = 0.00106 -> C 1500.00106, A 1499.90685.
    results = GameResults(
        ("A", "B", "C"), np.array([0, 1, 2]), np.array([1, 0, 0]), np.array([1.0, 1.0, 0.5])
    )
    ratings = incremental_elo(results)
    p_b = 1 / (1 + 10 ** (8 / 400))
    delta2 = 8 * (1 - p_b)
    assert ratings[1] == pytest.approx(1496 + delta2)
    a_after2 = 1504 - delta2
    p_c = 1 / (1 + 10 ** ((a_after2 - 1500) / 400))
    delta3 = 8 * (0.5 - p_c)
    assert ratings[2] == pytest.approx(1500 + delta3)
    assert ratings[0] == pytest.approx(a_after2 - delta3)
    assert ratings[1] == pytest.approx(1500.09209, abs=1e-5)
    assert ratings.sum() == pytest.approx(4500.0)  # K-factor updates conserve the total
    twice = incremental_elo(results, passes=2)
    assert not np.allclose(twice, ratings)
    p_b16 = 1 / (1 + 10 ** (16 / 400))
    assert incremental_elo(results, k=16, initial=0.0)[1] == pytest.approx(-8 + 16 * (1 - p_b16))


def test_results_from_records_round_robin_order() -> None:
    def record(pairing: int, index: int, a: str, b: str, result: float) -> GameRecord:
        return GameRecord(
            game="tictactoe",
            spec_a=a.lower(),
            spec_b=b.lower(),
            label_a=a,
            label_b=b,
            a_first=index % 2 == 0,
            seed=0,
            moves=(),
            think_times=(),
            result=result,
            run_key="r",
            pairing=pairing,
            game_index=index,
        )

    records = [
        record(0, 0, "A", "B", 1.0),
        record(0, 1, "A", "B", 0.0),  # B moved first and lost: A wins
        record(1, 0, "A", "C", 0.5),
    ]
    results = GameResults.from_records(records)
    assert results.names == ("A", "B", "C")
    # Sorted by game index: (0,0), (1,0), (0,1).
    assert results.first.tolist() == [0, 0, 1]
    assert results.second.tolist() == [1, 2, 0]
    assert results.score.tolist() == [1.0, 0.5, 0.0]
    assert results.points_per_player().tolist() == [2.5, 0.0, 0.5]
    with pytest.raises(ValueError, match="not in names"):
        GameResults.from_records(records, names=["A", "B"])


def test_bad_results_rejected() -> None:
    with pytest.raises(ValueError):
        GameResults(("A", "B"), np.array([0]), np.array([0]), np.array([1.0]))
    with pytest.raises(ValueError):
        GameResults(("A", "B"), np.array([0]), np.array([1]), np.array([0.7]))
    with pytest.raises(ValueError):
        GameResults(("A", "B"), np.array([0]), np.array([2]), np.array([1.0]))
