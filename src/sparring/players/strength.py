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

E.g. ``sa:base=uct,sims=300,z=1,rth=0.1`` or ``sa:model=connect4,elo=1500``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import numpy as np
import numpy.typing as npt

from sparring.errors import ConfigError, GameOverError, UnknownPlayerError
from sparring.games.base import Game, State
from sparring.players.base import Player
from sparring.players.registry import (
    PlayerSpec,
    check_options,
    option_float,
    option_int,
    register,
)
from sparring.strength.selection import (
    PAPER_RTH,
    StrengthSetting,
    sa_distribution,
    sephton_distribution,
    top_n_distribution,
)

SELECTIONS = ("threshold", "sephton", "topn")
"""Move selection rules: Wu et al.'s threshold (the default), Sephton's plain softmax, top n."""
SEARCH_OPTIONS = ("base", "model", "sims", "cpuct", "c", "open")
"""Spec options that define the underlying search (what a calibration is measured with)."""
UCT_DEFAULT_SIMULATIONS = 300
"""Simulations of ``base=uct`` by default: MCTS1's (AlphaDDA sec. 4.3)."""


class RootVisits(NamedTuple):
    """The root of a finished search: legal moves and their visit counts."""

    moves: npt.NDArray[np.int64]
    visits: npt.NDArray[np.int64]


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
        from sparring.players.uct import uct_search

        result = uct_search(game, state, self.simulations, self._stream, self.c, self.n_open)
        return RootVisits(result.moves, result.visits)


class PUCTRootSearch:
    """The PUCT search with a network evaluator (:func:`~sparring.search.puct.search`)."""

    def __init__(self, evaluator: Any, config: Any, rng: np.random.Generator) -> None:
        self.evaluator = evaluator
        self.config = config
        self.rng = rng

    def __call__(self, game: Game, state: State) -> RootVisits:
        from sparring.search.puct import search

        result = search(game, state, self.evaluator, self.config, self.rng)
        return RootVisits(result.moves, result.visits)


def uct_root_search(simulations: int, c: float = 0.5, n_open: int = 5) -> SearchFactory:
    """A :data:`SearchFactory` for UCT (``base=uct``)."""
    return lambda rng: UCTRootSearch(simulations, rng, c, n_open)


def network_root_search(evaluator: Any, config: Any) -> SearchFactory:
    """A :data:`SearchFactory` for PUCT with ``evaluator`` and a ``PUCTConfig`` (``base=az``)."""
    return lambda rng: PUCTRootSearch(evaluator, config, rng)


class StrengthAdjustedPlayer(Player):
    """Searches, then draws its move from the SA policy of the root visit counts.

    ``search`` builds the underlying search from the player's seeded generator; ``setting``
    is ``(z, R_th, floor)``.  ``selection`` picks the rule: ``"threshold"`` (Wu et al.),
    ``"sephton"`` (softmax over every legal move, ``R_th`` ignored) or ``"topn"`` (softmax over
    the ``top_n`` most visited moves).  The floor applies to the threshold rule only.
    """

    def __init__(
        self,
        search: SearchFactory,
        setting: StrengthSetting,
        name: str = "SA",
        seed: int | None = None,
        selection: str = "threshold",
        top_n: int = 3,
    ) -> None:
        super().__init__(name, seed)
        if selection not in SELECTIONS:
            raise ValueError(f"selection must be one of {', '.join(SELECTIONS)}")
        if top_n < 1:
            raise ValueError("top_n must be >= 1")
        self.setting = setting
        self.selection = selection
        self.top_n = top_n
        self._search_factory = search
        self.search = search(self.rng)
        self.last_root: RootVisits | None = None
        """The root of the last search (None before the first move or after a random move)."""
        self._info: dict[str, Any] | None = None

    def reseed(self, seed: int) -> None:
        """Reset the generator and rebuild the search from it (as built)."""
        super().reseed(seed)
        self.search = self._search_factory(self.rng)

    def distribution(self, visits: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """The move distribution for root visit counts ``visits`` (without the floor's random
        moves, which :meth:`select_move` plays with probability ``q``)."""
        z, rth, _ = self.setting.effective
        if self.selection == "sephton":
            return sephton_distribution(visits, z)
        if self.selection == "topn":
            return top_n_distribution(visits, z, self.top_n)
        return sa_distribution(visits, z, rth)

    def select_move(self, game: Game, state: State) -> int:
        if game.is_terminal(state):
            raise GameOverError(f"{game.name}: the game is over, no move can be played")
        _, _, q = self.setting.effective
        if q > 0.0 and self.rng.random() < q:
            legal = game.legal_moves(state)
            self.last_root = None
            self._info = {"random": True}
            return int(legal[self.rng.integers(len(legal))])
        root = self.search(game, state)
        p = self.distribution(root.visits)
        index = int(self.rng.choice(len(p), p=p / p.sum()))
        self.last_root = root
        self._info = {
            "moves": [int(m) for m in root.moves],
            "visits": [int(v) for v in root.visits],
        }
        return int(root.moves[index])

    def move_info(self) -> dict[str, Any] | None:
        """``{"moves": [...], "visits": [...]}``: the root of the search behind the last move
        (``{"random": true}`` when the floor played a random move instead)."""
        return self._info


# ---- player specs ---------------------------------------------------------------------------
def _option_z(spec: PlayerSpec, key: str, default: float) -> float:
    value = option_float(spec, key, default)
    if math.isnan(value):
        raise UnknownPlayerError(f"player {spec.text!r}: {key} must be a number or +-inf")
    return value


_EVALUATORS: dict[tuple[str, str, float, int], Any] = {}


def _network_evaluator(game: Game, model_file: Path, spec_text: str) -> Any:
    """One evaluator per game, network file and process (players are rebuilt for every game
    of a match, the network is not reloaded)."""
    from sparring.players.alphazero import load_network_evaluator

    stat = model_file.stat()
    key = (game.name, str(model_file.resolve()), stat.st_mtime, stat.st_size)
    if key not in _EVALUATORS:
        if len(_EVALUATORS) >= 4:
            _EVALUATORS.clear()
        _EVALUATORS[key] = load_network_evaluator(game, str(model_file), spec_text)
    return _EVALUATORS[key]


def _resolve_model(game: Game, spec: PlayerSpec, model: str | None) -> Path:
    from sparring.nn.zoo import default_model, resolve_model

    if model is None:
        shipped = default_model(game.name)
        if shipped is None:
            raise UnknownPlayerError(
                f"player {spec.text!r}: no shipped {game.name} network; give model=PATH, or "
                "base=uct for a search without a network"
            )
        return shipped
    try:
        return resolve_model(model)
    except UnknownPlayerError as exc:
        raise UnknownPlayerError(f"player {spec.text!r}: {exc}") from None


def _calibrated(
    game: Game, spec: PlayerSpec, options: dict[str, str]
) -> tuple[StrengthSetting, dict[str, str], str]:
    """Resolve ``elo=``: the calibration's setting, with its search options merged in."""
    from sparring.strength.target import (
        calibration_path_for_model,
        file_sha256,
        load_calibration,
        setting_for_elo,
    )

    for key in ("z", "rth", "floor"):
        if key in options:
            raise UnknownPlayerError(
                f"player {spec.text!r}: give either elo or {key}, not both (elo chooses {key})"
            )
    if options.get("select", "threshold") != "threshold":
        raise UnknownPlayerError(f"player {spec.text!r}: elo needs select=threshold")
    elo = option_float(spec, "elo", 0.0)
    path = options.get("calibration")
    model_file: Path | None = None
    if path is None:
        if options.get("base", "az") != "az":
            raise UnknownPlayerError(
                f"player {spec.text!r}: elo needs calibration=PATH (a file written by "
                "sparring calibrate)"
            )
        model_file = _resolve_model(game, spec, options.get("model"))
        found = calibration_path_for_model(model_file)
        if found is None:
            raise UnknownPlayerError(
                f"player {spec.text!r}: network {str(model_file)!r} has no calibration beside "
                f"it ({model_file.stem}.calibration.json); give calibration=PATH"
            )
        path = str(found)
    try:
        calibration = load_calibration(path)
    except ConfigError as exc:
        raise UnknownPlayerError(f"player {spec.text!r}: {exc}") from None
    if calibration.game != game.name:
        raise UnknownPlayerError(
            f"player {spec.text!r}: calibration {path!r} is for {calibration.game}, not {game.name}"
        )
    merged = dict(options)
    for key, value in calibration.base.items():
        if key == "model":
            continue  # checked by hash below (paths differ between machines)
        if key in options and options[key] != value:
            raise UnknownPlayerError(
                f"player {spec.text!r}: calibration {path!r} was measured with {key}={value}, "
                f"not {key}={options[key]}"
            )
        merged[key] = value
    if merged.get("base", "az") == "az" and calibration.model_sha256:
        model_file = model_file or _resolve_model(game, spec, merged.get("model"))
        if file_sha256(model_file) != calibration.model_sha256:
            warnings.warn(
                f"calibration {path!r} was measured with another network than "
                f"{str(model_file)!r}; its Elo numbers may not hold",
                UserWarning,
                stacklevel=2,
            )
    try:
        target = setting_for_elo(calibration, elo)
    except ConfigError as exc:
        raise UnknownPlayerError(f"player {spec.text!r}: {exc}") from None
    return target.setting, merged, f"SA(elo={elo:g})"


def build_sa_player(game: Game, spec: PlayerSpec, seed: int | None) -> StrengthAdjustedPlayer:
    """Build the player named by an ``sa`` spec (see the module docstring)."""
    allowed = {*SEARCH_OPTIONS, "z", "rth", "floor", "elo", "calibration", "select", "n", "name"}
    check_options(spec, allowed)
    options = dict(spec.options)
    if "elo" in options:
        setting, options, name = _calibrated(game, spec, options)
    else:
        if "calibration" in options:
            raise UnknownPlayerError(f"player {spec.text!r}: calibration is only used with elo")
        floor = option_float(spec, "floor", 0.0)
        z = _option_z(spec, "z", -math.inf if floor > 0 else math.inf)
        rth = option_float(spec, "rth", PAPER_RTH)
        try:
            setting = StrengthSetting(z, rth, floor)
        except ValueError as exc:
            raise UnknownPlayerError(f"player {spec.text!r}: {exc}") from None
        name = f"SA({setting.label()})"
    merged = PlayerSpec(spec.kind, options, spec.text)
    selection = options.get("select", "threshold").lower()
    if selection not in SELECTIONS:
        raise UnknownPlayerError(
            f"player {spec.text!r}: select must be one of {', '.join(SELECTIONS)}"
        )
    top_n = option_int(merged, "n", 3)
    base = options.get("base", "az").lower()
    if base == "uct":
        game.require_compiled("UCT")
        for key in ("model", "cpuct"):
            if key in options:
                raise UnknownPlayerError(f"player {spec.text!r}: {key} is for base=az")
        factory = uct_root_search(
            option_int(merged, "sims", UCT_DEFAULT_SIMULATIONS),
            option_float(merged, "c", 0.5),
            option_int(merged, "open", 5),
        )
    elif base == "az":
        from sparring.players.alphazero import (
            DEFAULT_C_PUCT,
            DEFAULT_SIMULATIONS,
            TABLE_A1_SIMULATIONS,
        )
        from sparring.search.puct import PUCTConfig

        for key in ("c", "open"):
            if key in options:
                raise UnknownPlayerError(f"player {spec.text!r}: {key} is for base=uct")
        model_file = _resolve_model(game, spec, options.get("model"))
        sims = option_int(merged, "sims", TABLE_A1_SIMULATIONS.get(game.name, DEFAULT_SIMULATIONS))
        c_puct = option_float(merged, "cpuct", DEFAULT_C_PUCT)
        if c_puct < 0:
            raise UnknownPlayerError(f"player {spec.text!r}: cpuct must be >= 0")
        evaluator = _network_evaluator(game, model_file, spec.text)
        factory = network_root_search(evaluator, PUCTConfig(simulations=sims, c_puct=c_puct))
    else:
        raise UnknownPlayerError(f"player {spec.text!r}: base must be az or uct, not {base!r}")
    return StrengthAdjustedPlayer(
        factory, setting, options.get("name", name), seed, selection, top_n
    )


@register(
    "sa",
    "strength-adjusted search (Wu et al. 2019): sa:base=az|uct,model=..,sims=N,z=Z,rth=R"
    "[,floor=F] or sa:...,elo=E[,calibration=PATH]",
)
def _sa(game: Game, spec: PlayerSpec, seed: int | None) -> Player:
    return build_sa_player(game, spec, seed)


__all__ = [
    "SELECTIONS",
    "PUCTRootSearch",
    "RootSearch",
    "RootVisits",
    "StrengthAdjustedPlayer",
    "UCTRootSearch",
    "build_sa_player",
    "network_root_search",
    "uct_root_search",
]
