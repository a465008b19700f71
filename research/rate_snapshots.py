"""Strength against training cost: rate the snapshots of training runs.

For every snapshot ``snapshots/iter-NNNN.pt`` of each run folder (``sparring train`` with
``snapshot_every``), play the network (``az:model=SNAPSHOT``, the same PUCT search for every
run: ``--sims`` simulations, no noise) against fixed-rating opponents of a baseline ladder,
fit its Elo with the ladder's ratings held fixed, and (Connect4) count its value-optimal
moves on a fixed set of solved positions (BitBully).  The cost of a snapshot is the run's
``cpu_seconds`` at that iteration (its ``log.jsonl``: CPU time of the training process, all
threads) plus the CPU time of its self-play worker processes up to that iteration
(``selfplay_remote_cpu_seconds``, logged by iterations played with ``--selfplay-workers``; see
:func:`training_cpu_seconds`).  Games are kept in a SQLite store, so a re-run resumes and adds
new snapshots.

Writes ``OUT.json`` (every point), ``OUT.md`` (a table per run) and ``OUT.png`` (Elo and
value-optimal share against CPU-hours, one curve per run), e.g.::

    .venv/bin/python research/rate_snapshots.py checkpoints/cmp-connect4-puct \\
        checkpoints/cmp-connect4-gumbel \\
        --ladder src/sparring/models/ladders/baselines-connect4.json \\
        --opponents MCTS1,Minimax1 --games 40 --every 20 --out docs/training-options/connect4

Goals (the training options': "where a goal is missed, the plot says how far and at what slope"):
``--goal NAME=SHARE`` (repeatable) asks for a share of the points against the ladder rung NAME,
drawn at the highest of the rungs' ratings plus :func:`sparring.elo.elo_margin` of the share
(Eq. 16 inverted; a score, so draws count half); ``--goal-value-optimal F`` asks for a share
of value-optimal moves.  For each run the table and the legend give the last snapshot's
distance to the goal and the slope of a least-squares line through the run's later half of
snapshots (at least 3), per CPU-hour.  ``--replot`` redraws the table and plot from
``OUT.json`` without playing, with the options of the command that rated them (kept in the
JSON), e.g. ``research/rate_snapshots.py --replot --goal MCTS1=0.95 --out OUT``.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from scipy.stats import linregress

import sparring.kinds  # noqa: F401  (registers the player kinds)
from sparring.elo import elo_margin
from sparring.evaluation.ladder import fit_against_ladder, read_ladder
from sparring.evaluation.match import MatchConfig, run_match
from sparring.evaluation.store import GameStore
from sparring.games import get_game
from sparring.players import make_player
from sparring.rundir import read_log

SNAPSHOT = re.compile(r"iter-(\d+)\.pt$")


def snapshots(run: Path, every: int) -> list[tuple[int, Path]]:
    """The run's snapshots whose iteration is a multiple of ``every``, in order."""
    found = []
    for path in sorted((run / "snapshots").glob("iter-*.pt")):
        m = SNAPSHOT.search(path.name)
        if m and int(m.group(1)) % every == 0:
            found.append((int(m.group(1)), path))
    return found


def training_cpu_seconds(log: dict[int, dict[str, Any]]) -> dict[int, float]:
    """CPU seconds spent on the run up to each logged iteration: the training process's
    ``cpu_seconds`` (cumulative) plus the cumulative ``selfplay_remote_cpu_seconds`` of the
    iterations whose self-play ran in worker processes or Ray actors (0 for the others)."""
    remote = 0.0
    out = {}
    for iteration in sorted(log):
        entry = log[iteration]
        remote += float(entry.get("selfplay_remote_cpu_seconds", 0.0))
        out[iteration] = float(entry.get("cpu_seconds", math.nan)) + remote
    return out


def rate(args: argparse.Namespace) -> list[dict[str, Any]]:
    ladder = read_ladder(args.ladder)
    by_name = {p.name: p for p in ladder.players}
    opponents = [by_name[name] for name in args.opponents.split(",")]
    game = get_game(args.game)
    positions = []
    if args.game == "connect4" and args.positions > 0:
        from sparring.evaluation.oracle import connect4_positions

        positions = connect4_positions(args.positions, seed=args.position_seed)
    points: list[dict[str, Any]] = []
    old = {}
    if args.out.with_suffix(".json").exists():
        for p in json.loads(args.out.with_suffix(".json").read_text())["points"]:
            old[(p["run"], p["iteration"])] = p
    items: list[tuple[str, str, int, Path, dict[str, Any]]] = []
    for label, model in args.model:  # reference networks: rated alike, no training cost
        items.append((label, "reference", 0, Path(model), {}))
    for run in args.runs:
        log = {r["iteration"]: r for r in read_log(run / "log.jsonl")}
        spent = training_cpu_seconds(log)
        log = {i: r | {"training_cpu_seconds": spent[i]} for i, r in log.items()}
        config = json.loads((run / "config.json").read_text())
        variant = config.get("search_variant", "puct")
        for iteration, path in snapshots(run, args.every):
            if iteration in log:
                items.append((run.name, variant, iteration, path, log[iteration]))
    with GameStore(args.store) as store:
        for run_name, variant, iteration, path, entry in items:
            if True:
                finish = ",finish=yes" if args.finish else ""
                spec = f"az:model={path},sims={args.sims}{finish},name={run_name}@{iteration}"
                elos: list[float] = []
                scores: list[float] = []
                for opponent in opponents:
                    result = run_match(
                        MatchConfig(
                            args.game,
                            spec,
                            opponent.spec,
                            games=args.games,
                            seed=args.seed,
                            workers=args.workers,
                        ),
                        store,
                        progress=False,
                    )
                    for record in result.records:
                        elos.append(opponent.elo)
                        scores.append(record.score_a)
                fit = fit_against_ladder(elos, scores)
                point: dict[str, Any] = {
                    "run": run_name,
                    "variant": variant,
                    "iteration": iteration,
                    "cpu_hours": entry.get("training_cpu_seconds", math.nan) / 3600.0,
                    "wall_hours": entry.get("total_seconds", math.nan) / 3600.0,
                    "games_played": entry.get("games", 0),
                    "elo": fit.elo,
                    "stderr": fit.stderr,
                    "points": fit.points,
                    "games": fit.games,
                }
                per = {}
                for opponent in opponents:
                    own = [s for e, s in zip(elos, scores, strict=True) if e == opponent.elo]
                    per[opponent.name] = sum(own) / len(own)
                point["score_vs"] = per
                cached = old.get((run_name, iteration), {})
                if positions and cached.get("positions") == len(positions):
                    point["value_optimal"] = cached["value_optimal"]
                    point["positions"] = cached["positions"]
                elif positions:
                    from sparring.evaluation.oracle import score_player

                    player = make_player(f"az:model={path},sims={args.sims}", game, args.seed)
                    report = score_player(player, positions)
                    point["value_optimal"] = report.value_optimal / report.positions
                    point["positions"] = report.positions
                points.append(point)
                vo = point.get("value_optimal")
                print(
                    f"{run_name} iter {iteration}: {point['cpu_hours']:.2f} CPU-h, "
                    f"Elo {fit.elo:.0f} +- {fit.stderr:.0f}"
                    + (f", value-optimal {vo:.1%}" if vo is not None else ""),
                    flush=True,
                )
    return keep_earlier(points, list(old.values()))


def keep_earlier(
    rated: list[dict[str, Any]], earlier: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """``rated`` with the points of ``earlier`` (the last ``OUT.json``) of the same runs that
    were not rated now: a run's snapshots are not committed, so a run resumed on another
    machine has only its newer ones, and its curve keeps the older points as they were
    rated.  Runs in the order of ``rated``, each by iteration."""
    runs = list(dict.fromkeys(p["run"] for p in rated))
    done = {(p["run"], p["iteration"]) for p in rated}
    kept = [p for p in earlier if p["run"] in runs and (p["run"], p["iteration"]) not in done]
    for p in kept:
        print(f"{p['run']} iter {p['iteration']}: kept from the last JSON (no snapshot here)")
    return sorted(rated + kept, key=lambda p: (runs.index(p["run"]), p["iteration"]))


def goal_elo(ladder: dict[str, float], goals: list[tuple[str, float]]) -> float:
    """The Elo that meets every ``(rung, share)`` goal: the highest rung rating plus margin."""
    return max(ladder[name] + elo_margin(share) for name, share in goals)


def trend(xs: list[float], ys: list[float]) -> tuple[float, float] | None:
    """Least-squares slope (and its standard error) through the later half of the points.

    The points are taken in the given (training) order; the later ``max(3, ceil(n / 2))`` of
    them are fitted (:func:`scipy.stats.linregress`).  None with fewer than 3 points or no
    spread in ``x``."""
    if len(xs) < 3:
        return None
    k = max(3, math.ceil(len(xs) / 2))
    if len(set(xs[-k:])) < 2:
        return None
    fit = linregress(xs[-k:], ys[-k:])
    return float(fit.slope), float(fit.stderr)


def against_goal(xs: list[float], ys: list[float], goal: float) -> dict[str, float] | None:
    """The last point's distance below ``goal`` (negative: above it), the slope of
    :func:`trend` with its standard error, and the further x at that slope to reach the goal:
    inf unless the slope is clearly rising (more than twice its standard error)."""
    if not xs:
        return None
    gap = goal - ys[-1]
    fit = trend(xs, ys)
    slope, slope_se = fit if fit is not None else (math.nan, math.nan)
    if gap <= 0:
        more = 0.0
    elif math.isnan(slope) or slope <= 2.0 * slope_se:
        more = math.inf
    else:
        more = gap / slope
    return {"gap": gap, "slope": slope, "slope_se": slope_se, "more": more}


def goal_text(g: dict[str, float], unit: str, per: str) -> str:
    """A short phrase: how far from the goal and at what slope (with its standard error)."""
    if g["gap"] <= 0:
        return f"goal met (+{-g['gap']:.0f}{unit})"
    if math.isnan(g["slope"]):
        return f"{g['gap']:.0f}{unit} short, no trend (fewer than 3 snapshots)"
    digits = 0 if abs(g["slope"]) >= 10 else 1
    slope = f"{g['slope']:+.{digits}f} +- {g['slope_se']:.{digits}f}{unit}/{per}"
    more = (
        "no clear rise" if math.isinf(g["more"]) else f"~{g['more']:.1f} more {per} at that slope"
    )
    return f"{g['gap']:.0f}{unit} short, {slope} ({more})"


def write(args: argparse.Namespace, points: list[dict[str, Any]]) -> None:
    out: Path = args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    command = "research/rate_snapshots.py " + shlex.join(sys.argv[1:])  # --replot parses it
    drawn = ""
    if args.replot:  # the JSON keeps the command that rated the points
        shown = [a if a != args.note else "..." for a in sys.argv[1:]]  # the note is below
        drawn = "research/rate_snapshots.py " + shlex.join(shown)
        command = json.loads(out.with_suffix(".json").read_text())["command"]
    else:
        out.with_suffix(".json").write_text(
            json.dumps({"command": command, "points": points}, indent=1) + "\n"
        )
    ladder = {q.name: q.elo for q in read_ladder(args.ladder).players}
    target = goal_elo(ladder, args.goal) if args.goal else None
    lines = [
        f"# Strength against training cost ({args.game})",
        "",
        f"Command: `.venv/bin/python {command}`",
        "",
        *([f"Table and plot drawn by `.venv/bin/python {drawn}`.", ""] if drawn else []),
        f"Each snapshot plays {args.games} games against each of {args.opponents} "
        f"(ladder {args.ladder}, ratings held fixed) with `az:sims={args.sims}"
        + (",finish=yes" if args.finish else "")
        + "`; "
        "CPU-hours are the training's CPU time up to that iteration (its process and its "
        "self-play worker processes)." + (f" {args.note}" if args.note else ""),
        "",
    ]
    for run in dict.fromkeys(p["run"] for p in points):
        rows = [p for p in points if p["run"] == run]
        lines += [
            f"## {run} ({rows[0]['variant']})",
            "",
            "| iteration | self-play games | CPU-hours | Elo | s.e. | "
            + " | ".join(f"score vs {o}" for o in rows[0]["score_vs"])
            + " | value-optimal |",
            "| ---: | ---: | ---: | ---: | ---: | "
            + " | ".join("---:" for _ in rows[0]["score_vs"])
            + " | ---: |",
        ]
        for p in rows:
            vo = p.get("value_optimal")
            lines.append(
                f"| {p['iteration']} | {p['games_played']} | {p['cpu_hours']:.2f} | "
                f"{p['elo']:.0f} | {p['stderr']:.0f} | "
                + " | ".join(f"{s:.2f}" for s in p["score_vs"].values())
                + f" | {'' if vo is None else f'{vo:.1%}'} |"
            )
        lines.append("")
    runs = list(dict.fromkeys(p["run"] for p in points if p["variant"] != "reference"))
    summary: dict[str, str] = {}  # the legend's phrase per run
    if target is not None or args.goal_value_optimal is not None:
        asked = ", ".join(f"{share:.0%} of the points against {name}" for name, share in args.goal)
        lines += [
            "## Against the goal",
            "",
            *(
                [f"Goal: {asked}, i.e. Elo >= {target:.0f} (Eq. 16 inverted, draws count half)."]
                if target is not None
                else []
            ),
            *(
                [f"Goal: {args.goal_value_optimal:.0%} value-optimal moves."]
                if args.goal_value_optimal is not None
                else []
            ),
            "Slope: least squares through the later half of a run's snapshots (at least 3), "
            "+- its standard error; the CPU-hours to the goal at that slope only where it "
            "rises by more than twice its standard error.",
            "",
            "| run | last snapshot (CPU-hours) | Elo: how far, slope "
            "| value-optimal: how far, slope |",
            "| --- | ---: | --- | --- |",
        ]
        for run in runs:
            rows = [p for p in points if p["run"] == run and any(p["score_vs"].values())]
            if not rows:
                continue
            xs = [p["cpu_hours"] for p in rows]
            cells = ["", ""]
            if target is not None:
                g = against_goal(xs, [p["elo"] for p in rows], target)
                assert g is not None
                cells[0] = goal_text(g, " Elo", "CPU-h")
            vo = [p for p in rows if "value_optimal" in p]
            if args.goal_value_optimal is not None and vo:
                g = against_goal(
                    [p["cpu_hours"] for p in vo],
                    [100 * p["value_optimal"] for p in vo],
                    100 * args.goal_value_optimal,
                )
                assert g is not None
                cells[1] = goal_text(g, " pts", "CPU-h")
            summary[run] = "; ".join(
                text for text in (cells[0], cells[1] and f"value-optimal {cells[1]}") if text
            )
            lines.append(
                f"| {run} | {rows[-1]['iteration']} ({xs[-1]:.2f}) | {cells[0]} | {cells[1]} |"
            )
        lines.append("")
    out.with_suffix(".md").write_text("\n".join(lines))
    panels = 2 if any("value_optimal" in p for p in points) else 1
    fig, axes = plt.subplots(1, panels, figsize=(6 * panels, 4), squeeze=False)
    for p in points:
        if p["variant"] == "reference":
            axes[0][0].axhline(p["elo"], color="grey", linestyle="--", linewidth=1)
            axes[0][0].text(
                0.01, p["elo"], p["run"], va="bottom", fontsize=8, color="grey",
                transform=axes[0][0].get_yaxis_transform(),
            )  # fmt: skip
            if panels == 2 and "value_optimal" in p:
                axes[0][1].axhline(100 * p["value_optimal"], color="grey", linestyle="--")
    rungs = [(name, ladder[name]) for name in args.opponents.split(",")]
    if target is not None:
        axes[0][0].axhline(target, color="red", linestyle="--", linewidth=1)
        axes[0][0].text(
            0.01, target, "goal: " + ", ".join(f"{s:.0%} vs {n}" for n, s in args.goal),
            va="bottom", fontsize=8, color="red", transform=axes[0][0].get_yaxis_transform(),
        )  # fmt: skip
    if panels == 2 and args.goal_value_optimal is not None:
        axes[0][1].axhline(100 * args.goal_value_optimal, color="red", linestyle="--")
        axes[0][1].text(
            0.01, 100 * args.goal_value_optimal, "goal", va="bottom", fontsize=8, color="red",
            transform=axes[0][1].get_yaxis_transform(),
        )  # fmt: skip
    for name, elo in rungs:  # the opponents' ratings, held fixed
        axes[0][0].axhline(elo, color="grey", linestyle=":", linewidth=1)
        axes[0][0].text(
            0.99, elo, name, ha="right", va="bottom", fontsize=8, color="grey",
            transform=axes[0][0].get_yaxis_transform(),
        )  # fmt: skip
    floor = min(elo for _, elo in rungs)
    for run in dict.fromkeys(p["run"] for p in points if p["variant"] != "reference"):
        rows = [p for p in points if p["run"] == run]
        # a snapshot that lost every game has no rating, only an upper bound: drawn as a
        # down-pointing marker on the weakest opponent's line, not as a fit with a huge interval
        lost = [p for p in rows if not any(p["score_vs"].values())]
        rated = [p for p in rows if any(p["score_vs"].values())]
        line = axes[0][0].errorbar(
            [p["cpu_hours"] for p in rated], [p["elo"] for p in rated],
            yerr=[1.96 * p["stderr"] for p in rated], marker="o", capsize=3,
            label=f"{run}: {summary[run]}" if run in summary else run,
        )  # fmt: skip
        if lost:
            axes[0][0].plot(
                [p["cpu_hours"] for p in lost], [floor] * len(lost), "v",
                color=line[0].get_color(), label=f"{run}: lost every game (below the line)",
            )  # fmt: skip
        if panels == 2:
            x = [p["cpu_hours"] for p in rows]
            axes[0][1].plot(x, [100 * p.get("value_optimal", math.nan) for p in rows], "o-")
    for ax in axes[0]:
        ax.set_xlim(left=0)
    axes[0][0].set_xlabel("training CPU-hours")
    axes[0][0].set_ylabel("Elo on the baseline ladder (95% CI)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    below = bool(summary)  # long labels (the goal's distance and slope) go under the plots
    if not below:
        axes[0][0].legend(fontsize=8)
    axes[0][0].grid(alpha=0.3)
    if panels == 2:
        axes[0][1].set_xlabel("training CPU-hours")
        axes[0][1].set_ylabel(f"value-optimal moves, % of {args.positions} positions")
        axes[0][1].grid(alpha=0.3)
    if below:
        inches = 0.22 * len(labels) + 0.2
        fig.set_size_inches(6 * panels, 4 + inches)
        fig.legend(handles, labels, loc="lower left", fontsize=8, frameon=False)
        fig.tight_layout(rect=(0, inches / (4 + inches), 1, 1))
    else:
        fig.tight_layout()
    fig.savefig(out.with_suffix(".png"), dpi=100)


def goal_arg(text: str) -> tuple[str, float]:
    name, _, share = text.rpartition("=")
    if not name:
        raise argparse.ArgumentTypeError(f"expected RUNG=SHARE, got {text!r}")
    try:
        value = float(share)
    except ValueError:
        raise argparse.ArgumentTypeError(f"the share in {text!r} is not a number") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"the share in {text!r} must lie between 0 and 1")
    return name, value


def labelled(text: str) -> tuple[str, str]:
    label, _, model = text.partition("=")
    return label, model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="*", type=Path, help="training run folders")
    parser.add_argument("--game", default="connect4")
    parser.add_argument("--ladder", type=Path, help="the baseline ladder's JSON (to rate)")
    parser.add_argument("--opponents", default="MCTS1,Minimax1", help="ladder names")
    parser.add_argument("--games", type=int, default=40, help="games per opponent")
    parser.add_argument("--sims", type=int, default=200, help="simulations of the rated search")
    parser.add_argument("--every", type=int, default=20, help="rate iterations divisible by it")
    parser.add_argument(
        "--finish", action="store_true", help="the rated player under Go's finishing rules"
    )
    parser.add_argument("--positions", type=int, default=200, help="solved positions (Connect4)")
    parser.add_argument("--position-seed", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--store", type=Path, default=Path("runs/rate-snapshots.sqlite"))
    parser.add_argument(
        "--model",
        type=labelled,
        action="append",
        default=[],
        help="LABEL=MODEL: a reference network rated alike (a dashed line)",
    )
    parser.add_argument(
        "--goal",
        type=goal_arg,
        action="append",
        default=[],
        help="RUNG=SHARE: the goal is this share of the points against a ladder rung",
    )
    parser.add_argument("--goal-value-optimal", type=float, help="the goal's value-optimal share")
    parser.add_argument(
        "--replot", action="store_true", help="redraw the table and plot from OUT.json"
    )
    parser.add_argument("--note", default="", help="a sentence for the table's introduction")
    parser.add_argument("--out", type=Path, required=True, help="output path without suffix")
    args = parser.parse_args()
    if args.replot:  # the rating's own options (games, opponents, ...) from its command
        saved = json.loads(args.out.with_suffix(".json").read_text())
        rated = parser.parse_args(shlex.split(saved["command"])[1:])
        rated.goal, rated.goal_value_optimal = args.goal, args.goal_value_optimal
        rated.replot, rated.out, rated.note = True, args.out, args.note
        write(rated, saved["points"])
    elif not args.runs or args.ladder is None:
        parser.error("name the training run folders and --ladder to rate (or --replot)")
    else:
        write(args, rate(args))


if __name__ == "__main__":
    main()
