"""Strength on an external scale: the setting of one knob for an Elo measured against
Stockfish (chess) or GNU Go (Go).

``--elo``, ``UCI_Elo`` and ``human-mcts:sf_elo=E`` must give a player whose strength,
measured against Debian's Stockfish 15.1 at fixed ``UCI_Elo`` settings, is ``E``; in 19x19
Go, ``sa-mcts:gnugo_elo=E`` (``sparring gtp --elo E``) one whose strength against Debian's
GNU Go 3.8 is ``E`` with GNU Go at level 1 held at 1000 (GNU Go has no Elo of its own: the
origin is arbitrary, the differences are Elo).  A scale
varies one *knob* of the human-like search and fixes the rest (the scale file's ``search``:
the human policy as the prior, Stockfish's leaf values, the root sweep), so the moves stay
the human-like search's:

* ``sims`` (the ``human-mcts`` kind): the simulations.  With the root sweep
  (:class:`~sparring.search.sweep.RootSweep`) and ``k`` simulations up to the number of
  legal moves, each of the ``k`` moves the human policy likes best gets one Stockfish value
  and the best of them is played: ``k = 1`` is the policy's favourite human move, and a
  larger ``k`` lets fewer human mistakes through.
* ``z`` (the ``sa-mcts`` kind): Wu et al.'s strength index (AAAI 2019, section *Strength
  Adjustment*): move ``i`` is drawn with probability ``N_i^z / sum_j N_j^z`` over the
  candidates ``N_j >= R_th N_max`` (:func:`sparring.strength.selection.sa_distribution`).
  Go's scale fixes the play network and its rank input (``model``, ``rank``), so the moves
  are that rank's human-like candidates and ``z`` how often the search's favourite is
  played.

A *scale file* (JSON, :meth:`ExternalScale.read` / :meth:`ExternalScale.to_json`)::

    {"game": "chess", "scale": "Stockfish 15.1 UCI_Elo, 0.1 s a move", "knob": "sims",
     "search": {"cpuct": 0.25, "sf_nodes": 1000, "sweep": true},
     "points": [{"value": 4, "elo": 1402.0, "plus_minus": 150.0, "games": 20, "score": 9.5},
                ...],
     "command": "..."}

Each point is one knob value, rated with the Stockfish rungs held at their ``UCI_Elo``
(Bradley-Terry, :func:`sparring.experiments.calibration.fit_with_fixed`; ``sparring
scale-fit`` writes the file from the game stores).  :meth:`ExternalScale.choose` inverts it:

1. the points, in increasing knob value, get a *monotone* Elo: the weighted least-squares
   non-decreasing fit (pool adjacent violators, weights ``1 / plus_minus^2``), since both
   knobs make a stronger player as they grow and measured points are noisy;
2. the fitted curve is linear between the points (:meth:`ExternalScale.elo_at`), and an
   asked Elo gets the lowest knob value where that curve reaches it (its inverse: on a rising
   stretch linear between the stretch's two points; an Elo a flat run of fitted points
   holds, at the run's first value); ``sims`` is then rounded to the nearest whole number
   and the Elo played is the curve's at that number.  Below the lowest fitted Elo or above
   the highest the nearest end is played and the target is *clamped* (said in the player's
   analysis, like ``sa:elo=E``).

A file may carry an ``offset``: Elo added to every point after the fit, when a front end
meets the anchors otherwise than the fit's games did (the chess levels through ``sparring
uci`` against Stockfish at 0.5 s a move; ``scripts/scale_offset.py`` fits it to that front
end's games: one number for the whole chain, so the fit's shape is kept, or one for each
scale of a chain, so each knob's shape is kept).

Knob values must be finite (full strength is ``human-mcts`` without ``sf_elo``), and
``sims`` and ``sf_nodes`` whole numbers from 1.

A knob runs out of strength: more simulations with a 1,000-node Stockfish leaf stop adding
Elo near 1,800.  A scale may then continue *above* its top with another knob of the same
search (the file's ``above``, a scale of its own, e.g. ``sf_nodes`` with the simulations
fixed): an Elo up to the lower scale's fitted top is played on it, an Elo beyond on the
``above`` scale (whose own fitted curve must reach higher), and the range is the lower
scale's bottom to the top of the chain.  An Elo between the lower scale's top and the bottom
of the ``above`` scale's curve plays the nearer of the two (the difference is the played
Elo's, said in the choice like a rounding).
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from sparring.errors import PlayerResourceError
from sparring.nn.estimators import ESTIMATOR_DIR

SCALE_KEYS = ("sims", "cpuct", "sf_nodes", "sweep", "model", "rank")
"""The search options a scale file may fix (spec keys of the human-like kinds); ``model``
and ``rank`` (a play network and its rank input) only when set."""
KNOBS = {"sims": "human-mcts", "sf_nodes": "human-mcts", "z": "sa-mcts"}
"""The knobs a scale can vary -> the player kind that takes ``sf_elo`` / ``gnugo_elo``."""
WHOLE_KNOBS = ("sims", "sf_nodes")
"""The knobs whose values are whole numbers (a choice rounds to the nearest)."""
SCALE_FIELDS = {"sims": "simulations", "cpuct": "c_puct", "sf_nodes": "sf_nodes",
                "sweep": "root_sweep", "model": "model", "rank": "rank"}  # fmt: skip
"""Scale file search keys -> the human-like kinds' settings fields."""
SCALE_GAMES = {"sf_elo": ("chess", "Stockfish"), "gnugo_elo": ("go", "GNU Go")}
"""The options that ask for an Elo on an external scale -> (the game, the scale's engine)."""
MOVED_BY = "; then moved by: "
"""What joins a scale file's fit command and the command that moved it (:meth:`ExternalScale.
moved`)."""
SCALE_FILES = {"chess": "chess-stockfish-scale.json", "go": "go-gnugo-scale.json"}
"""The shipped scale file of each game (:func:`default_scale`)."""


def scale_search(settings: Any, knob: str) -> dict[str, Any]:
    """The search options (:data:`SCALE_KEYS` but ``knob``) of human-like ``settings``;
    ``model`` and ``rank`` only when set."""
    search = {k: getattr(settings, SCALE_FIELDS[k]) for k in SCALE_KEYS if k != knob}
    return {k: v for k, v in search.items() if k not in ("model", "rank") or v is not None}


@dataclass(frozen=True)
class ScalePoint:
    """One measured knob value."""

    value: float
    """The knob's value (``sims``: a whole number >= 1; ``z``: finite)."""
    elo: float
    """Measured Elo on the external scale."""
    plus_minus: float
    """Half width of the 95% interval of ``elo`` (> 0)."""
    games: int
    """Games the point rests on."""
    score: float
    """Points scored in those games."""


class ScaleChoice(NamedTuple):
    """What :meth:`ExternalScale.choose` chose for an asked Elo."""

    value: float
    """The knob value to play."""
    played: float
    """The Elo the scale gives that value (the asked Elo unless clamped or rounded)."""
    clamped: bool
    """Whether the asked Elo lay outside the measured range."""


def monotone_fit(values: Sequence[float], weights: Sequence[float]) -> list[float]:
    """The weighted least-squares non-decreasing fit of ``values`` (pool adjacent
    violators, :func:`scipy.optimize.isotonic_regression`): a run of values that goes down
    is replaced by its weighted mean."""
    # scipy.optimize takes about 1 s to import: only when a scale is fitted or read
    from scipy.optimize import isotonic_regression

    if len(values) != len(weights):
        raise ValueError("values and weights differ in length")
    if not all(w > 0 for w in weights):
        raise ValueError("weights must be positive")
    fit = isotonic_regression(np.asarray(values, float), weights=np.asarray(weights, float))
    return [float(x) for x in fit.x]


@dataclass(frozen=True)
class ExternalScale:
    """Measured Elo per value of one knob of one search (see the module doc)."""

    game: str
    scale: str
    """What the Elo numbers are measured against, in words."""
    knob: str
    """The option varied (:data:`KNOBS`)."""
    search: Mapping[str, Any]
    """The other search options (:data:`SCALE_KEYS`) every point was played with."""
    points: tuple[ScalePoint, ...]
    """In increasing knob value."""
    command: str = ""
    above: ExternalScale | None = None
    """The scale that continues this one above its fitted top (module doc), or None."""
    offset: float = 0.0
    """Elo added to every point after the fit (0: the points are as fitted).  A front end
    that meets the anchors otherwise (the chess levels through ``sparring uci``, Stockfish
    at 0.5 s a move) can measure the origin again: ``scripts/scale_offset.py`` fits an
    offset to its games, one for the whole chain or one for each of its scales, and moves
    the chain by it (:meth:`moved`)."""

    def __post_init__(self) -> None:
        if self.knob not in KNOBS:
            raise ValueError(f"knob is one of {', '.join(KNOBS)}, not {self.knob!r}")
        if not self.points:
            raise ValueError("a scale needs at least one point")
        values = [p.value for p in self.points]
        if any(not math.isfinite(v) for v in values):
            raise ValueError("a scale's knob values must be finite (full strength is human-mcts)")
        if self.knob in WHOLE_KNOBS and any(v < 1 or not float(v).is_integer() for v in values):
            raise ValueError(f"a {self.knob} scale's values must be whole numbers >= 1")
        if values != sorted(values) or len(set(values)) != len(values):
            raise ValueError("a scale's points must have increasing, distinct knob values")
        for p in self.points:
            if not (math.isfinite(p.elo) and p.plus_minus > 0 and p.games >= 1):
                raise ValueError(f"bad scale point {p}")
        unknown = set(self.search) - (set(SCALE_KEYS) - {self.knob})
        if unknown:
            raise ValueError(
                f"unknown search options {sorted(unknown)} (known: "
                f"{', '.join(k for k in SCALE_KEYS if k != self.knob)})"
            )
        if self.above is not None:
            self._check_above(self.above)
        if not math.isfinite(self.offset):
            raise ValueError("a scale's offset must be finite")

    def _check_above(self, above: ExternalScale) -> None:
        if (above.game, above.scale) != (self.game, self.scale):
            raise ValueError(
                f"the scale above is {above.game} on {above.scale!r}, not "
                f"{self.game} on {self.scale!r}"
            )
        if KNOBS[above.knob] != KNOBS[self.knob]:
            raise ValueError(f"the scale above varies {above.knob}, not a {KNOBS[self.knob]} knob")
        if above.elo_range[1] <= self.own_range[1]:
            raise ValueError(
                f"the scale above tops out at {above.elo_range[1]:.0f}, not above this "
                f"scale's {self.own_range[1]:.0f}"
            )

    def moved(self, offset: float | Sequence[float], scale: str, command: str) -> ExternalScale:
        """This chain with its points at the fit's Elo plus ``offset`` (whatever offset it
        had before is replaced), named ``scale``, ``command`` added to each file's own.

        ``offset`` is one number for the whole chain (or a sequence of one), or one per scale
        of the chain, lowest first (:meth:`segments`): each knob moved by its own.
        """
        given = [float(offset)] if isinstance(offset, int | float) else [float(x) for x in offset]
        offsets = given * len(self.segments()) if len(given) == 1 else given
        if len(offsets) != len(self.segments()):
            raise ValueError(f"{len(offsets)} offsets for a chain of {len(self.segments())} scales")
        if not all(math.isfinite(x) for x in offsets):
            raise ValueError("a scale's offset must be finite")
        delta = offsets[0] - self.offset
        fit_command = self.command.split(MOVED_BY)[0]
        return replace(
            self,
            scale=scale,
            points=tuple(replace(p, elo=p.elo + delta) for p in self.points),
            command=f"{fit_command}{MOVED_BY}{command}",
            above=None if self.above is None else self.above.moved(offsets[1:], scale, command),
            offset=offsets[0],
        )

    def fitted(self) -> list[float]:
        """Each point's monotone Elo (step 1 of the module doc)."""
        return monotone_fit(
            [p.elo for p in self.points], [1.0 / p.plus_minus**2 for p in self.points]
        )

    @property
    def own_range(self) -> tuple[float, float]:
        """The lowest and highest fitted Elo of this scale's own points."""
        fit = self.fitted()
        return fit[0], fit[-1]

    @property
    def elo_range(self) -> tuple[float, float]:
        """The lowest and highest Elo the scale can play (the scales above it included)."""
        low, high = self.own_range
        return low, high if self.above is None else self.above.elo_range[1]

    def segments(self) -> list[ExternalScale]:
        """This scale and the ones above it, lowest first."""
        return [self] + ([] if self.above is None else self.above.segments())

    def segment_for(self, elo: float) -> ExternalScale:
        """The scale of the chain that plays an asked ``elo`` (module doc)."""
        if self.above is None or elo <= self.own_range[1]:
            return self
        above_low = self.above.own_range[0]
        if elo < above_low and elo - self.own_range[1] <= above_low - elo:
            return self  # in the gap, nearer this scale's top
        return self.above.segment_for(elo)

    def elo_at(self, value: float) -> float:
        """The fitted Elo at a knob value (linear between points; the ends beyond)."""
        return float(np.interp(value, [p.value for p in self.points], self.fitted()))

    def pick(self, elo: float) -> tuple[ExternalScale, ScaleChoice]:
        """The scale of the chain that plays an asked ``elo`` and its choice there; clamped
        only outside the whole chain's range (in a gap between two scales the nearer end is
        played, the played Elo saying how far it is)."""
        segment = self.segment_for(elo)
        choice = segment.choose(elo)
        low, high = self.elo_range
        return segment, choice._replace(clamped=not low <= elo <= high)

    def choose(self, elo: float) -> ScaleChoice:
        """The knob value for an asked ``elo`` (step 2 of the module doc) on this scale's own
        points; a chain's caller picks the scale first (:meth:`segment_for`)."""
        if not math.isfinite(elo):
            raise ValueError(f"elo must be a finite number, not {elo!r}")
        pairs = [(p.value, fit) for p, fit in zip(self.points, self.fitted(), strict=True)]
        top = max(fit for _, fit in pairs)
        low = pairs[0]
        high = next(pair for pair in pairs if pair[1] == top)  # the top run's first value
        if elo <= low[1]:
            return ScaleChoice(low[0], low[1], elo < low[1])
        if elo >= high[1]:
            return ScaleChoice(high[0], high[1], elo > high[1])
        for (v0, e0), (v1, e1) in itertools.pairwise(pairs):
            if e0 < e1 and e0 <= elo <= e1:  # the first rising stretch that reaches it
                value = v0 + (v1 - v0) * (elo - e0) / (e1 - e0)
                if self.knob in WHOLE_KNOBS:
                    value = float(math.floor(value + 0.5))
                    return ScaleChoice(value, self.elo_at(value), False)
                return ScaleChoice(value, elo, False)
        raise AssertionError("unreachable: elo lies inside the fitted range")

    def to_json(self) -> str:
        return json.dumps(self._data(), indent=2) + "\n"

    def _data(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "game": self.game,
            "scale": self.scale,
            "knob": self.knob,
            "search": dict(self.search),
            "points": [
                {
                    "value": p.value,
                    "elo": p.elo,
                    "plus_minus": p.plus_minus,
                    "games": p.games,
                    "score": p.score,
                }
                for p in self.points
            ],
            "command": self.command,
        }
        if self.offset:
            data["offset"] = self.offset
        if self.above is not None:
            data["above"] = self.above._data()
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ExternalScale:
        known = {"game", "scale", "knob", "search", "points", "command", "above", "offset"}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown keys {sorted(unknown)}")
        points = []
        for item in data["points"]:
            extra = set(item) - {"value", "elo", "plus_minus", "games", "score"}
            if extra:
                raise ValueError(f"unknown point keys {sorted(extra)}")
            values = (item["value"], item["elo"], item["plus_minus"], item["score"])
            value, elo, plus_minus, score = (float(v) for v in values)
            points.append(ScalePoint(value, elo, plus_minus, int(item["games"]), score))
        search = dict(data["search"])
        for key in ("sims", "sf_nodes"):
            value = search.get(key, 0)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"search option {key} must be an integer")
        for key in ("model", "rank"):
            if key in search and not isinstance(search[key], str):
                raise ValueError(f"search option {key} must be text")
        if "sweep" in search and not isinstance(search["sweep"], bool):
            raise ValueError("search option sweep must be true or false")
        above = None if data.get("above") is None else cls.from_json(data["above"])
        return cls(str(data["game"]), str(data["scale"]), str(data["knob"]), search,
                   tuple(points), str(data.get("command", "")), above,
                   float(data.get("offset", 0.0)))  # fmt: skip

    @classmethod
    def read(cls, path: Path) -> ExternalScale:
        """The scale in ``path``; :class:`~sparring.errors.PlayerResourceError` (one line,
        key ``scale``) when it is missing or not a scale file."""
        if not path.is_file():
            raise PlayerResourceError(
                f"strength scale {str(path)!r} not found (write one with `sparring scale-fit`)",
                key="scale",
            )
        try:
            return cls.from_json(json.loads(path.read_text()))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise PlayerResourceError(
                f"{path}: not a strength scale file ({exc})", key="scale"
            ) from None


def default_scale(game_name: str) -> Path:
    """Where the shipped scale of ``game_name`` lives (it may not exist):
    ``models/estimators/`` beside the shipped estimators, :data:`SCALE_FILES`' name
    (``GAME-stockfish-scale.json`` for a game without one)."""
    return ESTIMATOR_DIR / SCALE_FILES.get(game_name, f"{game_name}-stockfish-scale.json")


__all__ = [
    "KNOBS",
    "SCALE_FIELDS",
    "SCALE_FILES",
    "SCALE_GAMES",
    "SCALE_KEYS",
    "WHOLE_KNOBS",
    "ExternalScale",
    "ScaleChoice",
    "ScalePoint",
    "default_scale",
    "monotone_fit",
    "scale_search",
]
