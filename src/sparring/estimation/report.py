"""``sparring se-eval``: rank-prediction accuracy of trained estimators, plots and a report
(Chen, Shih & Wu, ICLR 2025, section 4.2, Fig. 2, 3, 6 and 8).

For each run folder (:mod:`sparring.estimation.train`) the model scores every evaluated pair of
the candidate set and of the **held-out** validation set (players never trained on; chess:
held-out games).  Strength estimators get their reference scores from the candidate set and
predict held-out games by the nearest reference (:mod:`sparring.estimation.predict`); SL
classifiers are aggregated as SL_sum and SL_vote (:mod:`sparring.estimation.baselines`).  The
estimator with its references is written to ``RUN/estimator.pt`` for ``sparring estimate``.

Outputs (``--out``): ``accuracy.png`` (mean accuracy against N, exact and within one rank, with
the paper's reference points), ``per_rank.png`` (Fig. 8: accuracy per rank and N),
``score_by_move.png`` (Fig. 3: composite score per rank against the move number),
``report.md`` and ``results.json``.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from sparring.errors import BadValueError, IncompatibleError, SparringError, require_extra
from sparring.estimation.baselines import sl_method
from sparring.estimation.data import PairSet, build_dataset, load_split
from sparring.estimation.predict import (
    CHOOSE,
    NEITHER,
    REFERENCE_FITS,
    REPORT,
    Curves,
    FitChoice,
    FloatArray,
    IntArray,
    RankSeparation,
    Units,
    accuracy_curves,
    choose_reference_fit,
    choose_report_parts,
    cross_fitted_curves,
    fit_references,
    make_units,
    nearest_rank,
    rank_means_with_error,
    rank_separation,
    reference_scores,
    score_by_move,
    score_pairset,
    se_decide,
    se_features,
    unit_groups,
    unit_sums,
)
from sparring.estimation.train import SEConfig, read_log
from sparring.nn.strength_net import load_strength_model, save_strength_model

REPORT_N = (1, 2, 5, 10, 15, 20, 26, 50, 100)
"""Numbers of games shown in the report's tables."""

PAPER: dict[str, dict[str, Any]] = {
    "go": {
        "text": (
            "SE and SE-inf: over 80% exact accuracy with 15 games and 97.5% with 100; within one "
            "rank about 80% with 1 game and over 99% after 6 games. SL_sum / SL_vote: 49% with "
            "100 games (20 blocks x 256 channels, 495,000 training games, 130,000 SGD steps, "
            "242 GPU hours; query set of 900 games per rank)."
        ),
        "target": (0.80, 15),
        "points": [
            (15, 0.80, "paper SE/SE-inf: 80% at 15 games"),
            (100, 0.975, "paper SE/SE-inf: 97.5% at 100"),
            (100, 0.49, "paper SL_sum/SL_vote: 49% at 100"),
        ],
    },
    "chess": {
        "text": (
            "SE-inf: over 80% exact accuracy with 26 games and 93.38% with 100, well above "
            "SL_sum and SL_vote (1,920,000 training games, 130,000 SGD steps, 69 GPU hours; "
            "query set of 1,200 games per band)."
        ),
        "target": (0.80, 26),
        "points": [
            (26, 0.80, "paper SE-inf: 80% at 26 games"),
            (100, 0.9338, "paper SE-inf: 93.4% at 100"),
        ],
    },
}

LABELS = {"se": "SE", "se_inf": "SE-inf"}

HELDOUT = ("split", "all")
"""Which held-out games ``se-eval`` reports on: ``split`` (the default) chooses the reference
form on the *choose* part of the held-out players and reports every accuracy on the *report*
part only (:func:`~sparring.estimation.predict.choose_report_parts`); ``all`` reports on every
held-out game with the reference form of ``reference_fit`` (the protocol before 2026-11-25, in
which the line references were chosen on the same games they were reported on)."""


@dataclass
class MethodResult:
    """Accuracy curves of one prediction method of one run."""

    name: str
    run: str
    curves: Curves
    player_accuracy: float | None = None
    """Share of held-out players (5+ games) whose rank is predicted from all their games
    (their own moves only)."""
    players: int = 0


@dataclass
class RunEvaluation:
    """What :func:`evaluate_run` measured."""

    run: Path
    config: SEConfig
    kind: str
    step: int
    ranks: tuple[str, ...]
    methods: list[MethodResult]
    references: FloatArray | None = None
    fitted_references: dict[str, FloatArray] = field(default_factory=dict)
    """The references of every fit (:data:`REFERENCE_FITS`)."""
    reference_error: FloatArray | None = None
    """Bootstrap standard error of each reference (over the candidate games)."""
    held_out_means: FloatArray | None = None
    """Mean score per rank on the held-out set, computed as the references are."""
    held_out_error: FloatArray | None = None
    train_means: FloatArray | None = None
    """Mean score per rank on a sample of training pairs (``eval_train_sample`` per rank)."""
    by_move: tuple[IntArray, FloatArray] | None = None
    separation: RankSeparation | None = None
    """Held-out rank separation against the spread of one game's score (SE kinds)."""
    val_units: list[int] = field(default_factory=list)
    pairs: dict[str, int] = field(default_factory=dict)
    train_seconds: float = 0.0
    pairs_seen: int = 0
    heldout: str = "all"
    """``split`` (reported on the report part) or ``all`` (:data:`HELDOUT`)."""
    choice: FitChoice | None = None
    """The reference form chosen on the choose part (``heldout == "split"``, SE kinds)."""
    dropped_units: list[int] = field(default_factory=list)
    """Held-out units per rank in neither part (their players meet both parts;
    ``heldout == "split"``)."""


def _scores(
    run: Path, name: str, step: int, model: Any, pairs: PairSet, cfg: SEConfig, progress: Any
) -> FloatArray:
    """Scores of a pair set, cached in the run folder per model step."""
    cache = run / f"eval-{name}.npz"
    if cache.exists():
        with np.load(cache) as z:
            if int(z["step"]) == step and z["scores"].shape[0] == len(pairs):
                result: FloatArray = z["scores"]
                return result
    task = progress.add_task(f"scoring {run.name} {name}", total=len(pairs))
    scores = score_pairset(
        model, pairs, cfg.eval_batch, cfg.device, advance=lambda k: progress.advance(task, k)
    )
    tmp = cache.with_name(cache.stem + ".tmp.npz")
    np.savez_compressed(tmp, step=np.array(step), scores=scores)
    tmp.replace(cache)
    return scores


def _player_units(pairs: PairSet, min_games: int = 5) -> tuple[IntArray, IntArray, int]:
    """Pairs grouped by held-out player (players with ``min_games`` or more games in one rank):
    (player index of each pair or -1, true rank of each player, number of players).  Only
    units with pairs in ``pairs`` count (a part of the held-out set keeps the numbering, and
    the records, of every held-out unit)."""
    key = np.char.add(np.char.add(pairs.unit_player.astype(str), "|"), pairs.unit_rank.astype(str))
    uniq, inv = np.unique(key, return_inverse=True)
    present = np.zeros(key.size, dtype=np.float64)
    present[pairs.unit] = 1.0
    counts = np.bincount(inv, weights=present, minlength=uniq.size)
    keep = counts >= min_games
    n = int(keep.sum())
    index = np.full(uniq.size, -1, dtype=np.int64)
    index[keep] = np.arange(n)
    unit_player = index[inv]
    ok = unit_player >= 0
    player_rank = np.zeros(n, dtype=np.int64)
    player_rank[unit_player[ok]] = pairs.unit_rank[ok]
    return unit_player[pairs.unit], player_rank, n


def _player_accuracy(values: FloatArray, decide: Any, pairs: PairSet) -> tuple[float | None, int]:
    of_pair, player_rank, n = _player_units(pairs)
    if n == 0:
        return None, 0
    sel = of_pair >= 0
    sums = np.zeros((n, values.shape[1]))
    np.add.at(sums, of_pair[sel], values[sel])
    pred = decide(sums)
    return float((pred == player_rank).mean()), n


def _unit_player_names(pairs: PairSet, units: Units) -> list[tuple[str, ...]]:
    """The players of every unit of ``units`` (made from ``pairs``): one name for a side unit,
    the players with moves in it for a game unit."""
    sides, first = np.unique(pairs.unit, return_index=True)
    names: list[list[str]] = [[] for _ in range(units.size)]
    for u, side in zip(units.of_pair[first].tolist(), sides.tolist(), strict=True):
        names[u].append(str(pairs.unit_player[side]))
    return [tuple(n) for n in names]


def split_heldout(
    pairs: PairSet, scores: FloatArray, unit: str = "game"
) -> tuple[tuple[PairSet, FloatArray], tuple[PairSet, FloatArray], list[int]]:
    """The held-out pairs and their scores split into the *choose* and the *report* part
    (:func:`~sparring.estimation.predict.choose_report_parts`: no player in both; a unit goes
    whole to one part or, when its players meet both parts, to neither); each part must hold
    units of every rank.  Returns the choose part, the report part (pairs and scores) and the
    number of units per rank dropped from both."""
    units = make_units(pairs, unit)
    parts = choose_report_parts(_unit_player_names(pairs, units), units.rank)
    choose, report = parts == CHOOSE, parts == REPORT
    n = len(pairs.ranks)
    for part, mask in (("choose", choose), ("report", report)):
        counts = np.bincount(units.rank[mask], minlength=n)
        if np.any(counts == 0):
            empty = ", ".join(pairs.ranks[r] for r in np.flatnonzero(counts == 0))
            raise IncompatibleError(
                f"the {part} part of the held-out players has no game of rank(s) {empty}; "
                "evaluate with --heldout all"
            )
    choose_idx = np.flatnonzero(choose[units.of_pair])
    report_idx = np.flatnonzero(report[units.of_pair])
    dropped = np.bincount(units.rank[parts == NEITHER], minlength=n)
    return (
        (pairs.take(choose_idx), scores[choose_idx]),
        (pairs.take(report_idx), scores[report_idx]),
        [int(d) for d in dropped],
    )


@dataclass
class _ScoredSets:
    """A run's evaluated pair sets and the model's scores of their pairs."""

    cand: PairSet
    cand_scores: FloatArray
    val: PairSet
    val_scores: FloatArray
    train: PairSet | None = None
    """A sample of the training pairs (``eval_train_sample`` per rank; none for SL)."""
    train_scores: FloatArray | None = None


def _load_run(run: Path, overrides: dict[str, Any] | None) -> tuple[SEConfig, Any, dict[str, Any]]:
    """The config (with ``overrides``), the strength model and its metadata of a run."""
    if not (run / "config.json").is_file() or not (run / "model.pt").is_file():
        raise SparringError(f"{run} is not a strength-estimator run (no config.json / model.pt)")
    data = json.loads((run / "config.json").read_text())
    data.update({k: v for k, v in (overrides or {}).items() if v is not None})
    cfg = SEConfig.from_mapping(data)
    model, meta = load_strength_model(run / "model.pt")
    if model.config.kind == "play":
        raise SparringError(
            f"{run} holds a play network (rank as an input, no strength head): se-eval rates "
            "strength estimators; its held-out policy and value are in the run's log.jsonl"
        )
    return cfg, model, meta


def _score_sets(
    run: Path, cfg: SEConfig, model: Any, step: int, show_progress: bool
) -> _ScoredSets:
    """Score the candidate and held-out sets (and a training sample) of a run."""
    folder = build_dataset(cfg.data_config(), show_progress=show_progress)
    cand = load_split(folder, "cand").subset_per_unit(cfg.eval_pairs_per_side, cfg.seed)
    val = load_split(folder, "val").subset_per_unit(cfg.eval_pairs_per_side, cfg.seed + 1)
    if len(val) == 0:
        raise SparringError(f"{run}: the held-out set is empty (val_fraction = 0?)")
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        disable=not show_progress,
    )
    with progress:
        scored = _ScoredSets(
            cand,
            _scores(run, "cand", step, model, cand, cfg, progress),
            val,
            _scores(run, "val", step, model, val, cfg, progress),
        )
        if cfg.eval_train_sample > 0 and model.config.kind != "sl":
            train = load_split(folder, "train").sample_per_rank(cfg.eval_train_sample, cfg.seed)
            scored.train = train
            scored.train_scores = _scores(run, "train", step, model, train, cfg, progress)
    return scored


def _sl_methods(
    result: RunEvaluation, val_scores: FloatArray, units: Units, val: PairSet, kw: dict[str, Any]
) -> None:
    """SL_sum and SL_vote of an SL classifier's held-out scores."""
    n = len(result.ranks)
    for name in ("SL_sum", "SL_vote"):
        feats, decide = sl_method(val_scores, units, name)
        curves = accuracy_curves(feats, units.rank, decide, n, **kw)
        acc, players = _player_accuracy(_pair_features(val_scores, name), decide, val)
        result.methods.append(MethodResult(name, result.run.name, curves, acc, players))


def _choose_fit(
    result: RunEvaluation,
    cfg: SEConfig,
    choose: tuple[PairSet, FloatArray],
    means: FloatArray,
) -> SEConfig:
    """The config with the reference form that predicts the choose part best (recorded in
    ``result``)."""
    choose_pairs, choose_scores = choose
    result.choice = choose_reference_fit(
        choose_scores[:, 0],
        make_units(choose_pairs, cfg.eval_unit),
        means,
        cfg.eval_aggregate,
        REFERENCE_FITS,
        cfg.eval_max_games,
        cfg.eval_draws,
        cfg.seed,
    )
    cfg = dataclasses.replace(cfg, reference_fit=result.choice.chosen)
    result.config = cfg
    return cfg


def _se_methods(
    result: RunEvaluation,
    cfg: SEConfig,
    means: FloatArray,
    val_scores: FloatArray,
    units: Units,
    val: PairSet,
    kw: dict[str, Any],
) -> None:
    """The estimator with each form of references (the config's first: its method is the
    summary's), then with cross-fitted references (``eval_cross_fit``)."""
    n = len(result.ranks)
    label = LABELS[result.kind]
    vb = val_scores[:, :1]
    pair_features = np.concatenate([vb, np.ones_like(vb)], 1)
    feats = se_features(val_scores[:, 0], units, cfg.eval_aggregate)
    for fit in sorted(REFERENCE_FITS, key=lambda f: f != cfg.reference_fit):
        result.fitted_references[fit] = fit_references(means, fit)
        decide = se_decide(result.fitted_references[fit])
        curves = accuracy_curves(feats, units.rank, decide, n, **kw)
        acc, players = _player_accuracy(pair_features, decide, val)
        name = label if fit == "mean" else f"{label} ({fit})"
        result.methods.append(MethodResult(name, result.run.name, curves, acc, players))
    if cfg.eval_cross_fit > 0:
        groups = unit_groups(val, units, cfg.eval_unit)
        curves_cf = cross_fitted_curves(
            val_scores[:, 0],
            units,
            groups,
            n,
            cfg.reference_fit,
            cfg.eval_aggregate,
            folds=2,
            repeats=cfg.eval_cross_fit,
            **kw,
        )
        if curves_cf is not None:
            name = f"{label} (held-out refs)"
            result.methods.append(MethodResult(name, result.run.name, curves_cf))


def _score_statistics(
    result: RunEvaluation, cfg: SEConfig, scored: _ScoredSets, val_scores: FloatArray, val: PairSet
) -> None:
    """The rank separation, the references' and the held-out means' standard errors, the
    training sample's means and the candidates' score by move number."""
    n = len(result.ranks)
    cand = scored.cand
    betas = scored.cand_scores[:, 0]
    val_games = make_units(val, "game")
    result.separation = rank_separation(val_scores[:, 0], val_games, n)
    if cfg.eval_aggregate == "move":
        cand_games = make_units(cand, "game")
        _, result.reference_error = rank_means_with_error(
            betas, cand_games, n, seed=cfg.seed, groups=unit_groups(cand, cand_games)
        )
        result.held_out_means, result.held_out_error = rank_means_with_error(
            val_scores[:, 0], val_games, n, seed=cfg.seed + 1, groups=unit_groups(val, val_games)
        )
    if scored.train is not None and scored.train_scores is not None:
        train_rank = scored.train.rank.astype(np.int64)
        result.train_means = reference_scores(scored.train_scores[:, 0], train_rank, n)
    result.by_move = score_by_move(betas, cand.move_number, cand.rank.astype(np.int64), n)


def _save_estimator(result: RunEvaluation, model: Any, meta: dict[str, Any], cand: PairSet) -> None:
    """``RUN/estimator.pt``: the model with its references and evaluation summary."""
    cfg = result.config
    assert result.references is not None and result.by_move is not None
    moves, by_move = result.by_move
    meta_out = dict(meta)
    meta_out["references"] = {
        "ranks": list(result.ranks),
        "scores": result.fitted_references[cfg.reference_fit].tolist(),
        "fit": cfg.reference_fit,
        "means": result.references.tolist(),
        "aggregate": cfg.eval_aggregate,
        "source": "candidating",
        "pairs": len(cand),
        "chosen_on": _chosen_on(result),
        "by_move": {
            "first_move": moves.tolist(),
            "scores": [[None if np.isnan(x) else float(x) for x in row] for row in by_move],
        },
    }
    meta_out["evaluation"] = _summary(result.methods[0], cfg)
    meta_out["evaluation"]["heldout"] = (
        "report part of the held-out players" if result.heldout == "split" else "all held-out games"
    )
    save_strength_model(result.run / "estimator.pt", model, meta_out)


def evaluate_run(
    run: Path,
    overrides: dict[str, Any] | None = None,
    show_progress: bool = True,
    heldout: str = "split",
    choose_fit: bool = True,
) -> RunEvaluation:
    """Score a run's ``model.pt`` on the candidate and held-out sets and measure accuracy
    against N; write ``RUN/estimator.pt`` (SE kinds).

    ``heldout`` (:data:`HELDOUT`): ``split`` divides the held-out players into a choose and a
    report part (:func:`split_heldout`); with ``choose_fit`` the reference form of the
    estimator is the one that predicts the choose part best
    (:func:`~sparring.estimation.predict.choose_reference_fit`), otherwise the config's
    ``reference_fit``; every accuracy, mean and separation is then measured on the report part
    only.  ``all`` measures on every held-out game with the config's ``reference_fit``."""
    if heldout not in HELDOUT:
        raise BadValueError(
            f"heldout must be one of {', '.join(HELDOUT)}, not {heldout!r}", key="heldout"
        )
    run = Path(run)
    cfg, model, meta = _load_run(run, overrides)
    step = int(meta.get("step", 0))
    scored = _score_sets(run, cfg, model, step, show_progress)
    cand, val, val_scores = scored.cand, scored.val, scored.val_scores
    n = len(cand.ranks)
    choose: tuple[PairSet, FloatArray] | None = None
    if heldout == "split":
        choose, (val, val_scores), dropped = split_heldout(val, val_scores, cfg.eval_unit)
    units = make_units(val, cfg.eval_unit)
    log = read_log(run / "log.jsonl")
    result = RunEvaluation(
        run=run,
        config=cfg,
        kind=model.config.kind,
        step=step,
        ranks=cand.ranks,
        methods=[],
        val_units=np.bincount(units.rank, minlength=n).tolist(),
        pairs={"train": int(meta.get("train_pairs", 0)), "val": len(val), "cand": len(cand)},
        train_seconds=float(log[-1].get("seconds", 0.0)) if log else 0.0,
        pairs_seen=int(meta.get("pairs_seen", 0)),
        heldout=heldout,
    )
    if choose is not None:
        result.pairs["choose"] = len(choose[0])
        result.dropped_units = dropped
    kw = {"max_games": cfg.eval_max_games, "draws": cfg.eval_draws, "seed": cfg.seed}
    if model.config.kind == "sl":
        _sl_methods(result, val_scores, units, val, kw)
        return result
    cand_units = make_units(cand, cfg.eval_unit) if cfg.eval_aggregate == "game" else None
    means = reference_scores(scored.cand_scores[:, 0], cand.rank.astype(np.int64), n, cand_units)
    if choose is not None and choose_fit:
        cfg = _choose_fit(result, cfg, choose, means)
    _se_methods(result, cfg, means, val_scores, units, val, kw)
    result.references = means
    _score_statistics(result, cfg, scored, val_scores, val)
    _save_estimator(result, model, meta, cand)
    return result


def _chosen_on(ev: RunEvaluation) -> dict[str, Any]:
    """How the reference form was fixed, for the estimator file and the report."""
    if ev.choice is not None:
        return {
            "how": "chosen on the choose part of the held-out players",
            "criterion": "mean exact accuracy over N = 1 .. max_games",
            "scores": {k: round(v, 4) for k, v in ev.choice.criterion.items()},
            "choose_units_per_rank": ev.choice.units_per_rank,
        }
    return {"how": "given (reference_fit); not chosen by se-eval"}


def _pair_features(log_probs: FloatArray, name: str) -> FloatArray:
    probs = np.exp(log_probs)
    if name == "SL_vote":
        votes = np.zeros_like(probs)
        votes[np.arange(probs.shape[0]), probs.argmax(axis=1)] = 1.0
        result: FloatArray = votes + 1e-7 * probs
        return result
    return probs


def _summary(method: MethodResult, cfg: SEConfig) -> dict[str, Any]:
    c = method.curves
    pick = [k for k in REPORT_N if k <= cfg.eval_max_games]
    return {
        "exact": {str(k): round(float(c.mean_exact[k - 1]), 4) for k in pick},
        "within_one": {str(k): round(float(c.mean_within1[k - 1]), 4) for k in pick},
        "games_to_80": c.games_to_reach(0.8),
        "player_accuracy": method.player_accuracy,
        "players": method.players,
        "unit": cfg.eval_unit,
        "aggregate": cfg.eval_aggregate,
        "draws": cfg.eval_draws,
    }


# ---- plots and report ------------------------------------------------------------------------
def _plt() -> Any:
    require_extra("matplotlib", "research", "the estimation report's figure")
    # matplotlib: an optional extra (research), imported only to draw
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # after the backend is chosen

    return plt


def _label(method: MethodResult, evals: list[RunEvaluation]) -> str:
    """A method's name, with its run when another evaluated run has a method of that name."""
    names = [m.name for ev in evals for m in ev.methods]
    return f"{method.name} [{method.run}]" if names.count(method.name) > 1 else method.name


def plot_accuracy(evals: list[RunEvaluation], game: str, path: Path) -> None:
    """Mean accuracy against N for every method (Fig. 2a / 6), exact and within one rank."""
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, within, title in ((axes[0], False, "exact rank"), (axes[1], True, "within one rank")):
        for ev in evals:
            for m in ev.methods:
                curve = m.curves.mean_within1 if within else m.curves.mean_exact
                ax.plot(np.arange(1, curve.size + 1), curve, label=_label(m, evals))
        if not within:
            for x, y, text in PAPER[game]["points"]:
                ax.plot([x], [y], "k*", markersize=9)
                ax.annotate(text, (x, y), fontsize=7, xytext=(4, -10), textcoords="offset points")
        chance = 1.0 / len(evals[0].ranks)
        ax.axhline(chance, color="grey", lw=0.8, ls=":", label="chance")
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("number of games N")
        ax.set_ylabel("accuracy")
        ax.set_title(f"{game}: rank prediction, {title}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def plot_per_rank(evals: list[RunEvaluation], path: Path) -> None:
    """Fig. 8: accuracy of every rank against N, one panel per method and tolerance."""
    plt = _plt()
    methods = [m for ev in evals for m in ev.methods]
    ranks = evals[0].ranks
    fig, axes = plt.subplots(
        2,
        len(methods),
        figsize=(3.2 * len(methods) + 1.5, 6.5),
        squeeze=False,
        constrained_layout=True,
    )
    im = None
    for j, m in enumerate(methods):
        for i, (data, title) in enumerate(((m.curves.exact, "exact"), (m.curves.within1, "+-1"))):
            ax = axes[i][j]
            im = ax.imshow(
                data,
                aspect="auto",
                vmin=0,
                vmax=1,
                cmap="viridis",
                interpolation="nearest",
                extent=(0.5, data.shape[1] + 0.5, len(ranks) - 0.5, -0.5),
            )
            ax.set_yticks(range(len(ranks)))
            ax.set_yticklabels(ranks if j == 0 else [], fontsize=7)
            ax.set_title(f"{_label(m, evals)} ({title})", fontsize=9)
            if i == 1:
                ax.set_xlabel("N games", fontsize=8)
    fig.colorbar(im, ax=axes, shrink=0.8)
    fig.savefig(path, dpi=90)
    plt.close(fig)


def plot_score_by_move(evals: list[RunEvaluation], path: Path) -> None:
    """Fig. 3: the composite score of every rank against the move number (candidate set)."""
    plt = _plt()
    se = [ev for ev in evals if ev.by_move is not None]
    if not se:
        return
    fig, axes = plt.subplots(1, len(se), figsize=(6 * len(se), 4.2), squeeze=False)
    for ax, ev in zip(axes[0], se, strict=True):
        assert ev.by_move is not None
        moves, means = ev.by_move
        cmap = plt.get_cmap("viridis")
        for r, name in enumerate(ev.ranks):
            ax.plot(moves, means[r], color=cmap(r / max(1, len(ev.ranks) - 1)), label=name)
        ax.set_xlabel("move number")
        ax.set_ylabel("composite strength score")
        ax.set_title(f"{LABELS[ev.kind]}: score by move number")
        ax.legend(fontsize=7, ncol=2)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def plot_references(evals: list[RunEvaluation], path: Path) -> bool:
    """Per rank: the candidate references (mean, with two bootstrap errors), the line fit,
    the held-out means (two errors) and the training-sample means; False when no run has
    them."""
    se = [ev for ev in evals if ev.references is not None and ev.held_out_means is not None]
    if not se:
        return False
    plt = _plt()
    fig, axes = plt.subplots(1, len(se), figsize=(6 * len(se), 4.2), squeeze=False)
    for ax, ev in zip(axes[0], se, strict=True):
        assert ev.references is not None and ev.held_out_means is not None
        x = np.arange(len(ev.ranks))
        ax.errorbar(
            x - 0.1,
            ev.references,
            yerr=None if ev.reference_error is None else 2 * ev.reference_error,
            fmt="o",
            capsize=3,
            label="candidate mean (references)",
        )
        ax.errorbar(
            x + 0.1,
            ev.held_out_means,
            yerr=None if ev.held_out_error is None else 2 * ev.held_out_error,
            fmt="s",
            capsize=3,
            label="held-out mean",
        )
        line = ev.fitted_references.get("line")
        if line is not None:
            ax.plot(x, line, "k--", lw=1, label="line fit of the references")
        if ev.train_means is not None:
            ax.plot(x, ev.train_means, "x", color="grey", label="training-sample mean")
        ax.set_xticks(x)
        ax.set_xticklabels(ev.ranks, rotation=45, fontsize=7)
        ax.set_ylabel("mean strength score (error bars: 2 bootstrap s.e.)")
        ax.set_title(f"{LABELS[ev.kind]}: references and held-out means")
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True


def _pct(x: float | None) -> str:
    return "-" if x is None or np.isnan(x) else f"{100 * x:.1f}%"


def _tolist(values: FloatArray | None) -> list[float | None] | None:
    if values is None:
        return None
    return [None if np.isnan(x) else round(float(x), 4) for x in values]


def _separation_lines(evals: list[RunEvaluation], game: str) -> list[str]:
    seps = [ev for ev in evals if ev.separation is not None]
    if not seps:
        return []
    level, n_games = PAPER[game]["target"]
    lines = [
        "",
        "## Rank separation on the held-out games",
        "",
        "How far apart the network puts neighbouring ranks (`spacing`: slope of the held-out "
        "rank means of the games' composite scores over the rank index) against the spread of "
        "one game's composite score within a rank (`game sd`); `d' = spacing / game sd`.  With "
        "references at the true means, equal spacing and independent Gaussian games, an "
        "interior rank is predicted exactly from N games with probability "
        "`2 Phi(d' sqrt(N) / 2) - 1` (player effects and reference error lower it, the two end "
        "ranks are easier): a yardstick for how much sharper the network must get, not a "
        "forecast.",
        "",
        f"| run | spacing | game sd | d' | model exact at N={n_games} | model N for "
        f"{level:.0%} | d' for {level:.0%} at N={n_games} |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for ev in seps:
        s = ev.separation
        assert s is not None
        lines.append(
            f"| {ev.run} | {s.spacing:.3f} | {s.game_sd:.3f} | {s.d_prime:.3f} "
            f"| {_pct(s.ideal_exact(n_games))} | {s.games_for(level):.0f} "
            f"| {s.d_prime_for(level, n_games):.3f} |"
        )
    return lines


def _separation_json(s: RankSeparation | None, game: str) -> dict[str, Any] | None:
    if s is None:
        return None
    level, n_games = PAPER[game]["target"]
    return {
        "rank_means": _tolist(s.rank_means),
        "spacing": round(s.spacing, 4),
        "game_sd": round(s.game_sd, 4),
        "d_prime": round(s.d_prime, 4),
        "games_per_rank": s.games_per_rank,
        f"model_exact_at_{n_games}": round(s.ideal_exact(n_games), 4),
        f"model_games_for_{level}": round(s.games_for(level), 1),
        f"d_prime_for_{level}_at_{n_games}": round(s.d_prime_for(level, n_games), 4),
    }


def _with_error(value: float, errors: FloatArray | None, r: int) -> str:
    if errors is None or np.isnan(errors[r]):
        return f"{value:+.3f}"
    return f"{value:+.3f} ± {errors[r]:.2f}"


def _heldout_lines(evals: list[RunEvaluation]) -> list[str]:
    """The report's statement of which held-out games it measures and what was chosen where."""
    if all(ev.heldout == "all" for ev in evals):
        return [
            "**Protocol: all held-out games** (`--heldout all`).  Every figure below is "
            "measured on every held-out game, with the reference form given by "
            "`reference_fit`; if that form was chosen by looking at these games, the figures "
            "of that form are optimistic.",
            "",
        ]
    lines = [
        "**Protocol: choose / report split of the held-out players** (`--heldout split`, the "
        "default).  The held-out games are divided by player "
        "(`sparring.estimation.predict.choose_report_parts`: each game goes with its focus "
        "player, the one of its players with the most held-out games; within a rank the focus "
        "players, ordered by a hash of their names, alternate between the parts; a game whose "
        "players meet both parts is dropped from both, so no player is in both parts).  "
        + (
            "The reference form is chosen on the *choose* part (the form with the highest mean "
            f"exact accuracy over N = 1 .. {evals[0].config.eval_max_games})"
            if any(ev.choice is not None for ev in evals)
            else "The reference form was given (`--reference-fit`), not chosen here"
        )
        + "; **every figure below is measured on the *report* part only**, which no choice "
        "looked at.  The evaluation units per rank above are the report part's"
        + (
            "; dropped from both parts: "
            + ", ".join(f"{r} {d}" for r, d in zip(evals[0].ranks, dropped, strict=True))
            + "."
            if (dropped := evals[0].dropped_units)
            else "."
        ),
        "",
    ]
    chosen = [ev for ev in evals if ev.choice is not None]
    if chosen:
        fits = list(REFERENCE_FITS)
        lines += [
            "| run | choose-part units per rank | "
            + " | ".join(f"choose part: mean exact, {f}" for f in fits)
            + " | chosen |",
            "| --- " * (len(fits) + 3) + "|",
        ]
        for ev in chosen:
            assert ev.choice is not None
            lines.append(
                f"| {ev.run} | {', '.join(str(u) for u in ev.choice.units_per_rank)} | "
                + " | ".join(_pct(ev.choice.criterion[f]) for f in fits)
                + f" | **{ev.choice.chosen}** |"
            )
        lines.append("")
    return lines


def _intro_lines(evals: list[RunEvaluation], game: str, n_max: int) -> list[str]:
    """The report's title, how it measures and the table of runs."""
    cfg = evals[0].config
    lines = [
        f"# Strength estimation: {game}",
        "",
        f"Held-out evaluation units per rank ({cfg.eval_unit}s): "
        + ", ".join(f"{r} {u}" for r, u in zip(evals[0].ranks, evals[0].val_units, strict=True))
        + f"; {cfg.eval_draws} random draws of N per rank; composite score = "
        + ("mean over all pairs (paper)" if cfg.eval_aggregate == "move" else "mean of game means")
        + ". Draws are without replacement up to a rank's number of units and with "
        "replacement beyond it, so when N nears or passes that number every draw holds "
        "almost the same games and the curve's right end is nearly deterministic (it says "
        "whether the rank's mean score lies nearest its own reference)"
        + (
            f"; here N = {n_max} exceeds the units of {few} rank(s)."
            if (few := sum(u < n_max for u in evals[0].val_units))
            else "."
        ),
        "",
        *_heldout_lines(evals),
        "| run | kind | steps | pairs seen | train s | val pairs | cand pairs |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for ev in evals:
        lines.append(
            f"| {ev.run} | {ev.kind} | {ev.step} | {ev.pairs_seen} | {ev.train_seconds:.0f} "
            f"| {ev.pairs['val']} | {ev.pairs['cand']} |"
        )
    return lines


def _accuracy_lines(evals: list[RunEvaluation], cols: list[int], n_max: int) -> list[str]:
    """The accuracy tables against N (exact, within one rank) of every method."""
    lines: list[str] = []
    for within, title in ((False, "exact rank"), (True, "within one rank")):
        lines += ["", f"## Accuracy, {title}, against the number of games N", ""]
        lines.append("| method | " + " | ".join(f"N={k}" for k in cols) + " | N for 80% |")
        lines.append("| --- " * (len(cols) + 2) + "|")
        for ev in evals:
            for m in ev.methods:
                curve = m.curves.mean_within1 if within else m.curves.mean_exact
                reach = m.curves.games_to_reach(0.8, within)
                lines.append(
                    f"| {_label(m, evals)} | "
                    + " | ".join(_pct(float(curve[k - 1])) for k in cols)
                    + f" | {reach if reach else '> ' + str(n_max)} |"
                )
    return lines


def _per_rank_lines(evals: list[RunEvaluation], show: list[int]) -> list[str]:
    """Fig. 8's table (exact accuracy per rank at the N of ``show``) and the whole held-out
    players' accuracy."""
    lines = ["", "## Per-rank exact accuracy (Fig. 8 analogue)", ""]
    head = [f"{_label(m, evals)} N={k}" for ev in evals for m in ev.methods for k in show]
    lines.append("| rank | " + " | ".join(head) + " |")
    lines.append("| --- " * (len(head) + 1) + "|")
    for r, name in enumerate(evals[0].ranks):
        vals = [
            _pct(float(m.curves.exact[r, k - 1])) for ev in evals for m in ev.methods for k in show
        ]
        lines.append(f"| {name} | " + " | ".join(vals) + " |")
    lines += ["", "## Whole held-out players (own moves of all their games, players with 5+)", ""]
    for ev in evals:
        for m in ev.methods:
            if m.players:
                lines.append(
                    f"* {_label(m, evals)}: {_pct(m.player_accuracy)} of {m.players} players"
                )
    return lines


def _reference_lines(evals: list[RunEvaluation]) -> list[str]:
    """The table of references, their line, the held-out and the training means (SE runs)."""
    refs = [ev for ev in evals if ev.references is not None]
    if not refs:
        return []
    lines = [
        "",
        "## Reference composite scores (candidate set) and held-out means",
        "",
        "Mean score per rank over all pairs of the candidate games (the paper's references; "
        "`line`: their least-squares line over the rank index, `reference_fit`) and of "
        "the held-out games, each with its standard error from a bootstrap over the players "
        "(each game goes with its player who has the most games in the set; 1,000 "
        "resamples, so one player's shared level counts once), and of a sample of "
        "training pairs (`eval_train_sample` per rank; far from the others where the "
        "network has memorised its training games).  "
        "Where two neighbours' references are closer than about twice "
        "their errors, their order is partly an accident of the candidate sample, and a "
        "reference that sits far from the held-out mean of its rank misleads every large-N "
        "prediction for that rank.",
        "",
    ]
    parts = ("mean", "line", "held-out", "train")
    head = [f"{LABELS[ev.kind]} {part}" for ev in refs for part in parts]
    lines.append("| rank | " + " | ".join(head) + " |")
    lines.append("| --- " * (len(head) + 1) + "|")
    for r, name in enumerate(evals[0].ranks):
        vals = []
        for ev in refs:
            assert ev.references is not None
            vals.append(_with_error(ev.references[r], ev.reference_error, r))
            line = ev.fitted_references.get("line")
            vals.append("-" if line is None else f"{line[r]:+.3f}")
            if ev.held_out_means is None:
                vals.append("-")
            else:
                vals.append(_with_error(ev.held_out_means[r], ev.held_out_error, r))
            vals.append("-" if ev.train_means is None else f"{ev.train_means[r]:+.3f}")
        lines.append(f"| {name} | " + " | ".join(vals) + " |")
    return lines


def _run_json(ev: RunEvaluation, game: str, show: list[int]) -> dict[str, Any]:
    """One run's record of ``results.json``."""
    return {
        "run": str(ev.run),
        "kind": ev.kind,
        "step": ev.step,
        "pairs": ev.pairs,
        "pairs_seen": ev.pairs_seen,
        "train_seconds": ev.train_seconds,
        "val_units_per_rank": ev.val_units,
        "heldout": ev.heldout,
        "dropped_units_per_rank": ev.dropped_units,
        "reference_fit": None if ev.kind == "sl" else ev.config.reference_fit,
        "reference_fit_chosen_on": None if ev.kind == "sl" else _chosen_on(ev),
        "references": None if ev.references is None else ev.references.tolist(),
        "reference_fits": {k: _tolist(v) for k, v in ev.fitted_references.items()},
        "reference_error": _tolist(ev.reference_error),
        "held_out_means": _tolist(ev.held_out_means),
        "held_out_error": _tolist(ev.held_out_error),
        "train_means": _tolist(ev.train_means),
        "separation": _separation_json(ev.separation, game),
        "methods": {
            m.name: {
                "mean_exact": _tolist(m.curves.mean_exact),
                "mean_within1": _tolist(m.curves.mean_within1),
                "per_rank_exact_at": {str(k): _tolist(m.curves.exact[:, k - 1]) for k in show},
                "games_to_80": m.curves.games_to_reach(0.8),
                "player_accuracy": m.player_accuracy,
                "players": m.players,
            }
            for m in ev.methods
        },
    }


def write_report(evals: list[RunEvaluation], out: Path, game: str) -> Path:
    """Plots, ``report.md`` and ``results.json`` for the evaluated runs; the report's path."""
    if not evals:
        raise SparringError("nothing to report: no run was evaluated")
    out.mkdir(parents=True, exist_ok=True)
    plot_accuracy(evals, game, out / "accuracy.png")
    plot_per_rank(evals, out / "per_rank.png")
    plot_score_by_move(evals, out / "score_by_move.png")
    has_references_plot = plot_references(evals, out / "references.png")
    n_max = min(ev.config.eval_max_games for ev in evals)
    cols = [k for k in REPORT_N if k <= n_max]
    show = [k for k in (1, 15, 100) if k <= n_max]
    lines = [
        *_intro_lines(evals, game, n_max),
        *_accuracy_lines(evals, cols, n_max),
        *_per_rank_lines(evals, show),
        *_separation_lines(evals, game),
        *_reference_lines(evals),
        "",
        f"Paper (Chen, Shih & Wu 2025): {PAPER[game]['text']}",
        "",
        "![accuracy](accuracy.png)",
        "",
        "![per rank](per_rank.png)",
        "",
        "![score by move](score_by_move.png)",
        "",
    ]
    if has_references_plot:
        lines += ["![references](references.png)", ""]
    path = out / "report.md"
    path.write_text("\n".join(lines))
    results = {"game": game, "runs": [_run_json(ev, game, show) for ev in evals]}
    (out / "results.json").write_text(json.dumps(results, indent=1))
    return path


__all__ = [
    "HELDOUT",
    "PAPER",
    "MethodResult",
    "RunEvaluation",
    "evaluate_run",
    "nearest_rank",
    "plot_accuracy",
    "plot_per_rank",
    "plot_score_by_move",
    "split_heldout",
    "unit_sums",
    "write_report",
]
