"""The one maximum-likelihood Bradley-Terry fitter on the Elo scale, and the Elo constant.

Every rating in the project comes from :func:`fit_bradley_terry`: a tournament's ratings
(:func:`sparring.evaluation.ratings.fit_elo`, one anchored player, optionally a first-move
advantage), a player rated against a ladder held fixed
(:func:`sparring.evaluation.ladder.fit_against_ladder`) and a strength calibration
(:func:`sparring.experiments.calibration.fit_with_fixed`, many ladder players held fixed).

Model (Bradley-Terry on the Elo scale, AlphaDDA Eq. 16): player ``i`` scores against ``j``
with probability

.. math:: p_{ij} = \\frac{1}{1 + 10^{(r_j - r_i - h)/400}}
          = \\sigma\\big((r_i - r_j + h) / s\\big), \\qquad s = 400 / \\ln 10

where ``h`` is the first-move advantage (fitted only on request, for ``i`` moving first) and
:data:`ELO_SCALE` ``s`` converts Elo to natural-log odds.  A cell of ``n`` games in which ``i``
scored ``k`` points (a draw is half a point) contributes ``k log p + (n - k) log(1 - p)``;
cells may hold fractional games, which is how virtual draws (:meth:`PairCounts.with_draws`)
regularise perfect records.

The log-likelihood is strictly concave in the free ratings once every free player is linked
by games to a fixed one; Newton's method with step halving finds the maximum, and the
covariance is the inverse of the observed information (the negative Hessian) over the free
parameters, the fixed players' rows and columns zero.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from sparring.elo import ELO_SCALE, expected_score
from sparring.errors import ConfigError

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


def _sigmoid(eta: FloatArray) -> FloatArray:
    out: FloatArray = np.exp(-np.logaddexp(0.0, -eta))
    return out


# ---- data ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PairCounts:
    """Games aggregated into cells: ``games[c]`` games (possibly fractional) of player
    ``first[c]`` against ``second[c]``, in which ``first[c]`` scored ``points[c]``.

    ``ordered``: whether ``first`` is the player who moved first (cells ``(i, j)`` and
    ``(j, i)`` are distinct; needed for a first-move advantage).  Otherwise every cell has
    ``first < second`` (one cell per pair).  Cells are sorted by ``(first, second)``.
    """

    names: tuple[str, ...]
    first: IntArray
    second: IntArray
    games: FloatArray
    points: FloatArray
    ordered: bool

    @property
    def num_players(self) -> int:
        return len(self.names)

    @classmethod
    def from_games(
        cls,
        names: Sequence[str],
        first: npt.ArrayLike,
        second: npt.ArrayLike,
        score: npt.ArrayLike,
        *,
        ordered: bool = True,
    ) -> PairCounts:
        """Aggregate games ``first[g]`` against ``second[g]`` with ``score[g]`` (1, 0.5, 0)
        for ``first[g]`` into cells (per ordered pair, or per pair when not ``ordered``)."""
        f = np.asarray(first, dtype=np.int64)
        s = np.asarray(second, dtype=np.int64)
        x = np.asarray(score, dtype=np.float64)
        if not (f.shape == s.shape == x.shape) or f.ndim != 1:
            raise ValueError("first, second and score must be one-dimensional, of one length")
        if np.any(f == s):
            raise ValueError("a player cannot play itself")
        if not ordered:  # orient every game as (lower index, higher index)
            swap = f > s
            f, s = np.where(swap, s, f), np.where(swap, f, s)
            x = np.where(swap, 1.0 - x, x)
        n = len(names)
        games = np.zeros((n, n))
        points = np.zeros((n, n))
        np.add.at(games, (f, s), 1.0)
        np.add.at(points, (f, s), x)
        return cls._from_matrices(tuple(names), games, points, ordered)

    @classmethod
    def _from_matrices(
        cls, names: tuple[str, ...], games: FloatArray, points: FloatArray, ordered: bool
    ) -> PairCounts:
        rows, cols = np.nonzero(games)
        return cls(
            names=names,
            first=rows.astype(np.int64),
            second=cols.astype(np.int64),
            games=games[rows, cols],
            points=points[rows, cols],
            ordered=ordered,
        )

    def matrices(self) -> tuple[FloatArray, FloatArray]:
        """Games and points as ``[n, n]`` matrices indexed ``[first, second]``."""
        n = self.num_players
        games = np.zeros((n, n))
        points = np.zeros((n, n))
        games[self.first, self.second] = self.games
        points[self.first, self.second] = self.points
        return games, points

    def with_draws(self, draws: float, *, every_pair: bool) -> PairCounts:
        """These counts plus ``draws`` virtual draws per pair of players: every pair
        (``every_pair``) or only the pairs that played.  With ordered cells the draws are
        split evenly between the two colour orders."""
        if not draws > 0.0:
            raise ValueError("the number of virtual draws must be positive")
        games, points = self.matrices()
        n = self.num_players
        if self.ordered:
            met = (games + games.T) > 0.0
            mask = ~np.eye(n, dtype=bool) if every_pair else met
            added = np.where(mask, draws / 2.0, 0.0)
        else:
            upper = np.triu(np.ones((n, n), dtype=bool), k=1)
            mask = upper if every_pair else (games > 0.0)
            added = np.where(mask, draws, 0.0)
        return PairCounts._from_matrices(
            self.names, games + added, points + added / 2.0, self.ordered
        )


# ---- the fit ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class BradleyTerryFit:
    """Maximum-likelihood ratings from :func:`fit_bradley_terry`."""

    names: tuple[str, ...]
    """Player names; arrays are aligned with them."""
    ratings: FloatArray
    """Elo of each player (the fixed ones exactly at their given values)."""
    covariance: FloatArray = field(repr=False)
    """Covariance of the ratings (Elo²): the inverse observed information over the free
    players, zero rows and columns for the fixed ones."""
    fixed: Mapping[str, float]
    """The players held fixed and their ratings."""
    first_move_advantage: float | None
    """Fitted first-move advantage ``h`` in Elo (None when not fitted)."""
    first_move_advantage_stderr: float | None
    """Its standard error in Elo (None when not fitted)."""
    log_likelihood: float
    """Log-likelihood of the fitted counts (virtual draws included) at the maximum."""
    iterations: int
    """Newton iterations used."""

    @property
    def stderr(self) -> FloatArray:
        """Standard error of every rating (0 for the fixed players)."""
        return np.sqrt(np.clip(np.diag(self.covariance), 0.0, None))

    def index(self, name: str) -> int:
        return self.names.index(name)

    def rating(self, name: str) -> float:
        return float(self.ratings[self.index(name)])

    def rating_stderr(self, name: str) -> float:
        """Standard error of ``rating(name)``."""
        i = self.index(name)
        return math.sqrt(max(float(self.covariance[i, i]), 0.0))

    def difference_stderr(self, a: str, b: str) -> float:
        """Standard error of ``rating(a) - rating(b)``."""
        i, j = self.index(a), self.index(b)
        c = self.covariance
        return math.sqrt(max(float(c[i, i] + c[j, j] - 2.0 * c[i, j]), 0.0))


def cell_log_likelihood(
    counts: PairCounts, ratings: FloatArray, first_move_advantage: float | None = None
) -> float:
    """Log-likelihood of ``counts`` under Elo ``ratings`` (and advantage ``h`` in Elo)."""
    eta = (ratings[counts.first] - ratings[counts.second]) / ELO_SCALE
    if first_move_advantage is not None:
        eta = eta + first_move_advantage / ELO_SCALE
    return _log_likelihood(counts, eta)


def _log_likelihood(counts: PairCounts, eta: FloatArray) -> float:
    k, n = counts.points, counts.games
    return float(np.sum(-k * np.logaddexp(0.0, -eta) - (n - k) * np.logaddexp(0.0, eta)))


def _check_connected(counts: PairCounts, free: BoolArray) -> None:
    """ConfigError naming the free players with no chain of games to a fixed player."""
    parent = list(range(counts.num_players))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in zip(counts.first.tolist(), counts.second.tolist(), strict=True):
        parent[find(i)] = find(j)
    anchored = {find(i) for i in range(counts.num_players) if not free[i]}
    loose = [counts.names[i] for i in range(counts.num_players) if free[i]]
    loose = [name for name in loose if find(counts.names.index(name)) not in anchored]
    if loose:
        raise ConfigError(
            f"players {', '.join(loose)} have no games linking them to a fixed rating"
        )


def fit_bradley_terry(
    counts: PairCounts,
    fixed: Mapping[str, float],
    *,
    first_move_advantage: bool = False,
    start: float | None = None,
    max_iterations: int = 200,
    tolerance: float = 1e-10,
) -> BradleyTerryFit:
    """Maximum-likelihood Elo ratings of ``counts`` with the players in ``fixed`` held at
    their given ratings (at least one; see the module docstring for the model).

    ``first_move_advantage`` also fits ``h`` (ordered counts only).  Free players start at
    ``start`` Elo (default: the mean of the fixed ratings), ``h`` at 0.  Newton's method with
    step halving stops when no parameter moves by more than ``tolerance`` natural-log units
    (``tolerance * ELO_SCALE`` Elo) or after ``max_iterations``.  Raises
    :class:`~sparring.errors.ConfigError` when a free player has no games linking it to a
    fixed one (its rating would be undetermined).
    """
    if not fixed:
        raise ConfigError("at least one player's rating must be fixed")
    if first_move_advantage and not counts.ordered:
        raise ValueError("a first-move advantage needs ordered counts (who moved first)")
    n = counts.num_players
    index = {name: i for i, name in enumerate(counts.names)}
    unknown = [name for name in fixed if name not in index]
    if unknown:
        raise ValueError(f"fixed players {unknown} are not among the players")
    is_free = np.ones(n, dtype=bool)
    for name in fixed:
        is_free[index[name]] = False
    _check_connected(counts, is_free)

    # Parameters in natural-log units relative to ``offset`` (the mean fixed rating), so the
    # arithmetic does not depend on where the scale sits; the last one is ``h`` if fitted.
    offset = float(np.mean(list(fixed.values())))
    num_params = n + (1 if first_move_advantage else 0)
    theta = np.zeros(num_params)
    theta[:n] = ((offset if start is None else start) - offset) / ELO_SCALE
    for name, elo in fixed.items():
        theta[index[name]] = (elo - offset) / ELO_SCALE
    free = np.flatnonzero(np.concatenate([is_free, [True] * (num_params - n)]))
    f, s, g = counts.first, counts.second, counts.games

    def eta_of(t: FloatArray) -> FloatArray:
        eta = t[f] - t[s]
        return eta + t[n] if first_move_advantage else eta

    def gradient_information(t: FloatArray) -> tuple[FloatArray, FloatArray]:
        p = _sigmoid(eta_of(t))
        resid = counts.points - g * p
        w = g * p * (1.0 - p)
        grad = np.asarray(
            np.bincount(f, resid, num_params) - np.bincount(s, resid, num_params), np.float64
        )
        info = np.zeros((num_params, num_params))
        np.add.at(info, (f, f), w)
        np.add.at(info, (s, s), w)
        np.add.at(info, (f, s), -w)
        np.add.at(info, (s, f), -w)
        if first_move_advantage:
            grad[n] = resid.sum()
            info[n, n] = w.sum()
            np.add.at(info[n], f, w)
            np.add.at(info[n], s, -w)
            info[:n, n] = info[n, :n]
        return grad[free], info[np.ix_(free, free)]

    value = _log_likelihood(counts, eta_of(theta))
    iterations = 0
    for iterations in range(1, max_iterations + 1):  # noqa: B007 - reported
        if len(free) == 0:
            break
        grad, info = gradient_information(theta)
        step = np.linalg.solve(info, grad)
        scale = 1.0
        while True:
            candidate = theta.copy()
            candidate[free] += scale * step
            new_value = _log_likelihood(counts, eta_of(candidate))
            if new_value >= value - 1e-12 or scale < 1e-8:
                break
            scale /= 2.0
        theta, value = candidate, new_value
        if float(np.max(np.abs(scale * step))) < tolerance:
            break

    cov = np.zeros((num_params, num_params))
    if len(free):
        _, info = gradient_information(theta)
        cov[np.ix_(free, free)] = np.linalg.inv(info) * ELO_SCALE**2
    ratings = offset + theta[:n] * ELO_SCALE
    for name, elo in fixed.items():
        ratings[index[name]] = elo  # exactly, not up to rounding
    return BradleyTerryFit(
        names=counts.names,
        ratings=ratings,
        covariance=cov[:n, :n],
        fixed=dict(fixed),
        first_move_advantage=float(theta[n] * ELO_SCALE) if first_move_advantage else None,
        first_move_advantage_stderr=math.sqrt(cov[n, n]) if first_move_advantage else None,
        log_likelihood=value,
        iterations=iterations,
    )


__all__ = [
    "ELO_SCALE",
    "BradleyTerryFit",
    "PairCounts",
    "cell_log_likelihood",
    "expected_score",
    "fit_bradley_terry",
]
