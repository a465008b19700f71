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

import dataclasses
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from sparring.errors import IncompatibleError, MissingResourceError, SparringError
from sparring.games.chess import action_to_move
from sparring.nn.model import NetworkConfig, PolicyValueNet

FORMAT = "sparring-strength-net"
FORMAT_VERSION = 1
KINDS = ("se", "se_inf", "sl", "play")
"""``se``: Bradley-Terry strength scores over the human ranks; ``se_inf``: the same plus the
rank ``r_inf`` of random legal moves; ``sl``: a rank classifier (SL_sum / SL_vote); ``play``:
a policy and value conditioned on the rank (rank planes as an input, no strength head)."""

_GAMES: dict[str, tuple[int, tuple[int, int], int]] = {
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
        if self.game not in _GAMES:
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
        planes, shape, actions = _GAMES[self.game]
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
        data: dict[str, Any] = json.loads(text)
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise SparringError(f"unknown strength network config keys: {', '.join(unknown)}")
        data["ranks"] = tuple(data["ranks"])
        return cls(**data)


class ActionPlanes(nn.Module):
    """Draws moves as input planes: one-hot *cell* planes and constant *flag* planes.

    Go: cell plane = the point played; flag plane = pass.  Chess (python-chess squares,
    planes with rank 8 in row 0 as :func:`sparring.games.chess.encode_board`): cell planes =
    from-square and to-square; flag plane = under-promotion.
    """

    def __init__(self, game: str) -> None:
        super().__init__()
        _, (rows, cols), actions = _GAMES[game]
        self.rows, self.cols = rows, cols
        if game == "go":
            cells = torch.full((actions, 1), -1, dtype=torch.long)
            cells[: rows * cols, 0] = torch.arange(rows * cols)
            flags = torch.zeros(actions, 1)
            flags[rows * cols, 0] = 1.0
        else:
            cells = torch.empty((actions, 2), dtype=torch.long)
            flags = torch.zeros(actions, 1)
            for a in range(actions):
                m = action_to_move(a)
                for k, sq in enumerate((m.from_square, m.to_square)):
                    cells[a, k] = (7 - sq // 8) * 8 + sq % 8
                if m.promotion is not None and a >= 4096 and (a - 4096) % 4 != 0:
                    flags[a, 0] = 1.0
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
        x = torch.cat([features, self.action_planes(actions)], dim=1)
        x = self.head_conv(x)
        parts = [x.mean(dim=(2, 3)), x.amax(dim=(2, 3))]
        if self.config.prior_input:
            parts.append(F.log_softmax(logits.detach(), dim=1).gather(1, actions[:, None]))
        pooled = torch.cat(parts, dim=1)
        out: torch.Tensor = self.head_fc(pooled)
        return out

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


__all__ = [
    "KINDS",
    "ActionPlanes",
    "StrengthNet",
    "StrengthNetConfig",
    "build_strength_model",
    "load_strength_model",
    "save_strength_model",
]
