"""Player specifications: text such as ``mcts1`` or ``uct:sims=500`` that names a player.

A spec is ``KIND`` or ``KIND:key=value,key=value``.  Presets (``mcts1`` ... ``minimax2``)
are the AlphaDDA baselines; kinds take options.  Specs are read only at the edges (command
line, configuration, stored games): :func:`parse_player` turns one into the typed settings of
its kind (:mod:`sparring.players.settings`) with the parser registered for the kind, and
:func:`make_player` builds the player from those.  Unknown kinds and unknown or malformed
options raise :class:`~sparring.errors.UnknownPlayerError` with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from sparring.errors import UnknownPlayerError
from sparring.games.base import Game
from sparring.players.base import Player

if TYPE_CHECKING:
    from sparring.players.cache import PlayerCache
    from sparring.players.settings import PlayerSettings


@dataclass(frozen=True)
class PlayerSpec:
    """A parsed player specification."""

    kind: str
    options: dict[str, str]
    text: str

    @classmethod
    def parse(cls, text: str) -> PlayerSpec:
        """Split ``KIND:key=value,...``; reject empty kinds and malformed options."""
        raw = text.strip()
        kind, _, rest = raw.partition(":")
        kind = kind.strip().lower()
        if not kind:
            raise UnknownPlayerError(f"bad player spec {text!r}: empty player kind")
        options: dict[str, str] = {}
        if rest.strip():
            for item in rest.split(","):
                key, eq, value = item.partition("=")
                if not eq or not key.strip() or not value.strip():
                    raise UnknownPlayerError(
                        f"bad player spec {text!r}: option {item!r} is not key=value"
                    )
                options[key.strip().lower()] = value.strip()
        return cls(kind, options, raw)


Parser = Callable[[PlayerSpec], "PlayerSettings"]
"""Turns a parsed spec of one kind into that kind's typed settings (raising
:class:`UnknownPlayerError` with the reason, without the spec text: :func:`parse_player` adds
it)."""
_FACTORIES: dict[str, Parser] = {}
_HELP: dict[str, str] = {}


def register(kind: str, help_text: str) -> Callable[[Parser], Parser]:
    """Decorator: register the parser of the specs of ``kind`` (``KIND:key=value,...``)."""

    def wrap(parser: Parser) -> Parser:
        _FACTORIES[kind] = parser
        _HELP[kind] = help_text
        return parser

    return wrap


def player_kinds() -> dict[str, str]:
    """Known player kinds and one line of help for each."""
    _load_builtin_players()
    return dict(_HELP)


def parse_player(spec: str) -> PlayerSettings:
    """The typed settings named by the spec text ``spec`` (``KIND:key=value,...``).

    Raises :class:`UnknownPlayerError` with one line naming the spec and what is wrong: an
    unknown kind or option, or a bad value.
    """
    _load_builtin_players()
    parsed = PlayerSpec.parse(spec)
    parser = _FACTORIES.get(parsed.kind)
    if parser is None:
        known = ", ".join(sorted(_FACTORIES))
        raise UnknownPlayerError(f"unknown player {parsed.kind!r}; known players: {known}")
    try:
        return parser(parsed)
    except UnknownPlayerError as exc:
        raise UnknownPlayerError(f"player {parsed.text!r}: {exc}") from None


def make_player(
    spec: str, game: Game, seed: int | None = None, cache: PlayerCache | None = None
) -> Player:
    """Build the player named by the spec text ``spec`` for ``game``, seeded with ``seed``.

    ``spec`` is parsed into typed settings (:func:`parse_player`) and built by
    :func:`~sparring.players.settings.build_player`; ``cache`` holds the networks,
    calibrations and hashes the players of a process share (None: a fresh one).
    """
    from sparring.players.settings import _build

    return _build(parse_player(spec), game, seed, cache, spec.strip())


def option_int(spec: PlayerSpec, key: str, default: int, low: int = 1) -> int:
    """An integer option ``>= low``, or ``default`` when absent."""
    value = spec.options.get(key)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise UnknownPlayerError(f"{key}={value!r} is not an integer") from None
    if number < low:
        raise UnknownPlayerError(f"{key} must be >= {low}")
    return number


def option_float(spec: PlayerSpec, key: str, default: float) -> float:
    """A float option, or ``default`` when absent."""
    value = spec.options.get(key)
    if value is None:
        return default
    try:
        return float(value)
    except ValueError:
        raise UnknownPlayerError(f"{key}={value!r} is not a number") from None


def check_options(spec: PlayerSpec, allowed: set[str]) -> None:
    """Reject options a player kind does not take."""
    unknown = sorted(set(spec.options) - allowed)
    if unknown:
        accepted = ", ".join(sorted(allowed)) or "none"
        raise UnknownPlayerError(f"unknown option {unknown[0]!r} (accepted: {accepted})")


_LOADED = False


def _load_builtin_players() -> None:
    """Import the modules whose import registers the built-in players."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    import importlib

    for module in BUILTIN_PLAYER_MODULES:
        importlib.import_module(module)


BUILTIN_PLAYER_MODULES = (
    "sparring.players.settings",
    "sparring.players.alphadda",
    "sparring.estimation.human_like",
)
"""Modules that register player kinds when imported."""


Factory = Callable[[Game, PlayerSpec, "int | None"], Player]
"""Builds a player straight from its parsed spec: the plain form of a plug-in or test kind
that has no typed settings of its own (see :func:`register_factory`)."""


@dataclass(frozen=True)
class FactorySettings:
    """The settings of a kind registered with a plain :data:`Factory`: the parsed spec and
    the factory (options are checked by the factory when the player is built)."""

    factory: Factory
    """Builds the player."""
    parsed: PlayerSpec
    """The spec it was named by."""
    kind: ClassVar[str] = "factory"

    def build(self, game: Game, seed: int | None, cache: PlayerCache) -> Player:
        """The factory's player for ``game``, seeded with ``seed``."""
        return self.factory(game, self.parsed, seed)

    def spec(self) -> str:
        """The spec text it was parsed from."""
        return self.parsed.text


def factory_parser(factory: Factory) -> Parser:
    """A :data:`Parser` for a kind built by a plain ``factory`` (it names the factory's module,
    which worker processes import to register the kind)."""

    def parse(parsed: PlayerSpec) -> FactorySettings:
        return FactorySettings(factory, parsed)

    parse.__module__ = factory.__module__
    return parse


def register_factory(kind: str, help_text: str) -> Callable[[Factory], Factory]:
    """Decorator: register a plug-in ``kind`` built by a plain factory ``(game, spec, seed)``."""

    def wrap(factory: Factory) -> Factory:
        register(kind, help_text)(factory_parser(factory))
        return factory

    return wrap
