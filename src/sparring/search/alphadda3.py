"""AlphaDDA3's selection score (Fujita 2022, section 3.4, Eq. 6-7) as a PUCT score hook.

AlphaDDA3 runs the one PUCT search (:mod:`sparring.search.puct`) with Eq. 8 replaced, through
:attr:`PUCTConfig.score_hook <sparring.search.puct.PUCTConfig.score_hook>`, by the UCT-form

.. math:: U(s_t, a) = W'(s_t, a) / N(s_t) + C \\sqrt{2 \\ln(N(s_t) + 1) / (n(s_t, a) + 1)}
   \\quad (6)

.. math:: W'(s_t, a) = -\\, n(s_t, a)\\, |v + \\bar v_n\\, c(s_t, a)\\, c_{AlphaDDA}| \\quad (7)

where ``n(s_t, a)`` is the edge's visits, ``N(s_t)`` the node's (the search's convention:
``1 + sum_a n(s_t, a)``), ``c(s_t, a)`` the colour (+1 first player, -1 second) of the player
making move ``a`` and ``v`` a value from the first player's side.  Eq. 7 subtracts the
absolute value once per backup through the edge, so ``W'`` is ``n`` times the penalty; the
opponent's edges (``c(s_t, a) = -c_AlphaDDA``) prefer ``v = vbar_n``, AlphaDDA's own edges
``v = -vbar_n`` (section 3.4).  The paper's prose ("AlphaDDA3 prefers the move in which
``v(s_t)`` is ``-vbar_n``") fixes ``W'`` as the penalty alone, without the value sum ``W``
(as the author's code); :attr:`AlphaDDA3Score.keep_value` adds ``W`` back.

What ``v`` is.  ``v(s_t)`` in Eq. 7 is written per node, but a per-node value is the same for
every edge of ``s_t`` and could not change a selection; the hook uses the network's value of
the position the edge leads to (``child_value``, turned to the first player's side; the
search's ``child_value`` is exact for a finished game).  The author's code instead adds, at
every backup, the penalty of *that simulation's leaf* value; that needs a per-backup
nonlinear sum the score hook does not see (its ``w`` is the linear value sum and its ``aux``
a sum of evaluator outputs with no terminal leaves), so it is not offered: a documented
difference.  The child's mover is taken to be the other player (true of every game here:
passes are moves).

Options from the author's code: :attr:`AlphaDDA3Score.per_edge` divides ``W'`` by
``n(s_t, a)`` instead of ``N(s_t)``.  The code's 20% random root picks are not offered (the
hook has no random source).

An unvisited edge has ``W' = 0``, so it scores ``C sqrt(2 ln(N + 1))``, above every visited
edge (``W' <= 0``): each child is tried once first, as in UCT.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba as nb
import numpy as np

from sparring.search.hooks import ScoreHook
from sparring.search.kernels import SCORE_HOOK_TYPE


@nb.njit(SCORE_HOOK_TYPE.signature, cache=True)
def alphadda3_score(
    score: float,
    n: float,
    w: float,
    prior: float,
    parent_n: float,
    aux: float,
    node_value: float,
    child_value: float,
    mover: int,
    move: int,
    params: np.ndarray,
    context: np.ndarray,
) -> float:
    """Eq. 6-7 (module doc).  ``params = (C, vbar_n, c_AlphaDDA, per_edge, keep_value)``."""
    c_explore = params[0]
    vbar = params[1]
    c_alphadda = params[2]
    c_mover = 1.0 if mover == 0 else -1.0
    penalty = 0.0
    if n > 0.0 and not np.isnan(child_value):
        v_first = -c_mover * child_value  # the child's mover is the other player
        penalty = abs(v_first + vbar * c_mover * c_alphadda)
    w_mod = -n * penalty
    if params[4] != 0.0:
        w_mod += w
    if params[3] != 0.0:
        exploit = w_mod / n if n > 0.0 else 0.0
    else:
        exploit = w_mod / parent_n if parent_n > 0.0 else 0.0
    return exploit + c_explore * math.sqrt(2.0 * math.log(parent_n + 1.0) / (n + 1.0))


@dataclass(frozen=True)
class AlphaDDA3Score:
    """The parameters of AlphaDDA3's score for one move's search (:func:`alphadda3_score`)."""

    c: float
    """The exploration rate ``C`` of Eq. 6 (Table 3: 1.25 Connect4, 0.75 6x6 Othello, 0.6
    Othello), >= 0."""
    vbar: float
    """``vbar_n`` of Eq. 1 (first player's side), in [-1, 1]."""
    colour: int
    """``c_AlphaDDA``: +1 when AlphaDDA3 moves first, -1 when second."""
    per_edge: bool = False
    """Divide ``W'`` by ``n(s_t, a)`` (the author's code) instead of ``N(s_t)`` (Eq. 6)."""
    keep_value: bool = False
    """Keep the value sum ``W`` in ``W'`` (Eq. 7 read literally as ``W <- W - |...|``)."""

    def __post_init__(self) -> None:
        if not self.c >= 0.0:
            raise ValueError(f"C must be >= 0, not {self.c}")
        if not -1.0 <= self.vbar <= 1.0:
            raise ValueError(f"vbar must be in [-1, 1], not {self.vbar}")
        if self.colour not in (1, -1):
            raise ValueError(f"colour must be +1 or -1, not {self.colour}")

    def hook(self) -> ScoreHook:
        """The :class:`ScoreHook` of these parameters."""
        return ScoreHook(
            alphadda3_score,
            (
                float(self.c),
                float(self.vbar),
                float(self.colour),
                1.0 if self.per_edge else 0.0,
                1.0 if self.keep_value else 0.0,
            ),
        )


__all__ = ["AlphaDDA3Score", "alphadda3_score"]
