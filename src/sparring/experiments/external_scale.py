"""``sparring scale-fit``: a Stockfish or GNU Go scale file from stored games.

The games are the human-like search at several values of one knob (``human-mcts:sims=K,...``
or ``sa-mcts:z=Z,...``) against external engines held at fixed Elo (``stockfish:elo=1600``
at 1600; ``gnugo:level=1`` at 1000).  :func:`fit_scale` rates every player together
(Bradley-Terry with the fixed players held,
:func:`~sparring.experiments.calibration.fit_with_fixed`) and makes one
:class:`~sparring.players.external_scale.ScalePoint` per knob value.  The point players
are those with the given other search options of :data:`~sparring.estimation.
external_scale.SCALE_KEYS` (else the points would not be of one knob); other free players are
rated too and returned apart.  Player specs are parsed with the registered kinds (the CLI
registers them: :mod:`sparring.kinds`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from sparring.errors import ConfigError
from sparring.experiments.calibration import fit_with_fixed
from sparring.players.external_scale import SCALE_KEYS, ExternalScale, ScalePoint


@dataclass(frozen=True)
class RatedPlayer:
    """A free player of the fit."""

    spec: str
    elo: float
    plus_minus: float
    games: int
    score: float


def parse_fixed(items: Iterable[str]) -> dict[str, float]:
    """``SPEC=ELO`` texts (the last ``=`` splits) -> ``{spec: elo}``;
    :class:`~sparring.errors.ConfigError` for a malformed one."""
    held: dict[str, float] = {}
    for item in items:
        spec, _, elo = item.rpartition("=")
        try:
            held[spec] = float(elo)
        except ValueError:
            raise ConfigError(f"--fixed {item!r}: expected SPEC=ELO") from None
        if not spec:
            raise ConfigError(f"--fixed {item!r}: expected SPEC=ELO")
    return held


def parse_same(items: Iterable[str]) -> dict[str, str]:
    """``SPEC==OTHER`` texts (the first ``==`` splits) -> ``{SPEC: OTHER}``: rate the games of
    ``SPEC`` as ``OTHER``'s (one player written two ways, e.g. ``human-mcts:sf_elo=1600``
    played as ``sims=59``); :class:`~sparring.errors.ConfigError` for a malformed one."""
    same: dict[str, str] = {}
    for item in items:
        spec, sep, other = item.partition("==")
        if not sep or not spec or not other:
            raise ConfigError(f"--same {item!r}: expected SPEC==OTHER")
        same[spec] = other
    return same


def stored_results(
    paths: Iterable[Path], same: Mapping[str, str] | None = None
) -> list[tuple[str, str, float]]:
    """``(spec a, spec b, score of a)`` of every game in the stores ``paths``; ``same`` renames
    specs (one player written two ways).  :class:`~sparring.errors.MissingResourceError` for
    a store that is not there."""
    from sparring.errors import MissingResourceError
    from sparring.evaluation.store import GameStore

    rename = dict(same or {})
    games: list[tuple[str, str, float]] = []
    for path in paths:
        if not Path(path).is_file():
            raise MissingResourceError(f"game store {str(path)!r} not found")
        with GameStore(path) as store:
            games += [(rename.get(r.spec_a, r.spec_a), rename.get(r.spec_b, r.spec_b), r.score_a)
                      for r in store.games()]  # fmt: skip
    return games


def _point(name: str, knob: str) -> tuple[float, dict[str, Any]] | None:
    """``name``'s knob value and other search options when it is a point of a ``knob``
    scale (``human-mcts`` without ``sf_elo`` for ``sims``; ``sa-mcts:z=Z`` for ``z``), else
    None.  :class:`~sparring.errors.ConfigError` for such a player with options beyond the
    knob, the search and a display name (a time cap, playouts)."""
    from sparring.players.external_scale import KNOBS, SCALE_FIELDS, scale_search
    from sparring.players.registry import parse_player

    settings = parse_player(name)
    if getattr(settings, "kind", None) != KNOBS[knob]:
        return None
    if knob == "z" and settings.z is None:  # type: ignore[attr-defined]
        return None
    search = scale_search(settings, knob)
    value = float(getattr(settings, SCALE_FIELDS.get(knob, knob)))
    skip = {SCALE_FIELDS.get(knob, knob), "name", *SCALE_FIELDS.values()}
    extra = [f.name for f in fields(settings)  # type: ignore[arg-type]
             if f.name not in skip and getattr(settings, f.name) != f.default]  # fmt: skip
    if extra:
        raise ConfigError(f"{name}: a scale point takes only {knob} and {SCALE_KEYS}, not {extra}")
    return value, search


def search_options(knob: str, text: str) -> dict[str, Any]:
    """The search options (:data:`SCALE_KEYS` but the knob) of the spec options ``text``
    (``cpuct=0.25,sf_nodes=1000,sweep=true``) of the knob's kind, defaults filled in."""
    from sparring.players.external_scale import KNOBS, scale_search
    from sparring.players.registry import parse_player

    if knob not in KNOBS:
        raise ConfigError(f"knob is one of {', '.join(KNOBS)}, not {knob!r}")
    options = ",".join(t for t in (text.strip(), "z=0" if knob == "z" else "") if t)
    settings = parse_player(f"{KNOBS[knob]}:{options}" if options else KNOBS[knob])
    return scale_search(settings, knob)


def fit_scale(
    games: Sequence[tuple[str, str, float]],
    fixed: Mapping[str, float],
    game: str,
    knob: str,
    search: Mapping[str, Any],
    scale: str,
    command: str = "",
) -> tuple[ExternalScale, list[RatedPlayer]]:
    """The ``knob`` scale (``sims``: the ``human-mcts`` players; ``z``: the ``sa-mcts:z=Z``
    players) with the other ``search`` options (:func:`search_options`) of ``games``
    (``(spec a, spec b, score of a)``) with the ``fixed`` players held; every other free
    player is rated too.  Raises :class:`~sparring.errors.ConfigError` when no such point
    player played."""
    from sparring.players.external_scale import KNOBS

    if knob not in KNOBS:
        raise ConfigError(f"knob is one of {', '.join(KNOBS)}, not {knob!r}")
    fit = fit_with_fixed(games, fixed)
    names = sorted({n for a, b, _ in games for n in (a, b)} - set(fixed))
    points: list[ScalePoint] = []
    others: list[RatedPlayer] = []
    for name in names:
        played = [(s if a == name else 1.0 - s) for a, b, s in games if name in (a, b)]
        elo, plus_minus = fit.rating(name), 1.96 * fit.rating_stderr(name)
        point = _point(name, knob)
        if point is None or point[1] != dict(search):
            others.append(RatedPlayer(name, elo, plus_minus, len(played), sum(played)))
            continue
        points.append(ScalePoint(point[0], elo, plus_minus, len(played), sum(played)))
    if not points:
        raise ConfigError(f"no {KNOBS[knob]} player with the search {dict(search)} in the games")
    points.sort(key=lambda p: p.value)
    return ExternalScale(game, scale, knob, dict(search), tuple(points), command), others


__all__ = [
    "RatedPlayer",
    "fit_scale",
    "parse_fixed",
    "parse_same",
    "search_options",
    "stored_results",
]
