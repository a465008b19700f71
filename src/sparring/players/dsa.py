"""The adaptive player (spec ``dsa:...``): a strength-adjusted search whose setting follows a
dynamic strength adjustment controller (:mod:`sparring.strength.dsa`).

``dsa:mode=MODE,key=value,...`` (read into :class:`~sparring.players.settings.DSASettings`):

``mode``      ``bayes`` (default: Bayesian estimate of the opponent's Elo, beyond the paper),
              ``elo-inter`` / ``elo-intra`` (the paper's rules stepping a target Elo), ``inter``
              / ``intra`` (Wu et al. 2019 exactly, in ``z``)
search        ``base``, ``model``, ``sims``, ``cpuct``, ``c``, ``open``, ``calibration`` as for
              ``sa`` (default: the game's shipped network and the calibration beside it)
inter         ``z0`` (0), ``dz`` (``dz_init``), ``dzlow``, ``r`` (0.95), ``zmin`` / ``zmax``
              (-3 / 3), ``rth`` (0.1); ``dz`` / ``dzlow`` default to 100 / 8 Elo on the
              calibration's slope at ``z = 0`` (:func:`~sparring.strength.dsa.derived_inter_steps`:
              Connect4 0.681 / 0.055, 6x6 Othello 0.737 / 0.059)
intra         ``z0`` (0), ``dz`` (``dZ_0``, 0.2), ``eps`` (0.1), ``cooldown`` (plies; 60 % of a
              typical game: Connect4 22, 6x6 Othello 19), ``carry`` (no), ``zmin``, ``zmax``,
              ``rth``
elo-inter     ``elo0`` (1500), ``step`` (200), ``steplow`` (16), ``r`` (0.95)
elo-intra     ``elo0`` (1500), ``step`` (100 at ply 0), ``eps`` (0.1), ``cooldown``, ``carry``
              (yes)
bayes         ``prior`` (1500), ``priorsd`` (400, ``inf`` uniform), ``margin`` (400), ``grid``
              (2), ``estimate`` (``mean`` or ``median``)
``name``      display name (default ``DSA(MODE)``)

The settings hold the search (:class:`~sparring.players.settings.CalibratedSearchSettings`)
and the mode's controller config of :mod:`sparring.strength.dsa` (``InterGameConfig`` ...);
the options left out whose default depends on the game or the calibration (``dz``, ``dzlow``,
``rth``, ``cooldown``) are named in
:attr:`~sparring.players.settings.DSASettings.per_game` and filled in by
:func:`controller_for`.  JSON nests both: ``{"kind": "dsa", "mode": "inter", "search":
{"sims": 8, ...}, "controller": {"dz_init": 0.5, ...}, "name": null}``.

Every move's annotation has ``z`` (``"inf"`` / ``"-inf"`` when infinite), ``elo``,
``opponent_elo``, ``opponent_z`` and ``mode`` besides the SA root statistics; the player's
:meth:`save_state` is :meth:`~sparring.strength.dsa.AdaptiveState.to_json` (``z``, ``elo``,
``opponent_elo``, ``opponent_z``, ``games``, ...).
"""

from __future__ import annotations

from dataclasses import replace

from sparring.errors import ConfigError, IncompatiblePlayerError
from sparring.games.base import Game
from sparring.players.cache import PlayerCache
from sparring.players.settings import DSASettings
from sparring.players.strength import StrengthAdjustedPlayer, resolve_calibration, search_factory
from sparring.strength.dsa import (
    AdaptiveController,
    BayesConfig,
    BayesianDSA,
    CalibratedScale,
    EloInterGameConfig,
    EloInterGameDSA,
    EloIntraGameConfig,
    EloIntraGameDSA,
    InterGameConfig,
    InterGameDSA,
    IntraGameConfig,
    IntraGameDSA,
    Notify,
    cooldown_plies,
    derived_inter_steps,
)
from sparring.strength.target import Calibration


def controller_for(
    settings: DSASettings, game: Game, calibration: Calibration, notify: Notify | None = None
) -> AdaptiveController:
    """The controller of ``settings`` on ``calibration``, its per-game fields
    (:attr:`~sparring.players.settings.DSASettings.per_game`) filled in: ``dz_init`` /
    ``dz_low`` from the calibration's slope (:func:`derived_inter_steps`; a ``dz_init`` given
    caps the derived ``dz_low``), ``rth`` the calibration's, ``cooldown`` from the game
    (:func:`cooldown_plies`).

    Raises :class:`~sparring.errors.IncompatiblePlayerError` for a config the filled-in
    values make invalid (or a calibration whose Elo does not grow with ``z``)."""
    config = settings.config
    per_game = settings.per_game or frozenset()
    rth = None if "rth" in per_game else getattr(config, "rth", None)
    try:
        scale = CalibratedScale(calibration, rth)
        cooldown = cooldown_plies(game.name, game.max_game_length)
        if isinstance(config, InterGameConfig):
            steps = derived_inter_steps(scale)
            dz = steps.dz_init if "dz_init" in per_game else config.dz_init
            dz_low = min(steps.dz_low, dz) if "dz_low" in per_game else config.dz_low
            inter = replace(config, dz_init=dz, dz_low=dz_low, rth=scale.rth)
            return InterGameDSA(inter, scale, notify)
        if isinstance(config, IntraGameConfig):
            plies = cooldown if "cooldown" in per_game else config.cooldown
            intra = replace(config, cooldown=plies, rth=scale.rth)
            return IntraGameDSA(intra, scale, notify)
        if isinstance(config, EloInterGameConfig):
            return EloInterGameDSA(config, scale, notify)
        if isinstance(config, EloIntraGameConfig):
            plies = cooldown if "cooldown" in per_game else config.cooldown
            return EloIntraGameDSA(replace(config, cooldown=plies), scale, notify)
        assert isinstance(config, BayesConfig)
        return BayesianDSA(config, scale, notify)
    except (ValueError, ConfigError) as exc:
        raise IncompatiblePlayerError(str(exc)) from None


def build_dsa_player(
    settings: DSASettings, game: Game, seed: int | None, cache: PlayerCache
) -> StrengthAdjustedPlayer:
    """The ``dsa`` player of ``settings`` (see the module docstring): the calibration's search
    (options given that differ from it are kept and told: its Elo numbers may not hold) and
    the controller of :func:`controller_for`; notices go through ``cache``."""
    resolved, calibration, _ = resolve_calibration(
        settings.search.sa_settings(), game, cache, strict=False
    )
    controller = controller_for(settings, game, calibration, cache.notice)
    factory = search_factory(resolved, game, cache)
    name = settings.name or f"DSA({settings.mode})"
    return StrengthAdjustedPlayer(factory, controller, name, seed)


__all__ = ["build_dsa_player", "controller_for"]
