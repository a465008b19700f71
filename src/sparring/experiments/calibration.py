"""Calibration of strength adjustment: Elo over a grid of ``(z, R_th)`` (Wu et al., AAAI
2019, *Empirical Results*: Table 1, Fig. 1-3) plus the floor below ``z = -inf``.

Design (the paper's, extended with a rating ladder):

* **Matches.**  Every setting of the grid (each ``z`` of ``z_values`` with each ``R_th`` of
  ``rth_values``, and each floor level of ``floor_values`` with ``z = -inf`` at the
  baseline's ``R_th``) plays ``games`` games, colours alternating, against the paper's
  *baseline*, the SA player with ``z = 0, R_th = 0.1`` (the paper: "we do not use the
  original [player], equivalent to ``z = inf``, as the baseline since it is much too strong
  for some trials").  Settings that play identically are played once: ``z = +inf`` (the most
  visited move) does not depend on ``R_th``.
* **Ladder links.**  To put the numbers on the Elo scale of the baseline ladder
  (``docs/research/baselines.md``: Random = 1000, MCTS1-4, Minimax1-2; a file written by ``sparring
  tournament --json``), the baseline also plays ``link_games`` games against each ladder
  player of ``ladder_opponents``, and ``z = -inf`` and the floor settings play against
  ``floor_opponents`` (Random by default), so the weak end is measured against Random
  directly; ``z = +inf`` plays ``top_opponents`` (none by default).
* **Ratings.**  One maximum-likelihood Bradley-Terry fit over all those games
  (:func:`fit_with_fixed`) with the ladder players' ratings *held fixed* at their ladder
  values, so every setting's Elo is comparable with MCTS1 / Minimax1 / Random.  Standard
  errors come from the observed information and leave out the ladder's own uncertainty.
  ``prior_draws`` virtual draws per pairing keep perfect records finite.  Without a ladder
  the baseline is fixed at Elo 0 instead.  The paper's "Elo relative to ``z = inf``" is the
  difference of two fitted ratings (with the standard error of the difference).
* **Durability.**  Every match goes through :func:`~sparring.evaluation.match.run_match`:
  games run in parallel worker processes, are stored in a
  :class:`~sparring.evaluation.store.GameStore` as they finish (with the SA players' root
  visit counts as per-move annotations) and a re-run skips the games already stored.

:func:`run_calibration` returns a :class:`CalibrationResult`: the
:class:`~sparring.strength.target.Calibration` (saved as the calibration file), the Table 1
analogue, the linear and logistic fits of Fig. 1, the curves of Fig. 2, the candidates of
Fig. 3 and the strength analysis (Table 2, Fig. 4; :mod:`sparring.experiments.strength_analysis`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt
from rich.console import Console

from sparring.errors import ConfigError, UnknownPlayerError
from sparring.evaluation.backend import Backend
from sparring.evaluation.bradley_terry import BradleyTerryFit, PairCounts, fit_bradley_terry
from sparring.evaluation.ladder import Ladder, LadderPlayer, read_ladder
from sparring.evaluation.match import MatchConfig, RunResult, run_match
from sparring.evaluation.store import GameRecord, GameStore
from sparring.experiments.strength_analysis import (
    LinearFit,
    LogisticFit,
    Positions,
    ThresholdAnalysis,
    analyze_threshold,
    average_candidates,
    fit_linear,
    fit_logistic,
    root_visits_of,
)
from sparring.games import Game, get_game
from sparring.players import make_player
from sparring.players.cache import PlayerCache
from sparring.players.registry import PlayerSpec
from sparring.players.strength import SEARCH_OPTIONS
from sparring.strength.selection import PAPER_RTH, StrengthSetting, format_z
from sparring.strength.target import Calibration, CalibrationPoint, file_sha256, sa_spec

FloatArray = npt.NDArray[np.float64]

INF = math.inf
DEFAULT_Z_VALUES: tuple[float, ...] = (-INF, -2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, INF)
"""The paper's Table 1 grid of strength indices."""
DEFAULT_RTH_VALUES: tuple[float, ...] = (0.0, 0.02, 0.05, 0.1, 0.25, 0.5)
"""The paper's Fig. 2 thresholds."""
DEFAULT_FLOOR_VALUES: tuple[float, ...] = (0.5, 1.0, 1.5, 2.0)
"""Floor levels measured below ``z = -inf`` (see :func:`.selection.floor_schedule`)."""
DEFAULT_GAMES = 200
"""Games per setting against the baseline (the paper: 250)."""
DEFAULT_LINK_GAMES = 50
"""Games per ladder link (a setting against one ladder player)."""
DEFAULT_PRIOR_DRAWS = 1.0
"""Virtual draws added to every pairing that played (keeps 100% records finite: 50 wins of
50 games give +800 Elo rather than infinity)."""
CANDIDATE_RTH = (0.0, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.75, 1.0)
"""Thresholds at which Fig. 3 (mean number of candidates) is evaluated."""


# ---- configuration ----------------------------------------------------------------------------
def parse_base(text: str) -> dict[str, str]:
    """The search options of an ``sa`` spec: ``base=uct,sims=300`` (an ``sa:`` prefix is
    allowed).  Only :data:`~sparring.players.strength.SEARCH_OPTIONS` may appear."""
    raw = text.strip()
    if raw.lower().startswith("sa:"):
        raw = raw[3:]
    try:
        options = PlayerSpec.parse("sa:" + raw).options if raw else {}
    except UnknownPlayerError as exc:
        raise ConfigError(f"bad search options {text!r}: {exc}") from None
    unknown = sorted(set(options) - set(SEARCH_OPTIONS))
    if unknown:
        raise ConfigError(
            f"search options {text!r}: {unknown[0]!r} is not a search option "
            f"(allowed: {', '.join(SEARCH_OPTIONS)}); the grid sets z, rth and floor"
        )
    return {k: options[k] for k in SEARCH_OPTIONS if k in options}


@dataclass(frozen=True)
class CalibrationConfig:
    """What :func:`run_calibration` plays; invalid values raise :class:`ConfigError`."""

    game: str
    """Registry name of the game."""
    base: str = "base=uct,sims=300"
    """The ``sa`` search options (``base=az,model=connect4,sims=200`` or ``base=uct,sims=300``)."""
    z_values: tuple[float, ...] = DEFAULT_Z_VALUES
    rth_values: tuple[float, ...] = DEFAULT_RTH_VALUES
    floor_values: tuple[float, ...] = DEFAULT_FLOOR_VALUES
    baseline_z: float = 0.0
    """The baseline's ``z`` (the paper: 0)."""
    baseline_rth: float = PAPER_RTH
    """The baseline's ``R_th`` (the paper: 0.1); also the main threshold of the Elo scale."""
    games: int = DEFAULT_GAMES
    """Games of every setting against the baseline."""
    seed: int = 0
    """Base seed of every match (each game's seed derives from it, the match and its index)."""
    workers: int = 1
    """Worker processes."""
    ladder: str | None = None
    """Ladder file (``sparring tournament --json``) whose ratings fix the scale; None: the
    baseline at 0."""
    ladder_opponents: tuple[str, ...] | None = None
    """Ladder player specs the baseline plays (None: all of the ladder's players)."""
    floor_opponents: tuple[str, ...] = ("random",)
    """Ladder player specs that ``z = -inf`` and the floor settings play."""
    top_opponents: tuple[str, ...] = ()
    """Ladder player specs that ``z = +inf`` plays (e.g. ``mcts1``: for ``base=uct,sims=300``
    the two play the same algorithm, a check of the scale)."""
    link_games: int = DEFAULT_LINK_GAMES
    """Games of every ladder link."""
    link_nearest: int = 0
    """If > 0 (and a ladder is given), every setting a target Elo can choose (the main
    threshold's ``z`` curve, ``z = +inf`` and the floor) also plays ``link_games`` games
    against each of the ``link_nearest`` ladder players rated nearest to it (by a first fit
    without these games), so that it is rated against the opponents a player of that
    strength is measured against (``sparring strength-check``), not mostly against the SA
    baseline: ratings are not transitive across kinds of player."""
    prior_draws: float = DEFAULT_PRIOR_DRAWS
    """Virtual draws per pairing in the rating fit."""

    def __post_init__(self) -> None:
        if self.games < 1 or self.workers < 1 or self.seed < 0 or self.link_games < 1:
            raise ConfigError("games, workers and link_games must be >= 1 and seed >= 0")
        if self.link_nearest < 0:
            raise ConfigError("link_nearest must be >= 0")
        if not self.z_values and not self.floor_values:
            raise ConfigError("the calibration grid is empty")
        for z in (*self.z_values, self.baseline_z):
            if math.isnan(z):
                raise ConfigError("z values must be numbers or +-inf")
        for rth in (*self.rth_values, self.baseline_rth):
            if not 0.0 <= rth <= 1.0:
                raise ConfigError(f"R_th values must be in [0, 1], not {rth}")
        for floor in self.floor_values:
            if not 0.0 <= floor <= 2.0:
                raise ConfigError(f"floor levels must be in [0, 2], not {floor}")
        if not self.prior_draws > 0:
            raise ConfigError("prior_draws must be > 0")
        parse_base(self.base)

    @property
    def base_options(self) -> dict[str, str]:
        return parse_base(self.base)

    @property
    def baseline(self) -> StrengthSetting:
        return StrengthSetting(self.baseline_z, self.baseline_rth)

    def canonical(self, setting: StrengthSetting) -> StrengthSetting:
        """One representative of settings that play identically (``z = +inf`` at any
        threshold, or any ``z`` with ``R_th = 1``: the most visited move)."""
        if setting.floor == 0.0 and (setting.z == INF or setting.rth == 1.0):
            return StrengthSetting(INF, self.baseline_rth)
        return setting

    def settings(self) -> list[StrengthSetting]:
        """Every setting measured, the baseline first, without duplicates."""
        out = [self.baseline]
        for rth in self.rth_values:
            for z in self.z_values:
                out.append(self.canonical(StrengthSetting(z, rth)))
        for floor in self.floor_values:
            out.append(StrengthSetting(-INF, self.baseline_rth, floor))
        unique: list[StrengthSetting] = []
        for s in out:
            if s not in unique:
                unique.append(s)
        return unique

    def spec(self, setting: StrengthSetting) -> str:
        """The ``sa`` spec of a setting (stable text: it is part of each match's run key)."""
        return sa_spec(self.base_options, setting)


# ---- ratings with fixed players ---------------------------------------------------------------
def fit_with_fixed(
    games: Sequence[tuple[str, str, float]],
    fixed: Mapping[str, float],
    prior_draws: float = DEFAULT_PRIOR_DRAWS,
    max_iterations: int = 200,
) -> BradleyTerryFit:
    """Bradley-Terry ratings (Elo scale, AlphaDDA Eq. 16) of the players of ``games``
    (``(a, b, score of a)``), with the players in ``fixed`` held at their given Elo.

    ``prior_draws`` virtual draws are added to every pair of players that met.  No
    first-move advantage is fitted (calibration matches alternate colours).  Solved by
    :func:`~sparring.evaluation.bradley_terry.fit_bradley_terry`; the covariance is the
    inverse observed information.  Players are named in order of first appearance (then the
    fixed players without games).  Raises :class:`ConfigError` when a free player is not
    connected to a fixed one by games.
    """
    if not fixed:
        raise ConfigError("at least one player's rating must be fixed")
    names: list[str] = []
    for a, b, _ in games:
        for n in (a, b):
            if n not in names:
                names.append(n)
    for n in fixed:
        if n not in names:
            names.append(n)
    index = {n: i for i, n in enumerate(names)}
    counts = PairCounts.from_games(
        names,
        [index[a] for a, _, _ in games],
        [index[b] for _, b, _ in games],
        [score for _, _, score in games],
        ordered=False,
    )
    return fit_bradley_terry(
        counts.with_draws(prior_draws, every_pair=False), fixed, max_iterations=max_iterations
    )


# ---- results ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class PointResult:
    """One measured setting."""

    setting: StrengthSetting
    spec: str
    label: str
    elo: float
    stderr: float
    games: int
    """Games against the baseline (0 for the baseline)."""
    score: float | None
    """Mean score against the baseline (None for the baseline)."""
    elo_vs_top: float | None
    """Elo relative to ``z = +inf`` (the paper's Table 1 column), if ``+inf`` was measured."""
    elo_vs_top_stderr: float | None
    positions: int
    """Positions with recorded visit counts where this setting moved."""
    candidates: float | None
    """Mean number of candidates in those positions (at this setting's effective ``R_th``)."""
    links: Mapping[str, tuple[int, float]] = field(default_factory=dict)
    """Ladder opponent spec -> (games, mean score) of this setting's ladder links."""


@dataclass(frozen=True)
class CalibrationResult:
    """Everything :func:`run_calibration` measured."""

    config: CalibrationConfig
    calibration: Calibration
    points: tuple[PointResult, ...]
    scale: str
    ladder: Ladder | None
    linear: LinearFit | None
    """Fig. 1: linear fit of Elo on ``z`` over ``-2 <= z <= 2`` at the main ``R_th``."""
    logistic: LogisticFit | None
    """Fig. 1: logistic fit over ``-2 <= z <= 2`` with the ``+-inf`` ratings as asymptotes."""
    candidates_rth: tuple[float, ...]
    candidates: tuple[float, ...]
    """Fig. 3: mean number of candidates at each of :attr:`candidates_rth` over every recorded
    position of the calibration."""
    analyses: Mapping[float, ThresholdAnalysis]
    """Table 2 / Fig. 4: the strength analysis per ``R_th``."""
    played: int
    skipped: int

    def point(self, setting: StrengthSetting) -> PointResult:
        """The result of ``setting`` (canonicalised)."""
        wanted = self.config.canonical(setting)
        for p in self.points:
            if p.setting == wanted:
                return p
        raise KeyError(f"setting {setting.label()} was not measured")

    def curve(self, rth: float) -> list[PointResult]:
        """The settings of threshold ``rth`` (``z = +inf`` included) ordered by ``z``."""
        chosen = [
            p
            for p in self.points
            if p.setting.floor == 0.0 and (math.isclose(p.setting.rth, rth) or p.setting.z == INF)
        ]
        return sorted(chosen, key=lambda p: p.setting.z)

    @property
    def floor_points(self) -> list[PointResult]:
        """``z = -inf`` at the main threshold and the floor settings, strongest first."""
        main = self.config.baseline_rth
        chosen = [
            p for p in self.points if p.setting.z == -INF and math.isclose(p.setting.rth, main)
        ]
        return sorted(chosen, key=lambda p: p.setting.floor)


# ---- running ---------------------------------------------------------------------------------
def _ladder_rungs(
    ladder: Ladder | None, specs: Sequence[str] | None, what: str
) -> list[LadderPlayer]:
    if ladder is None:
        return []
    if specs is None:
        return list(ladder.players)
    try:
        return [ladder.by_spec(s) for s in specs]
    except ConfigError as exc:
        raise ConfigError(f"{what}: {exc}") from None


_LinkPlan = list[tuple[StrengthSetting, LadderPlayer]]


class _Games:
    """The calibration's matches as they are played: the counts, each setting's games
    against the baseline, the ladder links and every game's ``(label a, label b, score of
    a)`` for the rating fit."""

    def __init__(
        self,
        config: CalibrationConfig,
        store: GameStore,
        specs: Mapping[StrengthSetting, str],
        labels: Mapping[StrengthSetting, str],
        *,
        console: Console | None,
        progress: bool,
        backend: Backend | None,
    ) -> None:
        self.config, self.store, self.specs, self.labels = config, store, specs, labels
        self.console, self.backend = console, backend
        self.show = progress and console is not None
        self.played = self.skipped = 0
        self.by_setting: dict[StrengthSetting, list[GameRecord]] = {}
        self.links: dict[StrengthSetting, dict[str, tuple[int, float]]] = {}
        self.results: list[tuple[str, str, float]] = []

    def match(self, spec_a: str, spec_b: str, games: int) -> RunResult:
        mc = MatchConfig(
            game=self.config.game,
            spec_a=spec_a,
            spec_b=spec_b,
            games=games,
            seed=self.config.seed,
            workers=self.config.workers,
        )
        run = run_match(
            mc, self.store, progress=self.show, console=self.console, backend=self.backend
        )
        self.played, self.skipped = self.played + run.played, self.skipped + run.skipped
        return run

    def play_grid(self, settings: Sequence[StrengthSetting]) -> None:
        """Every setting but the baseline against the baseline."""
        baseline = self.config.baseline
        for setting in settings:
            if setting == baseline:
                continue
            run = self.match(self.specs[setting], self.specs[baseline], self.config.games)
            self.by_setting[setting] = list(run.records)
            self.results += [
                (self.labels[setting], self.labels[baseline], r.score_a) for r in run.records
            ]

    def play_links(self, plan: Sequence[tuple[StrengthSetting, LadderPlayer]]) -> None:
        """Each setting of ``plan`` against its ladder player."""
        for setting, rung in plan:
            run = self.match(self.specs[setting], rung.spec, self.config.link_games)
            scores = [r.score_a for r in run.records]
            self.links.setdefault(setting, {})[rung.spec] = (len(scores), float(np.mean(scores)))
            self.results.extend((self.labels[setting], f"ladder:{rung.name}", s) for s in scores)


def _grid_players(
    config: CalibrationConfig, game: Game
) -> tuple[list[StrengthSetting], dict[StrengthSetting, str], dict[StrengthSetting, str]]:
    """The settings measured, their specs and their players' names (which must differ)."""
    settings = config.settings()
    specs = {s: config.spec(s) for s in settings}
    cache = PlayerCache()  # the grid's players share one network and calibration
    labels = {s: make_player(spec, game, 0, cache).name for s, spec in specs.items()}
    if len(set(labels.values())) != len(labels):
        raise ConfigError("two settings of the grid have the same player name")
    return settings, specs, labels


def _link_plan(
    config: CalibrationConfig, ladder: Ladder | None, settings: Sequence[StrengthSetting]
) -> _LinkPlan:
    """The baseline against its ladder opponents, ``z = -inf`` and the floor against the
    floor opponents, ``z = +inf`` against the top opponents."""
    baseline_rungs = _ladder_rungs(ladder, config.ladder_opponents, "ladder opponents")
    floor_rungs = _ladder_rungs(ladder, config.floor_opponents, "floor opponents")
    top_rungs = _ladder_rungs(ladder, config.top_opponents, "top opponents")
    plan: _LinkPlan = [(config.baseline, r) for r in baseline_rungs]
    for setting in settings:
        if setting.z == -INF and math.isclose(setting.rth, config.baseline_rth):
            plan += [(setting, r) for r in floor_rungs]
        if setting.z == INF:
            plan += [(setting, r) for r in top_rungs]
    return plan


def _nearest_plan(
    config: CalibrationConfig,
    ladder: Ladder,
    settings: Sequence[StrengthSetting],
    games: _Games,
    link_plan: _LinkPlan,
) -> _LinkPlan:
    """Every setting a target Elo can choose against the ``link_nearest`` ladder players
    rated nearest to it by a first fit (the links it already played left out)."""
    first = fit_with_fixed(
        games.results, {f"ladder:{r.name}": r.elo for _, r in link_plan}, config.prior_draws
    )
    return [
        (s, rung)
        for s in settings
        if s.floor > 0.0 or _main_or_top(s, config)
        for rung in ladder.nearest(first.rating(games.labels[s]), config.link_nearest)
        if rung.spec not in games.links.get(s, {})
    ]


def _fixed_ratings(
    config: CalibrationConfig,
    ladder: Ladder | None,
    link_plan: _LinkPlan,
    labels: Mapping[StrengthSetting, str],
) -> tuple[dict[str, float], str]:
    """The ratings held fixed in the fit and the scale's description: the linked ladder
    players', else the baseline's at 0."""
    if ladder is not None and link_plan:
        scale = (
            f"the baseline ladder {Path(config.ladder or '').name} ({ladder.anchor}; ladder "
            "ratings held fixed)"
        )
        return {f"ladder:{r.name}": r.elo for _, r in link_plan}, scale
    baseline = config.baseline
    return {labels[baseline]: 0.0}, f"relative: the baseline SA({baseline.label()}) = 0"


def _recorded_positions(
    games: _Games, game: Game, baseline: StrengthSetting
) -> tuple[dict[StrengthSetting, Positions], Positions]:
    """Each setting's own moves in its games against the baseline, and every recorded
    position of those games (the baseline's moves too)."""
    labels = games.labels
    positions: dict[StrengthSetting, Positions] = {
        s: Positions.from_vectors(root_visits_of(records, game, labels[s]))
        for s, records in games.by_setting.items()
    }
    every = [
        v
        for s, records in games.by_setting.items()
        for label in (labels[s], labels[baseline])
        for v in root_visits_of(records, game, label)
    ]
    return positions, Positions.from_vectors(every)


def _point_results(
    config: CalibrationConfig,
    settings: Sequence[StrengthSetting],
    games: _Games,
    fit: BradleyTerryFit,
    positions: Mapping[StrengthSetting, Positions],
) -> list[PointResult]:
    """Every setting's rating, games against the baseline and mean number of candidates."""
    labels = games.labels
    top = config.canonical(StrengthSetting(INF, config.baseline_rth))
    has_top = top in settings
    points: list[PointResult] = []
    for s in settings:
        label = labels[s]
        records = games.by_setting.get(s, [])
        rel = rel_se = None
        if has_top:
            rel = fit.rating(label) - fit.rating(labels[top])
            rel_se = fit.difference_stderr(label, labels[top])
        pos = positions.get(s)
        eff_rth = s.effective[1]
        cands = None
        if pos is not None and len(pos):
            cands = float(average_candidates(pos, [eff_rth])[0])
        points.append(
            PointResult(
                setting=s,
                spec=games.specs[s],
                label=label,
                elo=fit.rating(label),
                stderr=fit.rating_stderr(label),
                games=len(records),
                score=float(np.mean([r.score_a for r in records])) if records else None,
                elo_vs_top=rel,
                elo_vs_top_stderr=rel_se,
                positions=0 if pos is None else len(pos),
                candidates=cands,
                links=games.links.get(s, {}),
            )
        )
    return points


def _z_curve_fits(
    config: CalibrationConfig, points: Sequence[PointResult]
) -> tuple[LinearFit | None, LogisticFit | None]:
    """Fig. 1: the linear and logistic fits of Elo on ``z`` at the main threshold."""
    main = [p for p in points if p.setting.floor == 0.0 and _main_or_top(p.setting, config)]
    z_main = [p.setting.z for p in main]
    elo_main = [p.elo for p in main]
    low = next((p.elo for p in main if p.setting.z == -INF), None)
    high = next((p.elo for p in main if p.setting.z == INF), None)
    return fit_linear(z_main, elo_main), fit_logistic(z_main, elo_main, low, high)


def _threshold_analyses(
    config: CalibrationConfig,
    positions: Mapping[StrengthSetting, Positions],
    points: Sequence[PointResult],
) -> dict[float, ThresholdAnalysis]:
    """Table 2 / Fig. 4: the strength analysis of each ``R_th`` with recorded positions."""
    analyses: dict[float, ThresholdAnalysis] = {}
    for rth in sorted(set(config.rth_values)):
        data = [
            v
            for s, pos in positions.items()
            if math.isclose(s.rth, rth) and math.isfinite(s.z) and s.floor == 0.0
            for v in _rows(pos)
        ]
        empirical = {
            p.setting.z: p.elo
            for p in points
            if p.setting.floor == 0.0 and (math.isclose(p.setting.rth, rth) or p.setting.z == INF)
        }
        if data:
            analyses[rth] = analyze_threshold(Positions.from_vectors(data), rth, empirical)
    return analyses


def run_calibration(
    config: CalibrationConfig,
    store: GameStore,
    *,
    console: Console | None = None,
    progress: bool = False,
    backend: Backend | None = None,
) -> CalibrationResult:
    """Play (or resume) every match of ``config`` into ``store`` and compute the results;
    ``backend`` plays the games (None: the local pool of ``config.workers`` processes)."""
    game = get_game(config.game)
    ladder = read_ladder(Path(config.ladder)) if config.ladder is not None else None
    if ladder is not None and ladder.game != config.game:
        raise ConfigError(f"the ladder {config.ladder} is for {ladder.game}, not {config.game}")
    link_plan = _link_plan(config, ladder, config.settings())
    settings, specs, labels = _grid_players(config, game)
    games = _Games(
        config, store, specs, labels, console=console, progress=progress, backend=backend
    )
    games.play_grid(settings)
    games.play_links(link_plan)
    if ladder is not None and link_plan and config.link_nearest > 0:
        nearest_plan = _nearest_plan(config, ladder, settings, games, link_plan)
        games.play_links(nearest_plan)
        link_plan += nearest_plan

    fixed, scale = _fixed_ratings(config, ladder, link_plan, labels)
    fit = fit_with_fixed(games.results, fixed, config.prior_draws)
    positions, all_positions = _recorded_positions(games, game, config.baseline)
    points = _point_results(config, settings, games, fit, positions)
    linear, logistic = _z_curve_fits(config, points)
    analyses = _threshold_analyses(config, positions, points)
    cand = average_candidates(all_positions, CANDIDATE_RTH)
    hashes = _model_hashes(game.name, config.base_options)
    calibration = Calibration(
        game=config.game,
        base=config.base_options,
        baseline=config.baseline,
        scale=scale,
        points=tuple(_calibration_point(p) for p in points),
        games_per_point=config.games,
        model_sha256=hashes[0],
        onnx_sha256=hashes[1],
        summary=_summary(config, points, linear, logistic, analyses, ladder),
    )
    return CalibrationResult(
        config=config,
        calibration=calibration,
        points=tuple(points),
        scale=scale,
        ladder=ladder,
        linear=linear,
        logistic=logistic,
        candidates_rth=CANDIDATE_RTH,
        candidates=tuple(float(c) for c in cand),
        analyses=analyses,
        played=games.played,
        skipped=games.skipped,
    )


def _calibration_point(p: PointResult) -> CalibrationPoint:
    return CalibrationPoint(
        setting=p.setting,
        spec=p.spec,
        label=p.label,
        elo=p.elo,
        stderr=p.stderr,
        games=p.games,
        score=p.score,
        candidates=p.candidates,
    )


def _main_or_top(setting: StrengthSetting, config: CalibrationConfig) -> bool:
    return setting.z == INF or math.isclose(setting.rth, config.baseline_rth)


def _rows(positions: Positions) -> list[FloatArray]:
    return [positions.visits[i][positions.legal[i]] for i in range(len(positions))]


def _model_hashes(game_name: str, options: Mapping[str, str]) -> tuple[str | None, str | None]:
    """``model_sha256`` and ``onnx_sha256`` of the network a ``base=az`` calibration plays:
    a ``.pt``'s SHA-256 (no ONNX hash); for an ONNX export, the SHA-256 of the ``.pt`` it
    was exported from (which the file records; its own when it does not) and its own."""
    if options.get("base", "az") != "az":
        return None, None
    from sparring.nn.onnx_runtime import onnx_source_sha256
    from sparring.nn.zoo import default_model, resolve_model

    try:
        path = resolve_model(options["model"]) if "model" in options else default_model(game_name)
    except UnknownPlayerError:
        return None, None
    if path is None:
        return None, None
    digest = file_sha256(path)
    if path.suffix != ".onnx":
        return digest, None
    return onnx_source_sha256(path) or digest, digest


def _summary(
    config: CalibrationConfig,
    points: Sequence[PointResult],
    linear: LinearFit | None,
    logistic: LogisticFit | None,
    analyses: Mapping[float, ThresholdAnalysis],
    ladder: Ladder | None,
) -> dict[str, object]:
    weakest = min(points, key=lambda p: p.elo)
    strongest = max(points, key=lambda p: p.elo)
    summary: dict[str, object] = {
        "games_per_point": config.games,
        "link_games": config.link_games,
        "link_nearest": config.link_nearest,
        "seed": config.seed,
        "floor_opponents": list(config.floor_opponents),
        "grid": {
            "z": [format_z(z) for z in config.z_values],
            "rth": list(config.rth_values),
            "floor": list(config.floor_values),
        },
        "weakest": {"setting": weakest.setting.label(), "elo": round(weakest.elo, 1)},
        "strongest": {"setting": strongest.setting.label(), "elo": round(strongest.elo, 1)},
        "linear_fit": None
        if linear is None
        else {"slope": linear.slope, "intercept": linear.intercept, "rmse": linear.rmse},
        "logistic_fit": None
        if logistic is None
        else {
            "beta0": logistic.beta0,
            "beta1": logistic.beta1,
            "low": logistic.low,
            "high": logistic.high,
            "rmse": logistic.rmse,
        },
        "H": {f"{rth:g}": None if a.h is None else round(a.h, 4) for rth, a in analyses.items()},
    }
    if ladder is not None:
        summary["ladder"] = {p.name: p.elo for p in ladder.players}
    return summary


# ---- re-measuring the floor of an existing calibration ---------------------------------------
def merge_floor(
    calibration: Calibration, update: Calibration, *, pool: bool = False
) -> Calibration:
    """``calibration`` with the points of ``update`` put in, all but its baseline: a point of
    ``update`` replaces the point of ``calibration`` with the same setting, or is added.

    For re-measuring the weak end of a shipped calibration without replaying its grid:
    ``update`` is a floor-only run (``sparring calibrate --z none --floor ...
    --ladder-opponents ''``) whose floor settings are rated by their ladder links, the ladder
    held fixed, so its ratings are on the same scale as ``calibration``'s.  Likewise for more
    points of the z curve (``sparring calibrate --z -5 --floor none --ladder-opponents A,B
    --link-nearest 2``: the baseline linked to the ladder players ``A`` and ``B``, each new
    point to the baseline and to its two nearest ladder players).  Both must be of the
    same game, search options, baseline, scale and network (else :class:`ConfigError`).
    Points are ordered as in ``calibration``, the added ones after it by floor level, then
    z.  The summary's ``weakest`` / ``strongest`` are recomputed and the list
    ``floor_updates`` gets one more record: the update's floor levels (and its other points'
    z values, as ``z``), link games, seed and floor opponents.

    With ``pool``, a setting measured in both is not replaced but pooled: the two ratings are
    independent estimates against the same fixed ladder (games on another seed), so they are
    combined by inverse-variance weights, ``elo = (e1/s1^2 + e2/s2^2) / (1/s1^2 + 1/s2^2)``
    with ``stderr = (1/s1^2 + 1/s2^2)^(-1/2)`` (the pooled fit's estimate to first order);
    games against the baseline add up and their mean scores are weighted by games.  The
    record says ``"pooled": true``.
    """
    for what, mine, theirs in (
        ("game", calibration.game, update.game),
        ("search options", dict(calibration.base), dict(update.base)),
        ("baseline", calibration.baseline, update.baseline),
        ("scale", calibration.scale, update.scale),
        ("network SHA-256", calibration.model_sha256, update.model_sha256),
    ):
        if mine != theirs:
            raise ConfigError(f"cannot merge the update: the {what} differ ({mine} vs {theirs})")
    taken = [p for p in update.points if p.setting != update.baseline]
    new = {p.setting: p for p in taken}
    if not new:
        raise ConfigError("the update has no points but its baseline")
    if pool:
        points = [
            _pooled(p, new.pop(p.setting)) if p.setting in new else p for p in calibration.points
        ]
    else:
        points = [new.pop(p.setting, p) for p in calibration.points]
    points += sorted(new.values(), key=lambda p: (p.floor, p.z))
    weakest = min(points, key=lambda p: p.elo)
    strongest = max(points, key=lambda p: p.elo)
    summary = dict(calibration.summary)
    summary["weakest"] = {"setting": weakest.setting.label(), "elo": round(weakest.elo, 1)}
    summary["strongest"] = {"setting": strongest.setting.label(), "elo": round(strongest.elo, 1)}
    z_values = sorted(p.z for p in taken if p.floor == 0.0)
    record: dict[str, object] = {
        "floor": sorted(p.floor for p in taken if p.floor > 0.0),
        **({"z": z_values} if z_values else {}),
        **{
            key: update.summary[key]
            for key in ("link_games", "seed", "floor_opponents")
            if key in update.summary
        },
    }
    if pool:
        record["pooled"] = True
    earlier = summary.get("floor_updates")
    summary["floor_updates"] = [*(earlier if isinstance(earlier, list) else []), record]
    return Calibration(
        game=calibration.game,
        base=calibration.base,
        baseline=calibration.baseline,
        scale=calibration.scale,
        points=tuple(points),
        games_per_point=calibration.games_per_point,
        model_sha256=calibration.model_sha256,
        onnx_sha256=calibration.onnx_sha256 or update.onnx_sha256,
        summary=summary,
    )


def _pooled(old: CalibrationPoint, new: CalibrationPoint) -> CalibrationPoint:
    """Inverse-variance pool of two measurements of one setting (see :func:`merge_floor`)."""
    if not (old.stderr > 0.0 and new.stderr > 0.0):
        raise ConfigError(
            f"cannot pool {old.setting.label()}: a standard error is not positive "
            f"({old.stderr}, {new.stderr})"
        )
    w_old, w_new = old.stderr**-2, new.stderr**-2
    games = old.games + new.games
    score = old.score if new.score is None else new.score
    if old.score is not None and new.score is not None and games > 0:
        score = (old.score * old.games + new.score * new.games) / games
    return dataclasses.replace(
        old,
        elo=(old.elo * w_old + new.elo * w_new) / (w_old + w_new),
        stderr=(w_old + w_new) ** -0.5,
        games=games,
        score=score,
    )


__all__ = [
    "DEFAULT_FLOOR_VALUES",
    "DEFAULT_GAMES",
    "DEFAULT_LINK_GAMES",
    "DEFAULT_RTH_VALUES",
    "DEFAULT_Z_VALUES",
    "CalibrationConfig",
    "CalibrationResult",
    "PointResult",
    "fit_with_fixed",
    "merge_floor",
    "parse_base",
    "run_calibration",
]
