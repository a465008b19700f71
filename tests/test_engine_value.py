"""Stockfish's value behind the human-like chess search (sparring.players.engine_value) and
the ``sf_nodes`` setting of the human-like kinds.

The mapping and the process handling are checked against hand-worked numbers and a fake UCI
engine (a small shell script, so these run without Stockfish); the values of real positions,
the searches and a whole game need Stockfish (skipped when it is missing, failed with
SPARRING_CI=1).
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import numpy as np
import pytest

import sparring.kinds  # noqa: F401  (registers the human-like kinds)
from child_processes import children
from sparring.errors import IncompatiblePlayerError, PlayerResourceError, PlayerSettingsError
from sparring.games import get_game
from sparring.games.base import Outcome
from sparring.games.chess import Chess
from sparring.players import make_player
from sparring.players.cache import PlayerCache
from sparring.players.engine_value import (
    LICHESS_K,
    EngineValueEvaluator,
    StockfishValue,
    cp_to_value,
    parse_score,
    score_value,
)
from sparring.players.external import find_program
from sparring.players.human_like import HumanMCTSSettings, SEInfMCTSSettings
from sparring.players.registry import parse_player, settings_from_json
from sparring.session import GameSession

CI = os.environ.get("SPARRING_CI") == "1"
STOCKFISH = find_program("stockfish")
needs_stockfish = pytest.mark.skipif(
    STOCKFISH is None and not CI,
    reason="stockfish is not installed (apt-get install stockfish; SPARRING_CI=1 fails instead)",
)
QUEEN_UP = "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR {} KQkq - 0 1"
"""The start position without Black's queen (``{}``: the side to move)."""


def _stockfish() -> Path:
    assert STOCKFISH is not None, "stockfish is not installed (SPARRING_CI=1)"
    return STOCKFISH


def _fake_engine(tmp_path: Path, on_go: str) -> Path:
    """A shell script that speaks enough UCI: ``on_go`` is what it does on ``go``."""
    script = tmp_path / "fake-stockfish"
    script.write_text(
        "#!/bin/bash\n"
        "while read -r line; do\n"
        '  case "$line" in\n'
        "    uci) echo 'id name fake'; echo uciok ;;\n"
        "    isready) echo readyok ;;\n"
        f"    go*) {on_go} ;;\n"
        "    quit) exit 0 ;;\n"
        "  esac\n"
        "done\n"
    )
    script.chmod(0o755)
    return script


# ---- the mapping ---------------------------------------------------------------------------------
def test_cp_to_value_is_lichess_win_percentage() -> None:
    assert LICHESS_K == 0.00368208
    assert cp_to_value(0) == 0.0
    # 2 / (1 + e^-0.368208) - 1 = tanh(0.184104) = 0.182051794383...
    assert cp_to_value(100) == pytest.approx(0.1820517943832257, abs=1e-13)
    assert cp_to_value(-100) == pytest.approx(-0.1820517943832257, abs=1e-13)
    assert 50 + 50 * cp_to_value(100) == pytest.approx(59.10258971916128, abs=1e-10)  # win%
    assert cp_to_value(900) == pytest.approx(0.9298032960561315, abs=1e-13)
    assert cp_to_value(10_000) == pytest.approx(1.0, abs=1e-15)  # not capped at 1000 cp


def test_scores_from_uci_lines() -> None:
    line = "info depth 5 seldepth 6 multipv 1 score cp 31 nodes 1024 nps 500000 pv e2e4"
    assert parse_score(line) == ("cp", 31)
    assert parse_score("info depth 9 score cp -12 lowerbound nodes 9") == ("cp", -12)
    assert parse_score("info depth 3 score mate -2 nodes 77") == ("mate", -2)
    assert parse_score("info string NNUE evaluation enabled") is None
    assert parse_score("bestmove e2e4 ponder e7e5") is None
    assert score_value("mate", 3) == 1.0
    assert score_value("mate", -1) == -1.0
    assert score_value("mate", 0) == -1.0  # mated
    assert score_value("cp", 100) == cp_to_value(100)
    with pytest.raises(ValueError, match="not a UCI score"):
        score_value("wdl", 1)


# ---- the process (a fake engine) -----------------------------------------------------------------
def test_fake_engine_values_cache_and_close(tmp_path: Path) -> None:
    program = _fake_engine(
        tmp_path, "echo 'info depth 1 score cp 100 nodes 1'; echo 'bestmove e2e4'"
    )
    game = Chess()
    engine = StockfishValue(program)
    state = game.initial_state()
    assert engine.value(game, state, 10) == pytest.approx(cp_to_value(100), abs=1e-12)
    assert (engine.analyses, engine.hits) == (1, 0)
    assert engine.value(game, state, 10) == pytest.approx(cp_to_value(100), abs=1e-12)
    assert (engine.analyses, engine.hits) == (1, 1)  # cached
    engine.value(game, state, 11)  # another node count is another entry
    assert (engine.analyses, engine.hits) == (2, 1)
    pid = engine.pid
    assert pid in children()
    engine.close()
    assert engine.pid is None and pid not in children()  # quit and reaped


def test_an_engine_that_dies_twice_is_a_player_resource_error(tmp_path: Path) -> None:
    before = set(children())  # (other tests' processes may still run)
    engine = StockfishValue(_fake_engine(tmp_path, "exit 1"))
    with pytest.raises(PlayerResourceError, match="died twice") as info:
        engine.value(Chess(), Chess().initial_state(), 10)
    assert info.value.key == "sf_nodes" and engine.restarts == 1
    assert engine.pid is None and not set(children()) - before


def test_a_program_that_is_not_an_engine(tmp_path: Path) -> None:
    before = set(children())  # (other tests' processes may still run)
    with pytest.raises(PlayerResourceError, match="not a UCI engine") as info:
        StockfishValue(Path("/bin/true")).value(Chess(), Chess().initial_state(), 10)
    assert info.value.key == "sf_nodes"
    with pytest.raises(PlayerResourceError, match="cannot start"):
        StockfishValue(tmp_path / "stockfish").value(Chess(), Chess().initial_state(), 10)
    assert not set(children()) - before


class _Stub:
    """Priors 0.25 on every move, value 0.5, aux 7 (edge aux 9)."""

    def evaluate(self, planes, legal, states=None):  # type: ignore[no-untyped-def]
        return np.full(legal.shape, 0.25, np.float32), np.full(len(legal), 0.5, np.float32)

    def evaluate_aux(self, planes, legal, states=None):  # type: ignore[no-untyped-def]
        return (*self.evaluate(planes, legal, states), np.full(len(legal), 7.0, np.float32))

    def evaluate_edge_aux(self, planes, legal, states, parents, moves):  # type: ignore[no-untyped-def]
        return (*self.evaluate(planes, legal, states), np.full(len(legal), 9.0, np.float32))


def test_the_wrapper_keeps_priors_and_aux_and_replaces_values(tmp_path: Path) -> None:
    program = _fake_engine(
        tmp_path, "echo 'info depth 1 score cp -100 nodes 1'; echo 'bestmove e2e4'"
    )
    game = Chess()
    states = np.stack([game.initial_state(), game.play(game.initial_state(), 796)])
    legal = np.ones((2, game.num_actions), dtype=np.bool_)
    planes = np.zeros((2, 1), dtype=np.float32)
    engine = StockfishValue(program)
    wrapped = EngineValueEvaluator(_Stub(), engine, game, 5)  # type: ignore[arg-type]
    expected = np.float32(cp_to_value(-100))
    priors, values = wrapped.evaluate(planes, legal, states)
    assert np.all(priors == 0.25) and np.all(values == expected)
    _, values, aux = wrapped.evaluate_aux(planes, legal, states)
    assert np.all(values == expected) and np.all(aux == 7.0)
    _, values, aux = wrapped.evaluate_edge_aux(planes, legal, states, states, np.array([-1, 3]))
    assert np.all(values == expected) and np.all(aux == 9.0)
    assert engine.analyses == 2  # two positions, each sent once
    with pytest.raises(ValueError, match="needs the positions"):
        wrapped.evaluate(planes, legal, None)
    engine.close()


# ---- settings ------------------------------------------------------------------------------------
def test_sf_nodes_setting_round_trips() -> None:
    settings = parse_player("human-mcts:sims=8,sf_nodes=500")
    assert settings == HumanMCTSSettings(simulations=8, sf_nodes=500)
    assert settings.spec() == "human-mcts:sims=8,sf_nodes=500"
    data = settings.to_json()
    assert data["sf_nodes"] == 500
    assert settings_from_json(json.loads(json.dumps(data))) == settings
    assert parse_player("human-mcts").to_json()["sf_nodes"] == 0  # type: ignore[attr-defined]
    assert parse_player("human-mcts").spec() == "human-mcts"  # type: ignore[attr-defined]
    se = parse_player("se-inf-mcts:elo=1500,sf_nodes=20")
    assert se == SEInfMCTSSettings(rank="1400-1600", sf_nodes=20)
    assert parse_player(se.spec()) == se  # type: ignore[attr-defined]
    assert parse_player("sa-mcts:z=1,sf_nodes=7").spec() == "sa-mcts:z=1.0,sf_nodes=7"  # type: ignore[attr-defined]
    schema = HumanMCTSSettings.json_schema()["properties"]["sf_nodes"]
    assert (schema["type"], schema["default"], schema["minimum"], schema["maximum"]) == (
        "integer", 0, 0, 1_000_000,
    )  # fmt: skip


@pytest.mark.parametrize(
    "spec",
    [
        "human-mcts:sf_nodes=-1",
        "human-mcts:sf_nodes=1000001",
        "human-mcts:sf_nodes=many",
        "se-inf-mcts:rank=3d,sf_nodes=100",  # a Go rank
        "sa-mcts:rank=1-2k,sf_nodes=100,ztable=z.json",
    ],
)
def test_bad_sf_nodes_are_rejected(spec: str) -> None:
    with pytest.raises(PlayerSettingsError) as info:
        parse_player(spec)
    assert info.value.key == "sf_nodes"


def test_bad_sf_nodes_json_is_rejected() -> None:
    for value in ("100", 1.5, -3, True):
        with pytest.raises(PlayerSettingsError) as info:
            settings_from_json({"kind": "human-mcts", "sf_nodes": value})
        assert info.value.key == "sf_nodes"


def test_go_rejects_sf_nodes() -> None:
    with pytest.raises(IncompatiblePlayerError, match="for chess, not go") as info:
        make_player("human-mcts:sims=2,sf_nodes=10", get_game("go"), 0)
    assert info.value.key == "sf_nodes"


# ---- with Stockfish ------------------------------------------------------------------------------
@needs_stockfish
def test_a_queen_up_is_won_for_white_and_lost_for_black() -> None:
    game = Chess()
    engine = StockfishValue(_stockfish())
    white = engine.value(game, game.parse_position(QUEEN_UP.format("w")), 1000)
    black = engine.value(game, game.parse_position(QUEEN_UP.format("b")), 1000)
    # Stockfish 15.1 reports normalised centipawns (100 = a 50% win chance): a queen up at the
    # start is about +700 to +800, a value of 0.83 to 0.88 (0.9 would need 800 cp).
    assert white > 0.8 and black < -0.8
    # A mate in one for the side to move is +1, whichever side it is.
    assert (
        engine.value(game, game.parse_position("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"), 100) == 1.0
    )
    assert (
        engine.value(game, game.parse_position("3r2k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1"), 100) == 1.0
    )
    engine.close()


@needs_stockfish
def test_values_depend_on_the_position_alone() -> None:
    game = Chess()
    engine = StockfishValue(_stockfish())
    first = game.parse_position("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    other = game.parse_position(QUEEN_UP.format("b"))
    a = engine.value(game, first, 300)
    engine.clear()
    engine.value(game, other, 3000)  # fills the hash and history tables
    engine.clear()
    assert engine.value(game, first, 300) == a and engine.analyses == 3
    engine.close()


@needs_stockfish
def test_a_killed_engine_is_restarted() -> None:
    before = set(children())  # (other tests' processes may still run)
    game = Chess()
    engine = StockfishValue(_stockfish())
    engine.value(game, game.initial_state(), 50)
    pid = engine.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    time.sleep(0.05)
    assert -1.0 <= engine.value(game, game.play(game.initial_state(), 796), 50) <= 1.0
    assert engine.restarts == 1 and engine.pid != pid and pid not in children()
    engine.close()
    assert not set(children()) - before


@needs_stockfish
@pytest.mark.parametrize(
    "spec", ["sa-mcts:z=1,sims=6,sf_nodes=50", "se-inf-mcts:elo=1500,sims=6,sf_nodes=50"]
)
def test_sa_and_se_search_with_stockfish_values(spec: str) -> None:
    game = get_game("chess")
    cache = PlayerCache()
    player = make_player(spec, game, 3, cache)
    state = game.initial_state()
    for _ in range(2):
        state = game.play(state, player.select_move(game, state))
    (engine,) = [v for v in cache._shared.values() if isinstance(v, StockfishValue)]
    assert engine.analyses > 0
    engine.close()


@needs_stockfish
def test_the_search_wins_material_from_random() -> None:
    game = get_game("chess")
    assert isinstance(game, Chess)
    cache = PlayerCache()
    players = (
        make_player("human-mcts:sims=16,sf_nodes=100", game, 1, cache),
        make_player("random", game, 2, cache),
    )
    session = GameSession(game, players)
    while session.ply < 30 and not session.is_over:
        session.play_player()
    (engine,) = [v for v in cache._shared.values() if isinstance(v, StockfishValue)]
    value = engine.value(game, session.state, 1000)  # White to move after 30 plies
    assert game.to_move(session.state) == 0 and value > 0.9
    engine.close()


@needs_stockfish
def test_a_game_against_random_finishes_and_leaves_no_process() -> None:
    before = set(children())  # (other tests' processes may still run)
    # K+R against K: with sims=16 the search does not find the mate (every line is won, and
    # an unvisited move's Q of 0 keeps it on the first one: see engine_value's module doc),
    # so the game ends by the 75-move rule; it must end, not be lost, and leave no engine
    # process.
    game = get_game("chess")
    cache = PlayerCache()
    players = (
        make_player("human-mcts:sims=16,sf_nodes=100", game, 1, cache),
        make_player("random", game, 2, cache),
    )
    session = GameSession(game, players, start=game.parse_position("k7/8/2K5/8/8/8/8/7R w - - 0 1"))
    while not session.is_over:
        session.play_player()
    assert game.status(session.state) in (Outcome.FIRST_WINS, Outcome.DRAW)
    (engine,) = [v for v in cache._shared.values() if isinstance(v, StockfishValue)]
    assert engine.analyses > 0 and engine.pid in children()
    engine.close()
    assert not set(children()) - before
