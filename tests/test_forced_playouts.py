"""KataGo's forced playouts and policy target pruning (sparring.search.forced; Wu 2019, 3.1)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from tests.test_puct import IntegerEvaluator, _random_positions

from sparring.errors import BadValueError
from sparring.games import get_game
from sparring.search.forced import (
    ForcedPlayouts,
    ForcedRun,
    forced_playouts,
    prune_policy_target,
)
from sparring.search.puct import PICK_WAIT, PUCTConfig, RootArrays, RootStats, search, search_batch

C4 = get_game("connect4")


class _Starved:
    """IntegerEvaluator with move ``move``'s prior scaled by ``factor`` (then renormalised)."""

    def __init__(self, move: int = 3, factor: float = 0.01) -> None:
        self.inner = IntegerEvaluator(C4)
        self.move = move
        self.factor = factor

    def evaluate(
        self, planes: np.ndarray, legal: np.ndarray, states: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        priors, values = self.inner.evaluate(planes, legal, states)
        priors = priors.copy()
        priors[:, self.move] *= self.factor
        return priors / priors.sum(axis=1, keepdims=True), values


# ---- n_forced -------------------------------------------------------------------------------


def test_forced_playouts_on_a_hand_example() -> None:
    # sqrt(2 * P * 50) = sqrt(100 P): P = 0.64, 0.25, 0.09, 0.02, 0 -> 8, 5, 3, sqrt(2), 0
    got = forced_playouts([0.64, 0.25, 0.09, 0.02, 0.0], 50, 2.0)
    assert got.dtype == np.float64
    assert got == pytest.approx([8.0, 5.0, 3.0, math.sqrt(2.0), 0.0], abs=1e-12)
    # k = 0.5, 32 visits: sqrt(16 P), P = 0.25 -> 2
    assert forced_playouts(np.array([0.25]), 32, 0.5).tolist() == [2.0]
    with pytest.raises(BadValueError):
        forced_playouts([0.5], 10, -1.0)


# ---- policy target pruning ------------------------------------------------------------------


def test_pruning_removes_a_forced_child_entirely() -> None:
    # visits [20, 2, 2], sum 24, N(s) = 25 (sqrt 5), C_puct 1, k 2, Q [0.5, 0.0, 0.2],
    # P [1/2, 1/12, 5/12].  c* = child 0: PUCT(c*) = 0.5 + 0.5 * 5 / 21 = 0.61905.
    # Child 1: n_forced = sqrt(2 * 1/12 * 24) = 2, so up to 2 playouts go: with 0 left
    #   PUCT = 0 + (1/12) * 5 / 1 = 0.41667 < 0.61905: all 2 go -> 0.
    # Child 2: n_forced = sqrt(20) = 4.47 (up to 2 = all its playouts), but already with its
    #   2 playouts PUCT = 0.2 + (5/12) * 5 / 3 = 0.89444 >= 0.61905: nothing goes, it keeps 2
    #   (more than one playout, so it is not pruned).
    got = prune_policy_target([20, 2, 2], [0.5, 1 / 12, 5 / 12], [0.5, 0.0, 0.2], 1.0, 2.0, 25, 0.0)
    assert got.dtype == np.float64
    assert got.tolist() == [20.0, 0.0, 2.0]


def test_pruning_is_capped_by_the_puct_condition() -> None:
    # visits [30, 10, 8], sum 48, N(s) = 49 (sqrt 7), C_puct 1, k 2, Q [0.4, 0.1, -0.2],
    # P [0.5, 0.375, 0.125].  c* = child 0 (unchanged): PUCT(c*) = 0.4 + 0.5 * 7 / 31 = 0.51290.
    # Child 1: n_forced = sqrt(2 * 0.375 * 48) = 6, PUCT(n) = 0.1 + 2.625 / (1 + n):
    #   n = 4: 0.625, n = 5: 0.5375 (both >= 0.51290), n = 6: 0.475 < 0.51290 -> keeps 6
    #   (4 playouts removed, not the 6 forced ones: capped by the PUCT condition).
    # Child 2: n_forced = sqrt(12) = 3.46 -> at most 3 go; with 5 left PUCT = -0.2 + 0.875 / 6
    #   = -0.05417 < 0.51290 -> keeps 5.
    got = prune_policy_target([30, 10, 8], [0.5, 0.375, 0.125], [0.4, 0.1, -0.2], 1.0, 2.0, 49, 0.0)
    assert got.tolist() == [30.0, 6.0, 5.0]


def test_pruning_single_playouts_and_the_most_visited_child() -> None:
    # Every child but c* with a single playout is pruned; c* (the first of the most visited)
    # never is, so a target is never empty.  N(s) = 3, k = 2: n_forced = sqrt(2 * 0.5 * 2) = 1.4.
    got = prune_policy_target([1, 1, 0], [0.5, 0.25, 0.25], [0.0, 0.0, 0.0], 1.0, 2.0, 3, 0.0)
    assert got.tolist() == [1.0, 0.0, 0.0]
    # k = 0 forces nothing and subtracts nothing: only single playouts go.
    got = prune_policy_target([5, 1, 2], [0.2, 0.4, 0.4], [0.0, 0.9, 0.9], 1.0, 0.0, 9, 0.0)
    assert got.tolist() == [5.0, 0.0, 2.0]
    assert prune_policy_target([0, 0], [0.5, 0.5], [0.0, 0.0], 1.0, 2.0, 1, 0.0).tolist() == [
        0.0,
        0.0,
    ]


def test_finish_sets_the_normalised_pruned_counts() -> None:
    stats = RootStats(
        moves=np.array([1, 3, 5], dtype=np.int64),
        visits=np.array([20, 2, 2], dtype=np.int64),
        q=np.array([0.5, 0.0, 0.2]),
        priors=np.array([0.5, 1 / 12, 5 / 12], dtype=np.float32),
        search_priors=np.array([0.5, 1 / 12, 5 / 12], dtype=np.float32),
        network_value=0.1,
        value=0.45,
        simulations=24,
        to_move=0,
        nodes=25,
    )
    run = ForcedRun(ForcedPlayouts(), 1.0, 0.0, [np.array([0.5, 1 / 12, 5 / 12])])
    # the first pruning example: [20, 0, 2] / 22
    policy = run.finish(0, stats).improved_policy
    assert policy is not None and policy.dtype == np.float32
    assert policy.tolist() == np.array([20 / 22, 0.0, 2 / 22], dtype=np.float32).tolist()
    assert run.finish(0, stats).training_policy(7)[[1, 3, 5]].tolist() == policy.tolist()
    unpruned = ForcedRun(ForcedPlayouts(prune=False), 1.0, 0.0, run.priors)
    assert unpruned.finish(0, stats) is stats
    assert run.finish(0, replace(stats, visits=np.zeros(3, dtype=np.int64))).improved_policy is None


# ---- the plan -------------------------------------------------------------------------------


def _hand_arrays() -> RootArrays:
    """Three roots: tree 0 with children N = [5, 0, 1], P = [0.5, 0.3, 0.2], W = [2, 0, 0.9]
    (6 simulations, N(s) = 7, network value 0.5); tree 1 with N = [3, 3], P = [0.5, 0.5];
    tree 2 finished."""
    node_i = np.zeros((3, 7), dtype=np.int64)
    node_f = np.zeros((3, 1), dtype=np.float64)
    node_i[:, 0] = [0, 3, 5]  # N_EDGE_START
    node_i[:, 1] = [3, 2, 1]  # N_EDGE_COUNT
    node_i[:, 4] = [7, 7, 5]  # N_VISITS
    node_f[0, 0] = 0.5
    edge_i = np.zeros((6, 4), dtype=np.int64)
    edge_f = np.zeros((6, 2), dtype=np.float64)
    edge_i[:, 0] = [0, 1, 2, 0, 1, 0]
    edge_i[:, 1] = -1
    edge_i[:, 2] = [5, 0, 1, 3, 3, 4]
    edge_f[:, 0] = [0.5, 0.3, 0.2, 0.5, 0.5, 1.0]
    edge_f[:, 1] = [2.0, 0.0, 0.9, 0.3, 0.3, 1.0]
    tree_done = np.array([6, 6, 4], dtype=np.int64)
    tree_target = np.array([10, 10, 4], dtype=np.int64)
    return RootArrays(node_i, node_f, edge_i, edge_f, tree_done, tree_target)


@pytest.mark.parametrize(
    ("config", "pick"),
    [
        # Tree 0, 6 visits, k = 2: n_forced = [sqrt(6), sqrt(3.6), sqrt(2.4)] = [2.45, 1.90,
        # 1.55]: children 1 (0 < 1.90) and 2 (1 < 1.55) are forced.  Eq. 8 with sqrt(7) =
        # 2.6458, C_puct 1.25: child 2 = 0.9 + 1.25 * 0.2 * 2.6458 / 2 = 1.2307;
        # child 1 = Q_unvisited + 1.25 * 0.3 * 2.6458 = Q_unvisited + 0.9922.
        (PUCTConfig(c_puct=1.25), 2),  # Q = 0: 0.9922 < 1.2307
        (PUCTConfig(c_puct=1.25, first_play_parent=True), 1),  # Q = 0.5: 1.4922
        (PUCTConfig(c_puct=1.25, unvisited_q=-1.0), 2),
    ],
)
def test_the_plan_picks_the_best_forced_child(config: PUCTConfig, pick: int) -> None:
    arrays = _hand_arrays()
    run = ForcedPlayouts().begin(arrays, config, np.random.default_rng(0))
    picks = np.full((3, 10), PICK_WAIT, dtype=np.int64)
    run.plan(arrays, picks)
    assert picks[0, 6] == pick
    # tree 1: n_forced = sqrt(6) = 2.45 <= 3 for both: none forced, Eq. 8 decides
    assert picks[1, 6] == -1
    # tree 2 has finished: untouched
    assert (picks[2] == PICK_WAIT).all()
    assert (np.delete(picks[:2], 6, axis=1) == PICK_WAIT).all()


def test_the_plan_validates_its_settings() -> None:
    with pytest.raises(BadValueError):
        ForcedPlayouts(k=-1.0)
    with pytest.raises(BadValueError):
        ForcedPlayouts(k=math.inf)
    with pytest.raises(BadValueError):
        ForcedPlayouts(prune=1)  # type: ignore[arg-type]


# ---- real searches --------------------------------------------------------------------------


def test_forced_playouts_on_a_real_search() -> None:
    evaluator = _Starved(move=3, factor=0.01)
    state = C4.initial_state()
    plain = search(C4, state, evaluator, PUCTConfig(simulations=100), rng=0)
    config = PUCTConfig(simulations=100, root_plan=ForcedPlayouts())
    forced = search(C4, state, evaluator, config, rng=0)
    assert forced.search_priors[3] < 0.01
    assert forced.simulations == 100 and int(forced.visits.sum()) == 100
    floor = np.floor(forced_playouts(forced.search_priors.astype(np.float64), 100, 2.0))
    assert (forced.visits >= floor).all()
    assert (plain.visits < floor).any()  # the plain search starves some child
    assert (forced.visits > 0).all() and (plain.visits == 0).any()
    # determinism, and k = 0 is the plain search exactly
    again = search(C4, state, evaluator, config, rng=0)
    assert again.visits.tolist() == forced.visits.tolist()
    assert again.improved_policy is not None and forced.improved_policy is not None
    assert again.improved_policy.tolist() == forced.improved_policy.tolist()
    zero = search(C4, state, evaluator, replace(config, root_plan=ForcedPlayouts(k=0.0)), rng=0)
    assert zero.visits.tolist() == plain.visits.tolist()


def test_the_pruned_policy_of_a_real_search() -> None:
    evaluator = _Starved(move=3, factor=0.01)
    config = PUCTConfig(simulations=100, root_plan=ForcedPlayouts())
    result = search(C4, C4.initial_state(), evaluator, config, rng=0)
    policy = result.improved_policy
    assert policy is not None and policy.dtype == np.float32
    assert float(policy.sum()) == pytest.approx(1.0, abs=1e-6)
    pruned = prune_policy_target(
        result.visits, result.search_priors, result.q, config.c_puct, 2.0,
        1 + result.simulations, config.unvisited_q,
    )  # fmt: skip
    assert np.array_equal(policy, (pruned / pruned.sum()).astype(np.float32))
    # some visited children are pruned to zero, and the pruned ones are zero in the target
    assert ((result.visits > 0) & (policy == 0)).any()
    assert (policy[pruned == 0] == 0).all() and (policy[pruned > 0] > 0).all()
    unpruned = search(
        C4, C4.initial_state(), evaluator,
        replace(config, root_plan=ForcedPlayouts(prune=False)), rng=0,
    )  # fmt: skip
    assert unpruned.improved_policy is None
    assert unpruned.visits.tolist() == result.visits.tolist()


@pytest.mark.parametrize("leaves", [1, 4])
def test_a_batch_with_noise_is_forced_and_deterministic(leaves: int) -> None:
    states = _random_positions(C4, 4, seed=5, max_plies=8)
    config = PUCTConfig(
        simulations=64, leaves_per_batch=leaves, dirichlet_alpha=0.3, root_plan=ForcedPlayouts()
    )
    first = search_batch(C4, states, IntegerEvaluator(C4), config, rng=11)
    second = search_batch(C4, states, IntegerEvaluator(C4), config, rng=11)
    for a, b in zip(first, second, strict=True):
        assert a.visits.tolist() == b.visits.tolist()
        assert a.improved_policy is not None and b.improved_policy is not None
        assert a.improved_policy.tolist() == b.improved_policy.tolist()
        assert int(a.visits.sum()) == 64
        floor = np.floor(forced_playouts(a.search_priors.astype(np.float64), 64, 2.0))
        assert (a.visits >= floor).all()
        assert float(a.improved_policy.sum()) == pytest.approx(1.0, abs=1e-6)
