"""Strength analysis of the SA policy (Wu et al., AAAI 2019, section *Strength Analysis*).

Hypothesis: in a position, move ``i`` has Bradley-Terry strength ``gamma_i = c N_i^H`` (its
visit count to a power ``H``), i.e. rating ``E_i = ln c + H ln N_i`` in natural-log units
(``Elo = 400 log10(e) E``).  A player choosing move ``i`` with probability ``pi_i(z)`` is a
team with rating ``E(z) = sum_i pi_i(z) E_i`` (Eq. 3, 5), so relative to ``z = +inf`` (the
most visited move, ``N_1``)

.. math:: E_{rel}(z) = H \\sum_i \\pi_i(z) \\ln R_i, \\qquad R_i = N_i / N_1   (Eq. 6)

and ``E_rel >= H ln R_th`` (Eq. 7).  Averaged over the positions ``j`` of a set of games
``D`` (Eq. 11-14), the normalised rating is

.. math:: E_{norm}^{D}(z) = \\mathbb{E}_{j \\sim D}
          \\Big[ \\sum_i \\pi^{(j)}_i(z) \\ln R^{(j)}_i \\Big]   (Eq. 14)

and, with the measured ratings at ``z = +-inf``, the strength exponent is

.. math:: H^{D} = \\frac{E^{D}(-\\infty) - E^{D}(\\infty)}{E^{D}_{norm}(-\\infty)}   (Eq. 17)

so the derived curve ``E^D(z) = E^D(inf) + H^D E^D_norm(z)`` (Eq. 15) can be compared with the
measured Elo (the paper's Fig. 4; its Table 2 lists ``H`` per threshold).

Here ``D_{R_th}`` is the set of positions in which an SA agent with threshold ``R_th`` and
finite ``z`` moved during the calibration (the paper leaves out ``z = +-inf``), its root visit
counts recorded in its moves' annotations (:meth:`SearchPlayer.annotation
<sparring.players.searching.SearchPlayer.annotation>`).  Ratings enter Eq. 17 in
natural-log units (Elo / ``ELO_SCALE``).  Positions whose candidates include a zero-visit
move (only with ``R_th = 0``) have ``ln R = -inf`` for it; ``E_norm(-inf)`` is then
``-inf`` and ``H`` is undefined (None).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from sparring.evaluation.bradley_terry import ELO_SCALE
from sparring.evaluation.store import GameRecord
from sparring.games.base import Game
from sparring.strength.selection import candidate_mask, sa_distribution

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


FIT_RANGE = (-2.0, 2.0)
"""The range of ``z`` over which the paper fits lines and logistic curves."""

_CHUNK = 8192


# ---- positions ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Positions:
    """Root visit counts of many positions, padded into one matrix."""

    visits: FloatArray
    """``[P, A]`` visit counts (0 in padding)."""
    legal: BoolArray
    """``[P, A]``: which entries are real moves."""

    def __len__(self) -> int:
        return int(self.visits.shape[0])

    @classmethod
    def from_vectors(cls, vectors: Iterable[Sequence[int] | npt.ArrayLike]) -> Positions:
        """Pad visit-count vectors (one per position, any lengths); positions without any
        visit are left out."""
        rows = [np.asarray(v, dtype=np.float64) for v in vectors]
        rows = [r for r in rows if r.size and r.sum() > 0]
        width = max((len(r) for r in rows), default=1)
        visits = np.zeros((len(rows), width))
        legal = np.zeros((len(rows), width), dtype=bool)
        for i, r in enumerate(rows):
            visits[i, : len(r)] = r
            legal[i, : len(r)] = True
        return cls(visits, legal)

    def chunks(self) -> Iterable[tuple[FloatArray, BoolArray]]:
        for start in range(0, len(self), _CHUNK):
            yield self.visits[start : start + _CHUNK], self.legal[start : start + _CHUNK]


def root_visits_of(records: Iterable[GameRecord], game: Game, label: str) -> list[list[int]]:
    """The recorded root visit counts of the positions where player ``label`` moved.

    The games are replayed to find the mover of each ply; annotations without visit counts
    (e.g. a floor player's random moves) are skipped.
    """
    out: list[list[int]] = []
    for record in records:
        if record.annotations is None or label not in (record.label_a, record.label_b):
            continue
        seat = 0 if (record.label_a == label) == record.a_first else 1
        state = game.initial_state()
        for move, info in zip(record.moves, record.annotations, strict=True):
            mover = game.to_move(state)
            if mover == seat and info is not None and "visits" in info:
                out.append([int(v) for v in info["visits"]])
            state = game.play(state, int(move))
    return out


# ---- Eq. 13-17 --------------------------------------------------------------------------------
def log_ratios(visits: FloatArray, legal: BoolArray) -> FloatArray:
    """``ln R_i = ln(N_i / N_1)`` (``-inf`` for zero visits, 0 in padding)."""
    top = np.max(np.where(legal, visits, 0.0), axis=-1, keepdims=True)
    with np.errstate(divide="ignore"):
        out: FloatArray = np.where(legal, np.log(visits / np.maximum(top, 1e-300)), 0.0)
    return out


def e_norm(positions: Positions, z: float, rth: float) -> float:
    """Eq. 14: the mean over positions of ``sum_i pi_i(z) ln R_i`` for the SA policy with
    threshold ``rth`` (``<= 0``; 0 at ``z = +inf``; ``-inf`` if a zero-visit move may be
    chosen)."""
    if len(positions) == 0:
        return math.nan
    total = 0.0
    for visits, legal in positions.chunks():
        p = sa_distribution(visits, z, rth, legal)
        ln_r = log_ratios(visits, legal)
        with np.errstate(invalid="ignore"):
            terms = np.where(p > 0, p * ln_r, 0.0)
        total += float(terms.sum())
    return total / len(positions)


def e_norm_curve(positions: Positions, z_values: Sequence[float], rth: float) -> FloatArray:
    """:func:`e_norm` at every ``z`` of ``z_values``."""
    return np.array([e_norm(positions, z, rth) for z in z_values])


def estimate_h(elo_plus_inf: float, elo_minus_inf: float, e_norm_minus_inf: float) -> float | None:
    """Eq. 17: ``H = (E(-inf) - E(inf)) / E_norm(-inf)`` with the ratings converted from Elo to
    natural-log units; None when ``E_norm(-inf)`` is 0 or not finite."""
    if not math.isfinite(e_norm_minus_inf) or e_norm_minus_inf == 0.0:
        return None
    return (elo_minus_inf - elo_plus_inf) / ELO_SCALE / e_norm_minus_inf


def derived_elo(e_norm_values: npt.ArrayLike, h: float, elo_plus_inf: float) -> FloatArray:
    """Eq. 15 in Elo: ``Elo(inf) + H E_norm(z) * 400 log10(e)``."""
    out: FloatArray = elo_plus_inf + h * np.asarray(e_norm_values, dtype=np.float64) * ELO_SCALE
    return out


def average_candidates(positions: Positions, rth_values: Sequence[float]) -> FloatArray:
    """The mean number of candidates ``N_i >= R_th N_max`` per position for each ``R_th``
    (the paper's Fig. 3)."""
    if len(positions) == 0:
        return np.full(len(rth_values), math.nan)
    out = []
    for rth in rth_values:
        count = 0
        for visits, legal in positions.chunks():
            count += int(candidate_mask(visits, rth, legal).sum())
        out.append(count / len(positions))
    return np.array(out)


# ---- fits ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LinearFit:
    """``Elo = intercept + slope z`` by least squares, with its RMS error."""

    slope: float
    intercept: float
    rmse: float
    """Root mean squared residual in Elo (the paper's "regression error")."""
    points: int


@dataclass(frozen=True)
class LogisticFit:
    """``Elo = low + (high - low) sigmoid(beta0 + beta1 z)``, with its RMS error."""

    beta0: float
    beta1: float
    low: float
    high: float
    rmse: float
    points: int

    def __call__(self, z: npt.ArrayLike) -> FloatArray:
        x = self.beta0 + self.beta1 * np.asarray(z, dtype=np.float64)
        out: FloatArray = self.low + (self.high - self.low) / (1.0 + np.exp(-x))
        return out


def _in_range(z: npt.ArrayLike, elo: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
    zs = np.asarray(z, dtype=np.float64)
    es = np.asarray(elo, dtype=np.float64)
    keep = np.isfinite(zs) & np.isfinite(es) & (zs >= FIT_RANGE[0]) & (zs <= FIT_RANGE[1])
    return zs[keep], es[keep]


def fit_linear(z: npt.ArrayLike, elo: npt.ArrayLike) -> LinearFit | None:
    """The paper's linear fit of Elo on ``z`` over ``-2 <= z <= 2`` (scipy ``linregress``);
    None with fewer than two distinct ``z``."""
    from scipy.stats import linregress

    zs, es = _in_range(z, elo)
    if len(np.unique(zs)) < 2:
        return None
    fit = linregress(zs, es)
    residual = es - (fit.intercept + fit.slope * zs)
    return LinearFit(
        float(fit.slope), float(fit.intercept), float(np.sqrt(np.mean(residual**2))), len(zs)
    )


def fit_logistic(
    z: npt.ArrayLike,
    elo: npt.ArrayLike,
    low: float | None = None,
    high: float | None = None,
) -> LogisticFit | None:
    """The paper's logistic fit over ``-2 <= z <= 2`` (scipy ``curve_fit``).

    ``low`` and ``high`` (the Elo at ``z = -inf`` and ``+inf``) are held fixed when given, so
    only ``beta0`` and ``beta1`` are fitted (the paper's two parameters); otherwise they are
    fitted too.  None when there are too few points or the fit fails.
    """
    from scipy.optimize import curve_fit

    zs, es = _in_range(z, elo)
    fixed = low is not None and high is not None and math.isfinite(low) and math.isfinite(high)
    if len(np.unique(zs)) < (3 if fixed else 5):
        return None

    def model(x: FloatArray, b0: float, b1: float, lo: float, hi: float) -> FloatArray:
        out: FloatArray = lo + (hi - lo) / (1.0 + np.exp(-(b0 + b1 * x)))
        return out

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # OptimizeWarning: covariance not estimated
            if fixed:
                assert low is not None and high is not None
                lo, hi = float(low), float(high)
                params, _ = curve_fit(
                    lambda x, b0, b1: model(x, b0, b1, lo, hi), zs, es, p0=(0.0, 1.0), maxfev=10000
                )
                b0, b1 = float(params[0]), float(params[1])
            else:
                span = float(es.max() - es.min()) or 1.0
                p0 = (0.0, 1.0, float(es.min()) - 0.1 * span, float(es.max()) + 0.1 * span)
                params, _ = curve_fit(model, zs, es, p0=p0, maxfev=10000)
                b0, b1, lo, hi = (float(v) for v in params)
    except (RuntimeError, ValueError, TypeError):
        return None
    fit = LogisticFit(b0, b1, lo, hi, 0.0, len(zs))
    rmse = float(np.sqrt(np.mean((es - fit(zs)) ** 2)))
    return LogisticFit(b0, b1, lo, hi, rmse, len(zs))


# ---- one threshold ---------------------------------------------------------------------------
CURVE_Z = tuple(float(z) for z in np.round(np.linspace(-4.0, 4.0, 81), 2))
"""The ``z`` grid of the derived curves (the paper's Fig. 4 spans about -4..4)."""


@dataclass(frozen=True)
class ThresholdAnalysis:
    """The strength analysis of one data set ``D_{R_th}`` (one row of the paper's Table 2
    and one Fig. 4)."""

    rth: float
    positions: int
    """Positions in ``D_{R_th}``."""
    e_norm_minus_inf: float
    """``E_norm(-inf)`` (Eq. 14)."""
    h: float | None
    """``H`` by Eq. 17 (None when ``E(+-inf)`` were not measured or ``E_norm(-inf)`` is not
    finite)."""
    curve_z: tuple[float, ...]
    e_norm: tuple[float, ...]
    """``E_norm(z)`` on :attr:`curve_z`."""
    derived: tuple[float, ...] | None
    """Eq. 15 in Elo on :attr:`curve_z` (None without ``H``)."""
    empirical: Mapping[float, float]
    """The measured Elo by ``z`` (``+-inf`` included when measured)."""
    rmse_empirical: float | None
    """RMS difference (Elo) between the derived curve and the measured points with
    ``-2 <= z <= 2`` (the paper: 40.45 for ``D_0.1``)."""
    logistic: LogisticFit | None
    """A logistic curve fitted to the derived curve over ``-2 <= z <= 2`` (the paper: error
    10.51, ``beta0 = -0.05, beta1 = 1.17``)."""
    mean_candidates: float
    """Mean number of candidates per position of ``D_{R_th}``."""


def analyze_threshold(
    positions: Positions,
    rth: float,
    empirical: Mapping[float, float],
    curve_z: Sequence[float] = CURVE_Z,
) -> ThresholdAnalysis:
    """Eq. 14-17 for the data set ``positions`` (``D_{R_th}``) and the measured Elo by ``z``."""
    e_minus = e_norm(positions, -math.inf, rth)
    values = e_norm_curve(positions, curve_z, rth)
    h = None
    if math.inf in empirical and -math.inf in empirical:
        h = estimate_h(empirical[math.inf], empirical[-math.inf], e_minus)
    derived = None
    rmse = None
    logistic = None
    if h is not None:
        top = empirical[math.inf]
        derived_values = derived_elo(values, h, top)
        derived = tuple(float(v) for v in derived_values)
        zs = [z for z in empirical if math.isfinite(z) and FIT_RANGE[0] <= z <= FIT_RANGE[1]]
        if zs:
            at = derived_elo(e_norm_curve(positions, zs, rth), h, top)
            rmse = float(np.sqrt(np.mean((at - np.array([empirical[z] for z in zs])) ** 2)))
        low = float(derived_elo([e_minus], h, top)[0])
        logistic = fit_logistic(curve_z, derived_values, low, top)
    return ThresholdAnalysis(
        rth=rth,
        positions=len(positions),
        e_norm_minus_inf=e_minus,
        h=h,
        curve_z=tuple(curve_z),
        e_norm=tuple(float(v) for v in values),
        derived=derived,
        empirical=dict(empirical),
        rmse_empirical=rmse,
        logistic=logistic,
        mean_candidates=float(average_candidates(positions, [rth])[0]),
    )


__all__ = [
    "CURVE_Z",
    "FIT_RANGE",
    "LinearFit",
    "LogisticFit",
    "Positions",
    "ThresholdAnalysis",
    "analyze_threshold",
    "average_candidates",
    "derived_elo",
    "e_norm",
    "e_norm_curve",
    "estimate_h",
    "fit_linear",
    "fit_logistic",
    "log_ratios",
    "root_visits_of",
]
