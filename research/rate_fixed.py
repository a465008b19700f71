"""Rate the players of several game stores together, some players held at fixed Elo.

For matches against reference engines stored apart (e.g. one store per Stockfish setting,
where every Stockfish is labelled "Stockfish"): players are told apart by their spec, and the
reference specs are held at the Elo given, so one fit places a player against all of them
(Bradley-Terry on the Elo scale with the calibration's virtual draws,
``sparring.experiments.calibration.fit_with_fixed``).

    .venv/bin/python research/rate_fixed.py runs/ext/chess-sweep-1600.sqlite \
        runs/ext/chess-sweep-2000.sqlite --fixed stockfish:elo=1600=1600 \
        --fixed stockfish:elo=2000=2000
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sparring.experiments.calibration import fit_with_fixed
from sparring.experiments.external_scale import parse_fixed, parse_same, stored_results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stores", nargs="+", type=Path, help="SQLite game stores")
    parser.add_argument(
        "--fixed", action="append", required=True, help="SPEC=ELO (the last '=' splits)"
    )
    parser.add_argument(
        "--same",
        action="append",
        default=[],
        help="SPEC==OTHER: rate the games of SPEC as OTHER's (one player written two ways)",
    )
    args = parser.parse_args()
    same = parse_same(args.same)
    fixed = parse_fixed(args.fixed)
    games = stored_results(args.stores, same)
    fit = fit_with_fixed(games, fixed)
    names = sorted({n for a, b, _ in games for n in (a, b)}, key=fit.rating, reverse=True)
    for name in names:
        played = [(s if a == name else 1 - s) for a, b, s in games if name in (a, b)]
        where = "fixed" if name in fixed else f"± {1.96 * fit.rating_stderr(name):.0f}"
        print(f"{name}: {fit.rating(name):.0f} {where} ({sum(played):g}/{len(played)})")


if __name__ == "__main__":
    main()
