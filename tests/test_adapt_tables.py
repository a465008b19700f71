"""``sparring adapt``'s win / loss / draw tables (the AlphaDDA paper's Tables 5-13 analogue):
the first / second player split, D of Eq. 11, the balanced marks, the paper's numbers, and the
per-move traces of AlphaDDA players (``traces.png``) on hand-made games and a tiny run."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path
from typing import Any

import pytest

from plugin_kind import register_for_test
from sparring.errors import UnknownKindError
from sparring.evaluation.store import GameRecord
from sparring.experiments.adapt import (
    AdaptConfig,
    AdaptResult,
    WinRate,
    adaptive_stats,
    cell_stats,
    default_baseline,
    example_traces,
    move_trace,
    paper_kind,
    paper_opponent,
    paper_win_rate,
    report_markdown,
    run_adapt,
    wld_row,
    wld_table,
    write_report,
)
from sparring.experiments.adapt.statistics import _d_metric
from sparring.experiments.alphadda_paper import PAPER_TABLE_NUMBER, PAPER_TABLES
from sparring.games.base import Game, State
from sparring.players import registry
from sparring.players.base import Decision, Player
from sparring.players.registry import PlayerSpec, check_options
from sparring.search.limit import Limit


# ---- D of Eq. 11 and the balanced rule --------------------------------------------------------
def wr(wins: int, losses: int, draws: int) -> WinRate:
    return WinRate(wins + losses + draws, wins, draws, losses)


def test_d_metric_on_a_hand_made_table() -> None:
    """Eq. 11: sum over opponents of |W - L| as first player plus |W - L| as second."""
    table = [
        (wr(5, 3, 2), wr(1, 6, 3)),  # |5-3| + |1-6| = 2 + 5
        (wr(4, 4, 2), wr(7, 0, 3)),  # 0 + 7
        (wr(0, 0, 10), wr(2, 3, 5)),  # 0 + 1
    ]
    assert _d_metric(table) == 15
    # Draws count nothing, and the sides are not netted against each other: a player winning
    # every game as first and losing every game as second has D = 2 * games, not 0.
    assert _d_metric([(wr(10, 0, 0), wr(0, 10, 0))]) == 20
    assert _d_metric([]) == 0


def test_balanced_share_and_shares() -> None:
    assert wr(6, 4, 0).imbalance == pytest.approx(0.2) and wr(6, 4, 0).balanced
    assert not wr(7, 4, 0).balanced  # 3/11 = 0.27
    assert wr(30, 20, 0).balanced and not wr(31, 20, 0).balanced  # 10/50 vs 11/51
    assert wr(0, 0, 10).balanced and wr(0, 0, 10).imbalance == 0.0
    assert WinRate(0, 0, 0, 0).balanced is None and WinRate(0, 0, 0, 0).shares is None
    assert wr(2, 5, 3).shares == (0.2, 0.5, 0.3)  # (win, loss, draw): the paper's order
    assert wr(5, 3, 2) + wr(1, 6, 3) == wr(6, 9, 5)


# ---- hand-made stored games -------------------------------------------------------------------
def _game(
    index: int, a_first: bool, score_a: float, notes: list[dict[str, Any]] | None = None
) -> GameRecord:
    """A 4-move game of A against B; A's moves (0, 2 when first; 1, 3 when second) carry
    ``notes``; 0.5 s of think time for A's moves, 0.25 s for B's."""
    parity = 0 if a_first else 1
    a_notes = iter(notes or [])
    annotations = tuple(next(a_notes, None) if i % 2 == parity else None for i in range(4))
    result = score_a if a_first else 1.0 - score_a
    return GameRecord(
        game="tictactoe",
        spec_a="stubdda",
        spec_b="random",
        label_a="A",
        label_b="B",
        a_first=a_first,
        seed=index,
        moves=(0, 1, 2, 3),
        think_times=tuple(0.5 if i % 2 == parity else 0.25 for i in range(4)),
        result=result,
        pairing=0,
        game_index=index,
        annotations=annotations if notes is not None else None,
    )


def _games(pattern: list[float]) -> list[GameRecord]:
    """One series: A's scores in order, A first in the even-numbered games."""
    return [_game(i, i % 2 == 0, s) for i, s in enumerate(pattern)]


# Against X: as first W W W L L (3-2), as second L L L L D (0-4-1).
VS_X = [1, 0, 1, 0, 1, 0, 0, 0, 0, 0.5]
# Against Y: as first W D D D D (1-0-4), as second W L W L W (3-2).
VS_Y = [1, 1, 0.5, 0, 0.5, 1, 0.5, 0, 0.5, 1]


def test_first_and_second_player_split() -> None:
    cell = cell_stats(_games(VS_X), opponent="x", label="X", repeats=1, games=10, settle=0)
    assert (cell.first.wins, cell.first.losses, cell.first.draws) == (3, 2, 0)
    assert (cell.second.wins, cell.second.losses, cell.second.draws) == (0, 4, 1)
    assert cell.win == cell.first + cell.second == wr(3, 6, 1)
    # Seconds per game: 2 x 0.5 (A) + 2 x 0.25 (B).
    assert cell.seconds.mean == pytest.approx(1.5) and cell.own_seconds.mean == pytest.approx(1.0)
    # Games beyond the configured series are left out.
    short = cell_stats(_games(VS_X), opponent="x", label="X", repeats=1, games=4, settle=0)
    assert short.first == wr(2, 0, 0) and short.second == wr(0, 2, 0)


def _result(specs: tuple[str, ...] = ("stubdda",), game: str = "tictactoe") -> AdaptResult:
    config = AdaptConfig(
        game=game,
        adaptive=specs,
        opponents=("mcts1", "random"),
        games=10,
        repeats=1,
        baseline_games=0,
    )
    stats = tuple(
        adaptive_stats(config, spec, spec.upper(), [_games(VS_X), _games(VS_Y)], ["X", "Y"])
        for spec in specs
    )
    return AdaptResult(
        config=config,
        adaptive_labels=tuple(s.label for s in stats),
        opponent_labels=("X", "Y"),
        baseline_label="Base",
        stats=stats,
        baseline=None,
        played=0,
        stored=20 * len(specs),
        expected=20 * len(specs),
        baseline_sides=((wr(5, 0, 0), wr(0, 5, 0)), (wr(1, 1, 3), wr(2, 2, 1))),
    )


def test_row_numbers_d_and_balanced_marks() -> None:
    (stats,) = _result().stats
    # D = |3-2| + |0-4| (X) + |1-0| + |3-2| (Y) = 1 + 4 + 1 + 1.
    assert stats.d == 7
    # All games: X 3-6-1 (|W-L| 0.3), Y 4-2-4 (0.2, balanced).
    assert stats.max_imbalance() == pytest.approx(0.3) and stats.balanced_count() == 1
    # As first: X 3-2 (0.2), Y 1-0-4 (0.2): both balanced; as second: X 0-4-1 (0.8), Y 3-2.
    assert stats.balanced_count("first") == 2
    assert stats.max_imbalance("second") == pytest.approx(0.8)
    assert stats.balanced_count("second") == 1
    data = stats.to_json()
    assert data["d"] == 7 and data["balanced_opponents"] == {"all": 1, "first": 2, "second": 1}
    x = data["opponents"][0]
    assert x["first"]["wins"] == 3 and x["second"]["losses"] == 4
    assert x["win"]["balanced"] is False and x["first"]["balanced"] is True


def test_wld_table_rows() -> None:
    result = _result()
    table = wld_table(result, "all").splitlines()
    assert table[0] == (
        "| player | X | Y | balanced | max \\|W-L\\| share | D (Eq. 11) | per game | games |"
    )
    # The baseline (w/o adaptation): X 5-0 first, 0-5 second: D 10, all games 5-5 balanced.
    assert table[2] == (
        "| w/o adaptation: Base | 0.50/0.50/0.00 ✓ | 0.30/0.30/0.40 ✓ | 2/2 | 0.00 | 10 "
        "| 0.50 | 20 |"
    )
    assert table[3] == (
        "| STUBDDA | 0.30/0.60/0.10 | 0.40/0.20/0.40 ✓ | 1/2 | 0.30 | 7 | 0.35 | 20 |"
    )
    second = wld_table(result, "second").splitlines()
    assert "Σ\\|W-L\\| (this side)" in second[0]
    assert second[3] == (
        "| STUBDDA | 0.00/0.80/0.20 | 0.60/0.40/0.00 ✓ | 1/2 | 0.80 | 5 | 0.50 | 10 |"
    )
    assert wld_row("r", [None, (wr(1, 0, 0), wr(0, 0, 1))])[3:6] == ["0/1", "0.50", "-"]


# ---- the paper's Tables 5-13 ------------------------------------------------------------------
def test_paper_tables_transcription() -> None:
    """Every row sums to 1 and every Table 5/8/11 entry is the mean of its first- and
    second-player entries (Tables 6-7, 9-10, 12-13) within the paper's rounding."""
    assert set(PAPER_TABLES) == set(PAPER_TABLE_NUMBER) == {"connect4", "othello6", "othello"}
    for game, sides in PAPER_TABLES.items():
        for side, kinds in sides.items():
            assert set(kinds) == {"alphadda1", "alphadda2", "alphadda3"}
            for rows in kinds.values():
                assert len(rows) == 8
                for row in rows.values():
                    assert sum(row) == pytest.approx(1.0, abs=0.011), (game, side, row)
        for kind, rows in sides["all"].items():
            for opponent, row in rows.items():
                first, second = sides["first"][kind][opponent], sides["second"][kind][opponent]
                for x, f, s in zip(row, first, second, strict=True):
                    assert x == pytest.approx((f + s) / 2, abs=0.0101)
    # Spot checks against the paper's text.
    assert PAPER_TABLES["connect4"]["all"]["alphadda1"]["MCTS1"] == (0.22, 0.76, 0.02)
    assert PAPER_TABLES["othello6"]["first"]["alphadda3"]["Minimax1"] == (0.18, 0.26, 0.56)
    assert PAPER_TABLES["othello"]["second"]["alphadda2"]["MCTS4"] == (0.84, 0.08, 0.08)


def test_paper_counts_and_d() -> None:
    # Table 6 / 7, AlphaDDA1 vs MCTS1: 0.32/0.66/0.02 and 0.12/0.86/0.02 of 50 games.
    assert paper_win_rate("connect4", "first", "alphadda1", "MCTS1") == wr(16, 33, 1)
    assert paper_win_rate("connect4", "all", "alphadda1", "MCTS1") == wr(22, 76, 2)
    assert paper_win_rate("tictactoe", "all", "alphadda1", "MCTS1") is None
    assert paper_win_rate("connect4", "all", "alphadda1", "Nobody") is None
    # D of the paper's Connect4 AlphaDDA1 over the eight opponents, by hand from Tables 6-7
    # (|W - L| x 50): first 1+17+4+3+27+44+38+50 = 184, second 1+37+12+28+10+5+2+46 = 141.
    names = ["AlphaZero", "MCTS1", "MCTS2", "MCTS3", "MCTS4", "Minimax1", "Minimax2", "Random"]
    sides = []
    for name in names:
        first = paper_win_rate("connect4", "first", "alphadda1", name)
        second = paper_win_rate("connect4", "second", "alphadda1", name)
        assert first is not None and second is not None
        sides.append((first, second))
    assert _d_metric(sides) == 184 + 141
    assert paper_kind("alphadda2") == "alphadda2"
    assert paper_kind("alphadda2:model=connect4,name=X") == "alphadda2"
    assert paper_kind("alphadda2:floor=on") is None and paper_kind("dsa:mode=inter") is None
    # The Table 1-3 row written out is the paper's player on its game only.
    paper1 = "alphadda1:nh=3,asim=2,bsim0=-1.4,nmax=200,name=P"
    assert paper_kind(paper1, "connect4") == "alphadda1"
    assert paper_kind(paper1, "othello6") is None and paper_kind(paper1) is None
    assert paper_kind("alphadda3:c=0.75,nh=1", "othello6") == "alphadda3"
    assert paper_kind("alphadda1:nh=4", "connect4") is None
    assert paper_kind("alphadda2:nh=1,sims=50", "connect4") is None
    assert paper_opponent("az") == "AlphaZero" and paper_opponent("minimax2:name=M") == "Minimax2"
    assert paper_opponent("az:sims=10") is None and paper_opponent("uct") is None
    assert paper_opponent("az:rootrand=0.2") == "AlphaZero"  # the author's code's AlphaZero
    assert paper_kind("alphadda1:rootrand=0.2") == "alphadda1"
    assert default_baseline("alphadda2:rootrand=0.2,sims=9") == "az:sims=9,rootrand=0.2"
    # AlphaDDA1 has no sims (it sets N_max): its spec is rejected, naming the option
    with pytest.raises(UnknownKindError) as info:
        default_baseline("alphadda1:rootrand=0.2,sims=9")
    assert info.value.key == "sims"
    assert default_baseline("alphadda2:sims=50,model=connect4,adrop=5") == (
        "az:model=connect4,sims=50"
    )
    assert default_baseline("alphadda1") == "az"


def test_paper_rows_in_the_report() -> None:
    """On a paper game the row of a paper AlphaDDA is followed by the paper's row (its
    opponents by the paper's names: here MCTS1 and Random, from Tables 5-7)."""
    paper_row = "alphadda1:nh=3,asim=2,bsim0=-1.4,nmax=200"  # Table 1 (the default is tuned)
    result = _result((paper_row, "alphadda1:floor=on"), game="connect4")
    table = wld_table(result, "first").splitlines()
    paper = [line for line in table if "*paper" in line]
    assert paper == [
        "| *paper, Table 6: AlphaDDA1* | 0.32/0.66/0.02 | 1.00/0.00/0.00 | 0/2 | 1.00 | 67 "
        "| 0.67 | 100 |"
    ]
    assert table.index(paper[0]) == 4  # below the baseline and alphadda1 rows, above the floor
    text = report_markdown(result)
    assert "### As second player (Tables 7, 10, 13)" in text
    assert "*paper, Table 5: AlphaDDA1*" in text
    # AlphaDDA players get no DSA (z) tables.
    assert "Table 3 analogue" not in text


# ---- traces -----------------------------------------------------------------------------------
def _note(v: float, vbar: float, sims: int, floor: float | None = None) -> dict[str, Any]:
    note: dict[str, Any] = {"v": v, "vbar": vbar, "sims": sims, "moves": [0], "visits": [1]}
    if floor is not None:
        note["floor"] = floor
    return note


def test_move_traces_from_annotations() -> None:
    second = _game(1, False, 0.0, [_note(-0.2, -0.2, 30), _note(0.4, 0.1, 12, floor=0.5)])
    trace = move_trace(second)
    assert trace is not None
    assert trace.turns == (2, 4)  # A moved second: plies 2 and 4
    assert trace.v == (-0.2, 0.4) and trace.vbar == (-0.2, 0.1) and trace.colour == -1
    assert trace.parameter == "sims" and trace.values == (30.0, 12.0)
    assert trace.floor == (None, 0.5) and trace.score == 0.0
    assert move_trace(_game(0, True, 1.0, [{"z": 0.5}])) is None  # not an AlphaDDA
    assert move_trace(_game(0, True, 1.0)) is None
    p = {"v": 0.1, "vbar": 0.1, "p_drop": 0.3}
    games = [_game(i, i % 2 == 0, 1.0, [p, p]) for i in range(6)]
    games.append(_game(6, False, 1.0, [p]))  # an odd index played second, stored last
    picked = example_traces(games[::-1], 3)  # in series and game order, whatever the input
    assert [(t.game_index, t.a_first) for t in picked] == [(0, True), (1, False), (2, True)]
    assert picked[0].parameter == "p_drop"
    only_first = example_traces([g for g in games if g.a_first], 2)
    assert [t.game_index for t in only_first] == [0, 2]
    assert example_traces(games, 0) == ()


# ---- a tiny run with a stub AlphaDDA ----------------------------------------------------------
class StubDDA(Player):
    """Random moves, annotated like AlphaDDA1: v = +-0.5 by move parity, vbar its running
    mean, sims = 10 + the own move's index."""

    def __init__(self, seed: int | None) -> None:
        super().__init__("StubDDA", seed)
        self.values: list[float] = []

    def new_game(self, game: Game, player_index: int) -> None:
        self.values = []

    def select_move(self, game: Game, state: State, limit: Limit | None = None) -> int:
        self.values.append(0.5 if len(self.values) % 2 == 0 else -0.5)
        moves = game.legal_moves(state)
        return int(moves[self.rng.integers(len(moves))])

    def play(self, game: Game, state: State, limit: Limit | None = None) -> Decision:
        move = self.select_move(game, state, limit)
        vbar = sum(self.values) / len(self.values)
        return Decision(
            move, annotation={"v": self.values[-1], "vbar": vbar, "sims": 10 + len(self.values)}
        )


def make_stub(game: Game, spec: PlayerSpec, seed: int | None) -> Player:
    check_options(spec, {"name"})
    return StubDDA(seed)


if multiprocessing.current_process().name != "MainProcess":  # a pool worker importing this
    registry.register_factory("stubdda", "test stub")(make_stub)


@pytest.fixture(autouse=True)
def stub(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register the ``stubdda`` kind for each test (the statistics read the adaptive
    player's typed settings, :func:`~sparring.experiments.adapt.adaptive_mode`, so its kind
    must be registered, as it is in a run, which builds the players first)."""
    register_for_test(monkeypatch, "stubdda", make_stub)


def test_tiny_run_writes_tables_and_traces(stub: None, tmp_path: Path) -> None:
    config = AdaptConfig(
        game="tictactoe",
        adaptive=("stubdda", "uct:sims=4,name=U"),
        opponents=("random", "uct:sims=2"),
        games=4,
        repeats=1,
        baseline="random:name=Base",
        baseline_games=2,
        trace_games=3,
    )
    result = run_adapt(config, progress=False)
    assert result.complete and result.baseline_sides is not None
    dda, uct = result.stats
    for cell in dda.cells:
        assert cell.first.games == cell.second.games == 2
        assert [t.a_first for t in cell.traces] == [True, False, True]
        trace = cell.traces[0]
        assert trace.turns[:2] == (1, 3) and trace.values[:2] == (11.0, 12.0)
        assert trace.vbar[:2] == (0.5, 0.0)
    assert all(not c.traces for c in uct.cells)  # no vbar annotations: no traces
    paths = write_report(result, tmp_path, command="sparring adapt ...")
    assert paths["traces"].stat().st_size > 10_000 and paths["plot"].is_file()
    data = json.loads(paths["results"].read_text())
    (first, _) = data["adaptive"]
    assert first["d"] == dda.d and len(first["opponents"][0]["traces"]) == 3
    base, timing = data["timing"][0], data["timing"][1]
    assert base["baseline"] and base["opponents"][0]["seconds_per_game"]["n"] == 2
    assert timing["spec"] == "stubdda" and timing["opponents"][0]["seconds_per_game"]["n"] == 4
    assert "timing" not in result.to_json()  # the reproducible numbers only
    assert data["baseline_sides"][0][0]["games"] == 1
    text = paths["report"].read_text()
    assert "[traces.png](traces.png)" in text and "### Seconds per game" in text
    seconds = text.split("### Seconds per game")[1].split("##")[0]
    rows = [line for line in seconds.splitlines() if line.startswith("| ")]
    assert len(rows) == 5 and rows[2].startswith("| w/o adaptation: Base |")  # head, ---, 3
    # The uct row is not an AlphaDDA: it keeps the DSA tables; the stub is no AlphaDDA kind
    # either, so both do.
    assert text.count("Table 3 analogue") == 2


def test_real_alphadda_players_on_connect4(tmp_path: Path) -> None:
    """The shipped network with tiny searches: the traces come from the players' own
    annotations, and a run of AlphaDDA kinds only has no DSA tables and no adapt.png."""
    config = AdaptConfig(
        game="connect4",
        adaptive=("alphadda1:nh=3,nmax=2", "alphadda3:c=1.25,sims=2"),
        opponents=("random",),
        games=2,
        repeats=1,
        baseline_games=0,
    )
    result = run_adapt(config, progress=False)
    one, three = result.stats
    for stats, parameter in ((one, "sims"), (three, "c")):
        (cell,) = stats.cells
        assert [t.a_first for t in cell.traces] == [True, False]
        for trace in cell.traces:
            assert trace.parameter == parameter and trace.floor is None
            assert trace.turns[0] == (1 if trace.a_first else 2)
            assert all(b - a == 2 for a, b in zip(trace.turns, trace.turns[1:], strict=False))
            assert all(-1.0 <= x <= 1.0 for x in trace.vbar)
    # AlphaDDA1 (Eq. 2-3, capped at nmax = 2): 1 or 2 simulations; AlphaDDA3: C = 1.25 (set).
    assert {x for t in one.cells[0].traces for x in t.values} <= {1.0, 2.0}
    assert {x for t in three.cells[0].traces for x in t.values} == {1.25}
    # Eq. 1 with N_h = 3 (set): the second own move's vbar is the mean of two values.
    t = one.cells[0].traces[0]
    assert t.v[0] is not None and t.v[1] is not None
    assert t.vbar[1] == pytest.approx((t.v[0] + t.v[1]) / 2, abs=2e-6)
    paths = write_report(result, tmp_path)
    assert set(paths) == {"report", "results", "traces"}
    assert not (tmp_path / "adapt.png").exists()
    text = paths["report"].read_text()
    assert "DSA tables" not in text and "adapt.png" not in text


def test_adapt_png_has_a_row_per_dsa_player_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An AlphaDDA player has no z and no Elo estimate: its empty panels are left out of the
    # Fig. 5 analogue (its figure is traces.png); the other player keeps its row.
    from matplotlib.figure import Figure

    from sparring.experiments.adapt.report import plot_adapt

    saved: list[Figure] = []
    monkeypatch.setattr(Figure, "savefig", lambda self, *a, **k: saved.append(self))
    result = _result(("alphadda1:nh=3", "stubdda"))
    assert [s.dsa_tables for s in result.stats] == [False, True]
    plot_adapt(result, tmp_path / "adapt.png")
    (figure,) = saved
    assert [ax.get_title() for ax in figure.axes] == ["STUBDDA (inter)"] * 2
