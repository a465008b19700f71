"""Tests of series: the same two player objects for G games, resumable, parallel."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from plugin_kind import register_for_test
from sparring.errors import ConfigError
from sparring.evaluation.match import GameTask, RunInterrupted, derive_seed, play_task
from sparring.evaluation.series import (
    SeriesConfig,
    SeriesResult,
    run_series,
    run_series_set,
    series_seed,
)
from sparring.evaluation.store import GameRecord, GameStore
from sparring.games.base import Game, State
from sparring.players import registry
from sparring.players.base import Player, PlayerState
from sparring.players.registry import PlayerSpec, check_options
from sparring.search.limit import Limit


class Learner(Player):
    """A stub that learns between games: its moves are shifted by the number of games it won.

    Its state is ``{"wins": w, "games": g}``; a player that forgot it would play other moves.
    """

    def __init__(self, name: str, seed: int | None) -> None:
        super().__init__(name, seed)
        self.wins = 0
        self.games = 0
        self.observed = 0

    def select_move(self, game: Game, state: State, limit: Limit | None = None) -> int:
        moves = game.legal_moves(state)
        return int(moves[(int(self.rng.integers(len(moves))) + self.wins) % len(moves)])

    def observe(self, game: Game, move: int, state: State) -> None:
        self.observed += 1

    def game_over(self, game: Game, final_state: State, score: float) -> None:
        self.games += 1
        self.wins += int(score == 1.0)

    def save_state(self) -> PlayerState | None:
        return {"wins": self.wins, "games": self.games}

    def restore_state(self, data: PlayerState | None) -> None:
        if not isinstance(data, dict) or set(data) != {"wins", "games"}:
            raise ValueError(f"bad learner state {data!r}")
        wins, games = data["wins"], data["games"]
        assert isinstance(wins, int) and isinstance(games, int)
        self.wins, self.games = wins, games


def make_learner(game: Game, spec: PlayerSpec, seed: int | None) -> Player:
    check_options(spec, {"name"})
    return Learner(spec.options.get("name", "Learner"), seed)


if multiprocessing.current_process().name != "MainProcess":  # a pool worker importing this
    registry.register_factory("learner", "test stub")(make_learner)


@pytest.fixture
def learner(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register the ``learner`` kind for one test."""
    register_for_test(monkeypatch, "learner", make_learner)


def game_of(r: GameRecord) -> tuple[object, ...]:
    return (r.key, r.a_first, r.seed, r.moves, r.result, r.player_states)


CONFIG = SeriesConfig(
    "tictactoe", "learner", "learner:name=L2", games_per_series=6, series=2, seed=7
)


def test_config() -> None:
    data = {"game": "tictactoe", "spec_a": "a", "spec_b": "b", "games_per_series": 3}
    config = SeriesConfig.from_mapping(data)
    assert config == SeriesConfig("tictactoe", "a", "b", games_per_series=3)
    assert SeriesConfig.from_mapping(config.to_mapping()) == config
    with pytest.raises(ConfigError, match="unknown key 'games'"):
        SeriesConfig.from_mapping({**data, "games": 3})
    for bad in ({"series": 0}, {"games_per_series": 1.5}, {"workers": 0}, {"seed": -1}):
        with pytest.raises(ConfigError):
            SeriesConfig.from_mapping({**data, **bad})
    # The run key leaves out the numbers of games, series and workers (a run can grow).
    assert config.run_key == SeriesConfig("tictactoe", "a", "b", series=5, workers=3).run_key
    assert config.run_key != SeriesConfig("tictactoe", "a", "b", seed=1).run_key
    seeds = {series_seed(0, s) for s in range(5)} | {derive_seed(0, s, 0) for s in range(5)}
    assert len(seeds) == 10


def test_series_keeps_the_same_players(learner: None) -> None:
    result = run_series(CONFIG, progress=False)
    assert result.complete and result.played == 12 and result.skipped == 0
    assert result.labels == ("Learner", "L2")
    assert [(r.pairing, r.game_index) for r in result.records] == [
        (s, i) for s in range(2) for i in range(6)
    ]
    for s in range(2):
        games = result.series_records(s)
        assert [r.a_first for r in games] == [True, False] * 3
        assert [r.seed for r in games] == [derive_seed(7, s, i) for i in range(6)]
        # The same objects all series long: their state counts every game so far.
        wins_a = wins_b = 0
        for i, r in enumerate(games):
            wins_a += r.score_a == 1.0
            wins_b += r.score_b == 1.0
            assert r.player_states == (
                {"wins": wins_a, "games": i + 1},
                {"wins": wins_b, "games": i + 1},
            )
        assert result.final_states(s) == games[-1].player_states
    # Reproducible.
    again = run_series(CONFIG, progress=False)
    assert [game_of(r) for r in again.records] == [game_of(r) for r in result.records]


def stop_after_games(count: int) -> Any:
    """An ``on_game`` callback that raises (like a crash) after ``count`` games."""
    seen: list[GameRecord] = []

    def on_game(record: GameRecord) -> None:
        seen.append(record)
        if len(seen) == count:
            raise RuntimeError("killed")

    return on_game


@pytest.mark.parametrize("wipe_states", [False, True], ids=["restore", "replay"])
def test_killed_series_resumes_with_the_same_games(
    learner: None, tmp_path: Path, wipe_states: bool
) -> None:
    uninterrupted = run_series(CONFIG, progress=False)
    path = tmp_path / "games.sqlite"
    with GameStore(path) as store, pytest.raises(RuntimeError, match="killed"):
        run_series(CONFIG, store, progress=False, on_game=stop_after_games(4))
    if wipe_states:  # a store without states: the stored games are replayed instead
        with sqlite3.connect(path) as db:
            db.execute("UPDATE games SET player_states = NULL")
    with GameStore(path) as store:
        assert store.count() == 4  # stopped in the middle of series 0
        resumed = run_series(CONFIG, store, progress=False)
    assert (resumed.played, resumed.skipped) == (8, 4)
    expected = [game_of(r) for r in uninterrupted.records]
    got = [game_of(r) for r in resumed.records]
    if wipe_states:
        assert all(r.player_states is None for r in resumed.records[:4])
        expected, got = expected[4:], got[4:]
    assert got == expected


def test_resume_needs_the_state(learner: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail: a learner that forgets on restore plays other games."""
    uninterrupted = run_series(CONFIG, progress=False)
    with GameStore(":memory:") as store:
        run_series(CONFIG, store, progress=False, stop_after=4)
        monkeypatch.setattr(Learner, "restore_state", lambda self, data: None)
        resumed = run_series(CONFIG, store, progress=False)
    assert [r.moves for r in resumed.records] != [r.moves for r in uninterrupted.records]


def test_stop_after_and_extending(learner: None) -> None:
    with GameStore(":memory:") as store:
        part = run_series(CONFIG, store, progress=False, stop_after=8)
        assert part.played == 8 and not part.complete
        assert [len(part.series_records(s)) for s in range(2)] == [6, 2]
        more = SeriesConfig.from_mapping({**CONFIG.to_mapping(), "games_per_series": 8})
        longer = run_series(more, store, progress=False)
        assert (longer.played, longer.skipped, longer.run_key) == (8, 8, part.run_key)
    fresh = run_series(more, progress=False)
    assert [game_of(r) for r in longer.records] == [game_of(r) for r in fresh.records]
    with pytest.raises(ConfigError):
        run_series(CONFIG, progress=False, stop_after=-1)


def test_workers_stream_the_same_games(learner: None, tmp_path: Path) -> None:
    serial = run_series(CONFIG, progress=False)
    parallel_config = SeriesConfig.from_mapping({**CONFIG.to_mapping(), "workers": 2})
    order: list[tuple[int, int]] = []
    with GameStore(tmp_path / "g.sqlite") as store:
        parallel = run_series(
            parallel_config,
            store,
            progress=False,
            on_game=lambda r: order.append((r.pairing, r.game_index)),
        )
    assert [game_of(r) for r in parallel.records] == [game_of(r) for r in serial.records]
    for s in range(2):  # each series' games arrive in order, one by one
        assert [i for p, i in order if p == s] == list(range(6))


@pytest.mark.parametrize(
    ("game_name", "spec"),
    [
        ("tictactoe", "random"),
        ("tictactoe", "uct:sims=40"),
        ("tictactoe", "sa:base=uct,sims=40,z=1"),
        ("connect4", "minimax2"),
        ("connect4", "az:sims=4"),
    ],
)
def test_stateless_series_games_are_match_games(game_name: str, spec: str) -> None:
    """Reseeded before every game, a player plays as if built afresh for it: the games of a
    series of players without state are the games of a match with the same seeds."""
    config = SeriesConfig(game_name, spec, "random", games_per_series=3, series=2, seed=3)
    result = run_series(config, progress=False)
    assert isinstance(result, SeriesResult) and len(result.records) == 6
    for r in result.records:
        assert r.player_states == (None, None)
        task = GameTask(
            run_key=r.run_key,
            pairing=r.pairing,
            game_index=r.game_index,
            game=game_name,
            spec_a=spec,
            spec_b="random",
            label_a=r.label_a,
            label_b=r.label_b,
            a_first=r.a_first,
            seed=r.seed,
        )
        assert play_task(task).moves == r.moves


def test_ctrl_c_in_a_series_says_what_is_stored(learner: None) -> None:
    with GameStore(":memory:") as store:

        def interrupt(record: GameRecord) -> None:
            if record.game_index == 2:
                raise KeyboardInterrupt

        with pytest.raises(RunInterrupted) as caught:
            run_series(CONFIG, store, progress=False, on_game=interrupt)
        assert (caught.value.stored, caught.value.played) == (3, 3)
        assert caught.value.run_key == CONFIG.run_key


KILLED_SCRIPT = """
import sys, time
from sparring.evaluation.series import SeriesConfig, run_series
from sparring.evaluation.store import GameStore
from sparring.players import registry
from test_series import CONFIG, make_learner

if __name__ == "__main__":
    registry.player_kinds()
    registry.register_factory("learner", "test stub")(make_learner)
    config = SeriesConfig.from_mapping({**CONFIG.to_mapping(), "workers": int(sys.argv[2])})
    with GameStore(sys.argv[1]) as store:
        run_series(config, store, progress=False, on_game=lambda record: time.sleep(0.3))
"""


def processes_mentioning(path: Path) -> list[int]:
    """Ids of the processes whose command line mentions ``path`` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if str(path).encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
    return found


@pytest.mark.parametrize("workers", [1, 2])
def test_series_resumes_after_kill_9(learner: None, tmp_path: Path, workers: int) -> None:
    """SIGKILL in the middle of a run: the stored games are kept, and the resumed run plays
    the games an uninterrupted one plays."""
    script = tmp_path / "run.py"
    script.write_text(KILLED_SCRIPT)
    path = tmp_path / "games.sqlite"
    tests = Path(__file__).resolve().parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tests.parent / "src"), str(tests)])}
    process = subprocess.Popen([sys.executable, str(script), str(path), str(workers)], env=env)
    try:
        deadline = time.monotonic() + 120
        stored = 0
        while stored < 3 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
            if path.exists():
                with contextlib.suppress(sqlite3.Error), sqlite3.connect(path) as db:
                    stored = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        assert process.poll() is None, "the run ended before it was killed"
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait(timeout=60)
    deadline = time.monotonic() + 30  # the workers (and fork server) end with their parent
    while processes_mentioning(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_mentioning(tmp_path) == []
    with GameStore(path) as store:
        kept = store.count()
        assert 3 <= kept < 12
        resumed = run_series(CONFIG, store, progress=False)
    assert resumed.played == 12 - kept and resumed.skipped == kept
    uninterrupted = run_series(CONFIG, progress=False)
    assert [game_of(r) for r in resumed.records] == [game_of(r) for r in uninterrupted.records]


def test_a_failing_series_in_a_worker_keeps_its_games(learner: None, tmp_path: Path) -> None:
    config = SeriesConfig(
        "tictactoe", "learner", "random", games_per_series=3, series=2, seed=1, workers=2
    )
    path = tmp_path / "games.sqlite"
    with GameStore(path) as store:
        run_series(config, store, progress=False, stop_after=5)  # series 1: 2 of 3 games
    with sqlite3.connect(path) as db:  # a state the learner refuses: series 1 fails to resume
        db.execute(
            'UPDATE games SET player_states = \'[{"wins": "x"}, null]\' '
            "WHERE pairing = 1 AND game_index = 1"
        )
    longer = SeriesConfig.from_mapping({**config.to_mapping(), "games_per_series": 4})
    with GameStore(path) as store:
        with pytest.raises(ValueError, match="bad learner state") as caught:
            run_series(longer, store, progress=False)
        assert "Traceback" in str(caught.value.__cause__)
        # The stored games are kept (series 0's fourth game is stored if it ended before
        # the failure stopped the workers); series 1 stopped where it was.
        assert store.count() >= 5
        assert sorted(i for p, i in store.recorded_indices(longer.run_key) if p == 1) == [0, 1]


def test_a_set_of_series_runs_shares_one_pool(learner: None) -> None:
    """E.g. one adaptive player against several opponents: each config stays its own run."""
    configs = [
        SeriesConfig("tictactoe", "learner", b, games_per_series=3, series=2, seed=5)
        for b in ("random", "learner:name=L2")
    ]
    alone = [run_series(c, progress=False) for c in configs]
    with GameStore(":memory:") as store:
        together = run_series_set(configs, store, workers=2, progress=False)
        assert [r.run_key for r in together] == [c.run_key for c in configs]
        assert [r.played for r in together] == [6, 6]
        again = run_series_set(configs, store, progress=False)
        assert [(r.played, r.skipped) for r in again] == [(0, 6), (0, 6)]
    for a, t in zip(alone, together, strict=True):
        assert [game_of(r) for r in t.records] == [game_of(r) for r in a.records]
    with pytest.raises(ConfigError, match="same game, specs and seed"):
        run_series_set([configs[0], configs[0]], progress=False)
    assert run_series_set([], progress=False) == []


def _conformance_specs() -> list[str]:
    from test_player_conformance import _specs

    return _specs()


@pytest.mark.parametrize("spec", _conformance_specs())
def test_reseed_plays_as_a_fresh_player(spec: str) -> None:
    """For every registered kind (the conformance suite's tiny settings): after a game, a
    player reseeded with ``s`` plays the next game exactly as a player freshly built with
    ``s`` and given the used player's saved state does (what a resumed series relies on)."""
    from sparring.players import make_player
    from sparring.players.base import RandomPlayer
    from sparring.session import GameSession
    from test_player_conformance import _home

    game, plies = _home(spec)  # Connect4, or the opening of Go / chess for the estimator kinds

    def play(player: Player, opponent_seed: int) -> tuple[int, ...]:
        session = GameSession(game, (player, RandomPlayer(seed=opponent_seed)))
        if plies is None:
            session.play_out()
        while not session.is_over and session.ply < (plies or 0):
            session.play_player()
        return session.moves

    used = make_player(spec, game, 1)
    play(used, 2)
    state = used.save_state()  # what a learning player (dsa) carries into the next game
    used.reseed(5)
    fresh = make_player(spec, game, 5)
    fresh.restore_state(state)
    assert play(used, 3) == play(fresh, 3)
