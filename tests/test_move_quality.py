"""Centipawn loss of chess moves (``sparring.estimation.quality``) and its place in
``se-match``.  The Stockfish tests skip with a message when Stockfish is absent, except under
CI (``SPARRING_CI=1``, set by ``.ci/run``, whose install step installs Debian's stockfish)."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import chess
import numpy as np
import pytest

from sparring.errors import SparringError
from sparring.estimation.heldout import HeldOutPositions
from sparring.estimation.match import run_match, write_match
from sparring.estimation.quality import LossSummary, StockfishJudge, find_stockfish
from sparring.games.chess import Chess, move_to_action


def need_stockfish() -> Path:
    path = find_stockfish()
    if path is None:
        if os.environ.get("SPARRING_CI"):
            pytest.fail("Stockfish is missing under CI: scripts/install.sh installs it")
        pytest.skip("Stockfish not found (Debian package stockfish); skipping")
    return path


def test_loss_summary_hand_values() -> None:
    losses = np.array([0.0, 10.0, 20.0, 5.0])
    summary = LossSummary.of(losses, np.array([0, 0, 1, 1]), 3)
    assert summary.n == (2, 2, 0)
    assert summary.mean[:2] == (5.0, 12.5) and math.isnan(summary.mean[2])
    assert summary.sd[0] == pytest.approx(math.sqrt(50.0)) and summary.sd[1] == pytest.approx(
        math.sqrt(112.5)
    )
    lo, hi = summary.interval(0)
    assert (lo, hi) == pytest.approx((5.0 - 1.96 * 5.0, 5.0 + 1.96 * 5.0))
    assert summary.overall() == 8.75


def test_judge_rejects_bad_settings() -> None:
    with pytest.raises(SparringError, match="depth must be >= 1"):
        StockfishJudge(Path("/nonexistent"), depth=0)
    with pytest.raises(SparringError, match="cap must be >= 1"):
        StockfishJudge(Path("/nonexistent"), cap=0)
    with (
        pytest.raises(SparringError, match="cannot start Stockfish at /nonexistent"),
        StockfishJudge(Path("/nonexistent")),
    ):
        pass


# White queen d2 against a loose black queen d5: Qxd5 keeps the full (capped) advantage,
# Kf1 leaves the d2 queen to ...Qxd2 and loses both caps (Stockfish 15.1 at depth 8 says
# +650 before and -651 after Qxd5, +661 for Black after Kf1: beyond a 300 cp cap).
QUEENS = "4k3/8/8/3q4/8/8/3Q4/4K3 w - - 0 1"


def test_stockfish_losses_on_a_won_and_a_thrown_position() -> None:
    with StockfishJudge(need_stockfish(), depth=8, cap=300) as judge:
        board = chess.Board(QUEENS)
        assert judge.evaluation(board) == 300.0
        assert judge.loss(board, chess.Move.from_uci("d2d5")) == 0.0
        assert judge.loss(board, chess.Move.from_uci("e1f1")) == 600.0
        with pytest.raises(SparringError, match="illegal move e1e3"):
            judge.loss(board, chess.Move.from_uci("e1e3"))
        # a mating move loses nothing; a mated side's evaluation is -cap
        mate = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
        assert judge.loss(mate, chess.Move.from_uci("a1a8")) == 0.0
        after = mate.copy()
        after.push_uci("a1a8")
        assert judge.evaluation(after) == -300.0
        # actions on game states give the same losses
        rules = Chess()
        state = rules.state_from_board(chess.Board(QUEENS))
        moves = np.array(
            [move_to_action(chess.Move.from_uci(u)) for u in ("d2d5", "e1f1")], dtype=np.int64
        )
        assert judge.losses([state, state], moves).tolist() == [0.0, 600.0]
    with pytest.raises(SparringError, match="with-block"):
        judge.evaluation(chess.Board())


class _FirstLegal:
    name = "first legal"

    def moves(self, pos: HeldOutPositions) -> np.ndarray:
        return np.array([int(np.flatnonzero(m)[0]) for m in pos.legal], dtype=np.int64)


def test_run_match_with_a_judge_reports_human_and_program_losses(tmp_path: Path) -> None:
    rules = Chess()
    state = rules.initial_state()
    legal = rules.legal_mask(state)
    first = int(np.flatnonzero(legal)[0])
    human = move_to_action(chess.Move.from_uci("e2e4"))
    pos = HeldOutPositions(
        game="chess",
        ranks=("a", "b"),
        states=[state, state, state],
        planes=np.zeros((3, 1), dtype=np.float32),
        actions=np.array([human, first, human], dtype=np.int64),
        rank=np.array([0, 0, 1], dtype=np.int64),
        legal=np.stack([legal] * 3),
        move_number=np.zeros(3, dtype=np.int64),
        source=["x:1:1", "x:2:1", "x:3:1"],
    )

    def judge(states: list[object], moves: np.ndarray) -> np.ndarray:
        # stub: the e2e4 action loses 0, any other move 30
        return np.where(moves == human, 0.0, 30.0)

    table = run_match(pos, [_FirstLegal()], judge=judge)
    assert table.human_loss is not None and table.human_loss.mean == (15.0, 0.0)
    loss = table.results[0].loss
    assert loss is not None and loss.mean == (30.0, 30.0) and loss.n == (2, 1)
    assert table.results[0].hits == (1, 0)
    md = write_match(table, tmp_path, "cmd").read_text()
    assert "| rank | human moves | first legal |" in md and "| a | 15 (" in md
    assert (tmp_path / "cpl.png").is_file()
    data = json.loads((tmp_path / "match.json").read_text())
    assert data["human_loss"]["mean"] == [15.0, 0.0]
    assert data["programs"][0]["loss"]["n"] == [2, 1]
    # without a judge nothing about losses is written
    plain = run_match(pos, [_FirstLegal()])
    assert plain.human_loss is None and plain.results[0].loss is None


def test_se_match_cpl_depth_is_chess_only() -> None:
    from typer.testing import CliRunner

    from sparring.cli import app

    result = CliRunner().invoke(
        app, ["se-match", "go", "--out", "/tmp/unused", "--positions", "1", "--cpl-depth", "5"]
    )
    assert isinstance(result.exception, SparringError)
    assert "--cpl-depth judges chess moves only" in str(result.exception)
