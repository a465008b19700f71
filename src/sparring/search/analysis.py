"""One analysis record of a move: what a searching player thought (:class:`MoveAnalysis`).

Every searching player (UCT, minimax, AlphaZero, SA, DSA, AlphaDDA1-3, the human-like kinds)
returns one :class:`MoveAnalysis` with each move, in the
:class:`~sparring.players.base.Decision` of :meth:`~sparring.players.base.Player.play`
(:attr:`~sparring.players.base.Decision.analysis`): the root's moves with their visits,
``Q`` and priors, the principal variation, the simulations, nodes and time spent, whether a
:class:`~sparring.search.limit.Limit` cut the search short, and for strength-adjusted players
the setting played (:class:`StrengthReport`: ``z``, ``R_th``, floor, the Elo asked for and the
Elo played, clamped or not) with any notice as data.  It is typed, immutable and JSON
round-trips (:meth:`MoveAnalysis.to_json` / :meth:`MoveAnalysis.from_json`): what UCI ``info``
lines, GTP analysis and the web page show.  The game store keeps the older, smaller
annotations derived from it (:attr:`~sparring.players.base.Decision.annotation`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

import numpy as np

from sparring.errors import BadValueError
from sparring.search.stats import RootStats

JsonValue: TypeAlias = bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"] | None
"""A value that :func:`json.dumps` writes and :func:`json.loads` reads back unchanged (also
:data:`sparring.players.base.JsonValue`)."""

SearchKind = Literal["puct", "uct", "minimax", "none"]
"""Which search produced the record (``none``: a move played without searching, e.g. an SA
floor's random move)."""
SEARCH_KINDS: tuple[str, ...] = ("puct", "uct", "minimax", "none")


def _float_json(x: float | None) -> float | str | None:
    """A float as JSON: NaN and infinities as the strings ``"nan"``, ``"inf"``, ``"-inf"``."""
    if x is None:
        return None
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return float(x)


def _float_from(value: Any, key: str, optional: bool = False) -> float | None:
    if value is None and optional:
        return None
    if isinstance(value, str) and value in ("nan", "inf", "-inf"):
        return float(value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadValueError(f"analysis {key} must be a number, not {value!r}", key=key)
    return float(value)


def _int_from(value: Any, key: str, optional: bool = False) -> int | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadValueError(f"analysis {key} must be an integer, not {value!r}", key=key)
    return value


def _list_from(value: Any, key: str) -> list[Any]:
    if not isinstance(value, list):
        raise BadValueError(f"analysis {key} must be a list, not {value!r}", key=key)
    return value


def _ints(data: Mapping[str, Any], key: str) -> tuple[int, ...]:
    return tuple(int(_int_from(x, key) or 0) for x in _list_from(data.get(key, []), key))


def _floats(data: Mapping[str, Any], key: str) -> tuple[float, ...]:
    return tuple(float(_float_from(x, key) or 0.0) for x in _list_from(data.get(key, []), key))


@dataclass(frozen=True)
class StrengthReport:
    """The strength setting a strength-adjusted player used for a move."""

    z: float
    """Strength index ``z`` of Wu et al. (``+inf``: plain play)."""
    rth: float
    """Threshold ratio ``R_th``."""
    floor: float = 0.0
    """Floor level below ``z = -inf`` (0: none)."""
    elo_asked: float | None = None
    """The target Elo asked for, if the setting came from a target Elo."""
    elo_played: float | None = None
    """The Elo the setting plays at according to the calibration (the target unless
    clamped)."""
    clamped: bool = False
    """Whether the target lay outside the calibrated range and the nearest end was played."""

    def to_json(self) -> dict[str, JsonValue]:
        """JSON values (infinite ``z`` as ``"inf"`` / ``"-inf"``)."""
        return {
            "z": _float_json(self.z),
            "rth": float(self.rth),
            "floor": float(self.floor),
            "elo_asked": _float_json(self.elo_asked),
            "elo_played": _float_json(self.elo_played),
            "clamped": bool(self.clamped),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> StrengthReport:
        """Read :meth:`to_json`'s output; :class:`BadValueError` naming a bad or unknown key."""
        known = {"z", "rth", "floor", "elo_asked", "elo_played", "clamped"}
        for key in data:
            if key not in known:
                raise BadValueError(f"unknown strength report key {key!r}", key=key)
        clamped = data.get("clamped", False)
        if not isinstance(clamped, bool):
            raise BadValueError(f"strength clamped must be true or false, not {clamped!r}",
                                key="clamped")  # fmt: skip
        z = _float_from(data.get("z"), "z")
        rth = _float_from(data.get("rth"), "rth")
        assert z is not None and rth is not None
        return cls(
            z=z,
            rth=rth,
            floor=_float_from(data.get("floor", 0.0), "floor") or 0.0,
            elo_asked=_float_from(data.get("elo_asked"), "elo_asked", optional=True),
            elo_played=_float_from(data.get("elo_played"), "elo_played", optional=True),
            clamped=clamped,
        )


@dataclass(frozen=True)
class MoveAnalysis:
    """What a searching player thought about one move.  Per-move tuples are indexed alike,
    one entry per legal move of the root in the game's move-generation order."""

    move: int
    """The move played."""
    search: SearchKind
    """The search behind it (``"none"``: played without a search)."""
    moves: tuple[int, ...] = ()
    """The root's legal moves (empty without a search)."""
    visits: tuple[int, ...] = ()
    """Visit counts ``N(s_root, a)`` (minimax: all 0)."""
    q: tuple[float, ...] = ()
    """``Q(s_root, a)`` in ``[-1, 1]`` for the player to move (PUCT, UCT); minimax: each
    move's minimax value on the game's evaluation scale (exact for the best moves, an upper
    bound for the others)."""
    priors: tuple[float, ...] = ()
    """Priors ``P(s_root, a)`` (UCT and minimax: uniform)."""
    pv: tuple[int, ...] = ()
    """The principal variation, the move played by the search first (minimax: the best move
    alone)."""
    value: float | None = None
    """The search's value of the root for the player to move (``[-1, 1]``; minimax: its
    evaluation scale), None when unknown."""
    simulations: int = 0
    """Simulations done (minimax: 0)."""
    budget: int | None = None
    """The simulations the search set out to do (the player's own count, capped by the
    limit's ``simulations``); more than :attr:`simulations` when the limit's clock, node bound
    or stop flag ended it early.  None when unknown (minimax, no search)."""
    nodes: int = 0
    """Tree nodes created (minimax: leaves evaluated)."""
    depth: int | None = None
    """Minimax: the depth of the deepest completed iteration; None for the other searches."""
    time: float = 0.0
    """Seconds the move took (search and pick)."""
    stopped: bool = False
    """Whether a :class:`~sparring.search.limit.Limit` (time, nodes, stop) ended the search
    before its own budget."""
    strength: StrengthReport | None = None
    """The strength setting played (strength-adjusted players), else None."""
    notices: tuple[str, ...] = ()
    """Things the user should know about this player's setting (e.g. a clamped target)."""
    annotations: dict[str, JsonValue] = field(default_factory=dict)
    """Player-specific values in the order the player reports them (AlphaDDA's ``v``,
    ``vbar``, ``sims`` / ``p_drop`` / ``c``, ``floor``; SE-MCTS's ``target``; an adaptive
    player's ``z``, ``elo``, ...)."""

    def __post_init__(self) -> None:
        if self.search not in SEARCH_KINDS:
            raise BadValueError(
                f"analysis search must be one of {', '.join(SEARCH_KINDS)}, not {self.search!r}",
                key="search",
            )
        n = len(self.moves)
        for key in ("visits", "q", "priors"):
            if len(getattr(self, key)) != n:
                raise BadValueError(f"analysis {key} must have one entry per move ({n})", key=key)

    @classmethod
    def from_root(
        cls,
        move: int,
        search: SearchKind,
        root: RootStats | None,
        *,
        time: float = 0.0,
        stopped: bool = False,
        strength: StrengthReport | None = None,
        notices: tuple[str, ...] = (),
        annotations: Mapping[str, JsonValue] | None = None,
        budget: int | None = None,
    ) -> MoveAnalysis:
        """The record of a move played after the search with root statistics ``root`` (None:
        no search); ``budget``: the simulations the search set out to do."""
        if root is None:
            return cls(
                int(move), "none", time=time, stopped=stopped, strength=strength,
                notices=notices, annotations=dict(annotations or {}),
            )  # fmt: skip
        value = float(root.value)
        return cls(
            move=int(move),
            search=search,
            moves=tuple(int(m) for m in root.moves),
            visits=tuple(int(v) for v in root.visits),
            q=tuple(float(x) for x in root.q),
            priors=tuple(float(p) for p in root.priors),
            pv=tuple(int(m) for m in root.pv),
            value=None if math.isnan(value) else value,
            simulations=int(root.simulations),
            budget=None if budget is None else int(budget),
            nodes=int(root.nodes),
            time=time,
            stopped=stopped,
            strength=strength,
            notices=notices,
            annotations=dict(annotations or {}),
        )

    def best_moves(self) -> tuple[int, ...]:
        """The most visited root moves (minimax: those of the best value)."""
        if not self.moves:
            return ()
        scores = self.q if self.search == "minimax" else self.visits
        top = max(scores)
        return tuple(m for m, s in zip(self.moves, scores, strict=True) if s == top)

    def policy(self, num_actions: int) -> np.ndarray:
        """Visit proportions over the action space (all zeros without visits)."""
        pi = np.zeros(num_actions, dtype=np.float64)
        total = sum(self.visits)
        if total > 0:
            pi[list(self.moves)] = np.asarray(self.visits, dtype=np.float64) / total
        return pi

    def to_json(self) -> dict[str, JsonValue]:
        """JSON values (NaN and infinities as strings); :meth:`from_json` reads them back."""
        return {
            "move": self.move,
            "search": self.search,
            "moves": list(self.moves),
            "visits": list(self.visits),
            "q": [_float_json(x) for x in self.q],
            "priors": [_float_json(x) for x in self.priors],
            "pv": list(self.pv),
            "value": _float_json(self.value),
            "simulations": self.simulations,
            "budget": self.budget,
            "nodes": self.nodes,
            "depth": self.depth,
            "time": self.time,
            "stopped": self.stopped,
            "strength": None if self.strength is None else self.strength.to_json(),
            "notices": list(self.notices),
            "annotations": dict(self.annotations),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MoveAnalysis:
        """Read :meth:`to_json`'s output; :class:`BadValueError` naming a bad or unknown key."""
        known = {
            "move", "search", "moves", "visits", "q", "priors", "pv", "value", "simulations",
            "budget", "nodes", "depth", "time", "stopped", "strength", "notices", "annotations",
        }  # fmt: skip
        for key in data:
            if key not in known:
                raise BadValueError(f"unknown analysis key {key!r}", key=key)
        if "move" not in data or "search" not in data:
            raise BadValueError("an analysis needs 'move' and 'search'", key="move")
        stopped = data.get("stopped", False)
        if not isinstance(stopped, bool):
            raise BadValueError(f"analysis stopped must be true or false, not {stopped!r}",
                                key="stopped")  # fmt: skip
        notices = _list_from(data.get("notices", []), "notices")
        if not all(isinstance(n, str) for n in notices):
            raise BadValueError("analysis notices must be strings", key="notices")
        annotations = data.get("annotations", {})
        if not isinstance(annotations, dict):
            raise BadValueError("analysis annotations must be an object", key="annotations")
        strength = data.get("strength")
        if strength is not None and not isinstance(strength, Mapping):
            raise BadValueError("analysis strength must be an object or null", key="strength")
        move = _int_from(data["move"], "move")
        assert move is not None
        return cls(
            move=move,
            search=data["search"],
            moves=_ints(data, "moves"),
            visits=_ints(data, "visits"),
            q=_floats(data, "q"),
            priors=_floats(data, "priors"),
            pv=_ints(data, "pv"),
            value=_float_from(data.get("value"), "value", optional=True),
            simulations=_int_from(data.get("simulations", 0), "simulations") or 0,
            budget=_int_from(data.get("budget"), "budget", optional=True),
            nodes=_int_from(data.get("nodes", 0), "nodes") or 0,
            depth=_int_from(data.get("depth"), "depth", optional=True),
            time=_float_from(data.get("time", 0.0), "time") or 0.0,
            stopped=stopped,
            strength=None if strength is None else StrengthReport.from_json(strength),
            notices=tuple(notices),
            annotations=dict(annotations),
        )


__all__ = ["SEARCH_KINDS", "MoveAnalysis", "SearchKind", "StrengthReport"]
