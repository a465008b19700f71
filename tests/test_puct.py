"""The batched PUCT search (AlphaDDA app. 1.2, Eq. 8) with network-free evaluators."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

from sparring.errors import GameOverError, UnknownPlayerError
from sparring.games import get_game
from sparring.games.base import DRAW, FIRST_WINS, ONGOING, Game, State
from sparring.players.alphazero import AlphaZeroPlayer
from sparring.players.registry import make_player
from sparring.search.bench import benchmark_network, benchmark_search, format_rows
from sparring.search.evaluator import (
    CachedEvaluator,
    Evaluator,
    RolloutEvaluator,
    UniformEvaluator,
    masked_softmax,
    uniform_priors,
)
from sparring.search.puct import PUCTConfig, SearchResult, search, search_batch

TTT = get_game("tictactoe")
C4 = get_game("connect4")


# ---- evaluators used by the tests -----------------------------------------------------------


@functools.cache
def _ttt_value(key: bytes) -> int:
    """Exact minimax value of a tic-tac-toe position for the side to move (+1, 0, -1)."""
    state = np.frombuffer(key, dtype=np.uint64).copy()
    status = TTT.kernels.status(state)
    if status != ONGOING:
        if status == DRAW:
            return 0
        winner = 0 if status == FIRST_WINS else 1
        return 1 if winner == TTT.to_move(state) else -1
    return max(-_ttt_value(TTT.play(state, int(m)).tobytes()) for m in TTT.legal_moves(state))


class TicTacToeOracle:
    """Uniform priors and the exact game-theoretic value (perfect tic-tac-toe evaluator)."""

    def evaluate(
        self, planes: np.ndarray, legal: np.ndarray, states: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        assert states is not None
        values = np.array([_ttt_value(s.tobytes()) for s in states], dtype=np.float32)
        return uniform_priors(legal), values


class IntegerEvaluator:
    """Deterministic priors and values computed exactly (integer arithmetic) from the planes,
    so that a position gets bit-identical outputs whatever batch it is evaluated in."""

    def __init__(self, game: Game, seed: int = 1) -> None:
        rng = np.random.default_rng(seed)
        size = game.num_planes * game.board_shape[0] * game.board_shape[1]
        self.policy = rng.integers(-3, 4, size=(size, game.num_actions))
        self.value = rng.integers(-3, 4, size=size)

    def evaluate(
        self, planes: np.ndarray, legal: np.ndarray, states: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        x = planes.reshape(len(planes), -1).astype(np.int64)
        logits = (x @ self.policy).astype(np.float32) / 4.0
        values = np.tanh((x @ self.value).astype(np.float64) / 20.0).astype(np.float32)
        return masked_softmax(logits, legal), values


def _random_positions(game: Game, count: int, seed: int, max_plies: int) -> list[State]:
    rng = np.random.default_rng(seed)
    out: list[State] = []
    while len(out) < count:
        state = game.initial_state()
        for _ in range(int(rng.integers(0, max_plies + 1))):
            if game.is_terminal(state):
                break
            moves = game.legal_moves(state)
            state = game.play(state, int(moves[rng.integers(len(moves))]))
        if not game.is_terminal(state):
            out.append(state)
    return out


def _best(result: SearchResult) -> int:
    best = result.best_moves()
    assert len(best) == 1, result
    return int(best[0])


# ---- tactics ------------------------------------------------------------------------------


@pytest.mark.parametrize("leaves", [1, 8])
def test_connect4_takes_immediate_win(leaves: int) -> None:
    # x has three in column 1 and o three in column 4; x to move wins in column 1.
    state = C4.parse_position("141414")
    config = PUCTConfig(simulations=300, leaves_per_batch=leaves)
    result = search(C4, state, RolloutEvaluator(C4, seed=3), config)
    assert _best(result) == 0
    assert result.q[list(result.moves).index(0)] == 1.0


@pytest.mark.parametrize("leaves", [1, 4])
def test_connect4_blocks_immediate_loss(leaves: int) -> None:
    # x has three in column 1; o to move must block there.
    state = C4.parse_position("12131")
    config = PUCTConfig(simulations=600, leaves_per_batch=leaves)
    result = search(C4, state, RolloutEvaluator(C4, seed=5), config)
    assert _best(result) == 0


@pytest.mark.parametrize("evaluator", [TicTacToeOracle(), RolloutEvaluator(TTT, seed=2)])
def test_tictactoe_win_and_block(evaluator: Evaluator) -> None:
    config = PUCTConfig(simulations=300)
    win = TTT.parse_position("xx.oo....")  # x to move: c1 wins
    assert _best(search(TTT, win, evaluator, config)) == 2
    block = TTT.parse_position("xx.o.....")  # o to move: must take c1
    assert _best(search(TTT, block, evaluator, config)) == 2


def test_oracle_search_values_are_exact() -> None:
    assert search(TTT, TTT.initial_state(), TicTacToeOracle()).network_value == 0.0
    state = TTT.parse_position("xx.oo....")  # x to move wins at c1
    result = search(TTT, state, TicTacToeOracle(), PUCTConfig(simulations=100))
    assert result.network_value == 1.0
    assert result.q[result.moves.tolist().index(2)] == 1.0  # terminal: exact value
    assert result.visits[result.moves.tolist().index(2)] > 50


# ---- bookkeeping --------------------------------------------------------------------------


@pytest.mark.parametrize("leaves", [1, 3, 16])
@pytest.mark.parametrize("name", ["connect4", "tictactoe", "othello6"])
def test_visits_sum_to_simulations(name: str, leaves: int) -> None:
    game = get_game(name)
    positions = _random_positions(game, 5, seed=11, max_plies=6)
    config = PUCTConfig(simulations=97, leaves_per_batch=leaves)
    for result, state in zip(
        search_batch(game, positions, RolloutEvaluator(game, 1), config), positions, strict=True
    ):
        assert result.simulations == 97
        assert int(result.visits.sum()) == 97
        assert sorted(result.moves.tolist()) == game.legal_moves(state).tolist()
        assert np.isclose(result.priors.sum(), 1.0, atol=1e-5)
        assert np.all((result.q >= -1.0) & (result.q <= 1.0))
        assert result.to_move == game.to_move(state)
        pi = result.policy(game.num_actions)
        assert np.isclose(pi.sum(), 1.0) and np.all(pi[~game.legal_mask(state)] == 0)


def test_terminal_root() -> None:
    won = TTT.parse_position("xxxoo....")  # x has won; o to move
    ongoing = TTT.parse_position("xx.oo....")
    results = search_batch(TTT, [won, ongoing], UniformEvaluator(), PUCTConfig(simulations=20))
    r = results[0]
    assert r.simulations == 0 and len(r.moves) == 0 and len(r.best_moves()) == 0
    assert r.network_value == -1.0 and r.value == -1.0
    assert r.policy(9).sum() == 0.0
    assert results[1].simulations == 20
    with pytest.raises(GameOverError):
        AlphaZeroPlayer(UniformEvaluator()).select_move(TTT, won)


def test_zero_simulations_and_single_move() -> None:
    state = C4.parse_position("141414")
    r = search(C4, state, UniformEvaluator(), PUCTConfig(simulations=0))
    assert r.simulations == 0 and r.visits.sum() == 0
    assert np.isclose(r.policy(7)[r.moves].sum(), 1.0)
    last = TTT.parse_position("xoxxoo.xo")  # one empty square left
    r = search(TTT, last, UniformEvaluator(), PUCTConfig(simulations=10))
    assert r.moves.tolist() == [6] and r.visits.tolist() == [10]


def test_othello_pass_is_an_ordinary_move() -> None:
    game = get_game("othello6")
    rng = np.random.default_rng(0)
    found = None
    for _ in range(200):
        state = game.initial_state()
        while not game.is_terminal(state):
            moves = game.legal_moves(state)
            if moves.tolist() == [game.num_actions - 1]:
                found = state
                break
            state = game.play(state, int(moves[rng.integers(len(moves))]))
        if found is not None:
            break
    assert found is not None, "no position with a forced pass found"
    r = search(game, found, RolloutEvaluator(game, 0), PUCTConfig(simulations=50))
    assert r.moves.tolist() == [game.num_actions - 1] and r.visits.tolist() == [50]


# ---- determinism --------------------------------------------------------------------------


def _same(a: SearchResult, b: SearchResult) -> bool:
    return (
        np.array_equal(a.moves, b.moves)
        and np.array_equal(a.visits, b.visits)
        and np.array_equal(a.q, b.q)
        and np.array_equal(a.search_priors, b.search_priors)
        and a.value == b.value
    )


def test_reproducible_with_seed() -> None:
    state = C4.parse_position("4433")
    config = PUCTConfig(simulations=200, leaves_per_batch=4, dirichlet_alpha=0.5)
    a = search(C4, state, RolloutEvaluator(C4, seed=9), config, rng=123)
    b = search(C4, state, RolloutEvaluator(C4, seed=9), config, rng=np.random.default_rng(123))
    assert _same(a, b)
    assert not np.array_equal(a.priors, a.search_priors)  # the noise was applied
    assert np.isclose(a.search_priors.sum(), 1.0, atol=1e-5)
    c = search(C4, state, RolloutEvaluator(C4, seed=9), config, rng=124)
    assert not np.array_equal(a.search_priors, c.search_priors)


@pytest.mark.parametrize("name", ["connect4", "tictactoe"])
def test_batch_equals_single_searches(name: str) -> None:
    game = get_game(name)
    positions = _random_positions(game, 8, seed=4, max_plies=5)
    assert len({p.tobytes() for p in positions}) >= 6
    evaluator = IntegerEvaluator(game)
    config = PUCTConfig(simulations=150, leaves_per_batch=1)
    batch = search_batch(game, positions, evaluator, config)
    for state, result in zip(positions, batch, strict=True):
        assert _same(result, search(game, state, evaluator, config))


def test_virtual_loss_spreads_a_batch() -> None:
    # With 8 leaves per batch from one tree, the first batch from the root already visits
    # several different children (virtual loss steers the descents apart).
    state = C4.initial_state()
    r = search(C4, state, UniformEvaluator(), PUCTConfig(simulations=8, leaves_per_batch=8))
    assert np.count_nonzero(r.visits) >= 7


def test_rejects_bad_inputs() -> None:
    with pytest.raises(ValueError):
        PUCTConfig(leaves_per_batch=0)
    with pytest.raises(ValueError):
        PUCTConfig(dirichlet_alpha=0.0)
    with pytest.raises(TypeError):
        search(C4, C4.initial_state().astype(np.int64), UniformEvaluator())
    assert search_batch(C4, [], UniformEvaluator()) == []

    class Broken:
        def evaluate(
            self, planes: np.ndarray, legal: np.ndarray, states: np.ndarray | None = None
        ) -> tuple[np.ndarray, np.ndarray]:
            return np.ones((len(legal), 3), dtype=np.float32), np.zeros(len(legal))

    with pytest.raises(ValueError, match="evaluator returned"):
        search(C4, C4.initial_state(), Broken())


# ---- evaluators and player ----------------------------------------------------------------


def test_masked_softmax_and_stub_evaluators() -> None:
    logits = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 50.0]], dtype=np.float32)
    legal = np.array([[True, False, True], [False, False, False]])
    p = masked_softmax(logits, legal)
    assert p.dtype == np.float32 and p[0, 1] == 0.0 and np.isclose(p[0].sum(), 1.0)
    assert np.isclose(p[0, 2] / p[0, 0], np.e**2, rtol=1e-5)
    assert np.all(p[1] == 0.0)
    assert isinstance(UniformEvaluator(), Evaluator)
    states = np.stack([TTT.parse_position("xxxoo...."), TTT.parse_position("xoxxoo.xo")])
    # Finished and forced positions: a playout returns the exact result for the side to move.
    legal = np.stack([TTT.legal_mask(s) for s in states])
    _, values = RolloutEvaluator(TTT, seed=0, playouts=4).evaluate(
        np.zeros((2, 3, 3, 3), np.float32), legal, states
    )
    assert values.tolist() == [-1.0, 1.0]
    with pytest.raises(ValueError):
        RolloutEvaluator(TTT).evaluate(np.zeros((1, 3, 3, 3), np.float32), legal[:1])


def test_alphazero_player_plays_most_visited_move() -> None:
    player = AlphaZeroPlayer(RolloutEvaluator(C4, seed=1), PUCTConfig(simulations=200), seed=0)
    assert player.select_move(C4, C4.parse_position("141414")) == 0
    assert player.last_result is not None and player.last_result.simulations == 200
    # Ties among equally visited moves are broken with the player's seeded generator.
    moves = [
        AlphaZeroPlayer(UniformEvaluator(), PUCTConfig(simulations=0), seed=s).select_move(
            C4, C4.initial_state()
        )
        for s in range(20)
    ]
    assert len(set(moves)) > 1
    again = [
        AlphaZeroPlayer(UniformEvaluator(), PUCTConfig(simulations=0), seed=s).select_move(
            C4, C4.initial_state()
        )
        for s in range(20)
    ]
    assert moves == again


def test_az_spec_needs_a_model() -> None:
    with pytest.raises(UnknownPlayerError, match="no shipped tictactoe network"):
        make_player("az:sims=10", get_game("tictactoe"))
    with pytest.raises(UnknownPlayerError, match="neither a file nor a shipped model"):
        make_player("az:model=/nonexistent/net.pt", C4)
    with pytest.raises(UnknownPlayerError, match="unknown option"):
        make_player("az:model=x.pt,depth=3", C4)


def test_cached_evaluator_gives_the_same_search() -> None:
    state = C4.parse_position("4433")
    base = IntegerEvaluator(C4)
    cached = CachedEvaluator(base, capacity=10_000)
    config = PUCTConfig(simulations=300, leaves_per_batch=4)
    plain = search(C4, state, base, config)
    assert _same(plain, search(C4, state, cached, config))
    misses = cached.misses
    assert _same(plain, search(C4, state, cached, config))
    assert cached.misses == misses and cached.hits >= misses  # all answered from the cache
    # Duplicates within one batch are evaluated once; a tiny cache still answers correctly.
    small = CachedEvaluator(base, capacity=2)
    batch = search_batch(C4, [state] * 3, small, config)
    assert all(_same(plain, r) for r in batch)
    assert len(small) <= 2


def test_benchmark_functions_run() -> None:
    row = benchmark_search(C4, UniformEvaluator(), games=3, simulations=20, backend="uniform")
    assert row.kind == "search" and row.games == 3 and row.rate > 0
    assert row.evaluations_per_s > 0  # root evaluations included
    net = benchmark_network(C4, UniformEvaluator(), batch=4, seconds=0.01, backend="uniform")
    assert net.kind == "network" and net.rate == net.evaluations_per_s > 0
    assert "uniform" in format_rows([row, net])


# ---- root random picks (the AlphaDDA author's rnd_rate) ---------------------------------------


@pytest.mark.parametrize("name", ["connect4", "tictactoe"])
def test_root_random_one_takes_exactly_the_drawn_picks(name: str) -> None:
    # With root_random = 1 every simulation leaves the root by the pick drawn for it: after
    # the draw of which simulations pick (generator.random), the picked child indices
    # (generator.integers), so the root visits are their counts, whatever the scores say.
    game = get_game(name)
    state = game.initial_state()
    count = len(game.legal_moves(state))
    config = PUCTConfig(simulations=40, root_random=1.0)
    result = search(game, state, IntegerEvaluator(game), config, rng=7)
    draws = np.random.default_rng(7)
    assert np.all(draws.random(40) < 1.0)
    expected = np.bincount(draws.integers(0, count, 40), minlength=count)
    assert result.visits.tolist() == expected.tolist()
    assert result.simulations == 40


def test_root_random_share_changes_a_deterministic_search_reproducibly() -> None:
    state = C4.initial_state()
    plain = search(C4, state, IntegerEvaluator(C4), PUCTConfig(simulations=100), rng=1)
    assert _same(plain, search(C4, state, IntegerEvaluator(C4), PUCTConfig(simulations=100)))
    config = PUCTConfig(simulations=100, root_random=0.2)
    a = search(C4, state, IntegerEvaluator(C4), config, rng=1)
    assert _same(a, search(C4, state, IntegerEvaluator(C4), config, rng=1))
    b = search(C4, state, IntegerEvaluator(C4), config, rng=2)
    assert not np.array_equal(a.visits, plain.visits)
    assert not np.array_equal(a.visits, b.visits)
    # about a fifth of the simulations were random picks: every root child got some
    assert int(a.visits.sum()) == 100 and int(np.count_nonzero(a.visits)) == 7
    with pytest.raises(ValueError, match="root_random"):
        PUCTConfig(root_random=1.5)


def test_root_random_as_a_player_option() -> None:
    az = make_player("az:rootrand=0.2,sims=30", C4, seed=3)
    assert isinstance(az, AlphaZeroPlayer) and az.config.root_random == 0.2
    assert make_player("az:sims=30", C4, seed=3).config.root_random == 0.0  # type: ignore[attr-defined]
    with pytest.raises(UnknownPlayerError, match="rootrand must be in"):
        make_player("az:rootrand=2", C4)


class _WonRoot:
    """Uniform priors; value +0.9 at the empty tic-tac-toe board (for the side to move) and
    -0.9 at every other position (for its side to move)."""

    def evaluate(self, planes: Any, legal: Any, states: Any = None) -> tuple[Any, Any]:
        from sparring.search.evaluator import uniform_priors

        start = get_game("tictactoe").initial_state()
        empty = np.array([bool(np.array_equal(states[b], start)) for b in range(len(states))])
        return uniform_priors(legal), np.where(empty, 0.9, -0.9).astype(np.float32)


def test_first_play_parent_tries_the_other_moves_of_a_won_position() -> None:
    """Hand-worked, C_puct 1.25, P = 1/9.  Simulation 1 takes edge 0 (all untried, ties to
    the first): Q = +0.9 for the root's mover.  Simulation 2 with a fixed untried Q of 0:
    edge 0 scores 0.9 + 1.25/9 * sqrt(2)/2 = 0.998, an untried edge 0 + 1.25/9 * sqrt(2) =
    0.196, so edge 0 again (its grandchild, -0.9 for the root's mover, brings its Q to 0);
    simulation 3 then takes edge 1 (0.241 against 0.080).  With the root's own value 0.9 as
    an untried edge's Q, simulation 2 scores an untried edge 0.9 + 0.196 = 1.096 and
    simulation 3 0.9 + 0.241 = 1.141 (the visited ones 0.998 and 1.020): edges 1, then 2."""
    game = get_game("tictactoe")
    root = game.initial_state()
    for sims, fixed_visits, parent_visits in (
        (2, [2, 0, 0], [1, 1, 0]),
        (3, [2, 1, 0], [1, 1, 1]),
    ):
        fixed = search(game, root, _WonRoot(), PUCTConfig(simulations=sims))
        parent = search(
            game, root, _WonRoot(), PUCTConfig(simulations=sims, first_play_parent=True)
        )
        assert fixed.visits.tolist()[:3] == fixed_visits and sum(fixed.visits) == sims
        assert parent.visits.tolist()[:3] == parent_visits and sum(parent.visits) == sims
    unvisited = parent.visits == 0  # the record shows an untried move at the root's value
    assert np.allclose(parent.q[unvisited], 0.9) and np.allclose(fixed.q[fixed.visits == 0], 0.0)
