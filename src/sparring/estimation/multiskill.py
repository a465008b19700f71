"""A multi-skill strength estimator: many per-move signals, one calibrated classifier.

The strength estimator (SE, :mod:`sparring.estimation.predict`) reduces a player's games to
one number, the mean strength score of their moves, and names the nearest rank.  This
estimator reads more of each move:

* **per move** -- the log-likelihood ``log p(a | s, r)`` of the move played under the
  rank-conditioned play network (:meth:`~sparring.nn.strength_net.StrengthNet.play`) at
  *every* rank ``r`` (one network pass per rank: positions x ranks in one batch), the
  rank-marginal ``m = log (1/R) sum_r p(a | s, r)``, the SE strength score ``beta(s, a)`` of
  a shipped strength network, and the move number;
* **per game** -- sums of those (:func:`game_statistics`): the log-likelihood relative to the
  marginal per rank (overall and per phase of the game), the marginal, the SE score, the
  number of moves scored and the game's length;
* **over N games** -- a classifier (:mod:`sparring.estimation.multiskill_model`) turns one
  game's means (:func:`features`) into a distribution over the ranks and combines the
  distributions of N games, calibrated for N.

Features are cached per game, in a file named by the game's content hash
(:func:`~sparring.estimation.upload.game_key`) under a folder whose name hashes the networks
and the move sampling (:class:`FeatureCache`), so an interrupted extraction resumes with the
games it has not done.  ``moves_per_game`` scores a seeded sample of each game's moves (all
when 0), so that a CPU can do a slice of the held-out games.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from sparring.errors import IncompatibleError
from sparring.estimation.data import Record, record_game
from sparring.estimation.upload import game_key
from sparring.nn.strength_net import StrengthNet, load_strength_model

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

CACHE_VERSION = 1
"""Bumped whenever what a cached game file holds changes."""

PHASE_STARTS: dict[str, tuple[int, int]] = {"go": (50, 150), "chess": (20, 60)}
"""Per game, the plies (0-based move numbers) at which the middle game and the endgame
start: three phases for the per-phase features."""
PHASES = 3

FEATURE_SETS = ("base", "phases", "se", "play")
"""``base``: per rank the mean log-likelihood relative to the marginal, the mean marginal,
the mean SE score and the mean log game length; ``phases``: those and the relative
log-likelihood per phase of the game (centred over the ranks; 0 where no move was scored in
the phase); ``se``: the mean SE score alone; ``play``: the play network's alone (the relative
log-likelihoods and the marginal)."""


# ---- per move ---------------------------------------------------------------------------------
@dataclass
class MoveFeatures:
    """What the networks say about the scored moves of one game."""

    loglik: npt.NDArray[np.float32]
    """``[n, R]``: ``log p(move | position, rank r)`` under the play network, ranks in the
    data's order (strongest first)."""
    se: npt.NDArray[np.float32]
    """``[n]``: the SE strength score ``beta`` of each move."""
    move_number: npt.NDArray[np.int32]
    """``[n]``: the ply (0-based) of each scored move."""
    side: npt.NDArray[np.int8]
    """``[n]``: the mover, player 0 or 1."""
    plies: int
    """Moves in the whole game."""

    @property
    def moves(self) -> int:
        return int(self.se.size)

    def marginal(self) -> FloatArray:
        """``[n]``: ``log (1/R) sum_r p(move | rank r)``."""
        ll = self.loglik.astype(np.float64)
        top = ll.max(axis=1, keepdims=True)
        result: FloatArray = (
            top[:, 0] + np.log(np.exp(ll - top).sum(axis=1)) - math.log(ll.shape[1])
        )
        return result


def select_moves(plies: int, moves_per_game: int, seed: int, key: str) -> IntArray:
    """The plies of a game that are scored: all (``moves_per_game`` 0 or at least ``plies``)
    or a sorted sample of ``moves_per_game`` without replacement, seeded by ``seed`` and the
    game's content hash ``key`` (so the same game gets the same moves in any order or set)."""
    if moves_per_game <= 0 or moves_per_game >= plies:
        return np.arange(plies, dtype=np.int64)
    rng = np.random.default_rng([seed, int(key[:15], 16)])
    return np.sort(rng.choice(plies, moves_per_game, replace=False)).astype(np.int64)


def game_positions(
    record: Record, at: IntArray
) -> tuple[npt.NDArray[np.float32], IntArray, npt.NDArray[np.int8]]:
    """Input planes, moves and movers of the plies ``at`` (sorted) of a game."""
    game = record_game(record)
    initial = record.initial_state(game)  # type: ignore[arg-type]
    moves = np.asarray(record.moves, dtype=np.int64)
    if at.size == 0:
        return np.zeros((0, game.num_planes, *game.board_shape), np.float32), at, at.astype(np.int8)
    first = game.to_move(initial)
    planes = game.replay_planes(moves[: int(at[-1]) + 1], initial)[at]
    return planes, moves[at], ((first + at) % 2).astype(np.int8)


class MoveScorer:
    """The play network's log-likelihood of moves at every rank, and the SE network's score.

    ``ranks`` are the data's rank labels (strongest first); the play network must have each
    of them (its columns are reordered to ``ranks``) and the SE network must be a strength
    estimator (kind ``se`` or ``se_inf``) for the same game."""

    def __init__(
        self,
        play: StrengthNet,
        se: StrengthNet,
        ranks: Sequence[str],
        device: str = "cpu",
        batch: int = 32,
    ) -> None:
        if play.config.kind != "play":
            raise IncompatibleError(f"a {play.config.kind} network is not a play network")
        if se.config.kind not in ("se", "se_inf"):
            raise IncompatibleError(f"a {se.config.kind} network is not a strength estimator")
        if play.config.game != se.config.game:
            raise IncompatibleError(
                f"the play network is for {play.config.game}, the SE network for {se.config.game}"
            )
        missing = [r for r in ranks if r not in play.config.ranks]
        if missing:
            raise IncompatibleError(f"the play network has no rank {', '.join(missing)}")
        self.ranks = tuple(ranks)
        self.columns = torch.tensor([play.config.ranks.index(r) for r in ranks])
        self.device = torch.device(device)
        self.play = play.to(self.device).eval()
        self.se = se.to(self.device).eval()
        self.batch = int(batch)
        if self.batch < 1:
            raise ValueError("batch must be >= 1")

    @torch.inference_mode()
    def score(
        self, planes: npt.NDArray[np.float32], actions: IntArray
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """``(loglik [n, R], se [n])`` of the moves ``actions`` in the positions ``planes``."""
        n, r = int(actions.size), len(self.ranks)
        loglik = np.zeros((n, r), dtype=np.float32)
        beta = np.zeros(n, dtype=np.float32)
        for start in range(0, n, self.batch):
            x = torch.from_numpy(np.ascontiguousarray(planes[start : start + self.batch]))
            x = x.to(self.device, dtype=torch.float32)
            a = torch.from_numpy(np.asarray(actions[start : start + self.batch], np.int64))
            a = a.to(self.device)
            b = x.shape[0]
            rows = self.columns.to(self.device).repeat(b)  # position-major: b x R
            logits, _ = self.play.play(x.repeat_interleave(r, dim=0), rows)
            logp = torch.log_softmax(logits.float(), dim=1)
            picked = logp.gather(1, a.repeat_interleave(r)[:, None]).view(b, r)
            loglik[start : start + b] = picked.cpu().numpy()
            _, _, scores = self.se(x, a)
            beta[start : start + b] = scores[:, 0].float().cpu().numpy()
        return loglik, beta


def load_scorer(
    play_model: Path, se_model: Path, ranks: Sequence[str], device: str = "cpu", batch: int = 32
) -> MoveScorer:
    """A :class:`MoveScorer` of two network files."""
    play, _ = load_strength_model(play_model)
    se, _ = load_strength_model(se_model)
    return MoveScorer(play, se, ranks, device, batch)


# ---- the cache --------------------------------------------------------------------------------
def file_digest(path: Path) -> str:
    """sha256 of a file's bytes (hex)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class Cost:
    """Positions scored and the time they took (the scoring itself, not the replay of the
    games), summed over a cache's log."""

    positions: int
    seconds: float
    """Wall-clock seconds (on a shared CPU, longer than the process's own time)."""
    cpu_positions: int
    """Positions of the log rows that also hold the process's CPU time."""
    cpu_seconds: float
    """The process's CPU seconds over those rows."""

    @property
    def cpu_per_position(self) -> float:
        return self.cpu_seconds / self.cpu_positions if self.cpu_positions else math.nan


@dataclass
class FeatureCache:
    """Per-game feature files under ``root/GAME-KEY/``, ``KEY`` a hash of the two networks'
    bytes, the rank order, ``moves_per_game`` and ``seed``; ``cost.jsonl`` there logs each
    batch's positions and seconds."""

    root: Path
    game: str
    ranks: tuple[str, ...]
    play_model: Path
    se_model: Path
    moves_per_game: int
    seed: int
    folder: Path = field(init=False)

    def __post_init__(self) -> None:
        blob = json.dumps(
            {
                "v": CACHE_VERSION,
                "game": self.game,
                "ranks": list(self.ranks),
                "play": file_digest(self.play_model),
                "se": file_digest(self.se_model),
                "moves_per_game": self.moves_per_game,
                "seed": self.seed,
            },
            sort_keys=True,
        )
        key = hashlib.sha256(blob.encode()).hexdigest()[:12]
        self.folder = Path(self.root) / f"{self.game}-{key}"

    def path(self, key: str) -> Path:
        return self.folder / f"{key[:32]}.npz"

    def load(self, key: str) -> MoveFeatures | None:
        path = self.path(key)
        if not path.is_file():
            return None
        with np.load(path) as z:
            return MoveFeatures(z["loglik"], z["se"], z["move_number"], z["side"], int(z["plies"]))

    def save(self, key: str, features: MoveFeatures) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.path(key)
        tmp = path.with_name(path.stem + ".tmp.npz")
        np.savez(
            tmp,
            loglik=features.loglik,
            se=features.se,
            move_number=features.move_number,
            side=features.side,
            plies=np.array(features.plies),
        )
        os.replace(tmp, path)

    def log_cost(self, positions: int, seconds: float, info: dict[str, Any]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / "cost.jsonl", "a") as fh:
            fh.write(json.dumps({"positions": positions, "seconds": seconds, **info}) + "\n")

    def cost(self) -> Cost:
        """What ``cost.jsonl`` logged, summed."""
        path = self.folder / "cost.jsonl"
        rows = []
        if path.is_file():
            rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        timed = [r for r in rows if "cpu_seconds" in r]
        return Cost(
            sum(int(r["positions"]) for r in rows),
            sum(float(r["seconds"]) for r in rows),
            sum(int(r["positions"]) for r in timed),
            sum(float(r["cpu_seconds"]) for r in timed),
        )


def extract_features(
    records: Sequence[Record],
    scorer: MoveScorer,
    cache: FeatureCache,
    advance: Callable[[int], None] | None = None,
    flush_positions: int = 256,
) -> list[MoveFeatures]:
    """The :class:`MoveFeatures` of every record, from the cache where it has them; the others
    are scored in batches that span games (``flush_positions`` positions at a time) and saved
    game by game.  ``advance(k)`` is called with the number of games finished."""
    keys = [game_key(rec) for rec in records]
    out: list[MoveFeatures | None] = [cache.load(k) for k in keys]
    if advance is not None and any(f is not None for f in out):
        advance(sum(f is not None for f in out))
    pending: list[tuple[int, IntArray, npt.NDArray[np.float32], IntArray, npt.NDArray[np.int8]]]
    pending = []

    def flush() -> None:
        if not pending:
            return
        started, cpu = time.perf_counter(), time.process_time()
        planes = np.concatenate([p[2] for p in pending])
        actions = np.concatenate([p[3] for p in pending])
        loglik, beta = scorer.score(planes, actions)
        cache.log_cost(
            int(actions.size),
            time.perf_counter() - started,
            {
                "cpu_seconds": time.process_time() - cpu,
                "device": str(scorer.device),
                "threads": torch.get_num_threads(),
            },
        )
        start = 0
        for i, at, _, _, sides in pending:
            stop = start + at.size
            feats = MoveFeatures(
                loglik[start:stop],
                beta[start:stop],
                at.astype(np.int32),
                sides,
                int(records[i].moves.size),
            )
            cache.save(keys[i], feats)
            out[i] = feats
            start = stop
        if advance is not None:
            advance(len(pending))
        pending.clear()

    for i, rec in enumerate(records):
        if out[i] is not None:
            continue
        at = select_moves(int(rec.moves.size), cache.moves_per_game, cache.seed, keys[i])
        planes, actions, sides = game_positions(rec, at)
        pending.append((i, at, planes, actions, sides))
        if sum(p[1].size for p in pending) >= flush_positions:
            flush()
    flush()
    return [f for f in out if f is not None]


# ---- per game and over N games ---------------------------------------------------------------
@dataclass(frozen=True)
class StatLayout:
    """Columns of a game's statistics vector (:func:`game_statistics`) for ``ranks`` ranks."""

    ranks: int

    @property
    def rel(self) -> slice:
        """Sum over moves of ``loglik_r - marginal``, per rank."""
        return slice(0, self.ranks)

    @property
    def marginal(self) -> int:
        return self.ranks

    @property
    def se(self) -> int:
        return self.ranks + 1

    @property
    def moves(self) -> int:
        return self.ranks + 2

    def phase_rel(self, p: int) -> slice:
        """Sum of ``loglik_r - marginal`` over the moves of phase ``p``, per rank."""
        start = self.ranks + 3 + p * self.ranks
        return slice(start, start + self.ranks)

    def phase_moves(self, p: int) -> int:
        return self.ranks + 3 + PHASES * self.ranks + p

    @property
    def log_plies(self) -> int:
        return self.ranks + 3 + PHASES * self.ranks + PHASES

    @property
    def games(self) -> int:
        return self.log_plies + 1

    @property
    def size(self) -> int:
        return self.games + 1


def game_statistics(features: MoveFeatures, game: str) -> FloatArray:
    """A game's statistics (:class:`StatLayout`): sums over its scored moves, so that the
    statistics of N games are the sums of theirs."""
    n_ranks = int(features.loglik.shape[1])
    lay = StatLayout(n_ranks)
    out = np.zeros(lay.size)
    ll = features.loglik.astype(np.float64)
    marginal = features.marginal()
    rel = ll - marginal[:, None]
    out[lay.rel] = rel.sum(axis=0)
    out[lay.marginal] = marginal.sum()
    out[lay.se] = float(features.se.astype(np.float64).sum())
    out[lay.moves] = features.moves
    starts = PHASE_STARTS[game]
    phase = np.searchsorted(np.asarray(starts), features.move_number, side="right")
    for p in range(PHASES):
        mine = phase == p
        out[lay.phase_rel(p)] = rel[mine].sum(axis=0)
        out[lay.phase_moves(p)] = int(mine.sum())
    out[lay.log_plies] = math.log(max(features.plies, 1))
    out[lay.games] = 1.0
    return out


def features(stats: npt.ArrayLike, n_ranks: int, feature_set: str = "base") -> FloatArray:
    """Means ``[..., D]`` from summed statistics ``[..., S]`` (:class:`StatLayout`) of one or
    more games."""
    if feature_set not in FEATURE_SETS:
        raise ValueError(f"feature set must be one of {FEATURE_SETS}, not {feature_set!r}")
    s = np.asarray(stats, dtype=np.float64)
    lay = StatLayout(n_ranks)
    if s.shape[-1] != lay.size:
        raise ValueError(f"statistics have {s.shape[-1]} columns, not {lay.size}")
    moves = np.maximum(s[..., lay.moves : lay.moves + 1], 1.0)
    games = np.maximum(s[..., lay.games : lay.games + 1], 1.0)
    se = s[..., lay.se : lay.se + 1] / moves
    if feature_set == "se":
        return se
    parts = [s[..., lay.rel] / moves, s[..., lay.marginal : lay.marginal + 1] / moves]
    if feature_set == "play":
        return np.concatenate(parts, axis=-1)
    parts += [se, s[..., lay.log_plies : lay.log_plies + 1] / games]
    if feature_set == "phases":
        for p in range(PHASES):
            k = s[..., lay.phase_moves(p) : lay.phase_moves(p) + 1]
            mean = s[..., lay.phase_rel(p)] / np.maximum(k, 1.0)
            parts.append(np.where(k > 0, mean - mean.mean(axis=-1, keepdims=True), 0.0))
    return np.concatenate(parts, axis=-1)


__all__ = [
    "CACHE_VERSION",
    "FEATURE_SETS",
    "PHASE_STARTS",
    "Cost",
    "FeatureCache",
    "MoveFeatures",
    "MoveScorer",
    "StatLayout",
    "extract_features",
    "features",
    "file_digest",
    "game_positions",
    "game_statistics",
    "load_scorer",
    "select_moves",
]
