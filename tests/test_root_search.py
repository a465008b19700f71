"""research/root_search.py (what one search thinks of one position): the solver's
column, the root's visits, and the table on a hand-made search."""

from __future__ import annotations

from types import ModuleType

import pytest

from script_module import load_script


@pytest.fixture(scope="module")
def script() -> ModuleType:
    return load_script("root_search")


def test_the_start_position_with_the_exact_solvers_scores(script: ModuleType) -> None:
    pytest.importorskip("bitbully")
    (search,) = script.search_root("connect4", "az:model=connect4", [], [32], seed=3)
    rows = {row.move: row for row in search.rows}
    # Connect4's known opening values (columns 1-7): only the centre wins.
    assert {m: r.solver for m, r in rows.items()} == {
        "1": -2,
        "2": -1,
        "3": 0,
        "4": 1,
        "5": 0,
        "6": -1,
        "7": -2,
    }
    assert search.simulations == 32
    assert sum(r.visits for r in search.rows) in (31, 32)
    assert abs(sum(r.prior for r in search.rows) - 1.0) < 1e-5
    best = max(search.rows, key=lambda r: r.visits)
    assert search.played == best.move


def test_moves_are_played_before_the_search(script: ModuleType) -> None:
    pytest.importorskip("bitbully")
    (search,) = script.search_root("connect4", "az:model=connect4", ["4", "4"], [16], seed=3)
    assert len(search.rows) == 7
    # bitbully's scores after 4 4 (the start's are -2 -1 0 1 0 -1 -2).
    assert [r.solver for r in search.rows] == [-3, -3, -2, 1, -2, -3, -3]


def test_the_table(script: ModuleType) -> None:
    row = script.RootRow
    searches = [
        script.RootSearch(
            8, "b", 0.25, (row("a", 0.4, 3, 0.1, None), row("b", 0.6, 4, -0.2, None))
        ),
        script.RootSearch(
            16, "a", None, (row("a", 0.4, 10, 0.3, None), row("b", 0.6, 5, 0.0, None))
        ),
    ]
    assert script.markdown(searches) == (
        "| move | P | N (8) | Q (8) | N (16) | Q (16) |\n"
        "| ---: | ---: | ---: | ---: | ---: | ---: |\n"
        "| a | 0.400 | 3 | +0.100 | 10 | +0.300 |\n"
        "| b | 0.600 | 4 | -0.200 | 5 | +0.000 |\n"
        "\nMove chosen at each simulation count: 8: b (root value +0.250), 16: a.\n"
    )
