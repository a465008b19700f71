"""Cross-check of the rules against DeepMind's OpenSpiel (``pyspiel``).

Both implementations are driven by the same random move choices (a seeded numpy Generator
picks an index into the common, sorted legal-move list).  At every step the legal move sets
and the terminal flags must be identical; at the end the results and the final boards must be.

Action numbering (checked in ``test_action_numbering``): OpenSpiel's ``connect_four`` actions
are the columns 0-6 from the left, like ours; ``othello`` actions are ``row*8 + col`` with row 0
the top row (written 1) and 64 the pass, like ours; ``tic_tac_toe`` actions are ``row*3 + col``,
like ours.  No mapping is needed.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from sparring.games import Game, Outcome, get_game

pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel (pip install open_spiel) is needed for the rules cross-check"
)

GAMES = {"connect4": "connect_four", "othello": "othello", "tictactoe": "tic_tac_toe"}
N_GAMES = {"connect4": 2000, "othello": 2000, "tictactoe": 2000}
RETURNS = {
    Outcome.FIRST_WINS: [1.0, -1.0],
    Outcome.SECOND_WINS: [-1.0, 1.0],
    Outcome.DRAW: [0.0, 0.0],
}


def _spiel_board(name: str, spiel_state: object) -> list[str]:
    """OpenSpiel's board as rows from the top of ``x``/``o``/``.`` characters."""
    text = str(spiel_state)
    if name == "othello":
        rows = [line.split() for line in text.splitlines() if line[:1].isdigit()]
        return ["".join(cell for cell in row[1:-1]).replace("-", ".") for row in rows]
    return [line.strip() for line in text.strip().splitlines()]


def _our_board(game: Game, state: np.ndarray) -> list[str]:
    planes = game.encode(state)
    cells = np.where(planes[0] > 0.5, "x", np.where(planes[1] > 0.5, "o", "."))
    return ["".join(row) for row in cells]


def test_action_numbering() -> None:
    """The action ids mean the same squares in both implementations."""
    othello = get_game("othello")
    spiel = pyspiel.load_game("othello")
    s = spiel.new_initial_state()
    ours = othello.initial_state()
    assert s.legal_actions() == othello.legal_moves(ours).tolist() == [19, 26, 37, 44]
    for a in s.legal_actions():
        assert s.action_to_string(0, a) == othello.move_to_text(a)
    assert spiel.num_distinct_actions() == othello.num_actions == 65
    c4 = pyspiel.load_game("connect_four")
    s = c4.new_initial_state()
    s.apply_action(0)
    assert _spiel_board("connect4", s)[-1] == "x......"  # action 0 is the left column
    assert c4.num_distinct_actions() == get_game("connect4").num_actions
    ttt = pyspiel.load_game("tic_tac_toe")
    s = ttt.new_initial_state()
    s.apply_action(1)
    assert _spiel_board("tictactoe", s)[0] == ".x."  # action 1 is the top middle square


@pytest.mark.parametrize("name", list(GAMES))
def test_random_games_match_openspiel(name: str) -> None:
    game = get_game(name)
    spiel = pyspiel.load_game(GAMES[name])
    rng = np.random.default_rng(20240601)
    outcomes = dict.fromkeys(RETURNS, 0)
    passes = steps = 0
    started = time.perf_counter()
    for g in range(N_GAMES[name]):
        state = game.initial_state()
        s = spiel.new_initial_state()
        history: list[int] = []
        while True:
            terminal = game.is_terminal(state)
            assert terminal == s.is_terminal(), (g, history)
            if terminal:
                break
            legal = game.legal_moves(state).tolist()
            assert legal == s.legal_actions(), (g, history)
            assert game.to_move(state) == s.current_player(), (g, history)
            move = legal[int(rng.integers(len(legal)))]
            passes += move == 64 and name == "othello"
            history.append(move)
            state = game.play(state, move)
            s.apply_action(move)
            steps += 1
        outcome = game.status(state)
        assert s.returns() == RETURNS[outcome], (g, history)
        assert _our_board(game, state) == _spiel_board(name, s), (g, history)
        outcomes[outcome] += 1
    elapsed = time.perf_counter() - started
    print(f"{name}: {N_GAMES[name]} games, {steps} plies in {elapsed:.1f}s; {outcomes}")
    # the random games must exercise every kind of ending (and passes in Othello)
    assert all(outcomes.values()), outcomes
    if name == "othello":
        assert passes > 0
