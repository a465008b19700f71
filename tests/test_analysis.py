"""The analysis record (:class:`MoveAnalysis`) on hand-worked cases, its JSON form, and the
strength setting (with a clamped target) that SA players report."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from sparring.errors import BadValueError
from sparring.games import get_game
from sparring.games.base import Game, State
from sparring.players import PlayerCache, make_player
from sparring.players.alphazero import AlphaZeroPlayer
from sparring.players.minimax import MinimaxPlayer
from sparring.players.strength import StrengthAdjustedPlayer
from sparring.search.analysis import MoveAnalysis, StrengthReport
from sparring.search.evaluator import UniformEvaluator
from sparring.search.limit import Limit, LimitClock
from sparring.search.puct import PUCTConfig
from sparring.search.stats import RootStats
from sparring.strength.selection import StrengthSetting

TTT = get_game("tictactoe")


def _endgame() -> State:
    """Tic-tac-toe, O to move with squares 6 and 8 empty::

        O X X
        X O O
        . X .

    O at 8 wins (the diagonal 0-4-8); O at 6 lets X fill 8 for a draw."""
    state = TTT.initial_state()
    for move in (1, 0, 2, 4, 3, 5, 7):
        state = TTT.play(state, move)
    assert list(TTT.legal_moves(state)) == [6, 8] and TTT.to_move(state) == 1
    return state


def test_puct_record_on_a_hand_worked_search() -> None:
    """Three simulations, uniform priors (0.5 each), value 0 for every leaf, C_puct 1.25.

    1. ``N(root) = 1``: both scores ``0 + 1.25 * 0.5 * 1 / 1``; the tie goes to 6, a new leaf
       (value 0).
    2. ``N = 2``: 6 scores ``1.25 * 0.5 * sqrt(2) / 2 = 0.44``, 8 scores ``0.88``: 8 wins the
       game (exact value +1 for O).
    3. ``N = 3``: 6 scores ``0.54``, 8 scores ``1 + 0.54``: 8 again.

    Visits (1, 2), Q (0, 1), value 2/3, principal variation (8,): the winning child is
    terminal, so the line ends there; 3 nodes (the root and both children)."""
    player = AlphaZeroPlayer(UniformEvaluator(), PUCTConfig(simulations=3), seed=0)
    decision = player.play(TTT, _endgame())
    move, a = decision.move, decision.analysis
    assert move == 8 and a is not None
    assert a.search == "puct" and a.move == 8
    assert a.moves == (6, 8) and a.visits == (1, 2) and a.q == (0.0, 1.0)
    assert a.priors == (0.5, 0.5) and a.pv == (8,)
    assert a.value == pytest.approx(2.0 / 3.0)
    assert a.simulations == 3 and a.nodes == 3
    assert not a.stopped and a.strength is None and a.notices == () and a.depth is None
    assert a.time > 0.0  # (includes compiling the search on a cold cache)
    assert decision.annotation is None  # az reports nothing to the game store, as before
    assert a.best_moves() == (8,)
    assert a.policy(9).tolist() == [0, 0, 0, 0, 0, 0, 1 / 3, 0, 2 / 3]


def test_minimax_record_on_a_hand_worked_search() -> None:
    """Tic-tac-toe searches to the end: O at 6 is a draw (0), O at 8 a win (1000)."""
    player = MinimaxPlayer(depth=3, seed=0)
    decision = player.play(TTT, _endgame())
    move, a = decision.move, decision.analysis
    assert move == 8 and a is not None
    assert a.search == "minimax" and a.moves == (6, 8) and a.q == (0.0, 1000.0)
    assert a.visits == (0, 0) and a.pv == (8,) and a.value == 1000.0
    assert a.depth == TTT.max_game_length and a.nodes == 2 and not a.stopped


def test_json_round_trip() -> None:
    player = AlphaZeroPlayer(UniformEvaluator(), PUCTConfig(simulations=3), seed=0)
    a = player.play(TTT, _endgame()).analysis
    assert a is not None
    text = json.dumps(a.to_json(), allow_nan=False)
    assert MoveAnalysis.from_json(json.loads(text)) == a
    report = StrengthReport(-math.inf, 0.1, 1.5, elo_asked=99999.0, elo_played=2267.0,
                            clamped=True)  # fmt: skip
    b = MoveAnalysis(3, "none", strength=report, notices=("clamped",),
                     annotations={"random": True, "z": "-inf"})  # fmt: skip
    data = json.loads(json.dumps(b.to_json(), allow_nan=False))
    assert data["strength"]["z"] == "-inf"
    assert MoveAnalysis.from_json(data) == b


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"extra": 1}, "extra"),
        ({"visits": [1]}, "visits"),
        ({"stopped": "yes"}, "stopped"),
        ({"simulations": 2.5}, "simulations"),
        ({"search": "alphabeta"}, "search"),
        ({"q": [0.0, "x"]}, "q"),
        ({"strength": {"z": 1.0, "rth": 0.1, "elo": 3}}, "elo"),
    ],
)
def test_bad_json_names_the_key(change: dict[str, object], key: str) -> None:
    player = AlphaZeroPlayer(UniformEvaluator(), PUCTConfig(simulations=3), seed=0)
    analysis = player.play(TTT, _endgame()).analysis
    assert analysis is not None
    data = {**analysis.to_json(), **change}
    with pytest.raises(BadValueError) as err:
        MoveAnalysis.from_json(data)
    assert err.value.key == key


def _fixed(visits: list[int]):  # type: ignore[no-untyped-def]
    def factory(_rng: np.random.Generator):  # type: ignore[no-untyped-def]
        def run(
            game: Game, state: State, limit: Limit | None = None, clock: LimitClock | None = None
        ) -> RootStats:
            return RootStats.from_visits(game.legal_moves(state), np.array(visits))

        return run

    return factory


def test_sa_record_reports_the_setting_and_derives_the_annotation() -> None:
    setting = StrengthSetting(-math.inf, 0.1, 2.0)  # floor 2: every move uniformly at random
    player = StrengthAdjustedPlayer(_fixed([5, 1]), setting, seed=1)
    decision = player.play(TTT, _endgame())
    move, a = decision.move, decision.analysis
    assert a is not None and move in (6, 8)
    assert a.strength == StrengthReport(-math.inf, 0.1, 2.0)
    assert a.search == "none" and a.annotations == {"random": True}
    assert decision.annotation == {"random": True}
    plain = StrengthAdjustedPlayer(_fixed([5, 1]), StrengthSetting(math.inf, 0.1), seed=1)
    decision = plain.play(TTT, _endgame())
    assert decision.move == 6  # z = +inf: the most visited
    assert decision.annotation == {"moves": [6, 8], "visits": [5, 1]}
    assert decision.analysis is not None and decision.analysis.visits == (5, 1)


def test_sa_target_elo_and_clamping_are_data() -> None:
    game = get_game("connect4")
    cache = PlayerCache()
    state = game.play(game.initial_state(), 3)
    inside = make_player("sa:model=connect4,elo=1500", game, seed=2, cache=cache)
    a = inside.play(game, state, Limit(simulations=30)).analysis
    assert a is not None and a.strength is not None
    assert a.strength.elo_asked == 1500.0 and a.strength.elo_played == pytest.approx(1500.0)
    assert not a.strength.clamped and a.notices == ()
    high = make_player("sa:model=connect4,elo=99999", game, seed=2, cache=cache)
    b = high.play(game, state, Limit(simulations=30)).analysis
    assert b is not None and b.strength is not None
    assert b.strength.clamped and b.strength.elo_asked == 99999.0
    assert b.strength.elo_played is not None and 1500.0 < b.strength.elo_played < 3000.0
    assert len(b.notices) == 1 and "99999" in b.notices[0]
    assert (b.strength.z, b.strength.rth, b.strength.floor) == (
        high.setting.z, high.setting.rth, high.setting.floor,  # type: ignore[attr-defined]
    )  # fmt: skip
    assert b.simulations == 30 and not b.stopped
    assert MoveAnalysis.from_json(json.loads(json.dumps(b.to_json()))) == b


def test_move_filter_is_the_games() -> None:
    """Go supplies its finishing rules; other games none."""
    go9 = get_game("go9")
    assert TTT.move_filter(TTT.initial_state()) is None
    rule = go9.move_filter(go9.initial_state())
    assert rule is not None and not rule.pass_now and rule.pass_move == go9.pass_move  # type: ignore[attr-defined]
    assert not rule.avoid.any()  # no eyes on an empty board
