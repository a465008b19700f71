"""AlphaDDA's grid search (Fujita 2022, appendix 2, Tables A2-A4, the metric D of Eq. 11).

``sparring dda-grid GAME KIND --out DIR`` plays every setting of a parameter grid of an
adaptive player kind (``alphadda1``, ``alphadda2``, ``alphadda3``; the paper's grid of the game
by default, any key overridable) against the opponents (default AlphaZero, MCTS1, MCTS2,
Minimax1, Random: the paper's), ``games`` games per opponent (default 40: the setting moves
first in the even-numbered games, so 20 as first and 20 as second player), scores each setting
by ``D`` (:func:`sparring.strength.alphadda.metric_d`: the sum over opponents and sides of
``|wins - losses|``; smaller is better) and reports every setting's ``D`` and the best.

The games are those of the series runner (:mod:`sparring.evaluation.series`): one series of
``games`` games per setting and opponent, all of a round's series in one pool of workers,
every game stored as it ends, a killed run resumed without replaying a finished game.  A
setting's spec text (:attr:`GridSetting.spec`, the grid's values in canonical form) and the
opponent's spec and the seed are the series' key in the store, and game ``i`` of a series
has the seed ``derive_seed(seed, 0, i)`` whatever the number of games asked for, so the first
``g`` games of a setting are the same games whether a run asks for ``g`` or for 40.

**Successive halving** (``halving=True``): the rounds play ``g_1 = first_games``, ``g_2 =
2 g_1``, ... games per opponent, doubling while below ``games``, then ``games``
(:func:`halving_schedule`; default 4, 8, 16, 32, 40).  Round 1 plays every setting; after a
round that is not the last, the ``max(min(final, n), ceil(keep n))`` settings with the smallest
``D`` (ties: the earlier setting in grid order) go on (:func:`survivor_count`,
:func:`successive_halving`).  All settings of a round have played the same games per
opponent and side, so ranking by ``D`` is ranking by ``D`` per game played.  A later round
continues a setting's series, so its games are a prefix of its full-grid games: a halving run
and a full run (``halving=False``) on one store share their games, and a halving report
compares its pick with the full grid's best when the store holds the full grid
(:attr:`GridResult.full_grid`).  Given the seed, the games and therefore the survivors are
deterministic (for players whose games are: the AlphaDDA kinds' are).

**Noise**: every ``D`` is given with a bootstrap standard deviation (:func:`d_bootstrap_sd`:
the games of each opponent and side resampled with replacement, 1000 resamples, a fixed
seed).  A setting is *within noise* of another when their ``D`` differ by less than
``1.96 sqrt(sd_1^2 + sd_2^2)``.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

import numpy as np
from rich.console import Console

from sparring.errors import ConfigError
from sparring.evaluation.backend import Backend
from sparring.evaluation.match import _check_int, _check_text, _config_from_mapping
from sparring.evaluation.series import SeriesConfig, run_series_set
from sparring.evaluation.store import GameRecord, GameStore
from sparring.strength.alphadda import SideCounts, metric_d

Z95 = 1.959963984540054
"""Two-sided 95% normal quantile (the within-noise rule)."""

FILES = {"report": "report.md", "results": "results.json"}
"""The files :func:`write_report` writes into the output directory."""

STORE_NAME = "games.sqlite"
"""The game store in the output directory when no other is given."""

PAPER_OPPONENTS = ("az:rootrand=0.2", "mcts1", "mcts2", "minimax1", "random")
"""Appendix 2's opponents: AlphaZero (``az``: the game's shipped network, Table A1's
simulations, the most visited move), MCTS1, MCTS2, Minimax1, Random.  AlphaZero takes 20% of
its root simulations at random (``rootrand=0.2``, as in the author's code): without it the
search is deterministic and each side's games against it would be one game repeated."""

Grid = tuple[tuple[str, tuple[str, ...]], ...]
"""A parameter grid: ``((spec key, (value, ...)), ...)``, in the order settings vary (the
last key fastest)."""

PAPER_GRIDS: dict[tuple[str, str], Grid] = {
    # Table A2 (AlphaDDA1: N_h, A_sim, B_sim0, N_max)
    ("connect4", "alphadda1"): (
        ("nh", ("1", "2", "3", "4")),
        ("asim", ("1.6", "2", "2.4")),
        ("bsim0", ("-1.6", "-1.5", "-1.4", "-1.3", "-1.2")),
        ("nmax", ("200", "300", "400")),
    ),
    ("othello6", "alphadda1"): (
        ("nh", ("1", "2", "3", "4", "5")),
        ("asim", ("1.4", "1.6", "2", "2.4")),
        ("bsim0", ("-1.8", "-1.6", "-1.4", "-1.2")),
        ("nmax", ("200", "300", "400")),
    ),
    ("othello", "alphadda1"): (
        ("nh", ("1", "2", "3", "4", "5")),
        ("asim", ("1.6", "2", "2.4", "2.8")),
        ("bsim0", ("-1.8", "-1.6", "-1.4", "-1.2")),
        ("nmax", ("400", "600")),
    ),
    # Table A3 (AlphaDDA2: N_h, A_drop, P_drop0)
    ("connect4", "alphadda2"): (
        ("nh", ("1", "2", "3", "4")),
        ("adrop", ("0.5", "1", "5", "10", "20")),
        ("pdrop0", ("-0.9", "-0.8", "-0.6", "-0.4", "-0.2", "0")),
    ),
    ("othello6", "alphadda2"): (
        ("nh", ("1", "2", "3", "4")),
        ("adrop", ("1", "5", "10", "20")),
        ("pdrop0", ("-0.9", "-0.8", "-0.6", "-0.5", "-0.4")),
    ),
    ("othello", "alphadda2"): (
        ("nh", ("1", "2", "3", "4", "5")),
        ("adrop", ("5", "10", "20", "40")),
        ("pdrop0", ("-0.9", "-0.8", "-0.6", "-0.4")),
    ),
    # Table A4 (AlphaDDA3: N_h, C)
    ("connect4", "alphadda3"): (
        ("nh", ("1", "2", "3", "4", "5")),
        ("c", ("0.25", "0.5", "0.75", "1", "1.25")),
    ),
    ("othello6", "alphadda3"): (
        ("nh", ("1", "2", "3", "4", "5")),
        ("c", ("0.25", "0.5", "0.6", "0.75", "0.9", "1")),
    ),
    ("othello", "alphadda3"): (
        ("nh", ("1", "2", "3", "4", "5")),
        ("c", ("0.25", "0.5", "0.6", "0.75", "0.9", "1")),
    ),
}
"""The paper's grids (Tables A2-A4) by ``(game, kind)``, as the kinds' spec keys and values."""


def canonical_value(text: str) -> str:
    """A grid value as it goes into a spec: numbers in ``format(x, 'g')`` form (``2.0`` and
    ``2`` -> ``2``, ``-0.90`` -> ``-0.9``) so that one setting always has one spec (one series
    key in the store); other text stripped."""
    raw = text.strip()
    if not raw:
        raise ConfigError("empty grid value")
    try:
        number = float(raw)
    except ValueError:
        return raw
    if not math.isfinite(number):
        return raw
    return format(number, "g") if number != 0 else "0"


def parse_grid_option(text: str) -> tuple[str, tuple[str, ...]]:
    """``--grid KEY=V1,V2,...`` -> ``(key, (v1, v2, ...))`` (canonical values, no repeats)."""
    key, eq, values = text.partition("=")
    key = key.strip().lower()
    if not eq or not key or not values.strip():
        raise ConfigError(f"--grid {text!r}: expected KEY=VALUE[,VALUE...]")
    items = tuple(canonical_value(v) for v in values.split(","))
    if len(set(items)) < len(items):
        raise ConfigError(f"--grid {text!r}: a value given twice")
    return key, items


def parse_option(text: str) -> tuple[str, str]:
    """``--option KEY=VALUE`` (a fixed option of every setting) -> ``(key, value)``."""
    key, eq, value = text.partition("=")
    key = key.strip().lower()
    if not eq or not key or not value.strip() or "," in value:
        raise ConfigError(f"--option {text!r}: expected KEY=VALUE (one value)")
    return key, canonical_value(value)


# ---- configuration ---------------------------------------------------------------------------
@dataclass(frozen=True)
class DDAGridConfig:
    """One grid search: every setting of the grid against every opponent.

    Invalid values raise :class:`~sparring.errors.ConfigError`; :meth:`from_mapping` also
    rejects unknown keys.
    """

    game: str
    """Registry name of the game."""
    kind: str
    """The player kind whose settings are searched (``alphadda1``, ``alphadda2``, ...)."""
    grid: Grid = ()
    """Keys whose values replace (or, for keys the paper's grid lacks, extend) the paper's
    grid of ``(game, kind)`` (:data:`PAPER_GRIDS`); without a paper grid this is the grid."""
    options: tuple[tuple[str, str], ...] = ()
    """Fixed ``key=value`` options of every setting (e.g. ``history=code``, ``sims=50``)."""
    opponents: tuple[str, ...] = PAPER_OPPONENTS
    """Opponent specs (distinct)."""
    games: int = 40
    """Games per opponent and setting (even: half as first player; the paper: 40)."""
    seed: int = 0
    """Base seed of every series."""
    workers: int = 1
    """Worker processes."""
    halving: bool = False
    """Successive halving instead of the full grid (see the module doc)."""
    first_games: int = 4
    """Halving: games per opponent in round 1 (even, <= ``games``)."""
    keep: float = 0.5
    """Halving: the fraction of a round's settings that go on (0 < keep < 1)."""
    final: int = 3
    """Halving: a round keeps at least this many settings (or all it has)."""

    def __post_init__(self) -> None:
        _check_text("dda-grid", "game", self.game)
        _check_text("dda-grid", "kind", self.kind)
        if ":" in self.kind or "," in self.kind:
            raise ConfigError(f"dda-grid config: kind must be a bare kind, not {self.kind!r}")
        keys = [k for k, _ in self.grid] + [k for k, _ in self.options]
        if len(set(keys)) < len(keys):
            raise ConfigError("dda-grid config: a key is given twice in grid and options")
        for key, values in self.grid:
            _check_text("dda-grid", "grid key", key)
            if not isinstance(values, tuple) or not values:
                raise ConfigError(f"dda-grid config: grid key {key!r} needs values")
        if not isinstance(self.opponents, tuple) or not self.opponents:
            raise ConfigError("dda-grid config: opponents must be a non-empty list of specs")
        if len({o.strip() for o in self.opponents}) < len(self.opponents):
            raise ConfigError("dda-grid config: opponents has a spec twice")
        _check_int("dda-grid", "games", self.games, 2)
        _check_int("dda-grid", "seed", self.seed, 0)
        _check_int("dda-grid", "workers", self.workers, 1)
        _check_int("dda-grid", "first_games", self.first_games, 2)
        _check_int("dda-grid", "final", self.final, 1)
        if self.games % 2 or self.first_games % 2:
            raise ConfigError("dda-grid config: games and first_games must be even (both sides)")
        if self.halving and self.first_games > self.games:
            raise ConfigError("dda-grid config: first_games must be <= games")
        if not 0.0 < self.keep < 1.0:
            raise ConfigError(f"dda-grid config: keep must be in (0, 1), not {self.keep}")
        self.resolved_grid()  # a kind without a paper grid needs one

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Self:
        """Build from a dict (e.g. results.json's ``config``); unknown keys raise
        ``ConfigError``; lists become tuples."""
        if not isinstance(data, Mapping):
            return _config_from_mapping(cls, data, "dda-grid")
        converted = dict(data)
        for name in ("grid", "options"):
            if name in converted:
                converted[name] = tuple(
                    (str(k), tuple(v) if isinstance(v, list) else v) for k, v in converted[name]
                )
        if "opponents" in converted:
            converted["opponents"] = tuple(converted["opponents"])
        return _config_from_mapping(cls, converted, "dda-grid")

    def to_mapping(self) -> dict[str, Any]:
        """The configuration as a JSON-compatible dict (the inverse of :meth:`from_mapping`)."""
        data = dataclasses.asdict(self)
        data["grid"] = [[k, list(v)] for k, v in self.grid]
        data["options"] = [[k, v] for k, v in self.options]
        data["opponents"] = list(self.opponents)
        return data

    def resolved_grid(self) -> Grid:
        """The grid searched: the paper's grid of ``(game, kind)`` with :attr:`grid` applied."""
        base = dict(PAPER_GRIDS.get((self.game, self.kind), ()))
        if not base and not self.grid:
            raise ConfigError(
                f"dda-grid: no paper grid for {self.kind} on {self.game}; give --grid KEY=V,..."
            )
        base.update(dict(self.grid))
        return tuple(base.items())

    def settings(self) -> tuple[GridSetting, ...]:
        """Every setting of the grid, in grid order (:func:`expand_grid`)."""
        return expand_grid(self.kind, self.resolved_grid(), self.options)

    def schedule(self) -> tuple[int, ...]:
        """Games per opponent of each round: ``(games,)`` without halving."""
        if not self.halving:
            return (self.games,)
        return halving_schedule(self.first_games, self.games)


@dataclass(frozen=True)
class GridSetting:
    """One point of the grid."""

    index: int
    """Its position in grid order (0-based)."""
    values: tuple[tuple[str, str], ...]
    """``((key, value), ...)`` of the grid's keys (canonical values)."""
    spec: str
    """The player spec (``kind:key=value,...``, grid keys then fixed options)."""

    @property
    def label(self) -> str:
        """The grid values as ``key=value,...`` (without the kind and fixed options)."""
        return ",".join(f"{k}={v}" for k, v in self.values)


def expand_grid(
    kind: str, grid: Grid, options: Sequence[tuple[str, str]] = ()
) -> tuple[GridSetting, ...]:
    """The settings of ``grid`` (the product of its values, the last key varying fastest),
    each with its spec ``kind:grid values,options``."""
    keys = [k for k, _ in grid]
    out: list[GridSetting] = []
    for index, combo in enumerate(itertools.product(*(values for _, values in grid))):
        values = tuple(zip(keys, combo, strict=True))
        pieces = [f"{k}={v}" for k, v in values] + [f"{k}={v}" for k, v in options]
        spec = f"{kind}:{','.join(pieces)}" if pieces else kind
        out.append(GridSetting(index=index, values=values, spec=spec))
    return tuple(out)


# ---- successive halving ----------------------------------------------------------------------
def halving_schedule(first_games: int, games: int) -> tuple[int, ...]:
    """Games per opponent of the halving rounds: ``first_games``, doubled while below
    ``games``, then ``games`` (4, 40 -> 4, 8, 16, 32, 40)."""
    if first_games < 1 or games < first_games:
        raise ConfigError(f"bad halving schedule: first {first_games}, games {games}")
    rounds = []
    g = first_games
    while g < games:
        rounds.append(g)
        g *= 2
    rounds.append(games)
    return tuple(rounds)


def survivor_count(n: int, keep: float, final: int) -> int:
    """Settings that go on from a round of ``n``: ``max(min(final, n), ceil(keep n))``."""
    return max(min(final, n), math.ceil(round(keep * n, 9)))


@dataclass(frozen=True)
class HalvingRound:
    """One round of successive halving."""

    games: int
    """Games per opponent each setting of the round has played."""
    settings: tuple[int, ...]
    """The indices of the settings played this round (grid order)."""
    scores: tuple[float, ...]
    """Their ``D`` (aligned with :attr:`settings`)."""
    survivors: tuple[int, ...]
    """The settings that go on, best first (empty after the last round)."""


Evaluate = Callable[[Sequence[int], int], Mapping[int, float]]
"""``evaluate(settings, games)``: the ``D`` of each setting after ``games`` games per opponent."""


def successive_halving(
    n_settings: int,
    schedule: Sequence[int],
    keep: float,
    final: int,
    evaluate: Evaluate,
    on_round: Callable[[HalvingRound], None] | None = None,
) -> tuple[HalvingRound, ...]:
    """Run the halving rule over settings ``0 .. n_settings - 1``: round ``r`` evaluates the
    survivors at ``schedule[r]`` games per opponent; all but the last round keep the
    :func:`survivor_count` best by ``D`` (smaller first, ties by index).  ``on_round`` sees
    every round as it ends."""
    alive = tuple(range(n_settings))
    rounds: list[HalvingRound] = []
    for number, games in enumerate(schedule):
        d = evaluate(alive, games)
        scores = tuple(float(d[i]) for i in alive)
        last = number == len(schedule) - 1
        ranked = sorted(alive, key=lambda i: (float(d[i]), i))
        survivors = () if last else tuple(ranked[: survivor_count(len(alive), keep, final)])
        done = HalvingRound(games=games, settings=alive, scores=scores, survivors=survivors)
        rounds.append(done)
        if on_round is not None:
            on_round(done)
        if last:
            break
        alive = tuple(sorted(survivors))
    return tuple(rounds)


# ---- counting ----------------------------------------------------------------------------------
def side_counts(records: Sequence[GameRecord]) -> SideCounts:
    """A's (the setting's) wins, losses and draws by side over ``records``."""
    counts = SideCounts()
    for record in records:
        counts = counts.add(record.score_a, record.a_first)
    return counts


def d_bootstrap_sd(counts: Mapping[str, SideCounts], resamples: int = 1000, seed: int = 0) -> float:
    """The bootstrap standard deviation of :func:`metric_d`: each opponent's games of each
    side resampled with replacement (multinomial with the cell's win / loss / draw shares),
    ``resamples`` times with the numpy generator of ``seed``."""
    rng = np.random.default_rng(seed)
    total = np.zeros(resamples)
    for c in counts.values():
        for n, cell in (
            (c.games_first, (c.wins_first, c.losses_first, c.draws_first)),
            (c.games_second, (c.wins_second, c.losses_second, c.draws_second)),
        ):
            if n == 0:
                continue
            draws = rng.multinomial(n, np.array(cell, dtype=float) / n, size=resamples)
            total += np.abs(draws[:, 0] - draws[:, 1])
    return float(total.std())


@dataclass(frozen=True)
class SettingScore:
    """A setting's results after ``games`` games per opponent."""

    setting: GridSetting
    games: int
    """Games per opponent counted."""
    counts: tuple[tuple[str, SideCounts], ...]
    """``(opponent label, counts)`` per opponent, in the config's order."""

    @property
    def complete(self) -> bool:
        """Whether every opponent has ``games`` games."""
        return all(c.games == self.games for _, c in self.counts)

    @property
    def d(self) -> int:
        """Eq. 11's ``D``."""
        return metric_d(dict(self.counts))

    @property
    def total_games(self) -> int:
        """Games counted over all opponents."""
        return sum(c.games for _, c in self.counts)

    @property
    def d_rate(self) -> float:
        """``D`` per game played (0: balanced, 1: every game of every side one-sided)."""
        return self.d / self.total_games if self.total_games else math.nan

    @property
    def sd(self) -> float:
        """:func:`d_bootstrap_sd` of the counts."""
        return d_bootstrap_sd(dict(self.counts))


@dataclass(frozen=True)
class GridResult:
    """The outcome of :func:`run_grid`."""

    config: DDAGridConfig
    settings: tuple[GridSetting, ...]
    opponent_labels: tuple[str, ...]
    rounds: tuple[HalvingRound, ...]
    """The rounds played (one round of every setting without halving)."""
    scores: tuple[SettingScore, ...]
    """Every setting at the most games per opponent it played (last round reached first)."""
    full_grid: tuple[SettingScore, ...] | None
    """Every setting at ``games`` per opponent when the store holds them all (a full grid
    run on the same store), else None."""
    stored: int
    """Games of this search found in the store at the end."""
    played: int
    """Games played by this call."""

    @property
    def best(self) -> SettingScore:
        """The setting chosen: the smallest ``D`` of the last round (ties: grid order)."""
        last = self.rounds[-1]
        best = min(zip(last.scores, last.settings, strict=True))[1]
        return next(s for s in self.scores if s.setting.index == best)

    @property
    def full_best(self) -> SettingScore | None:
        """The full grid's best setting (when :attr:`full_grid` is known)."""
        if self.full_grid is None:
            return None
        return min(self.full_grid, key=lambda s: (s.d, s.setting.index))

    @property
    def games_used(self) -> int:
        """Games the search rests on: each setting's games at the last round it reached."""
        return sum(s.total_games for s in self.scores)


# ---- running ---------------------------------------------------------------------------------
def series_config(
    config: DDAGridConfig, setting: GridSetting, opponent: str, games: int
) -> SeriesConfig:
    """The series of ``setting`` against ``opponent`` (its first ``games`` games)."""
    return SeriesConfig(
        game=config.game,
        spec_a=setting.spec,
        spec_b=opponent,
        games_per_series=games,
        series=1,
        seed=config.seed,
        workers=config.workers,
    )


def stored_score(
    config: DDAGridConfig,
    setting: GridSetting,
    labels: Sequence[str],
    games: int,
    store: GameStore,
) -> SettingScore:
    """The setting's counts from the store's first ``games`` games per opponent (no play)."""
    counts = []
    for opponent, label in zip(config.opponents, labels, strict=True):
        run_key = series_config(config, setting, opponent, games).run_key
        records = [r for r in store.iter_games(run_key) if r.pairing == 0 and r.game_index < games]
        counts.append((label, side_counts(records)))
    return SettingScore(setting=setting, games=games, counts=tuple(counts))


def check_config(config: DDAGridConfig) -> tuple[str, ...]:
    """Validate the game, the first setting's spec and the opponents before any game; returns
    the opponents' display labels."""
    from sparring.evaluation.match import player_labels
    from sparring.games import get_game

    game = get_game(config.game)
    settings = config.settings()
    labels = player_labels(game, (settings[0].spec, settings[-1].spec, *config.opponents))
    return labels[2:]


def run_grid(
    config: DDAGridConfig,
    store: GameStore,
    *,
    progress: bool = True,
    console: Console | None = None,
    on_round: Callable[[GridResult], object] | None = None,
    backend: Backend | None = None,
) -> GridResult:
    """Play (or resume) the grid search of ``config`` into ``store`` and score it.

    ``on_round`` gets the result so far after every round (e.g. to write the report as the
    search goes).  ``backend`` plays the series (None: the local pool of ``config.workers``
    processes; the games do not depend on it).
    """
    console = console or Console()
    labels = check_config(config)
    settings = config.settings()
    schedule = config.schedule()
    played = 0
    best_scores: dict[int, SettingScore] = {}
    rounds: list[HalvingRound] = []

    def evaluate(indices: Sequence[int], games: int) -> dict[int, float]:
        nonlocal played
        console.print(
            f"round {len(rounds) + 1} of {len(schedule)}: {len(indices)} settings x "
            f"{len(config.opponents)} opponents, {games} games each"
        )
        configs = [
            series_config(config, settings[i], opponent, games)
            for i in indices
            for opponent in config.opponents
        ]
        results = run_series_set(
            configs,
            store,
            workers=config.workers,
            progress=progress,
            console=console,
            backend=backend,
        )
        played += sum(r.played for r in results)
        out: dict[int, float] = {}
        for i in indices:
            score = stored_score(config, settings[i], labels, games, store)
            if not score.complete:
                raise ConfigError(f"setting {settings[i].spec}: games missing after its round")
            best_scores[i] = score
            out[i] = float(score.d)
        return out

    def round_done(done: HalvingRound) -> None:
        rounds.append(done)
        if on_round is not None and len(rounds) < len(schedule):
            on_round(_result(config, settings, labels, rounds, best_scores, store, played))

    successive_halving(len(settings), schedule, config.keep, config.final, evaluate, round_done)
    return _result(config, settings, labels, rounds, best_scores, store, played)


def _result(
    config: DDAGridConfig,
    settings: Sequence[GridSetting],
    labels: Sequence[str],
    rounds: Sequence[HalvingRound],
    scores: Mapping[int, SettingScore],
    store: GameStore,
    played: int,
) -> GridResult:
    full: tuple[SettingScore, ...] | None = None
    if config.halving:
        candidates = tuple(stored_score(config, s, labels, config.games, store) for s in settings)
        if all(s.complete for s in candidates):
            full = candidates
    ordered = sorted(scores.values(), key=lambda s: (-s.games, s.d, s.setting.index))
    return GridResult(
        config=config,
        settings=tuple(settings),
        opponent_labels=tuple(labels),
        rounds=tuple(rounds),
        scores=tuple(ordered),
        full_grid=full,
        stored=sum(s.total_games for s in scores.values()),
        played=played,
    )


# ---- report ------------------------------------------------------------------------------------
def within_noise(a: SettingScore, b: SettingScore) -> bool:
    """Whether ``|D_a - D_b| < 1.96 sqrt(sd_a^2 + sd_b^2)`` (the module doc's rule)."""
    return abs(a.d - b.d) < Z95 * math.hypot(a.sd, b.sd)


def _counts_json(c: SideCounts) -> dict[str, int]:
    return dataclasses.asdict(c)


def score_json(score: SettingScore) -> dict[str, Any]:
    """One setting's scores as JSON."""
    return {
        "index": score.setting.index,
        "spec": score.setting.spec,
        "values": dict(score.setting.values),
        "games_per_opponent": score.games,
        "games": score.total_games,
        "D": score.d,
        "D_per_game": score.d_rate,
        "D_sd": score.sd,
        "opponents": {label: _counts_json(c) for label, c in score.counts},
    }


def result_json(result: GridResult, command: str | None = None) -> dict[str, Any]:
    """Everything of the report as a JSON-compatible dict."""
    best = result.best
    data: dict[str, Any] = {
        "config": result.config.to_mapping(),
        "grid": [[k, list(v)] for k, v in result.config.resolved_grid()],
        "schedule": list(result.config.schedule()),
        "opponents": list(result.opponent_labels),
        "complete": len(result.rounds) == len(result.config.schedule()),
        "rounds": [
            {
                "games_per_opponent": r.games,
                "settings": list(r.settings),
                "D": list(r.scores),
                "survivors": list(r.survivors),
            }
            for r in result.rounds
        ],
        "best": score_json(best),
        "games_used": result.games_used,
        "games_full_grid": len(result.settings)
        * len(result.config.opponents)
        * result.config.games,
        "settings": [score_json(s) for s in result.scores],
    }
    full_best = result.full_best
    if result.full_grid is not None and full_best is not None:
        in_full = next(s for s in result.full_grid if s.setting.index == best.setting.index)
        ranked = sorted(result.full_grid, key=lambda s: (s.d, s.setting.index))
        data["full_grid"] = {
            "best": score_json(full_best),
            "halving_pick": score_json(in_full),
            "halving_pick_rank": ranked.index(in_full) + 1,
            "within_noise": within_noise(in_full, full_best),
        }
    if command:
        data["command"] = command
    return data


def _cell(c: SideCounts) -> str:
    return (
        f"{c.wins_first}/{c.losses_first}/{c.draws_first} · "
        f"{c.wins_second}/{c.losses_second}/{c.draws_second}"
    )


def _score_rows(scores: Sequence[SettingScore], labels: Sequence[str]) -> list[str]:
    head = "| # | setting | games/opp. | D | D/game | sd(D) | " + " | ".join(labels) + " |"
    rule = "| ---: | --- | ---: | ---: | ---: | ---: | " + " | ".join("---" for _ in labels) + " |"
    rows = [head, rule]
    for s in scores:
        cells = " | ".join(_cell(c) for _, c in s.counts)
        rows.append(
            f"| {s.setting.index} | `{s.setting.label}` | {s.games} | {s.d} | {s.d_rate:.3f} | "
            f"{s.sd:.1f} | {cells} |"
        )
    return rows


def report_markdown(result: GridResult, command: str | None = None) -> str:
    """The report: the rule, the rounds, every setting's ``D`` and the best."""
    config = result.config
    mode = "successive halving" if config.halving else "full grid"
    lines = [f"# AlphaDDA grid search: {config.game}, {config.kind} ({mode})", ""]
    if command:
        lines += ["```bash", command, "```", ""]
    grid = "; ".join(f"{k} = {', '.join(v)}" for k, v in config.resolved_grid())
    fixed = ", ".join(f"{k}={v}" for k, v in config.options) or "none"
    schedule = config.schedule()
    lines += [
        f"* Grid ({len(result.settings)} settings): {grid}. Fixed options: {fixed}.",
        f"* Opponents: {', '.join(result.opponent_labels)} (specs: "
        f"{', '.join(f'`{o}`' for o in config.opponents)}); {config.games} games per opponent "
        "and setting in full, the setting first in the even-numbered games; seed "
        f"{config.seed}.",
        "* D (Eq. 11) = sum over opponents of |W - L| as first player + |W - L| as second "
        "player (smaller is better); sd(D): bootstrap over each opponent's and side's games "
        "(1000 resamples); D/game = D / games played.",
    ]
    if config.halving:
        lines.append(
            f"* Successive halving: rounds of {', '.join(map(str, schedule))} games per "
            f"opponent; after each round but the last the max(min({config.final}, n), "
            f"ceil({config.keep:g} n)) settings with the smallest D go on (ties: grid order); "
            "a round continues the earlier rounds' games (same seeds)."
        )
    complete = len(result.rounds) == len(schedule)
    lines.append(
        f"* Games: {result.games_used} the search rests on "
        f"(the full grid: {len(result.settings) * len(config.opponents) * config.games}); "
        f"{result.played} played by this call."
    )
    if not complete:
        lines.append(
            f"* **Incomplete**: {len(result.rounds)} of {len(schedule)} rounds done; the best "
            "below is the best of the last finished round."
        )
    lines.append("")
    if result.rounds:
        best = result.best
        lines += [
            "## Best",
            "",
            f"`{best.setting.spec}`: D = {best.d} (sd {best.sd:.1f}) over {best.games} games per "
            f"opponent ({best.total_games} games), D/game {best.d_rate:.3f}.",
            "",
        ]
    full_best = result.full_best
    if result.full_grid is not None and full_best is not None and result.rounds:
        best = result.best
        in_full = next(s for s in result.full_grid if s.setting.index == best.setting.index)
        ranked = sorted(result.full_grid, key=lambda s: (s.d, s.setting.index))
        verdict = "within" if within_noise(in_full, full_best) else "not within"
        lines += [
            "## Against the full grid (same store, same games)",
            "",
            f"The full grid's best: `{full_best.setting.label}`, D = {full_best.d} "
            f"(sd {full_best.sd:.1f}). The halving pick `{best.setting.label}` has D = "
            f"{in_full.d} (sd {in_full.sd:.1f}) on the full {config.games} games per opponent "
            f"(rank {ranked.index(in_full) + 1} of {len(ranked)}): {verdict} noise "
            f"(|difference| < 1.96 sqrt(sd1^2 + sd2^2)), with {result.games_used} of "
            f"{len(result.settings) * len(config.opponents) * config.games} games "
            f"({result.games_used / (len(ranked) * len(config.opponents) * config.games):.0%}).",
            "",
        ]
    if config.halving and result.rounds:
        lines += ["## Rounds", "", "| round | games/opp. | settings | kept (best first) |"]
        lines.append("| ---: | ---: | ---: | --- |")
        for number, r in enumerate(result.rounds, 1):
            kept = ", ".join(str(i) for i in r.survivors) or "-"
            lines.append(f"| {number} | {r.games} | {len(r.settings)} | {kept} |")
        lines.append("")
    lines += [
        "## Every setting",
        "",
        "Sorted by games played (most first), then D. Cells: the setting's wins/losses/draws "
        "as first player · as second player.",
        "",
        *_score_rows(result.scores, result.opponent_labels),
        "",
    ]
    return "\n".join(lines)


def write_report(result: GridResult, out: Path, command: str | None = None) -> dict[str, Path]:
    """Write ``report.md`` and ``results.json`` into ``out``; returns the paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {key: out / name for key, name in FILES.items()}
    paths["report"].write_text(report_markdown(result, command))
    data = result_json(result, command)
    paths["results"].write_text(json.dumps(data, indent=1, allow_nan=False) + "\n")
    return paths


__all__ = [
    "PAPER_GRIDS",
    "PAPER_OPPONENTS",
    "DDAGridConfig",
    "GridResult",
    "GridSetting",
    "HalvingRound",
    "SettingScore",
    "canonical_value",
    "d_bootstrap_sd",
    "expand_grid",
    "halving_schedule",
    "parse_grid_option",
    "parse_option",
    "result_json",
    "run_grid",
    "side_counts",
    "stored_score",
    "successive_halving",
    "survivor_count",
    "write_report",
]
