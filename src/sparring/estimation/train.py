"""Training the strength estimator (Chen, Shih & Wu, ICLR 2025, sections 3.2 and 4.1, app. A).

Batches (Fig. 1)
----------------
A batch holds ``groups_per_batch`` *groups*; a group draws, for every rank ``r_i``,
``pairs_per_rank`` (``m = 7``, section 4.1) state-action pairs of that rank from the training
set.  The network scores each pair (``beta_{i,j}``); the **composite score** of a rank is the
mean ``beta-bar_i = (1/m) sum_j beta_{i,j}`` (Eq. 3, the log of the geometric-mean strength of
Eq. 2), and the group's ranking loss is Eq. 5,

``L = -sum_{i=1}^{n-1} log( exp(beta-bar_i) / sum_{j=i}^{n} exp(beta-bar_j) )``

(a Plackett-Luce likelihood of the order ``r_1 > r_2 > ... > r_n``, Eq. 4), averaged over the
groups.  **SE-inf** appends the rank ``r_inf`` after the weakest human rank: ``m`` pairs of the
group get a uniformly random legal move in place of the human one (stored with the data,
:mod:`sparring.estimation.data`); they enter the ranking loss only -- "the policy and value
loss for state-action pairs of ``r_inf`` are not calculated" (app. A).  The policy
(cross-entropy with the move played) and value (MSE with the game result from the mover's
view) losses of AlphaZero are added on the human pairs.  The **SL** baselines (section 2.4)
use the same batches and network with a rank classifier head and a cross-entropy loss over
the ranks instead of Eq. 5.

Optimiser: SGD with momentum 0.9 and weight decay 1e-4 (app. A: SGD, learning rate 0.01
halved after 100,000 of 130,000 steps); ``optimizer = "adam"`` is offered for short CPU runs.
Go positions are augmented with a random one of the 8 board symmetries per pair (app. A:
"data augmentation"); chess has none.

A run lives in one folder: ``config.json``, ``checkpoint.pt`` (network, optimiser, schedule,
random states; written atomically every ``checkpoint_every`` steps, so a kill loses at most
those steps and re-running the command resumes), ``model.pt`` (the network,
:func:`~sparring.nn.strength_net.save_strength_model`), ``log.jsonl`` (training and validation
losses) and ``training.png``.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from sparring.configfile import check_at_least, check_fields, dataclass_from_mapping, read_toml
from sparring.errors import ConfigError
from sparring.estimation.data import (
    INF_RANK,
    DataConfig,
    PairSet,
    check_cache_folder,
    concat_pairs,
    load_split,
    ranks_for,
)
from sparring.estimation.extra import build_with_extra, extra_split
from sparring.estimation.predict import REFERENCE_FITS
from sparring.games.chess import mirror_action_table
from sparring.nn.strength_net import (
    KINDS,
    StrengthNet,
    StrengthNetConfig,
    build_strength_model,
    load_strength_model,
    save_strength_model,
)
from sparring.nn.symmetry import action_symmetry_table, chess_mirrorable, dihedral
from sparring.rundir import (
    Curve,
    Panel,
    TrainingPlot,
    append_log,
    atomic_torch_save,
    atomic_write,
    check_run_config,
    read_log,
)

CHECKPOINT_FORMAT = "sparring-se-checkpoint-v1"
PRECISIONS = ("fp32", "bf16")
""":attr:`SEConfig.precision` values."""
RESUMABLE_CHANGES = frozenset(
    {
        "steps",
        "mirror",
        "checkpoint_every",
        "log_every",
        "val_every",
        "threads",
        "device",
        "eval_draws",
        "eval_max_games",
        "eval_unit",
        "eval_aggregate",
        "reference_fit",
        "eval_train_sample",
        "eval_cross_fit",
        "eval_batch",
        "eval_pairs_per_side",
        "eval_positions_per_side",
        "cache_dir",
        "lr_decay_steps",
        "lr_decay_factor",
        "precision",
        "init_from",
        "channels_last",
        "prefetch",
    }
)
"""Config fields a resumed run may change; any other difference is refused.  A changed
learning-rate schedule takes effect from the resumed step (:meth:`SETrainer._resume`); ``init_from``
matters only to a run's start."""

_SE_CONVERSIONS: dict[str, Callable[[Any], Any]] = {
    "lr_decay_steps": lambda steps: tuple(int(x) for x in steps),
    "variant": lambda variant: str(variant).replace("-", "_"),
}
"""How :meth:`SEConfig.from_mapping` normalises values: a TOML/JSON list of decay steps to a
tuple of ints, a variant spelt with dashes (``se-inf``) to underscores."""


# ---- configuration ---------------------------------------------------------------------------
@dataclass(frozen=True)
class SEConfig:
    """Everything that defines a strength-estimator training run (and its evaluation)."""

    game: str
    """``go`` or ``chess``."""
    variant: str = "se_inf"
    """``se`` (Eq. 5 over the human ranks), ``se_inf`` (plus ``r_inf``) or ``sl`` (the
    SL_sum / SL_vote rank classifier)."""
    # ---- data (see sparring.estimation.data.DataConfig) ----
    data_root: str = ""
    cache_dir: str = "runs/se-cache"
    val_fraction: float = 0.15
    max_records_per_rank: int = 0
    max_train_games_per_rank: int = 0
    max_val_games_per_rank: int = 0
    max_cand_games_per_rank: int = 0
    train_positions_per_side: int = 0
    eval_positions_per_side: int = 0
    random_actions: int = 4
    extra_games: str = ""
    """Chess: train also on another source's games (``lichess2017``; see
    :mod:`sparring.estimation.extra`); the held-out and reference pairs stay the main
    folders'.  Empty: none."""
    # ---- network ----
    blocks: int = 6
    """Residual blocks (paper: 20)."""
    channels: int = 64
    """Trunk filters (paper: 256)."""
    head_channels: int = 32
    head_hidden: int = 64
    value_hidden: int = 64
    prior_input: bool = True
    """Strength head reads the policy's log-probability of the move (see
    :class:`~sparring.nn.strength_net.StrengthNetConfig`)."""
    init_from: str = ""
    """A strength-model file (a run's ``model.pt``, or a shipped network) whose weights start
    a new run, with a fresh optimiser: a run continued where its optimiser's state could not
    follow (a remote GPU machine that returns the model, not the checkpoint).  The network settings
    above must be the file's.  A run that has a checkpoint resumes from it instead."""
    # ---- training ----
    steps: int = 130_000
    """Optimiser steps (paper: 130,000)."""
    groups_per_batch: int = 4
    """Groups (one ranking of all ranks each) per batch."""
    pairs_per_rank: int = 7
    """``m``: pairs averaged into a composite score (paper: 7)."""
    optimizer: str = "sgd"
    """``sgd`` (paper) or ``adam``."""
    learning_rate: float = 0.01
    """Initial learning rate (paper: 0.01)."""
    lr_decay_steps: tuple[int, ...] = (100_000,)
    """Steps after which the learning rate is multiplied by ``lr_decay_factor`` (paper: 100k)."""
    lr_decay_factor: float = 0.5
    momentum: float = 0.9
    weight_decay: float = 1e-4
    policy_weight: float = 1.0
    value_weight: float = 1.0
    augment: bool = True
    """Random board symmetry per pair (Go only)."""
    mirror: bool = False
    """Chess: reflect each training pair left to right with probability 1/2 when neither side
    has a castling right (planes and move; :func:`sparring.games.chess.mirror_action_table`),
    the one symmetry chess's rules have there.  A resumed run may switch it."""
    checkpoint_every: int = 200
    log_every: int = 20
    val_every: int = 200
    """Validation losses on held-out players every this many steps (0: never)."""
    val_groups: int = 32
    """Groups of the (fixed) validation batches."""
    threads: int = 1
    """PyTorch CPU threads."""
    device: str = "cpu"
    """``cpu``, ``cuda`` (or ``cuda:N``) or ``auto``."""
    precision: str = "fp32"
    """``fp32``, or ``bf16``: the forward pass and the losses under
    :func:`torch.autocast` to bfloat16 (weights, gradients and the optimiser stay float32);
    for GPUs with bfloat16 arithmetic."""
    channels_last: bool = False
    """Keep the network's weights and the batches' input planes in the channels-last memory
    layout (NHWC): the same arithmetic, laid out as the GPU's convolution kernels prefer.  On
    an H200 under bfloat16 a device step of the 10 x 128 Go network took 0.047 s instead of
    0.121 s (``research/bench_play_step.py``, BENCHMARKS.md)."""
    prefetch: int = 0
    """Batches drawn ahead by a background thread while the device works on the current one
    (0: none, each batch drawn when its step starts).  The same batches in the same order
    either way, and a checkpoint keeps the random state of the batches trained on, not of
    those drawn ahead, so a run may switch it when resumed.  On a GPU the planes are also
    copied from pinned memory.  For a GPU, where the batch's work on the CPU (about 0.05 s of
    the Go network's 0.173 s step on an H200) otherwise waits for the device's and the other
    way round."""
    seed: int = 0
    # ---- evaluation (sparring se-eval) ----
    eval_draws: int = 500
    """Random draws of N games per rank and N (paper: 500)."""
    eval_max_games: int = 100
    """Largest N (paper: 100)."""
    eval_unit: str = "game"
    """``game``: both players' moves of a game (both share the rank group; as the paper's
    query set); ``side``: one player's moves."""
    eval_aggregate: str = "move"
    """``move``: the composite score of N games is the mean beta over all their pairs (the
    paper's Eq. 2-3); ``game``: the mean of per-game means."""
    reference_fit: str = "mean"
    """References that ``se-eval`` writes into ``estimator.pt`` (both are reported):
    ``mean``, each rank's mean score over its candidate pairs (the paper); ``line``, those
    means fitted by a least-squares line over the rank index.  For ranks of equal width in
    Elo the line is the Bradley-Terry model's own shape (a strength ``beta`` linear in Elo,
    Eq. 1), and it pools the candidate games of all ranks against the sampling noise of each
    rank's ~100 games."""
    eval_train_sample: int = 2000
    """Training pairs per rank that ``se-eval`` scores to compare the network's mean score
    per rank on its training data with the held-out and candidate sets (0: none)."""
    eval_cross_fit: int = 10
    """Random two-way splits of the held-out players for the cross-fitted "held-out refs"
    accuracy (references from the other half of the held-out players; it measures what the
    candidate folder's difference from the held-out games costs); 0: not reported."""
    eval_batch: int = 512
    eval_pairs_per_side: int = 0
    """Score at most this many of the extracted pairs per player and game (0: all of them);
    a way to cut evaluation time without extracting the data again."""

    def __post_init__(self) -> None:
        check_fields(self, "se config")
        ranks_for(self.game)
        self.data_config()  # its own checks (extra_games)
        if self.variant not in KINDS:
            raise ConfigError(f"se config: variant must be one of {', '.join(KINDS)}")
        positive = (
            "steps",
            "groups_per_batch",
            "pairs_per_rank",
            "channels",
            "head_channels",
            "head_hidden",
            "value_hidden",
            "checkpoint_every",
            "log_every",
            "val_groups",
            "threads",
            "random_actions",
            "eval_draws",
            "eval_max_games",
            "eval_batch",
        )
        check_at_least(self, "se config", positive, 1)
        nonneg = (
            "blocks",
            "val_every",
            "max_records_per_rank",
            "max_train_games_per_rank",
            "max_val_games_per_rank",
            "max_cand_games_per_rank",
            "train_positions_per_side",
            "eval_positions_per_side",
            "eval_pairs_per_side",
            "eval_cross_fit",
            "seed",
            "weight_decay",
            "policy_weight",
            "value_weight",
            "prefetch",
        )
        check_at_least(self, "se config", nonneg, 0)
        if not 0 <= self.momentum < 1:
            raise ConfigError("se config: momentum must be in [0, 1)", "momentum")
        if any(step < 1 for step in self.lr_decay_steps):
            raise ConfigError("se config: lr_decay_steps must be steps >= 1", "lr_decay_steps")
        if self.optimizer not in ("sgd", "adam"):
            raise ConfigError("se config: optimizer must be 'sgd' or 'adam'")
        if self.learning_rate <= 0 or not 0 < self.lr_decay_factor <= 1:
            raise ConfigError("se config: learning_rate must be > 0, lr_decay_factor in (0, 1]")
        if not 0 <= self.val_fraction < 1:
            raise ConfigError("se config: val_fraction must be in [0, 1)")
        if self.eval_unit not in ("game", "side") or self.eval_aggregate not in ("move", "game"):
            raise ConfigError("se config: eval_unit is game|side, eval_aggregate is move|game")
        if self.reference_fit not in REFERENCE_FITS:
            raise ConfigError(
                f"se config: reference_fit must be one of {', '.join(REFERENCE_FITS)}, "
                f"not {self.reference_fit!r}"
            )
        if not (self.device in ("cpu", "cuda", "auto") or self.device.startswith("cuda:")):
            raise ConfigError(f"se config: unknown device {self.device!r}")
        if self.precision not in PRECISIONS:
            raise ConfigError(
                f"se config: precision must be one of {', '.join(PRECISIONS)}, "
                f"not {self.precision!r}"
            )

    @classmethod
    def from_mapping(cls, data: dict[str, Any]) -> SEConfig:
        """Build from a mapping; unknown keys raise :class:`ConfigError` naming the key."""
        return dataclass_from_mapping(cls, data, "se config", convert=_SE_CONVERSIONS)

    @classmethod
    def from_toml(cls, path: Path, game: str, **overrides: Any) -> SEConfig:
        """The file's keys for ``game``, then ``overrides`` (None values are ignored)."""
        data = read_toml(path, game)
        data["game"] = game
        data.update({k: v for k, v in overrides.items() if v is not None})
        return cls.from_mapping(data)

    def to_mapping(self) -> dict[str, Any]:
        """The config as plain data."""
        data = dataclasses.asdict(self)
        data["lr_decay_steps"] = list(self.lr_decay_steps)
        if not data["extra_games"]:
            del data["extra_games"]  # as runs written before the field existed recorded it
        if data["precision"] == "fp32":
            del data["precision"]  # likewise
        if not data["init_from"]:
            del data["init_from"]  # likewise
        if not data["channels_last"]:
            del data["channels_last"]  # likewise
        if not data["prefetch"]:
            del data["prefetch"]  # likewise
        return data

    def data_config(self) -> DataConfig:
        """The data settings (:class:`~sparring.estimation.data.DataConfig`)."""
        names = {f.name for f in dataclasses.fields(DataConfig)}
        return DataConfig(**{k: v for k, v in dataclasses.asdict(self).items() if k in names})

    def network_config(self) -> StrengthNetConfig:
        """The network shape."""
        return StrengthNetConfig(
            game=self.game,
            ranks=ranks_for(self.game),
            kind=self.variant,
            blocks=self.blocks,
            channels=self.channels,
            head_channels=self.head_channels,
            head_hidden=self.head_hidden,
            value_hidden=self.value_hidden,
            prior_input=self.prior_input,
        )


def resolve_device(name: str) -> torch.device:
    """``auto`` -> CUDA when available, else CPU; ``cuda`` without a GPU, or a name other than
    ``cpu``, ``cuda``, ``cuda:N`` and ``auto``, is a ConfigError."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if not (name in ("cpu", "cuda") or name.startswith("cuda:")):
        raise ConfigError(f"unknown device {name!r} (cpu, cuda, cuda:N or auto)")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise ConfigError(f"device {name!r} asked for, but no CUDA GPU is available")
    try:
        return torch.device(name)
    except RuntimeError:
        raise ConfigError(f"unknown device {name!r} (cpu, cuda, cuda:N or auto)") from None


# ---- losses (Eq. 3-5) -----------------------------------------------------------------------
def composite_scores(betas: torch.Tensor) -> torch.Tensor:
    """Eq. 3: ``beta-bar_i = (1/m) sum_j beta_{i,j}`` over the last axis (the ``m`` pairs)."""
    return betas.mean(dim=-1)


def bradley_terry_loss(scores: torch.Tensor) -> torch.Tensor:
    """Eq. 5 for composite scores ``[..., n]`` ordered strongest first, averaged over the
    leading axes: ``-sum_{i<n} log(exp(s_i) / sum_{j>=i} exp(s_j))``."""
    tail = torch.logcumsumexp(scores.flip(-1), dim=-1).flip(-1)  # log sum_{j>=i} exp(s_j)
    return (tail - scores)[..., :-1].sum(dim=-1).mean()


@dataclass
class Batch:
    """A batch of groups: ``planes``/``actions``/``values``/``ranks`` of the human pairs in
    (group, rank, pair) order, and for SE-inf the ``r_inf`` pairs (an index of the human pair
    whose position they share, and their random move), ``m`` per group."""

    planes: torch.Tensor
    actions: torch.Tensor
    values: torch.Tensor
    ranks: torch.Tensor
    groups: int
    n_ranks: int
    m: int
    inf_index: torch.Tensor | None = None
    inf_actions: torch.Tensor | None = None


def se_losses(
    model: StrengthNet, batch: Batch, policy_weight: float = 1.0, value_weight: float = 1.0
) -> dict[str, torch.Tensor]:
    """The losses of one batch: ``rank`` (Eq. 5 for SE / SE-inf, rank cross-entropy for SL;
    zero for a play network, which has no strength head and reads each pair's rank as an
    input), ``policy`` and ``value`` (human pairs only), and ``total``."""
    if model.config.kind == "play":
        logits, value = model.play(batch.planes, batch.ranks)
        out_play = {
            "rank": torch.zeros((), device=logits.device),
            "policy": F.cross_entropy(logits, batch.actions),
            "value": F.mse_loss(value, batch.values),
            "logits": logits.detach(),
            "values": value.detach(),
        }
        out_play["total"] = policy_weight * out_play["policy"] + value_weight * out_play["value"]
        return out_play
    features, logits, value = model.trunk(batch.planes)
    g, n, m = batch.groups, batch.n_ranks, batch.m
    b = batch.actions.shape[0]
    out: dict[str, torch.Tensor] = {}
    if model.config.kind == "se_inf":
        if batch.inf_index is None or batch.inf_actions is None:
            raise ValueError("an SE-inf batch needs r_inf pairs")
        # One head pass over human and r_inf pairs together, so that batch normalisation sees
        # the same mixture in training as its running statistics hold at evaluation.
        i = batch.inf_index
        scores_all = model.strength(
            torch.cat([features, features[i]]),
            torch.cat([logits, logits[i]]),
            torch.cat([batch.actions, batch.inf_actions]),
        )
        scores, inf = scores_all[:b], scores_all[b:]
    else:
        scores = model.strength(features, logits, batch.actions)
    if model.config.kind == "sl":
        out["rank"] = F.cross_entropy(scores, batch.ranks)
    else:
        composite = composite_scores(scores[:, 0].view(g, n, m))
        if model.config.kind == "se_inf":
            composite = torch.cat([composite, composite_scores(inf[:, 0].view(g, m))[:, None]], 1)
        out["rank"] = bradley_terry_loss(composite)
        out["composite"] = composite.detach()
    out["policy"] = F.cross_entropy(logits, batch.actions)
    out["value"] = F.mse_loss(value, batch.values)
    out["total"] = out["rank"] + policy_weight * out["policy"] + value_weight * out["value"]
    out["scores"] = scores.detach()
    out["logits"] = logits.detach()
    return out


def to_channels_last(model: torch.nn.Module) -> None:
    """Lay out every 4-d parameter and buffer of ``model`` channels-last, in place (what
    ``Module.to(memory_format=torch.channels_last)`` does, which its type stubs lack)."""
    for t in (*model.parameters(), *model.buffers()):
        if t.dim() == 4:
            t.data = t.data.contiguous(memory_format=torch.channels_last)


# ---- batches ---------------------------------------------------------------------------------
class BatchSampler:
    """Draws :class:`Batch` es from a :class:`~sparring.estimation.data.PairSet`."""

    def __init__(
        self,
        pairs: PairSet,
        kind: str,
        groups: int,
        m: int,
        augment: bool,
        device: torch.device,
        channels_last: bool = False,
        mirror: bool = False,
    ) -> None:
        """``channels_last``: the planes of each batch in that memory layout on the device
        (:attr:`SEConfig.channels_last`); ``mirror``: chess pairs without castling rights
        reflected at random (:attr:`SEConfig.mirror`)."""
        self.pairs = pairs
        self.channels_last = channels_last
        self.kind = kind
        self.groups = groups
        self.m = m
        self.by_rank = pairs.by_rank()
        empty = [pairs.ranks[r] for r, idx in enumerate(self.by_rank) if idx.size == 0]
        if empty:
            raise ConfigError(f"no training pairs for rank(s) {', '.join(empty)}")
        self.augment = augment and pairs.game == "go"
        self.device = device
        self.table = torch.from_numpy(action_symmetry_table(19)) if self.augment else None
        self.mirror = (
            torch.from_numpy(mirror_action_table()) if mirror and pairs.game == "chess" else None
        )

    def sample(self, rng: np.random.Generator) -> Batch:
        """One batch: ``groups`` x ``n ranks`` x ``m`` human pairs (+ ``m`` r_inf pairs a group)."""
        return self.to_device(self.sample_host(rng))

    def sample_host(self, rng: np.random.Generator, pin: bool = False) -> Batch:
        """:meth:`sample`'s batch before it goes to the device (CPU tensors; ``pin``: in
        pinned memory, for an asynchronous copy)."""
        g, m = self.groups, self.m
        n = len(self.by_rank)
        idx = np.empty((g, n, m), dtype=np.int64)
        for r, pool in enumerate(self.by_rank):
            idx[:, r, :] = pool[rng.integers(0, pool.size, size=(g, m))]
        flat = idx.reshape(-1)
        planes = torch.from_numpy(self.pairs.planes(flat))
        actions = torch.from_numpy(self.pairs.action[flat].astype(np.int64))
        values = torch.from_numpy(self.pairs.value[flat].astype(np.float32))
        ranks = torch.from_numpy(np.repeat(np.arange(n), m)[None].repeat(g, 0).reshape(-1))
        inf_index = inf_actions = None
        if self.kind == "se_inf":
            per_group = n * m
            pick = np.stack([rng.choice(per_group, m, replace=False) for _ in range(g)])
            pick = pick + (np.arange(g) * per_group)[:, None]
            col = rng.integers(0, self.pairs.random_actions.shape[1], size=pick.shape)
            inf_np = self.pairs.random_actions[flat[pick], col].reshape(-1).astype(np.int64)
            inf_index = torch.from_numpy(pick.reshape(-1))
            inf_actions = torch.from_numpy(inf_np)
        if self.table is not None:
            sym = torch.from_numpy(rng.integers(0, 8, size=flat.size))
            for k in range(1, 8):
                sel = torch.nonzero(sym == k).view(-1)
                if sel.numel():
                    planes[sel] = dihedral(planes[sel], k)
            actions = self.table[sym, actions]
            if inf_index is not None and inf_actions is not None:
                inf_actions = self.table[sym[inf_index], inf_actions]
        if self.mirror is not None:
            reflectable = torch.from_numpy(chess_mirrorable(planes.numpy()))
            flip = reflectable & torch.from_numpy(rng.random(flat.size) < 0.5)
            sel = torch.nonzero(flip).view(-1)
            if sel.numel():
                planes[sel] = planes[sel].flip(-1)
                actions = torch.where(flip, self.mirror[actions], actions)
                if inf_index is not None and inf_actions is not None:
                    inf_actions = torch.where(
                        flip[inf_index], self.mirror[inf_actions], inf_actions
                    )
        batch = Batch(
            planes=planes,
            actions=actions,
            values=values,
            ranks=ranks,
            groups=g,
            n_ranks=n,
            m=m,
            inf_index=inf_index,
            inf_actions=inf_actions,
        )
        if pin:
            batch = dataclasses.replace(
                batch,
                planes=batch.planes.pin_memory(),
                actions=batch.actions.pin_memory(),
                values=batch.values.pin_memory(),
            )
        return batch

    def to_device(self, batch: Batch, non_blocking: bool = False) -> Batch:
        """``batch`` on the sampler's device (its planes channels-last if so configured);
        ``non_blocking`` copies pinned tensors asynchronously."""
        dev = self.device

        def move(t: torch.Tensor | None) -> torch.Tensor | None:
            return None if t is None else t.to(dev, non_blocking=non_blocking)

        planes = batch.planes.to(dev, non_blocking=non_blocking)
        if self.channels_last:
            planes = planes.contiguous(memory_format=torch.channels_last)
        return Batch(
            planes=planes,
            actions=batch.actions.to(dev, non_blocking=non_blocking),
            values=batch.values.to(dev, non_blocking=non_blocking),
            ranks=batch.ranks.to(dev, non_blocking=non_blocking),
            groups=batch.groups,
            n_ranks=batch.n_ranks,
            m=batch.m,
            inf_index=move(batch.inf_index),
            inf_actions=move(batch.inf_actions),
        )


class Prefetcher:
    """Draws a sampler's batches ahead in a background thread (:attr:`SEConfig.prefetch`), in
    the order :meth:`BatchSampler.sample` would draw them from ``rng``, each with the
    generator's state after it: what a checkpoint taken after that batch must keep."""

    def __init__(
        self, sampler: BatchSampler, rng: np.random.Generator, depth: int, pin: bool
    ) -> None:
        self.sampler = sampler
        self.rng = rng
        self.pin = pin
        self.queue: queue.Queue[tuple[Batch | None, dict[str, Any], BaseException | None]] = (
            queue.Queue(maxsize=depth)
        )
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._work, name="batch-prefetch", daemon=True)
        self.thread.start()

    def _work(self) -> None:
        try:
            while not self.stopping.is_set():
                batch = self.sampler.sample_host(self.rng, pin=self.pin)
                item = (batch, dict(copy.deepcopy(self.rng.bit_generator.state)), None)
                while not self.stopping.is_set():
                    try:
                        self.queue.put(item, timeout=0.1)
                        break
                    except queue.Full:
                        continue
        except BaseException as exc:  # handed to the trainer, which raises it
            self.queue.put((None, {}, exc))

    def next(self) -> tuple[Batch, dict[str, Any]]:
        """The next batch (on the host) and the generator's state after it."""
        batch, state, error = self.queue.get()
        if error is not None:
            raise error
        assert batch is not None
        return batch, state

    def close(self) -> None:
        """Stop the thread (the batches drawn ahead are dropped)."""
        self.stopping.set()
        while self.thread.is_alive():
            with contextlib.suppress(queue.Empty):
                self.queue.get(timeout=0.1)
        self.thread.join()


# ---- the trainer -----------------------------------------------------------------------------
@dataclass
class SEState:
    """What a checkpoint restores besides network, optimiser and random states."""

    step: int = 0
    seconds: float = 0.0
    pairs_seen: int = 0


class SETrainer:
    """Runs (and resumes) one strength-estimator training run in ``out_dir``."""

    def __init__(
        self,
        config: SEConfig,
        out_dir: Path,
        show_progress: bool = True,
        data_folder: Path | None = None,
    ) -> None:
        """``data_folder``: train from this already-built cache folder (copied to a machine
        without the source games, say), checked by
        :func:`~sparring.estimation.data.check_cache_folder`, instead of building or finding
        the config's own."""
        self.config = config
        self.out = Path(out_dir)
        self.out.mkdir(parents=True, exist_ok=True)
        check_run_config(self.out, config.to_mapping(), RESUMABLE_CHANGES)
        torch.set_num_threads(config.threads)
        self.device = resolve_device(config.device)
        if data_folder is None:
            self.data_dir = build_with_extra(config.data_config(), show_progress=show_progress)
        else:
            also = (extra_split(config.extra_games),) if config.extra_games else ()
            self.data_dir = check_cache_folder(Path(data_folder), config.data_config(), also)
        self.train_pairs = load_split(self.data_dir, "train")
        if config.extra_games:
            self.train_pairs = concat_pairs(
                self.train_pairs, load_split(self.data_dir, extra_split(config.extra_games))
            )
        self.val_pairs = load_split(self.data_dir, "val") if config.val_every else None
        self.model = build_strength_model(config.network_config(), seed=config.seed).to(self.device)
        if config.channels_last:
            to_channels_last(self.model)
        if config.optimizer == "sgd":
            self.optimizer: torch.optim.Optimizer = torch.optim.SGD(
                self.model.parameters(),
                lr=config.learning_rate,
                momentum=config.momentum,
                weight_decay=config.weight_decay,
            )
        else:
            self.optimizer = torch.optim.AdamW(
                self.model.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay
            )
        self.schedule = torch.optim.lr_scheduler.MultiStepLR(
            self.optimizer, milestones=list(config.lr_decay_steps), gamma=config.lr_decay_factor
        )
        self.sampler = BatchSampler(
            self.train_pairs,
            config.variant,
            config.groups_per_batch,
            config.pairs_per_rank,
            config.augment,
            self.device,
            config.channels_last,
            config.mirror,
        )
        self.rng = np.random.default_rng(config.seed)
        self.prefetcher: Prefetcher | None = None
        self.rng_consumed: dict[str, Any] | None = None
        """With a prefetcher: the generator's state after the last batch trained on."""
        self.state = SEState()
        self._resume()
        if config.init_from and self.state.step == 0:
            self._init_weights(Path(config.init_from))

    # ---- persistence ---------------------------------------------------------------------
    def _resume(self) -> None:
        path = self.out / "checkpoint.pt"
        if not path.exists():
            return
        payload = torch.load(path, map_location=self.device, weights_only=False)
        if payload.get("format") != CHECKPOINT_FORMAT:
            raise ConfigError(f"{path}: not a sparring strength-estimator checkpoint")
        self.model.load_state_dict(payload["model"])
        self.optimizer.load_state_dict(payload["optimizer"])
        self.schedule.load_state_dict(payload["schedule"])
        self._apply_schedule()
        self.rng.bit_generator.state = payload["numpy_rng"]
        torch.set_rng_state(payload["torch_rng"].cpu())  # map_location moved it too
        self.state = SEState(**payload["state"])
        # Log records written after the checkpoint describe steps that will be redone.
        log = self.out / "log.jsonl"
        kept = [r for r in read_log(log) if r.get("step", 0) <= self.state.step]
        atomic_write(log, "".join(json.dumps(r) + "\n" for r in kept).encode())

    def _init_weights(self, path: Path) -> None:
        """Start from the weights of the strength model at ``path`` (:attr:`SEConfig.init_from`);
        a network of another shape is a ConfigError."""
        start, _ = load_strength_model(path)
        if start.config != self.model.config:
            raise ConfigError(
                f"init_from {str(path)!r}: its network ({start.config}) is not the config's "
                f"({self.model.config})"
            )
        self.model.load_state_dict(start.state_dict())

    @property
    def plot(self) -> TrainingPlot:
        """The run's ``training.png``: :data:`PLAY_TRAINING_PLOT` for a play network, else
        :data:`TRAINING_PLOT`."""
        return PLAY_TRAINING_PLOT if self.config.variant == "play" else TRAINING_PLOT

    def _apply_schedule(self) -> None:
        """Make the restored schedule the config's: its decay steps and factor, and the
        learning rate they give at the checkpoint's step (``learning_rate`` times the factor
        for every decay step already passed), so a resumed run may shorten or extend it."""
        c = self.config
        self.schedule.milestones = Counter(c.lr_decay_steps)
        self.schedule.gamma = c.lr_decay_factor
        done = int(self.schedule.last_epoch)
        passed = sum(1 for m in c.lr_decay_steps if m <= done)
        lr = c.learning_rate * c.lr_decay_factor**passed
        for group in self.optimizer.param_groups:
            group["lr"] = lr

    def save_checkpoint(self) -> None:
        """Write the checkpoint, then ``model.pt``, each atomically."""
        atomic_torch_save(
            self.out / "checkpoint.pt",
            {
                "format": CHECKPOINT_FORMAT,
                "model": self.model.state_dict(),
                "optimizer": self.optimizer.state_dict(),
                "schedule": self.schedule.state_dict(),
                "numpy_rng": self.rng_consumed
                if self.prefetcher is not None and self.rng_consumed is not None
                else self.rng.bit_generator.state,
                "torch_rng": torch.get_rng_state(),
                "state": vars(self.state),
                "config": self.config.to_mapping(),
            },
        )
        save_strength_model(self.out / "model.pt", self.model, self.model_metadata())

    def model_metadata(self) -> dict[str, Any]:
        """What ``model.pt`` records about its training."""
        ranks = list(self.config.network_config().ranks)
        if self.config.variant == "se_inf":
            ranks.append(INF_RANK)
        return {
            "game": self.config.game,
            "variant": self.config.variant,
            "trained_ranks": ranks,
            "step": self.state.step,
            "pairs_seen": self.state.pairs_seen,
            "train_pairs": len(self.train_pairs),
            "init_from": self.config.init_from,
            "data": str(self.data_dir),
        }

    def _log(self, record: dict[str, Any]) -> None:
        """Append ``record`` to the run's ``log.jsonl`` (crash-safe, see :func:`append_log`)."""
        append_log(self.out / "log.jsonl", record)

    # ---- steps ---------------------------------------------------------------------------
    def autocast(self) -> contextlib.AbstractContextManager[Any]:
        """The forward pass's precision (:attr:`SEConfig.precision`): bfloat16 autocast on
        the training device, or nothing."""
        if self.config.precision == "bf16":
            return torch.autocast(self.device.type, dtype=torch.bfloat16)
        return contextlib.nullcontext()

    def _step(self) -> dict[str, torch.Tensor]:
        """One optimiser step; the batch's losses as detached tensors on the device (read
        them only when needed: each read waits for the device)."""
        c = self.config
        if self.prefetcher is not None:
            host, self.rng_consumed = self.prefetcher.next()
            batch = self.sampler.to_device(host, non_blocking=self.prefetcher.pin)
        else:
            batch = self.sampler.sample(self.rng)
        self.model.train()
        with self.autocast():
            losses = se_losses(self.model, batch, c.policy_weight, c.value_weight)
        self.optimizer.zero_grad(set_to_none=True)
        losses["total"].backward()
        self.optimizer.step()
        self.schedule.step()
        self.state.step += 1
        self.state.pairs_seen += int(batch.actions.numel())
        return {k: losses[k].detach().float() for k in ("rank", "policy", "value", "total")}

    def train_step(self) -> dict[str, float]:
        """One optimiser step on a fresh batch; the batch's losses."""
        return {k: float(v.item()) for k, v in self._step().items()}

    @torch.no_grad()
    def validate(self) -> dict[str, float]:
        """Losses on fixed batches of held-out players' pairs, plus how often the composite
        scores of neighbouring ranks are in the right order (SE) or the rank of a single pair
        is right (SL), and the policy's top-1 agreement with the human move."""
        if self.val_pairs is None or len(self.val_pairs) == 0:
            return {}
        c = self.config
        sampler = BatchSampler(
            self.val_pairs,
            c.variant,
            c.val_groups,
            c.pairs_per_rank,
            False,
            self.device,
            c.channels_last,
        )
        rng = np.random.default_rng([c.seed, 99991])
        self.model.eval()
        batch = sampler.sample(rng)
        with self.autocast():
            losses = se_losses(self.model, batch, c.policy_weight, c.value_weight)
        losses = {k: v.float() for k, v in losses.items()}
        out = {f"val_{k}": float(losses[k].item()) for k in ("rank", "policy", "value")}
        if c.variant == "sl":
            pred = losses["scores"].argmax(dim=1)
            out["val_rank_accuracy"] = float((pred == batch.ranks).float().mean().item())
        elif c.variant == "play":
            decided = batch.values != 0
            right = torch.sign(losses["values"][decided]) == batch.values[decided]
            out["val_value_sign"] = float(right.float().mean().item()) if decided.any() else 0.0
            # A value head that says nothing answers the same for every position: std 0.
            out["val_value_std"] = float(losses["values"].std().item())
        else:
            comp = losses["composite"]
            out["val_order_accuracy"] = float((comp[:, :-1] > comp[:, 1:]).float().mean().item())
        top1 = losses["logits"].argmax(dim=1) == batch.actions
        out["val_policy_top1"] = float(top1.float().mean().item())
        return out

    def run(
        self,
        steps: int | None = None,
        report: Callable[[int, int, dict[str, Any]], None] | None = None,
    ) -> SEState:
        """Train until ``steps`` (default: the config's) are done, checkpointing as configured."""
        c = self.config
        target = c.steps if steps is None else steps
        if c.prefetch and self.state.step < target:
            self.rng_consumed = dict(copy.deepcopy(self.rng.bit_generator.state))
            self.prefetcher = Prefetcher(
                self.sampler, self.rng, c.prefetch, pin=self.device.type == "cuda"
            )
            try:
                return self._run(target, report)
            finally:
                self.prefetcher.close()
                self.prefetcher = None
                # the batches drawn ahead were not trained on: draw them again next time
                if self.rng_consumed is not None:
                    self.rng.bit_generator.state = self.rng_consumed
        return self._run(target, report)

    def _run(
        self, target: int, report: Callable[[int, int, dict[str, Any]], None] | None
    ) -> SEState:
        c = self.config
        sums: dict[str, torch.Tensor] = {}
        count = 0
        t0 = time.perf_counter()
        while self.state.step < target:
            losses = self._step()
            for k, v in losses.items():
                sums[k] = sums[k] + v if k in sums else v
            count += 1
            step = self.state.step
            record: dict[str, Any] = {}
            if (
                step % c.log_every == 0
                or step == target
                or (c.val_every and step % c.val_every == 0)
            ):
                now = time.perf_counter()
                self.state.seconds += now - t0
                t0 = now
                record = {"step": step, "lr": self.optimizer.param_groups[0]["lr"]}
                record |= {f"loss_{k}": float(v.item()) / max(count, 1) for k, v in sums.items()}
                if c.val_every and (step % c.val_every == 0 or step == target):
                    record |= self.validate()
                record |= {"seconds": self.state.seconds, "pairs_seen": self.state.pairs_seen}
                sums, count = {}, 0
            if step % c.checkpoint_every == 0 or step == target:
                if not record:
                    now = time.perf_counter()
                    self.state.seconds += now - t0
                    t0 = now
                self.save_checkpoint()
            if record:
                self._log(record)
                if any(k.startswith("val_") for k in record):
                    self.plot.write(self.out / "log.jsonl", self.out / "training.png")
            if report:
                report(step, target, record)
        if not (self.out / "training.png").exists():
            self.plot.write(self.out / "log.jsonl", self.out / "training.png")
        return self.state


def _loss_panel(key: str, title: str) -> Panel:
    return Panel(
        title,
        (
            Curve(f"loss_{key}", "train", alpha=0.7),
            Curve(f"val_{key}", "held-out players", "o-"),
        ),
    )


TRAINING_PLOT = TrainingPlot(
    "step",
    (
        _loss_panel("rank", "rank loss (Eq. 5 / rank CE)"),
        _loss_panel("policy", "policy cross-entropy"),
        _loss_panel("value", "value MSE"),
    ),
    figsize=(13, 3.8),
)
"""``training.png``: each loss on the training batches and on the held-out players."""

PLAY_TRAINING_PLOT = TrainingPlot(
    "step",
    (
        _loss_panel("policy", "policy cross-entropy"),
        _loss_panel("value", "value MSE"),
        Panel("held-out top-1 (human move)", (Curve("val_policy_top1", "held-out players", "o-"),)),
    ),
    figsize=(13, 3.8),
)
"""A play network's ``training.png`` (it has no rank loss): its two losses and how often the
policy's top move is the human move on the held-out players."""


__all__ = [
    "PLAY_TRAINING_PLOT",
    "TRAINING_PLOT",
    "Batch",
    "BatchSampler",
    "Prefetcher",
    "SEConfig",
    "SEState",
    "SETrainer",
    "action_symmetry_table",
    "bradley_terry_loss",
    "composite_scores",
    "dihedral",
    "read_log",
    "resolve_device",
    "se_losses",
    "to_channels_last",
]
