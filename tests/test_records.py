"""SGF and PGN readers: real records, broken records reported and skipped, bad paths."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import shared_data
from sparring import __version__
from sparring.errors import SparringError
from sparring.games.chess import Chess
from sparring.games.go import Go, gtp_to_move
from sparring.records import (
    RecordError,
    RecordFileError,
    RecordWarning,
    parse_pgn_games,
    parse_sgf_games,
    read_pgn_games,
    read_sgf_games,
)
from sparring.records.sgf import split_game_trees

DATA = shared_data.STRENGTH

GOOD_9 = "(;GM[1]FF[4]SZ[9]PB[Alice]PW[Bob]BR[3k]WR[2k]KM[6.5]HA[0]RE[W+R];B[ee];W[dc];B[cd])"
GOOD_19 = (
    "(;GM[1]FF[4]SZ[19]PB[E6?A8]PW[x]BR[9d]WR[9d]KM[650]HA[0]RU[Japanese]RE[B+R]"
    ";B[pd];W[dp];B[pq];W[dd];B[])"
)


def need(path: Path) -> Path:
    return shared_data.need_data(path)


# ---- SGF ------------------------------------------------------------------------------------
def test_real_fox_sgf_lines() -> None:
    path = need(DATA / "go" / "candidating" / "3-5k.sgf")
    errors: list[RecordError] = []
    records = []
    for r in read_sgf_games(path, errors=errors):
        records.append(r)
        if len(records) == 4:
            break
    assert errors == []
    lines = path.read_bytes().split(b"\n")
    for k, r in enumerate(records):
        assert r.line == k + 1 and r.path == str(path)
        assert r.size == 19 and r.handicap in (0, 1)
        assert r.black_rank in ("3k", "4k", "5k") and r.white_rank == r.black_rank
        assert r.result.startswith(("B+", "W+")) and r.winner == "BW".index(r.result[0])
        assert r.black_name and r.white_name
        assert r.komi_raw in ("0", "375", "650", "750")
        line = lines[k]
        assert r.moves.size == line.count(b";B[") + line.count(b";W[")
        assert r.moves.dtype == np.int64 and r.first_player == 0
        Go(19).replay_planes(r.moves[:10], r.initial_state(Go(19)))


def test_sgf_fields_komi_and_passes() -> None:
    (r9,) = parse_sgf_games(GOOD_9)
    names = (r9.black_name, r9.white_name, r9.black_rank, r9.white_rank)
    assert names == ("Alice", "Bob", "3k", "2k")
    assert r9.komi == 6.5 and r9.result == "W+R" and r9.winner == 1 and r9.size == 9
    assert list(r9.moves) == [gtp_to_move(t, 9) for t in ("E5", "D7", "C6")]
    assert r9.line == 1 and r9.path == "<string>"
    assert r9.game().komi == 6.5
    (r19,) = parse_sgf_games(GOOD_19)
    assert r19.komi == 6.5 and r19.komi_raw == "650" and r19.winner == 0
    assert r19.moves[-1] == 361  # B[] is a pass
    chinese = GOOD_19.replace("KM[650]", "KM[375]").replace("RU[Japanese]", "RU[Chinese]")
    assert next(iter(parse_sgf_games(chinese))).komi == 7.5


def test_broken_sgf_lines_are_reported_and_skipped(tmp_path: Path) -> None:
    path = tmp_path / "mixed.sgf"
    lines = [
        GOOD_19,
        "(;GM[1]FF[4]SZ[19]BR[1d]WR[1d];B[pd];W[dp];B[p",  # truncated
        GOOD_9,
        "(;GM[1]FF[4]SZ[9];B[ee];W[ee])",  # occupied point
        "(;GM[1]FF[4]SZ[9];B[ee];B[dd])",  # colours do not alternate
        "(;GM[1]FF[4]SZ[9];B[zz])",  # off the board
        "(;GM[3]FF[4]SZ[9];B[aa])",  # not Go
        "this is not sgf",
        "(;GM[1]FF[4]SZ[9];B[ee]",  # unterminated at the end of the file
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    errors: list[RecordError] = []
    records = list(read_sgf_games(path, errors=errors))
    assert [r.line for r in records] == [1, 3]
    assert [e.line for e in errors] == [2, 4, 5, 6, 7, 8, 9]
    reasons = [e.reason for e in errors]
    assert "unterminated" in reasons[0]
    assert "move 2 (W E5) is illegal" in reasons[1]
    assert "alternate" in reasons[2]
    assert "bad point" in reasons[3]
    assert "not a Go game" in reasons[4]
    assert "outside a game tree" in reasons[5]
    assert "unterminated" in reasons[6]
    assert str(errors[0]) == f"{path}:2: {reasons[0]}"
    with pytest.warns(RecordWarning) as warned:
        assert len(list(read_sgf_games(path))) == 2
    assert len(warned) == 7 and "mixed.sgf:2: unterminated" in str(warned[0].message)
    # Without the legality check the illegal game is kept.
    assert len(list(read_sgf_games(path, errors=[], check_legal=False))) == 3


def test_multi_line_sgf_with_variations_and_setup(tmp_path: Path) -> None:
    text = """(;GM[1]FF[4]CA[UTF-8]SZ[9]
PB[Ōno]PW[White (\\] tricky)]HA[2]AB[cc][gg]KM[0.5]
C[a comment with ( parentheses ) and
 a new line]
;W[ee]
(;B[dd];W[cd]
(;B[aa])
(;B[bb]))
(;B[ff]))
(;GM[1]FF[4]SZ[9]AB[aa:bb]PL[W])
"""
    path = tmp_path / "multi.sgf"
    path.write_text(text, encoding="utf-8")
    errors: list[RecordError] = []
    first, second = read_sgf_games(path, errors=errors)
    assert errors == []
    assert first.black_name == "Ōno" and first.white_name == "White (] tricky)"
    assert first.handicap == 2 and first.first_player == 1
    assert first.setup_black == (gtp_to_move("C7", 9), gtp_to_move("G3", 9))
    assert [int(m) for m in first.moves] == [gtp_to_move(t, 9) for t in ("E5", "D6", "C6", "A9")]
    g = first.game()
    s = first.initial_state(g)
    assert g.to_move(s) == 1 and g.stones(s)[0].sum() == 2
    assert second.line == 10 and second.moves.size == 0
    assert len(second.setup_black) == 4 and second.first_player == 1


def test_sgf_with_byte_order_mark_and_crlf() -> None:
    data = b"\xef\xbb\xbf" + (GOOD_9 + "\r\n" + GOOD_9 + "\r\n").encode()
    errors: list[RecordError] = []
    assert [r.line for r in parse_sgf_games(data, errors=errors)] == [1, 2]
    assert errors == []


def test_sgf_split_recovers_after_a_truncated_line() -> None:
    data = (GOOD_9[:-5] + "\n" + GOOD_9 + "\n").encode()
    parts = list(split_game_trees(data))
    assert [(line, tree is None) for line, tree, _ in parts] == [(1, True), (2, False)]


def test_bad_record_paths_raise_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RecordFileError, match="does not exist"):
        read_sgf_games(tmp_path / "missing.sgf")
    with pytest.raises(SparringError, match="holds no"):
        read_pgn_games(tmp_path)
    with pytest.raises(RecordFileError, match="empty name"):
        read_sgf_games("")
    with pytest.raises(RecordFileError, match="PGN file"):
        read_pgn_games("games\0.pgn")
    (tmp_path / "a.sgf").write_text(GOOD_9)
    (tmp_path / "b.sgf").write_text(GOOD_9 + "\n" + GOOD_9)
    assert [r.path.endswith(("a.sgf", "b.sgf")) for r in read_sgf_games(tmp_path)] == [True] * 3


# ---- PGN ------------------------------------------------------------------------------------
def test_real_lichess_pgn_games() -> None:
    path = need(DATA / "chess" / "candidating" / "1400-1600.pgn")
    errors: list[RecordError] = []
    records = []
    for r in read_pgn_games(path, errors=errors):
        records.append(r)
        if len(records) == 3:
            break
    assert errors == []
    text_lines = path.read_text(encoding="utf-8").splitlines()
    game = Chess()
    for r in records:
        assert text_lines[r.line - 1].startswith("[")
        assert r.white_elo is not None and 1400 <= r.white_elo < 1600
        assert r.black_elo is not None and 1400 <= r.black_elo < 1600
        assert r.result in ("1-0", "0-1", "1/2-1/2")
        assert r.white_name == r.headers["White"]
        states = game.replay_states(r.moves)
        assert len(states) == r.moves.size + 1
        assert r.uci_moves()[0] == game.move_to_text(int(r.moves[0]))
    assert records[0].line == 1 and records[1].line > records[0].line


BROKEN_PGN = """[Event "good one"]
[White "A"]
[Black "B"]
[WhiteElo "1500"]
[BlackElo "?"]
[Result "1-0"]

1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0

[Event "illegal move"]
[White "C"]
[Black "D"]
[Result "*"]

1. e4 e5 2. Ke3 *

[Event "after the broken one"]
[White "E"]
[Black "F"]
[Result "0-1"]
[WhiteElo "2000"]

1. f3 e5 2. g4 Qh4# 0-1

[Event "bad fen"]
[FEN "not a fen"]
[Result "*"]

1. e4 *
"""


def test_broken_pgn_games_are_reported_and_skipped(tmp_path: Path) -> None:
    path = tmp_path / "broken.pgn"
    path.write_text(BROKEN_PGN, encoding="utf-8")
    errors: list[RecordError] = []
    records = list(read_pgn_games(path, errors=errors))
    assert [r.white_name for r in records] == ["A", "E"]
    assert [r.line for r in records] == [1, 17]
    assert records[0].white_elo == 1500 and records[0].black_elo is None
    assert records[0].winner == 0 and records[1].winner == 1
    assert [e.line for e in errors] == [10, 25]
    assert "Ke3" in errors[0].reason
    assert str(errors[0]).startswith(f"{path}:10: ")
    with pytest.warns(RecordWarning) as warned:
        assert len(list(read_pgn_games(path))) == 2
    assert all(f"broken.pgn:{n}:" in str(w.message) for w, n in zip(warned, (10, 25), strict=True))
    from_string = list(parse_pgn_games(BROKEN_PGN, errors=[]))
    assert len(from_string) == 2
    game = Chess()
    end = game.replay_states(records[1].moves)[-1]
    assert game.status(end).name == "SECOND_WINS"


# ---- writing: SGF -----------------------------------------------------------------------------
def _finished_sgf(go: Go, moves: list[str], names: tuple[str, str] = ("Ann", "Bob")) -> str:
    from sparring.session import GameSession

    session = GameSession(go, names=names)
    for text in moves:
        session.play(go.parse_move(text))
    return session.export("sgf")


def test_write_sgf_exact_text_and_area_score_result() -> None:
    # 5x5, komi 0.5: Black C3, White C2 (SGF row b from the top is row 4), two passes.
    # Area 1 - 1, so White wins by the komi.
    text = _finished_sgf(Go(5, komi=0.5), ["C3", "C4", "pass", "pass"])
    assert text.replace("\n", "") == (  # sgfmill wraps lines by length
        f"(;FF[4]AP[sparring:{__version__}]CA[UTF-8]GM[1]KM[0.5]PB[Ann]PW[Bob]RE[W+0.5]SZ[5];"
        "B[cc];W[cb];B[tt];W[tt])"
    )
    (record,) = parse_sgf_games(text, errors=[])
    assert record.moves.tolist() == [12, 7, 25, 25]
    assert (record.result, record.winner, record.komi) == ("W+0.5", 1, 0.5)
    assert (record.black_name, record.white_name) == ("Ann", "Bob")


def test_write_sgf_draw_resignation_and_unfinished() -> None:
    from sparring.records import write_sgf
    from sparring.session import GameSession

    draw = _finished_sgf(Go(3, komi=0), ["pass", "pass"], ("", ""))
    assert "RE[0]" in draw and "PB" not in draw
    (record,) = parse_sgf_games(draw, errors=[])
    assert record.winner is None and record.result == "0"
    session = GameSession(Go(9))
    session.play(gtp_to_move("E5", 9))
    assert "RE[" not in session.export()  # not finished: no result
    session.resign(1)
    (record,) = parse_sgf_games(session.export(), errors=[])
    assert (record.result, record.winner) == ("B+R", 0)
    with pytest.raises(SparringError, match="Go only"):
        write_sgf(Chess(), [])


def test_write_sgf_round_trip_from_a_setup_position_with_white_to_move() -> None:
    from sparring.players.base import RandomPlayer
    from sparring.session import GameSession

    go = Go(9, komi=6.5)
    start = go.setup(black=[gtp_to_move("C3", 9), gtp_to_move("G7", 9)], to_move=1)
    session = GameSession(go, (RandomPlayer(seed=3), RandomPlayer(seed=4)), start=start)
    session.play_out()
    assert session.is_over
    text = session.export()
    assert "AB[cg][gc]" in text and "PL[W]" in text
    (record,) = parse_sgf_games(text, errors=[])
    assert tuple(record.moves.tolist()) == session.moves
    assert record.first_player == 1 and record.komi == 6.5
    assert sorted(record.setup_black) == sorted([gtp_to_move("G7", 9), gtp_to_move("C3", 9)])
    final = go.replay_states(record.moves, record.initial_state(go))[-1]
    assert np.array_equal(final, session.state)
    margin = go.score_margin(final)
    assert record.result == (f"B+{margin:g}" if margin > 0 else f"W+{-margin:g}")
    assert record.winner == (0 if margin > 0 else 1)


def test_binary_file_as_sgf_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "image.sgf"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 8)
    errors: list[RecordError] = []
    assert list(read_sgf_games(path, errors=errors)) == []
    assert [str(e) for e in errors] == [
        f"{path}:1: binary data, not SGF text (a NUL byte at offset 8)"
    ]
    pgn = tmp_path / "image.pgn"
    pgn.write_bytes(path.read_bytes())
    assert list(read_pgn_games(pgn, errors=errors)) == []
    assert str(errors[-1]) == f"{pgn}:1: binary data, not PGN text (a NUL byte at offset 8)"


# ---- writing: PGN -----------------------------------------------------------------------------
def test_write_pgn_exact_text_and_round_trip() -> None:
    from sparring.session import GameSession

    chess_game = Chess()
    session = GameSession(chess_game, names=("Ann", "Bob"))
    for san in ("f3", "e5", "g4", "Qh4"):
        session.play(chess_game.parse_move(san, session.state))
    text = session.export()
    assert text == (
        '[Event "sparring game"]\n[Site "?"]\n[Date "????.??.??"]\n[Round "?"]\n'
        '[White "Ann"]\n[Black "Bob"]\n[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n'
    )
    (record,) = parse_pgn_games(text, errors=[])
    assert tuple(record.moves.tolist()) == session.moves
    assert (record.result, record.winner, record.white_name) == ("0-1", 1, "Ann")


def test_write_pgn_round_trip_from_a_fen_random_game_and_resignation() -> None:
    from sparring.players.base import RandomPlayer
    from sparring.records import write_pgn
    from sparring.session import GameSession

    chess_game = Chess()
    fen = "r3k2r/pppq1ppp/2n2n2/3pp3/3PP3/2N2N2/PPPQ1PPP/R3K2R w KQkq - 4 8"
    start = chess_game.parse_position(fen)
    session = GameSession(chess_game, (RandomPlayer(seed=1), RandomPlayer(seed=2)), start=start)
    session.play_out()
    assert session.is_over
    (record,) = parse_pgn_games(session.export(), errors=[])
    assert record.start_fen == fen
    assert tuple(record.moves.tolist()) == session.moves
    assert record.result == {1.0: "1-0", 0.0: "0-1", 0.5: "1/2-1/2"}[session.result or 0.0]
    resigned = GameSession(chess_game, names=("Ann", "Bob"))
    resigned.play(chess_game.parse_move("e4", resigned.state))
    resigned.resign(1)
    text = resigned.export()
    assert "1. e4 { Black resigns } 1-0" in text and '[Termination "normal"]' in text
    (record,) = parse_pgn_games(text, errors=[])
    assert record.uci_moves() == ["e2e4"] and record.winner == 0
    unfinished = GameSession(chess_game)
    assert unfinished.export().rstrip().endswith("*")
    with pytest.raises(SparringError, match="chess only"):
        write_pgn(Go(9), [])


def test_pgn_game_cut_off_mid_moves_is_reported(tmp_path: Path) -> None:
    whole = '[Event "whole"]\n[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n'
    cut = '[Event "cut"]\n[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb'
    path = tmp_path / "cut.pgn"
    path.write_text(whole + cut)
    errors: list[RecordError] = []
    records = list(read_pgn_games(path, errors=errors))
    assert [r.headers["Event"] for r in records] == ["whole"]
    assert [str(e) for e in errors] == [
        f"{path}:6: the game is cut off after 4 move(s): no termination marker "
        "(1-0, 0-1, 1/2-1/2 or *) ends its move text"
    ]
    # cut off before the next game's tags: also reported, and the next game still read
    errors = []
    records = list(parse_pgn_games(cut.replace("3. Bb", "3. Bb5\n\n") + whole, errors=errors))
    assert [r.headers["Event"] for r in records] == ["whole"]
    assert [e.line for e in errors] == [1] and "after 5 move(s)" in errors[0].reason


# ---- writing: move lists -----------------------------------------------------------------------
def test_move_list_exact_text() -> None:
    from sparring.games import get_game
    from sparring.session import GameSession

    connect4 = get_game("connect4")
    session = GameSession(connect4, names=("You", "AZ"), start=connect4.parse_position("44"))
    for column in (3, 4, 3):
        session.play(column - 1)
    session.resign(0)
    text = session.export()
    assert text == (
        "# sparring move list\n# game: connect4\n# first: You\n# second: AZ\n"
        "# start: ......./......./......./......./...o.../...x...\n"
        "# result: 0-1 (first resigned)\n1. 3 4\n2. 3\n"
    )
