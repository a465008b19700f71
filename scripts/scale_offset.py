"""Move an external scale by the offset its levels measured through an engine front end.

A scale file (``sparring scale-fit``) rates each knob value against its anchors as the fit's
games met them (the chess scale: Stockfish 15.1 at fixed ``UCI_Elo``, 0.1 s a move, players
built in-process).  The levels check through ``sparring uci`` (``scripts/uci_level_check.py``)
plays the same settings against the same ``UCI_Elo`` anchors as a GUI meets them (0.5 s a
move).  This script fits the offset ``c`` that makes those games most likely when each
asked level plays at the fit's Elo for it plus ``c`` (the anchors at their ``UCI_Elo``;
Elo's logistic, Newton's method), and writes the scale with every point at the fit's Elo
plus ``c`` (:meth:`~sparring.players.external_scale.ExternalScale.moved`): one number for
the whole chain, so the fit's shape (which knob value is stronger than which, and by how
much) is kept and only its origin moves to the front end's anchors; or, with
``--per-knob``, one number for each scale of a chain (the simulations, then the leaf's
nodes above them), each fitted on the games its own knob played, so each knob's shape is
kept.  ``--compare`` chooses between the two on the games alone: each run left out in
turn, both rules fitted on the others, the left-out games' log-likelihood added up.

Each run is a level check folder, ``DIR`` for games played on the fit itself or
``DIR@OFFSET[,OFFSET...]`` for games played on the scale moved by that offset (one, or one
per scale): each game's asked Elo is taken through the scale as it was then, to the knob
value played and the fit's Elo of it.  A scale already moved is taken back to its fit before
the new offset is written, so running the command again writes the same file.

Only levels that did their whole work count: a run's level with ``clock too short`` notices
(its search cut by the clock) in more than ``--cut-share`` of its moves (default 0: any)
measured another player than its setting.

Usage (from the repository root)::

    R=docs/strength/uci-levels
    .venv/bin/python scripts/scale_offset.py $R/movetime-0.5@0 \\
        $R/refit-movetime-0.5@-134.7 $R/refit-blitz-3+2@-134.7 --cut-share 0.01 \\
        --scale src/sparring/models/estimators/chess-stockfish-scale.json \\
        --label "Stockfish 15.1 UCI_Elo, 0.5 s a move" --per-knob

``--dry-run`` prints the offsets without writing; ``--out`` writes elsewhere than ``--scale``.
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
from pathlib import Path

from uci_level_check import fit_elo

from sparring.elo import expected_score
from sparring.players.external_scale import ExternalScale

Run = tuple[Path, tuple[float, ...]]
"""A level check folder and the scale's offset(s) when its games were played."""


def run_arg(text: str) -> Run:
    """``DIR`` (games played on the fit itself) or ``DIR@OFFSET[,OFFSET...]``: the offset the
    scale had when the games were played, one for the whole chain or one per scale."""
    folder, _, offsets = text.rpartition("@") if "@" in text else (text, "", "")
    try:
        values = tuple(float(x) for x in offsets.split(",")) if offsets else (0.0,)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: offsets after @ must be numbers") from None
    return Path(folder), values


def level_games(
    runs: list[Path], cut_share: float = 0.0
) -> tuple[list[dict], list[tuple[str, float]]]:
    """The games of ``runs`` (each tagged with its ``run``), but for the levels the clock
    cut in a run: those with ``clock too short`` notices in more than ``cut_share`` of their
    moves there (0: any notice); and the (run, level) pairs left out."""
    games = [
        {**json.loads(line), "run": str(run)}
        for run in runs
        for line in (run / "games.jsonl").open()
    ]
    levels = {(g["run"], g["asked"]) for g in games}
    cut = []
    for level in sorted(levels, key=lambda x: (x[0], -1.0 if x[1] is None else x[1])):
        mine = [g for g in games if (g["run"], g["asked"]) == level]
        short = sum(1 for g in mine for n in g["notes"] if "too short" in n)
        if short > cut_share * sum(len(g["think"]) for g in mine):
            cut.append(level)
    kept = [g for g in games if g["asked"] is not None and (g["run"], g["asked"]) not in cut]
    return kept, cut


def played_settings(games: list[dict], runs: list[Run], fit: ExternalScale) -> list[dict]:
    """Each game with ``link`` (which scale of the chain played it, lowest 0) and ``fit_elo``
    (the fit's Elo of the knob value played): the asked level taken through the scale as it
    was, moved by the run's offsets (one for the chain, or one per scale), when the game was
    played."""
    at_play = {str(path): fit.moved(offsets, "", "") for path, offsets in runs}
    out = []
    for g in games:
        scale = at_play[g["run"]]
        segment, choice = scale.pick(g["asked"])
        link = next(i for i, s in enumerate(scale.segments()) if s is segment)
        out.append({**g, "link": link, "fit_elo": choice.played - segment.offset})
    return out


def fit_offset(games: list[dict]) -> tuple[float, float]:
    """The offset ``c`` maximising the games' likelihood with sparring at its ``fit_elo``
    plus ``c`` against each game's anchor, and its 95% half-interval: the level check's Elo
    fit with each anchor taken relative to the level's fit Elo."""
    return fit_elo([{**g, "anchor": g["anchor"] - g["fit_elo"]} for g in games])


def fit_offsets(games: list[dict], links: int, per_knob: bool) -> list[tuple[float, float]]:
    """One offset (and half-interval) per scale of a chain of ``links``: the same one for
    all, fitted on all the games, or (``per_knob``) each fitted on the games its scale
    played (a scale with none takes the one for all)."""
    pooled = fit_offset(games)
    if not per_knob:
        return [pooled] * links
    return [
        fit_offset(mine) if (mine := [g for g in games if g["link"] == i]) else pooled
        for i in range(links)
    ]


def log_likelihood(games: list[dict], offsets: list[float]) -> float:
    """The games' log-likelihood (a draw half a win, half a loss) with each level at its
    fit Elo plus its scale's offset."""
    total = 0.0
    for g in games:
        p = expected_score(g["fit_elo"] + offsets[g["link"]], g["anchor"])
        total += g["result"] * math.log(p) + (1 - g["result"]) * math.log(1 - p)
    return total


def compare(games: list[dict], links: int) -> str:
    """Leave each run out in turn, fit one offset and one per knob on the others, and add up
    each rule's log-likelihood of the games left out; prints the folds and returns the rule
    with the higher total (``one`` on a tie)."""
    totals = {"one": 0.0, "per-knob": 0.0}
    for run in sorted({g["run"] for g in games}):
        rest = [g for g in games if g["run"] != run]
        left = [g for g in games if g["run"] == run]
        line = []
        for rule in totals:
            offsets = [c for c, _ in fit_offsets(rest, links, rule == "per-knob")]
            ll = log_likelihood(left, offsets)
            totals[rule] += ll
            line.append(f"{rule} {ll:.2f} (" + ", ".join(f"{c:+.1f}" for c in offsets) + ")")
        print(f"{run} left out, {len(left)} games: " + "; ".join(line))
    best = "per-knob" if totals["per-knob"] > totals["one"] else "one"
    print(f"total: one {totals['one']:.2f}, per-knob {totals['per-knob']:.2f}: {best}")
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "runs",
        nargs="+",
        type=run_arg,
        help="level check folders (games.jsonl), each DIR or DIR@OFFSET[,OFFSET]: "
        "the scale's offset when its games were played (default 0, the fit)",
    )
    ap.add_argument("--scale", type=Path, required=True, help="the scale file to move")
    ap.add_argument("--label", required=True, help="the moved scale's name")
    ap.add_argument("--out", type=Path, help="where to write it (default: --scale)")
    ap.add_argument("--per-knob", action="store_true", help="one offset per scale of the chain")
    ap.add_argument(
        "--compare",
        action="store_true",
        help="compare one offset with one per knob, each run left out in turn",
    )
    ap.add_argument(
        "--cut-share",
        type=float,
        default=0.0,
        help="leave out a run's level whose moves the clock cut more often than this share "
        "(default 0: any clock-short notice)",
    )
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args(argv)
    moved = ExternalScale.read(args.scale)
    fit = moved.moved(0.0, moved.scale, "")  # the fit's own Elos
    links = len(fit.segments())
    for path, offsets in args.runs:
        if len(offsets) not in (1, links):
            ap.error(f"{path}: {len(offsets)} offsets for a chain of {links} scales")
    games, cut = level_games([path for path, _ in args.runs], args.cut_share)
    games = played_settings(games, args.runs, fit)
    for run, asked in sorted({(g["run"], g["asked"]) for g in games}):
        mine = [g for g in games if (g["run"], g["asked"]) == (run, asked)]
        print(f"{run} {asked:g}: the fit's Elo {mine[0]['fit_elo']:.0f} "
              f"({fit.segments()[mine[0]['link']].knob}), "
              f"{sum(g['result'] for g in mine):g}/{len(mine)}")  # fmt: skip
    if cut:
        print("left out (clock-short notices): " + ", ".join(f"{r} {a:g}" for r, a in cut))
    if args.compare:
        compare(games, links)
        return 0
    offsets = fit_offsets(games, links, args.per_knob)
    if args.per_knob and links > 1:
        for i, (segment, (c, half)) in enumerate(zip(fit.segments(), offsets, strict=True)):
            n = sum(1 for g in games if g["link"] == i)
            print(f"offset {c:+.1f} ± {half:.1f} over {n} games ({segment.knob})")
    else:
        print(f"offset {offsets[0][0]:+.1f} ± {offsets[0][1]:.1f} over {len(games)} games")
    if args.dry_run:
        return 0
    out = args.out or args.scale
    command = "python scripts/scale_offset.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    rounded = [round(c, 1) for c, _ in offsets]
    out.write_text(
        fit.moved(rounded if args.per_knob else rounded[0], args.label, command).to_json()
    )
    ExternalScale.read(out)  # the written file is a scale
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
