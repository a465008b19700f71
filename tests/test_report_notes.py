"""The Elo table says when a player lost (or won) every game: its rating is only a bound and
its confidence interval is not meaningful."""

from __future__ import annotations

import io

import numpy as np
from rich.console import Console

from sparring.evaluation.ratings import Anchor, GameResults, fit_elo
from sparring.evaluation.report import elo_markdown, elo_rich_table, perfect_record_notes


def results(games: list[tuple[int, int, float]]) -> GameResults:
    """Games of players A, B, C, D as (first, second, score of first)."""
    first, second, score = zip(*games, strict=True)
    return GameResults(
        names=("A", "B", "C", "D"),
        first=np.array(first),
        second=np.array(second),
        score=np.array(score),
    )


# A beats everyone; D loses to everyone; B and C split their games.
GAMES = [
    (0, 1, 1.0),
    (2, 0, 0.0),
    (0, 3, 1.0),
    (1, 2, 1.0),
    (2, 1, 1.0),
    (1, 3, 1.0),
    (3, 2, 0.0),
    (1, 2, 0.5),
]


def test_notes_name_every_player_with_a_perfect_record() -> None:
    fit = fit_elo(results(GAMES), anchor=Anchor("B", 1500.0))
    assert perfect_record_notes(fit) == [
        "A won every game (3): its rating is only a lower bound (the games cannot say how "
        "much stronger it is; the fit's 0.01 virtual draws per pair keep it finite), and its "
        "interval is not meaningful.",
        "D lost every game (3): its rating is only an upper bound (the games cannot say how "
        "much weaker it is; the fit's 0.01 virtual draws per pair keep it finite), and its "
        "interval is not meaningful.",
    ]
    md = elo_markdown(fit)
    rows = {line.split(" | ")[0][2:]: line for line in md.splitlines() if line.startswith("| ")}
    assert rows["A"].startswith(f"| A | ≥{fit.rating('A'):.0f} | ")
    assert rows["D"].startswith(f"| D | ≤{fit.rating('D'):.0f} | ")
    assert rows["B"].startswith("| B | 1500 | -0 | +0 |")
    assert md.count("\n* ") == 2 and "* D lost every game (3)" in md
    console = Console(file=io.StringIO(), width=200)
    console.print(elo_rich_table(fit))
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "A won every game (3)" in text and "D lost every game (3)" in text


def test_a_perfect_anchor_makes_the_others_bounds() -> None:
    fit = fit_elo(results(GAMES), anchor=Anchor("D", 1000.0))
    notes = perfect_record_notes(fit)
    assert notes[-1] == (
        "D (the anchor) lost every game (3): the other players' ratings are only lower bounds, "
        "and their intervals are not meaningful."
    )
    assert len(notes) == 2 and notes[0].startswith("A won every game")
    # The anchor's own rating is exact: no bound sign.
    assert "| D | 1000 | -0 | +0 |" in elo_markdown(fit)


def test_no_notes_without_perfect_records_and_none_for_an_anchor_only_pair() -> None:
    mixed = [(0, 1, 1.0), (1, 2, 1.0), (2, 3, 1.0), (3, 0, 1.0), (0, 2, 0.5), (1, 3, 0.5)]
    fit = fit_elo(results(mixed), anchor=Anchor("A", 1500.0))
    assert perfect_record_notes(fit) == []
    assert "\n* " not in elo_markdown(fit) and "≤" not in elo_markdown(fit)
    two = GameResults(
        names=("R", "S"), first=np.array([0, 1]), second=np.array([1, 0]), score=np.array([0, 1])
    )
    fit = fit_elo(two, anchor=Anchor("R", 1000.0))
    # S's own note says it all; the anchor's note is left out.
    assert [n.split(":")[0] for n in perfect_record_notes(fit)] == ["S won every game (2)"]
