"""The external engine kinds (``stockfish``, ``gnugo``; :mod:`sparring.players.external`).

Settings: spec text and JSON round trips, bad values and unknown keys rejected with the key
named.  Games through :class:`GameSession` against a seeded random player, an engine killed
(SIGKILL) between moves and replaced without the game noticing, an engine that cannot run
reported as :class:`PlayerResourceError`, a 2-game match in a game store that a second run
resumes without playing anything again, and no engine process left behind.  The tests that
run an engine skip when it is not installed, unless ``SPARRING_CI=1`` (then they fail).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from child_processes import children
from sparring.errors import (
    IncompatiblePlayerError,
    PlayerResourceError,
    PlayerSettingsError,
    UnknownKindError,
)
from sparring.evaluation.match import MatchConfig, run_match
from sparring.evaluation.store import GameStore
from sparring.games import get_game
from sparring.games.base import Game, Outcome
from sparring.players import make_player
from sparring.players.base import Player, RandomPlayer
from sparring.players.external import (
    EngineDied,
    GnuGoPlayer,
    GnuGoSettings,
    GtpClient,
    StockfishPlayer,
    StockfishSettings,
    find_program,
)
from sparring.players.registry import parse_player, settings_from_json
from sparring.session import GameSession
from test_player_conformance import _assert_replays

CI = os.environ.get("SPARRING_CI") == "1"
needs_stockfish = pytest.mark.skipif(
    find_program("stockfish") is None and not CI,
    reason="stockfish is not installed (apt-get install stockfish; SPARRING_CI=1 fails instead)",
)
needs_gnugo = pytest.mark.skipif(
    find_program("gnugo") is None and not CI,
    reason="gnugo is not installed (apt-get install gnugo; SPARRING_CI=1 fails instead)",
)


def _play(game: Game, players: tuple[Player, Player], kill: Player | None = None) -> GameSession:
    """Play to the end; SIGKILL ``kill``'s engine after its second move."""
    session = GameSession(game, players)
    killed = False
    while not session.is_over:
        session.play_player()
        if kill is not None and not killed and session.ply >= 4 and kill.pid is not None:  # type: ignore[attr-defined]
            os.kill(kill.pid, signal.SIGKILL)  # type: ignore[attr-defined]
            time.sleep(0.05)
            killed = True
    assert kill is None or killed
    return session


# ---- settings ------------------------------------------------------------------------------------
def test_spec_and_json_round_trips() -> None:
    settings = parse_player("stockfish:elo=1500,movetime=0.05,hash=32,name=SF")
    assert settings == StockfishSettings(elo=1500, movetime=0.05, hash_mb=32, name="SF")
    assert settings.spec() == "stockfish:elo=1500,movetime=0.05,hash=32,name=SF"
    data = settings.to_json()
    assert data == {
        "kind": "stockfish", "elo": 1500, "skill": None, "movetime": 0.05, "depth": None,
        "nodes": None, "threads": 1, "hash": 32, "path": None, "name": "SF",
    }  # fmt: skip
    assert settings_from_json(json.loads(json.dumps(data))) == settings
    deep = parse_player("stockfish:depth=3,movetime=none")
    assert deep == StockfishSettings(depth=3, movetime=None)
    assert isinstance(deep, StockfishSettings) and deep.reproducible
    assert parse_player(deep.spec()) == deep
    assert not StockfishSettings(skill=0, depth=3, movetime=None).reproducible
    gnugo = parse_player("gnugo:level=3,capture_all_dead=no")
    assert gnugo == GnuGoSettings(level=3, capture_all_dead=False)
    assert gnugo.spec() == "gnugo:level=3,capture_all_dead=no"
    assert parse_player("gnugo") == GnuGoSettings(level=1, capture_all_dead=True)
    assert settings_from_json({"kind": "gnugo", "level": 0}) == GnuGoSettings(level=0)


@pytest.mark.parametrize(
    ("spec", "key"),
    [
        ("stockfish:elo=1349", "elo"),
        ("stockfish:elo=2851", "elo"),
        ("stockfish:skill=21", "skill"),
        ("stockfish:movetime=0", "movetime"),
        ("stockfish:movetime=none", "movetime"),  # no bound at all
        ("stockfish:threads=0", "threads"),
        ("stockfish:depth=x", "depth"),
        ("gnugo:level=11", "level"),
        ("gnugo:level=-1", "level"),
        ("gnugo:capture_all_dead=maybe", "capture_all_dead"),
        ("gnugo:path=/bin/sh", "path"),  # only a program named gnugo*
        ("stockfish:path=/usr/games/gnugo", "path"),
        ("stockfish:hash=4097", "hash"),
    ],
)
def test_bad_values_name_the_key(spec: str, key: str) -> None:
    with pytest.raises(PlayerSettingsError) as info:
        parse_player(spec)
    assert info.value.key == key


def test_unknown_keys_are_rejected() -> None:
    with pytest.raises(UnknownKindError) as info:
        parse_player("gnugo:seed=3")
    assert info.value.key == "seed"
    with pytest.raises(UnknownKindError) as info:
        settings_from_json({"kind": "stockfish", "level": 3})
    assert info.value.key == "level"
    with pytest.raises(PlayerSettingsError) as bad:
        settings_from_json({"kind": "stockfish", "elo": "1500"})
    assert bad.value.key == "elo"


def test_wrong_games_and_missing_programs() -> None:
    with pytest.raises(IncompatiblePlayerError):
        make_player("stockfish", get_game("go9"))
    with pytest.raises(IncompatiblePlayerError):
        make_player("gnugo", get_game("chess"))
    with pytest.raises(PlayerResourceError) as info:
        make_player("gnugo:path=/nonexistent/gnugo", get_game("go9"))
    assert info.value.key == "path"


# ---- games ---------------------------------------------------------------------------------------
@needs_stockfish
def test_stockfish_beats_random_and_survives_a_kill() -> None:
    game = get_game("chess")
    engine = make_player("stockfish:skill=0,movetime=0.01", game, 1)
    assert isinstance(engine, StockfishPlayer)
    session = _play(game, (engine, RandomPlayer(seed=2)), kill=engine)
    _assert_replays(game, session)
    assert session.outcome is Outcome.FIRST_WINS and session.resigned is None
    assert engine.restarts == 1
    assert engine.pid is None  # closed at the end of the game


@needs_gnugo
def test_gnugo_beats_random_on_9x9_and_survives_a_kill() -> None:
    game = get_game("go9")
    engine = make_player("gnugo:level=0", game, 1)
    assert isinstance(engine, GnuGoPlayer)
    session = _play(game, (RandomPlayer(seed=3), engine), kill=engine)
    _assert_replays(game, session)
    assert session.outcome is Outcome.SECOND_WINS
    assert engine.restarts == 1
    assert engine.pid is None


@needs_gnugo
def test_gnugo_repeats_its_moves_for_a_seed_across_clock_seconds() -> None:
    """GNU Go seeds itself from the clock; the player's seed (set_random_seed before each
    genmove) makes the moves the same even when the games start in different seconds."""
    game = get_game("go9")
    games = []
    for _ in range(2):
        session = GameSession(game, (make_player("gnugo:level=0", game, 4), RandomPlayer(seed=6)))
        for _ in range(24):
            session.play_player()
        games.append(session.moves)
        session.resign(1)
        time.sleep(1.1)
    assert games[0] == games[1]


@needs_stockfish
def test_a_fixed_depth_stockfish_repeats_its_games() -> None:
    game = get_game("chess")
    games = []
    for _ in range(2):
        session = GameSession(
            game, (make_player("stockfish:depth=2,movetime=none", game), RandomPlayer(seed=5))
        )
        for _ in range(16):
            session.play_player()
        games.append(session.moves)
        session.resign(1)
    assert games[0] == games[1]


@needs_stockfish
def test_a_closed_stockfish_player_lets_the_process_exit() -> None:
    """python-chess runs a non-daemon thread per engine: a process that moved with a Stockfish
    player and closed it (``Player.close``, as ``se-match`` does) exits at once."""
    import subprocess

    script = (
        "import sparring.kinds\n"
        "from sparring.games import get_game\n"
        "from sparring.players import make_player\n"
        "game = get_game('chess')\n"
        "player = make_player('stockfish:depth=1,movetime=none', game)\n"
        "print(player.select_move(game, game.initial_state()))\n"
        "player.close()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert int(done.stdout.strip()) >= 0


@needs_gnugo
def test_gnugo_plays_from_a_handicap_and_after_an_undo() -> None:
    game = get_game("go9")
    engine = make_player("gnugo:level=0", game, 1)
    session = GameSession(game, (RandomPlayer(seed=7), engine))
    points = session.place_handicap(2)
    for _ in range(6):
        session.play_player()
    session.undo(2)  # the players are told the game again
    for _ in range(6):
        session.play_player()
    _assert_replays(game, session)
    assert len(points) == 2 and session.ply == 10
    assert not any(session.annotations)  # no GNU Go move was illegal in sparring's game
    assert all(int(game.board(session.state).flatten()[p]) == 1 for p in points)


CRASH_89 = (
    "D16 R4 D3 Q16 P3 M4 P5 Q6 R3 P6 O5 S3 R2 N7 M5 L4 L5 N4 N5 K4 K5 J4 J5 H4 H5 G4 G5 F4 D5 "
    "N2 O2 F5 F6 C7 E6 C10 C12 O3 P2 F17 E17 F16 J17 B5 B4 Q10 O17 M17 R17 R16 Q17 P16 P17 N15 "
    "S16 S15 S17 R14 O16 O15 M16 N16 N17 L16 M15 M14 L15 K15 L14 L13 K14 J14 K13 K12 J13 H13 "
    "J12 J11 H12 G12 H11 H10 G11 F11 G10 G9 F10 E10 F9"
)
"""89 moves of a 19x19 game of the play network against GNU Go (2026-11-27) after which
Debian's GNU Go 3.8 segfaults on ``genmove W`` at every level but 0, whatever the seed."""


@needs_gnugo
def test_a_position_that_kills_gnugo_at_its_level_is_played_at_level_0() -> None:
    game = get_game("go")
    engine = make_player("gnugo:level=1", game, 1)
    assert isinstance(engine, GnuGoPlayer)
    session = GameSession(game, (RandomPlayer(seed=1), engine))
    for text in CRASH_89.split():
        session.play(game.parse_move(text))
    move = session.play_player()
    assert game.is_legal(session.state_at(89), move)
    assert session.annotations[-1] == {"level": 0}
    assert engine.restarts == 2  # died at level 1 three times (two restarts), then level 0
    session.resign(0)
    assert engine.pid is None


@needs_gnugo
def test_a_dead_engine_that_stays_dead_is_a_resource_error(tmp_path: Path) -> None:
    game = get_game("go9")
    broken = tmp_path / "gnugo"
    broken.write_text("#!/bin/sh\nexit 1\n")
    broken.chmod(0o755)
    engine = make_player(f"gnugo:path={broken}", game, 1)
    session = GameSession(game, (engine, RandomPlayer(seed=1)))
    with pytest.raises(PlayerResourceError, match="died 3 times"):
        session.play_player()
    assert session.ply == 0


# ---- matches -------------------------------------------------------------------------------------
@needs_stockfish
def test_a_match_is_stored_and_resumed_without_replaying(tmp_path: Path) -> None:
    before = set(children())
    config = MatchConfig("chess", "stockfish:depth=1,movetime=none", "random", games=2, seed=3)
    with GameStore(tmp_path / "games.sqlite") as store:
        first = run_match(config, store, progress=False)
        assert (first.played, first.skipped, store.count(first.run_key)) == (2, 0, 2)
        again = run_match(config, store, progress=False)
        assert (again.played, again.skipped, store.count(again.run_key)) == (0, 2, 2)
    assert [r.result for r in again.records] == [r.result for r in first.records]
    assert [r.score_a for r in first.records] == [
        1.0,
        1.0,
    ]  # A (Stockfish) wins both, first and second
    assert set(children()) <= before  # no engine left running, no zombie


def test_a_silent_gtp_engine_is_killed_and_counts_as_died(tmp_path: Path) -> None:
    # An engine that answers the first command and then hangs: the watchdog kills it after
    # the client's timeout, and the read ends with EngineDied (restarted like a crash).
    script = tmp_path / "silent.py"
    script.write_text(
        "import sys, time\n"
        "sys.stdin.readline(); print('= 2'); print(); sys.stdout.flush()\n"
        "sys.stdin.readline(); time.sleep(60)\n"
    )
    client = GtpClient([sys.executable, str(script)], timeout=0.5)
    assert client.send("protocol_version") == "2"
    with pytest.raises(EngineDied, match=r"no answer to 'genmove b' within 0.5 s"):
        client.send("genmove b")
    assert client.process.wait(5) != 0
    client.close()
