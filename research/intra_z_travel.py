"""How far intra-game DSA's z moves within a game, from a ``sparring adapt`` game store: per
adaptive player and opponent, the own moves per game, the mean end-of-game z, and the mean and
largest |z| reached (the paper's dZ cooling to 0 over the cool-down bounds the travel).

    python research/intra_z_travel.py RUN/games.sqlite
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
from collections import defaultdict


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", help="games.sqlite of a sparring adapt run")
    args = parser.parse_args()
    with sqlite3.connect(args.store) as con:
        rows = con.execute(
            "select label_a, label_b, a_first, annotations from games where spec_a like 'dsa%'"
        ).fetchall()
    paths: dict[tuple[str, str], list[list[float]]] = defaultdict(list)
    for adaptive, opponent, a_first, stored in rows:
        moves = json.loads(stored)
        own = moves[0 if a_first else 1 :: 2]
        zs = [float(m["z"]) for m in own if m and "z" in m]
        if zs:
            paths[(adaptive, opponent)].append(zs)
    print(
        "| adaptive | opponent | own moves | end z (mean) | max abs z (mean) "
        "| max abs z (largest) |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for (adaptive, opponent), games in sorted(paths.items()):
        reach = [max(abs(z) for z in zs) for zs in games]
        print(
            f"| {adaptive} | {opponent} | {statistics.mean(len(zs) for zs in games):.1f} | "
            f"{statistics.mean(zs[-1] for zs in games):+.2f} | {statistics.mean(reach):.2f} | "
            f"{max(reach):.2f} |"
        )


if __name__ == "__main__":
    main()
