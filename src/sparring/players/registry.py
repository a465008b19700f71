"""The player kinds: kind -> settings class, spec text, JSON, and building a player.

A spec is ``KIND`` or ``KIND:key=value,key=value``.  Presets (``mcts1`` ... ``minimax2``)
are the AlphaDDA baselines; kinds take options.  Specs are read only at the edges (command
line, configuration, stored games): :func:`parse_player` turns one into the typed settings of
its kind (:mod:`sparring.players.settings`) with the parser registered for the kind, and
:func:`make_player` builds the player from those.  :func:`settings_from_json` /
:func:`settings_to_json` are the JSON edge (a service's request body, a session snapshot).

Settings are data: a settings object knows its spec text and JSON, not how to build its
player.  The table from kind to settings class and the table from settings class to its
:data:`Builder` are filled by :func:`register_kind` (and :func:`register_builder`), called
for every built-in kind by the one composition root :mod:`sparring.kinds`, and for plug-in
kinds by their own modules (:func:`register`, :func:`register_factory`).  The command line,
the tests and worker processes import :mod:`sparring.kinds`; this module imports no layer
above its own, and no module of a player kind.

Errors: an unknown kind or option key raises :class:`~sparring.errors.UnknownKindError`, a
malformed spec or a bad value :class:`~sparring.errors.PlayerSettingsError`, each with
``key`` naming the option.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from sparring.errors import PlayerSettingsError, UnknownKindError, UnknownPlayerError
from sparring.games.base import Game
from sparring.players.base import Player
from sparring.players.cache import PlayerCache

if TYPE_CHECKING:
    from sparring.players.base import JsonValue
    from sparring.players.settings_base import PlayerSettings

Builder = Callable[[Any, Game, "int | None", PlayerCache], Player]
"""Builds the player of one settings class: ``builder(settings, game, seed, cache)``, the
player for ``game`` seeded with ``seed``, sharing ``cache``'s networks and calibrations;
raises :class:`~sparring.errors.UnknownPlayerError` when the settings do not fit ``game`` or
name a missing or wrong file."""


@dataclass(frozen=True)
class PlayerSpec:
    """A parsed player specification (equal when kind and options are; the text is kept for
    messages)."""

    kind: str
    options: dict[str, str]
    text: str = field(compare=False)

    @classmethod
    def parse(cls, text: str) -> PlayerSpec:
        """Split ``KIND:key=value,...``; reject empty kinds, malformed options and an option
        given twice (``uct:sims=5,sims=6``)."""
        raw = text.strip()
        kind, _, rest = raw.partition(":")
        kind = kind.strip().lower()
        if not kind:
            raise UnknownKindError(f"bad player spec {text!r}: empty player kind", key="kind")
        options: dict[str, str] = {}
        if rest.strip():
            for item in rest.split(","):
                key, eq, value = item.partition("=")
                if not eq or not key.strip() or not value.strip():
                    raise PlayerSettingsError(
                        f"bad player spec {text!r}: option {item!r} is not key=value",
                        key=key.strip().lower() or None,
                    )
                name = key.strip().lower()
                if name in options:
                    raise PlayerSettingsError(
                        f"bad player spec {text!r}: option {name!r} is given twice", key=name
                    )
                options[name] = value.strip()
        return cls(kind, options, raw)


Parser = Callable[[PlayerSpec], "PlayerSettings"]
"""Turns a parsed spec of one kind into that kind's typed settings (raising an
:class:`UnknownPlayerError` with the reason, without the spec text: :func:`parse_player` adds
it)."""


@dataclass(frozen=True)
class KindInfo:
    """A registered player kind."""

    kind: str
    settings_class: type[Any] | None
    """The settings class (with ``from_json`` / ``json_schema``); a preset's is its base
    kind's class (``mcts1``: ``UCTSettings``); None for a parser registered without one."""
    parser: Parser
    """Reads the kind's spec text."""
    help: str
    """One line for ``sparring players``."""
    preset: Mapping[str, Any] | None = None
    """For a preset kind: its JSON values (defaults of ``{"kind": "mcts1", ...}``)."""
    module: str = ""
    """The module whose import registers the kind (:mod:`sparring.kinds` for the built-in
    kinds): worker processes import it (:func:`sparring.evaluation.match.player_modules`)."""

    def _settings_class(self) -> type[Any]:
        if self.settings_class is None:
            raise UnknownKindError(f"player kind {self.kind!r} has no JSON form", key="kind")
        return self.settings_class

    def from_json(self, data: Mapping[str, Any]) -> PlayerSettings:
        """The settings of the JSON object ``data`` of this kind."""
        cls = self._settings_class()
        if cls is FactorySettings:
            return FactorySettings.from_json({**data, "kind": self.kind})
        body = {key: value for key, value in data.items() if key != "kind"}
        if self.preset is not None:
            body = {**self.preset, **body}
        settings: PlayerSettings = cls.from_json(body)
        return settings

    def json_schema(self) -> dict[str, Any]:
        """The JSON Schema of the kind's settings."""
        cls = self._settings_class()
        schema: dict[str, Any] = cls.json_schema()
        if self.preset is not None:
            schema = {**schema, "properties": dict(schema["properties"])}
            for key, value in self.preset.items():
                schema["properties"][key] = {**schema["properties"][key], "default": value}
            schema["properties"]["kind"] = {"enum": [self.kind, cls.kind]}
        return schema


_KINDS: dict[str, KindInfo] = {}
"""The registry: kind -> :class:`KindInfo` (a test may swap in a copy, ``tests/plugin_kind.py``)."""
_FACTORIES: dict[str, Parser] = {}
"""Kind -> spec parser (read by the match runner to find plug-in modules)."""
_BUILDERS: dict[type[Any], Builder] = {}
"""Settings class -> the :data:`Builder` of its players (:func:`register_builder`)."""


def register_builder(settings_class: type[Any], builder: Builder) -> None:
    """Build the players of ``settings_class`` (and of its subclasses without a builder of
    their own) with ``builder``."""
    _BUILDERS[settings_class] = builder


def builder_for(settings: PlayerSettings) -> Builder:
    """The :data:`Builder` registered for the class of ``settings`` (or the nearest base
    class); :class:`UnknownKindError` (``key="kind"``) when there is none."""
    for cls in type(settings).__mro__:
        builder = _BUILDERS.get(cls)
        if builder is not None:
            return builder
    raise UnknownKindError(
        f"no player builder for {type(settings).__name__} (kind {settings.kind!r}); "
        "import sparring.kinds to register the built-in ones",
        key="kind",
    )


def register_kind(
    kind: str,
    settings_class: type[Any],
    parser: Parser,
    help_text: str,
    *,
    builder: Builder | None = None,
    preset: Mapping[str, Any] | None = None,
    module: str | None = None,
) -> None:
    """Register ``kind``: its settings class, spec parser and help line (``builder``: how
    its players are built, :func:`register_builder`; ``preset``: the preset's JSON values).
    ``module`` is the module whose import registers the kind, which worker processes import
    (default: the caller's module, e.g. :mod:`sparring.kinds`)."""
    if builder is not None:
        register_builder(settings_class, builder)
    if module is None:
        caller = inspect.currentframe()
        back = caller.f_back if caller is not None else None
        module = str(back.f_globals.get("__name__", "")) if back is not None else ""
    _KINDS[kind] = KindInfo(kind, settings_class, parser, help_text, preset, module)
    _FACTORIES[kind] = parser


def register(
    kind: str,
    help_text: str,
    settings_class: type[Any] | None = None,
    builder: Builder | None = None,
) -> Callable[[Parser], Parser]:
    """Decorator: register the parser of the specs of ``kind`` (``KIND:key=value,...``) with
    the settings class it returns (``settings_class``; default: the parser's return
    annotation) and the ``builder`` of its players (None: one registered for the class with
    :func:`register_builder`)."""

    def wrap(parser: Parser) -> Parser:
        cls = settings_class
        if cls is None:
            hints = inspect.get_annotations(parser, eval_str=True)
            cls = hints.get("return")
        if not isinstance(cls, type):
            raise TypeError(f"register({kind!r}): give the settings class")
        register_kind(kind, cls, parser, help_text, builder=builder, module=parser.__module__)
        return parser

    return wrap


def player_kinds() -> dict[str, str]:
    """Known player kinds and one line of help for each."""
    return {kind: info.help for kind, info in _KINDS.items()}


def kind_info(kind: str) -> KindInfo:
    """The registered ``kind``; :class:`UnknownKindError` (``key="kind"``) if there is none."""
    info = _KINDS.get(kind)
    if info is None:
        known = ", ".join(sorted(_KINDS)) or "none (import sparring.kinds to register them)"
        raise UnknownKindError(f"unknown player {kind!r}; known players: {known}", key="kind")
    return info


def kinds() -> dict[str, KindInfo]:
    """Every registered kind (a copy of the table)."""
    return dict(_KINDS)


def _prefixed(exc: UnknownPlayerError, prefix: str) -> UnknownPlayerError:
    """``exc`` with ``prefix`` before its message, same class and key."""
    return type(exc)(f"{prefix}{exc}", key=exc.key)


def parse_player(spec: str) -> PlayerSettings:
    """The typed settings named by the spec text ``spec`` (``KIND:key=value,...``).

    Raises :class:`UnknownPlayerError` (:class:`UnknownKindError` or
    :class:`PlayerSettingsError`, with ``key``) with one line naming the spec and what is
    wrong: an unknown kind or option, or a bad value.
    """
    parsed = PlayerSpec.parse(spec)
    info = kind_info(parsed.kind)
    try:
        return info.parser(parsed)
    except UnknownPlayerError as exc:
        raise _prefixed(exc, f"player {parsed.text!r}: ") from None


def settings_to_json(settings: PlayerSettings) -> dict[str, JsonValue]:
    """The JSON object of ``settings`` (``settings.to_json()``: JSON values only, with
    ``"kind"``)."""
    return settings.to_json()


def settings_from_json(data: Mapping[str, Any]) -> PlayerSettings:
    """The settings of the JSON object ``data``, by its ``"kind"`` (a preset kind such as
    ``mcts1`` gives its base kind's settings with the preset's values as defaults).

    Strict: an unknown kind or key raises :class:`UnknownKindError`, a value of the wrong type
    or out of range :class:`PlayerSettingsError`, each with ``key`` naming it.
    """
    if not isinstance(data, Mapping):
        raise PlayerSettingsError(f"player settings must be a JSON object, not {data!r}", "kind")
    kind = data.get("kind")
    if not isinstance(kind, str):
        raise PlayerSettingsError(
            f"kind must be a string naming a player kind, not {kind!r}", "kind"
        )
    return kind_info(kind).from_json(data)


def build_player(
    settings: PlayerSettings,
    game: Game,
    seed: int | None = None,
    cache: PlayerCache | None = None,
) -> Player:
    """The player described by ``settings`` for ``game``, seeded with ``seed``.

    ``cache`` holds the networks, calibrations and file hashes shared by the players of a
    process (a fresh one when None: everything is then read for this player alone).  The
    player keeps ``settings`` and ``seed`` (:attr:`Player.settings`, :attr:`Player.seed`).
    Raises :class:`~sparring.errors.UnknownPlayerError` (prefixed with the settings' spec
    text) when the settings do not fit ``game`` or name a missing or wrong file.
    """
    return _build(settings, game, seed, cache, settings.spec())


def _build(
    settings: PlayerSettings,
    game: Game,
    seed: int | None,
    cache: PlayerCache | None,
    text: str,
) -> Player:
    try:
        build = builder_for(settings)
        player = build(settings, game, seed, PlayerCache() if cache is None else cache)
    except UnknownPlayerError as exc:
        raise _prefixed(exc, f"player {text!r}: ") from None
    player.settings = settings
    player.seed = seed
    return player


def make_player(
    spec: str, game: Game, seed: int | None = None, cache: PlayerCache | None = None
) -> Player:
    """Build the player named by the spec text ``spec`` for ``game``, seeded with ``seed``.

    ``spec`` is parsed into typed settings (:func:`parse_player`) and built by
    :func:`build_player`; ``cache`` holds the networks, calibrations and hashes the players
    of a process share (None: a fresh one).
    """
    return _build(parse_player(spec), game, seed, cache, spec.strip())


def option_int(spec: PlayerSpec, key: str, default: int, low: int = 1) -> int:
    """An integer option ``>= low``, or ``default`` when absent."""
    value = spec.options.get(key)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise PlayerSettingsError(f"{key}={value!r} is not an integer", key=key) from None
    if number < low:
        raise PlayerSettingsError(f"{key} must be >= {low}", key=key)
    return number


def option_float(spec: PlayerSpec, key: str, default: float) -> float:
    """A float option, or ``default`` when absent."""
    value = spec.options.get(key)
    if value is None:
        return default
    try:
        return float(value)
    except ValueError:
        raise PlayerSettingsError(f"{key}={value!r} is not a number", key=key) from None


def check_options(spec: PlayerSpec, allowed: set[str]) -> None:
    """Reject options a player kind does not take (:class:`UnknownKindError`)."""
    unknown = sorted(set(spec.options) - allowed)
    if unknown:
        accepted = ", ".join(sorted(allowed)) or "none"
        raise UnknownKindError(
            f"unknown option {unknown[0]!r} (accepted: {accepted})", key=unknown[0]
        )


Factory = Callable[[Game, PlayerSpec, "int | None"], Player]
"""Builds a player straight from its parsed spec: the plain form of a plug-in or test kind
that has no typed settings of its own (see :func:`register_factory`)."""


@dataclass(frozen=True)
class FactorySettings:
    """The settings of a kind registered with a plain :data:`Factory`: the parsed spec and
    the factory (options are checked by the factory when the player is built).  JSON:
    ``{"kind": KIND, "options": {key: text, ...}}``."""

    factory: Factory
    """Builds the player."""
    parsed: PlayerSpec
    """The spec it was named by."""
    kind: ClassVar[str] = "factory"

    def spec(self) -> str:
        """The spec text it was parsed from."""
        return self.parsed.text

    def to_json(self) -> dict[str, JsonValue]:
        """``{"kind": KIND, "options": {...}}``."""
        return {"kind": self.parsed.kind, "options": dict(self.parsed.options)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> FactorySettings:
        """The settings of ``{"kind": KIND, "options": {key: text}}`` of a registered factory
        kind (options are strings, as in spec text)."""
        if not isinstance(data, Mapping):
            raise PlayerSettingsError(
                f"player settings must be a JSON object, not {data!r}", "kind"
            )
        unknown = sorted(set(data) - {"kind", "options"})
        if unknown:
            raise UnknownKindError(
                f"unknown key {unknown[0]!r} (known: kind, options)", key=unknown[0]
            )
        kind = data.get("kind")
        if not isinstance(kind, str):
            raise PlayerSettingsError(f"kind must be a string, not {kind!r}", key="kind")
        factory = getattr(kind_info(kind).parser, "factory", None)
        if factory is None:
            raise UnknownKindError(f"{kind!r} is not a kind built by a factory", key="kind")
        options = data.get("options", {})
        if not isinstance(options, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) and k and v for k, v in options.items()
        ):
            raise PlayerSettingsError(
                f"options must be an object of non-empty texts, not {options!r}", key="options"
            )
        text = kind + (":" + ",".join(f"{k}={v}" for k, v in options.items()) if options else "")
        return cls(factory, PlayerSpec.parse(text))

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """The JSON Schema of :meth:`to_json`'s object."""
        return {
            "title": cls.__name__,
            "description": "A plug-in kind built by a factory; options as in spec text.",
            "type": "object",
            "properties": {
                "kind": {"type": "string"},
                "options": {"type": "object", "additionalProperties": {"type": "string"}},
            },
            "additionalProperties": False,
        }


def build_factory_player(
    settings: FactorySettings, game: Game, seed: int | None, cache: PlayerCache
) -> Player:
    """The factory's player for ``game``, seeded with ``seed``."""
    return settings.factory(game, settings.parsed, seed)


register_builder(FactorySettings, build_factory_player)


def factory_parser(factory: Factory) -> Parser:
    """A :data:`Parser` for a kind built by a plain ``factory`` (it names the factory's module,
    which worker processes import to register the kind)."""

    def parse(parsed: PlayerSpec) -> FactorySettings:
        return FactorySettings(factory, parsed)

    parse.__module__ = factory.__module__
    parse.factory = factory  # type: ignore[attr-defined]
    return parse


def register_factory(kind: str, help_text: str) -> Callable[[Factory], Factory]:
    """Decorator: register a plug-in ``kind`` built by a plain factory ``(game, spec, seed)``."""

    def wrap(factory: Factory) -> Factory:
        register_kind(
            kind, FactorySettings, factory_parser(factory), help_text, module=factory.__module__
        )
        return factory

    return wrap


__all__ = [
    "Builder",
    "FactorySettings",
    "KindInfo",
    "PlayerSpec",
    "build_factory_player",
    "build_player",
    "builder_for",
    "check_options",
    "factory_parser",
    "kind_info",
    "kinds",
    "make_player",
    "option_float",
    "option_int",
    "parse_player",
    "player_kinds",
    "register",
    "register_builder",
    "register_factory",
    "register_kind",
    "settings_from_json",
    "settings_to_json",
]
