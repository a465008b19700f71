"""Win rate of each adaptive player per opponent over the first games of every series and
over the rest, from a ``sparring adapt`` game store (how much of a series' win rate is the
search for the opponent at its start).

    python research/adapt_early_late.py RUN/games.sqlite [--first 10]
"""

from __future__ import annotations

import argparse
import sqlite3
from collections import defaultdict


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", help="games.sqlite of a sparring adapt run")
    parser.add_argument("--first", type=int, default=10, help="games counted as the start")
    args = parser.parse_args()
    with sqlite3.connect(args.store) as con:
        rows = con.execute(
            "select label_a, label_b, game_index, "
            "case when a_first = 1 then result else 1 - result end "
            "from games where spec_a like 'dsa%' or spec_a like 'alphadda%'"
        ).fetchall()
    scores: dict[tuple[str, str], tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
    for adaptive, opponent, index, score in rows:
        scores[(adaptive, opponent)][0 if index < args.first else 1].append(float(score))
    print(f"| adaptive | opponent | WR games 1-{args.first} | WR games {args.first + 1}+ |")
    print("| --- | --- | ---: | ---: |")
    for (adaptive, opponent), (early, late) in sorted(scores.items()):

        def rate(xs: list[float]) -> str:
            return f"{100 * sum(xs) / len(xs):.1f}% ({len(xs)})" if xs else "-"

        print(f"| {adaptive} | {opponent} | {rate(early)} | {rate(late)} |")


if __name__ == "__main__":
    main()
