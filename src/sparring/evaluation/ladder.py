"""A rating ladder: players with fixed Elo ratings that other players are measured against.

A tournament writes its maximum-likelihood ratings as a ladder file (``sparring tournament
... --json FILE``); a later run rates a new player from its games against the ladder's
players with their ratings held fixed (:func:`fit_against_ladder`), so every number lands on
the same scale (for the baselines: Random anchored at 1000, docs/research/baselines.md).

The ladders the commands use by default ship with the package (package data,
``sparring/models/ladders``): ``baselines-GAME.json`` (the baseline players' tournament) and
``ladder-GAME.json`` (the same scale extended by ``sparring ladder-extend`` with more rungs);
:func:`shipped_ladder` finds them wherever sparring is installed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sparring.configfile import read_text_file
from sparring.errors import ConfigError
from sparring.evaluation.bradley_terry import ELO_SCALE, PairCounts, fit_bradley_terry
from sparring.evaluation.ratings import EloFit

LADDER_DIR = Path(__file__).resolve().parents[1] / "models" / "ladders"
"""Where the shipped ladders live (inside the installed package)."""

LADDER_KINDS = ("baselines", "ladder")
"""The shipped ladders of a game: ``baselines-GAME.json`` and the extended ``ladder-GAME.json``."""


def shipped_ladder(game: str, kind: str = "baselines") -> Path | None:
    """The shipped ladder ``KIND-GAME.json`` of ``game`` (:data:`LADDER_KINDS`), or None when
    none ships for that game."""
    if kind not in LADDER_KINDS:
        raise ValueError(f"unknown ladder kind {kind!r}; one of {', '.join(LADDER_KINDS)}")
    path = LADDER_DIR / f"{kind}-{game}.json"
    return path if path.is_file() else None


@dataclass(frozen=True)
class LadderPlayer:
    """One rung of a ladder."""

    name: str
    """Label, e.g. ``MCTS1``."""
    spec: str
    """Player spec that builds it, e.g. ``mcts1``."""
    elo: float
    """Its rating."""
    stderr: float
    """Standard error of the rating relative to the anchor."""


@dataclass(frozen=True)
class Ladder:
    """Players with fixed ratings for one game."""

    game: str
    players: tuple[LadderPlayer, ...]
    anchor: str
    """Which player fixes the scale and at what rating, e.g. ``Random=1000``."""

    def by_spec(self, spec: str) -> LadderPlayer:
        """The ladder player built by ``spec``; :class:`ConfigError` if none is."""
        for p in self.players:
            if p.spec == spec or p.name.lower() == spec.lower():
                return p
        known = ", ".join(p.spec for p in self.players)
        raise ConfigError(f"ladder for {self.game} has no player {spec!r} (it has {known})")

    def nearest(self, elo: float, count: int) -> list[LadderPlayer]:
        """The ``count`` players rated closest to ``elo`` (ties: the weaker first), weakest
        first; :class:`ConfigError` if ``count < 1``."""
        if count < 1:
            raise ConfigError("at least one ladder player must be asked for")
        ranked = sorted(self.players, key=lambda p: (abs(p.elo - elo), p.elo))
        return sorted(ranked[:count], key=lambda p: p.elo)

    def with_players(self, added: Sequence[LadderPlayer]) -> Ladder:
        """This ladder with ``added`` rungs, every player sorted from strongest to weakest;
        :class:`ConfigError` if a name or spec is already taken."""
        taken = {p.name.lower() for p in self.players} | {p.spec for p in self.players}
        for p in added:
            if p.name.lower() in taken or p.spec in taken:
                raise ConfigError(f"the ladder for {self.game} already has {p.name!r} ({p.spec})")
            taken |= {p.name.lower(), p.spec}
        players = sorted((*self.players, *added), key=lambda p: -p.elo)
        return Ladder(self.game, tuple(players), self.anchor)


def write_ladder(
    path: Path, game: str, labels: Sequence[str], specs: Sequence[str], fit: EloFit
) -> None:
    """Save the ratings of a finished run as a ladder file (players in run order)."""
    players = tuple(
        LadderPlayer(name, spec, fit.rating(name), float(fit.stderr[fit.index(name)]))
        for name, spec in zip(labels, specs, strict=True)
    )
    save_ladder(path, Ladder(game, players, f"{fit.anchor.name}={fit.anchor.elo:g}"))


def save_ladder(path: Path, ladder: Ladder) -> None:
    """Write ``ladder`` in the format :func:`read_ladder` reads (atomically)."""
    players = [
        {"name": p.name, "spec": p.spec, "elo": round(p.elo, 2), "stderr": round(p.stderr, 2)}
        for p in ladder.players
    ]
    data = {"game": ladder.game, "anchor": ladder.anchor, "players": players}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2))
    tmp.replace(path)


def read_ladder(path: Path) -> Ladder:
    """Load a ladder file written by :func:`write_ladder`."""
    text = read_text_file(path, "ladder file", "JSON")
    try:
        data = json.loads(text)
        players = tuple(
            LadderPlayer(p["name"], p["spec"], float(p["elo"]), float(p["stderr"]))
            for p in data["players"]
        )
        return Ladder(str(data["game"]), players, str(data["anchor"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"ladder file {str(path)!r} is malformed: {exc}") from None


@dataclass(frozen=True)
class LadderFit:
    """A player's rating from its games against fixed-rating opponents."""

    elo: float
    stderr: float
    """Standard error from the observed information (the opponents' own errors excluded)."""
    games: int
    points: float


def fit_against_ladder(
    opponent_elos: Sequence[float],
    scores: Sequence[float],
    prior_draws: float = 0.01,
) -> LadderFit:
    """Maximum-likelihood Elo of one player from its ``scores`` (1, 0.5, 0) against opponents
    rated ``opponent_elos`` (held fixed), under the Elo model of AlphaDDA Eq. 16.

    ``prior_draws`` virtual draws against each distinct opponent keep the estimate finite
    when every game was won or lost (as in :func:`sparring.evaluation.ratings.fit_elo`).
    Fitted by :func:`~sparring.evaluation.bradley_terry.fit_bradley_terry` with every
    opponent held fixed (opponents with equal ratings count as one).
    """
    opp = np.asarray(opponent_elos, dtype=np.float64)
    s = np.asarray(scores, dtype=np.float64)
    if len(opp) != len(s) or len(s) == 0:
        raise ValueError("need one score per game and at least one game")
    distinct, which = np.unique(opp, return_inverse=True)  # opponents told apart by rating
    names = ("player", *(f"opponent@{elo!r}" for elo in distinct.tolist()))
    counts = PairCounts.from_games(
        names, np.zeros(len(s), dtype=np.int64), which + 1, s, ordered=False
    ).with_draws(prior_draws, every_pair=False)
    fit = fit_bradley_terry(
        counts,
        dict(zip(names[1:], distinct.tolist(), strict=True)),
        start=float(np.average(opp)),
        max_iterations=100,
        tolerance=1e-6 / ELO_SCALE,
    )
    return LadderFit(float(fit.ratings[0]), float(fit.stderr[0]), len(s), float(s.sum()))
