"""The strength-adjusted (SA) player of Wu et al. (AAAI 2019): search, then pick a move by
the visit counts with a strength index ``z`` and a threshold ratio ``R_th``.

Each move runs a full search from the current position (``base=az``: the PUCT search with a
network, AlphaDDA app. 1.2; ``base=uct``: plain UCT with random playouts, AlphaDDA app. 3, for
games or models without a network) and then draws the move from
:func:`~sparring.strength.selection.sa_distribution` of the root visit counts with the
player's seeded generator: ``p_i ∝ N_i^z`` over the candidates ``N_i >= R_th N_max``.  With a
floor level ``f > 0`` (below ``z = -inf``, :func:`~sparring.strength.selection.floor_schedule`)
the threshold is relaxed and, with probability ``q``, a uniformly random legal move is
played without searching.  :meth:`StrengthAdjustedPlayer.move_info` reports the root moves
and visit counts of the last search, which the match runner records for the strength
analysis (Eq. 13-17).

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
named by the Elo it plays, e.g. ``SA(elo=2267, clamped from 99999)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

import numpy as np
import numpy.typing as npt

from sparring.errors import ConfigError, GameOverError, UnknownPlayerError
from sparring.games.base import Game, State
from sparring.games.go import Go
from sparring.players.base import Player, PlayerState
from sparring.players.finish import go_allowed_moves, go_finishing_move, go_passes_to_win
from sparring.players.uct import DEFAULT_C as UCT_DEFAULT_C
from sparring.players.uct import DEFAULT_N_OPEN as UCT_DEFAULT_N_OPEN
from sparring.strength.controller import FixedController, MoveContext, StrengthController
from sparring.strength.selection import (
    PAPER_RTH,
    StrengthSetting,
    sa_distribution,
    sephton_distribution,
    top_n_distribution,
)

if TYPE_CHECKING:
    from sparring.players.cache import PlayerCache
    from sparring.players.settings import SASettings
    from sparring.strength.target import Calibration

SELECTIONS = ("threshold", "sephton", "topn")
"""Move selection rules: Wu et al.'s threshold (the default), Sephton's plain softmax, top n."""
SEARCH_OPTIONS = ("base", "model", "sims", "cpuct", "c", "open")
"""Spec options that define the underlying search (what a calibration is measured with)."""
UCT_DEFAULT_SIMULATIONS = 300
"""Simulations of ``base=uct`` by default: MCTS1's (AlphaDDA sec. 4.3)."""


class RootVisits(NamedTuple):
    """The root of a finished search: legal moves, their visit counts and (where the search
    reports them) their mean values and the root's value."""

    moves: npt.NDArray[np.int64]
    visits: npt.NDArray[np.int64]
    q: npt.NDArray[np.float64] | None = None
    """``Q(s_root, a)`` in ``[-1, 1]`` for the player to move, or None."""
    value: float | None = None
    """The search's value of the root for the player to move, or None."""

    def best_win_rate(self) -> float | None:
        """``(1 + Q) / 2`` of the most visited move (the first in move order on ties), or
        None without values: Wu et al.'s ``W`` for intra-game DSA."""
        if self.q is None or len(self.visits) == 0:
            return None
        q = float(self.q[int(np.argmax(self.visits))])
        return min(max((1.0 + q) / 2.0, 0.0), 1.0)


class RootSearch(Protocol):
    """A search from a position returning the root visit counts."""

    def __call__(self, game: Game, state: State) -> RootVisits: ...


SearchFactory = Callable[[np.random.Generator], RootSearch]
"""Builds a :class:`RootSearch` that draws its randomness from the given generator."""


class UCTRootSearch:
    """UCT with random playouts (AlphaDDA app. 3, :func:`~sparring.players.uct.uct_search`);
    its compiled random stream is drawn once from the generator."""

    def __init__(
        self, simulations: int, rng: np.random.Generator, c: float = 0.5, n_open: int = 5
    ) -> None:
        from sparring.rng import rng_state_from

        if simulations < 1:
            raise ValueError("simulations must be >= 1")
        self.simulations = simulations
        self.c = c
        self.n_open = n_open
        self._stream = rng_state_from(rng)

    def __call__(self, game: Game, state: State) -> RootVisits:
        from sparring.search.uct import uct_search

        result = uct_search(game, state, self.simulations, self._stream, self.c, self.n_open)
        return RootVisits(result.moves, result.visits, result.q, result.value)


class PUCTRootSearch:
    """The PUCT search with a network evaluator (:func:`~sparring.search.puct.search`)."""

    def __init__(self, evaluator: Any, config: Any, rng: np.random.Generator) -> None:
        self.evaluator = evaluator
        self.config = config
        self.rng = rng

    def __call__(self, game: Game, state: State) -> RootVisits:
        from sparring.search.puct import search

        result = search(game, state, self.evaluator, self.config, self.rng)
        return RootVisits(result.moves, result.visits, result.q, result.value)


def uct_root_search(simulations: int, c: float = 0.5, n_open: int = 5) -> SearchFactory:
    """A :data:`SearchFactory` for UCT (``base=uct``)."""
    return lambda rng: UCTRootSearch(simulations, rng, c, n_open)


def network_root_search(evaluator: Any, config: Any) -> SearchFactory:
    """A :data:`SearchFactory` for PUCT with ``evaluator`` and a ``PUCTConfig`` (``base=az``)."""
    return lambda rng: PUCTRootSearch(evaluator, config, rng)


class StrengthAdjustedPlayer(Player):
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
    applies to the threshold rule only.  ``finish_go`` (Go only; the SA-MCTS kind of
    :mod:`sparring.estimation.human_like`) applies the Go finishing rules of
    :mod:`sparring.players.finish` to the searched moves: pass to win when the opponent has
    just passed and the player is ahead, and never fill one's own eye (its visits count as
    none before the SA distribution), as the other programs built on networks that
    hardly pass do.
    """

    def __init__(
        self,
        search: SearchFactory,
        setting: StrengthSetting | StrengthController,
        name: str = "SA",
        seed: int | None = None,
        selection: str = "threshold",
        top_n: int = 3,
        finish_go: bool = False,
    ) -> None:
        super().__init__(name, seed)
        self.finish_go = finish_go
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
        self._search_factory = search
        self.search = search(self.rng)
        self.last_root: RootVisits | None = None
        """The root of the last search (None before the first move or after a random move)."""
        self._info: dict[str, Any] | None = None
        self._ply = 0

    def reseed(self, seed: int) -> None:
        """Reset the generator and rebuild the search from it (as built)."""
        super().reseed(seed)
        self.search = self._search_factory(self.rng)

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
            self.last_root = None
            self._info = {"random": True}
            return int(legal[self.rng.integers(len(legal))])
        return None

    def select_move(self, game: Game, state: State) -> int:
        if game.is_terminal(state):
            raise GameOverError(f"{game.name}: the game is over, no move can be played")
        index = game.to_move(state)
        root: RootVisits | None = None
        if self.controller.uses_search:
            root = self.search(game, state)
            self.setting = self.controller.setting(
                MoveContext(self._ply, index, _clip(root.value), root.best_win_rate())
            )
        else:
            self.setting = self.controller.setting(MoveContext(self._ply, index))
        move = self._random_move(game, state)
        if move is None:
            if root is None:
                root = self.search(game, state)
            self.last_root = root
            self._info = {
                "moves": [int(m) for m in root.moves],
                "visits": [int(v) for v in root.visits],
            }
            if self.finish_go and isinstance(game, Go):
                move = self._finishing_sa_move(game, state, root)
            else:
                p = self.distribution(root.visits)
                move = int(root.moves[int(self.rng.choice(len(p), p=p / p.sum()))])
        extra = self.controller.annotation()
        if extra is not None:
            self._info = {**(self._info or {}), **extra}
        return move

    def _finishing_sa_move(self, game: Go, state: State, root: RootVisits) -> int:
        """The SA move under the Go finishing rules (see the class doc)."""
        moves, visits = root.moves, root.visits
        if go_passes_to_win(game, state):
            return game.pass_move
        allowed = go_allowed_moves(game, state, moves)
        if not np.any(allowed & (moves != game.pass_move)) or not np.any(visits[allowed] > 0):
            return go_finishing_move(game, state, moves, visits, self.rng)
        p = self.distribution(np.where(allowed, visits, 0))
        return int(moves[int(self.rng.choice(len(p), p=p / p.sum()))])

    def move_info(self) -> dict[str, Any] | None:
        """``{"moves": [...], "visits": [...]}``: the root of the search behind the last move
        (``{"random": true}`` when the floor played a random move instead), plus the
        controller's :meth:`~sparring.strength.controller.StrengthController.annotation`
        (an adaptive player's ``z``, ``elo``, ``opponent_elo``, ``opponent_z``)."""
        return self._info


def _clip(value: float | None) -> float | None:
    if value is None or math.isnan(value):
        return None
    return min(max(value, -1.0), 1.0)


# ---- building from settings -------------------------------------------------------------------
def _network_file(game: Game, model: str | None) -> Path:
    from sparring.nn.zoo import default_model
    from sparring.players.alphazero import network_file

    if model is None and default_model(game.name) is None:
        raise UnknownPlayerError(
            f"no shipped {game.name} network; give model=PATH, or base=uct for a search "
            "without a network"
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
    """
    from sparring.strength.target import calibration_path_for_model

    path = settings.calibration
    model_file: Path | None = None
    if path is None:  # base=az (SASettings rejects base=uct without a calibration)
        model_file = _network_file(game, settings.model)
        found = calibration_path_for_model(model_file)
        if found is None:
            raise UnknownPlayerError(
                f"network {str(model_file)!r} has no calibration beside it "
                f"({model_file.stem}.calibration.json); give calibration=PATH"
            )
        path = str(found)
    try:
        calibration = cache.calibration(path)
    except ConfigError as exc:
        raise UnknownPlayerError(str(exc)) from None
    if calibration.game != game.name:
        raise UnknownPlayerError(f"calibration {path!r} is for {calibration.game}, not {game.name}")
    merged: dict[str, object] = {}
    for key, text in calibration.base.items():
        if key == "model":
            continue  # checked by hash below (paths differ between machines)
        if key not in _CALIBRATION_FIELDS:
            raise UnknownPlayerError(f"calibration {path!r} has an unknown search option {key!r}")
        attr, kind = _CALIBRATION_FIELDS[key]
        try:
            value = kind(text)
        except ValueError:
            raise UnknownPlayerError(f"calibration {path!r} has {key}={text!r}") from None
        given = getattr(settings, attr)
        if given is not None and given != value:
            shown = f"{given:g}" if isinstance(given, float) else str(given)
            message = f"calibration {path!r} was measured with {key}={text}, not {key}={shown}"
            if strict:
                raise UnknownPlayerError(message)
            cache.notice(message + "; its Elo numbers may not hold")
            continue
        merged[attr] = value
    try:
        resolved = replace(settings, **merged, elo=None, calibration=None)  # type: ignore[arg-type]
    except UnknownPlayerError as exc:
        raise UnknownPlayerError(f"with calibration {path!r}: {exc}") from None
    if (resolved.base or "az") == "az" and calibration.model_sha256:
        model_file = model_file or _network_file(game, settings.model)
        if cache.sha256(model_file) != calibration.model_sha256:
            cache.notice(
                f"calibration {path!r} was measured with another network than "
                f"{str(model_file)!r}; its Elo numbers may not hold"
            )
    return ResolvedCalibration(resolved, calibration, path)


def resolve_elo(settings: SASettings, game: Game, cache: PlayerCache) -> ResolvedStrength:
    """Resolve ``settings.elo``: the calibration's setting, its search options merged in.

    The calibration is the one given, else the one shipped beside the network; it must be
    for ``game`` and its search options must agree with those given
    (:func:`resolve_calibration`).  A target outside the calibrated range (played at the
    nearest end, and labelled so) is told once through :meth:`PlayerCache.notice`.
    """
    assert settings.elo is not None
    elo = settings.elo
    resolved, _, path = resolve_calibration(settings, game, cache)
    try:
        target = cache.target(path, elo)
    except ConfigError as exc:
        raise UnknownPlayerError(str(exc)) from None
    if target.clamped:
        cache.notice(target.describe())
    return ResolvedStrength(resolved, target.setting, target.player_label())


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
    from sparring.players.alphazero import (
        DEFAULT_C_PUCT,
        DEFAULT_SIMULATIONS,
        TABLE_A1_SIMULATIONS,
    )
    from sparring.search.puct import PUCTConfig

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
    if settings.elo is not None:
        settings, setting, label = resolve_elo(settings, game, cache)
    else:
        setting = settings.strength or StrengthSetting(math.inf, PAPER_RTH)
        label = f"SA({setting.label()})"
    factory = search_factory(settings, game, cache)
    return StrengthAdjustedPlayer(
        factory, setting, settings.name or label, seed, settings.selection, settings.top_n
    )


__all__ = [
    "SELECTIONS",
    "PUCTRootSearch",
    "ResolvedCalibration",
    "ResolvedStrength",
    "RootSearch",
    "RootVisits",
    "StrengthAdjustedPlayer",
    "UCTRootSearch",
    "build_sa_player",
    "network_root_search",
    "resolve_calibration",
    "resolve_elo",
    "search_factory",
    "uct_root_search",
]
