"""A play network at one rank as the search's evaluator.

A *play network* (:class:`~sparring.nn.strength_net.StrengthNet` of kind ``play``, trained by
``sparring se-train GAME --variant play``) reads the rank as an input: the state's planes are
followed by one all-ones plane for the rank asked for
(:meth:`~sparring.nn.strength_net.StrengthNet.rank_planes`).  :class:`PlayNetEvaluator`
fixes that rank and answers the search's evaluator protocol
(:class:`~sparring.search.evaluator.Evaluator`): the priors are the network's policy for a
player of that rank, restricted to the legal moves, and the values its value head.  The
human-like kinds ``human-mcts`` and ``sa-mcts`` play it with ``model=PATH,rank=R``
(:mod:`sparring.players.human_like`).  The shipped play networks run from their ONNX files
(:class:`~sparring.nn.onnx_runtime.OnnxStrengthNet`, no PyTorch); a PyTorch network runs as
it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from sparring.errors import IncompatibleError, MissingResourceError
from sparring.nn.onnx_runtime import StrengthNetwork
from sparring.nn.strength_eval import strength_network
from sparring.nn.symmetry import symmetric_evaluation
from sparring.search.evaluator import (
    LegalBatch,
    PlanesBatch,
    Priors,
    StateBatch,
    Values,
    masked_softmax,
)

if TYPE_CHECKING:  # PyTorch's module, imported when a PyTorch network is given
    from sparring.nn.strength_net import StrengthNet


class PlayNetEvaluator:
    """Priors and values of a play network for players of rank index ``rank`` (0 = the
    strongest of the network's ranks).  ``model``: the network's ONNX file
    (:class:`~sparring.nn.onnx_runtime.OnnxStrengthNet`) or a PyTorch
    :class:`~sparring.nn.strength_net.StrengthNet` (run with ``threads`` threads when not
    None, a process-wide PyTorch setting, as :class:`~sparring.nn.evaluators.TorchEvaluator`
    does).  Raises ValueError for a network of another kind or a rank index out of range."""

    def __init__(
        self,
        model: StrengthNet | StrengthNetwork,
        rank: int,
        threads: int | None = 1,
        symmetric: bool = False,
    ) -> None:
        if model.config.kind != "play":
            raise ValueError(f"a {model.config.kind} network has no rank input")
        if not 0 <= rank < len(model.config.ranks):
            raise ValueError(f"rank index {rank} is not in [0, {len(model.config.ranks)})")
        self.model = model
        self.network = strength_network(model, threads)
        self.rank = int(rank)
        self.symmetric = bool(symmetric)
        """Average priors and values over the rules' symmetric images of each position
        (:func:`~sparring.nn.symmetry.symmetric_evaluation`: Go's 8, chess's
        reflection where no side may castle), at one network call per image."""

    @property
    def rank_name(self) -> str:
        """The rank's label (``5d``, ``1400-1600``)."""
        return self.model.config.ranks[self.rank]

    def evaluate(
        self, planes: PlanesBatch, legal: LegalBatch, states: StateBatch | None = None
    ) -> tuple[Priors, Values]:
        x = np.ascontiguousarray(planes, dtype=np.float32)
        if self.symmetric:
            log_policy, values = symmetric_evaluation(self.model.config.game, x, self._play)
        else:
            log_policy, values = self._play(x, np.arange(x.shape[0]))
        priors = masked_softmax(log_policy, np.ascontiguousarray(legal))
        return priors, values

    def _play(
        self, planes: npt.NDArray[np.float32], rows: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """Logits and values of the network at this evaluator's rank (every row of the
        contiguous float32 ``planes``)."""
        ranks = np.full(planes.shape[0], self.rank, dtype=np.int64)
        return self.network.play(planes, ranks)


def play_evaluator(
    model: StrengthNet | StrengthNetwork,
    game_name: str,
    rank: str,
    source: str,
    symmetric: bool = False,
) -> PlayNetEvaluator:
    """The :class:`PlayNetEvaluator` of the loaded network ``model`` (read from ``source``)
    at ``rank`` (a label of the network's ranks; ``symmetric``: averaged over the rules'
    symmetries, :attr:`PlayNetEvaluator.symmetric`).  Raises
    :class:`~sparring.errors.MissingResourceError` when it is not a play network and
    :class:`~sparring.errors.IncompatibleError` when it is for another game or has no such
    rank."""
    config = model.config
    if config.kind != "play":
        raise MissingResourceError(f"{source}: a {config.kind} network, not a play network")
    if config.game != game_name:
        raise IncompatibleError(f"play network {source!r} is for {config.game}, not {game_name}")
    if rank not in config.ranks:
        raise IncompatibleError(
            f"play network {source!r} has no rank {rank!r} (ranks: {', '.join(config.ranks)})"
        )
    return PlayNetEvaluator(model, config.ranks.index(rank), symmetric=symmetric)


__all__ = ["PlayNetEvaluator", "play_evaluator"]
