"""The players of the human-like kinds (``human-mcts``, ``sa-mcts``, ``se-mcts``,
``se-inf-mcts``) and their builders: the settings of :mod:`sparring.players.human_like`
resolved against the files they name (estimator networks, the z-per-rank table
:class:`ZTable`, a strength scale of :mod:`sparring.players.external_scale`) and turned into a
:class:`RankedSearchPlayer`, a :class:`~sparring.players.sampling.PolicySamplingPlayer` or a
:class:`~sparring.players.strength.StrengthAdjustedPlayer`.

The estimator and play networks run from their ONNX files on ONNX Runtime
(:mod:`sparring.nn.onnx_runtime`, :mod:`sparring.nn.strength_eval`, :mod:`sparring.nn.playnet`),
loaded when the first such player is built; a ``.pt`` network given by ``model=PATH`` runs on
PyTorch (:mod:`sparring.nn.strength_net`), imported then.  The builders are registered by the
composition root :mod:`sparring.kinds`.
"""

from __future__ import annotations

import json
import math
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from sparring.errors import (
    IncompatibleError,
    IncompatiblePlayerError,
    PlayerResourceError,
    PlayerSettingsError,
    SparringError,
)
from sparring.games.base import Game, State
from sparring.games.chess import Chess
from sparring.games.go import Go
from sparring.nn.estimators import ESTIMATOR_DIR, load_estimator, player_estimator
from sparring.nn.onnx_runtime import StrengthNetwork
from sparring.nn.playnet import play_evaluator
from sparring.nn.strength_eval import CentredStrengthEvaluator, RankTarget, StrengthEvaluator
from sparring.players.base import Player
from sparring.players.cache import PlayerCache, file_key
from sparring.players.engine_value import EngineValueEvaluator, StockfishValue
from sparring.players.external import require_program
from sparring.players.external_scale import (
    KNOBS,
    SCALE_FIELDS,
    SCALE_GAMES,
    WHOLE_KNOBS,
    ExternalScale,
    ScaleChoice,
    default_scale,
)
from sparring.players.human_like import (
    GAMES,
    HumanLikeSettings,
    HumanMCTSSettings,
    SAMCTSSettings,
    SEMCTSSettings,
    game_ranks,
    normalise_rank,
)
from sparring.players.sampling import PolicySamplingPlayer
from sparring.players.searching import SearchPlayer
from sparring.players.strength import EloTarget, StrengthAdjustedPlayer, network_root_search
from sparring.search.analysis import StrengthReport
from sparring.search.evaluator import Evaluator, RolloutValueEvaluator
from sparring.search.limit import Limit, LimitClock
from sparring.search.puct import PUCTConfig, search
from sparring.search.semcts import DEFAULT_C1, SEMCTSConfig
from sparring.search.stats import RootStats
from sparring.search.sweep import RootSweep
from sparring.strength.selection import PAPER_RTH, StrengthSetting

if TYPE_CHECKING:  # PyTorch's module, imported when a .pt network is loaded
    from sparring.nn.strength_net import StrengthNet

S = TypeVar("S", bound=HumanLikeSettings)


# ---- the z-per-rank table of sa-mcts -------------------------------------------------------
@dataclass(frozen=True)
class ZTable:
    """SA-MCTS's strength index ``z`` per rank of one game (appendix C, Table 4), as written
    by ``sparring se-strength GAME --z-fit`` (``ztable.json``: ``{"game": ..., "z": {rank:
    z, ...}, "command": ...}``) and read by ``sa-mcts:rank=R``."""

    game: str
    z: Mapping[str, float]
    """``z`` by rank label (ranks without a fitted ``z`` are absent)."""

    def z_at(self, rank: str) -> tuple[float, str]:
        """``rank``'s ``z`` and how it was found: ``fitted`` (in the table), ``interpolated``
        (linearly in the rank's position in :func:`game_ranks`, between the nearest fitted
        stronger and weaker ranks) or ``nearest`` (beyond the fitted ranks: the nearest one's
        ``z``).  A fit of every second rank, as the paper's round robin needs, so serves
        every rank.  :class:`~sparring.errors.PlayerResourceError` when the table is empty."""
        if rank in self.z:
            return float(self.z[rank]), "fitted"
        ranks = game_ranks(self.game)
        if not self.z:
            raise PlayerResourceError(
                f"the {self.game} z-per-rank table has no z at all", key="ztable"
            )
        index = ranks.index(rank)
        fitted = sorted(ranks.index(r) for r in self.z)
        stronger = [i for i in fitted if i < index]
        weaker = [i for i in fitted if i > index]
        if not stronger or not weaker:
            nearest = stronger[-1] if stronger else weaker[0]
            return float(self.z[ranks[nearest]]), "nearest"
        lo, hi = stronger[-1], weaker[0]
        z_lo, z_hi = float(self.z[ranks[lo]]), float(self.z[ranks[hi]])
        return z_lo + (z_hi - z_lo) * (index - lo) / (hi - lo), "interpolated"

    def to_json(self, command: str = "") -> str:
        """The table as JSON text (ranks strongest first)."""
        ranks = game_ranks(self.game)
        ordered = {r: float(self.z[r]) for r in sorted(self.z, key=ranks.index)}
        data = {"game": self.game, "z": ordered, "command": command}
        return json.dumps(data, indent=2) + "\n"

    @classmethod
    def read(cls, path: Path) -> ZTable:
        """The table in ``path``; :class:`~sparring.errors.PlayerResourceError` (one line) when
        it is missing or not such a table."""
        if not path.is_file():
            raise PlayerResourceError(
                f"z-per-rank table {str(path)!r} not found (write one with `sparring "
                f"se-strength GAME --z-fit --out DIR` and pass ztable=DIR/ztable.json, or "
                f"give z=Z)",
                key="ztable",
            )
        try:
            data = json.loads(path.read_text())
            game = str(data["game"])
            table = {normalise_rank(str(k)): float(v) for k, v in dict(data["z"]).items()}
        except (ValueError, KeyError, TypeError, AttributeError, SparringError) as exc:
            raise PlayerResourceError(
                f"{path}: not a z-per-rank table ({exc})", key="ztable"
            ) from None
        if game not in GAMES or any(r not in game_ranks(game) for r in table):
            raise PlayerResourceError(
                f"{path}: not a z-per-rank table of go or chess ranks", key="ztable"
            )
        return cls(game, table)


def default_z_table(game_name: str) -> Path:
    """Where a shipped z-per-rank table of ``game_name`` lives (it may not exist):
    ``models/estimators/GAME-sa-z.json`` beside the shipped estimators."""
    return ESTIMATOR_DIR / f"{game_name}-sa-z.json"


# ---- the player -------------------------------------------------------------------------------
class RankedSearchPlayer(SearchPlayer):
    """Plays the most visited move of a PUCT search (ties at random) under the game's move
    filter (Go: no own-eye fills, pass to win); with a ``target`` the search is SE-MCTS
    (Eq. 6) aiming at ``target.at(d)`` for each edge at move number ``d`` (``evaluator``
    must then be a :class:`~sparring.nn.strength_eval.StrengthEvaluator`; the player wraps
    it in a :class:`~sparring.nn.strength_eval.CentredStrengthEvaluator`).  ``leaf_value``,
    when given, wraps the search's evaluator last (``sf_nodes``: Stockfish's values behind the
    network's priors and ``beta``).  ``elo`` (a player built for an Elo on an external
    scale, ``sf_elo``) and ``notices`` go into every move's analysis."""

    info_root = True

    def __init__(
        self,
        evaluator: Evaluator,
        config: PUCTConfig,
        target: RankTarget | None = None,
        c1: float = DEFAULT_C1,
        name: str = "MCTS",
        seed: int | None = None,
        leaf_value: Callable[[Evaluator], Evaluator] | None = None,
        elo: EloTarget | None = None,
        notices: tuple[str, ...] = (),
    ) -> None:
        super().__init__(name, seed, finish=True)
        self.evaluator = evaluator
        self.elo = elo
        self.notices = tuple(notices)
        if target is not None:
            if not isinstance(evaluator, StrengthEvaluator):
                raise TypeError("SE-MCTS needs a StrengthEvaluator")
            self.evaluator = CentredStrengthEvaluator(evaluator, target)
        if leaf_value is not None:
            self.evaluator = leaf_value(self.evaluator)
        self.config = config
        self.target = target
        self.c1 = c1

    def strength_report(self) -> StrengthReport | None:
        """With ``elo``: plain play (``z = +inf``) with the Elo asked and played."""
        if self.elo is None:
            return None
        return StrengthReport(z=math.inf, rth=0.0, elo_asked=self.elo.asked,
                              elo_played=self.elo.played, clamped=self.elo.clamped)  # fmt: skip

    def search_config(self, game: Game, state: State) -> PUCTConfig:
        """The search of the move at ``state``: Eq. 6 with target 0 on the centred scores
        ``beta - beta_t(d)`` of the :class:`CentredStrengthEvaluator` (each edge against
        the target at its own move number ``d``)."""
        if self.target is None:
            return self.config
        hook = SEMCTSConfig(0.0, self.config.c_puct, self.c1).hook()
        return replace(self.config, score_hook=hook)

    def run_search(
        self, game: Game, state: State, limit: Limit | None, clock: LimitClock
    ) -> RootStats:
        config = self.search_config(game, state)
        result = search(game, state, self.evaluator, config, self.rng, limit, clock)
        if self.target is not None:
            self.annotate(target=self.target.at(game.ply(state)))
        return result


# ---- resolving settings against their files ------------------------------------------------
def on_scale(settings: S, game: Game) -> tuple[S, ScaleChoice]:
    """With ``sf_elo`` (chess) or ``gnugo_elo`` (Go): ``settings`` with the scale file's
    search options (and, for the ``sims`` knob, its simulations), and what the scale chose.
    :class:`~sparring.errors.IncompatiblePlayerError` for the other game's option, a game
    other than the scale's, a scale of another kind's knob, or a search option given that
    differs from the scale's (its Elo numbers would not hold)."""
    asked = settings.asked_elo
    assert asked is not None
    key = settings.elo_key
    if SCALE_GAMES[key][0] != game.name:
        raise IncompatiblePlayerError(
            f"{key} is an Elo on {SCALE_GAMES[key][1]}'s scale, for "
            f"{SCALE_GAMES[key][0]}, not {game.name}",
            key=key,
        )
    path = Path(settings.scale).expanduser() if settings.scale else default_scale(game.name)
    if not settings.scale and not path.is_file():
        raise IncompatiblePlayerError(
            f"{key}: no {SCALE_GAMES[key][1]} scale is shipped for {game.name}", key=key
        )
    chain = ExternalScale.read(path)
    scale, choice = chain.pick(asked)
    if scale.game != game.name:
        raise IncompatiblePlayerError(
            f"strength scale {str(path)!r} is for {scale.game}, not {game.name}",
            key="scale",
        )
    if KNOBS[scale.knob] != settings.kind:
        raise IncompatiblePlayerError(
            f"strength scale {str(path)!r} varies {scale.knob}: it is for "
            f"{KNOBS[scale.knob]}:{key}=E, not {settings.kind}",
            key="scale",
        )
    defaults = {f.name: f.default for f in fields(settings)}
    changes: dict[str, Any] = {}
    for key, value in scale.search.items():
        attr = SCALE_FIELDS[key]
        mine = getattr(settings, attr)
        if mine != defaults[attr] and mine != value:
            raise IncompatiblePlayerError(
                f"the strength scale was measured with {key}={value}; drop {key}={mine}",
                key=key,
            )
        changes[attr] = value
    if scale.knob in WHOLE_KNOBS:
        attr = SCALE_FIELDS[scale.knob]
        if getattr(settings, attr) != defaults[attr]:
            what = "the simulations" if scale.knob == "sims" else "the leaf's nodes"
            raise IncompatiblePlayerError(
                f"{key} chooses {what}; drop {scale.knob}={getattr(settings, attr)}",
                key=scale.knob,
            )
        changes[attr] = int(choice.value)
    return replace(settings, **changes), choice


def elo_target(
    settings: HumanLikeSettings, choice: ScaleChoice
) -> tuple[EloTarget, tuple[str, ...]]:
    """The :class:`~sparring.players.strength.EloTarget` of ``sf_elo`` or ``gnugo_elo`` and
    the notice of a clamped target."""
    asked = settings.asked_elo
    assert asked is not None
    notices: tuple[str, ...] = ()
    if choice.clamped:
        notices = (
            f"Elo {asked:g} is outside the measured {SCALE_GAMES[settings.elo_key][1]} "
            f"scale; playing {choice.played:.0f}",
        )
    return EloTarget(asked, choice.played, choice.clamped), notices


def sa_mcts_z(settings: SAMCTSSettings, game: Game) -> float:
    """The strength index an ``sa-mcts`` player plays in ``game``: ``z`` (with a rank too, the
    rank is the play network's input), or ``rank``'s ``z`` in the table (fitted, or
    interpolated between fitted ranks: :meth:`ZTable.z_at`)."""
    if settings.z is not None:
        return settings.z
    if settings.rank not in game_ranks(game.name):
        raise IncompatiblePlayerError(
            f"rank {settings.rank!r} is not a {game.name} rank "
            f"(ranks: {', '.join(game_ranks(game.name))})"
        )
    path = Path(settings.ztable).expanduser() if settings.ztable else default_z_table(game.name)
    table = ZTable.read(path)
    if table.game != game.name:
        raise IncompatiblePlayerError(f"z-per-rank table {str(path)!r} is for {table.game}")
    if not table.z:
        raise IncompatiblePlayerError(f"z-per-rank table {str(path)!r} has no z for any rank")
    return table.z_at(settings.rank)[0]


# ---- networks and leaf values ------------------------------------------------------------------
def read_strength_network(path: Path) -> tuple[StrengthNet | StrengthNetwork, dict[str, Any]]:
    """The strength network of the file ``path`` and its metadata
    (:func:`~sparring.nn.estimators.load_estimator`: an ONNX file on ONNX Runtime, a ``.pt``
    on PyTorch), with player errors (key ``model``) saying what is wrong."""
    try:
        return load_estimator(path)
    except IncompatibleError as exc:
        raise IncompatiblePlayerError(str(exc), key="model") from None
    except SparringError as exc:
        raise PlayerResourceError(str(exc), key="model") from None


def load_strength_evaluator(game: Game, path: Path) -> tuple[StrengthEvaluator, dict[str, Any]]:
    """The :class:`~sparring.nn.strength_eval.StrengthEvaluator` of the estimator file
    ``path`` and its metadata, checked against ``game`` (player errors, key ``model``)."""
    model, metadata = read_strength_network(path)
    config = model.config
    if config.game != game.name or tuple(game.board_shape) != config.network_config().board_shape:
        raise IncompatiblePlayerError(
            f"estimator {str(path)!r} is for {config.game}, not {game.name}", key="model"
        )
    try:
        return StrengthEvaluator(model, game), metadata
    except ValueError as exc:  # not an SE or SE-inf network
        raise IncompatiblePlayerError(f"{path}: {exc}", key="model") from None


def _load_network(path: Path) -> StrengthNet | StrengthNetwork:
    return read_strength_network(path)[0]


def _play_evaluator(
    model: StrengthNet | StrengthNetwork, game: Game, path: Path, rank: str, symmetric: bool
) -> Evaluator:
    try:
        return play_evaluator(model, game.name, rank, str(path), symmetric)
    except IncompatibleError as exc:
        raise IncompatiblePlayerError(str(exc), key="model") from None


def _evaluator(
    settings: HumanLikeSettings, game: Game, cache: PlayerCache
) -> tuple[StrengthEvaluator, dict[str, Any]]:
    """The strength estimator ``settings`` search with (shared through ``cache``)."""
    if game.name not in GAMES:
        raise IncompatiblePlayerError(
            f"{settings.kind} plays {' or '.join(GAMES)} (the games with strength "
            f"estimators), not {game.name}"
        )
    path = player_estimator(game.name, settings.model, settings.DEFAULT_NETWORK)
    return cache.shared(
        ("strength-evaluator:" + game.name, file_key(path)),
        lambda: load_strength_evaluator(game, path),
    )


def _move_evaluator(settings: HumanLikeSettings, game: Game, cache: PlayerCache) -> Evaluator:
    """The evaluator of the kinds that search with priors and values alone (``human-mcts``,
    ``sa-mcts``): a play network (``model=PATH`` of ``sparring se-train --variant play``, the
    rank an input) at ``rank``, or the estimator's policy and value heads.
    :class:`~sparring.errors.PlayerSettingsError` for a play network without a rank, and for
    ``human-mcts:rank=R`` or ``sa-mcts:rank=R,z=Z`` with an estimator."""
    if game.name not in GAMES or settings.model is None:
        settings.no_symmetric("the default estimator")
        return _evaluator(settings, game, cache)[0]
    path = player_estimator(game.name, settings.model, settings.DEFAULT_NETWORK)
    key = file_key(path)
    model = cache.shared(("strength-network", key), lambda: _load_network(path))
    if model.config.kind != "play":
        if settings.rank is not None and (not settings.RANK_OPTIONAL or settings.z is not None):
            raise PlayerSettingsError(
                f"{settings.kind}: rank=R needs a play network; {str(path)!r} is a strength "
                "estimator",
                key="rank",
            )
        settings.no_symmetric(f"{str(path)!r}, a strength estimator")
        return _evaluator(settings, game, cache)[0]
    rank = settings.rank
    if rank is None:
        raise PlayerSettingsError(
            f"{settings.kind}: {str(path)!r} is a play network, which plays at a rank: give "
            f"rank=R ({', '.join(game_ranks(game.name))})",
            key="rank",
        )
    symmetric = settings.symmetric
    return cache.shared(
        ("play-evaluator:" + game.name + ":" + rank + (":sym" if symmetric else ""), key),
        lambda: _play_evaluator(model, game, path, rank, symmetric),
    )


def _leaf_value(
    settings: HumanLikeSettings, game: Game, cache: PlayerCache, seed: int | None
) -> Callable[[Evaluator], Evaluator] | None:
    """With ``sf_nodes`` > 0: what wraps the search's evaluator so that its values are
    Stockfish's (one :class:`~sparring.players.engine_value.StockfishValue` per process, from
    ``cache``); with ``rollouts`` > 0 (Go): so that they are mixed with random playouts'
    (:class:`~sparring.search.evaluator.RolloutValueEvaluator`, seeded by ``seed``); None
    with neither."""
    if settings.rollouts:
        return _rollout_value(settings, game, seed)
    if not settings.sf_nodes:
        return None
    if not isinstance(game, Chess):
        raise IncompatiblePlayerError(
            f"{settings.kind}: sf_nodes (Stockfish's value) is for chess, not {game.name}",
            key="sf_nodes",
        )
    program = require_program(None, "stockfish", key="sf_nodes")
    engine = cache.shared(("stockfish-value", file_key(program)), lambda: StockfishValue(program))
    nodes = settings.sf_nodes
    return lambda evaluator: EngineValueEvaluator(evaluator, engine, game, nodes)


def _rollout_value(
    settings: HumanLikeSettings, game: Game, seed: int | None
) -> Callable[[Evaluator], Evaluator]:
    if not isinstance(game, Go):
        raise IncompatiblePlayerError(
            f"{settings.kind}: rollouts (random playouts' value) is for Go, not {game.name}",
            key="rollouts",
        )
    base = secrets.randbits(63) if seed is None else seed
    playouts, mix = settings.rollouts, settings.rollout_mix
    return lambda evaluator: RolloutValueEvaluator(evaluator, game, base, playouts, mix)


def _target(settings: HumanLikeSettings, game: Game, metadata: dict[str, Any]) -> RankTarget:
    assert settings.rank is not None
    if settings.rank not in game_ranks(game.name):
        raise IncompatiblePlayerError(
            f"rank {settings.rank!r} is not a {game.name} rank "
            f"(ranks: {', '.join(game_ranks(game.name))})"
        )
    try:
        return RankTarget.from_metadata(metadata, settings.rank)
    except ValueError as exc:
        raise IncompatiblePlayerError(str(exc)) from None


def _config(settings: HumanLikeSettings) -> PUCTConfig:
    return PUCTConfig(
        simulations=settings.simulations,
        c_puct=settings.c_puct,
        first_play_parent=settings.first_play_parent,
        root_plan=RootSweep() if settings.root_sweep else None,
    )


def _capped(settings: HumanLikeSettings, player: SearchPlayer) -> SearchPlayer:
    """``player`` with the setting's :attr:`~HumanLikeSettings.movetime` as its own cap."""
    player.movetime = settings.movetime
    return player


# ---- the builders --------------------------------------------------------------------------------
def build_human_mcts_player(
    settings: HumanMCTSSettings, game: Game, seed: int | None, cache: PlayerCache
) -> Player:
    """The ``human-mcts`` player of ``settings`` (``temp=T``: a
    :class:`~sparring.players.sampling.PolicySamplingPlayer`)."""
    resolved: HumanMCTSSettings = settings
    elo: EloTarget | None = None
    notices: tuple[str, ...] = ()
    if settings.sf_elo is not None:
        resolved, choice = on_scale(settings, game)
        elo, notices = elo_target(settings, choice)
    evaluator = _move_evaluator(resolved, game, cache)
    name = settings.display_name()
    if settings.temperature is not None:
        sampler = PolicySamplingPlayer(evaluator, settings.temperature, name, seed)
        return _capped(settings, sampler)
    return _capped(settings, RankedSearchPlayer(evaluator, _config(resolved), None, name=name,
                                                seed=seed,
                                                leaf_value=_leaf_value(resolved, game, cache, seed),
                                                elo=elo, notices=notices))  # fmt: skip


def build_sa_mcts_player(
    settings: SAMCTSSettings, game: Game, seed: int | None, cache: PlayerCache
) -> Player:
    """The ``sa-mcts`` player of ``settings``: the ``human-mcts`` search under Wu et al.'s SA
    move choice with the ``z`` of :func:`sa_mcts_z` (or of the strength scale)."""
    if game.name not in GAMES:
        _evaluator(settings, game, cache)  # the one-line "plays go or chess" error
    resolved: SAMCTSSettings = settings
    elo: EloTarget | None = None
    notices: tuple[str, ...] = ()
    if settings.asked_elo is not None:
        resolved, choice = on_scale(settings, game)
        z = choice.value
        elo, notices = elo_target(settings, choice)
    else:
        z = sa_mcts_z(settings, game)
    evaluator = _move_evaluator(resolved, game, cache)
    leaf_value = _leaf_value(resolved, game, cache, seed)
    if leaf_value is not None:
        evaluator = leaf_value(evaluator)
    setting = StrengthSetting(z, PAPER_RTH, 0.0)
    return _capped(
        settings,
        StrengthAdjustedPlayer(
            network_root_search(evaluator, _config(resolved)),
            setting,
            settings.display_name(),
            seed,
            finish_go=True,
            elo=elo,
            notices=notices,
        ),
    )


def build_se_player(
    settings: SEMCTSSettings, game: Game, seed: int | None, cache: PlayerCache
) -> Player:
    """The ``se-mcts`` or ``se-inf-mcts`` player of ``settings``: SE-MCTS (Eq. 6) aiming at
    the rank's target score."""
    evaluator, metadata = _evaluator(settings, game, cache)
    target = _target(settings, game, metadata)
    leaf_value = _leaf_value(settings, game, cache, seed)
    return _capped(
        settings,
        RankedSearchPlayer(
            evaluator,
            _config(settings),
            target,
            settings.c1,
            settings.display_name(),
            seed,
            leaf_value,
        ),
    )


__all__ = [
    "RankedSearchPlayer",
    "ZTable",
    "build_human_mcts_player",
    "build_sa_mcts_player",
    "build_se_player",
    "default_z_table",
    "elo_target",
    "load_strength_evaluator",
    "on_scale",
    "sa_mcts_z",
]
