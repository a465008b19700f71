"""Human-like players at a chosen rank in Go (19x19) and chess (Chen, Shih & Wu, ICLR 2025,
sections 3.3 and 4.3): the four programs of the paper's Tables 1-2 as player kinds.

=============== ============================================================================
kind            program
=============== ============================================================================
``human-mcts``  MCTS: PUCT with the estimator network's policy and value, no adjustment
                (the paper's "MCTS"; named so beside the AlphaDDA presets ``mcts1-4``).
``sa-mcts``     SA-MCTS: the same search, then a move drawn from the root visit counts with
                Wu et al.'s strength index ``z`` (``R_th`` = 0.1 as the SA player).
``se-mcts``     SE-MCTS: PUCT with Eq. 6 (:mod:`sparring.search.semcts`), the SE network.
``se-inf-mcts`` SE-inf-MCTS: the same with the SE-inf network (the paper's recommended one).
=============== ============================================================================

Options (``KIND:key=value,...``):

* ``rank=R`` (``se-mcts``, ``se-inf-mcts``; required): Go ``9d`` ... ``1d``, ``1-2k``,
  ``3-5k`` (the estimator's rank groups; ``1k``/``2k`` and ``3k``/``4k``/``5k`` name their
  group), chess an Elo band ``1000-1200`` ... ``2400-2600``; or ``elo=E`` (chess: the band
  holding ``E``, 1000 <= E <= 2600).  The target ``beta_t`` is the rank's composite score at
  the current move number (:class:`~sparring.estimation.semcts.RankTarget`).
* ``z=Z`` or ``rank=R[,ztable=PATH]`` (``sa-mcts``; one of them required): the paper tunes
  ``z`` per rank so that SA-MCTS_i wins about half its games against SE-inf-MCTS_i (appendix
  C, Table 4 for its Go networks).  ``sparring se-strength GAME --z-fit`` measures such a
  table (:class:`ZTable`, ``ztable.json``); ``rank=R`` reads ``R``'s ``z`` from ``ztable=PATH``
  or, without it, from the shipped table ``models/estimators/GAME-sa-z.json``
  (:func:`default_z_table`), and is a one-line error naming the table when it is missing.
  Chess ships ``chess-sa-z.json`` (measured with ``chess-se-inf-play`` at 16 simulations, 8
  games a point; its model card in ``models/estimators/README.md``), Go ``go-sa-z.json``
  (fitted at 8d, 6d, 4d, 2d and 1-2k; the other ranks interpolated, :meth:`ZTable.z_at`).
  In Go, SA-MCTS plays under the same finishing rules as the others (no own-eye fills, pass
  to win).
* ``sims=N`` (default :data:`DEFAULT_SIMULATIONS` = 100; the paper 800: on this CPU 100
  simulations take about half a second a move in 19x19 Go, BENCHMARKS.md), ``cpuct=C``
  (1.25), ``c1=C1`` (Eq. 6's ``c_1``, SE kinds, default 2.0), ``model=NAME|PATH`` (a shipped
  estimator name or an estimator file; defaults below), ``name=...``.
* ``sf_nodes=N`` (chess only; default 0): 0 searches with the network's own value; N > 0
  (at most 1,000,000) takes the value of every leaf from Stockfish at ``N`` nodes
  (:mod:`sparring.estimation.engine_value`: Lichess's win-percentage logistic of its
  centipawns), the network's policy staying the prior, so the moves stay the policy's and
  SA-MCTS and SE-MCTS steer down from a stronger search.  One Stockfish process per worker
  process, shared by its players; Go rejects it.
* ``rollouts=N`` (Go only; default 0, at most :data:`MAX_ROLLOUTS`): the value of every leaf
  from ``N`` random playouts (the game's compiled playout: no own-eye fills; Tromp-Taylor
  area score with the game's komi), ``rollout_mix=L`` (default 1) of it mixed with the
  network's value as AlphaGo mixed them (:class:`~sparring.search.evaluator.RolloutValueEvaluator`);
  for Go networks whose value head says nothing (docs/research/strength-estimation.md).
  Chess rejects it.

Default networks: ``GAME-se`` for ``se-mcts``, ``GAME-se-inf`` for the others (the paper's
MCTS and SA-MCTS use the same network as SE-inf-MCTS), except that the play networks
``go-se-inf-play`` and ``chess-se-inf-play`` stand in for ``go-se-inf`` and ``chess-se-inf``
(:data:`PLAY_NETWORKS`).  Play is the most visited root move
(ties at random), no root noise.

This module sits in :mod:`sparring.estimation` (not :mod:`sparring.players`) because it needs
the estimator networks, which live above the players' layer; its kinds (:data:`KINDS`) are
registered by the composition root :mod:`sparring.kinds`.
"""

from __future__ import annotations

import json
import math
import secrets
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from sparring.errors import (
    IncompatibleError,
    IncompatiblePlayerError,
    PlayerResourceError,
    PlayerSettingsError,
    SparringError,
)
from sparring.estimation.data import CHESS_RANKS, GO_RANKS
from sparring.estimation.engine_value import MAX_SF_NODES
from sparring.games.base import Game, State
from sparring.players.base import Player
from sparring.players.registry import (
    PlayerSpec,
    check_options,
    option_float,
    option_int,
)
from sparring.players.searching import SearchPlayer
from sparring.players.settings import option_bool
from sparring.players.settings_base import (
    MAX_SIMULATIONS,
    SettingsBase,
    check_int,
    check_number,
    check_sims,
)
from sparring.search.evaluator import Evaluator
from sparring.search.hooks import DEFAULT_C_PUCT
from sparring.search.limit import Limit, LimitClock
from sparring.search.puct import PUCTConfig, search
from sparring.search.semcts import DEFAULT_C1, SEMCTSConfig
from sparring.search.stats import RootStats
from sparring.search.sweep import RootSweep

if TYPE_CHECKING:
    from sparring.estimation.external_scale import ScaleChoice
    from sparring.estimation.model import StrengthNet
    from sparring.estimation.semcts import RankTarget, StrengthEvaluator
    from sparring.players.cache import PlayerCache
    from sparring.players.strength import EloTarget
    from sparring.search.analysis import StrengthReport

DEFAULT_SIMULATIONS = 100
"""Simulations per move of the human-like kinds on a CPU (the paper: 800)."""
MAX_ROLLOUTS = 1024
"""The most random playouts per leaf that ``rollouts=N`` takes (19x19: about 0.2 ms each)."""
GAMES = ("go", "chess")
"""The games with strength estimators."""
ELO_RANGE = (1000.0, 2600.0)
"""The Elo range of the chess bands."""

_KYU_GROUPS = {"1k": "1-2k", "2k": "1-2k", "3k": "3-5k", "4k": "3-5k", "5k": "3-5k"}


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
    from sparring.estimation.shipped import ESTIMATOR_DIR

    return ESTIMATOR_DIR / f"{game_name}-sa-z.json"


def normalise_rank(text: str) -> str:
    """The estimator rank label named by ``text`` (``3D`` -> ``3d``, ``4k`` -> ``3-5k``,
    ``1400-1600``); :class:`PlayerSettingsError` with the known ranks for anything else."""
    rank = text.strip().lower()
    rank = _KYU_GROUPS.get(rank, rank)
    if rank in GO_RANKS or rank in CHESS_RANKS:
        return rank
    raise PlayerSettingsError(
        f"unknown rank {text!r}; Go ranks: {', '.join(GO_RANKS)}; "
        f"chess Elo bands: {', '.join(reversed(CHESS_RANKS))} (or elo=E)",
        key="rank",
    )


def elo_band(elo: float) -> str:
    """The chess band holding ``elo`` (``1500`` -> ``1400-1600``; 2600 is in the top band)."""
    low, high = ELO_RANGE
    if not (math.isfinite(elo) and low <= elo <= high):
        raise PlayerSettingsError(
            f"elo {elo:g} is outside the chess Elo bands ({low:.0f} to {high:.0f})", key="elo"
        )
    start = int(low + 200 * min((elo - low) // 200, (high - low) / 200 - 1))
    return f"{start}-{start + 200}"


def game_ranks(game_name: str) -> tuple[str, ...]:
    """The rank labels of ``game_name`` (strongest first)."""
    return GO_RANKS if game_name == "go" else CHESS_RANKS


PLAY_NETWORKS: dict[str, str] = {
    "go-se-inf": "go-se-inf-play",
    "chess-se-inf": "chess-se-inf-play",
}
"""Shipped estimators the player kinds use instead of the estimation default of the same kind.

* Go: ``go-se-inf-play`` (the same training, seed 2), whose policy matches human moves (33%
  top-1 against 8.7% for ``go-se-inf``, whose argmax is illegal in half of the positions) but
  whose rank estimate is behind ``go-se-inf``'s at N = 50 and 100 games
  (docs/research/strength-estimation.md), so ``sparring estimate`` keeps ``go-se-inf``.
* Chess: ``chess-se-inf-play``, trained without the policy's log-probability as an input of the
  strength head (``StrengthNetConfig.prior_input = False``), so that ``beta`` ranks a
  position's moves by more than the prior; it matches more human moves than ``chess-se-inf``
  as a policy, as MCTS and as SE-inf-MCTS, and its SE-inf-MCTS loses more games as the band
  falls, but its rank estimate is behind at large N (docs/research/strength-estimation.md,
  "Why the rank barely matters"), so ``sparring estimate`` keeps ``chess-se-inf``."""


def _estimator_file(game: Game, model: str | None, kind: str) -> Path:
    from sparring.estimation.shipped import resolve_estimator

    default = f"{game.name}-{kind}"
    try:
        return resolve_estimator(model or PLAY_NETWORKS.get(default, default))
    except SparringError as exc:
        raise PlayerResourceError(str(exc), key="model") from None


def load_strength_evaluator(game: Game, path: Path) -> tuple[StrengthEvaluator, dict[str, Any]]:
    """The :class:`~sparring.estimation.semcts.StrengthEvaluator` of the estimator file
    ``path`` and its metadata, checked against ``game``."""
    from sparring.estimation.model import load_strength_model
    from sparring.estimation.semcts import StrengthEvaluator

    try:
        model, metadata = load_strength_model(path)
    except SparringError as exc:
        raise PlayerResourceError(str(exc), key="model") from None
    config = model.config
    if config.game != game.name or tuple(game.board_shape) != model.az.config.board_shape:
        raise IncompatiblePlayerError(
            f"estimator {str(path)!r} is for {config.game}, not {game.name}", key="model"
        )
    try:
        return StrengthEvaluator(model, game), metadata
    except ValueError as exc:  # not an SE or SE-inf network
        raise IncompatiblePlayerError(f"{path}: {exc}", key="model") from None


def _load_network(path: Path) -> StrengthNet:
    from sparring.estimation.model import load_strength_model

    try:
        return load_strength_model(path)[0]
    except SparringError as exc:
        raise PlayerResourceError(str(exc), key="model") from None


def _play_evaluator(
    model: StrengthNet, game: Game, path: Path, rank: str, symmetric: bool
) -> Evaluator:
    from sparring.estimation.playnet import play_evaluator

    try:
        return play_evaluator(model, game.name, rank, str(path), symmetric)
    except IncompatibleError as exc:
        raise IncompatiblePlayerError(str(exc), key="model") from None


class RankedSearchPlayer(SearchPlayer):
    """Plays the most visited move of a PUCT search (ties at random) under the game's move
    filter (Go: no own-eye fills, pass to win); with a ``target`` the search is SE-MCTS
    (Eq. 6) aiming at ``target.at(d)`` for each edge at move number ``d`` (``evaluator``
    must then be a :class:`~sparring.estimation.semcts.StrengthEvaluator`; the player wraps
    it in a :class:`~sparring.estimation.semcts.CentredStrengthEvaluator`).  ``leaf_value``,
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
            from sparring.estimation.semcts import CentredStrengthEvaluator, StrengthEvaluator

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
        from sparring.search.analysis import StrengthReport

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


@dataclass(frozen=True)
class _HumanLikeSettings(SettingsBase, ABC):
    """Common settings of the four human-like kinds (see the module doc).  A field that is
    not an option of the kind (:attr:`OPTION_KEYS`: ``rank`` and ``c1`` for the SE kinds,
    ``rank``, ``z`` and ``ztable`` for ``sa-mcts``) must keep its default."""

    kind: ClassVar[str]
    OPTION_KEYS: ClassVar[dict[str, str]] = {
        "simulations": "sims", "c_puct": "cpuct", "model": "model", "name": "name",
        "sf_nodes": "sf_nodes", "first_play_parent": "fpu_parent", "root_sweep": "sweep",
        "movetime": "movetime", "rollouts": "rollouts", "rollout_mix": "rollout_mix",
    }  # fmt: skip
    BOUNDS: ClassVar[dict[str, tuple[float | None, float | None]]] = {
        "simulations": (1, MAX_SIMULATIONS),
        "c_puct": (0, None),
        "c1": (0, None),
        "sf_nodes": (0, MAX_SF_NODES),
        "rollouts": (0, MAX_ROLLOUTS),
        "rollout_mix": (0, 1),
        "temperature": (0, 100),
    }
    DEFAULT_NETWORK: ClassVar[str] = "se-inf"
    USES_RANK: ClassVar[bool] = True
    RANK_OPTIONAL: ClassVar[bool] = False
    """With ``USES_RANK`` False: a rank may still be given (``sa-mcts:rank=R``)."""

    rank: str | None = None
    """Target rank label (``3d``, ``1400-1600``); required by the SE kinds."""
    simulations: int = DEFAULT_SIMULATIONS
    """Simulations per move, 1 .. 100000."""
    c_puct: float = DEFAULT_C_PUCT
    """``c`` of Eq. 6 / ``C_puct`` of Eq. 8, >= 0."""
    c1: float = DEFAULT_C1
    """``c_1`` of Eq. 6 (SE kinds), >= 0."""
    z: float | None = None
    """Strength index (``sa-mcts``, required there)."""
    model: str | None = None
    """Estimator name or file; None: ``GAME-se`` (se-mcts) or ``GAME-se-inf``."""
    name: str | None = None
    """Display name; None: e.g. ``SE-inf-MCTS(3d)``."""
    sf_nodes: int = 0
    """Chess: Stockfish nodes per leaf for the leaf's value (0 .. 1000000; 0: the network's
    own value)."""
    first_play_parent: bool = False
    """An untried move starts at its position's value instead of 0 (a draw):
    :attr:`~sparring.search.puct.PUCTConfig.first_play_parent` (spec ``fpu_parent=true``)."""
    root_sweep: bool = False
    """Give every root child one simulation first, highest prior first
    (:class:`~sparring.search.sweep.RootSweep`; spec ``sweep=true``): with Stockfish's leaf
    values the search then sees the value of every legal move, not only the human policy's."""
    sf_elo: float | None = None
    """Chess (``human-mcts``, ``sa-mcts``): the Elo on Stockfish's scale to play at; the
    knob (``sims`` or ``z``) and the search options come from the scale file
    (:mod:`sparring.estimation.external_scale`)."""
    gnugo_elo: float | None = None
    """Go (``sa-mcts``): the Elo on GNU Go's scale (GNU Go 3.8 at level 1 is 1000) to play at;
    the strength index ``z`` and the search options (the play network and its rank input
    among them) come from the scale file (:mod:`sparring.estimation.external_scale`)."""
    scale: str | None = None
    """With ``sf_elo`` or ``gnugo_elo``: the scale file (None: the shipped
    :func:`~sparring.estimation.external_scale.default_scale`)."""
    rollouts: int = 0
    """Go: random playouts per leaf for the leaf's value (0 .. :data:`MAX_ROLLOUTS`; 0: the
    network's own value), mixed in by ``rollout_mix``
    (:class:`~sparring.search.evaluator.RolloutValueEvaluator`)."""
    rollout_mix: float = 1.0
    """With ``rollouts``: the playouts' share of a leaf's value (AlphaGo's ``lambda``; 1: the
    playouts alone, for a network whose value head says nothing)."""
    movetime: float | None = None
    """At most this many seconds a move (0.001 .. 3600; spec ``movetime=S``), whatever the
    limit the player is given (:attr:`SearchPlayer.movetime
    <sparring.players.searching.SearchPlayer.movetime>`); None: no cap of its own."""
    symmetric: bool = False
    """``human-mcts`` and ``sa-mcts`` with a play network (spec ``sym=true``): the priors and
    values averaged over the rules' symmetric images of each position (Go's 8, chess's
    left-right reflection where no side may castle;
    :func:`~sparring.estimation.symmetry.symmetric_evaluation`), at one network call per
    image: chess ``human-mcts`` at 32 simulations matched 35.7% of the held-out test
    positions' human moves with it, 33.0% without (docs/research/strength-estimation.md, "The
    raw policy averaged over the board's symmetries")."""

    temperature: float | None = None
    """``human-mcts`` (spec ``temp=T``, needs ``sims=1``; 0 .. 100): the move is drawn from
    the network's policy at temperature ``T`` (``softmax(logits / T)`` over the legal moves
    the finishing rules allow; 1: the network's own distribution, 0: its top move), seeded by
    the player's seed, one network call a move and no simulation
    (:class:`~sparring.players.sampling.PolicySamplingPlayer`); None: the search's most
    visited move."""

    def __post_init__(self) -> None:
        self.check_types()
        if self.rank is not None:
            object.__setattr__(self, "rank", normalise_rank(self.rank))
        if self.USES_RANK and self.rank is None:
            raise PlayerSettingsError(
                f"{self.kind} needs rank=R (Go: {', '.join(GO_RANKS)}; chess: an Elo band "
                f"such as 1400-1600, or elo=E)",
                key="rank",
            )
        for f in fields(self):
            if f.name not in self.OPTION_KEYS and getattr(self, f.name) != f.default:
                raise PlayerSettingsError(f"{self.kind} takes no {f.name}", key=f.name)
        check_sims("sims", self.simulations)
        check_number("cpuct", self.c_puct, 0.0)
        check_number("c1", self.c1, 0.0)
        check_int("sf_nodes", self.sf_nodes, 0, MAX_SF_NODES)
        check_number("movetime", self.movetime, 0.001, 3600.0)
        check_int("rollouts", self.rollouts, 0, MAX_ROLLOUTS)
        check_number("rollout_mix", self.rollout_mix, 0.0, 1.0)
        if self.temperature is not None:
            self._check_temperature()
        if self.symmetric and self.model is None and self.asked_elo is None:
            self._no_symmetric("the default estimator")
        if self.rollout_mix != 1.0 and not self.rollouts:
            raise PlayerSettingsError("rollout_mix needs rollouts=N", key="rollout_mix")
        if self.rollouts and self.sf_nodes:
            raise PlayerSettingsError(
                "give rollouts (Go) or sf_nodes (chess), not both", key="rollouts"
            )
        if self.rollouts and self.rank is not None and self.rank not in GO_RANKS:
            raise PlayerSettingsError(
                f"rollouts (random playouts' value) is for Go, not the chess band {self.rank}",
                key="rollouts",
            )
        if self.sf_elo is not None and self.gnugo_elo is not None:
            raise PlayerSettingsError(
                "give sf_elo (chess, Stockfish's scale) or gnugo_elo (Go, GNU Go's), not both",
                key="gnugo_elo",
            )
        if self.scale is not None and self.asked_elo is None:
            raise PlayerSettingsError(
                f"{self.kind}: scale=PATH needs sf_elo=E or gnugo_elo=E", key="scale"
            )
        for key in ("sf_elo", "gnugo_elo"):
            value = getattr(self, key)
            if value is not None and not math.isfinite(value):
                raise PlayerSettingsError(f"{key} must be a finite number, not {value!r}", key=key)
        if self.sf_nodes and self.rank in GO_RANKS:
            raise PlayerSettingsError(
                f"sf_nodes (Stockfish's value) is for chess, not the Go rank {self.rank}",
                key="sf_nodes",
            )
        if self.name is not None and (not self.name.strip() or "," in self.name):
            raise PlayerSettingsError(
                f"name must be non-empty text without ',', not {self.name!r}", key="name"
            )

    def _check_temperature(self) -> None:
        """``temp=T``: a number in [0, :data:`~sparring.players.sampling.MAX_TEMPERATURE`]
        with ``sims=1`` and none of the options that only a search or a scale uses."""
        from sparring.players.sampling import MAX_TEMPERATURE

        value = self.temperature
        assert value is not None
        if not (math.isfinite(value) and 0.0 <= value <= MAX_TEMPERATURE):
            raise PlayerSettingsError(
                f"temp must be a number in [0, {MAX_TEMPERATURE:g}] (0: the policy's top move, "
                f"1: its own distribution), not {value:g}",
                key="temp",
            )
        if self.simulations != 1:
            raise PlayerSettingsError(
                f"temp=T draws the move from the network's policy: give sims=1, not "
                f"sims={self.simulations}",
                key="temp",
            )
        used = [key for key, on in (("sf_elo", self.sf_elo is not None),
                                    ("gnugo_elo", self.gnugo_elo is not None),
                                    ("sf_nodes", self.sf_nodes > 0),
                                    ("rollouts", self.rollouts > 0),
                                    ("sweep", self.root_sweep)) if on]  # fmt: skip
        if used:
            raise PlayerSettingsError(
                f"temp=T plays the policy without a search; drop {used[0]}", key="temp"
            )

    def spec(self) -> str:
        """``KIND:key=value,...`` with the options that differ from the defaults."""
        items = []
        if self.rank is not None:
            items.append(f"rank={self.rank}")
        if self.z is not None:
            items.append(f"z={self.z!r}")
        if self.simulations != DEFAULT_SIMULATIONS:
            items.append(f"sims={self.simulations}")
        if self.c_puct != DEFAULT_C_PUCT:
            items.append(f"cpuct={self.c_puct!r}")
        if self.c1 != DEFAULT_C1:
            items.append(f"c1={self.c1!r}")
        if self.model is not None:
            items.append(f"model={self.model}")
        if self.name is not None:
            items.append(f"name={self.name}")
        if self.sf_nodes:
            items.append(f"sf_nodes={self.sf_nodes}")
        if self.first_play_parent:
            items.append("fpu_parent=true")
        if self.root_sweep:
            items.append("sweep=true")
        if self.symmetric:
            items.append("sym=true")
        if self.sf_elo is not None:
            items.append(f"sf_elo={_number(self.sf_elo)}")
        if self.gnugo_elo is not None:
            items.append(f"gnugo_elo={_number(self.gnugo_elo)}")
        if self.scale is not None:
            items.append(f"scale={self.scale}")
        if self.rollouts:
            items.append(f"rollouts={self.rollouts}")
        if self.rollout_mix != 1.0:
            items.append(f"rollout_mix={self.rollout_mix!r}")
        if self.movetime is not None:
            items.append(f"movetime={_number(self.movetime)}")
        if self.temperature is not None:
            items.append(f"temp={_number(self.temperature)}")
        return self.kind + (":" + ",".join(items) if items else "")

    @property
    def asked_elo(self) -> float | None:
        """The Elo asked for on an external scale: ``sf_elo`` or ``gnugo_elo`` (None: none)."""
        return self.sf_elo if self.sf_elo is not None else self.gnugo_elo

    @property
    def _elo_key(self) -> str:
        return "sf_elo" if self.sf_elo is not None else "gnugo_elo"

    def on_scale(self, game: Game) -> tuple[Any, ScaleChoice]:
        """With ``sf_elo`` (chess) or ``gnugo_elo`` (Go): these settings with the scale
        file's search options (and, for the ``sims`` knob, its simulations), and what the
        scale chose.  :class:`~sparring.errors.IncompatiblePlayerError` for the other game's
        option, a game other than the scale's, a scale of another kind's knob, or a search
        option given that differs from the scale's (its Elo numbers would not hold)."""
        from sparring.estimation.external_scale import (
            KNOBS,
            SCALE_FIELDS,
            SCALE_GAMES,
            ExternalScale,
            default_scale,
        )

        asked = self.asked_elo
        assert asked is not None
        key = self._elo_key
        if SCALE_GAMES[key][0] != game.name:
            raise IncompatiblePlayerError(
                f"{key} is an Elo on {SCALE_GAMES[key][1]}'s scale, for "
                f"{SCALE_GAMES[key][0]}, not {game.name}",
                key=key,
            )
        path = Path(self.scale).expanduser() if self.scale else default_scale(game.name)
        if not self.scale and not path.is_file():
            raise IncompatiblePlayerError(
                f"{key}: no {SCALE_GAMES[key][1]} scale is shipped for {game.name}", key=key
            )
        scale = ExternalScale.read(path)
        if scale.game != game.name:
            raise IncompatiblePlayerError(
                f"strength scale {str(path)!r} is for {scale.game}, not {game.name}",
                key="scale",
            )
        if KNOBS[scale.knob] != self.kind:
            raise IncompatiblePlayerError(
                f"strength scale {str(path)!r} varies {scale.knob}: it is for "
                f"{KNOBS[scale.knob]}:{key}=E, not {self.kind}",
                key="scale",
            )
        defaults = {f.name: f.default for f in fields(self)}
        changes: dict[str, Any] = {}
        for key, value in scale.search.items():
            attr = SCALE_FIELDS[key]
            mine = getattr(self, attr)
            if mine != defaults[attr] and mine != value:
                raise IncompatiblePlayerError(
                    f"the strength scale was measured with {key}={value}; drop {key}={mine}",
                    key=key,
                )
            changes[attr] = value
        choice = scale.choose(asked)
        if scale.knob == "sims":
            if self.simulations != defaults["simulations"]:
                raise IncompatiblePlayerError(
                    f"{key} chooses the simulations; drop sims={self.simulations}", key="sims"
                )
            changes["simulations"] = int(choice.value)
        return replace(self, **changes), choice

    def elo_target(self, choice: ScaleChoice) -> tuple[EloTarget, tuple[str, ...]]:
        """The :class:`~sparring.players.strength.EloTarget` of ``sf_elo`` or ``gnugo_elo`` and
        the notice of a clamped target."""
        from sparring.estimation.external_scale import SCALE_GAMES
        from sparring.players.strength import EloTarget

        asked = self.asked_elo
        assert asked is not None
        notices: tuple[str, ...] = ()
        if choice.clamped:
            notices = (
                f"Elo {asked:g} is outside the measured {SCALE_GAMES[self._elo_key][1]} "
                f"scale; playing {choice.played:.0f}",
            )
        return EloTarget(asked, choice.played, choice.clamped), notices

    def _capped(self, player: SearchPlayer) -> SearchPlayer:
        """``player`` with this setting's :attr:`movetime` as its own cap."""
        player.movetime = self.movetime
        return player

    @abstractmethod
    def display_name(self) -> str:
        """The player's name in tables (each kind names itself)."""

    def _evaluator(
        self, game: Game, cache: PlayerCache
    ) -> tuple[StrengthEvaluator, dict[str, Any]]:
        from sparring.players.cache import file_key

        if game.name not in GAMES:
            raise IncompatiblePlayerError(
                f"{self.kind} plays {' or '.join(GAMES)} (the games with strength "
                f"estimators), not {game.name}"
            )
        path = _estimator_file(game, self.model, self.DEFAULT_NETWORK)
        return cache.shared(
            ("strength-evaluator:" + game.name, file_key(path)),
            lambda: load_strength_evaluator(game, path),
        )

    def _move_evaluator(self, game: Game, cache: PlayerCache) -> Evaluator:
        """The evaluator of the kinds that search with priors and values alone
        (``human-mcts``, ``sa-mcts``): a play network (``model=PATH`` of ``sparring se-train
        --variant play``, the rank an input) at ``rank``, or the estimator's policy and value
        heads.  :class:`~sparring.errors.PlayerSettingsError` for a play network without a
        rank, and for ``human-mcts:rank=R`` or ``sa-mcts:rank=R,z=Z`` with an estimator."""
        from sparring.players.cache import file_key

        if game.name not in GAMES or self.model is None:
            self._no_symmetric("the default estimator")
            return self._evaluator(game, cache)[0]
        path = _estimator_file(game, self.model, self.DEFAULT_NETWORK)
        key = file_key(path)
        model = cache.shared(("strength-network", key), lambda: _load_network(path))
        if model.config.kind != "play":
            if self.rank is not None and (not self.RANK_OPTIONAL or self.z is not None):
                raise PlayerSettingsError(
                    f"{self.kind}: rank=R needs a play network; {str(path)!r} is a strength "
                    "estimator",
                    key="rank",
                )
            self._no_symmetric(f"{str(path)!r}, a strength estimator")
            return self._evaluator(game, cache)[0]
        rank = self.rank
        if rank is None:
            raise PlayerSettingsError(
                f"{self.kind}: {str(path)!r} is a play network, which plays at a rank: give "
                f"rank=R ({', '.join(game_ranks(game.name))})",
                key="rank",
            )
        symmetric = self.symmetric
        return cache.shared(
            ("play-evaluator:" + game.name + ":" + rank + (":sym" if symmetric else ""), key),
            lambda: _play_evaluator(model, game, path, rank, symmetric),
        )

    def _no_symmetric(self, what: str) -> None:
        """:class:`~sparring.errors.PlayerSettingsError` when ``sym=true`` is asked of a
        search without a play network (``what`` says what it searches with)."""
        if self.symmetric:
            raise PlayerSettingsError(
                f"{self.kind}: sym=true is for a play network (model=go-play, chess-play or "
                f"a file of sparring se-train --variant play), not {what}",
                key="sym",
            )

    def _leaf_value(
        self, game: Game, cache: PlayerCache, seed: int | None
    ) -> Callable[[Evaluator], Evaluator] | None:
        """With ``sf_nodes`` > 0: what wraps the search's evaluator so that its values are
        Stockfish's (one :class:`~sparring.estimation.engine_value.StockfishValue` per
        process, from ``cache``); with ``rollouts`` > 0 (Go): so that they are mixed with
        random playouts' (:class:`~sparring.search.evaluator.RolloutValueEvaluator`, seeded
        by ``seed``); None with neither."""
        if self.rollouts:
            return self._rollout_value(game, seed)
        if not self.sf_nodes:
            return None
        from sparring.estimation.engine_value import EngineValueEvaluator, StockfishValue
        from sparring.games.chess import Chess
        from sparring.players.cache import file_key
        from sparring.players.external import require_program

        if not isinstance(game, Chess):
            raise IncompatiblePlayerError(
                f"{self.kind}: sf_nodes (Stockfish's value) is for chess, not {game.name}",
                key="sf_nodes",
            )
        program = require_program(None, "stockfish", key="sf_nodes")
        engine = cache.shared(
            ("stockfish-value", file_key(program)), lambda: StockfishValue(program)
        )
        nodes = self.sf_nodes
        return lambda evaluator: EngineValueEvaluator(evaluator, engine, game, nodes)

    def _rollout_value(self, game: Game, seed: int | None) -> Callable[[Evaluator], Evaluator]:
        from sparring.games.go import Go
        from sparring.search.evaluator import RolloutValueEvaluator

        if not isinstance(game, Go):
            raise IncompatiblePlayerError(
                f"{self.kind}: rollouts (random playouts' value) is for Go, not {game.name}",
                key="rollouts",
            )
        base = secrets.randbits(63) if seed is None else seed
        playouts, mix = self.rollouts, self.rollout_mix
        return lambda evaluator: RolloutValueEvaluator(evaluator, game, base, playouts, mix)

    def _target(self, game: Game, metadata: dict[str, Any]) -> RankTarget:
        from sparring.estimation.semcts import RankTarget

        assert self.rank is not None
        if self.rank not in game_ranks(game.name):
            raise IncompatiblePlayerError(
                f"rank {self.rank!r} is not a {game.name} rank "
                f"(ranks: {', '.join(game_ranks(game.name))})"
            )
        try:
            return RankTarget.from_metadata(metadata, self.rank)
        except ValueError as exc:
            raise IncompatiblePlayerError(str(exc)) from None

    def _config(self) -> PUCTConfig:
        return PUCTConfig(
            simulations=self.simulations,
            c_puct=self.c_puct,
            first_play_parent=self.first_play_parent,
            root_plan=RootSweep() if self.root_sweep else None,
        )


@dataclass(frozen=True)
class HumanMCTSSettings(_HumanLikeSettings):
    """``human-mcts``: PUCT with the estimator's policy and value, no strength adjustment; with
    a play network (``model=PATH,rank=R``) that network's policy and value for rank ``R``."""

    kind: ClassVar[str] = "human-mcts"
    USES_RANK: ClassVar[bool] = False
    OPTION_KEYS: ClassVar[dict[str, str]] = {
        **_HumanLikeSettings.OPTION_KEYS, "sf_elo": "sf_elo", "scale": "scale", "rank": "rank",
        "symmetric": "sym", "temperature": "temp",
    }  # fmt: skip

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.rank is not None and self.model is None:
            raise PlayerSettingsError(
                "human-mcts: rank=R is for a play network (model=PATH of sparring se-train "
                "--variant play); the kinds that play at a rank are se-inf-mcts, se-mcts and "
                "sa-mcts",
                key="rank",
            )

    def display_name(self) -> str:
        if self.name:
            return self.name
        if self.temperature is not None:
            return f"Policy({self.rank or 'estimator'}, T={self.temperature:g})"
        if self.rank is not None:
            return f"MCTS({self.rank})"
        return "MCTS" if self.sf_elo is None else f"MCTS(Stockfish {self.sf_elo:g})"

    def build(self, game: Game, seed: int | None, cache: PlayerCache) -> Player:
        resolved: HumanMCTSSettings = self
        elo: EloTarget | None = None
        notices: tuple[str, ...] = ()
        if self.sf_elo is not None:
            resolved, choice = self.on_scale(game)
            elo, notices = self.elo_target(choice)
        evaluator = resolved._move_evaluator(game, cache)
        if self.temperature is not None:
            from sparring.players.sampling import PolicySamplingPlayer

            return self._capped(
                PolicySamplingPlayer(evaluator, self.temperature, self.display_name(), seed)
            )
        return self._capped(RankedSearchPlayer(evaluator, resolved._config(), None,
                                               name=self.display_name(), seed=seed,
                                               leaf_value=resolved._leaf_value(game, cache, seed),
                                               elo=elo, notices=notices))  # fmt: skip


@dataclass(frozen=True)
class SAMCTSSettings(_HumanLikeSettings):
    """``sa-mcts``: the ``human-mcts`` search, then Wu et al.'s SA move choice with ``z``
    (given, or the ``rank``'s ``z`` from a :class:`ZTable`).  With a play network
    (``model=PATH`` of ``sparring se-train --variant play``) ``rank`` and ``z`` go together:
    the rank is then the network's input (which human moves it imitates) and ``z`` the
    strength (``sa-mcts:model=go-play,rank=9d,z=1``)."""

    kind: ClassVar[str] = "sa-mcts"
    USES_RANK: ClassVar[bool] = False
    RANK_OPTIONAL: ClassVar[bool] = True
    OPTION_KEYS: ClassVar[dict[str, str]] = {
        "rank": "rank", "z": "z", "simulations": "sims", "c_puct": "cpuct", "model": "model",
        "name": "name", "ztable": "ztable", "sf_nodes": "sf_nodes",
        "first_play_parent": "fpu_parent", "root_sweep": "sweep", "sf_elo": "sf_elo",
        "gnugo_elo": "gnugo_elo", "scale": "scale", "movetime": "movetime", "rollouts": "rollouts",
        "rollout_mix": "rollout_mix", "symmetric": "sym",
    }  # fmt: skip

    ztable: str | None = None
    """With ``rank``: the z-per-rank table file (None: :func:`default_z_table`)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        given = [key for key, value in (("z", self.z), ("rank", self.rank),
                                        ("sf_elo", self.sf_elo), ("gnugo_elo", self.gnugo_elo))
                 if value is not None]  # fmt: skip
        if len(given) > 1 and "rank" in given and self.model is not None:
            given.remove("rank")  # the play network's input (checked when built)
        if len(given) > 1:
            raise PlayerSettingsError(
                "sa-mcts takes one of z=Z, rank=R, sf_elo=E and gnugo_elo=E, not "
                + " and ".join(given),
                key=given[-1],
            )
        if self.ztable is not None and (self.rank is None or self.z is not None):
            raise PlayerSettingsError("sa-mcts: ztable=PATH needs rank=R and no z=Z", key="ztable")
        if not given or (self.z is not None and math.isnan(self.z)):
            raise PlayerSettingsError(
                "sa-mcts needs z=Z, rank=R with a z-per-rank table (ztable=PATH; "
                "`sparring se-strength GAME --z-fit` measures one), in chess sf_elo=E "
                "(an Elo on Stockfish's scale) or in Go gnugo_elo=E (on GNU Go's)",
                key="z",
            )

    def spec(self) -> str:
        text = super().spec()
        if self.ztable is None:
            return text
        return text + ("," if text != self.kind else ":") + f"ztable={self.ztable}"

    def display_name(self) -> str:
        if self.name:
            return self.name
        if self.sf_elo is not None:
            return f"SA-MCTS(Stockfish {self.sf_elo:g})"
        if self.gnugo_elo is not None:
            return f"SA-MCTS(GNU Go {self.gnugo_elo:g})"
        if self.z is None:
            return f"SA-MCTS({self.rank})"
        return f"SA-MCTS({self.rank}, z={self.z:g})" if self.rank else f"SA-MCTS(z={self.z:g})"

    def z_for(self, game: Game) -> float:
        """The strength index played in ``game``: ``z`` (with a rank too, the rank is the
        play network's input), or ``rank``'s ``z`` in the table (fitted, or interpolated
        between fitted ranks: :meth:`ZTable.z_at`)."""
        if self.z is not None:
            return self.z
        if self.rank not in game_ranks(game.name):
            raise IncompatiblePlayerError(
                f"rank {self.rank!r} is not a {game.name} rank "
                f"(ranks: {', '.join(game_ranks(game.name))})"
            )
        path = Path(self.ztable).expanduser() if self.ztable else default_z_table(game.name)
        table = ZTable.read(path)
        if table.game != game.name:
            raise IncompatiblePlayerError(f"z-per-rank table {str(path)!r} is for {table.game}")
        if not table.z:
            raise IncompatiblePlayerError(f"z-per-rank table {str(path)!r} has no z for any rank")
        return table.z_at(self.rank)[0]

    def build(self, game: Game, seed: int | None, cache: PlayerCache) -> Player:
        from sparring.players.strength import StrengthAdjustedPlayer, network_root_search
        from sparring.strength.selection import PAPER_RTH, StrengthSetting

        if game.name not in GAMES:
            self._evaluator(game, cache)  # the one-line "plays go or chess" error
        resolved: SAMCTSSettings = self
        elo: EloTarget | None = None
        notices: tuple[str, ...] = ()
        if self.asked_elo is not None:
            resolved, choice = self.on_scale(game)
            z = choice.value
            elo, notices = self.elo_target(choice)
        else:
            z = self.z_for(game)
        evaluator = resolved._move_evaluator(game, cache)
        leaf_value = resolved._leaf_value(game, cache, seed)
        if leaf_value is not None:
            evaluator = leaf_value(evaluator)
        setting = StrengthSetting(z, PAPER_RTH, 0.0)
        return self._capped(
            StrengthAdjustedPlayer(
                network_root_search(evaluator, resolved._config()),
                setting,
                self.display_name(),
                seed,
                finish_go=True,
                elo=elo,
                notices=notices,
            )
        )


@dataclass(frozen=True)
class SEMCTSSettings(_HumanLikeSettings):
    """``se-mcts``: SE-MCTS (Eq. 6) with the SE network, aiming at ``rank``."""

    kind: ClassVar[str] = "se-mcts"
    DEFAULT_NETWORK: ClassVar[str] = "se"
    LABEL: ClassVar[str] = "SE-MCTS"
    OPTION_KEYS: ClassVar[dict[str, str]] = {
        "rank": "rank", "simulations": "sims", "c_puct": "cpuct", "c1": "c1", "model": "model",
        "name": "name", "sf_nodes": "sf_nodes", "first_play_parent": "fpu_parent",
        "root_sweep": "sweep", "movetime": "movetime", "rollouts": "rollouts",
        "rollout_mix": "rollout_mix",
    }  # fmt: skip

    def display_name(self) -> str:
        return self.name or f"{self.LABEL}({self.rank})"

    def build(self, game: Game, seed: int | None, cache: PlayerCache) -> Player:
        evaluator, metadata = self._evaluator(game, cache)
        target = self._target(game, metadata)
        leaf_value = self._leaf_value(game, cache, seed)
        return self._capped(
            RankedSearchPlayer(
                evaluator, self._config(), target, self.c1, self.display_name(), seed, leaf_value
            )
        )


@dataclass(frozen=True)
class SEInfMCTSSettings(SEMCTSSettings):
    """``se-inf-mcts``: SE-MCTS (Eq. 6) with the SE-inf network, aiming at ``rank``."""

    kind: ClassVar[str] = "se-inf-mcts"
    DEFAULT_NETWORK: ClassVar[str] = "se-inf"
    LABEL: ClassVar[str] = "SE-inf-MCTS"


_COMMON = {
    "sims", "cpuct", "model", "name", "sf_nodes", "fpu_parent", "sweep", "movetime", "rollouts",
    "rollout_mix",
}  # fmt: skip


def _common(spec: PlayerSpec) -> dict[str, Any]:
    return {
        "simulations": option_int(spec, "sims", DEFAULT_SIMULATIONS),
        "c_puct": option_float(spec, "cpuct", DEFAULT_C_PUCT),
        "model": spec.options.get("model"),
        "name": spec.options.get("name"),
        "sf_nodes": option_int(spec, "sf_nodes", 0, low=0),
        "rollouts": option_int(spec, "rollouts", 0, low=0),
        "rollout_mix": option_float(spec, "rollout_mix", 1.0),
        "first_play_parent": bool(option_bool(spec, "fpu_parent")),
        "root_sweep": bool(option_bool(spec, "sweep")),
        "movetime": option_float(spec, "movetime", math.nan)
        if "movetime" in spec.options
        else None,
    }


def _rank_option(spec: PlayerSpec) -> str | None:
    if "rank" in spec.options and "elo" in spec.options:
        raise PlayerSettingsError("give either rank or elo, not both", key="elo")
    if "elo" in spec.options:
        return elo_band(option_float(spec, "elo", 0.0))
    rank = spec.options.get("rank")
    return None if rank is None else normalise_rank(rank)


def _number(value: float) -> str:
    """Spec text of a number that parses back to the same float (``1600``, ``1600.5``)."""
    return str(int(value)) if value.is_integer() else repr(value)


_RANK_HELP = "rank=9d..1d|1-2k|3-5k (Go) or rank=BAND|elo=E (chess)"


def _scale_options(spec: PlayerSpec) -> dict[str, Any]:
    elos = {key: option_float(spec, key, math.nan) if key in spec.options else None
            for key in ("sf_elo", "gnugo_elo")}  # fmt: skip
    return {**elos, "scale": spec.options.get("scale")}


def parse_human_mcts(spec: PlayerSpec) -> HumanMCTSSettings:
    """``human-mcts[:sims=N,cpuct=C,model=NAME|PATH,name=NAME,sf_nodes=N,fpu_parent=B,
    sweep=B]`` or, in chess, ``human-mcts:sf_elo=E[,scale=PATH]`` (an Elo on Stockfish's
    scale: the simulations and search options from the scale file), or
    ``human-mcts:model=PATH,rank=R[,sym=B]`` with a play network (the rank an input; ``sym``:
    averaged over the rules' symmetries); ``temp=T`` with ``sims=1``: the move drawn from the
    policy at temperature ``T``."""
    check_options(spec, _COMMON | {"sf_elo", "scale", "rank", "sym", "temp"})
    temperature = option_float(spec, "temp", math.nan) if "temp" in spec.options else None
    return HumanMCTSSettings(
        rank=_rank_option(spec), symmetric=bool(option_bool(spec, "sym")), **_common(spec),
        **_scale_options(spec), temperature=temperature,
    )  # fmt: skip


def parse_sa_mcts(spec: PlayerSpec) -> SAMCTSSettings:
    """``sa-mcts:z=Z|rank=R[,ztable=PATH]|sf_elo=E|gnugo_elo=E[,scale=PATH][,sims=N,cpuct=C,
    model=NAME|PATH,name=NAME,sym=B]`` (``elo=E`` for ``rank``'s chess band; ``sf_elo=E`` for an
    Elo on Stockfish's scale, ``gnugo_elo=E`` on GNU Go's; with a play network ``rank=R``
    and ``z=Z`` go together, the rank being the network's input)."""
    check_options(
        spec, _COMMON | {"z", "rank", "elo", "ztable", "sf_elo", "gnugo_elo", "scale", "sym"}
    )
    z = option_float(spec, "z", math.nan) if "z" in spec.options else None
    return SAMCTSSettings(
        z=z, rank=_rank_option(spec), ztable=spec.options.get("ztable"), **_common(spec),
        symmetric=bool(option_bool(spec, "sym")), **_scale_options(spec),
    )  # fmt: skip


def _parse_se(spec: PlayerSpec, settings: type[SEMCTSSettings]) -> SEMCTSSettings:
    check_options(spec, _COMMON | {"rank", "elo", "c1"})
    return settings(
        rank=_rank_option(spec), c1=option_float(spec, "c1", DEFAULT_C1), **_common(spec)
    )


def parse_se_mcts(spec: PlayerSpec) -> SEMCTSSettings:
    """``se-mcts:rank=R|elo=E[,sims=N,cpuct=C,c1=C1,model=NAME|PATH,name=NAME]``."""
    return _parse_se(spec, SEMCTSSettings)


def parse_se_inf_mcts(spec: PlayerSpec) -> SEMCTSSettings:
    """``se-inf-mcts:rank=R|elo=E[,sims=N,cpuct=C,c1=C1,model=NAME|PATH,name=NAME]``."""
    return _parse_se(spec, SEInfMCTSSettings)


KINDS: dict[str, tuple[type[Any], Any, str]] = {
    "human-mcts": (
        HumanMCTSSettings,
        parse_human_mcts,
        "MCTS with a strength estimator's policy/value (Go, chess): "
        "human-mcts[:sims=N,cpuct=C,model=NAME|PATH,sf_nodes=N,fpu_parent=true,sweep=true,"
        "movetime=S] or human-mcts:sf_elo=E[,scale=PATH] (chess: an Elo on Stockfish's scale) "
        "or human-mcts:model=PATH,rank=R[,sym=true] (a play network of se-train --variant "
        "play; sym: averaged over the board's symmetries); sims=1,temp=T draws the move from "
        "the policy at temperature T",
    ),
    "sa-mcts": (
        SAMCTSSettings,
        parse_sa_mcts,
        "SA-MCTS (Wu et al. z on the human-mcts search; Go, chess): "
        "sa-mcts:z=Z|rank=R[,ztable=PATH]|sf_elo=E|gnugo_elo=E[,scale=PATH]"
        "[,sims=N,model=...,sf_nodes=N,fpu_parent=true,sweep=true,movetime=S,sym=true]",
    ),
    "se-mcts": (
        SEMCTSSettings,
        parse_se_mcts,
        f"SE-MCTS at a rank (Chen et al. Eq. 6, SE network; Go, chess): "
        f"se-mcts:{_RANK_HELP}[,sims=N,c1=C1,sf_nodes=N,fpu_parent=true,sweep=true,"
        "movetime=S]",
    ),
    "se-inf-mcts": (
        SEInfMCTSSettings,
        parse_se_inf_mcts,
        f"SE-inf-MCTS at a rank (Eq. 6, SE-inf network; Go, chess): "
        f"se-inf-mcts:{_RANK_HELP}[,sims=N,c1=C1,sf_nodes=N,fpu_parent=true,sweep=true,"
        "movetime=S]",
    ),
}
"""The human-like kinds: kind -> (settings class, spec parser, help), for the composition
root (:mod:`sparring.kinds`) to register."""


__all__ = [
    "DEFAULT_SIMULATIONS",
    "KINDS",
    "HumanMCTSSettings",
    "RankedSearchPlayer",
    "SAMCTSSettings",
    "SEInfMCTSSettings",
    "SEMCTSSettings",
    "ZTable",
    "default_z_table",
    "elo_band",
    "game_ranks",
    "load_strength_evaluator",
    "normalise_rank",
    "parse_human_mcts",
    "parse_sa_mcts",
    "parse_se_inf_mcts",
    "parse_se_mcts",
]
