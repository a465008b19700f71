"""What AlphaDDA's value signal said in the games of a `sparring adapt` store (the floor of
docs/research/alphadda.md).

For each (adaptive spec, opponent) pair of the store: games, the adaptive player's wins and
losses, the mean over its games of the per-game mean ``x = vbar_n c`` (from its own side), the
mean floor level of its moves, and the share of its lost games in which ``x`` was at least 0.3
on average (the signal saying "ahead" in a game it lost).

    PYTHONPATH=src python research/alphadda_floor_signal.py /work/runs/floor/carry1/games.sqlite
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections import defaultdict


def main(path: str) -> None:
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = connection.execute(
        "select spec_a, spec_b, a_first, result, annotations from games "
        "where spec_a like 'alphadda%' order by spec_a, spec_b, game_index"
    )
    stats: dict[tuple[str, str], list[tuple[float, float, float]]] = defaultdict(list)
    for spec, opponent, a_first, result, notes in rows:
        c = 1.0 if a_first else -1.0
        own = [a for a in json.loads(notes or "[]") if a]
        xs = [a["vbar"] * c for a in own if "vbar" in a]
        floors = [a.get("floor", 0.0) for a in own]
        score = result if a_first else 1.0 - result
        if xs:
            stats[spec, opponent].append((score, sum(xs) / len(xs), sum(floors) / len(floors)))
    print("| spec | opponent | games | W | L | mean x | mean floor | lost with mean x >= 0.3 |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for (spec, opponent), games in sorted(stats.items()):
        wins = sum(1 for s, _, _ in games if s == 1.0)
        lost = [g for g in games if g[0] == 0.0]
        ahead = sum(1 for _, x, _ in lost if x >= 0.3)
        mean_x = sum(x for _, x, _ in games) / len(games)
        mean_f = sum(f for _, _, f in games) / len(games)
        print(
            f"| `{spec}` | {opponent} | {len(games)} | {wins} | {len(lost)} | {mean_x:.2f} | "
            f"{mean_f:.2f} | {ahead} of {len(lost)} |"
        )


if __name__ == "__main__":
    main(sys.argv[1])
