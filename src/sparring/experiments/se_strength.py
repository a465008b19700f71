"""Strength by rank (Chen, Shih & Wu, ICLR 2025, section 4.3, Fig. 4 / Fig. 7, appendix C,
Table 4 and Table 5): rank-conditioned programs playing each other, stored and resumable.

``sparring se-strength GAME --out DIR`` has three modes (:data:`MODES`):

``anchor`` (default; Fig. 4 and Fig. 7)
    For each rank ``r`` of :attr:`SEStrengthConfig.ranks` and each program template ``P``,
    ``P`` with ``{rank}`` = ``r`` plays ``games`` games against the *anchor*: the anchor
    template (default: the first program template) with ``{rank}`` = the middle rank
    (:data:`MIDDLE_RANK`: Go ``5d`` = ``r_5``, chess ``1800-2000`` = ``r_4``), colours
    alternating.  Reported per rank: W/L/D, the program's win rate (a draw counts half) and
    its 95% Wilson interval, and whether the rates *fall monotonically within the CIs*
    (:func:`monotone_within_ci`: some non-increasing curve from the strongest rank to the
    weakest passes through every interval).
``round-robin`` (Table 5)
    Every player ``P(r)`` (each template at each rank, default ranks :func:`round_robin_ranks`:
    ``r_2, r_4, r_6, r_8, r_10`` = Go ``8d, 6d, 4d, 2d, 1-2k``; chess has 8 bands, so
    ``r_2, r_4, r_6, r_8`` = ``2200-2400, 1800-2000, 1400-1600, 1000-1200``) plays every
    other ``games`` games; the pairwise win rates and maximum-likelihood Elo ratings
    (:func:`sparring.evaluation.ratings.fit_elo`, the first player anchored at 1500, the
    paper's start value) are reported, with whether each template's Elo falls with its rank.
``z-fit`` (appendix C, Table 4)
    SA-MCTS's ``z`` per rank: for each rank ``r`` and each ``z`` of :attr:`SEStrengthConfig.
    z_grid`, the program template (default ``sa-mcts:z={z}``) plays the anchor template
    with ``{rank}`` = ``r`` (default ``se-inf-mcts:rank={rank}``).  The program's score
    against ``z`` is fitted by a logistic curve (:func:`fit_logistic`, maximum likelihood,
    draws half) and the ``z`` where it crosses 50% is that rank's ``z``
    (:func:`z_at_half`); ``ztable.json`` (:class:`~sparring.players.human_mcts.ZTable`)
    then makes ``sa-mcts:rank=R,ztable=DIR/ztable.json`` play SA-MCTS with that ``z``.

Ranks are named by their labels (``3d``, ``1-2k``, ``1400-1600``, also ``2k``, ``4k``) or
by their index ``rI`` (``r1`` the strongest: Go ``r1`` = 9d ... ``r11`` = 3-5k, chess ``r1`` =
2400-2600 ... ``r8`` = 1000-1200), or ``all``; :func:`parse_ranks` sorts them strongest first.

Games are those of the series runner (:mod:`sparring.evaluation.series`): every pairing is a
run of ``games / 2`` series of 2 games (one with each colour), all pairings' series in one
pool of ``workers`` processes, each game stored in the game store (``DIR/games.sqlite``) as
it ends.  A pairing's key is its two specs and the seed, and game ``i`` of series ``s`` has
a seed that depends on neither the number of games nor of workers, so a killed run resumes
without replaying a finished game, and a run with more games extends one with fewer.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

import numpy as np
import numpy.typing as npt
from rich.console import Console

from sparring.errors import ConfigError, SparringError
from sparring.estimation.heldout import wilson_interval
from sparring.evaluation.backend import Backend
from sparring.evaluation.match import _check_int, _config_from_mapping
from sparring.evaluation.ratings import Anchor, EloFit, GameResults, fit_elo
from sparring.evaluation.series import SeriesConfig, SeriesResult, run_series_set
from sparring.evaluation.store import GameRecord, GameStore
from sparring.players.human_like import GAMES, game_ranks, normalise_rank
from sparring.players.human_mcts import ZTable
from sparring.rundir import atomic_savefig, atomic_write

MODES = ("anchor", "round-robin", "z-fit")
"""The modes of :class:`SEStrengthConfig` (see the module doc)."""
MIDDLE_RANK = {"go": "5d", "chess": "1800-2000"}
"""The anchor's rank (the paper's baseline SE-inf-MCTS_5; chess: the middle band, r_4)."""
DEFAULT_PROGRAMS = {
    "anchor": ("se-inf-mcts:rank={rank}",),
    "round-robin": ("se-inf-mcts:rank={rank}",),
    "z-fit": ("sa-mcts:z={z}",),
}
"""Program templates of each mode when none is given."""
DEFAULT_ZFIT_ANCHOR = "se-inf-mcts:rank={rank}"
"""The z-fit opponent template when none is given (SE-inf-MCTS_i, appendix C)."""
DEFAULT_Z_GRID = (-1.0, -0.5, 0.0, 0.5, 1.0)
"""The z grid of the z-fit mode when none is given (the paper's Table 4 spans -1 .. 0.6)."""
ELO_START = 1500.0
"""The rating of the round robin's anchored (first) player: the paper's start rating."""
STORE_NAME = "games.sqlite"
"""The game store in the output directory."""
FILES = {"report": "report.md", "results": "results.json", "plot": "plot.png"}
"""The files :func:`write_report` writes (and ``ztable.json`` in the z-fit mode)."""
ZTABLE_NAME = "ztable.json"
"""The z-per-rank table the z-fit mode writes."""
GAMES_PER_SERIES = 2
"""Games per series: one with each colour (see the module doc)."""

_RANK_INDEX = re.compile(r"r(\d+)")


# ---- ranks and templates ---------------------------------------------------------------------
def parse_ranks(game: str, items: Sequence[str] | str) -> tuple[str, ...]:
    """The ranks named by ``items`` (labels, ``rI`` indices or ``all``; a string is split at
    commas), strongest first.  :class:`ConfigError` (one line) for an unknown rank, a rank of
    the other game, a repeat or an empty list."""
    if game not in GAMES:
        raise ConfigError(f"se-strength: game must be one of {', '.join(GAMES)}, not {game!r}")
    known = game_ranks(game)
    texts = [t.strip() for t in (items.split(",") if isinstance(items, str) else items)]
    texts = [t for t in texts if t]
    if not texts:
        raise ConfigError("se-strength: no ranks given")
    if [t.lower() for t in texts] == ["all"]:
        return known
    out: list[str] = []
    for text in texts:
        index = _RANK_INDEX.fullmatch(text.lower())
        if index is not None:
            i = int(index.group(1))
            if not 1 <= i <= len(known):
                raise ConfigError(f"rank {text!r}: {game} has ranks r1..r{len(known)}")
            rank = known[i - 1]
        else:
            try:
                rank = normalise_rank(text)
            except SparringError as exc:
                raise ConfigError(str(exc)) from None
            if rank not in known:
                raise ConfigError(f"rank {text!r} is not a {game} rank (ranks: {', '.join(known)})")
        if rank in out:
            raise ConfigError(f"rank {text!r} ({rank}) is given twice")
        out.append(rank)
    return tuple(sorted(out, key=known.index))


def round_robin_ranks(game: str) -> tuple[str, ...]:
    """The paper's Table 5 ranks ``r_2, r_4, ...`` (every second rank from the second):
    Go 8d, 6d, 4d, 2d, 1-2k; chess 2200-2400, 1800-2000, 1400-1600, 1000-1200."""
    return game_ranks(game)[1::2]


def format_z(z: float) -> str:
    """``z`` as it goes into a spec: ``format(z, 'g')`` (``0.5``, ``-1``, ``0``)."""
    return format(z, "g") if z != 0 else "0"


def fill(template: str, *, rank: str | None = None, z: float | None = None) -> str:
    """``template`` with ``{rank}`` and ``{z}`` replaced (:func:`format_z`)."""
    text = template.strip()
    if rank is not None:
        text = text.replace("{rank}", rank)
    if z is not None:
        text = text.replace("{z}", format_z(z))
    return text


# ---- configuration ---------------------------------------------------------------------------
@dataclass(frozen=True)
class SEStrengthConfig:
    """One ``se-strength`` run (see the module doc).  Invalid values raise
    :class:`~sparring.errors.ConfigError`; :meth:`from_mapping` also rejects unknown keys."""

    game: str
    """``go`` or ``chess``."""
    mode: str = "anchor"
    """One of :data:`MODES`."""
    programs: tuple[str, ...] = ()
    """Program templates (``{rank}``, z-fit: ``{z}``); () = :data:`DEFAULT_PROGRAMS`."""
    ranks: tuple[str, ...] = ()
    """Ranks (labels, strongest first); () = all (anchor, z-fit) or
    :func:`round_robin_ranks` (round robin)."""
    anchor: str | None = None
    """Anchor mode: the opponent template (``{rank}`` = :attr:`anchor_rank`; None: the first
    program); z-fit: the opponent template (``{rank}`` = each rank; None:
    :data:`DEFAULT_ZFIT_ANCHOR`).  Unused by the round robin."""
    anchor_rank: str | None = None
    """The anchor's rank (None: :data:`MIDDLE_RANK`)."""
    z_grid: tuple[float, ...] = DEFAULT_Z_GRID
    """z-fit: the ``z`` values each rank is played at (distinct, finite)."""
    games: int = 20
    """Games per pairing (even: half with each colour)."""
    seed: int = 0
    """Base seed of every pairing's games."""
    workers: int = 1
    """Worker processes."""

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise ConfigError(
                f"se-strength config: game must be one of {', '.join(GAMES)}, not {self.game!r}"
            )
        if self.mode not in MODES:
            raise ConfigError(
                f"se-strength config: mode must be one of {', '.join(MODES)}, not {self.mode!r}"
            )
        _check_int("se-strength", "games", self.games, 2)
        _check_int("se-strength", "seed", self.seed, 0)
        _check_int("se-strength", "workers", self.workers, 1)
        if self.games % 2:
            raise ConfigError("se-strength config: games must be even (both colours)")
        if self.ranks:
            object.__setattr__(self, "ranks", parse_ranks(self.game, self.ranks))
        if self.anchor_rank is not None:
            (rank,) = parse_ranks(self.game, [self.anchor_rank])
            object.__setattr__(self, "anchor_rank", rank)
        programs = self.resolved_programs()
        if len({p.strip() for p in programs}) < len(programs):
            raise ConfigError("se-strength config: a program template is given twice")
        key = "{z}" if self.mode == "z-fit" else "{rank}"
        for template in programs:
            if key not in template:
                raise ConfigError(
                    f"se-strength config: program {template!r} has no {key} to replace"
                )
        if self.mode == "z-fit":
            if len(programs) != 1:
                raise ConfigError("se-strength config: z-fit takes one program template")
            if "{rank}" not in self.resolved_anchor():
                raise ConfigError("se-strength config: the z-fit anchor needs {rank}")
            grid = tuple(float(z) for z in self.z_grid)
            if len(grid) < 2 or len(set(grid)) < len(grid):
                raise ConfigError("se-strength config: z_grid needs two or more distinct values")
            if not all(math.isfinite(z) for z in grid):
                raise ConfigError("se-strength config: z_grid values must be finite")
            object.__setattr__(self, "z_grid", tuple(sorted(grid)))
        if self.mode == "round-robin" and len(programs) * len(self.resolved_ranks()) < 2:
            raise ConfigError("se-strength config: a round robin needs two or more players")

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Self:
        """Build from a dict (e.g. results.json's ``config``); unknown keys raise
        ``ConfigError``; lists become tuples."""
        if not isinstance(data, Mapping):
            return _config_from_mapping(cls, data, "se-strength")
        converted = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
        return _config_from_mapping(cls, converted, "se-strength")

    def to_mapping(self) -> dict[str, Any]:
        """The configuration as a JSON-compatible dict (the inverse of :meth:`from_mapping`)."""
        data = dataclasses.asdict(self)
        for name in ("programs", "ranks", "z_grid"):
            data[name] = list(data[name])
        return data

    def resolved_programs(self) -> tuple[str, ...]:
        """:attr:`programs`, or the mode's defaults."""
        return tuple(p.strip() for p in self.programs) or DEFAULT_PROGRAMS[self.mode]

    def resolved_ranks(self) -> tuple[str, ...]:
        """:attr:`ranks`, or the mode's defaults."""
        if self.ranks:
            return self.ranks
        return round_robin_ranks(self.game) if self.mode == "round-robin" else game_ranks(self.game)

    def resolved_anchor_rank(self) -> str:
        """:attr:`anchor_rank` or :data:`MIDDLE_RANK`."""
        return self.anchor_rank or MIDDLE_RANK[self.game]

    def resolved_anchor(self) -> str:
        """The anchor template (see :attr:`anchor`)."""
        if self.anchor is not None:
            return self.anchor.strip()
        if self.mode == "z-fit":
            return DEFAULT_ZFIT_ANCHOR
        return self.resolved_programs()[0]

    def pairings(self) -> tuple[Pairing, ...]:
        """Every pairing the mode plays, in report order."""
        programs = self.resolved_programs()
        ranks = self.resolved_ranks()
        if self.mode == "anchor":
            anchor = fill(self.resolved_anchor(), rank=self.resolved_anchor_rank())
            return tuple(
                Pairing(p, r, None, fill(p, rank=r), anchor) for p in programs for r in ranks
            )
        if self.mode == "z-fit":
            (program,) = programs
            opponent = self.resolved_anchor()
            return tuple(
                Pairing(program, r, z, fill(program, z=z, rank=r), fill(opponent, rank=r))
                for r in ranks
                for z in self.z_grid
            )
        players = self.round_robin_players()
        return tuple(
            Pairing(a[0], a[1], None, fill(a[0], rank=a[1]), fill(b[0], rank=b[1]))
            for i, a in enumerate(players)
            for b in players[i + 1 :]
        )

    def round_robin_players(self) -> tuple[tuple[str, str], ...]:
        """``(template, rank)`` of every round-robin player, template by template."""
        return tuple((p, r) for p in self.resolved_programs() for r in self.resolved_ranks())

    def series_configs(self) -> tuple[SeriesConfig, ...]:
        """One series run per pairing: ``games / 2`` series of 2 games."""
        return tuple(
            SeriesConfig(
                game=self.game,
                spec_a=p.spec_a,
                spec_b=p.spec_b,
                games_per_series=GAMES_PER_SERIES,
                series=self.games // GAMES_PER_SERIES,
                seed=self.seed,
                workers=self.workers,
            )
            for p in self.pairings()
        )


@dataclass(frozen=True)
class Pairing:
    """Player A (a program at a rank, or at a z) against player B (the anchor, the
    opponent at that rank, or another round-robin player)."""

    program: str
    """A's template."""
    rank: str
    """A's rank (z-fit: the opponent's rank)."""
    z: float | None
    """z-fit: A's ``z``; None otherwise."""
    spec_a: str
    spec_b: str


# ---- counting --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Score:
    """A's wins, losses and draws against B in one pairing."""

    wins: int
    losses: int
    draws: int

    @classmethod
    def of(cls, records: Sequence[GameRecord]) -> Score:
        """A's score over ``records`` (games of one pairing)."""
        return cls(
            wins=sum(r.score_a == 1.0 for r in records),
            losses=sum(r.score_a == 0.0 for r in records),
            draws=sum(r.score_a == 0.5 for r in records),
        )

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def points(self) -> float:
        """Wins plus half the draws."""
        return self.wins + 0.5 * self.draws

    @property
    def rate(self) -> float:
        """A's win rate (draws half); NaN without games."""
        return self.points / self.games if self.games else math.nan

    def interval(self) -> tuple[float, float]:
        """95% Wilson interval of :attr:`rate` (draws as half a success)."""
        return wilson_interval(self.points, self.games)


def monotone_within_ci(intervals: Sequence[tuple[float, float]]) -> bool:
    """Whether some non-increasing sequence ``m_1 >= m_2 >= ...`` has every ``m_i`` inside
    ``intervals[i]`` (ordered strongest rank first): true iff no later (weaker) interval
    lies wholly above an earlier one (``lo_j <= hi_i`` for all ``i < j``).  Intervals with a
    NaN end (no games) are skipped."""
    highest_low = -math.inf
    for lo, hi in reversed([iv for iv in intervals if not any(map(math.isnan, iv))]):
        highest_low = max(highest_low, lo)  # the largest lower end among the weaker ranks
        if highest_low > hi:
            return False
    return True


def inversions(rates: Sequence[float]) -> int:
    """Pairs ``i < j`` (strongest first) whose point estimates rise: ``rates[j] > rates[i]``."""
    values = [x for x in rates if not math.isnan(x)]
    return sum(values[j] > values[i] for i in range(len(values)) for j in range(i + 1, len(values)))


# ---- the z fit -------------------------------------------------------------------------------
FloatArray = npt.NDArray[np.float64]


def fit_logistic(
    z: Sequence[float], points: Sequence[float], games: Sequence[int], iterations: int = 100
) -> tuple[float, float] | None:
    """The maximum-likelihood ``(a, b)`` of ``P(win | z) = 1 / (1 + exp(-(a + b z)))`` for
    ``points[k]`` points (draws half) in ``games[k]`` games at ``z[k]`` (Newton's method on
    the binomial log-likelihood, step halving); None when no finite maximum exists (the
    scores are separated by ``z``, e.g. every game lost below some ``z`` and won above)."""
    x = np.asarray(z, dtype=np.float64)
    s = np.asarray(points, dtype=np.float64)
    n = np.asarray(games, dtype=np.float64)
    keep = n > 0
    x, s, n = x[keep], s[keep], n[keep]
    if len(np.unique(x)) < 2:
        return None
    design = np.stack([np.ones_like(x), x], axis=1)

    def loglik(theta: FloatArray) -> float:
        eta = design @ theta
        return float(np.sum(s * eta - n * np.logaddexp(0.0, eta)))

    theta = np.zeros(2)
    current = loglik(theta)
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(design @ theta)))
        grad = design.T @ (s - n * p)
        hess = (design * (n * p * (1 - p))[:, None]).T @ design
        try:
            step = np.linalg.solve(hess, grad)
        except np.linalg.LinAlgError:
            return None
        t = 1.0
        while t > 1e-10:
            proposal = theta + t * step
            value = loglik(proposal)
            if value >= current - 1e-12:
                break
            t /= 2
        theta, current = proposal, value
        if not np.all(np.isfinite(theta)) or abs(theta[1]) > 1e4:
            return None
        if np.max(np.abs(t * step)) < 1e-10:
            return float(theta[0]), float(theta[1])
    return None


@dataclass(frozen=True)
class ZFit:
    """One rank's fitted ``z`` (see :func:`z_at_half`)."""

    rank: str
    z: float | None
    """The ``z`` where the fitted win rate is 50% (None: no fit)."""
    a: float | None
    b: float | None
    """The logistic's intercept and slope (None: no finite maximum)."""
    method: str
    """``logistic`` (the fit, 50% inside the grid), ``extrapolated`` (the fit's 50% lies
    outside the grid: widen it), ``interpolated`` (separated scores: linear interpolation of
    the two grid points around 50%), or ``none``."""


def z_at_half(rank: str, z: Sequence[float], points: Sequence[float], games: Sequence[int]) -> ZFit:
    """The rank's ``z``: ``-a / b`` of :func:`fit_logistic` when the slope is positive (a
    larger ``z`` plays stronger, Wu et al.), else by linear interpolation of the observed
    rates where they first cross 50% (z ascending), else none."""
    fit = fit_logistic(z, points, games)
    if fit is not None and fit[1] > 0:
        a, b = fit
        z50 = -a / b
        inside = min(z) <= z50 <= max(z)
        return ZFit(rank, z50, a, b, "logistic" if inside else "extrapolated")
    order = sorted((zi, p / g) for zi, p, g in zip(z, points, games, strict=True) if g > 0)
    for (z0, r0), (z1, r1) in itertools.pairwise(order):
        if r0 <= 0.5 <= r1 and r1 > r0:
            return ZFit(rank, z0 + (0.5 - r0) * (z1 - z0) / (r1 - r0), None, None, "interpolated")
    return ZFit(rank, None, None, None, "none")


# ---- running ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class PairingResult:
    """A pairing and A's score in its stored games."""

    pairing: Pairing
    labels: tuple[str, str]
    score: Score


@dataclass(frozen=True)
class SEStrengthResult:
    """What :func:`run_se_strength` played and found."""

    config: SEStrengthConfig
    results: tuple[PairingResult, ...]
    records: tuple[tuple[GameRecord, ...], ...]
    """Each pairing's stored games (aligned with :attr:`results`)."""
    played: int
    """Games played by this call."""
    skipped: int
    """Games found stored (not replayed)."""

    @property
    def complete(self) -> bool:
        """Whether every pairing has all its games stored."""
        return all(r.score.games == self.config.games for r in self.results)

    def scores(self, program: str) -> list[PairingResult]:
        """The anchor-mode rows of one template, strongest rank first."""
        return [r for r in self.results if r.pairing.program == program]

    def z_fits(self) -> list[ZFit]:
        """z-fit mode: one :class:`ZFit` per rank."""
        out = []
        for rank in self.config.resolved_ranks():
            rows = [r for r in self.results if r.pairing.rank == rank]
            out.append(
                z_at_half(
                    rank,
                    [float(r.pairing.z or 0.0) for r in rows],
                    [r.score.points for r in rows],
                    [r.score.games for r in rows],
                )
            )
        return out

    def z_table(self) -> ZTable:
        """z-fit mode: the fitted ``z`` of every rank that has one."""
        fits = {f.rank: f.z for f in self.z_fits() if f.z is not None}
        return ZTable(game=self.config.game, z=fits)

    def elo(self) -> EloFit:
        """Round-robin mode: maximum-likelihood Elo of every player (the first at 1500)."""
        names = self.player_names()
        index = {spec: i for i, spec in enumerate(self.player_specs())}
        first: list[int] = []
        second: list[int] = []
        score: list[float] = []
        for records in self.records:
            for g in records:
                a, b = index[g.spec_a], index[g.spec_b]
                first.append(a if g.a_first else b)
                second.append(b if g.a_first else a)
                score.append(g.result)
        results = GameResults(
            names=names,
            first=np.array(first, dtype=np.int64),
            second=np.array(second, dtype=np.int64),
            score=np.array(score, dtype=np.float64),
        )
        return fit_elo(results, anchor=Anchor(names[0], ELO_START))

    def player_specs(self) -> tuple[str, ...]:
        """Round-robin mode: every player's spec."""
        return tuple(fill(p, rank=r) for p, r in self.config.round_robin_players())

    def player_names(self) -> tuple[str, ...]:
        """Round-robin mode: every player's display label (as the games store them)."""
        labels: dict[str, str] = {}
        for res in self.results:
            labels[res.pairing.spec_a] = res.labels[0]
            labels[res.pairing.spec_b] = res.labels[1]
        return tuple(labels[s] for s in self.player_specs())


def run_se_strength(
    config: SEStrengthConfig,
    store: GameStore,
    *,
    progress: bool = True,
    console: Console | None = None,
    stop_after: int | None = None,
    on_game: Callable[[GameRecord], None] | None = None,
    backend: Backend | None = None,
) -> SEStrengthResult:
    """Play (or resume) every pairing of ``config``, storing each game in ``store``.

    The series runner builds (validates) every spec before any game starts.  ``stop_after``
    plays at most that many new games (a later call resumes; the result then holds the games
    stored so far).  ``backend`` plays the series (None: the local pool of ``config.workers``
    processes; the games do not depend on it).  Ctrl-C raises
    :class:`~sparring.evaluation.match.RunInterrupted` with every finished game stored.
    """
    configs = config.series_configs()
    results = run_series_set(
        configs,
        store,
        workers=config.workers,
        progress=progress,
        console=console,
        stop_after=stop_after,
        on_game=on_game,
        backend=backend,
    )
    return _collect(config, results)


def _collect(config: SEStrengthConfig, results: Sequence[SeriesResult]) -> SEStrengthResult:
    rows = tuple(
        PairingResult(p, (s.labels[0], s.labels[1]), Score.of(s.records))
        for p, s in zip(config.pairings(), results, strict=True)
    )
    return SEStrengthResult(
        config=config,
        results=rows,
        records=tuple(s.records for s in results),
        played=sum(s.played for s in results),
        skipped=sum(s.skipped for s in results),
    )


# ---- reports ---------------------------------------------------------------------------------
def _pct(x: float) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.1f}"


def _cell(score: Score) -> str:
    lo, hi = score.interval()
    return f"{_pct(score.rate)} ({_pct(lo)}-{_pct(hi)})"


def report_markdown(result: SEStrengthResult, command: str = "") -> str:
    """The mode's table(s) as markdown (see the module doc)."""
    config = result.config
    title = {
        "anchor": "win rate against the anchor by rank (Fig. 4 / Fig. 7)",
        "round-robin": "round robin of ranks (Table 5)",
        "z-fit": "SA-MCTS z per rank (appendix C, Table 4)",
    }[config.mode]
    lines = [f"# Strength by rank, {config.game}: {title}", ""]
    if command:
        lines += ["```bash", command, "```", ""]
    stored = sum(r.score.games for r in result.results)
    total = config.games * len(result.results)
    lines += [
        f"{config.games} games a pairing (half with each colour), seed {config.seed}; "
        f"{stored} of {total} games stored"
        + ("" if result.complete else " (**incomplete**: re-run the command to go on)")
        + ". Win rates count a draw as half; intervals are 95% Wilson intervals.",
        "",
    ]
    if config.mode == "anchor":
        lines += _anchor_markdown(result)
    elif config.mode == "z-fit":
        lines += _zfit_markdown(result)
    else:
        lines += _round_robin_markdown(result)
    return "\n".join(lines) + "\n"


def _anchor_markdown(result: SEStrengthResult) -> list[str]:
    config = result.config
    anchor = fill(config.resolved_anchor(), rank=config.resolved_anchor_rank())
    lines = [f"Anchor: `{anchor}`.", ""]
    for program in config.resolved_programs():
        rows = result.scores(program)
        lines += [
            f"## `{program}`",
            "",
            "| rank | games | W/L/D | win rate % (95% CI) |",
            "| --- | --- | --- | --- |",
        ]
        for row in rows:
            s = row.score
            lines.append(
                f"| {row.pairing.rank} | {s.games} | {s.wins}/{s.losses}/{s.draws} | {_cell(s)} |"
            )
        monotone = monotone_within_ci([r.score.interval() for r in rows])
        inv = inversions([r.score.rate for r in rows])
        lines += [
            "",
            f"Falls monotonically within the CIs (a non-increasing curve through every "
            f"interval, strongest rank first): **{'yes' if monotone else 'no'}**; point "
            f"estimates rising from a stronger to a weaker rank: {inv} of "
            f"{len(rows) * (len(rows) - 1) // 2} pairs.",
            "",
        ]
    return lines


def _zfit_markdown(result: SEStrengthResult) -> list[str]:
    config = result.config
    (program,) = config.resolved_programs()
    grid = config.z_grid
    lines = [
        f"`{program}` against `{config.resolved_anchor()}`: the program's win rate % (95% "
        "CI) at each z, and the z where the fitted logistic curve crosses 50%.",
        "",
        "| rank | " + " | ".join(f"z={format_z(z)}" for z in grid) + " | z (50%) | fit |",
        "| --- | " + " | ".join("---" for _ in grid) + " | --- | --- |",
    ]
    fits = {f.rank: f for f in result.z_fits()}
    for rank in config.resolved_ranks():
        rows = {r.pairing.z: r for r in result.results if r.pairing.rank == rank}
        cells = [_cell(rows[z].score) for z in grid]
        fit = fits[rank]
        z = "-" if fit.z is None else f"{fit.z:.3f}"
        lines.append(f"| {rank} | " + " | ".join(cells) + f" | {z} | {fit.method} |")
    lines += [
        "",
        f"`{ZTABLE_NAME}` holds the fitted z of every rank that has one: "
        f"`sa-mcts:rank=R,ztable=DIR/{ZTABLE_NAME}` plays SA-MCTS with it.",
        "",
    ]
    return lines


def _round_robin_markdown(result: SEStrengthResult) -> list[str]:
    names = result.player_names()
    specs = result.player_specs()
    cell: dict[tuple[str, str], Score] = {}
    for row in result.results:
        s = row.score
        cell[(row.pairing.spec_a, row.pairing.spec_b)] = s
        cell[(row.pairing.spec_b, row.pairing.spec_a)] = Score(s.losses, s.wins, s.draws)
    lines = [
        "Row player's win rate % (95% CI) against the column player.",
        "",
        "| | " + " | ".join(names) + " | Elo (95% CI) |",
        "| --- | " + " | ".join("---" for _ in names) + " | --- |",
    ]
    fit = result.elo() if any(r.score.games for r in result.results) else None
    for i, (name, spec) in enumerate(zip(names, specs, strict=True)):
        cells = ["-" if a == spec else _cell(cell[(spec, a)]) for a in specs]
        elo = "-"
        if fit is not None:
            elo = f"{fit.ratings[i]:.0f} ({fit.lower[i]:.0f} to {fit.upper[i]:.0f})"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {elo} |")
    lines.append("")
    if fit is not None:
        lines.append(
            f"Elo: maximum likelihood (`fit_elo`), {names[0]} anchored at {ELO_START:.0f}."
        )
        for program in result.config.resolved_programs():
            players = result.config.round_robin_players()
            idx = [i for i, (p, _) in enumerate(players) if p == program]
            ratings = [float(fit.ratings[i]) for i in idx]
            falls = all(x > y for x, y in itertools.pairwise(ratings))
            lines.append(
                f"`{program}`: Elo falls strictly with the rank: **{'yes' if falls else 'no'}**."
            )
        lines.append("")
    return lines


def results_json(result: SEStrengthResult, command: str = "") -> dict[str, Any]:
    """The numbers behind the report (JSON-compatible)."""
    config = result.config
    rows = []
    for row in result.results:
        s = row.score
        rows.append(
            {
                "program": row.pairing.program,
                "rank": row.pairing.rank,
                "z": row.pairing.z,
                "spec_a": row.pairing.spec_a,
                "spec_b": row.pairing.spec_b,
                "labels": list(row.labels),
                "wins": s.wins,
                "losses": s.losses,
                "draws": s.draws,
                "games": s.games,
                "win_rate": None if math.isnan(s.rate) else s.rate,
                "interval": None if not s.games else list(s.interval()),
            }
        )
    data: dict[str, Any] = {
        "command": command,
        "config": config.to_mapping(),
        "complete": result.complete,
        "pairings": rows,
    }
    if config.mode == "anchor":
        data["monotone_within_ci"] = {
            p: monotone_within_ci([r.score.interval() for r in result.scores(p)])
            for p in config.resolved_programs()
        }
    elif config.mode == "z-fit":
        data["z_fits"] = [dataclasses.asdict(f) for f in result.z_fits()]
    elif any(r.score.games for r in result.results):
        fit = result.elo()
        data["elo"] = {
            "names": list(fit.names),
            "specs": list(result.player_specs()),
            "ratings": fit.ratings.tolist(),
            "lower": fit.lower.tolist(),
            "upper": fit.upper.tolist(),
            "anchor": [fit.anchor.name, fit.anchor.elo],
        }
    return data


def write_report(result: SEStrengthResult, out: Path, command: str = "") -> dict[str, Path]:
    """Write ``report.md``, ``results.json`` and ``plot.png`` (z-fit: also ``ztable.json``)
    into ``out``; the paths by :data:`FILES` key."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {key: out / name for key, name in FILES.items()}
    _write_text(paths["results"], json.dumps(results_json(result, command), indent=2) + "\n")
    _write_text(paths["report"], report_markdown(result, command))
    _plot(result, paths["plot"])
    if result.config.mode == "z-fit":
        paths["ztable"] = out / ZTABLE_NAME
        table = result.z_table()
        _write_text(paths["ztable"], table.to_json(command))
    return paths


def _write_text(path: Path, text: str) -> None:
    atomic_write(path, text.encode())


def _plot(result: SEStrengthResult, png: Path) -> None:
    from sparring.errors import require_extra

    require_extra("matplotlib", "research", "the strength-by-rank plot")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    config = result.config
    fig, ax = plt.subplots(figsize=(8, 4))
    if config.mode == "round-robin":
        if any(r.score.games for r in result.results):
            fit = result.elo()
            players = config.round_robin_players()
            ranks = config.resolved_ranks()
            for program in config.resolved_programs():
                idx = [i for i, (p, _) in enumerate(players) if p == program]
                x = [ranks.index(players[i][1]) for i in idx]
                y = fit.ratings[idx]
                err = np.abs(np.stack([fit.lower[idx], fit.upper[idx]]) - y)
                ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=program)
            ax.set_xticks(range(len(ranks)), ranks)
        ax.set_ylabel("Elo (95% CI)")
        ax.set_title(f"{config.game}: round robin of ranks")
    else:
        groups: list[tuple[str, list[PairingResult]]]
        if config.mode == "anchor":
            groups = [(p, result.scores(p)) for p in config.resolved_programs()]
            xs = list(config.resolved_ranks())
        else:
            groups = [
                (f"z={format_z(z)}", [r for r in result.results if r.pairing.z == z])
                for z in config.z_grid
            ]
            xs = list(config.resolved_ranks())
        for label, rows in groups:
            rate = np.array([r.score.rate for r in rows])
            ci = np.array([r.score.interval() for r in rows])
            x = [xs.index(r.pairing.rank) for r in rows]
            ax.errorbar(
                x, 100 * rate, yerr=100 * np.abs(ci.T - rate), marker="o", capsize=3, label=label
            )
        ax.axhline(50, color="grey", linewidth=0.8, linestyle=":")
        ax.set_xticks(range(len(xs)), xs)
        ax.set_ylim(-2, 102)
        ax.set_ylabel("win rate % (95% CI)")
        opponent = (
            fill(config.resolved_anchor(), rank=config.resolved_anchor_rank())
            if config.mode == "anchor"
            else config.resolved_anchor()
        )
        ax.set_title(f"{config.game}: against {opponent}", fontsize=9)
    ax.set_xlabel("rank (strongest first)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    atomic_savefig(fig, png)
    plt.close(fig)


__all__ = [
    "MIDDLE_RANK",
    "MODES",
    "Pairing",
    "PairingResult",
    "SEStrengthConfig",
    "SEStrengthResult",
    "Score",
    "ZFit",
    "fill",
    "fit_logistic",
    "inversions",
    "monotone_within_ci",
    "parse_ranks",
    "report_markdown",
    "results_json",
    "round_robin_ranks",
    "run_se_strength",
    "write_report",
    "z_at_half",
]
