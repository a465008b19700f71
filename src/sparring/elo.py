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
