"""The typed configuration of ``sparring train`` (AlphaDDA app. 1.3, Table A1).

Defaults follow Table A1 where a CPU can afford it; the fields that differ (network width,
batch size and learning rate) say so.  A TOML file may set any field; unknown keys are an
error that names the key.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sparring.configfile import check_at_least, check_fields, dataclass_from_mapping, read_toml
from sparring.errors import ConfigError, SparringError
from sparring.nn.evaluators import EVALUATOR_BACKENDS
from sparring.search.hooks import DEFAULT_C_PUCT

TABLE_A1: dict[str, dict[str, Any]] = {
    "connect4": {
        "iterations": 600,
        "games_per_iteration": 30,
        "simulations": 200,
        "opening_moves": 4,
        "temperature": 50.0,
        "queue_size": 20000,
        "blocks": 3,
    },
    "othello6": {
        "iterations": 600,
        "games_per_iteration": 10,
        "simulations": 200,
        "opening_moves": 4,
        "temperature": 20.0,
        "queue_size": 20000,
        "blocks": 3,
    },
    "othello": {
        "iterations": 700,
        "games_per_iteration": 10,
        "simulations": 400,
        "opening_moves": 6,
        "temperature": 40.0,
        "queue_size": 50000,
        "blocks": 5,
    },
}
"""The per-game rows of AlphaDDA Table A1 (``N_iter``, ``N_self``, ``N_sim``, ``T_opening``,
``tau``, ``N_queue``, residual blocks)."""

DEVICE_NAME = re.compile(r"cpu|cuda(:[0-9]+)?")
"""The devices a run may name: the CPU or a PyTorch CUDA device."""
SEARCH_VARIANTS = ("puct", "gumbel", "forced")
"""The values of :attr:`TrainConfig.search_variant`."""

VALUE_TARGETS = ("outcome", "solver")
"""The values of :attr:`TrainConfig.value_targets`."""


@dataclass(frozen=True)
class TrainConfig:
    """Everything that defines an AlphaZero training run."""

    game: str
    """Registered game name."""
    iterations: int = 600
    """``N_iter``: self-play / augmentation / learning cycles (Table A1)."""
    games_per_iteration: int = 30
    """``N_self``: self-play games per iteration (Table A1)."""
    simulations: int = 200
    """``N_sim``: PUCT simulations per self-play move (Table A1)."""
    c_puct: float = DEFAULT_C_PUCT
    """``C_puct`` of Eq. 8 (Table A1)."""
    opening_moves: int = 4
    """``T_opening``: moves sampled with Eq. 9 before playing the most visited move."""
    temperature: float = 50.0
    """``tau`` of Eq. 9, ``p(a) ~ exp(N(s,a) / tau)`` over raw visit counts (Table A1)."""
    dirichlet_alpha: float = 1.0
    """Root Dirichlet noise concentration (not given in the paper; AlphaZero used ~10 / the
    typical number of legal moves)."""
    noise_fraction: float = 0.2
    """``epsilon``: weight of the root noise (Table A1: 0.2)."""
    search_variant: str = "puct"
    """The self-play search (one of :data:`SEARCH_VARIANTS`): ``puct``, AlphaZero's search
    with root Dirichlet noise and the visit counts as the policy target (AlphaDDA app. 1.3);
    ``gumbel``, Gumbel AlphaZero (Danihelka et al. 2022: Gumbel-top-k root sampling with
    sequential halving, the completed-Q policy as the target, the selected action played on
    every ply; Gumbel noise replaces the Dirichlet noise and Eq. 9's opening draws);
    ``forced``, KataGo's forced playouts with policy target pruning (Wu 2019), on top of
    ``puct``.  Both variants are root plans of the search, which take one simulation per tree
    and network batch: ``leaves_per_batch`` has no effect on their full searches."""
    gumbel_considered: int = 16
    """``gumbel``: actions ``m`` sampled at the root by Gumbel-top-k (the paper's 16; at most
    the legal moves are used)."""
    gumbel_c_visit: float = 50.0
    """``gumbel``: ``c_visit`` of ``sigma(q) = (c_visit + max_b N(b)) c_scale q`` (paper
    eq. 8: 50)."""
    gumbel_c_scale: float = 1.0
    """``gumbel``: ``c_scale`` of the same ``sigma`` (paper: 1.0)."""
    gumbel_opening_only: bool = False
    """``gumbel``: play the Gumbel-sampled move (the sequential halving's winner) only for the
    first ``opening_moves`` plies, and afterwards the most visited move with the largest
    improved-policy weight, no Gumbel draw in the choice (as AlphaZero samples by Eq. 9 only
    in the opening).  False (the paper): the sampled move on every ply."""
    forced_k: float = 2.0
    """``forced``: ``k`` of KataGo's forced playouts ``n_forced(c) = sqrt(k P(c) sum_b N(b))``
    (Wu 2019: 2)."""
    full_search_fraction: float = 1.0
    """Playout cap randomization (KataGo, Wu 2019), ``p``: each move is, with probability
    ``p``, a full search of ``simulations`` whose position becomes a training sample, else a
    fast search of ``fast_simulations`` without noise whose position is not recorded.  1.0
    (default): every move is a full, recorded search (off: AlphaDDA's self-play)."""
    fast_simulations: int = 0
    """Playout cap randomization, ``n``: simulations of the fast searches; with
    ``full_search_fraction < 1`` it must be in ``[1, simulations)``; otherwise unused."""
    finish_games: bool = False
    """Self-play under the game's finishing rules (Go: pass to win, no filling of one's own
    single-point eyes, no voluntary pass; :func:`sparring.training.selfplay.finishing_allowed`):
    the moves they rule out are neither played nor in the recorded targets.  Not in AlphaDDA
    (whose games have no pass); for Go, whose young self-play otherwise ends in early passes.
    Games without finishing rules ignore it."""
    value_targets: str = "outcome"
    """What the value head learns for a recorded position: ``outcome`` (AlphaZero and the paper: the
    game's result for the player to move) or ``solver`` (Connect4 only; **not AlphaZero**, a
    labelled comparison of the training-options study: the exact solver's value of the position for
    the player to move, +1 won, 0 drawn, -1 lost by bitbully, whatever the game's result; it asks
    whether the network can learn Connect4's values at all when self-play's results do not teach
    them).  The policy targets stay the search's."""
    queue_size: int = 20000
    """``N_queue``: positions kept for learning, augmented images included (Table A1)."""
    epochs: int = 1
    """``N_epoch``: passes over the queue per iteration (Table A1: 1)."""
    learn_precision: str = "float32"
    """Arithmetic of the learning steps: ``float32``, or ``bfloat16`` (PyTorch autocast:
    convolutions and matrix products in bfloat16, weights, optimiser and losses in float32;
    1.7x faster steps on this repository's CPU, which has AVX-512 BF16; BENCHMARKS.md)."""
    learn_fraction: float = 1.0
    """Share of each pass's mini-batches that are learned (``(0, 1]``; at least one): 1 (Table
    A1) passes over the whole queue every iteration; less learns from a random part of it,
    for fewer SGD steps per new sample (the replay ratio), e.g. 0.25 with playout cap
    randomization at ``p = 0.25``, whose iterations record a quarter of the samples."""
    batch_size: int = 256
    """Mini-batch size (Table A1: 2048; smaller on a CPU)."""
    learning_rate: float = 0.02
    """SGD learning rate (Table A1: 0.2 at batch 2048; scaled down with the batch)."""
    learning_rate_drops: tuple[int, ...] = ()
    """Iterations after which the learning rate is multiplied by ``learning_rate_factor``
    (not in Table A1, whose rate is constant: a step schedule lets a short CPU run settle).
    A resumed run may change it."""
    learning_rate_factor: float = 0.1
    """Multiplier applied at each of ``learning_rate_drops``."""
    momentum: float = 0.9
    """SGD momentum (Table A1)."""
    weight_decay: float = 1e-4
    """L2 weight decay (Table A1)."""
    blocks: int = 3
    """Residual blocks (Table A1: 3 for Connect4 and 6x6 Othello, 5 for Othello)."""
    channels: int = 64
    """Filters per convolution (Table A1: 256; 64 keeps CPU self-play fast)."""
    parallel_games: int = 30
    """Self-play games searched at once, their leaves evaluated in one network batch."""
    leaves_per_batch: int = 1
    """Leaves per tree per network batch (virtual loss when > 1)."""
    eval_every: int = 10
    """Evaluate against the baselines every this many iterations (0: never)."""
    eval_games: int = 20
    """Games against each evaluation opponent (colours alternate)."""
    eval_opponents: tuple[str, ...] = ("mcts1", "minimax1")
    """Player specs of the evaluation opponents."""
    checkpoint_every: int = 1
    """Write the resumable checkpoint every this many iterations."""
    snapshot_every: int = 0
    """Keep a copy of the network as ``snapshots/iter-NNNN.pt`` every this many iterations
    (0: none), for curves of strength against training time (a resumed run may change it)."""
    seed: int = 0
    """Seed of everything random in the run."""
    threads: int = 2
    """PyTorch / ONNX Runtime threads."""
    backend: str = "auto"
    """Self-play evaluator: ``auto``, ``torch``, ``onnx``, or ``onnx-int8`` (ONNX Runtime in
    int8 after static quantization on random positions: about 3 times faster on a CPU with
    VNNI, slightly different outputs; see :func:`sparring.nn.evaluators.quantize_onnx`)."""
    device: str = "cpu"
    """Where the network learns and where self-play evaluates it: ``cpu``, or a PyTorch CUDA
    device (``cuda``, ``cuda:1``; self-play then uses PyTorch there whatever ``backend``
    says, unless ``selfplay_device`` keeps it on the CPU).  A resumed run may change it (GPU
    arithmetic is not bit-identical to the CPU's)."""
    selfplay_device: str = ""
    """Where self-play (and the run's evaluation games) evaluate the network, when that is not
    where it learns: empty (the default) is ``device``; ``cpu`` keeps self-play on the CPU
    with ``backend`` (an int8 network in worker processes on many cores, say) while the
    network learns on a GPU ``device``.  A resumed run may change it."""

    def __post_init__(self) -> None:
        check_fields(self, "train config")
        positive = (
            "iterations",
            "games_per_iteration",
            "simulations",
            "queue_size",
            "epochs",
            "batch_size",
            "blocks",
            "channels",
            "parallel_games",
            "leaves_per_batch",
            "checkpoint_every",
            "threads",
            "gumbel_considered",
        )
        check_at_least(self, "train config", positive, 1)
        if self.temperature <= 0 or self.learning_rate <= 0 or self.dirichlet_alpha <= 0:
            raise ConfigError(
                "train config: temperature, learning_rate, dirichlet_alpha must be > 0"
            )
        if not 0 < self.learning_rate_factor <= 1:
            raise ConfigError("train config: learning_rate_factor must be in (0, 1]")
        if any(i < 1 for i in self.learning_rate_drops):
            raise ConfigError("train config: learning_rate_drops must be iterations >= 1")
        if self.learn_precision not in ("float32", "bfloat16"):
            raise ConfigError(
                "train config: learn_precision must be float32 or bfloat16, "
                f"not {self.learn_precision!r}",
                "learn_precision",
            )
        if not 0 < self.learn_fraction <= 1:
            raise ConfigError("train config: learn_fraction must be in (0, 1]", "learn_fraction")
        if self.value_targets not in VALUE_TARGETS:
            raise ConfigError(
                f"train config: value_targets must be one of {', '.join(VALUE_TARGETS)}, "
                f"not {self.value_targets!r}",
                "value_targets",
            )
        if self.value_targets == "solver" and self.game != "connect4":
            raise ConfigError(
                f"train config: value_targets = 'solver' needs an exact solver: Connect4 only, "
                f"not {self.game}",
                "value_targets",
            )
        if not 0 <= self.noise_fraction <= 1:
            raise ConfigError("train config: noise_fraction must be in [0, 1]", "noise_fraction")
        nonnegative = (
            "opening_moves",
            "eval_every",
            "eval_games",
            "snapshot_every",
            "seed",
            "c_puct",
            "weight_decay",
        )
        check_at_least(self, "train config", nonnegative, 0)
        if not 0 <= self.momentum < 1:
            raise ConfigError("train config: momentum must be in [0, 1)", "momentum")
        if self.backend not in EVALUATOR_BACKENDS:
            raise ConfigError(f"train config: unknown backend {self.backend!r}", "backend")
        if not DEVICE_NAME.fullmatch(self.device):
            raise ConfigError(
                f"train config: device must be cpu, cuda or cuda:N, not {self.device!r}",
                "device",
            )
        if self.selfplay_device and not DEVICE_NAME.fullmatch(self.selfplay_device):
            raise ConfigError(
                "train config: selfplay_device must be empty (the device), cpu, cuda or "
                f"cuda:N, not {self.selfplay_device!r}",
                "selfplay_device",
            )
        self._check_search_options()

    @property
    def play_device(self) -> str:
        """Where self-play evaluates the network: ``selfplay_device``, or ``device``."""
        return self.selfplay_device or self.device

    def _check_search_options(self) -> None:
        """The checks of the self-play search options (variant, Gumbel, forced playouts,
        playout cap randomization)."""
        if self.search_variant not in SEARCH_VARIANTS:
            raise ConfigError(
                f"train config: unknown search_variant {self.search_variant!r} "
                f"(known: {', '.join(SEARCH_VARIANTS)})",
                "search_variant",
            )
        check_at_least(self, "train config", ("gumbel_c_visit", "forced_k"), 0)
        if self.gumbel_c_scale <= 0:
            raise ConfigError("train config: gumbel_c_scale must be > 0", "gumbel_c_scale")
        if not 0 < self.full_search_fraction <= 1:
            raise ConfigError(
                "train config: full_search_fraction must be in (0, 1]", "full_search_fraction"
            )
        check_at_least(self, "train config", ("fast_simulations",), 0)
        if self.full_search_fraction < 1 and not 1 <= self.fast_simulations < self.simulations:
            raise ConfigError(
                "train config: with full_search_fraction < 1, fast_simulations must be >= 1 "
                f"and < simulations ({self.simulations})",
                "fast_simulations",
            )

    def check_opponents(self) -> None:
        """Raise :class:`ConfigError` (``key="eval_opponents"``) unless every evaluation
        opponent is a player spec that can play ``game``.  Called when a run is set up (the
        ``train`` command, :class:`~sparring.training.trainer.Trainer`), not hours later at the
        first evaluation; the player kinds must be registered (``import sparring.kinds``), as
        the evaluation needs them too."""
        if not self.eval_opponents or self.eval_every == 0:
            return
        from sparring.games import get_game
        from sparring.players import make_player

        game = get_game(self.game)
        for spec in self.eval_opponents:
            try:
                make_player(spec, game, 0)
            except SparringError as exc:
                raise ConfigError(
                    f"train config: eval_opponents: {exc}", "eval_opponents"
                ) from None

    @classmethod
    def for_game(cls, game: str, **overrides: Any) -> TrainConfig:
        """Table A1's settings for ``game`` (where listed), then ``overrides``."""
        values: dict[str, Any] = dict(TABLE_A1.get(game, {}))
        values.update(overrides)
        return cls.from_mapping({"game": game, **values})

    @classmethod
    def from_mapping(cls, data: dict[str, Any]) -> TrainConfig:
        """Build from a mapping; unknown keys raise :class:`ConfigError` naming the key."""
        return dataclass_from_mapping(
            cls,
            data,
            "train config",
            convert={"eval_opponents": tuple, "learning_rate_drops": tuple},
        )

    @classmethod
    def from_toml(cls, path: Path, game: str, **overrides: Any) -> TrainConfig:
        """Table A1 defaults for ``game``, then the file's keys, then ``overrides``."""
        data = read_toml(path, game)
        data.pop("game", None)
        values: dict[str, Any] = dict(TABLE_A1.get(game, {}))
        values.update(data)
        values.update(overrides)
        return cls.from_mapping({"game": game, **values})

    def learning_rate_at(self, iteration: int) -> float:
        """The learning rate of iteration ``iteration`` (1-based): the base rate times
        ``learning_rate_factor`` for every drop at an earlier iteration."""
        drops = sum(1 for d in self.learning_rate_drops if d < iteration)
        return self.learning_rate * self.learning_rate_factor**drops

    def to_mapping(self) -> dict[str, Any]:
        """The config as plain data (JSON/TOML friendly)."""
        data = dataclasses.asdict(self)
        data["eval_opponents"] = list(self.eval_opponents)
        data["learning_rate_drops"] = list(self.learning_rate_drops)
        return data
