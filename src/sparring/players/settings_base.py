"""The machinery every player settings class shares: checked values, JSON encoding and
decoding, JSON Schema, spec text (:class:`SettingsBase`), and the range checks.

The settings classes themselves live beside their kinds (:mod:`sparring.players.settings`
for the baselines, ``az``, ``sa`` and ``dsa``; :mod:`sparring.players.alphadda`;
:mod:`sparring.players.human_like`); the forms they take (spec text, JSON, JSON Schema)
are described in :mod:`sparring.players.settings`.  Settings are data: the builders of their
players are registered apart (:func:`~sparring.players.registry.register_builder`, by the
composition root :mod:`sparring.kinds`).
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import inspect
import itertools
import math
import textwrap
import types
import typing
from collections.abc import Hashable, Mapping
from dataclasses import fields
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol, Union, cast

from sparring.errors import PlayerSettingsError, UnknownKindError
from sparring.strength.selection import StrengthSetting, format_z

if TYPE_CHECKING:
    from sparring.players.base import JsonValue

MAX_SIMULATIONS = 100_000
"""The most simulations per move any searching kind accepts (``sims``): the search trees
are preallocated for the simulations asked, so ``az:sims=1000000000`` used to die with a
MemoryError; a larger value is now a one-line error naming ``sims``."""
MINIMAX_MAX_DEPTH = 12
"""The deepest minimax search accepted (``depth``; the AlphaDDA baselines search 3 plies):
``minimax:depth=1000`` used to be accepted and run forever."""
JSON_INF = "inf"
"""How JSON writes ``+inf`` (and ``"-inf"`` for ``-inf``): JSON has no infinity."""


class PlayerSettings(Protocol):
    """What every settings object offers: its kind, spec text and JSON (the player is built by
    the builder registered for its class, :func:`~sparring.players.registry.build_player`)."""

    kind: ClassVar[str]

    def spec(self) -> str:
        """The spec text that parses back to these settings."""
        ...

    def to_json(self) -> dict[str, JsonValue]:
        """The JSON object (with ``"kind"``) that :meth:`from_json` reads back."""
        ...


# ---- values: checking, JSON encoding and decoding ----------------------------------------------
def bad_setting(key: str, message: str) -> PlayerSettingsError:
    return PlayerSettingsError(message, key=key)


def _describe(hint: Any) -> str:
    """Words for an annotation: ``int`` "an integer", ``float | None`` "a number or null"."""
    words = {int: "an integer", float: "a number", bool: "true or false", str: "a string"}
    if hint in words:
        return words[hint]
    if hint is type(None):
        return "null"
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    if origin in (Union, types.UnionType):
        return " or ".join(_describe(a) for a in args)
    if origin is frozenset:
        return f"a list of {_describe(args[0])[3:]}s" if args else "a list"
    if dataclasses.is_dataclass(hint):
        return "an object"
    return str(hint)


def conform(hint: Any, value: Any, key: str) -> Any:
    """``value`` if it has the annotated type (an ``int`` given for a ``float`` becomes a
    float); :class:`PlayerSettingsError` naming ``key`` otherwise."""
    if hint is bool:
        ok = isinstance(value, bool)
    elif hint is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif hint is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        if ok:
            return float(value)
    elif hint is str:
        ok = isinstance(value, str)
    elif hint is type(None):
        ok = value is None
    else:
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin is Literal:
            ok = isinstance(value, str | int) and not isinstance(value, bool) and value in args
        elif origin in (Union, types.UnionType):
            for arg in args:
                try:
                    return conform(arg, value, key)
                except PlayerSettingsError:
                    pass
            ok = False
        elif origin is frozenset:
            ok = isinstance(value, frozenset) and all(isinstance(v, str) for v in value)
        elif isinstance(hint, type):
            ok = isinstance(value, hint)
        else:  # pragma: no cover - every annotation above is handled
            ok = True
    if not ok:
        raise bad_setting(key, f"{key} must be {_describe(hint)}, not {value!r}")
    return value


def _json_float(value: float) -> float | str:
    if math.isinf(value):
        return JSON_INF if value > 0 else "-" + JSON_INF
    return value


def encode(value: Any) -> JsonValue:
    """``value`` as JSON values: infinities as ``"inf"`` / ``"-inf"``, nested settings and
    configs as objects (:func:`json_keys`), sets as sorted lists."""
    if isinstance(value, float):
        return _json_float(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {key: encode(getattr(value, name)) for name, key in json_keys(type(value)).items()}
    if isinstance(value, frozenset | set):
        return sorted(value)
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    return value


def decode(hint: Any, value: Any, key: str) -> Any:
    """The Python value of the JSON ``value`` for a field annotated ``hint`` (strings
    ``"inf"`` / ``"+inf"`` / ``"-inf"`` for numbers, objects for nested dataclasses, lists for
    sets); type errors name ``key``."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        for arg in args:
            if arg is type(None):
                continue
            try:
                return decode(arg, value, key)
            except PlayerSettingsError:
                if dataclasses.is_dataclass(arg) and isinstance(value, Mapping):
                    raise
        raise bad_setting(key, f"{key} must be {_describe(hint)}, not {value!r}")
    if hint is float and isinstance(value, str):
        if value.strip().lower() in (JSON_INF, "+" + JSON_INF, "-" + JSON_INF):
            return -math.inf if value.strip().startswith("-") else math.inf
        raise bad_setting(key, f'{key} must be a number (or "inf", "-inf"), not {value!r}')
    if origin is frozenset:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise bad_setting(key, f"{key} must be {_describe(hint)}, not {value!r}")
        return frozenset(value)
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return nested_from_json(hint, value, key)
    return conform(hint, value, key)


def nested_from_json(cls: type[Any], data: Any, key: str) -> Any:
    """The nested settings or config ``cls`` read from the JSON object ``data`` found under
    ``key`` (errors name ``key.subkey``)."""
    if not isinstance(data, Mapping):
        raise bad_setting(key, f"{key} must be an object, not {data!r}")
    keys = json_keys(cls)
    by_key = {k: name for name, k in keys.items()}
    unknown = sorted(set(data) - set(by_key))
    if unknown:
        raise UnknownKindError(
            f"unknown key {key}.{unknown[0]} (known: {', '.join(sorted(by_key))})",
            key=f"{key}.{unknown[0]}",
        )
    hints = field_types(cls)
    values = {by_key[k]: decode(hints[by_key[k]], v, f"{key}.{k}") for k, v in data.items()}
    try:
        return cls(**values)
    except PlayerSettingsError as exc:
        sub = f"{key}.{exc.key}" if exc.key else key
        raise bad_setting(sub, f"{key}: {exc}") from None
    except (ValueError, TypeError) as exc:
        raise bad_setting(key, f"{key}: {exc}") from None


def _field_types(cls: Any) -> dict[str, Any]:
    """Uncached :func:`field_types`."""
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in fields(cls)}


_field_types_cached = functools.cache(_field_types)


def field_types(cls: type[Any]) -> dict[str, Any]:
    """The resolved annotation of every field of the dataclass ``cls``."""
    result: dict[str, Any] = _field_types_cached(cast(Hashable, cls))
    return result


def _json_keys(cls: Any) -> dict[str, str]:
    """Uncached :func:`json_keys`."""
    option_keys: dict[str, str] | None = getattr(cls, "OPTION_KEYS", None)
    if option_keys is None:
        return {f.name: f.name for f in fields(cls)}
    return {name: key or name for name, key in option_keys.items()}


_json_keys_cached = functools.cache(_json_keys)


def json_keys(cls: type[Any]) -> dict[str, str]:
    """Field name -> JSON key of the dataclass ``cls``: its :attr:`~SettingsBase.OPTION_KEYS`
    (a field with the empty spec key is written under its own name), else every field under
    its own name."""
    result: dict[str, str] = _json_keys_cached(cast(Hashable, cls))
    return result


def _field_docs(cls: Any) -> dict[str, str]:
    """Uncached :func:`field_docs`."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError, SyntaxError):
            continue
        body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        for item, after in itertools.pairwise(body):
            if (
                isinstance(item, ast.AnnAssign)
                and isinstance(item.target, ast.Name)
                and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            ):
                docs[item.target.id] = " ".join(after.value.value.split())
    return docs


_field_docs_cached = functools.cache(_field_docs)


def field_docs(cls: type[Any]) -> dict[str, str]:
    """The docstrings of the fields of ``cls`` and its bases (the string after each field)."""
    result: dict[str, str] = _field_docs_cached(cast(Hashable, cls))
    return result


def _schema_of(hint: Any) -> dict[str, Any]:
    """The JSON Schema of a value annotated ``hint``."""
    if hint is bool:
        return {"type": "boolean"}
    if hint is int:
        return {"type": "integer"}
    if hint is float:
        return {"anyOf": [{"type": "number"}, {"enum": [JSON_INF, "+" + JSON_INF, "-inf"]}]}
    if hint is str:
        return {"type": "string"}
    if hint is type(None):
        return {"type": "null"}
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Literal:
        return {"enum": list(args)}
    if origin in (Union, types.UnionType):
        return {"anyOf": [_schema_of(a) for a in args]}
    if origin is frozenset:
        return {"type": "array", "items": {"type": "string"}, "uniqueItems": True}
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return object_schema(hint)
    return {}


def object_schema(cls: type[Any], kind: str | None = None) -> dict[str, Any]:
    """The JSON Schema of the dataclass ``cls`` (``kind``: the ``"kind"`` property's value)."""
    hints = field_types(cls)
    docs = field_docs(cls)
    bounds: dict[str, tuple[float | None, float | None]] = getattr(cls, "BOUNDS", {})
    defaults = {f.name: f.default for f in fields(cls)}
    properties: dict[str, Any] = {}
    if kind is not None:
        properties["kind"] = {"const": kind, "description": "The player kind."}
    for name, key in json_keys(cls).items():
        schema = _schema_of(hints[name])
        default = defaults[name]
        if default is not dataclasses.MISSING:
            schema["default"] = encode(default)
        low, high = bounds.get(name, (None, None))
        if low is not None:
            schema["minimum"] = low
        if high is not None:
            schema["maximum"] = high
        if name in docs:
            schema["description"] = docs[name]
        properties[key] = schema
    required = [
        json_keys(cls)[f.name]
        for f in fields(cls)
        if f.default is dataclasses.MISSING and f.name in json_keys(cls)
    ]
    schema = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


def spec_value(value: object) -> str:
    if isinstance(value, StrengthSetting):
        return value.label()
    if isinstance(value, float):
        text = format_z(value)
        return text if math.isinf(value) or float(text) == value else repr(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


# ---- the settings base ---------------------------------------------------------------------------
class SettingsBase:
    """Mixin of the settings dataclasses: field type checks, spec text, JSON and its schema.

    A subclass is a frozen dataclass with ``kind``, :attr:`OPTION_KEYS` (field -> option key
    of spec text and JSON; fields missing there are neither) and, for the schema,
    :attr:`BOUNDS`; its ``__post_init__`` calls :meth:`check_types` first, then its range
    checks (each a :class:`~sparring.errors.PlayerSettingsError` naming the option key).
    """

    kind: ClassVar[str]
    OPTION_KEYS: ClassVar[dict[str, str]]
    """Field name -> spec/JSON option key (``""``: written by value alone in spec text, e.g.
    ``sa``'s ``z=..,rth=..``; under the field's name in JSON)."""
    BOUNDS: ClassVar[dict[str, tuple[float | None, float | None]]] = {}
    """Field name -> (minimum, maximum) for :meth:`json_schema` (the checks are in
    ``__post_init__``)."""

    def check_types(self) -> None:
        """Raise :class:`PlayerSettingsError` for a field whose value has the wrong type;
        integers given for numbers become floats."""
        keys = json_keys(type(self))
        for name, hint in field_types(type(self)).items():
            value = conform(hint, getattr(self, name), keys.get(name, name))
            if value is not getattr(self, name):
                object.__setattr__(self, name, value)

    def spec(self) -> str:
        """``KIND:key=value,...`` with the options that differ from the defaults."""
        items = []
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if f.name in self.OPTION_KEYS and value != f.default:
                key = self.OPTION_KEYS[f.name]
                items.append(spec_value(value) if key == "" else f"{key}={spec_value(value)}")
        return self.kind + (":" + ",".join(items) if items else "")

    def to_json(self) -> dict[str, JsonValue]:
        """``{"kind": KIND, key: value, ...}`` with every option (JSON values only)."""
        data: dict[str, JsonValue] = {"kind": self.kind}
        for name, key in json_keys(type(self)).items():
            data[key] = encode(getattr(self, name))
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Any:
        """The settings of the JSON object ``data`` (``"kind"`` optional, but must be this
        class's); an option left out takes its default.  Strict: see the module doc."""
        if not isinstance(data, Mapping):
            raise bad_setting("kind", f"player settings must be a JSON object, not {data!r}")
        kind = data.get("kind", cls.kind)
        if kind != cls.kind:
            raise bad_setting("kind", f"kind must be {cls.kind!r} here, not {kind!r}")
        keys = json_keys(cls)
        by_key = {key: name for name, key in keys.items()}
        unknown = sorted(set(data) - set(by_key) - {"kind"})
        if unknown:
            raise UnknownKindError(
                f"unknown key {unknown[0]!r} for kind {cls.kind} "
                f"(known: {', '.join(sorted(by_key))})",
                key=unknown[0],
            )
        hints = field_types(cls)
        values = {
            by_key[key]: decode(hints[by_key[key]], value, key)
            for key, value in data.items()
            if key != "kind"
        }
        return cls(**values)

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """The JSON Schema of :meth:`to_json`'s object (types, defaults, bounds, the field
        docstrings as descriptions; no other keys allowed)."""
        schema = object_schema(cls, cls.kind)
        schema["title"] = cls.__name__
        schema["description"] = " ".join((cls.__doc__ or "").split())
        return schema


_SpecText = SettingsBase
"""The former name of :class:`SettingsBase`."""


def check_int(key: str, value: int, low: int, high: int | None = None) -> None:
    """:class:`PlayerSettingsError` unless ``low <= value <= high``."""
    if value < low:
        raise bad_setting(key, f"{key} must be >= {low}")
    if high is not None and value > high:
        raise bad_setting(key, f"{key} must be <= {high}, not {value}")


def check_sims(key: str, value: int | None) -> None:
    """Simulations: None, or an integer in ``1 ..`` :data:`MAX_SIMULATIONS`."""
    if value is not None:
        check_int(key, value, 1, MAX_SIMULATIONS)


def check_number(
    key: str,
    value: float | None,
    low: float | None = None,
    high: float | None = None,
    *,
    high_open: bool = False,
) -> None:
    """:class:`PlayerSettingsError` unless ``value`` is None or a finite number in
    ``[low, high]`` (``[low, high)`` with ``high_open``)."""
    if value is None:
        return
    if not math.isfinite(value):
        raise bad_setting(key, f"{key} must be a finite number, not {value}")
    if low is not None and high is not None:
        inside = low <= value < high if high_open else low <= value <= high
        if not inside:
            bracket = ")" if high_open else "]"
            raise bad_setting(key, f"{key} must be in [{low:g}, {high:g}{bracket}, not {value:g}")
    elif low is not None and value < low:
        raise bad_setting(key, f"{key} must be >= {low:g}, not {value:g}")
    elif high is not None and value > high:
        raise bad_setting(key, f"{key} must be <= {high:g}, not {value:g}")


def check_root_random(share: float) -> None:
    """:class:`PlayerSettingsError` unless ``rootrand`` is a share in [0, 1]."""
    if not 0.0 <= share <= 1.0:
        raise bad_setting("rootrand", f"rootrand must be in [0, 1], not {share:g}")


def check_name(name: str | None) -> None:
    if name is not None and (not name.strip() or "," in name):
        raise bad_setting("name", f"name must be non-empty text without ',', not {name!r}")
