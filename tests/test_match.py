"""Tests of playing games, matches and tournaments, of the reports and of the CLI commands."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from plugin_kind import register_for_test
from sparring.cli.evaluation import register
from sparring.errors import (
    ConfigError,
    IllegalMoveError,
    PlayerResourceError,
    UnknownGameError,
    UnknownPlayerError,
)
from sparring.evaluation.match import (
    MatchConfig,
    TournamentConfig,
    derive_seed,
    play_game,
    player_labels,
    player_seeds,
    replay_seed,
    run_match,
    run_tournament,
)
from sparring.evaluation.ratings import GameResults, fit_elo, incremental_elo
from sparring.evaluation.report import (
    elo_markdown,
    pair_stats,
    plot_elo,
    report_markdown,
    wld_markdown,
)
from sparring.evaluation.store import GameRecord, GameStore
from sparring.games import get_game
from sparring.games.base import Game, Outcome, State
from sparring.players.base import Player, RandomPlayer
from sparring.search.limit import Limit


class Recorder(RandomPlayer):
    """A random player that logs the hooks it receives."""

    def __init__(self, name: str, seed: int) -> None:
        super().__init__(name, seed)
        self.log: list[tuple[str, object]] = []

    def new_game(self, game: Game, player_index: int) -> None:
        self.log.append(("new_game", player_index))

    def game_over(self, game: Game, final_state: State, score: float) -> None:
        self.log.append(("game_over", score))


class Cheater(Player):
    """Plays an occupied square of tic-tac-toe."""

    def select_move(self, game: Game, state: State, limit: Limit | None = None) -> int:
        legal = set(game.legal_moves(state).tolist())
        return next(m for m in range(game.num_actions) if m not in legal)


class Talker(Player):
    """Answers with text instead of a move."""

    def select_move(self, game: Game, state: State, limit: Limit | None = None) -> int:
        return "e4"  # type: ignore[return-value]


def replay(game: Game, record: GameRecord) -> Outcome:
    state = game.initial_state()
    for move in record.moves:
        state = game.play(state, move)
    return game.status(state)


def test_play_game_records_and_calls_hooks() -> None:
    game = get_game("tictactoe")
    a, b = Recorder("A", 1), Recorder("B", 2)
    record = play_game(game, (a, b), a_first=False, seed=7, game_index=3)
    assert (record.label_a, record.label_b, record.spec_a, record.spec_b) == ("A", "B", "A", "B")
    assert not record.a_first and record.first_label == "B"
    assert record.seed == 7 and record.game_index == 3
    assert len(record.think_times) == len(record.moves) >= 5
    assert all(t >= 0 for t in record.think_times)
    assert replay(game, record).score_for(0) == record.result
    assert a.log == [("new_game", 1), ("game_over", record.score_a)]
    assert b.log == [("new_game", 0), ("game_over", record.score_b)]


def test_illegal_moves_name_the_player() -> None:
    game = get_game("tictactoe")
    with pytest.raises(
        IllegalMoveError, match=r"'Cheat' chose the illegal move .* \(player spec 'cheat-spec'\)"
    ):
        play_game(
            game,
            (RandomPlayer(seed=0), Cheater("Cheat")),
            specs=("random", "cheat-spec"),
            labels=("Random", "Cheat"),
        )
    with pytest.raises(IllegalMoveError, match=r"'Talker'.*not a move"):
        play_game(game, (Talker("Talker"), RandomPlayer(seed=0)))


def test_seeds_are_deterministic_and_distinct() -> None:
    # The documented definition: SeedSequence(base, spawn_key=(pairing, game)), top 63 bits;
    # the value is pinned so that a change of derivation (which would change every stored
    # record) fails here.
    sequence = np.random.SeedSequence(5, spawn_key=(0, 3))
    top = sequence.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1)
    assert derive_seed(5, 0, 3) == int(top)
    assert derive_seed(5, 0, 3) == 7607457749716579496
    assert player_seeds(7607457749716579496) == (4219658528922387439, 6146052806914877569)
    seeds = {derive_seed(s, p, i) for s in (0, 1) for p in range(3) for i in range(20)}
    assert len(seeds) == 120 and all(0 <= s < 2**63 for s in seeds)
    a, b = player_seeds(derive_seed(5, 0, 3))
    assert a != b


def game_of(r: GameRecord) -> tuple[object, ...]:
    return (r.key, r.a_first, r.seed, r.moves, r.result)


def test_match_alternates_colours_and_is_reproducible() -> None:
    config = MatchConfig("tictactoe", "random", "random:name=R2", games=6, seed=3)
    result = run_match(config, progress=False)
    assert result.labels == ("Random", "R2") and result.complete and result.played == 6
    assert [r.game_index for r in result.records] == list(range(6))
    assert [r.a_first for r in result.records] == [True, False] * 3
    assert [r.first_label for r in result.records] == ["Random", "R2"] * 3
    again = run_match(config, progress=False)
    assert [game_of(r) for r in again.records] == [game_of(r) for r in result.records]
    other = run_match(
        MatchConfig("tictactoe", "random", "random:name=R2", games=6, seed=4), progress=False
    )
    assert other.run_key != result.run_key
    assert [r.moves for r in other.records] != [r.moves for r in result.records]


def test_a_match_plays_the_game_with_its_parameters() -> None:
    """``go:size=5,komi=0.5`` is played as that game (not 19x19 at komi 7.5), and its run is
    another run than the plain game's."""
    config = MatchConfig("go:size=5,komi=0.5,max_ply=12", "random", "random", games=2, seed=1)
    result = run_match(config, progress=False)
    small = get_game("go:size=5,komi=0.5,max_ply=12")
    for record in result.records:
        assert len(record.moves) <= 12 and max(record.moves) < small.num_actions
        assert replay(small, record) is not None
    plain = run_match(MatchConfig("go:size=5", "random", "random", games=2, seed=1), progress=False)
    assert plain.run_key != result.run_key


def test_workers_give_the_same_games(tmp_path: Path) -> None:
    config = MatchConfig("tictactoe", "random", "random", games=4, seed=9, workers=2)
    with GameStore(tmp_path / "g.sqlite") as store:
        parallel = run_match(config, store, progress=False)
        assert store.count() == 4
    serial = run_match(
        MatchConfig("tictactoe", "random", "random", games=4, seed=9, workers=1), progress=False
    )
    assert parallel.labels == ("Random #1", "Random #2")
    assert [game_of(r) for r in parallel.records] == [game_of(r) for r in serial.records]


def test_tournament_round_robin() -> None:
    specs = ("random", "random:name=R2", "random:name=R3")
    config = TournamentConfig("tictactoe", specs, games_per_pair=2, seed=1)
    assert config.pairings == ((0, 1), (0, 2), (1, 2))
    result = run_tournament(config, progress=False)
    assert result.complete and len(result.records) == 6
    pairs = {(r.pairing, r.label_a, r.label_b) for r in result.records}
    assert pairs == {(0, "Random", "R2"), (1, "Random", "R3"), (2, "R2", "R3")}
    for r in result.records:
        assert r.a_first == (r.game_index % 2 == 0)
    stats = pair_stats(result.records)
    assert len(stats) == 6
    for s in stats:
        assert s.first.games == s.second.games == 1


def test_specs_are_validated_before_playing(tmp_path: Path) -> None:
    with GameStore(tmp_path / "g.sqlite") as store:
        with pytest.raises(UnknownPlayerError):
            run_match(MatchConfig("tictactoe", "random", "nonsense"), store, progress=False)
        with pytest.raises(UnknownPlayerError):
            run_tournament(
                TournamentConfig("tictactoe", ("random", "random:depth=3")), store, progress=False
            )
        with pytest.raises(UnknownGameError):
            run_match(MatchConfig("shogi", "random", "random"), store, progress=False)
        assert store.count() == 0 and store.runs() == []


def test_player_labels_are_unique() -> None:
    game = get_game("tictactoe")
    assert player_labels(game, ["random", "random:name=X"]) == ("Random", "X")
    assert player_labels(game, ["random", "random:name=Random"]) == (
        "random",
        "random:name=Random",
    )
    assert player_labels(game, ["random", "random"]) == ("Random #1", "Random #2")


def test_config_from_mapping() -> None:
    config = MatchConfig.from_mapping(
        {"game": "connect4", "spec_a": "mcts1", "spec_b": "random", "games": 10}
    )
    assert config == MatchConfig("connect4", "mcts1", "random", games=10)
    assert MatchConfig.from_mapping(config.to_mapping()) == config
    with pytest.raises(ConfigError, match="unknown key 'gmaes'"):
        MatchConfig.from_mapping({"game": "connect4", "spec_a": "a", "spec_b": "b", "gmaes": 3})
    with pytest.raises(ConfigError, match="missing key 'spec_b'"):
        MatchConfig.from_mapping({"game": "connect4", "spec_a": "a"})
    tournament = TournamentConfig.from_mapping(
        {"game": "othello6", "specs": ["random", "mcts1"], "games_per_pair": 4, "workers": 2}
    )
    assert tournament.specs == ("random", "mcts1")
    assert TournamentConfig.from_mapping(tournament.to_mapping()) == tournament
    with pytest.raises(ConfigError, match="unknown key 'players'"):
        TournamentConfig.from_mapping({"game": "x", "specs": ["a", "b"], "players": 3})
    with pytest.raises(ConfigError, match="table"):
        TournamentConfig.from_mapping(["game"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"games": 0},
        {"games": 2.5},
        {"games": True},
        {"workers": 0},
        {"seed": -1},
        {"spec_a": " "},
        {"game": 3},
    ],
)
def test_bad_match_values(kwargs: dict[str, object]) -> None:
    values: dict[str, object] = {"game": "tictactoe", "spec_a": "random", "spec_b": "random"}
    values.update(kwargs)
    with pytest.raises(ConfigError):
        MatchConfig.from_mapping(values)


@pytest.mark.parametrize(
    "specs",
    [("random",), ("random", "random"), "random,random", ("random", ""), ()],
)
def test_bad_tournament_specs(specs: object) -> None:
    with pytest.raises(ConfigError):
        TournamentConfig.from_mapping({"game": "tictactoe", "specs": specs})


def test_stop_after_must_not_be_negative() -> None:
    with pytest.raises(ConfigError):
        run_match(MatchConfig("tictactoe", "random", "random"), progress=False, stop_after=-1)


def test_reports(tmp_path: Path) -> None:
    config = TournamentConfig(
        "tictactoe", ("random", "random:name=R2", "random:name=R3"), games_per_pair=4, seed=5
    )
    result = run_tournament(config, progress=False)
    stats = pair_stats(result.records)
    table = wld_markdown(stats)
    assert table.count("\n") == 2 + 6
    assert "| Random | R2 |" in table
    results = GameResults.from_records(result.records, names=result.labels)
    fit = fit_elo(results)
    k8 = dict(zip(results.names, incremental_elo(results).tolist(), strict=True))
    md = elo_markdown(fit, k8)
    assert "| Random | 1000 | -0 | +0 | 8 |" in md and "K=8 Elo" in md
    assert "Random anchored at 1000" in md
    full = report_markdown("t", result.records, fit, k8)
    assert full.startswith("# t") and "Win/loss/draw" in full
    png = plot_elo(fit, tmp_path / "plots" / "elo.png", k8=k8)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_register_smoke(tmp_path: Path) -> None:
    app = typer.Typer()
    register(app)
    runner = CliRunner()
    store = tmp_path / "games.sqlite"
    md = tmp_path / "report.md"
    plot = tmp_path / "elo.png"
    args = [
        "tournament",
        "tictactoe",
        "random",
        "random:name=R2",
        "random:name=R3",
        "--games-per-pair",
        "2",
        "--seed",
        "4",
        "--store",
        str(store),
        "--markdown",
        str(md),
        "--plot",
        str(plot),
        "--anchor",
        "R2=1200",
        "--no-progress",
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "Elo" in result.output and "6 of 6 games stored" in result.output
    assert "| R2 | 1200 | -0 | +0 |" in md.read_text()
    assert plot.exists()
    rerun = runner.invoke(app, args)
    assert "0 played now, 6 already stored" in rerun.output

    match_args = ["match", "tictactoe", "random", "random:name=R2", "-n", "2"]
    result = runner.invoke(app, [*match_args, "--store", str(store), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "Random vs R2" in result.output
    # Errors are SparringErrors, left for the main entry point to report.
    bad = runner.invoke(app, [*match_args, "--store", str(store), "--anchor", "Nobody=1"])
    assert isinstance(bad.exception, ConfigError)
    bad = runner.invoke(app, ["match", "tictactoe", "random", "bogus", "--store", str(store)])
    assert isinstance(bad.exception, UnknownPlayerError)
    with GameStore(store) as db:
        assert db.count() == 8


class Interrupter(RandomPlayer):
    """A random player that raises ``error()`` (Ctrl-C) in the games after the first
    ``games_before[0]`` games it (or another of its kind) started."""

    def __init__(
        self,
        error: Callable[[], BaseException],
        started: list[int],
        games_before: list[int],
        seed: int | None,
    ) -> None:
        super().__init__("Boom", seed)
        self.error, self.started, self.games_before = error, started, games_before

    def new_game(self, game: Game, player_index: int) -> None:
        self.started.append(1)

    def select_move(self, game: Game, state: State, limit: Limit | None = None) -> int:
        if len(self.started) > self.games_before[0]:
            raise self.error()
        return super().select_move(game, state)


def numba_style_interrupt() -> BaseException:
    """Ctrl-C inside compiled code: numba's SystemError caused by a KeyboardInterrupt."""
    error = SystemError(
        "CPUDispatcher(<function _uct_run_impl>) returned a result with an exception set"
    )
    error.__cause__ = KeyboardInterrupt()
    return error


@pytest.mark.parametrize("command", ["match", "tournament"])
@pytest.mark.parametrize("make_error", [KeyboardInterrupt, numba_style_interrupt])
def test_ctrl_c_exits_130_with_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    make_error: Callable[[], BaseException],
) -> None:
    from sparring.players import registry

    started: list[int] = []
    games_before = [2]

    def factory(game: Game, spec: registry.PlayerSpec, seed: int | None) -> Player:
        return Interrupter(make_error, started, games_before, seed)

    register_for_test(monkeypatch, "boom", factory)
    app = typer.Typer()
    register(app)
    store = tmp_path / "games.sqlite"
    args = [command, "tictactoe", "random", "boom", "-n", "6", "--store", str(store)]
    args += ["--no-progress"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 130, result.output
    assert result.output.strip().splitlines() == [
        f"interrupted: 2 games of this run are stored in {store} (2 played now); "
        "re-run the same command to resume"
    ]
    games_before[0] = 10**6
    rerun = CliRunner().invoke(app, args)
    assert rerun.exit_code == 0, rerun.output
    assert "4 played now, 2 already stored" in rerun.output


class Dying(RandomPlayer):
    """A random player whose engine "dies for good" at its third move in the games whose
    seed is in ``deadly`` (every game when ``deadly`` is None); ``seeds`` logs its games."""

    def __init__(self, seed: int | None, deadly: set[int] | None, seeds: list[int]) -> None:
        super().__init__("Dying", seed)
        self.deadly, self.moves = deadly, 0
        self.own = seed if seed is not None else -1
        seeds.append(self.own)

    def select_move(self, game: Game, state: State, limit: Limit | None = None) -> int:
        self.moves += 1
        if self.moves == 3 and (self.deadly is None or self.own in self.deadly):
            raise PlayerResourceError("the engine died and did not come back", key="path")
        return super().select_move(game, state)


def test_a_game_whose_engine_dies_for_good_is_void_and_played_again(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from sparring.players import registry

    game0 = derive_seed(5, 0, 0)
    first = player_seeds(game0)[1]  # the dying player is B
    again = replay_seed(game0, 1)
    deadly: set[int] = {first, player_seeds(again)[1]}  # its first replay dies too
    seeds: list[int] = []

    def factory(game: Game, spec: registry.PlayerSpec, seed: int | None) -> Player:
        return Dying(seed, deadly, seeds)

    register_for_test(monkeypatch, "dying", factory)
    config = MatchConfig("tictactoe", "random", "dying", games=2, seed=5)
    with GameStore(tmp_path / "a.sqlite") as store:
        result = run_match(config, store, progress=False)
        assert result.played == 2 and store.count() == 2
        records = sorted(store.iter_games(result.run_key), key=lambda r: r.game_index)
    third = replay_seed(game0, 2)
    assert [r.seed for r in records] == [third, derive_seed(5, 0, 1)]
    tries = [first, player_seeds(again)[1], player_seeds(third)[1]]
    assert [s for s in seeds if s in tries] == tries  # (seeds also holds the label's build)
    said = capsys.readouterr().err
    assert said.count("is void (the engine died and did not come back)") == 2
    assert f"played again with seed {again}" in said and f"with seed {third}" in said
    assert replay_seed(game0, 1) != replay_seed(game0, 2) != game0

    # An engine that dies in every game: the game is played 1 + VOID_REPLAYS times, then
    # the error reaches the caller, and nothing is stored.
    seeds.clear()
    monkeypatch.setattr(registry, "_FACTORIES", dict(registry._FACTORIES))
    registry.register_factory("dying2", "test stub")(
        lambda game, spec, seed: Dying(seed, None, seeds)
    )
    config = MatchConfig("tictactoe", "random", "dying2", games=2, seed=5)
    with GameStore(tmp_path / "b.sqlite") as store:
        with pytest.raises(PlayerResourceError, match="did not come back"):
            run_match(config, store, progress=False)
        assert store.count() == 0
    game_b = player_seeds(game0)[1]
    tries = [game_b, *(player_seeds(replay_seed(game0, k))[1] for k in (1, 2))]
    assert [s for s in seeds if s in tries] == tries


def test_workers_do_not_import_from_the_current_directory(tmp_path: Path) -> None:
    """A user's ``inspect.py`` in the working directory must not replace the standard module
    in the worker processes (it did: the fork server ran with '' first on ``sys.path``)."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    (cwd / "inspect.py").write_text('raise RuntimeError("poisoned inspect.py imported")\n')
    launcher = tmp_path / "bin" / "sparring_launcher.py"  # like the installed `sparring` script
    launcher.parent.mkdir()
    launcher.write_text('from sparring.cli import main\n\nif __name__ == "__main__":\n    main()\n')
    src = Path(__file__).resolve().parents[1] / "src"
    env = {**os.environ, "PYTHONPATH": str(src)}
    env.pop("PYTHONSAFEPATH", None)
    args = ["match", "tictactoe", "random", "random", "-n", "4", "-w", "2", "--no-progress"]
    done = subprocess.run(
        [sys.executable, str(launcher), *args, "--store", str(tmp_path / "g.sqlite")],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 of 4 games stored" in done.stdout
    assert "poisoned" not in done.stdout + done.stderr


def test_worker_puts_the_current_directory_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sparring.evaluation import match

    ignored: list[object] = []
    monkeypatch.setattr(match.signal, "signal", lambda *args: ignored.append(args))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", ["", "/lib/one", str(tmp_path), "/lib/two"])
    monkeypatch.setenv("PYTHONSAFEPATH", "1")  # as the fork server was started
    monkeypatch.setenv("SPARRING_SAFEPATH_ADDED", "1")
    match.init_worker()
    assert "PYTHONSAFEPATH" not in os.environ and "SPARRING_SAFEPATH_ADDED" not in os.environ
    assert sys.path == ["/lib/one", "/lib/two", "", str(tmp_path)]
    assert ignored == [(match.signal.SIGINT, match.signal.SIG_IGN)]


@pytest.mark.parametrize(
    ("game_name", "spec_a", "spec_b", "games", "moves_hash", "annotations_hash"),
    [
        ("tictactoe", "random", "uct:sims=30", 4, "7f6e2f027cec7a02", "f941396140911b25"),
        (
            "connect4",
            "sa:base=uct,sims=60,z=1",
            "minimax1",
            2,
            "f387b2ae84940f14",
            "e23596ccc36b0778",
        ),
        ("connect4", "az:sims=8", "mcts1", 2, "bceb4128308a7a77", "6d9695b0f6f0de8c"),
    ],
)
def test_stored_games_are_unchanged(
    game_name: str, spec_a: str, spec_b: str, games: int, moves_hash: str, annotations_hash: str
) -> None:
    """The games (moves, results, annotations) a match stores for given seeds are those the
    match runner stored before it played through GameSession (hashes taken with the old
    game loop, commit dbda346's play_game)."""
    import hashlib
    import json

    result = run_match(MatchConfig(game_name, spec_a, spec_b, games=games, seed=11), progress=False)
    moves = json.dumps([[list(r.moves), r.result] for r in result.records])
    notes = json.dumps([r.annotations for r in result.records], sort_keys=True)
    assert hashlib.sha256(moves.encode()).hexdigest()[:16] == moves_hash
    assert hashlib.sha256(notes.encode()).hexdigest()[:16] == annotations_hash
