"""Calibration files and target strength: which setting plays at a given Elo.

A *calibration* (written by :mod:`sparring.experiments.calibration`) lists measured settings
``(z, R_th, floor)`` of a strength-adjusted player with their Elo ratings.  This module reads
and writes the file and inverts it: :func:`setting_for_elo` returns the setting expected to
play at a target Elo.

The strength axis.  For one threshold ``R_th`` (by default the calibration's main one,
the paper's 0.1) the measured settings are ordered on one axis ``t``:

* finite ``z`` sits at ``t = z`` (between the smallest and largest finite ``z`` measured,
  ``z_lo`` and ``z_hi``);
* ``z = +inf`` at ``t = z_hi + 1``; in between, ``t = z_hi + s`` stands for
  ``z = z_hi + s / (1 - s)`` (``s`` in ``[0, 1)``), so the gap is covered by ever larger ``z``;
* ``z = -inf`` at ``t = z_lo - 1`` (and ``t = z_lo - s`` stands for ``z = z_lo - s / (1 - s)``);
* floor level ``f`` (:func:`~sparring.strength.selection.floor_schedule`) at
  ``t = z_lo - 1 - f``, down to uniformly random play at ``f = 2``.

Monotone interpolation.  Elo should increase along ``t``, but measured points are noisy and
the floor can dip below Random before climbing back to it.  The points between the weakest
and the strongest measured setting are made non-decreasing by isotonic regression (pool
adjacent violators, weighted by the inverse variance of each rating); Elo is then a
:class:`scipy.interpolate.PchipInterpolator` of ``t`` (shape preserving, hence monotone),
inverted numerically for a target.  A
target outside the covered range is clamped to the weakest or the strongest setting, and the
result says so (:attr:`TargetResult.clamped`, :meth:`TargetResult.describe`).

The floor's two stages.  The curve above is the *first stage*: every setting up to floor
level 1 (the least visited legal move, usually the weakest point).  Its floor is a staircase
with a gap between ``f = 1`` and the plateau ``[0.95, 1)`` that no first-stage setting plays
in, and further steps between ``f = 0.85`` and ``0.95`` (a setting between two knots there
plays like one of them in most positions, not like a blend).  Where the calibration
measures the *second stage* (``1 < f <= 2``: the ``f = 1`` player mixed with uniformly random
moves, continuous by construction), every target the second stage covers gets a
second-stage setting (:class:`StrengthCurve`); on a ladder scale ``f = 2`` is the ladder's
Random (exactly), so the second stage reaches Random's Elo when ``f = 2`` is not measured.
Without second-stage points nothing changes (docs/strength/lowend-bias.md).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from sparring.errors import ConfigError
from sparring.strength.selection import FLOOR_MAX, StrengthSetting, format_z, parse_z

FORMAT = "sparring-strength-calibration"
"""The ``format`` field of a calibration file."""
FORMAT_VERSION = 1
"""The ``version`` field written by this module."""

FloatArray = npt.NDArray[np.float64]


# ---- the calibration file ---------------------------------------------------------------------
@dataclass(frozen=True)
class CalibrationPoint:
    """One measured setting of the strength-adjusted player."""

    setting: StrengthSetting
    """The setting ``(z, R_th, floor)``."""
    spec: str
    """The player spec that played it."""
    label: str
    """Its label in the game store."""
    elo: float
    """Its rating on the calibration's scale (see :attr:`Calibration.scale`)."""
    stderr: float
    """Standard error of :attr:`elo` relative to the scale's anchor."""
    games: int = 0
    """Games against the baseline (0 for the baseline itself)."""
    score: float | None = None
    """Mean score against the baseline (None for the baseline itself)."""
    candidates: float | None = None
    """Average number of candidates ``N_i >= R_th N_max`` in its recorded positions."""
    ladder_games: int | None = None
    """When :attr:`elo` was rated against the ladder alone (``sparring ladder-extend
    --into``): the games of that rating; None when it comes from the calibration's fit."""

    @property
    def z(self) -> float:
        return self.setting.z

    @property
    def rth(self) -> float:
        return self.setting.rth

    @property
    def floor(self) -> float:
        return self.setting.floor

    def to_json(self) -> dict[str, Any]:
        """A JSON object (``z`` as a number or ``"+inf"`` / ``"-inf"``)."""
        z: float | str = self.z if math.isfinite(self.z) else format_z(self.z)
        return {
            "z": z,
            "rth": self.rth,
            "floor": self.floor,
            "spec": self.spec,
            "label": self.label,
            "elo": round(self.elo, 2),
            "stderr": round(self.stderr, 2),
            "games": self.games,
            "score": None if self.score is None else round(self.score, 4),
            "candidates": None if self.candidates is None else round(self.candidates, 3),
        } | ({} if self.ladder_games is None else {"ladder_games": self.ladder_games})

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CalibrationPoint:
        z = data["z"]
        z_value = parse_z(z) if isinstance(z, str) else float(z)
        return cls(
            setting=StrengthSetting(z_value, float(data["rth"]), float(data.get("floor", 0.0))),
            spec=str(data["spec"]),
            label=str(data["label"]),
            elo=float(data["elo"]),
            stderr=float(data["stderr"]),
            games=int(data.get("games", 0)),
            score=None if data.get("score") is None else float(data["score"]),
            candidates=None if data.get("candidates") is None else float(data["candidates"]),
            ladder_games=None if data.get("ladder_games") is None else int(data["ladder_games"]),
        )


@dataclass(frozen=True)
class Calibration:
    """Measured Elo of a strength-adjusted player over a grid of settings (one game, one
    underlying search).  Written by :func:`sparring.experiments.calibration.run_calibration`."""

    game: str
    """Registry name of the game."""
    base: Mapping[str, str]
    """The ``sa`` spec options of the underlying search (``base``, ``sims``, ``model``, ...),
    i.e. everything but the setting."""
    baseline: StrengthSetting
    """The opponent of every calibration match (the paper: ``z = 0, R_th = 0.1``)."""
    scale: str
    """What the Elo numbers are relative to, in words (e.g. the baseline ladder with
    Random = 1000, or the baseline at 0)."""
    points: tuple[CalibrationPoint, ...]
    """The measured settings (the baseline included)."""
    games_per_point: int = 0
    """Games of each setting against the baseline."""
    model_sha256: str | None = None
    """SHA-256 of the network file, for ``base=az``: the ``.pt`` (for a network run from its
    ONNX export, the ``.pt`` it was exported from)."""
    onnx_sha256: str | None = None
    """SHA-256 of the network's ONNX export (``NAME.onnx``, which the players run), when
    there is one (written by ``scripts/export_onnx.py``)."""
    summary: Mapping[str, Any] = field(default_factory=dict)
    """Derived numbers (fits, the strength analysis), informational."""

    @property
    def main_rth(self) -> float:
        """The threshold the strength axis uses by default: the baseline's."""
        return self.baseline.rth

    def to_json(self) -> dict[str, Any]:
        data = {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "game": self.game,
            "base": dict(self.base),
            "baseline": {"z": self.baseline.z, "rth": self.baseline.rth},
            "scale": self.scale,
            "games_per_point": self.games_per_point,
            "model_sha256": self.model_sha256,
        }
        if self.onnx_sha256 is not None:
            data["onnx_sha256"] = self.onnx_sha256
        data["points"] = [p.to_json() for p in self.points]
        data["summary"] = _json_safe(self.summary)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Calibration:
        if data.get("format") != FORMAT:
            raise ValueError(f"not a strength calibration (format {data.get('format')!r})")
        if int(data.get("version", 0)) > FORMAT_VERSION:
            raise ValueError(f"calibration file version {data['version']} is newer than supported")
        baseline = data["baseline"]
        return cls(
            game=str(data["game"]),
            base={str(k): str(v) for k, v in data["base"].items()},
            baseline=StrengthSetting(float(baseline["z"]), float(baseline["rth"])),
            scale=str(data["scale"]),
            points=tuple(CalibrationPoint.from_json(p) for p in data["points"]),
            games_per_point=int(data.get("games_per_point", 0)),
            model_sha256=data.get("model_sha256"),
            onnx_sha256=data.get("onnx_sha256"),
            summary=dict(data.get("summary") or {}),
        )


def _json_safe(value: Any) -> Any:
    """Replace non-finite floats by strings (JSON has no inf / nan) and numpy by Python."""
    if isinstance(value, Mapping):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    if hasattr(value, "tolist"):
        return _json_safe(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return format_z(value) if not math.isnan(value) else None
    return value


def save_calibration(calibration: Calibration, path: str | Path) -> Path:
    """Write ``calibration`` as JSON to ``path`` (directories created)."""
    file = Path(path)
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(json.dumps(calibration.to_json(), indent=2) + "\n")
    return file


def load_calibration(path: str | Path) -> Calibration:
    """Read a calibration file; :class:`ConfigError` naming the file if it is missing or bad."""
    file = Path(path).expanduser()
    try:
        return Calibration.from_json(json.loads(file.read_text()))
    except FileNotFoundError:
        raise ConfigError(f"calibration file {str(file)!r} not found") from None
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"calibration file {str(file)!r} is malformed: {exc}") from None


def calibration_path_for_model(model: str | Path) -> Path | None:
    """The calibration shipped beside a network file, if any: ``NAME.calibration.json`` next
    to ``NAME.pt`` (the model zoo's convention), else ``NAME.pt.calibration.json``."""
    file = Path(model)
    for candidate in (
        file.with_name(file.stem + ".calibration.json"),
        file.with_name(file.name + ".calibration.json"),
    ):
        if candidate.is_file():
            return candidate
    return None


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a file (to tie a calibration to its network)."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


# ---- the strength axis ------------------------------------------------------------------------
@dataclass(frozen=True)
class StrengthAxis:
    """The measured settings of one threshold on the axis ``t`` (see the module docstring)."""

    rth: float
    z_lo: float
    """Smallest finite ``z`` measured."""
    z_hi: float
    """Largest finite ``z`` measured."""
    t: FloatArray
    """Axis positions, increasing."""
    elo: FloatArray
    """Measured Elo at :attr:`t`."""
    stderr: FloatArray
    points: tuple[CalibrationPoint, ...]

    def position(self, setting: StrengthSetting) -> float:
        """``t`` of a setting of this axis' threshold."""
        if setting.floor > 0.0:
            return self.z_lo - 1.0 - setting.floor
        z = setting.z
        if z == math.inf:
            return self.z_hi + 1.0
        if z == -math.inf:
            return self.z_lo - 1.0
        if z > self.z_hi:
            d = z - self.z_hi
            return self.z_hi + d / (1.0 + d)
        if z < self.z_lo:
            d = self.z_lo - z
            return self.z_lo - d / (1.0 + d)
        return float(z)

    def setting_at(self, t: float) -> StrengthSetting:
        """The setting at axis position ``t`` (the inverse of :meth:`position`)."""
        eps = 1e-9
        if t >= self.z_hi + 1.0 - eps:
            return StrengthSetting(math.inf, self.rth)
        if t > self.z_hi:
            s = t - self.z_hi
            return StrengthSetting(self.z_hi + s / (1.0 - s), self.rth)
        if t >= self.z_lo:
            return StrengthSetting(float(t), self.rth)
        if t > self.z_lo - 1.0 + eps:
            s = self.z_lo - t
            return StrengthSetting(self.z_lo - s / (1.0 - s), self.rth)
        floor = min(max(self.z_lo - 1.0 - t, 0.0), FLOOR_MAX)
        return StrengthSetting(-math.inf, self.rth, 0.0 if floor < eps else floor)


def strength_axis(calibration: Calibration, rth: float | None = None) -> StrengthAxis:
    """The settings of threshold ``rth`` (default: the calibration's main one) on the axis ``t``.

    ``z = +inf`` does not depend on the threshold, so a ``z = +inf`` point measured at another
    threshold is used when this one has none.  Floor points belong to the main threshold.
    """
    rth = calibration.main_rth if rth is None else float(rth)
    chosen = [p for p in calibration.points if math.isclose(p.rth, rth) or p.z == math.inf]
    tops = [p for p in chosen if p.z == math.inf]
    if len(tops) > 1:  # keep the one measured at this threshold, else the first
        keep = next((p for p in tops if math.isclose(p.rth, rth)), tops[0])
        chosen = [p for p in chosen if p.z != math.inf or p is keep]
    if not math.isclose(rth, calibration.main_rth):
        chosen = [p for p in chosen if p.floor == 0.0]
    finite = [p.z for p in chosen if math.isfinite(p.z)]
    if len(chosen) < 2:
        raise ConfigError(
            f"the calibration has fewer than two settings with R_th = {rth:g}; "
            f"thresholds measured: {', '.join(sorted({f'{p.rth:g}' for p in calibration.points}))}"
        )
    z_lo = min(finite) if finite else 0.0
    z_hi = max(finite) if finite else 0.0
    axis = StrengthAxis(rth, z_lo, z_hi, np.zeros(0), np.zeros(0), np.zeros(0), ())
    ordered = sorted(chosen, key=lambda p: axis.position(p.setting))
    return StrengthAxis(
        rth=rth,
        z_lo=z_lo,
        z_hi=z_hi,
        t=np.array([axis.position(p.setting) for p in ordered]),
        elo=np.array([p.elo for p in ordered]),
        stderr=np.array([p.stderr for p in ordered]),
        points=tuple(ordered),
    )


def isotonic(values: npt.ArrayLike, weights: npt.ArrayLike) -> FloatArray:
    """Weighted isotonic (non-decreasing) regression by pool adjacent violators."""
    blocks: list[list[float]] = []  # [mean, weight, count]
    v_arr = np.asarray(values, dtype=np.float64)
    w_arr = np.asarray(weights, dtype=np.float64)
    for v, w in zip(v_arr, w_arr, strict=True):
        blocks.append([float(v), float(w), 1.0])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, w2, c2 = blocks.pop()
            m1, w1, c1 = blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, c1 + c2])
    out: list[float] = []
    for mean, _, count in blocks:
        out += [mean] * int(count)
    return np.array(out)


@dataclass(frozen=True)
class MonotoneCurve:
    """Elo as a monotone function of the axis position ``t`` and its inverse."""

    axis: StrengthAxis
    t: FloatArray
    """Knots (increasing)."""
    elo: FloatArray
    """Isotonic Elo at the knots (strictly increasing)."""

    @property
    def low(self) -> float:
        """The weakest Elo covered."""
        return float(self.elo[0])

    @property
    def high(self) -> float:
        """The strongest Elo covered."""
        return float(self.elo[-1])

    def t_for(self, elo: float) -> float:
        """Axis position for ``elo`` (inside ``[low, high]``): the exact inverse of
        :meth:`elo_at`, found by Brent's method (the interpolant is increasing)."""
        from scipy.interpolate import PchipInterpolator
        from scipy.optimize import brentq

        if len(self.t) == 1 or elo <= self.low:
            return float(self.t[0])
        if elo >= self.high:
            return float(self.t[-1])
        curve = PchipInterpolator(self.t, self.elo)
        return float(brentq(lambda t: float(curve(t)) - elo, self.t[0], self.t[-1], xtol=1e-12))

    def elo_at(self, t: float) -> float:
        """Interpolated Elo at axis position ``t`` (clamped to the knots' range)."""
        from scipy.interpolate import PchipInterpolator

        if len(self.t) == 1:
            return float(self.elo[0])
        t = min(max(t, float(self.t[0])), float(self.t[-1]))
        return float(PchipInterpolator(self.t, self.elo)(t))


def _monotone_knots(
    t: FloatArray, elo: FloatArray, stderr: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Knots of the monotone part of ``elo`` over increasing ``t``: from the weakest to the
    strongest point, made non-decreasing by isotonic regression (weights ``1 / stderr^2``),
    equal values merged into one knot at their mean position."""
    lo = int(len(elo) - 1 - np.argmin(elo[::-1]))  # the weakest (highest t on ties)
    hi = int(np.argmax(elo))  # the strongest (lowest t on ties)
    sl = slice(lo, hi + 1) if lo < hi else slice(0, len(elo))
    part = t[sl]
    weights = 1.0 / np.maximum(stderr[sl], 1.0) ** 2
    fitted = isotonic(elo[sl], weights)
    knots_t: list[float] = []
    knots_e: list[float] = []
    i = 0
    while i < len(fitted):  # merge ties: one knot at the mean position
        j = i
        while j + 1 < len(fitted) and math.isclose(fitted[j + 1], fitted[i], abs_tol=1e-9):
            j += 1
        knots_t.append(float(np.mean(part[i : j + 1])))
        knots_e.append(float(fitted[i]))
        i = j + 1
    return np.array(knots_t), np.array(knots_e)


def monotone_curve(axis: StrengthAxis) -> MonotoneCurve:
    """The monotone part of ``axis``'s *first stage* (every setting up to floor level 1): from
    the weakest to the strongest measured setting, made non-decreasing by isotonic regression,
    equal values merged into one knot.  The floor's second stage (``1 < f <= 2``) climbs back
    towards Random and is a curve of its own (:func:`second_stage_curve`)."""
    first = axis.t >= axis.z_lo - 2.0 - 1e-9  # floor <= 1 (t = z_lo - 1 - f)
    if int(first.sum()) == 0:
        first = np.ones(len(axis.t), dtype=bool)
    knots_t, knots_e = _monotone_knots(axis.t[first], axis.elo[first], axis.stderr[first])
    return MonotoneCurve(axis, knots_t, knots_e)


def second_stage_curve(axis: StrengthAxis, random_elo: float | None = None) -> MonotoneCurve | None:
    """Elo as a monotone function of the floor level ``f`` in ``[1, 2]`` (the floor's second
    stage: the least visited legal move, a uniformly random one with probability ``f - 1``;
    :func:`~sparring.strength.selection.floor_schedule`), or None when ``axis`` has no
    measured point with ``f > 1`` or none at ``f = 1``.

    The curve's ``t`` is the floor level itself (increasing ``f`` is increasing strength
    here, the other way round from the first stage); its knots are those of the monotone part
    from the weakest of these points up, as in :func:`monotone_curve`.  ``f = 2`` plays
    uniformly random moves, the ladder's Random: with ``random_elo`` (Random's Elo on the
    calibration's scale) and no measured ``f = 2`` point, the knot ``(2, random_elo)`` is
    added without error.
    """
    floors = [p.floor for p in axis.points]
    if not any(f > 1.0 for f in floors) or not any(f == 1.0 for f in floors):
        return None
    chosen = sorted(
        (i for i, f in enumerate(floors) if f >= 1.0), key=lambda i: axis.points[i].floor
    )
    t = np.array([floors[i] for i in chosen])
    elo, stderr = axis.elo[chosen], axis.stderr[chosen]
    if random_elo is not None and not any(f == FLOOR_MAX for f in floors):
        t = np.append(t, FLOOR_MAX)
        elo = np.append(elo, float(random_elo))
        stderr = np.append(stderr, 0.0)
    knots_t, knots_e = _monotone_knots(t, elo, stderr)
    return MonotoneCurve(axis, knots_t, knots_e)


def random_elo_of(calibration: Calibration) -> float | None:
    """Random's Elo on the calibration's scale: the ladder's ``Random`` when the calibration
    was rated on a ladder that has it (``summary["ladder"]``), else None."""
    ladder = calibration.summary.get("ladder")
    if isinstance(ladder, Mapping) and isinstance(ladder.get("Random"), int | float):
        return float(ladder["Random"])
    return None


@dataclass(frozen=True)
class StrengthCurve:
    """A calibration's target curve: setting <-> Elo, both stages of the floor included.

    The first stage (:func:`monotone_curve`: ``z`` and the floor up to ``f = 1``) is a
    staircase below Random, and no first-stage setting plays between its weakest point (the
    least visited legal move, ``f = 1``) and the next one up, the plateau ``[0.95, 1)``
    (docs/research/strength-adjustment.md, "The floor below z = -inf").  The second stage
    (:func:`second_stage_curve`,
    ``1 < f <= 2``) passes through that gap continuously, so where it is measured, every
    target it covers gets a second-stage setting, also above the plateau: between ``f = 0.85``
    and ``0.95`` the first stage moves in steps that its interpolation does not see, and
    targets checked there measured above what was asked (docs/strength/lowend-bias.md).
    Every other target gets the first stage's setting, as without a second stage.  A
    calibration without second-stage points gives exactly the first stage's settings.
    """

    first: MonotoneCurve
    """The first stage (z and floor levels up to 1)."""
    second: MonotoneCurve | None
    """The second stage over the floor level (None when not measured)."""

    @property
    def axis(self) -> StrengthAxis:
        return self.first.axis

    @property
    def low(self) -> float:
        """The weakest Elo covered."""
        if self.second is None:
            return self.first.low
        return min(self.first.low, self.second.low)

    @property
    def high(self) -> float:
        """The strongest Elo covered."""
        return self.first.high

    def uses_second_stage(self, elo: float) -> bool:
        """Whether a target of ``elo`` (inside ``[low, high]``) is played by the second stage."""
        second = self.second
        if second is None:
            return False
        return second.low <= elo <= second.high

    def weakest(self) -> StrengthSetting:
        """The weakest calibrated setting."""
        second = self.second
        if second is not None and second.low < self.first.low:
            return StrengthSetting(-math.inf, self.axis.rth, float(second.t[0]))
        return self.axis.setting_at(float(self.first.t[0]))

    def strongest(self) -> StrengthSetting:
        """The strongest calibrated setting."""
        return self.axis.setting_at(float(self.first.t[-1]))

    def setting_for(self, elo: float) -> StrengthSetting:
        """The setting expected to play at ``elo`` (clamped to the weakest or the strongest
        setting outside ``[low, high]``)."""
        if elo < self.low:
            return self.weakest()
        if elo > self.high:
            return self.strongest()
        if self.uses_second_stage(elo):
            assert self.second is not None
            floor = min(max(self.second.t_for(elo), 1.0), FLOOR_MAX)
            return StrengthSetting(-math.inf, self.axis.rth, floor)
        return self.axis.setting_at(self.first.t_for(elo))

    def elo_of(self, setting: StrengthSetting) -> float:
        """The calibrated (interpolated, monotone) Elo of ``setting``: a second-stage setting
        (``f > 1``) on the second stage when it is measured (clamped to its measured range),
        every other setting on the first stage."""
        if setting.floor > 1.0 and self.second is not None:
            return self.second.elo_at(setting.floor)
        return self.first.elo_at(self.axis.position(setting))


def strength_curve(calibration: Calibration, rth: float | None = None) -> StrengthCurve:
    """The target curve of threshold ``rth`` (default: the main one); floor points, and with
    them the second stage, belong to the main threshold (:func:`strength_axis`)."""
    axis = strength_axis(calibration, rth)
    return StrengthCurve(monotone_curve(axis), second_stage_curve(axis, random_elo_of(calibration)))


@dataclass(frozen=True)
class TargetResult:
    """The setting chosen for a target Elo, and whether the target had to be clamped."""

    target: float
    """The Elo asked for."""
    setting: StrengthSetting
    """The setting to play."""
    expected_elo: float
    """Its Elo according to the calibration (the target unless clamped)."""
    clamped: bool
    """Whether the target was outside the calibrated range (then :attr:`setting` is the
    weakest or the strongest setting, and :attr:`expected_elo` that end of the range)."""
    low: float
    """The weakest calibrated Elo."""
    high: float
    """The strongest calibrated Elo."""
    game: str = ""
    """The calibration's game (for :meth:`describe`)."""
    scale: str = ""
    """The calibration's Elo scale, in words (for :meth:`describe`)."""

    def describe(self) -> str:
        """One line for the user: the setting chosen, and why when the target was clamped."""
        if not self.clamped:
            return (
                f"target Elo {self.target:g}: playing {self.setting.label()} "
                f"(calibrated range {self.low:.0f}..{self.high:.0f})"
            )
        end = "weakest" if self.target < self.low else "strongest"
        return (
            f"target Elo {self.target:g} is outside the calibrated range "
            f"{self.low:.0f}..{self.high:.0f} of {self.game} ({self.scale}); playing the "
            f"{end} setting ({self.setting.label()}, Elo {self.expected_elo:.0f})"
        )

    def player_label(self) -> str:
        """A strength-adjusted player's name for this target: ``SA(elo=1500)``, or, when
        clamped, the Elo it plays at: ``SA(elo=2267, clamped from 99999)``."""
        if self.clamped:
            return f"SA(elo={self.expected_elo:.0f}, clamped from {self.target:g})"
        return f"SA(elo={self.target:g})"


def setting_for_elo(calibration: Calibration, elo: float, rth: float | None = None) -> TargetResult:
    """The setting of threshold ``rth`` (default: the main one) expected to play at ``elo``.

    Monotone (PCHIP) interpolation on the monotone part of the calibration (see the module
    docstring), with the floor's second stage between the weakest setting and the first
    stage's next one up where it is measured (:class:`StrengthCurve`).  Outside the covered
    range the weakest (or strongest) setting is returned with :attr:`TargetResult.clamped`
    set; the caller tells the user (:meth:`TargetResult.describe`).
    """
    if not math.isfinite(elo):
        raise ConfigError(f"target Elo must be a finite number, not {elo}")
    curve = strength_curve(calibration, rth)
    played = min(max(elo, curve.low), curve.high)
    return TargetResult(
        elo,
        curve.setting_for(elo),
        played,
        played != elo,
        curve.low,
        curve.high,
        calibration.game,
        calibration.scale,
    )


def elo_for_setting(calibration: Calibration, setting: StrengthSetting) -> float:
    """The calibration's (interpolated, monotone) Elo of ``setting``."""
    return strength_curve(calibration, setting.rth).elo_of(setting)


def sa_spec(
    options: Mapping[str, str] | None = None,
    setting: StrengthSetting | None = None,
    *,
    calibration: str | Path | None = None,
    elo: float | None = None,
    name: str | None = None,
) -> str:
    """The ``sa`` player spec text: ``options`` (e.g. a calibration's search options
    :attr:`Calibration.base`), then the ``setting`` (``z=..,rth=..[,floor=..]``), the
    ``calibration`` file, the target ``elo`` and the display ``name``, each when given.

    The one place where ``sa:`` specs are written; the text is stable (calibration run keys
    and stored games contain it), e.g. ``sa_spec({"base": "uct"}, StrengthSetting(1.0))``
    is ``"sa:base=uct,z=1,rth=0.1"``.
    """
    items = [f"{key}={value}" for key, value in (options or {}).items()]
    if setting is not None:
        items.append(setting.label())
    if calibration is not None:
        items.append(f"calibration={calibration}")
    if elo is not None:
        items.append(f"elo={elo:g}")
    if name is not None:
        items.append(f"name={name}")
    return "sa:" + ",".join(items)


__all__ = [
    "Calibration",
    "CalibrationPoint",
    "MonotoneCurve",
    "StrengthAxis",
    "StrengthCurve",
    "TargetResult",
    "calibration_path_for_model",
    "elo_for_setting",
    "file_sha256",
    "isotonic",
    "load_calibration",
    "monotone_curve",
    "random_elo_of",
    "sa_spec",
    "save_calibration",
    "second_stage_curve",
    "setting_for_elo",
    "strength_axis",
    "strength_curve",
]
