"""Elo ratings from game results: a maximum-likelihood fit and the AlphaDDA K=8 update.

Two estimates are provided:

:func:`fit_elo`
    Maximum-likelihood Bradley-Terry ratings on the Elo scale (a logistic model with base
    10 and scale 400, as AlphaDDA Eq. 16), optionally with a first-move advantage, one player
    anchored to a given rating, and Wald confidence intervals from the inverse of the observed
    Fisher information.  It uses every game at once and does not depend on game order.
:func:`incremental_elo`
    AlphaDDA appendix 5: every player starts at 1500 and after each game both players'
    ratings move by ``K (score - expected)`` with ``K = 8`` (Eq. 16-17).  It depends on the
    order of the games.

Both work on :class:`GameResults`: plain arrays of (first player, second player, score of the
first player) with a tuple of player names.  A draw counts as half a win and half a loss.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

from sparring.errors import ConfigError
from sparring.evaluation.bradley_terry import (
    PairCounts,
    cell_log_likelihood,
    expected_score,
    fit_bradley_terry,
)
from sparring.evaluation.store import GameRecord

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

DEFAULT_PRIOR_DRAWS = 0.01
"""Virtual draws per pair of players added by :func:`fit_elo` (see there)."""


# ---- data ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameResults:
    """Game outcomes as plain arrays: game ``g`` was ``first[g]`` (moving first) against
    ``second[g]`` and ended with score ``score[g]`` (1, 0.5, 0) for ``first[g]``.

    Player indices refer to ``names``.
    """

    names: tuple[str, ...]
    first: IntArray
    second: IntArray
    score: FloatArray

    def __post_init__(self) -> None:
        first = np.asarray(self.first, dtype=np.int64)
        second = np.asarray(self.second, dtype=np.int64)
        score = np.asarray(self.score, dtype=np.float64)
        object.__setattr__(self, "names", tuple(self.names))
        object.__setattr__(self, "first", first)
        object.__setattr__(self, "second", second)
        object.__setattr__(self, "score", score)
        if not (first.ndim == second.ndim == score.ndim == 1):
            raise ValueError("first, second and score must be one-dimensional")
        if not (len(first) == len(second) == len(score)):
            raise ValueError("first, second and score must have the same length")
        if len(set(self.names)) != len(self.names):
            raise ValueError(f"player names must be unique: {self.names}")
        n = len(self.names)
        players = np.concatenate([first, second])
        if len(players) and (players.min() < 0 or players.max() >= n):
            raise ValueError("player index outside names")
        if np.any(first == second):
            raise ValueError("a player cannot play itself")
        if not np.all(np.isin(score, (0.0, 0.5, 1.0))):
            raise ValueError("scores must be 0, 0.5 or 1")

    def __len__(self) -> int:
        return len(self.score)

    @property
    def num_players(self) -> int:
        """Number of players (including any without games)."""
        return len(self.names)

    def games_per_player(self) -> IntArray:
        """Games played by each player."""
        n = self.num_players
        return np.bincount(self.first, minlength=n) + np.bincount(self.second, minlength=n)

    def points_per_player(self) -> FloatArray:
        """Points (wins + draws/2) scored by each player."""
        n = self.num_players
        as_first = np.bincount(self.first, weights=self.score, minlength=n)
        as_second = np.bincount(self.second, weights=1.0 - self.score, minlength=n)
        return (as_first + as_second).astype(np.float64)

    @classmethod
    def from_records(
        cls,
        records: Iterable[GameRecord],
        names: Sequence[str] | None = None,
        *,
        round_robin_order: bool = True,
    ) -> GameResults:
        """Results of stored games, players identified by their labels.

        ``names`` fixes the player order (it must contain every label); by default players
        appear in order of first appearance.  With ``round_robin_order`` the games are sorted
        by (game index, run, pairing): round ``r`` holds game ``r`` of every pairing, so one
        pass of :func:`incremental_elo` over a tournament with N games per pair is N
        round-robin tournaments played one after another, as in AlphaDDA sec. 5.1.
        """
        games = list(records)
        if round_robin_order:
            games.sort(key=lambda r: (r.game_index, r.run_key, r.pairing))
        order: list[str] = list(names) if names is not None else []
        index = {name: i for i, name in enumerate(order)}
        first: list[int] = []
        second: list[int] = []
        for record in games:
            for label in (record.label_a, record.label_b):
                if label not in index:
                    if names is not None:
                        raise ValueError(f"player {label!r} is not in names {tuple(names)}")
                    index[label] = len(order)
                    order.append(label)
            first.append(index[record.first_label])
            second.append(index[record.second_label])
        return cls(
            names=tuple(order),
            first=np.array(first, dtype=np.int64),
            second=np.array(second, dtype=np.int64),
            score=np.array([r.result for r in games], dtype=np.float64),
        )


# ---- anchors ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Anchor:
    """Fixes the rating of the player ``name`` to ``elo`` (Elo ratings are only relative)."""

    name: str
    elo: float

    @classmethod
    def parse(cls, text: str) -> Anchor:
        """Read ``NAME=ELO`` (e.g. ``Random=1000``); ConfigError if malformed."""
        name, eq, value = text.rpartition("=")
        if not eq or not name.strip():
            raise ConfigError(f"bad anchor {text!r}: expected NAME=ELO, e.g. Random=1000")
        try:
            elo = float(value)
        except ValueError:
            raise ConfigError(f"bad anchor {text!r}: {value.strip()!r} is not a number") from None
        if not math.isfinite(elo):
            raise ConfigError(f"bad anchor {text!r}: the rating must be finite")
        return cls(name.strip(), elo)

    def index_in(self, names: Sequence[str]) -> int:
        """Position of the anchored player in ``names`` (exact match, else case-insensitive).

        Raises :class:`~sparring.errors.ConfigError` naming the known players if absent.
        """
        if self.name in names:
            return list(names).index(self.name)
        folded = [n.casefold() for n in names]
        if folded.count(self.name.casefold()) == 1:
            return folded.index(self.name.casefold())
        raise ConfigError(
            f"anchor player {self.name!r} is not among the players: {', '.join(names)}"
        )


def default_anchor(names: Sequence[str]) -> Anchor:
    """``Random`` at 1000 if a player is labelled ``Random``, else the first player at 1500."""
    if not names:
        raise ValueError("no players to anchor")
    if "Random" in names:
        return Anchor("Random", 1000.0)
    return Anchor(names[0], 1500.0)


# ---- maximum likelihood ----------------------------------------------------------------------
@dataclass(frozen=True)
class EloFit:
    """Maximum-likelihood Elo ratings with Wald confidence intervals (see :func:`fit_elo`)."""

    names: tuple[str, ...]
    """Player names; all arrays are aligned with them."""
    ratings: FloatArray
    """Elo rating of each player (the anchor's is exactly its anchored value)."""
    covariance: FloatArray = field(repr=False)
    """Covariance of the ratings (Elo²), the anchor's row and column zero."""
    anchor: Anchor
    """The anchored player and rating."""
    confidence: float
    """Confidence level of :attr:`lower` / :attr:`upper`, e.g. 0.95."""
    games: IntArray
    """Games played by each player."""
    points: FloatArray
    """Points scored by each player (wins + draws/2)."""
    first_move_advantage: float | None
    """Fitted first-move advantage in Elo (None when not fitted)."""
    first_move_advantage_stderr: float | None
    """Its standard error in Elo (None when not fitted)."""
    prior_draws: float
    """Virtual draws per pair of players used as regularisation."""
    log_likelihood: float
    """Log-likelihood of the real games (without the virtual draws) at the fit."""
    iterations: int
    """Newton iterations used."""

    @property
    def stderr(self) -> FloatArray:
        """Standard error of each rating relative to the anchor (0 for the anchor)."""
        return np.sqrt(np.clip(np.diag(self.covariance), 0.0, None))

    @property
    def half_width(self) -> FloatArray:
        """Half-width of each rating's confidence interval."""
        z = NormalDist().inv_cdf(0.5 + self.confidence / 2.0)
        return z * self.stderr

    @property
    def lower(self) -> FloatArray:
        """Lower ends of the confidence intervals."""
        return self.ratings - self.half_width

    @property
    def upper(self) -> FloatArray:
        """Upper ends of the confidence intervals."""
        return self.ratings + self.half_width

    def index(self, name: str) -> int:
        """Position of player ``name``."""
        return self.names.index(name)

    def rating(self, name: str) -> float:
        """Rating of player ``name``."""
        return float(self.ratings[self.index(name)])

    def difference_stderr(self, a: str, b: str) -> float:
        """Standard error of ``rating(a) - rating(b)``."""
        i, j = self.index(a), self.index(b)
        c = self.covariance
        return math.sqrt(max(c[i, i] + c[j, j] - 2.0 * c[i, j], 0.0))

    def expected_score(self, a: str, b: str, a_first: bool | None = None) -> float:
        """Predicted score of ``a`` against ``b``; with ``a_first`` the first-move advantage
        is added for the first player (None: colour-neutral prediction)."""
        diff = self.rating(a) - self.rating(b)
        if a_first is not None and self.first_move_advantage is not None:
            diff += self.first_move_advantage if a_first else -self.first_move_advantage
        return expected_score(diff, 0.0)

    def ranking(self) -> list[int]:
        """Player indices from the highest rating to the lowest."""
        return [int(i) for i in np.argsort(-self.ratings, kind="stable")]


def fit_elo(
    results: GameResults,
    *,
    anchor: Anchor | None = None,
    first_move_advantage: bool = False,
    prior_draws: float = DEFAULT_PRIOR_DRAWS,
    confidence: float = 0.95,
    max_iterations: int = 200,
    tolerance: float = 1e-9,
) -> EloFit:
    """Maximum-likelihood Bradley-Terry ratings on the Elo scale.

    Model: the first player ``i`` scores against the second player ``j`` with probability
    ``1 / (1 + 10**((r_j - r_i - h) / 400))`` (AlphaDDA Eq. 16 with a first-move advantage
    ``h``, fitted only with ``first_move_advantage``; otherwise ``h = 0``).  A game's
    log-likelihood is ``s log p + (1 - s) log(1 - p)`` for the first player's score ``s``, so
    a draw counts as half a win and half a loss.

    Regularisation: ``prior_draws`` (> 0) virtual draws are added between *every* pair of
    players, half with each player first.  This keeps the maximum finite when a player won
    or lost every game (such a player gets a large rating with a wide interval instead of
    an infinite one), keeps players in otherwise unconnected groups comparable, and bounds
    ``h`` when one colour always wins.  The default (0.01 draws per pair) moves ratings
    backed by tens of games by well under one Elo point.

    Ratings are shifted so that ``anchor`` (default :func:`default_anchor`) has exactly its
    rating.  The covariance is the inverse of the observed information (negative Hessian of
    the regularised log-likelihood) with the anchor held fixed, so the intervals (``confidence``,
    normal approximation) describe each rating relative to the anchor.  Solved by
    :func:`~sparring.evaluation.bradley_terry.fit_bradley_terry` (Newton's method with step
    halving; the objective is strictly concave).
    """
    if not prior_draws > 0.0:
        raise ValueError("prior_draws must be positive (it keeps perfect records finite)")
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must be between 0 and 1")
    if results.num_players < 2:
        raise ValueError("at least two players are needed for ratings")
    anchor = anchor or default_anchor(results.names)
    anchor = Anchor(results.names[anchor.index_in(results.names)], anchor.elo)
    games = PairCounts.from_games(results.names, results.first, results.second, results.score)
    fit = fit_bradley_terry(
        games.with_draws(prior_draws, every_pair=True),
        {anchor.name: anchor.elo},
        first_move_advantage=first_move_advantage,
        max_iterations=max_iterations,
        tolerance=tolerance,
    )
    return EloFit(
        names=results.names,
        ratings=fit.ratings,
        covariance=fit.covariance,
        anchor=anchor,
        confidence=confidence,
        games=results.games_per_player(),
        points=results.points_per_player(),
        first_move_advantage=fit.first_move_advantage,
        first_move_advantage_stderr=fit.first_move_advantage_stderr,
        prior_draws=prior_draws,
        log_likelihood=cell_log_likelihood(games, fit.ratings, fit.first_move_advantage),
        iterations=fit.iterations,
    )


# ---- AlphaDDA appendix 5 ---------------------------------------------------------------------
def incremental_elo(
    results: GameResults,
    *,
    k: float = 8.0,
    initial: float = 1500.0,
    passes: int = 1,
) -> FloatArray:
    """AlphaDDA appendix 5 Elo: all players start at ``initial`` (1500), and after every game,
    in the given order, both players are updated with Eq. 17 for ``N_G = 1`` (a draw scores
    0.5), each from the ratings before the game; the sum of ratings is conserved.

    The paper computes its Table 4 "through 50 round-robin tournaments"; we read that as
    applying the per-game update over the games of 50 successive round robins.  Games from
    :meth:`GameResults.from_records` are in that round-robin order, so ``passes=1`` over a
    tournament with N games per pair reproduces the procedure for N round robins; ``passes > 1``
    replays the same sequence again, starting from the previous pass's ratings (useful when
    there are too few games for K = 8 to converge).  Returns the ratings aligned with
    ``results.names``.
    """
    if passes < 1:
        raise ValueError("passes must be >= 1")
    ratings = np.full(results.num_players, float(initial))
    first = results.first.tolist()
    second = results.second.tolist()
    score = results.score.tolist()
    for _ in range(passes):
        for i, j, s in zip(first, second, score, strict=True):
            delta = k * (s - expected_score(ratings[i], ratings[j]))
            ratings[i] += delta
            ratings[j] -= delta
    return ratings
