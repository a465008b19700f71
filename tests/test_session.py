"""GameSession: checked moves, the players' lifecycle, undo, resign, records and snapshots."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from sparring.errors import (
    BadValueError,
    GameOverError,
    IllegalMoveError,
    SnapshotError,
    SparringError,
    UnsupportedGameError,
)
from sparring.games import get_game
from sparring.games.base import Game, Outcome, State
from sparring.players import make_player
from sparring.players.base import Decision, Player, PlayerState, RandomPlayer
from sparring.search.limit import Limit
from sparring.session import (
    GameSession,
    NoPlayerError,
    advance,
    default_format,
)


class Recorder(Player):
    """Plays scripted moves (or the first legal one) and logs every lifecycle call."""

    def __init__(self, name: str, script: list[int] | None = None) -> None:
        super().__init__(name, 0)
        self.script = list(script or [])
        self.log: list[tuple[Any, ...]] = []
        self.games = 0

    def select_move(self, game: Game, state: State, limit: Limit | None = None) -> int:
        self.log.append(("select", game.ply(state)))
        return self.script.pop(0) if self.script else int(game.legal_moves(state)[0])

    def new_game(self, game: Game, player_index: int) -> None:
        self.log.append(("new_game", player_index))

    def observe(self, game: Game, move: int, state: State) -> None:
        self.log.append(("observe", move, game.ply(state)))

    def game_over(self, game: Game, final_state: State, score: float) -> None:
        self.games += 1
        self.log.append(("game_over", score))

    def play(self, game: Game, state: State, limit: Limit | None = None) -> Decision:
        move = self.select_move(game, state, limit)
        return Decision(move, annotation=self.annotation())

    def annotation(self) -> dict[str, Any] | None:
        return {"by": self.name}

    def save_state(self) -> PlayerState | None:
        return {"games": self.games}

    def restore_state(self, data: PlayerState | None) -> None:
        assert isinstance(data, dict) and isinstance(data["games"], int)
        self.games = data["games"]


def calls(player: Recorder) -> list[str]:
    return [entry[0] for entry in player.log]


# ---- moves and the lifecycle ---------------------------------------------------------------------
def test_players_are_told_every_move_in_order_and_the_end_once() -> None:
    game = get_game("tictactoe")
    # X: a1 b1 c1 wins on its third move (X a1, O a2, X b1, O b2, X c1).
    x, o = Recorder("X", [0, 1, 2]), Recorder("O", [3, 4])
    session = GameSession(game, (x, o))
    assert session.play_out() is Outcome.FIRST_WINS
    assert session.moves == (0, 3, 1, 4, 2)
    assert session.movers == (0, 1, 0, 1, 0)
    assert x.log[0] == ("new_game", 0) and o.log[0] == ("new_game", 1)
    observed = [e for e in o.log if e[0] == "observe"]
    assert observed == [("observe", m, i + 1) for i, m in enumerate(session.moves)]
    assert calls(x) == ["new_game"] + ["select", "observe", "observe"] * 2 + [
        "select",
        "observe",
        "game_over",
    ]
    assert x.log[-1] == ("game_over", 1.0) and o.log[-1] == ("game_over", 0.0)
    assert session.result == 1.0 and session.score_for(1) == 0.0
    record = session.record()
    assert record.moves == session.moves and record.result == 1.0
    assert record.annotations == tuple({"by": "XO"[i % 2]} for i in range(5))
    assert len(record.think_times) == 5 and all(t >= 0 for t in record.think_times)
    with pytest.raises(GameOverError, match="'c3' not played"):
        session.play(8)
    assert session.step() is None
    assert x.games == 1  # game_over exactly once


def test_play_checks_moves_and_changes_nothing_on_error() -> None:
    game = get_game("connect4")
    session = GameSession(game, (None, RandomPlayer(seed=1)), start=game.parse_position("444444"))
    before = session.snapshot()
    with pytest.raises(IllegalMoveError, match="illegal move '4' for player 0 at ply 0"):
        session.play(3)  # column 4 is full
    with pytest.raises(IllegalMoveError, match=r"illegal move 9 \(outside 0\.\.6\)"):
        session.play(9)
    with pytest.raises(IllegalMoveError, match="True is not a move"):
        session.play(True)
    with pytest.raises(NoPlayerError, match="give its move to play"):
        session.play_player()
    assert session.step() is None  # the person's turn: nothing happens
    assert session.snapshot() == before
    session.play(0, think_time=0.5)
    assert session.step() is not None  # the random reply
    assert session.think_times[0] == 0.5 and session.annotations == (None, None)
    assert session.movers == (0, 1) and session.to_move == 0


class Cheat(Player):
    def __init__(self, answer: object) -> None:
        super().__init__("Cheat", 0)
        self.answer = answer

    def select_move(self, game: Game, state: State, limit: Limit | None = None) -> int:
        return self.answer  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("answer", "needle"),
    [(0, "chose the illegal move '1' at ply 1"), ("4", "returned '4', not a move")],
)
def test_a_player_choosing_an_illegal_move_is_named(answer: object, needle: str) -> None:
    game = get_game("connect4")
    session = GameSession(game, (None, Cheat(answer)), start=game.parse_position("111111"))
    session.play(1)  # 2 (column index 1); column 1 (index 0) is full
    with pytest.raises(IllegalMoveError, match=f"'Cheat' {needle}"):
        session.play_player()
    assert session.ply == 1


def test_one_player_cannot_take_both_sides() -> None:
    p = RandomPlayer()
    with pytest.raises(ValueError, match="both sides"):
        GameSession(get_game("tictactoe"), (p, p))


def test_resign_ends_the_game_and_tells_the_players_once() -> None:
    game = get_game("connect4")
    a, b = Recorder("A"), Recorder("B")
    session = GameSession(game, (a, b))
    session.step()
    session.resign(1)
    assert session.outcome is Outcome.FIRST_WINS and session.resigned == 1
    assert a.log[-1] == ("game_over", 1.0) and b.log[-1] == ("game_over", 0.0)
    with pytest.raises(GameOverError, match="player 1 resigned"):
        session.resign(0)
    with pytest.raises(GameOverError, match="cannot be undone"):
        session.undo()
    assert a.games == 1 and b.games == 1


class Resigner(Recorder):
    """Says it resigns at its second move (as the GNU Go player does for ``resign``)."""

    def annotation(self) -> dict[str, Any] | None:
        return {"resigned": True} if len(self.log) > 3 else None


def test_a_player_resigns_through_its_annotation() -> None:
    game = get_game("connect4")
    a, b = Recorder("A"), Resigner("B", [6, 6])
    session = GameSession(game, (a, b))
    outcome = session.play_out()
    # A: 0, B: 6, A: 0, then B's second answer is a resignation, not the move 6
    assert session.moves == (0, 6, 0) and session.resigned == 1
    assert outcome is Outcome.FIRST_WINS and session.result == 1.0
    assert a.log[-1] == ("game_over", 1.0) and b.log[-1] == ("game_over", 0.0)
    assert session.record().annotations == ({"by": "A"}, None, {"by": "A"})


def test_undo_retells_the_players_from_their_saved_state() -> None:
    game = get_game("tictactoe")
    x, o = Recorder("X", [0, 1, 2]), Recorder("O", [3, 4])
    session = GameSession(game, (x, o))
    session.play_out()
    assert x.games == 1
    x.log.clear()
    session.undo(2)  # back to X a1, O a2, X b1, O b2 minus the last two: X a1 O a2 X b1
    assert session.moves == (0, 3, 1) and not session.is_over
    assert session.outcome is Outcome.ONGOING and session.result is None
    # back to the saved state (games=0), then new_game and the three remaining moves again
    assert x.games == 0
    assert x.log == [("new_game", 0), ("observe", 0, 1), ("observe", 3, 2), ("observe", 1, 3)]
    session.play(5)  # O c2 instead
    assert session.step() == 2  # X c1 wins again
    assert session.outcome is Outcome.FIRST_WINS and x.games == 1
    with pytest.raises(ValueError, match="cannot take back 6"):
        session.undo(6)
    session.undo(5)
    assert session.ply == 0 and np.array_equal(session.state, game.initial_state())


# ---- records and snapshots -----------------------------------------------------------------------
def _random_session(name: str, seed: int) -> GameSession:
    game = get_game(name)
    session = GameSession(game, (RandomPlayer("R1", seed), RandomPlayer("R2", seed + 1)))
    session.play_out()
    return session


@pytest.mark.parametrize("name", ["tictactoe", "connect4", "othello6", "go9", "chess"])
def test_snapshot_round_trip_through_json(name: str) -> None:
    session = _random_session(name, 5)
    snapshot = json.loads(json.dumps(session.snapshot()))
    a, b = Recorder("A"), Recorder("B")
    restored = GameSession.restore(snapshot, (a, b))
    assert restored.moves == session.moves
    assert restored.outcome is session.outcome
    assert restored.think_times == session.think_times
    assert restored.names == ("R1", "R2")
    assert np.array_equal(restored.state, session.state)
    assert [e for e in b.log if e[0] == "observe"] == [
        ("observe", m, i + 1) for i, m in enumerate(session.moves)
    ]
    assert b.log[-1][0] == "game_over"


def test_snapshot_from_a_position_and_of_a_resigned_game() -> None:
    game = get_game("connect4")
    session = GameSession(game, start=game.parse_position("4453"), names=("me", "you"))
    session.play(2)
    session.resign(0)
    snapshot = session.snapshot()
    assert snapshot["start"] == game.position_to_text(game.parse_position("4453"))
    restored = GameSession.restore(json.loads(json.dumps(snapshot)))
    assert restored.resigned == 0 and restored.outcome is Outcome.SECOND_WINS
    assert restored.moves == (2,) and restored.names == ("me", "you")


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"format": "x"}, "not a sparring session"),
        ({"version": 7}, "version 7"),
        ({"game": "connect5"}, "unknown game"),
        ({"moves": [3, 3, 3, 3, 3, 3, 3]}, "move 7: connect4: illegal move '4'"),
        ({"moves": ["4"]}, "moves must be a list of int"),
        ({"resigned": 2}, "resigned must be"),
    ],
)
def test_bad_snapshots_are_named(change: dict[str, Any], needle: str) -> None:
    snapshot = GameSession(get_game("connect4")).snapshot()
    moves = change.get("moves", [])
    snapshot.update({"think_times": [0.0] * len(moves), "annotations": [None] * len(moves)})
    snapshot.update({"movers": [i % 2 for i in range(len(moves))]})
    snapshot.update(change)
    with pytest.raises(SparringError, match=needle):
        GameSession.restore(snapshot)


def test_exports_use_each_games_natural_format() -> None:
    assert [default_format(get_game(n)) for n in ("go9", "chess", "connect4")] == [
        "sgf",
        "pgn",
        "moves",
    ]
    go = _random_session("go9", 1)
    assert go.export().startswith("(;FF[4]")
    assert "1. " in go.export("moves")
    with pytest.raises(Exception, match="PGN records are written for chess only"):
        go.export("pgn")
    with pytest.raises(Exception, match="SGF records are written for Go only"):
        _random_session("tictactoe", 1).export("sgf")


def test_advance_is_the_unchecked_step() -> None:
    game = get_game("tictactoe")
    state = game.initial_state()
    child, outcome = advance(game, state, 4)
    assert outcome is Outcome.ONGOING and game.ply(child) == 1 and game.ply(state) == 0


@pytest.mark.parametrize("a_first", [True, False])
def test_a_session_plays_the_same_game_as_the_match_runner(a_first: bool) -> None:
    from sparring.evaluation.match import play_game
    from sparring.players import make_player

    game = get_game("connect4")

    def build() -> tuple[Player, Player]:
        return make_player("uct:sims=30", game, 1), make_player("mcts4", game, 2)

    stored = play_game(game, build(), a_first=a_first)
    a, b = build()
    session = GameSession(game, (a, b) if a_first else (b, a))
    session.play_out()
    record = session.record()
    assert record.moves == stored.moves
    assert record.result == stored.result
    assert record.annotations == stored.annotations
    assert len(record.think_times) == len(stored.think_times)


# ---- handicap, moves out of turn, game parameters --------------------------------------------
def _gtp(game: Game, *texts: str) -> list[int]:
    return [game.parse_move(t) for t in texts]


@pytest.mark.parametrize(
    ("name", "count", "expected"),
    [
        ("go", 9, ("D4", "Q16", "D16", "Q4", "D10", "Q10", "K4", "K16", "K10")),
        ("go", 5, ("D4", "Q16", "D16", "Q4", "K10")),
        ("go13", 4, ("D4", "K10", "D10", "K4")),
        ("go13", 7, ("D4", "K10", "D10", "K4", "D7", "K7", "G7")),
        ("go9", 2, ("C3", "G7")),
        ("go9", 8, ("C3", "G7", "C7", "G3", "C5", "G5", "E3", "E7")),
    ],
)
def test_fixed_handicap_follows_gtp(name: str, count: int, expected: tuple[str, ...]) -> None:
    game = get_game(name)
    session = GameSession(game, handicap=count)
    assert [game.move_to_text(p) for p in session.handicap] == list(expected)
    black, white = game.stones(session.state)  # type: ignore[attr-defined]
    assert int(black.sum()) == count and int(white.sum()) == 0
    assert session.to_move == 1  # White moves first after the handicap
    assert session.export().count("AB[") == 1 and f"HA[{count}]" in session.export()


def test_free_handicap_and_its_errors() -> None:
    game = get_game("go9")
    session = GameSession(game)
    assert session.place_handicap(points=_gtp(game, "A1", "J9", "E5")) == _gtp(
        game, "A1", "J9", "E5"
    )
    assert session.to_move == 1
    with pytest.raises(IllegalMoveError, match="before the first move"):
        session.place_handicap(2)
    fresh = GameSession(game)
    with pytest.raises(BadValueError, match=r"2\.\.9 stones, not 10") as err:
        fresh.place_handicap(10)
    assert err.value.key == "handicap"
    with pytest.raises(BadValueError, match="given twice"):
        fresh.place_handicap(points=[3, 3])
    with pytest.raises(BadValueError, match="not on the board"):
        fresh.place_handicap(points=[3, 81])  # 81 is the pass
    with pytest.raises(UnsupportedGameError, match="connect4 has no handicap"):
        GameSession(get_game("connect4"), handicap=2)
    assert fresh.handicap == () and fresh.to_move == 0  # nothing changed


def test_go_takes_a_move_for_a_named_side_out_of_turn() -> None:
    game = get_game("go9")
    session = GameSession(game)
    d4, e5, c3 = _gtp(game, "D4", "E5", "C3")
    session.play(d4, side=0)
    session.play(e5, side=0)  # Black again (GTP 'play b E5' while White is to move)
    assert session.movers == (0, 0) and session.to_move == 1
    black, white = game.stones(session.state)  # type: ignore[attr-defined]
    assert int(black.sum()) == 2 and int(white.sum()) == 0
    session.play(c3, side=1)
    assert session.to_move == 0
    with pytest.raises(IllegalMoveError, match="illegal move 'C3' for player 0"):
        session.play(c3, side=0)  # occupied
    with pytest.raises(BadValueError, match="a side is 0 or 1"):
        session.play(c3, side=2)
    sgf = session.export().replace("\n", "")
    assert sgf.endswith(";B[df];B[ee];W[cg])")  # the colour of each move as played
    with pytest.raises(UnsupportedGameError, match="out of turn"):
        session.export("moves")
    assert session.undo_turn(0) == 2  # Black's E5 and White's reply
    assert session.moves == (d4,)


def test_games_that_move_in_turn_refuse_a_move_out_of_turn() -> None:
    game = get_game("connect4")
    session = GameSession(game)
    with pytest.raises(IllegalMoveError, match=r"O \(player 1\) may not move now"):
        session.play(3, side=1)
    session.play(3, side=0)
    assert session.movers == (0,)


def test_undo_turn_takes_back_a_persons_move_and_the_replies() -> None:
    game = get_game("tictactoe")
    session = GameSession(game, (None, Recorder("O")))
    assert session.undo_turn(0) == 0 and session.ply == 0
    session.play(4)
    session.step()
    assert session.takeback_count(0) == 2 and session.takeback_count(1) == 1
    assert session.undo_turn(0) == 2 and session.ply == 0


def test_snapshot_keeps_the_games_parameters_handicap_and_sides() -> None:
    game = get_game("go", size=13, komi=6.5)
    session = GameSession(game, handicap=3, names=("B", "W"))
    q10, k10 = _gtp(game, "F6", "G7")
    session.play(q10)  # White
    session.play(k10, side=1)  # White again
    snapshot = json.loads(json.dumps(session.snapshot()))
    assert snapshot["version"] == 2
    assert snapshot["game"] == "go13" and snapshot["game_params"] == {"size": 13, "komi": 6.5}
    assert snapshot["handicap"] == list(session.handicap) and snapshot["movers"] == [1, 1]
    assert snapshot["start"] is None and snapshot["players"] == [None, None]
    restored = GameSession.restore(snapshot)
    assert restored.game.params() == {"size": 13, "komi": 6.5}
    assert restored.handicap == session.handicap and restored.movers == (1, 1)
    assert np.array_equal(restored.state, session.state)
    assert restored.export() == session.export()


def test_version_1_snapshots_restore_with_given_players() -> None:
    game = get_game("connect4")
    old = {
        "format": "sparring.session",
        "version": 1,
        "game": "connect4",
        "start": None,
        "names": ["a", "b"],
        "moves": [3, 3],
        "think_times": [0.0, 0.0],
        "annotations": [None, None],
        "resigned": None,
        "player_states": [{"games": 4}, None],
    }
    x = Recorder("X")
    restored = GameSession.restore(old, (x, None))
    assert restored.moves == (3, 3) and x.games == 4 and restored.to_move == 0
    assert restored.snapshot()["version"] == 2
    with pytest.raises(SnapshotError, match=r"player 0 .* has no settings"):
        GameSession.restore(old)
    assert game.name == "connect4"


def test_a_player_without_typed_settings_needs_players_to_restore() -> None:
    session = GameSession(get_game("tictactoe"), (Recorder("X"), None))
    snapshot = session.snapshot()
    assert snapshot["players"][0]["settings"] is None  # type: ignore[index]
    with pytest.raises(SnapshotError, match="player 0 \\(X\\) has no settings"):
        GameSession.restore(snapshot)


def test_play_player_passes_a_limit_on_thinking() -> None:
    from sparring.search.limit import Limit

    game = get_game("connect4")

    class Bounded(Player):
        def __init__(self) -> None:
            super().__init__("B", 0)
            self.limits: list[Limit | None] = []

        def select_move(self, game: Game, state: State, limit: Limit | None = None) -> int:
            self.limits.append(limit)
            return 3

    player = Bounded()
    session = GameSession(game, (player, None))
    session.play_player(Limit(simulations=5))
    session.play(3)
    session.play_player()
    assert player.limits == [Limit(simulations=5), None]


def test_catch_up_continues_a_session_to_a_later_snapshot() -> None:
    """A session brought to a later snapshot of its game equals the restored one; a snapshot
    that does not continue it (a move taken back, other names) is refused."""
    game = get_game("go", size=9)
    later = GameSession(game, handicap=2, names=("B", "W"))
    for text in ("E4", "D6", "F5"):
        later.play(game.parse_move(text, later.state), think_time=0.5, annotation={"n": text})
    snapshot = json.loads(json.dumps(later.snapshot()))
    kept = GameSession.restore({**snapshot, **{k: snapshot[k][:1] for k in _PER_MOVE}})
    assert kept.ply == 1
    copied = kept.copy()
    assert copied.catch_up(snapshot) and copied.ply == 3 and kept.ply == 1
    assert copied.snapshot() == snapshot and copied.think_times == (0.5, 0.5, 0.5)
    assert copied.matches(snapshot) and not kept.matches(snapshot)
    assert np.array_equal(copied.state, later.state)
    assert not kept.copy().catch_up({**snapshot, "names": ["B", "X"]})
    taken_back = {**snapshot, **{k: snapshot[k][:0] for k in _PER_MOVE}}
    assert not copied.copy().catch_up(taken_back)  # fewer moves than the session holds
    other = {**snapshot, "moves": [snapshot["moves"][0] + 1, *snapshot["moves"][1:]]}
    assert not kept.copy().catch_up(other)  # not the session's first move
    with pytest.raises(ValueError, match="cannot be copied"):
        GameSession(game, (Recorder("X"), None)).copy()


_PER_MOVE = ("moves", "movers", "think_times", "annotations")


def test_catch_up_puts_the_players_streams_back_from_the_snapshot() -> None:
    """The players of a continued session draw from the snapshot's random streams (as a
    restored session's do), whatever they drew meanwhile."""
    game = get_game("connect4")
    session = GameSession(game, (None, make_player("random", game, seed=1)))
    session.play(3)
    session.play_player()
    snapshot = json.loads(json.dumps(session.snapshot()))
    session.players[1].rng.random()  # type: ignore[union-attr]
    assert not session.matches(snapshot)
    assert session.catch_up(snapshot) and session.matches(snapshot)
    session.play(3)
    restored = GameSession.restore(snapshot)
    restored.play(3)
    assert session.play_player() == restored.play_player()
