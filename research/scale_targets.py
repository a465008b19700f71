"""The rows of a Stockfish-scale target check (docs/research/external-strength.md): for each
asked Elo, the sweep width the shipped scale plays (and the scale's Elo for it), the score
against the rung, the measured Elo (95%) and the error; then the RMS and mean signed error.

Usage (from the repository root)::

    .venv/bin/python research/scale_targets.py runs/scale/u1000-sf1350 runs/scale/u1200-sf1350 ...

Each argument is a ``sparring match ... --store X.sqlite --json X.json`` pair without the
suffix, of ``human-mcts:sf_elo=E`` against ``stockfish:elo=R`` (anchored at R).  Reads only.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import sparring.kinds  # noqa: F401  (the player kinds, for parse_player)
from sparring.experiments.external_scale import stored_results
from sparring.players.external_scale import ExternalScale, default_scale
from sparring.players.registry import parse_player


def main(paths: list[str]) -> None:
    scale = ExternalScale.read(default_scale("chess"))
    errors = []
    for path in paths:
        data = json.loads(Path(path + ".json").read_text())
        ours = next(p for p in data["players"] if p["spec"].startswith("human-mcts:"))
        rung = next(p for p in data["players"] if p["spec"].startswith("stockfish:"))
        asked = parse_player(ours["spec"]).sf_elo  # type: ignore[attr-defined]
        games = stored_results([Path(path + ".sqlite")])
        score = sum(s if a == ours["spec"] else 1 - s for a, _, s in games)
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
