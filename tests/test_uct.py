"""Tests of the UCT MCTS baseline players (AlphaDDA appendix 3)."""

from __future__ import annotations

import numpy as np
import pytest

from sparring.errors import GameOverError, UnknownPlayerError
from sparring.games import Game, get_game
from sparring.games.base import State
from sparring.players import make_player
from sparring.players.base import RandomPlayer
from sparring.players.uct import UCTPlayer
from sparring.rng import new_rng_state
from sparring.search.uct import tree_capacity, uct_search

GAMES = ("connect4", "othello6", "othello", "tictactoe")


def random_positions(game: Game, count: int, seed: int) -> list[State]:
    """Ongoing positions met along random games (early, middle and late)."""
    rng = np.random.default_rng(seed)
    positions: list[State] = []
    while len(positions) < count:
        state = game.initial_state()
        while not game.is_terminal(state):
            if rng.random() < 0.3:
                positions.append(state.copy())
            moves = game.legal_moves(state)
            state = game.play(state, int(moves[rng.integers(len(moves))]))
    return positions[:count]


@pytest.mark.parametrize("name", GAMES)
def test_visits_sum_to_simulations(name: str) -> None:
    game = get_game(name)
    state = game.initial_state()
    before = state.copy()
    result = uct_search(game, state, 250, new_rng_state(1))
    assert int(result.visits.sum()) == 250
    assert sorted(result.moves.tolist()) == game.legal_moves(state).tolist()
    assert np.all(np.abs(result.q) <= 1.0)
    assert result.nodes <= tree_capacity(250, game.num_actions, 5)
    assert np.array_equal(state, before)  # the search does not touch the position


def test_reproducible_with_seed() -> None:
    game = get_game("connect4")
    state = game.parse_position("4453")
    a = uct_search(game, state, 400, new_rng_state(7))
    b = uct_search(game, state, 400, new_rng_state(7))
    c = uct_search(game, state, 400, new_rng_state(8))
    assert np.array_equal(a.visits, b.visits) and np.array_equal(a.q, b.q)
    assert not np.array_equal(a.visits, c.visits)

    moves_a = [UCTPlayer("a", 100, seed=3).select_move(game, state) for _ in range(3)]
    moves_b = [UCTPlayer("b", 100, seed=3).select_move(game, state) for _ in range(3)]
    assert moves_a == moves_b


def test_rng_stream_advances() -> None:
    game = get_game("othello6")
    rng = new_rng_state(5)
    a = uct_search(game, game.initial_state(), 200, rng)
    b = uct_search(game, game.initial_state(), 200, rng)
    assert not np.array_equal(a.q, b.q)


def test_takes_immediate_win_connect4() -> None:
    game = get_game("connect4")
    state = game.parse_position("112233")  # first player: 1-2-3 on the bottom row, to move
    for seed in range(3):
        assert UCTPlayer("u", 300, seed=seed).select_move(game, state) == 3
    result = uct_search(game, state, 300, new_rng_state(0))
    # The winning child is terminal: every visit scores +1 with no playout.
    assert result.q[result.moves == 3][0] == 1.0


def test_blocks_immediate_loss_connect4() -> None:
    game = get_game("connect4")
    state = game.parse_position("1122335")  # second player must block column 4
    for seed in range(3):
        assert UCTPlayer("u", 300, seed=seed).select_move(game, state) == 3


def test_tictactoe_tactics() -> None:
    game = get_game("tictactoe")
    win = game.parse_position("xx.oo....")  # x to move wins at c1
    block = game.parse_position("xx..o....")  # o to move must block at c1
    for seed in range(3):
        assert UCTPlayer("u", 300, seed=seed).select_move(game, win) == 2
        assert UCTPlayer("u", 500, seed=seed).select_move(game, block) == 2


def test_tictactoe_never_loses_to_random() -> None:
    game = get_game("tictactoe")
    for g in range(6):
        uct = UCTPlayer("u", 1000, seed=g)
        rnd = RandomPlayer(seed=100 + g)
        players = (uct, rnd) if g % 2 == 0 else (rnd, uct)
        state = game.initial_state()
        while not game.is_terminal(state):
            state = game.play(state, players[game.to_move(state)].select_move(game, state))
        assert game.status(state).score_for(g % 2) >= 0.5


@pytest.mark.parametrize("name", GAMES)
def test_never_returns_illegal_move(name: str) -> None:
    game = get_game(name)
    player = UCTPlayer("u", 40, seed=11, n_open=2)
    for state in random_positions(game, 25, seed=hash(name) % 1000):
        before = state.copy()
        move = player.select_move(game, state)
        assert game.is_legal(state, move)
        assert np.array_equal(state, before)


def test_othello_forced_pass() -> None:
    game = get_game("othello6")
    # White (to move) has no placement on the only empty square, so must pass.
    state = game.parse_position("xxxxxoxxxxoxxxxoxxxoooxxxoooxxx.xxxx o")
    assert game.legal_moves(state).tolist() == [game.num_actions - 1]
    assert UCTPlayer("u", 20, seed=0).select_move(game, state) == game.num_actions - 1


def test_terminal_position_is_rejected() -> None:
    game = get_game("tictactoe")
    with pytest.raises(GameOverError):
        uct_search(game, game.parse_position("xxxoo...."), 10, new_rng_state(0))


def test_registry() -> None:
    game = get_game("connect4")
    for kind, (display, sims) in {
        "mcts1": ("MCTS1", 300),
        "mcts2": ("MCTS2", 100),
        "mcts3": ("MCTS3", 200),
        "mcts4": ("MCTS4", 50),
    }.items():
        player = make_player(kind, game, seed=1)
        assert isinstance(player, UCTPlayer)
        assert (player.name, player.simulations, player.c, player.n_open) == (
            display,
            sims,
            0.5,
            5,
        )
    custom = make_player("uct:sims=64,c=1.5,open=2,name=Fast", game, seed=2)
    assert isinstance(custom, UCTPlayer)
    assert (custom.name, custom.simulations, custom.c, custom.n_open) == ("Fast", 64, 1.5, 2)
    with pytest.raises(UnknownPlayerError):
        make_player("uct:depth=3", game)
    with pytest.raises(UnknownPlayerError):
        make_player("mcts1:sims=5", game)
    with pytest.raises(UnknownPlayerError):
        make_player("uct:sims=0", game)
    with pytest.raises(UnknownPlayerError):
        make_player("uct:open=0", game)
    with pytest.raises(ValueError):
        uct_search(game, game.initial_state(), 10, new_rng_state(0), n_open=0)
