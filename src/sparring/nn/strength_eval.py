"""The strength estimator as the SE-MCTS search's evaluator, and the target score of a rank.

* :class:`StrengthEvaluator` wraps a :class:`~sparring.nn.strength_net.StrengthNet` (SE or
  SE-inf) as an :class:`~sparring.search.evaluator.EdgeAuxEvaluator`: for each batch of leaves
  one trunk evaluation gives the priors and values, and the strength head gives ``beta(s, a)``
  of the move ``a`` into each leaf from the trunk features of its parent ``s``.  The parent was
  evaluated when it was expanded, so its features (and policy logits, which the head reads)
  are taken from a cache keyed by position; parents missing from it (evicted, or a search
  whose root was given from outside) are evaluated in the same trunk batch as the leaves.
  Chen et al. 2025, section 3.3 ("each node is evaluated by the strength estimator to obtain a
  strength score ``beta(s, a)``"); the hook using ``beta`` is
  :mod:`sparring.search.semcts`.
* :class:`CentredStrengthEvaluator` gives ``beta(s, a) - beta_t(d)`` instead, ``d`` the
  edge's own move number: what the players search with (target 0 in the hook).
* :class:`RankTarget` is ``beta_t``, the target rank's composite score at move number ``d``
  (section 4.3, ``beta-bar_i^d``), from the estimator's per-move-number reference curves
  (the candidate games' mean ``beta`` per rank in 20-ply buckets, written by ``se-eval``).
  The buckets already average about 2,000 (Go) or 2,400 (chess) pairs each for middle-game
  move numbers, so the only smoothing is linear interpolation between the buckets' centres
  (a bucket with too few pairs, NaN, is skipped; beyond the first or last bucket the curve is
  flat; a rank without a curve uses its overall reference score).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from sparring.games.base import Game
from sparring.nn.onnx_runtime import OnnxStrengthNet, StrengthNetwork
from sparring.search.evaluator import (
    Aux,
    LegalBatch,
    Moves,
    PlanesBatch,
    Priors,
    StateBatch,
    Values,
    masked_softmax,
)

if TYPE_CHECKING:  # PyTorch's module, imported when a PyTorch network is given
    from sparring.nn.strength_net import StrengthNet

BUCKET_PLIES = 20
"""Plies per bucket of the reference curves (``score_by_move``'s default)."""

Floats = npt.NDArray[np.float32]


def strength_network(model: Any, threads: int | None = 1) -> StrengthNetwork:
    """``model`` as a :class:`~sparring.nn.onnx_runtime.StrengthNetwork` (numpy in and
    out): an :class:`~sparring.nn.onnx_runtime.OnnxStrengthNet` as it is, a PyTorch
    :class:`~sparring.nn.strength_net.StrengthNet` behind a
    :class:`~sparring.nn.strength_net.TorchStrengthRunner` (``threads``: PyTorch's)."""
    if isinstance(model, OnnxStrengthNet) or not hasattr(model, "state_dict"):
        network: StrengthNetwork = model
        return network
    # torch: the model is a PyTorch module, so PyTorch is loaded already
    from sparring.nn.strength_net import TorchStrengthRunner

    return TorchStrengthRunner(model, threads)


class StrengthEvaluator:
    """Priors and values from a strength network's policy and value heads, and ``beta`` of
    the move into each leaf from its strength head (an
    :class:`~sparring.search.evaluator.EdgeAuxEvaluator`).

    ``model``: the estimator's ONNX files (:class:`~sparring.nn.onnx_runtime.OnnxStrengthNet`)
    or a PyTorch :class:`~sparring.nn.strength_net.StrengthNet` (``threads``: if not None,
    :func:`torch.set_num_threads` is called with it, a process-wide PyTorch setting, as
    :class:`~sparring.nn.evaluators.TorchEvaluator` does).  ``beta`` is the first score
    output (the Bradley-Terry score of SE and SE-inf networks).  ``game`` encodes parents
    missing from the cache.  ``capacity`` bounds the cache of trunk outputs (features and
    policy logits) by position.
    """

    def __init__(
        self,
        model: StrengthNet | StrengthNetwork,
        game: Game,
        capacity: int = 1024,
        threads: int | None = 1,
    ) -> None:
        if capacity < 1:
            raise ValueError("capacity must be >= 1")
        if model.config.kind not in ("se", "se_inf"):
            raise ValueError(f"SE-MCTS needs an SE or SE-inf network, not {model.config.kind!r}")
        self.model = model
        self.network = strength_network(model, threads)
        self.game = game
        """Encodes a parent missing from the cache."""
        self.capacity = int(capacity)
        self._cache: OrderedDict[bytes, tuple[Floats, Floats]] = OrderedDict()
        self.trunk_positions = 0
        """Positions sent through the trunk so far (leaves plus parents missing from the cache)."""

    def clear(self) -> None:
        """Forget the cached trunk outputs."""
        self._cache.clear()

    def _remember(self, key: bytes, features: Floats, logits: Floats) -> None:
        self._cache[key] = (features, logits)
        self._cache.move_to_end(key)
        while len(self._cache) > self.capacity:
            self._cache.popitem(last=False)

    def _trunk(self, planes: npt.NDArray[np.float32]) -> tuple[Floats, Floats, Floats]:
        self.trunk_positions += len(planes)
        x = np.ascontiguousarray(planes, dtype=np.float32)
        features, logits, value = self.network.trunk(x)
        return features, logits, value.reshape(-1)

    def _priors_values(
        self, logits: Floats, value: Floats, legal: LegalBatch
    ) -> tuple[Priors, Values]:
        priors = masked_softmax(logits.astype(np.float32), np.ascontiguousarray(legal))
        return priors, value.astype(np.float32)

    def evaluate(
        self, planes: PlanesBatch, legal: LegalBatch, states: StateBatch | None = None
    ) -> tuple[Priors, Values]:
        """Priors and values (the trunk and its policy and value heads alone: a search
        without SE-MCTS's hook, e.g. the paper's MCTS and SA-MCTS)."""
        _, logits, value = self._trunk(planes)
        return self._priors_values(logits, value, legal)

    def evaluate_aux(
        self, planes: PlanesBatch, legal: LegalBatch, states: StateBatch | None = None
    ) -> tuple[Priors, Values, Aux]:
        """Not available: ``beta`` belongs to the edge into a leaf (use
        :meth:`evaluate_edge_aux`, which the search calls)."""
        raise TypeError("StrengthEvaluator scores edges: the search calls evaluate_edge_aux")

    def evaluate_edge_aux(
        self,
        planes: PlanesBatch,
        legal: LegalBatch,
        states: StateBatch,
        parents: StateBatch,
        moves: Moves,
    ) -> tuple[Priors, Values, Aux]:
        """Priors and values of the leaves and ``beta(parent, move)`` of the edge into each
        (0 for a root, ``moves[b] = -1``), with one trunk pass for the leaves and any parent
        not in the cache."""
        n = len(planes)
        moves = np.asarray(moves, dtype=np.int64)
        edge_rows = [b for b in range(n) if moves[b] >= 0]
        # The parents' trunk outputs are held here for this call: remembering the leaves
        # below may evict a parent from the bounded cache between this lookup and its use.
        parent_out: dict[bytes, tuple[Floats, Floats]] = {}
        missing: list[int] = []
        asked: set[bytes] = set()
        for b in edge_rows:
            key = parents[b].tobytes()
            if key in parent_out or key in asked:
                continue
            hit = self._cache.get(key)
            if hit is None:
                asked.add(key)
                missing.append(b)
            else:
                self._cache.move_to_end(key)  # least recently used goes first
                parent_out[key] = hit
        batch = planes
        if missing:
            extra = np.stack([np.asarray(self.game.encode(parents[b])) for b in missing])
            batch = np.concatenate([planes, extra.astype(np.float32)])
        features, logits, value = self._trunk(batch)
        for i, b in enumerate(missing):
            key = parents[b].tobytes()
            parent_out[key] = (features[n + i].copy(), logits[n + i].copy())
            self._remember(key, *parent_out[key])
        for b in range(n):
            self._remember(states[b].tobytes(), features[b].copy(), logits[b].copy())
        aux = np.zeros(n, dtype=np.float32)
        if edge_rows:
            pf = np.stack([parent_out[parents[b].tobytes()][0] for b in edge_rows])
            pl = np.stack([parent_out[parents[b].tobytes()][1] for b in edge_rows])
            beta = self.network.strength(pf, pl, moves[edge_rows])[:, 0]
            aux[edge_rows] = beta
        priors, values = self._priors_values(logits[:n], value[:n], legal)
        return priors, values, aux


class CentredStrengthEvaluator:
    """A :class:`StrengthEvaluator` whose auxiliary output is ``beta(s, a) - beta_t(d)``, the
    edge's strength score minus the target at the edge's own move number ``d`` (the ply of
    ``s``), for SE-MCTS with target 0 (:class:`~sparring.search.semcts.SEMCTSConfig`).

    Why centre per leaf rather than compare the subtree mean with one target: the authors
    compare each node's mean with the target at *that node's* move number, which a
    per-search target cannot do; and a terminal leaf, which the search backs up with an
    auxiliary 0 (no network call), then counts as "on target" instead of as ``beta = 0``,
    far above every rank's score (about -11 to -16 for the shipped networks), which would
    drag the mean of its edges up by more than the gap between ranks.
    """

    def __init__(self, evaluator: StrengthEvaluator, target: RankTarget) -> None:
        self.evaluator = evaluator
        self.target = target

    def evaluate(
        self, planes: PlanesBatch, legal: LegalBatch, states: StateBatch | None = None
    ) -> tuple[Priors, Values]:
        """The wrapped evaluator's priors and values."""
        return self.evaluator.evaluate(planes, legal, states)

    def evaluate_aux(
        self, planes: PlanesBatch, legal: LegalBatch, states: StateBatch | None = None
    ) -> tuple[Priors, Values, Aux]:
        """Not available (see :meth:`StrengthEvaluator.evaluate_aux`)."""
        return self.evaluator.evaluate_aux(planes, legal, states)

    def evaluate_edge_aux(
        self,
        planes: PlanesBatch,
        legal: LegalBatch,
        states: StateBatch,
        parents: StateBatch,
        moves: Moves,
    ) -> tuple[Priors, Values, Aux]:
        """:meth:`StrengthEvaluator.evaluate_edge_aux` with ``beta_t(ply(parent))``
        subtracted from each edge's ``beta`` (a root's 0 is left as it is)."""
        priors, values, beta = self.evaluator.evaluate_edge_aux(
            planes, legal, states, parents, moves
        )
        game = self.evaluator.game
        aux = np.array(beta, dtype=np.float32)
        for b in range(len(aux)):
            if moves[b] >= 0:
                aux[b] -= self.target.at(game.ply(parents[b]))
        return priors, values, aux


@dataclass(frozen=True)
class RankTarget:
    """``beta_t(d)``: a rank's composite strength score at ply ``d`` (Chen et al. 4.3).

    ``centres`` are the plies of the buckets' centres with a value, ``scores`` their mean
    ``beta``; ``overall`` the rank's reference score (used when there is no curve).
    """

    rank: str
    overall: float
    centres: tuple[float, ...] = ()
    scores: tuple[float, ...] = ()

    def at(self, ply: int) -> float:
        """The target for the move played at ``ply`` (0-based: the number of moves already
        played), interpolated linearly between bucket centres, flat beyond the ends."""
        if not self.centres:
            return self.overall
        return float(np.interp(float(ply), self.centres, self.scores))

    @classmethod
    def from_metadata(cls, metadata: dict[str, Any], rank: str) -> RankTarget:
        """The target of ``rank`` from an estimator file's metadata (``references``).

        Raises ValueError naming the known ranks when ``rank`` is not one of them, or when
        the file has no reference scores.
        """
        refs = metadata.get("references")
        if not isinstance(refs, dict) or "ranks" not in refs:
            raise ValueError("the estimator has no reference scores (run sparring se-eval)")
        ranks = list(refs["ranks"])
        if rank not in ranks:
            raise ValueError(f"unknown rank {rank!r}; the estimator's ranks: {', '.join(ranks)}")
        i = ranks.index(rank)
        overall = float(refs["scores"][i])
        by_move = refs.get("by_move")
        if not isinstance(by_move, dict):
            return cls(rank, overall)
        first = [int(m) for m in by_move["first_move"]]
        row = by_move["scores"][i]
        centres: list[float] = []
        scores: list[float] = []
        for start, value in zip(first, row, strict=True):
            if value is None or not np.isfinite(value):
                continue
            centres.append(start - 1 + (BUCKET_PLIES - 1) / 2.0)
            scores.append(float(value))
        return cls(rank, overall, tuple(centres), tuple(scores))


__all__ = [
    "BUCKET_PLIES",
    "CentredStrengthEvaluator",
    "RankTarget",
    "StrengthEvaluator",
    "strength_network",
]
