"""Per-player thinking time and game lengths of a match/tournament game store.

Usage (from the repository root)::

    .venv/bin/python scripts/store_times.py [--over SECONDS] runs/ext/chess-ladder.sqlite [...]

For each store (the SQLite file ``sparring match`` / ``sparring tournament --store`` write):
the games, the wall time from the first to the last finished game, and per player label its
moves, mean and largest seconds a move (the stored think times), the moves over one second
(or over ``--over SECONDS``), and the mean plies of its
games.  Standard library only; reads the store, changes nothing.
"""

from __future__ import annotations

import json
import sqlite3
import statistics
import sys


def summary(path: str, over: float = 1.0) -> str:
    """The report of one store."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        rows = db.execute(
            "SELECT label_a, label_b, a_first, think_times, plies, finished_at FROM games"
        ).fetchall()
    times: dict[str, list[float]] = {}
    plies: dict[str, list[int]] = {}
    for label_a, label_b, a_first, think, n, _ in rows:
        first, second = (label_a, label_b) if a_first else (label_b, label_a)
        for i, seconds in enumerate(json.loads(think)):
            times.setdefault(first if i % 2 == 0 else second, []).append(float(seconds))
        for label in (label_a, label_b):
            plies.setdefault(label, []).append(int(n))
    finished = [r[5] for r in rows]
    span = (max(finished) - min(finished)) / 60 if finished else 0.0
    lines = [f"{path}: {len(rows)} games, {span:.1f} minutes from the first to the last"]
    for label in sorted(plies):
        t = times.get(label, [0.0])
        lines.append(
            f"  {label}: {len(t)} moves, {statistics.mean(t):.3f} s a move (max {max(t):.2f}, "
            f"{sum(x > over for x in t)} over {over:g} s), "
            f"games of {statistics.mean(plies[label]):.0f} plies on average"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    args = sys.argv[1:]
    limit = 1.0
    if args[:1] == ["--over"]:
        if len(args) < 2:
            raise SystemExit(__doc__)
        limit, args = float(args[1]), args[2:]
    if not args:
        raise SystemExit(__doc__)
    print("\n".join(summary(p, limit) for p in args))
