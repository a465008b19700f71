"""Loading typed run configurations (frozen dataclasses) from mappings and TOML files.

Shared by :class:`~sparring.training.config.TrainConfig` and
:class:`~sparring.estimation.train.SEConfig`: unknown keys, a missing ``game``, a missing file
and malformed TOML all become a one-line :class:`~sparring.errors.ConfigError`.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from sparring.errors import ConfigError

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
    ``game`` as ``"{what}: the key 'game' is required"``, and a :class:`TypeError` of the
    constructor as ``"{what}: <message>"``.  ``convert`` maps a key to a function applied to
    its value (when present) before construction, such as ``tuple`` for a TOML list.
    """
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"{what}: unknown key {unknown[0]!r} (known: {', '.join(sorted(known))})")
    if "game" not in data:
        raise ConfigError(f"{what}: the key 'game' is required")
    values = dict(data)
    for key, fn in (convert or {}).items():
        if key in values:
            values[key] = fn(values[key])
    try:
        return cls(**values)
    except TypeError as exc:
        raise ConfigError(f"{what}: {exc}") from None


def read_toml(path: Path | str, game: str | None = None) -> dict[str, Any]:
    """The table of the TOML file ``path``.

    A missing file or malformed TOML raises :class:`ConfigError` naming the file; with
    ``game`` given, so does a file whose ``game`` key names another game.
    """
    try:
        data = tomllib.loads(Path(path).read_text())
    except FileNotFoundError:
        raise ConfigError(f"config file {str(path)!r} not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {str(path)!r}: {exc}") from None
    if game is not None and data.get("game", game) != game:
        raise ConfigError(f"config file {str(path)!r} is for game {data['game']!r}, not {game!r}")
    return data
