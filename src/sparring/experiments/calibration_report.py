"""Reports of a strength calibration: markdown tables and PNG plots laid out like the paper's
Table 1-2 and Fig. 1-4 (Wu et al., AAAI 2019), plus the floor below ``z = -inf``.

:func:`write_report` writes ``report.md``, ``calibration.json`` and the plots
``fig1_z_elo.png``, ``fig2_z_elo_by_rth.png``, ``fig3_candidates.png`` and
``fig4_analysis.png`` into one directory.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sparring.experiments.calibration import CalibrationResult, PointResult
from sparring.experiments.strength_analysis import FIT_RANGE
from sparring.strength.selection import floor_schedule, format_z
from sparring.strength.target import save_calibration

Z95 = 1.959963984540054
"""Two-sided 95% normal quantile."""

FILES = {
    "report": "report.md",
    "calibration": "calibration.json",
    "fig1": "fig1_z_elo.png",
    "fig2": "fig2_z_elo_by_rth.png",
    "fig3": "fig3_candidates.png",
    "fig4": "fig4_analysis.png",
}
"""The files :func:`write_report` writes."""


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "| --- |" + " ---: |" * (len(header) - 1)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _pm(value: float | None, se: float | None, digits: int = 0) -> str:
    if value is None:
        return "-"
    if se is None or se == 0.0:
        return f"{value:.{digits}f}"
    return f"{value:.{digits}f} ± {Z95 * se:.{digits}f}"


def _win_rate(p: PointResult) -> str:
    if p.score is None:
        return "50.0% (baseline)"
    se = math.sqrt(max(p.score * (1.0 - p.score), 0.0) / max(p.games, 1))
    return f"{100 * p.score:.1f}% (±{100 * Z95 * se:.1f}%)"


def table1_markdown(result: CalibrationResult) -> str:
    """The paper's Table 1 at the main threshold: win rate against the baseline and Elo
    relative to ``z = +inf`` (95% intervals), plus the Elo on the calibration's scale."""
    rth = result.config.baseline_rth
    rows = []
    for p in sorted(result.curve(rth), key=lambda q: -q.setting.z):
        rows.append(
            [
                format_z(p.setting.z),
                _win_rate(p),
                _pm(p.elo_vs_top, p.elo_vs_top_stderr),
                _pm(p.elo, p.stderr),
                "-" if p.candidates is None else f"{p.candidates:.2f}",
                str(p.games),
            ]
        )
    header = [
        "z",
        "win rate vs baseline (±95%)",
        "Elo rel. z=+inf (±95%)",
        "Elo (±95%)",
        "candidates",
        "games",
    ]
    return _table(header, rows)


def floor_markdown(result: CalibrationResult) -> str:
    """The floor below ``z = -inf``: effective ``R_th`` and ``q`` with the measured Elo."""
    rows = []
    for p in result.floor_points:
        rth, q = floor_schedule(p.setting.floor, p.setting.rth)
        links = ", ".join(f"{spec} {score:.2f} ({n})" for spec, (n, score) in p.links.items())
        rows.append(
            [
                f"{p.setting.floor:g}",
                f"{rth:g}",
                f"{q:g}",
                _win_rate(p),
                _pm(p.elo, p.stderr),
                links or "-",
            ]
        )
    header = ["floor", "R_th", "q (random)", "win rate vs baseline", "Elo (±95%)", "ladder links"]
    return _table(header, rows)


def fig2_markdown(result: CalibrationResult) -> str:
    """Elo (± 95%) by ``z`` (rows) and ``R_th`` (columns): the data of Fig. 2."""
    rths = sorted(set(result.config.rth_values))
    zs = sorted({p.setting.z for p in result.points if p.setting.floor == 0.0}, reverse=True)
    rows = []
    for z in zs:
        row = [format_z(z)]
        for rth in rths:
            match = [p for p in result.curve(rth) if p.setting.z == z]
            row.append(_pm(match[0].elo, match[0].stderr) if match else "-")
        rows.append(row)
    return _table(["z", *[f"R_th={r:g}" for r in rths]], rows)


def table2_markdown(result: CalibrationResult) -> str:
    """The paper's Table 2: ``H`` per threshold, with the Fig. 4 regression errors."""
    rows = []
    for rth, a in sorted(result.analyses.items()):
        logistic = a.logistic
        rows.append(
            [
                f"{rth:g}",
                str(a.positions),
                f"{a.mean_candidates:.2f}",
                f"{a.e_norm_minus_inf:.3f}" if math.isfinite(a.e_norm_minus_inf) else "-inf",
                "-" if a.h is None else f"{a.h:.3f}",
                "-" if a.rmse_empirical is None else f"{a.rmse_empirical:.1f}",
                "-"
                if logistic is None
                else f"{logistic.rmse:.1f} (b0={logistic.beta0:.2f}, b1={logistic.beta1:.2f})",
            ]
        )
    header = [
        "R_th",
        "positions",
        "candidates",
        "E_norm(-inf)",
        "H (Eq. 17)",
        "derived vs measured, RMS Elo",
        "logistic fit of derived, RMS Elo",
    ]
    return _table(header, rows)


def candidates_markdown(result: CalibrationResult) -> str:
    """Fig. 3's data: mean number of candidates per position by ``R_th``."""
    rows = [
        [f"{r:g}", f"{c:.2f}"]
        for r, c in zip(result.candidates_rth, result.candidates, strict=True)
    ]
    return _table(["R_th", "mean candidates"], rows)


def links_markdown(result: CalibrationResult) -> str:
    """The ladder links: games and mean score of each linked setting against ladder players."""
    rows = []
    ladder = {p.spec: p for p in result.ladder.players} if result.ladder else {}
    for p in result.points:
        for spec, (n, score) in p.links.items():
            rung = ladder.get(spec)
            rows.append(
                [
                    p.label,
                    f"{rung.name} ({rung.elo:.0f})" if rung else spec,
                    str(n),
                    f"{score:.3f}",
                ]
            )
    if not rows:
        return "_No ladder links (relative scale)._\n"
    return _table(["setting", "ladder player (Elo)", "games", "score"], rows)


def report_markdown(result: CalibrationResult, command: str | None = None) -> str:
    """The whole report as markdown (the plots are referenced by their file names)."""
    cfg = result.config
    cal = result.calibration
    base = ",".join(f"{k}={v}" for k, v in cal.base.items())
    weakest = min(result.points, key=lambda p: p.elo)
    strongest = max(result.points, key=lambda p: p.elo)
    out = [
        f"# Strength adjustment calibration: {cfg.game}, sa:{base}",
        "",
    ]
    if command:
        out += ["```bash", command, "```", ""]
    out += [
        f"* Elo scale: {result.scale}.",
        f"* Baseline: SA({cfg.baseline.label()}); {cfg.games} games per setting against it, "
        f"colours alternating, seed {cfg.seed}; ladder links {cfg.link_games} games each"
        + (
            f"; every setting a target can choose also linked to the {cfg.link_nearest} "
            "ladder players nearest its first rating."
            if cfg.link_nearest
            else "."
        ),
        f"* Games: {result.played} played by this run, {result.skipped} already stored.",
        f"* Weakest setting: {weakest.setting.label()} (Elo {weakest.elo:.0f}); strongest: "
        f"{strongest.setting.label()} (Elo {strongest.elo:.0f}).",
        "",
        f"## Table 1 analogue (R_th = {cfg.baseline_rth:g})",
        "",
        "Win rate against the baseline with a 95% normal interval; Elo relative to z = +inf "
        "is the difference of the two fitted ratings (95% interval of the difference); "
        "candidates: mean number of moves with N_i >= R_th N_max where the setting moved.",
        "",
        table1_markdown(result),
        f"![Fig. 1]({FILES['fig1']})",
        "",
        f"## Fig. 1 fits (z in [{FIT_RANGE[0]:g}, {FIT_RANGE[1]:g}], R_th = {cfg.baseline_rth:g})",
        "",
    ]
    if result.linear is not None:
        lin = result.linear
        out.append(
            f"* Linear: Elo = {lin.intercept:.0f} + {lin.slope:.0f} z, regression error "
            f"(RMS) {lin.rmse:.1f} Elo over {lin.points} points (paper: 47.95)."
        )
    if result.logistic is not None:
        lg = result.logistic
        out.append(
            f"* Logistic: Elo = {lg.low:.0f} + ({lg.high:.0f} - {lg.low:.0f}) "
            f"sigmoid({lg.beta0:.2f} + {lg.beta1:.2f} z), RMS {lg.rmse:.1f} Elo "
            "(paper: 26.00, b0 = -0.25, b1 = 1.16); asymptotes = the measured z = -inf / +inf."
        )
    main = result.curve(cfg.baseline_rth)
    inside = [p.elo for p in main if FIT_RANGE[0] <= p.setting.z <= FIT_RANGE[1]]
    if main:
        span = max(p.elo for p in main) - min(p.elo for p in main)
        out.append(
            f"* Range covered: {span:.0f} Elo over all z"
            + (f", {max(inside) - min(inside):.0f} for z in [-2, 2]" if len(inside) > 1 else "")
            + " (paper: 1088 and 830)."
        )
    out += [
        "",
        "## The floor below z = -inf",
        "",
        "Floor level f (one parameter, `sa:...,floor=f`): z = -inf with R_th(f) = R_th (1 - f) "
        "for f <= 1, then R_th = 0 and a uniformly random move with probability q = f - 1; "
        "f = 2 is a uniformly random player.",
        "",
        floor_markdown(result),
        "## Fig. 2 analogue: Elo by z and R_th",
        "",
        fig2_markdown(result),
        f"![Fig. 2]({FILES['fig2']})",
        "",
        "## Fig. 3 analogue: candidates by R_th",
        "",
        "Over every recorded position of the calibration games (both players' moves).",
        "",
        candidates_markdown(result),
        f"![Fig. 3]({FILES['fig3']})",
        "",
        "## Table 2 analogue: strength analysis (Eq. 13-17)",
        "",
        "D_R_th: the positions where settings with that R_th and finite z moved. H from Eq. 17 "
        "with the measured Elo at z = +-inf; 'derived vs measured' compares Eq. 15 with the "
        "measured Elo for z in [-2, 2] (paper, D_0.1: H = 6.243, 40.45 Elo); the logistic fit "
        "of the derived curve (paper: 10.51 Elo, b0 = -0.05, b1 = 1.17).",
        "",
        table2_markdown(result),
        f"![Fig. 4]({FILES['fig4']})",
        "",
        "## Ladder links",
        "",
        links_markdown(result),
    ]
    return "\n".join(out)


# ---- plots -----------------------------------------------------------------------------------
def _x_positions(zs: Sequence[float], finite: Sequence[float]) -> list[float]:
    lo = min(finite) if finite else 0.0
    hi = max(finite) if finite else 0.0
    return [hi + 1.0 if z == math.inf else lo - 1.0 if z == -math.inf else z for z in zs]


def _z_ticks(axes: Any, finite: Sequence[float], floors: Sequence[float] = ()) -> None:
    lo = min(finite) if finite else 0.0
    hi = max(finite) if finite else 0.0
    ticks = sorted(set(finite))
    floor_ticks = sorted(set(floors), reverse=True)
    axes.set_xticks(
        [*[lo - 1.0 - f for f in floor_ticks], lo - 1.0, *ticks, hi + 1.0],
        [*[f"f={f:g}" for f in floor_ticks], "-inf", *[f"{t:g}" for t in ticks], "+inf"],
        fontsize=8,
    )


def _figure(width: float = 6.4, height: float = 4.2) -> tuple[Any, Any]:
    from sparring.errors import require_extra

    require_extra("matplotlib", "research", "the calibration plot")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure, figure.add_subplot()


def plot_fig1(result: CalibrationResult, path: Path) -> Path:
    """Fig. 1: Elo against ``z`` at the main threshold with the linear and logistic fits, and
    the floor settings to the left of ``z = -inf``."""
    figure, ax = _figure()
    main = result.curve(result.config.baseline_rth)
    finite = [p.setting.z for p in main if math.isfinite(p.setting.z)]
    xs = _x_positions([p.setting.z for p in main], finite)
    ax.errorbar(
        xs,
        [p.elo for p in main],
        yerr=[Z95 * p.stderr for p in main],
        fmt="o",
        capsize=3,
        label="measured (95%)",
    )
    grid = np.linspace(FIT_RANGE[0], FIT_RANGE[1], 81)
    if result.linear is not None:
        ax.plot(
            grid,
            result.linear.intercept + result.linear.slope * grid,
            "--",
            label=f"linear (RMS {result.linear.rmse:.0f})",
        )
    if result.logistic is not None:
        ax.plot(
            grid, result.logistic(grid), "-", label=f"logistic (RMS {result.logistic.rmse:.0f})"
        )
    floors = [p for p in result.floor_points if p.setting.floor > 0]
    if floors:
        lo = min(finite) if finite else 0.0
        ax.errorbar(
            [lo - 1.0 - p.setting.floor for p in floors],
            [p.elo for p in floors],
            yerr=[Z95 * p.stderr for p in floors],
            fmt="s",
            capsize=3,
            label="floor f = 0.5..2 (left of -inf)",
        )
    if result.ladder is not None:
        merged: list[tuple[float, str]] = []
        for rung in sorted(result.ladder.players, key=lambda r: r.elo):
            if merged and rung.elo - merged[-1][0] < 25.0:
                merged[-1] = (merged[-1][0], f"{merged[-1][1]}/{rung.name}")
            else:
                merged.append((rung.elo, rung.name))
        for elo, name in merged:
            ax.axhline(elo, color="grey", lw=0.5, alpha=0.5)
            ax.annotate(
                name,
                (0.01, elo),
                xycoords=("axes fraction", "data"),
                fontsize=7,
                color="grey",
                ha="left",
                va="bottom",
            )
    _z_ticks(ax, finite, [p.setting.floor for p in floors])
    return _finish(
        figure,
        ax,
        path,
        xlabel="strength index z (left of -inf: floor level f)",
        ylabel="Elo",
        title=f"{result.config.game}: Elo against z (R_th = {result.config.baseline_rth:g})",
    )


def plot_fig2(result: CalibrationResult, path: Path) -> Path:
    """Fig. 2: Elo against ``z`` for every threshold."""
    figure, ax = _figure()
    finite = sorted(
        {p.setting.z for p in result.points if math.isfinite(p.setting.z) and p.setting.floor == 0}
    )
    for rth in sorted(set(result.config.rth_values)):
        curve = result.curve(rth)
        xs = _x_positions([p.setting.z for p in curve], finite)
        ax.plot(xs, [p.elo for p in curve], "o-", label=f"R_th = {rth:g}")
    _z_ticks(ax, finite)
    return _finish(
        figure,
        ax,
        path,
        xlabel="strength index z",
        ylabel="Elo",
        title=f"{result.config.game}: Elo by z and R_th",
    )


def plot_fig3(result: CalibrationResult, path: Path) -> Path:
    """Fig. 3: mean number of candidates against ``R_th``."""
    figure, ax = _figure()
    ax.plot(result.candidates_rth, result.candidates, "o-")
    return _finish(
        figure,
        ax,
        path,
        xlabel="threshold ratio R_th",
        ylabel="mean number of candidates",
        title=f"{result.config.game}: candidates by R_th",
        legend=False,
    )


def plot_fig4(result: CalibrationResult, path: Path) -> Path:
    """Fig. 4: ``E_norm(z)`` (left axis) and the derived against the measured Elo (right axis)
    for the main threshold (or the first analysed one)."""
    figure, ax = _figure()
    analyses = result.analyses
    rth = result.config.baseline_rth
    a = analyses.get(rth) or (next(iter(analyses.values())) if analyses else None)
    if a is None:
        ax.text(0.5, 0.5, "no recorded positions", ha="center")
        return _save(figure, path)
    ax.plot(a.curve_z, a.e_norm, "-", color="C0", label="E_norm(z), Eq. 14")
    ax.set_xlabel("strength index z")
    ax.set_ylabel("E_norm(z)")
    if a.derived is not None and a.h:
        from sparring.evaluation.bradley_terry import ELO_SCALE

        h = a.h
        top = a.empirical.get(math.inf, a.derived[-1])
        right = ax.twinx()
        right.plot(a.curve_z, a.derived, ":", color="C1", label=f"derived Elo (H = {h:.2f})")
        zs = sorted(z for z in a.empirical if math.isfinite(z))
        right.plot(
            zs, [a.empirical[z] for z in zs], "o", color="C2", label="measured Elo (finite z)"
        )
        right.set_ylabel("Elo")
        right.legend(fontsize=8, loc="lower right")
        # One linear scale for both axes (Eq. 15: Elo = Elo(inf) + H E_norm ELO_SCALE),
        # wide enough for the curve and every measured point.
        elos = [*a.derived, *a.empirical.values(), top]
        lo, hi = min(elos), max(elos)
        margin = 0.05 * (hi - lo or 1.0)
        lo, hi = lo - margin, hi + margin
        right.set_ylim(lo, hi)
        ax.set_ylim((lo - top) / (h * ELO_SCALE), (hi - top) / (h * ELO_SCALE))
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title(f"{result.config.game}: E_norm and derived Elo, R_th = {a.rth:g}")
    ax.grid(alpha=0.3)
    return _save(figure, path)


def _finish(
    figure: Any,
    ax: Any,
    path: Path,
    *,
    xlabel: str,
    ylabel: str,
    title: str,
    legend: bool = True,
) -> Path:
    """Label, grid and (unless ``legend`` is false) add a legend to a one-axes figure, then
    :func:`_save` it to ``path``."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if legend:
        ax.legend(fontsize=8)
    return _save(figure, path)


def _save(figure: Any, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    return path


def write_report(
    result: CalibrationResult,
    out_dir: str | Path,
    *,
    command: str | None = None,
    calibration_path: str | Path | None = None,
) -> dict[str, Path]:
    """Write the report, the plots and the calibration file; returns name -> path.

    ``calibration_path`` (default ``OUT_DIR/calibration.json``) is where the calibration
    file goes, e.g. ``src/sparring/models/connect4.calibration.json`` beside a shipped model.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "calibration": save_calibration(
            result.calibration, calibration_path or out / FILES["calibration"]
        ),
        "fig1": plot_fig1(result, out / FILES["fig1"]),
        "fig2": plot_fig2(result, out / FILES["fig2"]),
        "fig3": plot_fig3(result, out / FILES["fig3"]),
        "fig4": plot_fig4(result, out / FILES["fig4"]),
    }
    report = out / FILES["report"]
    report.write_text(report_markdown(result, command))
    paths["report"] = report
    return paths


__all__ = [
    "FILES",
    "candidates_markdown",
    "fig2_markdown",
    "floor_markdown",
    "links_markdown",
    "plot_fig1",
    "plot_fig2",
    "plot_fig3",
    "plot_fig4",
    "report_markdown",
    "table1_markdown",
    "table2_markdown",
    "write_report",
]
