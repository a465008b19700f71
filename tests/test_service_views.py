"""What the service's views write, without a server: the end of an Othello game with its disc
count, the flag on a pass that would end a Go game, Go's captures and area count, the
whole-number Elo rule, the cells of Go moves, chess SAN, which analyses a game's state holds,
and the cache of shown games."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from sparring.games import get_game
from sparring.games.chess import Chess
from sparring.games.othello import Othello
from sparring.levels import Level, level_table
from sparring.service.catalog import GameInfo, opponent_for, whole_elo
from sparring.service.store import GameRow, MoveRow
from sparring.service.views import (
    SessionCache,
    _cells_of_moves,
    _chess_sans,
    _pass_ends,
    analysis_from,
    game_state,
    go_score,
    grid_cells,
    move_texts,
    result_text,
)
from sparring.session import GameSession


def test_an_othello_result_gives_the_disc_count() -> None:
    game = get_game("othello6")
    assert isinstance(game, Othello)
    session = GameSession(game)
    while not session.is_over:
        legal = session.legal_moves()  # Black its first legal move, White its last: one game
        session.play(legal[0] if session.to_move == 0 else legal[-1])
    black, white = game.disc_count(session.state)
    assert black + white > 4 and black != white
    winner, margin = ("Black", black - white) if black > white else ("White", white - black)
    count = f"Black {black} discs, White {white} ({winner} wins by {margin})."
    head = "You win" if winner == "Black" else "AI wins"
    assert result_text(session, 0) == f"{head}: {count}"
    assert result_text(session, 1) == f"{'AI wins' if winner == 'Black' else 'You win'}: {count}"


def test_a_pass_after_a_pass_ends_the_game() -> None:
    game = get_game("go9")
    session = GameSession(game)
    session.play(game.parse_move("E5", session.state))
    assert _pass_ends(game, session.state, 81) == {"ends_game": False}
    assert _pass_ends(game, session.state, 40) == {}  # a stone: no flag
    session.play(81)  # one side passes: the other side's pass would end the game
    assert _pass_ends(game, session.state, 81) == {"ends_game": True}


def test_go_score_counts_captures_and_area_with_komi() -> None:
    game = get_game("go9")
    session = GameSession(game)
    assert go_score(game, session.state) == {
        "captures": [0, 0],
        "area": [0, 0],
        "komi": 7.5,
        "margin": -7.5,
    }
    for text in ("B1", "A1", "A2"):  # Black takes White's corner stone
        session.play(game.parse_move(text, session.state))
    # Black's two stones and every empty point (they reach only Black's stones): 81 points
    assert go_score(game, session.state) == {
        "captures": [1, 0],
        "area": [81, 0],
        "komi": 7.5,
        "margin": 73.5,
    }
    session.play(game.parse_move("E5", session.state))  # a White stone: the open board is
    assert go_score(game, session.state) == {  # no one's; A1 (between Black's two) is Black's
        "captures": [1, 0],
        "area": [3, 1],
        "komi": 7.5,
        "margin": -5.5,
    }
    assert go_score(get_game("connect4"), get_game("connect4").initial_state()) is None


@pytest.mark.parametrize(
    ("elo", "whole"), [(2267.5, 2268), (2266.5, 2266), (636.4, 636), (1764.8, 1765), (614.0, 614)]
)
def test_elos_are_written_as_whole_numbers_half_to_even(elo: float, whole: int) -> None:
    assert whole_elo(elo) == whole == int(f"{elo:.0f}")  # the labels' own formatting


def test_an_elo_outside_the_whole_range_is_played_at_its_end_and_said() -> None:
    c4 = GameInfo("connect4", "Connect Four", get_game("connect4"), level_table("connect4"))
    assert c4.elo_range == (614.0, 2267.5) and c4.whole_range == (614, 2267)
    # the service asks the resolver as asked; it clamps to the whole range and says so
    for asked, played, notice in [
        (2267, 2267, None),  # the end shown: no clamp, no notice
        (614.0, 614, None),
        (2267.4, 2267, "Elo 2267.4 is outside the measured range 614..2267 of the Connect "
         "Four baseline ladder; playing the strongest level, 2267"),
        (100, 614, "Elo 100 is outside the measured range 614..2267 of the Connect Four "
         "baseline ladder; playing the weakest level, 614"),
    ]:  # fmt: skip
        _, report = opponent_for(c4, Level.at_elo(asked))
        assert report is not None and (report.elo, report.notice) == (played, notice)
    go9 = GameInfo("go9", "Go 9x9", get_game("go9"), level_table("go9"))
    _, report = opponent_for(go9, Level.at_elo(5000))  # rows: the nearest one, said
    assert report is not None and report.elo == 1070.0
    assert report.notice == "Elo 5000 is not a measured go9 level; playing the nearest, 1070"


def _random_session(name: str, plies: int, seed: int) -> GameSession:
    """``plies`` random moves (no pass, none that ends the game) from the start."""
    game = get_game(name)
    session = GameSession(game)
    rng = random.Random(seed)
    while session.ply < plies:
        state = session.state
        legal = [m for m in session.legal_moves() if game.move_to_text(m) != "pass"]
        rng.shuffle(legal)
        session.play(next(m for m in legal if not game.is_terminal(game.play(state, m))))
    return session


@pytest.mark.parametrize(("name", "plies"), [("go", 0), ("go", 60), ("go9", 41)])
def test_go_cells_of_moves_are_the_cells_the_moves_fill(name: str, plies: int) -> None:
    """The Go shortcut (a move's own point) gives what playing each move and comparing the
    boards gives."""
    session = _random_session(name, plies, seed=plies)
    game, state, legal = session.game, session.state, session.legal_moves()
    before = grid_cells(game, state)
    played = {}
    for move in legal:
        after = grid_cells(game, game.play(state, move))
        filled = [
            [r, c]
            for r in range(len(before))
            for c in range(len(before[r]))
            if before[r][c] == "." and after[r][c] != "."
        ]
        if len(filled) == 1:
            played[str(move)] = filled[0]
    cells = _cells_of_moves(game, state, legal)
    assert cells == played
    assert len(cells) == len(legal) - 1  # every move but the pass


def test_chess_sans_are_those_of_each_position() -> None:
    session = _random_session("chess", 120, seed=3)
    game = session.game
    assert isinstance(game, Chess)
    expected = [move_texts(game, session.state_at(i), [m])[0] for i, m in enumerate(session.moves)]
    assert _chess_sans(game, session) == expected
    assert any("x" in s for s in expected) and any("+" in s for s in expected)


def _row(session: GameSession, status: str) -> GameRow:
    return GameRow(
        id="g", player_id="p", game=session.game.name, game_params={}, opponent={},
        opponent_label="AI", human_side=1, status=status, result=None, ply=session.ply,
        to_move=session.to_move, version=1, snapshot=session.snapshot(), created="",
        updated="", adaptive_key=None, notices=[],
    )  # fmt: skip


def _move_rows(session: GameSession) -> list[MoveRow]:
    """The stored moves of ``session`` (the AI on side 0): the AI's with an analysis."""
    return [
        MoveRow(i, m, side, "ai", {"move": m, "moves": [m]})
        if side == 0
        else MoveRow(i, m, side, "human", None)
        for i, (m, side) in enumerate(zip(session.moves, session.movers, strict=True))
    ]


def test_a_state_shows_the_last_analysis_until_the_game_is_over() -> None:
    """While the game goes on its state holds the analysis of the AI's last move only (none
    against an adaptive opponent); once it is over, every move's."""
    session = _random_session("connect4", 7, seed=1)  # the person (side 1) to move
    rows = _move_rows(session)
    ongoing = _row(session, "ongoing")
    assert analysis_from(ongoing) == 6
    state = game_state(ongoing, session.game, rows)
    assert [m["analysis"] is not None for m in state["moves"]] == [False] * 6 + [True]
    last = session.moves[6]
    texts = [str(last + 1)]  # (Connect Four's columns are written from 1)
    assert state["moves"][6]["analysis"] == {"move": last, "moves": [last], "texts": texts}
    thinking = _random_session("connect4", 6, seed=1)  # the AI to move: its last move shown
    state = game_state(_row(thinking, "ongoing"), thinking.game, _move_rows(thinking))
    assert analysis_from(_row(thinking, "ongoing")) == 4
    assert [m["analysis"] is not None for m in state["moves"]] == [False] * 4 + [True, False]
    assert analysis_from(_row(_random_session("connect4", 0, seed=1), "ongoing")) == 0
    over = _row(session, "over")
    assert analysis_from(over) == 0
    state = game_state(over, session.game, rows)
    shown = [m["analysis"]["move"] for m in state["moves"] if m["analysis"] is not None]
    assert shown == list(session.moves[0::2])
    rated = dataclasses.replace(ongoing, adaptive_key="connect4")
    assert analysis_from(rated) == 7
    state = game_state(rated, session.game, rows)
    assert [m["analysis"] for m in state["moves"]] == [None] * 7
    state = game_state(dataclasses.replace(rated, status="over"), session.game, rows)
    assert [m["analysis"] is not None for m in state["moves"]] == [True, False] * 3 + [True]


def test_the_session_cache_continues_a_copy_and_restores_what_does_not_fit() -> None:
    game = get_game("connect4")
    whole = _random_session("connect4", 6, seed=2)
    cache = SessionCache(size=2)

    def row_at(ply: int, game_id: str = "g") -> GameRow:
        snapshot = whole.snapshot()
        for key in ("moves", "movers", "think_times", "annotations"):
            snapshot[key] = snapshot[key][:ply]  # type: ignore[index]
        return dataclasses.replace(_row(whole, "ongoing"), id=game_id, snapshot=snapshot)

    first = cache.session(row_at(4), game)
    assert first.ply == 4 and cache.session(row_at(4), game) is first  # kept as it is
    later = cache.session(row_at(5), game)
    assert later is not first and later.ply == 5 and first.ply == 4  # a copy continued
    assert np.array_equal(later.state, whole.state_at(5))
    back = cache.session(row_at(3), game)  # a move taken back: restored
    assert back.ply == 3 and back.moves == whole.moves[:3]
    cache.session(row_at(2, "h"), game)
    cache.session(row_at(2, "i"), game)  # two games kept at most: "g" is out
    assert cache.session(row_at(3), game) is not back
