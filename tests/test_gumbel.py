"""Gumbel AlphaZero's root plan (sparring.search.gumbel) on hand-worked schedules, values and
trees, and on real searches."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from tests.test_puct import IntegerEvaluator, TicTacToeOracle, _random_positions

from sparring.errors import BadValueError
from sparring.games import get_game
from sparring.games.base import ONGOING
from sparring.search.evaluator import UniformEvaluator
from sparring.search.gumbel import (
    GumbelRoot,
    GumbelRun,
    _sigma_into,
    considered_visit_sequence,
    considered_visit_table,
    improved_policy,
    prior_logits,
)
from sparring.search.puct import (
    EDGE_FLOAT_FIELDS,
    EDGE_INT_FIELDS,
    NODE_FLOAT_FIELDS,
    NODE_INT_FIELDS,
    PICK_WAIT,
    PUCTConfig,
    RootArrays,
    search,
    search_batch,
)

C4 = get_game("connect4")
TTT = get_game("tictactoe")


# ---- the schedule -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("m", "n", "expected"),
    [
        # m=4, n=8: ceil(log2 4) = 2 phases.  k=4: max(1, 8 // (2*4)) = 1 visit each -> 0,0,0,0
        # (the four now have 1).  k=max(2, 4//2)=2: 8 // (2*2) = 2 visits each -> 1,1 then 2,2.
        (4, 8, [0, 0, 0, 0, 1, 1, 2, 2]),
        # m=2, n=5: 1 phase.  k=2: 5 // (1*2) = 2 -> 0,0,1,1; k stays 2: 2 more -> 2,2,3,3;
        # cut to 5.
        (2, 5, [0, 0, 1, 1, 2]),
        # m=1: one action takes every simulation.
        (1, 4, [0, 1, 2, 3]),
        # m=3, n=10: 2 phases.  k=3: 10 // 6 = 1 -> 0,0,0; k=2: 10 // 4 = 2 -> 1,1,2,2;
        # k=2 again: 3,3,4,4; cut to 10.
        (3, 10, [0, 0, 0, 1, 1, 2, 2, 3, 3, 4]),
        # m=16, n=8: 4 phases, k=16: max(1, 8 // 64) = 1 -> sixteen 0s, cut to 8.
        (16, 8, [0] * 8),
        # m=5, n=16: 3 phases.  k=5: max(1, 16 // 15) = 1 -> five 0s; k=2: 16 // 6 = 2 ->
        # 1,1,2,2; k=2: 3,3,4,4; k=2: 5,5,6,(6); cut to 16.
        (5, 16, [0, 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6]),
        (4, 0, []),
    ],
)
def test_schedule_worked_by_hand(m: int, n: int, expected: list[int]) -> None:
    sequence = considered_visit_sequence(m, n)
    assert sequence.dtype == np.int64
    assert sequence.tolist() == expected


def test_table_rows_are_the_sequences_and_bad_arguments_raise() -> None:
    table = considered_visit_table(4, 8)
    assert table.shape == (5, 8)
    assert table[1].tolist() == list(range(8))  # m=0 and m=1: one action takes all
    assert table[0].tolist() == list(range(8))
    assert table[2].tolist() == [0, 0, 1, 1, 2, 2, 3, 3]  # 1 phase, 8 // 2 = 4 each
    assert table[4].tolist() == [0, 0, 0, 0, 1, 1, 2, 2]
    with pytest.raises(BadValueError):
        considered_visit_sequence(4, -1)
    for bad in ({"considered": 0}, {"considered": 2.0}, {"c_visit": -1.0}, {"c_scale": math.inf}):
        with pytest.raises(BadValueError):
            GumbelRoot(**bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        GumbelRoot(temperature=1.0)  # type: ignore[call-arg]


# ---- completed Q, sigma, improved policy --------------------------------------------------


def transformed_q(
    visits: list[int],
    q: list[float],
    priors: list[float],
    network_value: float,
    c_visit: float = 50.0,
    c_scale: float = 1.0,
) -> np.ndarray:
    """``sigma(completedQ)`` of one root (the module doc's "Completed Q"), as the search's
    kernel computes it."""
    out = np.zeros(len(visits), dtype=np.float64)
    _sigma_into(
        np.asarray(visits, dtype=np.int64),
        np.asarray(q, dtype=np.float64),
        np.asarray(priors, dtype=np.float64),
        float(network_value),
        float(c_visit),
        float(c_scale),
        out,
    )
    return out


# Four root children: priors P = (0.25, 0.25, 0.3, 0.2), visits N = (2, 1, 0, 0),
# W = (1.0, -0.1) for the visited ones, so q = (0.5, -0.1); network value v = -0.6.
# Mixed value: sum N = 3, visited prior mass 0.25 + 0.25 = 0.5,
#   sum_visited P q / 0.5 = (0.125 - 0.025) / 0.5 = 0.2, v_mix = (-0.6 + 3 * 0.2) / (1 + 3) = 0.
# Completed Q = (0.5, -0.1, 0, 0); min-max to [0, 1]: (1, 0, 1/6, 1/6).
# sigma with c_visit = 50, c_scale = 0.1: (50 + max N = 2) * 0.1 = 5.2 -> (5.2, 0, 13/15, 13/15).
# Improved policy: softmax(log P + sigma) = P * exp(sigma) / sum
#   = (0.25 e^5.2, 0.25, 0.3 e^(13/15), 0.2 e^(13/15)) / 46.7576 = (0.96921, 0.00535, 0.01526,
#   0.01018) to 5 places.
PRIORS = [0.25, 0.25, 0.3, 0.2]
VISITS = [2, 1, 0, 0]
W = [1.0, -0.1, 0.0, 0.0]
Q = [0.5, -0.1, 123.0, -55.0]  # the unvisited entries are ignored
SIGMA = [5.2, 0.0, 13 / 15, 13 / 15]


def test_completed_q_sigma_and_improved_policy_by_hand() -> None:
    sigma = transformed_q(VISITS, Q, PRIORS, -0.6, c_visit=50.0, c_scale=0.1)
    assert sigma == pytest.approx(SIGMA, rel=1e-12, abs=1e-12)
    weights = [0.25 * math.exp(5.2), 0.25, 0.3 * math.exp(13 / 15), 0.2 * math.exp(13 / 15)]
    expected = [w / sum(weights) for w in weights]
    policy = improved_policy(prior_logits(PRIORS), sigma)
    assert policy.dtype == np.float32
    assert policy.tolist() == pytest.approx(expected, rel=1e-6)
    assert np.round(policy, 5).tolist() == pytest.approx([0.96921, 0.00535, 0.01526, 0.01018])
    assert float(policy.sum()) == pytest.approx(1.0, abs=1e-6)
    # c_scale 1 (the default): ten times the sigma
    assert transformed_q(VISITS, Q, PRIORS, -0.6) == pytest.approx(
        [52.0, 0.0, 52 / 6, 52 / 6], rel=1e-12
    )


def test_nothing_visited_or_all_equal_gives_sigma_zero_and_the_prior_policy() -> None:
    # Nothing visited: every completed value is v = 0.3, a constant vector -> all 0 (no
    # division by zero), and the improved policy is the prior.
    sigma = transformed_q([0, 0, 0, 0], [0.0] * 4, PRIORS, 0.3)
    assert sigma.tolist() == [0.0, 0.0, 0.0, 0.0]
    assert improved_policy(prior_logits(PRIORS), sigma).tolist() == pytest.approx(PRIORS)
    # Every child visited with the same q: constant again.
    assert transformed_q([1, 3, 2, 2], [0.25] * 4, PRIORS, -1.0).tolist() == [0.0] * 4
    # A single visited child: v_mix = (v + N q) / (1 + N) = (-1 + 3 * 0.5) / 4 = 0.125 for the
    # others; completed (0.5, 0.125, 0.125) -> (1, 0, 0) * (50 + 3).
    assert transformed_q([3, 0, 0], [0.5, 0, 0], [0.2, 0.5, 0.3], -1.0).tolist() == [53.0, 0, 0]


def _hand_arrays(visits: list[int], done: int, target: int) -> RootArrays:
    """One tree whose root (node 0) has the four children of the hand example."""
    node_i = np.zeros((1, NODE_INT_FIELDS), dtype=np.int64)
    node_i[0, :4] = [0, 4, 0, ONGOING]  # edge start, edge count, to move, status
    node_f = np.full((1, NODE_FLOAT_FIELDS), -0.6)
    edge_i = np.zeros((4, EDGE_INT_FIELDS), dtype=np.int64)
    edge_i[:, 0] = [3, 5, 7, 9]  # moves
    edge_i[:, 2] = visits
    edge_f = np.zeros((4, EDGE_FLOAT_FIELDS), dtype=np.float64)
    edge_f[:, 0] = PRIORS
    edge_f[:, 1] = W
    return RootArrays(
        node_i, node_f, edge_i, edge_f, np.array([done], np.int64), np.array([target], np.int64)
    )


def _picks_after(run: GumbelRun, arrays: RootArrays) -> int:
    picks = np.full((1, 8), PICK_WAIT, dtype=np.int64)
    run.plan(arrays, picks)
    done = int(arrays.tree_done[0])
    assert (picks[0, :done] == PICK_WAIT).all() and (picks[0, done + 1 :] == PICK_WAIT).all()
    return int(picks[0, done])


def test_the_compiled_plan_picks_by_hand() -> None:
    # m = 4, n = 8: schedule 0,0,0,0,1,1,2,2.  With visits (2, 1, 0, 0) the sigma above holds.
    plan = GumbelRoot(considered=4, c_scale=0.1, noise=False)
    rng = np.random.default_rng(0)
    arrays = _hand_arrays(VISITS, done=3, target=8)
    run = plan.begin(arrays, PUCTConfig(simulations=8), rng)
    assert run.gumbel.tolist() == [[0.0] * 4] and run.considered.tolist() == [4]
    # Simulation 3 considers children with 0 visits (2 and 3):
    # log 0.3 + 13/15 = -0.337 beats log 0.2 + 13/15 = -0.743 -> child 2.
    assert _picks_after(run, arrays) == 2
    # A Gumbel draw of 0.5 on child 3 turns it round: -0.743 + 0.5 = -0.243 > -0.337.
    gumbel = np.array([[0.0, 0.0, 0.0, 0.5]])
    turned = GumbelRun(plan, run.priors, run.logits, gumbel, run.considered, run.table)
    assert _picks_after(turned, arrays) == 3
    # Simulation 4 considers children with 1 visit: only child 1 (the same tree, as if the
    # search had come back there).
    assert _picks_after(run, _hand_arrays(VISITS, done=4, target=8)) == 1
    # Simulation 6 considers 2 visits: only child 0.
    assert _picks_after(run, _hand_arrays(VISITS, done=6, target=8)) == 0
    # A finished tree gets no pick.
    finished = _hand_arrays(VISITS, done=3, target=3)
    picks = np.full((1, 8), PICK_WAIT, dtype=np.int64)
    run.plan(finished, picks)
    assert (picks == PICK_WAIT).all()


# ---- real searches ------------------------------------------------------------------------


def _gumbel_config(simulations: int, considered: int, noise: bool = True) -> PUCTConfig:
    return PUCTConfig(
        simulations=simulations, root_plan=GumbelRoot(considered=considered, noise=noise)
    )


@pytest.mark.parametrize(
    ("simulations", "expected"),
    [
        # m = 4, n = 8: schedule 0,0,0,0,1,1,2,2 -> the top 4 of g + logits once each, then
        # two of them twice more: visits 3, 3, 1, 1 and three children unvisited.
        (8, [0, 0, 0, 1, 1, 3, 3]),
        # m = 4, n = 16: k=4: 16 // 8 = 2 each (levels 0, 1); k=2: 16 // 4 = 4 each (2..5):
        # two children at 2 and two at 6.
        (16, [0, 0, 0, 2, 2, 6, 6]),
    ],
)
def test_connect4_visits_follow_sequential_halving(simulations: int, expected: list[int]) -> None:
    seed = 5
    result = search(
        C4, C4.initial_state(), IntegerEvaluator(C4), _gumbel_config(simulations, 4), rng=seed
    )
    assert sorted(result.visits.tolist()) == expected
    # The children visited are the top 4 of g + logits, g drawn first thing from the generator.
    g = np.random.default_rng(seed).gumbel(size=7)
    top4 = np.argsort(-(g + np.log(result.search_priors.astype(np.float64))))[:4]
    assert set(np.flatnonzero(result.visits).tolist()) == set(top4.tolist())
    # The selected move is one of the two most visited; the improved policy sums to 1.
    assert result.selected_move is not None and result.improved_policy is not None
    chosen = result.moves.tolist().index(result.selected_move)
    assert result.visits[chosen] == max(expected)
    assert result.improved_policy.dtype == np.float32
    assert float(result.improved_policy.sum()) == pytest.approx(1.0, abs=1e-6)
    assert result.training_policy(7).tolist() == result.improved_policy.tolist()


def test_the_gumbel_draws_come_from_the_generator() -> None:
    state = C4.initial_state()
    config = _gumbel_config(8, 4)
    # The search draws exactly one Gumbel variable per root child, nothing else.
    rng = np.random.default_rng(11)
    search(C4, state, IntegerEvaluator(C4), config, rng=rng)
    reference = np.random.default_rng(11)
    reference.gumbel(size=7)
    assert rng.bit_generator.state == reference.bit_generator.state
    # Same seed: the same result.
    a = search(C4, state, IntegerEvaluator(C4), config, rng=3)
    b = search(C4, state, IntegerEvaluator(C4), config, rng=3)
    assert a.visits.tolist() == b.visits.tolist() and a.selected_move == b.selected_move
    assert a.improved_policy is not None and b.improved_policy is not None
    assert a.improved_policy.tolist() == b.improved_policy.tolist()
    # Different seeds: the considered sets differ (seeds 0..5 give more than one set).
    visited = {
        tuple(np.flatnonzero(search(C4, state, IntegerEvaluator(C4), config, rng=s).visits))
        for s in range(6)
    }
    assert len(visited) > 1
    # noise=False draws nothing and is deterministic: the top 4 priors are the ones visited.
    rng = np.random.default_rng(11)
    before = rng.bit_generator.state
    quiet = search(C4, state, IntegerEvaluator(C4), _gumbel_config(8, 4, noise=False), rng=rng)
    assert rng.bit_generator.state == before
    top4 = np.argsort(-quiet.search_priors.astype(np.float64), kind="stable")[:4]
    assert set(np.flatnonzero(quiet.visits).tolist()) == set(top4.tolist())


def test_tictactoe_win_in_one_is_selected() -> None:
    # x to move; c1 (square 2) wins; 5 legal moves, so m = 5 and the schedule for n = 16 is
    # 0,0,0,0,0, 1,1,2,2,3,3,4,4,5,5,6: every move once, then the two best alternate; the
    # winning move (q = +1, the largest sigma) leads each pair and takes the last one: 7 and 6.
    state = TTT.parse_position("xx.oo....")
    result = search(TTT, state, TicTacToeOracle(), _gumbel_config(16, 16, noise=False), rng=0)
    moves = result.moves.tolist()
    assert moves == [2, 5, 6, 7, 8]
    assert sorted(result.visits.tolist()) == [1, 1, 1, 6, 7]
    assert result.visits[moves.index(2)] == 7
    assert result.selected_move == 2
    assert result.improved_policy is not None
    assert result.improved_policy[moves.index(2)] > 0.99
    assert int(np.argmax(result.improved_policy)) == moves.index(2)


def test_one_considered_or_one_legal_move_takes_every_simulation() -> None:
    # m = 1: every simulation visits the argmax of g + logits (noise off: the largest prior).
    result = search(C4, C4.initial_state(), IntegerEvaluator(C4), _gumbel_config(9, 1, False))
    top = int(np.argmax(result.search_priors))
    assert result.visits.tolist() == [9 if i == top else 0 for i in range(7)]
    assert result.selected_move == int(result.moves[top])
    # A single legal move (square 9): all the visits, all the policy.
    only = search(TTT, TTT.parse_position("xoxxooox."), TicTacToeOracle(), _gumbel_config(5, 16))
    assert only.visits.tolist() == [5] and only.selected_move == 8
    assert only.improved_policy is not None and only.improved_policy.tolist() == [1.0]


def test_a_terminal_root_is_returned_unchanged() -> None:
    finished = TTT.parse_position("xxxoo....")
    result = search(TTT, finished, TicTacToeOracle(), _gumbel_config(8, 4))
    assert result.moves.tolist() == [] and result.simulations == 0
    assert result.improved_policy is None and result.selected_move is None


def test_a_batch_equals_single_searches_with_one_generator() -> None:
    # The draws are made tree by tree in the order of the positions, so searching them one by
    # one with one shared generator draws the same numbers for the same trees.
    # A finished position (x has won) in the middle draws nothing.
    states = _random_positions(C4, 6, seed=7, max_plies=10)
    states.insert(3, C4.parse_position("1212121"))
    config = _gumbel_config(12, 4)
    batch = search_batch(C4, states, IntegerEvaluator(C4), config, rng=np.random.default_rng(9))
    shared = np.random.default_rng(9)
    for state, together in zip(states, batch, strict=True):
        alone = search(C4, state, IntegerEvaluator(C4), config, rng=shared)
        assert alone.visits.tolist() == together.visits.tolist()
        assert np.array_equal(alone.q, together.q)
        assert alone.selected_move == together.selected_move
        if len(alone.moves) == 0:
            assert alone.improved_policy is None and together.improved_policy is None
            continue
        assert alone.improved_policy is not None and together.improved_policy is not None
        assert alone.improved_policy.tolist() == together.improved_policy.tolist()
    assert batch[3].moves.tolist() == [] and batch[3].improved_policy is None
    # not one result repeated: the trees really differ
    assert len({tuple(r.visits) for r in batch if len(r.moves)}) > 1


def test_leaves_per_batch_does_not_change_a_planned_search() -> None:
    states = _random_positions(C4, 4, seed=2, max_plies=8)
    one = search_batch(C4, states, IntegerEvaluator(C4), _gumbel_config(10, 4), rng=1)
    config = PUCTConfig(simulations=10, leaves_per_batch=4, root_plan=GumbelRoot(considered=4))
    four = search_batch(C4, states, IntegerEvaluator(C4), config, rng=1)
    for a, b in zip(one, four, strict=True):
        assert a.visits.tolist() == b.visits.tolist() and a.selected_move == b.selected_move


def test_chess_python_rules_run_the_same_plan() -> None:
    chess = get_game("chess")
    began = time.perf_counter()
    result = search(
        chess, chess.initial_state(), UniformEvaluator(), _gumbel_config(4, 16, noise=False)
    )
    if time.perf_counter() - began > 5.0:  # pragma: no cover - a slow machine
        pytest.skip("the Python-rules search took more than 5 s")
    # 20 legal moves, m = 16, n = 4: schedule 0,0,0,0; uniform priors and no noise give equal
    # scores, and sigma (all values 0) is 0, so the first four moves in order are visited.
    assert len(result.moves) == 20
    assert result.visits.tolist() == [1, 1, 1, 1] + [0] * 16
    assert result.selected_move == int(result.moves[0])
    assert result.improved_policy is not None
    assert result.improved_policy.tolist() == pytest.approx([0.05] * 20)
