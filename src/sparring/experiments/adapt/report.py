"""The report of the dynamic strength adjustment experiment: ``report.md`` (the win / loss /
draw tables beside the AlphaDDA paper's, the Table 3-4 analogues beside Wu et al.'s),
``results.json``, ``adapt.png`` (Fig. 5 analogue) and ``traces.png`` (the AlphaDDA paper's
appendix 6 figures)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sparring.experiments.adapt.runner import AdaptResult
from sparring.experiments.adapt.specs import opponent_z, paper_kind, paper_opponent
from sparring.experiments.adapt.statistics import (
    BALANCED_SHARE,
    SIDES,
    AdaptiveStats,
    Moments,
    WinRate,
    _d_metric,
    _nan_mean_sd,
)
from sparring.experiments.alphadda_paper import PAPER_TABLE_NUMBER, PAPER_TABLES

FILES = {
    "report": "report.md",
    "results": "results.json",
    "plot": "adapt.png",
    "traces": "traces.png",
}
"""The files :func:`write_report` writes into the output directory (``adapt.png`` only when
some adaptive player is not an AlphaDDA, ``traces.png`` only when some annotates ``vbar``)."""

PAPER_WITHOUT_DSA = {2.0: 5.6, 1.0: 8.8, 0.0: 50.0, -1.0: 78.4, -2.0: 87.6}
"""Wu et al. 2019, Tables 3-4 "w/o DSA": win rate (%) of ELF's SA player at z = 0 against the
SA opponent at z (Go)."""

PAPER_ROWS: dict[str, tuple[tuple[str, dict[float, float], str], ...]] = {
    "inter": (
        ("inter-game WR", {2.0: 43.4, 1.0: 46.6, 0.0: 52.0, -1.0: 50.0, -2.0: 54.8}, "%"),
        ("inter-game Avg. z", {2.0: 1.93, 1.0: 0.88, 0.0: -0.04, -1.0: -1.06, -2.0: -1.73}, ""),
    ),
    "intra": (
        ("ΔZ=0.2 WR", {2.0: 29.0, 1.0: 38.0, 0.0: 43.0, -1.0: 64.0, -2.0: 71.0}, "%"),
        ("ΔZ=0.2 Avg. z", {2.0: 1.85, 1.0: 0.92, 0.0: -0.10, -1.0: -1.39, -2.0: -1.57}, ""),
        ("ΔZ=0.2 Std. z", {2.0: 1.82, 1.0: 1.81, 0.0: 1.41, -1.0: 1.73, -2.0: 1.56}, ""),
        ("ΔZ=0.1 WR", {2.0: 15.0, 1.0: 32.0, 0.0: 49.0, -1.0: 73.0, -2.0: 72.0}, "%"),
        ("ΔZ=0.1 Avg. z", {2.0: 1.02, 1.0: 0.75, 0.0: -0.21, -1.0: -0.66, -2.0: -0.96}, ""),
        ("ΔZ=0.1 Std. z", {2.0: 0.94, 1.0: 0.90, 0.0: 0.81, -1.0: 0.84, -2.0: 0.85}, ""),
    ),
}
"""The paper's Table 3 (inter) and Table 4 (intra) rows by opponent z (ELF OpenGo, Go), shown
beside the measured rows for SA opponents at those z."""


def _pct(win: WinRate | None) -> str:
    if win is None or win.rate is None:
        return "-"
    return f"{100 * win.rate:.1f}% (±{100 * (win.ci95 or 0.0):.1f}%)"


def _num(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _moments(m: Moments, digits: int = 2) -> tuple[str, str]:
    infinite = []
    if m.plus_inf:
        infinite.append(f"{m.plus_inf}×+inf")
    if m.minus_inf:
        infinite.append(f"{m.minus_inf}×-inf")
    note = f" ({', '.join(infinite)} left out)" if infinite else ""
    return _num(m.mean, digits) + note, _num(m.sd, digits)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "| --- |" + " ---: |" * (len(header) - 1)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def adaptive_table(result: AdaptResult, stats: AdaptiveStats) -> str:
    """The Table 3 (inter-game) or Table 4 (intra-game) analogue of one adaptive player:
    one column per opponent."""
    k = result.config.settle
    header = ["", *(c.label for c in stats.cells)]
    rows: list[list[str]] = []
    if result.baseline is not None:
        rows.append([f"w/o DSA WR ({result.baseline_label})", *map(_pct, result.baseline)])
        rows.append(
            [
                "w/o DSA W/D/L",
                *(f"{w.wins}/{w.draws}/{w.losses}" for w in result.baseline),
            ]
        )
    rows.append([f"{stats.label} WR (draws ½)", *(_pct(c.win) for c in stats.cells)])
    rows.append(["W/D/L", *(f"{c.win.wins}/{c.win.draws}/{c.win.losses}" for c in stats.cells)])
    z_all = [_moments(c.z) for c in stats.cells]
    z_late = [_moments(c.z_settled) for c in stats.cells]
    rows.append(["Avg. z (all games)", *(m for m, _ in z_all)])
    rows.append(["Std. z (all games)", *(s for _, s in z_all)])
    rows.append([f"Avg. z (games > {k})", *(m for m, _ in z_late)])
    rows.append([f"Std. z (games > {k})", *(s for _, s in z_late)])
    opp_z = [opponent_z(c.opponent) for c in stats.cells]
    if any(z is not None for z in opp_z):
        rows.append(["opponent z", *(_num(z) for z in opp_z)])
    elo_all = [_moments(c.elo, 0) for c in stats.cells]
    rows.append(["Avg. Elo played", *(m for m, _ in elo_all)])
    rows.append(["Std. Elo played", *(s for _, s in elo_all)])
    rows.append(
        [
            "final estimate of opp. Elo (mean ± sd over repeats)",
            *(
                f"{_num(c.estimate_final.mean, 0)} ± {_num(c.estimate_final.sd, 0)}"
                for c in stats.cells
            ),
        ]
    )
    if any(c.ladder_elo is not None for c in stats.cells):
        rows.append(["opponent ladder Elo", *(_num(c.ladder_elo, 0) for c in stats.cells)])
    rows.append(["games", *(str(c.win.games) for c in stats.cells)])
    if any(z in PAPER_WITHOUT_DSA for z in opp_z):

        def paper(values: dict[float, float], unit: str) -> list[str]:
            return [
                "-" if z is None or z not in values else f"{values[z]:.{1 if unit else 2}f}{unit}"
                for z in opp_z
            ]

        rows.append(["*paper (Go): w/o DSA WR*", *paper(PAPER_WITHOUT_DSA, "%")])
        for name, values, unit in PAPER_ROWS["intra" if stats.intra else "inter"]:
            rows.append([f"*paper (Go): {name}*", *paper(values, unit)])
    return _table(header, rows)


def _wld(win: WinRate | None) -> str:
    """A cell of the win / loss / draw tables: the three shares, ✓ when balanced."""
    shares = None if win is None else win.shares
    if win is None or shares is None:
        return "-"
    return "/".join(f"{x:.2f}" for x in shares) + (" ✓" if win.balanced else "")


PAPER_GAMES_PER_SIDE = 50
"""Games per side and opponent behind the paper's Tables 5-13."""


def paper_win_rate(game: str, side: str, kind: str, opponent: str) -> WinRate | None:
    """The paper's result of AlphaDDA ``kind`` against ``opponent`` (the paper's name) as
    counts: rates times the 50 games per side (exact: the paper's side rates are multiples of
    0.02), ``all`` the sum of both sides; None when the paper has no such entry."""
    tables = PAPER_TABLES.get(game)
    if tables is None or side not in SIDES:
        return None
    if side == "all":
        first = paper_win_rate(game, "first", kind, opponent)
        second = paper_win_rate(game, "second", kind, opponent)
        return None if first is None or second is None else first + second
    row = tables["first" if side == "first" else "second"].get(kind, {}).get(opponent)
    if row is None:
        return None
    wins, losses, draws = (round(x * PAPER_GAMES_PER_SIDE) for x in row)
    return WinRate(PAPER_GAMES_PER_SIDE, wins, draws, losses)


def _pick(pair: tuple[WinRate, WinRate], side: str) -> WinRate:
    """The score over ``side`` from a ``(as_first, as_second)`` pair."""
    first, second = pair
    return first + second if side == "all" else first if side == "first" else second


def wld_row(
    label: str, sides: Sequence[tuple[WinRate, WinRate] | None], side: str = "all"
) -> list[str]:
    """One row of :func:`wld_table` from one ``(as_first, as_second)`` score pair per
    opponent (None: unknown): the cells, the opponents balanced against (of those known),
    the largest ``|W - L|`` share, D of Eq. 11 (:func:`_d_metric`; over one side: that
    side's half) and per game, and the games."""
    known = [pair for pair in sides if pair is not None]
    wins = [_pick(pair, side) for pair in known]
    imbalances = [w.imbalance for w in wins if w.imbalance is not None]
    d = _d_metric(known) if side == "all" else sum(abs(w.wins - w.losses) for w in wins)
    games = sum(w.games for w in wins)
    complete = len(known) == len(sides)
    return [
        label,
        *(_wld(None if pair is None else _pick(pair, side)) for pair in sides),
        f"{sum(1 for w in wins if w.balanced)}/{len(wins)}",
        _num(max(imbalances)) if imbalances else "-",
        str(d) if complete else "-",
        f"{d / games:.2f}" if complete and games else "-",
        str(games),
    ]


def wld_table(result: AdaptResult, side: str = "all") -> str:
    """The combined win / loss / draw table (the paper's Tables 5-13 analogue for every
    adaptive player at once): rows the adaptive players (first the un-adapted baseline when
    it was played), columns the opponents, each cell the win/loss/draw shares over
    ``side``'s games (✓: balanced), then how many opponents the row is balanced against, its
    largest ``|W - L|`` share, D of Eq. 11 over all games (over one side: that side's half
    of D), D per game, and the games; below each row of a paper AlphaDDA, the paper's
    numbers (:mod:`sparring.experiments.alphadda_paper`) for the opponents the paper has."""
    total = "D (Eq. 11)" if side == "all" else "Σ\\|W-L\\| (this side)"
    header = [
        "player",
        *result.opponent_labels,
        "balanced",
        "max \\|W-L\\| share",
        total,
        "per game",
        "games",
    ]
    rows: list[list[str]] = []
    game = result.config.game
    if result.baseline_sides is not None:
        label = f"w/o adaptation: {result.baseline_label}"
        rows.append(wld_row(label, result.baseline_sides, side))
    numbers: dict[str, int] = {k: v for k, v in PAPER_TABLE_NUMBER.get(game, {}).items()}
    for stats in result.stats:
        rows.append(wld_row(stats.label, [(c.first, c.second) for c in stats.cells], side))
        kind = paper_kind(stats.spec, game)
        if kind is None or not numbers:
            continue
        paper: list[tuple[WinRate, WinRate] | None] = []
        for cell in stats.cells:
            name = paper_opponent(cell.opponent)
            first = None if name is None else paper_win_rate(game, "first", kind, name)
            second = None if name is None else paper_win_rate(game, "second", kind, name)
            paper.append(None if first is None or second is None else (first, second))
        if any(pair is not None for pair in paper):
            rows.append(wld_row(f"*paper, Table {numbers[side]}: AlphaDDA{kind[-1]}*", paper, side))
    return _table(header, rows)


def seconds_table(result: AdaptResult) -> str:
    """Mean seconds per game (both players' think time; the adaptive player's own in
    brackets): rows the adaptive players, columns the opponents."""
    header = ["player", *result.opponent_labels, "all opponents"]
    lines: list[tuple[str, list[tuple[Moments, Moments]]]] = []
    if result.baseline_seconds is not None:
        lines.append((f"w/o adaptation: {result.baseline_label}", list(result.baseline_seconds)))
    for stats in result.stats:
        lines.append((stats.label, [(c.seconds, c.own_seconds) for c in stats.cells]))
    rows = []
    for label, cells in lines:
        row = [label]
        for both, own in cells:
            if both.mean is None or own.mean is None:
                row.append("-")
            else:
                row.append(f"{both.mean:.2f} ({own.mean:.2f})")
        n = sum(both.n for both, _ in cells)
        spent = sum((both.mean or 0.0) * both.n for both, _ in cells)
        row.append("-" if n == 0 else f"{spent / n:.2f}")
        rows.append(row)
    return _table(header, rows)


def within_table(result: AdaptResult) -> str | None:
    """Games until the estimate stays within ``within`` Elo of the ladder Elo: adaptive player
    x opponent (mean and max over the repeats that got there, and how many did)."""
    if result.config.opponent_elos is None:
        return None
    header = ["estimator", *result.opponent_labels]
    rows = []
    for stats in result.stats:
        row = [stats.label]
        for cell in stats.cells:
            if cell.until_within is None:
                row.append("-")
                continue
            reached = [n for n in cell.until_within if n is not None]
            total = len(cell.until_within)
            if not reached:
                row.append(f"never (0/{total})")
            else:
                row.append(f"{np.mean(reached):.1f} (max {max(reached)}, {len(reached)}/{total})")
        rows.append(row)
    return _table(header, rows)


def report_markdown(
    result: AdaptResult, command: str | None = None, note: str | None = None
) -> str:
    """The markdown report (see the module docstring for every definition); ``note`` is a
    paragraph put first (e.g. "smoke run")."""
    c = result.config
    lines = [f"# Dynamic strength adjustment on {c.game}", ""]
    if note:
        lines += [f"**{note}**", ""]
    if command:
        lines += ["Command:", "", "```", command, "```", ""]
    status = "complete" if result.complete else "INCOMPLETE (partial results)"
    baseline = (
        f'Baseline ("w/o DSA"): `{c.baseline_spec}`, {c.baseline_match_games} games per opponent.'
        if c.baseline_match_games
        else "No baseline games."
    )
    lines += [
        f"{c.games} games per series, {c.repeats} series per opponent, seed {c.seed}; "
        f"{result.stored} of {result.expected} games stored ({status}). The adaptive player "
        f"moves first in the even-numbered games of each series. {baseline}",
        "",
        "Adaptive players: "
        + ", ".join(f"{s.label} (`{s.spec}`)" for s in result.stats)
        + ". Opponents: "
        + ", ".join(
            f"{lab} (`{s}`)" for lab, s in zip(result.opponent_labels, c.opponents, strict=True)
        )
        + ".",
        "",
        "## Win / loss / draw by opponent (Tables 5-13 analogue)",
        "",
        "Each cell: the adaptive player's win / loss / draw shares against the opponent "
        f"(the paper's order); ✓: balanced, |wins - losses| <= {BALANCED_SHARE:g} of the "
        "games. Per row: the opponents it is balanced against, its largest |W - L| share, "
        "and D of Eq. 11 (Fujita 2022: the sum over the opponents of |wins - losses| as "
        "first player plus |wins - losses| as second player; 0 is perfect) or, over one "
        "side, that side's half of D. Italic rows: the paper's numbers for the same AlphaDDA "
        f"at its Table 1-3 setting (counts: rates x {PAPER_GAMES_PER_SIDE} games per side).",
        "",
    ]
    for side, title in (
        ("all", "All games (Tables 5, 8, 11)"),
        ("first", "As first player (Tables 6, 9, 12)"),
        ("second", "As second player (Tables 7, 10, 13)"),
    ):
        lines += [f"### {title}", "", wld_table(result, side), ""]
    lines += [
        "### Seconds per game",
        "",
        "Mean seconds per game, both players' think time (the adaptive player's own in "
        "brackets); games ran in parallel on shared cores, so these are upper bounds of the "
        "cost on an idle core.",
        "",
        seconds_table(result),
        "",
    ]
    dsa_players = [stats for stats in result.stats if stats.dsa_tables]
    if dsa_players:
        lines += [
            "## The DSA tables (every adaptive player but AlphaDDA)",
            "",
        ]
    lines += (
        [
            "WR: the adaptive player's mean score, draws counted half, ± the 95% normal interval "
            "(1.96 sd/sqrt(n) of the per-game scores). A game's z is the z on the adaptive "
            "player's last move of the game (inter-game: the z it played; intra-game: the paper's "
            "end-of-game z); averages over all games of all series (the paper's Table 3 and 4), "
            f"and over the games after the first {c.settle}. The estimate of the opponent after "
            "a game is the player's saved opponent_elo (its Elo played next where it keeps none).",
            "",
        ]
        if dsa_players
        else []
    )
    for stats in dsa_players:
        kind = "Table 4 analogue (intra-game)" if stats.intra else "Table 3 analogue (inter-game)"
        lines += [f"## {stats.label}: {kind}", "", f"Spec: `{stats.spec}`", ""]
        lines += [adaptive_table(result, stats), ""]
        order = " > ".join(stats.cells[i].label for i in stats.order)
        sep_z = stats.separation_z
        sep_e = stats.separation_estimate
        lines += [
            f"Separation (expected order by {stats.order_rule}: {order}): the mean z lines "
            "(mean over the series of each game's z) are strictly in this order"
            + (f" with gaps >= {c.separation_margin:g}" if c.separation_margin else "")
            + (
                f" from game {sep_z} on (through game {c.games})"
                if sep_z is not None
                else " not at the last game (never separated)"
            )
            + "; the mean estimated-opponent-Elo lines "
            + (f"from game {sep_e} on." if sep_e is not None else "not at the last game."),
            "",
        ]
    table = within_table(result)
    if table is not None:
        lines += [
            f"## Games until the estimate stays within {c.within:g} Elo of the ladder Elo",
            "",
            "Per series: the first game after which the estimate of the opponent's Elo stays "
            f"within {c.within:g} Elo through game {c.games}; mean and max over the series "
            "that got there, and how many did.",
            "",
            table,
            "",
        ]
    if dsa_players:
        lines += [f"Figure: [{FILES['plot']}]({FILES['plot']}) (Fig. 5 analogue).", ""]
    if any(cell.traces for stats in result.stats for cell in stats.cells):
        lines += [
            f"Figure: [{FILES['traces']}]({FILES['traces']}) (the paper's appendix 6 figures): "
            f"per AlphaDDA player and opponent, up to {c.trace_games} example games (the "
            "first ones stored, alternately as first and as second player): the mean value "
            "v̄_n c and the value v_n c from the player's own side (c its colour; +1: it is "
            "winning) and the parameter it set, against the turn (ply) of the game.",
            "",
        ]
    return "\n".join(lines)


Z_LINEAR = 3.0
"""The z panels of :func:`plot_adapt` are linear within +-Z_LINEAR (the range of the
inter-game DSA's z, ``z_min``/``z_max`` -3 and 3 by default) and logarithmic beyond, when
:func:`z_axis_symlog` says so."""


def z_axis_symlog(values: np.ndarray) -> bool:
    """Whether a z panel needs a symmetric-log axis: some finite value beyond
    ``2 * Z_LINEAR``.  The Elo-space modes (``elo-inter``, ``elo-intra``, ``bayes``) turn a
    target Elo into z on the calibration's compactified axis
    (:mod:`sparring.strength.target`: between the weakest finite z calibrated and z = -inf,
    ``z = z_lo - s / (1 - s)``), so a target near the ``-inf`` end plays z in the hundreds,
    as weak as ``-inf``; on a linear axis one such game flattens every other line."""
    finite = np.asarray(values, dtype=float)
    finite = finite[np.isfinite(finite)]
    return bool(finite.size) and float(np.abs(finite).max()) > 2 * Z_LINEAR


def plot_adapt(result: AdaptResult, path: Path) -> Path:
    """The Fig. 5 analogue: per DSA player (a row; AlphaDDA players have no z and no Elo
    estimate, their figure is :func:`plot_traces`), the game's z (left) and the estimate of
    the opponent's Elo (right) against the game number, one line per opponent, mean over the
    series with a +-1 sd band (finite values only); dashed: the opponent's z / ladder Elo.
    A z panel with z far beyond the calibrated range is drawn on a symmetric-log axis
    (:func:`z_axis_symlog`)."""
    from sparring.errors import require_extra

    require_extra("matplotlib", "research", "the adaptation report's figures")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    players = [stats for stats in result.stats if stats.dsa_tables]
    figure = Figure(figsize=(12, 4.2 * max(len(players), 1)), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(max(len(players), 1), 2, squeeze=False)
    x = np.arange(1, result.config.games + 1)
    colours = [f"C{i}" for i in range(10)]
    for row, stats in enumerate(players):
        for col, (attr, ylabel) in enumerate(
            (("z_lines", "z of the game"), ("estimate_lines", "estimated opponent Elo"))
        ):
            ax = axes[row][col]
            drawn = []
            for i, cell in enumerate(stats.cells):
                colour = colours[i % len(colours)]
                mean, sd = _nan_mean_sd(getattr(cell, attr))
                m = np.array([np.nan if v is None else v for v in mean])
                s = np.array([np.nan if v is None else v for v in sd])
                drawn += [m - s, m + s]
                ax.plot(x, m, color=colour, label=cell.label, linewidth=1.4)
                ax.fill_between(x, m - s, m + s, color=colour, alpha=0.15, linewidth=0)
                target = opponent_z(cell.opponent) if col == 0 else cell.ladder_elo
                if target is not None and math.isfinite(target):
                    ax.axhline(target, color=colour, linestyle="--", linewidth=0.8)
            if col == 0 and drawn and z_axis_symlog(np.concatenate(drawn)):
                ax.set_yscale("symlog", linthresh=Z_LINEAR)
                ylabel = f"{ylabel} (log beyond ±{Z_LINEAR:g})"
            ax.set_xlabel("game")
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_ylabel(ylabel)
            ax.set_title(f"{stats.label} ({stats.mode})", fontsize=10)
            ax.grid(alpha=0.3)
            if col == 0:
                ax.legend(fontsize=8, title="opponent", title_fontsize=8)
    figure.suptitle(
        f"{result.config.game}: dynamic strength adjustment, mean over "
        f"{result.config.repeats} series (band: ±1 sd)",
        fontsize=11,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    return path


def plot_traces(result: AdaptResult, path: Path) -> Path | None:
    """The paper's appendix 6 figures: for every adaptive player with traces (AlphaDDA) two
    rows of panels, one column per opponent: the mean value ``vbar_n c`` (solid) and the
    value ``v_n c`` (dotted) from the player's own side against the turn, and the parameter
    it set (AlphaDDA1's ``N_sim``, AlphaDDA2's ``P_drop``, AlphaDDA3's ``C``; the floor level
    dashed on a right axis with ``floor=on``), one colour per example game.  None (no file)
    when no adaptive player has traces."""
    from sparring.errors import require_extra

    require_extra("matplotlib", "research", "the adaptation report's figures")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter

    players = [s for s in result.stats if any(c.traces for c in s.cells)]
    if not players:
        return None
    columns = len(result.opponent_labels)
    height = 2.6 * 2 * len(players)
    figure = Figure(figsize=(3.3 * columns, height))
    FigureCanvasAgg(figure)
    axes = figure.subplots(2 * len(players), columns, squeeze=False)
    for block, stats in enumerate(players):
        for col, cell in enumerate(stats.cells):
            top, bottom = axes[2 * block][col], axes[2 * block + 1][col]
            twin = None
            for i, trace in enumerate(cell.traces):
                colour = f"C{i % 10}"
                c = trace.colour
                side = "1st" if trace.a_first else "2nd"
                outcome = {1.0: "won", 0.5: "drew", 0.0: "lost"}[trace.score]
                label = f"s{trace.series} g{trace.game_index} ({side}, {outcome})"
                x = np.array(trace.turns)
                top.plot(
                    x, c * np.array(trace.vbar), color=colour, marker=".", markersize=3, label=label
                )
                v = np.array([np.nan if u is None else c * u for u in trace.v])
                top.plot(x, v, color=colour, linestyle=":", linewidth=0.9)
                values = np.array([np.nan if u is None else u for u in trace.values])
                bottom.plot(x, values, color=colour, marker=".", markersize=3)
                if trace.floor is not None:
                    twin = twin or bottom.twinx()
                    floor = np.array([np.nan if u is None else u for u in trace.floor])
                    twin.plot(x, floor, color=colour, linestyle="--", linewidth=0.9)
            parameter = next((t.parameter for t in cell.traces if t.parameter), None)
            top.set_ylim(-1.05, 1.05)
            top.axhline(0.0, color="grey", linewidth=0.6)
            top.set_title(f"{stats.label} vs {cell.label}", fontsize=9)
            bottom.set_xlabel("turn")
            if parameter == "sims":
                bottom.set_yscale("log")  # labelled 10, 20, 50, 100, 200, 500 ...
                bottom.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
                bottom.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
                bottom.yaxis.set_minor_formatter(NullFormatter())
            if twin is not None:
                twin.set_ylabel("floor level (dashed)", fontsize=8)
            for ax in (top, bottom):
                ax.xaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
                ax.grid(alpha=0.3)
            if col == 0:
                top.set_ylabel("v̄_n c (solid), v_n c (dotted)", fontsize=8)
                bottom.set_ylabel(parameter or "parameter", fontsize=8)
            if cell.traces:
                top.legend(fontsize=6, loc="lower left")
    figure.suptitle(
        f"{result.config.game}: per-move value signal and parameter of example games "
        "(own side: +1 = the adaptive player is winning)",
        fontsize=11,
    )
    figure.tight_layout(rect=(0, 0, 1, 1 - 0.5 / height))
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=64)
    return path


def _clean(value: Any) -> Any:
    """Non-finite floats as strings, for strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def write_report(
    result: AdaptResult, out: Path, command: str | None = None, note: str | None = None
) -> dict[str, Path]:
    """Write ``report.md``, ``results.json``, ``adapt.png`` (when some adaptive player is
    not an AlphaDDA) and ``traces.png`` (when some has traces) into ``out``; returns the paths
    written."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {key: out / name for key, name in FILES.items()}
    paths["report"].write_text(report_markdown(result, command, note))
    data = _clean(result.to_json())
    data["timing"] = _clean(result.timing_json())
    if command:
        data["command"] = command
    if note:
        data["note"] = note
    paths["results"].write_text(json.dumps(data, indent=1, allow_nan=False) + "\n")
    if any(stats.dsa_tables for stats in result.stats):
        plot_adapt(result, paths["plot"])
    else:
        del paths["plot"]
    if plot_traces(result, paths["traces"]) is None:
        del paths["traces"]
    return paths
