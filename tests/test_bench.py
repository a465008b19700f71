"""The benchmark command's building blocks run and report sane figures."""

from __future__ import annotations

import pytest

from sparring.bench import BenchConfig, bench_playouts, bench_uct, rows_to_markdown


def test_rule_benchmarks_measure_positive_rates() -> None:
    config = BenchConfig(games=("connect4",), repeats=1, seconds=0.05, uct_simulations=500)
    rows = [bench_playouts("connect4", config), bench_uct("connect4", config)]
    for row in rows:
        assert row.ours > 0 and len(row.samples) == 1
        assert row.reference is not None and row.reference > 0  # OpenSpiel measured alike
        assert row.ratio == pytest.approx(row.ours / row.reference)
    text = rows_to_markdown(rows, "sparring bench -g connect4", 1)
    assert "| connect4 | random playouts/s |" in text and "Command: `sparring bench" in text


def test_games_without_openspiel_reference() -> None:
    config = BenchConfig(games=("othello6",), repeats=1, seconds=0.05, openspiel=True)
    row = bench_playouts("othello6", config)
    assert row.ours > 0 and row.reference is None and row.ratio is None


def test_selfplay_benchmark_counts_games_and_moves() -> None:
    from sparring.bench import bench_selfplay, selfplay_markdown

    row = bench_selfplay("tictactoe", games=4)
    assert row.games == 4
    assert 4 * 5 <= row.positions <= 4 * 9  # a tic-tac-toe game has 5 to 9 moves
    assert row.seconds > 0 and row.games_per_hour > 0
    table = selfplay_markdown([row], "sparring bench --selfplay", 1)
    assert "| tictactoe |" in table and "games/hour" in table
