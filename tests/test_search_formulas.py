"""Exact visit counts of the searches on hand-worked trees: PUCT Eq. 8 (AlphaDDA app. 1.2),
its score hook, and UCT Eq. 12 (AlphaDDA app. 3).

Each expected count below is worked out by hand in the docstring of its test, so that any
change to the formulas (``1 + n`` -> ``2 + n``, ``N(s)`` -> ``N(s) + 1``, ``ln(N_p + 1)`` ->
``ln(N_p + 2)``) changes a count and fails a test.
"""

from __future__ import annotations

import numpy as np
import pytest

from sparring.games import get_game
from sparring.games.base import State
from sparring.rng import new_rng_state
from sparring.search.evaluator import uniform_priors
from sparring.search.hooks import PriorBonus, ScoreHook
from sparring.search.puct import PUCTConfig, search, search_batch
from sparring.search.stats import RootStats
from sparring.search.uct import uct_search

TTT = get_game("tictactoe")
ROOT_PRIORS = {0: 0.3, 4: 0.5, 8: 0.2}
"""Root priors of the stub (moves a1, b2, c3; the other six moves get prior 0)."""
CHILD_VALUES = {0: -0.1, 4: -0.1, 8: -0.2}
"""Value of the position after each root move, for its side to move (so ``W = +0.1, +0.1,
+0.2`` for the root player after the first visit)."""


class RootStub:
    """Fixed priors and values on the empty tic-tac-toe board.

    The root gets :data:`ROOT_PRIORS`; the position after root move ``a`` gets value
    ``CHILD_VALUES[a]``; every other position value 0 and uniform priors.  So a root edge's
    ``W`` is fixed after its first visit (deeper leaves back up 0; no terminal position is
    reachable within the few plies searched).
    """

    def __init__(self) -> None:
        root = TTT.initial_state()
        self.root = root.tobytes()
        self.children = {TTT.play(root, m).tobytes(): v for m, v in CHILD_VALUES.items()}

    def evaluate(
        self, planes: np.ndarray, legal: np.ndarray, states: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        assert states is not None
        priors = uniform_priors(legal)
        values = np.zeros(len(states), dtype=np.float32)
        for b, s in enumerate(states):
            key = s.tobytes()
            if key == self.root:
                priors[b] = 0.0
                for move, p in ROOT_PRIORS.items():
                    priors[b, move] = p
            values[b] = self.children.get(key, 0.0)
        return priors, values


def _visits(result: RootStats) -> dict[int, int]:
    return {int(m): int(n) for m, n in zip(result.moves, result.visits, strict=True) if n > 0}


def test_puct_eq8_hand_worked_visits() -> None:
    """C_puct = 1.25, P = (0.3, 0.5, 0.2) for moves (0, 4, 8), N(s) = 1 + sum_a N(s, a):

    ===  =====  ===================================  ======================================
    sim  N(s)   scores (move 0 / 4 / 8)               chosen
    ===  =====  ===================================  ======================================
    1    1      .375 / .625 / .25                     4 (W4 = .1)
    2    2      .5303 / .1 + .4419 = .5419 / .3536    4 (W4 stays .1, N4 = 2)
    3    3      .6495 / .05 + .3608 = .4108 / .4330   0 (W0 = .1)
    4    4      .1 + .375 = .475 / .05 + .4167 / .5   8 (W8 = .2)
    5    5      .1 + .4193 = .5193 / .5159 / .4795    0
    ===  =====  ===================================  ======================================

    Visits: move 0: 2, move 4: 2, move 8: 1.  (With ``/(2 + n)``: 2/3/0; with ``sqrt(N + 1)``:
    1/3/1.)
    """
    result = search(TTT, TTT.initial_state(), RootStub(), PUCTConfig(simulations=5))
    assert _visits(result) == {0: 2, 4: 2, 8: 1}
    assert result.simulations == 5
    assert result.q[result.moves == 0][0] == pytest.approx(0.05)
    assert result.q[result.moves == 8][0] == pytest.approx(0.2)
    assert result.value == pytest.approx((0.1 + 0.1 + 0.2) / 5)


@pytest.mark.parametrize("leaves", [1, 4])
def test_puct_eq8_first_selection_follows_priors(leaves: int) -> None:
    """After the root's expansion N(s) = 1, so the first simulation takes the highest prior
    (move 4) rather than a tie among zero scores."""
    config = PUCTConfig(simulations=1, leaves_per_batch=leaves)
    result = search(TTT, TTT.initial_state(), RootStub(), config)
    assert _visits(result) == {4: 1}


def test_score_hook_prior_bonus_hand_worked() -> None:
    """The same tree with :class:`PriorBonus` adding 0.4 to the prior of move 8 (the term
    ``1.25 * 0.4 * sqrt(N) / (1 + n)``), i.e. an effective prior of 0.6:

    ===  =====  ==============================================  ============
    sim  N(s)   scores (move 0 / 4 / 8)                          chosen
    ===  =====  ==============================================  ============
    1    1      .375 / .625 / .75                                8 (W8 = .2)
    2    2      .5303 / .8839 / .2 + .5303 = .7303               4 (W4 = .1)
    3    3      .6495 / .1 + .5413 = .6413 / .2 + .6495 = .8495  8
    4    4      .75 / .1 + .625 = .725 / .1 + .5 = .6            0 (W0 = .1)
    5    5      .1 + .4193 / .1 + .6988 = .7988 / .1 + .5590     4
    ===  =====  ==============================================  ============

    Visits: move 0: 1, move 4: 2, move 8: 2 (without the hook: 2/2/1).
    """
    hook = PriorBonus(move=8, bonus=0.4, c_puct=1.25).hook()
    config = PUCTConfig(simulations=5, score_hook=hook)
    result = search(TTT, TTT.initial_state(), RootStub(), config)
    assert _visits(result) == {0: 1, 4: 2, 8: 2}
    # A hook that adds 0 (returns Eq. 8's score) changes nothing.
    zero = PriorBonus(move=8, bonus=0.0).hook()
    plain = search(TTT, TTT.initial_state(), RootStub(), PUCTConfig(simulations=5))
    hooked = search(
        TTT, TTT.initial_state(), RootStub(), PUCTConfig(simulations=5, score_hook=zero)
    )
    assert np.array_equal(plain.visits, hooked.visits)
    assert np.array_equal(plain.q, hooked.q)


def test_score_hook_sees_edge_statistics_and_context() -> None:
    """A hook that records what it sees into its per-tree context: the parent count it gets
    is N(s) (1 at the first selection), and its context persists across simulations."""
    import numba as nb

    from sparring.search.kernels import SCORE_HOOK_TYPE

    @nb.njit(SCORE_HOOK_TYPE.signature)
    def record(score, n, w, prior, parent_n, aux, node_value, child_value, mover, move,
               params, context):  # type: ignore[no-untyped-def]  # fmt: skip
        context[0] += 1.0  # calls
        context[1] = max(context[1], parent_n)
        if n == 0.0 and not np.isnan(child_value):
            context[2] += 1.0  # an unvisited edge with a value: must not happen
        # A broken invariant would move visits away from the hand-worked counts.
        return score - 10.0 * context[2] - (10.0 if parent_n < 1.0 else 0.0)

    hook = ScoreHook(record, (), context_init=(0.0, 0.0, 0.0))
    config = PUCTConfig(simulations=5, score_hook=hook)
    result = search(TTT, TTT.initial_state(), RootStub(), config)
    assert _visits(result) == {0: 2, 4: 2, 8: 1}  # the invariants hold


def test_score_hook_rejects_wrong_type() -> None:
    with pytest.raises(TypeError):
        PUCTConfig(score_hook="bonus")  # type: ignore[arg-type]


def _ttt(text: str) -> State:
    return TTT.parse_position(text)


@pytest.mark.parametrize(
    ("c", "simulations", "expected"),
    [(1.0, 10, {6: 9, 8: 1}), (2.0, 10, {6: 8, 8: 2}), (1.0, 3, {6: 2, 8: 1})],
)
def test_uct_eq12_hand_worked_visits(c: float, simulations: int, expected: dict) -> None:
    """O to move in ``oo x / xx o / . x .`` (text ``ooxxxo.x.``) has two moves with fixed
    outcomes: a3 (6) draws (+0 per visit), c3 (8) lets X win (-1 per visit), whatever the
    random stream.  Eq. 12 with N_p the root's visits so far:

    * sim 1: ln(0 + 1) = 0, a tie: the first move, 6;
    * sim 2: 6 scores ``sqrt(ln 2)/1 = .833``, 8 is unvisited (``~2633``): 8;
    * then 8 (``-1 + C sqrt(ln(N_p + 1))``) is taken again only when it beats 6's
      ``C sqrt(ln(N_p + 1) / n_6)``: with C = 1 never within 10 simulations (sim 10:
      ``.517 < .537``; with ``ln(N_p + 2)`` it would be ``.549 > .548``), with C = 2 once more.
    """
    state = _ttt("ooxxxo.x.")
    assert TTT.legal_moves(state).tolist() == [6, 8]
    for seed in (0, 1):
        result = uct_search(TTT, state, simulations, new_rng_state(seed), c=c)
        assert _visits(result) == expected
        assert result.q[result.moves == 8][0] == pytest.approx(-1.0, abs=1e-6)
        assert result.q[result.moves == 6][0] == 0.0


def test_root_stats_of_both_searches() -> None:
    """PUCT and UCT return the same record: visits summing to the simulations, one entry per
    legal move, priors (uniform for UCT), and UCT's NaN network value."""
    state = TTT.initial_state()
    puct = search_batch(TTT, [state], RootStub(), PUCTConfig(simulations=7))[0]
    uct = uct_search(TTT, state, 30, new_rng_state(3))
    for r in (puct, uct):
        assert isinstance(r, RootStats)
        assert r.moves.tolist() == list(range(9))
        assert int(r.visits.sum()) == r.simulations
        assert r.to_move == 0 and r.nodes >= 1
    assert np.allclose(uct.priors, 1 / 9) and np.isnan(uct.network_value)
    assert puct.priors[puct.moves == 4][0] == pytest.approx(0.5)
    assert puct.nodes == 1 + 7  # the root and one new node per simulation (no terminals)


class AuxRootStub(RootStub):
    """:class:`RootStub` that also gives the auxiliary output 1 for every position."""

    def evaluate_aux(
        self, planes: np.ndarray, legal: np.ndarray, states: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        priors, values = self.evaluate(planes, legal, states)
        return priors, values, np.ones(len(planes), dtype=np.float32)


def test_score_hook_aux_is_backed_up_like_visits() -> None:
    """With auxiliary output 1 at every leaf, an edge's auxiliary sum equals its visit count
    (the mean over the subtree is 1, SE-MCTS's ``beta`` bar).  The hook pushes an edge whose
    sum disagrees far down, which would move the hand-worked visits."""
    import numba as nb

    from sparring.search.evaluator import AuxEvaluator
    from sparring.search.kernels import SCORE_HOOK_TYPE

    @nb.njit(SCORE_HOOK_TYPE.signature)
    def check(score, n, w, prior, parent_n, aux, node_value, child_value, mover, move,
              params, context):  # type: ignore[no-untyped-def]  # fmt: skip
        if aux != n:
            return score - 1000.0
        return score

    assert isinstance(AuxRootStub(), AuxEvaluator)
    hook = ScoreHook(check, (), uses_aux=True)
    config = PUCTConfig(simulations=5, score_hook=hook)
    assert _visits(search(TTT, TTT.initial_state(), AuxRootStub(), config)) == {0: 2, 4: 2, 8: 1}
    with pytest.raises(TypeError):  # the hook asks for outputs a plain evaluator lacks
        search(TTT, TTT.initial_state(), RootStub(), config)


class CentreStrengthStub(RootStub):
    """:class:`RootStub` with an auxiliary "strength score" ``beta``: 1 for positions with X
    on the centre (b2, square 4), else 0."""

    def evaluate_aux(
        self, planes: np.ndarray, legal: np.ndarray, states: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        assert states is not None
        priors, values = self.evaluate(planes, legal, states)
        beta = np.array([_x_on_centre(s) for s in states])
        return priors, values, beta.astype(np.float32)


def _x_on_centre(state: State) -> bool:
    return TTT.position_to_text(state)[4] == "x"


def test_an_se_mcts_shaped_hook_fits() -> None:
    """SE-MCTS (Chen et al. 2025, Eq. 6) written as a hook, without touching the search:
    ``score - c c_1 delta_hat sqrt(N) / (1 + n)`` with ``delta = |aux / n - beta_t|`` and
    ``delta_hat`` normalised by the minimum and maximum ``delta`` seen in the tree (kept in
    the hook's context).  With target ``beta_t = 0`` the centre move (whose subtree scores
    ``beta = 1``) loses visits that the plain search gives it."""
    import numba as nb

    from sparring.search.kernels import SCORE_HOOK_TYPE

    @nb.njit(SCORE_HOOK_TYPE.signature)
    def se_mcts(score, n, w, prior, parent_n, aux, node_value, child_value, mover, move,
                params, context):  # type: ignore[no-untyped-def]  # fmt: skip
        if n == 0.0:
            return score
        delta = abs(aux / n - params[2])
        context[0] = min(context[0], delta)
        context[1] = max(context[1], delta)
        span = context[1] - context[0]
        delta_hat = (delta - context[0]) / span if span > 0.0 else 0.0
        return score - params[0] * params[1] * delta_hat * np.sqrt(parent_n) / (1.0 + n)

    hook = ScoreHook(se_mcts, (1.25, 2.0, 0.0), context_init=(np.inf, -np.inf), uses_aux=True)
    state = TTT.initial_state()
    plain = _visits(search(TTT, state, RootStub(), PUCTConfig(simulations=30)))
    shifted = _visits(
        search(TTT, state, CentreStrengthStub(), PUCTConfig(simulations=30, score_hook=hook))
    )
    assert sum(shifted.values()) == sum(plain.values()) == 30
    assert plain == {0: 9, 4: 15, 8: 6}  # (recorded; the plain search is pinned above)
    assert shifted.get(4, 0) * 3 < plain[4]  # recorded: {0: 16, 4: 2, 8: 12}
