"""Settings conformance over every registered player kind.

The kinds are enumerated from the registry (:func:`sparring.players.registry.kinds`), so a
kind registered later is covered without touching this file; a kind whose bare spec does not
parse needs an entry in :data:`SAMPLES`.  For each kind: the JSON form round-trips
(``settings_from_json(settings_to_json(s)) == s``, also through :func:`json.dumps`), the spec
text round-trips (``parse_player(s.spec()) == s``), and bad JSON fails with the right class
and the key named: an unknown key (:class:`UnknownKindError`), a value of the wrong type for
*every* key and a value outside *every* bound the schema states
(:class:`PlayerSettingsError`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import pytest

from plugin_kind import register_for_test
from sparring.errors import PlayerSettingsError, UnknownKindError
from sparring.players.base import Player, RandomPlayer
from sparring.players.registry import (
    PlayerSpec,
    check_options,
    kind_info,
    kinds,
    parse_player,
    settings_from_json,
    settings_to_json,
)
from sparring.players.settings import DSASettings, SASettings
from sparring.players.settings_base import MAX_SIMULATIONS, MINIMAX_MAX_DEPTH
from sparring.strength.dsa import InterGameConfig
from sparring.strength.selection import StrengthSetting

SAMPLES: dict[str, tuple[str, ...]] = {
    "uct": ("uct:sims=64,c=1.5,open=2,name=Fast",),
    "minimax": ("minimax:depth=2,r=10,table=ones",),
    "az": (
        "az:model=connect4,sims=8,cpuct=2,dropout=0.25,rootrand=0.2,name=Net",
        "az:model=go9.pt,finish=yes",
    ),
    "sa": (
        "sa:base=uct,sims=30,c=0.7,open=3,z=-1.5,rth=0.2,select=topn,n=2,name=S",
        "sa:base=uct,z=-inf,rth=0.1,floor=0.5",
        "sa:z=inf",
        "sa:model=connect4,elo=1500,calibration=c.json",
    ),
    "dsa": (
        "dsa:mode=inter,dz=0.5,r=0.9,sims=8",
        "dsa:mode=inter,dz=0.01,zmin=-2",
        "dsa:mode=intra,cooldown=150,carry=yes,eps=0.2",
        "dsa:mode=elo-inter,step=100,steplow=10,elo0=1200",
        "dsa:mode=elo-intra,base=uct,calibration=c.json,c=0.7,open=3",
        "dsa:priorsd=inf,estimate=median,name=Adaptive",
    ),
    "alphadda1": (
        "alphadda1:nh=2,asim=1.6,bsim0=-1.2,nmax=300,history=code,rootrand=0.2",
        "alphadda1:floor=on,fmode=z,fslope=0,fresult=0.1,fmax=2,fmix=on,fstart=0.3,name=R1",
    ),
    "alphadda2": ("alphadda2:pmax=0.99,sims=20,sign=none,vnet=damaged,floor=on",),
    "alphadda3": ("alphadda3:c=0.5,sims=16,wdiv=edge,keepw=on",),
    "human-mcts": ("human-mcts:sims=7,cpuct=2,model=chess-se-inf",),
    "sa-mcts": ("sa-mcts:z=1.5", "sa-mcts:z=-inf,sims=9", "sa-mcts:rank=3d,ztable=z.json"),
    "se-mcts": ("se-mcts:rank=3d,c1=1.5",),
    "se-inf-mcts": ("se-inf-mcts:elo=1500,sims=7", "se-inf-mcts:rank=1-2k"),
}
"""Specs with options per kind (kinds missing here are tried by their bare name)."""


def _specs(kind: str) -> tuple[str, ...]:
    bare = () if kind in ("sa-mcts", "se-mcts", "se-inf-mcts") else (kind,)
    return bare + SAMPLES.get(kind, ())


CASES = [(kind, spec) for kind in sorted(kinds()) for spec in _specs(kind)]


def test_every_builtin_kind_is_registered() -> None:
    assert {
        "random", "uct", "mcts1", "mcts2", "mcts3", "mcts4", "minimax", "minimax1", "minimax2",
        "az", "sa", "dsa", "alphadda1", "alphadda2", "alphadda3", "human-mcts", "sa-mcts",
        "se-mcts", "se-inf-mcts",
    } <= set(kinds())  # fmt: skip


@pytest.mark.parametrize(("kind", "spec"), CASES)
def test_json_and_spec_round_trips(kind: str, spec: str) -> None:
    settings = parse_player(spec)
    data = settings_to_json(settings)
    assert data["kind"] == settings.kind
    text = json.dumps(data, allow_nan=False)  # JSON values only: no NaN or Infinity
    assert settings_from_json(json.loads(text)) == settings
    assert type(settings).from_json(json.loads(text)) == settings  # type: ignore[attr-defined]
    assert parse_player(settings.spec()) == settings
    schema = kind_info(kind).json_schema()
    json.dumps(schema, allow_nan=False)
    assert schema["additionalProperties"] is False
    assert set(data) <= set(schema["properties"])


def test_presets_read_from_json_by_their_own_kind() -> None:
    assert settings_from_json({"kind": "mcts2"}) == parse_player("mcts2")
    assert settings_from_json({"kind": "mcts2", "name": "X"}) == parse_player("mcts2:name=X")
    assert settings_from_json({"kind": "minimax2"}) == parse_player("minimax2")
    assert settings_to_json(parse_player("mcts1")) == {
        "kind": "uct", "sims": 300, "c": 0.5, "open": 5, "name": "MCTS1",
    }  # fmt: skip


def test_infinities_are_strings_in_json() -> None:
    settings = parse_player("sa:base=uct,z=-inf,rth=0.1,floor=0.5")
    data = settings_to_json(settings)
    assert data["strength"] == {"z": "-inf", "rth": 0.1, "floor": 0.5}
    assert settings_from_json({"kind": "sa", "base": "uct", "strength": {"z": "+inf"}}) == (
        SASettings(base="uct", strength=StrengthSetting(math.inf))
    )
    bayes = settings_to_json(parse_player("dsa:priorsd=inf"))
    assert bayes["controller"]["prior_sd"] == "inf"  # type: ignore[index]


def test_dsa_json_nests_search_and_controller() -> None:
    settings = parse_player("dsa:mode=inter,dz=0.5,sims=8")
    assert isinstance(settings, DSASettings)
    assert settings.controller == InterGameConfig(dz_init=0.5)
    assert settings.per_game == {"dz_low", "rth"}  # taken from the calibration when built
    data = settings_to_json(settings)
    assert data == {
        "kind": "dsa",
        "mode": "inter",
        "search": {"base": None, "model": None, "sims": 8, "cpuct": None, "c": None,
                   "open": None, "calibration": None},
        "controller": {"z0": 0.0, "dz_init": 0.5, "r": 0.95, "z_min": -3.0, "z_max": 3.0},
        "name": None,
    }  # fmt: skip
    # A per-game field given explicitly is kept, also when it equals the class default.
    given = parse_player("dsa:mode=intra,cooldown=150")
    assert isinstance(given, DSASettings) and given.per_game == {"rth"}
    assert parse_player(given.spec()) == given and "cooldown=150" in given.spec()


def _wrong_values(value: Any) -> Iterator[Any]:
    """JSON values of another type than ``value``'s."""
    if isinstance(value, bool):
        yield from (1, "yes")
    elif isinstance(value, int):
        yield from ("5", True, 2.5)
    elif isinstance(value, float) or value in ("inf", "-inf"):
        yield from ("5", True, "nan")
    elif isinstance(value, str):
        yield from (5, True, ["x"])
    elif isinstance(value, dict):
        yield from (5, "x", [1])


@pytest.mark.parametrize(("kind", "spec"), CASES)
def test_bad_json_names_the_key(kind: str, spec: str) -> None:
    data = settings_to_json(parse_player(spec))
    with pytest.raises(UnknownKindError) as unknown:
        settings_from_json({**data, "nosuch": 1})
    assert unknown.value.key == "nosuch" and "nosuch" in str(unknown.value)
    checked = 0
    for key, value in data.items():
        if key == "kind":
            continue
        for wrong in _wrong_values(value):
            with pytest.raises(PlayerSettingsError) as info:
                settings_from_json({**data, key: wrong})
            assert info.value.key is not None and info.value.key.split(".")[0] == key, (
                key,
                wrong,
                info.value.key,
            )
            assert key in str(info.value)
            checked += 1
        if isinstance(value, dict):  # nested settings: an unknown key inside
            with pytest.raises(UnknownKindError) as nested:
                settings_from_json({**data, key: {**value, "nosuch": 1}})
            assert nested.value.key == f"{key}.nosuch"
    assert checked > 0


def _bounded(schema: dict[str, Any]) -> Iterator[tuple[str, float]]:
    """``(key, value)`` just outside every minimum / maximum of an object schema."""
    for key, prop in schema["properties"].items():
        integer = prop.get("type") == "integer" or any(
            alt.get("type") == "integer" for alt in prop.get("anyOf", ())
        )
        step = 1 if integer else 0.5
        if "minimum" in prop:
            yield key, prop["minimum"] - step
        if "maximum" in prop:
            yield key, prop["maximum"] + step


@pytest.mark.parametrize(("kind", "spec"), CASES)
def test_out_of_range_json_names_the_key(kind: str, spec: str) -> None:
    data = settings_to_json(parse_player(spec))
    schema = kind_info(kind).json_schema()
    cases = [({**data, key: value}, key) for key, value in _bounded(schema)]
    for key, prop in schema["properties"].items():  # nested objects (search, floor)
        nested = data.get(key)
        options = [prop, *prop.get("anyOf", ())]
        object_schema = next((o for o in options if "properties" in o), None)
        if isinstance(nested, dict) and object_schema is not None:
            cases += [
                ({**data, key: {**nested, sub: value}}, f"{key}.{sub}")
                for sub, value in _bounded(object_schema)
            ]
    for bad, key in cases:
        with pytest.raises(PlayerSettingsError) as info:
            settings_from_json(bad)
        assert info.value.key == key, (bad, info.value.key, str(info.value))


@pytest.mark.parametrize(
    ("data", "key", "message"),
    [
        ({"kind": "uct", "sims": "5"}, "sims", "sims must be an integer, not '5'"),
        ({"kind": "uct", "sims": True}, "sims", "sims must be an integer, not True"),
        ({"kind": "uct", "sims": 2.0}, "sims", "sims must be an integer, not 2.0"),
        ({"kind": "uct", "sims": 0}, "sims", "sims must be >= 1"),
        ({"kind": "uct", "c": -1}, "c", "c must be >= 0, not -1"),
        ({"kind": "uct", "c": "inf"}, "c", "c must be a finite number, not inf"),
        ({"kind": "minimax", "depth": 1000}, "depth", f"depth must be <= {MINIMAX_MAX_DEPTH}"),
        ({"kind": "az", "sims": 10**9}, "sims", f"sims must be <= {MAX_SIMULATIONS}"),
        ({"kind": "sa", "strength": {"z": 1, "rth": 2}}, "strength", "R_th must be in [0, 1]"),
        ({"kind": "dsa", "mode": "inter", "controller": {"dz_init": -1}},
         "controller.dz_init", "dz must be a number > 0"),
        ({"kind": "dsa", "mode": "bayes", "controller": {"dz_init": 1}},
         "controller.dz_init", "unknown key controller.dz_init"),
        ({"kind": "dsa", "mode": "fast"}, "mode", "mode must be one of"),
        ({"kind": "alphadda1", "floor": {"fmax": 3}}, "floor.fmax", "fmax must be in [0, 2]"),
        ({"kind": "nosuch"}, "kind", "unknown player 'nosuch'"),
        ({"sims": 5}, "kind", "kind must be a string"),
    ],
)  # fmt: skip
def test_bad_json_examples(data: dict[str, Any], key: str, message: str) -> None:
    with pytest.raises((PlayerSettingsError, UnknownKindError)) as info:
        settings_from_json(data)
    assert info.value.key == key
    assert message in str(info.value)
    kind_error = data.get("kind") == "nosuch" or "unknown key" in message
    assert isinstance(info.value, UnknownKindError) == kind_error


def _plug_in(game: Any, spec: PlayerSpec, seed: int | None) -> Player:
    check_options(spec, {"name", "level"})
    return RandomPlayer(spec.options.get("name", "Plug"), seed)


def test_plug_in_factory_kinds_round_trip(monkeypatch: pytest.MonkeyPatch) -> None:
    register_for_test(monkeypatch, "plug", _plug_in)
    settings = parse_player("plug:level=3,name=P")
    data = settings_to_json(settings)
    assert data == {"kind": "plug", "options": {"level": "3", "name": "P"}}
    assert settings_from_json(json.loads(json.dumps(data))) == settings
    assert parse_player(settings.spec()) == settings
    assert kind_info("plug").json_schema()["additionalProperties"] is False
    with pytest.raises(UnknownKindError) as unknown:
        settings_from_json({**data, "level": "3"})
    assert unknown.value.key == "level"
    with pytest.raises(PlayerSettingsError) as wrong:
        settings_from_json({"kind": "plug", "options": {"level": 3}})
    assert wrong.value.key == "options"
    assert kind_info("plug").module == __name__  # worker processes import it
