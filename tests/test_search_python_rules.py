"""Searches over games with Python-only rules: chess, and tic-tac-toe with its kernels run as
plain Python (which must search exactly like the compiled search)."""

from __future__ import annotations

import numpy as np
import pytest

from sparring.games import get_game
from sparring.games.base import DRAW, FIRST_WINS, SECOND_WINS, Kernels
from sparring.games.tictactoe import TicTacToe
from sparring.players import make_player
from sparring.players.uct import UCTPlayer
from sparring.rng import new_rng_state
from sparring.search.evaluator import UniformEvaluator
from sparring.search.kernels import is_compiled
from sparring.search.puct import PUCTConfig, search, search_batch
from sparring.search.pyrules import capped_playout, chess_playout, material_balance
from sparring.search.uct import uct_search

CHESS = get_game("chess")


class PythonTicTacToe(TicTacToe):
    """Tic-tac-toe whose kernels are the Python source of the compiled ones."""

    compiled = False
    kernels = Kernels(*(k.py_func for k in TicTacToe.kernels[:5]), encode=None)


def test_python_kernels_search_like_compiled_ones() -> None:
    """The PUCT search run as Python gives the very same root statistics (same code)."""
    py, nb_game = PythonTicTacToe(), get_game("tictactoe")
    assert not is_compiled(py.kernels) and is_compiled(nb_game.kernels)
    positions = [nb_game.initial_state(), nb_game.parse_position("x...o....")]
    for leaves in (1, 3):
        config = PUCTConfig(simulations=40, leaves_per_batch=leaves)
        a = search_batch(py, positions, UniformEvaluator(), config)
        b = search_batch(nb_game, positions, UniformEvaluator(), config)
        for ra, rb in zip(a, b, strict=True):
            assert np.array_equal(ra.moves, rb.moves)
            assert np.array_equal(ra.visits, rb.visits)
            assert np.allclose(ra.q, rb.q)
            assert ra.nodes == rb.nodes


def test_python_kernels_with_a_score_hook() -> None:
    """The score hook works on the Python path too (the compiled hook called from Python)."""
    from sparring.search.hooks import PriorBonus

    py, nb_game = PythonTicTacToe(), get_game("tictactoe")
    config = PUCTConfig(simulations=30, score_hook=PriorBonus(move=2, bonus=0.5).hook())
    a = search(py, py.initial_state(), UniformEvaluator(), config)
    b = search(nb_game, nb_game.initial_state(), UniformEvaluator(), config)
    plain = search(nb_game, nb_game.initial_state(), UniformEvaluator(), PUCTConfig(30))
    assert np.array_equal(a.visits, b.visits)
    assert a.visits[a.moves == 2][0] > plain.visits[plain.moves == 2][0]


@pytest.mark.parametrize(("c", "expected"), [(1.0, {6: 9, 8: 1}), (2.0, {6: 8, 8: 2})])
def test_python_uct_is_eq12(c: float, expected: dict[int, int]) -> None:
    """The hand-worked Eq. 12 case of test_search_formulas, on the Python path."""
    py = PythonTicTacToe()
    state = py.parse_position("ooxxxo.x.")
    result = uct_search(py, state, 10, new_rng_state(0), c=c)
    assert dict(zip(result.moves.tolist(), result.visits.tolist(), strict=True)) == expected


def test_capped_playout_adjudicates_by_material() -> None:
    up_a_queen = CHESS.parse_position("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")
    level = CHESS.parse_position("3rk3/8/8/8/8/8/8/3RK3 w - - 0 1")
    down_a_rook = CHESS.parse_position("3rk3/8/8/8/8/8/8/4K3 w - - 0 1")
    assert material_balance(CHESS.board(up_a_queen)) == 9
    rng = new_rng_state(0)
    assert chess_playout(up_a_queen, rng, 0) == FIRST_WINS
    assert chess_playout(level, rng, 0) == DRAW
    assert chess_playout(down_a_rook, rng, 0) == SECOND_WINS
    mated = CHESS.parse_position("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
    assert CHESS.is_terminal(mated)
    assert chess_playout(mated, rng, 40) == SECOND_WINS
    # Mate on the board after one random move: a lone legal move that mates.
    mate_in_one = CHESS.parse_position("7k/5Q2/6K1/8/8/8/8/8 w - - 0 1")
    results = {chess_playout(mate_in_one, new_rng_state(s), 1) for s in range(20)}
    assert results <= {FIRST_WINS, DRAW}
    playout = capped_playout(CHESS, 40)
    results = [playout(CHESS.initial_state(), new_rng_state(seed)) for seed in (5, 5, 6)]
    assert results[0] == results[1]  # the stream decides the playout


def test_uct_plays_chess() -> None:
    state = CHESS.initial_state()
    before = state.copy()
    a = uct_search(CHESS, state, 60, new_rng_state(4))
    b = uct_search(CHESS, state, 60, new_rng_state(4))
    assert int(a.visits.sum()) == 60 and np.array_equal(a.visits, b.visits)
    assert sorted(a.moves.tolist()) == CHESS.legal_moves(state).tolist()
    assert np.array_equal(state, before)


def test_uct_finds_mate_in_one() -> None:
    """Scholar's mate: Qxf7# is a terminal child worth +1 on every visit."""
    state = CHESS.parse_position(
        "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
    )
    mate = CHESS.parse_move("h5f7", state)
    for seed in range(2):
        assert UCTPlayer("u", 150, seed=seed).select_move(CHESS, state) == mate


@pytest.mark.parametrize("kind", ["uct:sims=20", "mcts1", "mcts4"])
def test_mcts_players_play_legal_chess(kind: str) -> None:
    player = make_player(kind, CHESS, seed=1)
    if isinstance(player, UCTPlayer):
        player.simulations = min(player.simulations, 20)  # keep the test short
    state = CHESS.initial_state()
    for _ in range(4):
        move = player.select_move(CHESS, state)
        assert CHESS.is_legal(state, move)
        state = CHESS.play(state, move)


def test_puct_on_chess_through_the_evaluator() -> None:
    """The PUCT search runs on chess with any evaluator (the network path of SE-MCTS)."""
    state = CHESS.initial_state()
    calls: list[int] = []

    class Counting(UniformEvaluator):
        def evaluate(self, planes, legal, states=None):  # type: ignore[no-untyped-def]
            calls.append(len(planes))
            assert planes.shape[1:] == (CHESS.num_planes, 8, 8)
            return super().evaluate(planes, legal, states)

    result = search(CHESS, state, Counting(), PUCTConfig(simulations=24, leaves_per_batch=4))
    assert int(result.visits.sum()) == 24
    assert sorted(result.moves.tolist()) == CHESS.legal_moves(state).tolist()
    assert max(calls) > 1  # leaves batched
    assert sum(calls) == 1 + 24  # the root and one new leaf per simulation


def test_bench_rows_for_chess() -> None:
    from sparring.bench import BenchConfig, bench_python_rules

    rows = bench_python_rules("chess", BenchConfig(("chess",), repeats=1, seconds=0.05))
    assert [r.metric.split()[0] for r in rows] == ["random", "UCT", "PUCT"]
    assert all(r.ours > 0 and r.reference is None for r in rows)
