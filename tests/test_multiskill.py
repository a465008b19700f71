"""The multi-skill strength estimator: its per-game statistics and features, the classifier
and its calibration measures, the combination over N games, the feature extraction and its
cache, and (when the strength data is present) the whole evaluation on a few games."""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from sparring.estimation.classify import (
    SoftmaxModel,
    fit_ridge,
    fit_softmax,
    mean_log_loss,
    reliability,
)
from sparring.estimation.data import default_data_root
from sparring.estimation.multiskill import (
    FeatureCache,
    MoveFeatures,
    MoveScorer,
    StatLayout,
    extract_features,
    features,
    game_positions,
    game_statistics,
    select_moves,
)
from sparring.estimation.multiskill_model import (
    Combination,
    MultiSkillModel,
    RankGaussians,
    Settings,
    draw_sets,
    fit_model,
    player_folds,
    tune,
)
from sparring.estimation.predict import accuracy_curves, draw_orders
from sparring.estimation.upload import game_key
from sparring.nn.estimators import CHESS_RANKS
from sparring.nn.strength_net import (
    StrengthNetConfig,
    build_strength_model,
    save_strength_model,
)
from sparring.records import read_pgn_games

TINY_NET: dict[str, Any] = {
    "blocks": 1,
    "channels": 8,
    "head_channels": 4,
    "head_hidden": 8,
    "value_hidden": 8,
}

PGN = """[Event "a"]
[White "alice"]
[Black "bob"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 1-0

[Event "b"]
[White "carol"]
[Black "dave"]
[Result "0-1"]

1. d4 d5 2. c4 e6 3. Nc3 Nf6 0-1

"""


# ---- per-game statistics and features ---------------------------------------------------------
def _three_moves() -> MoveFeatures:
    """Two ranks, three moves at plies 5, 30 and 70 of an 80-ply chess game (one move in each
    phase), with the probabilities (0.5, 0.25), (0.2, 0.2) and (0.1, 0.3)."""
    p = np.array([[0.5, 0.25], [0.2, 0.2], [0.1, 0.3]])
    return MoveFeatures(
        np.log(p).astype(np.float32),
        np.array([1.0, 2.0, 4.0], np.float32),
        np.array([5, 30, 70], np.int32),
        np.array([1, 0, 0], np.int8),
        80,
    )


def test_game_statistics_are_the_hand_worked_sums() -> None:
    stats = game_statistics(_three_moves(), "chess")
    lay = StatLayout(2)
    assert stats.shape == (lay.size,) == (2 + 3 + 6 + 3 + 2,)
    # marginals log 0.375, log 0.2, log 0.2; relative log-likelihoods
    # (log 4/3, log 2/3), (0, 0), (log 1/2, log 3/2)
    np.testing.assert_allclose(stats[lay.rel], [math.log(2 / 3), 0.0], atol=1e-6)
    assert stats[lay.marginal] == pytest.approx(math.log(0.375 * 0.2 * 0.2), abs=1e-6)
    assert stats[lay.se] == 7.0 and stats[lay.moves] == 3.0
    np.testing.assert_allclose(stats[lay.phase_rel(0)], [math.log(4 / 3), math.log(2 / 3)], 1e-6)
    np.testing.assert_allclose(stats[lay.phase_rel(1)], [0.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(stats[lay.phase_rel(2)], [math.log(0.5), math.log(1.5)], 1e-6)
    assert [stats[lay.phase_moves(p)] for p in range(3)] == [1.0, 1.0, 1.0]
    assert stats[lay.log_plies] == pytest.approx(math.log(80))
    assert stats[lay.games] == 1.0


def test_features_are_means_over_the_moves_of_all_games() -> None:
    one = game_statistics(_three_moves(), "chess")
    base = features(one, 2, "base")
    np.testing.assert_allclose(
        base,
        [math.log(2 / 3) / 3, 0.0, math.log(0.015) / 3, 7 / 3, math.log(80)],
        atol=1e-6,
    )
    np.testing.assert_allclose(features(one, 2, "se"), [7 / 3])
    np.testing.assert_allclose(features(one, 2, "play"), base[:3])
    half, third = math.log(2) / 2, math.log(3) / 2
    np.testing.assert_allclose(
        features(one, 2, "phases")[5:], [half, -half, 0.0, 0.0, -third, third], atol=1e-6
    )
    # a second game of one move (ply 2, probabilities 0.4 and 0.1; score 5; 10 plies):
    # the means of two games are over their four moves, the length's over the two games
    other = MoveFeatures(
        np.log(np.array([[0.4, 0.1]])).astype(np.float32),
        np.array([5.0], np.float32),
        np.array([2], np.int32),
        np.array([0], np.int8),
        10,
    )
    both = features(one + game_statistics(other, "chess"), 2, "base")
    rel = np.array([math.log(2 / 3) + math.log(0.4 / 0.25), math.log(0.1 / 0.25)]) / 4
    np.testing.assert_allclose(both[:2], rel, atol=1e-6)
    assert both[2] == pytest.approx(math.log(0.015 * 0.25) / 4, abs=1e-6)
    assert both[3] == pytest.approx(12 / 4)
    assert both[4] == pytest.approx((math.log(80) + math.log(10)) / 2)


def test_the_combination_tempers_the_summed_log_probabilities() -> None:
    sums = np.array([[-2.0, -4.0]])
    np.testing.assert_allclose(Combination(2.0).logits(sums, [2.0]), [[-4.0, -8.0]])
    # n0 = 2: s(2) = 2 / (1 + 1) = 1 game's worth, so the logits are tau * sums / 2
    np.testing.assert_allclose(Combination(2.0, 2.0).logits(sums, [2.0]), [[-2.0, -4.0]])


def test_gaussian_ranks_read_the_mean_score_with_a_variance_for_n_games() -> None:
    ranks = RankGaussians(np.array([0.0, 1.0, 3.0]), v_player=0.5, v_game=1.0)
    # two games scoring 2 in all: mean 1, variance 0.5 + 1 / 2 = 1
    np.testing.assert_allclose(ranks.logits(np.array([[2.0]]), [2.0]), [[-0.5, 0.0, -2.0]])
    # one game: variance 1.5
    np.testing.assert_allclose(ranks.logits(np.array([[1.0]]), [1.0]), [[-1 / 3, 0.0, -4 / 3]])


def test_ridge_regression_by_hand() -> None:
    x = np.array([[-1.0], [0.0], [1.0]])
    assert fit_ridge(x, [0.0, 1.0, 2.0], l2=0.0).score(x) == pytest.approx([0.0, 1.0, 2.0])
    # standardised x = x / sqrt(2/3): the weight is (2 sqrt(3/2) / 3) / (1 + 1), so the scores
    # move half way from the target's mean
    assert fit_ridge(x, [0.0, 1.0, 2.0], l2=1.0).score(x) == pytest.approx([0.5, 1.0, 1.5])


# ---- the classifier and calibration ------------------------------------------------------------
def test_a_softmax_without_features_gives_each_class_its_share() -> None:
    model = fit_softmax(np.zeros((4, 0)), [0, 0, 0, 1], 2)
    np.testing.assert_allclose(model.probabilities(np.zeros((1, 0))), [[0.75, 0.25]], atol=1e-6)


def test_a_softmax_separates_and_round_trips() -> None:
    x = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    model = fit_softmax(x, [0, 0, 1, 1], 2, l2=1e-3)
    p = model.probabilities(x)
    assert (p.argmax(axis=1) == [0, 0, 1, 1]).all()
    assert mean_log_loss(p, [0, 0, 1, 1]) < 0.05
    again = SoftmaxModel.from_dict(model.to_dict())
    np.testing.assert_array_equal(again.probabilities(x), p)
    # a heavier penalty keeps the weights smaller: a less confident fit
    assert fit_softmax(x, [0, 0, 1, 1], 2, l2=1.0).probabilities(x)[3, 1] < p[3, 1]


def test_expected_calibration_error_by_hand() -> None:
    p = np.array([[0.95, 0.05], [0.85, 0.15], [0.65, 0.35], [0.25, 0.75]])
    y = np.array([0, 1, 0, 1])
    # ten bins: one prediction each; |1 - 0.95|, |0 - 0.85|, |1 - 0.65|, |1 - 0.75|
    assert reliability(p, y).ece == pytest.approx((0.05 + 0.85 + 0.35 + 0.25) / 4)
    # two bins: all four in [0.5, 1], mean confidence 0.8 and 3 of 4 right
    rel = reliability(p, y, bins=2)
    assert rel.count.tolist() == [0, 4]
    assert rel.confidence[1] == pytest.approx(0.8) and rel.accuracy[1] == 0.75
    assert rel.ece == pytest.approx(0.05)


# ---- draws, folds and the fitted estimator -----------------------------------------------------
def test_draw_sets_are_the_accuracy_engines_draws() -> None:
    rank = np.array([0, 0, 0, 1, 1, 1, 1])
    units = np.eye(7)  # unit u's vector marks u, so a sum counts the units drawn
    x, y = draw_sets(units, rank, 2, [1, 2, 5], draws=3, seed=4)
    assert y.tolist() == [0] * 9 + [1] * 9
    for r, pool in ((0, np.arange(3)), (1, np.arange(3, 7))):
        order = draw_orders(pool.size, r, 5, 3, 4)
        for d in range(3):
            for j, n in enumerate((1, 2, 5)):
                want = np.bincount(pool[order[d, :n]], minlength=7)
                np.testing.assert_array_equal(x[9 * r + 3 * d + j], want)


def test_player_folds_keep_a_players_games_together() -> None:
    focus = ["a", "a", "b", "c", "c", "d", "e", "f"]
    rank = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    fold = player_folds(focus, rank, 2)
    assert fold[0] == fold[1] and fold[3] == fold[4]
    assert sorted(np.bincount(fold[[0, 2, 3]], minlength=2).tolist()) == [1, 2]
    np.testing.assert_array_equal(player_folds(focus[::-1], rank[::-1], 2), fold[::-1])


def _separable(games: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Statistics of games of 4 ranks whose relative log-likelihood peaks at their own rank."""
    rng = np.random.default_rng(seed)
    lay = StatLayout(4)
    rank = np.repeat(np.arange(4), games)
    stats = np.zeros((rank.size, lay.size))
    for i, r in enumerate(rank.tolist()):
        rel = -0.2 * (np.arange(4) - r) ** 2 + rng.normal(0, 0.15, 4)
        stats[i, lay.rel] = 10 * rel
        stats[i, lay.marginal] = -20.0
        stats[i, lay.se] = rng.normal(0, 1)
        stats[i, [lay.moves, lay.games]] = 10.0, 1.0
        stats[i, lay.log_plies] = 4.0
    return stats, rank


def test_the_fitted_estimator_finds_the_rank_of_separable_games() -> None:
    stats, rank = _separable(12, 0)
    focus = [f"p{i}" for i in range(rank.size)]
    grid = (
        Settings("softmax", "base", 1e-2),
        Settings("ordinal", "base", 1e-2, "line"),
        Settings("ordinal", "phases", 1e-2, "free"),
    )
    tuned = tune(stats, rank, focus, 4, grid, folds=3, draws=16)
    assert [row[0] for row in tuned.rows] == list(grid)
    test, test_rank = _separable(12, 1)
    for settings, combination, _, _ in tuned.rows:
        model = fit_model(stats, rank, "chess", CHESS_RANKS[:4], settings, combination)
        units = model.unit_features(test)
        curves = accuracy_curves(units, test_rank, model.decide, 4, 10, 50, 0)
        assert curves.mean_exact[4] == 1.0, settings  # N = 5
        p = model.probabilities(test[test_rank == 2][:5])
        assert p.shape == (4,) and p.argmax() == 2 and p.sum() == pytest.approx(1.0)
        again = MultiSkillModel.from_json(model.to_json())
        np.testing.assert_allclose(again.probabilities(test[:3]), model.probabilities(test[:3]))


def test_the_paired_difference_by_hand() -> None:
    from sparring.estimation.multiskill_eval import paired_difference

    rank = np.repeat(np.arange(4), 3)
    onehot = np.eye(4)[rank]
    players = [f"p{i // 2}" for i in range(rank.size)]

    def right(x: np.ndarray) -> np.ndarray:
        return np.asarray(x.argmax(axis=-1))

    def first_rank(x: np.ndarray) -> np.ndarray:
        return np.zeros(x.shape[:-1], dtype=np.int64)

    # always right against always the first rank (right for one rank in four), in every
    # resample of the players
    diff = paired_difference((onehot, right), (onehot, first_rank), rank, players, 4, [1, 5], 20)
    assert diff == {1: (0.75, 0.75, 0.75), 5: (0.75, 0.75, 0.75)}
    same = paired_difference((onehot, right), (onehot, right), rank, players, 4, [2], 5)
    assert same == {2: (0.0, 0.0, 0.0)}


# ---- extraction ---------------------------------------------------------------------------------
def test_select_moves_is_seeded_by_the_game() -> None:
    assert select_moves(5, 0, 0, "ab" * 32).tolist() == [0, 1, 2, 3, 4]
    assert select_moves(5, 9, 0, "ab" * 32).tolist() == [0, 1, 2, 3, 4]
    picked = select_moves(50, 6, 0, "ab" * 32)
    assert picked.size == 6 and (np.diff(picked) > 0).all()
    assert select_moves(50, 6, 0, "ab" * 32).tolist() == picked.tolist()
    assert select_moves(50, 6, 0, "cd" * 32).tolist() != picked.tolist()


def _tiny_networks(tmp_path: Path, n_ranks: int = 3) -> tuple[Path, Path]:
    """Untrained chess play and SE networks over the first ``n_ranks`` bands (the play
    network lists them the other way round; the SE file has references)."""
    ranks = CHESS_RANKS[:n_ranks]
    play = build_strength_model(StrengthNetConfig("chess", ranks[::-1], "play", **TINY_NET), 1)
    se = build_strength_model(StrengthNetConfig("chess", ranks, "se", **TINY_NET), 2)
    refs = {"ranks": list(ranks), "scores": [-0.01 * r for r in range(n_ranks)]}
    save_strength_model(tmp_path / f"play{n_ranks}.pt", play)
    save_strength_model(tmp_path / f"se{n_ranks}.pt", se, {"references": refs})
    return tmp_path / f"play{n_ranks}.pt", tmp_path / f"se{n_ranks}.pt"


def test_extraction_scores_every_rank_and_resumes_from_the_cache(tmp_path: Path) -> None:
    started = time.perf_counter()
    (tmp_path / "g.pgn").write_text(PGN)
    records = list(read_pgn_games(tmp_path / "g.pgn"))
    play_path, se_path = _tiny_networks(tmp_path)
    ranks = CHESS_RANKS[:3]
    from sparring.nn.strength_net import load_strength_model

    play, _ = load_strength_model(play_path)
    se, _ = load_strength_model(se_path)
    scorer = MoveScorer(play, se, ranks, batch=5)
    cache = FeatureCache(tmp_path / "cache", "chess", ranks, play_path, se_path, 6, 0)
    done: list[int] = []
    feats = extract_features(records, scorer, cache, done.append, flush_positions=4)
    assert sum(done) == 2 and [f.moves for f in feats] == [6, 6]
    assert [f.plies for f in feats] == [10, 6]
    # the values are the networks' own: log-softmax of the play logits at each rank (the
    # network lists the ranks the other way round) and the SE score
    planes, actions, sides = game_positions(records[1], feats[1].move_number.astype(np.int64))
    np.testing.assert_array_equal(sides, feats[1].side)
    with torch.inference_mode():
        for r in range(3):
            logits, _ = play.play(torch.from_numpy(planes), torch.full((6,), 2 - r))
            want = torch.log_softmax(logits, 1)[torch.arange(6), torch.from_numpy(actions)]
            np.testing.assert_allclose(feats[1].loglik[:, r], want.numpy(), atol=1e-5)
        _, _, beta = se(torch.from_numpy(planes), torch.from_numpy(actions))
    np.testing.assert_allclose(feats[1].se, beta[:, 0].numpy(), atol=1e-5)
    # a second pass reads every game back and scores nothing
    lines = (cache.folder / "cost.jsonl").read_text().splitlines()
    cost = cache.cost()
    assert cost.positions == cost.cpu_positions == 12 and cost.cpu_seconds > 0
    again = extract_features(records, scorer, cache)
    assert (cache.folder / "cost.jsonl").read_text().splitlines() == lines
    np.testing.assert_array_equal(again[0].loglik, feats[0].loglik)
    assert cache.path(game_key(records[0])).is_file()
    # another move sample is another cache folder
    assert FeatureCache(tmp_path / "cache", "chess", ranks, play_path, se_path, 0, 0).folder != (
        cache.folder
    )
    assert time.perf_counter() - started < 30


def test_the_scorer_refuses_networks_of_the_wrong_kind(tmp_path: Path) -> None:
    ranks = CHESS_RANKS[:3]
    se = build_strength_model(StrengthNetConfig("chess", ranks, "se", **TINY_NET), 2)
    with pytest.raises(Exception, match="not a play network"):
        MoveScorer(se, se, ranks)
    play = build_strength_model(StrengthNetConfig("chess", ranks, "play", **TINY_NET), 1)
    with pytest.raises(Exception, match="no rank 1000-1200"):
        MoveScorer(play, se, (*ranks, "1000-1200"))


# ---- the evaluation on a few real held-out games -----------------------------------------------
DATA = default_data_root()


@pytest.mark.skipif(
    DATA is None or not (DATA / "strength" / "chess").is_dir(),
    reason="the strength data (shared/data/strength) is not present",
)
def test_the_evaluation_runs_on_a_few_held_out_games(tmp_path: Path) -> None:
    from sparring.estimation.multiskill_eval import (
        evaluate_multiskill,
        held_out_games,
        write_report,
    )
    from sparring.estimation.predict import CHOOSE, REPORT

    started = time.perf_counter()
    held = held_out_games("chess", DATA, games_per_rank=3, limit_records=60)
    assert set(held.part.tolist()) == {CHOOSE, REPORT}
    assert np.bincount(held.rank[held.part == REPORT], minlength=8).max() <= 3
    play, se = _tiny_networks(tmp_path)
    grid = (Settings("ordinal", "base", 1.0),)
    with pytest.raises(Exception, match="no rank"):  # the tiny networks have 3 ranks of 8
        evaluate_multiskill(held, play, se, tmp_path / "c", 2, draws=10, max_games=10, grid=grid)
    play, se = _tiny_networks(tmp_path, 8)
    ev = evaluate_multiskill(
        held,
        play,
        se,
        tmp_path / "cache",
        moves_per_game=2,
        draws=20,
        max_games=10,
        grid=grid,
        show_progress=False,
        bootstrap=5,
    )
    assert [m.name for m in ev.methods] == ["multi-skill", "SE", "likelihood"]
    assert ev.moves_scored == 2 * len(held.records)
    assert ev.n_eff(1) == sum(ev.units["report"])
    assert ev.confusion.sum(axis=1) == pytest.approx(np.ones(8))
    assert list(ev.difference) == [1, 5, 10]
    path = write_report(ev, tmp_path / "report")
    text = path.read_text()
    assert "## Confusion matrix at N = 10" in text and "ECE" in text
    assert "## Multi-skill minus SE, exact, paired" in text
    assert MultiSkillModel.from_json((tmp_path / "report" / "model.json").read_text()).ranks == (
        CHESS_RANKS
    )
    assert time.perf_counter() - started < 30
