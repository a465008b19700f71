"""``sparring multiskill-eval``: the multi-skill estimator on held-out players.

The held-out games are those of ``se-eval`` (the estimators' split by player, ``val_fraction``
0.15, seed 1; the play networks were trained on the same split), divided into the same
*choose* and *report* parts (:func:`~sparring.estimation.predict.choose_report_parts`: no
player in both).  The multi-skill estimator (:mod:`sparring.estimation.multiskill`) chooses
its settings by cross-validation over the choose part's players, is fitted on the whole
choose part, and is reported once on the report part, beside two methods on exactly the same
scored moves and draws:

* **SE** -- the shipped strength estimator's rule (the mean strength score of the moves,
  nearest of the file's references);
* **likelihood** -- the rank under which the play network finds the moves most likely (the
  sum of ``log p(move | rank)``; no classifier).

Accuracy against N uses :func:`~sparring.estimation.predict.accuracy_curves`' draws (500 per
rank and N, nested prefixes of one random order per draw), so its figures are comparable
with ``se-eval``'s.  The 95% intervals are Wilson intervals over the number of *disjoint* sets
of N games the report part holds (``sum_r max(1, floor(games_r / N))``): the draws reuse the
same games, so their count is not the evidence.  Calibration (reliability diagram, expected
calibration error) and the confusion matrix are over the same draws.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from sparring.errors import IncompatibleError, SparringError, require_extra
from sparring.estimation.classify import Reliability, reliability
from sparring.estimation.data import (
    Record,
    _name,
    dataset_spec,
    read_records,
    record_players,
    split_by_player,
)
from sparring.estimation.heldout import SPLIT_SEED, VAL_FRACTION, wilson_interval
from sparring.estimation.multiskill import (
    Cost,
    FeatureCache,
    StatLayout,
    extract_features,
    game_statistics,
    load_scorer,
)
from sparring.estimation.multiskill_model import (
    DEFAULT_GRID,
    EVAL_N,
    MultiSkillModel,
    Settings,
    TuneResult,
    draw_sets,
    fit_model,
    tune,
)
from sparring.estimation.predict import (
    CHOOSE,
    REPORT,
    Curves,
    Decide,
    FloatArray,
    IntArray,
    accuracy_curves,
    choose_report_parts,
    focus_players,
    se_decide,
)
from sparring.nn.strength_net import load_strength_model

REPORT_N = EVAL_N
"""Numbers of games in the report's tables."""
CONFUSION_N = 10
"""Number of games of the confusion matrix."""


# ---- the held-out games -----------------------------------------------------------------------
@dataclass
class HeldOutGames:
    """Held-out games (every game of a held-out focus player), with their rank, part and
    focus player."""

    game: str
    ranks: tuple[str, ...]
    records: list[Record]
    rank: IntArray
    part: npt.NDArray[np.int8]
    """:data:`~sparring.estimation.predict.CHOOSE`, ``REPORT`` or ``NEITHER``."""
    focus: list[str]
    """Each game's focus player."""
    plies: int = 0
    """Moves in all held-out games of the two parts, before any subsampling."""

    def take(self, keep: IntArray) -> HeldOutGames:
        return HeldOutGames(
            self.game,
            self.ranks,
            [self.records[i] for i in keep.tolist()],
            self.rank[keep],
            self.part[keep],
            [self.focus[i] for i in keep.tolist()],
            self.plies,
        )


def held_out_games(
    game: str,
    data_root: Path | None = None,
    games_per_player: int = 0,
    games_per_rank: int = 0,
    seed: int = 0,
    limit_records: int = 0,
) -> HeldOutGames:
    """The choose and report parts of the held-out games (games in neither part are left
    out).  ``games_per_player`` > 0 keeps that many games of each focus player in each rank,
    ``games_per_rank`` > 0 that many of each rank in each part (seeded picks; 0: all), after
    the parts are made, so the parts are those of ``se-eval`` however the games are thinned.
    ``limit_records`` reads only the first that many records of each rank file (tests)."""
    spec = dataset_spec(game, data_root)
    records = [
        read_records(spec.file("train", r), game, limit_records) for r in range(len(spec.ranks))
    ]
    names = [[record_players(rec) for rec in recs] for recs in records]
    split = split_by_player(names, VAL_FRACTION, SPLIT_SEED)
    chosen: list[Record] = []
    rank: list[int] = []
    players: list[tuple[str, ...]] = []
    for r, val in enumerate(split.val):
        for g in val.tolist():
            if records[r][g].moves.size == 0:
                continue
            chosen.append(records[r][g])
            rank.append(r)
            players.append(tuple(_name(n, r, g, s) for s, n in enumerate(names[r][g])))
    ranks = np.array(rank, dtype=np.int64)
    part = choose_report_parts(players, ranks)
    held = HeldOutGames(game, spec.ranks, chosen, ranks, part, focus_players(players))
    keep = np.flatnonzero((part == CHOOSE) | (part == REPORT))
    held.plies = int(sum(chosen[i].moves.size for i in keep.tolist()))
    rng = np.random.default_rng([seed, 6007])
    order = keep[rng.permutation(keep.size)]
    if games_per_player > 0:
        seen: dict[tuple[str, int], int] = {}
        kept = []
        for i in order.tolist():
            k = (held.focus[i], int(ranks[i]))
            seen[k] = seen.get(k, 0) + 1
            if seen[k] <= games_per_player:
                kept.append(i)
        order = np.array(kept, dtype=np.int64)
    if games_per_rank > 0:
        count: dict[tuple[int, int], int] = {}
        kept = []
        for i in order.tolist():
            k2 = (int(ranks[i]), int(part[i]))
            count[k2] = count.get(k2, 0) + 1
            if count[k2] <= games_per_rank:
                kept.append(i)
        order = np.array(kept, dtype=np.int64)
    return held.take(np.sort(order))


# ---- the evaluation ---------------------------------------------------------------------------
@dataclass
class Method:
    """Accuracy of one method on the report part."""

    name: str
    curves: Curves


@dataclass
class MultiSkillEvaluation:
    """What :func:`evaluate_multiskill` measured."""

    game: str
    ranks: tuple[str, ...]
    model: MultiSkillModel
    tuning: TuneResult
    methods: list[Method]
    units: dict[str, list[int]]
    """Games per rank of the ``choose`` and ``report`` parts."""
    players: dict[str, list[int]]
    """Focus players per rank of each part."""
    moves_scored: int
    calibration: dict[int, Reliability]
    """Per N of :data:`REPORT_N`: the multi-skill estimator's reliability on the draws."""
    pooled: Reliability
    """Over the draws of every N of :data:`REPORT_N` together."""
    confusion: FloatArray
    """``[R, R]``: at :data:`CONFUSION_N` games, the share of draws of each true rank (row)
    predicted as each rank (column)."""
    difference: dict[int, tuple[float, float, float]]
    """Per N: exact accuracy of the multi-skill estimator minus SE's, with a 95% interval over
    the report part's players (:func:`paired_difference`; empty when not measured)."""
    cost: Cost
    """The cache's scoring log (every extraction into this cache folder so far)."""
    heldout_plies: int
    """Every move of the held-out games of both parts (the full run's positions)."""
    se_model: str
    play_model: str
    moves_per_game: int
    draws: int
    command: str = ""
    seconds: dict[str, float] = field(default_factory=dict)

    def n_eff(self, n: int) -> int:
        """Disjoint sets of ``n`` games in the report part (at least one a rank)."""
        return int(sum(max(1, g // n) for g in self.units["report"]))


def _progress(show: bool) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        disable=not show,
    )


def _se_references(se_model: Path, ranks: Sequence[str]) -> FloatArray:
    """The shipped SE file's references (the form it keeps), in the data's rank order."""
    _, meta = load_strength_model(se_model)
    refs = meta.get("references")
    if not refs:
        raise SparringError(f"{se_model}: no reference scores (write it with se-eval)")
    if list(refs["ranks"]) != list(ranks):
        raise IncompatibleError(f"{se_model}: its ranks are not the data's")
    return np.asarray(refs["scores"], dtype=np.float64)


def paired_difference(
    first: tuple[FloatArray, Decide],
    second: tuple[FloatArray, Decide],
    unit_rank: IntArray,
    groups: Sequence[str],
    n_ranks: int,
    ns: Sequence[int],
    reps: int = 200,
    draws: int = 100,
    seed: int = 0,
) -> dict[int, tuple[float, float, float]]:
    """Exact accuracy of the first method minus the second's (each given as its unit features
    and decision rule), per N of ``ns``: ``(difference, low, high)``, the difference on the
    games as they are (with ``seed``, the draws of :func:`accuracy_curves` with that seed)
    and a 95% percentile interval over ``reps`` resamples of the players
    (each rank's ``groups``, the games' focus players, drawn with replacement, with all their
    games).  Both methods see the same draws in each resample, so the interval is of the
    paired difference."""
    largest = max(ns)
    at = np.asarray(ns) - 1

    def diff(idx: IntArray, s: int) -> FloatArray:
        a = accuracy_curves(first[0][idx], unit_rank[idx], first[1], n_ranks, largest, draws, s)
        b = accuracy_curves(second[0][idx], unit_rank[idx], second[1], n_ranks, largest, draws, s)
        result: FloatArray = a.mean_exact[at] - b.mean_exact[at]
        return result

    names = np.asarray(groups, dtype=object)
    members: list[list[IntArray]] = []
    for r in range(n_ranks):
        players = sorted(set(names[unit_rank == r].tolist()))
        members.append([np.flatnonzero((unit_rank == r) & (names == g)) for g in players])
    rng = np.random.default_rng([seed, 5003])
    boot = []
    for rep in range(reps):
        idx: list[IntArray] = []
        for per_rank in members:
            idx += [per_rank[k] for k in rng.integers(0, len(per_rank), len(per_rank))]
        boot.append(diff(np.concatenate(idx), seed + 1 + rep))
    spread = np.asarray(boot)
    point = diff(np.arange(unit_rank.size), seed)
    return {
        k: (
            float(point[i]),
            float(np.percentile(spread[:, i], 2.5)),
            float(np.percentile(spread[:, i], 97.5)),
        )
        for i, k in enumerate(ns)
    }


def _score_games(
    held: HeldOutGames,
    play_model: Path,
    se_model: Path,
    cache: FeatureCache,
    device: str,
    batch: int,
    show_progress: bool,
) -> FloatArray:
    """The games' statistics, scored into (or read back from) ``cache``."""
    scorer = load_scorer(play_model, se_model, held.ranks, device, batch)
    with _progress(show_progress) as progress:
        task = progress.add_task(f"scoring {held.game} games", total=len(held.records))
        feats = extract_features(held.records, scorer, cache, lambda k: progress.advance(task, k))
    return np.stack([game_statistics(f, held.game) for f in feats])


def _calibration(
    model: MultiSkillModel, units: FloatArray, rank: IntArray, ns: list[int], draws: int, seed: int
) -> tuple[dict[int, Reliability], Reliability, FloatArray]:
    """Reliability per N and over all ``ns``, and the confusion matrix at
    :data:`CONFUSION_N`, over the accuracy engine's draws."""
    n = len(model.ranks)
    x, y = draw_sets(units, rank, n, ns, draws, seed)
    p = model.combined(x)
    which_n = np.tile(np.asarray(ns), x.shape[0] // len(ns))
    calibration = {k: reliability(p[which_n == k], y[which_n == k]) for k in ns}
    confusion = np.zeros((n, n))
    if CONFUSION_N in ns:
        at = which_n == CONFUSION_N
        np.add.at(confusion, (y[at], p[at].argmax(axis=1)), 1.0)
        confusion /= np.maximum(confusion.sum(axis=1, keepdims=True), 1.0)
    return calibration, reliability(p, y), confusion


def evaluate_multiskill(
    held: HeldOutGames,
    play_model: Path,
    se_model: Path,
    cache_root: Path,
    moves_per_game: int = 16,
    device: str = "cpu",
    batch: int = 32,
    draws: int = 500,
    max_games: int = 100,
    seed: int = 0,
    grid: Sequence[Settings] = DEFAULT_GRID,
    show_progress: bool = True,
    bootstrap: int = 200,
) -> MultiSkillEvaluation:
    """Extract (or read back) the features of ``held``'s games, choose and fit the estimator
    on the choose part and measure it, SE and the likelihood rule on the report part, with
    the paired difference to SE over ``bootstrap`` resamples of its players."""
    ranks, n = held.ranks, len(held.ranks)
    cache = FeatureCache(cache_root, held.game, ranks, play_model, se_model, moves_per_game, seed)
    timings: dict[str, float] = {}
    started = time.perf_counter()
    stats = _score_games(held, play_model, se_model, cache, device, batch, show_progress)
    timings["features"] = time.perf_counter() - started
    choose, report = held.part == CHOOSE, held.part == REPORT
    for name, mask in (("choose", choose), ("report", report)):
        missing = [ranks[r] for r in range(n) if not np.any(held.rank[mask] == r)]
        if missing:
            raise IncompatibleError(f"the {name} part has no game of rank(s) {', '.join(missing)}")
    started = time.perf_counter()
    focus = [held.focus[i] for i in np.flatnonzero(choose).tolist()]
    tuned = tune(stats[choose], held.rank[choose], focus, n, grid, seed=seed)
    model = fit_model(
        stats[choose], held.rank[choose], held.game, ranks, tuned.best, tuned.combination,
        moves_per_game,
    )  # fmt: skip
    timings["tuning"] = time.perf_counter() - started
    rs, rr = stats[report], held.rank[report]
    lay = StatLayout(n)
    kw = {"max_games": max_games, "draws": draws, "seed": seed}
    units = model.unit_features(rs)
    se_rule = (rs[:, [lay.se, lay.moves]], se_decide(_se_references(se_model, ranks)))
    methods = [
        Method("multi-skill", accuracy_curves(units, rr, model.decide, n, **kw)),
        Method("SE", accuracy_curves(se_rule[0], rr, se_rule[1], n, **kw)),
        Method(
            "likelihood",
            accuracy_curves(rs[:, lay.rel], rr, lambda x: np.asarray(x).argmax(axis=-1), n, **kw),
        ),
    ]
    ns = [k for k in REPORT_N if k <= max_games]
    calibration, pooled, confusion = _calibration(model, units, rr, ns, draws, seed)
    started = time.perf_counter()
    report_focus = [held.focus[i] for i in np.flatnonzero(report).tolist()]
    difference = (
        paired_difference(
            (units, model.decide), se_rule, rr, report_focus, n, ns, bootstrap, draws, seed
        )
        if bootstrap > 0
        else {}
    )
    timings["bootstrap"] = time.perf_counter() - started
    focus_arr = np.array(held.focus, dtype=object)
    players = {
        name: [len(set(focus_arr[mask & (held.rank == r)].tolist())) for r in range(n)]
        for name, mask in (("choose", choose), ("report", report))
    }
    return MultiSkillEvaluation(
        game=held.game,
        ranks=ranks,
        model=model,
        tuning=tuned,
        methods=methods,
        units={
            "choose": np.bincount(held.rank[choose], minlength=n).tolist(),
            "report": np.bincount(rr, minlength=n).tolist(),
        },
        players=players,
        moves_scored=int(stats[:, lay.moves].sum()),
        calibration=calibration,
        pooled=pooled,
        confusion=confusion,
        difference=difference,
        cost=cache.cost(),
        heldout_plies=held.plies,
        se_model=str(se_model),
        play_model=str(play_model),
        moves_per_game=moves_per_game,
        draws=draws,
        seconds=timings,
    )


# ---- the report -------------------------------------------------------------------------------
def _plt() -> Any:
    require_extra("matplotlib", "research", "the multi-skill report's figures")
    # matplotlib: an optional extra (research), imported only to draw
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # after the backend is chosen

    return plt


def plot_accuracy(ev: MultiSkillEvaluation, path: Path) -> None:
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, within, title in ((axes[0], False, "exact rank"), (axes[1], True, "within one rank")):
        for m in ev.methods:
            curve = m.curves.mean_within1 if within else m.curves.mean_exact
            ax.plot(np.arange(1, curve.size + 1), curve, label=m.name)
        ax.axhline(1.0 / len(ev.ranks), color="grey", lw=0.8, ls=":", label="chance")
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("number of games N")
        ax.set_ylabel("accuracy (report part)")
        ax.set_title(f"{ev.game}: {title}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def plot_reliability(ev: MultiSkillEvaluation, path: Path) -> None:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.5, 5))
    ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls=":")
    for k, rel in ev.calibration.items():
        used = rel.count > 0
        ax.plot(rel.confidence[used], rel.accuracy[used], marker="o", ms=3, label=f"N={k}")
    ax.set_xlabel("confidence (top-rank probability)")
    ax.set_ylabel("accuracy")
    ax.set_title(f"{ev.game}: reliability, ECE {ev.pooled.ece:.3f} (all N)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def plot_confusion(ev: MultiSkillEvaluation, path: Path) -> None:
    plt = _plt()
    n = len(ev.ranks)
    fig, ax = plt.subplots(figsize=(1.0 + 0.55 * n, 0.8 + 0.5 * n))
    ax.imshow(ev.confusion, cmap="Blues", vmin=0, vmax=1)
    ax.set_xticks(range(n), ev.ranks, rotation=60, fontsize=7)
    ax.set_yticks(range(n), ev.ranks, fontsize=7)
    for i in range(n):
        for j in range(n):
            if ev.confusion[i, j] >= 0.005:
                ax.text(
                    j, i, f"{100 * ev.confusion[i, j]:.0f}", ha="center", va="center", fontsize=6
                )
    ax.set_xlabel("predicted")
    ax.set_ylabel("true")
    ax.set_title(f"{ev.game}: multi-skill, N={CONFUSION_N} (% of draws)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def _cell(ev: MultiSkillEvaluation, value: float, k: int) -> str:
    lo, hi = wilson_interval(value * ev.n_eff(k), ev.n_eff(k))
    return f"{100 * value:.1f}% ({100 * lo:.0f}-{100 * hi:.0f})"


def _accuracy_lines(ev: MultiSkillEvaluation, ns: list[int]) -> list[str]:
    lines: list[str] = []
    for within, title in ((False, "exact rank"), (True, "within one rank")):
        lines += [
            "",
            f"## Accuracy, {title}, report part (95% Wilson interval over disjoint sets)",
            "",
            "| method | " + " | ".join(f"N={k}" for k in ns) + " |",
            "| --- | " + " | ".join("---:" for _ in ns) + " |",
        ]
        for m in ev.methods:
            curve = m.curves.mean_within1 if within else m.curves.mean_exact
            lines.append(
                f"| {m.name} | " + " | ".join(_cell(ev, curve[k - 1], k) for k in ns) + " |"
            )
        lines.append("| disjoint sets n | " + " | ".join(str(ev.n_eff(k)) for k in ns) + " |")
    return lines


def _difference_lines(ev: MultiSkillEvaluation) -> list[str]:
    if not ev.difference:
        return []
    ns = list(ev.difference)
    return [
        "",
        "## Multi-skill minus SE, exact, paired (report part)",
        "",
        "The difference of the two methods' exact accuracy on the same draws, with a 95% "
        "percentile interval over resamples of the report part's players (each rank's focus "
        "players drawn with replacement, with all their games).",
        "",
        "| | " + " | ".join(f"N={k}" for k in ns) + " |",
        "| --- | " + " | ".join("---:" for _ in ns) + " |",
        "| multi-skill - SE | "
        + " | ".join(
            f"{100 * d:+.1f} ({100 * lo:+.1f} to {100 * hi:+.1f})"
            for d, lo, hi in ev.difference.values()
        )
        + " |",
    ]


def _calibration_lines(ev: MultiSkillEvaluation) -> list[str]:
    lines = [
        "",
        "## Calibration of the multi-skill distribution (report part)",
        "",
        f"Expected calibration error over the draws of every N together: **{ev.pooled.ece:.3f}** "
        "(10 equal-width confidence bins; goal <= 0.05).",
        "",
        "| N | " + " | ".join(str(k) for k in ev.calibration) + " |",
        "| --- | " + " | ".join("---:" for _ in ev.calibration) + " |",
        "| ECE | " + " | ".join(f"{r.ece:.3f}" for r in ev.calibration.values()) + " |",
        "| mean confidence | "
        + " | ".join(
            f"{(r.confidence[r.count > 0] * r.count[r.count > 0]).sum() / r.count.sum():.3f}"
            for r in ev.calibration.values()
        )
        + " |",
    ]
    return lines


def _confusion_lines(ev: MultiSkillEvaluation) -> list[str]:
    head = "| true \\ predicted | " + " | ".join(ev.ranks) + " |"
    lines = [
        "",
        f"## Confusion matrix at N = {CONFUSION_N} games (multi-skill, % of draws per true rank)",
        "",
        head,
        "| --- | " + " | ".join("---:" for _ in ev.ranks) + " |",
    ]
    for i, r in enumerate(ev.ranks):
        lines.append(f"| {r} | " + " | ".join(f"{100 * v:.0f}" for v in ev.confusion[i]) + " |")
    return lines


def _intro_lines(ev: MultiSkillEvaluation) -> list[str]:
    c = ev.cost
    wall = c.seconds / c.positions if c.positions else float("nan")
    per_pos = c.cpu_per_position if c.cpu_positions else wall
    sampled = "every move" if ev.moves_per_game <= 0 else f"{ev.moves_per_game} random moves"
    cpu = (
        f"{1000 * c.cpu_per_position:.1f} ms of the process's CPU a position over "
        f"{c.cpu_positions:,} timed positions"
        if c.cpu_positions
        else "no CPU time logged"
    )
    lines = [
        f"# Multi-skill strength estimator: {ev.game}",
        "",
        "```bash",
        ev.command or "sparring multiskill-eval ...",
        "```",
        "",
        f"**A slice**: {sampled} of each game scored; choose part "
        f"{sum(ev.units['choose'])} games ({sum(ev.players['choose'])} focus players), report "
        f"part {sum(ev.units['report'])} games ({sum(ev.players['report'])} focus players), "
        f"{ev.moves_scored:,} moves scored in all.  Games per rank, choose: "
        + ", ".join(f"{r} {c}" for r, c in zip(ev.ranks, ev.units["choose"], strict=True))
        + "; report: "
        + ", ".join(f"{r} {c}" for r, c in zip(ev.ranks, ev.units["report"], strict=True))
        + ".  Focus players per rank, report: "
        + ", ".join(str(c) for c in ev.players["report"])
        + ".",
        "",
        f"Networks: play `{Path(ev.play_model).name}` (log-likelihood at every rank), SE "
        f"`{Path(ev.se_model).name}` (strength score; its references for the SE rule).  "
        f"Settings chosen on the choose part ({ev.tuning.folds}-fold cross-validation over "
        f"its players, lowest mean log-loss over N = {', '.join(map(str, EVAL_N))}): "
        f"**{ev.model.settings.describe()}**, games combined with "
        f"{ev.model.combination.describe()}.  {ev.draws} draws per rank and N, the draws "
        "of `se-eval`; SE and likelihood use the same scored moves and draws.",
        "",
        f"Cost of the scoring (both networks, every rank), one torch thread: {c.positions:,} "
        f"positions in {c.seconds:,.0f} s of wall-clock time ({1000 * wall:.1f} ms a position "
        f"on a shared CPU); {cpu}.  Every move of the two parts' games is "
        f"{ev.heldout_plies:,} positions, about {ev.heldout_plies * per_pos / 3600:.1f} h at "
        "that rate.",
    ]
    return lines


def _tuning_lines(ev: MultiSkillEvaluation) -> list[str]:
    rows = sorted(ev.tuning.rows, key=lambda t: t[2])
    lines = [
        "",
        "## Settings tried on the choose part (best 8 by cross-validated log-loss)",
        "",
        "| settings | combination | mean log-loss | mean exact |",
        "| --- | --- | ---: | ---: |",
    ]
    for s, comb, loss, acc in rows[:8]:
        lines.append(f"| {s.describe()} | {comb.describe()} | {loss:.4f} | {100 * acc:.1f}% |")
    return lines


def _json(ev: MultiSkillEvaluation) -> dict[str, Any]:
    ns = list(ev.calibration)
    return {
        "game": ev.game,
        "ranks": list(ev.ranks),
        "command": ev.command,
        "settings": ev.model.settings.describe(),
        "combination": ev.model.combination.describe(),
        "units": ev.units,
        "players": ev.players,
        "moves_per_game": ev.moves_per_game,
        "moves_scored": ev.moves_scored,
        "draws": ev.draws,
        "accuracy": {
            m.name: {
                "exact": {k: float(m.curves.mean_exact[k - 1]) for k in ns},
                "within1": {k: float(m.curves.mean_within1[k - 1]) for k in ns},
            }
            for m in ev.methods
        },
        "n_eff": {k: ev.n_eff(k) for k in ns},
        "multiskill_minus_se_exact": {
            k: {"difference": d, "low": lo, "high": hi} for k, (d, lo, hi) in ev.difference.items()
        },
        "ece": {"all": ev.pooled.ece, **{str(k): r.ece for k, r in ev.calibration.items()}},
        "confusion_n": CONFUSION_N,
        "confusion": ev.confusion.tolist(),
        "cost": {
            "positions": ev.cost.positions,
            "seconds": ev.cost.seconds,
            "cpu_positions": ev.cost.cpu_positions,
            "cpu_seconds": ev.cost.cpu_seconds,
            "heldout_plies": ev.heldout_plies,
        },
        "tuning": [
            {"settings": s.describe(), "combination": c.describe(), "log_loss": loss, "exact": acc}
            for s, c, loss, acc in ev.tuning.rows
        ],
    }


def write_report(ev: MultiSkillEvaluation, out: Path) -> Path:
    """``report.md``, ``results.json``, ``model.json`` (the fitted estimator) and the figures
    ``accuracy.png``, ``reliability.png`` and ``confusion.png``; the report's path."""
    out.mkdir(parents=True, exist_ok=True)
    plot_accuracy(ev, out / "accuracy.png")
    plot_reliability(ev, out / "reliability.png")
    plot_confusion(ev, out / "confusion.png")
    ns = [k for k in REPORT_N if k <= ev.methods[0].curves.exact.shape[1]]
    lines = [
        *_intro_lines(ev),
        *_accuracy_lines(ev, ns),
        *_difference_lines(ev),
        *_calibration_lines(ev),
        *_confusion_lines(ev),
        *_tuning_lines(ev),
        "",
        "![accuracy](accuracy.png)",
        "",
        "![reliability](reliability.png)",
        "",
        "![confusion](confusion.png)",
        "",
    ]
    path = out / "report.md"
    path.write_text("\n".join(lines))
    (out / "results.json").write_text(json.dumps(_json(ev), indent=1))
    (out / "model.json").write_text(ev.model.to_json())
    return path


def command_line() -> str:
    """This process's command line, as the report shows it (``sparring ...``)."""
    args = [Path(sys.argv[0]).name, *sys.argv[1:]]
    if args[0] in ("__main__.py", "-m"):
        args[0] = "sparring"
    return " ".join(shlex.quote(a) for a in args)


__all__ = [
    "CONFUSION_N",
    "REPORT_N",
    "HeldOutGames",
    "Method",
    "MultiSkillEvaluation",
    "command_line",
    "evaluate_multiskill",
    "held_out_games",
    "paired_difference",
    "write_report",
]
