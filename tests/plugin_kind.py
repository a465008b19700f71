"""Registering a plug-in player kind for one test only.

:func:`register_for_test` registers ``kind`` through the public
:func:`~sparring.players.registry.register_factory`, after giving the registry fresh copies
of its kind tables that ``monkeypatch`` puts back when the test ends, so no test kind leaks
into another test (or into a suite that runs over every registered kind).
"""

from __future__ import annotations

import pytest

import sparring.kinds  # noqa: F401  (the built-in kinds, copied with the tables)
from sparring.players import registry


def register_for_test(
    monkeypatch: pytest.MonkeyPatch, kind: str, factory: registry.Factory
) -> None:
    """Register the plug-in ``kind`` built by ``factory`` until the end of the test."""
    monkeypatch.setattr(registry, "_KINDS", dict(registry._KINDS))
    monkeypatch.setattr(registry, "_FACTORIES", dict(registry._FACTORIES))
    registry.register_factory(kind, "test stub")(factory)
