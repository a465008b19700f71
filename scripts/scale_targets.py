"""The rows of a Stockfish-scale target check (docs/external-strength.md): for each asked Elo,
the sweep width the shipped scale plays (and the scale's Elo for it), the score against the
rung, the measured Elo (95%) and the error; then the RMS and mean signed error.

Usage (from the repository root)::

    .venv/bin/python scripts/scale_targets.py runs/scale/u1000-sf1350 runs/scale/u1200-sf1350 ...

Each argument is a ``sparring match ... --store X.sqlite --json X.json`` pair without the
suffix, of ``human-mcts:sf_elo=E`` against ``stockfish:elo=R`` (anchored at R).  Reads only.
"""

from __future__ import annotations

import json
import math
import sqlite3
import sys

from sparring.estimation.external_scale import ExternalScale, default_scale


def main(paths: list[str]) -> None:
    scale = ExternalScale.read(default_scale("chess"))
    errors = []
    for path in paths:
        with open(path + ".json") as file:
            data = json.load(file)
        ours = next(p for p in data["players"] if p["spec"].startswith("human-mcts:sf_elo="))
        rung = next(p for p in data["players"] if p["spec"].startswith("stockfish:"))
        asked = float(ours["spec"].split("sf_elo=")[1].split(",")[0])
        with sqlite3.connect(f"file:{path}.sqlite?mode=ro", uri=True) as db:
            games = db.execute("SELECT spec_a, a_first, result FROM games").fetchall()
        score = 0.0
        for spec_a, a_first, result in games:
            first = result if a_first else 1 - result  # A's score
            score += first if spec_a == ours["spec"] else 1 - first
        choice = scale.choose(asked)
        error = ours["elo"] - asked
        errors.append(error)
        print(
            f"| {asked:g} | {choice.value:g} ({choice.played:.0f}) | {score:g}/{len(games)} "
            f"against {rung['elo']:g} | {ours['elo']:.0f} ± {1.96 * ours['stderr']:.0f} "
            f"| {error:+.0f} |"
        )
    rms = math.sqrt(sum(e * e for e in errors) / len(errors))
    print(f"RMS error {rms:.1f}, mean signed error {sum(errors) / len(errors):+.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
