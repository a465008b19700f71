"""The Elo scale: the project's one Elo constant and the Elo logistic (AlphaDDA Eq. 16).

A foundation module (importable from every layer), so that the strength core, the rating fitter
and the reports all use the same scale.
"""

from __future__ import annotations

import math

ELO_SCALE = 400.0 / math.log(10.0)
"""Elo points per natural-log unit of odds (about 173.7): a rating difference ``d`` gives odds
``10**(d / 400) = exp(d / ELO_SCALE)``.  The project's only Elo constant."""


def expected_score(elo_a: float, elo_b: float) -> float:
    """AlphaDDA Eq. 16: ``p(A defeats B) = 1 / (1 + 10**((e(B) - e(A)) / 400))``."""
    return 1.0 / (1.0 + math.exp((elo_b - elo_a) / ELO_SCALE))


def elo_margin(score: float) -> float:
    """The rating difference at which Eq. 16 expects ``score``: ``400 log10(s / (1 - s))``.

    The inverse of :func:`expected_score` (``expected_score(e + elo_margin(s), e) == s``):
    a share of 0.9 is about 381.7 Elo above the opponent, 0.95 about 511.5.  ``score`` must lie
    strictly between 0 and 1."""
    if not 0.0 < score < 1.0:
        raise ValueError(f"a score strictly between 0 and 1 has an Elo margin, not {score}")
    return ELO_SCALE * math.log(score / (1.0 - score))
