"""The multi-skill estimator's classifier: one game's features to a distribution over ranks,
and N games' distributions combined.

Two per-game models, both fitted on single games (one sample a game):

* ``softmax`` -- a multinomial logistic regression
  (:func:`~sparring.estimation.classify.fit_softmax`) gives each game its log-probabilities;
  over N games they are summed and tempered (:class:`Combination`: the logits
  ``tau * s(N) * mean_g log p_g(r)``, ``s(N) = N / (1 + N / n0)``).
  Summing the games' log-probabilities of a linear softmax is the same as one linear softmax
  over the games' summed features, so the combination is the regression over N games, with the
  evidence of N games allowed to saturate.
* ``ordinal`` -- a ridge regression of the rank index on the features
  (:func:`~sparring.estimation.classify.fit_ridge`) gives each game a strength *score*
  (as the SE network's score, but learned from all the features); over N games the mean score
  ``z`` is read against Gaussian ranks (:class:`RankGaussians`): ``p(r | z) ~ exp(-(z -
  c_r)^2 / 2 v(N))``, the centres ``c_r`` on a line over the rank index (``line``) or one per
  rank (``free``), the variance ``v(N) = v_player + v_game / N`` (games of one player share
  that player's level).  The ranks' order is built in, so it needs far fewer parameters than
  the softmax.

The combination's few numbers are fitted on *held-out folds* of players (:func:`held_folds`:
each fold's games go through a per-game model fitted on the other folds, and an ordinal
fold is read against centres made from the other folds' games), over draws of N games; the
model, the feature set and the penalty are chosen by the cross-validated log-loss
(:func:`tune`).  Centres fitted on the very games they are then asked about would lie at
those players' own means and make the variance, and the confidence at large N, too small.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy.optimize import minimize

from sparring.errors import SparringError
from sparring.estimation.classify import (
    LinearScore,
    SoftmaxModel,
    fit_ridge,
    fit_softmax,
    mean_log_loss,
)
from sparring.estimation.multiskill import FEATURE_SETS, features
from sparring.estimation.predict import draw_orders, player_hash

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

MODELS = ("ordinal", "softmax")
CENTRES = ("line", "free")

TRAIN_N = (1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100)
"""Numbers of games of the draws the combination is fitted on."""
EVAL_N = (1, 5, 10, 15, 20, 50, 100)
"""Numbers of games the choice of settings is judged at (and the reports' columns)."""


def _softmax(logits: FloatArray) -> FloatArray:
    z = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(z)
    result: FloatArray = e / e.sum(axis=-1, keepdims=True)
    return result


def _log_loss_of_logits(logits: FloatArray, y: IntArray) -> float:
    top = logits.max(axis=1)
    lse = top + np.log(np.exp(logits - top[:, None]).sum(axis=1))
    return float((lse - logits[np.arange(y.size), y]).mean())


def n_scale(n_games: npt.ArrayLike, n0: float) -> FloatArray:
    """``s(N) = N / (1 + N / n0)`` (``N`` itself when ``n0`` is infinite): how many games'
    worth of evidence N games of one player carry when games share the player's level."""
    n = np.asarray(n_games, dtype=np.float64)
    if math.isinf(n0):
        return n
    result: FloatArray = n / (1.0 + n / n0)
    return result


def draw_sets(
    units: FloatArray,
    unit_rank: IntArray,
    n_ranks: int,
    ns: Sequence[int],
    draws: int,
    seed: int,
) -> tuple[FloatArray, IntArray]:
    """Summed per-unit vectors ``units [U, D]`` of random sets of N units of one rank, for
    every rank with units and every N in ``ns`` (``draws`` sets each; the draws of
    :func:`~sparring.estimation.predict.accuracy_curves`: nested prefixes of one random order
    per draw, with replacement when the rank has fewer units than the largest N).  Returns
    ``(sums [M, D], rank [M])``, ordered by rank, draw, then N."""
    largest = max(ns)
    at = np.asarray(ns, dtype=np.int64) - 1
    xs, ys = [], []
    for r in range(n_ranks):
        pool = np.flatnonzero(unit_rank == r)
        if pool.size == 0:
            continue
        order = draw_orders(pool.size, r, largest, draws, seed)
        cum = np.cumsum(units[pool[order]], axis=1)[:, at]  # [draws, len(ns), D]
        xs.append(cum.reshape(-1, units.shape[1]))
        ys.append(np.full(cum.shape[0] * cum.shape[1], r, dtype=np.int64))
    return np.concatenate(xs), np.concatenate(ys)


# ---- combining N games ------------------------------------------------------------------------
@dataclass(frozen=True)
class Combination:
    """Softmax games: the logits of N games are ``tau * s(N) * mean_g log p_g(r)``
    (:func:`n_scale`), a tempered product of the games' distributions."""

    tau: float = 1.0
    n0: float = math.inf

    def logits(self, sums: npt.ArrayLike, n_games: npt.ArrayLike) -> FloatArray:
        """Logits ``[..., R]`` of N games whose log-probabilities sum to ``sums [..., R]``."""
        n = np.maximum(np.asarray(n_games, dtype=np.float64), 1.0)[..., None]
        scale = self.tau * n_scale(n, self.n0) / n
        result: FloatArray = scale * np.asarray(sums, dtype=np.float64)
        return result

    def describe(self) -> str:
        n0 = "inf" if math.isinf(self.n0) else f"{self.n0:.3g}"
        return f"tau={self.tau:.3g}, n0={n0}"

    def to_dict(self) -> dict[str, Any]:
        return {"tau": self.tau, "n0": None if math.isinf(self.n0) else self.n0}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Combination:
        return cls(float(data["tau"]), math.inf if data["n0"] is None else float(data["n0"]))


N0_MAX = 1e4
"""The largest ``n0`` :func:`fit_combination` tries; at it the scale is ``N`` to within 1%
up to N = 100, and it is stored as infinite."""


def fit_combination(units: FloatArray, unit_rank: IntArray, draws: int, seed: int) -> Combination:
    """The :class:`Combination` with the lowest mean log-loss over draws of N games
    (:data:`TRAIN_N`) of games whose out-of-fold log-probabilities are ``units[:, :R]``
    (``units[:, R]`` = 1)."""
    n_ranks = units.shape[1] - 1
    x, y = draw_sets(units, unit_rank, n_ranks, TRAIN_N, draws, seed)

    def loss(theta: FloatArray) -> float:
        comb = Combination(float(np.exp(theta[0])), float(np.exp(theta[1])))
        return _log_loss_of_logits(comb.logits(x[:, :n_ranks], x[:, n_ranks]), y)

    bounds = [(math.log(1e-3), math.log(1e2)), (math.log(0.1), math.log(N0_MAX))]
    best = min(
        (
            minimize(loss, np.array(start), method="L-BFGS-B", bounds=bounds)
            for start in ((0.0, math.log(3.0)), (0.0, math.log(100.0)))
        ),
        key=lambda found: float(found.fun),
    )
    tau, n0 = float(np.exp(best.x[0])), float(np.exp(best.x[1]))
    return Combination(tau, math.inf if n0 >= 0.99 * N0_MAX else n0)


@dataclass(frozen=True)
class RankGaussians:
    """Ordinal games: ``p(r | mean score z of N games) ~ exp(-(z - c_r)^2 / (2 v(N)))`` with
    ``v(N) = v_player + v_game / N``."""

    centres: FloatArray
    """``[R]``: each rank's mean score."""
    v_player: float
    v_game: float

    def logits(self, sums: npt.ArrayLike, n_games: npt.ArrayLike) -> FloatArray:
        """Logits ``[..., R]`` of N games whose scores sum to ``sums [..., 1]``."""
        n = np.maximum(np.asarray(n_games, dtype=np.float64), 1.0)
        z = np.asarray(sums, dtype=np.float64)[..., 0] / n
        v = self.v_player + self.v_game / n
        result: FloatArray = -((z[..., None] - self.centres) ** 2) / (2.0 * v[..., None])
        return result

    def describe(self) -> str:
        c = self.centres
        return (
            f"centres {c[0]:.2f}..{c[-1]:.2f}, v_player={self.v_player:.3g}, "
            f"v_game={self.v_game:.3g}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {"centres": self.centres.tolist(), "v_player": self.v_player, "v_game": self.v_game}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RankGaussians:
        return cls(
            np.asarray(data["centres"], dtype=np.float64),
            float(data["v_player"]),
            float(data["v_game"]),
        )


def rank_centres(
    scores: FloatArray, unit_rank: IntArray, n_ranks: int, centres: str = "line"
) -> FloatArray:
    """Each rank's mean score (``free``) or the least-squares line of those means over the rank
    index (``line``); a rank without games takes the line's value either way."""
    if centres not in CENTRES:
        raise ValueError(f"centres must be one of {CENTRES}, not {centres!r}")
    index = np.arange(n_ranks, dtype=np.float64)
    sums = np.bincount(unit_rank, weights=scores, minlength=n_ranks)
    counts = np.bincount(unit_rank, minlength=n_ranks)
    known = counts > 0
    if known.sum() < 2:
        raise SparringError("rank centres need games of at least two ranks")
    means = np.where(known, sums / np.maximum(counts, 1), np.nan)
    slope, intercept = np.polyfit(index[known], means[known], 1)
    line = intercept + slope * index
    result: FloatArray = line if centres == "line" else np.where(known, means, line)
    return result


@dataclass(frozen=True)
class HeldFold:
    """One fold's games scored by a model fitted on the other folds, with the rank centres of
    that model's scores on the other folds' games (ordinal)."""

    units: FloatArray
    """``[G, K + 1]``: :func:`per_game_units` of the fold's games."""
    rank: IntArray
    centres: FloatArray


def fit_rank_variance(
    folds: Sequence[HeldFold], n_ranks: int, draws: int, seed: int
) -> tuple[float, float]:
    """``(v_player, v_game)`` of :class:`RankGaussians` with the lowest mean log-loss over
    draws of N games (:data:`TRAIN_N`) of each held fold against its own centres, made from
    the *other* players' games as the final centres are made from the choose part and read
    the report part's players: so the variance takes in how far one set of players' rank
    means lies from another's, which centres fitted on the same games cannot show."""
    sets = []
    for f, fold in enumerate(folds):
        x, y = draw_sets(fold.units, fold.rank, n_ranks, TRAIN_N, draws, seed + f)
        sets.append((x, y, fold.centres))
    total = sum(y.size for _, y, _ in sets)

    def loss(theta: FloatArray) -> float:
        v_player, v_game = float(np.exp(theta[0])), float(np.exp(theta[1]))
        out = 0.0
        for x, y, centres in sets:
            logits = RankGaussians(centres, v_player, v_game).logits(x[:, :1], x[:, 1])
            out += _log_loss_of_logits(logits, y) * y.size
        return out / total

    found = minimize(
        loss,
        np.array([math.log(0.05), math.log(1.0)]),
        method="L-BFGS-B",
        bounds=[(-12.0, 6.0), (-12.0, 6.0)],
    )
    return float(np.exp(found.x[0])), float(np.exp(found.x[1]))


# ---- the model --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Settings:
    """The classifier settings :func:`tune` chooses among."""

    model: str = "ordinal"
    """One of :data:`MODELS`."""
    feature_set: str = "base"
    """One of :data:`~sparring.estimation.multiskill.FEATURE_SETS`."""
    l2: float = 1e-2
    """Penalty of the per-game regression (on standardised features)."""
    centres: str = "line"
    """``ordinal``: the ranks' centres (:data:`CENTRES`)."""

    def __post_init__(self) -> None:
        if self.model not in MODELS:
            raise ValueError(f"model must be one of {MODELS}, not {self.model!r}")
        if self.feature_set not in FEATURE_SETS:
            raise ValueError(f"feature set must be one of {FEATURE_SETS}")
        if self.centres not in CENTRES:
            raise ValueError(f"centres must be one of {CENTRES}")

    def describe(self) -> str:
        centres = f", centres={self.centres}" if self.model == "ordinal" else ""
        return f"{self.model}, features={self.feature_set}, l2={self.l2:g}{centres}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "feature_set": self.feature_set,
            "l2": self.l2,
            "centres": self.centres,
        }


PerGame = SoftmaxModel | LinearScore
Combiner = Combination | RankGaussians


def fit_per_game(x: FloatArray, unit_rank: IntArray, n_ranks: int, settings: Settings) -> PerGame:
    """The per-game model of ``settings`` fitted on single games' features ``x``."""
    if settings.model == "softmax":
        return fit_softmax(x, unit_rank, n_ranks, settings.l2)
    return fit_ridge(x, unit_rank.astype(np.float64), settings.l2)


def per_game_units(per_game: PerGame, x: npt.ArrayLike) -> FloatArray:
    """``[..., K + 1]``: a game's log-probabilities (softmax) or score (ordinal) and a 1, the
    vectors whose sums over N games the combination reads."""
    if isinstance(per_game, SoftmaxModel):
        out = per_game.log_probabilities(x)
    else:
        out = per_game.score(x)[..., None]
    return np.concatenate([out, np.ones((*out.shape[:-1], 1))], axis=-1)


@dataclass(frozen=True)
class MultiSkillModel:
    """A fitted multi-skill estimator over one game's ranks."""

    game: str
    ranks: tuple[str, ...]
    settings: Settings
    per_game: PerGame
    combination: Combiner
    moves_per_game: int = 0
    """Moves per game scored in the games it was fitted on (0: all)."""

    def unit_features(self, stats: npt.ArrayLike) -> FloatArray:
        """``[G, K + 1]`` from games' statistics ``[G, S]``
        (:func:`~sparring.estimation.multiskill.game_statistics`): the vectors whose sums
        over N games :meth:`combined` reads (the accuracy engine's unit features)."""
        x = features(stats, len(self.ranks), self.settings.feature_set)
        return per_game_units(self.per_game, x)

    def combined(self, sums: npt.ArrayLike) -> FloatArray:
        """The distribution ``[..., R]`` of N games from their summed :meth:`unit_features`."""
        s = np.asarray(sums, dtype=np.float64)
        return _softmax(self.combination.logits(s[..., :-1], s[..., -1]))

    def decide(self, sums: npt.ArrayLike) -> IntArray:
        """The most probable rank index of summed :meth:`unit_features`."""
        result: IntArray = self.combined(sums).argmax(axis=-1)
        return result

    def probabilities(self, game_stats: npt.ArrayLike) -> FloatArray:
        """The distribution over ranks ``[R]`` of one player's games from their statistics
        ``[G, S]`` (a row a game)."""
        units = self.unit_features(np.atleast_2d(np.asarray(game_stats, dtype=np.float64)))
        return self.combined(units.sum(axis=0))

    def to_json(self) -> str:
        return json.dumps(
            {
                "format": "sparring-multiskill",
                "version": 1,
                "game": self.game,
                "ranks": list(self.ranks),
                "settings": self.settings.to_dict(),
                "per_game": self.per_game.to_dict(),
                "combination": self.combination.to_dict(),
                "moves_per_game": self.moves_per_game,
            }
        )

    @classmethod
    def from_json(cls, text: str) -> MultiSkillModel:
        data = json.loads(text)
        if data.get("format") != "sparring-multiskill" or data.get("version") != 1:
            raise SparringError("not a multi-skill estimator file (version 1)")
        settings = Settings(**data["settings"])
        per_game: PerGame
        combination: Combiner
        if settings.model == "softmax":
            per_game = SoftmaxModel.from_dict(data["per_game"])
            combination = Combination.from_dict(data["combination"])
        else:
            per_game = LinearScore.from_dict(data["per_game"])
            combination = RankGaussians.from_dict(data["combination"])
        return cls(
            data["game"],
            tuple(data["ranks"]),
            settings,
            per_game,
            combination,
            int(data.get("moves_per_game", 0)),
        )


# ---- choosing the settings by cross-validation over players ---------------------------------
DEFAULT_GRID: tuple[Settings, ...] = (
    *(
        Settings("ordinal", f, l2, c)
        for f, l2, c in itertools.product(FEATURE_SETS, (1e-3, 1e-2, 1e-1, 1.0), CENTRES)
    ),
    *(
        Settings("softmax", f, l2)
        for f, l2 in itertools.product(FEATURE_SETS, (1e-3, 1e-2, 1e-1, 1.0))
    ),
)


def player_folds(unit_focus: Sequence[str], unit_rank: IntArray, folds: int) -> IntArray:
    """A fold per unit such that a focus player's units share a fold: each focus player's
    home rank (where they have the most units; ties the stronger) lists its players ordered by
    :func:`~sparring.estimation.predict.player_hash`, and they take folds 0, 1, ... in turn,
    so every rank's players are spread over the folds."""
    per: dict[str, dict[int, int]] = {}
    for name, r in zip(unit_focus, np.asarray(unit_rank).tolist(), strict=True):
        per.setdefault(name, {})
        per[name][r] = per[name].get(r, 0) + 1
    home: dict[int, list[str]] = {}
    for name, counts in per.items():
        home.setdefault(min(counts, key=lambda k: (-counts[k], k)), []).append(name)
    fold_of: dict[str, int] = {}
    for names in home.values():
        for i, name in enumerate(sorted(names, key=lambda n: (player_hash(n), n))):
            fold_of[name] = i % folds
    return np.array([fold_of[n] for n in unit_focus], dtype=np.int64)


def held_folds(
    stats: FloatArray, unit_rank: IntArray, fold: IntArray, n_ranks: int, settings: Settings
) -> list[HeldFold]:
    """Per fold (in order), its games' :func:`per_game_units` from a per-game model fitted on
    the other folds, and (ordinal) that model's :func:`rank_centres` on the other folds'
    games."""
    x = features(stats, n_ranks, settings.feature_set)
    out = []
    for f in np.unique(fold).tolist():
        held = fold == f
        model = fit_per_game(x[~held], unit_rank[~held], n_ranks, settings)
        centres = np.zeros(0)
        if isinstance(model, LinearScore):
            train_scores = model.score(x[~held])
            centres = rank_centres(train_scores, unit_rank[~held], n_ranks, settings.centres)
        out.append(HeldFold(per_game_units(model, x[held]), unit_rank[held], centres))
    return out


@dataclass(frozen=True)
class TuneResult:
    """Cross-validated scores of every setting tried, and the best (lowest log-loss)."""

    best: Settings
    combination: Combiner
    """The best setting's combination, fitted on its held folds (ordinal: the variances; the
    final model makes its centres from all the games, :func:`fit_model`)."""
    rows: list[tuple[Settings, Combiner, float, float]]
    """``(settings, combination, mean log-loss, mean exact accuracy)`` over draws of each N
    of :data:`EVAL_N` from the held folds."""
    folds: int


def _cross_validate(
    folds: list[HeldFold], n_ranks: int, settings: Settings, draws: int, seed: int
) -> tuple[Combiner, float, float]:
    """The combination fitted on the held folds, and its mean log-loss and exact accuracy on
    other draws of them."""
    if settings.model == "softmax":
        units = np.concatenate([f.units for f in folds])
        ranks = np.concatenate([f.rank for f in folds])
        comb = fit_combination(units, ranks, draws, seed + 1)
        x, y = draw_sets(units, ranks, n_ranks, EVAL_N, draws, seed + 2)
        p = _softmax(comb.logits(x[:, :-1], x[:, -1]))
        return comb, mean_log_loss(p, y), float((p.argmax(axis=1) == y).mean())
    v_player, v_game = fit_rank_variance(folds, n_ranks, draws, seed + 1)
    losses, hits, count = 0.0, 0.0, 0
    for f, fold in enumerate(folds):
        x, y = draw_sets(fold.units, fold.rank, n_ranks, EVAL_N, draws, seed + 2 + f)
        logits = RankGaussians(fold.centres, v_player, v_game).logits(x[:, :1], x[:, 1])
        losses += _log_loss_of_logits(logits, y) * y.size
        hits += float((logits.argmax(axis=1) == y).sum())
        count += y.size
    mean_centres = np.mean([f.centres for f in folds], axis=0)
    return RankGaussians(mean_centres, v_player, v_game), losses / count, hits / count


def tune(
    stats: FloatArray,
    unit_rank: IntArray,
    unit_focus: Sequence[str],
    n_ranks: int,
    grid: Sequence[Settings] = DEFAULT_GRID,
    folds: int = 3,
    draws: int = 128,
    seed: int = 0,
) -> TuneResult:
    """Choose the :class:`Settings` with the lowest mean log-loss over draws of N games (each
    N of :data:`EVAL_N`) of games held out by focus player (:func:`player_folds`): each fold's
    games go through a per-game model fitted on the other folds (:func:`held_folds`) and a
    combination fitted on the held folds (softmax: :func:`fit_combination`, on other draws;
    ordinal: :func:`fit_rank_variance`, each fold against centres from the other folds).
    Ties go to the earlier setting."""
    fold = player_folds(unit_focus, unit_rank, folds)
    if np.unique(fold).size < 2:
        raise SparringError("cross-validation needs players in at least two folds")
    rows: list[tuple[Settings, Combiner, float, float]] = []
    for settings in grid:
        held = held_folds(stats, unit_rank, fold, n_ranks, settings)
        rows.append((settings, *_cross_validate(held, n_ranks, settings, draws, seed)))
    best = min(range(len(rows)), key=lambda i: (rows[i][2], i))
    return TuneResult(rows[best][0], rows[best][1], rows, folds)


def fit_model(
    stats: FloatArray,
    unit_rank: IntArray,
    game: str,
    ranks: Sequence[str],
    settings: Settings,
    combination: Combiner,
    moves_per_game: int = 0,
) -> MultiSkillModel:
    """The per-game model fitted on every game (one sample a game), with ``combination``
    (fitted on held folds by :func:`tune`); an ordinal model's centres are made from its
    scores of these games (:func:`rank_centres`)."""
    x = features(stats, len(ranks), settings.feature_set)
    per_game = fit_per_game(x, unit_rank, len(ranks), settings)
    if isinstance(per_game, LinearScore) and isinstance(combination, RankGaussians):
        centres = rank_centres(per_game.score(x), unit_rank, len(ranks), settings.centres)
        combination = RankGaussians(centres, combination.v_player, combination.v_game)
    return MultiSkillModel(game, tuple(ranks), settings, per_game, combination, moves_per_game)


__all__ = [
    "CENTRES",
    "DEFAULT_GRID",
    "EVAL_N",
    "MODELS",
    "TRAIN_N",
    "Combination",
    "HeldFold",
    "MultiSkillModel",
    "RankGaussians",
    "Settings",
    "TuneResult",
    "draw_sets",
    "fit_combination",
    "fit_model",
    "fit_per_game",
    "fit_rank_variance",
    "held_folds",
    "n_scale",
    "per_game_units",
    "player_folds",
    "rank_centres",
    "tune",
]
