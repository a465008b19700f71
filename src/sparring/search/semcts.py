"""SE-MCTS (Chen, Shih & Wu, ICLR 2025, section 3.3, Eq. 6) as a score hook of the one PUCT search.

SE-MCTS steers the search toward the moves a player of a target rank would play.  Every edge
``(s, a)`` of the tree gets the strength score ``beta(s, a)`` of its move from the strength
estimator, and keeps the mean ``beta-bar(s, a)`` over the leaves evaluated below it (backed up
like ``Q``).  Selection then uses Eq. 6:

.. math:: a^* = \\arg\\max_a Q(s,a) + c \\, (P(s,a) - c_1 \\hat\\delta(s,a))
          \\frac{\\sqrt{N(s)}}{1 + N(s,a)}, \\qquad
          \\delta(s,a) = |\\overline{\\beta}(s,a) - \\beta_t|,

with ``hat delta`` the difference normalised to ``[0, 1]`` by the smallest and largest
difference seen in the tree.  Here it is a :class:`~sparring.search.hooks.ScoreHook`: the
search gives the hook Eq. 8's score and the edge's auxiliary sum (the sum of ``beta`` over the
leaves below the edge, :attr:`ScoreHook.uses_aux <sparring.search.hooks.ScoreHook.uses_aux>`),
and the hook returns ``score - c * c_1 * hat delta * sqrt(N(s)) / (1 + N(s, a))``, which is
Eq. 6 exactly (Eq. 8's score with ``P`` replaced by ``P - c_1 hat delta``).  The evaluator
giving ``beta`` is :class:`sparring.nn.strength_eval.StrengthEvaluator` (an
:class:`~sparring.search.evaluator.EdgeAuxEvaluator`).

What the paper leaves open, decided after reading the authors' code (rlglab/strength-estimator,
``strength/misc/st_mcts.cpp``, ``st_actor.cpp``), each with the reason:

* **Which beta.**  The authors' network reads the state *after* the move (its input planes
  hold the move history) and scores the leaf when it is evaluated.  Our estimator scores a
  pair ``(s, a)`` (the move joins the trunk features of ``s``), so the leaf ``s'`` reached by
  ``(s, a)`` contributes ``beta(s, a)``: the same information (the move into the leaf), computed
  from the parent's cached trunk features with one strength-head pass per leaf.
* **Subtree mean.**  The leaf's ``beta`` is added to the auxiliary sum of *every* edge on its
  path, without a sign change, so ``beta-bar(s, a) = aux / N(s, a)`` mixes both players' moves
  below ``(s, a)``, as in the authors' backup (``score``/``weight`` summed along the path).
  That fits the candidate games, whose two players are of the same rank.  A terminal leaf
  reached in the tree backs up an auxiliary 0 (the search calls no network there).
* **Unvisited edges.**  ``delta = 0`` (no penalty) for an edge with no visit, as the authors
  do: nothing is known of its subtree, and ``P`` alone orders the unvisited moves.
* **Normalisation.**  ``hat delta = (delta - min) / (max - min)`` with the minimum and maximum
  of ``delta`` over the visited edges met in selection so far in this tree (a running min/max
  kept in the hook's per-tree context, updated with the edge's own ``delta`` before it is
  normalised, like the authors' ``value_s_min`` / ``value_s_max``).  When ``max == min`` (one
  visited edge so far, or all differences equal) ``hat delta = 0``: nothing tells the edges
  apart (the authors' code divides 0 by 0 there).
* **Below the target.**  ``hat delta`` is halved (:attr:`SEMCTSConfig.below_factor`) when
  ``beta-bar < beta_t``: a subtree weaker than the target is penalised half as much as one
  stronger by the same amount (the authors' code; the value term ``Q`` already pushes the
  search toward strong moves, so leaning toward weaker moves counteracts it).
* **The weight.**  ``c_1 = 2.0`` (the authors' ``s_weight``), subtracted from ``P`` inside the
  exploration term scaled by the same ``c`` as Eq. 8 (:attr:`SEMCTSConfig.c_puct`, which must
  equal the search's ``C_puct``).
* **The target.**  ``beta_t`` is one number per search here (``params``); the players
  (:mod:`sparring.players.human_like`) instead search with the *centred* scores
  ``beta(s, a) - beta_t(d)`` of :class:`sparring.nn.strength_eval.CentredStrengthEvaluator`
  (``d`` the edge's own move number, :class:`~sparring.nn.strength_eval.RankTarget`) and
  target 0.  That compares every edge with the target at its own move number, as the
  authors index their target by each node's move count, and makes a terminal leaf's
  auxiliary 0 mean "on target" rather than a score far above every rank's.

Virtual loss: with :attr:`PUCTConfig.leaves_per_batch <sparring.search.puct.PUCTConfig>`
``> 1`` the hook's ``n`` counts the simulations in flight through an edge while ``aux`` does
not yet hold their ``beta``, so ``beta-bar`` leans toward 0 while leaves wait (as ``Q`` leans
toward a loss, by design); the players search one leaf at a time.

Play: no root noise and the most visited move (the players in
:mod:`sparring.players.human_like`), as in the authors' SE-MCTS runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba as nb
import numpy as np

from sparring.search.hooks import DEFAULT_C_PUCT, ScoreHook
from sparring.search.kernels import SCORE_HOOK_TYPE

# params layout of the hook
P_C_PUCT = 0
P_C1 = 1
P_TARGET = 2
P_BELOW = 3
# context layout (per tree): running minimum and maximum of delta over visited edges
C_MIN = 0
C_MAX = 1


@nb.njit(SCORE_HOOK_TYPE.signature, cache=True)
def se_mcts_score(
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
    """Eq. 6 of Chen et al. (2025): ``score - c * c_1 * hat delta * sqrt(N(s)) / (1 + n)``.

    ``params = [c, c_1, beta_t, below_factor]``; ``context = [min delta, max delta]`` over the
    visited edges of the tree seen so far (updated here).  ``delta = |aux / n - beta_t|`` for a
    visited edge, 0 for an unvisited one (no penalty, not counted in the min/max).
    """
    if n <= 0.0:
        return score
    mean = aux / n
    diff = mean - params[P_TARGET]
    delta = abs(diff)
    if delta < context[C_MIN]:
        context[C_MIN] = delta
    if delta > context[C_MAX]:
        context[C_MAX] = delta
    span = context[C_MAX] - context[C_MIN]
    if span <= 0.0:
        return score
    normalised = (delta - context[C_MIN]) / span
    if diff < 0.0:
        normalised *= params[P_BELOW]
    return score - params[P_C_PUCT] * params[P_C1] * normalised * np.sqrt(parent_n) / (1.0 + n)


DEFAULT_C1 = 2.0
"""``c_1`` of Eq. 6 (the authors' ``s_weight``)."""
DEFAULT_BELOW_FACTOR = 0.5
"""Factor on ``hat delta`` when the subtree mean is below the target (the authors' code)."""


@dataclass(frozen=True)
class SEMCTSConfig:
    """The parameters of SE-MCTS's Eq. 6 for one search; :meth:`hook` gives the search's hook.

    Set :attr:`PUCTConfig.score_hook <sparring.search.puct.PUCTConfig.score_hook>` to
    ``SEMCTSConfig(...).hook()`` and search with an evaluator that gives ``beta`` per leaf
    (:class:`~sparring.search.evaluator.EdgeAuxEvaluator`, e.g.
    :class:`sparring.nn.strength_eval.StrengthEvaluator`).
    """

    target: float
    """``beta_t``: the target rank's composite strength score at this move number."""
    c_puct: float = DEFAULT_C_PUCT
    """``c`` of Eq. 6: must equal the search's :attr:`PUCTConfig.c_puct`."""
    c1: float = DEFAULT_C1
    """``c_1``: the weight of the normalised strength difference against the prior."""
    below_factor: float = DEFAULT_BELOW_FACTOR
    """Factor on ``hat delta`` when ``beta-bar < beta_t`` (1: symmetric penalty)."""

    def __post_init__(self) -> None:
        for name in ("target", "c_puct", "c1", "below_factor"):
            if not math.isfinite(getattr(self, name)):
                raise ValueError(f"SE-MCTS {name} must be finite")
        if self.c_puct < 0 or self.c1 < 0 or self.below_factor < 0:
            raise ValueError("SE-MCTS c_puct, c1 and below_factor must be >= 0")

    def hook(self) -> ScoreHook:
        """The :class:`ScoreHook` of Eq. 6 with these parameters (it asks for ``beta``)."""
        return ScoreHook(
            se_mcts_score,
            (float(self.c_puct), float(self.c1), float(self.target), float(self.below_factor)),
            context_init=(math.inf, -math.inf),
            uses_aux=True,
        )


__all__ = ["DEFAULT_BELOW_FACTOR", "DEFAULT_C1", "SEMCTSConfig", "se_mcts_score"]
