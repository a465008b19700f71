"""What the dynamic strength adjustment experiment reads from its players' typed settings:
the kinds and modes it treats apart, the un-adapted baseline of an adaptive player, an
opponent's fixed z, and whether a player is one of the AlphaDDA paper's players or opponents.

Every function takes typed settings (:mod:`sparring.players.settings`,
:mod:`sparring.players.alphadda`) or spec text, which it parses once, here at the edge
(:func:`player_settings`: the experiment's configuration and its stored results hold spec
text); the answers come from the settings' fields, never from the option text.
"""

from __future__ import annotations

from dataclasses import Field, fields, is_dataclass, replace
from typing import TYPE_CHECKING, Any

from sparring.errors import SparringError
from sparring.experiments.alphadda_paper import PAPER_OPPONENTS
from sparring.players.alphadda import (
    DEFAULT_ROWS,
    TABLE_1,
    TABLE_2,
    TABLE_3,
    AlphaDDA1Settings,
    AlphaDDA2Settings,
    AlphaDDA3Settings,
)
from sparring.players.registry import FactorySettings, parse_player, settings_from_json
from sparring.players.settings import AlphaZeroSettings, DSASettings, SASettings
from sparring.search.hooks import DEFAULT_C_PUCT
from sparring.strength.selection import PAPER_RTH, StrengthSetting, format_z

if TYPE_CHECKING:
    from sparring.players.settings_base import PlayerSettings

ALPHADDA_KINDS = ("alphadda1", "alphadda2", "alphadda3")
"""Player kinds of AlphaDDA (:mod:`sparring.players.alphadda`)."""

AlphaDDASettings = AlphaDDA1Settings | AlphaDDA2Settings | AlphaDDA3Settings
"""The settings of the AlphaDDA kinds (:data:`ALPHADDA_KINDS`)."""

INTRA_MODES = ("intra", "elo-intra")
"""``mode`` values of the ``dsa`` kind that adapt within a game (Table 4 analogue)."""

SEARCH_KEYS = ("base", "model", "sims", "cpuct", "c", "open")
"""Search options of an adaptive player copied into its default baseline (the search it
adapts), in the order the baseline's spec text writes them."""

SEARCH_FIELDS = ("base", "model", "simulations", "c_puct", "c", "n_open")
"""The settings fields of :data:`SEARCH_KEYS` (:class:`SASettings` and
:class:`~sparring.players.settings.CalibratedSearchSettings` name them so)."""

ELO_MODES = ("elo-inter", "elo-intra", "bayes")
"""``mode`` values of the ``dsa`` kind that adapt in Elo through the calibration."""

Baseline = SASettings | AlphaZeroSettings
"""The settings of an adaptive player's un-adapted baseline (:func:`baseline_settings`)."""


def player_settings(spec: str | PlayerSettings) -> PlayerSettings:
    """The typed settings of ``spec``: spec text is parsed (:func:`parse_player`, raising
    its :class:`~sparring.errors.UnknownPlayerError`), settings are returned as they are."""
    return parse_player(spec) if isinstance(spec, str) else spec


def adaptive_mode(spec: str | PlayerSettings) -> str:
    """The adaptation mode of an adaptive player: a ``dsa`` player's :attr:`DSASettings.mode`;
    ``inter`` for the other kinds, except a plug-in kind without typed settings
    (:class:`~sparring.players.registry.FactorySettings`), whose ``mode=`` option is read."""
    settings = player_settings(spec)
    if isinstance(settings, DSASettings):
        return settings.mode
    if isinstance(settings, FactorySettings):  # its options are all the settings it has
        return settings.parsed.options.get("mode", "inter").lower()
    return "inter"


def baseline_settings(adaptive: str | PlayerSettings) -> Baseline:
    """The un-adapted player of an adaptive player: an ``sa`` player with the adaptive
    player's search (:data:`SEARCH_FIELDS`) at its starting setting, held fixed.

    AlphaDDA kinds (:data:`AlphaDDASettings`): ``az`` with the player's ``model``, ``c_puct``,
    ``simulations`` (AlphaDDA2 and 3) and ``root_random`` (AlphaZero, the player AlphaDDA
    weakens).  The z-space modes of ``dsa`` (``inter``, ``intra``): the paper's "w/o DSA"
    player, its SA player at ``z = z0`` (0 by default) with ``R_th = rth`` (0.1,
    :data:`~sparring.strength.selection.PAPER_RTH`, also where the controller takes the
    calibration's ``rth``: that is known only once the player is built).  The Elo-space
    modes: the calibrated setting for their first target (``elo0``, default 1500),
    ``bayes``: for its prior mean (``prior_mean``, default 1500), with the player's
    calibration.  Other kinds: ``z = 0`` at ``R_th`` 0.1 (an ``sa`` player's own ``rth``),
    with the search fields they share with ``sa`` that differ from their defaults; a plug-in
    kind without typed settings: its ``z0``, ``rth`` and search options.
    """
    settings = player_settings(adaptive)
    if isinstance(settings, AlphaDDASettings):
        return AlphaZeroSettings(
            model=settings.model,
            simulations=getattr(settings, "simulations", None),  # AlphaDDA1 has N_max instead
            c_puct=getattr(settings, "c_puct", DEFAULT_C_PUCT),  # AlphaDDA3 has C instead
            root_random=settings.root_random,
        )
    if isinstance(settings, DSASettings):
        search = {name: getattr(settings.search, name) for name in SEARCH_FIELDS}
        config: Any = settings.config
        if settings.mode in ELO_MODES:
            start = config.prior_mean if settings.mode == "bayes" else config.elo0
            return SASettings(**search, calibration=settings.search.calibration, elo=start)
        per_game = settings.per_game or frozenset()
        rth = PAPER_RTH if "rth" in per_game else config.rth
        return SASettings(**search, strength=StrengthSetting(config.z0, rth))
    if isinstance(settings, FactorySettings):
        # a plug-in kind without typed settings: its option text is all it has, so its
        # search options and z0 / rth are read from that text (the edge of its settings)
        options = settings.parsed.options
        items = [f"{k}={v}" for k, v in options.items() if k in SEARCH_KEYS]
        items += [f"rth={options.get('rth', PAPER_RTH)}", f"z={options.get('z0', '0')}"]
        sa = parse_player("sa:" + ",".join(items))
        assert isinstance(sa, SASettings)
        return sa
    # another typed kind (``sa``, ``az``, ``uct``, ...): the search fields it shares with
    # ``sa`` that differ from its defaults, at z = 0
    kind_fields: tuple[Field[Any], ...] = fields(settings) if is_dataclass(settings) else ()
    given = {f.name: getattr(settings, f.name) for f in kind_fields}
    defaults = {f.name: f.default for f in kind_fields}
    search = {n: given[n] for n in SEARCH_FIELDS if n in given and given[n] != defaults[n]}
    strength = getattr(settings, "strength", None)
    rth = strength.rth if isinstance(strength, StrengthSetting) else PAPER_RTH
    return SASettings(**search, strength=StrengthSetting(0.0, rth))


def _number(value: float) -> str:
    """A number as :func:`baseline_spec` writes it: ``%g`` (``0.1``, ``-1``, ``1500``,
    ``+inf``), or ``repr`` where ``%g`` would round it."""
    text = format_z(float(value))
    return text if float(text) == value else repr(value)


def baseline_spec(baseline: Baseline) -> str:
    """The spec text of a baseline (:func:`baseline_settings`) as the experiment stores it:
    the key of the baseline's games in the game store and the ``baseline_spec`` of
    ``results.json`` and the report.

    This is not ``baseline.spec()``: the stores and reports written so far hold the text of
    the experiment's earlier hand-built form, which puts ``rth`` before ``z``
    (``sa:model=connect4,rth=0.1,z=0``; ``spec()`` writes ``z=0,rth=0.1``) and ``az``'s
    ``cpuct`` before ``sims``; writing ``spec()`` would change the store key and so re-play
    every stored baseline game on resume.  The options keep that order: :data:`SEARCH_KEYS`,
    then ``rth, z`` or ``calibration, elo`` (``sa``); ``model, cpuct, sims, rootrand``
    (``az``).  Both forms parse to the same settings (``tests/test_adapt.py``).
    """
    if isinstance(baseline, AlphaZeroSettings):
        items = [] if baseline.model is None else [f"model={baseline.model}"]
        if baseline.c_puct != DEFAULT_C_PUCT:
            items.append(f"cpuct={_number(baseline.c_puct)}")
        if baseline.simulations is not None:
            items.append(f"sims={baseline.simulations}")
        if baseline.root_random != 0.0:
            items.append(f"rootrand={_number(baseline.root_random)}")
        return "az" + (":" + ",".join(items) if items else "")
    items = []
    for name, key in zip(SEARCH_FIELDS, SEARCH_KEYS, strict=True):
        value = getattr(baseline, name)
        if value is not None:
            items.append(f"{key}={value if isinstance(value, str | int) else _number(value)}")
    if baseline.elo is None:
        strength = baseline.strength or StrengthSetting(0.0)
        items += [f"rth={_number(strength.rth)}", f"z={_number(strength.z)}"]
    else:
        if baseline.calibration is not None:
            items.append(f"calibration={baseline.calibration}")
        items.append(f"elo={_number(baseline.elo)}")
    return "sa:" + ",".join(items)


def default_baseline(adaptive: str | PlayerSettings) -> str:
    """The stored spec text (:func:`baseline_spec`) of the un-adapted player of an adaptive
    player (:func:`baseline_settings`)."""
    return baseline_spec(baseline_settings(adaptive))


def is_alphadda(spec: str | PlayerSettings) -> bool:
    """Whether the player is one of the AlphaDDA kinds (:data:`AlphaDDASettings`)."""
    return isinstance(player_settings(spec), AlphaDDASettings)


def opponent_z(spec: str | PlayerSettings) -> float | None:
    """The fixed z of an SA opponent (``sa:...,z=Z``), read from its typed settings
    (:class:`~sparring.players.settings.SASettings`); None for another kind, an SA player at
    an Elo (no fixed setting), or a spec that does not parse."""
    try:
        settings = player_settings(spec)
    except SparringError:
        return None
    if not isinstance(settings, SASettings) or settings.strength is None:
        return None
    return float(settings.strength.z)


PAPER_ROW_KEYS: dict[str, tuple[str, ...]] = {
    "alphadda1": ("nh", "asim", "bsim0", "nmax"),
    "alphadda2": ("nh", "adrop", "pdrop0"),
    "alphadda3": ("nh", "c"),
}
"""The spec options of each AlphaDDA kind that its row of the paper's Tables 1-3 sets."""

PAPER_ROW_FIELDS: dict[str, tuple[str, ...]] = {
    "alphadda1": ("n_h", "a_sim", "b_sim0", "n_max"),
    "alphadda2": ("n_h", "a_drop", "p_drop0"),
    "alphadda3": ("n_h", "c"),
}
"""The settings fields of :data:`PAPER_ROW_KEYS` (None: the game's default row)."""

PAPER_FREE_FIELDS = ("model", "name", "root_random")
"""AlphaDDA settings fields that any value of leaves a player the paper's (``root_random``:
the author's code's random root picks, with which the paper's tables were made)."""


def paper_kind(spec: str | PlayerSettings, game: str | None = None) -> str | None:
    """The AlphaDDA kind of the player when it is the paper's player, else None: AlphaDDA
    settings (:data:`AlphaDDASettings`) whose fields other than :data:`PAPER_FREE_FIELDS`
    and the row (:data:`PAPER_ROW_FIELDS`) are at their defaults and, given ``game``, whose
    row fields given are the game's row of Tables 1-3 (``alphadda1:nh=3,asim=2,bsim0=-1.4,
    nmax=200`` on Connect4).  Settings with no row field given are the paper's player unless
    the game has a tuned default row (``TUNED_1`` ... in :mod:`sparring.players.alphadda`).

    A field given at its default value counts as left out (``alphadda1:cpuct=1.25`` is the
    paper's player)."""
    settings = player_settings(spec)
    if not isinstance(settings, AlphaDDASettings):
        return None
    kind = settings.kind
    row_fields = PAPER_ROW_FIELDS[kind]
    for f in fields(settings):
        free = f.name in PAPER_FREE_FIELDS or f.name in row_fields
        if not free and getattr(settings, f.name) != f.default:
            return None
    given = {i: getattr(settings, name) for i, name in enumerate(row_fields)}
    given = {i: value for i, value in given.items() if value is not None}
    if not given:  # the kind's default row: the paper's unless a tuned row is shipped
        tuned = DEFAULT_ROWS[kind][0]
        return kind if game is None or game not in tuned else None
    tables: dict[str, dict[str, Any]] = {
        "alphadda1": dict(TABLE_1),
        "alphadda2": dict(TABLE_2),
        "alphadda3": dict(TABLE_3),
    }
    row = None if game is None else tables[kind].get(game)
    if row is None:
        return None
    if any(float(value) != float(row[i]) for i, value in given.items()):
        return None
    return kind


def paper_opponent(spec: str | PlayerSettings) -> str | None:
    """The paper's name of an opponent (:data:`~sparring.experiments.alphadda_paper.
    PAPER_OPPONENTS`): its settings are those of one of the paper's opponent kinds (a preset
    such as ``mcts1`` included) but for ``name``, and ``model`` and ``root_random`` of ``az``
    (the author's code's AlphaZero picks 20% of its root simulations at random).

    Settings that are exactly their own kind's defaults are that kind's player: ``uct`` is
    not ``mcts1`` although the two search alike (only their names differ)."""
    settings = player_settings(spec)
    own = _default_settings(settings.kind)
    if own is not None and settings == own:
        return PAPER_OPPONENTS.get(settings.kind)
    for kind, label in PAPER_OPPONENTS.items():
        reference = _default_settings(kind)
        if reference is None or type(reference) is not type(settings):
            continue
        free: dict[str, Any] = {"name": getattr(reference, "name")}  # noqa: B009  (a Protocol)
        if isinstance(reference, AlphaZeroSettings):
            free |= {"model": reference.model, "root_random": reference.root_random}
        if replace(settings, **free) == reference:  # type: ignore[type-var]
            return label
    return None


def _default_settings(kind: str) -> PlayerSettings | None:
    """The settings of ``kind`` with every option at its default (a preset's values for a
    preset kind); None for a kind without a JSON form or not registered."""
    try:
        return settings_from_json({"kind": kind})
    except SparringError:
        return None
