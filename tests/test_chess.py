"""Chess through the Game API: perft, game ends, actions and text, planes, real games."""

from __future__ import annotations

import chess
import numpy as np
import pytest

import shared_data
from sparring.errors import (
    GameOverError,
    IllegalMoveError,
    MoveParseError,
    PositionParseError,
)
from sparring.games.base import DRAW, FIRST_WINS, SECOND_WINS, Outcome
from sparring.games.chess import (
    NUM_ACTIONS,
    PROMOTION_STEPS,
    Chess,
    action_to_move,
    action_to_uci,
    move_to_action,
    uci_to_action,
)
from sparring.rng import new_rng_state

DATA = shared_data.STRENGTH / "chess"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


@pytest.fixture(scope="module")
def game() -> Chess:
    return Chess()


def perft(game: Chess, state: np.ndarray, depth: int) -> int:
    moves = game.legal_moves(state)
    if depth == 1:
        return int(moves.size)
    return sum(perft(game, game.play(state, int(m)), depth - 1) for m in moves)


def test_perft_from_the_start_position(game: Chess) -> None:
    assert perft(game, game.initial_state(), 3) == 8902


def test_perft_kiwipete_castling_en_passant_promotions(game: Chess) -> None:
    assert perft(game, game.parse_position(KIWIPETE), 2) == 2039
    # Promotions: a position where White can promote on b8 in 4 ways, straight and capturing.
    s = game.parse_position("n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1")
    assert perft(game, s, 1) == 24 and perft(game, s, 2) == 496


def test_actions_round_trip_through_uci_and_python_chess() -> None:
    assert NUM_ACTIONS == 4096 + 4 * len(PROMOTION_STEPS) == 4272
    for a in range(NUM_ACTIONS):
        assert uci_to_action(action_to_uci(a)) == a
        m = action_to_move(a)
        if m.from_square != m.to_square:
            assert move_to_action(m) == a
    assert action_to_uci(uci_to_action("e7e8q")) == "e7e8q"
    assert uci_to_action("e1g1") == chess.E1 * 64 + chess.G1
    assert uci_to_action("b2a1n") != uci_to_action("b2a1q")
    for bad in ("e2", "e2e9", "e7e8k", "e2e4q", "0000", "P@e4"):
        with pytest.raises(MoveParseError):
            uci_to_action(bad)


def test_play_and_legality(game: Chess) -> None:
    s = game.initial_state()
    assert game.to_move(s) == 0 and game.ply(s) == 0
    legal = game.legal_moves(s)
    assert legal.size == 20 and np.all(np.diff(legal) > 0)
    e4 = game.parse_move("e2e4", s)
    s2 = game.play(s, e4)
    assert game.fen(s2) == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    assert game.to_move(s2) == 1 and game.ply(s2) == 1
    assert game.fen(s) == chess.STARTING_FEN  # unchanged
    with pytest.raises(IllegalMoveError):
        game.play(s, uci_to_action("e2e5"))
    assert game.parse_move("Nf3", s) == uci_to_action("g1f3")
    with pytest.raises(IllegalMoveError):
        game.parse_move("Nf6", s)
    with pytest.raises(MoveParseError):
        game.parse_move("hello", s)
    assert game.san(s, e4) == "e4"


def test_checkmate_stalemate_and_insufficient_material(game: Chess) -> None:
    s = game.initial_state()
    for uci in ("f2f3", "e7e5", "g2g4", "d8h4"):  # fool's mate
        s = game.play(s, uci_to_action(uci))
    assert game.status(s) is Outcome.SECOND_WINS
    assert game.legal_moves(s).size == 0
    with pytest.raises(GameOverError):
        game.play(s, uci_to_action("e2e4"))
    mate = game.parse_position("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")
    assert int(game.status(mate)) == FIRST_WINS
    stalemate = game.parse_position("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert int(game.status(stalemate)) == DRAW
    bare_kings = game.parse_position("8/8/4k3/8/8/3K4/8/8 w - - 0 1")
    assert int(game.status(bare_kings)) == DRAW
    assert int(game.status(game.parse_position("8/8/4k3/8/8/3K4/3Q4/8 w - - 0 1"))) == 0


def test_seventyfive_move_rule(game: Chess) -> None:
    s = game.parse_position("8/8/4k3/8/8/3K4/3R4/8 w - - 149 100")
    assert game.status(s) is Outcome.ONGOING
    s = game.play(s, uci_to_action("d2d1"))
    assert game.status(s) is Outcome.DRAW


def test_fivefold_repetition_matches_python_chess(game: Chess) -> None:
    s = game.initial_state()
    board = chess.Board()
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"] * 4
    for ply, uci in enumerate(shuffle, 1):
        s = game.play(s, uci_to_action(uci))
        board.push_uci(uci)
        over = board.is_game_over(claim_draw=False)
        assert game.is_terminal(s) == over, ply
        assert game.repetitions(s) == 1 + sum(board.is_repetition(k) for k in range(2, 6))
    assert game.status(s) is Outcome.DRAW
    assert game.legal_moves(s).size == 0
    # A pawn move clears the history.
    t = game.play(game.initial_state(), uci_to_action("e2e4"))
    assert game.repetitions(t) == 1


def test_position_text_carries_the_repetition_history(game: Chess) -> None:
    s = game.play(game.initial_state(), uci_to_action("e2e4"))
    assert game.position_to_text(s) == game.fen(s)  # a pawn move: no history
    for uci in ["g8f6", "g1f3", "f6g8", "f3g1"] * 2:
        s = game.play(s, uci_to_action(uci))
    text = game.position_to_text(s)
    assert text.startswith(game.fen(game.play(game.initial_state(), uci_to_action("e2e4"))))
    assert text.count(" moves ") == 1 and len(text.split(" moves ")[1].split()) == 8
    back = game.parse_position(text)
    np.testing.assert_array_equal(back, s)
    assert game.repetitions(back) == 3
    # two more shuffles make the fifth occurrence: a draw, also after a text round trip
    for uci in ["g8f6", "g1f3", "f6g8", "f3g1"] * 2:
        s = game.play(s, uci_to_action(uci))
    assert game.status(s) is Outcome.DRAW
    assert game.status(game.parse_position(game.position_to_text(s))) is Outcome.DRAW
    assert game.ply(game.parse_position("startpos moves e2e4 e7e5")) == 2
    with pytest.raises(PositionParseError, match="move 2 \\(e2e4\\) is illegal"):
        game.parse_position("startpos moves e2e4 e2e4")
    with pytest.raises(PositionParseError, match="move 1"):
        game.parse_position("startpos moves xyz")


def test_state_from_board_keeps_the_repetition_history(game: Chess) -> None:
    board = chess.Board()
    for uci in ["g1f3", "g8f6", "f3g1", "f6g8"] * 2:
        board.push_uci(uci)
    s = game.state_from_board(board)
    assert game.repetitions(s) == 3 and game.ply(s) == 8


def test_parse_position_errors(game: Chess) -> None:
    assert game.fen(game.parse_position("startpos")) == chess.STARTING_FEN
    with pytest.raises(PositionParseError, match="no white king"):
        game.parse_position("8/8/4k3/8/8/8/8/8 w - - 0 1")
    with pytest.raises(PositionParseError, match="bad FEN"):
        game.parse_position("rnbqkbnr/pppppppp/8/8 w KQkq - 0 1")
    with pytest.raises(PositionParseError, match="expected a FEN"):
        game.parse_position("   ")
    s = game.parse_position(KIWIPETE)
    assert game.position_to_text(s) == KIWIPETE
    assert "White to move" in game.render(s)


def test_encode_planes(game: Chess) -> None:
    planes = game.encode(game.initial_state())
    assert planes.shape == (game.num_planes, *game.board_shape) == (23, 8, 8)
    assert planes.dtype == np.float32
    assert planes[0].sum() == 16 and planes[0][6:].all()  # White on ranks 1-2 (bottom rows)
    assert planes[1][:2].all()
    assert np.all(planes[2] == 1.0)
    assert planes[3][6].all() and planes[8][7, 4] == 1  # white pawns, king on e1
    assert planes[9][1].all() and planes[14][0, 4] == 1
    assert planes[15:19].all() and planes[19:].sum() == 0
    s = game.initial_state()
    for uci in ("e2e4", "a7a6", "e4e5", "d7d5"):
        s = game.play(s, uci_to_action(uci))
    p = game.encode(s)
    assert p[19, 2, 3] == 1 and p[19].sum() == 1  # en passant on d6
    sym = game.symmetries(p, np.ones(NUM_ACTIONS, dtype=np.float32))
    assert len(sym) == 1 and sym[0][0] is p


def test_random_playouts_end(game: Chess) -> None:
    rng = new_rng_state(5)
    for _ in range(2):
        s = game.initial_state()
        result = game.kernels.random_playout(s, rng)
        assert result in (FIRST_WINS, SECOND_WINS, DRAW)
        assert game.ply(s) <= game.max_game_length
        board = game.board(s)
        assert board.is_game_over(claim_draw=False) or game.repetitions(s) >= 5


def test_replay_planes_match_encode(game: Chess) -> None:
    moves = [uci_to_action(u) for u in ("e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6")]
    planes = game.replay_planes(moves)
    states = game.replay_states(moves)
    assert planes.shape == (6, 23, 8, 8) and len(states) == 7
    for i in range(6):
        np.testing.assert_array_equal(planes[i], game.encode(states[i]))
    with pytest.raises(IllegalMoveError, match="move 7"):
        game.replay_planes([*moves, uci_to_action("e1e3")])


def test_real_lichess_game_statuses_match_python_chess(game: Chess) -> None:
    path = shared_data.need_data(DATA / "candidating" / "2400-2600.pgn", "Lichess data")
    from sparring.records import read_pgn_games

    for n, record in enumerate(read_pgn_games(path)):
        board = chess.Board()
        s = game.initial_state()
        for m in record.moves:
            assert game.is_legal(s, int(m))
            s = game.play(s, int(m))
            board.push(action_to_move(int(m)))
            assert game.is_terminal(s) == board.is_game_over(claim_draw=False)
        assert game.fen(s) == board.fen()
        if n == 2:
            break
