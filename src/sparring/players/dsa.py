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

Every move's annotation has ``z`` (``"inf"`` / ``"-inf"`` when infinite), ``elo``,
``opponent_elo``, ``opponent_z`` and ``mode`` besides the SA root statistics; the player's
:meth:`save_state` is :meth:`~sparring.strength.dsa.AdaptiveState.to_json` (``z``, ``elo``,
``opponent_elo``, ``opponent_z``, ``games``, ...).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sparring.errors import ConfigError, UnknownPlayerError
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

if TYPE_CHECKING:
    from sparring.games.base import Game
    from sparring.players.cache import PlayerCache
    from sparring.players.settings import DSASettings
    from sparring.players.strength import StrengthAdjustedPlayer
    from sparring.strength.target import Calibration


def _given(**values: object) -> dict[str, object]:
    """The keyword arguments that are not None (the others keep the config's defaults)."""
    return {key: value for key, value in values.items() if value is not None}


def controller_for(
    settings: DSASettings, game: Game, calibration: Calibration, notify: Notify | None = None
) -> AdaptiveController:
    """The controller of ``settings`` on ``calibration``, per-game defaults filled in.

    Raises :class:`UnknownPlayerError` for a parameter its config rejects."""
    s = settings
    try:
        scale = CalibratedScale(calibration, s.rth)
        if s.mode == "inter":
            steps = derived_inter_steps(scale)
            dz = steps.dz_init if s.dz is None else s.dz
            dz_low = min(steps.dz_low, dz) if s.dz_low is None else s.dz_low
            inter = InterGameConfig(
                dz_init=dz,
                dz_low=dz_low,
                rth=scale.rth,
                **_given(r=s.r, z0=s.z0, z_min=s.z_min, z_max=s.z_max),  # type: ignore[arg-type]
            )
            return InterGameDSA(inter, scale, notify)
        cooldown = s.cooldown or cooldown_plies(game.name, game.max_game_length)
        if s.mode == "intra":
            intra = IntraGameConfig(
                cooldown=cooldown,
                rth=scale.rth,
                **_given(  # type: ignore[arg-type]
                    dz=s.dz, eps=s.eps, z0=s.z0, carry=s.carry, z_min=s.z_min, z_max=s.z_max
                ),
            )
            return IntraGameDSA(intra, scale, notify)
        if s.mode == "elo-inter":
            elo_inter = EloInterGameConfig(
                **_given(step_init=s.step, step_low=s.step_low, r=s.r, elo0=s.elo0)  # type: ignore[arg-type]
            )
            return EloInterGameDSA(elo_inter, scale, notify)
        if s.mode == "elo-intra":
            elo_intra = EloIntraGameConfig(
                cooldown=cooldown,
                **_given(step=s.step, eps=s.eps, elo0=s.elo0, carry=s.carry),  # type: ignore[arg-type]
            )
            return EloIntraGameDSA(elo_intra, scale, notify)
        bayes = BayesConfig(
            **_given(  # type: ignore[arg-type]
                prior_mean=s.prior,
                prior_sd=s.prior_sd,
                margin=s.margin,
                grid_step=s.grid,
                estimate=s.estimate,
            )
        )
        return BayesianDSA(bayes, scale, notify)
    except (ValueError, ConfigError) as exc:
        raise UnknownPlayerError(str(exc)) from None


def build_dsa_player(
    settings: DSASettings, game: Game, seed: int | None, cache: PlayerCache
) -> StrengthAdjustedPlayer:
    """The ``dsa`` player of ``settings`` (see the module docstring): the calibration's search
    (options given that differ from it are kept and told: its Elo numbers may not hold) and
    the controller of :func:`controller_for`; notices go through ``cache``."""
    from sparring.players.strength import (
        StrengthAdjustedPlayer,
        resolve_calibration,
        search_factory,
    )

    resolved, calibration, _ = resolve_calibration(
        settings.search_settings(), game, cache, strict=False
    )
    controller = controller_for(settings, game, calibration, cache.notice)
    factory = search_factory(resolved, game, cache)
    name = settings.name or f"DSA({settings.mode})"
    return StrengthAdjustedPlayer(factory, controller, name, seed)


__all__ = ["build_dsa_player", "controller_for"]
