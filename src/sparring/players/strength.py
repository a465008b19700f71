"""The strength-adjusted (SA) player of Wu et al. (AAAI 2019): search, then pick a move by
the visit counts with a strength index ``z`` and a threshold ratio ``R_th``.

Each move runs a full search from the current position (``base=az``: the PUCT search with a
network, AlphaDDA app. 1.2; ``base=uct``: plain UCT with random playouts, AlphaDDA app. 3, for
games or models without a network) and then draws the move from
:func:`~sparring.strength.selection.sa_distribution` of the root visit counts with the
player's seeded generator: ``p_i ∝ N_i^z`` over the candidates ``N_i >= R_th N_max``.  With a
floor level ``f > 0`` (below ``z = -inf``, :func:`~sparring.strength.selection.floor_schedule`)
the threshold is relaxed and, with probability ``q``, a uniformly random legal move is
played without searching.  Each move's annotation (:meth:`~SearchPlayer.annotation`, in the
decision :meth:`~SearchPlayer.play` returns) reports the root moves and visit counts of its
search, which the match runner records for the strength analysis (Eq. 13-17).

Player spec ``sa:key=value,...``:

``base``      ``az`` (default) or ``uct``
``model``     network name or file for ``base=az`` (default: the game's shipped network)
``sims``      simulations per move (az: AlphaDDA Table A1's ``N_sim``; uct: 300, as MCTS1)
``cpuct``     ``C_puct`` for az (1.25); ``c``, ``open``: UCT's ``C`` (0.5) and ``N_open`` (5)
``z``         strength index, a number or ``inf`` / ``-inf`` (default ``+inf``: plain play)
``rth``       threshold ratio ``R_th`` in [0, 1] (default 0.1, the paper's)
``floor``     floor level in [0, 2] below ``z = -inf`` (needs ``z=-inf`` or no ``z``)
``elo``       target Elo: ``z``, ``rth`` and ``floor`` from a calibration (instead of them)
``calibration`` calibration file (default for ``base=az``: the one shipped beside the model,
              ``NAME.calibration.json``); its search settings are used unless given
``select``    ``threshold`` (default, Wu et al.), ``sephton`` (no threshold) or ``topn``
``n``         number of candidates for ``select=topn`` (default 3)
``name``      display name

E.g. ``sa:base=uct,sims=300,z=1,rth=0.1`` or ``sa:model=connect4,elo=1500``.  A spec is
read into :class:`~sparring.players.settings.SASettings`; :func:`build_sa_player` builds the
player from those.  A target Elo outside the calibrated range plays the nearest end of it,
says so in one line (:meth:`~sparring.players.cache.PlayerCache.notice`), and the player is
named by the Elo it plays, e.g. ``SA(elo=2267, clamped from 99999)``; every move's
:class:`~sparring.search.analysis.MoveAnalysis` carries the setting played, the Elo asked for
and played, whether it was clamped (:class:`~sparring.search.analysis.StrengthReport`) and the
notice as data.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import numpy as np
import numpy.typing as npt

from sparring.errors import (
    ConfigError,
    IncompatiblePlayerError,
    PlayerResourceError,
    PlayerSettingsError,
    UnknownPlayerError,
)
from sparring.games.base import Game, MoveFilter, State
from sparring.nn.loading import network_file
from sparring.nn.zoo import default_model
from sparring.players.alphazero import DEFAULT_SIMULATIONS, TABLE_A1_SIMULATIONS
from sparring.players.base import JsonValue, PlayerState, set_stream
from sparring.players.cache import PlayerCache
from sparring.players.finish import allowed_moves, finishing_move
from sparring.players.searching import SearchPlayer
from sparring.players.settings import UCT_DEFAULT_SIMULATIONS, SASettings
from sparring.rng import rng_state_from
from sparring.search.analysis import StrengthReport
from sparring.search.hooks import DEFAULT_C_PUCT
from sparring.search.limit import Limit, LimitClock
from sparring.search.puct import PUCTConfig, search
from sparring.search.stats import RootStats
from sparring.search.uct import DEFAULT_C as UCT_DEFAULT_C
from sparring.search.uct import DEFAULT_N_OPEN as UCT_DEFAULT_N_OPEN
from sparring.search.uct import uct_search
from sparring.strength.controller import FixedController, MoveContext, StrengthController
from sparring.strength.selection import (
    PAPER_RTH,
    StrengthSetting,
    sa_distribution,
    sephton_distribution,
    top_n_distribution,
)
from sparring.strength.target import Calibration, calibration_path_for_model

SELECTIONS = ("threshold", "sephton", "topn")
"""Move selection rules: Wu et al.'s threshold (the default), Sephton's plain softmax, top n."""
SEARCH_OPTIONS = ("base", "model", "sims", "cpuct", "c", "open")
"""Spec options that define the underlying search (what a calibration is measured with)."""


class RootSearch(Protocol):
    """A search from a position returning the root statistics, under an optional limit
    (``clock``: the limit's clock, started with the move)."""

    def __call__(
        self,
        game: Game,
        state: State,
        limit: Limit | None = None,
        clock: LimitClock | None = None,
    ) -> RootStats: ...


SearchFactory = Callable[[np.random.Generator], RootSearch]
"""Builds a :class:`RootSearch` that draws its randomness from the given generator."""


class UCTRootSearch:
    """UCT with random playouts (AlphaDDA app. 3, :func:`~sparring.search.uct.uct_search`);
    its compiled random stream is drawn once from the generator."""

    def __init__(
        self, simulations: int, rng: np.random.Generator, c: float = 0.5, n_open: int = 5
    ) -> None:
        if simulations < 1:
            raise ValueError("simulations must be >= 1")
        self.simulations = simulations
        self.c = c
        self.n_open = n_open
        self._stream = rng_state_from(rng)

    def __call__(
        self,
        game: Game,
        state: State,
        limit: Limit | None = None,
        clock: LimitClock | None = None,
    ) -> RootStats:
        return uct_search(
            game, state, self.simulations, self._stream, self.c, self.n_open,
            limit=limit, clock=clock,
        )  # fmt: skip


class PUCTRootSearch:
    """The PUCT search with a network evaluator (:func:`~sparring.search.puct.search`)."""

    def __init__(self, evaluator: Any, config: Any, rng: np.random.Generator) -> None:
        self.evaluator = evaluator
        self.config = config
        self.rng = rng

    def __call__(
        self,
        game: Game,
        state: State,
        limit: Limit | None = None,
        clock: LimitClock | None = None,
    ) -> RootStats:
        return search(game, state, self.evaluator, self.config, self.rng, limit, clock)


def uct_root_search(simulations: int, c: float = 0.5, n_open: int = 5) -> SearchFactory:
    """A :data:`SearchFactory` for UCT (``base=uct``)."""
    return lambda rng: UCTRootSearch(simulations, rng, c, n_open)


def network_root_search(evaluator: Any, config: Any) -> SearchFactory:
    """A :data:`SearchFactory` for PUCT with ``evaluator`` and a ``PUCTConfig`` (``base=az``)."""
    return lambda rng: PUCTRootSearch(evaluator, config, rng)


class EloTarget(NamedTuple):
    """The target Elo an SA player was built for (reported in every move's analysis)."""

    asked: float
    """The Elo asked for."""
    played: float
    """The Elo the calibration gives the setting played (the target unless clamped)."""
    clamped: bool
    """Whether the target lay outside the calibrated range (the nearest end is played)."""


class StrengthAdjustedPlayer(SearchPlayer):
    """Searches, then draws its move from the SA policy of the root visit counts.

    ``search`` builds the underlying search from the player's seeded generator; ``setting``
    is either one fixed ``(z, R_th, floor)`` or a
    :class:`~sparring.strength.controller.StrengthController` that chooses the setting of
    every move (e.g. dynamic strength adjustment, :mod:`sparring.strength.dsa`).  The player
    tells the controller when a game starts and how it ended, and saves / restores its state
    as its own.  A controller that reads the search (``uses_search``) is asked after the
    search; any other before it, so that a floor's random move skips the search (a fixed
    setting plays exactly as the ``sa`` player always did).  ``selection`` picks the rule:
    ``"threshold"`` (Wu et al.), ``"sephton"`` (softmax over every legal move, ``R_th``
    ignored) or ``"topn"`` (softmax over the ``top_n`` most visited moves).  The floor
    applies to the threshold rule only.  ``finish_go`` (the SA-MCTS kind of
    :mod:`sparring.players.human_like`) applies the game's move filter
    (:meth:`~sparring.games.base.Game.move_filter`; Go: pass to win when the opponent has
    just passed and the player is ahead, and never fill one's own eye, its visits counting as
    none before the SA distribution), as the other programs built on networks that hardly
    pass do.  ``elo`` (a player built for a target Elo) and ``notices`` (e.g. the target was
    clamped) go into every move's analysis.
    """

    info_root = True

    def __init__(
        self,
        search: SearchFactory,
        setting: StrengthSetting | StrengthController,
        name: str = "SA",
        seed: int | None = None,
        selection: str = "threshold",
        top_n: int = 3,
        finish_go: bool = False,
        elo: EloTarget | None = None,
        notices: tuple[str, ...] = (),
    ) -> None:
        super().__init__(name, seed, finish=finish_go)
        if selection not in SELECTIONS:
            raise ValueError(f"selection must be one of {', '.join(SELECTIONS)}")
        if top_n < 1:
            raise ValueError("top_n must be >= 1")
        self.controller: StrengthController = (
            FixedController(setting) if isinstance(setting, StrengthSetting) else setting
        )
        self.setting: StrengthSetting = self.controller.setting(MoveContext(0, 0))
        """The setting of the last move (before the first: the controller's first answer)."""
        self.selection = selection
        self.top_n = top_n
        self.elo = elo
        self.notices = tuple(notices)
        self._search_factory = search
        self.search = search(self.rng)
        self._ply = 0

    @property
    def finish_go(self) -> bool:
        """Whether moves are picked under the game's move filter (:attr:`finish`)."""
        return self.finish

    def reseed(self, seed: int) -> None:
        """Reset the generator and rebuild the search from it (as built)."""
        super().reseed(seed)
        self.search = self._search_factory(self.rng)

    def random_state(self) -> dict[str, JsonValue]:
        """The generator's state and, for a UCT search, its compiled stream (``stream``)."""
        state = super().random_state()
        if isinstance(self.search, UCTRootSearch):
            state["stream"] = int(self.search._stream[0])
        return state

    def set_random_state(self, data: JsonValue) -> None:
        super().set_random_state(data)
        if isinstance(self.search, UCTRootSearch):
            set_stream(self.search._stream, data, "stream", self.name)

    def live_state(self) -> PlayerState | None:
        """The controller's state within the game (an intra-game controller's ``z`` or
        target moves during the game; telling the game again starts it over)."""
        state = self.controller.live_state()
        return None if state is None else {"controller": state}

    def restore_live_state(self, data: PlayerState | None) -> None:
        if data is None:
            return
        state = data.get("controller")
        if not isinstance(state, dict):
            raise ValueError(f"{self.name}: a live state is {{'controller': ...}}, not {data!r}")
        self.controller.restore_live_state(state)

    def new_game(self, game: Game, player_index: int) -> None:
        self._ply = 0
        self.controller.new_game(player_index)

    def observe(self, game: Game, move: int, state: State) -> None:
        self._ply += 1

    def game_over(self, game: Game, final_state: State, score: float) -> None:
        self.controller.game_over(score)

    def save_state(self) -> PlayerState | None:
        return self.controller.save_state()

    def restore_state(self, data: PlayerState | None) -> None:
        self.controller.restore_state(data)

    def distribution(self, visits: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """The move distribution for root visit counts ``visits`` (without the floor's random
        moves, which :meth:`select_move` plays with probability ``q``) at the setting of the
        last move."""
        z, rth, _ = self.setting.effective
        if self.selection == "sephton":
            return sephton_distribution(visits, z)
        if self.selection == "topn":
            return top_n_distribution(visits, z, self.top_n)
        return sa_distribution(visits, z, rth)

    def _random_move(self, game: Game, state: State) -> int | None:
        """A floor's uniformly random move (with probability ``q`` of the current setting)."""
        _, _, q = self.setting.effective
        if q > 0.0 and self.rng.random() < q:
            legal = game.legal_moves(state)
            self.annotate(random=True)
            return int(legal[self.rng.integers(len(legal))])
        return None

    def _annotate_controller(self) -> None:
        extra = self.controller.annotation()
        if extra is not None:
            self.annotate(**extra)

    def before_search(self, game: Game, state: State) -> int | None:
        """A controller that does not read the search sets the setting now, and a floor's
        random move skips the search."""
        if self.controller.uses_search:
            return None
        self.setting = self.controller.setting(MoveContext(self._ply, game.to_move(state)))
        move = self._random_move(game, state)
        if move is not None:
            self._annotate_controller()
        return move

    def run_search(
        self, game: Game, state: State, limit: Limit | None, clock: LimitClock
    ) -> RootStats:
        return self.search(game, state, limit, clock)

    def pick(self, game: Game, state: State, root: RootStats) -> int:
        """The SA draw from the root's visits (a controller reading the search sets the
        setting first; a floor's random move instead with probability ``q``)."""
        if self.controller.uses_search:
            self.setting = self.controller.setting(
                MoveContext(self._ply, game.to_move(state), _clip(root.value),
                            root.best_win_rate())
            )  # fmt: skip
            move = self._random_move(game, state)
            if move is not None:
                self._annotate_controller()
                return move
        rule = game.move_filter(state) if self.finish else None
        if rule is not None:
            move = self._finishing_sa_move(rule, root)
        else:
            p = self.distribution(root.visits)
            move = int(root.moves[int(self.rng.choice(len(p), p=p / p.sum()))])
        self._annotate_controller()
        return move

    def pick_unsearched(self, game: Game, state: State, root: RootStats) -> int:
        """A search stopped before its first simulation: the controller is still asked (a
        controller reading the search, without values), then the highest prior."""
        if self.controller.uses_search:
            self.setting = self.controller.setting(MoveContext(self._ply, game.to_move(state)))
        move = super().pick_unsearched(game, state, root)
        self._annotate_controller()
        return move

    def _finishing_sa_move(self, rule: MoveFilter, root: RootStats) -> int:
        """The SA move under the game's move filter (see the class doc)."""
        moves, visits = root.moves, root.visits
        if rule.pass_now:
            return rule.pass_move
        allowed = allowed_moves(rule, moves)
        if not np.any(allowed & (moves != rule.pass_move)) or not np.any(visits[allowed] > 0):
            return finishing_move(rule, moves, visits, self.rng)
        p = self.distribution(np.where(allowed, visits, 0))
        return int(moves[int(self.rng.choice(len(p), p=p / p.sum()))])

    def strength_report(self) -> StrengthReport:
        """The setting of this move, with the target Elo the player was built for."""
        setting = self.setting
        elo = self.elo
        return StrengthReport(
            z=setting.z,
            rth=setting.rth,
            floor=setting.floor,
            elo_asked=None if elo is None else elo.asked,
            elo_played=None if elo is None else elo.played,
            clamped=False if elo is None else elo.clamped,
        )


def _clip(value: float | None) -> float | None:
    if value is None or math.isnan(value):
        return None
    return min(max(value, -1.0), 1.0)


# ---- building from settings -------------------------------------------------------------------
def _network_file(game: Game, model: str | None) -> Path:
    if model is None and default_model(game.name) is None:
        raise PlayerResourceError(
            f"no shipped {game.name} network; give model=PATH, or base=uct for a search "
            "without a network",
            key="model",
        )
    return network_file(game, model)


_CALIBRATION_FIELDS: dict[str, tuple[str, Callable[[str], object]]] = {
    "base": ("base", str),
    "sims": ("simulations", int),
    "cpuct": ("c_puct", float),
    "c": ("c", float),
    "open": ("n_open", int),
}
"""Calibration search options (:attr:`Calibration.base`) -> (SASettings field, type)."""


class ResolvedStrength(NamedTuple):
    """An ``sa`` player's settings with a target Elo resolved against its calibration."""

    settings: SASettings
    """The settings with the calibration's search options filled in (and no ``elo``)."""
    setting: StrengthSetting
    """The setting to play."""
    label: str
    """The player's default name: ``SA(elo=E)``, or ``SA(elo=E2, clamped from E)``."""
    elo: EloTarget | None = None
    """The Elo asked for and the Elo played (clamped or not), for the analysis record."""
    notices: tuple[str, ...] = ()
    """What the user was told about the target (e.g. that it was clamped), as data."""


class ResolvedCalibration(NamedTuple):
    """An ``sa``-style player's calibration, with its search options merged into the settings."""

    settings: SASettings
    """The settings with the calibration's search options filled in (no ``elo``, no
    ``calibration``)."""
    calibration: Calibration
    path: str
    """The calibration file."""


def resolve_calibration(
    settings: SASettings, game: Game, cache: PlayerCache, *, strict: bool = True
) -> ResolvedCalibration:
    """The calibration of ``settings`` (the one given, else the one shipped beside the
    network), for ``game``, with its search options merged in.

    A search option given that differs from the calibration's is an error when ``strict``;
    otherwise the given value is kept and the user told once (the calibration's Elo numbers
    then may not hold: e.g. tiny test players).  A network that differs from the one
    calibrated is told through :meth:`PlayerCache.notice`.

    Raises :class:`~sparring.errors.PlayerResourceError` for a calibration file that is
    missing, unreadable or malformed, :class:`~sparring.errors.IncompatiblePlayerError` for
    one of another game or measured with other search options (``strict``).
    """
    path = settings.calibration
    model_file: Path | None = None
    if path is None:  # base=az (SASettings rejects base=uct without a calibration)
        model_file = _network_file(game, settings.model)
        found = calibration_path_for_model(model_file)
        if found is None:
            raise PlayerResourceError(
                f"network {str(model_file)!r} has no calibration beside it "
                f"({model_file.stem}.calibration.json); give calibration=PATH",
                key="calibration",
            )
        path = str(found)
    try:
        calibration = cache.calibration(path)
    except ConfigError as exc:
        raise PlayerResourceError(str(exc), key="calibration") from None
    if calibration.game != game.name:
        raise IncompatiblePlayerError(
            f"calibration {path!r} is for {calibration.game}, not {game.name}", key="calibration"
        )
    merged: dict[str, object] = {}
    for key, text in calibration.base.items():
        if key == "model":
            continue  # checked by hash below (paths differ between machines)
        if key not in _CALIBRATION_FIELDS:
            raise PlayerResourceError(
                f"calibration {path!r} has an unknown search option {key!r}", key="calibration"
            )
        attr, kind = _CALIBRATION_FIELDS[key]
        try:
            value = kind(text)
        except ValueError:
            raise PlayerResourceError(
                f"calibration {path!r} has {key}={text!r}", key="calibration"
            ) from None
        given = getattr(settings, attr)
        if given is not None and given != value:
            shown = f"{given:g}" if isinstance(given, float) else str(given)
            message = f"calibration {path!r} was measured with {key}={text}, not {key}={shown}"
            if strict:
                raise IncompatiblePlayerError(message, key=key)
            cache.notice(message + "; its Elo numbers may not hold")
            continue
        merged[attr] = value
    try:
        resolved = replace(settings, **merged, elo=None, calibration=None)  # type: ignore[arg-type]
    except UnknownPlayerError as exc:  # keeps its class (a bad value, ...) and key
        raise type(exc)(f"with calibration {path!r}: {exc}", key=exc.key) from None
    if (resolved.base or "az") == "az" and calibration.model_sha256:
        model_file = model_file or _network_file(game, settings.model)
        if not _measured_with(calibration, model_file, cache):
            cache.notice(
                f"calibration {path!r} was measured with another network than "
                f"{str(model_file)!r}; its Elo numbers may not hold"
            )
    return ResolvedCalibration(resolved, calibration, path)


def _measured_with(calibration: Calibration, model_file: Path, cache: PlayerCache) -> bool:
    """Whether ``model_file`` is the network ``calibration`` was measured with: a ``.pt`` by
    its SHA-256 (``model_sha256``); an ONNX export by its own (``onnx_sha256``), or, for a
    calibration that does not record one, by the ``.pt`` it was exported from (as the file
    records it)."""
    digest = cache.sha256(model_file)
    if model_file.suffix != ".onnx":
        return digest == calibration.model_sha256
    if calibration.onnx_sha256:
        return digest == calibration.onnx_sha256
    return cache.onnx_source(model_file) == calibration.model_sha256


def resolve_elo(settings: SASettings, game: Game, cache: PlayerCache) -> ResolvedStrength:
    """Resolve ``settings.elo``: the calibration's setting, its search options merged in.

    The calibration is the one given, else the one shipped beside the network; it must be
    for ``game`` and its search options must agree with those given
    (:func:`resolve_calibration`).  A target outside the calibrated range (played at the
    nearest end, and labelled so) is told once through :meth:`PlayerCache.notice`.
    """
    assert settings.elo is not None
    elo = settings.elo
    if not math.isfinite(elo):
        raise PlayerSettingsError(f"elo must be a finite number, not {elo}", key="elo")
    resolved, _, path = resolve_calibration(settings, game, cache)
    try:
        target = cache.target(path, elo)
    except ConfigError as exc:  # a calibration without a curve at its threshold
        raise IncompatiblePlayerError(str(exc), key="calibration") from None
    notices: tuple[str, ...] = ()
    if target.clamped:
        cache.notice(target.describe())
        notices = (target.describe(),)
    played = EloTarget(float(elo), float(target.expected_elo), bool(target.clamped))
    return ResolvedStrength(resolved, target.setting, target.player_label(), played, notices)


def search_factory(settings: SASettings, game: Game, cache: PlayerCache) -> SearchFactory:
    """The search of ``settings`` (``base=az``: PUCT with the network from ``cache``;
    ``base=uct``: UCT), defaults filled in."""
    base = settings.base or "az"
    settings.check_base(base)
    if base == "uct":
        return uct_root_search(
            settings.simulations or UCT_DEFAULT_SIMULATIONS,
            UCT_DEFAULT_C if settings.c is None else settings.c,
            settings.n_open or UCT_DEFAULT_N_OPEN,
        )
    model_file = _network_file(game, settings.model)
    sims = settings.simulations or TABLE_A1_SIMULATIONS.get(game.name, DEFAULT_SIMULATIONS)
    c_puct = DEFAULT_C_PUCT if settings.c_puct is None else settings.c_puct
    evaluator = cache.evaluator(game, model_file)
    return network_root_search(evaluator, PUCTConfig(simulations=sims, c_puct=c_puct))


def build_sa_player(
    settings: SASettings, game: Game, seed: int | None, cache: PlayerCache
) -> StrengthAdjustedPlayer:
    """The ``sa`` player of ``settings`` (see the module docstring).  Networks, calibrations
    and their hashes come from ``cache``."""
    elo: EloTarget | None = None
    notices: tuple[str, ...] = ()
    if settings.elo is not None:
        settings, setting, label, elo, notices = resolve_elo(settings, game, cache)
    else:
        if settings.calibration is not None:  # the calibration's search options
            settings = resolve_calibration(settings, game, cache).settings
        setting = settings.strength or StrengthSetting(math.inf, PAPER_RTH)
        label = f"SA({setting.label()})"
    factory = search_factory(settings, game, cache)
    return StrengthAdjustedPlayer(
        factory, setting, settings.name or label, seed, settings.selection, settings.top_n,
        elo=elo, notices=notices,
    )  # fmt: skip


__all__ = [
    "SELECTIONS",
    "EloTarget",
    "PUCTRootSearch",
    "ResolvedCalibration",
    "ResolvedStrength",
    "RootSearch",
    "StrengthAdjustedPlayer",
    "UCTRootSearch",
    "build_sa_player",
    "network_root_search",
    "resolve_calibration",
    "resolve_elo",
    "search_factory",
    "uct_root_search",
]
