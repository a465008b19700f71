"""Throughput benchmarks against OpenSpiel, measured in the same run.

``sparring bench`` times, per game, uniformly random playouts from the initial position
(our compiled kernels against OpenSpiel's Python loop over ``legal_actions``/``apply_action``)
and UCT simulations per second (our compiled UCT against OpenSpiel's C++ ``MCTSBot`` with a
random-rollout evaluator).  Each figure is the median of several repeats; ratios are taken
between medians measured in the same process.
"""

from __future__ import annotations

import platform
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numba as nb
import numpy as np

from sparring.games import get_game
from sparring.games.base import State
from sparring.rng import RngState, new_rng_state

if TYPE_CHECKING:
    from sparring.search.bench import BenchRow as EngineRow

OPENSPIEL_NAMES = {"connect4": "connect_four", "othello": "othello"}


@nb.njit
def _run_playouts(random_playout: Callable[..., int], initial: State, n: int, rng: RngState) -> int:
    """Play ``n`` random games from ``initial``; returns the number won by the first player."""
    first_wins = 0
    for _ in range(n):
        s = initial.copy()
        if random_playout(s, rng) == 1:
            first_wins += 1
    return first_wins


@dataclass(frozen=True)
class BenchConfig:
    """Options of ``sparring bench``."""

    games: tuple[str, ...] = ("connect4", "othello", "othello6")
    repeats: int = 3
    seconds: float = 1.0
    """Approximate duration of each timed repeat."""
    uct_simulations: int = 20000
    """Simulations of one UCT search from the initial position."""
    openspiel: bool = True


@dataclass
class BenchRow:
    """One measured quantity: our median, OpenSpiel's median (if measured), their ratio."""

    game: str
    metric: str
    ours: float
    reference: float | None
    reference_name: str
    samples: list[float] = field(default_factory=list)
    reference_samples: list[float] = field(default_factory=list)

    @property
    def ratio(self) -> float | None:
        return None if not self.reference else self.ours / self.reference


def _timed_rate(work: Callable[[int], None], count: int, repeats: int) -> list[float]:
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        work(count)
        rates.append(count / (time.perf_counter() - start))
    return rates


def _calibrate(work: Callable[[int], None], seconds: float, start: int = 16) -> int:
    """A count for ``work`` that takes about ``seconds``."""
    count = start
    while True:
        t = time.perf_counter()
        work(count)
        elapsed = time.perf_counter() - t
        if elapsed >= seconds / 4 or count > 1 << 30:
            return max(1, int(count * seconds / max(elapsed, 1e-9)))
        count *= 4


def bench_playouts(game_name: str, config: BenchConfig) -> BenchRow:
    """Random playouts per second from the initial position, ours vs OpenSpiel's Python loop."""
    game = get_game(game_name)
    initial = game.initial_state()
    rng = new_rng_state(12345)
    playout = game.kernels.random_playout

    def ours(n: int) -> None:
        _run_playouts(playout, initial, n, rng)

    ours(10)  # compile
    ours_rates = _timed_rate(ours, _calibrate(ours, config.seconds), config.repeats)
    ref_rates: list[float] = []
    ref_name = "-"
    if config.openspiel and game_name in OPENSPIEL_NAMES:
        import pyspiel

        spiel_game = pyspiel.load_game(OPENSPIEL_NAMES[game_name])
        pyrng = random.Random(12345)

        def theirs(n: int) -> None:
            for _ in range(n):
                state = spiel_game.new_initial_state()
                while not state.is_terminal():
                    state.apply_action(pyrng.choice(state.legal_actions()))

        ref_rates = _timed_rate(theirs, _calibrate(theirs, config.seconds, 4), config.repeats)
        ref_name = "OpenSpiel Python loop"
    return BenchRow(
        game_name,
        "random playouts/s",
        statistics.median(ours_rates),
        statistics.median(ref_rates) if ref_rates else None,
        ref_name,
        ours_rates,
        ref_rates,
    )


def bench_uct(game_name: str, config: BenchConfig) -> BenchRow:
    """UCT simulations per second in one search from the initial position."""
    from sparring.search.uct import uct_search

    game = get_game(game_name)
    initial = game.initial_state()
    sims = config.uct_simulations
    uct_search(game, initial, 100, new_rng_state(1))  # compile

    def ours(_: int) -> None:
        uct_search(game, initial, sims, new_rng_state(7))

    ours_rates = _timed_rate(ours, sims, config.repeats)
    ref_rates: list[float] = []
    ref_name = "-"
    if config.openspiel and game_name in OPENSPIEL_NAMES:
        import pyspiel

        spiel_game = pyspiel.load_game(OPENSPIEL_NAMES[game_name])
        evaluator = pyspiel.RandomRolloutEvaluator(1, 7)

        def theirs(_: int) -> None:
            bot = pyspiel.MCTSBot(spiel_game, evaluator, 0.5, sims, 4000, False, 7, False)
            bot.step(spiel_game.new_initial_state())

        ref_rates = _timed_rate(theirs, sims, config.repeats)
        ref_name = "OpenSpiel C++ MCTSBot, random rollouts"
    return BenchRow(
        game_name,
        "UCT simulations/s",
        statistics.median(ours_rates),
        statistics.median(ref_rates) if ref_rates else None,
        ref_name,
        ours_rates,
        ref_rates,
    )


PYTHON_RULES_SIMULATIONS = 300
"""Simulations of one search for games with Python-only rules (chess): MCTS1's 300."""


def bench_python_rules(game_name: str, config: BenchConfig) -> list[BenchRow]:
    """Games with Python-only rules (chess): capped random playouts per second (the UCT
    playout, :func:`sparring.search.pyrules.capped_playout`), UCT simulations per second and
    PUCT simulations per second with a uniform evaluator (no network: the search's own cost),
    each from the initial position, :data:`PYTHON_RULES_SIMULATIONS` simulations per search.
    No reference."""
    from sparring.search.evaluator import UniformEvaluator
    from sparring.search.puct import PUCTConfig, search
    from sparring.search.pyrules import DEFAULT_PLAYOUT_PLIES, capped_playout
    from sparring.search.uct import uct_search

    game = get_game(game_name)
    initial = game.initial_state()
    sims = PYTHON_RULES_SIMULATIONS
    playout = capped_playout(game)
    rng = new_rng_state(12345)

    def playouts(n: int) -> None:
        for _ in range(n):
            playout(initial, rng)

    def uct(_: int) -> None:
        uct_search(game, initial, sims, new_rng_state(7))

    puct_config = PUCTConfig(simulations=sims)

    def puct(_: int) -> None:
        search(game, initial, UniformEvaluator(), puct_config)

    rows = []
    for metric, work, count in (
        (f"random playouts/s (at most {DEFAULT_PLAYOUT_PLIES} plies)", playouts, 0),
        (f"UCT simulations/s ({sims}-simulation search)", uct, sims),
        (f"PUCT simulations/s (uniform evaluator, {sims} simulations)", puct, sims),
    ):
        work(10)  # warm up
        n = count or _calibrate(work, config.seconds)
        rates = _timed_rate(work, n, config.repeats)
        rows.append(BenchRow(game_name, metric, statistics.median(rates), None, "-", rates))
    return rows


def run_benchmarks(
    config: BenchConfig, progress: Callable[[str], None] | None = None
) -> list[BenchRow]:
    """All benchmarks of ``config``, in order."""
    rows = []
    for name in config.games:
        if not get_game(name).compiled:
            if progress:
                progress(f"{name}: Python-rules playouts, UCT and PUCT")
            rows.extend(bench_python_rules(name, config))
            continue
        if progress:
            progress(f"{name}: random playouts")
        rows.append(bench_playouts(name, config))
        if progress:
            progress(f"{name}: UCT")
        rows.append(bench_uct(name, config))
    return rows


def machine_description() -> str:
    """One line describing the machine the numbers come from."""
    import os

    cpu = platform.processor() or platform.machine()
    return (
        f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"numba {nb.__version__}, numpy {np.__version__}"
    )


def rows_to_markdown(rows: list[BenchRow], command: str, repeats: int) -> str:
    """A markdown section with the command, the machine and a table of the rows."""
    lines = [
        f"Command: `{command}`  ",
        f"Machine: {machine_description()}  ",
        f"Median of {repeats} repeats per figure; one core (single thread) on both sides.",
        "",
        "| game | metric | sparring | reference | reference value | ratio |",
        "| --- | --- | ---: | --- | ---: | ---: |",
    ]
    for r in rows:
        ref = f"{r.reference:,.0f}" if r.reference else "-"
        ratio = f"{r.ratio:.1f}x" if r.ratio else "-"
        lines.append(
            f"| {r.game} | {r.metric} | {r.ours:,.0f} | {r.reference_name} | {ref} | {ratio} |"
        )
    return "\n".join(lines) + "\n"


def benchmark_search_engine(
    game_name: str = "connect4",
    blocks: int = 3,
    channels: int = 64,
    backends: Sequence[str] = ("onnx", "torch"),
    batches: Sequence[int] = (64, 256),
    single_simulations: int = 800,
    batch_simulations: int = 50,
    threads: int = 1,
    seconds: float = 2.0,
    seed: int = 0,
    repeats: int = 3,
) -> list[EngineRow]:
    """The standard engine benchmark on a random-weight ``blocks x channels`` network.

    For each backend: single-game batch-1 search (``single_simulations``), then for each
    batch size ``B`` the network alone at batch ``B`` and a search of ``B`` games at once
    (``batch_simulations`` each, one leaf per tree per batch).  Every number is the best of
    ``repeats`` runs.
    """
    from sparring.nn.evaluators import OnnxEvaluator, TorchEvaluator
    from sparring.nn.model import NetworkConfig, build_model
    from sparring.search.bench import benchmark_network, benchmark_search
    from sparring.search.evaluator import Evaluator

    game = get_game(game_name)
    model = build_model(NetworkConfig.for_game(game, blocks=blocks, channels=channels), seed)
    rows: list[EngineRow] = []
    for backend in backends:
        evaluator: Evaluator
        if backend == "onnx":
            evaluator = OnnxEvaluator(model, threads=threads)
        elif backend == "torch":
            evaluator = TorchEvaluator(model, threads=threads)
        else:
            raise ValueError(f"unknown backend {backend!r}; use onnx or torch")
        rows.append(benchmark_network(game, evaluator, 1, seconds, backend, seed, repeats))
        rows.append(
            benchmark_search(game, evaluator, 1, single_simulations, 1, backend, seed, repeats)
        )
        for batch in batches:
            rows.append(benchmark_network(game, evaluator, batch, seconds, backend, seed, repeats))
            rows.append(
                benchmark_search(
                    game, evaluator, batch, batch_simulations, 1, backend, seed, repeats
                )
            )
    return rows


def engine_markdown(rows: Sequence[EngineRow], command: str, repeats: int, threads: int = 1) -> str:
    """A markdown table of the engine benchmark with search / network ratios per batch."""
    network = {(r.backend, r.batch): r for r in rows if r.kind == "network"}
    lines = [
        f"Command: `{command}`  ",
        f"Machine: {machine_description()}  ",
        f"Random-weight 3-block 64-channel Connect4 network, {threads} thread(s); "
        f"best of {repeats} repeats.",
        "Search rows: `games` searched at once, one leaf per tree per network batch; the ratio",
        "compares positions evaluated per second by the search with the network alone at the",
        "same batch size (terminal leaves need no evaluation, so simulations/s can be higher).",
        "",
        "| backend | kind | games | batch | simulations/s | positions evaluated/s "
        "| search / network |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        ratio = "-"
        ref = network.get((r.backend, r.batch))
        if r.kind != "network" and ref is not None and ref.evaluations_per_s > 0:
            ratio = f"{100 * r.evaluations_per_s / ref.evaluations_per_s:.0f}%"
        sims = f"{r.rate:,.0f}" if r.kind != "network" else "-"
        lines.append(
            f"| {r.backend} | {r.kind} | {r.games} | {r.batch} | {sims} | "
            f"{r.evaluations_per_s:,.0f} | {ratio} |"
        )
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class SelfPlayRow:
    """Self-play throughput of one game under its training settings."""

    game: str
    blocks: int
    channels: int
    simulations: int
    parallel_games: int
    games: int
    """Games played in the timed run."""
    positions: int
    """Moves played (training positions before augmentation)."""
    seconds: float

    @property
    def games_per_hour(self) -> float:
        return 3600.0 * self.games / self.seconds

    @property
    def positions_per_second(self) -> float:
        return self.positions / self.seconds


def bench_selfplay(game_name: str, games: int = 30, threads: int = 1, seed: int = 0) -> SelfPlayRow:
    """Time ``games`` self-play games of ``game_name`` as ``sparring train`` plays them.

    The settings are the training defaults for the game (AlphaDDA Table A1's ``N_sim``,
    ``T_opening`` and blocks; :class:`~sparring.training.config.TrainConfig`'s channels and
    parallel games), with a random-weight network: the figure measures the machinery, not a
    trained network's game lengths.  One untimed game first compiles the kernels.
    """
    from sparring.nn.evaluators import make_evaluator
    from sparring.nn.model import NetworkConfig, build_model
    from sparring.training.config import TrainConfig
    from sparring.training.selfplay import SelfPlaySettings, play_games

    game = get_game(game_name)
    config = TrainConfig.for_game(game_name, threads=threads, seed=seed)
    model = build_model(
        NetworkConfig.for_game(game, blocks=config.blocks, channels=config.channels), seed
    )
    evaluator = make_evaluator(model, backend=config.backend, threads=threads)
    settings = SelfPlaySettings.from_config(config)
    rng = np.random.default_rng(seed)
    play_games(game, evaluator, settings, 1, rng)
    start = time.perf_counter()
    batch = play_games(game, evaluator, settings, games, rng)
    seconds = time.perf_counter() - start
    return SelfPlayRow(
        game_name,
        config.blocks,
        config.channels,
        config.simulations,
        config.parallel_games,
        games,
        int(sum(batch.lengths)),
        seconds,
    )


def selfplay_markdown(rows: Sequence[SelfPlayRow], command: str, threads: int) -> str:
    """A markdown table of self-play throughput."""
    lines = [
        f"Command: `{command}`  ",
        f"Machine: {machine_description()}  ",
        f"Self-play as `sparring train` plays it (training defaults per game, random-weight "
        f"network, {threads} thread(s)); one timed run per game.",
        "",
        "| game | network | simulations/move | games in flight | games | moves/s "
        "| self-play games/hour |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        lines.append(
            f"| {r.game} | {r.blocks}x{r.channels} | {r.simulations} | {r.parallel_games} "
            f"| {r.games} | {r.positions_per_second:,.0f} | {r.games_per_hour:,.0f} |"
        )
    return "\n".join(lines) + "\n"
