"""The DSA experiment (``sparring adapt``): its numbers on hand-made games, its JSON, resume,
and a tiny end-to-end run with a stub adaptive player."""

from __future__ import annotations

import json
import math
import multiprocessing
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from plugin_kind import register_for_test
from sparring.errors import ConfigError
from sparring.evaluation.ladder import LADDER_DIR
from sparring.evaluation.store import GameRecord, GameStore
from sparring.experiments.adapt import (
    Z95,
    AdaptConfig,
    adaptive_mode,
    baseline_settings,
    baseline_spec,
    cell_stats,
    default_baseline,
    expected_order,
    games_until_within,
    is_alphadda,
    paper_kind,
    paper_opponent,
    parse_elos,
    run_adapt,
    separation_game,
    split_specs,
    write_report,
)
from sparring.games.base import Game, State
from sparring.players import registry
from sparring.players.base import Decision, Player, PlayerState
from sparring.players.registry import PlayerSpec, check_options, parse_player
from sparring.players.settings import AlphaZeroSettings, SASettings
from sparring.search.limit import Limit
from sparring.strength.selection import StrengthSetting


# ---- a stub adaptive player with the dsa kind's annotations and state -------------------------
def _z_json(z: float) -> float | str:
    return z if math.isfinite(z) else ("inf" if z > 0 else "-inf")


class StubDSA(Player):
    """Random moves; z follows the paper's inter-game step rule with dz = 0.5 (intra: z -= 0.1
    before each own move, back to the carried z at the next game); Elo = 1500 + 100 z."""

    def __init__(self, mode: str, seed: int | None) -> None:
        super().__init__(f"Stub({mode})", seed)
        self.mode = mode
        self.z = 0.0
        self.move_z = 0.0
        self.games = 0

    def new_game(self, game: Game, player_index: int) -> None:
        self.move_z = self.z

    def select_move(self, game: Game, state: State, limit: Limit | None = None) -> int:
        if self.mode == "intra":
            self.move_z -= 0.1
        moves = game.legal_moves(state)
        return int(moves[self.rng.integers(len(moves))])

    def play(self, game: Game, state: State, limit: Limit | None = None) -> Decision:
        move = self.select_move(game, state, limit)
        return Decision(move, annotation=self.annotation())

    def annotation(self) -> dict[str, Any] | None:
        return {
            "z": _z_json(self.move_z),
            "elo": 1500 + 100 * self.move_z,
            "opponent_elo": None,
            "opponent_z": None,
        }

    def game_over(self, game: Game, final_state: State, score: float) -> None:
        self.games += 1
        self.z += -0.5 if score == 1.0 else 0.5 if score == 0.0 else 0.0

    def save_state(self) -> PlayerState | None:
        return {
            "z": self.z,
            "elo": 1500 + 100 * self.z,
            "opponent_elo": None,
            "opponent_z": None,
            "games": self.games,
        }

    def restore_state(self, data: PlayerState | None) -> None:
        assert isinstance(data, dict)
        z, games = data["z"], data["games"]
        assert isinstance(z, float | int) and isinstance(games, int)
        self.z, self.games = float(z), games


def make_stub(game: Game, spec: PlayerSpec, seed: int | None) -> Player:
    check_options(spec, {"mode", "model"})
    return StubDSA(spec.options.get("mode", "inter"), seed)


if multiprocessing.current_process().name != "MainProcess":  # a pool worker importing this
    registry.register_factory("stubdsa", "test stub")(make_stub)


@pytest.fixture
def stub(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register the ``stubdsa`` kind for one test."""
    register_for_test(monkeypatch, "stubdsa", make_stub)


# ---- hand-made games -------------------------------------------------------------------------
def _record(
    series: int, index: int, a_first: bool, result: float, z: float | str, state: dict[str, Any]
) -> GameRecord:
    """A 3-move game; A's moves carry ``{"z": z, "elo": ...}``."""
    zf = float(z)
    note = {"z": z, "elo": 1500 + 100 * zf if math.isfinite(zf) else 2000.0}
    notes = (note, None, note) if a_first else (None, note, None)
    return GameRecord(
        game="tictactoe",
        spec_a="stubdsa",
        spec_b="random",
        label_a="A",
        label_b="B",
        a_first=a_first,
        seed=0,
        moves=(0, 1, 2),
        think_times=(0.0, 0.0, 0.0),
        result=result,
        run_key="k",
        pairing=series,
        game_index=index,
        annotations=notes,
        player_states=(state, None),
    )


def hand_made() -> list[GameRecord]:
    """Two series of three games: A scores 1, 0, 1/2 and 0, 1, 1; z 0, -0.5, 0 and inf, 1, 1;
    estimates after the games 1450, 1500, 1500 (the state's elo) and 1800, 1750, 1620."""
    return [
        _record(0, 0, True, 1.0, 0, {"z": -0.5, "elo": 1450.0, "opponent_elo": None}),
        _record(0, 1, False, 1.0, -0.5, {"z": 0.0, "elo": 1500.0, "opponent_elo": None}),
        _record(0, 2, True, 0.5, 0, {"z": 0.0, "elo": 1500.0, "opponent_elo": None}),
        _record(1, 0, True, 0.0, "inf", {"z": 1.0, "elo": 1600.0, "opponent_elo": 1800.0}),
        _record(1, 1, False, 0.0, 1.0, {"z": 1.0, "elo": 1600.0, "opponent_elo": 1750.0}),
        _record(1, 2, True, 1.0, 1.0, {"z": 1.0, "elo": 1600.0, "opponent_elo": 1620.0}),
    ]


def test_cell_numbers_on_hand_made_games() -> None:
    cell = cell_stats(
        hand_made(),
        opponent="random",
        label="Random",
        repeats=2,
        games=3,
        settle=1,
        ladder_elo=1600.0,
        within=100.0,
    )
    win = cell.win
    assert (win.games, win.wins, win.draws, win.losses) == (6, 3, 1, 2)
    assert win.rate == pytest.approx(3.5 / 6)
    # population variance of the scores (1, 0, .5, 0, 1, 1): 3.25/6 - (3.5/6)^2
    var = np.var([1, 0, 0.5, 0, 1, 1])
    assert var == pytest.approx(0.2013888889)
    assert win.ci95 == pytest.approx(Z95 * math.sqrt(var / 6))
    assert win.ci95 == pytest.approx(0.359079, abs=1e-6)
    # z: finite values 0, -0.5, 0, 1, 1 (one +inf left out): mean 0.3, sd 0.6.
    assert (cell.z.n, cell.z.plus_inf, cell.z.minus_inf) == (5, 1, 0)
    assert cell.z.mean == pytest.approx(0.3) and cell.z.sd == pytest.approx(0.6)
    # after the first game: -0.5, 0, 1, 1.
    assert cell.z_settled.mean == pytest.approx(0.375)
    assert cell.z_settled.sd == pytest.approx(math.sqrt(np.var([-0.5, 0, 1, 1])))
    # Elo played: 1500, 1450, 1500, 2000, 1600, 1600.
    assert cell.elo.mean == pytest.approx(9650 / 6)
    # estimates: series 0 from the state's elo, series 1 from its opponent_elo.
    assert cell.estimate_lines.tolist() == [[1450, 1500, 1500], [1800, 1750, 1620]]
    assert cell.estimate_final.mean == pytest.approx(1560.0)
    assert cell.estimate_final.sd == pytest.approx(60.0)
    # within 100 of 1600: series 0 from game 2 on (1450 is 150 off); series 1 from game 3.
    assert cell.until_within == (2, 3)
    data = cell.to_json()
    assert data["until_within_mean"] == 2.5 and data["until_within_max"] == 3
    assert data["per_game"]["z"] == [[0.0, -0.5, 0.0], ["inf", 1.0, 1.0]]
    assert data["per_game"]["z_mean"] == [0.0, 0.25, 0.5]  # the inf game: series 0 only


def test_games_until_within() -> None:
    assert games_until_within(np.array([1000, 1450, 1550, 1500]), 1500, 100) == 2
    assert games_until_within(np.array([1500, 1450, 1550, 1500]), 1500, 100) == 1
    assert games_until_within(np.array([1500, 1450, 1650]), 1500, 100) is None
    assert games_until_within(np.array([1500, np.nan, 1500]), 1500, 100) == 3
    assert games_until_within(np.array([]), 1500, 100) is None


def test_separation_game() -> None:
    lines = np.array([[0, 0.4, 0.5, 0.6], [0, 0.3, 0.35, 0.2], [0, -0.1, 0.4, -0.2]], dtype=float)
    # game 1 all equal; game 2 ordered; game 3: 0.35 < 0.4 out of order; game 4 ordered.
    assert separation_game(lines, [0, 1, 2]) == 4
    assert separation_game(lines, [0, 1, 2], margin=0.39) == 4
    assert separation_game(lines, [0, 1, 2], margin=0.41) is None
    assert separation_game(lines[:, :2], [0, 1, 2]) == 2
    assert separation_game(lines, [2, 1, 0]) is None
    assert separation_game(lines[:1], [0]) is None


def test_expected_order_rules() -> None:
    lines = np.array([[0.0, 1.0], [0.0, 2.0]])
    specs = ["sa:z=-1,rth=0.1", "sa:z=2,rth=0.1"]
    assert expected_order(specs, [1200.0, 1900.0], lines, 1) == ([1, 0], "ladder Elo")
    assert expected_order(specs, None, lines, 1) == ([1, 0], "opponent z")
    assert expected_order(specs, [1200.0, None], lines, 1)[1] == "opponent z"
    assert expected_order(["random", "mcts1"], None, lines, 1) == (
        [1, 0],
        "mean z of the last games",
    )


def test_specs_baseline_and_elos(tmp_path: Path) -> None:
    assert split_specs("sa:model=connect4,z=2,rth=0.1,random,mcts1:name=M") == (
        "sa:model=connect4,z=2,rth=0.1",
        "random",
        "mcts1:name=M",
    )
    assert split_specs("sa:z=2,rth=0.1; random") == ("sa:z=2,rth=0.1", "random")
    for bad in ("z=2,random", "random,,mcts1"):
        with pytest.raises(ConfigError):
            split_specs(bad)
    assert default_baseline("dsa:mode=inter,model=connect4,sims=50,dz=0.3") == (
        "sa:model=connect4,sims=50,rth=0.1,z=0"
    )
    assert default_baseline("dsa:mode=intra,sims=50,z0=-1,rth=0.2") == "sa:sims=50,rth=0.2,z=-1"
    assert default_baseline("dsa:mode=elo-inter,model=connect4") == "sa:model=connect4,elo=1500"
    assert default_baseline("dsa:mode=elo-intra,elo0=1200") == "sa:elo=1200"
    assert default_baseline("dsa:prior=1700,calibration=c.json") == "sa:calibration=c.json,elo=1700"
    ladder = LADDER_DIR / "ladder-connect4.json"
    opponents = ["random", "mcts1", "sa:z=0,rth=0.1"]
    assert parse_elos(str(ladder), opponents, "connect4") == (1000.0, 1982.53, None)
    assert parse_elos("1000, -, 1500.5", ["a", "b", "c"], "connect4") == (1000.0, None, 1500.5)
    with pytest.raises(ConfigError):
        parse_elos("1000", ["a", "b"], "connect4")
    # The shipped calibration rates SA opponents at a fixed setting (the dsa annotations use
    # the same number: 2085.52 at z = 0 on connect4).
    both = parse_elos(f"{ladder}+calibration", opponents, "connect4")
    assert both[:2] == (1000.0, 1982.53) and both[2] == pytest.approx(2085.52, abs=0.01)
    z2, zm2 = parse_elos("calibration", ["sa:z=2,rth=0.1", "sa:z=-2,rth=0.1"], "connect4")
    assert z2 is not None and zm2 is not None and z2 > both[2] > zm2


# ---- the experiment reads typed settings: pinned against the former text-reading functions ----
# (adaptive spec, its adaptive_mode, its default_baseline): each expected value is what the
# former implementation (PlayerSpec.parse and the option dicts) returned for the spec.
BASELINES = [
    ("dsa", "bayes", "sa:elo=1500"),
    ("dsa:mode=inter", "inter", "sa:rth=0.1,z=0"),
    ("dsa:mode=inter,model=connect4", "inter", "sa:model=connect4,rth=0.1,z=0"),
    (
        "dsa:mode=inter,model=connect4,sims=50,dz=0.3",
        "inter",
        "sa:model=connect4,sims=50,rth=0.1,z=0",
    ),
    ("dsa:mode=inter,model=connect4,z0=0.5,rth=0.2", "inter", "sa:model=connect4,rth=0.2,z=0.5"),
    ("dsa:mode=intra,sims=50,z0=-1,rth=0.2", "intra", "sa:sims=50,rth=0.2,z=-1"),
    (
        "dsa:mode=intra,model=othello6,dz=1.5,name=DSA(intra dZ=1.5 ~ 0.2)",
        "intra",
        "sa:model=othello6,rth=0.1,z=0",
    ),
    ("dsa:mode=INTER,model=connect4", "inter", "sa:model=connect4,rth=0.1,z=0"),
    ("dsa:mode=elo-inter,model=connect4", "elo-inter", "sa:model=connect4,elo=1500"),
    ("dsa:mode=elo-inter,elo0=1300,step=50", "elo-inter", "sa:elo=1300"),
    ("dsa:mode=elo-intra,elo0=1200", "elo-intra", "sa:elo=1200"),
    (
        "dsa:mode=elo-intra,model=connect4,calibration=c.json",
        "elo-intra",
        "sa:model=connect4,calibration=c.json,elo=1500",
    ),
    ("dsa:prior=1700,calibration=c.json", "bayes", "sa:calibration=c.json,elo=1700"),
    ("dsa:mode=bayes,model=othello6", "bayes", "sa:model=othello6,elo=1500"),
    (
        "dsa:mode=bayes,base=uct,calibration=u.json,sims=30,c=0.4,open=3",
        "bayes",
        "sa:base=uct,sims=30,c=0.4,open=3,calibration=u.json,elo=1500",
    ),
    (
        "dsa:mode=inter,base=uct,calibration=u.json,sims=30",
        "inter",
        "sa:base=uct,sims=30,rth=0.1,z=0",
    ),
    ("alphadda1", "inter", "az"),
    ("alphadda1:floor=on,name=AlphaDDA1-floor", "inter", "az"),
    ("alphadda1:rootrand=0.2", "inter", "az:rootrand=0.2"),
    (
        "alphadda1:model=connect4,cpuct=2,rootrand=0.2,nh=3",
        "inter",
        "az:model=connect4,cpuct=2,rootrand=0.2",
    ),
    ("alphadda2:sims=50,model=connect4,adrop=5", "inter", "az:model=connect4,sims=50"),
    ("alphadda2:cpuct=2,sims=50", "inter", "az:cpuct=2,sims=50"),
    ("alphadda2:floor=on,name=AlphaDDA2-floor", "inter", "az"),
    ("alphadda3:c=1.25,sims=2", "inter", "az:sims=2"),
    ("alphadda3:nh=5,c=1.25", "inter", "az"),
    ("uct:sims=4,name=U", "inter", "sa:sims=4,rth=0.1,z=0"),
    ("az:sims=10", "inter", "sa:sims=10,rth=0.1,z=0"),
    ("az:cpuct=2,rootrand=0.2", "inter", "sa:cpuct=2,rth=0.1,z=0"),
    ("sa:model=connect4,z=1,rth=0.2", "inter", "sa:model=connect4,rth=0.2,z=0"),
    ("random", "inter", "sa:rth=0.1,z=0"),
    ("mcts1", "inter", "sa:rth=0.1,z=0"),
]
# Specs whose former answer came from the text as written, not from the settings it names:
# (spec, former baseline, baseline now).  The settings are the same; only the stored key
# differs (option order as typed, a number's spelling, an option given at its default).
BASELINE_CHANGES = [
    (
        "dsa:mode=inter,sims=50,model=connect4",
        "sa:sims=50,model=connect4,rth=0.1,z=0",
        "sa:model=connect4,sims=50,rth=0.1,z=0",
    ),
    (
        "dsa:mode=inter,model=connect4,cpuct=2.5,sims=8",
        "sa:model=connect4,cpuct=2.5,sims=8,rth=0.1,z=0",
        "sa:model=connect4,sims=8,cpuct=2.5,rth=0.1,z=0",
    ),
    ("dsa:mode=intra,z0=1.0", "sa:rth=0.1,z=1.0", "sa:rth=0.1,z=1"),
    ("alphadda1:cpuct=1.25", "az:cpuct=1.25", "az"),
]
# (spec, game, paper_kind): the former answers; "alphadda1:cpuct=1.25" was None (an option
# given), it is now the paper's player (C_puct at the paper's 1.25).
PAPER_KINDS = [
    ("alphadda1", None, "alphadda1"),
    ("alphadda1", "connect4", None),
    ("alphadda1", "othello", None),  # the 8x8 grid's row since 2026-11-28
    ("alphadda1:nh=2,asim=2.8,bsim0=-1.4,nmax=400", "othello", "alphadda1"),  # Table 1 8x8
    ("alphadda2", "connect4", "alphadda2"),
    ("alphadda2:model=connect4,name=X", None, "alphadda2"),
    ("alphadda2:floor=on", None, None),
    ("dsa:mode=inter", None, None),
    ("alphadda1:nh=3,asim=2,bsim0=-1.4,nmax=200", "connect4", "alphadda1"),
    ("alphadda1:nh=3,asim=2,bsim0=-1.4,nmax=200", "othello6", None),
    ("alphadda1:nh=3,asim=2,bsim0=-1.4,nmax=200", None, None),
    ("alphadda3:c=0.75,nh=1", "othello6", "alphadda3"),
    ("alphadda1:nh=4", "connect4", None),
    ("alphadda2:nh=1,sims=50", "connect4", None),
    ("alphadda1:rootrand=0.2", None, "alphadda1"),
    ("alphadda1:nh=3,asim=2.0,bsim0=-1.40,nmax=200,rootrand=0.2", "connect4", "alphadda1"),
    ("alphadda2:nh=1,adrop=10,pdrop0=-0.2", "connect4", "alphadda2"),
    ("alphadda2:nh=1", "connect4", "alphadda2"),
    ("alphadda3:history=code", "connect4", None),
    ("alphadda3:nh=5,c=1.25", "connect4", "alphadda3"),
    ("alphadda3:nh=5,c=1.25", "othello", None),
    ("alphadda1:floor=on,name=AlphaDDA1-floor", "connect4", None),
    ("az", None, None),
    ("alphadda3:model=othello6,nh=1,c=0.75,rootrand=0.2", "othello6", "alphadda3"),
    ("alphadda2:pmax=0.99", "othello", None),
    ("alphadda1:cpuct=1.25", None, "alphadda1"),  # formerly None
    ("alphadda2:cpuct=1.25", "othello", "alphadda2"),
]
# (spec, paper_opponent): the former answers; "uct:name=MCTS1" (formerly None) is MCTS1's
# settings under another kind name, and is now MCTS1.
PAPER_OPPONENT_NAMES = [
    ("az", "AlphaZero"),
    ("minimax2:name=M", "Minimax2"),
    ("az:sims=10", None),
    ("uct", None),
    ("az:rootrand=0.2", "AlphaZero"),
    ("mcts1", "MCTS1"),
    ("mcts3:name=X", "MCTS3"),
    ("random", "Random"),
    ("minimax1", "Minimax1"),
    ("minimax", None),
    ("az:model=connect4,name=A", "AlphaZero"),
    ("az:dropout=0.1", None),
    ("uct:sims=500", None),
    ("dsa:mode=inter", None),
    ("alphadda1", None),
    ("sa:z=0", None),
    ("uct:name=MCTS1", "MCTS1"),  # formerly None
]


@pytest.mark.parametrize(("spec", "mode", "baseline"), BASELINES)
def test_baseline_and_mode_from_settings(spec: str, mode: str, baseline: str) -> None:
    settings = parse_player(spec)
    assert adaptive_mode(spec) == adaptive_mode(settings) == mode
    assert default_baseline(spec) == default_baseline(settings) == baseline
    # the stored text names the typed baseline
    assert parse_player(baseline) == baseline_settings(settings)


def test_baseline_changes_only_in_spelling() -> None:
    for spec, former, now in BASELINE_CHANGES:
        assert default_baseline(spec) == now
        assert parse_player(former) == parse_player(now) == baseline_settings(spec)


def test_baseline_settings_are_typed() -> None:
    inter = baseline_settings("dsa:mode=inter,model=connect4,z0=0.5,rth=0.2")
    assert inter == SASettings(model="connect4", strength=StrengthSetting(0.5, 0.2))
    # its canonical spec() writes z before rth: the stored key keeps the former order
    assert inter.spec() == "sa:model=connect4,z=0.5,rth=0.2"
    assert baseline_spec(inter) == "sa:model=connect4,rth=0.2,z=0.5"
    assert baseline_settings("dsa:prior=1700,calibration=c.json") == SASettings(
        elo=1700.0, calibration="c.json"
    )
    assert baseline_settings("alphadda2:sims=50,cpuct=2,rootrand=0.2") == AlphaZeroSettings(
        simulations=50, c_puct=2.0, root_random=0.2
    )


def test_plugin_kind_without_typed_settings(stub: None) -> None:
    """A factory kind's options are all its settings: ``mode``, ``z0``, ``rth`` and the
    search options are read from them."""
    assert adaptive_mode("stubdsa") == "inter" and adaptive_mode("stubdsa:mode=intra") == "intra"
    assert default_baseline("stubdsa:mode=intra") == "sa:rth=0.1,z=0"
    assert default_baseline("stubdsa:sims=7,z0=-1,rth=0.3") == "sa:sims=7,rth=0.3,z=-1"
    assert not is_alphadda("stubdsa") and is_alphadda("alphadda3:c=1")


@pytest.mark.parametrize(("spec", "game", "kind"), PAPER_KINDS)
def test_paper_kind_from_settings(spec: str, game: str | None, kind: str | None) -> None:
    assert paper_kind(spec, game) == paper_kind(parse_player(spec), game) == kind


@pytest.mark.parametrize(("spec", "name"), PAPER_OPPONENT_NAMES)
def test_paper_opponent_from_settings(spec: str, name: str | None) -> None:
    assert paper_opponent(spec) == paper_opponent(parse_player(spec)) == name


def test_config_rejects_bad_values() -> None:
    data = {"game": "tictactoe", "adaptive": ["stubdsa"], "opponents": ["random"]}
    config = AdaptConfig.from_mapping(data)
    assert config.adaptive == ("stubdsa",)
    assert AdaptConfig.from_mapping(config.to_mapping()) == config
    with pytest.raises(ConfigError, match="unknown key 'bogus'"):
        AdaptConfig.from_mapping({**data, "bogus": 1})
    for bad in (
        {"games": 0},
        {"repeats": 0},
        {"opponents": ["random", "random"]},
        {"opponents": []},
        {"opponent_elos": [1000.0, 1200.0]},
        {"within": 0.0},
        {"baseline_games": -1},
    ):
        with pytest.raises(ConfigError):
            AdaptConfig.from_mapping({**data, **bad})


# ---- running ---------------------------------------------------------------------------------
CONFIG = AdaptConfig(
    game="tictactoe",
    adaptive=("stubdsa:mode=inter",),
    opponents=("random", "uct:sims=4"),
    games=5,
    repeats=2,
    seed=3,
    baseline="random:name=Base",
    baseline_games=3,
    opponent_elos=(1000.0, 1400.0),
    settle=2,
)
EXPECTED = 2 * 2 * 5 + 2 * 3


def _all(result_records: list[GameRecord]) -> list[tuple[object, ...]]:
    return sorted((r.key, r.moves, r.result, r.player_states) for r in result_records)


def _records(store: GameStore, config: AdaptConfig) -> list[GameRecord]:
    keys = [c.run_key for c in config.series_configs()]
    out: list[GameRecord] = []
    for key in keys:
        out += list(store.iter_games(key))
    return out


def test_run_resumes_after_a_stop_and_matches_an_uninterrupted_run(
    stub: None, tmp_path: Path
) -> None:
    whole = run_adapt(CONFIG, progress=False)
    assert whole.complete and whole.played == EXPECTED and whole.stored == EXPECTED

    seen: list[GameRecord] = []

    def stop_at_seven(record: GameRecord) -> None:
        seen.append(record)
        if len(seen) == 7:
            raise RuntimeError("killed")

    with GameStore(tmp_path / "g.sqlite") as db:
        with pytest.raises(RuntimeError, match="killed"):
            run_adapt(CONFIG, db, progress=False, on_game=stop_at_seven)
        part = run_adapt(CONFIG, db, progress=False, stop_after=4)
        assert part.played == 4 and part.stored == 11 and not part.complete
        rest = run_adapt(CONFIG, db, progress=False)
        assert rest.played == EXPECTED - 11 and rest.complete
        resumed = _records(db, CONFIG)
    with GameStore(":memory:") as fresh:
        run_adapt(CONFIG, fresh, progress=False)
        assert _all(resumed) == _all(_records(fresh, CONFIG))
    assert json.dumps(rest.to_json()) == json.dumps(whole.to_json())


def test_parallel_run_and_report(stub: None, tmp_path: Path) -> None:
    result = run_adapt(dataclass_replace(CONFIG, workers=2), progress=False)
    serial = run_adapt(CONFIG, progress=False)
    assert json.dumps(result.to_json()["adaptive"]) == json.dumps(serial.to_json()["adaptive"])
    paths = write_report(result, tmp_path / "out", command="sparring adapt ...")
    data = json.loads(paths["results"].read_text())
    assert set(data) >= {"config", "baseline", "adaptive", "complete", "command"}
    assert data["complete"] and data["games_stored"] == EXPECTED
    assert [b["games"] for b in data["baseline"]] == [3, 3]
    (adaptive,) = data["adaptive"]
    assert adaptive["mode"] == "inter" and adaptive["order_rule"] == "ladder Elo"
    assert adaptive["expected_order"] == ["uct:sims=4", "random"]
    cells = adaptive["opponents"]
    assert [c["opponent"] for c in cells] == ["random", "uct:sims=4"]
    for cell in cells:
        assert set(cell) >= {"win", "z", "z_settled", "elo", "estimate_final", "until_within"}
        assert cell["win"]["games"] == 10 and len(cell["per_game"]["z"]) == 2
        assert len(cell["per_game"]["z_mean"]) == 5
        # The stub's z in game i is the carried step-rule z: 0 in every series' first game.
        assert [row[0] for row in cell["per_game"]["z"]] == [0.0, 0.0]
        scores = cell["per_game"]["score"]
        for z_row, s_row in zip(cell["per_game"]["z"], scores, strict=True):
            for i in range(4):
                step = -0.5 if s_row[i] == 1 else 0.5 if s_row[i] == 0 else 0.0
                assert z_row[i + 1] == pytest.approx(z_row[i] + step)
    text = paths["report"].read_text()
    assert "Table 3 analogue" in text and "w/o DSA WR (Base)" in text
    assert "Games until the estimate stays within 100 Elo" in text
    assert paths["plot"].stat().st_size > 10_000


def dataclass_replace(config: AdaptConfig, **changes: Any) -> AdaptConfig:
    import dataclasses

    return dataclasses.replace(config, **changes)


def test_intra_mode_is_a_table_4_analogue(stub: None, tmp_path: Path) -> None:
    config = dataclass_replace(
        CONFIG, adaptive=("stubdsa:mode=intra",), repeats=1, opponent_elos=None, baseline_games=0
    )
    result = run_adapt(config, progress=False)
    assert result.baseline is None
    (stats,) = result.stats
    assert stats.intra and stats.order_rule == "mean z of the last games"
    text = write_report(result, tmp_path)["report"].read_text()
    assert "Table 4 analogue" in text and "w/o DSA" not in text.split("## ")[1]


def test_cli_bad_input_is_one_line_error(tmp_path: Path) -> None:
    for args, needle in (
        (("--opponents", "nobody"), "unknown player 'nobody'"),
        (("--opponents", "random", "--games", "0"), "games must be >= 1"),
        (("--opponents", "random", "--opponent-elos", "1,2"), "2 values for 1 opponents"),
    ):
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "sparring",
                "adapt",
                "tictactoe",
                "random",
                "--out",
                str(tmp_path),
                *args,
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 2, result.stderr
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and needle in lines[0], result.stderr


def test_cli_end_to_end(tmp_path: Path) -> None:
    """The command on real (tiny) players: an SA player stands in for the adaptive one."""
    from typer.testing import CliRunner

    from sparring.cli import app

    out = tmp_path / "run"
    args = [
        "adapt",
        "tictactoe",
        "sa:base=uct,sims=4,z=0,rth=0.1",
        "--opponents",
        "random,sa:base=uct,sims=3,z=2,rth=0.1,name=S2",
        "--games",
        "2",
        "--repeats",
        "2",
        "--out",
        str(out),
        "--baseline-games",
        "2",
        "--no-progress",
        "--note",
        "Smoke run.",
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads((out / "results.json").read_text())
    assert data["games_stored"] == 2 * 2 * 2 + 2 * 2
    assert (out / "games.sqlite").is_file() and (out / "adapt.png").is_file()
    report = (out / "report.md").read_text()
    assert "**Smoke run.**" in report and data["note"] == "Smoke run."
    # The paper's Table 3 rows beside the SA z = 2 opponent (and "-" for Random).
    assert "| *paper (Go): inter-game WR* | - | 43.4% |" in report
    assert "| *paper (Go): w/o DSA WR* | - | 5.6% |" in report
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0 and "(0 played now)" in " ".join(again.output.split())


def test_with_the_dsa_kind_on_connect4() -> None:
    """The real adaptive player (tiny searches): its annotations give each game's z, and the
    paper's step rule moves z by dz against the result (down after a win, up after a loss)."""
    config = AdaptConfig(
        game="connect4",
        adaptive=("dsa:mode=inter,sims=4",),
        opponents=("sa:sims=4,z=0,rth=0.1",),
        games=3,
        repeats=1,
        baseline_games=0,
        opponent_elos=(None,),
    )
    assert config.baseline_spec == "sa:sims=4,rth=0.1,z=0"
    result = run_adapt(config, progress=False)
    (stats,) = result.stats
    (cell,) = stats.cells
    z, scores = cell.z_lines[0], cell.scores[0]
    assert z[0] == 0.0 and cell.win.games == 3
    # dz_init = 0.681 on connect4 (100 Elo on its calibration's slope), shrunk by r = 0.95
    # per game: after game i (0-based) z moves by 0.681 * 0.95**i.
    assert set(scores[:2]) != {0.5}  # at least one decided game among the first two
    for i in range(2):
        step = 0.0 if scores[i] == 0.5 else 0.681 * 0.95**i * (1 if scores[i] == 0.0 else -1)
        assert z[i + 1] == pytest.approx(z[i] + step)
    assert np.all(np.isfinite(cell.elo_lines))


def test_z_panels_turn_logarithmic_only_far_beyond_the_calibrated_range() -> None:
    """Inter-game DSA's z (within +-3) stays on a linear axis; an Elo-space mode's z near the
    compactified axis's -inf end (hundreds below) gets the symmetric-log axis; infinities and
    gaps (NaN: z = +-inf is not drawn) do not count."""
    from sparring.experiments.adapt.report import Z_LINEAR, z_axis_symlog

    assert Z_LINEAR == 3.0
    assert not z_axis_symlog(np.array([-3.0, 0.0, 2.9, np.nan, -np.inf, np.inf]))
    assert not z_axis_symlog(np.array([-6.0, 6.0]))
    assert z_axis_symlog(np.array([0.0, -6.01]))
    assert z_axis_symlog(np.array([np.nan, -440.0, 1.0]))
    assert not z_axis_symlog(np.array([np.nan]))
