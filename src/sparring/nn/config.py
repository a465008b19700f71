"""The shapes of the networks, without PyTorch: what a network file's configuration says.

:class:`NetworkConfig` is the AlphaZero policy/value network's (:mod:`sparring.nn.model`),
:class:`StrengthNetConfig` the strength estimator's and play network's
(:mod:`sparring.nn.strength_net`).  Both networks' PyTorch modules are built from them, and
the ONNX files of the shipped networks carry them as metadata
(:mod:`sparring.nn.onnx_runtime`), so that the engines can read a network's shape, and run
it, without PyTorch.  :func:`action_tables` and :func:`rank_planes` are the strength networks'
move and rank inputs as arrays, shared by the PyTorch modules and the ONNX runtime.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from sparring.errors import SparringError
from sparring.games.chess import action_to_move


def _known_keys(cls: type, text: str, what: str, error: type[Exception]) -> dict[str, Any]:
    """The JSON object ``text`` of a config dataclass ``cls``; ``error`` naming the keys
    ``cls`` does not have."""
    data: dict[str, Any] = json.loads(text)
    unknown = sorted(set(data) - {f.name for f in dataclasses.fields(cls)})
    if unknown:
        raise error(f"unknown {what} keys: {', '.join(unknown)}")
    return data


@dataclass(frozen=True)
class NetworkConfig:
    """The shape of a :class:`PolicyValueNet` (AlphaDDA Fig. A1, Table A1)."""

    input_planes: int
    """Number of input planes ``2T + 1`` (3 for ``T = 1``, AlphaDDA app. 1.1)."""
    board_shape: tuple[int, int]
    """(rows, columns) of the input planes: the board size ``M x N``."""
    num_actions: int
    """Length of the policy output: the game's action space (passes included)."""
    blocks: int = 3
    """Number of residual blocks (Table A1: 3 for Connect4 and 6x6 Othello, 5 for Othello)."""
    channels: int = 64
    """Filters of every 3x3 convolution of the body (Table A1: 256)."""
    policy_channels: int = 2
    """Filters of the policy head's 1x1 convolution (2 in AlphaZero)."""
    value_channels: int = 1
    """Filters of the value head's 1x1 convolution (1 in AlphaZero)."""
    value_hidden: int = 256
    """Units of the value head's hidden fully connected layer (256 in AlphaZero)."""
    dropout: float = 0.0
    """Initial dropout probability ``P_drop`` in the heads (AlphaDDA Fig. 2); 0 = none."""

    def __post_init__(self) -> None:
        if self.input_planes < 1 or self.num_actions < 1 or self.blocks < 0:
            raise ValueError(f"bad network config {self}")
        if self.channels < 1 or self.policy_channels < 1 or self.value_channels < 1:
            raise ValueError(f"bad network config {self}")
        if self.value_hidden < 1 or len(self.board_shape) != 2 or min(self.board_shape) < 1:
            raise ValueError(f"bad network config {self}")
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"dropout probability must be in [0, 1), got {self.dropout}")

    def to_json(self) -> str:
        """The config as a JSON object (read back by :meth:`from_json`)."""
        return json.dumps(dataclasses.asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> NetworkConfig:
        """Read a config written by :meth:`to_json`; unknown keys are an error."""
        data = _known_keys(cls, text, "network config", ValueError)
        data["board_shape"] = tuple(int(x) for x in data["board_shape"])
        return cls(**data)

    @classmethod
    def for_game(cls, game: Any, **overrides: Any) -> NetworkConfig:
        """A config matching ``game``'s input planes, board and action space."""
        return cls(
            input_planes=int(game.num_planes),
            board_shape=(int(game.board_shape[0]), int(game.board_shape[1])),
            num_actions=int(game.num_actions),
            **overrides,
        )


KINDS = ("se", "se_inf", "sl", "play")
"""``se``: Bradley-Terry strength scores over the human ranks; ``se_inf``: the same plus the
rank ``r_inf`` of random legal moves; ``sl``: a rank classifier (SL_sum / SL_vote); ``play``:
a policy and value conditioned on the rank (rank planes as an input, no strength head)."""

GAME_SHAPES: dict[str, tuple[int, tuple[int, int], int]] = {
    "go": (15, (19, 19), 362),
    "chess": (23, (8, 8), 4272),
}
"""Input planes, board shape and number of actions of the supported games."""


@dataclass(frozen=True)
class StrengthNetConfig:
    """The shape of a :class:`StrengthNet`."""

    game: str
    """``go`` or ``chess``."""
    ranks: tuple[str, ...]
    """The human ranks, strongest first (``r_1 .. r_n``)."""
    kind: str = "se_inf"
    """One of :data:`KINDS`."""
    blocks: int = 6
    """Residual blocks of the trunk (paper: 20)."""
    channels: int = 64
    """Filters of the trunk (paper: 256)."""
    head_channels: int = 32
    """Filters of the strength head's convolutions."""
    head_hidden: int = 64
    """Units of the strength head's hidden layer."""
    value_hidden: int = 64
    """Units of the value head's hidden layer (AlphaZero: 256)."""
    prior_input: bool = True
    """Whether the strength head also reads the policy's log-probability of the move (the
    shipped networks do; see the module docstring for why one may not want it)."""

    def __post_init__(self) -> None:
        if self.game not in GAME_SHAPES:
            raise SparringError(f"strength networks exist for go and chess, not {self.game!r}")
        if self.kind not in KINDS:
            raise SparringError(f"unknown strength network kind {self.kind!r}; one of {KINDS}")
        if len(self.ranks) < 2:
            raise SparringError("a strength network needs at least two ranks")
        if min(self.blocks + 1, self.channels, self.head_channels, self.head_hidden) < 1:
            raise SparringError(f"bad strength network config {self}")

    @property
    def score_outputs(self) -> int:
        """1 strength score for SE / SE-inf, one logit per rank for SL."""
        return len(self.ranks) if self.kind == "sl" else 1

    def network_config(self) -> NetworkConfig:
        """The AlphaZero trunk-and-heads config (:class:`~sparring.nn.model.NetworkConfig`)."""
        planes, shape, actions = GAME_SHAPES[self.game]
        if self.kind == "play":
            planes += len(self.ranks)  # the rank's one-hot planes
        return NetworkConfig(
            input_planes=planes,
            board_shape=shape,
            num_actions=actions,
            blocks=self.blocks,
            channels=self.channels,
            value_hidden=self.value_hidden,
        )

    def to_json(self) -> str:
        """The config as JSON (read back by :meth:`from_json`)."""
        return json.dumps(dataclasses.asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> StrengthNetConfig:
        """Read :meth:`to_json`'s output; unknown keys are an error."""
        data = _known_keys(cls, text, "strength network config", SparringError)
        data["ranks"] = tuple(data["ranks"])
        return cls(**data)


@functools.cache
def action_tables(game: str) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
    """The move planes of a strength network of ``game`` as two tables over its actions:
    ``cells [A, k]`` (the one-hot cell of each of the ``k`` cell planes, -1 for none) and
    ``flags [A, f]`` (the value of each constant flag plane).

    Go: one cell plane, the point played, and one flag plane, pass.  Chess (python-chess
    squares, planes with rank 8 in row 0 as :func:`sparring.games.chess.encode_board`): two
    cell planes, from-square and to-square, and one flag plane, under-promotion (queen
    promotions are implied by a pawn reaching the last rank).  Read-only arrays, built once.
    """
    _, (rows, cols), actions = GAME_SHAPES[game]
    if game == "go":
        cells = np.full((actions, 1), -1, dtype=np.int64)
        cells[: rows * cols, 0] = np.arange(rows * cols)
        flags = np.zeros((actions, 1), dtype=np.float32)
        flags[rows * cols, 0] = 1.0
    else:
        cells = np.empty((actions, 2), dtype=np.int64)
        flags = np.zeros((actions, 1), dtype=np.float32)
        for a in range(actions):
            m = action_to_move(a)
            for k, sq in enumerate((m.from_square, m.to_square)):
                cells[a, k] = (7 - sq // 8) * 8 + sq % 8
            if m.promotion is not None and a >= 4096 and (a - 4096) % 4 != 0:
                flags[a, 0] = 1.0
    cells.setflags(write=False)
    flags.setflags(write=False)
    return cells, flags


def action_planes(game: str, actions: npt.NDArray[np.integer[Any]]) -> npt.NDArray[np.float32]:
    """``actions [B]`` as a strength network's move planes ``[B, k + f, rows, cols]``
    (:func:`action_tables`)."""
    cells, flags = action_tables(game)
    _, (rows, cols), _ = GAME_SHAPES[game]
    moves = np.asarray(actions, dtype=np.int64).reshape(-1)
    b, k = moves.size, cells.shape[1]
    out = np.zeros((b, k + flags.shape[1], rows * cols), dtype=np.float32)
    chosen = cells[moves]
    for j in range(k):
        on = np.flatnonzero(chosen[:, j] >= 0)
        out[on, j, chosen[on, j]] = 1.0
    out[:, k:, :] = flags[moves][:, :, None]
    return out.reshape(b, k + flags.shape[1], rows, cols)


def rank_planes(
    planes: npt.NDArray[np.float32], ranks: npt.NDArray[np.integer[Any]], count: int
) -> npt.NDArray[np.float32]:
    """``planes [B, C, H, W]`` followed by the one-hot planes of ``ranks [B]`` (rank index,
    0 = strongest, of ``count`` ranks): plane ``C + r`` is all ones for a position of rank
    ``r`` -- a play network's input.  ValueError for a rank index out of range."""
    index = np.asarray(ranks, dtype=np.int64).reshape(-1)
    if index.size and (int(index.min()) < 0 or int(index.max()) >= count):
        raise ValueError(f"rank indices must be in [0, {count})")
    b, c, h, w = planes.shape
    out = np.zeros((b, c + count, h, w), dtype=np.float32)
    out[:, :c] = planes
    out[np.arange(b), c + index] = 1.0
    return out


__all__ = [
    "GAME_SHAPES",
    "KINDS",
    "NetworkConfig",
    "StrengthNetConfig",
    "action_planes",
    "action_tables",
    "rank_planes",
]
