"""Rank prediction from games (Chen, Shih & Wu, ICLR 2025, section 4.2).

1. **Reference scores.**  The strength estimator scores every evaluated state-action pair of the
   candidate set; the reference ``beta-bar_i`` of rank ``r_i`` is the mean of all its pairs'
   scores (section 4.3: "averaging all beta from the state-action pairs in ``r_i`` from the
   candidate set"; the log of the geometric-mean composite strength of Eq. 2-3).
2. **Prediction.**  For N games of one unknown rank ``r_u`` the composite score
   ``beta-bar_u`` is the mean score over all their pairs (so a long game weighs more than a
   short one, as in Eq. 2, where every pair is a team member); ``r_u`` is the rank whose
   ``beta-bar_i`` is nearest.  ``aggregate="game"`` instead averages per-game means (every
   game weighs the same); it is offered for comparison, the paper's rule is ``"move"``.
3. **Accuracy against N** (Fig. 2, 6, 8): for each rank, N games of the held-out set are drawn
   at random ``draws`` times (500 in the paper) and predicted; a prediction is *exact* when it
   is the true rank and *within one* when it is at most one rank away (the paper's tolerance).

The accuracy engine (:func:`accuracy_curves`) is shared with the SL baselines
(:mod:`sparring.estimation.baselines`): a method turns each game into a feature vector that is
summed over the N games, and a decision rule maps the sum to a rank.  Draws for all N are
nested prefixes of one random order of the rank's games per draw, so every N is a uniform
sample without replacement (with replacement when a rank has fewer games than the largest N).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from sparring.errors import SparringError
from sparring.estimation.data import PairSet, Record, record_game, record_players
from sparring.estimation.upload import Duplicate, describe_duplicates, unique_games
from sparring.nn.estimators import load_estimator
from sparring.nn.onnx_runtime import OnnxStrengthNet

if TYPE_CHECKING:  # PyTorch, imported when a PyTorch network is given
    import torch

    from sparring.nn.strength_net import StrengthNet
from sparring.records import GoRecord

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Decide = Callable[[FloatArray], IntArray]


# ---- scoring ---------------------------------------------------------------------------------
def score_planes(
    model: StrengthNet | OnnxStrengthNet,
    planes: npt.NDArray[np.float32],
    actions: npt.NDArray[np.integer[Any]],
    device: torch.device | str = "cpu",
) -> FloatArray:
    """The network's scores ``[n, outputs]`` of pairs given as planes and moves: strength scores
    ``beta`` (SE, SE-inf) or rank log-probabilities (SL).  ``model``: an estimator's ONNX
    files (no PyTorch) or a PyTorch network (on ``device``)."""
    if isinstance(model, OnnxStrengthNet):
        _, _, scores = model.forward(planes, np.asarray(actions, dtype=np.int64))
        out = scores.astype(np.float64)
        if model.config.kind == "sl":
            out -= out.max(axis=1, keepdims=True)
            out -= np.log(np.exp(out).sum(axis=1, keepdims=True))
        return out
    # torch: a PyTorch network (training, se-eval), so PyTorch is loaded already
    import torch

    with torch.no_grad():
        model.eval()
        x = torch.from_numpy(np.ascontiguousarray(planes, dtype=np.float32)).to(device)
        a = torch.from_numpy(np.asarray(actions, dtype=np.int64)).to(device)
        _, _, result = model(x, a)
        if model.config.kind == "sl":
            result = torch.log_softmax(result, dim=1)
        scored: FloatArray = result.double().cpu().numpy()
    return scored


def score_pairset(
    model: StrengthNet | OnnxStrengthNet,
    pairs: PairSet,
    batch: int = 512,
    device: torch.device | str = "cpu",
    advance: Callable[[int], None] | None = None,
) -> FloatArray:
    """:func:`score_planes` over every pair of a :class:`PairSet`, in batches."""
    if not isinstance(model, OnnxStrengthNet):
        model.to(device)
    n = len(pairs)
    out = np.zeros((n, model.config.score_outputs), dtype=np.float64)
    for start in range(0, n, batch):
        idx = np.arange(start, min(n, start + batch))
        out[idx] = score_planes(model, pairs.planes(idx), pairs.action[idx], device)
        if advance is not None:
            advance(idx.size)
    return out


# ---- units -----------------------------------------------------------------------------------
@dataclass
class Units:
    """Evaluation units (games or one player's side of a game) of a pair set."""

    of_pair: IntArray
    """Unit index of every pair."""
    rank: IntArray
    """True rank of every unit."""
    count: IntArray
    """Pairs per unit."""

    @property
    def size(self) -> int:
        return int(self.rank.size)


def make_units(pairs: PairSet, unit: str = "game") -> Units:
    """Group a pair set's pairs into ``game`` units (both players of a game; they share the
    rank group) or ``side`` units (one player's moves in one game)."""
    if unit == "side":
        key = pairs.unit.astype(np.int64)
    elif unit == "game":
        key = pairs.unit_game[pairs.unit].astype(np.int64)
    else:
        raise ValueError(f"unit must be 'game' or 'side', not {unit!r}")
    uniq, of_pair = np.unique(key, return_inverse=True)
    rank = np.zeros(uniq.size, dtype=np.int64)
    rank[of_pair] = pairs.rank
    return Units(of_pair.astype(np.int64), rank, np.bincount(of_pair, minlength=uniq.size))


def unit_sums(values: FloatArray, units: Units) -> FloatArray:
    """Per-unit sums ``[U, D]`` of per-pair values ``[n, D]``."""
    out = np.zeros((units.size, values.shape[1]), dtype=np.float64)
    np.add.at(out, units.of_pair, values)
    return out


# ---- the strength-estimator rule -------------------------------------------------------------
def reference_scores(
    betas: FloatArray, ranks: IntArray, n_ranks: int, units: Units | None = None
) -> FloatArray:
    """``beta-bar_i`` per rank: the mean over all its pairs (``units`` None, the paper's rule)
    or the mean of its units' means."""
    b = np.asarray(betas, dtype=np.float64).reshape(-1)
    if units is None:
        sums = np.bincount(ranks, weights=b, minlength=n_ranks)
        counts = np.bincount(ranks, minlength=n_ranks)
    else:
        means = unit_sums(b[:, None], units)[:, 0] / np.maximum(units.count, 1)
        sums = np.bincount(units.rank, weights=means, minlength=n_ranks)
        counts = np.bincount(units.rank, minlength=n_ranks)
    if np.any(counts == 0):
        missing = np.flatnonzero(counts == 0).tolist()
        raise SparringError(f"no reference pairs for rank index(es) {missing}")
    result: FloatArray = sums / counts
    return result


REFERENCE_FITS = ("mean", "line")
"""How references are made from the per-rank means (see :func:`fit_references`)."""


def fit_references(means: npt.ArrayLike, fit: str = "mean") -> FloatArray:
    """References from per-rank mean scores: ``mean`` returns them as they are (section 4.2);
    ``line`` replaces them by their least-squares line over the rank index ``0 .. n-1``, the
    Bradley-Terry shape for ranks of equal Elo width (``beta`` linear in Elo)."""
    m = np.asarray(means, dtype=np.float64)
    if fit == "mean":
        return m.copy()
    if fit != "line":
        raise ValueError(f"reference fit must be one of {REFERENCE_FITS}, not {fit!r}")
    x = np.arange(m.size, dtype=np.float64)
    slope, intercept = np.polyfit(x, m, 1)
    result: FloatArray = intercept + slope * x
    return result


def rank_means_with_error(
    betas: FloatArray,
    units: Units,
    n_ranks: int,
    draws: int = 1000,
    seed: int = 0,
    groups: IntArray | None = None,
) -> tuple[FloatArray, FloatArray]:
    """Per-rank mean ``beta`` over all pairs (as :func:`reference_scores` with ``units`` None)
    and its standard error from a bootstrap over the rank's units (games), or over ``groups``
    of units when given (players, :func:`unit_groups`: one player's games share that player's
    level, so resampling games alone understates the error): a reference built from ~100
    games is itself a sample, and this says how far it could move with other games of the
    same rank.  Returns ``(means, stderrs)``, each ``[n_ranks]``."""
    b = np.asarray(betas, dtype=np.float64).reshape(-1)
    sums = unit_sums(b[:, None], units)[:, 0]
    counts = units.count.astype(np.float64)
    keys = np.arange(units.size) if groups is None else np.asarray(groups)
    means = np.full(n_ranks, np.nan)
    errors = np.full(n_ranks, np.nan)
    rng = np.random.default_rng([seed, 4242])
    for r in range(n_ranks):
        pool = np.flatnonzero(units.rank == r)
        if pool.size == 0:
            continue
        means[r] = sums[pool].sum() / counts[pool].sum()
        _, member = np.unique(keys[pool], return_inverse=True)
        group_sums = np.bincount(member, weights=sums[pool])
        group_counts = np.bincount(member, weights=counts[pool])
        pick = rng.integers(0, group_sums.size, size=(draws, group_sums.size))
        errors[r] = float(np.std(group_sums[pick].sum(axis=1) / group_counts[pick].sum(axis=1)))
    return means, errors


@dataclass(frozen=True)
class RankSeparation:
    """How far apart an estimator's scores put neighbouring ranks, measured against how much a
    single game's composite score varies within a rank.

    Under the simplest model of section 4.2's rule -- references equally spaced ``spacing``
    apart and at the true rank means, games independent with Gaussian composites of standard
    deviation ``game_sd`` -- the mean of N games of an interior rank lands in its own slot with
    probability ``2 Phi(d' sqrt(N) / 2) - 1``, ``d' = spacing / game_sd``.  It ignores player
    effects, unequal spacing and reference error (which lower accuracy) and the two end ranks
    (which have one neighbour and are easier), so it reads as a yardstick: how far the network's
    separation must grow for a target accuracy at a given N (:meth:`games_for`)."""

    rank_means: FloatArray
    """Mean of the games' composite scores per rank (every game weighing the same)."""
    spacing: float
    """Absolute slope of the least-squares line through ``rank_means`` over the rank index:
    the average score gap between neighbouring ranks."""
    game_sd: float
    """Within-rank standard deviation of one game's composite score, pooled over ranks."""
    games_per_rank: list[int]

    @property
    def d_prime(self) -> float:
        """Neighbouring ranks' separation in units of one game's spread."""
        return self.spacing / self.game_sd if self.game_sd > 0 else float("inf")

    def ideal_exact(self, n_games: int) -> float:
        """Modelled exact accuracy of an interior rank with ``n_games`` games."""
        return 2.0 * NormalDist().cdf(self.d_prime * np.sqrt(n_games) / 2.0) - 1.0

    def games_for(self, accuracy: float = 0.8) -> float:
        """Modelled number of games for ``accuracy`` exact on an interior rank:
        ``(2 z / d')^2`` with ``z = Phi^-1((1 + accuracy) / 2)``."""
        if self.d_prime <= 0:
            return float("inf")
        return float((self.d_prime_for(accuracy, 1) / self.d_prime) ** 2)

    def d_prime_for(self, accuracy: float, n_games: int) -> float:
        """The separation ``d'`` the model needs for ``accuracy`` exact with ``n_games``."""
        z = NormalDist().inv_cdf((1.0 + accuracy) / 2.0)
        return float(2.0 * z / np.sqrt(n_games))


def rank_separation(betas: FloatArray, units: Units, n_ranks: int) -> RankSeparation:
    """:class:`RankSeparation` of per-pair scores ``betas`` grouped into ``units`` (games)."""
    b = np.asarray(betas, dtype=np.float64).reshape(-1)
    composite = unit_sums(b[:, None], units)[:, 0] / np.maximum(units.count, 1)
    means = np.full(n_ranks, np.nan)
    squares = 0.0
    dof = 0
    counts = np.bincount(units.rank, minlength=n_ranks)
    for r in range(n_ranks):
        c = composite[units.rank == r]
        if c.size == 0:
            continue
        means[r] = c.mean()
        squares += float(((c - means[r]) ** 2).sum())
        dof += c.size - 1
    known = np.flatnonzero(~np.isnan(means))
    if known.size < 2 or dof <= 0:
        raise SparringError("rank separation needs games of at least two ranks")
    slope = float(np.polyfit(known.astype(np.float64), means[known], 1)[0])
    return RankSeparation(means, abs(slope), float(np.sqrt(squares / dof)), counts.tolist())


def nearest_rank(composite: FloatArray | float, references: FloatArray) -> IntArray:
    """Section 4.2: the rank ``i`` minimising ``|beta-bar_u - beta-bar_i|`` (ties: the
    stronger rank)."""
    c = np.asarray(composite, dtype=np.float64)
    result: IntArray = np.abs(c[..., None] - np.asarray(references)).argmin(axis=-1)
    return result


def se_features(betas: FloatArray, units: Units, aggregate: str = "move") -> FloatArray:
    """Unit features of the strength estimator, summed over N games by the accuracy engine:
    ``[sum beta, pairs]`` (``move``, the paper) or ``[mean beta, 1]`` (``game``)."""
    b = np.asarray(betas, dtype=np.float64).reshape(-1, 1)
    sums = unit_sums(np.concatenate([b, np.ones_like(b)], axis=1), units)
    if aggregate == "game":
        return np.stack([sums[:, 0] / np.maximum(sums[:, 1], 1), np.ones(units.size)], axis=1)
    if aggregate != "move":
        raise ValueError(f"aggregate must be 'move' or 'game', not {aggregate!r}")
    return sums


def se_decide(references: FloatArray) -> Decide:
    """The strength estimator's decision on summed :func:`se_features`: the nearest reference
    to ``features[0] / features[1]``."""
    refs = np.asarray(references, dtype=np.float64)

    def decide(x: FloatArray) -> IntArray:
        return nearest_rank(x[..., 0] / np.maximum(x[..., 1], 1e-12), refs)

    return decide


# ---- accuracy against the number of games ----------------------------------------------------
@dataclass
class Curves:
    """Accuracy of one method against the number of games N = 1 .. max_games."""

    exact: FloatArray
    """``[n_ranks, max_games]``: share of draws predicting the true rank."""
    within1: FloatArray
    """``[n_ranks, max_games]``: share of draws at most one rank off."""
    units_per_rank: list[int] = field(default_factory=list)
    with_replacement: list[bool] = field(default_factory=list)

    @property
    def mean_exact(self) -> FloatArray:
        """Accuracy averaged over ranks, per N (the paper's curves)."""
        result: FloatArray = self.exact.mean(axis=0)
        return result

    @property
    def mean_within1(self) -> FloatArray:
        result: FloatArray = self.within1.mean(axis=0)
        return result

    def games_to_reach(self, level: float, within_one: bool = False) -> int | None:
        """The smallest N whose mean accuracy is at least ``level`` (None if never)."""
        curve = self.mean_within1 if within_one else self.mean_exact
        hits = np.flatnonzero(curve >= level)
        return int(hits[0]) + 1 if hits.size else None


def draw_orders(pool_size: int, rank: int, max_games: int, draws: int, seed: int) -> IntArray:
    """The draws of :func:`accuracy_curves` for one rank whose pool holds ``pool_size``
    units: ``[draws, max_games]`` indices into the pool, each row a random order of the pool
    (its first N entries are the draw of N units), or uniform picks with replacement when the
    pool is smaller than ``max_games``.  Seeded by ``(seed, rank)`` only, so every method
    scored with the same seed sees the same draws."""
    if pool_size < 1:
        raise ValueError("a rank's pool of units is empty")
    rng = np.random.default_rng([seed, rank, 31337])
    if pool_size < max_games:
        result: IntArray = rng.integers(0, pool_size, size=(draws, max_games))
        return result
    result = np.argsort(rng.random((draws, pool_size)), axis=1)[:, :max_games]
    return result


def accuracy_curves(
    features: FloatArray,
    unit_rank: IntArray,
    decide: Decide,
    n_ranks: int,
    max_games: int = 100,
    draws: int = 500,
    seed: int = 0,
) -> Curves:
    """Accuracy against N of a method given its per-unit ``features`` (see the module
    docstring): for every rank and draw a random order of that rank's units, cumulative sums
    give the features of the first N units for every N at once."""
    exact = np.zeros((n_ranks, max_games))
    within = np.zeros((n_ranks, max_games))
    sizes: list[int] = []
    repl: list[bool] = []
    for r in range(n_ranks):
        pool = np.flatnonzero(unit_rank == r)
        sizes.append(int(pool.size))
        if pool.size == 0:
            repl.append(False)
            exact[r] = within[r] = np.nan
            continue
        repl.append(bool(pool.size < max_games))
        order = draw_orders(pool.size, r, max_games, draws, seed)
        cum = np.cumsum(features[pool[order]], axis=1)  # [draws, N, D]
        pred = decide(cum)
        exact[r] = (pred == r).mean(axis=0)
        within[r] = (np.abs(pred - r) <= 1).mean(axis=0)
    return Curves(exact, within, sizes, repl)


def unit_groups(pairs: PairSet, units: Units, unit: str = "game") -> IntArray:
    """A group index for every unit of ``pairs`` (made by :func:`make_units` with the same
    ``unit``) such that units of one group share a player: a side unit's player, or for a game
    unit the one of its two players with the most games in the set (in Go's
    ``testing_by_player`` folder, the focus player whose games these are).  Cross-fitting
    (:func:`cross_fitted_curves`) keeps a group on one side of every split."""
    players, player_of_side = np.unique(pairs.unit_player, return_inverse=True)
    if unit == "side":
        side_of_unit = np.unique(pairs.unit.astype(np.int64))
        return player_of_side[side_of_unit].astype(np.int64)
    if unit != "game":
        raise ValueError(f"unit must be 'game' or 'side', not {unit!r}")
    games = np.unique(pairs.unit_game[pairs.unit].astype(np.int64))
    sides = np.unique(pairs.unit.astype(np.int64))
    unit_of_side = np.searchsorted(games, pairs.unit_game[sides].astype(np.int64))
    player = player_of_side[sides].astype(np.int64)
    games_of_player = np.bincount(player, minlength=players.size)
    # per unit, its sides ordered by the player's games (most first), then player index
    order = np.lexsort((player, -games_of_player[player], unit_of_side))
    first = order[np.r_[True, np.diff(unit_of_side[order]) != 0]]
    best = np.full(units.size, -1, dtype=np.int64)
    best[unit_of_side[first]] = player[first]
    return best


def cross_fitted_curves(
    betas: FloatArray,
    units: Units,
    groups: IntArray,
    n_ranks: int,
    fit: str = "mean",
    aggregate: str = "move",
    folds: int = 2,
    repeats: int = 10,
    max_games: int = 100,
    draws: int = 500,
    seed: int = 0,
) -> Curves | None:
    """Accuracy against N with references taken from the held-out set itself, cross-fitted:
    each rank's groups (players, :func:`unit_groups`) are split at random into ``folds``
    parts; the games of one part are predicted with references from the other parts' games,
    never their own; the curves are averaged over the parts and over ``repeats`` random
    splits (with ~15 held-out players per rank, one split's result moves by several points
    with the players it happens to pair).  Set beside the paper's candidate references it
    measures what the difference between the candidate folder and the held-out games costs.
    N stops at the smallest part's number of games of a rank (NaN beyond); None when some
    split leaves a part without a rank."""
    assignments = []
    for rep in range(repeats):
        rng = np.random.default_rng([seed, 5151, rep])
        fold_of_unit = np.zeros(units.size, dtype=np.int64)
        for r in range(n_ranks):
            members = np.flatnonzero(units.rank == r)
            uniq, inv = np.unique(groups[members], return_inverse=True)
            fold_of_unit[members] = (rng.permutation(uniq.size) % folds)[inv]
        assignments.append(fold_of_unit)
    sizes = np.array(
        [
            np.bincount(units.rank[a == f], minlength=n_ranks)
            for a in assignments
            for f in range(folds)
        ]
    )
    if sizes.size == 0 or sizes.min() == 0:
        return None
    limit = int(min(max_games, sizes.min()))
    pair_rank = units.rank[units.of_pair]
    feats = se_features(betas, units, aggregate)
    exact = np.full((repeats * folds, n_ranks, max_games), np.nan)
    within = np.full((repeats * folds, n_ranks, max_games), np.nan)
    for rep, fold_of_unit in enumerate(assignments):
        pair_fold = fold_of_unit[units.of_pair]
        for f in range(folds):
            other = pair_fold != f
            means = reference_scores(betas[other], pair_rank[other], n_ranks)
            decide = se_decide(fit_references(means, fit))
            mine = fold_of_unit == f
            c = accuracy_curves(
                feats[mine], units.rank[mine], decide, n_ranks, limit, draws, seed + 97 * rep + f
            )
            exact[rep * folds + f, :, :limit] = c.exact
            within[rep * folds + f, :, :limit] = c.within1
    return Curves(
        exact.mean(axis=0),
        within.mean(axis=0),
        [int(x) for x in sizes.min(axis=0)],
        [False] * n_ranks,
    )


# ---- choosing on one part of the held-out players, reporting on the other ------------------
PART_SALT = "sparring/held-out-part/v1"
"""Salt of the hash that orders held-out players for :func:`choose_report_parts`."""

CHOOSE, REPORT, NEITHER = 0, 1, -1
"""The parts of :func:`choose_report_parts`."""


def player_hash(name: str) -> str:
    """The order of held-out players within a rank: ``sha256(PART_SALT + ":" + name)`` in hex
    (a fixed function of the name: no seed, no dependence on the other players)."""
    return hashlib.sha256(f"{PART_SALT}:{name}".encode()).hexdigest()


def focus_players(unit_players: Sequence[Sequence[str]]) -> list[str]:
    """The focus player of every unit: the one of its players with the most units in the
    set (ties: the alphabetically first; see :func:`choose_report_parts`)."""
    counts: dict[str, int] = {}
    for names in unit_players:
        if not names:
            raise ValueError("every held-out unit needs at least one player name")
        for name in set(names):
            counts[name] = counts.get(name, 0) + 1
    return [min(names, key=lambda n: (-counts[n], n)) for names in unit_players]


def choose_report_parts(
    unit_players: Sequence[Sequence[str]], unit_rank: npt.ArrayLike
) -> npt.NDArray[np.int8]:
    """Split held-out units (games, or one side of a game) into a *choose* part
    (:data:`CHOOSE`) and a *report* part (:data:`REPORT`) that share no player.

    1. A unit's *focus player* is the one of its players with the most units in the set
       (ties: the alphabetically first) -- in Go's ``testing_by_player`` folder the player whose
       games these are; in chess, where almost every player plays once, the alphabetically
       first of the two.
    2. Each focus player belongs to the rank where they are the focus of the most units (ties:
       the stronger rank).  Within a rank, its focus players are ordered by
       :func:`player_hash` and alternate choose, report, choose, ... (so each rank's focus
       players are halved, the choose part taking the odd one).
    3. A unit goes to its focus player's part, unless one of its players also plays in a unit
       of the other part: such a unit is dropped from both (:data:`NEITHER`) -- an opponent
       met by focus players of both parts, or a focus player who is the lesser player of a
       game in the other part.  No player then has moves in both parts (if one did, the units
       on each side would have been dropped).

    Deterministic and independent of the units' order.  (Joining units that share a player
    into connected components would also be disjoint, but in Go the held-out players' games
    form one component across five ranks.)  Anything chosen on the choose part (a reference
    form, a threshold) is reported on the report part only."""
    ranks = np.asarray(unit_rank, dtype=np.int64).reshape(-1)
    if ranks.size != len(unit_players):
        raise ValueError("unit_players and unit_rank differ in length")
    focus = focus_players(unit_players)
    as_focus: dict[str, dict[int, int]] = {}
    for name, r in zip(focus, ranks.tolist(), strict=True):
        per_rank = as_focus.setdefault(name, {})
        per_rank[r] = per_rank.get(r, 0) + 1
    home: dict[int, list[str]] = {}
    for name, per_rank in as_focus.items():
        r = min(per_rank, key=lambda k: (-per_rank[k], k))
        home.setdefault(r, []).append(name)
    part_of: dict[str, int] = {}
    for members in home.values():
        for i, name in enumerate(sorted(members, key=lambda n: (player_hash(n), n))):
            part_of[name] = CHOOSE if i % 2 == 0 else REPORT
    part = np.array([part_of[f] for f in focus], dtype=np.int8)
    seen: dict[str, int] = {}  # bit 0: in a choose unit, bit 1: in a report unit
    for names, p in zip(unit_players, part.tolist(), strict=True):
        for name in names:
            seen[name] = seen.get(name, 0) | (1 << p)
    mixed = np.array([any(seen[n] == 3 for n in names) for names in unit_players], dtype=bool)
    part[mixed] = NEITHER
    return part


@dataclass(frozen=True)
class FitChoice:
    """Which reference form (:data:`REFERENCE_FITS`) a choose part preferred, and why."""

    chosen: str
    criterion: dict[str, float]
    """Per fit: mean exact accuracy over N = 1 .. max_games on the choose part (the area
    under its exact-accuracy curve divided by max_games)."""
    units_per_rank: list[int]
    """Choose-part units (games) per rank."""


def choose_reference_fit(
    betas: FloatArray,
    units: Units,
    means: FloatArray,
    aggregate: str = "move",
    fits: Sequence[str] = REFERENCE_FITS,
    max_games: int = 100,
    draws: int = 500,
    seed: int = 0,
) -> FitChoice:
    """Choose a reference form on the *choose* part's pair scores ``betas`` grouped into
    ``units``: the fit of the candidate means ``means`` (:func:`fit_references`) with the
    highest mean exact accuracy over N = 1 .. ``max_games`` (:func:`accuracy_curves`); ties go
    to the earlier fit in ``fits`` (``mean``, the paper's rule, first)."""
    n_ranks = int(np.asarray(means).size)
    feats = se_features(betas, units, aggregate)
    criterion: dict[str, float] = {}
    for fit in fits:
        curves = accuracy_curves(
            feats,
            units.rank,
            se_decide(fit_references(means, fit)),
            n_ranks,
            max_games,
            draws,
            seed,
        )
        criterion[fit] = float(np.nanmean(curves.exact))
    best = max(criterion.values())
    chosen = next(f for f in fits if criterion[f] == best)
    return FitChoice(chosen, criterion, np.bincount(units.rank, minlength=n_ranks).tolist())


def score_by_move(
    betas: FloatArray,
    move_number: npt.NDArray[np.integer[Any]],
    ranks: IntArray,
    n_ranks: int,
    bucket: int = 20,
    max_move: int = 300,
    min_count: int = 20,
) -> tuple[IntArray, FloatArray]:
    """Fig. 3: the composite score of each rank against the move number (``bucket`` plies per
    point, up to ``max_move``); NaN where a bucket has fewer than ``min_count`` pairs.
    Returns the buckets' first move numbers (1-based) and ``[n_ranks, buckets]`` means."""
    b = np.asarray(betas, dtype=np.float64).reshape(-1)
    nb = max_move // bucket
    k = np.minimum(np.asarray(move_number, dtype=np.int64) // bucket, nb)
    keep = k < nb
    flat = ranks[keep] * nb + k[keep]
    sums = np.bincount(flat, weights=b[keep], minlength=n_ranks * nb).reshape(n_ranks, nb)
    counts = np.bincount(flat, minlength=n_ranks * nb).reshape(n_ranks, nb)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(counts >= min_count, sums / np.maximum(counts, 1), np.nan)
    return np.arange(nb) * bucket + 1, means


# ---- estimating one player's strength --------------------------------------------------------
@dataclass
class PlayerGame:
    """One game of the player whose strength is estimated."""

    source: str
    side: int
    """0 Black/White-in-chess-terms player 0, 1 player 1."""
    moves: int
    """Moves by the player that were scored."""
    score_sum: float


@dataclass
class Estimate:
    """A strength estimate from one player's games."""

    player: str
    game: str
    ranks: tuple[str, ...]
    rank: int
    """Index of the estimated rank (0 = strongest)."""
    composite: float
    """The player's composite score ``beta-bar_u``."""
    references: FloatArray
    probabilities: FloatArray
    """Bootstrap share of each rank."""
    games: list[PlayerGame]
    resampled: str
    """What the bootstrap resampled: ``games`` or ``moves`` (one game)."""
    duplicates: list[Duplicate] = field(default_factory=list)
    """Games whose content repeats an earlier one (:func:`~sparring.estimation.upload.game_key`),
    counted once."""

    @property
    def rank_name(self) -> str:
        return self.ranks[self.rank]

    @property
    def moves(self) -> int:
        return sum(g.moves for g in self.games)

    @property
    def confidence(self) -> float:
        """Bootstrap probability of the estimated rank."""
        return float(self.probabilities[self.rank])

    @property
    def within_one(self) -> float:
        """Bootstrap probability of the estimated rank or a neighbour."""
        lo, hi = max(0, self.rank - 1), min(len(self.ranks), self.rank + 2)
        return float(self.probabilities[lo:hi].sum())

    def describe(self) -> str:
        """A few lines for people."""
        what = "rank" if self.game == "go" else "Elo band"
        lo, hi = max(0, self.rank - 1), min(len(self.ranks) - 1, self.rank + 1)
        near = ", ".join(f"{self.ranks[i]} {self.references[i]:+.3f}" for i in range(lo, hi + 1))
        lines = [
            f"{self.player}: {len(self.games)} game(s), {self.moves} moves scored",
            f"estimated {what}: {self.rank_name}",
            f"composite strength score {self.composite:+.3f} (references: {near})",
            f"confidence: {self.confidence:.0%} on {self.rank_name}, {self.within_one:.0%} within "
            f"one {what} ({self.ranks[lo]}..{self.ranks[hi]}); bootstrap over the {self.resampled}",
        ]
        if self.duplicates:
            lines.append(describe_duplicates(self.duplicates))
        if self.resampled == "moves":
            lines.append(
                "one game: resampling its moves ignores how a player varies from game to game, "
                "so this confidence is optimistic"
            )
        if len(self.games) < 5:
            lines.append(
                "few games: the estimate is rough (the paper needs about 15 games for 80% accuracy)"
            )
        return "\n".join(lines)


def player_pairs(
    record: Record, side: int
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]:
    """Input planes and moves of every move of player ``side`` (0/1) in a game."""
    game = record_game(record)
    initial = record.initial_state(game)  # type: ignore[arg-type]
    moves = np.asarray(record.moves, dtype=np.int64)
    first = game.to_move(initial)
    at = np.flatnonzero((first + np.arange(moves.size)) % 2 == side)
    if at.size == 0:
        return np.zeros((0, game.num_planes, *game.board_shape), np.float32), at
    planes = game.replay_planes(moves[: int(at[-1]) + 1], initial)[at]
    return planes, moves[at]


def find_player_games(records: Sequence[Record], player: str) -> list[tuple[Record, int]]:
    """(record, side) of every game the named player played (names compared without case)."""
    wanted = player.strip().casefold()
    found = []
    for rec in records:
        for side, name in enumerate(record_players(rec)):
            if name.strip().casefold() == wanted:
                found.append((rec, side))
    return found


def estimate_player(
    records: Sequence[Record],
    player: str,
    model_path: Path,
    device: str = "cpu",
    bootstrap: int = 2000,
    seed: int = 0,
) -> Estimate:
    """Estimate ``player``'s rank from their moves in ``records`` with a strength model file
    that holds reference scores (written by ``sparring se-eval``).  A game whose content
    repeats an earlier one (:func:`~sparring.estimation.upload.unique_games`: a file copied
    under another name) is counted once, and listed in :attr:`Estimate.duplicates`."""
    model, meta = load_estimator(model_path)
    refs_meta = meta.get("references")
    if model.config.kind == "play":
        raise SparringError(
            f"{model_path}: a play network (the rank is its input), not a strength estimator; "
            "use an SE model such as go-se or chess-se"
        )
    if model.config.kind == "sl" or not refs_meta:
        raise SparringError(
            f"{model_path}: no reference scores; use an SE model evaluated by 'sparring se-eval'"
        )
    records, duplicates = unique_games(records)
    games = find_player_games(records, player)
    if not games:
        seen: dict[str, int] = {}
        for rec in records:
            for name in record_players(rec):
                seen[name] = seen.get(name, 0) + 1
        top = sorted(seen.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
        names = ", ".join(f"{n!r} ({c})" for n, c in top)
        raise SparringError(
            f"player {player!r} not found in {len(records)} game(s); players there: {names}"
        )
    kind = "go" if model.config.game == "go" else "chess"
    for rec, _ in games:
        rec_kind = "go" if isinstance(rec, GoRecord) else "chess"
        if rec_kind != kind:
            raise SparringError(
                f"{rec.path}:{rec.line}: a {rec_kind} game, but the model is for {kind}"
            )
    references = np.asarray(refs_meta["scores"], dtype=np.float64)
    aggregate = refs_meta.get("aggregate", "move")
    if not isinstance(model, OnnxStrengthNet):
        model.to(device)
    scored: list[PlayerGame] = []
    per_move: list[FloatArray] = []
    for rec, side in games:
        planes, actions = player_pairs(rec, side)
        if actions.size == 0:
            continue
        betas = np.concatenate(
            [
                score_planes(model, planes[i : i + 256], actions[i : i + 256], device)[:, 0]
                for i in range(0, actions.size, 256)
            ]
        )
        per_move.append(betas)
        scored.append(
            PlayerGame(f"{rec.path}:{rec.line}", side, int(actions.size), float(betas.sum()))
        )
    if not scored:
        raise SparringError(f"player {player!r} made no move in the games found")
    sums = np.array([g.score_sum for g in scored])
    counts = np.array([g.moves for g in scored], dtype=np.float64)

    def composite_of(s: FloatArray, c: FloatArray) -> FloatArray:
        if aggregate == "game":
            result: FloatArray = (s / c).mean(axis=-1)
        else:
            result = s.sum(axis=-1) / c.sum(axis=-1)
        return result

    composite = float(composite_of(sums, counts))
    rank = int(nearest_rank(composite, references))
    rng = np.random.default_rng(seed)
    if len(scored) >= 2:
        pick = rng.integers(0, len(scored), size=(bootstrap, len(scored)))
        boot = composite_of(sums[pick], counts[pick])
        resampled = "games"
    else:
        moves = per_move[0]
        pick = rng.integers(0, moves.size, size=(bootstrap, moves.size))
        boot = moves[pick].mean(axis=1)
        resampled = "moves"
    votes = np.bincount(nearest_rank(boot, references), minlength=references.size)
    return Estimate(
        player=player,
        game=kind,
        ranks=tuple(refs_meta["ranks"]),
        rank=rank,
        composite=composite,
        references=references,
        probabilities=votes / votes.sum(),
        games=scored,
        resampled=resampled,
        duplicates=duplicates,
    )


__all__ = [
    "CHOOSE",
    "NEITHER",
    "REFERENCE_FITS",
    "REPORT",
    "Curves",
    "Estimate",
    "FitChoice",
    "PlayerGame",
    "Units",
    "accuracy_curves",
    "choose_reference_fit",
    "choose_report_parts",
    "draw_orders",
    "estimate_player",
    "find_player_games",
    "fit_references",
    "focus_players",
    "make_units",
    "nearest_rank",
    "player_hash",
    "player_pairs",
    "rank_means_with_error",
    "reference_scores",
    "score_by_move",
    "score_pairset",
    "score_planes",
    "unit_sums",
]
