"""Dynamic strength adjustment (DSA): controllers that find the opponent's strength and meet it.

Wu et al. (AAAI 2019), section "Dynamic Strength Adjustment" (also Liu et al. 2020, sec. IV),
plus two steps beyond the paper.  Each controller is a
:class:`~sparring.strength.controller.StrengthController`: a strength-adjusted player asks it
for the setting of every move and tells it how each game ended.  Strength grows with ``z``
(``z = +inf`` is plain play), so a controller *lowers* its strength after a win and *raises*
it after a loss.

* :class:`InterGameDSA` (paper): ``z`` starts at ``z0 = 0`` and is held within a game; after
  game ``k`` (0-based) ``z -= dz_k`` on a win, ``z += dz_k`` on a loss, with
  ``dz_k = max(dz_low, dz_init * r**k)``.  A draw leaves ``z`` unchanged (the result DSA
  aims at: evidence that the strengths are equal), and ``dz`` still shrinks (it counts games).
* :class:`IntraGameDSA` (paper): before each own move, ``W`` = the search's win rate of the
  most visited root move; ``z -= dz`` when ``W > 1/2``, ``z += dz`` when ``W < 1/2``, with
  Eq. 18's damping ``dz = dZ |W - 1/2| / eps`` inside ``(1/2 - eps, 1/2 + eps)`` and ``dZ``
  cooling down linearly from ``dZ_0`` at ply 0 to 0 at ply ``cooldown``.
* :class:`EloInterGameDSA`, :class:`EloIntraGameDSA` (beyond the paper): the same rules
  stepping a *target Elo* through the calibration (:class:`CalibratedScale`), so adaptation
  spans the whole calibrated range (the floor below Random up to ``z = +inf``) instead of
  ``z`` in ``[-2, 2]``.
* :class:`BayesianDSA` (beyond the paper): a posterior over the opponent's Elo on a grid, from
  a normal prior and the Elo logistic likelihood of every result given the Elo the player
  actually played at (draws as half a win); it plays the calibrated setting of the posterior
  mean (or median).

Every controller reports its current setting and estimate of the opponent
(:meth:`AdaptiveController.annotation`) and keeps a small JSON record between games
(:class:`AdaptiveState`).  A target beyond the calibrated range (or a ``z`` beyond the
configured bounds) is clamped, and the controller tells the user once in one line through its
``notify`` callback (the player passes :meth:`~sparring.players.cache.PlayerCache.notice`).

Part of the strength core: imports nothing from players or evaluation.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Literal

import numpy as np

from sparring.elo import ELO_SCALE, expected_score
from sparring.strength.controller import JsonValue, MoveContext, StrengthController
from sparring.strength.selection import PAPER_RTH, StrengthSetting
from sparring.strength.target import Calibration, strength_curve

PAPER_GO_ELO_PER_Z = 100.0 / 0.375
"""The slope the paper read off its Fig. 1 (``dz_init = 0.375`` "approximately equivalent to
100 in Elo"), about 267 Elo per unit of ``z`` in Go."""
INTER_STEP_ELO = 100.0
"""The paper's initial inter-game step in Elo (``dz_init = 0.375`` in Go)."""
INTER_LOW_ELO = 8.0
"""The paper's smallest inter-game step in Elo (``dz_low = 0.03`` in Go)."""
PAPER_COOLDOWN_FRACTION = 150.0 / 250.0
"""The paper cools ``dZ`` to 0 over 150 moves of Go; taking a 19x19 game as about 250 moves
(an assumption, not measured here), the cool-down spans 60 % of a typical game."""
TYPICAL_PLIES: Mapping[str, int] = {"connect4": 36, "othello6": 32, "othello": 60, "tictactoe": 9}
"""Typical game lengths in plies (6x6 Othello: 32 = every square filled; Connect4: about 36)."""

Notify = Callable[[str], None]
"""Where a controller sends its one-line notices (clamping)."""


def cooldown_plies(game_name: str, max_game_length: int) -> int:
    """The intra-game cool-down for a game: :data:`PAPER_COOLDOWN_FRACTION` of its typical
    length (:data:`TYPICAL_PLIES`, else its maximum length), at least 1.  Connect4: 22 plies,
    6x6 Othello: 19 (the paper: 150 moves of Go)."""
    typical = TYPICAL_PLIES.get(game_name, max_game_length)
    return max(1, round(PAPER_COOLDOWN_FRACTION * typical))


def json_z(z: float) -> float | str:
    """``z`` as a JSON value: the number, or ``"inf"`` / ``"-inf"``."""
    if z == math.inf:
        return "inf"
    if z == -math.inf:
        return "-inf"
    return float(z)


def _z_from_json(value: JsonValue) -> float:
    if isinstance(value, str) and value.strip().lstrip("+") in ("inf", "-inf"):
        return float(value.strip())
    return _num(value, "z")


def _num(value: JsonValue, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"bad DSA state: {what} must be a number, not {value!r}")
    return float(value)


def _opt_num(value: JsonValue, what: str) -> float | None:
    return None if value is None else _num(value, what)


# ---- the calibrated scale ---------------------------------------------------------------------
class CalibratedScale:
    """A calibration's monotone Elo curve, fitted once: setting <-> Elo for controllers.

    The same curve as :func:`~sparring.strength.target.setting_for_elo` and
    :func:`~sparring.strength.target.elo_for_setting` (threshold ``rth``, default the
    calibration's main one; the floor's second stage where it is measured), without refitting
    it for every move.
    """

    def __init__(self, calibration: Calibration, rth: float | None = None) -> None:
        self.calibration = calibration
        self.target_curve = strength_curve(calibration, rth)
        self.rth = self.target_curve.axis.rth

    @property
    def low(self) -> float:
        """The weakest calibrated Elo."""
        return self.target_curve.low

    @property
    def high(self) -> float:
        """The strongest calibrated Elo."""
        return self.target_curve.high

    def elo_of(self, setting: StrengthSetting) -> float:
        """The calibrated Elo of ``setting`` (of this scale's threshold)."""
        return self.target_curve.elo_of(setting)

    def setting_for(self, elo: float) -> StrengthSetting:
        """The setting expected to play at ``elo``, which must lie in ``[low, high]``."""
        return self.target_curve.setting_for(elo)

    def z_range(self) -> tuple[float, float]:
        """The smallest and largest finite ``z`` calibrated."""
        return self.target_curve.axis.z_lo, self.target_curve.axis.z_hi

    def slope_at_zero(self, half_width: float = 0.5) -> float:
        """``dElo/dz`` near ``z = 0``: the central difference of the calibrated curve over
        ``[-half_width, half_width]`` (Connect4: 146.8, 6x6 Othello: 135.7 Elo per unit z)."""
        lo = self.elo_of(StrengthSetting(-half_width, self.rth))
        hi = self.elo_of(StrengthSetting(half_width, self.rth))
        return (hi - lo) / (2.0 * half_width)


@dataclass(frozen=True)
class InterSteps:
    """The inter-game steps in ``z`` equivalent to the paper's 100 and 8 Elo on a calibration."""

    slope: float
    """``dElo/dz`` near ``z = 0`` (:meth:`CalibratedScale.slope_at_zero`)."""
    dz_init: float
    """``100 / slope``, rounded to 3 decimals."""
    dz_low: float
    """``8 / slope``, rounded to 3 decimals."""


def derived_inter_steps(scale: CalibratedScale) -> InterSteps:
    """The paper chose ``dz_init = 0.375`` and ``dz_low = 0.03`` as about 100 and 8 Elo on
    its Fig. 1 slope (about 267 Elo per z in Go); the same Elo on this calibration's slope at
    ``z = 0``.  Connect4: slope 146.8, ``dz_init`` 0.681, ``dz_low`` 0.055; 6x6 Othello: slope
    135.7, 0.737 and 0.059; 8x8 Othello: 114.0, 0.877 and 0.07."""
    slope = scale.slope_at_zero()
    if not slope > 0:
        raise ValueError(f"the calibration's Elo does not grow with z near 0 (slope {slope:g})")
    return InterSteps(slope, round(INTER_STEP_ELO / slope, 3), round(INTER_LOW_ELO / slope, 3))


# ---- state -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AdaptiveState:
    """What an adaptive controller keeps between games: a JSON record
    (:meth:`to_json` / :meth:`from_json`), the same for every mode."""

    mode: str
    """The controller's mode (``inter``, ``intra``, ``elo-inter``, ``elo-intra``, ``bayes``)."""
    games: int
    """Games finished."""
    z: float
    """The strength index of the next game's start (inter modes: held for the whole game)."""
    elo: float
    """Its calibrated Elo."""
    opponent_elo: float | None
    """The current estimate of the opponent's Elo (None: no estimate)."""
    opponent_z: float | None
    """The estimate as a finite ``z`` (None where it maps to no finite ``z``)."""
    target: float | None = None
    """Elo modes: the target Elo of the next game (may differ from :attr:`elo` only by the
    curve's numerical inverse)."""
    results: tuple[tuple[float, float], ...] = ()
    """:class:`BayesianDSA`: every game's ``(Elo played, score)``, the posterior's data."""

    def to_json(self) -> dict[str, JsonValue]:
        record: dict[str, JsonValue] = {
            "mode": self.mode,
            "games": self.games,
            "z": json_z(self.z),
            "elo": self.elo,
            "opponent_elo": self.opponent_elo,
            "opponent_z": self.opponent_z,
            "target": self.target,
        }
        if self.results:
            record["results"] = [[own, score] for own, score in self.results]
        return record

    @classmethod
    def from_json(cls, data: Mapping[str, JsonValue]) -> AdaptiveState:
        """The inverse of :meth:`to_json`; :class:`ValueError` naming what is wrong."""
        for key in ("mode", "games", "z", "elo"):
            if key not in data:
                raise ValueError(f"bad DSA state: no {key!r} in {dict(data)!r}")
        games = data["games"]
        if isinstance(games, bool) or not isinstance(games, int) or games < 0:
            raise ValueError(f"bad DSA state: games must be an integer >= 0, not {games!r}")
        raw = data.get("results") or []
        if not isinstance(raw, list):
            raise ValueError("bad DSA state: results must be a list of [elo, score]")
        results = []
        for item in raw:
            if not isinstance(item, list) or len(item) != 2:
                raise ValueError(f"bad DSA state: result {item!r} is not [elo, score]")
            own, score = _num(item[0], "result elo"), _num(item[1], "result score")
            if score not in (0.0, 0.5, 1.0):
                raise ValueError(f"bad DSA state: score {score!r} is not 0, 0.5 or 1")
            results.append((own, score))
        return cls(
            mode=str(data["mode"]),
            games=games,
            z=_z_from_json(data["z"]),
            elo=_num(data["elo"], "elo"),
            opponent_elo=_opt_num(data.get("opponent_elo"), "opponent_elo"),
            opponent_z=_opt_num(data.get("opponent_z"), "opponent_z"),
            target=_opt_num(data.get("target"), "target"),
            results=tuple(results),
        )


# ---- configs -----------------------------------------------------------------------------------
def _check(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)


def _finite(value: float) -> bool:
    return math.isfinite(value)


@dataclass(frozen=True)
class InterGameConfig:
    """Inter-game DSA in ``z`` (the paper's rule)."""

    dz_init: float = 0.375
    """The first step ``dz_0 > 0`` (paper, Go: 0.375, about 100 Elo; the ``dsa`` player's
    default: :func:`derived_inter_steps`)."""
    dz_low: float = 0.03
    """The smallest step, ``0 < dz_low <= dz_init`` (paper: 0.03, about 8 Elo)."""
    r: float = 0.95
    """The step's factor per game, in ``(0, 1]`` (paper: 0.95)."""
    z0: float = 0.0
    """The first game's ``z`` (paper: 0), finite, within ``[z_min, z_max]``."""
    z_min: float = -3.0
    """The lowest ``z`` played (finite; steps below it are clamped, with a notice)."""
    z_max: float = 3.0
    """The highest ``z`` played (finite, > z_min)."""
    rth: float = PAPER_RTH
    """The threshold ``R_th`` of every move (paper: 0.1), in ``[0, 1]``."""

    def __post_init__(self) -> None:
        _check(_finite(self.dz_init) and self.dz_init > 0, "dz must be a number > 0")
        _check(0 < self.dz_low <= self.dz_init, "dzlow must be in (0, dz]")
        _check(0 < self.r <= 1, "r must be in (0, 1]")
        _z_bounds(self.z0, self.z_min, self.z_max, self.rth)

    def step(self, games: int) -> float:
        """``dz`` after ``games`` finished games: ``max(dz_low, dz_init * r**games)``."""
        return max(self.dz_low, self.dz_init * self.r**games)


def _z_bounds(z0: float, z_min: float, z_max: float, rth: float) -> None:
    _check(_finite(z_min) and _finite(z_max) and z_min < z_max, "zmin < zmax, both finite")
    _check(_finite(z0) and z_min <= z0 <= z_max, "z0 must be a number in [zmin, zmax]")
    _check(0.0 <= rth <= 1.0, "rth must be in [0, 1]")


@dataclass(frozen=True)
class IntraGameConfig:
    """Intra-game DSA in ``z`` (the paper's rule, Eq. 18)."""

    dz: float = 0.2
    """``dZ_0``, the step at ply 0 (paper: 0.2 or 0.1), > 0."""
    eps: float = 0.1
    """Eq. 18's ``epsilon`` in ``(0, 0.5]`` (paper: 10 %)."""
    cooldown: int = 150
    """Plies after which ``dZ`` has cooled to 0, >= 1 (paper: 150 moves of Go; the ``dsa``
    player's default: :func:`cooldown_plies`)."""
    z0: float = 0.0
    """Each game's first ``z`` (paper: 0)."""
    carry: bool = False
    """Start each game at the last game's final ``z`` instead of ``z0`` (paper: no)."""
    z_min: float = -3.0
    """The lowest ``z`` played (finite; clamped with a notice)."""
    z_max: float = 3.0
    """The highest ``z`` played (finite, > z_min)."""
    rth: float = PAPER_RTH
    """The threshold ``R_th`` (paper: 0.1)."""

    def __post_init__(self) -> None:
        _check(_finite(self.dz) and self.dz > 0, "dz must be a number > 0")
        _check(0 < self.eps <= 0.5, "eps must be in (0, 0.5]")
        _check(self.cooldown >= 1, "cooldown must be >= 1 ply")
        _z_bounds(self.z0, self.z_min, self.z_max, self.rth)


@dataclass(frozen=True)
class EloInterGameConfig:
    """Inter-game DSA in Elo (beyond the paper)."""

    step_init: float = 200.0
    """The first step in Elo, > 0 (twice the paper's 100: the calibrated range is wide)."""
    step_low: float = 16.0
    """The smallest step, in ``(0, step_init]`` (twice the paper's 8)."""
    r: float = 0.95
    """The step's factor per game, in ``(0, 1]`` (paper: 0.95)."""
    elo0: float = 1500.0
    """The first game's target Elo (finite; clamped to the calibrated range)."""

    def __post_init__(self) -> None:
        _check(_finite(self.step_init) and self.step_init > 0, "step must be a number > 0")
        _check(0 < self.step_low <= self.step_init, "steplow must be in (0, step]")
        _check(0 < self.r <= 1, "r must be in (0, 1]")
        _check(_finite(self.elo0), "elo0 must be a finite number")

    def step(self, games: int) -> float:
        """The step after ``games`` games: ``max(step_low, step_init * r**games)``."""
        return max(self.step_low, self.step_init * self.r**games)


@dataclass(frozen=True)
class EloIntraGameConfig:
    """Intra-game DSA in Elo (beyond the paper)."""

    step: float = 100.0
    """The step at ply 0 in Elo, > 0 (cooling down linearly to 0 at :attr:`cooldown`)."""
    eps: float = 0.1
    """Eq. 18's ``epsilon`` in ``(0, 0.5]``."""
    cooldown: int = 150
    """Plies to cool the step down to 0, >= 1 (``dsa`` default: :func:`cooldown_plies`)."""
    elo0: float = 1500.0
    """The first game's target Elo (finite)."""
    carry: bool = True
    """Start each game at the last game's final target (default: yes, so the estimate
    carries across games)."""

    def __post_init__(self) -> None:
        _check(_finite(self.step) and self.step > 0, "step must be a number > 0")
        _check(0 < self.eps <= 0.5, "eps must be in (0, 0.5]")
        _check(self.cooldown >= 1, "cooldown must be >= 1 ply")
        _check(_finite(self.elo0), "elo0 must be a finite number")


@dataclass(frozen=True)
class BayesConfig:
    """The Bayesian opponent-strength estimator (beyond the paper)."""

    prior_mean: float = 1500.0
    """Mean of the normal prior over the opponent's Elo (finite)."""
    prior_sd: float = 400.0
    """Its standard deviation, > 0 (``inf``: a uniform prior over the grid)."""
    margin: float = 400.0
    """The grid extends this far (>= 0) beyond the calibrated range on both sides."""
    grid_step: float = 2.0
    """Spacing of the grid in Elo, > 0."""
    estimate: Literal["mean", "median"] = "mean"
    """Which summary of the posterior the player plays at."""

    def __post_init__(self) -> None:
        _check(_finite(self.prior_mean), "prior must be a finite number")
        _check(self.prior_sd > 0, "priorsd must be > 0")
        _check(_finite(self.margin) and self.margin >= 0, "margin must be >= 0")
        _check(_finite(self.grid_step) and self.grid_step > 0, "grid must be > 0")
        _check(self.estimate in ("mean", "median"), "estimate must be mean or median")


def intra_step(step0: float, eps: float, cooldown: int, ply: int, win_rate: float) -> float:
    """The signed intra-game change of strength before a move at ``ply`` with root win rate
    ``win_rate``: ``-dz`` when ``W > 1/2`` (ahead: play weaker), ``+dz`` when ``W < 1/2``,
    0 at exactly 1/2, where ``dZ = step0 * max(0, 1 - ply / cooldown)`` (the linear
    cool-down) and Eq. 18: ``dz = dZ`` if ``|W - 1/2| >= eps``, else ``dZ |W - 1/2| / eps``."""
    big = step0 * max(0.0, 1.0 - ply / cooldown)
    gap = win_rate - 0.5
    size = big if abs(gap) >= eps else big * abs(gap) / eps
    return -size if gap > 0 else size if gap < 0 else 0.0


# ---- controllers -------------------------------------------------------------------------------
class AdaptiveController(StrengthController):
    """A controller that adapts to the opponent: its common reporting and state handling.

    ``scale`` maps settings to Elo; ``notify`` receives one-line notices (clamping).
    """

    mode: ClassVar[str]

    def __init__(self, scale: CalibratedScale, notify: Notify | None = None) -> None:
        self.scale = scale
        self._notify = notify
        self._clamped: str | None = None
        self._current: StrengthSetting | None = None

    # what subclasses provide
    @abstractmethod
    def state(self) -> AdaptiveState:
        """The between-game record (also what :meth:`save_state` writes)."""

    @abstractmethod
    def _load(self, state: AdaptiveState) -> None:
        """Continue from ``state`` (already checked to be of this mode)."""

    @abstractmethod
    def _estimate(self) -> tuple[float | None, float | None]:
        """The current estimate of the opponent: ``(Elo, finite z or None)``."""

    # the interface
    def annotation(self) -> dict[str, JsonValue]:
        """What the player adds to each move's annotations: ``mode``, ``z`` (the ``z`` played,
        ``"inf"`` / ``"-inf"`` when infinite), ``elo`` (its calibrated Elo), ``floor`` (when
        below ``z = -inf``), ``opponent_elo`` and ``opponent_z`` (the current estimate)."""
        setting = self._current or self._next_setting()
        opp_elo, opp_z = self._estimate()
        info: dict[str, JsonValue] = {
            "mode": self.mode,
            "z": json_z(setting.z),
            "elo": self.scale.elo_of(setting),
            "opponent_elo": opp_elo,
            "opponent_z": opp_z,
        }
        if setting.floor > 0:
            info["floor"] = setting.floor
        return info

    def save_state(self) -> dict[str, JsonValue]:
        return self.state().to_json()

    def restore_state(self, data: dict[str, JsonValue] | None) -> None:
        if data is None:
            raise ValueError(f"{type(self).__name__} needs its saved state, not None")
        state = AdaptiveState.from_json(data)
        if state.mode != self.mode:
            raise ValueError(f"DSA state of mode {state.mode!r}, not {self.mode!r}")
        self._load(state)
        self._current = None

    @abstractmethod
    def _next_setting(self) -> StrengthSetting:
        """The setting the next move would be played at, before any intra-game step."""

    # helpers
    def _clamp(self, value: float, low: float, high: float, what: str) -> float:
        """``value`` clamped to ``[low, high]``; tells the user once per stretch at an end."""
        if low <= value <= high:
            self._clamped = None
            return value
        end = "low" if value < low else "high"
        bound = low if value < low else high
        if self._clamped != end:
            self._clamped = end
            if self._notify is not None:
                self._notify(
                    f"dynamic strength adjustment ({self.mode}): {what} {value:.4g} is beyond "
                    f"the {'weakest' if end == 'low' else 'strongest'} end {bound:.4g} of the "
                    "range it plays; playing that end"
                )
        return bound

    def _finite_z(self, setting: StrengthSetting) -> float | None:
        return setting.z if math.isfinite(setting.z) else None


class InterGameDSA(AdaptiveController):
    """Wu et al.'s inter-game DSA in ``z`` (see the module docstring)."""

    mode: ClassVar[str] = "inter"

    def __init__(
        self, config: InterGameConfig, scale: CalibratedScale, notify: Notify | None = None
    ) -> None:
        super().__init__(scale, notify)
        self.config = config
        self.z = config.z0
        self.games = 0

    def _next_setting(self) -> StrengthSetting:
        return StrengthSetting(self.z, self.config.rth)

    def setting(self, context: MoveContext) -> StrengthSetting:
        self._current = self._next_setting()
        return self._current

    def game_over(self, score: float) -> None:
        dz = self.config.step(self.games)
        if score > 0.5:
            self.z -= dz
        elif score < 0.5:
            self.z += dz
        self.z = self._clamp(self.z, self.config.z_min, self.config.z_max, "z")
        self.games += 1
        self._current = None

    def _estimate(self) -> tuple[float | None, float | None]:
        return self.scale.elo_of(self._next_setting()), self.z

    def state(self) -> AdaptiveState:
        elo, z = self._estimate()
        assert elo is not None
        return AdaptiveState(self.mode, self.games, self.z, elo, elo, z)

    def _load(self, state: AdaptiveState) -> None:
        self.games, self.z = state.games, state.z


def _live_number(data: dict[str, JsonValue] | None, key: str, owner: str) -> float:
    """``data[key]``, a finite number, of an intra-game controller's live state."""
    value = None if not isinstance(data, dict) else data.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{owner}: a live state is {{{key!r}: number}}, not {data!r}")
    return float(value)


class IntraGameDSA(AdaptiveController):
    """Wu et al.'s intra-game DSA in ``z`` (Eq. 18 with the linear cool-down)."""

    mode: ClassVar[str] = "intra"
    uses_search: ClassVar[bool] = True

    def __init__(
        self, config: IntraGameConfig, scale: CalibratedScale, notify: Notify | None = None
    ) -> None:
        super().__init__(scale, notify)
        self.config = config
        self.z = config.z0
        self.last_z = config.z0
        """The ``z`` at the end of the last game (the paper's prediction of the opponent)."""
        self.games = 0

    def _next_setting(self) -> StrengthSetting:
        return StrengthSetting(self.z, self.config.rth)

    def new_game(self, player_index: int) -> None:
        self.z = self.last_z if self.config.carry else self.config.z0
        self._current = None

    def setting(self, context: MoveContext) -> StrengthSetting:
        w = context.best_win_rate
        if w is not None:
            c = self.config
            self.z += intra_step(c.dz, c.eps, c.cooldown, context.ply, w)
            self.z = self._clamp(self.z, c.z_min, c.z_max, "z")
        self._current = self._next_setting()
        return self._current

    def game_over(self, score: float) -> None:
        self.last_z = self.z
        self.games += 1

    def live_state(self) -> dict[str, JsonValue] | None:
        """The ``z`` the game has moved to (Eq. 18's steps so far)."""
        return {"z": self.z}

    def restore_live_state(self, data: dict[str, JsonValue] | None) -> None:
        self.z = _live_number(data, "z", type(self).__name__)

    def _estimate(self) -> tuple[float | None, float | None]:
        return self.scale.elo_of(self._next_setting()), self.z

    def state(self) -> AdaptiveState:
        setting = StrengthSetting(self.last_z, self.config.rth)
        elo = self.scale.elo_of(setting)
        return AdaptiveState(self.mode, self.games, self.last_z, elo, elo, self.last_z)

    def _load(self, state: AdaptiveState) -> None:
        self.games, self.last_z = state.games, state.z
        self.z = state.z


class _EloController(AdaptiveController):
    """A controller whose variable is a target Elo inside the calibrated range."""

    def __init__(self, elo0: float, scale: CalibratedScale, notify: Notify | None) -> None:
        super().__init__(scale, notify)
        self.target = self._clamp(elo0, scale.low, scale.high, "target Elo")
        self.games = 0

    def _next_setting(self) -> StrengthSetting:
        return self.scale.setting_for(self.target)

    def _estimate(self) -> tuple[float | None, float | None]:
        return self.target, self._finite_z(self._next_setting())

    def _record(
        self, target: float, results: tuple[tuple[float, float], ...] = ()
    ) -> AdaptiveState:
        setting = self.scale.setting_for(target)
        return AdaptiveState(
            self.mode,
            self.games,
            setting.z,
            self.scale.elo_of(setting),
            target,
            self._finite_z(setting),
            target,
            results,
        )

    def _target_of(self, state: AdaptiveState) -> float:
        target = state.target if state.target is not None else state.elo
        return min(max(target, self.scale.low), self.scale.high)


class EloInterGameDSA(_EloController):
    """Inter-game DSA stepping a target Elo through the calibration (beyond the paper)."""

    mode: ClassVar[str] = "elo-inter"

    def __init__(
        self, config: EloInterGameConfig, scale: CalibratedScale, notify: Notify | None = None
    ) -> None:
        super().__init__(config.elo0, scale, notify)
        self.config = config

    def setting(self, context: MoveContext) -> StrengthSetting:
        if self._current is None:
            self._current = self._next_setting()
        return self._current

    def new_game(self, player_index: int) -> None:
        self._current = None

    def game_over(self, score: float) -> None:
        step = self.config.step(self.games)
        if score > 0.5:
            self.target -= step
        elif score < 0.5:
            self.target += step
        self.target = self._clamp(self.target, self.scale.low, self.scale.high, "target Elo")
        self.games += 1
        self._current = None

    def state(self) -> AdaptiveState:
        return self._record(self.target)

    def _load(self, state: AdaptiveState) -> None:
        self.games, self.target = state.games, self._target_of(state)


class EloIntraGameDSA(_EloController):
    """Intra-game DSA stepping a target Elo (Eq. 18, cool-down; beyond the paper)."""

    mode: ClassVar[str] = "elo-intra"
    uses_search: ClassVar[bool] = True

    def __init__(
        self, config: EloIntraGameConfig, scale: CalibratedScale, notify: Notify | None = None
    ) -> None:
        super().__init__(config.elo0, scale, notify)
        self.config = config
        self.start = self.target
        self.last_target = self.target

    def new_game(self, player_index: int) -> None:
        self.target = self.last_target if self.config.carry else self.start
        self._current = None

    def setting(self, context: MoveContext) -> StrengthSetting:
        w = context.best_win_rate
        if w is not None:
            c = self.config
            self.target += intra_step(c.step, c.eps, c.cooldown, context.ply, w)
            self.target = self._clamp(self.target, self.scale.low, self.scale.high, "target Elo")
        self._current = self._next_setting()
        return self._current

    def game_over(self, score: float) -> None:
        self.last_target = self.target
        self.games += 1

    def live_state(self) -> dict[str, JsonValue] | None:
        """The target Elo the game has moved to (the steps so far)."""
        return {"target": self.target}

    def restore_live_state(self, data: dict[str, JsonValue] | None) -> None:
        self.target = _live_number(data, "target", type(self).__name__)

    def state(self) -> AdaptiveState:
        return self._record(self.last_target)

    def _load(self, state: AdaptiveState) -> None:
        self.games = state.games
        self.target = self.last_target = self._target_of(state)


@dataclass(frozen=True)
class Posterior:
    """A posterior over the opponent's Elo on a grid."""

    grid: np.ndarray = field(repr=False)
    """Elo values, increasing."""
    weights: np.ndarray = field(repr=False)
    """Posterior probabilities (sum 1)."""

    @property
    def mean(self) -> float:
        return float(np.dot(self.grid, self.weights))

    @property
    def median(self) -> float:
        """The smallest grid Elo whose cumulative probability reaches 1/2."""
        return float(self.grid[int(np.searchsorted(np.cumsum(self.weights), 0.5))])

    @property
    def sd(self) -> float:
        return float(math.sqrt(max(np.dot((self.grid - self.mean) ** 2, self.weights), 0.0)))


def elo_posterior(
    config: BayesConfig, low: float, high: float, results: tuple[tuple[float, float], ...]
) -> Posterior:
    """The posterior over the opponent's Elo after ``results`` (``(own Elo, own score)``):
    prior ``N(prior_mean, prior_sd^2)`` on the grid ``[low - margin, high + margin]``, times
    ``p^s (1 - p)^(1 - s)`` per game with ``p = 1 / (1 + 10**((opp - own) / 400))``, the
    probability that the player wins (a draw, ``s = 1/2``, counts as half a win)."""
    grid = np.arange(
        low - config.margin, high + config.margin + config.grid_step / 2, config.grid_step
    )
    log_w = np.zeros_like(grid)
    if math.isfinite(config.prior_sd):
        log_w -= 0.5 * ((grid - config.prior_mean) / config.prior_sd) ** 2
    for own, score in results:
        # log p = -log(1 + 10^((g - own)/400)), log(1 - p) = -log(1 + 10^((own - g)/400))
        d = (grid - own) / ELO_SCALE
        log_w -= score * np.logaddexp(0.0, d) + (1.0 - score) * np.logaddexp(0.0, -d)
    w = np.exp(log_w - log_w.max())
    return Posterior(grid, w / w.sum())


class BayesianDSA(_EloController):
    """Plays the calibrated setting of the posterior mean (or median) of the opponent's Elo,
    updated after every game (see :func:`elo_posterior`); beyond the paper."""

    mode: ClassVar[str] = "bayes"

    def __init__(
        self, config: BayesConfig, scale: CalibratedScale, notify: Notify | None = None
    ) -> None:
        self.config = config
        self.results: tuple[tuple[float, float], ...] = ()
        self.posterior = elo_posterior(config, scale.low, scale.high, ())
        super().__init__(self._summary(), scale, notify)

    def _summary(self) -> float:
        p = self.posterior
        return p.mean if self.config.estimate == "mean" else p.median

    def setting(self, context: MoveContext) -> StrengthSetting:
        if self._current is None:
            self._current = self._next_setting()
        return self._current

    def new_game(self, player_index: int) -> None:
        self._current = None

    def game_over(self, score: float) -> None:
        played = self._current or self._next_setting()
        self.results = (*self.results, (self.scale.elo_of(played), float(score)))
        self.games += 1
        self._update()

    def _update(self) -> None:
        self.posterior = elo_posterior(self.config, self.scale.low, self.scale.high, self.results)
        self.target = self._clamp(self._summary(), self.scale.low, self.scale.high, "estimate")
        self._current = None

    def _estimate(self) -> tuple[float | None, float | None]:
        estimate = self._summary()
        z = (
            self._finite_z(self._next_setting())
            if self.scale.low <= estimate <= self.scale.high
            else None
        )
        return estimate, z

    def state(self) -> AdaptiveState:
        record = self._record(self.target, self.results)
        estimate, z = self._estimate()
        return AdaptiveState(
            record.mode,
            record.games,
            record.z,
            record.elo,
            estimate,
            z,
            record.target,
            record.results,
        )

    def _load(self, state: AdaptiveState) -> None:
        if len(state.results) != state.games:
            raise ValueError(f"bad DSA state: {state.games} games but {len(state.results)} results")
        self.games, self.results = state.games, state.results
        self._update()


CONTROLLERS: Mapping[str, type[AdaptiveController]] = {
    c.mode: c for c in (InterGameDSA, IntraGameDSA, EloInterGameDSA, EloIntraGameDSA, BayesianDSA)
}
"""Mode name -> controller class."""

__all__ = [
    "CONTROLLERS",
    "AdaptiveController",
    "AdaptiveState",
    "BayesConfig",
    "BayesianDSA",
    "CalibratedScale",
    "EloInterGameConfig",
    "EloInterGameDSA",
    "EloIntraGameConfig",
    "EloIntraGameDSA",
    "InterGameConfig",
    "InterGameDSA",
    "InterSteps",
    "IntraGameConfig",
    "IntraGameDSA",
    "Posterior",
    "cooldown_plies",
    "derived_inter_steps",
    "elo_posterior",
    "expected_score",
    "intra_step",
    "json_z",
]
