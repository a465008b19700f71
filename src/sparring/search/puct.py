"""Batched PUCT Monte Carlo tree search: AlphaZero's search as used by AlphaDDA (app. 1.2).

Each *simulation* has three steps (AlphaDDA appendix 1.2):

* **Select.** From the root, descend to a leaf choosing at each node ``s`` the action (Eq. 8)

  .. math:: a = \\arg\\max_a \\; Q(s,a) + C_{puct} P(s,a) \\frac{\\sqrt{N(s)}}{1 + N(s,a)}

  where ``N(s, a)`` is the edge's visit count, ``Q(s, a) = W(s, a) / N(s, a)`` its mean value
  for the player to move at ``s``, ``P(s, a)`` its prior and ``N(s)`` the parent's visit count.
  Conventions (the paper leaves them open):

  - ``N(s)`` counts every finished simulation that passed through ``s`` *including the one
    that expanded it* (so ``N(s) = 1 + sum_a N(s, a)``; for the root the network evaluation
    of the root counts as its first visit).  The first selection below a freshly expanded node
    therefore follows the priors instead of a tie among zero scores.
  - An unvisited edge has ``Q = 0`` (AlphaDDA: edges are initialised with ``Q(s_L, a) = 0``;
    0 is a draw on the ``[-1, 1]`` value scale); :attr:`PUCTConfig.unvisited_q` changes it.
  - Ties go to the first edge in the game's move-generation order (deterministic).

* **Expand and evaluate.** A leaf that is not terminal is evaluated by an
  :class:`~sparring.search.evaluator.Evaluator` (the DNN) giving ``v(s_L)`` and the priors
  ``p_a(s_L)``; one edge per legal move is created with ``N = W = 0`` and ``P = p_a``.  A
  terminal leaf takes its exact value (+1 / -1 / 0 for the side to move: a win, a loss, a
  draw) and calls no network; it stays a leaf, and later simulations reaching it back up the
  same exact value.  Passes (Othello) are ordinary moves.
* **Backup.** Along the path, ``N(s_t, a_t) += 1`` and ``W(s_t, a_t) += v`` with ``v`` the
  leaf value seen from the player to move at ``s_t`` (the sign follows who is to move, so
  games where a player moves twice in a row would also be handled).

*Play* (choosing the move) is the caller's: see :class:`~sparring.search.stats.RootStats`.

Score hook.  :attr:`PUCTConfig.score_hook` replaces Eq. 8's score by a compiled per-edge
function (AlphaDDA3's score, SE-MCTS's prior shift; :mod:`sparring.search.hooks`), passed by
address like the game kernels; with none (the default) the search is Eq. 8 exactly, and the
selection is a separately compiled version with no hook code in its loop.

Root exploration noise (AlphaZero; AlphaDDA Table A1 ``epsilon``): with
``PUCTConfig.dirichlet_alpha`` set, the root priors become ``(1 - eps) P + eps * eta`` with
``eta ~ Dir(alpha)`` drawn from the caller's seeded :class:`numpy.random.Generator`.

Root random picks (the AlphaDDA author's code, not the papers): with
``PUCTConfig.root_random = p > 0`` each simulation leaves the root, with probability ``p``, by a
uniformly random legal move instead of the best score.  The picks (one per simulation, -1 for
"no pick") are drawn before the simulations from the caller's generator and passed to the
compiled selection as an array, so the search stays deterministic given its generator.

Root plans (search variants that decide the root child of each simulation from the tree so
far: Gumbel AlphaZero's sequential halving, KataGo's forced playouts).  With
``PUCTConfig.root_plan`` set, the plan's :meth:`RootPlan.begin` is called once the roots are
expanded (and noised), and before every round of selections its run writes, for each tree
still searching, the root child of the tree's next simulation into ``root_picks[t,
tree_done[t]]`` (-1: Eq. 8 decides).  A pick not yet written (:data:`PICK_WAIT`) ends that
tree's round, so every root decision sees the values of all earlier simulations (one
simulation per tree and round, whatever ``leaves_per_batch``).  At the end the run may add to
each tree's :class:`~sparring.search.stats.RootStats` (an improved policy, a selected move).

Batching.  Network calls dominate the cost, so :func:`search_batch` searches many trees
(games) at once and sends the leaves of all of them to the evaluator in one batch.  Within a
tree, ``leaves_per_batch > 1`` collects several leaves per batch using *virtual loss*: while a
leaf waits for its evaluation, every edge on its path counts ``virtual_loss`` extra lost visits
(``N += 1``, ``W -= virtual_loss`` per waiting leaf) so that the next descent is steered
elsewhere.  A descent that reaches a leaf already waiting (a collision) is abandoned and
closes that tree's collection for the round.  With ``leaves_per_batch = 1`` the search of
each tree is exactly sequential AlphaZero MCTS, whatever the number of trees.

Implementation (after the design of DeepMind's ``mctx``: pure functions over preallocated
arrays).  The trees of one call share flat arrays: per node the edge range, player to move,
status, visit and virtual-loss counts, a pending flag and the position itself (so the game's
compiled kernels step from a node to its child without replaying the path); per edge the move,
child node, visit count, virtual-loss count, prior, value sum ``W`` and auxiliary sum.
Selection, expansion and backup are numba functions; the game's
:class:`~sparring.games.base.Kernels` reach them as the integer addresses of their compiled
code, turned back into first-class functions of fixed types inside
(:class:`~sparring.search.kernels.KernelAddress`), so one compiled, disk-cached search serves
every game at no per-call typing cost.  Python only calls the evaluator between them.  The
input planes of the leaves are written by the game's compiled ``encode`` kernel (or its Python
``encode`` if it has none).
The search is deterministic given the evaluator's outputs, the Dirichlet noise and the root picks.

Games with Python-only rules (chess: :attr:`Game.compiled <sparring.games.base.Game.compiled>`
is False).  The selection, expansion and backup are written once as ``register_jitable``
functions taking the kernels as arguments: the compiled search runs them compiled, and for
Python kernels :func:`search_batch` runs the very same functions as plain Python over the same
arrays (no per-node Python objects; slower, see BENCHMARKS.md), batching the leaves through the
evaluator the same way.
"""

from __future__ import annotations

import functools
import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numba as nb
import numpy as np
import numpy.typing as npt
from numba.extending import register_jitable

from sparring.games.base import DRAW, FIRST_WINS, ONGOING, Game, State
from sparring.search.evaluator import AuxEvaluator, EdgeAuxEvaluator, Evaluator
from sparring.search.hooks import DEFAULT_C_PUCT, ScoreHook, no_hook
from sparring.search.kernels import (
    STATES_TYPE,
    encode_at,
    is_compiled,
    kernel_addresses,
    legal_moves_at,
    play_at,
    score_hook_at,
    status_at,
    to_move_at,
)
from sparring.search.limit import Limit, LimitClock
from sparring.search.stats import RootStats

# ---- array layouts ------------------------------------------------------------------------
# node_i columns (int64)
N_EDGE_START = 0  # first edge of the node's children, -1 before expansion
N_EDGE_COUNT = 1  # number of children (legal moves); 0 for leaves and terminal nodes
N_TO_MOVE = 2  # player to move at the node (0 or 1)
N_STATUS = 3  # game status of the node's position (ONGOING, FIRST_WINS, ...)
N_VISITS = 4  # N(s): finished simulations through the node, its own expansion included
N_VIRTUAL = 5  # simulations in flight through the node (virtual loss)
N_PENDING = 6  # 1 while the node waits for its evaluation
NODE_INT_FIELDS = 7
# node_f columns (float64)
N_VALUE = 0  # v(s): network value (or exact value if terminal), side to move
NODE_FLOAT_FIELDS = 1
# edge_i columns (int64)
E_MOVE = 0  # the move of the edge
E_CHILD = 1  # child node, -1 until first visited
E_VISITS = 2  # N(s, a)
E_VIRTUAL = 3  # simulations in flight through the edge
EDGE_INT_FIELDS = 4
# edge_f columns (float64)
E_PRIOR = 0  # P(s, a)
E_VALUE = 1  # W(s, a), for the player to move at s
EDGE_FLOAT_FIELDS = 2
E_AUX = 2  # sum of the auxiliary outputs of the leaves below the edge (no sign change);
# this column exists only when the score hook asks for auxiliary outputs (the default search
# keeps two columns: a wider edge record cost about 6% of a network-free batched search)

PICK_WAIT = -2
"""A ``root_picks`` entry not decided yet: the tree's round of selections ends before that
simulation (a :class:`RootPlan` writes it before the next round)."""


@dataclass(frozen=True)
class RootArrays:
    """The arrays of the trees of one :func:`search_batch` call, as a :class:`RootPlanRun`
    reads them between rounds (the edge arrays may be reallocated between rounds: use the ones
    passed each time).  Tree ``t``'s root is node ``t``; its children are the edges
    ``node_i[t, N_EDGE_START]`` to ``+ node_i[t, N_EDGE_COUNT]`` (columns: the ``N_*`` and
    ``E_*`` constants of this module)."""

    node_i: npt.NDArray[np.int64]
    node_f: npt.NDArray[np.float64]
    edge_i: npt.NDArray[np.int64]
    edge_f: npt.NDArray[np.float64]
    tree_done: npt.NDArray[np.int64]
    """Simulations finished per tree."""
    tree_target: npt.NDArray[np.int64]
    """Simulations wanted per tree (0 for a terminal root)."""

    def root_edges(self, t: int) -> slice:
        """The edge rows of tree ``t``'s root children (empty for a terminal root)."""
        start, count = int(self.node_i[t, N_EDGE_START]), int(self.node_i[t, N_EDGE_COUNT])
        return slice(start, start + max(count, 0))


class RootPlanRun(Protocol):
    """One search call's root plan (made by :meth:`RootPlan.begin`)."""

    def plan(self, arrays: RootArrays, picks: npt.NDArray[np.int64]) -> None:
        """Before a round: for every tree ``t`` with ``tree_done[t] < tree_target[t]``, write
        the root child (index among the root's edges, or -1 for Eq. 8) of simulation
        ``tree_done[t]`` into ``picks[t, tree_done[t]]`` (it holds :data:`PICK_WAIT` until
        written).  ``picks`` has one row per tree and ``simulations`` columns."""

    def finish(self, t: int, stats: RootStats) -> RootStats:
        """Tree ``t``'s result, given the search's own (e.g. with an improved policy)."""


class RootPlan(Protocol):
    """A search variant that decides the root child of each simulation (module doc)."""

    def begin(
        self, arrays: RootArrays, config: PUCTConfig, generator: np.random.Generator
    ) -> RootPlanRun:
        """Start one search call, once the roots are expanded and noised; draws anything
        random from ``generator`` (in tree order)."""


@dataclass(frozen=True)
class PUCTConfig:
    """Parameters of the PUCT search (AlphaDDA app. 1.2, Table A1)."""

    simulations: int = 200
    """Simulations per search, ``N_sim`` (Table A1: 200 for Connect4 and 6x6 Othello, 400 for
    Othello).  The evaluation of the root is not counted: the root's visit counts sum to this."""
    c_puct: float = DEFAULT_C_PUCT
    """Exploration rate ``C_puct`` of Eq. 8 (Table A1: 1.25)."""
    leaves_per_batch: int = 1
    """Leaves collected from one tree per network batch, using virtual loss when > 1."""
    virtual_loss: float = 1.0
    """Value counted as lost for each simulation in flight through an edge (see module doc)."""
    dirichlet_alpha: float | None = None
    """Concentration ``alpha`` of the root Dirichlet noise; None: no noise (play)."""
    noise_fraction: float = 0.25
    """Weight ``epsilon`` of the root noise (AlphaZero 0.25; AlphaDDA Table A1 lists 0.2)."""
    unvisited_q: float = 0.0
    """``Q`` of an edge never visited (AlphaDDA: 0, a draw); e.g. -1 makes search narrower."""
    first_play_parent: bool = False
    """Give an edge never visited the ``Q`` of its node's own value (the evaluator's value of
    the position, for the side to move) instead of :attr:`unvisited_q`: Leela Chess Zero's
    first-play urgency without its reduction.  In a won position every untried move then
    starts as won rather than drawn, so the search tries them and finds the quickest win;
    with a constant 0 it keeps to the first line whose value is near +1 (and can miss a
    mate in one)."""
    score_hook: ScoreHook | None = None
    """A compiled per-edge score replacing Eq. 8's (:mod:`sparring.search.hooks`); None: Eq. 8."""
    root_random: float = 0.0
    """Probability that a simulation leaves the root by a uniformly random legal move instead of
    the best-scoring one (epsilon-greedy at the root).  0 (default): none, as in the papers.
    The AlphaDDA author's code (KazuhisaFujita/AlphaDDA, ``rnd_rate``) uses 0.2 in every
    AlphaZero search; it makes a deterministic player's games differ.  The picks are drawn from
    the caller's seeded generator; the random simulations count in the visits as any other."""

    root_plan: RootPlan | None = None
    """A search variant deciding the root child of each simulation (see the module doc):
    e.g. :class:`~sparring.search.gumbel.GumbelRoot`; None: Eq. 8 at the root too."""

    def __post_init__(self) -> None:
        if self.root_plan is not None and self.root_random > 0.0:
            raise ValueError("root_plan and root_random cannot be used together")
        if self.simulations < 0:
            raise ValueError("simulations must be >= 0")
        if self.leaves_per_batch < 1:
            raise ValueError("leaves_per_batch must be >= 1")
        if self.c_puct < 0 or self.virtual_loss < 0:
            raise ValueError("c_puct and virtual_loss must be >= 0")
        if self.dirichlet_alpha is not None and self.dirichlet_alpha <= 0:
            raise ValueError("dirichlet_alpha must be > 0 (or None for no noise)")
        if not 0.0 <= self.noise_fraction <= 1.0:
            raise ValueError("noise_fraction must be in [0, 1]")
        if self.score_hook is not None and not isinstance(self.score_hook, ScoreHook):
            raise TypeError("score_hook must be a sparring.search.hooks.ScoreHook")
        if not 0.0 <= self.root_random <= 1.0:
            raise ValueError("root_random must be in [0, 1]")


SearchResult = RootStats
"""The PUCT search's result: the shared root-statistics record (old name)."""


# ---- the search, written once (compiled, or run as Python for Python-only rules) ----------


@register_jitable(inline="always")
def _exact_value(result: int, mover: int) -> float:
    """Value of a finished game with status ``result`` for ``mover`` (+1, -1, 0)."""
    if result == DRAW:
        return 0.0
    winner = 0 if result == FIRST_WINS else 1
    return 1.0 if winner == mover else -1.0


@nb.njit(cache=True)
def _backup(
    node_i: np.ndarray,
    edge_i: np.ndarray,
    edge_f: np.ndarray,
    path_nodes: np.ndarray,
    path_edges: np.ndarray,
    depth: int,
    leaf_value: float,
    leaf_aux: float,
) -> None:
    """Backup (AlphaDDA app. 1.2): ``N += 1``, ``W += v`` along a path, ``v`` from each mover;
    the auxiliary sums get ``leaf_aux`` unchanged."""
    leaf = path_nodes[depth]
    leaf_mover = node_i[leaf, N_TO_MOVE]
    node_i[leaf, N_VISITS] += 1
    for i in range(depth):
        parent = path_nodes[i]
        edge = path_edges[i]
        v = leaf_value if node_i[parent, N_TO_MOVE] == leaf_mover else -leaf_value
        edge_i[edge, E_VISITS] += 1
        edge_f[edge, E_VALUE] += v
        node_i[parent, N_VISITS] += 1
    if leaf_aux != 0.0 and edge_f.shape[1] > E_AUX:  # (only with auxiliary outputs)
        for i in range(depth):
            edge_f[path_edges[i], E_AUX] += leaf_aux


@register_jitable(inline="always")
def _init_node(
    status: Callable[..., Any],
    to_move: Callable[..., Any],
    node_i: np.ndarray,
    node_f: np.ndarray,
    node_state: np.ndarray,
    node: int,
) -> None:
    """Reset ``node``'s fields for the position already in ``node_state[node]``: no edges or
    visits, not pending; a finished game gets its exact value."""
    node_i[node, N_EDGE_START] = -1
    node_i[node, N_EDGE_COUNT] = 0
    node_i[node, N_TO_MOVE] = to_move(node_state[node])
    node_i[node, N_STATUS] = status(node_state[node])
    node_i[node, N_VISITS] = 0
    node_i[node, N_VIRTUAL] = 0
    node_i[node, N_PENDING] = 0
    node_f[node, N_VALUE] = 0.0
    if node_i[node, N_STATUS] != ONGOING:
        node_f[node, N_VALUE] = _exact_value(node_i[node, N_STATUS], node_i[node, N_TO_MOVE])


@register_jitable
def _new_node(
    play: Callable[..., Any],
    status: Callable[..., Any],
    to_move: Callable[..., Any],
    node_i: np.ndarray,
    node_f: np.ndarray,
    node_state: np.ndarray,
    parent: int,
    move: int,
    child: int,
) -> None:
    """Create node ``child`` for the position after ``move`` from ``parent``."""
    node_state[child, :] = node_state[parent, :]
    play(node_state[child], move)
    _init_node(status, to_move, node_i, node_f, node_state, child)


@register_jitable
def _queue_leaf(
    legal_moves: Callable[..., Any],
    encode: Callable[..., Any],
    use_encode: bool,
    node_i: np.ndarray,
    node_state: np.ndarray,
    node: int,
    k: int,
    planes: np.ndarray,
    legal: np.ndarray,
    leaf_states: np.ndarray,
    leaf_moves: np.ndarray,
    leaf_nmoves: np.ndarray,
) -> None:
    """Mark ``node`` as waiting for evaluation and write its inputs to batch row ``k``."""
    node_i[node, N_PENDING] = 1
    leaf_states[k, :] = node_state[node, :]
    n = legal_moves(node_state[node], leaf_moves[k])
    leaf_nmoves[k] = n
    legal[k, :] = False
    for i in range(n):
        legal[k, leaf_moves[k, i]] = True
    if use_encode:
        encode(node_state[node], planes[k])


@register_jitable(inline="always")
def _eq8(
    edge_i: np.ndarray,
    edge_f: np.ndarray,
    e: int,
    sqrt_n: float,
    c_puct: float,
    unvisited_q: float,
    virtual_loss: float,
) -> float:
    """Eq. 8's score of edge ``e``, ``Q + C_puct P sqrt(N(s)) / (1 + N(s, a))``, virtual loss
    counted as lost visits (``sqrt_n`` is ``sqrt(N(s))``)."""
    vl = edge_i[e, E_VIRTUAL]
    n = edge_i[e, E_VISITS] + vl
    q = (edge_f[e, E_VALUE] - virtual_loss * vl) / n if n > 0 else unvisited_q
    return q + c_puct * edge_f[e, E_PRIOR] * sqrt_n / (1.0 + n)


@register_jitable
def _select_edge_hooked(
    node_i: np.ndarray,
    node_f: np.ndarray,
    edge_i: np.ndarray,
    edge_f: np.ndarray,
    node: int,
    sqrt_n: float,
    c_puct: float,
    unvisited_q: float,
    virtual_loss: float,
    hook: Callable[..., float],
    params: np.ndarray,
    contexts: np.ndarray,
    tree: int,
) -> int:
    """:func:`_select_edge` with a score hook: the edge maximising the hook's score
    (``contexts[tree]`` is the tree's hook context)."""
    context = contexts[tree]
    has_aux = edge_f.shape[1] > E_AUX
    start = node_i[node, N_EDGE_START]
    parent_n = float(node_i[node, N_VISITS] + node_i[node, N_VIRTUAL])
    best = start
    best_score = -np.inf
    for e in range(start, start + node_i[node, N_EDGE_COUNT]):
        score = _eq8(edge_i, edge_f, e, sqrt_n, c_puct, unvisited_q, virtual_loss)
        vl = edge_i[e, E_VIRTUAL]
        child = edge_i[e, E_CHILD]
        child_value = np.nan
        if child >= 0 and node_i[child, N_PENDING] == 0:
            child_value = node_f[child, N_VALUE]
        aux = edge_f[e, E_AUX] if has_aux else 0.0
        score = hook(
            score, float(edge_i[e, E_VISITS] + vl), edge_f[e, E_VALUE] - virtual_loss * vl,
            edge_f[e, E_PRIOR], parent_n, aux, node_f[node, N_VALUE],
            child_value, node_i[node, N_TO_MOVE], edge_i[e, E_MOVE], params, context,
        )  # fmt: skip
        if score > best_score:
            best_score = score
            best = e
    return best


@register_jitable(inline="always")
def _select_edge(
    node_i: np.ndarray,
    node_f: np.ndarray,
    edge_i: np.ndarray,
    edge_f: np.ndarray,
    node: int,
    c_puct: float,
    unvisited_q: float,
    virtual_loss: float,
    hook: Callable[..., float],
    use_hook: bool,
    params: np.ndarray,
    contexts: np.ndarray,
    tree: int,
) -> int:
    """The edge of ``node`` maximising Eq. 8 (or the score hook), virtual loss counted as lost
    visits; ties go to the first edge.  (Without a hook the loop has no call in it, and no
    context view is made: both cost 10-15% of a network-free search.)  ``unvisited_q`` nan:
    an unvisited edge's ``Q`` is the node's own value (:attr:`PUCTConfig.first_play_parent`)."""
    sqrt_n = math.sqrt(node_i[node, N_VISITS] + node_i[node, N_VIRTUAL])
    fpu = node_f[node, N_VALUE] if math.isnan(unvisited_q) else unvisited_q
    if use_hook:
        return _select_edge_hooked(
            node_i, node_f, edge_i, edge_f, node, sqrt_n, c_puct, fpu, virtual_loss,
            hook, params, contexts, tree,
        )  # fmt: skip
    start = node_i[node, N_EDGE_START]
    best = start
    best_score = -np.inf
    for e in range(start, start + node_i[node, N_EDGE_COUNT]):
        score = _eq8(edge_i, edge_f, e, sqrt_n, c_puct, fpu, virtual_loss)
        if score > best_score:
            best_score = score
            best = e
    return best


@register_jitable
def _init_roots_core(
    legal_moves: Callable[..., Any],
    status: Callable[..., Any],
    to_move: Callable[..., Any],
    encode: Callable[..., Any],
    use_encode: bool,
    roots: np.ndarray,
    node_i: np.ndarray,
    node_f: np.ndarray,
    node_state: np.ndarray,
    tree_nodes: np.ndarray,
    leaf_path_nodes: np.ndarray,
    leaf_depth: np.ndarray,
    leaf_tree: np.ndarray,
    planes: np.ndarray,
    legal: np.ndarray,
    leaf_states: np.ndarray,
    leaf_moves: np.ndarray,
    leaf_nmoves: np.ndarray,
) -> int:
    """Make node ``t`` the root of tree ``t``; queue the ongoing roots for evaluation."""
    k = 0
    for t in range(roots.shape[0]):
        node_state[t, :] = roots[t, :]
        _init_node(status, to_move, node_i, node_f, node_state, t)
        tree_nodes[t] = 1
        if node_i[t, N_STATUS] != ONGOING:
            continue
        leaf_path_nodes[k, 0] = t
        leaf_depth[k] = 0
        leaf_tree[k] = t
        _queue_leaf(
            legal_moves, encode, use_encode, node_i, node_state, t, k,
            planes, legal, leaf_states, leaf_moves, leaf_nmoves,
        )  # fmt: skip
        k += 1
    return k


@nb.njit(inline="always")
def _select_leaves_core(
    legal_moves: Callable[..., Any],
    play: Callable[..., Any],
    status: Callable[..., Any],
    to_move: Callable[..., Any],
    encode: Callable[..., Any],
    use_encode: bool,
    hook: Callable[..., float],
    use_hook: bool,
    params: np.ndarray,
    context: np.ndarray,
    root_picks: np.ndarray,
    node_i: np.ndarray,
    node_f: np.ndarray,
    node_state: np.ndarray,
    edge_i: np.ndarray,
    edge_f: np.ndarray,
    counters: np.ndarray,
    tree_done: np.ndarray,
    tree_target: np.ndarray,
    tree_nodes: np.ndarray,
    coefficients: np.ndarray,
    leaf_path_nodes: np.ndarray,
    leaf_path_edges: np.ndarray,
    leaf_depth: np.ndarray,
    leaf_tree: np.ndarray,
    planes: np.ndarray,
    legal: np.ndarray,
    leaf_states: np.ndarray,
    leaf_moves: np.ndarray,
    leaf_nmoves: np.ndarray,
) -> int:
    """Select (Eq. 8) up to ``leaves_per_batch`` leaves per tree; return how many were queued.

    Terminal leaves are backed up at once (and counted in ``tree_done``); new non-terminal
    leaves are queued in the batch rows with virtual loss applied along their paths.
    ``counters`` holds ``[nodes used, edges used, leaves per tree and batch]`` (the last is
    :attr:`PUCTConfig.leaves_per_batch`, kept there because Python compiles a call of more than
    30 arguments as a ``*args`` call, which numba cannot inline); ``context`` one hook context
    row per tree;
    ``root_picks[t, i]`` the root child (its index among the root's edges) that simulation ``i``
    of tree ``t`` takes regardless of the scores, -1 for none, :data:`PICK_WAIT` to end the
    tree's round before simulation ``i`` (a root plan has not decided it yet; no columns: no
    picks);
    ``coefficients`` is ``[C_puct, unvisited Q, virtual loss]``.
    """
    c_puct = coefficients[0]
    unvisited_q = coefficients[1]
    virtual_loss = coefficients[2]
    k = 0
    n_nodes = counters[0]
    leaves_per_batch = counters[2]
    picks = root_picks.shape[1]
    for t in range(tree_done.shape[0]):
        gathered = 0
        while gathered < leaves_per_batch and tree_done[t] + gathered < tree_target[t]:
            if picks > 0 and root_picks[t, tree_done[t] + gathered] == PICK_WAIT:
                break  # a root plan decides this simulation's root child before the next round
            pn = leaf_path_nodes[k]
            pe = leaf_path_edges[k]
            node = t
            depth = 0
            pn[0] = node
            collided = False
            while True:
                if node_i[node, N_STATUS] != ONGOING:
                    # A terminal node reached again: its exact value, no network call.
                    _backup(node_i, edge_i, edge_f, pn, pe, depth, node_f[node, N_VALUE], 0.0)
                    tree_done[t] += 1
                    break
                if node_i[node, N_PENDING] != 0:
                    collided = True
                    break
                simulation = tree_done[t] + gathered
                if depth == 0 and simulation < picks and root_picks[t, simulation] >= 0:
                    best = node_i[node, N_EDGE_START] + root_picks[t, simulation]
                else:
                    best = _select_edge(
                        node_i, node_f, edge_i, edge_f, node, c_puct, unvisited_q, virtual_loss,
                        hook, use_hook, params, context, t,
                    )  # fmt: skip
                pe[depth] = best
                depth += 1
                child = edge_i[best, E_CHILD]
                if child < 0:
                    child = n_nodes
                    n_nodes += 1
                    tree_nodes[t] += 1
                    _new_node(
                        play, status, to_move, node_i, node_f, node_state,
                        node, edge_i[best, E_MOVE], child,
                    )  # fmt: skip
                    edge_i[best, E_CHILD] = child
                    pn[depth] = child
                    if node_i[child, N_STATUS] != ONGOING:
                        _backup(node_i, edge_i, edge_f, pn, pe, depth, node_f[child, N_VALUE], 0.0)
                        tree_done[t] += 1
                        break
                    # A new leaf: queue it and put virtual loss on its path.
                    _queue_leaf(
                        legal_moves, encode, use_encode, node_i, node_state, child, k,
                        planes, legal, leaf_states, leaf_moves, leaf_nmoves,
                    )  # fmt: skip
                    for i in range(depth):
                        edge_i[pe[i], E_VIRTUAL] += 1
                        node_i[pn[i], N_VIRTUAL] += 1
                    leaf_depth[k] = depth
                    leaf_tree[k] = t
                    k += 1
                    gathered += 1
                    break
                node = child
                pn[depth] = node
            if collided:
                break
    counters[0] = n_nodes
    return k


def _init_roots_impl(
    legal_moves_address: int,
    status_address: int,
    to_move_address: int,
    encode_address: int,
    use_encode: bool,
    roots: np.ndarray,
    node_i: np.ndarray,
    node_f: np.ndarray,
    node_state: np.ndarray,
    tree_nodes: np.ndarray,
    leaf_path_nodes: np.ndarray,
    leaf_depth: np.ndarray,
    leaf_tree: np.ndarray,
    planes: np.ndarray,
    legal: np.ndarray,
    leaf_states: np.ndarray,
    leaf_moves: np.ndarray,
    leaf_nmoves: np.ndarray,
) -> int:
    """:func:`_init_roots_core` with the kernels given by address (:class:`KernelAddresses`)."""
    return _init_roots_core(
        legal_moves_at(legal_moves_address), status_at(status_address),
        to_move_at(to_move_address), encode_at(encode_address), use_encode, roots,
        node_i, node_f, node_state, tree_nodes, leaf_path_nodes, leaf_depth, leaf_tree,
        planes, legal, leaf_states, leaf_moves, leaf_nmoves,
    )  # fmt: skip


def _select_leaves_impl(
    legal_moves_address: int,
    play_address: int,
    status_address: int,
    to_move_address: int,
    encode_address: int,
    use_encode: bool,
    hook_address: int,
    params: np.ndarray,
    context: np.ndarray,
    root_picks: np.ndarray,
    node_i: np.ndarray,
    node_f: np.ndarray,
    node_state: np.ndarray,
    edge_i: np.ndarray,
    edge_f: np.ndarray,
    counters: np.ndarray,
    tree_done: np.ndarray,
    tree_target: np.ndarray,
    tree_nodes: np.ndarray,
    coefficients: np.ndarray,
    leaf_path_nodes: np.ndarray,
    leaf_path_edges: np.ndarray,
    leaf_depth: np.ndarray,
    leaf_tree: np.ndarray,
    planes: np.ndarray,
    legal: np.ndarray,
    leaf_states: np.ndarray,
    leaf_moves: np.ndarray,
    leaf_nmoves: np.ndarray,
) -> int:
    """:func:`_select_leaves_core` with the kernels and the score hook given by address."""
    return _select_leaves_core(
        legal_moves_at(legal_moves_address), play_at(play_address), status_at(status_address),
        to_move_at(to_move_address), encode_at(encode_address), use_encode,
        score_hook_at(hook_address), True, params, context, root_picks,
        node_i, node_f, node_state, edge_i, edge_f, counters, tree_done, tree_target,
        tree_nodes, coefficients,
        leaf_path_nodes, leaf_path_edges, leaf_depth, leaf_tree,
        planes, legal, leaf_states, leaf_moves, leaf_nmoves,
    )  # fmt: skip


def _select_leaves_plain_impl(
    legal_moves_address: int,
    play_address: int,
    status_address: int,
    to_move_address: int,
    encode_address: int,
    use_encode: bool,
    hook_address: int,
    params: np.ndarray,
    context: np.ndarray,
    root_picks: np.ndarray,
    node_i: np.ndarray,
    node_f: np.ndarray,
    node_state: np.ndarray,
    edge_i: np.ndarray,
    edge_f: np.ndarray,
    counters: np.ndarray,
    tree_done: np.ndarray,
    tree_target: np.ndarray,
    tree_nodes: np.ndarray,
    coefficients: np.ndarray,
    leaf_path_nodes: np.ndarray,
    leaf_path_edges: np.ndarray,
    leaf_depth: np.ndarray,
    leaf_tree: np.ndarray,
    planes: np.ndarray,
    legal: np.ndarray,
    leaf_states: np.ndarray,
    leaf_moves: np.ndarray,
    leaf_nmoves: np.ndarray,
) -> int:
    """:func:`_select_leaves_impl` without a hook (Eq. 8 alone): the constant ``False`` lets
    the compiler drop the hook's code from the selection loop (it cost 10-15% of a
    network-free search there).  ``hook_address``, ``params`` and ``context`` are unused."""
    return _select_leaves_core(
        legal_moves_at(legal_moves_address), play_at(play_address), status_at(status_address),
        to_move_at(to_move_address), encode_at(encode_address), use_encode,
        score_hook_at(hook_address), False, params, context, root_picks,
        node_i, node_f, node_state, edge_i, edge_f, counters, tree_done, tree_target,
        tree_nodes, coefficients,
        leaf_path_nodes, leaf_path_edges, leaf_depth, leaf_tree,
        planes, legal, leaf_states, leaf_moves, leaf_nmoves,
    )  # fmt: skip


@nb.njit(cache=True)
def _expand_and_backup(
    node_i: np.ndarray,
    node_f: np.ndarray,
    edge_i: np.ndarray,
    edge_f: np.ndarray,
    counters: np.ndarray,
    tree_done: np.ndarray,
    count_simulations: bool,
    n_leaves: int,
    priors: np.ndarray,
    values: np.ndarray,
    aux: np.ndarray,
    leaf_path_nodes: np.ndarray,
    leaf_path_edges: np.ndarray,
    leaf_depth: np.ndarray,
    leaf_tree: np.ndarray,
    leaf_moves: np.ndarray,
    leaf_nmoves: np.ndarray,
) -> None:
    """Expand and evaluate (one edge per legal move, ``N = W = 0``, ``P = p_a``) and back up."""
    n_edges = counters[1]
    for j in range(n_leaves):
        depth = leaf_depth[j]
        node = leaf_path_nodes[j, depth]
        n = leaf_nmoves[j]
        total = 0.0
        for i in range(n):
            total += max(priors[j, leaf_moves[j, i]], 0.0)
        node_i[node, N_EDGE_START] = n_edges
        node_i[node, N_EDGE_COUNT] = n
        for i in range(n):
            e = n_edges + i
            move = leaf_moves[j, i]
            edge_i[e, E_MOVE] = move
            edge_i[e, E_CHILD] = -1
            edge_i[e, E_VISITS] = 0
            edge_i[e, E_VIRTUAL] = 0
            edge_f[e, E_PRIOR] = max(priors[j, move], 0.0) / total if total > 0 else 1.0 / n
            edge_f[e, E_VALUE] = 0.0  # (E_AUX, if any, is 0 already: edge arrays start zeroed)
        n_edges += n
        node_i[node, N_PENDING] = 0
        value = float(values[j])
        node_f[node, N_VALUE] = value
        for i in range(depth):
            edge_i[leaf_path_edges[j, i], E_VIRTUAL] -= 1
            node_i[leaf_path_nodes[j, i], N_VIRTUAL] -= 1
        _backup(
            node_i,
            edge_i,
            edge_f,
            leaf_path_nodes[j],
            leaf_path_edges[j],
            depth,
            value,
            float(aux[j]),
        )
        if count_simulations:
            tree_done[leaf_tree[j]] += 1
    counters[1] = n_edges


_I64 = nb.types.int64
_F64 = nb.types.float64
_B1 = nb.types.boolean
_I64_1 = nb.types.Array(nb.types.int64, 1, "C")
_I64_2 = nb.types.Array(nb.types.int64, 2, "C")
_F64_1 = nb.types.Array(nb.types.float64, 1, "C")
_F64_2 = nb.types.Array(nb.types.float64, 2, "C")
_F32_4 = nb.types.Array(nb.types.float32, 4, "C")
_BOOL_2 = nb.types.Array(nb.types.boolean, 2, "C")
# The leaf buffers: path nodes, path edges, depth, tree, planes, legal mask, states, moves, count.
_LEAF_BUFFERS = (_I64_2, _I64_2, _I64_1, _I64_1, _F32_4, _BOOL_2, STATES_TYPE, _I64_2, _I64_1)


@functools.cache
def _compiled_init_roots() -> Callable[..., int]:
    """:func:`_init_roots_impl`, compiled (or loaded from numba's disk cache) on first use."""
    signature = _I64(
        _I64, _I64, _I64, _I64, _B1, STATES_TYPE,
        _I64_2, _F64_2, STATES_TYPE, _I64_1,
        _LEAF_BUFFERS[0], _LEAF_BUFFERS[2], _LEAF_BUFFERS[3], *_LEAF_BUFFERS[4:],
    )  # fmt: skip
    with warnings.catch_warnings():  # numba: "first-class function type is experimental"
        warnings.simplefilter("ignore", nb.NumbaExperimentalFeatureWarning)
        return nb.njit(signature, cache=True)(_init_roots_impl)


@functools.cache
def _compiled_select_leaves(hooked: bool) -> Callable[..., int]:
    """:func:`_select_leaves_impl` (``hooked``) or :func:`_select_leaves_plain_impl`, compiled
    (or loaded from numba's disk cache) on first use."""
    signature = _I64(
        _I64, _I64, _I64, _I64, _I64, _B1, _I64, _F64_1, _F64_2, _I64_2,
        _I64_2, _F64_2, STATES_TYPE, _I64_2, _F64_2, _I64_1, _I64_1, _I64_1, _I64_1,
        _F64_1,
        *_LEAF_BUFFERS,
    )  # fmt: skip
    with warnings.catch_warnings():  # numba: "first-class function type is experimental"
        warnings.simplefilter("ignore", nb.NumbaExperimentalFeatureWarning)
        impl = _select_leaves_impl if hooked else _select_leaves_plain_impl
        return nb.njit(signature, cache=True)(impl)


# ---- Python driver ------------------------------------------------------------------------


class _Trees:
    """The preallocated arrays of the trees of one :func:`search_batch` call."""

    def __init__(self, game: Game, roots: np.ndarray, config: PUCTConfig) -> None:
        n_trees, state_len = roots.shape
        a = game.num_actions
        self.game = game
        self.num_actions = a
        max_nodes = n_trees * (config.simulations + 1) + 1
        self.node_i = np.zeros((max_nodes, NODE_INT_FIELDS), dtype=np.int64)
        self.node_f = np.zeros((max_nodes, NODE_FLOAT_FIELDS), dtype=np.float64)
        self.node_state = np.zeros((max_nodes, state_len), dtype=roots.dtype)
        edges = n_trees * a * (1 + min(config.simulations, 32))
        self.edge_i = np.zeros((edges, EDGE_INT_FIELDS), dtype=np.int64)
        hook = config.score_hook
        self.edge_fields = EDGE_FLOAT_FIELDS + (1 if hook is not None and hook.uses_aux else 0)
        self.edge_f = np.zeros((edges, self.edge_fields), dtype=np.float64)
        self.counters = np.array([n_trees, 0, config.leaves_per_batch], dtype=np.int64)
        """Nodes used, edges used, and the leaves per tree and batch (read by the selection)."""
        self.tree_done = np.zeros(n_trees, dtype=np.int64)
        self.tree_target = np.zeros(n_trees, dtype=np.int64)
        self.tree_nodes = np.zeros(n_trees, dtype=np.int64)
        batch = n_trees * max(config.leaves_per_batch, 1)
        max_depth = game.max_game_length + 2
        planes_shape = (batch, game.num_planes, *game.board_shape)
        self.leaf_path_nodes = np.zeros((batch, max_depth + 1), dtype=np.int64)
        self.leaf_path_edges = np.zeros((batch, max_depth + 1), dtype=np.int64)
        self.leaf_depth = np.zeros(batch, dtype=np.int64)
        self.leaf_tree = np.zeros(batch, dtype=np.int64)
        self.planes = np.zeros(planes_shape, dtype=np.float32)
        self.legal = np.zeros((batch, a), dtype=np.bool_)
        self.leaf_states = np.zeros((batch, state_len), dtype=roots.dtype)
        self.leaf_moves = np.zeros((batch, a), dtype=np.int64)
        self.leaf_nmoves = np.zeros(batch, dtype=np.int64)
        self.no_aux = np.zeros(batch, dtype=np.float32)
        """Auxiliary outputs of the leaves when the evaluator gives none (all 0)."""

    def arrays(self) -> RootArrays:
        """The current arrays, for a :class:`RootPlan`."""
        return RootArrays(
            self.node_i, self.node_f, self.edge_i, self.edge_f, self.tree_done, self.tree_target
        )

    def reserve_edges(self, new_leaves: int) -> None:
        """Grow the edge arrays so that ``new_leaves`` more expansions fit."""
        need = int(self.counters[1]) + new_leaves * self.num_actions
        if need <= len(self.edge_i):
            return
        size = max(need, 2 * len(self.edge_i))
        used = int(self.counters[1])
        edge_i = np.zeros((size, EDGE_INT_FIELDS), dtype=np.int64)
        edge_f = np.zeros((size, self.edge_fields), dtype=np.float64)
        edge_i[:used] = self.edge_i[:used]
        edge_f[:used] = self.edge_f[:used]
        self.edge_i, self.edge_f = edge_i, edge_f


def _evaluate(
    evaluator: Evaluator, trees: _Trees, n: int, encoded: bool, uses_aux: bool
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Call the evaluator on the first ``n`` queued leaves and check its outputs."""
    if not encoded:
        for j in range(n):
            trees.planes[j] = trees.game.encode(trees.leaf_states[j])
    planes, legal, states = trees.planes[:n], trees.legal[:n], trees.leaf_states[:n]
    if uses_aux:
        if isinstance(evaluator, EdgeAuxEvaluator):
            parents, moves = _leaf_edges(trees, n)
            priors, values, aux = evaluator.evaluate_edge_aux(planes, legal, states, parents, moves)
        elif isinstance(evaluator, AuxEvaluator):
            priors, values, aux = evaluator.evaluate_aux(planes, legal, states)
        else:
            raise TypeError("the score hook needs an AuxEvaluator (evaluate_aux)")
        aux = np.ascontiguousarray(np.asarray(aux, dtype=np.float32).reshape(-1))
        if aux.shape != (n,):
            raise ValueError(f"evaluator returned auxiliary outputs {aux.shape}; expected ({n},)")
    else:
        priors, values = evaluator.evaluate(planes, legal, states)
        aux = trees.no_aux
    priors = np.ascontiguousarray(priors, dtype=np.float32)
    values = np.ascontiguousarray(np.asarray(values, dtype=np.float32).reshape(-1))
    if priors.shape != (n, trees.num_actions) or values.shape != (n,) or len(aux) < n:
        raise ValueError(
            f"evaluator returned priors {priors.shape} and values {values.shape}; "
            f"expected ({n}, {trees.num_actions}) and ({n},)"
        )
    return priors, values, aux


def _leaf_edges(trees: _Trees, n: int) -> tuple[np.ndarray, npt.NDArray[np.int64]]:
    """The position before the last move of each of the first ``n`` queued leaves and that
    move (a root: the leaf itself and -1), for an :class:`EdgeAuxEvaluator`."""
    depth = trees.leaf_depth[:n]
    rows = np.arange(n)
    last = np.maximum(depth - 1, 0)
    parent_nodes = trees.leaf_path_nodes[rows, last]
    moves = trees.edge_i[trees.leaf_path_edges[rows, last], E_MOVE].astype(np.int64)
    moves = np.where(depth > 0, moves, -1)
    parents = np.where((depth > 0)[:, None], trees.node_state[parent_nodes], trees.leaf_states[:n])
    return parents, moves


def _as_generator(rng: np.random.Generator | int | None) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    return np.random.default_rng(rng)


def _python_init_roots(game: Game) -> Callable[..., int]:
    """:func:`_init_roots_core` run as Python over the game's Python kernels."""
    k = game.kernels
    return functools.partial(
        _init_roots_core, k.legal_moves, k.status, k.to_move, _python_no_encode, False
    )


def _python_select_leaves(game: Game, hook: ScoreHook | None) -> Callable[..., int]:
    """:func:`_select_leaves_core` run as Python over the game's Python kernels."""
    k = game.kernels
    function = hook.function if hook is not None else no_hook
    return functools.partial(
        _select_leaves_core.py_func, k.legal_moves, k.play, k.status, k.to_move, _python_no_encode,
        False, function, hook is not None,
    )  # fmt: skip


def _python_no_encode(state: State, out: np.ndarray) -> None:  # pragma: no cover - unused
    """Placeholder encoder of the Python path (planes are written by ``Game.encode``)."""


@dataclass(frozen=True)
class _Kernels:
    """The root and leaf kernels of one search, bound to the game's rules."""

    init_roots: Callable[..., int]
    select_leaves: Callable[..., int]
    encoded: bool
    """Whether the kernels write the leaves' input planes (else ``Game.encode`` does)."""


def _search_kernels(game: Game, hook: ScoreHook | None) -> _Kernels:
    """The compiled kernels over the game's compiled rules, or the same kernels run as Python
    over its Python rules."""
    if not is_compiled(game.kernels):
        return _Kernels(_python_init_roots(game), _python_select_leaves(game, hook), False)
    kernels = kernel_addresses(game.kernels)
    use_encode = kernels.has_encode
    init_roots = functools.partial(
        _compiled_init_roots(), kernels.legal_moves.address, kernels.status.address,
        kernels.to_move.address, kernels.encode.address, use_encode,
    )  # fmt: skip
    select_leaves = functools.partial(
        _compiled_select_leaves(hook is not None), kernels.legal_moves.address,
        kernels.play.address,
        kernels.status.address, kernels.to_move.address, kernels.encode.address,
        use_encode, hook.address if hook is not None else 0,
    )  # fmt: skip
    return _Kernels(init_roots, select_leaves, use_encode)


def _expand(
    trees: _Trees, evaluator: Evaluator, n: int, encoded: bool, uses_aux: bool, counted: bool
) -> None:
    """Evaluate the first ``n`` queued leaves, expand them and back their values up
    (``counted``: as simulations; the roots are not)."""
    priors, values, aux = _evaluate(evaluator, trees, n, encoded, uses_aux)
    _expand_and_backup(
        trees.node_i, trees.node_f, trees.edge_i, trees.edge_f, trees.counters,
        trees.tree_done, counted, n, priors, values, aux,
        trees.leaf_path_nodes, trees.leaf_path_edges, trees.leaf_depth, trees.leaf_tree,
        trees.leaf_moves, trees.leaf_nmoves,
    )  # fmt: skip


def _expand_roots(
    trees: _Trees,
    roots: np.ndarray,
    kernels: _Kernels,
    evaluator: Evaluator,
    uses_aux: bool,
    config: PUCTConfig,
    generator: np.random.Generator,
) -> tuple[npt.NDArray[np.bool_], list[npt.NDArray[np.float32]]]:
    """Evaluate and expand the roots (not counted as simulations), set the ongoing trees'
    targets and add the exploration noise; which roots are ongoing and their priors."""
    n = kernels.init_roots(
        roots, trees.node_i, trees.node_f, trees.node_state, trees.tree_nodes,
        trees.leaf_path_nodes, trees.leaf_depth, trees.leaf_tree,
        trees.planes, trees.legal, trees.leaf_states, trees.leaf_moves, trees.leaf_nmoves,
    )  # fmt: skip
    trees.reserve_edges(n)
    if n > 0:
        _expand(trees, evaluator, n, kernels.encoded, uses_aux, False)
    n_trees = len(roots)
    ongoing = trees.node_i[:n_trees, N_STATUS] == ONGOING
    trees.tree_target[ongoing] = config.simulations
    root_priors: list[npt.NDArray[np.float32]] = []
    for t in range(n_trees):
        start, count = trees.node_i[t, N_EDGE_START], trees.node_i[t, N_EDGE_COUNT]
        p = trees.edge_f[start : start + count, E_PRIOR].astype(np.float32)
        root_priors.append(p)
        if config.dirichlet_alpha is not None and ongoing[t] and count > 0:
            noise = generator.dirichlet(np.full(count, config.dirichlet_alpha))
            eps = config.noise_fraction
            trees.edge_f[start : start + count, E_PRIOR] = (1.0 - eps) * p + eps * noise
    return ongoing, root_priors


def _simulate(
    trees: _Trees,
    kernels: _Kernels,
    evaluator: Evaluator,
    config: PUCTConfig,
    root_picks: npt.NDArray[np.int64],
    plan: RootPlanRun | None,
    clock: LimitClock | None,
    report_priors: npt.NDArray[np.float32] | None,
) -> None:
    """Run the simulations in rounds of one network batch until every tree reaches its
    target or ``clock`` stops the search; with ``report_priors`` (the first root's priors) the
    first tree is reported between rounds."""
    hook = config.score_hook
    uses_aux = hook is not None and hook.uses_aux
    params = hook.params_array() if hook is not None else np.zeros(1, dtype=np.float64)
    n_trees = len(trees.tree_done)
    context = (
        hook.context_array(n_trees) if hook is not None else np.zeros((n_trees, 1), np.float64)
    )
    unvisited = np.nan if config.first_play_parent else config.unvisited_q  # nan: the node's
    coefficients = np.array([config.c_puct, unvisited, config.virtual_loss], dtype=np.float64)
    interruptible = clock is not None and clock.interruptible
    batch_seconds = 0.0  # a running mean of a round's duration (with a limit)
    began = 0.0
    while True:
        active = int(np.count_nonzero(trees.tree_done < trees.tree_target))
        if active == 0:
            break
        if interruptible and clock is not None:
            now = time.perf_counter()
            if began > 0.0:
                last = now - began
                batch_seconds = last if batch_seconds == 0.0 else 0.7 * batch_seconds + 0.3 * last
            if clock.hit(int(trees.counters[0]), 0.5 * batch_seconds):
                break
            began = now
        trees.reserve_edges(active * config.leaves_per_batch)
        if plan is not None:
            _plan_round(plan, trees, root_picks)
        n = kernels.select_leaves(
            params, context, root_picks,
            trees.node_i, trees.node_f, trees.node_state, trees.edge_i, trees.edge_f,
            trees.counters, trees.tree_done, trees.tree_target, trees.tree_nodes,
            coefficients,
            trees.leaf_path_nodes, trees.leaf_path_edges, trees.leaf_depth, trees.leaf_tree,
            trees.planes, trees.legal, trees.leaf_states, trees.leaf_moves, trees.leaf_nmoves,
        )  # fmt: skip
        if n == 0:
            continue
        _expand(trees, evaluator, n, kernels.encoded, uses_aux, True)
        if (
            report_priors is not None
            and clock is not None
            and trees.tree_done[0] < trees.tree_target[0]
            and clock.due()
        ):
            clock.report(_snapshot(trees, report_priors, config, trees.game), "puct")


def search_batch(
    game: Game,
    states: Sequence[State] | npt.NDArray[np.generic],
    evaluator: Evaluator,
    config: PUCTConfig | None = None,
    rng: np.random.Generator | int | None = None,
    limit: Limit | None = None,
    clock: LimitClock | None = None,
) -> list[RootStats]:
    """Search every position of ``states`` (one tree each), batching the evaluator's calls.

    ``limit`` bounds the search (:class:`~sparring.search.limit.Limit`): its ``simulations``
    cap :attr:`PUCTConfig.simulations`; its time, nodes (all trees together) and stop flag are
    checked between network batches (the roots are always evaluated), and the results then
    hold the simulations done so far.  ``clock`` (a started
    :class:`~sparring.search.limit.LimitClock` of ``limit``) lets a caller that started
    timing earlier pass its own and read :attr:`~sparring.search.limit.LimitClock.stopped`.
    A search of one position under a limit with
    :attr:`~sparring.search.limit.Limit.progress` reports its root between batches when a
    report is due (:meth:`~sparring.search.limit.LimitClock.report`).

    ``rng`` (a seeded generator, or a seed) draws the root Dirichlet noise and then the root
    random picks, if configured, in the order of ``states``; nothing else in the search is
    random.  A terminal position gets
    a result with no moves, 0 simulations and its exact value.  The positions are not changed.
    Games with Python-only rules (chess) run the same search as Python (see the module doc).
    """
    config = config or PUCTConfig()
    if limit is not None and limit.simulations is not None:
        config = replace(config, simulations=limit.cap(config.simulations))
    if clock is None and limit is not None:
        clock = limit.start()
    reporting = clock is not None and clock.reports and len(states) == 1
    if clock is not None:
        clock.budget = config.simulations
    if len(states) == 0:
        return []
    roots = np.ascontiguousarray(np.stack([np.asarray(s) for s in states]))
    if roots.ndim != 2 or roots.dtype != np.uint64:
        raise TypeError("the PUCT search needs flat uint64 positions of one game")
    hook = config.score_hook
    uses_aux = hook is not None and hook.uses_aux
    kernels = _search_kernels(game, hook)
    generator = _as_generator(rng)
    trees = _Trees(game, roots, config)
    n_trees = len(roots)
    ongoing, root_priors = _expand_roots(
        trees, roots, kernels, evaluator, uses_aux, config, generator
    )
    plan = None
    if config.root_plan is not None:
        plan = config.root_plan.begin(trees.arrays(), config, generator)
        root_picks = np.full((n_trees, max(config.simulations, 1)), PICK_WAIT, dtype=np.int64)
    else:
        root_picks = _draw_root_picks(trees, ongoing, config, generator)
    report_priors = root_priors[0] if reporting else None
    _simulate(trees, kernels, evaluator, config, root_picks, plan, clock, report_priors)

    lines = np.zeros((n_trees, game.max_game_length + 1), dtype=np.int64)
    lengths = _principal_variations(trees.node_i, trees.edge_i, n_trees, lines)
    results = [
        _root_result(trees, t, root_priors[t], config, lines[t, : lengths[t]])
        for t in range(n_trees)
    ]
    if plan is not None:
        results = [plan.finish(t, r) for t, r in enumerate(results)]
    return results


def _snapshot(
    trees: _Trees, priors: npt.NDArray[np.float32], config: PUCTConfig, game: Game
) -> RootStats:
    """The root statistics of the first tree as it is now (for a progress report)."""
    line = np.zeros((1, game.max_game_length + 1), dtype=np.int64)
    length = _principal_variations(trees.node_i, trees.edge_i, 1, line)
    return _root_result(trees, 0, priors, config, line[0, : length[0]])


def _plan_round(plan: RootPlanRun, trees: _Trees, picks: npt.NDArray[np.int64]) -> None:
    """Let the root plan write the next root pick of every tree still searching; a plan that
    leaves one undecided would stall the search, so that is an error."""
    plan.plan(trees.arrays(), picks)
    searching = np.flatnonzero(trees.tree_done < trees.tree_target)
    if searching.size and np.any(picks[searching, trees.tree_done[searching]] == PICK_WAIT):
        raise RuntimeError("the root plan left a tree's next root pick undecided")


def _draw_root_picks(
    trees: _Trees,
    ongoing: npt.NDArray[np.bool_],
    config: PUCTConfig,
    generator: np.random.Generator,
) -> npt.NDArray[np.int64]:
    """The root child each simulation of each tree takes at random (-1: the best score), for
    :attr:`PUCTConfig.root_random`; an array with no columns when it is 0."""
    n_trees = len(ongoing)
    if config.root_random <= 0.0:
        return np.zeros((n_trees, 0), dtype=np.int64)
    sims = config.simulations
    picks = np.full((n_trees, sims), -1, dtype=np.int64)
    for t in range(n_trees):
        count = int(trees.node_i[t, N_EDGE_COUNT])
        if not ongoing[t] or count <= 0:
            continue
        chosen = generator.random(sims) < config.root_random
        picks[t] = np.where(chosen, generator.integers(0, count, sims), -1)
    return picks


def _root_result(
    trees: _Trees,
    t: int,
    priors: npt.NDArray[np.float32],
    config: PUCTConfig,
    pv: npt.NDArray[np.int64],
) -> RootStats:
    start, count = int(trees.node_i[t, N_EDGE_START]), int(trees.node_i[t, N_EDGE_COUNT])
    if count <= 0:
        start, count = 0, 0
    edges = slice(start, start + count)
    moves = trees.edge_i[edges, E_MOVE].astype(np.int64)
    visits = trees.edge_i[edges, E_VISITS].astype(np.int64)
    w = trees.edge_f[edges, E_VALUE]
    network_value = float(trees.node_f[t, N_VALUE])
    unvisited = network_value if config.first_play_parent else config.unvisited_q
    q = np.where(visits > 0, w / np.maximum(visits, 1), unvisited).astype(np.float64)
    total = int(visits.sum())
    value = float(w.sum() / total) if total > 0 else network_value
    return RootStats(
        moves=moves,
        visits=visits,
        q=q,
        priors=priors,
        search_priors=trees.edge_f[edges, E_PRIOR].astype(np.float32),
        network_value=network_value,
        value=value,
        simulations=int(trees.tree_done[t]),
        to_move=int(trees.node_i[t, N_TO_MOVE]),
        nodes=int(trees.tree_nodes[t]),
        pv=pv,
    )


@nb.njit(cache=True)
def _principal_variations(
    node_i: np.ndarray, edge_i: np.ndarray, n_trees: int, out: np.ndarray
) -> np.ndarray:
    """For every root ``t < n_trees``, the most visited edge at each node (the first on
    ties) while it has visits, written to ``out[t]``; returns each line's length
    (:attr:`RootStats.pv`)."""
    lengths = np.zeros(n_trees, dtype=np.int64)
    for t in range(n_trees):
        node = t
        k = 0
        while node >= 0 and node_i[node, N_EDGE_COUNT] > 0 and k < out.shape[1]:
            start = node_i[node, N_EDGE_START]
            best = start
            for e in range(start + 1, start + node_i[node, N_EDGE_COUNT]):
                if edge_i[e, E_VISITS] > edge_i[best, E_VISITS]:
                    best = e
            if edge_i[best, E_VISITS] <= 0:
                break
            out[t, k] = edge_i[best, E_MOVE]
            k += 1
            node = edge_i[best, E_CHILD]
        lengths[t] = k
    return lengths


def search(
    game: Game,
    state: State,
    evaluator: Evaluator,
    config: PUCTConfig | None = None,
    rng: np.random.Generator | int | None = None,
    limit: Limit | None = None,
    clock: LimitClock | None = None,
) -> RootStats:
    """Search one position: :func:`search_batch` with a single tree."""
    return search_batch(game, [state], evaluator, config, rng, limit, clock)[0]


__all__ = [
    "PICK_WAIT",
    "PUCTConfig",
    "RootArrays",
    "RootPlan",
    "RootPlanRun",
    "RootStats",
    "SearchResult",
    "search",
    "search_batch",
]
