"""The training options: search variants (Gumbel AlphaZero, KataGo's forced
playouts with policy target pruning), playout cap randomization, the per-iteration cost
counters, snapshots and CPU time, and exact resume of the new options after ``kill -9``."""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

pytest.importorskip("torch")

import torch
from tests.test_puct import IntegerEvaluator
from tests.test_training import TINY

import sparring.training.selfplay as selfplay
from sparring.errors import ConfigError, IncompatibleError
from sparring.games import get_game
from sparring.games.base import Game, Outcome, State
from sparring.nn.model import load_model
from sparring.rundir import read_log
from sparring.search.evaluator import Evaluator, UniformEvaluator
from sparring.search.puct import PUCTConfig, SearchResult, search_batch
from sparring.session import advance
from sparring.training.config import TrainConfig
from sparring.training.replay import ReplayQueue
from sparring.training.selfplay import SelfPlaySettings, play_games
from sparring.training.trainer import Trainer

C4 = get_game("connect4")
TTT = get_game("tictactoe")
ROOT = Path(__file__).resolve().parents[1]


def _settings(**overrides: Any) -> SelfPlaySettings:
    """Self-play settings of a small Connect4 config with ``overrides``."""
    base: dict[str, Any] = {"simulations": 12, "parallel_games": 3, "opening_moves": 4}
    return SelfPlaySettings.from_config(TrainConfig.for_game("connect4", **(base | overrides)))


class _SearchLog:
    """Wraps :func:`search_batch` in the self-play module: records every call."""

    def __init__(self) -> None:
        self.calls: list[tuple[PUCTConfig, list[State], list[SearchResult]]] = []

    def __call__(
        self,
        game: Game,
        states: Sequence[State],
        evaluator: Evaluator,
        config: PUCTConfig | None = None,
        rng: np.random.Generator | None = None,
    ) -> list[SearchResult]:
        assert config is not None
        results = search_batch(game, states, evaluator, config, rng)
        self.calls.append((config, list(states), results))
        return results

    def searched(self, simulations: int) -> list[tuple[State, SearchResult]]:
        """The (position, result) of every search of ``simulations`` simulations."""
        return [
            (s, r)
            for c, states, results in self.calls
            if c.simulations == simulations
            for s, r in zip(states, results, strict=True)
        ]


def _rows(a: npt.NDArray[Any]) -> list[bytes]:
    """The rows of ``a`` as sorted bytes (a multiset of samples, order-free)."""
    return sorted(np.ascontiguousarray(row).tobytes() for row in a)


def _todays_play_games(
    game: Game,
    evaluator: Evaluator,
    settings: SelfPlaySettings,
    games: int,
    rng: np.random.Generator,
) -> tuple[list[Any], list[Any], list[float]]:
    """Self-play as it was before the options (commit dac9772's ``play_games``), the
    reference of the default path."""
    planes, pis, zs = [], [], []
    started = 0
    live: list[tuple[State, list[Any]]] = []
    while started < games or live:
        while started < games and len(live) < settings.parallel_games:
            live.append((game.initial_state(), []))
            started += 1
        searches = search_batch(game, [s for s, _ in live], evaluator, settings.search, rng)
        still = []
        for (state, history), result in zip(live, searches, strict=True):
            history.append((game.encode(state), result.policy(game.num_actions), result.to_move))
            if game.ply(state) < settings.opening_moves:
                move = selfplay.opening_move(result, settings.temperature, rng)
            else:
                move = selfplay.best_move(result, rng)
            child, outcome = advance(game, state, move)
            if outcome is Outcome.ONGOING:
                still.append((child, history))
                continue
            for p, pi, mover in history:
                planes.append(p)
                pis.append(pi)
                zs.append(2.0 * outcome.score_for(mover) - 1.0)
        live = still
    return planes, pis, zs


# ---- config ------------------------------------------------------------------------------


def test_config_validates_the_options() -> None:
    with pytest.raises(ConfigError, match="unknown search_variant 'gumble'") as info:
        TrainConfig.for_game("connect4", search_variant="gumble")
    assert info.value.key == "search_variant"
    bad: list[tuple[dict[str, Any], str]] = [
        ({"full_search_fraction": 0.5}, "fast_simulations"),  # n = 0
        ({"full_search_fraction": 0.5, "fast_simulations": 200}, "fast_simulations"),  # n = N
        ({"full_search_fraction": 0.0, "fast_simulations": 20}, "full_search_fraction"),
        ({"full_search_fraction": 1.5}, "full_search_fraction"),
        ({"fast_simulations": -1}, "fast_simulations"),
        ({"gumbel_considered": 0}, "gumbel_considered"),
        ({"gumbel_c_scale": 0.0}, "gumbel_c_scale"),
        ({"gumbel_c_visit": -1.0}, "gumbel_c_visit"),
        ({"forced_k": -0.5}, "forced_k"),
    ]
    for overrides, key in bad:
        with pytest.raises(ConfigError) as info:
            TrainConfig.for_game("connect4", **overrides)
        assert info.value.key == key, overrides
        assert key in str(info.value)
    ok = TrainConfig.for_game("connect4", full_search_fraction=0.25, fast_simulations=199)
    assert (ok.full_search_fraction, ok.fast_simulations) == (0.25, 199)
    mapping = TrainConfig.for_game("connect4", search_variant="forced").to_mapping()
    assert {k: mapping[k] for k in ("search_variant", "forced_k", "full_search_fraction")} == {
        "search_variant": "forced",
        "forced_k": 2.0,
        "full_search_fraction": 1.0,
    }
    assert TrainConfig.from_mapping(mapping) == TrainConfig.for_game(
        "connect4", search_variant="forced"
    )


def test_settings_of_each_variant() -> None:
    default = _settings()
    assert default.search == PUCTConfig(
        simulations=12, c_puct=1.25, dirichlet_alpha=1.0, noise_fraction=0.2
    )
    assert (default.fast_search, default.full_search_fraction, default.play_selected) == (
        None,
        1.0,
        False,
    )
    from sparring.search.forced import ForcedPlayouts
    from sparring.search.gumbel import GumbelRoot

    gumbel = _settings(
        search_variant="gumbel",
        gumbel_considered=5,
        gumbel_c_visit=30.0,
        gumbel_c_scale=0.5,
        full_search_fraction=0.5,
        fast_simulations=3,
    )
    assert gumbel.search.root_plan == GumbelRoot(5, 30.0, 0.5, noise=True)
    assert gumbel.search.dirichlet_alpha is None and gumbel.search.simulations == 12
    assert gumbel.fast_search is not None
    assert gumbel.fast_search.root_plan == GumbelRoot(5, 30.0, 0.5, noise=False)
    assert gumbel.fast_search.dirichlet_alpha is None and gumbel.fast_search.simulations == 3
    assert gumbel.play_selected
    forced = _settings(
        search_variant="forced", forced_k=3.0, full_search_fraction=0.5, fast_simulations=3
    )
    assert forced.search.root_plan == ForcedPlayouts(k=3.0, prune=True)
    assert forced.search.dirichlet_alpha == 1.0 and not forced.play_selected
    assert forced.fast_search == PUCTConfig(simulations=3, c_puct=1.25)  # plain, no noise


# ---- self-play ---------------------------------------------------------------------------


@pytest.mark.parametrize("game", [C4, TTT])
def test_default_self_play_gives_todays_samples(game: Game) -> None:
    config = TrainConfig.for_game(game.name, simulations=10, parallel_games=3)
    settings = SelfPlaySettings.from_config(config)
    evaluator = IntegerEvaluator(game)
    rng = np.random.default_rng(5)
    batch = play_games(game, evaluator, settings, 5, rng)
    reference_rng = np.random.default_rng(5)
    planes, pis, zs = _todays_play_games(game, evaluator, settings, 5, reference_rng)
    assert np.array_equal(batch.planes, np.stack(planes))
    assert np.array_equal(batch.pi, np.stack(pis))
    assert np.array_equal(batch.z, np.asarray(zs, dtype=np.float32))
    assert rng.random() == reference_rng.random()  # the same draws, no more
    assert batch.moves == batch.full_searches == len(batch.z) == sum(batch.lengths)
    assert batch.simulations == 10 * batch.moves
    # p = 1 ignores fast_simulations: the same samples
    same = SelfPlaySettings.from_config(
        TrainConfig.for_game(game.name, simulations=10, parallel_games=3, fast_simulations=4)
    )
    again = play_games(game, evaluator, same, 5, np.random.default_rng(5))
    assert np.array_equal(again.pi, batch.pi) and np.array_equal(again.planes, batch.planes)


def test_playout_cap_randomization_records_only_the_full_searches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    log = _SearchLog()
    monkeypatch.setattr(selfplay, "search_batch", log)
    settings = _settings(full_search_fraction=0.5, fast_simulations=3)
    batch = play_games(C4, IntegerEvaluator(C4), settings, 4, np.random.default_rng(3))
    full = log.searched(12)
    fast = log.searched(3)
    assert len(full) + len(fast) == batch.moves == sum(batch.lengths)
    assert len(batch.z) == batch.full_searches == len(full) < batch.moves
    assert len(fast) > 0
    assert batch.simulations == 12 * len(full) + 3 * len(fast)
    # the recorded positions and targets are exactly those of the full searches
    assert _rows(batch.planes) == _rows(np.stack([C4.encode(s) for s, _ in full]))
    assert _rows(batch.pi) == _rows(np.stack([r.policy(C4.num_actions) for _, r in full]))
    for config, _, results in log.calls:
        if config.simulations == 3:  # fast: no noise, no root plan
            assert config.dirichlet_alpha is None and config.root_plan is None
            assert all(np.array_equal(r.priors, r.search_priors) for r in results)
        else:
            assert config.dirichlet_alpha == 1.0
    # the split is drawn first at each step, one number per live game, from the run's rng:
    # replaying those draws (and the searches, which consume the same numbers) gives it again
    again = play_games(C4, IntegerEvaluator(C4), settings, 4, np.random.default_rng(3))
    assert np.array_equal(again.pi, batch.pi) and again.moves == batch.moves


def test_playout_cap_split_follows_the_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    # One game at a time and fast searches that draw nothing: the k-th search of the game is
    # full exactly when the k-th split draw is < p, with the full searches' noise draws and
    # the move draws interleaved; replay those with a second generator.
    log = _SearchLog()
    monkeypatch.setattr(selfplay, "search_batch", log)
    settings = _settings(parallel_games=1, full_search_fraction=0.3, fast_simulations=2)
    batch = play_games(C4, UniformEvaluator(), settings, 1, np.random.default_rng(8))
    # the game's outcome labels its recorded positions (in the order they were searched)
    full = log.searched(12)
    assert 0 < len(full) == len(batch.z) < batch.moves
    outcome = batch.results[0]
    assert batch.z.tolist() == [2.0 * outcome.score_for(r.to_move) - 1.0 for _, r in full]
    replay = np.random.default_rng(8)
    for config, states, results in log.calls:
        assert len(states) == 1
        full = replay.random(1)[0] < 0.3
        assert (config.simulations == 12) == full
        if full:
            replay.dirichlet(np.full(len(results[0].moves), 1.0))
        if C4.ply(states[0]) < settings.opening_moves:
            replay.random()  # Eq. 9's draw (Generator.choice with p: one uniform number)
        else:
            replay.integers(len(results[0].best_moves()))


def test_gumbel_records_the_improved_policy_and_plays_the_selected_move(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    log = _SearchLog()
    monkeypatch.setattr(selfplay, "search_batch", log)
    played: list[tuple[bytes, int]] = []

    def advance_logged(game: Game, state: State, move: int) -> tuple[State, Outcome]:
        played.append((np.asarray(state).tobytes(), move))
        return advance(game, state, move)

    monkeypatch.setattr(selfplay, "advance", advance_logged)
    settings = _settings(
        search_variant="gumbel",
        simulations=8,
        gumbel_considered=4,
        full_search_fraction=0.5,
        fast_simulations=2,
    )
    batch = play_games(C4, IntegerEvaluator(C4), settings, 3, np.random.default_rng(2))
    full = log.searched(8)
    improved = []
    unvisited_mass = 0.0
    differs = 0
    for _, result in full:
        assert result.improved_policy is not None and result.selected_move is not None
        pi = np.zeros(C4.num_actions, dtype=np.float32)
        pi[result.moves] = result.improved_policy
        improved.append(pi)
        # no Dirichlet noise: the search used the network's priors
        assert np.array_equal(result.priors, result.search_priors)
        unvisited_mass += float(result.improved_policy[result.visits == 0].sum())
        differs += not np.allclose(result.improved_policy, result.visits / result.visits.sum())
    assert _rows(batch.pi) == _rows(np.stack(improved))
    assert unvisited_mass > 0  # completed Q gives unvisited children a share
    assert differs > len(full) // 2  # not the visit counts
    for config, _, _ in log.calls:
        assert config.dirichlet_alpha is None
    # every ply (full or fast, in the opening too) plays the search's selected move
    chosen = [
        (np.asarray(s).tobytes(), r.selected_move)
        for _, states, results in log.calls
        for s, r in zip(states, results, strict=True)
    ]
    assert len(played) == batch.moves
    assert sorted(played) == sorted(chosen)


def test_forced_playouts_prune_the_policy_target(monkeypatch: pytest.MonkeyPatch) -> None:
    log = _SearchLog()
    monkeypatch.setattr(selfplay, "search_batch", log)
    settings = _settings(search_variant="forced", simulations=24, forced_k=2.0)
    batch = play_games(C4, IntegerEvaluator(C4), settings, 3, np.random.default_rng(4))
    full = log.searched(24)
    assert len(full) == batch.moves == len(batch.z)
    targets = []
    pruned = 0
    for _, result in full:
        assert result.improved_policy is not None
        pi = result.training_policy(C4.num_actions)
        targets.append(pi)
        pruned += int(np.count_nonzero((result.visits > 0) & (pi[result.moves] == 0)))
        assert np.all(pi[result.moves][result.visits == 0] == 0)
    assert _rows(batch.pi) == _rows(np.stack(targets))
    assert pruned > 0  # visited children removed from the target
    assert not np.array_equal(
        _rows(batch.pi), _rows(np.stack([r.policy(C4.num_actions) for _, r in full]))
    )


# ---- trainer -----------------------------------------------------------------------------


def test_log_counts_snapshots_and_cpu_seconds(tmp_path: Path) -> None:
    options = TINY | {"full_search_fraction": 0.5, "fast_simulations": 2, "snapshot_every": 1}
    config = TrainConfig.for_game("connect4", **options)
    Trainer(config, tmp_path / "run").run(2)
    records = read_log(tmp_path / "run" / "log.jsonl")
    assert [r["iteration"] for r in records] == [1, 2]
    for r in records:
        assert r["positions"] == r["full_searches"] < r["moves"]
        assert r["simulations"] == 8 * r["full_searches"] + 2 * (r["moves"] - r["positions"])
        assert r["mean_length"] == r["moves"] / 2
    cpu = [r["cpu_seconds"] for r in records]
    assert 0 < cpu[0] < cpu[1]
    snapshots = sorted(p.name for p in (tmp_path / "run" / "snapshots").iterdir())
    assert snapshots == ["iter-0001.pt", "iter-0002.pt"]
    assert load_model(tmp_path / "run" / "snapshots" / "iter-0002.pt") is not None
    # snapshot_every may change on resume; the search options may not
    every2 = TrainConfig.for_game("connect4", **(options | {"snapshot_every": 2}))
    resumed = Trainer(every2, tmp_path / "run")
    assert resumed.state.cpu_seconds == cpu[1]
    resumed.run(4)
    snapshots = sorted(p.name for p in (tmp_path / "run" / "snapshots").iterdir())
    assert snapshots == ["iter-0001.pt", "iter-0002.pt", "iter-0004.pt"]
    for key, value in (("search_variant", "gumbel"), ("full_search_fraction", 0.25)):
        changed = TrainConfig.for_game("connect4", **(options | {key: value}))
        with pytest.raises(ConfigError, match=key):
            Trainer(changed, tmp_path / "run")


def test_a_run_from_before_the_options_resumes(tmp_path: Path) -> None:
    config = TrainConfig.for_game("connect4", **TINY)
    Trainer(config, tmp_path / "run").run(1)
    path = tmp_path / "run" / "config.json"
    added = (
        "search_variant",
        "gumbel_considered",
        "gumbel_c_visit",
        "gumbel_c_scale",
        "forced_k",
        "full_search_fraction",
        "fast_simulations",
    )
    old = {k: v for k, v in json.loads(path.read_text()).items() if k not in added}
    path.write_text(json.dumps(old))
    gumbel = TrainConfig.for_game("connect4", **(TINY | {"search_variant": "gumbel"}))
    with pytest.raises(ConfigError, match="search_variant"):
        Trainer(gumbel, tmp_path / "run")  # the old run searched with PUCT
    Trainer(config, tmp_path / "run").run(2)  # its defaults are what the old run did
    assert [r["iteration"] for r in read_log(tmp_path / "run" / "log.jsonl")] == [1, 2]
    assert json.loads(path.read_text())["search_variant"] == "puct"


def test_resume_repairs_the_log_and_the_replay_queue(tmp_path: Path) -> None:
    config = TrainConfig.for_game("connect4", **TINY)
    run = tmp_path / "run"
    first = Trainer(config, run)
    first.run(1)
    added = first.replay.added
    # a kill after iteration 2's log line, before its checkpoint; and one after a queue's
    # write before its checkpoint (a stale replay.next.npz)
    with open(run / "log.jsonl", "a") as fh:
        fh.write('{"iteration": 2, "positions": 1}\n{"iteration": 3, "lo')
    shape = (C4.num_planes, *C4.board_shape)
    stale = ReplayQueue(config.queue_size, shape, 7)
    uniform = np.full((3, 7), 1 / 7, np.float32)
    stale.add(np.zeros((3, *shape), np.float32), uniform, np.ones(3, np.float32))
    stale.save(run / "replay.next.npz")
    resumed = Trainer(config, run)
    assert [r["iteration"] for r in read_log(run / "log.jsonl")] == [1]
    assert not (run / "replay.next.npz").exists() and resumed.replay.added == added
    # a kill after the checkpoint, before the queue's rename: the resume finishes it
    os.replace(run / "replay.npz", run / "replay.next.npz")
    stale.save(run / "replay.npz")
    assert Trainer(config, run).replay.added == added
    assert not (run / "replay.next.npz").exists()
    # a queue that is not the checkpoint's is refused
    stale.save(run / "replay.npz")
    with pytest.raises(IncompatibleError, match="not the checkpoint's replay queue"):
        Trainer(config, run)


def test_replay_queue_round_trip_is_exact(tmp_path: Path) -> None:
    q = ReplayQueue(5, (3, 2, 2), 3)
    for i in range(8):
        pi = np.array([[1 / 3, 1 / 7, 1 - 1 / 3 - 1 / 7]], dtype=np.float32) * (1 + i / 100)
        q.add(np.full((1, 3, 2, 2), i % 2, np.float32), pi, np.array([i % 3 - 1], np.float32))
    q.save(tmp_path / "r.npz")
    r = ReplayQueue(5, (3, 2, 2), 3)
    r.load(tmp_path / "r.npz")
    assert r.added == 8
    for name in ("planes", "pi", "z"):  # the same layout, pi not rounded
        a, b = getattr(q, name), getattr(r, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name


def test_a_resume_with_a_full_replay_queue_is_exact(tmp_path: Path) -> None:
    # A queue that has wrapped comes back in its ring layout, its targets unrounded: the
    # resumed run draws the same mini-batches as the uninterrupted one.
    config = TrainConfig.for_game("connect4", **(TINY | {"queue_size": 100}))
    Trainer(config, tmp_path / "a").run(2)
    resumed = Trainer(config, tmp_path / "a")
    assert resumed.replay.added > 100
    resumed.run(3)
    straight = Trainer(config, tmp_path / "b")
    straight.run(3)
    assert resumed.replay.added == straight.replay.added
    for name, value in straight.model.state_dict().items():
        assert torch.equal(resumed.model.state_dict()[name], value), name


# ---- kill -9 ------------------------------------------------------------------------------

KILL_OPTIONS: dict[str, Any] = TINY | {
    "search_variant": "gumbel",
    "gumbel_considered": 4,
    "full_search_fraction": 0.5,
    "fast_simulations": 2,
    "iterations": 50,
    "games_per_iteration": 8,  # iterations of about half a second, so the kill lands in one
    "parallel_games": 4,
}


def _toml(values: dict[str, Any]) -> str:
    return "".join(f"{k} = {json.dumps(v)}\n" for k, v in values.items())


def _train(config: Path, out: Path, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "sparring", "train", "connect4",
        "--config", str(config), "--out", str(out), *extra,
    ]  # fmt: skip


def _wait_for(check: Callable[[], bool], process: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def check_resume_after_kill_9(tmp_path: Path, options: dict[str, Any]) -> None:
    """Train ``options`` (a connect4 config) by the CLI, SIGKILL it after two logged
    iterations, resume to 3 and compare with the same run uninterrupted: the same log
    counts and losses, the same network tensor for tensor."""
    config = tmp_path / "tiny.toml"
    config.write_text(_toml(options))
    killed = tmp_path / "killed"
    log = killed / "log.jsonl"
    env = os.environ | {"PYTHONPATH": str(ROOT / "src")}
    process = subprocess.Popen(
        _train(config, killed), cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        _wait_for(lambda: len(read_log(log)) >= 2, process, 90)
        process.send_signal(signal.SIGKILL)  # in iteration 3, or before iteration 2's checkpoint
    finally:
        process.kill()
        process.wait()
    assert process.returncode == -signal.SIGKILL
    saved = torch.load(killed / "checkpoint.pt", weights_only=False)["state"]["iteration"]
    assert saved in (1, 2)  # the kill came before iteration 3 was saved: the resume redoes work
    subprocess.run(_train(config, killed, "--iterations", "3"), cwd=ROOT, env=env, check=True)
    records = read_log(log)
    assert [r["iteration"] for r in records] == [1, 2, 3]
    # the same run uninterrupted, in this process
    straight = Trainer(TrainConfig.from_toml(config, "connect4"), tmp_path / "straight")
    straight.run(3)
    expected = read_log(tmp_path / "straight" / "log.jsonl")
    keys = ("positions", "moves", "full_searches", "simulations", "loss_value", "sgd_steps")
    for key in (*keys, "games"):
        assert [r[key] for r in records] == [r[key] for r in expected], key
    weights = torch.load(killed / "checkpoint.pt", weights_only=False)["model"]
    for name, value in straight.model.state_dict().items():
        assert torch.equal(weights[name], value), name


def test_gumbel_pcr_run_resumes_exactly_after_kill_9(tmp_path: Path) -> None:
    check_resume_after_kill_9(tmp_path, KILL_OPTIONS)


def test_gumbel_opening_only_plays_the_sampled_move_only_in_the_opening() -> None:
    from dataclasses import replace

    from sparring.search.stats import RootStats

    game = get_game("connect4")
    # Two moves share the most visits; the improved policy prefers move 5; the Gumbel draw
    # selected move 2.
    stats = replace(
        RootStats.from_visits([1, 2, 5], [3, 10, 10]),
        improved_policy=np.array([0.5, 0.2, 0.3], dtype=np.float32),
        selected_move=2,
    )
    assert selfplay.improved_best_move(stats) == 5  # 0.5 belongs to a less visited move
    config = TrainConfig.for_game(
        "connect4", search_variant="gumbel", gumbel_opening_only=True, opening_moves=2
    )
    settings = SelfPlaySettings.from_config(config)
    assert settings.play_selected and settings.selected_plies == 2
    rng = np.random.default_rng(0)
    state = game.initial_state()
    plies = []
    for _ in range(3):
        plies.append(selfplay.choose_move(game, state, stats, settings, rng))
        state = game.play(state, 3)
    assert plies == [2, 2, 5]
    paper = SelfPlaySettings.from_config(replace(config, gumbel_opening_only=False))
    assert paper.selected_plies is None
    assert selfplay.choose_move(game, state, stats, paper, rng) == 2
    with pytest.raises(ConfigError, match="gumbel_opening_only"):
        TrainConfig.for_game("connect4", gumbel_opening_only="yes")


# ---- Go's finishing rules in self-play (finish_games) -------------------------------------------


def test_finishing_allowed_on_hand_worked_go_positions() -> None:
    from sparring.games.go import Go

    g = Go(5)
    empty = g.initial_state()
    allowed = selfplay.finishing_allowed(g, empty)
    assert allowed is not None
    assert allowed[:25].all() and not allowed[g.pass_move]  # every point, no voluntary pass
    # Black's single-point eye at a1 (bottom left): every empty point but the eye
    s = g.parse_position("5/5/5/xx3/.x3 b")
    allowed = selfplay.finishing_allowed(g, s)
    assert allowed is not None
    a1 = g.parse_move("a1", s)
    assert not allowed[a1] and not allowed[g.pass_move]
    assert int(allowed.sum()) == 25 - 4  # the 3 black stones and the eye
    # White has just passed and Black is ahead by the area count (16 to 9 + 6.5): pass only
    g65 = Go(5, komi=6.5)
    s = g65.parse_position("x.xo./xxxo./xxxo./xxxo./xxxxo b passes=1")
    allowed = selfplay.finishing_allowed(g65, s)
    assert allowed is not None and allowed.tolist() == [False] * 25 + [True]
    # with komi 7.5 Black is behind (16 to 16.5): it plays on, where its own eye b5 is not
    s = g.parse_position("x.xo./xxxo./xxxo./xxxo./xxxxo b passes=1")
    allowed = selfplay.finishing_allowed(g, s)
    assert allowed is not None and not allowed[g.pass_move]
    assert set(np.flatnonzero(allowed)) == {g.parse_move(v, s) for v in ("e5", "e4", "e3", "e2")}
    # White to move after Black's pass, behind by komi 6.5: every legal point (b5 captures
    # Black's group; White has no single-point eye), no pass
    s = g65.parse_position("x.xo./xxxo./xxxo./xxxo./xxxxo w passes=1")
    allowed = selfplay.finishing_allowed(g65, s)
    assert allowed is not None and not allowed[g65.pass_move]
    assert allowed[:25].tolist() == g65.legal_mask(s)[:25].tolist()
    assert allowed[g65.parse_move("b5", s)]
    # nothing left but Black's own eyes b5 and d5: the pass
    filled = g.parse_position("x.x.x/xxxxx/xxxxx/xxxxx/xxxxx b")
    allowed = selfplay.finishing_allowed(g, filled)
    assert allowed is not None and allowed.tolist() == [False] * 25 + [True]
    connect4 = get_game("connect4")
    assert selfplay.finishing_allowed(connect4, connect4.initial_state()) is None


def test_finishing_target_and_move_keep_only_the_allowed_moves() -> None:
    pi = np.array([0.5, 0.25, 0.125, 0.125], dtype=np.float32)
    allowed = np.array([False, True, True, False])
    target = selfplay.finishing_target(pi, allowed, 1)
    assert target.dtype == np.float32
    assert target.tolist() == np.array([0.0, 2 / 3, 1 / 3, 0.0], dtype=np.float32).tolist()
    # the search gave the allowed moves no weight: the one-hot of the move played
    zero = np.array([0.5, 0.0, 0.0, 0.5], dtype=np.float32)
    assert selfplay.finishing_target(zero, allowed, 2).tolist() == [0.0, 0.0, 1.0, 0.0]
    result = SearchResult(
        moves=np.array([0, 1, 2, 3], dtype=np.int64),
        visits=np.array([9, 3, 5, 9], dtype=np.int64),
        q=np.zeros(4),
        priors=np.full(4, 0.25, dtype=np.float32),
        search_priors=np.full(4, 0.25, dtype=np.float32),
        network_value=0.0,
        value=0.0,
        simulations=26,
        to_move=0,
        nodes=27,
    )
    rng = np.random.default_rng(0)
    assert selfplay.finishing_move(result, allowed, 0, rng) == 2  # 0 ruled out: 2 most visited
    assert selfplay.finishing_move(result, allowed, 1, rng) == 1  # an allowed move stays


def test_self_play_with_finish_games_never_passes_before_the_rules_allow(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Go 5x5 self-play with a uniform network: without ``finish_games`` players pass
    while other moves remain (or fill their own eyes); with it, every pass is the rules'
    (pass to win, or nothing else allowed), no eye is filled, and the recorded targets
    hold only the allowed moves."""
    from sparring.games.go import Go

    game = Go(5)
    seen: list[tuple[State, int]] = []
    targets: list[tuple[npt.NDArray[np.bool_], npt.NDArray[np.float32]]] = []

    def spy(g: Game, state: State, move: int) -> tuple[State, Outcome]:
        seen.append((state.copy(), move))
        return advance(g, state, move)

    real_target = selfplay.finishing_target

    def spy_target(
        pi: npt.NDArray[np.float32], allowed: npt.NDArray[np.bool_], move: int
    ) -> npt.NDArray[np.float32]:
        out = real_target(pi, allowed, move)
        targets.append((allowed, out))
        return out

    monkeypatch.setattr(selfplay, "advance", spy)
    monkeypatch.setattr(selfplay, "finishing_target", spy_target)

    def breaches(finish: bool) -> int:
        seen.clear()
        config = TrainConfig.for_game(
            "go", simulations=16, parallel_games=4, finish_games=finish, opening_moves=2
        )
        settings = SelfPlaySettings.from_config(config)
        batch = play_games(game, UniformEvaluator(), settings, 6, np.random.default_rng(3))
        assert batch.moves == len(seen)
        bad = 0
        for state, move in seen:
            allowed = selfplay.finishing_allowed(game, state)
            assert allowed is not None
            bad += int(not allowed[move])
        return bad

    assert breaches(False) > 0  # the rules make a difference here
    assert not targets
    assert breaches(True) == 0
    assert targets and all(float(pi[~ok].sum()) == 0.0 for ok, pi in targets)


def test_an_az_player_with_finish_plays_go_under_the_finishing_rules(tmp_path: Path) -> None:
    """``az:...,finish=yes`` picks under Go's move filter: with nothing left but its own
    eyes it passes, where the plain player (a random network, 2 simulations) fills an eye
    with one of these seeds."""
    import sparring.kinds  # noqa: F401
    from sparring.games.go import Go
    from sparring.nn.model import NetworkConfig, build_model, save_model
    from sparring.players import make_player

    game = Go(5, komi=6.5)
    path = tmp_path / "go5.pt"
    save_model(path, build_model(NetworkConfig.for_game(game, blocks=1, channels=8), seed=0))
    s = game.parse_position("x.x.x/xxxxx/x.x.x/xxxxx/x.x.x b")  # six black eyes
    finishing = [make_player(f"az:model={path},sims=2,finish=yes", game, k) for k in range(5)]
    plain = [make_player(f"az:model={path},sims=2", game, k) for k in range(5)]
    assert all(p.finish for p in finishing) and not any(p.finish for p in plain)
    assert [p.select_move(game, s) for p in finishing] == [game.pass_move] * 5
    assert any(p.select_move(game, s) != game.pass_move for p in plain)


# ---- value_targets = "solver" (Connect4 only; a labelled comparison, not AlphaZero) ----------
class _RecordingOracle:
    """A stand-in for the solver: a made-up value of the moves, and every call recorded."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, ...]] = []

    def __call__(self, moves: Sequence[int]) -> float:
        self.calls.append(tuple(moves))
        return float(len(moves) % 3 - 1)  # -1, 0, +1 by the ply


def test_solver_targets_are_checked_and_connect4_only() -> None:
    assert _settings().value_oracle is None
    assert isinstance(_settings(value_targets="solver").value_oracle, selfplay.SolverValues)
    for game, value, message in (
        ("connect4", "solved", "value_targets must be one of outcome, solver, not 'solved'"),
        ("othello6", "solver", "Connect4 only, not othello6"),
    ):
        with pytest.raises(ConfigError, match=message) as info:
            TrainConfig.for_game(game, value_targets=value)
        assert info.value.key == "value_targets"


def test_solver_targets_replace_only_the_values_with_the_oracles() -> None:
    plain = _settings(full_search_fraction=0.5, fast_simulations=3)
    oracle = _RecordingOracle()
    solver = dataclasses.replace(plain, value_oracle=oracle)
    rng, reference_rng = np.random.default_rng(9), np.random.default_rng(9)
    batch = play_games(C4, IntegerEvaluator(C4), solver, 4, rng)
    reference = play_games(C4, IntegerEvaluator(C4), plain, 4, reference_rng)
    assert rng.random() == reference_rng.random()  # the same draws
    assert np.array_equal(batch.planes, reference.planes)
    assert np.array_equal(batch.pi, reference.pi)
    assert not np.array_equal(batch.z, reference.z)
    # one call per recorded position, with the moves that reach it, in the batch's order
    assert len(oracle.calls) == len(batch.z) == batch.full_searches < batch.moves
    for moves, planes, z in zip(oracle.calls, batch.planes, batch.z, strict=True):
        state = C4.initial_state()
        for move in moves:
            state, _ = advance(C4, state, move)
        assert np.array_equal(C4.encode(state), planes)
        assert z == len(moves) % 3 - 1


def test_solver_values_are_connect4s_exact_values() -> None:
    pytest.importorskip("bitbully", reason="bitbully is needed for the solver targets")
    values = selfplay.SolverValues()
    # The first player wins from the empty board by the centre (column 3); columns 2 and 4
    # draw; the others lose.  Values are for the player to move.
    assert values(()) == 1.0
    assert (values((3,)), values((2,)), values((4,)), values((0,))) == (-1.0, 0.0, 0.0, 1.0)
    again = pickle.loads(pickle.dumps(values))  # to a self-play worker: rebuilt there
    assert again._known == {} and again((3,)) == -1.0
    again.keep = 2  # a bounded memory: full, it starts again
    assert again((2,)) == 0.0 and len(again._known) == 2
    assert again((0,)) == 1.0 and again._known == {(0,): 1.0}


def test_a_tiny_run_learns_from_solver_targets(tmp_path: Path) -> None:
    pytest.importorskip("bitbully", reason="bitbully is needed for the solver targets")
    config = TrainConfig.for_game("connect4", **(TINY | {"value_targets": "solver"}))
    Trainer(config, tmp_path / "run").run(1)
    (record,) = read_log(tmp_path / "run" / "log.jsonl")
    assert record["iteration"] == 1 and record["positions"] == record["moves"]
    # value_targets may not change on resume (the value head's targets would)
    with pytest.raises(ConfigError, match="value_targets"):
        Trainer(TrainConfig.for_game("connect4", **TINY), tmp_path / "run")
