"""Typed settings of every built-in player kind, and how a spec string becomes one.

A player is described inside sparring by a frozen settings object of its kind
(:class:`RandomSettings`, :class:`UCTSettings`, :class:`MinimaxSettings`,
:class:`AlphaZeroSettings`, :class:`SASettings`), validated when it is made, and built by
:func:`build_player` (``settings.build``) with a :class:`~sparring.players.cache.PlayerCache`
of the networks and calibrations the players of a process share.  Spec strings
(``KIND:key=value,...``, :class:`~sparring.players.registry.PlayerSpec`) exist only at the
edges (command line, configuration files, stored games): the parsers registered here turn
them into settings, reporting unknown keys and bad values as one-line
:class:`~sparring.errors.UnknownPlayerError` messages.

Each settings class has :meth:`spec`, the spec text that parses back to an equal object.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, ClassVar, Literal, Protocol

from sparring.errors import UnknownPlayerError
from sparring.players.alphazero import DEFAULT_C_PUCT
from sparring.players.minimax import DEFAULT_DEPTH as MINIMAX_DEFAULT_DEPTH
from sparring.players.minimax import MINIMAX_PRESETS, TableName
from sparring.players.registry import (
    PlayerSpec,
    check_options,
    option_float,
    option_int,
    register,
)
from sparring.players.strength import UCT_DEFAULT_SIMULATIONS
from sparring.players.uct import DEFAULT_C as UCT_DEFAULT_C
from sparring.players.uct import DEFAULT_N_OPEN as UCT_DEFAULT_N_OPEN
from sparring.players.uct import MCTS_PRESETS
from sparring.strength.selection import PAPER_RTH, StrengthSetting, format_z

if TYPE_CHECKING:
    from sparring.games.base import Game
    from sparring.players.base import Player
    from sparring.players.cache import PlayerCache

Selection = Literal["threshold", "sephton", "topn"]
"""Move selection rules of the SA player (see :mod:`sparring.players.strength`)."""
SearchBase = Literal["az", "uct"]
"""The search under an SA player: PUCT with a network, or UCT with random playouts."""


class PlayerSettings(Protocol):
    """What every settings object offers: building its player, and its spec text."""

    kind: ClassVar[str]

    def build(self, game: Game, seed: int | None, cache: PlayerCache) -> Player:
        """The player for ``game`` seeded with ``seed``, sharing ``cache``."""
        ...

    def spec(self) -> str:
        """The spec text that parses back to these settings."""
        ...


def _text(value: object) -> str:
    if isinstance(value, StrengthSetting):
        return value.label()
    if isinstance(value, float):
        return format_z(value)
    return str(value)


class _SpecText:
    """Mixin: :meth:`spec` from the fields that differ from their defaults."""

    kind: ClassVar[str]
    OPTION_KEYS: ClassVar[dict[str, str]]
    """Field name -> spec option key (fields missing here are not spec options)."""

    def spec(self) -> str:
        """``KIND:key=value,...`` with the options that differ from the defaults."""
        items = []
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if f.name in self.OPTION_KEYS and value != f.default:
                key = self.OPTION_KEYS[f.name]
                items.append(_text(value) if key == "" else f"{key}={_text(value)}")
        return self.kind + (":" + ",".join(items) if items else "")


def check_root_random(share: float) -> None:
    """:class:`UnknownPlayerError` unless ``rootrand`` is a share in [0, 1]."""
    if not 0.0 <= share <= 1.0:
        raise UnknownPlayerError(f"rootrand must be in [0, 1], not {share:g}")


def _check_name(name: str | None) -> None:
    if name is not None and (not name.strip() or "," in name):
        raise UnknownPlayerError(f"name must be non-empty text without ',', not {name!r}")


@dataclass(frozen=True)
class RandomSettings(_SpecText):
    """Uniformly random legal moves (AlphaDDA's Random)."""

    kind: ClassVar[str] = "random"
    OPTION_KEYS: ClassVar[dict[str, str]] = {"name": "name"}

    name: str = "Random"
    """Display name."""

    def __post_init__(self) -> None:
        _check_name(self.name)

    def build(self, game: Game, seed: int | None, cache: PlayerCache) -> Player:
        from sparring.players.base import RandomPlayer

        return RandomPlayer(self.name, seed)


@dataclass(frozen=True)
class UCTSettings(_SpecText):
    """UCT with random playouts (AlphaDDA appendix 3, Eq. 12); MCTS1-4 are presets of it."""

    kind: ClassVar[str] = "uct"
    OPTION_KEYS: ClassVar[dict[str, str]] = {
        "simulations": "sims",
        "c": "c",
        "n_open": "open",
        "name": "name",
    }

    simulations: int = UCT_DEFAULT_SIMULATIONS
    """Simulations per move (``N_sim``), >= 1."""
    c: float = UCT_DEFAULT_C
    """Exploration constant ``C`` of Eq. 12 (finite)."""
    n_open: int = UCT_DEFAULT_N_OPEN
    """Visits at which a leaf is expanded (``N_open``), >= 1."""
    name: str = "UCT"
    """Display name."""

    def __post_init__(self) -> None:
        if self.simulations < 1:
            raise UnknownPlayerError("sims must be >= 1")
        if self.n_open < 1:
            raise UnknownPlayerError("open must be >= 1")
        if not math.isfinite(self.c):
            raise UnknownPlayerError("c must be a finite number")
        _check_name(self.name)

    def build(self, game: Game, seed: int | None, cache: PlayerCache) -> Player:
        from sparring.players.uct import UCTPlayer

        return UCTPlayer(self.name, self.simulations, seed, self.c, self.n_open)


@dataclass(frozen=True)
class MinimaxSettings(_SpecText):
    """Depth-limited minimax with the game's evaluation (AlphaDDA appendix 4)."""

    kind: ClassVar[str] = "minimax"
    OPTION_KEYS: ClassVar[dict[str, str]] = {
        "depth": "depth",
        "r": "r",
        "table": "table",
        "name": "name",
    }

    depth: int = MINIMAX_DEFAULT_DEPTH
    """Search depth in plies (``N_depth``), >= 1."""
    r: float = 100.0
    """Connect4's ``R`` (Minimax1: 100, Minimax2: 2), finite."""
    table: TableName = "paper"
    """Othello's square values (Minimax1: ``paper``, Minimax2: ``ones``)."""
    name: str = "Minimax"
    """Display name."""

    def __post_init__(self) -> None:
        if self.depth < 1:
            raise UnknownPlayerError("depth must be >= 1")
        if not math.isfinite(self.r):
            raise UnknownPlayerError("r must be a finite number")
        if self.table not in ("paper", "ones"):
            raise UnknownPlayerError("table must be 'paper' or 'ones'")
        _check_name(self.name)

    def build(self, game: Game, seed: int | None, cache: PlayerCache) -> Player:
        from sparring.games.connect4 import Connect4
        from sparring.games.othello import Othello
        from sparring.games.tictactoe import TicTacToe
        from sparring.players.minimax import MinimaxPlayer

        game.require_compiled("Minimax")
        if not isinstance(game, Connect4 | Othello | TicTacToe):
            raise UnknownPlayerError(f"minimax has no evaluation function for {game.name}")
        return MinimaxPlayer(self.name, self.depth, seed, self.r, self.table)


@dataclass(frozen=True)
class AlphaZeroSettings(_SpecText):
    """PUCT search guided by a policy/value network (AlphaDDA app. 1)."""

    kind: ClassVar[str] = "az"
    OPTION_KEYS: ClassVar[dict[str, str]] = {
        "model": "model",
        "simulations": "sims",
        "c_puct": "cpuct",
        "dropout": "dropout",
        "root_random": "rootrand",
        "name": "name",
    }

    model: str | None = None
    """Shipped network name or network file; None: the game's shipped network."""
    simulations: int | None = None
    """Simulations per move, >= 1; None: AlphaDDA Table A1's ``N_sim`` for the game."""
    c_puct: float = DEFAULT_C_PUCT
    """``C_puct`` of Eq. 8, >= 0."""
    dropout: float = 0.0
    """Play-time dropout of the heads in [0, 1) (AlphaDDA Fig. 2; 0: none)."""
    root_random: float = 0.0
    """Share of simulations leaving the root by a random move, in [0, 1]
    (:attr:`~sparring.search.puct.PUCTConfig.root_random`; the AlphaDDA author's code: 0.2)."""
    name: str = "AlphaZero"
    """Display name."""

    def __post_init__(self) -> None:
        if self.simulations is not None and self.simulations < 1:
            raise UnknownPlayerError("sims must be >= 1")
        if not self.c_puct >= 0:
            raise UnknownPlayerError("cpuct must be >= 0")
        if not 0.0 <= self.dropout < 1.0:
            raise UnknownPlayerError("dropout must be in [0, 1)")
        check_root_random(self.root_random)
        _check_name(self.name)

    def build(self, game: Game, seed: int | None, cache: PlayerCache) -> Player:
        from sparring.players.alphazero import build_alphazero_player

        return build_alphazero_player(self, game, seed, cache)


@dataclass(frozen=True)
class SASettings(_SpecText):
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

    base: SearchBase | None = None
    """The search: ``az`` (PUCT with a network) or ``uct``; None: ``az``, or the
    calibration's."""
    model: str | None = None
    """Network name or file for ``base=az``; None: the game's shipped network."""
    simulations: int | None = None
    """Simulations per move, >= 1; None: Table A1's ``N_sim`` (az) or 300 (uct)."""
    c_puct: float | None = None
    """``C_puct`` for ``base=az`` (>= 0); None: 1.25."""
    c: float | None = None
    """UCT's ``C`` for ``base=uct``; None: 0.5."""
    n_open: int | None = None
    """UCT's ``N_open`` for ``base=uct`` (>= 1); None: 5."""
    strength: StrengthSetting | None = None
    """The setting ``(z, R_th, floor)`` to play; None: ``z = +inf`` (plain play), or the
    calibration's choice for :attr:`elo`."""
    elo: float | None = None
    """Target Elo (finite): the setting is chosen from a calibration (instead of
    :attr:`strength`)."""
    calibration: str | None = None
    """Calibration file for :attr:`elo`; None: the one shipped beside the network."""
    selection: Selection = "threshold"
    """``threshold`` (Wu et al.), ``sephton`` (no threshold) or ``topn``."""
    top_n: int = 3
    """Candidates of ``selection=topn``, >= 1."""
    name: str | None = None
    """Display name; None: ``SA(setting)`` or ``SA(elo=E)``."""

    def __post_init__(self) -> None:
        if self.base is not None and self.base not in ("az", "uct"):
            raise UnknownPlayerError(f"base must be az or uct, not {self.base!r}")
        if self.selection not in ("threshold", "sephton", "topn"):
            raise UnknownPlayerError("select must be one of threshold, sephton, topn")
        if self.simulations is not None and self.simulations < 1:
            raise UnknownPlayerError("sims must be >= 1")
        if self.n_open is not None and self.n_open < 1:
            raise UnknownPlayerError("open must be >= 1")
        if self.c_puct is not None and not self.c_puct >= 0:
            raise UnknownPlayerError("cpuct must be >= 0")
        if self.top_n < 1:
            raise UnknownPlayerError("n must be >= 1")
        _check_name(self.name)
        if self.elo is None:
            if self.calibration is not None:
                raise UnknownPlayerError("calibration is only used with elo")
            self.check_base(self.base or "az")
            return
        if not math.isfinite(self.elo):
            raise UnknownPlayerError(f"elo must be a finite number, not {self.elo}")
        if self.strength is not None:
            raise UnknownPlayerError("give either elo or z, rth and floor, not both")
        if self.selection != "threshold":
            raise UnknownPlayerError("elo needs select=threshold")
        if self.base == "uct" and self.calibration is None:
            raise UnknownPlayerError(
                "elo needs calibration=PATH (a file written by sparring calibrate)"
            )

    def check_base(self, base: str) -> None:
        """Reject the options of the other search than ``base``."""
        wrong = ("model", "c_puct") if base == "uct" else ("c", "n_open")
        for attr in wrong:
            if getattr(self, attr) is not None:
                key = self.OPTION_KEYS[attr]
                raise UnknownPlayerError(f"{key} is for base={'az' if base == 'uct' else 'uct'}")

    def build(self, game: Game, seed: int | None, cache: PlayerCache) -> Player:
        from sparring.players.strength import build_sa_player

        return build_sa_player(self, game, seed, cache)


DSAMode = Literal["inter", "intra", "elo-inter", "elo-intra", "bayes"]
"""Dynamic strength adjustment modes (:mod:`sparring.strength.dsa`)."""
DSA_DEFAULT_MODE: DSAMode = "bayes"
"""The mode a ``dsa`` player gets by default: the Bayesian estimator, which uses every result
so far (not only the last, as the step rules do) and spans the whole calibrated range."""
DSA_MODE_OPTIONS: dict[str, frozenset[str]] = {
    "inter": frozenset({"z0", "dz", "dzlow", "r", "zmin", "zmax", "rth"}),
    "intra": frozenset({"z0", "dz", "eps", "cooldown", "carry", "zmin", "zmax", "rth"}),
    "elo-inter": frozenset({"elo0", "step", "steplow", "r"}),
    "elo-intra": frozenset({"elo0", "step", "eps", "cooldown", "carry"}),
    "bayes": frozenset({"prior", "priorsd", "margin", "grid", "estimate"}),
}
"""The controller options each mode takes (spec keys)."""
DSA_SEARCH_OPTIONS = frozenset({"base", "model", "sims", "cpuct", "c", "open", "calibration"})
"""The ``dsa`` spec options of the search and its calibration (as ``sa``'s)."""


@dataclass(frozen=True)
class DSASettings(_SpecText):
    """A strength-adjusted player whose setting adapts to the opponent (dynamic strength
    adjustment, :mod:`sparring.strength.dsa`): the search of an ``sa`` player with a
    calibration, and a controller of one :attr:`mode`.

    Every controller option left None takes its default, per game where the calibration
    gives one (:func:`sparring.players.dsa.controller_for`).  Options of another mode than
    :attr:`mode` are rejected.
    """

    kind: ClassVar[str] = "dsa"
    OPTION_KEYS: ClassVar[dict[str, str]] = {
        "mode": "mode",
        "base": "base",
        "model": "model",
        "simulations": "sims",
        "c_puct": "cpuct",
        "c": "c",
        "n_open": "open",
        "calibration": "calibration",
        "z0": "z0",
        "dz": "dz",
        "dz_low": "dzlow",
        "r": "r",
        "eps": "eps",
        "cooldown": "cooldown",
        "carry": "carry",
        "z_min": "zmin",
        "z_max": "zmax",
        "rth": "rth",
        "elo0": "elo0",
        "step": "step",
        "step_low": "steplow",
        "prior": "prior",
        "prior_sd": "priorsd",
        "margin": "margin",
        "grid": "grid",
        "estimate": "estimate",
        "name": "name",
    }

    mode: DSAMode = DSA_DEFAULT_MODE
    """``inter`` / ``intra`` (Wu et al., in ``z``), ``elo-inter`` / ``elo-intra`` (the same
    rules in Elo through the calibration) or ``bayes`` (posterior over the opponent's Elo)."""
    base: SearchBase | None = None
    """The search, as ``sa``'s (None: ``az``, or the calibration's)."""
    model: str | None = None
    """Network name or file for ``base=az``; None: the game's shipped network."""
    simulations: int | None = None
    """Simulations per move, >= 1; None: the calibration's (another value: told, Elo
    numbers may not hold)."""
    c_puct: float | None = None
    """``C_puct`` for ``base=az``; None: the calibration's."""
    c: float | None = None
    """UCT's ``C`` for ``base=uct``; None: the calibration's."""
    n_open: int | None = None
    """UCT's ``N_open`` for ``base=uct``; None: the calibration's."""
    calibration: str | None = None
    """Calibration file; None: the one shipped beside the network (``base=uct`` needs one)."""
    z0: float | None = None
    """inter / intra: the first ``z`` (default 0)."""
    dz: float | None = None
    """inter: ``dz_init`` (default: 100 Elo on the calibration's slope at z = 0); intra:
    ``dZ_0`` (default 0.2)."""
    dz_low: float | None = None
    """inter: ``dz_low`` (default: 8 Elo on the calibration's slope)."""
    r: float | None = None
    """inter / elo-inter: the step's factor per game (default 0.95)."""
    eps: float | None = None
    """intra / elo-intra: Eq. 18's ``epsilon`` (default 0.1)."""
    cooldown: int | None = None
    """intra / elo-intra: plies to cool the step to 0 (default: 60 % of a typical game,
    Connect4 22, 6x6 Othello 19)."""
    carry: bool | None = None
    """intra / elo-intra: start a game where the last ended (default: intra no, elo-intra
    yes)."""
    z_min: float | None = None
    """inter / intra: the lowest ``z`` (default -3)."""
    z_max: float | None = None
    """inter / intra: the highest ``z`` (default 3)."""
    rth: float | None = None
    """inter / intra: the threshold ``R_th`` (default: the calibration's main one, 0.1)."""
    elo0: float | None = None
    """elo-inter / elo-intra: the first target Elo (default 1500)."""
    step: float | None = None
    """elo-inter: the first step in Elo (default 200); elo-intra: the step at ply 0
    (default 100)."""
    step_low: float | None = None
    """elo-inter: the smallest step (default 16)."""
    prior: float | None = None
    """bayes: the prior mean of the opponent's Elo (default 1500)."""
    prior_sd: float | None = None
    """bayes: the prior's standard deviation (default 400; ``inf``: uniform)."""
    margin: float | None = None
    """bayes: the grid's extent beyond the calibrated range (default 400)."""
    grid: float | None = None
    """bayes: the grid spacing in Elo (default 2)."""
    estimate: Literal["mean", "median"] | None = None
    """bayes: play at the posterior ``mean`` (default) or ``median``."""
    name: str | None = None
    """Display name; None: ``DSA(MODE)``."""

    def __post_init__(self) -> None:
        if self.mode not in DSA_MODE_OPTIONS:
            raise UnknownPlayerError(f"mode must be one of {', '.join(DSA_MODE_OPTIONS)}")
        if self.base is not None and self.base not in ("az", "uct"):
            raise UnknownPlayerError(f"base must be az or uct, not {self.base!r}")
        if self.base == "uct" and self.calibration is None:
            raise UnknownPlayerError("base=uct needs calibration=PATH")
        if self.simulations is not None and self.simulations < 1:
            raise UnknownPlayerError("sims must be >= 1")
        if self.cooldown is not None and self.cooldown < 1:
            raise UnknownPlayerError("cooldown must be >= 1")
        if self.estimate is not None and self.estimate not in ("mean", "median"):
            raise UnknownPlayerError("estimate must be mean or median")
        _check_name(self.name)
        allowed = DSA_MODE_OPTIONS[self.mode]
        for attr, key in self.OPTION_KEYS.items():
            if key in allowed or key in DSA_SEARCH_OPTIONS or key in ("mode", "name"):
                continue
            if getattr(self, attr) is not None:
                raise UnknownPlayerError(
                    f"{key} is not an option of mode={self.mode} "
                    f"(it takes {', '.join(sorted(allowed))})"
                )

    def search_settings(self) -> SASettings:
        """The ``sa`` settings of the search (with the calibration, no setting)."""
        return SASettings(
            base=self.base,
            model=self.model,
            simulations=self.simulations,
            c_puct=self.c_puct,
            c=self.c,
            n_open=self.n_open,
            calibration=self.calibration,
            elo=0.0,  # marks "resolved against a calibration"; never played
        )

    def build(self, game: Game, seed: int | None, cache: PlayerCache) -> Player:
        from sparring.players.dsa import build_dsa_player

        return build_dsa_player(self, game, seed, cache)


def build_player(
    settings: PlayerSettings,
    game: Game,
    seed: int | None = None,
    cache: PlayerCache | None = None,
) -> Player:
    """The player described by ``settings`` for ``game``, seeded with ``seed``.

    ``cache`` holds the networks, calibrations and file hashes shared by the players of a
    process (a fresh one when None: everything is then read for this player alone).  Raises
    :class:`~sparring.errors.UnknownPlayerError` (prefixed with the settings' spec text) when
    the settings do not fit ``game`` or name a missing or wrong file.
    """
    return _build(settings, game, seed, cache, settings.spec())


def _build(
    settings: PlayerSettings,
    game: Game,
    seed: int | None,
    cache: PlayerCache | None,
    text: str,
) -> Player:
    from sparring.players.cache import PlayerCache

    try:
        return settings.build(game, seed, PlayerCache() if cache is None else cache)
    except UnknownPlayerError as exc:
        raise UnknownPlayerError(f"player {text!r}: {exc}") from None


# ---- spec strings -> settings -----------------------------------------------------------------
def _name(spec: PlayerSpec, default: str) -> str:
    return spec.options.get("name", default)


@register("random", "uniformly random legal moves (AlphaDDA Random)")
def parse_random(spec: PlayerSpec) -> RandomSettings:
    """``random[:name=NAME]``."""
    check_options(spec, {"name"})
    return RandomSettings(_name(spec, "Random"))


@register("uct", "UCT MCTS with random playouts; options sims, c, open, name (AlphaDDA App. 3)")
def parse_uct(spec: PlayerSpec) -> UCTSettings:
    """``uct[:sims=N,c=C,open=N,name=NAME]``."""
    check_options(spec, {"sims", "c", "open", "name"})
    return UCTSettings(
        simulations=option_int(spec, "sims", UCT_DEFAULT_SIMULATIONS),
        c=option_float(spec, "c", UCT_DEFAULT_C),
        n_open=option_int(spec, "open", UCT_DEFAULT_N_OPEN),
        name=_name(spec, "UCT"),
    )


def _register_mcts_preset(kind: str, display: str, simulations: int) -> None:
    @register(kind, f"{display}: UCT MCTS with {simulations} simulations (AlphaDDA); option name")
    def _preset(spec: PlayerSpec) -> UCTSettings:
        check_options(spec, {"name"})
        return UCTSettings(simulations=simulations, name=_name(spec, display))


@register(
    "minimax",
    "depth-limited minimax (AlphaDDA App. 4); options depth, r (Connect4), "
    "table=paper|ones (Othello), name",
)
def parse_minimax(spec: PlayerSpec) -> MinimaxSettings:
    """``minimax[:depth=N,r=R,table=paper|ones,name=NAME]``."""
    check_options(spec, {"depth", "r", "table", "name"})
    table = spec.options.get("table", "paper").lower()
    if table not in ("paper", "ones"):
        raise UnknownPlayerError("table must be 'paper' or 'ones'")
    return MinimaxSettings(
        depth=option_int(spec, "depth", MINIMAX_DEFAULT_DEPTH),
        r=option_float(spec, "r", 100.0),
        table="paper" if table == "paper" else "ones",
        name=_name(spec, "Minimax"),
    )


def _register_minimax_preset(kind: str, display: str, r: float, table: TableName) -> None:
    @register(kind, f"{display}: depth-3 minimax, R={r:g} / {table} table (AlphaDDA); option name")
    def _preset(spec: PlayerSpec) -> MinimaxSettings:
        check_options(spec, {"name"})
        return MinimaxSettings(MINIMAX_DEFAULT_DEPTH, r, table, _name(spec, display))


@register(
    "az",
    "AlphaZero: PUCT search with a network (az[:model=NAME|PATH,sims=N,cpuct=C,dropout=P,"
    "rootrand=P,name=...]; default: the game's shipped model)",
)
def parse_alphazero(spec: PlayerSpec) -> AlphaZeroSettings:
    """``az[:model=NAME|PATH,sims=N,cpuct=C,dropout=P,rootrand=P,name=NAME]``."""
    check_options(spec, {"sims", "cpuct", "model", "name", "dropout", "rootrand"})
    sims = spec.options.get("sims")
    return AlphaZeroSettings(
        model=spec.options.get("model"),
        simulations=None if sims is None else option_int(spec, "sims", 1),
        c_puct=option_float(spec, "cpuct", DEFAULT_C_PUCT),
        dropout=option_float(spec, "dropout", 0.0),
        root_random=option_float(spec, "rootrand", 0.0),
        name=_name(spec, "AlphaZero"),
    )


def _optional_int(spec: PlayerSpec, key: str) -> int | None:
    return None if key not in spec.options else option_int(spec, key, 1)


def _optional_float(spec: PlayerSpec, key: str) -> float | None:
    return None if key not in spec.options else option_float(spec, key, 0.0)


def _option_z(spec: PlayerSpec, default: float) -> float:
    value = option_float(spec, "z", default)
    if math.isnan(value):
        raise UnknownPlayerError("z must be a number or +-inf")
    return value


@register(
    "sa",
    "strength-adjusted search (Wu et al. 2019): sa:base=az|uct,model=..,sims=N,z=Z,rth=R"
    "[,floor=F] or sa:...,elo=E[,calibration=PATH]",
)
def parse_sa(spec: PlayerSpec) -> SASettings:
    """``sa:key=value,...`` (the options of :mod:`sparring.players.strength`)."""
    allowed = {
        *SASettings.OPTION_KEYS.values(),
        "z",
        "rth",
        "floor",
    } - {""}
    check_options(spec, allowed)
    options = spec.options
    strength: StrengthSetting | None = None
    if "elo" in options:
        for key in ("z", "rth", "floor"):
            if key in options:
                raise UnknownPlayerError(f"give either elo or {key}, not both (elo chooses {key})")
    elif any(key in options for key in ("z", "rth", "floor")):
        floor = option_float(spec, "floor", 0.0)
        z = _option_z(spec, -math.inf if floor > 0 else math.inf)
        try:
            strength = StrengthSetting(z, option_float(spec, "rth", PAPER_RTH), floor)
        except ValueError as exc:
            raise UnknownPlayerError(str(exc)) from None
    base = options.get("base")
    selection = options.get("select", "threshold").lower()
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
        selection=selection,  # type: ignore[arg-type]  # checked by SASettings
        top_n=option_int(spec, "n", 3),
        name=options.get("name"),
    )


def _option_bool(spec: PlayerSpec, key: str) -> bool | None:
    value = spec.options.get(key)
    if value is None:
        return None
    if value.lower() in ("1", "yes", "true", "on"):
        return True
    if value.lower() in ("0", "no", "false", "off"):
        return False
    raise UnknownPlayerError(f"{key}={value!r} is not yes or no")


@register(
    "dsa",
    "dynamic strength adjustment (Wu et al. 2019 and beyond): dsa:mode=inter|intra|elo-inter|"
    "elo-intra|bayes (default bayes),model=..,sims=N, controller options (sparring.players.dsa)",
)
def parse_dsa(spec: PlayerSpec) -> DSASettings:
    """``dsa:mode=MODE,key=value,...`` (the options of :class:`DSASettings`)."""
    check_options(spec, set(DSASettings.OPTION_KEYS.values()))
    options = spec.options
    base = options.get("base")
    mode = options.get("mode", DSA_DEFAULT_MODE).lower()
    estimate = options.get("estimate")
    return DSASettings(
        mode=mode,  # type: ignore[arg-type]  # checked by DSASettings
        base=None if base is None else base.lower(),  # type: ignore[arg-type]  # checked
        model=options.get("model"),
        simulations=_optional_int(spec, "sims"),
        c_puct=_optional_float(spec, "cpuct"),
        c=_optional_float(spec, "c"),
        n_open=_optional_int(spec, "open"),
        calibration=options.get("calibration"),
        z0=_optional_float(spec, "z0"),
        dz=_optional_float(spec, "dz"),
        dz_low=_optional_float(spec, "dzlow"),
        r=_optional_float(spec, "r"),
        eps=_optional_float(spec, "eps"),
        cooldown=_optional_int(spec, "cooldown"),
        carry=_option_bool(spec, "carry"),
        z_min=_optional_float(spec, "zmin"),
        z_max=_optional_float(spec, "zmax"),
        rth=_optional_float(spec, "rth"),
        elo0=_optional_float(spec, "elo0"),
        step=_optional_float(spec, "step"),
        step_low=_optional_float(spec, "steplow"),
        prior=_optional_float(spec, "prior"),
        prior_sd=_optional_float(spec, "priorsd"),
        margin=_optional_float(spec, "margin"),
        grid=_optional_float(spec, "grid"),
        estimate=None if estimate is None else estimate.lower(),  # type: ignore[arg-type]
        name=options.get("name"),
    )


for _kind, (_display, _sims) in MCTS_PRESETS.items():
    _register_mcts_preset(_kind, _display, _sims)
for _kind, (_display, _r, _table) in MINIMAX_PRESETS.items():
    _register_minimax_preset(_kind, _display, _r, _table)


__all__ = [
    "DSA_DEFAULT_MODE",
    "AlphaZeroSettings",
    "DSASettings",
    "MinimaxSettings",
    "PlayerSettings",
    "RandomSettings",
    "SASettings",
    "UCTSettings",
    "build_player",
    "parse_alphazero",
    "parse_dsa",
    "parse_minimax",
    "parse_random",
    "parse_sa",
    "parse_uct",
]
