"""Move an external scale by the offset its levels measured through an engine front end.

A scale file (``sparring scale-fit``) rates each knob value against its anchors as the fit's
games met them (the chess scale: Stockfish 15.1 at fixed ``UCI_Elo``, 0.1 s a move, players
built in-process).  The levels check through ``sparring uci`` (``scripts/uci_level_check.py``)
plays the same settings against the same ``UCI_Elo`` anchors as a GUI meets them (0.5 s a
move).  This script fits one number, the offset ``c`` that makes those games most likely
when each asked level plays at the fit's Elo for it plus ``c`` (the anchors at their
``UCI_Elo``; Elo's logistic, Newton's method), and writes the scale with every point at the
fit's Elo plus ``c`` (:meth:`~sparring.players.external_scale.ExternalScale.moved`): one
parameter, so the fit's shape (which knob value is stronger than which, and by how much)
is kept and only its origin moves to the front end's anchors.  A scale already moved is
taken back to its fit first (the levels of the games were chosen on the fit the games
played), so running the command again writes the same file.

Only levels that did their whole work in every move count: a level with a ``clock too
short`` notice (its search cut by the clock) measured another player than its setting.

Usage (from the repository root)::

    .venv/bin/python scripts/scale_offset.py docs/strength/uci-levels/movetime-0.5 \\
        --scale src/sparring/models/estimators/chess-stockfish-scale.json \\
        --label "Stockfish 15.1 UCI_Elo, 0.5 s a move"

``--dry-run`` prints the offset without writing; ``--out`` writes elsewhere than ``--scale``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from uci_level_check import fit_elo

from sparring.players.external_scale import ExternalScale


def level_games(runs: list[Path]) -> tuple[list[dict], list[float]]:
    """The games of ``runs`` whose asked level had no clock-short notice, and the levels
    left out."""
    games = [json.loads(line) for run in runs for line in (run / "games.jsonl").open()]
    cut = sorted({g["asked"] for g in games if any("too short" in n for n in g["notes"])})
    return [g for g in games if g["asked"] is not None and g["asked"] not in cut], cut


def fit_offset(games: list[dict], scale_elo: dict[float, float]) -> tuple[float, float]:
    """The offset ``c`` maximising the games' likelihood with sparring at
    ``scale_elo[asked] + c`` against each game's anchor, and its 95% half-interval: the
    level check's Elo fit with each anchor taken relative to the level's scale Elo."""
    return fit_elo([{**g, "anchor": g["anchor"] - scale_elo[g["asked"]]} for g in games])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", type=Path, help="level check folders (games.jsonl)")
    ap.add_argument("--scale", type=Path, required=True, help="the scale file to move")
    ap.add_argument("--label", required=True, help="the moved scale's name")
    ap.add_argument("--out", type=Path, help="where to write it (default: --scale)")
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args(argv)
    moved = ExternalScale.read(args.scale)
    fit = moved.moved(0.0, moved.scale, "")  # the fit's own Elos
    games, cut = level_games(args.runs)
    scale_elo = {a: fit.pick(a)[1].played for a in sorted({g["asked"] for g in games})}
    offset, half = fit_offset(games, scale_elo)
    for asked, elo in scale_elo.items():
        mine = [g for g in games if g["asked"] == asked]
        print(f"{asked:g}: the fit's Elo {elo:.0f}, {sum(g['result'] for g in mine):g}/{len(mine)}")
    if cut:
        print("left out (clock-short notices): " + ", ".join(f"{a:g}" for a in cut))
    print(f"offset {offset:+.1f} ± {half:.1f} over {len(games)} games")
    if args.dry_run:
        return 0
    out = args.out or args.scale
    command = "python scripts/scale_offset.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    out.write_text(fit.moved(round(offset, 1), args.label, command).to_json())
    ExternalScale.read(out)  # the written file is a scale
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
