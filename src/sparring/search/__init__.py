"""Tree searches over a game's kernels, driven by an evaluator.

* :mod:`~sparring.search.kernels`: how compiled searches call a game's kernels (fixed numba
  function types, kernel addresses and the ``*_at`` intrinsics);
* :mod:`~sparring.search.evaluator`: the evaluator protocol (batched priors and values of
  leaves) and the network-free evaluators;
* :mod:`~sparring.search.stats`: :class:`RootStats`, the root statistics every search returns;
* :mod:`~sparring.search.limit`: :class:`Limit`, a bound on thinking (simulations, nodes,
  time, a stop flag) that every search checks between compiled chunks;
* :mod:`~sparring.search.analysis`: :class:`MoveAnalysis`, the one record of what a searching
  player thought about its move (JSON round trip);
* :mod:`~sparring.search.puct`: AlphaZero's batched PUCT search (AlphaDDA app. 1.2, Eq. 8);
* :mod:`~sparring.search.hooks`: the per-edge score hook of the PUCT selection;
* :mod:`~sparring.search.uct`: UCT with random playouts (AlphaDDA app. 3, Eq. 12);
* :mod:`~sparring.search.bench`: throughput measurements.

``search`` imports only ``games`` and ``rng`` (never ``nn`` or ``players``).
"""

from sparring.search.analysis import MoveAnalysis, StrengthReport
from sparring.search.evaluator import AuxEvaluator, Evaluator
from sparring.search.gumbel import GumbelRoot
from sparring.search.hooks import ScoreHook
from sparring.search.limit import Limit
from sparring.search.puct import PUCTConfig, SearchResult, search, search_batch
from sparring.search.stats import RootStats

__all__ = [
    "AuxEvaluator",
    "Evaluator",
    "GumbelRoot",
    "Limit",
    "MoveAnalysis",
    "PUCTConfig",
    "RootStats",
    "ScoreHook",
    "SearchResult",
    "StrengthReport",
    "search",
    "search_batch",
]
