"""``sparring gtp`` driven as a subprocess by a small GTP client: protocol conformance, bad
input, a whole 9x9 game, time settings, handicap, analysis, strength at run time, and a few
moves against GNU Go when Debian's ``gnugo`` is installed."""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sparring.engines.common import level_lines, strength_settings
from sparring.engines.gtp import (
    GTPEngine,
    GTPError,
    TimeSettings,
    clean_line,
    gtp_think_time,
    parse_kgs_time_settings,
)
from sparring.errors import SparringError
from sparring.games import get_game
from sparring.games.base import Game, State
from sparring.players.base import Decision, Player
from sparring.search.limit import Limit

GNUGO = Path("/usr/games/gnugo")


class GTPClient:
    """A line-protocol GTP client over a subprocess."""

    def __init__(self, *command: str) -> None:
        self.proc = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def readline(self) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, "the engine closed its output"
        return line.rstrip("\n")

    def response(self) -> tuple[bool, str]:
        """Read one response: (success, text after the status character and id)."""
        first = self.readline()
        while first == "":  # blank lines between responses
            first = self.readline()
        assert first[0] in "=?", f"not a GTP response: {first!r}"
        lines = [first]
        while True:
            line = self.readline()
            if line == "":
                break
            lines.append(line)
        text = "\n".join(lines)
        return text[0] == "=", text[1:].strip()

    def ask(self, line: str) -> tuple[bool, str]:
        self.send(line)
        return self.response()

    def ok(self, line: str) -> str:
        success, text = self.ask(line)
        assert success, f"{line!r} failed: {text}"
        return text

    def fails(self, line: str) -> str:
        success, text = self.ask(line)
        assert not success, f"{line!r} should fail, got = {text}"
        return text

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.send("quit")
                self.proc.wait(timeout=10)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


def sparring_gtp(*options: str) -> GTPClient:
    return GTPClient(sys.executable, "-m", "sparring", "gtp", *options)


@pytest.fixture
def engine() -> Iterator[GTPClient]:
    client = sparring_gtp("--game", "go9", "--player", "uct:sims=16", "--seed", "1")
    yield client
    client.close()


REQUIRED = [
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "fixed_handicap",
    "place_free_handicap",
    "set_free_handicap",
    "play",
    "genmove",
    "reg_genmove",
    "undo",
    "showboard",
    "final_score",
    "final_status_list",
    "time_settings",
    "kgs-time_settings",
    "time_left",
    "kgs-genmove_cleanup",
    "lz-analyze",
    "sparring-strength",
]


def test_think_time_and_strength_rules() -> None:
    game = get_game("go9")
    empty = game.initial_state()
    assert gtp_think_time(game, empty, None, None) is None  # no time settings
    assert gtp_think_time(game, empty, TimeSettings(0, 10, 0), None) is None  # no limit
    # byo-yomi: 10 s for 5 stones -> 2 s, less 5% and 50 ms
    assert gtp_think_time(game, empty, TimeSettings(60, 10, 5), (10, 5)) == pytest.approx(1.85)
    # main time: 81 empty points / 3 = 27 moves; 27 s left -> 1 s, plus 0.8 * 10 / 5 = 1.6 s
    assert gtp_think_time(game, empty, TimeSettings(60, 10, 5), (27, 0)) == pytest.approx(
        0.95 * 2.6 - 0.05
    )
    assert strength_settings(game).spec() == "az:finish=yes"  # the shipped 9x9 network
    assert strength_settings(get_game("go13")).spec() == "uct:name=MCTS1"  # none for 13x13
    with pytest.raises(SparringError, match="go9 has no measured rank ladder"):
        strength_settings(game, rank="3d")
    # 9x9 Elo levels: the network's measured simulation counts, the nearest one played
    assert strength_settings(game, elo=1000).spec() == "az:model=go9,sims=3200,finish=yes"
    go = get_game("go")
    # the default: the strongest level, the play network at 9d with 32 simulations
    assert strength_settings(go).spec() == "human-mcts:rank=9d,sims=32,model=go-play"
    assert strength_settings(go, simulations=4).spec() == "human-mcts:rank=9d,sims=4,model=go-play"
    with pytest.raises(SparringError, match="the measured ranks are 20k to 9k"):
        strength_settings(go, rank="3k")
    assert strength_settings(go, rank="20k").spec() == (
        "human-mcts:rank=3-5k,sims=1,model=go-play,temp=0.9523"
    )
    with pytest.raises(SparringError, match="style"):
        strength_settings(go, rank="3k", style="human-like")
    # an Elo on GNU Go's scale: SA's z over the play network, from the shipped scale
    assert strength_settings(go, elo=950).spec() == "sa-mcts:gnugo_elo=950"
    with pytest.raises(SparringError, match="style"):
        strength_settings(go, elo=950, style="human-like")
    assert strength_settings(go, elo=950, simulations=8).spec() == "sa-mcts:gnugo_elo=950"
    # what the engine says of its work: the z the scale chose, (950 - 791.77) / (1000 - 791.77)
    said = level_lines(strength_settings(go, elo=950), go)
    assert said[1] == "its work a move: sa-mcts:rank=9d,z=0.76,sims=32,model=go-play-early"


def test_administrative_commands(engine: GTPClient) -> None:
    assert engine.ok("protocol_version") == "2"
    assert engine.ok("name") == "sparring"
    listed = engine.ok("list_commands").split("\n")
    assert set(REQUIRED) <= set(listed)
    assert engine.ok("known_command genmove") == "true"
    assert engine.ok("known_command frobnicate") == "false"
    engine.send("12 name")
    assert engine.readline() == "=12 sparring"
    assert engine.readline() == ""
    engine.send("13 frobnicate")
    assert engine.readline() == "?13 unknown command"
    assert engine.readline() == ""
    engine.send("quit")
    assert engine.readline() == "="
    assert engine.proc.wait(timeout=10) == 0


def test_bad_input_is_answered_and_changes_nothing(engine: GTPClient) -> None:
    engine.ok("play b E5")
    board = engine.ok("showboard")
    assert engine.fails("frobnicate") == "unknown command"
    assert engine.fails("play w E5").startswith("illegal move")  # occupied
    assert "bad move" in engine.fails("play b Z9")  # malformed vertex
    assert "bad move" in engine.fails("play b E10")  # off the 9x9 board
    assert "colour" in engine.fails("play x D4")
    assert "syntax error" in engine.fails("play b")
    assert "unacceptable size" in engine.fails("boardsize 99")
    assert "syntax error" in engine.fails("boardsize nine")
    assert "komi" in engine.fails("komi 6.3")  # the rules take half points only
    assert "syntax error" in engine.fails("komi x")
    assert "empty board" in engine.fails("fixed_handicap 2")  # a stone is already down
    assert "syntax error" in engine.fails("genmove")
    assert "syntax error" in engine.fails("time_left b -3 0")
    assert "syntax error" in engine.fails("final_status_list maybe")
    assert engine.proc.stdin is not None
    engine.proc.stdin.flush()
    engine.proc.stdin.buffer.write(b"\xff\xfe name\n")  # not UTF-8
    engine.proc.stdin.buffer.flush()
    assert engine.response() == (False, "unknown command")
    assert engine.ok("showboard") == board  # nothing changed
    engine.ok("undo")
    assert engine.fails("undo") == "cannot undo"
    assert engine.ok("name") == "sparring"  # still alive


def test_random_lines_never_kill_the_engine(engine: GTPClient) -> None:
    rng = random.Random(7)
    words = [c for c in REQUIRED if c not in ("quit", "lz-analyze")] + ["foo", "", "#", "9"]
    args = ["b", "w", "E5", "pass", "Z0", "-1", "0", "3", "19", "7.5", "x", "alive", "\t", "\x01"]
    answered = 0
    for _ in range(300):
        line = " ".join([rng.choice(words), *rng.choices(args, k=rng.randrange(4))])
        if not clean_line(line):  # nothing left to answer (GTP ignores it)
            continue
        _success, _text = engine.ask(line)
        answered += 1
    assert answered > 250
    assert engine.proc.poll() is None
    assert engine.ok("name") == "sparring"


def _replay_margin(moves: list[tuple[int, str]], komi: float) -> float:
    """Black's area margin after ``moves`` (replayed until the game ends)."""
    game = get_game("go9", komi=komi)
    state = game.initial_state()
    for side, text in moves:
        if game.is_terminal(state):
            break
        if game.to_move(state) != side:
            state = game.with_side_to_move(state, side)
        state = game.play(state, game.parse_move(text))
    return float(game.score_margin(state))  # type: ignore[attr-defined]


def test_a_whole_9x9_game_and_its_score(engine: GTPClient) -> None:
    engine.ok("komi 6.5")
    moves: list[tuple[int, str]] = []
    passes = 0
    while passes < 2 and len(moves) < 200:
        side = len(moves) % 2
        reply = engine.ok(f"genmove {'bw'[side]}").upper()
        passes = passes + 1 if reply == "PASS" else 0
        moves.append((side, reply))
    assert passes == 2, "the game did not end"
    margin = _replay_margin(moves, 6.5)
    expected = "0" if margin == 0 else f"{'B' if margin > 0 else 'W'}+{abs(margin):g}"
    assert engine.ok("final_score") == expected
    assert "game is over" in engine.fails("play b A1")
    assert engine.ok("genmove w").upper() == "PASS"  # nothing left to play
    engine.ok("clear_board")
    engine.ok("play b E5")  # a new game goes on


def test_handicap_and_out_of_turn_moves(engine: GTPClient) -> None:
    game = get_game("go9")
    expected = " ".join(game.move_to_text(p) for p in game.fixed_handicap(3))
    assert engine.ok("fixed_handicap 3") == expected
    assert "empty board" in engine.fails("fixed_handicap 2")
    engine.ok("play b A1")  # Black again, out of turn
    move = engine.ok("genmove b")  # and once more
    assert move.upper() not in [*expected.split(), "A1"]
    stones = engine.ok("final_status_list alive").split()
    assert sorted(stones) == sorted([*expected.split(), "A1", move.upper()])
    engine.ok("clear_board")
    assert "twice" in engine.fails("set_free_handicap C3 C3")
    assert "point" in engine.fails("set_free_handicap C3 pass")
    engine.ok("set_free_handicap A1 B2")
    assert sorted(engine.ok("final_status_list alive").split()) == ["A1", "B2"]
    assert engine.ok("final_status_list dead") == ""
    assert "empty board" in engine.fails("place_free_handicap 2")
    engine.ok("clear_board")
    two = " ".join(game.move_to_text(p) for p in game.fixed_handicap(2))
    assert engine.ok("place_free_handicap 2") == two


def test_time_settings_bound_genmove() -> None:
    # 50,000 UCT simulations take seconds on 9x9: only the clock can end the search early
    client = sparring_gtp("--game", "go9", "--player", "uct:sims=50000", "--seed", "1")
    try:
        client.ok("time_settings 0 1 1")  # byo-yomi: 1 second per move
        client.ok("time_left b 1 1")
        began = time.perf_counter()
        client.ok("genmove b")
        elapsed = time.perf_counter() - began
        assert 0.6 < elapsed < 2.0, elapsed  # thinks 0.95 * 1 s - 50 ms
        client.ok("time_settings 0 1 0")  # byo-yomi time without stones: no limit
        client.ok("sparring-strength player uct:sims=200")
        client.ok("genmove w")
    finally:
        client.close()


def test_kgs_time_settings_map_onto_the_clock() -> None:
    game = get_game("go9")
    empty = game.initial_state()
    assert parse_kgs_time_settings(["none"]) is None
    assert parse_kgs_time_settings(["absolute", "600"]) == TimeSettings(600.0, 0.0, 0)
    assert parse_kgs_time_settings(["canadian", "60", "30", "5"]) == TimeSettings(60.0, 30.0, 5)
    japanese = parse_kgs_time_settings(["byoyomi", "60", "10", "3"])
    assert japanese == TimeSettings(60.0, 10.0, 3, japanese=True)
    assert parse_kgs_time_settings(["byoyomi", "60", "10", "0"]) == TimeSettings(60.0, 0.0, 0)
    for bad in ([], ["sudden"], ["absolute"], ["byoyomi", "1", "2"], ["canadian", "1", "x", "2"],
                ["absolute", "-5"], ["none", "3"]):  # fmt: skip
        with pytest.raises(GTPError, match="syntax error"):
            parse_kgs_time_settings(bad)
    # Japanese byo-yomi: in a period, think within the period's time left (not shared out)
    assert gtp_think_time(game, empty, japanese, (10, 3)) == pytest.approx(0.95 * 10 - 0.05)
    # in the main time: 81 empty points / 3 = 27 moves; 27 s left -> 1 s, plus 0.8 of a period
    assert gtp_think_time(game, empty, japanese, (27, 0)) == pytest.approx(0.95 * 9 - 0.05)
    # absolute: the main time shared out alone
    assert gtp_think_time(game, empty, TimeSettings(54, 0, 0), None) == pytest.approx(
        0.95 * 2 - 0.05
    )


def _clock_lines(err: io.StringIO) -> list[str]:
    return [line for line in err.getvalue().splitlines() if "clock too short" in line]


def _in_process(player: str, **kwargs: object) -> tuple[GTPEngine, io.StringIO, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    engine = GTPEngine(out, game=get_game("go9"), strength=("player", player), seed=1, err=err,
                       **kwargs)  # type: ignore[arg-type]  # fmt: skip
    return engine, out, err


def _decisions(monkeypatch: pytest.MonkeyPatch, player: Player) -> list[Decision]:
    """The decisions ``player`` makes from now on (its ``play`` spied on)."""
    seen: list[Decision] = []
    play = player.play

    def spy(game: Game, state: State, limit: Limit | None = None) -> Decision:
        seen.append(play(game, state, limit))
        return seen[-1]

    monkeypatch.setattr(player, "play", spy)
    return seen


def test_the_clock_is_an_upper_bound_and_says_when_it_cut_the_level_short(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A minute a move does not make 64 simulations more; an absolute clock of 1 s (0.01 s a
    move) stops 100,000 simulations, said on standard error, and the best move is played."""
    engine, out, err = _in_process("uct:sims=64")
    decisions = _decisions(monkeypatch, engine.seat.player)
    engine.handle("1 kgs-time_settings byoyomi 0 60 3")
    engine.handle("2 genmove b")
    analysis = decisions[-1].analysis
    assert analysis is not None
    assert (analysis.simulations, analysis.budget, analysis.stopped) == (64, 64, False)
    assert _clock_lines(err) == []
    engine.handle("3 sparring-strength player uct:sims=100000")
    decisions = _decisions(monkeypatch, engine.seat.player)  # the new settings' player
    engine.handle("4 kgs-time_settings absolute 1")
    engine.handle("5 genmove w")
    analysis = decisions[-1].analysis
    assert analysis is not None and analysis.stopped and analysis.budget == 100_000
    [line] = _clock_lines(err)
    assert line.startswith(
        f"sparring: clock too short for this level: {analysis.simulations} of 100000 "
        "simulations in "
    )
    replies = out.getvalue().split("\n\n")
    assert replies[:4] == ["=1", replies[1], "=3 uct:sims=100000", "=4"]
    assert replies[4] == f"=5 {get_game('go9').move_to_text(analysis.move)}"


def test_the_clock_starts_when_genmove_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """What ``genmove`` does before the search counts against the move's time: with 0.1 s a
    move and 0.25 s spent first, no simulation is left to run."""
    engine, _out, err = _in_process("uct:sims=100000", move_time=0.1)
    move = engine.seat.move

    def slow(*args: object, **kwargs: object) -> Decision:
        time.sleep(0.25)
        return move(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(engine.seat, "move", slow)
    decisions = _decisions(monkeypatch, engine.seat.player)
    engine.handle("1 genmove b")
    analysis = decisions[-1].analysis
    assert analysis is not None and analysis.simulations == 0
    [line] = _clock_lines(err)
    assert line.startswith("sparring: clock too short for this level: 0 of 100000 simulations")


def test_move_time_option() -> None:
    # 100,000 simulations take several seconds: the 0.3 s bound stops the search (a loose upper
    # bound, so a loaded machine does not fail it; the lower one shows the time was used)
    client = sparring_gtp("--game", "go9", "--player", "uct:sims=100000", "--time", "0.3")
    try:
        assert client.ok("name") == "sparring"  # started
        began = time.perf_counter()
        client.ok("genmove b")
        assert 0.25 < time.perf_counter() - began < 4.0
    finally:
        client.close()


def test_lz_analyze_lines_then_the_next_command(engine: GTPClient) -> None:
    engine.ok("play b E5")
    engine.send("lz-analyze 10")
    assert engine.readline() == "="
    line = engine.readline()
    while not line.startswith("info"):
        line = engine.readline()
    game = get_game("go9")
    entries = line.split("info move ")[1:]
    assert entries
    last_visits = None
    for entry in entries:
        words = entry.split()
        move = game.parse_move(words[0])
        assert words[1] == "visits" and int(words[2]) > 0
        assert words[3] == "winrate" and 0 <= int(words[4]) <= 10000
        assert words[5] == "prior" and words[7] == "order" and words[9] == "pv"
        assert move != game.parse_move("E5")  # occupied
        if last_visits is not None:
            assert int(words[2]) <= last_visits  # most visited first
        last_visits = int(words[2])
    engine.send("name")  # ends the analysis with an empty line, then answers
    line = engine.readline()
    while line.startswith("info"):
        line = engine.readline()
    assert line == ""
    assert engine.readline() == "= sparring"
    assert engine.readline() == ""


def test_strength_at_run_time(engine: GTPClient) -> None:
    assert engine.ok("sparring-strength") == "uct:sims=16"
    assert engine.ok("sparring-strength player uct:sims=8") == "uct:sims=8"
    assert "no measured rank ladder" in engine.fails("sparring-strength rank 3d")
    assert "syntax error" in engine.fails("sparring-strength rank")
    assert "unknown" in engine.fails("sparring-strength player nosuchkind").lower()
    assert engine.ok("sparring-strength") == "uct:sims=8"  # unchanged by the failures
    assert engine.ok("sparring-strength default") == "az:finish=yes"  # the 9x9 network


def test_levels_on_19x19() -> None:
    client = sparring_gtp("--sims", "4", "--seed", "1")
    try:
        assert client.ok("sparring-strength") == "human-mcts:rank=9d,sims=4,model=go-play"
        move = get_game("go").parse_move(client.ok("genmove b"))
        assert move != get_game("go").num_actions - 1
        assert "the measured ranks are 20k to 9k" in client.fails("sparring-strength rank 2k")
        assert client.ok("sparring-strength rank 15k").startswith("human-mcts:rank=3d,sims=1,")
        # an Elo on GNU Go's scale (sa-mcts over the play network, the shipped scale's z)
        # (clamped to the measured range: 1500 is above its top, 1000)
        assert client.ok("sparring-strength elo 1500") == "sa-mcts:gnugo_elo=1000"
        assert "not a number" in client.fails("sparring-strength elo strong")
        client.ok("genmove w")
    finally:
        client.close()


def test_elo_on_19x19_plays_the_gnu_go_scale() -> None:
    client = sparring_gtp("--elo", "900", "--seed", "1")
    try:
        assert client.ok("sparring-strength") == "sa-mcts:gnugo_elo=900"
        move = get_game("go").parse_move(client.ok("genmove b"))
        assert move != get_game("go").num_actions - 1
    finally:
        client.close()


def test_against_gnugo() -> None:
    if not GNUGO.exists():
        if os.environ.get("SPARRING_CI") == "1":
            pytest.fail(f"{GNUGO} is missing (scripts/install.sh installs Debian's gnugo)")
        pytest.skip(f"{GNUGO} is not installed (Debian package gnugo)")
    # no --seed: Debian's GNU Go 3.8 can crash with one
    gnugo = GTPClient(str(GNUGO), "--mode", "gtp", "--level", "1")
    ours = sparring_gtp("--game", "go9", "--player", "uct:sims=64", "--seed", "1")
    try:
        for client in (gnugo, ours):
            client.ok("boardsize 9")
            client.ok("clear_board")
            client.ok("komi 6.5")
        for _ in range(6):
            black = ours.ok("genmove b")
            gnugo.ok(f"play b {black}")
            white = gnugo.ok("genmove w")
            ours.ok(f"play w {white}")
        assert gnugo.ok("showboard")  # both boards have the same stones
        ours_alive = sorted(ours.ok("final_status_list alive").split())
        theirs = sorted(
            gnugo.ok("list_stones black").split() + gnugo.ok("list_stones white").split()
        )
        assert ours_alive == theirs
    finally:
        gnugo.close()
        ours.close()


def test_bad_options_are_one_line_and_exit_2() -> None:
    for args, line in [
        (["--game", "go9", "--rank", "3d"],
         "error: go9 has no measured rank ladder; it offers an Elo from 619 to 1070 on GNU Go "
         "3.8 on 9x9 (GNU Go level 1 = 1000, komi 7.5), 'strongest'"),
        (["--game", "go13", "--elo", "900"],
         "error: go13 has no Elo levels; it offers only its default AI"),
        (["--rank", "3d", "--elo", "900"],
         "error: give one of --rank, --elo and --player, not --rank and --elo"),
    ]:  # fmt: skip
        done = subprocess.run(
            [sys.executable, "-m", "sparring", "gtp", *args],
            input="boardsize 9\n",  # needs the player: never answered
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.strip().splitlines() == [line]


def _resigning(player: Player) -> Callable[..., Decision]:
    """``player.play`` whose decisions resign (the move kept, annotated
    ``{"resigned": true}``)."""
    play = player.play

    def resigning(game: Game, state: State, limit: Limit | None = None) -> Decision:
        return Decision(play(game, state, limit).move, annotation={"resigned": True})

    return resigning


def test_genmove_answers_resign_when_the_player_resigns(monkeypatch: pytest.MonkeyPatch) -> None:
    """A player that resigns (its annotation says so, as the GNU Go player's does for GNU Go's
    ``resign``) is answered ``resign``, not the placeholder pass: by ``reg_genmove`` without
    changing the game, by ``genmove`` in turn and out of turn, ending the game."""
    for first, side in (("black", 0), ("white", 1)):
        out = io.StringIO()
        engine = GTPEngine(out, game=get_game("go9"), strength=("player", "random"), seed=3)
        monkeypatch.setattr(engine.seat.player, "play", _resigning(engine.seat.player))
        engine.handle("1 reg_genmove " + first)
        assert engine.seat.session.resigned is None and engine.seat.session.ply == 0
        engine.handle("2 genmove " + first)
        assert engine.seat.session.resigned == side and engine.seat.session.ply == 0
        engine.handle("3 genmove " + first)  # the game is over: nothing more to play
        assert out.getvalue().split("\n\n")[:3] == ["=1 resign", "=2 resign", "=3 pass"]
