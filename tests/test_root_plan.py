"""The root-plan seam of the batched PUCT search (``PUCTConfig.root_plan``)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pytest
from tests.test_puct import IntegerEvaluator, _random_positions

from sparring.games import get_game
from sparring.search.puct import (
    PICK_WAIT,
    PUCTConfig,
    RootArrays,
    RootStats,
    search,
    search_batch,
)

C4 = get_game("connect4")
TTT = get_game("tictactoe")


@dataclass
class _Recorder:
    """A run that writes a fixed pick (or -1) and records what it saw."""

    pick: int
    seen: list[tuple[int, int]] = field(default_factory=list)
    rounds: int = 0

    def plan(self, arrays: RootArrays, picks: np.ndarray) -> None:
        self.rounds += 1
        for t in np.flatnonzero(arrays.tree_done < arrays.tree_target):
            d = int(arrays.tree_done[t])
            assert picks[t, d] == PICK_WAIT
            edges = arrays.root_edges(int(t))
            self.seen.append((int(t), int(arrays.edge_i[edges, 2].sum())))  # root visits so far
            picks[t, d] = self.pick

    def finish(self, t: int, stats: RootStats) -> RootStats:
        return replace(stats, selected_move=int(stats.moves[0]))


@dataclass(frozen=True)
class _Plan:
    pick: int
    runs: list[_Recorder] = field(default_factory=list, compare=False, hash=False)

    def begin(self, arrays: RootArrays, config: PUCTConfig, generator: np.random.Generator):  # type: ignore[no-untyped-def]
        run = _Recorder(self.pick)
        self.runs.append(run)
        return run


@pytest.mark.parametrize("leaves", [1, 4])
def test_a_plan_of_eq8_picks_gives_the_sequential_search(leaves: int) -> None:
    # -1 everywhere: Eq. 8 at the root, one simulation per tree and round, so the result is
    # the sequential (leaves_per_batch = 1) search's exactly, whatever leaves_per_batch.
    states = _random_positions(C4, 5, seed=3, max_plies=8)
    plain = search_batch(C4, states, IntegerEvaluator(C4), PUCTConfig(simulations=30), rng=0)
    plan = _Plan(-1)
    config = PUCTConfig(simulations=30, leaves_per_batch=leaves, root_plan=plan)
    planned = search_batch(C4, states, IntegerEvaluator(C4), config, rng=0)
    for a, b in zip(plain, planned, strict=True):
        assert a.visits.tolist() == b.visits.tolist()
        assert np.array_equal(a.q, b.q)
        assert b.selected_move == int(b.moves[0]) and a.selected_move is None
    run = plan.runs[0]
    # each tree asked once per simulation, seeing the visits of all the earlier ones
    for t in range(5):
        assert [v for tt, v in run.seen if tt == t] == list(range(30))
    assert run.rounds >= 30


def test_a_plan_that_picks_one_child_sends_every_simulation_there() -> None:
    result = search(
        C4,
        C4.initial_state(),
        IntegerEvaluator(C4),
        PUCTConfig(simulations=25, root_plan=_Plan(3)),
        rng=0,
    )
    assert result.visits.tolist() == [0, 0, 0, 25, 0, 0, 0]
    assert result.simulations == 25


def test_terminal_leaves_still_wait_for_the_plan() -> None:
    # Tic-tac-toe positions one move from the end: many simulations end at terminal nodes
    # without a network call, and each is still planned on its own.
    state = TTT.initial_state()
    for m in (0, 4, 1, 2, 6, 3, 5):
        state = TTT.play(state, m)
    plan = _Plan(-1)
    result = search(TTT, state, IntegerEvaluator(TTT), PUCTConfig(simulations=12, root_plan=plan))
    assert result.simulations == 12
    assert [v for _, v in plan.runs[0].seen] == list(range(12))


def test_an_undecided_pick_is_an_error_and_root_random_excludes_a_plan() -> None:
    class _Lazy(_Recorder):
        def plan(self, arrays: RootArrays, picks: np.ndarray) -> None:
            return None

    @dataclass(frozen=True)
    class _LazyPlan:
        def begin(self, arrays, config, generator):  # type: ignore[no-untyped-def]
            return _Lazy(-1)

    with pytest.raises(RuntimeError, match="undecided"):
        search(
            C4,
            C4.initial_state(),
            IntegerEvaluator(C4),
            PUCTConfig(simulations=5, root_plan=_LazyPlan()),
        )
    with pytest.raises(ValueError, match="root_plan"):
        PUCTConfig(root_random=0.5, root_plan=_Plan(-1))


def test_training_policy_prefers_the_improved_policy() -> None:
    stats = RootStats.from_visits([1, 4], [3, 1])
    assert stats.training_policy(5).tolist() == [0.0, 0.75, 0.0, 0.0, 0.25]
    better = replace(stats, improved_policy=np.array([0.5, 0.5], dtype=np.float32))
    assert better.training_policy(5).tolist() == [0.0, 0.5, 0.0, 0.0, 0.5]
