"""Multinomial logistic regression, ridge regression and the calibration of predicted
distributions.

A small, dependency-free (NumPy and SciPy, both in the core) classifier for the multi-skill
strength estimator (:mod:`sparring.estimation.multiskill`): :func:`fit_softmax` minimises the
mean negative log-likelihood of a linear softmax model plus an L2 penalty on its weights (not
its biases) with L-BFGS, on standardised features.  :class:`SoftmaxModel` returns the whole
distribution over the classes, and reads and writes itself as plain JSON.  :func:`fit_ridge`
fits a linear score to a numeric target (the rank index) in closed form.

Calibration: :func:`reliability` bins predictions by their top-class probability (the
*confidence*) and compares each bin's mean confidence with how often the top class was right;
the expected calibration error (:attr:`Reliability.ece`) is the bins' absolute gaps weighted
by their share of the predictions (Guo et al. 2017, "On calibration of modern neural networks").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy.optimize import minimize
from scipy.special import log_softmax

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class SoftmaxModel:
    """``p(k | x) = softmax(((x - mean) / scale) @ weights + bias)_k``."""

    weights: FloatArray
    """``[D, K]``."""
    bias: FloatArray
    """``[K]``."""
    mean: FloatArray
    """``[D]``: the training features' means."""
    scale: FloatArray
    """``[D]``: their standard deviations (1 where a feature is constant)."""

    @property
    def classes(self) -> int:
        return int(self.bias.size)

    def log_probabilities(self, x: npt.ArrayLike) -> FloatArray:
        """Log-probabilities ``[..., K]`` of features ``[..., D]``."""
        z = (np.asarray(x, dtype=np.float64) - self.mean) / self.scale
        result: FloatArray = log_softmax(z @ self.weights + self.bias, axis=-1)
        return result

    def probabilities(self, x: npt.ArrayLike) -> FloatArray:
        """Probabilities ``[..., K]`` of features ``[..., D]``."""
        result: FloatArray = np.exp(self.log_probabilities(x))
        return result

    def to_dict(self) -> dict[str, Any]:
        return {
            "weights": self.weights.tolist(),
            "bias": self.bias.tolist(),
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SoftmaxModel:
        d = len(data["mean"])
        k = len(data["bias"])
        return cls(
            np.asarray(data["weights"], dtype=np.float64).reshape(d, k),
            np.asarray(data["bias"], dtype=np.float64),
            np.asarray(data["mean"], dtype=np.float64),
            np.asarray(data["scale"], dtype=np.float64),
        )


def fit_softmax(
    x: npt.ArrayLike, y: npt.ArrayLike, classes: int, l2: float = 1e-2, max_iter: int = 500
) -> SoftmaxModel:
    """Fit :class:`SoftmaxModel` to features ``x [n, D]`` and labels ``y [n]`` (``0 ..
    classes - 1``): minimise ``mean_i -log p(y_i | x_i) + l2 / 2 * |weights|^2`` over the
    standardised features by L-BFGS (the objective is convex, so the optimum does not depend
    on the start).  ``D`` may be 0: the biases then give every class its share of ``y``."""
    xs = np.asarray(x, dtype=np.float64)
    if xs.ndim != 2:
        raise ValueError("x must be [n, D]")
    labels = np.asarray(y, dtype=np.int64).reshape(-1)
    n, d = xs.shape
    if n == 0 or labels.size != n:
        raise ValueError("x and y must hold the same, non-zero number of rows")
    if labels.min() < 0 or labels.max() >= classes:
        raise ValueError(f"labels must be in [0, {classes})")
    if l2 < 0:
        raise ValueError("l2 must be >= 0")
    mean = xs.mean(axis=0) if d else np.zeros(0)
    scale = xs.std(axis=0) if d else np.ones(0)
    scale = np.where(scale > 1e-12, scale, 1.0)
    z = (xs - mean) / scale
    onehot = np.zeros((n, classes))
    onehot[np.arange(n), labels] = 1.0

    def objective(theta: FloatArray) -> tuple[float, FloatArray]:
        w = theta[: d * classes].reshape(d, classes)
        b = theta[d * classes :]
        logp = log_softmax(z @ w + b, axis=1)
        diff = (np.exp(logp) - onehot) / n
        loss = -float((logp * onehot).sum()) / n + 0.5 * l2 * float((w * w).sum())
        grad = np.concatenate([(z.T @ diff + l2 * w).reshape(-1), diff.sum(axis=0)])
        return loss, grad

    start = np.zeros(d * classes + classes)
    found = minimize(
        objective,
        start,
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": max_iter, "gtol": 1e-9, "ftol": 1e-12},
    )
    theta = found.x
    bias = theta[d * classes :]
    return SoftmaxModel(theta[: d * classes].reshape(d, classes), bias - bias.mean(), mean, scale)


@dataclass(frozen=True)
class LinearScore:
    """``score(x) = ((x - mean) / scale) @ weights + bias``: a ridge regression's score."""

    weights: FloatArray
    """``[D]``."""
    bias: float
    mean: FloatArray
    scale: FloatArray

    def score(self, x: npt.ArrayLike) -> FloatArray:
        """Scores ``[...]`` of features ``[..., D]``."""
        z = (np.asarray(x, dtype=np.float64) - self.mean) / self.scale
        result: FloatArray = z @ self.weights + self.bias
        return result

    def to_dict(self) -> dict[str, Any]:
        return {
            "weights": self.weights.tolist(),
            "bias": self.bias,
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LinearScore:
        return cls(
            np.asarray(data["weights"], dtype=np.float64),
            float(data["bias"]),
            np.asarray(data["mean"], dtype=np.float64),
            np.asarray(data["scale"], dtype=np.float64),
        )


def fit_ridge(x: npt.ArrayLike, target: npt.ArrayLike, l2: float = 1e-2) -> LinearScore:
    """Ridge regression of ``target [n]`` on features ``x [n, D]``, standardised: minimise
    ``mean_i (score(x_i) - target_i)^2 + l2 * |weights|^2`` (closed form)."""
    xs = np.asarray(x, dtype=np.float64)
    t = np.asarray(target, dtype=np.float64).reshape(-1)
    if xs.ndim != 2 or xs.shape[0] != t.size or t.size == 0:
        raise ValueError("x must be [n, D] and target [n], n > 0")
    if l2 < 0:
        raise ValueError("l2 must be >= 0")
    n, d = xs.shape
    mean = xs.mean(axis=0)
    scale = xs.std(axis=0)
    scale = np.where(scale > 1e-12, scale, 1.0)
    z = (xs - mean) / scale
    gram = z.T @ z / n + l2 * np.eye(d)
    weights = np.linalg.lstsq(gram, z.T @ (t - t.mean()) / n, rcond=None)[0]
    return LinearScore(weights, float(t.mean()), mean, scale)


def mean_log_loss(probabilities: npt.ArrayLike, y: npt.ArrayLike) -> float:
    """Mean ``-log p(y)`` of predicted distributions ``[n, K]`` (probabilities floored at
    1e-12)."""
    p = np.asarray(probabilities, dtype=np.float64)
    labels = np.asarray(y, dtype=np.int64).reshape(-1)
    picked = p[np.arange(labels.size), labels]
    return float(-np.log(np.maximum(picked, 1e-12)).mean())


@dataclass(frozen=True)
class Reliability:
    """Predictions binned by confidence (the top-class probability), equal-width bins."""

    edges: FloatArray
    """``[bins + 1]`` bin edges over [0, 1]."""
    count: IntArray
    """Predictions per bin."""
    confidence: FloatArray
    """Mean confidence per bin (NaN where empty)."""
    accuracy: FloatArray
    """Share of the bin's predictions whose top class was right (NaN where empty)."""

    @property
    def ece(self) -> float:
        """Expected calibration error: ``sum_b (n_b / n) |accuracy_b - confidence_b|``."""
        n = int(self.count.sum())
        if n == 0:
            return float("nan")
        used = self.count > 0
        gaps = np.abs(self.accuracy[used] - self.confidence[used])
        return float((self.count[used] * gaps).sum() / n)


def reliability(probabilities: npt.ArrayLike, y: npt.ArrayLike, bins: int = 10) -> Reliability:
    """Bin distributions ``[n, K]`` by their top probability ``c`` into ``bins`` equal-width
    bins (bin ``floor(c * bins)``; a confidence of exactly 1 falls in the last bin); the top
    class is the first of equal maxima."""
    p = np.asarray(probabilities, dtype=np.float64)
    labels = np.asarray(y, dtype=np.int64).reshape(-1)
    top = p.argmax(axis=1)
    conf = p[np.arange(labels.size), top]
    right = (top == labels).astype(np.float64)
    edges = np.linspace(0.0, 1.0, bins + 1)
    which = np.clip(np.floor(conf * bins).astype(np.int64), 0, bins - 1)
    count = np.bincount(which, minlength=bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        confidence = np.bincount(which, weights=conf, minlength=bins) / count
        accuracy = np.bincount(which, weights=right, minlength=bins) / count
    return Reliability(edges, count.astype(np.int64), confidence, accuracy)


__all__ = [
    "LinearScore",
    "Reliability",
    "SoftmaxModel",
    "fit_ridge",
    "fit_softmax",
    "mean_log_loss",
    "reliability",
]
