"""New rungs for a rating ladder: rate extra players against a ladder without moving it.

A ladder (``sparring tournament --json``) can have wide gaps: the Connect4 baselines jump
from Random (1000) to MCTS4 and Minimax2 (1580), so a player rated in between is measured
against opponents it almost always beats or almost always loses to, and its rating is
poor.  :func:`rate_rungs` plays each new player ``games`` games (colours alternating)
against every player of the ladder, and fits its Elo with the ladder's ratings held fixed
(:func:`~sparring.evaluation.ladder.fit_against_ladder`); the ladder's own players keep
their ratings, so everything rated on the old ladder stays valid on the extended one.  New
rungs are rated against the original players only, each independently of the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Console

from sparring.errors import ConfigError
from sparring.evaluation.backend import Backend
from sparring.evaluation.ladder import Ladder, LadderFit, LadderPlayer, fit_against_ladder
from sparring.evaluation.match import MatchConfig, run_match
from sparring.evaluation.store import GameStore
from sparring.games import get_game
from sparring.players import make_player
from sparring.players.cache import PlayerCache


@dataclass(frozen=True)
class RungResult:
    """One new player rated against a ladder."""

    player: LadderPlayer
    """The new rung: its name, spec, fitted Elo and standard error."""
    scores: dict[str, float]
    """Its mean score against each ladder player (by name)."""
    games: int
    """Games it played in all."""


def rate_against(
    game: str,
    spec: str,
    rungs: Sequence[LadderPlayer],
    store: GameStore,
    games: int,
    seed: int,
    workers: int,
    console: Console | None = None,
    backend: Backend | None = None,
) -> tuple[LadderFit, dict[str, float]]:
    """Play ``spec`` ``games`` games (colours alternating) against each of ``rungs`` and fit
    its Elo with their ratings held fixed; also return its mean score against each rung (by
    name).  Games go through the resumable match runner, so a re-run replays nothing;
    ``backend`` plays them (None: the local pool of ``workers`` processes)."""
    elos: list[float] = []
    results: list[float] = []
    scores: dict[str, float] = {}
    for rung in rungs:
        config = MatchConfig(
            game=game, spec_a=spec, spec_b=rung.spec, games=games, seed=seed, workers=workers
        )
        run = run_match(
            config, store, progress=console is not None, console=console, backend=backend
        )
        mine = [r.score_a for r in run.records]
        elos += [rung.elo] * len(mine)
        results += mine
        scores[rung.name] = sum(mine) / len(mine)
    return fit_against_ladder(elos, results), scores


def rate_rungs(
    ladder: Ladder,
    specs: Sequence[str],
    store: GameStore,
    games: int = 100,
    seed: int = 0,
    workers: int = 1,
    console: Console | None = None,
    against: Sequence[str] | None = None,
    backend: Backend | None = None,
) -> list[RungResult]:
    """Play every spec against every player of ``ladder`` (or only the ladder players named
    or specified in ``against``) and rate it (module docstring).

    ``against`` is for rungs far below or above most of the ladder (a player weaker than
    Random scores nothing against the strong baselines, games that carry no information).
    Raises :class:`ConfigError` for no specs, ``games < 1``, a player whose name or spec
    the ladder (or an earlier spec) already has, or an ``against`` entry the ladder lacks.
    Games are stored in ``store`` and a re-run replays nothing; ``backend`` plays them
    (None: the local pool of ``workers`` processes; the games do not depend on it)."""
    if not specs:
        raise ConfigError("name at least one player to add to the ladder")
    if games < 1 or workers < 1:
        raise ConfigError("games and workers must be >= 1")
    game = get_game(ladder.game)
    cache = PlayerCache()
    names = [make_player(spec, game, 0, cache).name for spec in specs]
    placeholders = [LadderPlayer(n, s, 0.0, 0.0) for n, s in zip(names, specs, strict=True)]
    ladder.with_players(placeholders)  # name clashes fail before any game is played
    opponents = ladder.players if against is None else tuple(ladder.by_spec(a) for a in against)
    if not opponents:
        raise ConfigError("name at least one ladder player to play against")
    out: list[RungResult] = []
    for name, spec in zip(names, specs, strict=True):
        fit, scores = rate_against(
            ladder.game, spec, opponents, store, games, seed, workers, console, backend
        )
        out.append(RungResult(LadderPlayer(name, spec, fit.elo, fit.stderr), scores, fit.games))
    return out


def rungs_markdown(
    ladder: Ladder, results: Sequence[RungResult], games: int, against: Sequence[str] | None = None
) -> str:
    """A markdown table of the new rungs: Elo with its interval and the scores."""
    whom = "each ladder player" if against is None else "each of " + ", ".join(against)
    lines = [
        f"New rungs for the {ladder.game} ladder ({ladder.anchor}; the ladder's ratings held "
        f"fixed); {games} games against {whom}, colours alternating.",
        "",
        "| player | spec | Elo (95%) | games | scores |",
        "| --- | --- | ---: | ---: | --- |",
    ]
    for r in results:
        scores = ", ".join(f"{name} {s:.2f}" for name, s in r.scores.items())
        lines.append(
            f"| {r.player.name} | `{r.player.spec}` | {r.player.elo:.0f} ± "
            f"{1.96 * r.player.stderr:.0f} | {r.games} | {scores} |"
        )
    return "\n".join(lines) + "\n"


__all__ = ["RungResult", "rate_against", "rate_rungs", "rungs_markdown"]
