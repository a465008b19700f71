"""Loading typed run configurations (frozen dataclasses) from mappings and TOML files.

Shared by :class:`~sparring.training.config.TrainConfig` and
:class:`~sparring.estimation.train.SEConfig`: unknown keys, a missing ``game``, a value of the
wrong type, a missing file and malformed TOML all become a one-line
:class:`~sparring.errors.ConfigError`.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import tomllib
import types
import typing
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from sparring.errors import ConfigError, MissingResourceError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

_C = TypeVar("_C", bound="DataclassInstance")


def dataclass_from_mapping(
    cls: type[_C],
    data: Mapping[str, Any],
    what: str,
    convert: Mapping[str, Callable[[Any], Any]] | None = None,
) -> _C:
    """Build the dataclass ``cls`` from ``data``; errors are :class:`ConfigError`s.

    An unknown key is reported as ``"{what}: unknown key 'k' (known: ...)"``, a missing
    ``game`` as ``"{what}: the key 'game' is required"``, a value whose type does not match
    the field's annotation as ``"{what}: k must be an integer, not 'abc'"`` (see
    :func:`normalise_field`; checked before the class's own range checks), and a
    :class:`TypeError` of the constructor as ``"{what}: <message>"``.  ``convert`` maps a key
    to a function applied to its value (when present) after the type check and before
    construction, such as a spelling normalisation.
    """
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(
            f"{what}: unknown key {unknown[0]!r} (known: {', '.join(sorted(known))})", unknown[0]
        )
    if "game" not in data:
        raise ConfigError(f"{what}: the key 'game' is required")
    hints = field_types(cls)
    values = {key: normalise_field(what, key, hints[key], value) for key, value in data.items()}
    for key, fn in (convert or {}).items():
        if key in values:
            values[key] = fn(values[key])
    try:
        return cls(**values)
    except TypeError as exc:
        raise ConfigError(f"{what}: {exc}") from None


@functools.cache
def field_types(cls: type) -> dict[str, Any]:
    """The resolved type annotation of every field of the dataclass ``cls``."""
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls)}


def check_fields(instance: DataclassInstance, what: str) -> None:
    """Raise :class:`ConfigError` for the first field of ``instance`` whose value does not
    match its annotation (as :func:`normalise_field` reads it).

    Called first in a config's ``__post_init__``, so that a directly constructed config with
    ``channels="abc"`` fails with a message naming the key, not with a comparison error in a
    range check.
    """
    for key, hint in field_types(type(instance)).items():
        normalise_field(what, key, hint, getattr(instance, key))


def check_at_least(
    instance: DataclassInstance, what: str, names: tuple[str, ...], minimum: int
) -> None:
    """Raise :class:`ConfigError` (``key`` = the field) for the first of the fields ``names``
    of ``instance`` whose value is below ``minimum`` (a config's range checks, after
    :func:`check_fields`)."""
    for name in names:
        if getattr(instance, name) < minimum:
            raise ConfigError(f"{what}: {name} must be >= {minimum}", name)


def describe_type(hint: Any) -> str:
    """Words for the annotation ``hint``: ``int`` is "an integer", ``tuple[str, ...]`` is
    "a list of strings", ``int | None`` is "an integer or nothing"."""
    singular = {int: "an integer", float: "a number", bool: "true or false", str: "a string"}
    plural = {int: "integers", float: "numbers", bool: "true/false values", str: "strings"}
    if hint in singular:
        return singular[hint]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (tuple, list) and args:
        return f"a list of {plural.get(args[0], str(args[0]))}"
    if origin in (typing.Union, types.UnionType):
        return " or ".join("nothing" if a is type(None) else describe_type(a) for a in args)
    return str(hint)


def normalise_field(what: str, key: str, hint: Any, value: Any) -> Any:
    """``value`` checked against the field annotation ``hint``, in its canonical form.

    Understood annotations: ``int`` (a Python or NumPy integer, not a bool), ``float`` (any
    integer or finite float, not a bool: ``nan`` and ``inf``, which TOML can spell, are
    refused; returned as ``float``), ``bool``, ``str``,
    ``tuple[X, ...]`` / ``tuple[X, Y]`` / ``list[X]`` of those (a TOML list or a tuple;
    returned as the annotated container) and ``X | None``.  Any other annotation is passed
    through unchecked.  A mismatch raises :class:`ConfigError` naming ``key``, the expected
    type and the value.
    """

    def bad() -> ConfigError:
        return ConfigError(f"{what}: {key} must be {describe_type(hint)}, not {value!r}", key)

    if hint is bool:
        if isinstance(value, bool | np.bool_):
            return bool(value)
        raise bad()
    if hint is int:
        if isinstance(value, int | np.integer) and not isinstance(value, bool):
            return int(value)
        raise bad()
    if hint is float:
        if isinstance(value, int | float | np.integer | np.floating) and not isinstance(
            value, bool
        ):
            number = float(value)
            if not math.isfinite(number):
                raise ConfigError(f"{what}: {key} must be a finite number, not {value!r}", key)
            return number
        raise bad()
    if hint is str:
        if isinstance(value, str):
            return value
        raise bad()
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        if float in args and isinstance(value, float) and not math.isfinite(value):
            return normalise_field(what, key, float, value)  # the finite-number message
        for arg in args:
            if arg is type(None):
                continue
            try:
                return normalise_field(what, key, arg, value)
            except ConfigError:
                pass
        raise bad()
    if origin in (tuple, list) and args:
        if not isinstance(value, list | tuple):
            raise bad()
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            if len(value) != len(args):
                raise bad()
            items = [normalise_field(what, key, a, v) for a, v in zip(args, value, strict=True)]
        else:
            try:
                items = [normalise_field(what, key, args[0], v) for v in value]
            except ConfigError:
                raise bad() from None
        return tuple(items) if origin is tuple else items
    return value


def read_text_file(path: Path | str, what: str, kind: str) -> str:
    """The UTF-8 text of the file ``path`` (a ``what``, e.g. ``"config file"``, in the format
    ``kind``, e.g. ``"TOML"``).

    A missing file or one that is not UTF-8 text (a binary file) raises :class:`ConfigError`
    naming the file; a folder or an unreadable file
    :class:`~sparring.errors.MissingResourceError`.
    """
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{what} {str(path)!r} not found") from None
    except OSError as exc:  # a folder, no permission
        raise MissingResourceError(
            f"{what} {str(path)!r} cannot be read ({exc.strerror or exc})"
        ) from None
    except UnicodeDecodeError:
        raise ConfigError(f"{what} {str(path)!r} is not a text ({kind}) file") from None


def read_toml(path: Path | str, game: str | None = None) -> dict[str, Any]:
    """The table of the TOML file ``path``.

    A missing file, a file that is not UTF-8 text (a binary file) or malformed TOML raises
    :class:`ConfigError` naming the file; a folder or an unreadable file
    :class:`~sparring.errors.MissingResourceError`; with ``game`` given, a file whose ``game``
    key names another game is a :class:`ConfigError` too.
    """
    text = read_text_file(path, "config file", "TOML")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {str(path)!r}: {exc}") from None
    if game is not None and data.get("game", game) != game:
        raise ConfigError(f"config file {str(path)!r} is for game {data['game']!r}, not {game!r}")
    return data
