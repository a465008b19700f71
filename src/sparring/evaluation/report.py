"""Tables and plots of match and tournament results, in the AlphaDDA formats.

* Win/loss/draw rates per ordered player pair, for the row player as first player, as second
  player and overall (AlphaDDA Tables 5-13 report these three views): :func:`pair_stats`,
  shown by :func:`wld_rich_table` / :func:`wld_markdown` (one row per pair).
* Elo ratings (maximum likelihood with a confidence interval, and optionally the AlphaDDA K=8
  ratings): :func:`elo_rich_table`, :func:`elo_markdown`, :func:`plot_elo`.  A player that
  lost (or won) every game has no finite maximum-likelihood rating: its cell shows the bound
  (``≤`` / ``≥``) and a footnote (:func:`perfect_record_notes`) says the interval means nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from rich.table import Table

from sparring.evaluation.ratings import EloFit
from sparring.evaluation.store import GameRecord

Role = Literal["overall", "first", "second"]
"""Which games of a pair a win/loss/draw count covers: all, or those the row player began
(``first``) or answered (``second``)."""


@dataclass(frozen=True)
class WLD:
    """Wins, losses and draws of one player in some set of games."""

    wins: int = 0
    losses: int = 0
    draws: int = 0

    @property
    def games(self) -> int:
        """Number of games."""
        return self.wins + self.losses + self.draws

    @property
    def score(self) -> float:
        """Points: wins plus half the draws."""
        return self.wins + 0.5 * self.draws

    def rates(self) -> tuple[float, float, float]:
        """(win, loss, draw) rates; zeros when there are no games."""
        n = self.games
        if n == 0:
            return (0.0, 0.0, 0.0)
        return (self.wins / n, self.losses / n, self.draws / n)

    def add(self, score: float) -> WLD:
        """This count with one more game in which the player scored ``score``."""
        if score == 1.0:
            return WLD(self.wins + 1, self.losses, self.draws)
        if score == 0.0:
            return WLD(self.wins, self.losses + 1, self.draws)
        return WLD(self.wins, self.losses, self.draws + 1)


@dataclass(frozen=True)
class PairStats:
    """Results of ``player`` against ``opponent``: as first player, as second, and overall."""

    player: str
    opponent: str
    first: WLD
    second: WLD

    @property
    def overall(self) -> WLD:
        """All games of the pair, from ``player``'s side."""
        return WLD(
            self.first.wins + self.second.wins,
            self.first.losses + self.second.losses,
            self.first.draws + self.second.draws,
        )

    def role(self, role: Role) -> WLD:
        """The count for ``role``."""
        return self.overall if role == "overall" else self.first if role == "first" else self.second


def pair_stats(records: Iterable[GameRecord]) -> list[PairStats]:
    """Win/loss/draw counts for every ordered pair of players that met, both directions.

    Players are identified by label; pairs appear in order of first appearance, each pair
    ``(a, b)`` followed by ``(b, a)``.
    """
    counts: dict[tuple[str, str], list[WLD]] = {}
    for r in records:
        for me, other, my_score, i_first in (
            (r.label_a, r.label_b, r.score_a, r.a_first),
            (r.label_b, r.label_a, r.score_b, not r.a_first),
        ):
            first_second = counts.setdefault((me, other), [WLD(), WLD()])
            slot = 0 if i_first else 1
            first_second[slot] = first_second[slot].add(my_score)
    return [PairStats(p, o, f, s) for (p, o), (f, s) in counts.items()]


def _rate_cells(wld: WLD) -> list[str]:
    return [f"{rate:.2f}" for rate in wld.rates()]


_WLD_HEADER = [
    "Player",
    "Opponent",
    "1st win",
    "1st loss",
    "1st draw",
    "2nd win",
    "2nd loss",
    "2nd draw",
    "win",
    "loss",
    "draw",
    "games",
]


def _wld_rows(stats: Sequence[PairStats]) -> list[list[str]]:
    return [
        [
            s.player,
            s.opponent,
            *_rate_cells(s.first),
            *_rate_cells(s.second),
            *_rate_cells(s.overall),
            f"{s.overall.games} ({s.first.games}+{s.second.games})",
        ]
        for s in stats
    ]


def wld_rich_table(stats: Sequence[PairStats], title: str = "Win/loss/draw rates") -> Table:
    """A rich table: one row per ordered pair with the row player's win, loss and draw rates
    as first player, as second player and overall (each cell ``win loss draw``), and the
    number of games."""
    table = Table(title=title)
    table.add_column("Player")
    table.add_column("Opponent")
    for role in ("as first", "as second", "overall"):
        table.add_column(f"{role}\nwin loss draw", justify="right")
    table.add_column("games", justify="right")
    for s in stats:
        table.add_row(
            s.player,
            s.opponent,
            *(" ".join(_rate_cells(wld)) for wld in (s.first, s.second, s.overall)),
            str(s.overall.games),
        )
    return table


def _markdown(header: Sequence[str], rows: Sequence[Sequence[str]], right_from: int) -> str:
    align = ["---" if i < right_from else "---:" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def wld_markdown(stats: Sequence[PairStats]) -> str:
    """The table of :func:`wld_rich_table` as GitHub markdown."""
    return _markdown(_WLD_HEADER, _wld_rows(stats), right_from=2)


def _perfect(fit: EloFit, i: int) -> str | None:
    """``"lost"`` or ``"won"`` when player ``i`` played and lost (won) every game, else None."""
    games = int(fit.games[i])
    if games == 0:
        return None
    if fit.points[i] == 0:
        return "lost"
    if fit.points[i] == games:
        return "won"
    return None


def perfect_record_notes(fit: EloFit) -> list[str]:
    """One footnote per player that lost (or won) every game it played.

    Such a record has no finite maximum-likelihood rating (the likelihood keeps rising as the
    player's rating falls, or rises); only the fit's virtual draws
    (:attr:`~sparring.evaluation.ratings.EloFit.prior_draws`) keep it finite, so the rating is
    only an upper (lower) bound and its Wald interval (often hundreds or thousands of Elo)
    says nothing.  When that player is the anchor, it is the other players' ratings that are
    only bounds; that note is left out when every other player has a note of its own.
    """
    notes = []
    flagged = {i for i in range(len(fit.names)) if _perfect(fit, i) is not None}
    anchor = fit.names.index(fit.anchor.name) if fit.anchor.name in fit.names else -1
    for i in fit.ranking():
        kind = _perfect(fit, i)
        if kind is None:
            continue
        name, games = fit.names[i], int(fit.games[i])
        if i == anchor:
            if flagged >= set(range(len(fit.names))):
                continue
            bound = "lower" if kind == "lost" else "upper"
            notes.append(
                f"{name} (the anchor) {kind} every game ({games}): the other players' ratings "
                f"are only {bound} bounds, and their intervals are not meaningful."
            )
            continue
        bound, side = ("an upper", "weaker") if kind == "lost" else ("a lower", "stronger")
        notes.append(
            f"{name} {kind} every game ({games}): its rating is only {bound} bound (the games "
            f"cannot say how much {side} it is; the fit's {fit.prior_draws:g} virtual draws per "
            "pair keep it finite), and its interval is not meaningful."
        )
    return notes


def _elo_rows(fit: EloFit, k8: Mapping[str, float] | None) -> list[list[str]]:
    rows = []
    half = fit.half_width
    anchor = fit.anchor.name
    for i in fit.ranking():
        name = fit.names[i]
        games = int(fit.games[i])
        score = f"{fit.points[i]:g}/{games} ({fit.points[i] / games:.0%})" if games else "0/0"
        kind = _perfect(fit, i) if name != anchor else None
        bound = {"lost": "≤", "won": "≥", None: ""}[kind]
        row = [
            name,
            f"{bound}{fit.ratings[i]:.0f}",
            f"-{half[i]:.0f}",
            f"+{half[i]:.0f}",
            str(games),
            score,
        ]
        if k8 is not None:
            row.append(f"{k8[name]:.0f}" if name in k8 else "")
        rows.append(row)
    return rows


def _elo_header(fit: EloFit, k8: Mapping[str, float] | None) -> list[str]:
    ci = f"{fit.confidence:.0%}"
    header = ["Player", "Elo", f"-{ci}", f"+{ci}", "games", "score"]
    if k8 is not None:
        header.append("K=8 Elo")
    return header


def _elo_caption(fit: EloFit) -> str:
    caption = f"maximum likelihood, {fit.anchor.name} anchored at {fit.anchor.elo:g}"
    if fit.first_move_advantage is not None and fit.first_move_advantage_stderr is not None:
        caption += (
            f"; first-move advantage {fit.first_move_advantage:+.0f}"
            f" ± {fit.first_move_advantage_stderr:.0f} Elo (s.e.)"
        )
    return caption


def elo_rich_table(
    fit: EloFit, k8: Mapping[str, float] | None = None, title: str = "Elo ratings"
) -> Table:
    """A rich table of the maximum-likelihood ratings, strongest first: rating, the -/+ ends
    of the confidence interval relative to it, games, score, and (if given) the AlphaDDA
    K=8 rating of each player."""
    notes = perfect_record_notes(fit)
    table = Table(
        title=title,
        caption="\n".join([_elo_caption(fit), *notes]),
        caption_justify="left" if notes else "center",
    )
    for i, name in enumerate(_elo_header(fit, k8)):
        table.add_column(name, justify="left" if i == 0 else "right")
    for row in _elo_rows(fit, k8):
        table.add_row(*row)
    return table


def elo_markdown(fit: EloFit, k8: Mapping[str, float] | None = None) -> str:
    """The table of :func:`elo_rich_table` as GitHub markdown, with its caption and the
    notes of :func:`perfect_record_notes` below."""
    notes = "".join(f"\n* {note}" for note in perfect_record_notes(fit))
    return _markdown(_elo_header(fit, k8), _elo_rows(fit, k8), right_from=1) + (
        f"\n_{_elo_caption(fit)}_\n" + (f"{notes}\n" if notes else "")
    )


def plot_elo(
    fit: EloFit,
    path: str | Path,
    *,
    k8: Mapping[str, float] | None = None,
    title: str = "Elo ratings",
) -> Path:
    """Save a PNG of each player's rating with its confidence interval as an error bar
    (strongest first), plus the K=8 ratings as crosses if given.  Uses matplotlib's Agg
    backend (no display needed).  Returns the path written."""
    from sparring.errors import require_extra

    require_extra("matplotlib", "research", "--plot")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    order = fit.ranking()
    names = [fit.names[i] for i in order]
    figure = Figure(figsize=(max(4.0, 1.0 + 0.8 * len(names)), 4.0), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    xs = list(range(len(names)))
    axes.errorbar(
        xs,
        fit.ratings[order],
        yerr=fit.half_width[order],
        fmt="o",
        capsize=4,
        label=f"maximum likelihood ({fit.confidence:.0%} CI)",
    )
    if k8 is not None:
        axes.plot(
            [x for x, n in zip(xs, names, strict=True) if n in k8],
            [k8[n] for n in names if n in k8],
            "x",
            label="AlphaDDA K=8",
        )
    axes.set_xticks(xs, names, rotation=30, ha="right")
    axes.set_ylabel("Elo")
    axes.set_title(title)
    axes.grid(axis="y", alpha=0.3)
    axes.legend()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, dpi=120)
    return out


def report_markdown(
    title: str,
    records: Sequence[GameRecord],
    fit: EloFit,
    k8: Mapping[str, float] | None = None,
) -> str:
    """A complete markdown report: Elo table and the win/loss/draw table."""
    return (
        f"# {title}\n\n## Elo ratings\n\n{elo_markdown(fit, k8)}\n"
        f"## Win/loss/draw rates ({len(records)} games)\n\n"
        "Rates of the row player: as first player (1st), as second player (2nd), overall.\n\n"
        f"{wld_markdown(pair_stats(records))}"
    )
