"""The strength estimator network (Chen, Shih & Wu, ICLR 2025, sections 3.2 and 4.1).

Given a state-action pair ``(s, a)`` the network outputs a policy ``p`` over the game's moves,
a value ``v`` (the side to move's expected result) and a **strength score** ``beta`` (the
exponent of the Bradley-Terry strength ``lambda = e^beta``, Eq. 3).  For the supervised
baselines SL_sum / SL_vote (section 2.4) the same network outputs ``n`` rank logits instead of
one score.

Architecture
------------
* **Trunk, policy and value heads**: an AlphaZero :class:`~sparring.nn.model.PolicyValueNet`
  (stem, ``blocks`` :class:`~sparring.nn.model.ResidualBlock` s of ``channels`` filters, the
  policy and value heads), reused unchanged as the submodule ``az`` -- the strength head reads
  the trunk's output feature map through a forward hook on ``az.body``, so no layer is copied
  and :meth:`StrengthNet.policy_value_net` is a plain AlphaZero network (a human-trained
  policy) that the search and players can use.
* **Action input**: the move is drawn as extra planes (:class:`ActionPlanes`): Go, a one at
  the point played and a plane of ones for a pass; chess, a one on the from-square, a one on
  the to-square and a plane of ones for an under-promotion (queen promotions are implied by a
  pawn reaching the last rank).
* **Strength head**: ``concat(trunk features, action planes)`` -> two 3x3 convolutions of
  ``head_channels`` filters (BN, ReLU) -> global mean and max pooling, together with the
  policy's log-probability of the move (gradient stopped; only with ``prior_input``) -> a
  fully connected layer of ``head_hidden`` units (ReLU) -> ``1`` score (or ``n`` rank
  logits for SL).  With the log-probability as an input, the shipped heads learned to order
  a position's moves by it alone (``research/semcts_beta_prior.py``: within-position Spearman
  0.96-1.00 for go-se-inf-play, go-se, go-se-inf and chess-se-inf), which leaves SE-MCTS
  nothing to steer by but the prior; ``prior_input = false`` trains a head without it.

**Play networks** (kind ``play``: a network that plays at every rank): the same
trunk and heads with the **rank as an input**, ``n`` constant one-hot planes after the
state's planes (as Maia-2 and KataGo's human network condition on the player's rating), and
no strength head; trained on the human pairs of every rank with the policy and value losses
only (``sparring se-train GAME --variant play``), so that one network gives each rank its
own move distribution.  :meth:`StrengthNet.play` runs it.

The move enters **after** the trunk, not with the state planes at the stem: otherwise the
policy head, trained to predict the move played, would read the answer off its own input.
The trunk therefore sees only the state, which also lets SE-inf score its ``r_inf`` pairs
(random moves in the *same* positions as human pairs) with one trunk pass: only the small
head runs again.

Defaults are small: 6 blocks x 64 channels, 0.77 M parameters for Go (a 3.1 MB file) and
1.05 M for chess (4.2 MB, most of it the policy layer over 4,272 moves); the paper uses
20 x 256.  Files: :func:`save_strength_model` writes the config, the weights and
JSON metadata (rank names, reference scores) in one ``.pt``; :func:`load_strength_model` reads
it with ``weights_only=True``.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
import torch.nn.functional as F
from torch import nn

from sparring.errors import IncompatibleError, MissingResourceError, SparringError
from sparring.nn.config import GAME_SHAPES, KINDS, StrengthNetConfig, action_tables
from sparring.nn.model import PolicyValueNet, torch_state
from sparring.nn.onnx_runtime import CONFIG_KEY, FORMAT_KEY, METADATA_KEY, read_onnx_weights

Floats = npt.NDArray[np.float32]

FORMAT = "sparring-strength-net"
FORMAT_VERSION = 1


class ActionPlanes(nn.Module):
    """Draws moves as input planes: one-hot *cell* planes and constant *flag* planes.

    Go: cell plane = the point played; flag plane = pass.  Chess (python-chess squares,
    planes with rank 8 in row 0 as :func:`sparring.games.chess.encode_board`): cell planes =
    from-square and to-square; flag plane = under-promotion.
    """

    def __init__(self, game: str) -> None:
        super().__init__()
        _, (rows, cols), _ = GAME_SHAPES[game]
        self.rows, self.cols = rows, cols
        tables = action_tables(game)  # the same tables as the ONNX runtime's move planes
        cells = torch.from_numpy(tables[0].copy())
        flags = torch.from_numpy(tables[1].copy())
        self.register_buffer("cells", cells, persistent=False)
        self.register_buffer("flags", flags, persistent=False)
        self.num_planes = cells.shape[1] + flags.shape[1]

    def forward(self, actions: torch.Tensor) -> torch.Tensor:
        """``actions [B]`` (long) -> planes ``[B, num_planes, rows, cols]``."""
        cells: torch.Tensor = self.cells[actions]  # type: ignore[index]
        flags: torch.Tensor = self.flags[actions]  # type: ignore[index]
        b = actions.shape[0]
        area = self.rows * self.cols
        n_cells = cells.shape[1]
        out = torch.zeros(b, self.num_planes, area, device=actions.device)
        rows = torch.arange(b, device=actions.device)
        for k in range(n_cells):
            c = cells[:, k]
            ok = c >= 0
            out[rows[ok], k, c[ok]] = 1.0
        out[:, n_cells:, :] = flags[:, :, None]
        return out.view(b, self.num_planes, self.rows, self.cols)


class StrengthNet(nn.Module):
    """``(planes [B, C, H, W], actions [B]) -> (policy logits, value, scores [B, outputs])``."""

    def __init__(self, config: StrengthNetConfig) -> None:
        super().__init__()
        self.config = config
        self.az = PolicyValueNet(config.network_config())
        self._features: torch.Tensor | None = None
        self.az.body.register_forward_hook(self._capture)
        if config.kind == "play":
            return  # no strength head
        self.action_planes = ActionPlanes(config.game)
        c, h = config.channels, config.head_channels
        self.head_conv = nn.Sequential(
            nn.Conv2d(c + self.action_planes.num_planes, h, 3, padding=1, bias=False),
            nn.BatchNorm2d(h),
            nn.ReLU(inplace=True),
            nn.Conv2d(h, h, 3, padding=1, bias=False),
            nn.BatchNorm2d(h),
            nn.ReLU(inplace=True),
        )
        self.head_fc = nn.Sequential(
            nn.Linear(2 * h + int(config.prior_input), config.head_hidden),
            nn.ReLU(inplace=True),
            nn.Linear(config.head_hidden, config.score_outputs),
        )

    def _capture(self, module: nn.Module, inputs: Any, output: torch.Tensor) -> None:
        self._features = output

    def trunk(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The state's trunk features ``[B, channels, H, W]``, policy logits and values."""
        logits, value = self.az(planes)
        features = self._features
        self._features = None
        assert features is not None
        return features, logits, value

    def strength(
        self, features: torch.Tensor, logits: torch.Tensor, actions: torch.Tensor
    ) -> torch.Tensor:
        """Scores ``[B, outputs]`` of the moves ``actions`` in the states of ``features``."""
        if self.config.kind == "play":
            raise SparringError("a play network has no strength head")
        prior = None
        if self.config.prior_input:
            prior = F.log_softmax(logits.detach(), dim=1).gather(1, actions[:, None])
        return self.head_scores(features, self.action_planes(actions), prior)

    def head_scores(
        self, features: torch.Tensor, moves: torch.Tensor, log_prior: torch.Tensor | None
    ) -> torch.Tensor:
        """The strength head on trunk ``features``, the moves' planes ``moves``
        (:class:`ActionPlanes`) and, with ``prior_input``, the policy's log-probability of
        each move ``[B, 1]``: scores ``[B, outputs]`` (the graph of ``NAME.head.onnx``)."""
        return strength_head(self.head_conv, self.head_fc, features, moves, log_prior)

    def forward(
        self, planes: torch.Tensor, actions: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Policy logits ``[B, A]``, values ``[B]`` and scores ``[B, outputs]``."""
        if self.config.kind == "play":
            raise SparringError("a play network has no strength head: use play(planes, ranks)")
        features, logits, value = self.trunk(planes)
        return logits, value, self.strength(features, logits, actions)

    def policy_value_net(self) -> PolicyValueNet:
        """The trunk with its policy and value heads: an ordinary AlphaZero network (not for
        a play network, whose input includes the rank: :meth:`play`)."""
        if self.config.kind == "play":
            raise SparringError("a play network's input includes the rank: use play(planes, ranks)")
        return self.az

    def rank_planes(self, planes: torch.Tensor, ranks: torch.Tensor) -> torch.Tensor:
        """``planes [B, C, H, W]`` followed by the one-hot planes of ``ranks [B]`` (rank
        index, 0 = strongest): plane ``C + r`` is all ones for a pair of rank ``r``."""
        n = len(self.config.ranks)
        if ranks.numel() and (int(ranks.min()) < 0 or int(ranks.max()) >= n):
            raise ValueError(f"rank indices must be in [0, {n})")
        b, _, h, w = planes.shape
        onehot = F.one_hot(ranks.long(), n).to(planes.dtype)
        return torch.cat([planes, onehot[:, :, None, None].expand(b, n, h, w)], dim=1)

    def play(self, planes: torch.Tensor, ranks: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """A play network's policy logits ``[B, A]`` and values ``[B]`` for players of
        ``ranks [B]`` (rank indices, 0 = strongest) in the states of ``planes``."""
        if self.config.kind != "play":
            raise SparringError(f"a {self.config.kind} network has no rank input")
        logits, value = self.az(self.rank_planes(planes, ranks))
        self._features = None
        return logits, value


def strength_head(
    conv: nn.Module,
    fc: nn.Module,
    features: torch.Tensor,
    moves: torch.Tensor,
    log_prior: torch.Tensor | None,
) -> torch.Tensor:
    """The strength head's computation (:meth:`StrengthNet.head_scores`): ``conv`` on the
    features and move planes, global mean and max pooling (and the log prior), ``fc``."""
    x = conv(torch.cat([features, moves], dim=1))
    parts = [x.mean(dim=(2, 3)), x.amax(dim=(2, 3))]
    if log_prior is not None:
        parts.append(log_prior)
    out: torch.Tensor = fc(torch.cat(parts, dim=1))
    return out


def build_strength_model(config: StrengthNetConfig, seed: int | None = None) -> StrengthNet:
    """A new network (evaluation mode); ``seed`` makes its initial weights reproducible."""
    if seed is None:
        return StrengthNet(config).eval()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return StrengthNet(config).eval()


def save_strength_model(
    path: str | Path,
    model: StrengthNet,
    metadata: dict[str, Any] | None = None,
    half: bool = False,
) -> None:
    """Write ``model`` and JSON ``metadata`` to one ``.pt`` file, atomically.  ``half``
    stores the floating-point tensors as float16 (half the file; :func:`load_strength_model`
    reads them back into float32 parameters)."""

    def stored(v: torch.Tensor) -> torch.Tensor:
        v = v.detach().cpu()
        return v.half() if half and v.is_floating_point() else v

    payload = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "config": model.config.to_json(),
        "metadata": json.dumps(metadata or {}, sort_keys=True),
        "state_dict": {k: stored(v) for k, v in model.state_dict().items()},
    }
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_bytes(buffer.getvalue())
    os.replace(tmp, target)


def load_strength_model(path: str | Path) -> tuple[StrengthNet, dict[str, Any]]:
    """Read a file of :func:`save_strength_model`: the network (evaluation mode, CPU) and its
    metadata.  Raises :class:`~sparring.errors.MissingResourceError` if the file is missing
    or not such a network, :class:`~sparring.errors.IncompatibleError` for a version this
    code does not read."""
    p = Path(path)
    if not p.is_file():
        raise MissingResourceError(f"strength model {str(p)!r} does not exist")
    if p.suffix == ".onnx":
        return _load_onnx(p)
    try:
        payload = torch.load(p, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many kinds for corrupt files
        raise MissingResourceError(
            f"{p}: not a sparring strength model (torch.load failed: {type(exc).__name__})"
        ) from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise MissingResourceError(f"{p}: not a sparring strength model")
    if payload.get("version") != FORMAT_VERSION:
        raise IncompatibleError(f"{p}: unsupported strength model version {payload.get('version')}")
    model = StrengthNet(StrengthNetConfig.from_json(payload["config"]))
    model.load_state_dict(payload["state_dict"])
    metadata: dict[str, Any] = json.loads(payload.get("metadata", "{}"))
    return model.eval(), metadata


def _load_onnx(path: Path) -> tuple[StrengthNet, dict[str, Any]]:
    """The network and metadata of a strength network's ONNX export (its head file too)."""
    try:
        meta, weights = read_onnx_weights(path)
    except ValueError as exc:
        raise MissingResourceError(str(exc)) from None
    if meta.get(FORMAT_KEY) != FORMAT:
        raise MissingResourceError(f"{path}: not a sparring strength model")
    model = StrengthNet(StrengthNetConfig.from_json(meta[CONFIG_KEY]))
    try:
        model.load_state_dict(torch_state(weights, model.state_dict()))
    except ValueError as exc:
        raise MissingResourceError(f"{path}: {exc}") from None
    metadata: dict[str, Any] = json.loads(meta.get(METADATA_KEY, "{}"))
    return model.eval(), metadata


class TorchStrengthRunner:
    """A PyTorch :class:`StrengthNet` on numpy arrays, as the ONNX runtime's
    :class:`~sparring.nn.onnx_runtime.OnnxStrengthNet` (a
    :class:`~sparring.nn.onnx_runtime.StrengthNetwork`), so that the evaluators run either.
    ``threads``: if not None, :func:`torch.set_num_threads` is called with it (a process-wide
    setting)."""

    def __init__(self, model: StrengthNet, threads: int | None = 1) -> None:
        if threads is not None:
            torch.set_num_threads(int(threads))
        self.model = model.eval()
        self.config = model.config

    @torch.inference_mode()
    def trunk(self, planes: Floats) -> tuple[Floats, Floats, Floats]:
        features, logits, value = self.model.trunk(torch.from_numpy(_floats(planes)))
        return features.numpy(), logits.numpy(), value.reshape(-1).numpy()

    @torch.inference_mode()
    def strength(self, features: Floats, logits: Floats, actions: npt.NDArray[np.int64]) -> Floats:
        moves = torch.from_numpy(np.asarray(actions, dtype=np.int64).reshape(-1))
        out = self.model.strength(
            torch.from_numpy(_floats(features)), torch.from_numpy(_floats(logits)), moves
        )
        return np.asarray(out.numpy(), dtype=np.float32)

    @torch.inference_mode()
    def play(self, planes: Floats, ranks: npt.NDArray[np.int64]) -> tuple[Floats, Floats]:
        index = torch.from_numpy(np.asarray(ranks, dtype=np.int64).reshape(-1))
        logits, values = self.model.play(torch.from_numpy(_floats(planes)), index)
        return logits.numpy().astype(np.float32), values.reshape(-1).numpy().astype(np.float32)


def _floats(x: npt.NDArray[Any]) -> Floats:
    return np.ascontiguousarray(x, dtype=np.float32)


__all__ = [
    "KINDS",
    "ActionPlanes",
    "StrengthNet",
    "StrengthNetConfig",
    "TorchStrengthRunner",
    "build_strength_model",
    "load_strength_model",
    "save_strength_model",
    "strength_head",
]
