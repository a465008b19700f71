"""A person's profile: who they are, what the adaptive players learned about them, their games
and their strength over time.

One :class:`Profile` is one JSON document (``format`` :data:`PROFILE_FORMAT`, ``version``
:data:`PROFILE_VERSION`), written by ``sparring play --profile FILE`` and meant to be stored
as it is by a service (:meth:`Profile.to_json` / :meth:`Profile.from_json`)::

    {"format": "sparring.profile", "version": 1,
     "identity": {"id": "3f2c...", "display_name": "ann", "created": "2026-11-25T20:00:00+00:00"},
     "adaptive": [{"game": "connect4", "kind": "dsa", "spec": "dsa:sims=200",
                   "settings": {...} | null, "state": {...} | null, "updated": "..."}],
     "history": [{"game_id": "...", "game": "connect4", "game_params": {}, "date": "...",
                  "side": 0, "result": 0.0, "moves": 23, "opponent": {...}, "record": null}],
     "estimates": [{"time": "...", "game": "connect4", "estimate": 1420.5,
                    "kind": "dsa:opponent_elo"}]}

**Adaptive state is keyed by game and adaptive kind** (``connect4`` + ``dsa``), not by the
full spec text: an option that does not change what the state means (``sims``, ``name``, a
calibration path moved elsewhere) must not lose what the player learned about the person.  The
entry keeps the spec and settings it was last played with; when a new setting does change the
meaning (a DSA ``mode`` whose state has another shape) the player's own check rejects the state
and :meth:`Profile.restore_adaptive` raises :class:`~sparring.errors.IncompatibleError` naming
both specs.  The game key is the game's name (``go13``), so a komi change keeps the state.

Reading is strict: an unknown key, a value of the wrong type or a malformed time raises
:class:`~sparring.errors.BadValueError` naming the field; a file that cannot be read
:class:`~sparring.errors.MissingResourceError`; another format or a newer version
:class:`~sparring.errors.IncompatibleError`.  The profiles of ``play --adaptive --profile``
before this module (``format`` ``sparring-adaptive-profile``, version 1: one game, one spec,
one state) are read and upgraded (:func:`upgrade_legacy`).  :func:`save_profile` writes
atomically (a temporary file in the same folder, flushed to disk, then renamed over the old).
"""

from __future__ import annotations

import datetime
import json
import math
import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sparring.errors import (
    BadValueError,
    IncompatibleError,
    MissingResourceError,
)
from sparring.games.base import Game
from sparring.players.base import JsonValue, Player, PlayerState
from sparring.players.registry import PlayerSpec
from sparring.session import GameSession

PROFILE_FORMAT = "sparring.profile"
PROFILE_VERSION = 1
LEGACY_FORMAT = "sparring-adaptive-profile"
"""The ``format`` of the single-state files ``play --adaptive --profile`` wrote before."""

OPPONENT_ELO_ESTIMATE = "dsa:opponent_elo"
"""The kind of estimate an adaptive player's saved ``opponent_elo`` gives (DSA's estimate of
the person's Elo on the baseline-ladder scale, Random = 1000)."""


def now_text() -> str:
    """The current time, UTC, ISO 8601 with seconds (the profile's time format)."""
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def _check_time(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise BadValueError(f"profile: {where} must be an ISO 8601 time text, not {value!r}", where)
    try:
        datetime.datetime.fromisoformat(value)
    except ValueError:
        raise BadValueError(f"profile: {where} {value!r} is not an ISO 8601 time", where) from None
    return value


def _fields(
    data: object, where: str, required: set[str], optional: frozenset[str] | set[str] = frozenset()
) -> dict[str, Any]:
    """``data`` checked to be an object with exactly the ``required`` keys and some of the
    ``optional`` ones."""
    if not isinstance(data, dict):
        raise BadValueError(f"profile: {where} must be an object, not {type(data).__name__}", where)
    unknown = sorted(set(data) - required - optional)
    if unknown:
        raise BadValueError(
            f"profile: {where} has an unknown key {unknown[0]!r} "
            f"(keys: {', '.join(sorted(required | optional))})",
            f"{where}.{unknown[0]}",
        )
    missing = sorted(required - set(data))
    if missing:
        raise BadValueError(f"profile: {where} lacks {missing[0]!r}", f"{where}.{missing[0]}")
    return data


def _text(value: object, where: str, empty: bool = False) -> str:
    if not isinstance(value, str) or (not empty and not value):
        raise BadValueError(f"profile: {where} must be a non-empty text, not {value!r}", where)
    return value


def _number(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise BadValueError(f"profile: {where} must be a finite number, not {value!r}", where)
    return float(value)


def _object_or_null(value: object, where: str) -> dict[str, JsonValue] | None:
    if value is not None and not isinstance(value, dict):
        raise BadValueError(f"profile: {where} must be an object or null, not {value!r}", where)
    return value


@dataclass(frozen=True)
class Identity:
    """Who the profile belongs to."""

    id: str
    """A stable identifier (a random UUID's hex when made here; a service may use its own)."""
    display_name: str
    """The name shown to people (may be empty)."""
    created: str
    """When the profile was made (ISO 8601, UTC)."""

    def to_json(self) -> dict[str, JsonValue]:
        """The identity as JSON values."""
        return {"id": self.id, "display_name": self.display_name, "created": self.created}

    @classmethod
    def from_json(cls, data: object) -> Identity:
        """Strictly read :meth:`to_json`'s form."""
        d = _fields(data, "identity", {"id", "display_name", "created"})
        return cls(
            _text(d["id"], "identity.id"),
            _text(d["display_name"], "identity.display_name", empty=True),
            _check_time(d["created"], "identity.created"),
        )


@dataclass(frozen=True)
class AdaptiveEntry:
    """What one adaptive player kind learned about the person in one game."""

    game: str
    """The game's name (``connect4``, ``go13``)."""
    kind: str
    """The adaptive player kind (``dsa``, ``alphadda1``): with :attr:`game`, the key."""
    spec: str
    """The spec text the player was last played with."""
    settings: dict[str, JsonValue] | None
    """Its settings as JSON (None where the player has no typed settings)."""
    state: PlayerState | None
    """What :meth:`~sparring.players.base.Player.save_state` returned after the last game."""
    updated: str
    """When :attr:`state` was written (ISO 8601, UTC)."""

    def to_json(self) -> dict[str, JsonValue]:
        """The entry as JSON values."""
        return {
            "game": self.game,
            "kind": self.kind,
            "spec": self.spec,
            "settings": self.settings,
            "state": self.state,
            "updated": self.updated,
        }

    @classmethod
    def from_json(cls, data: object, where: str = "adaptive") -> AdaptiveEntry:
        """Strictly read :meth:`to_json`'s form."""
        d = _fields(data, where, {"game", "kind", "spec", "settings", "state", "updated"})
        return cls(
            _text(d["game"], f"{where}.game"),
            _text(d["kind"], f"{where}.kind"),
            _text(d["spec"], f"{where}.spec"),
            _object_or_null(d["settings"], f"{where}.settings"),
            _object_or_null(d["state"], f"{where}.state"),
            _check_time(d["updated"], f"{where}.updated"),
        )


@dataclass(frozen=True)
class GameEntry:
    """One game the person played."""

    game_id: str
    """An identifier of the game (unique within the profile)."""
    game: str
    """The game's name."""
    game_params: dict[str, JsonValue]
    """The game's parameters (:meth:`~sparring.games.base.Game.params`: board size, komi)."""
    date: str
    """When the game ended (ISO 8601, UTC)."""
    side: int
    """The side the person played (0 moves first)."""
    result: float
    """The person's score: 1 win, 0.5 draw, 0 loss."""
    moves: int
    """Moves played."""
    opponent: dict[str, JsonValue]
    """The opponent: its ``spec`` and ``settings`` (JSON or null) and ``seed``."""
    record: str | None = None
    """Where the game's record is kept (a file written by ``--save``, a store key), or None."""

    def to_json(self) -> dict[str, JsonValue]:
        """The entry as JSON values."""
        return {
            "game_id": self.game_id,
            "game": self.game,
            "game_params": dict(self.game_params),
            "date": self.date,
            "side": self.side,
            "result": self.result,
            "moves": self.moves,
            "opponent": dict(self.opponent),
            "record": self.record,
        }

    @classmethod
    def from_json(cls, data: object, where: str = "history") -> GameEntry:
        """Strictly read :meth:`to_json`'s form."""
        keys = {"game_id", "game", "game_params", "date", "side", "result", "moves", "opponent"}
        d = _fields(data, where, keys, {"record"})
        side, moves = d["side"], d["moves"]
        if side not in (0, 1) or isinstance(side, bool):
            raise BadValueError(f"profile: {where}.side must be 0 or 1, not {side!r}", "side")
        if isinstance(moves, bool) or not isinstance(moves, int) or moves < 0:
            raise BadValueError(f"profile: {where}.moves must be an integer >= 0", "moves")
        result = _number(d["result"], f"{where}.result")
        if result not in (0.0, 0.5, 1.0):
            raise BadValueError(f"profile: {where}.result must be 0, 0.5 or 1, not {result}")
        params = _object_or_null(d["game_params"], f"{where}.game_params")
        opponent = _object_or_null(d["opponent"], f"{where}.opponent")
        record = d.get("record")
        if record is not None:
            record = _text(record, f"{where}.record")
        return cls(
            _text(d["game_id"], f"{where}.game_id"),
            _text(d["game"], f"{where}.game"),
            params or {},
            _check_time(d["date"], f"{where}.date"),
            int(side),
            result,
            moves,
            opponent or {},
            record,
        )


@dataclass(frozen=True)
class StrengthEstimate:
    """One estimate of the person's strength at a time."""

    time: str
    """When it was made (ISO 8601, UTC)."""
    game: str
    """The game it is about."""
    estimate: float | str
    """The estimate: an Elo (a number) or a rank (a text such as ``3d``)."""
    kind: str
    """What made it and on which scale, e.g. :data:`OPPONENT_ELO_ESTIMATE`."""

    def to_json(self) -> dict[str, JsonValue]:
        """The estimate as JSON values."""
        return {"time": self.time, "game": self.game, "estimate": self.estimate, "kind": self.kind}

    @classmethod
    def from_json(cls, data: object, where: str = "estimates") -> StrengthEstimate:
        """Strictly read :meth:`to_json`'s form."""
        d = _fields(data, where, {"time", "game", "estimate", "kind"})
        value = d["estimate"]
        estimate = (
            value if isinstance(value, str) and value else _number(value, f"{where}.estimate")
        )
        return cls(
            _check_time(d["time"], f"{where}.time"),
            _text(d["game"], f"{where}.game"),
            estimate,
            _text(d["kind"], f"{where}.kind"),
        )


def adaptive_kind(spec: str) -> str:
    """The kind a spec text names (``dsa:sims=4`` -> ``dsa``): the profile's key part."""
    return PlayerSpec.parse(spec).kind


@dataclass
class Profile:
    """A person's identity, their adaptive players' states, games and strength estimates."""

    identity: Identity
    adaptive: list[AdaptiveEntry] = field(default_factory=list)
    """One entry per (game, adaptive kind)."""
    history: list[GameEntry] = field(default_factory=list)
    """The games, oldest first."""
    estimates: list[StrengthEstimate] = field(default_factory=list)
    """The strength estimates, oldest first."""

    @classmethod
    def new(
        cls, display_name: str = "", *, id: str | None = None, now: str | None = None
    ) -> Profile:
        """A fresh profile (a random id unless given; created now unless ``now``)."""
        return cls(Identity(id or uuid.uuid4().hex, display_name, now or now_text()))

    # ---- adaptive players ------------------------------------------------------------------
    def adaptive_entry(self, game: str, kind: str) -> AdaptiveEntry | None:
        """The entry of ``kind`` in ``game``, or None."""
        for entry in self.adaptive:
            if entry.game == game and entry.kind == kind:
                return entry
        return None

    def restore_adaptive(self, player: Player, game: Game, spec: str) -> AdaptiveEntry | None:
        """Give ``player`` (built from ``spec``) the state kept for its kind in ``game``; the
        entry used, or None when there is none.  :class:`IncompatibleError` when the player
        rejects the state (kept under another setting that changes its meaning)."""
        entry = self.adaptive_entry(game.name, adaptive_kind(spec))
        if entry is None or entry.state is None:
            return entry
        try:
            player.restore_state(entry.state)
        except (ValueError, TypeError, KeyError) as err:
            raise IncompatibleError(
                f"the profile's {entry.kind} state in {game.name} was kept by {entry.spec!r} "
                f"and does not fit {spec!r}: {err}"
            ) from None
        return entry

    def keep_adaptive(
        self, game: Game, spec: str, player: Player, *, now: str | None = None
    ) -> AdaptiveEntry:
        """Store ``player``'s :meth:`~Player.save_state` under its kind in ``game`` (replacing
        the entry there), with the spec and settings it was played with."""
        settings = getattr(player, "settings", None)
        entry = AdaptiveEntry(
            game.name,
            adaptive_kind(spec),
            spec,
            None if settings is None else settings.to_json(),
            player.save_state(),
            now or now_text(),
        )
        self.adaptive = [
            e for e in self.adaptive if (e.game, e.kind) != (entry.game, entry.kind)
        ] + [entry]
        return entry

    # ---- games and estimates ---------------------------------------------------------------
    def record_game(
        self,
        session: GameSession,
        side: int,
        opponent_spec: str | None = None,
        *,
        record: str | None = None,
        now: str | None = None,
    ) -> GameEntry:
        """Add the finished ``session``, in which the person played ``side`` against the
        player on the other side (named by ``opponent_spec``; by default its settings' spec
        text, else its name), to the history.  BadValueError while the game is not over."""
        if not session.is_over:
            raise BadValueError("profile: only a finished game goes into the history")
        opponent = session.players[1 - side]
        settings = getattr(opponent, "settings", None)
        seed = getattr(opponent, "seed", None)
        if opponent_spec is None:
            opponent_spec = (
                settings.spec()
                if settings is not None
                else opponent.name
                if opponent is not None
                else session.names[1 - side]
            )
        entry = GameEntry(
            game_id=uuid.uuid4().hex,
            game=session.game.name,
            game_params=dict(session.game.params()),
            date=now or now_text(),
            side=side,
            result=session.score_for(side),
            moves=session.ply,
            opponent={
                "spec": opponent_spec,
                "settings": None if settings is None else settings.to_json(),
                "seed": seed if isinstance(seed, int) else None,
            },
            record=record,
        )
        self.history.append(entry)
        return entry

    def add_estimate(
        self, game: str, estimate: float | str, kind: str, *, now: str | None = None
    ) -> StrengthEstimate:
        """Add a strength estimate made now (or at ``now``); BadValueError for an estimate
        that is neither a finite number nor a non-empty text."""
        if not (isinstance(estimate, str) and estimate):
            estimate = _number(estimate, "estimate")
        item = StrengthEstimate(now or now_text(), game, estimate, kind)
        self.estimates.append(item)
        return item

    def estimate_from_state(
        self, game: str, state: PlayerState | None, *, now: str | None = None
    ) -> StrengthEstimate | None:
        """Add the adaptive player's estimate of the person in its saved ``state``
        (``opponent_elo``, :data:`OPPONENT_ELO_ESTIMATE`) when there is one."""
        value = None if state is None else state.get("opponent_elo")
        if value is None or isinstance(value, bool) or not isinstance(value, int | float):
            return None
        return self.add_estimate(game, float(value), OPPONENT_ELO_ESTIMATE, now=now)

    def finish_adaptive_game(
        self,
        session: GameSession,
        side: int,
        spec: str,
        player: Player,
        *,
        now: str | None = None,
    ) -> StrengthEstimate | None:
        """After a finished game of ``play --adaptive``: keep the adaptive ``player``'s state
        (:meth:`keep_adaptive`), add the game (:meth:`record_game`) and the player's estimate
        of the person (:meth:`estimate_from_state`, returned; None when it has none)."""
        when = now or now_text()
        entry = self.keep_adaptive(session.game, spec, player, now=when)
        self.record_game(session, side, spec, now=when)
        return self.estimate_from_state(session.game.name, entry.state, now=when)

    # ---- JSON ----------------------------------------------------------------------------------
    def to_json(self) -> dict[str, JsonValue]:
        """The profile as JSON values (the file's content)."""
        return {
            "format": PROFILE_FORMAT,
            "version": PROFILE_VERSION,
            "identity": self.identity.to_json(),
            "adaptive": [e.to_json() for e in self.adaptive],
            "history": [g.to_json() for g in self.history],
            "estimates": [e.to_json() for e in self.estimates],
        }

    @classmethod
    def from_json(cls, data: object, *, display_name: str = "") -> Profile:
        """Strictly read :meth:`to_json`'s form, or upgrade a legacy profile
        (:func:`upgrade_legacy`, named ``display_name``)."""
        if isinstance(data, Mapping) and data.get("format") == LEGACY_FORMAT:
            return upgrade_legacy(data, display_name=display_name)
        if not isinstance(data, Mapping) or data.get("format") != PROFILE_FORMAT:
            found = data.get("format") if isinstance(data, Mapping) else type(data).__name__
            raise IncompatibleError(
                f"not a sparring profile (format {found!r}, expected {PROFILE_FORMAT!r})"
            )
        version = data.get("version")
        if version != PROFILE_VERSION or isinstance(version, bool):
            raise IncompatibleError(
                f"profile version {version!r} is not supported (expected {PROFILE_VERSION})"
            )
        d = _fields(
            dict(data),
            "profile",
            {"format", "version", "identity", "adaptive", "history", "estimates"},
        )
        lists = {}
        for key in ("adaptive", "history", "estimates"):
            if not isinstance(d[key], list):
                raise BadValueError(f"profile: {key} must be a list", key)
            lists[key] = d[key]
        adaptive = [
            AdaptiveEntry.from_json(e, f"adaptive[{i}]") for i, e in enumerate(lists["adaptive"])
        ]
        keys = [(e.game, e.kind) for e in adaptive]
        if len(set(keys)) != len(keys):
            dup = next(k for k in keys if keys.count(k) > 1)
            raise BadValueError(
                f"profile: two adaptive entries for {dup[1]} in {dup[0]}", "adaptive"
            )
        return cls(
            Identity.from_json(d["identity"]),
            adaptive,
            [GameEntry.from_json(g, f"history[{i}]") for i, g in enumerate(lists["history"])],
            [
                StrengthEstimate.from_json(e, f"estimates[{i}]")
                for i, e in enumerate(lists["estimates"])
            ],
        )


def upgrade_legacy(
    data: Mapping[str, Any], *, display_name: str = "", now: str | None = None
) -> Profile:
    """A profile from a ``sparring-adaptive-profile`` version-1 file (``game``, ``spec``,
    ``state``): a new identity and one adaptive entry under the spec's kind."""
    version = data.get("version", 1)
    if version != 1:
        raise IncompatibleError(
            f"adaptive profile version {version!r} is not supported (expected 1)"
        )
    game = _text(data.get("game"), "game")
    spec = _text(data.get("spec"), "spec")
    state = data.get("state")
    when = now or now_text()
    profile = Profile.new(display_name, now=when)
    profile.adaptive.append(
        AdaptiveEntry(
            game,
            adaptive_kind(spec),
            spec,
            None,
            state if isinstance(state, dict) else None,
            when,
        )
    )
    return profile


def load_profile(path: Path) -> Profile:
    """The profile in ``path`` (legacy files upgraded; the display name of a new identity is
    the file's stem).  MissingResourceError when it cannot be read; see the module docstring
    for the other errors."""
    try:
        text = path.read_text()
    except OSError as err:
        raise MissingResourceError(
            f"profile {str(path)!r} cannot be read: {err.strerror}"
        ) from None
    try:
        data = json.loads(text)
    except ValueError as err:
        raise BadValueError(f"profile {str(path)!r} is not JSON: {err}") from None
    try:
        return Profile.from_json(data, display_name=path.stem)
    except (BadValueError, IncompatibleError) as err:
        raise type(err)(f"{str(path)!r}: {err}") from None


def load_or_new(path: Path, display_name: str | None = None) -> tuple[Profile, bool]:
    """The profile in ``path`` and True, or a new one (named ``display_name``, by default the
    file's stem) and False when the file does not exist."""
    if not path.exists():
        return Profile.new(path.stem if display_name is None else display_name), False
    return load_profile(path), True


def save_profile(profile: Profile, path: Path) -> None:
    """Write ``profile`` to ``path`` atomically: a temporary file beside it, flushed to disk,
    then renamed over ``path`` (a crash leaves the old file or the new one, never half of
    one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("w") as fh:
            fh.write(json.dumps(profile.to_json(), indent=2) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


__all__ = [
    "LEGACY_FORMAT",
    "OPPONENT_ELO_ESTIMATE",
    "PROFILE_FORMAT",
    "PROFILE_VERSION",
    "AdaptiveEntry",
    "GameEntry",
    "Identity",
    "Profile",
    "StrengthEstimate",
    "adaptive_kind",
    "load_or_new",
    "load_profile",
    "now_text",
    "save_profile",
    "upgrade_legacy",
]
