"""The PUCT selection's per-edge score hook: extra terms in Eq. 8 without copying the search.

The PUCT search (:mod:`sparring.search.puct`) selects at node ``s`` the edge maximising the
AlphaDDA Eq. 8 score

.. math:: u(s,a) = Q(s,a) + C_{puct} P(s,a) \\frac{\\sqrt{N(s)}}{1 + N(s,a)}.

A :class:`ScoreHook` (set as :attr:`PUCTConfig.score_hook
<sparring.search.puct.PUCTConfig.score_hook>`) is a numba-compiled function of the fixed type
:data:`~sparring.search.kernels.SCORE_HOOK_TYPE`, passed to the compiled search by address
exactly like the game kernels (:class:`~sparring.search.kernels.KernelAddress`), so one
compiled search serves every hook.  For every edge considered, the search calls

``hook(score, n, w, prior, parent_n, aux, node_value, child_value, mover, move, params,
context) -> float``

and selects the edge with the largest **returned** value: the hook **replaces** the score.
It receives the Eq. 8 score as ``score``, so a hook that *adds a term* returns ``score +
term`` and a hook with a score of its own ignores it.  The arguments (virtual loss included,
as the search itself counts it while leaves wait for their evaluation):

* ``score``: Eq. 8 as above (with :attr:`~sparring.search.puct.PUCTConfig.unvisited_q` for an
  unvisited edge);
* ``n``: the edge's visit count ``N(s, a)``; ``w``: its value sum ``W(s, a)`` for the player
  to move at ``s`` (so ``Q = w / n``); ``prior``: ``P(s, a)`` (root noise included);
* ``parent_n``: the parent's visit count ``N(s)`` (its own expansion counted, see the PUCT
  module's conventions), so ``sqrt(parent_n)`` is Eq. 8's numerator;
* ``aux``: the edge's auxiliary sum: the sum of the auxiliary outputs of the
  :class:`~sparring.search.evaluator.AuxEvaluator` over the leaves evaluated below the edge,
  backed up like ``W`` but without sign changes (``aux / n`` is its subtree mean; 0 when
  the hook does not ask for auxiliary outputs);
* ``node_value``: ``v(s)``, the evaluator's value of ``s`` for the player to move at ``s``;
  ``child_value``: the evaluator's value of the child ``s'`` after ``a`` for the player to
  move at ``s'`` (exact for a terminal child), NaN while the child is not evaluated yet;
* ``mover``: the player to move at ``s`` (0 or 1); ``move``: the edge's move;
* ``params``: the hook's float parameter vector (:attr:`ScoreHook.params`), read-only;
* ``context``: a per-tree float vector (:attr:`ScoreHook.context_init`), writable, kept for
  the whole search of one tree: e.g. running minima and maxima over the tree.

The default is no hook (the same as a hook that returns ``score``, i.e. adds 0): the search
then runs a selection compiled without the hook's code, as fast as before the hook existed
(BENCHMARKS.md, "Search layer").  A hook is called for every edge of every node selected
through, so it costs about 5-20% of a network-free search.

How the planned features fit (without copying the search):

* **AlphaDDA3** (Fujita 2022, Eq. 6-7): ``U = W'/N + C sqrt(2 ln(N + 1) / (n + 1))`` with
  ``W' = W - |v + vbar_n c(s_t, a) c_AlphaDDA|``: the hook ignores ``score`` and computes U
  from ``w``, ``n`` and ``parent_n``; ``v`` is ``child_value`` (or ``node_value``, whichever
  reading of the paper is chosen), ``c(s_t, a)`` comes from ``mover``, and ``C``, ``vbar_n``
  and ``c_AlphaDDA`` travel in ``params`` (set per move by the player).
* **SE-MCTS** (Chen et al. 2025, Eq. 6): ``Q + c (P - c_1 delta_hat) sqrt(N) / (1 + n)``,
  i.e. ``score - c c_1 delta_hat sqrt(parent_n) / (1 + n)``, with ``delta = |aux / n -
  beta_t|`` (``aux`` the subtree sum of the strength scores ``beta``), normalised by the
  minimum and maximum of ``delta`` seen in the tree, kept in ``context``; ``c``, ``c_1`` and
  ``beta_t`` travel in ``params``; the evaluator is an
  :class:`~sparring.search.evaluator.AuxEvaluator` giving ``beta`` and the hook sets
  :attr:`ScoreHook.uses_aux`.

:class:`PriorBonus` is a small worked example (and the hook of the tests).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from sparring.search.kernels import SCORE_HOOK_TYPE, KernelAddress

DEFAULT_C_PUCT = 1.25
"""The exploration rate ``C_puct`` of Eq. 8 (AlphaDDA Table A1: 1.25): the one default of the
PUCT search (:class:`~sparring.search.puct.PUCTConfig`), its score hooks, the players and the
trainer (defined here, below :mod:`sparring.search.puct`, because the hooks scale by it)."""


@nb.njit(SCORE_HOOK_TYPE.signature, cache=True)
def no_hook(
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
    """The default hook: returns Eq. 8's score unchanged (adds 0).  The search does not even
    call it when no hook is set."""
    return score


@dataclass(frozen=True)
class ScoreHook:
    """A compiled per-edge score function for the PUCT selection and its parameters.

    Built by a feature's typed config (e.g. :meth:`PriorBonus.hook`); the search takes it in
    :attr:`PUCTConfig.score_hook <sparring.search.puct.PUCTConfig.score_hook>`.
    """

    function: Any
    """A numba ``njit`` function compiled for :data:`~sparring.search.kernels.SCORE_HOOK_TYPE`
    (give the signature to ``njit`` and ``cache=True`` so it is compiled once)."""
    params: tuple[float, ...] = ()
    """The float parameter vector passed as ``params``."""
    context_init: tuple[float, ...] = ()
    """The initial per-tree ``context`` vector (its length is the context's size)."""
    uses_aux: bool = False
    """Whether the search must call the evaluator's ``evaluate_aux`` (an
    :class:`~sparring.search.evaluator.AuxEvaluator`) and back the auxiliary outputs up."""
    _address: KernelAddress = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_address", KernelAddress(self.function, SCORE_HOOK_TYPE))

    @property
    def address(self) -> int:
        """The compiled function's address, as the search takes it."""
        return self._address.address

    def params_array(self) -> npt.NDArray[np.float64]:
        """:attr:`params` as the contiguous float64 array the search passes."""
        return np.array(self.params if self.params else (0.0,), dtype=np.float64)

    def context_array(self, trees: int) -> npt.NDArray[np.float64]:
        """A fresh ``[trees, size]`` context (one row per tree), filled with
        :attr:`context_init` (one unused column if the hook has no context)."""
        init = self.context_init if self.context_init else (0.0,)
        return np.tile(np.array(init, dtype=np.float64), (trees, 1))


@nb.njit(SCORE_HOOK_TYPE.signature, cache=True)
def _prior_bonus(
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
    """``score + params[2] * params[1] * sqrt(parent_n) / (1 + n)`` for the edge of move
    ``params[0]``, ``score`` for the others (:class:`PriorBonus`)."""
    if move != int(params[0]):
        return score
    return score + params[2] * params[1] * np.sqrt(parent_n) / (1.0 + n)


@dataclass(frozen=True)
class PriorBonus:
    """Adds ``bonus`` to the prior of one move in Eq. 8: the term ``C_puct * bonus *
    sqrt(N(s)) / (1 + N(s, a))`` on every edge of that move (at any depth).

    A worked example of a hook that adds a term (and SE-MCTS's shape: a shift of the prior).
    """

    move: int
    bonus: float
    c_puct: float = DEFAULT_C_PUCT
    """The search's ``C_puct`` (the term is scaled like Eq. 8's exploration term)."""

    def hook(self) -> ScoreHook:
        """The :class:`ScoreHook` of this config."""
        return ScoreHook(_prior_bonus, (float(self.move), float(self.bonus), float(self.c_puct)))


__all__ = ["DEFAULT_C_PUCT", "PriorBonus", "ScoreHook", "no_hook"]
