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
  the current move number (:class:`~sparring.nn.strength_eval.RankTarget`).
* ``z=Z`` or ``rank=R[,ztable=PATH]`` (``sa-mcts``; one of them required): the paper tunes
  ``z`` per rank so that SA-MCTS_i wins about half its games against SE-inf-MCTS_i (appendix
  C, Table 4 for its Go networks).  ``sparring se-strength GAME --z-fit`` measures such a
  table (:class:`~sparring.players.human_mcts.ZTable`, ``ztable.json``); ``rank=R`` reads
  ``R``'s ``z`` from ``ztable=PATH`` or, without it, from the shipped table
  ``models/estimators/GAME-sa-z.json``
  (:func:`~sparring.players.human_mcts.default_z_table`), and is a one-line error naming the
  table when it is missing.  Chess ships ``chess-sa-z.json`` (measured with
  ``chess-se-inf-play`` at 16 simulations, 8 games a point; its model card in
  ``models/estimators/README.md``), Go ``go-sa-z.json`` (fitted at 8d, 6d, 4d, 2d and 1-2k;
  the other ranks interpolated, :meth:`~sparring.players.human_mcts.ZTable.z_at`).
  In Go, SA-MCTS plays under the same finishing rules as the others (no own-eye fills, pass
  to win).
* ``sims=N`` (default :data:`DEFAULT_SIMULATIONS` = 100; the paper 800: on this CPU 100
  simulations take about half a second a move in 19x19 Go, BENCHMARKS.md), ``cpuct=C``
  (1.25), ``c1=C1`` (Eq. 6's ``c_1``, SE kinds, default 2.0), ``model=NAME|PATH`` (a shipped
  estimator name or an estimator file; defaults below), ``name=...``.
* ``sf_nodes=N`` (chess only; default 0): 0 searches with the network's own value; N > 0
  (at most 1,000,000) takes the value of every leaf from Stockfish at ``N`` nodes
  (:mod:`sparring.players.engine_value`: Lichess's win-percentage logistic of its
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
(:data:`~sparring.nn.estimators.PLAY_NETWORKS`).  Play is the most visited root move
(ties at random), no root noise.

This module holds the kinds' settings (data: the checks, spec text, JSON) and their spec
parsers (:data:`KINDS`); their players and builders, which load the estimator networks, are
:mod:`sparring.players.human_mcts`.  Both are registered by the composition root
:mod:`sparring.kinds`.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from sparring.errors import PlayerSettingsError
from sparring.nn.estimators import CHESS_RANKS, GO_RANKS
from sparring.players.engine_value import MAX_SF_NODES
from sparring.players.registry import (
    PlayerSpec,
    check_options,
    option_float,
    option_int,
)
from sparring.players.sampling import MAX_TEMPERATURE
from sparring.players.settings import option_bool
from sparring.players.settings_base import (
    MAX_SIMULATIONS,
    SettingsBase,
    check_int,
    check_number,
    check_sims,
)
from sparring.search.hooks import DEFAULT_C_PUCT
from sparring.search.semcts import DEFAULT_C1

DEFAULT_SIMULATIONS = 100
"""Simulations per move of the human-like kinds on a CPU (the paper: 800)."""
MAX_ROLLOUTS = 1024
"""The most random playouts per leaf that ``rollouts=N`` takes (19x19: about 0.2 ms each)."""
GAMES = ("go", "chess")
"""The games with strength estimators."""
ELO_RANGE = (1000.0, 2600.0)
"""The Elo range of the chess bands."""

_KYU_GROUPS = {"1k": "1-2k", "2k": "1-2k", "3k": "3-5k", "4k": "3-5k", "5k": "3-5k"}


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


@dataclass(frozen=True)
class HumanLikeSettings(SettingsBase, ABC):
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
    (:mod:`sparring.players.external_scale`)."""
    gnugo_elo: float | None = None
    """Go (``sa-mcts``): the Elo on GNU Go's scale (GNU Go 3.8 at level 1 is 1000) to play at;
    the strength index ``z`` and the search options (the play network and its rank input
    among them) come from the scale file (:mod:`sparring.players.external_scale`)."""
    scale: str | None = None
    """With ``sf_elo`` or ``gnugo_elo``: the scale file (None: the shipped
    :func:`~sparring.players.external_scale.default_scale`)."""
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
    :func:`~sparring.nn.symmetry.symmetric_evaluation`), at one network call per
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
            self.no_symmetric("the default estimator")
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
    def elo_key(self) -> str:
        """The option that asks for an Elo on an external scale (``sf_elo``, ``gnugo_elo``)."""
        return "sf_elo" if self.sf_elo is not None else "gnugo_elo"

    @abstractmethod
    def display_name(self) -> str:
        """The player's name in tables (each kind names itself)."""

    def no_symmetric(self, what: str) -> None:
        """:class:`~sparring.errors.PlayerSettingsError` when ``sym=true`` is asked of a
        search without a play network (``what`` says what it searches with)."""
        if self.symmetric:
            raise PlayerSettingsError(
                f"{self.kind}: sym=true is for a play network (model=go-play, chess-play or "
                f"a file of sparring se-train --variant play), not {what}",
                key="sym",
            )


@dataclass(frozen=True)
class HumanMCTSSettings(HumanLikeSettings):
    """``human-mcts``: PUCT with the estimator's policy and value, no strength adjustment; with
    a play network (``model=PATH,rank=R``) that network's policy and value for rank ``R``."""

    kind: ClassVar[str] = "human-mcts"
    USES_RANK: ClassVar[bool] = False
    OPTION_KEYS: ClassVar[dict[str, str]] = {
        **HumanLikeSettings.OPTION_KEYS, "sf_elo": "sf_elo", "scale": "scale", "rank": "rank",
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


@dataclass(frozen=True)
class SAMCTSSettings(HumanLikeSettings):
    """``sa-mcts``: the ``human-mcts`` search, then Wu et al.'s SA move choice with ``z``
    (given, or the ``rank``'s ``z`` from a :class:`~sparring.players.human_mcts.ZTable`).
    With a play network (``model=PATH`` of ``sparring se-train --variant play``) ``rank`` and
    ``z`` go together: the rank is then the network's input (which human moves it imitates)
    and ``z`` the strength (``sa-mcts:model=go-play,rank=9d,z=1``)."""

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
    """With ``rank``: the z-per-rank table file (None: the shipped one,
    :func:`~sparring.players.human_mcts.default_z_table`)."""

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


@dataclass(frozen=True)
class SEMCTSSettings(HumanLikeSettings):
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
    "ELO_RANGE",
    "GAMES",
    "KINDS",
    "MAX_ROLLOUTS",
    "HumanLikeSettings",
    "HumanMCTSSettings",
    "SAMCTSSettings",
    "SEInfMCTSSettings",
    "SEMCTSSettings",
    "elo_band",
    "game_ranks",
    "normalise_rank",
    "parse_human_mcts",
    "parse_sa_mcts",
    "parse_se_inf_mcts",
    "parse_se_mcts",
]
