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
* **per game, a distribution** -- the statistics' means (:func:`features`) go through a
  multinomial logistic regression (:mod:`sparring.estimation.classify`) fitted on single
  games, one sample a game, which gives each game its own distribution over the ranks;
* **over N games** -- the games' log-probabilities are summed and tempered
  (:class:`Combination`): the logits of N games are ``tau * s(N) * mean_g log p_g(r)`` with
  ``s(N) = N / (1 + N / n0)``.  With ``n0`` infinite the evidence adds up as for independent
  games; a finite ``n0`` lets it saturate (games of one player share that player's level).
  ``tau`` and ``n0`` are fitted on out-of-fold log-probabilities, and the feature set and the
  penalty are chosen by cross-validation over players (:func:`tune`), so two numbers only
  are fitted on draws of N games, which reuse the same few games.

Features are cached per game, in a file named by the game's content hash
(:func:`~sparring.estimation.upload.game_key`) under a folder whose name hashes the networks
and the move sampling (:class:`FeatureCache`), so an interrupted extraction resumes with the
games it has not done.  ``moves_per_game`` scores a seeded sample of each game's moves (all
when 0), so that a CPU can do a slice of the held-out games.
"""

from __future__ import annotations

import hashlib
import itertools
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
from scipy.optimize import minimize

from sparring.errors import IncompatibleError, SparringError
from sparring.estimation.classify import SoftmaxModel, fit_softmax, mean_log_loss
from sparring.estimation.data import Record, record_game
from sparring.estimation.predict import draw_orders, player_hash
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

FEATURE_SETS = ("base", "phases")
"""``base``: per rank the mean log-likelihood relative to the marginal, the mean marginal,
the mean SE score and the mean log game length; ``phases``: those and the relative
log-likelihood per phase of the game (centred over the ranks; 0 where no move was scored in
the phase)."""

TRAIN_N = (1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100)
"""Numbers of games the classifier's training draws hold."""
EVAL_N = (1, 5, 10, 15, 20, 50, 100)
"""Numbers of games the choice of settings is judged at (and the reports' columns)."""


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


def feature_names(ranks: Sequence[str], feature_set: str) -> list[str]:
    """The names of :func:`features`' columns."""
    names = [f"rel {r}" for r in ranks] + ["marginal", "se", "log plies"]
    if feature_set == "phases":
        names += [f"phase{p} rel {r}" for p in range(PHASES) for r in ranks]
    return names


def features(stats: npt.ArrayLike, n_ranks: int, feature_set: str = "base") -> FloatArray:
    """Means ``[..., D]`` from summed statistics ``[..., S]`` (:class:`StatLayout`) of one or
    more games (:func:`feature_names`)."""
    if feature_set not in FEATURE_SETS:
        raise ValueError(f"feature set must be one of {FEATURE_SETS}, not {feature_set!r}")
    s = np.asarray(stats, dtype=np.float64)
    lay = StatLayout(n_ranks)
    if s.shape[-1] != lay.size:
        raise ValueError(f"statistics have {s.shape[-1]} columns, not {lay.size}")
    moves = np.maximum(s[..., lay.moves : lay.moves + 1], 1.0)
    games = np.maximum(s[..., lay.games : lay.games + 1], 1.0)
    parts = [
        s[..., lay.rel] / moves,
        s[..., lay.marginal : lay.marginal + 1] / moves,
        s[..., lay.se : lay.se + 1] / moves,
        s[..., lay.log_plies : lay.log_plies + 1] / games,
    ]
    if feature_set == "phases":
        for p in range(PHASES):
            k = s[..., lay.phase_moves(p) : lay.phase_moves(p) + 1]
            mean = s[..., lay.phase_rel(p)] / np.maximum(k, 1.0)
            parts.append(np.where(k > 0, mean - mean.mean(axis=-1, keepdims=True), 0.0))
    return np.concatenate(parts, axis=-1)


def n_scale(n_games: npt.ArrayLike, n0: float) -> FloatArray:
    """``s(N) = N / (1 + N / n0)`` (``N`` itself when ``n0`` is infinite): how many games'
    worth of evidence N games of one player carry when games share the player's level."""
    n = np.asarray(n_games, dtype=np.float64)
    if math.isinf(n0):
        return n
    result: FloatArray = n / (1.0 + n / n0)
    return result


@dataclass(frozen=True)
class Settings:
    """The classifier settings :func:`tune` chooses among."""

    feature_set: str = "base"
    l2: float = 1e-2
    """L2 penalty of the per-game logistic regression (on standardised features)."""

    def describe(self) -> str:
        return f"features={self.feature_set}, l2={self.l2:g}"


@dataclass(frozen=True)
class Combination:
    """How per-game log-probabilities combine over N games: the logits of N games are
    ``tau * s(N) * mean_g log p_g(r)`` (:func:`n_scale`), a tempered product of the games'
    distributions."""

    tau: float = 1.0
    n0: float = math.inf

    def logits(self, sum_logp: npt.ArrayLike, n_games: npt.ArrayLike) -> FloatArray:
        """Logits ``[..., R]`` of N games whose log-probabilities sum to ``sum_logp``."""
        n = np.maximum(np.asarray(n_games, dtype=np.float64), 1.0)[..., None]
        scale = self.tau * n_scale(n, self.n0) / n
        result: FloatArray = scale * np.asarray(sum_logp, dtype=np.float64)
        return result

    def describe(self) -> str:
        n0 = "inf" if math.isinf(self.n0) else f"{self.n0:.3g}"
        return f"tau={self.tau:.3g}, n0={n0}"


def _softmax(logits: FloatArray) -> FloatArray:
    z = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(z)
    result: FloatArray = e / e.sum(axis=-1, keepdims=True)
    return result


N0_MAX = 1e4
"""The largest ``n0`` :func:`fit_combination` tries; at it the scale is ``N`` to within 1%
up to N = 100, and it is stored as infinite."""


def fit_combination(
    game_logp: FloatArray, unit_rank: IntArray, draws: int, seed: int
) -> Combination:
    """The :class:`Combination` with the lowest mean log-loss over draws of N games
    (:data:`TRAIN_N`, :func:`draw_sets`) of games whose own log-probabilities are
    ``game_logp [G, R]`` (out-of-fold: from a classifier that did not see the game's player)."""
    n_ranks = game_logp.shape[1]
    units = np.concatenate([game_logp, np.ones((game_logp.shape[0], 1))], axis=1)
    x, y = draw_sets(units, unit_rank, n_ranks, TRAIN_N, draws, seed)
    sums, n = x[:, :n_ranks], x[:, n_ranks]
    rows = np.arange(y.size)

    def loss(theta: FloatArray) -> float:
        comb = Combination(float(np.exp(theta[0])), float(np.exp(theta[1])))
        z = comb.logits(sums, n)
        top = z.max(axis=1)
        lse = top + np.log(np.exp(z - top[:, None]).sum(axis=1))
        return float((lse - z[rows, y]).mean())

    bounds = [(math.log(1e-3), math.log(1e2)), (math.log(0.1), math.log(N0_MAX))]
    best: tuple[float, FloatArray] | None = None
    for start in ((0.0, math.log(3.0)), (0.0, math.log(100.0))):
        found = minimize(loss, np.array(start), method="L-BFGS-B", bounds=bounds)
        if best is None or float(found.fun) < best[0]:
            best = (float(found.fun), found.x)
    assert best is not None
    tau, n0 = float(np.exp(best[1][0])), float(np.exp(best[1][1]))
    return Combination(tau, math.inf if n0 >= 0.99 * N0_MAX else n0)


def draw_sets(
    stats: FloatArray,
    unit_rank: IntArray,
    n_ranks: int,
    ns: Sequence[int],
    draws: int,
    seed: int,
) -> tuple[FloatArray, IntArray]:
    """Summed per-unit vectors ``stats [U, D]`` of random sets of N units of one rank, for
    every rank with units and every N in ``ns`` (``draws`` sets each; the draws of
    :func:`~sparring.estimation.predict.accuracy_curves`: nested prefixes of one random order
    per draw, with replacement when the rank has fewer units than the largest N).  Returns
    ``(sums [M, D], rank [M])``, ordered by rank, draw, then N."""
    largest = max(ns)
    at = np.asarray(ns, dtype=np.int64) - 1
    xs, ys = [], []
    for r in range(n_ranks):
        pool = np.flatnonzero(unit_rank == r)
        if pool.size == 0:
            continue
        order = draw_orders(pool.size, r, largest, draws, seed)
        cum = np.cumsum(stats[pool[order]], axis=1)[:, at]  # [draws, len(ns), D]
        xs.append(cum.reshape(-1, stats.shape[1]))
        ys.append(np.full(cum.shape[0] * cum.shape[1], r, dtype=np.int64))
    return np.concatenate(xs), np.concatenate(ys)


@dataclass(frozen=True)
class MultiSkillModel:
    """A fitted multi-skill estimator: a per-game classifier over one game's ranks and the
    rule combining games (:class:`Combination`)."""

    game: str
    ranks: tuple[str, ...]
    settings: Settings
    classifier: SoftmaxModel
    combination: Combination = Combination()
    moves_per_game: int = 0
    """Moves per game scored in the games it was fitted on (0: all)."""

    def game_log_probabilities(self, stats: npt.ArrayLike) -> FloatArray:
        """``[..., R]``: each game's own distribution (log) from its statistics
        (:func:`game_statistics`, ``[..., S]``)."""
        f = features(stats, len(self.ranks), self.settings.feature_set)
        return self.classifier.log_probabilities(f)

    def unit_features(self, stats: npt.ArrayLike) -> FloatArray:
        """``[G, R + 1]``: a game's log-probabilities and a 1, the vectors whose sums over N
        games :meth:`decide` reads (the accuracy engine's unit features)."""
        logp = self.game_log_probabilities(stats)
        return np.concatenate([logp, np.ones((*logp.shape[:-1], 1))], axis=-1)

    def combined(self, sums: npt.ArrayLike) -> FloatArray:
        """The distribution ``[..., R]`` of N games from summed :meth:`unit_features`."""
        s = np.asarray(sums, dtype=np.float64)
        r = len(self.ranks)
        return _softmax(self.combination.logits(s[..., :r], s[..., r]))

    def decide(self, sums: npt.ArrayLike) -> IntArray:
        """The most probable rank index of summed :meth:`unit_features`."""
        result: IntArray = self.combined(sums).argmax(axis=-1)
        return result

    def probabilities(self, game_stats: npt.ArrayLike) -> FloatArray:
        """The distribution over ranks ``[R]`` of a player's games given their statistics
        ``[G, S]`` (one row a game)."""
        units = self.unit_features(np.atleast_2d(np.asarray(game_stats, dtype=np.float64)))
        return self.combined(units.sum(axis=0))

    def to_json(self) -> str:
        n0 = None if math.isinf(self.combination.n0) else self.combination.n0
        return json.dumps(
            {
                "format": "sparring-multiskill",
                "version": 1,
                "game": self.game,
                "ranks": list(self.ranks),
                "settings": {"feature_set": self.settings.feature_set, "l2": self.settings.l2},
                "combination": {"tau": self.combination.tau, "n0": n0},
                "moves_per_game": self.moves_per_game,
                "classifier": self.classifier.to_dict(),
            }
        )

    @classmethod
    def from_json(cls, text: str) -> MultiSkillModel:
        data = json.loads(text)
        if data.get("format") != "sparring-multiskill":
            raise SparringError("not a multi-skill estimator file")
        s, c = data["settings"], data["combination"]
        return cls(
            data["game"],
            tuple(data["ranks"]),
            Settings(s["feature_set"], float(s["l2"])),
            SoftmaxModel.from_dict(data["classifier"]),
            Combination(float(c["tau"]), math.inf if c["n0"] is None else float(c["n0"])),
            int(data.get("moves_per_game", 0)),
        )


# ---- choosing the settings by cross-validation over players ---------------------------------
DEFAULT_GRID: tuple[Settings, ...] = tuple(
    Settings(f, l2) for f, l2 in itertools.product(FEATURE_SETS, (1e-3, 1e-2, 1e-1, 1.0))
)


def player_folds(unit_focus: Sequence[str], unit_rank: IntArray, folds: int) -> IntArray:
    """A fold per unit such that a focus player's units share a fold: each focus player's
    home rank (where they have the most units; ties the stronger) lists its players ordered by
    :func:`~sparring.estimation.predict.player_hash`, and they take folds 0, 1, ... in turn,
    so every rank's players are spread over the folds."""
    per: dict[str, dict[int, int]] = {}
    for name, r in zip(unit_focus, np.asarray(unit_rank).tolist(), strict=True):
        per.setdefault(name, {})
        per[name][r] = per[name].get(r, 0) + 1
    home: dict[int, list[str]] = {}
    for name, counts in per.items():
        home.setdefault(min(counts, key=lambda k: (-counts[k], k)), []).append(name)
    fold_of: dict[str, int] = {}
    for names in home.values():
        for i, name in enumerate(sorted(names, key=lambda n: (player_hash(n), n))):
            fold_of[name] = i % folds
    return np.array([fold_of[n] for n in unit_focus], dtype=np.int64)


def out_of_fold(
    stats: FloatArray, unit_rank: IntArray, fold: IntArray, n_ranks: int, settings: Settings
) -> FloatArray:
    """``[G, R]``: each game's log-probabilities from a per-game classifier fitted on the
    other folds' games."""
    out = np.zeros((stats.shape[0], n_ranks))
    x = features(stats, n_ranks, settings.feature_set)
    for f in np.unique(fold).tolist():
        held = fold == f
        clf = fit_softmax(x[~held], unit_rank[~held], n_ranks, settings.l2)
        out[held] = clf.log_probabilities(x[held])
    return out


@dataclass(frozen=True)
class TuneResult:
    """Cross-validated scores of every setting tried, and the best (lowest log-loss)."""

    best: Settings
    combination: Combination
    """The best setting's combination rule, fitted on its out-of-fold log-probabilities."""
    rows: list[tuple[Settings, Combination, float, float]]
    """``(settings, combination, mean log-loss, mean exact accuracy)`` over draws of each N
    of :data:`EVAL_N` from the out-of-fold log-probabilities."""
    folds: int


def tune(
    stats: FloatArray,
    unit_rank: IntArray,
    unit_focus: Sequence[str],
    n_ranks: int,
    grid: Sequence[Settings] = DEFAULT_GRID,
    folds: int = 3,
    draws: int = 128,
    seed: int = 0,
) -> TuneResult:
    """Choose the :class:`Settings` whose out-of-fold game log-probabilities (:func:`out_of_fold`,
    folds by focus player, :func:`player_folds`), combined by the :class:`Combination`
    fitted on them, have the lowest mean log-loss over draws of N games (each N of
    :data:`EVAL_N`; other draws than the combination's).  Ties go to the earlier setting."""
    fold = player_folds(unit_focus, unit_rank, folds)
    if np.unique(fold).size < 2:
        raise SparringError("cross-validation needs players in at least two folds")
    rows: list[tuple[Settings, Combination, float, float]] = []
    for settings in grid:
        logp = out_of_fold(stats, unit_rank, fold, n_ranks, settings)
        comb = fit_combination(logp, unit_rank, draws, seed + 1)
        units = np.concatenate([logp, np.ones((logp.shape[0], 1))], axis=1)
        x, y = draw_sets(units, unit_rank, n_ranks, EVAL_N, draws, seed + 2)
        p = _softmax(comb.logits(x[:, :n_ranks], x[:, n_ranks]))
        rows.append((settings, comb, mean_log_loss(p, y), float((p.argmax(axis=1) == y).mean())))
    best = min(range(len(rows)), key=lambda i: (rows[i][2], i))
    return TuneResult(rows[best][0], rows[best][1], rows, folds)


def fit_model(
    stats: FloatArray,
    unit_rank: IntArray,
    game: str,
    ranks: Sequence[str],
    settings: Settings,
    combination: Combination,
    moves_per_game: int = 0,
) -> MultiSkillModel:
    """The per-game classifier fitted on every game (one sample a game) with ``combination``."""
    x = features(stats, len(ranks), settings.feature_set)
    clf = fit_softmax(x, unit_rank, len(ranks), settings.l2)
    return MultiSkillModel(game, tuple(ranks), settings, clf, combination, moves_per_game)


__all__ = [
    "DEFAULT_GRID",
    "EVAL_N",
    "FEATURE_SETS",
    "PHASE_STARTS",
    "TRAIN_N",
    "Combination",
    "Cost",
    "FeatureCache",
    "MoveFeatures",
    "MoveScorer",
    "MultiSkillModel",
    "Settings",
    "StatLayout",
    "TuneResult",
    "draw_sets",
    "extract_features",
    "feature_names",
    "features",
    "fit_combination",
    "fit_model",
    "game_positions",
    "game_statistics",
    "load_scorer",
    "n_scale",
    "out_of_fold",
    "player_folds",
    "select_moves",
    "tune",
]
