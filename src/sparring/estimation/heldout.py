"""Positions from held-out players' games, and how often a network's policy picks the human move.

The strength estimators are trained on the player-disjoint split of
:func:`~sparring.estimation.data.split_by_player`; its *validation* games (every game whose
focus player is held out) are never trained on -- not even one side of them.  This module
draws positions from those games, per rank, reproducibly (the same positions for every model
or program given the same seed), and measures the **move match** of a policy head: the share
of positions where the argmax of the policy logits is the move the human played (top-1; also
top-5), with or without a legal-move mask.  ``sparring se-policy`` prints it;
``sparring se-match`` (:mod:`sparring.estimation.match`) uses the same positions for its
programs (Chen, Shih & Wu, ICLR 2025, Tables 1 and 2).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from sparring.errors import IncompatibleError, SparringError
from sparring.estimation.data import (
    Record,
    dataset_spec,
    read_records,
    record_game,
    record_players,
    split_by_player,
)
from sparring.games.chess import Chess
from sparring.games.go import Go
from sparring.nn.strength_net import StrengthNet
from sparring.nn.symmetry import symmetric_log_policy

SPLIT_SEED = 1
"""The data seed of ``configs/se-go.toml`` and ``configs/se-chess.toml`` (the shipped
estimators' split)."""
VAL_FRACTION = 0.15
"""The held-out share of focus players of those configs."""
PART_SEED = 2
"""Seed of the split of the held-out games into a ``tune`` and a ``test`` part."""
PARTS = ("all", "tune", "test")
"""Which held-out games positions come from: all of them, or one of two player-disjoint
halves (``tune`` to choose a setting on, ``test`` to report it on)."""


@dataclass
class HeldOutPositions:
    """Positions (the state before a human move) with the move played and the rank group.

    ``states[i]`` is a game state (for programs that search), ``planes[i]`` its network input,
    ``legal[i]`` its legal-move mask; ``source[i]`` names the record and move number.
    """

    game: str
    ranks: tuple[str, ...]
    states: list[Any]
    planes: npt.NDArray[np.float32]
    actions: npt.NDArray[np.int64]
    rank: npt.NDArray[np.int64]
    legal: npt.NDArray[np.bool_]
    move_number: npt.NDArray[np.int64]
    source: list[str]

    def __len__(self) -> int:
        return int(self.actions.size)

    def game_rules(self) -> Go | Chess:
        """The game these positions are states of."""
        return Go(19) if self.game == "go" else Chess()


def _held_out_games(
    game: str, data_root: Path | None, val_fraction: float, split_seed: int, part: str = "all"
) -> tuple[tuple[str, ...], list[list[Record]]]:
    """Per rank, the validation games of the training folder's player split.

    ``part`` ``tune`` / ``test``: the held-out games split again by focus player
    (:func:`split_by_player`, half of each rank's focus players, seed :data:`PART_SEED`),
    ``test`` the held half, ``tune`` the rest, so that a setting chosen on ``tune`` is
    reported on players it was not chosen on.
    """
    if part not in PARTS:
        raise SparringError(f"unknown part {part!r}: expected one of {', '.join(PARTS)}")
    spec = dataset_spec(game, data_root)
    records = [read_records(spec.file("train", r), game) for r in range(len(spec.ranks))]
    split = split_by_player(
        [[record_players(rec) for rec in recs] for recs in records], val_fraction, split_seed
    )
    held = [[records[r][int(g)] for g in split.val[r]] for r in range(len(spec.ranks))]
    if part != "all":
        halves = split_by_player([[record_players(rec) for rec in h] for h in held], 0.5, PART_SEED)
        tested = [set(v.tolist()) for v in halves.val]
        held = [
            [rec for g, rec in enumerate(h) if (g in tested[r]) == (part == "test")]
            for r, h in enumerate(held)
        ]
    return spec.ranks, held


def held_out_positions(
    game: str,
    positions: int,
    seed: int = 0,
    data_root: Path | None = None,
    val_fraction: float = VAL_FRACTION,
    split_seed: int = SPLIT_SEED,
    part: str = "all",
) -> HeldOutPositions:
    """About ``positions`` positions, an equal share per rank, each drawn uniformly (seeded,
    without replacement) among all moves of that rank's held-out games (``part``: all of
    them, or the ``tune`` or ``test`` half, see :func:`_held_out_games`).

    ``val_fraction`` and ``split_seed`` must be those of the training run (the shipped
    estimators: 0.15 and 1); otherwise the positions may come from trained-on games.
    """
    if positions < 1:
        raise SparringError("positions must be >= 1")
    ranks, held = _held_out_games(game, data_root, val_fraction, split_seed, part)
    per_rank = math.ceil(positions / len(ranks))
    rules: Go | Chess | None = None
    states: list[Any] = []
    planes: list[npt.NDArray[np.float32]] = []
    actions: list[int] = []
    rank_of: list[int] = []
    move_number: list[int] = []
    source: list[str] = []
    for r, games in enumerate(held):
        lengths = np.array([rec.moves.size for rec in games], dtype=np.int64)
        if lengths.sum() == 0:
            raise SparringError(f"{game}: no held-out moves for rank {ranks[r]}")
        rng = np.random.default_rng([seed, r, 31337])
        take = min(per_rank, int(lengths.sum()))
        flat = np.sort(rng.choice(int(lengths.sum()), take, replace=False))
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        which = np.searchsorted(starts, flat, side="right") - 1
        chosen: dict[int, list[int]] = defaultdict(list)
        for g, f in zip(which.tolist(), flat.tolist(), strict=True):
            chosen[g].append(f - int(starts[g]))
        for g, at_list in chosen.items():
            rec = games[g]
            rules = rules or record_game(rec)
            at = np.array(at_list, dtype=np.int64)
            moves = np.asarray(rec.moves, dtype=np.int64)
            initial = rec.initial_state(rules)  # type: ignore[arg-type]
            last = int(at[-1]) + 1
            planes.append(rules.replay_planes(moves[:last], initial)[at])
            all_states = rules.replay_states(moves[:last], initial)
            for i in at.tolist():
                states.append(np.array(all_states[i], copy=True))
                actions.append(int(moves[i]))
                rank_of.append(r)
                move_number.append(i)
                source.append(f"{rec.path}:{rec.line}:{i + 1}")
    assert rules is not None
    legal = np.stack([rules.legal_mask(s) for s in states])
    return HeldOutPositions(
        game=game,
        ranks=ranks,
        states=states,
        planes=np.concatenate(planes).astype(np.float32),
        actions=np.array(actions, dtype=np.int64),
        rank=np.array(rank_of, dtype=np.int64),
        legal=legal,
        move_number=np.array(move_number, dtype=np.int64),
        source=source,
    )


@torch.no_grad()
def policy_logits(
    model: StrengthNet,
    planes: npt.NDArray[np.float32],
    batch: int = 512,
    ranks: npt.NDArray[np.int64] | None = None,
) -> npt.NDArray[np.float32]:
    """The policy head's logits for ``planes`` (evaluation mode, batches of ``batch``).

    A play network (``kind == "play"``) reads the rank as an input: ``ranks`` gives the
    network's rank index of every row (:func:`network_ranks`), and its policy for a player of
    that rank is returned, the raw policy its players search from.  Other kinds ignore it.
    """
    model.eval()
    play = model.config.kind == "play"
    if play and (ranks is None or ranks.shape != (planes.shape[0],)):
        raise SparringError("a play network's policy needs the rank of every position")
    out = []
    for i in range(0, planes.shape[0], batch):
        x = torch.from_numpy(planes[i : i + batch])
        if play:
            assert ranks is not None
            logits, _ = model.play(x, torch.from_numpy(ranks[i : i + batch]))
        else:
            _, logits, _ = model.trunk(x)
        out.append(logits.numpy())
    return np.concatenate(out).astype(np.float32)


def network_ranks(model: StrengthNet, pos: HeldOutPositions) -> npt.NDArray[np.int64] | None:
    """For a play network: the network's rank index of every position of ``pos`` (matched by
    label, so a network whose ranks are in another order reads the right plane); None for
    other kinds.  :class:`~sparring.errors.IncompatibleError` names a rank group the network
    does not have."""
    if model.config.kind != "play":
        return None
    labels = list(model.config.ranks)
    missing = [r for r in pos.ranks if r not in labels]
    if missing:
        raise IncompatibleError(
            f"the play network has no rank {', '.join(missing)} (ranks: {', '.join(labels)})"
        )
    index = np.array([labels.index(r) for r in pos.ranks], dtype=np.int64)
    return index[pos.rank]


def position_logits(
    model: StrengthNet, pos: HeldOutPositions, symmetric: bool = False
) -> npt.NDArray[np.float32]:
    """:func:`policy_logits` in every position of ``pos`` (a play network's at each position's
    rank group, :func:`network_ranks`); with ``symmetric``, the mean log-policy over the
    rules' symmetric images of each position instead
    (:func:`~sparring.nn.symmetry.symmetric_log_policy`: Go's 8, chess's reflection
    where no side may castle)."""
    ranks = network_ranks(model, pos)
    if not symmetric:
        return policy_logits(model, pos.planes, ranks=ranks)
    return symmetric_log_policy(
        model.config.game,
        pos.planes,
        lambda planes, rows: policy_logits(
            model, planes, ranks=None if ranks is None else ranks[rows]
        ),
    )


@torch.no_grad()
def legal_move_scores(
    model: StrengthNet, pos: HeldOutPositions, limit: int | None = None
) -> list[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]]:
    """For each of the first ``limit`` positions (all by default): the strength score
    ``beta(s, a)`` (first score output) and the policy's log-probability of every legal move
    ``a``, in the order of the legal actions (one trunk pass per position batch)."""
    model.eval()
    n = len(pos) if limit is None else min(limit, len(pos))
    features, logits, _ = model.trunk(torch.from_numpy(pos.planes[:n]))
    out = []
    for i in range(n):
        legal = np.flatnonzero(pos.legal[i])
        k = legal.size
        beta = model.strength(
            features[i : i + 1].expand(k, -1, -1, -1),
            logits[i : i + 1].expand(k, -1),
            torch.from_numpy(legal),
        )[:, 0]
        logp = torch.log_softmax(logits[i, legal], dim=0)
        out.append((beta.numpy().astype(np.float32), logp.numpy().astype(np.float32)))
    return out


def policy_moves(
    logits: npt.NDArray[np.float32], legal: npt.NDArray[np.bool_] | None, k: int = 1
) -> npt.NDArray[np.int64]:
    """The ``k`` moves of highest logit per row (best first); with ``legal``, only legal
    moves are considered (ties go to the lowest action index)."""
    x = logits if legal is None else np.where(legal, logits, -np.inf)
    order = np.argsort(-x, axis=1, kind="stable")[:, :k]
    return order.astype(np.int64)


def wilson_interval(hits: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% for ``z = 1.96``); ``hits``
    may be fractional (a game score counting draws as half a win)."""
    if n <= 0:
        return (float("nan"), float("nan"))
    p = hits / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class PolicyMatch:
    """Move match of one policy head on a set of positions (shares in [0, 1])."""

    top1: float
    """Argmax of the logits (no legal-move mask) equals the human move."""
    top5: float
    top1_legal: float
    """The same with illegal moves masked out before the argmax."""
    top5_legal: float
    illegal_top1: float
    """Share of positions whose (unmasked) argmax is an illegal move."""
    illegal_mass: float
    """Mean probability the policy puts on illegal moves."""
    per_rank_top1: tuple[float, ...]
    per_rank_top1_legal: tuple[float, ...]
    positions: int


def _per_rank(hits: npt.NDArray[np.bool_], pos: HeldOutPositions) -> tuple[float, ...]:
    return tuple(
        float(hits[pos.rank == r].mean()) if np.any(pos.rank == r) else float("nan")
        for r in range(len(pos.ranks))
    )


def policy_match(model: StrengthNet, pos: HeldOutPositions, symmetric: bool = False) -> PolicyMatch:
    """Top-1 / top-5 agreement of ``model``'s policy head with the human moves of ``pos``,
    without and with a legal-move mask (a play network's policy at each position's rank;
    ``symmetric``: averaged over the rules' symmetries, :func:`position_logits`)."""
    logits = position_logits(model, pos, symmetric)
    raw = policy_moves(logits, None, k=5)
    masked = policy_moves(logits, pos.legal, k=5)
    hit1, hit1_legal = raw[:, 0] == pos.actions, masked[:, 0] == pos.actions
    z = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    return PolicyMatch(
        top1=float(hit1.mean()),
        top5=float((raw == pos.actions[:, None]).any(axis=1).mean()),
        top1_legal=float(hit1_legal.mean()),
        top5_legal=float((masked == pos.actions[:, None]).any(axis=1).mean()),
        illegal_top1=float((~pos.legal[np.arange(len(pos)), raw[:, 0]]).mean()),
        illegal_mass=float((p * ~pos.legal).sum(axis=1).mean()),
        per_rank_top1=_per_rank(hit1, pos),
        per_rank_top1_legal=_per_rank(hit1_legal, pos),
        positions=len(pos),
    )


__all__ = [
    "SPLIT_SEED",
    "VAL_FRACTION",
    "HeldOutPositions",
    "PolicyMatch",
    "held_out_positions",
    "legal_move_scores",
    "network_ranks",
    "policy_logits",
    "policy_match",
    "policy_moves",
    "position_logits",
    "wilson_interval",
]
