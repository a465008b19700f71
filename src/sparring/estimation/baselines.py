"""The supervised-learning baselines SL_sum and SL_vote (Chen, Shih & Wu, ICLR 2025, section 2.4,
after Moudrik & Neruda 2016).

A rank classifier is trained on single state-action pairs: the network of
:mod:`sparring.nn.strength_net` with ``kind="sl"`` (same trunk, policy and value heads; the
strength head outputs one logit per rank) and a cross-entropy loss over the rank labels
(:func:`sparring.estimation.train.se_losses`), on the same balanced batches as the strength
estimator.  Its per-pair predictions are aggregated over the moves of N games:

* **SL_sum** -- "sums probabilities of all positions and makes a prediction based on the
  highest probability": the rank with the largest sum of predicted probabilities;
* **SL_vote** -- "predicts the rank of each position first and selects the most frequent
  rank": a majority vote of the per-pair argmax (ties go to the rank with the larger summed
  probability).

``SL_logsum`` (the sum of log-probabilities, i.e. the product of the per-move likelihoods, a
naive-Bayes reading of "sum") is available as a third aggregation but is not one of the
paper's baselines.
"""

from __future__ import annotations

import numpy as np

from sparring.estimation.predict import Decide, FloatArray, IntArray, Units, unit_sums

SL_METHODS = ("SL_sum", "SL_vote", "SL_logsum")
TIE_WEIGHT = 1e-7
"""Weight of the probability sum that breaks SL_vote's ties."""


def _argmax(x: FloatArray) -> IntArray:
    result: IntArray = np.asarray(x).argmax(axis=-1)
    return result


def sl_method(log_probs: FloatArray, units: Units, method: str) -> tuple[FloatArray, Decide]:
    """Unit features and decision rule of an SL aggregation over per-pair rank
    log-probabilities ``[n_pairs, n_ranks]``."""
    lp = np.asarray(log_probs, dtype=np.float64)
    probs = np.exp(lp)
    if method == "SL_sum":
        return unit_sums(probs, units), _argmax
    if method == "SL_logsum":
        return unit_sums(lp, units), _argmax
    if method == "SL_vote":
        votes = np.zeros_like(probs)
        votes[np.arange(lp.shape[0]), lp.argmax(axis=1)] = 1.0
        # The probability sum breaks ties: 1e-7 per pair stays far below one vote for any
        # realistic number of moves (1e-7 x 10^5 pairs = 0.01).
        return unit_sums(votes + TIE_WEIGHT * probs, units), _argmax
    raise ValueError(f"unknown SL method {method!r}; one of {SL_METHODS}")


__all__ = ["SL_METHODS", "sl_method"]
