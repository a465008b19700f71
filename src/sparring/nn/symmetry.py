"""The board symmetries of the human-game networks, for training and for asking a policy.

Go's rules are the same under the 8 rotations and reflections of the board (the dihedral group
``D4``); chess's rules are the same under a left-right reflection of a position where no side
has a castling right (:func:`sparring.games.chess.mirror_action_table`), and under nothing else
(pawns move one way; castling is not symmetric).  Training reflects a sample at random
(:class:`sparring.estimation.train.BatchSampler`); :func:`symmetric_log_policy` asks a policy
in every symmetric image of a position and averages the log-probabilities mapped back to the
position's own moves (a symmetry ensemble: the network's prediction made invariant under the
rules' symmetries, at the cost of one evaluation per image).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from sparring.games.chess import CASTLING_PLANES, mirror_action_table

LogitsFn = Callable[[npt.NDArray[np.float32], npt.NDArray[np.int64]], npt.NDArray[np.float32]]
"""A policy: ``[B, C, H, W]`` input planes (images of the positions whose row indices are the
second argument, so a rank-conditioned policy can read each position's rank) to ``[B, A]``
logits."""

P = TypeVar("P")


def dihedral(planes: P, k: int) -> P:
    """Symmetry ``k`` (0-7) of ``[B, C, H, W]`` planes: a left-right flip when ``k >= 4``, then
    ``k % 4`` quarter turns (the order of :func:`sparring.games.base.dihedral_symmetries`).
    ``planes`` is a numpy array (a view is returned) or a PyTorch tensor (training)."""
    x: Any = planes
    if isinstance(x, np.ndarray):
        out: Any = np.rot90(x[..., ::-1] if k >= 4 else x, k % 4, axes=(2, 3))
    else:
        out = (x.flip(-1) if k >= 4 else x).rot90(k % 4, dims=(2, 3))
    result: P = out
    return result


def action_symmetry_table(size: int) -> npt.NDArray[np.int64]:
    """``table[k, a]``: where Go action ``a`` goes under :func:`dihedral` ``k`` (pass stays)."""
    area = size * size
    grid = np.arange(area).reshape(1, 1, size, size)
    table = np.empty((8, area + 1), dtype=np.int64)
    for k in range(8):
        moved = dihedral(grid, k).reshape(-1)  # moved[q] = the point that lands on q
        table[k, moved] = np.arange(area)
        table[k, area] = area
    return table


@functools.cache
def _go_table(size: int) -> npt.NDArray[np.int64]:
    """:func:`action_symmetry_table` as a read-only array, built once per board size (a
    player's evaluator asks for it at every batch of leaves)."""
    table = action_symmetry_table(size)
    table.setflags(write=False)
    return table


def chess_mirrorable(planes: npt.NDArray[np.float32]) -> npt.NDArray[np.bool_]:
    """Rows of chess input planes where no side has a castling right (their reflection is the
    same problem, :func:`sparring.games.chess.mirror_action_table`)."""
    rights = np.abs(planes[:, CASTLING_PLANES]).reshape(planes.shape[0], -1)
    return np.asarray(rights.max(axis=1) == 0) if rights.size else np.ones(len(planes), bool)


def log_softmax(logits: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Row-wise ``log p`` of logits (numerically stable)."""
    z = logits - logits.max(axis=1, keepdims=True)
    return (z - np.log(np.exp(z).sum(axis=1, keepdims=True))).astype(np.float32)


EvaluateFn = Callable[
    [npt.NDArray[np.float32], npt.NDArray[np.int64]],
    tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]],
]
"""A policy and value: images' planes and their positions' rows (as :data:`LogitsFn`) to
``[B, A]`` logits and ``[B]`` values of the side to move."""


def symmetric_evaluation(
    game: str, planes: npt.NDArray[np.float32], evaluate: EvaluateFn
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """The mean of ``log p`` and of the value over the rules' symmetric images of every
    position, each image's policy mapped back to the position's own actions:

    ``log p_sym(a | s) = (1/|G_s|) * sum_{g in G_s} log p(g(a) | g(s))``,
    ``v_sym(s) = (1/|G_s|) * sum_{g in G_s} v(g(s))``

    with ``G_s`` the 8 dihedral symmetries for ``go`` (a square board plus pass), and for
    ``chess`` the identity and, where no side may castle (:func:`chess_mirrorable`), the
    left-right reflection.  Any other game: the identity alone.  ``evaluate`` is called once
    per image with the rows it is given (chess: a second time, on the reflectable rows only).
    The log-policy is one up to a constant per row (its argmax is the ensemble's top move)."""
    every = np.arange(planes.shape[0], dtype=np.int64)
    if game == "go":
        size = planes.shape[-1]
        table = _go_table(size)
        total = np.zeros((planes.shape[0], size * size + 1), dtype=np.float64)
        value = np.zeros(planes.shape[0], dtype=np.float64)
        for k in range(8):
            image = np.ascontiguousarray(dihedral(planes, k))
            logits, v = evaluate(image, every)
            total += log_softmax(logits)[:, table[k]]
            value += v
        return (total / 8).astype(np.float32), (value / 8).astype(np.float32)
    logits, v = evaluate(planes, every)
    out, values = log_softmax(logits), np.asarray(v, dtype=np.float32).copy()
    if game != "chess":
        return out, values
    rows = np.flatnonzero(chess_mirrorable(planes))
    if rows.size:
        mirrored = np.ascontiguousarray(planes[rows][..., ::-1])
        logits, v = evaluate(mirrored, rows)
        out[rows] = (out[rows] + log_softmax(logits)[:, mirror_action_table()]) / 2
        values[rows] = (values[rows] + v) / 2
    return out, values


def symmetric_log_policy(
    game: str, planes: npt.NDArray[np.float32], logits: LogitsFn
) -> npt.NDArray[np.float32]:
    """The log-policy of :func:`symmetric_evaluation` for a policy without a value."""

    def evaluate(
        images: npt.NDArray[np.float32], rows: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        return logits(images, rows), np.zeros(len(rows), np.float32)

    return symmetric_evaluation(game, planes, evaluate)[0]


__all__ = [
    "EvaluateFn",
    "LogitsFn",
    "action_symmetry_table",
    "chess_mirrorable",
    "dihedral",
    "log_softmax",
    "symmetric_evaluation",
    "symmetric_log_policy",
]
