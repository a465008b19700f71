"""The AlphaZero policy/value network (AlphaDDA appendix 1.1, Fig. A1; dropout as in Fig. 2).

The network maps the input planes of a position (AlphaDDA app. 1.1: ``2T + 1`` planes of the
board, here ``T = 1`` as in Table A1: the first player's stones, the second player's stones,
and a plane filled with the colour of the side to move, +1 or -1) to

* policy logits ``p`` over the game's ``num_actions`` moves (the policy head), and
* a value ``v(s)`` in ``[-1, 1]`` (the value head, ``tanh``), the expected result for the
  **side to move** (+1 win, -1 loss).

Architecture (the AlphaZero network of Silver et al. 2018 that AlphaDDA uses):

* *Body.* A 3x3 convolution stem (``channels`` filters, batch norm, ReLU), then ``blocks``
  residual blocks, each ``conv3x3 - BN - ReLU - conv3x3 - BN``, plus the skip connection,
  then ReLU.  Table A1: 3 blocks for Connect4 and 6x6 Othello, 5 for Othello, 256 filters.
* *Policy head.* ``conv1x1`` to ``policy_channels`` (2) filters, BN, ReLU, flatten, dropout,
  fully connected layer to ``num_actions`` logits.
* *Value head.* ``conv1x1`` to ``value_channels`` (1) filter, BN, ReLU, flatten, dropout,
  fully connected layer to ``value_hidden`` (256) units, ReLU, dropout, fully connected layer
  to one unit, ``tanh``.

Dropout (AlphaDDA section 3.3 and Fig. 2): "the dropout is inserted into the fully connected
layers in the value and policy heads".  Here it acts on the input of every fully connected
layer of both heads.  Unlike :class:`torch.nn.Dropout` it is active whenever its probability
is positive, in evaluation mode too, because AlphaDDA2 damages a *trained* network at play
time by changing the dropout probability ``P_drop`` (Eq. 4-5) from move to move:
:meth:`PolicyValueNet.set_dropout` changes it after construction.  It is inverted dropout
(kept units are scaled by ``1 / (1 - p)``, as in :func:`torch.nn.functional.dropout`), and it
draws its masks from an optional :class:`torch.Generator` so that damaged play is
reproducible.

Files: :func:`save_model` writes one small ``.pt`` file holding the config (as a JSON string)
and the ``state_dict``; :func:`load_model` reads it back (with ``weights_only=True``: no
pickled code is executed).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from sparring.nn.config import NetworkConfig
from sparring.nn.onnx_runtime import (
    CONFIG_KEY,
    FORMAT_KEY,
    POLICY_VALUE_FORMAT,
    read_onnx_weights,
)

FORMAT_VERSION = 1
"""Version of the file layout written by :func:`save_model`."""


class HeadDropout(nn.Module):
    """Inverted dropout that stays active in evaluation mode while ``p > 0`` (AlphaDDA Fig. 2).

    ``p`` and ``generator`` are plain attributes: set them at any time (or use
    :meth:`PolicyValueNet.set_dropout`).  With ``p == 0`` the module is the identity.
    """

    def __init__(self, p: float = 0.0) -> None:
        super().__init__()
        self.p = float(p)
        self.generator: torch.Generator | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.p <= 0.0:
            return x
        if self.p >= 1.0:
            return torch.zeros_like(x)
        keep = torch.rand(x.shape, generator=self.generator, device=x.device) >= self.p
        return x * keep.to(x.dtype) * (1.0 / (1.0 - self.p))

    def extra_repr(self) -> str:
        return f"p={self.p}"


class ResidualBlock(nn.Module):
    """``x -> relu(x + BN(conv(relu(BN(conv(x))))))`` with 3x3 convolutions."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(x + y)


class PolicyValueNet(nn.Module):
    """The AlphaZero ResNet: ``planes [B, C, H, W] -> (policy logits [B, A], value [B])``."""

    def __init__(self, config: NetworkConfig) -> None:
        super().__init__()
        self.config = config
        c = config.channels
        rows, cols = config.board_shape
        area = rows * cols
        self.stem = nn.Sequential(
            nn.Conv2d(config.input_planes, c, 3, padding=1, bias=False),
            nn.BatchNorm2d(c),
            nn.ReLU(inplace=True),
        )
        self.body = nn.Sequential(*(ResidualBlock(c) for _ in range(config.blocks)))
        self.policy_conv = nn.Sequential(
            nn.Conv2d(c, config.policy_channels, 1, bias=False),
            nn.BatchNorm2d(config.policy_channels),
            nn.ReLU(inplace=True),
        )
        self.policy_dropout = HeadDropout(config.dropout)
        self.policy_fc = nn.Linear(config.policy_channels * area, config.num_actions)
        self.value_conv = nn.Sequential(
            nn.Conv2d(c, config.value_channels, 1, bias=False),
            nn.BatchNorm2d(config.value_channels),
            nn.ReLU(inplace=True),
        )
        self.value_dropout1 = HeadDropout(config.dropout)
        self.value_fc1 = nn.Linear(config.value_channels * area, config.value_hidden)
        self.value_dropout2 = HeadDropout(config.dropout)
        self.value_fc2 = nn.Linear(config.value_hidden, 1)

    def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Policy logits ``[B, num_actions]`` and values ``[B]`` in ``[-1, 1]`` (side to move)."""
        _, logits, value = self.forward_features(planes)
        return logits, value

    def forward_features(
        self, planes: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """:meth:`forward`, with the body's output feature map ``[B, channels, H, W]`` first
        (what a strength head reads)."""
        x = self.body(self.stem(planes))
        p = torch.flatten(self.policy_conv(x), 1)
        logits = self.policy_fc(self.policy_dropout(p))
        v = torch.flatten(self.value_conv(x), 1)
        v = F.relu(self.value_fc1(self.value_dropout1(v)))
        value = torch.tanh(self.value_fc2(self.value_dropout2(v))).squeeze(1)
        return x, logits, value

    # ---- dropout control (AlphaDDA2) -------------------------------------------------------
    def dropout_modules(self) -> list[HeadDropout]:
        """The dropout layers of both heads."""
        return [self.policy_dropout, self.value_dropout1, self.value_dropout2]

    @property
    def dropout(self) -> float:
        """The current dropout probability ``P_drop`` of the heads."""
        return self.policy_dropout.p

    def set_dropout(self, p: float, generator: torch.Generator | None = None) -> None:
        """Set ``P_drop`` (AlphaDDA Eq. 4-5) of every head dropout; active at inference if > 0.

        ``generator`` (optional) is the random source of the dropout masks; ``None`` keeps
        the current one (initially torch's default generator).
        """
        if not 0.0 <= p < 1.0:
            raise ValueError(f"dropout probability must be in [0, 1), got {p}")
        for module in self.dropout_modules():
            module.p = float(p)
            if generator is not None:
                module.generator = generator


def build_model(config: NetworkConfig, seed: int | None = None) -> PolicyValueNet:
    """A new network in evaluation mode; ``seed`` makes its random initial weights reproducible."""
    if seed is None:
        model = PolicyValueNet(config)
    else:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            model = PolicyValueNet(config)
    return model.eval()


def save_model(path: str | Path, model: PolicyValueNet) -> None:
    """Write ``model`` to one ``.pt`` file: format version, config JSON and ``state_dict``."""
    payload = {
        "format": "sparring-policy-value-net",
        "version": FORMAT_VERSION,
        "config": model.config.to_json(),
        "state_dict": {k: v.detach().cpu() for k, v in model.state_dict().items()},
    }
    torch.save(payload, Path(path))


def load_model(path: str | Path) -> PolicyValueNet:
    """Read a network written by :func:`save_model`, or its ONNX export (``NAME.onnx``, whose
    weights are the ``.pt``'s: :func:`~sparring.nn.onnx_runtime.read_onnx_weights`), in
    evaluation mode.

    Raises :class:`ValueError` if the file is not such a network.
    """
    if Path(path).suffix == ".onnx":
        return _load_onnx(Path(path))
    try:
        payload = torch.load(Path(path), map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise
    except Exception as exc:  # torch raises many kinds for corrupt files
        raise ValueError(f"{path}: not a sparring network file ({exc})") from exc
    if not isinstance(payload, dict) or payload.get("format") != "sparring-policy-value-net":
        raise ValueError(f"{path}: not a sparring network file")
    if payload.get("version") != FORMAT_VERSION:
        raise ValueError(f"{path}: unsupported network file version {payload.get('version')}")
    config = NetworkConfig.from_json(payload["config"])
    model = PolicyValueNet(config)
    model.load_state_dict(payload["state_dict"])
    return model.eval()


def _load_onnx(path: Path) -> PolicyValueNet:
    """The network of an ONNX file exported from a :func:`save_model` file."""
    if not path.is_file():
        raise FileNotFoundError(path)
    meta, weights = read_onnx_weights(path)
    if meta.get(FORMAT_KEY) != POLICY_VALUE_FORMAT:
        raise ValueError(f"{path}: not a sparring network file")
    model = PolicyValueNet(NetworkConfig.from_json(meta[CONFIG_KEY]))
    model.load_state_dict(torch_state(weights, model.state_dict()))
    return model.eval()


def torch_state(
    weights: dict[str, Any], template: Mapping[str, torch.Tensor]
) -> dict[str, torch.Tensor]:
    """The ``state_dict`` of the arrays ``weights`` (an ONNX file's initializers) in the
    dtypes of ``template`` (a module's own ``state_dict``); entries the export leaves out (the
    batch-norm layers' ``num_batches_tracked``, used only while training) are taken from
    ``template``.  ValueError naming the first weight missing."""
    state = {}
    for name, like in template.items():
        if name in weights:
            state[name] = torch.from_numpy(weights[name].copy()).to(like.dtype)
        elif name.endswith("num_batches_tracked"):
            state[name] = like.clone()
        else:
            raise ValueError(f"the ONNX file has no weight {name!r}")
    return state


__all__ = [
    "HeadDropout",
    "NetworkConfig",
    "PolicyValueNet",
    "ResidualBlock",
    "build_model",
    "load_model",
    "save_model",
    "torch_state",
]
