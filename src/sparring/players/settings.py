"""Typed settings of every built-in player kind: validation, JSON, spec text and parsers.

A player is described inside sparring by a frozen settings object of its kind
(:class:`RandomSettings`, :class:`UCTSettings`, :class:`MinimaxSettings`,
:class:`AlphaZeroSettings`, :class:`SASettings`, :class:`DSASettings`, and the AlphaDDA and
human-like kinds defined beside their players), validated when it is made, and built by
:func:`~sparring.players.registry.build_player` with a
:class:`~sparring.players.cache.PlayerCache` of the networks and calibrations the players of
a process share.  Which class belongs to which kind is the registry's table
(:mod:`sparring.players.registry`), filled by the one composition root
:mod:`sparring.kinds`.

Every settings class (:class:`SettingsBase`) has three external forms:

* **spec text** (:meth:`~SettingsBase.spec`): ``KIND:key=value,...`` with the options that
  differ from their defaults, parsed back to an equal object by the kind's parser
  (``parse_uct`` ...).  Spec text exists only at the edges (command line, configuration
  files, stored games).
* **JSON** (:meth:`~SettingsBase.to_json` / :meth:`~SettingsBase.from_json`): an object with
  ``"kind"`` and *every* option, keyed by the same option keys as the spec text (``sims``,
  ``cpuct``, ``open`` ...; :attr:`~SettingsBase.OPTION_KEYS`).  Nested settings are nested
  objects: ``sa``'s ``strength`` (``{"z": .., "rth": .., "floor": ..}``), the AlphaDDA
  ``floor`` (:class:`FloorSettings`, ``null`` when off), ``dsa``'s ``search`` and
  ``controller`` (its mode's config of :mod:`sparring.strength.dsa`, keyed by the config's
  field names).  JSON has no infinity: ``+inf`` / ``-inf`` are written as the strings
  ``"inf"`` / ``"-inf"`` and read back from ``"inf"``, ``"+inf"`` and ``"-inf"``; a JSON
  integer is accepted where a number is expected, never a boolean or a string.  Reading is
  strict: an unknown key is an :class:`~sparring.errors.UnknownKindError`, a value of the
  wrong type or out of range a :class:`~sparring.errors.PlayerSettingsError`, each with
  ``key`` set and a message naming the key and what was expected.  A preset kind
  (``mcts1`` ... ``minimax2``) has no settings class of its own: its JSON is its class's
  (``mcts1`` is ``{"kind": "uct", "sims": 300, ..., "name": "MCTS1"}``), and
  :func:`~sparring.players.registry.settings_from_json` also reads ``{"kind": "mcts1"}``
  (the preset's values as defaults).
* **JSON Schema** (:meth:`~SettingsBase.json_schema`): the plain schema of the JSON form
  (types, defaults, bounds, the field docstrings as descriptions), for a service that lists
  the kinds.

Bounds that keep a request from exhausting the machine: at most :data:`MAX_SIMULATIONS`
simulations per move and a minimax depth of at most :data:`MINIMAX_MAX_DEPTH`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from sparring.errors import PlayerSettingsError, UnknownKindError
from sparring.games import get_game
from sparring.games.go import Go
from sparring.nn.zoo import default_model
from sparring.players.registry import (
    PlayerSpec,
    check_options,
    option_float,
    option_int,
)
from sparring.players.settings_base import (
    MAX_SIMULATIONS,
    MINIMAX_MAX_DEPTH,
    SettingsBase,
    bad_setting,
    check_int,
    check_name,
    check_number,
    check_root_random,
    check_sims,
    conform,
    decode,
    encode,
    field_types,
    nested_from_json,
    object_schema,
    spec_value,
)
from sparring.search.hooks import DEFAULT_C_PUCT
from sparring.search.uct import DEFAULT_C as UCT_DEFAULT_C
from sparring.search.uct import DEFAULT_N_OPEN as UCT_DEFAULT_N_OPEN
from sparring.strength.dsa import (
    BayesConfig,
    EloInterGameConfig,
    EloIntraGameConfig,
    InterGameConfig,
    IntraGameConfig,
)
from sparring.strength.selection import PAPER_RTH, StrengthSetting

if TYPE_CHECKING:
    from sparring.players.base import JsonValue

Selection = Literal["threshold", "sephton", "topn"]
"""Move selection rules of the SA player (see :mod:`sparring.players.strength`)."""
SearchBase = Literal["az", "uct"]
"""The search under an SA player: PUCT with a network, or UCT with random playouts."""
TableName = Literal["paper", "ones"]
"""Othello's square values of a minimax player (:mod:`sparring.players.minimax`)."""

UCT_DEFAULT_SIMULATIONS = 300
"""Simulations of ``uct`` and of ``sa:base=uct`` by default: MCTS1's (AlphaDDA sec. 4.3)."""
MCTS_PRESETS: dict[str, tuple[str, int]] = {
    "mcts1": ("MCTS1", 300),
    "mcts2": ("MCTS2", 100),
    "mcts3": ("MCTS3", 200),
    "mcts4": ("MCTS4", 50),
}
"""AlphaDDA's MCTS baselines: preset name -> (display name, simulations)."""
MINIMAX_DEFAULT_DEPTH = 3
"""``N_depth`` of AlphaDDA appendix 4."""
MINIMAX_PRESETS: dict[str, tuple[str, float, TableName]] = {
    "minimax1": ("Minimax1", 100.0, "paper"),
    "minimax2": ("Minimax2", 2.0, "ones"),
}
"""AlphaDDA's Minimax baselines: preset -> (display name, Connect4 R, Othello table)."""


# ---- the baselines, AlphaZero and SA ---------------------------------------------------------
@dataclass(frozen=True)
class RandomSettings(SettingsBase):
    """Uniformly random legal moves (AlphaDDA's Random)."""

    kind: ClassVar[str] = "random"
    OPTION_KEYS: ClassVar[dict[str, str]] = {"name": "name"}

    name: str = "Random"
    """Display name."""

    def __post_init__(self) -> None:
        self.check_types()
        check_name(self.name)


@dataclass(frozen=True)
class UCTSettings(SettingsBase):
    """UCT with random playouts (AlphaDDA appendix 3, Eq. 12); MCTS1-4 are presets of it."""

    kind: ClassVar[str] = "uct"
    OPTION_KEYS: ClassVar[dict[str, str]] = {
        "simulations": "sims",
        "c": "c",
        "n_open": "open",
        "name": "name",
    }
    BOUNDS: ClassVar[dict[str, tuple[float | None, float | None]]] = {
        "simulations": (1, MAX_SIMULATIONS),
        "c": (0, None),
        "n_open": (1, MAX_SIMULATIONS),
    }

    simulations: int = UCT_DEFAULT_SIMULATIONS
    """Simulations per move (``N_sim``), 1 .. 100000."""
    c: float = UCT_DEFAULT_C
    """Exploration constant ``C`` of Eq. 12, finite and >= 0."""
    n_open: int = UCT_DEFAULT_N_OPEN
    """Visits at which a leaf is expanded (``N_open``), >= 1."""
    name: str = "UCT"
    """Display name."""

    def __post_init__(self) -> None:
        self.check_types()
        check_sims("sims", self.simulations)
        check_int("open", self.n_open, 1, MAX_SIMULATIONS)
        check_number("c", self.c, 0.0)
        check_name(self.name)


@dataclass(frozen=True)
class MinimaxSettings(SettingsBase):
    """Depth-limited minimax with the game's evaluation (AlphaDDA appendix 4)."""

    kind: ClassVar[str] = "minimax"
    OPTION_KEYS: ClassVar[dict[str, str]] = {
        "depth": "depth",
        "r": "r",
        "table": "table",
        "name": "name",
    }
    BOUNDS: ClassVar[dict[str, tuple[float | None, float | None]]] = {
        "depth": (1, MINIMAX_MAX_DEPTH)
    }

    depth: int = MINIMAX_DEFAULT_DEPTH
    """Search depth in plies (``N_depth``), 1 .. 12."""
    r: float = 100.0
    """Connect4's ``R`` (Minimax1: 100, Minimax2: 2), finite."""
    table: TableName = "paper"
    """Othello's square values (Minimax1: ``paper``, Minimax2: ``ones``)."""
    name: str = "Minimax"
    """Display name."""

    def __post_init__(self) -> None:
        if isinstance(self.table, str) and self.table not in ("paper", "ones"):
            raise bad_setting("table", "table must be 'paper' or 'ones'")
        self.check_types()
        check_int("depth", self.depth, 1, MINIMAX_MAX_DEPTH)
        check_number("r", self.r)
        check_name(self.name)


@dataclass(frozen=True)
class AlphaZeroSettings(SettingsBase):
    """PUCT search guided by a policy/value network (AlphaDDA app. 1)."""

    kind: ClassVar[str] = "az"
    OPTION_KEYS: ClassVar[dict[str, str]] = {
        "model": "model",
        "simulations": "sims",
        "c_puct": "cpuct",
        "dropout": "dropout",
        "root_random": "rootrand",
        "finish": "finish",
        "name": "name",
    }
    BOUNDS: ClassVar[dict[str, tuple[float | None, float | None]]] = {
        "simulations": (1, MAX_SIMULATIONS),
        "c_puct": (0, None),
        "dropout": (0, 1),
        "root_random": (0, 1),
    }

    model: str | None = None
    """Shipped network name or network file; None: the game's shipped network."""
    simulations: int | None = None
    """Simulations per move, 1 .. 100000; None: AlphaDDA Table A1's ``N_sim`` for the game."""
    c_puct: float = DEFAULT_C_PUCT
    """``C_puct`` of Eq. 8, >= 0."""
    dropout: float = 0.0
    """Play-time dropout of the heads in [0, 1) (AlphaDDA Fig. 2; 0: none)."""
    root_random: float = 0.0
    """Share of simulations leaving the root by a random move, in [0, 1]
    (:attr:`~sparring.search.puct.PUCTConfig.root_random`; the AlphaDDA author's code: 0.2)."""
    finish: bool = False
    """Pick moves under the game's finishing rules (Go: pass to win, no filling of one's own
    eyes; :attr:`~sparring.players.searching.SearchPlayer.finish`), as the Go networks trained
    with ``finish_games`` learned; other games have none."""
    name: str = "AlphaZero"
    """Display name."""

    def __post_init__(self) -> None:
        self.check_types()
        check_sims("sims", self.simulations)
        check_number("cpuct", self.c_puct, 0.0)
        check_number("dropout", self.dropout, 0.0, 1.0, high_open=True)
        check_root_random(self.root_random)
        check_name(self.name)


def default_ai(game_name: str, simulations: int | None = None) -> AlphaZeroSettings | UCTSettings:
    """A game's everyday AI: its shipped network (:func:`sparring.nn.zoo.default_model`) as
    ``az`` (Table A1's simulations unless ``simulations`` says; a Go network under Go's
    finishing rules, as it was trained with ``finish_games`` and rated), else MCTS1 (UCT with
    300 simulations, or ``simulations``).  The service, ``sparring play`` and the GTP engine
    all start from it."""
    if default_model(game_name) is not None:
        finish = isinstance(get_game(game_name), Go)
        return AlphaZeroSettings(simulations=simulations, finish=finish)
    display, sims = MCTS_PRESETS["mcts1"]
    return UCTSettings(simulations=simulations or sims, name=display)


def _check_base(base: str | None) -> None:
    if base is not None and base not in ("az", "uct"):
        raise bad_setting("base", f"base must be az or uct, not {base!r}")


@dataclass(frozen=True)
class SASettings(SettingsBase):
    """The strength-adjusted player of Wu et al. (AAAI 2019): a search, then a move drawn
    from the root visit counts with strength index ``z`` and threshold ``R_th``.

    The search fields left None take the calibration's values when ``elo`` is given (a
    value given must equal the calibration's), else the defaults of their kind.
    """

    kind: ClassVar[str] = "sa"
    OPTION_KEYS: ClassVar[dict[str, str]] = {
        "base": "base",
        "model": "model",
        "simulations": "sims",
        "c_puct": "cpuct",
        "c": "c",
        "n_open": "open",
        "strength": "",
        "elo": "elo",
        "calibration": "calibration",
        "selection": "select",
        "top_n": "n",
        "name": "name",
    }
    BOUNDS: ClassVar[dict[str, tuple[float | None, float | None]]] = {
        "simulations": (1, MAX_SIMULATIONS),
        "c_puct": (0, None),
        "c": (0, None),
        "n_open": (1, MAX_SIMULATIONS),
        "top_n": (1, None),
    }

    base: SearchBase | None = None
    """The search: ``az`` (PUCT with a network) or ``uct``; None: ``az``, or the
    calibration's."""
    model: str | None = None
    """Network name or file for ``base=az``; None: the game's shipped network."""
    simulations: int | None = None
    """Simulations per move, 1 .. 100000; None: Table A1's ``N_sim`` (az) or 300 (uct)."""
    c_puct: float | None = None
    """``C_puct`` for ``base=az`` (>= 0); None: 1.25."""
    c: float | None = None
    """UCT's ``C`` for ``base=uct`` (>= 0); None: 0.5."""
    n_open: int | None = None
    """UCT's ``N_open`` for ``base=uct`` (>= 1); None: 5."""
    strength: StrengthSetting | None = None
    """The setting ``(z, R_th, floor)`` to play; None: ``z = +inf`` (plain play), or the
    calibration's choice for :attr:`elo`."""
    elo: float | None = None
    """Target Elo (finite): the setting is chosen from a calibration (instead of
    :attr:`strength`)."""
    calibration: str | None = None
    """Calibration file for :attr:`elo` (None: the one shipped beside the network); without
    ``elo``, its search options fill the search fields left None."""
    selection: Selection = "threshold"
    """``threshold`` (Wu et al.), ``sephton`` (no threshold) or ``topn``."""
    top_n: int = 3
    """Candidates of ``selection=topn``, >= 1."""
    name: str | None = None
    """Display name; None: ``SA(setting)`` or ``SA(elo=E)``."""

    def __post_init__(self) -> None:
        _check_base(self.base)
        if isinstance(self.selection, str) and self.selection not in SELECTIONS:
            raise bad_setting("select", "select must be one of threshold, sephton, topn")
        self.check_types()
        check_sims("sims", self.simulations)
        if self.n_open is not None:
            check_int("open", self.n_open, 1, MAX_SIMULATIONS)
        check_number("cpuct", self.c_puct, 0.0)
        check_number("c", self.c, 0.0)
        check_int("n", self.top_n, 1)
        check_name(self.name)
        if self.elo is None:
            if self.calibration is None:  # else the calibration's base decides
                self.check_base(self.base or "az")
            return
        if not math.isfinite(self.elo):
            raise bad_setting("elo", f"elo must be a finite number, not {self.elo}")
        if self.strength is not None:
            raise bad_setting("elo", "give either elo or z, rth and floor, not both")
        if self.selection != "threshold":
            raise bad_setting("select", "elo needs select=threshold")
        if self.base == "uct" and self.calibration is None:
            raise bad_setting(
                "calibration", "elo needs calibration=PATH (a file written by sparring calibrate)"
            )

    def at_elo(self, elo: float) -> SASettings:
        """These settings at the target ``elo`` (the calibration chooses the setting; a target
        given before is replaced).  :class:`PlayerSettingsError` (key ``elo``) when a setting
        ``z, rth, floor`` is given, or ``elo`` is not finite."""
        if self.strength is not None:
            raise bad_setting(
                "elo",
                f"a target Elo chooses z, rth and floor itself; drop {self.strength.label()}",
            )
        return replace(self, elo=float(elo))

    def check_base(self, base: str) -> None:
        """Reject the options of the other search than ``base``."""
        wrong = ("model", "c_puct") if base == "uct" else ("c", "n_open")
        for attr in wrong:
            if getattr(self, attr) is not None:
                key = self.OPTION_KEYS[attr]
                raise bad_setting(key, f"{key} is for base={'az' if base == 'uct' else 'uct'}")


SELECTIONS = ("threshold", "sephton", "topn")
"""The values of ``sa``'s ``select``."""


# ---- dynamic strength adjustment -------------------------------------------------------------
DSAMode = Literal["inter", "intra", "elo-inter", "elo-intra", "bayes"]
"""Dynamic strength adjustment modes (:mod:`sparring.strength.dsa`)."""
DSA_DEFAULT_MODE: DSAMode = "bayes"
"""The mode a ``dsa`` player gets by default: the Bayesian estimator, which uses every result
so far (not only the last, as the step rules do) and spans the whole calibrated range."""
ControllerConfig = (
    InterGameConfig | IntraGameConfig | EloInterGameConfig | EloIntraGameConfig | BayesConfig
)
"""The config of a ``dsa`` player's controller (one class per mode)."""
DSA_CONFIGS: dict[str, type[Any]] = {
    "inter": InterGameConfig,
    "intra": IntraGameConfig,
    "elo-inter": EloInterGameConfig,
    "elo-intra": EloIntraGameConfig,
    "bayes": BayesConfig,
}
"""The controller config class of each mode."""
DSA_CONTROLLER_KEYS: dict[str, dict[str, str]] = {
    "inter": {"z0": "z0", "dz_init": "dz", "dz_low": "dzlow", "r": "r", "z_min": "zmin",
              "z_max": "zmax", "rth": "rth"},
    "intra": {"z0": "z0", "dz": "dz", "eps": "eps", "cooldown": "cooldown", "carry": "carry",
              "z_min": "zmin", "z_max": "zmax", "rth": "rth"},
    "elo-inter": {"elo0": "elo0", "step_init": "step", "step_low": "steplow", "r": "r"},
    "elo-intra": {"elo0": "elo0", "step": "step", "eps": "eps", "cooldown": "cooldown",
                  "carry": "carry"},
    "bayes": {"prior_mean": "prior", "prior_sd": "priorsd", "margin": "margin",
              "grid_step": "grid", "estimate": "estimate"},
}  # fmt: skip
"""Per mode: controller config field -> its ``dsa`` spec option key."""
DSA_PER_GAME: dict[str, frozenset[str]] = {
    "inter": frozenset({"dz_init", "dz_low", "rth"}),
    "intra": frozenset({"cooldown", "rth"}),
    "elo-inter": frozenset(),
    "elo-intra": frozenset({"cooldown"}),
    "bayes": frozenset(),
}
"""Per mode: the controller fields whose default depends on the game or the calibration
(:func:`sparring.players.dsa.controller_for`): ``dz_init`` / ``dz_low`` (100 / 8 Elo on the
calibration's slope at ``z = 0``), ``rth`` (the calibration's), ``cooldown`` (60 % of a
typical game)."""
DSA_MODE_OPTIONS: dict[str, frozenset[str]] = {
    mode: frozenset(keys.values()) for mode, keys in DSA_CONTROLLER_KEYS.items()
}
"""The controller options each mode takes (spec keys)."""
DSA_SEARCH_OPTIONS = frozenset({"base", "model", "sims", "cpuct", "c", "open", "calibration"})
"""The ``dsa`` spec options of the search and its calibration (as ``sa``'s)."""


@dataclass(frozen=True)
class CalibratedSearchSettings:
    """The search of a ``dsa`` player: ``sa``'s search options, resolved against a
    calibration (the one given, else the one shipped beside the network).  Options left None
    take the calibration's values (another value given is kept and told: the calibration's
    Elo numbers may not hold)."""

    OPTION_KEYS: ClassVar[dict[str, str]] = {
        "base": "base",
        "model": "model",
        "simulations": "sims",
        "c_puct": "cpuct",
        "c": "c",
        "n_open": "open",
        "calibration": "calibration",
    }
    BOUNDS: ClassVar[dict[str, tuple[float | None, float | None]]] = {
        "simulations": (1, MAX_SIMULATIONS),
        "c_puct": (0, None),
        "c": (0, None),
        "n_open": (1, MAX_SIMULATIONS),
    }

    base: SearchBase | None = None
    """The search, as ``sa``'s (None: ``az``, or the calibration's)."""
    model: str | None = None
    """Network name or file for ``base=az``; None: the game's shipped network."""
    simulations: int | None = None
    """Simulations per move, 1 .. 100000; None: the calibration's."""
    c_puct: float | None = None
    """``C_puct`` for ``base=az`` (>= 0); None: the calibration's."""
    c: float | None = None
    """UCT's ``C`` for ``base=uct`` (>= 0); None: the calibration's."""
    n_open: int | None = None
    """UCT's ``N_open`` for ``base=uct`` (>= 1); None: the calibration's."""
    calibration: str | None = None
    """Calibration file; None: the one shipped beside the network (``base=uct`` needs one)."""

    def __post_init__(self) -> None:
        _check_base(self.base)
        SettingsBase.check_types(self)  # type: ignore[arg-type]
        check_sims("sims", self.simulations)
        if self.n_open is not None:
            check_int("open", self.n_open, 1, MAX_SIMULATIONS)
        check_number("cpuct", self.c_puct, 0.0)
        check_number("c", self.c, 0.0)
        if self.base == "uct" and self.calibration is None:
            raise bad_setting("calibration", "base=uct needs calibration=PATH")

    def sa_settings(self) -> SASettings:
        """The ``sa`` settings of this search (strength not set): built with the calibration's
        search options merged in (:func:`~sparring.players.strength.resolve_calibration`)."""
        return SASettings(
            base=self.base,
            model=self.model,
            simulations=self.simulations,
            c_puct=self.c_puct,
            c=self.c,
            n_open=self.n_open,
            calibration=self.calibration,
        )


def _controller_error_key(mode: str, message: str, prefix: str | None) -> str:
    """The key a controller config's error is about: the spec key it starts with, or with
    ``prefix`` (JSON) ``prefix.FIELD``."""
    first = message.split(" ", 1)[0]
    keys = DSA_CONTROLLER_KEYS[mode]
    field = next((f for f, key in keys.items() if key == first), None)
    if prefix is None:
        return first if field is not None else "mode"
    return f"{prefix}.{field}" if field is not None else prefix


def make_controller(
    mode: str, given: Mapping[str, Any], json_prefix: str | None = None
) -> tuple[ControllerConfig, frozenset[str]]:
    """The controller config of ``mode`` with the fields ``given`` (config field -> value),
    and the per-game fields not given (:data:`DSA_PER_GAME`: their values in the config are
    the class defaults, replaced when the player is built).  A rejected value raises
    :class:`PlayerSettingsError` keyed by its spec option (``json_prefix``: by
    ``json_prefix.FIELD``)."""
    cls = DSA_CONFIGS[mode]
    per_game = DSA_PER_GAME[mode] - set(given)
    values = dict(given)
    if mode == "inter":  # keep dz_low <= dz_init while one of them is per game
        default = InterGameConfig()
        dz_init = values.get("dz_init", default.dz_init)
        if "dz_low" in per_game and isinstance(dz_init, int | float) and dz_init > 0:
            values["dz_low"] = min(default.dz_low, dz_init)
        dz_low = values.get("dz_low", default.dz_low)
        if "dz_init" in per_game and isinstance(dz_low, int | float):
            values["dz_init"] = max(default.dz_init, dz_low)
    try:
        config = cls(**values)
        for name, hint in field_types(cls).items():
            conform(hint, getattr(config, name), name)
    except PlayerSettingsError as exc:
        key = DSA_CONTROLLER_KEYS[mode].get(exc.key or "", exc.key or "controller")
        raise bad_setting(f"{json_prefix}.{exc.key}" if json_prefix else key, str(exc)) from None
    except (ValueError, TypeError) as exc:
        raise bad_setting(_controller_error_key(mode, str(exc), json_prefix), str(exc)) from None
    return config, per_game


@dataclass(frozen=True)
class DSASettings(SettingsBase):
    """A strength-adjusted player whose setting adapts to the opponent (dynamic strength
    adjustment, :mod:`sparring.strength.dsa`): the calibrated search of an ``sa`` player
    (:class:`CalibratedSearchSettings`) and the controller config of one :attr:`mode`.

    Spec text stays flat (``dsa:mode=inter,dz=0.5,sims=8``); JSON nests the search and the
    controller: ``{"kind": "dsa", "mode": "inter", "search": {"sims": 8, ...},
    "controller": {"dz_init": 0.5, ...}, "name": null}``, where the controller object holds
    the config's fields by their names, and a per-game field (:data:`DSA_PER_GAME`) left out
    takes its per-game default.
    """

    kind: ClassVar[str] = "dsa"

    mode: DSAMode = DSA_DEFAULT_MODE
    """``inter`` / ``intra`` (Wu et al., in ``z``), ``elo-inter`` / ``elo-intra`` (the same
    rules in Elo through the calibration) or ``bayes`` (posterior over the opponent's Elo)."""
    search: CalibratedSearchSettings = CalibratedSearchSettings()
    """The search and its calibration."""
    controller: ControllerConfig | None = None
    """The controller's parameters (the config class of :attr:`mode`); None: its defaults."""
    per_game: frozenset[str] | None = None
    """The controller fields that take their per-game default when the player is built (a
    subset of :data:`DSA_PER_GAME` of the mode; their values in :attr:`controller` are then
    unused); None: all of them when :attr:`controller` is None, else none."""
    name: str | None = None
    """Display name; None: ``DSA(MODE)``."""

    def __post_init__(self) -> None:
        if self.mode not in DSA_CONFIGS:
            raise bad_setting(
                "mode", f"mode must be one of {', '.join(DSA_CONFIGS)}, not {self.mode!r}"
            )
        if not isinstance(self.search, CalibratedSearchSettings):
            raise bad_setting(
                "search", f"search must be CalibratedSearchSettings, not {self.search!r}"
            )
        cls = DSA_CONFIGS[self.mode]
        if self.controller is None:
            object.__setattr__(self, "controller", cls())
            if self.per_game is None:
                object.__setattr__(self, "per_game", DSA_PER_GAME[self.mode])
        elif not isinstance(self.controller, cls):
            raise bad_setting(
                "controller",
                f"mode={self.mode} needs a {cls.__name__}, not {type(self.controller).__name__}",
            )
        if self.per_game is None:
            object.__setattr__(self, "per_game", frozenset())
        per_game = conform(frozenset[str], self.per_game, "per_game")
        extra = sorted(per_game - DSA_PER_GAME[self.mode])
        if extra:
            raise bad_setting("per_game", f"{extra[0]} has no per-game default in mode={self.mode}")
        check_name(conform(str | None, self.name, "name"))

    @property
    def config(self) -> ControllerConfig:
        """:attr:`controller` (never None after construction)."""
        assert self.controller is not None
        return self.controller

    def given(self) -> dict[str, Any]:
        """The controller fields that are not per game: config field -> value."""
        per_game = self.per_game or frozenset()
        return {
            name: getattr(self.config, name)
            for name in DSA_CONTROLLER_KEYS[self.mode]
            if name not in per_game
        }

    def spec(self) -> str:
        """``dsa:mode=..,search options..,controller options..,name=..`` (the options that
        differ from their defaults; a per-game field given is always written)."""
        items = [] if self.mode == DSA_DEFAULT_MODE else [f"mode={self.mode}"]
        for f in fields(self.search):
            value = getattr(self.search, f.name)
            if value != f.default:
                items.append(f"{CalibratedSearchSettings.OPTION_KEYS[f.name]}={spec_value(value)}")
        defaults = DSA_CONFIGS[self.mode]()
        for name, value in self.given().items():
            if name in DSA_PER_GAME[self.mode] or value != getattr(defaults, name):
                items.append(f"{DSA_CONTROLLER_KEYS[self.mode][name]}={spec_value(value)}")
        if self.name is not None:
            items.append(f"name={self.name}")
        return self.kind + (":" + ",".join(items) if items else "")

    def to_json(self) -> dict[str, JsonValue]:
        """``{"kind": "dsa", "mode": .., "search": {..}, "controller": {..}, "name": ..}``;
        the controller object leaves out the per-game fields."""
        return {
            "kind": self.kind,
            "mode": self.mode,
            "search": encode(self.search),
            "controller": {name: encode(value) for name, value in self.given().items()},
            "name": self.name,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DSASettings:
        """The settings of :meth:`to_json`'s object (strict, as
        :meth:`SettingsBase.from_json`)."""
        if not isinstance(data, Mapping):
            raise bad_setting("kind", f"player settings must be a JSON object, not {data!r}")
        if data.get("kind", cls.kind) != cls.kind:
            raise bad_setting("kind", f"kind must be 'dsa' here, not {data.get('kind')!r}")
        known = ("mode", "search", "controller", "name")
        unknown = sorted(set(data) - {"kind", *known})
        if unknown:
            raise UnknownKindError(
                f"unknown key {unknown[0]!r} for kind dsa (known: {', '.join(known)})",
                key=unknown[0],
            )
        mode = conform(DSAMode, data.get("mode", DSA_DEFAULT_MODE), "mode")
        search = nested_from_json(CalibratedSearchSettings, data.get("search", {}), "search")
        raw = data.get("controller", {})
        if not isinstance(raw, Mapping):
            raise bad_setting("controller", f"controller must be an object, not {raw!r}")
        hints = field_types(DSA_CONFIGS[mode])
        unknown = sorted(set(raw) - set(hints))
        if unknown:
            raise UnknownKindError(
                f"unknown key controller.{unknown[0]} for mode={mode} "
                f"(known: {', '.join(sorted(hints))})",
                key=f"controller.{unknown[0]}",
            )
        given = {k: decode(hints[k], v, f"controller.{k}") for k, v in raw.items()}
        controller, per_game = make_controller(mode, given, "controller")
        name = conform(str | None, data.get("name"), "name")
        return cls(mode, search, controller, per_game, name)

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """The JSON Schema of :meth:`to_json`'s object: the controller is one of the modes'
        config objects (each field optional)."""
        controllers = []
        for mode, config in DSA_CONFIGS.items():
            schema = object_schema(config)
            schema.pop("required", None)
            schema["title"] = f"{config.__name__} (mode={mode})"
            controllers.append(schema)
        return {
            "title": cls.__name__,
            "description": " ".join((cls.__doc__ or "").split()),
            "type": "object",
            "properties": {
                "kind": {"const": cls.kind, "description": "The player kind."},
                "mode": {"enum": list(DSA_CONFIGS), "default": DSA_DEFAULT_MODE},
                "search": object_schema(CalibratedSearchSettings),
                "controller": {"anyOf": controllers},
                "name": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            },
            "additionalProperties": False,
        }


# ---- spec strings -> settings -----------------------------------------------------------------
def _name(spec: PlayerSpec, default: str) -> str:
    return spec.options.get("name", default)


def parse_random(spec: PlayerSpec) -> RandomSettings:
    """``random[:name=NAME]``."""
    check_options(spec, {"name"})
    return RandomSettings(_name(spec, "Random"))


def parse_uct(spec: PlayerSpec) -> UCTSettings:
    """``uct[:sims=N,c=C,open=N,name=NAME]``."""
    check_options(spec, {"sims", "c", "open", "name"})
    return UCTSettings(
        simulations=option_int(spec, "sims", UCT_DEFAULT_SIMULATIONS),
        c=option_float(spec, "c", UCT_DEFAULT_C),
        n_open=option_int(spec, "open", UCT_DEFAULT_N_OPEN),
        name=_name(spec, "UCT"),
    )


def mcts_preset_parser(display: str, simulations: int) -> Any:
    """The parser of an MCTS preset kind (``mcts1[:name=NAME]``): UCT settings."""

    def parse_preset(spec: PlayerSpec) -> UCTSettings:
        check_options(spec, {"name"})
        return UCTSettings(simulations=simulations, name=_name(spec, display))

    return parse_preset


def parse_minimax(spec: PlayerSpec) -> MinimaxSettings:
    """``minimax[:depth=N,r=R,table=paper|ones,name=NAME]``."""
    check_options(spec, {"depth", "r", "table", "name"})
    table = spec.options.get("table", "paper").lower()
    return MinimaxSettings(
        depth=option_int(spec, "depth", MINIMAX_DEFAULT_DEPTH),
        r=option_float(spec, "r", 100.0),
        table=table,  # type: ignore[arg-type]  # checked by MinimaxSettings
        name=_name(spec, "Minimax"),
    )


def minimax_preset_parser(display: str, r: float, table: TableName) -> Any:
    """The parser of a minimax preset kind (``minimax1[:name=NAME]``): minimax settings."""

    def parse_preset(spec: PlayerSpec) -> MinimaxSettings:
        check_options(spec, {"name"})
        return MinimaxSettings(MINIMAX_DEFAULT_DEPTH, r, table, _name(spec, display))

    return parse_preset


def parse_alphazero(spec: PlayerSpec) -> AlphaZeroSettings:
    """``az[:model=NAME|PATH,sims=N,cpuct=C,dropout=P,rootrand=P,finish=true|false,name=NAME]``."""
    check_options(spec, {"sims", "cpuct", "model", "name", "dropout", "rootrand", "finish"})
    return AlphaZeroSettings(
        model=spec.options.get("model"),
        simulations=_optional_int(spec, "sims"),
        c_puct=option_float(spec, "cpuct", DEFAULT_C_PUCT),
        dropout=option_float(spec, "dropout", 0.0),
        root_random=option_float(spec, "rootrand", 0.0),
        finish=bool(option_bool(spec, "finish")),
        name=_name(spec, "AlphaZero"),
    )


def _optional_int(spec: PlayerSpec, key: str) -> int | None:
    return None if key not in spec.options else option_int(spec, key, 1)


def _optional_float(spec: PlayerSpec, key: str) -> float | None:
    return None if key not in spec.options else option_float(spec, key, 0.0)


def _option_z(spec: PlayerSpec, default: float) -> float:
    value = option_float(spec, "z", default)
    if math.isnan(value):
        raise bad_setting("z", "z must be a number or +-inf")
    return value


def parse_sa(spec: PlayerSpec) -> SASettings:
    """``sa:key=value,...`` (the options of :mod:`sparring.players.strength`)."""
    allowed = {*SASettings.OPTION_KEYS.values(), "z", "rth", "floor"} - {""}
    check_options(spec, allowed)
    options = spec.options
    strength: StrengthSetting | None = None
    if "elo" in options:
        for key in ("z", "rth", "floor"):
            if key in options:
                raise bad_setting(key, f"give either elo or {key}, not both (elo chooses {key})")
    elif any(key in options for key in ("z", "rth", "floor")):
        floor = option_float(spec, "floor", 0.0)
        z = _option_z(spec, -math.inf if floor > 0 else math.inf)
        try:
            strength = StrengthSetting(z, option_float(spec, "rth", PAPER_RTH), floor)
        except ValueError as exc:
            raise bad_setting("z", str(exc)) from None
    base = options.get("base")
    return SASettings(
        base=None if base is None else base.lower(),  # type: ignore[arg-type]  # checked
        model=options.get("model"),
        simulations=_optional_int(spec, "sims"),
        c_puct=_optional_float(spec, "cpuct"),
        c=_optional_float(spec, "c"),
        n_open=_optional_int(spec, "open"),
        strength=strength,
        elo=_optional_float(spec, "elo"),
        calibration=options.get("calibration"),
        selection=options.get("select", "threshold").lower(),  # type: ignore[arg-type]
        top_n=option_int(spec, "n", 3),
        name=options.get("name"),
    )


def option_bool(spec: PlayerSpec, key: str) -> bool | None:
    """A yes/no option (``1 yes true on`` / ``0 no false off``), None when absent."""
    value = spec.options.get(key)
    if value is None:
        return None
    if value.lower() in ("1", "yes", "true", "on"):
        return True
    if value.lower() in ("0", "no", "false", "off"):
        return False
    raise bad_setting(key, f"{key}={value!r} is not yes or no")


def parse_dsa(spec: PlayerSpec) -> DSASettings:
    """``dsa:mode=MODE,key=value,...`` (the search options of ``sa`` and the controller
    options of the mode, :data:`DSA_CONTROLLER_KEYS`)."""
    all_options = {"mode", "name"} | DSA_SEARCH_OPTIONS
    for keys in DSA_MODE_OPTIONS.values():
        all_options |= keys
    check_options(spec, all_options)
    options = spec.options
    mode = options.get("mode", DSA_DEFAULT_MODE).lower()
    if mode not in DSA_CONFIGS:
        raise bad_setting("mode", f"mode must be one of {', '.join(DSA_CONFIGS)}, not {mode!r}")
    allowed = DSA_MODE_OPTIONS[mode]
    for key in options:
        if key not in allowed and key not in DSA_SEARCH_OPTIONS and key not in ("mode", "name"):
            raise UnknownKindError(
                f"{key} is not an option of mode={mode} (it takes {', '.join(sorted(allowed))})",
                key=key,
            )
    base = options.get("base")
    search = CalibratedSearchSettings(
        base=None if base is None else base.lower(),  # type: ignore[arg-type]  # checked
        model=options.get("model"),
        simulations=_optional_int(spec, "sims"),
        c_puct=_optional_float(spec, "cpuct"),
        c=_optional_float(spec, "c"),
        n_open=_optional_int(spec, "open"),
        calibration=options.get("calibration"),
    )
    hints = field_types(DSA_CONFIGS[mode])
    given: dict[str, Any] = {}
    for name, key in DSA_CONTROLLER_KEYS[mode].items():
        if key not in options:
            continue
        hint = hints[name]
        if hint is bool:
            given[name] = option_bool(spec, key)
        elif hint is int:
            given[name] = option_int(spec, key, 1)
        elif hint is float:
            given[name] = option_float(spec, key, 0.0)
        else:  # the estimate's mean / median
            given[name] = options[key].lower()
    controller, per_game = make_controller(mode, given)
    return DSASettings(mode, search, controller, per_game, options.get("name"))  # type: ignore[arg-type]


BUILTIN_PARSERS: dict[str, tuple[type[Any], Any, str]] = {
    "random": (RandomSettings, parse_random, "uniformly random legal moves (AlphaDDA Random)"),
    "uct": (
        UCTSettings,
        parse_uct,
        "UCT MCTS with random playouts; options sims, c, open, name (AlphaDDA App. 3)",
    ),
    "minimax": (
        MinimaxSettings,
        parse_minimax,
        "depth-limited minimax (AlphaDDA App. 4); options depth, r (Connect4), "
        "table=paper|ones (Othello), name",
    ),
    "az": (
        AlphaZeroSettings,
        parse_alphazero,
        "AlphaZero: PUCT search with a network (az[:model=NAME|PATH,sims=N,cpuct=C,dropout=P,"
        "rootrand=P,finish=true,name=...]; default: the game's shipped model)",
    ),
    "sa": (
        SASettings,
        parse_sa,
        "strength-adjusted search (Wu et al. 2019): sa:base=az|uct,model=..,sims=N,z=Z,rth=R"
        "[,floor=F] or sa:...,elo=E[,calibration=PATH]",
    ),
    "dsa": (
        DSASettings,
        parse_dsa,
        "dynamic strength adjustment (Wu et al. 2019 and beyond): dsa:mode=inter|intra|"
        "elo-inter|elo-intra|bayes (default bayes),model=..,sims=N, controller options "
        "(sparring.players.dsa)",
    ),
}
"""The kinds of this module: kind -> (settings class, spec parser, one line of help), for the
composition root (:mod:`sparring.kinds`) to register."""
PRESETS: dict[str, tuple[type[Any], Any, str, dict[str, Any]]] = {
    **{
        kind: (
            UCTSettings,
            mcts_preset_parser(display, sims),
            f"{display}: UCT MCTS with {sims} simulations (AlphaDDA); option name",
            {"sims": sims, "name": display},
        )
        for kind, (display, sims) in MCTS_PRESETS.items()
    },
    **{
        kind: (
            MinimaxSettings,
            minimax_preset_parser(display, r, table),
            f"{display}: depth-3 minimax, R={r:g} / {table} table (AlphaDDA); option name",
            {"depth": MINIMAX_DEFAULT_DEPTH, "r": r, "table": table, "name": display},
        )
        for kind, (display, r, table) in MINIMAX_PRESETS.items()
    },
}
"""The preset kinds: kind -> (settings class, parser, help, the preset's JSON values)."""


__all__ = [
    "DSA_DEFAULT_MODE",
    "AlphaZeroSettings",
    "CalibratedSearchSettings",
    "DSASettings",
    "MinimaxSettings",
    "RandomSettings",
    "SASettings",
    "UCTSettings",
    "default_ai",
    "make_controller",
    "parse_alphazero",
    "parse_dsa",
    "parse_minimax",
    "parse_random",
    "parse_sa",
    "parse_uct",
]
