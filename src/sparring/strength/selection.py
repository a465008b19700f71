"""Move selection for strength adjustment: root visit counts -> a move distribution.

Wu et al. (AAAI 2019), section *Strength Adjustment*.  After a finished MCTS search the root
moves have visit counts ``N_i``; with ``N_max = max_j N_j`` (the paper's ``N_1``) the
strength-adjusted (SA) policy chooses move ``i`` with probability

.. math:: \\pi_i(z) = \\frac{N_i^z}{\\sum_{j \\in C} N_j^z}, \\qquad
          C = \\{\\, i : N_i \\ge R_{th} N_{max} \\,\\}

(the softmax policy of Sephton et al. restricted to the *candidates* ``C``).  ``z`` is the
strength index (the inverse softmax temperature) and ``R_th`` the threshold ratio.  Because
a chosen move is always a candidate, ``ln(N_i / N_max) >= ln R_th``: Eq. 7's lower bound
``E_rel >= H ln R_th`` on the relative rating of every chosen move.

Limits and conventions (all computed in log space, so huge ``|z|`` and counts are safe):

* ``z = +inf``: uniform over the most visited candidates (plain MCTS play);
  ``z = -inf``: uniform over the least visited candidate(s); ``z = 0``: uniform over ``C``.
* With ``R_th > 0`` (and at least one visit) a move with no visit is never a candidate,
  since ``0 < R_th N_max``.
* With ``R_th = 0`` every legal move is a candidate, zero-visit moves included (Sephton's
  policy).  ``N^z`` is then read as its limit: ``0^z = 0`` for ``z > 0`` (never chosen),
  ``0^0 = 1`` (``z = 0`` is uniform over all legal moves, i.e. a random player) and
  ``0^z = +inf`` for ``z < 0``: the policy is uniform over the zero-visit moves whenever
  there are any (the same as ``z = -inf``, the least visited moves).
* If no legal move has a visit (a search of 0 simulations) the policy is uniform over the
  legal moves, whatever ``z`` and ``R_th``.

:func:`sa_distribution` is the policy; :func:`sephton_distribution` (no threshold) and
:func:`top_n_distribution` (the ``n`` most visited moves as candidates, Sephton's
suggestion) are the variants the paper compares it with.  :func:`floor_schedule` and
:func:`strength_distribution` add the *floor* below ``z = -inf`` (not in the paper; see
:class:`StrengthSetting`).  All functions work on the last axis, so a batch of positions
(rows, with a ``legal`` mask for padding) is one call.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

PAPER_RTH = 0.1
"""The threshold ratio the paper settles on (``R_th = 0.1``)."""
FLOOR_MAX = 2.0
"""The largest floor level: pure uniformly random play."""


def _prepare(visits: npt.ArrayLike, legal: npt.ArrayLike | None) -> tuple[FloatArray, BoolArray]:
    n = np.asarray(visits, dtype=np.float64)
    if n.ndim == 0 or n.shape[-1] == 0:
        raise ValueError("visits must have at least one move")
    mask = np.ones(n.shape, dtype=bool) if legal is None else np.asarray(legal, dtype=bool)
    if mask.shape != n.shape:
        raise ValueError(f"legal mask shape {mask.shape} differs from visits shape {n.shape}")
    if not np.all(mask.any(axis=-1)):
        raise ValueError("every position needs at least one legal move")
    checked = n[mask]
    if np.any(~np.isfinite(checked)) or np.any(checked < 0):
        raise ValueError("visit counts must be finite and non-negative")
    return np.where(mask, n, 0.0), mask


def _check_z(z: float) -> float:
    z = float(z)
    if math.isnan(z):
        raise ValueError("z must be a number or +-inf, not nan")
    return z


def _uniform(selected: BoolArray) -> FloatArray:
    counts = selected.sum(axis=-1, keepdims=True)
    return np.where(selected, 1.0 / np.maximum(counts, 1), 0.0)


def power_softmax(visits: FloatArray, candidates: BoolArray, z: float) -> FloatArray:
    """``N_i^z / sum_{j in C} N_j^z`` over ``candidates`` (last axis), with the limits and the
    zero-visit conventions of the module docstring; every row needs a candidate."""
    z = _check_z(z)
    n = np.where(candidates, visits, np.nan)
    top = np.nanmax(n, axis=-1, keepdims=True)
    if z == math.inf:
        return _uniform(candidates & (visits == top))
    low = np.nanmin(n, axis=-1, keepdims=True)
    if z == -math.inf:
        return _uniform(candidates & (visits == low))
    none_visited = top <= 0.0  # no information: uniform over the candidates
    if z == 0.0:
        return _uniform(candidates)
    if z < 0.0:
        zeros = candidates & (visits == 0.0)
        has_zero = zeros.any(axis=-1, keepdims=True)
        with np.errstate(divide="ignore"):
            logw = np.where(
                candidates & ~has_zero, z * np.log(np.where(visits > 0, visits, 1)), -np.inf
            )
        soft = _normalise_log(logw)
        return np.where(has_zero, _uniform(zeros), soft)
    with np.errstate(divide="ignore"):
        logw = np.where(
            candidates & (visits > 0), z * np.log(np.where(visits > 0, visits, 1)), -np.inf
        )
    soft = _normalise_log(np.where(none_visited, 0.0, logw))
    return np.where(none_visited, _uniform(candidates), soft)


def _normalise_log(logw: FloatArray) -> FloatArray:
    """``exp(logw)`` normalised along the last axis (rows that are all ``-inf`` give zeros)."""
    top = np.max(logw, axis=-1, keepdims=True)
    safe_top = np.where(np.isfinite(top), top, 0.0)
    w = np.exp(logw - safe_top)
    total = w.sum(axis=-1, keepdims=True)
    out: FloatArray = np.where(total > 0, w / np.where(total > 0, total, 1.0), 0.0)
    return out


def candidate_mask(
    visits: npt.ArrayLike, rth: float, legal: npt.ArrayLike | None = None
) -> BoolArray:
    """The candidates ``N_i >= R_th * N_max`` among the legal moves (the paper's screening).

    ``R_th`` must lie in ``[0, 1]``; ``R_th = 0`` keeps every legal move.
    """
    rth = float(rth)
    if not 0.0 <= rth <= 1.0:
        raise ValueError(f"R_th must be in [0, 1], not {rth}")
    n, mask = _prepare(visits, legal)
    top = np.max(np.where(mask, n, -np.inf), axis=-1, keepdims=True)
    out: BoolArray = mask & (n >= rth * top)
    return out


def sa_distribution(
    visits: npt.ArrayLike,
    z: float,
    rth: float = PAPER_RTH,
    legal: npt.ArrayLike | None = None,
) -> FloatArray:
    """Wu et al.'s SA policy: ``p_i ∝ N_i^z`` over the candidates ``N_i >= R_th N_max``.

    ``visits`` are root visit counts (last axis = moves; illegal padding entries are masked
    out with ``legal``); ``z`` is the strength index (``+-inf`` allowed) and ``rth`` the
    threshold ratio ``R_th`` in ``[0, 1]``.  Returns probabilities of the same shape, zero off
    the candidates, summing to 1 along the last axis.  See the module docstring for the
    limits and the zero-visit conventions.
    """
    n, _ = _prepare(visits, legal)
    return power_softmax(n, candidate_mask(visits, rth, legal), z)


def sephton_distribution(
    visits: npt.ArrayLike, z: float, legal: npt.ArrayLike | None = None
) -> FloatArray:
    """Sephton et al.'s softmax policy ``N_i^z / sum_j N_j^z`` over every legal move
    (``R_th = 0``; zero-visit moves follow the module's ``0^z`` conventions)."""
    return sa_distribution(visits, z, 0.0, legal)


def top_n_distribution(
    visits: npt.ArrayLike, z: float, n: int, legal: npt.ArrayLike | None = None
) -> FloatArray:
    """The softmax policy over the ``n`` most visited moves (Sephton et al.'s suggestion).

    Moves tied with the ``n``-th largest count are all kept, so the result depends on the
    counts only (not on move order) and may have more than ``n`` candidates.
    """
    if n < 1:
        raise ValueError("n must be >= 1")
    counts, mask = _prepare(visits, legal)
    ranked = np.sort(np.where(mask, counts, -np.inf), axis=-1)[..., ::-1]
    k = np.minimum(n, mask.sum(axis=-1, keepdims=True)) - 1
    nth = np.take_along_axis(ranked, k, axis=-1)
    return power_softmax(counts, mask & (counts >= nth), z)


# ---- the floor below z = -inf (beyond the paper) ---------------------------------------------
def floor_schedule(floor: float, rth: float = PAPER_RTH) -> tuple[float, float]:
    """The effective ``(R_th, q)`` of floor level ``floor`` in ``[0, 2]`` with base ``R_th``.

    Below the weakest setting of the paper (``z = -inf`` at threshold ``rth``) the *floor
    level* ``f`` continues in two stages, always with ``z = -inf``:

    * ``0 <= f <= 1``: the threshold is relaxed linearly, ``R_th(f) = rth * (1 - f)``, so the
      least visited move among ever more moves is played; at ``f = 1``, ``R_th = 0`` and
      zero-visit moves become candidates (the least visited legal move).
    * ``1 <= f <= 2``: ``R_th = 0`` and with probability ``q = f - 1`` a uniformly random legal
      move is played instead; ``f = 2`` is a uniformly random player (the baseline Random).

    ``f = 0`` is the paper's ``z = -inf``.  The weakest point (``f = 1``, the least visited
    move) is usually weaker than Random; the second stage then climbs back to exactly Random,
    so with a calibration the floor always reaches Random's Elo or below.
    """
    floor = float(floor)
    if not 0.0 <= floor <= FLOOR_MAX:
        raise ValueError(f"floor level must be in [0, {FLOOR_MAX:g}], not {floor}")
    if floor <= 1.0:
        return float(rth) * (1.0 - floor), 0.0
    return 0.0, floor - 1.0


@dataclass(frozen=True)
class StrengthSetting:
    """A point of the strength scale: strength index ``z``, threshold ``rth`` and floor level.

    ``floor > 0`` continues below ``z = -inf`` (see :func:`floor_schedule`) and requires
    ``z = -inf``.  The strongest setting is ``z = +inf`` (plain MCTS play), the weakest
    ``z = -inf, floor = 1`` (least visited legal move); ``floor = 2`` is uniformly random.
    """

    z: float
    rth: float = PAPER_RTH
    floor: float = 0.0

    def __post_init__(self) -> None:
        _check_z(self.z)
        if not 0.0 <= self.rth <= 1.0:
            raise ValueError(f"R_th must be in [0, 1], not {self.rth}")
        floor_schedule(self.floor, self.rth)
        if self.floor > 0.0 and self.z != -math.inf:
            raise ValueError("a floor level > 0 needs z = -inf (it continues below z = -inf)")

    @property
    def effective(self) -> tuple[float, float, float]:
        """``(z, R_th, q)`` actually used: the floor relaxes ``R_th`` and mixes in random moves
        with probability ``q``."""
        rth, q = floor_schedule(self.floor, self.rth)
        return self.z, rth, q

    def label(self) -> str:
        """A short text such as ``z=-1.5,rth=0.1`` or ``z=-inf,rth=0.1,floor=1``."""
        text = f"z={format_z(self.z)},rth={self.rth:g}"
        return text + (f",floor={self.floor:g}" if self.floor > 0 else "")


def strength_distribution(
    visits: npt.ArrayLike, setting: StrengthSetting, legal: npt.ArrayLike | None = None
) -> FloatArray:
    """The move distribution of ``setting``: :func:`sa_distribution` with the effective
    ``(z, R_th)``, mixed with the uniform distribution over legal moves with weight ``q``."""
    z, rth, q = setting.effective
    p = sa_distribution(visits, z, rth, legal)
    if q > 0.0:
        _, mask = _prepare(visits, legal)
        p = (1.0 - q) * p + q * _uniform(mask)
    return p


def format_z(z: float) -> str:
    """``+inf``, ``-inf`` or the number in ``%g`` form."""
    if z == math.inf:
        return "+inf"
    if z == -math.inf:
        return "-inf"
    return f"{z:g}"


def parse_z(text: str) -> float:
    """Read a strength index: a number, ``inf``, ``+inf`` or ``-inf``; ValueError otherwise."""
    value = float(text.strip())
    return _check_z(value)


__all__ = [
    "FLOOR_MAX",
    "PAPER_RTH",
    "StrengthSetting",
    "candidate_mask",
    "floor_schedule",
    "format_z",
    "parse_z",
    "power_softmax",
    "sa_distribution",
    "sephton_distribution",
    "strength_distribution",
    "top_n_distribution",
]
