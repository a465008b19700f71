"""``sparring uci`` driven as a subprocess: by python-chess's ``chess.engine`` (a whole game,
analysis, options) and line by line (bad input, ``stop``, ``go movetime``, random lines), and
a few moves against Debian's Stockfish when it is installed; the search, clock and ``info``
lines of ``go`` on an engine in this process (cheap UCT players, fixed seeds)."""

from __future__ import annotations

import io
import os
import queue
import random
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import chess
import chess.engine
import pytest

import sparring.kinds  # noqa: F401  (registers the player kinds for the in-process engines)
from sparring.engines import uci
from sparring.engines.common import strength_settings, value_to_cp, value_to_winrate
from sparring.engines.uci import (
    ELO_MAX,
    ELO_MIN,
    INFO_INTERVAL,
    EngineOptions,
    GoParams,
    Opponent,
    UCIEngine,
    UCIError,
    asked_elo,
    parse_go,
    parse_opponent,
    think_time,
)
from sparring.errors import SparringError
from sparring.games import get_game
from sparring.games.base import Game, State
from sparring.levels import Level, resolve
from sparring.players.base import Decision, Player
from sparring.players.human_like import HumanMCTSSettings
from sparring.search.limit import Limit

STOCKFISH = Path("/usr/games/stockfish")
needs_stockfish = pytest.mark.skipif(
    not STOCKFISH.exists() and os.environ.get("SPARRING_CI") != "1",
    reason=f"{STOCKFISH} is not installed (Debian package stockfish; the measured Elos use it)",
)
COMMAND = [sys.executable, "-m", "sparring", "uci", "--sims", "8", "--seed", "1"]
"""The engine at full strength with 8 simulations a move (the Simulations option; fast)."""


class UCIClient:
    """A raw line client: every engine line goes to a queue read with a timeout."""

    def __init__(self, *options: str) -> None:
        self.proc = subprocess.Popen(
            [*COMMAND, *options],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, prefix: str, timeout: float = 30.0) -> list[str]:
        """Lines up to and including the first starting with ``prefix``."""
        seen = []
        deadline = time.monotonic() + timeout
        while True:
            line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            seen.append(line)
            if line.startswith(prefix):
                return seen

    def ready(self) -> list[str]:
        """Lines before ``readyok`` (after sending ``isready``)."""
        self.send("isready")
        return self.until("readyok")[:-1]

    def said(self) -> list[str]:
        """The ``info string`` lines of a one-move search from the start (an engine says its
        player at the first ``go`` after a change)."""
        self.send("position startpos")
        self.send("go depth 1")
        return [line for line in self.until("bestmove") if line.startswith("info string")]

    def close(self) -> None:
        if self.proc.poll() is None:
            self.send("quit")
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def client() -> Iterator[UCIClient]:
    c = UCIClient()
    c.send("uci")
    c.until("uciok")
    c.ready()  # builds the player
    yield c
    c.close()


def errors(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("info string error")]


# ---- pure parts -----------------------------------------------------------------------------
def test_think_time_rules() -> None:
    assert think_time(GoParams(movetime=100), 0, 30) == pytest.approx(0.07)
    # 60 s left, 30 moves to go by default, 1 s increment: 60/30 + 0.8 = 2.8 s, less 30 ms
    assert think_time(GoParams(wtime=60_000, winc=1000), 0, 30) == pytest.approx(2.77)
    # Black's clock: 10 s over 5 moves = 2 s
    assert think_time(GoParams(wtime=1, btime=10_000, movestogo=5), 1, 0) == pytest.approx(2.0)
    # never more than half the clock: 1 s left, 1 move to go -> 0.5 s
    assert think_time(GoParams(btime=1000, movestogo=1), 1, 0) == pytest.approx(0.5)
    assert think_time(GoParams(nodes=5), 0, 30) is None
    assert parse_go(["wtime", "5", "btime", "6", "movestogo", "3", "infinite"]) == GoParams(
        wtime=5, btime=6, movestogo=3, infinite=True
    )
    for bad in ("movetime", "movetime x", "depth 0", "nodes -1", "sideways 3"):
        with pytest.raises(Exception, match="go"):
            parse_go(bad.split())


def test_scores_and_strength_settings() -> None:
    assert [value_to_cp(v) for v in (0.0, 0.5, -0.2, 1.0, -1.0)] == [0, 111, -36, 12800, -12800]
    assert value_to_cp(float("nan")) == 0
    assert value_to_winrate(0.5) == 0.75
    chess_game = get_game("chess")
    # an Elo: the level resolver's setting (the Stockfish scale chooses the simulations)
    assert strength_settings(chess_game, elo=1500) == HumanMCTSSettings(sf_elo=1500.0)
    assert strength_settings(chess_game, elo=1500) == resolve(chess_game, Level.at_elo(1500))[0]
    # full strength with other simulations: the strongest level's search, not measured
    strongest = resolve(chess_game, Level.strongest())[0]
    assert strength_settings(chess_game, simulations=8) == replace(strongest, simulations=8)
    assert strength_settings(chess_game) == strongest
    with pytest.raises(SparringError, match="style"):
        strength_settings(chess_game, elo=1500, style="human-like")
    with pytest.raises(SparringError, match="a rank is like 5k or 3d"):
        strength_settings(chess_game, rank="1400-1600")
    with pytest.raises(SparringError, match="style"):
        strength_settings(chess_game, style="wild")


# ---- python-chess as the GUI ---------------------------------------------------------------
def test_a_game_through_python_chess() -> None:
    engine = chess.engine.SimpleEngine.popen_uci(COMMAND)
    try:
        assert engine.id["name"].startswith("sparring")
        elo = engine.options["UCI_Elo"]
        assert (elo.type, elo.min, elo.max) == ("spin", ELO_MIN, ELO_MAX)
        assert engine.options["Style"].var == ["measured"]
        engine.configure({"Simulations": 4})
        board = chess.Board()
        while not board.is_game_over() and board.ply() < 30:
            result = engine.play(board, chess.engine.Limit(nodes=8))
            assert result.move in board.legal_moves
            board.push(result.move)
        # a finished game: from a position with mate in one for White
        board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
        engine.configure({"Simulations": 64})
        result = engine.play(board, chess.engine.Limit(nodes=200))
        assert result.move in board.legal_moves
        board.push(result.move)
        assert board.is_checkmate()  # Ra8#: the search finds the mate
        result = engine.play(board, chess.engine.Limit(nodes=8))
        assert result.move is None  # bestmove (none): no legal move
    finally:
        engine.quit()


def test_analysis_info_and_multipv() -> None:
    engine = chess.engine.SimpleEngine.popen_uci(COMMAND)
    try:
        engine.configure({"Simulations": 16, "UCI_ShowWDL": True})
        infos = engine.analyse(chess.Board(), chess.engine.Limit(depth=4), multipv=3)
        assert len(infos) == 3
        for info in infos:
            assert info["depth"] == 4 and info["nodes"] > 0
            assert "score" in info and "wdl" in info
            assert info["pv"][0] in chess.Board().legal_moves
        assert len({info["pv"][0] for info in infos}) == 3
    finally:
        engine.quit()


@needs_stockfish
def test_limit_strength_builds_the_human_like_player() -> None:
    c = UCIClient()
    try:
        c.send("setoption name Style value measured")
        c.send("setoption name UCI_LimitStrength value true")
        c.send("setoption name UCI_Elo value 1500")
        assert c.ready() == []  # nothing between commands: said at the next go
        lines = c.said()
        level = "level Elo 1500 (Stockfish 15.1 UCI_Elo): player human-mcts:sf_elo=1500"
        assert lines[0] == f"info string {level}", lines
        # the work the scale chose for 1500 (simulations at a 1,000-node leaf), then seconds
        work = "human-mcts:sims=40,cpuct=0.25,sf_nodes=1000,sweep=true"
        assert lines[1] == f"info string its work a move: {work}", lines
        assert lines[2].startswith("info string about ")
        assert c.said() == []  # said once
        c.send("setoption name UCI_Elo value 5000")
        assert c.ready() == ["info string error option UCI_Elo: 5000 outside 0..4000"]
        c.send("setoption name UCI_Elo value 3000")  # above the measured range: its top, said
        assert c.ready() == []
        lines = c.said()
        assert lines[0].startswith("info string level Elo 1991 (Stockfish 15.1 UCI_Elo)"), lines
        assert lines[-1] == (
            "info string Elo 3000 is outside the measured range 842..1991 of Stockfish 15.1 "
            "UCI_Elo; playing the strongest level, 1991"
        )
        c.send("setoption name Player value uct:sims=20")
        assert c.said() == ["info string player uct:sims=20"]
        c.send("setoption name Player value <empty>")
        c.send("setoption name UCI_LimitStrength value false")
        # full strength with --sims 8: the strongest level's search with 8 simulations
        eight = "human-mcts:sims=8,cpuct=0.25,sf_nodes=10000,sweep=true"
        assert c.said()[0].endswith(f"player {eight}")
        c.send("setoption name Simulations value 0")  # the strongest level's own work
        strongest = "human-mcts:sims=35,cpuct=0.25,sf_nodes=10000,sweep=true"
        level = "level the strongest level, Elo 1992 (Stockfish 15.1 UCI_Elo)"
        assert c.said()[0] == f"info string {level}: player {strongest}"
        assert strength_settings(get_game("chess")).spec() == strongest
        c.send("position startpos moves e2e4")
        c.send("go movetime 300")
        move = c.until("bestmove")[-1].split()[1]
        board = chess.Board()
        board.push_uci("e2e4")
        assert chess.Move.from_uci(move) in board.legal_moves
    finally:
        c.close()


# ---- raw lines -------------------------------------------------------------------------------
def test_bad_input_gets_an_error_line_and_changes_nothing() -> None:
    c = UCIClient()
    try:
        c.send("go depth 1")  # before any position
        assert errors(c.ready()) == [
            "info string error go before position: send position startpos|fen ... first"
        ]
        c.send("stop")  # no search: no answer at all
        assert c.ready() == []
        c.send("position startpos moves e2e4")
        for bad in (
            "frobnicate",
            "position fen not/a/fen w - - 0 1",
            "position startpos moves e2e5",
            "position startpos moves e2e4 e7e5 zz99",
            "position sideways",
            "setoption name UCI_Elo value 99999",
            "setoption name UCI_Elo value many",
            "setoption name NoSuchOption value 1",
            "setoption name Style value wild",
            "setoption name Player value nosuchkind",
            "setoption name Player value az",  # no chess network to build it from
            "go movetime x",
            "debug maybe",
        ):
            c.send(bad)
            assert len(errors(c.ready())) == 1, bad
        c.send("position startpos moves e2e4")
        c.send("go depth 2")
        best = c.until("bestmove")[-1].split()[1]
        board = chess.Board()
        board.push_uci("e2e4")
        assert chess.Move.from_uci(best) in board.legal_moves  # Black's move after e2e4
    finally:
        c.close()


def test_a_refused_position_leaves_no_position_and_go_answers_the_null_move(
    client: UCIClient,
) -> None:
    """After ``position startpos moves e2e5`` the engine has no position: the next ``go``
    does not answer for the position before (Black to move after e2e4), it says why and
    answers ``bestmove 0000``, as does a ``go`` with a bad parameter; a good position then
    plays again."""
    client.send("position startpos moves e2e4")
    client.send("position startpos moves e2e5")
    client.send("go depth 1")
    lines = client.until("bestmove")
    refused = "chess: illegal move 'e2e5' for player 0 at ply 0"
    assert errors(lines) == [
        f"info string error {refused}",
        f"info string error go without a position: the last one was refused ({refused})",
    ]
    assert lines[-1] == "bestmove 0000"
    client.send("position startpos moves e2e4")
    client.send("go movetime x")
    lines = client.until("bestmove")
    assert errors(lines) == ["info string error go movetime 'x': not an integer"]
    assert lines[-1] == "bestmove 0000"
    client.send("ucinewgame")
    client.send("go depth 1")
    lines = client.until("bestmove")
    assert errors(lines) == [
        "info string error go before position: send position startpos|fen ... first"
    ]
    assert lines[-1] == "bestmove 0000"
    client.send("position startpos moves e2e4 e7e5")
    client.send("go depth 1")
    best = client.until("bestmove")[-1].split()[1]
    board = chess.Board()
    board.push_uci("e2e4")
    board.push_uci("e7e5")
    assert chess.Move.from_uci(best) in board.legal_moves  # White to move again


def test_go_movetime_is_answered_in_time(client: UCIClient) -> None:
    client.send("setoption name Simulations value 100000")
    client.ready()
    client.send("position startpos moves e2e4 e7e5")
    began = time.perf_counter()
    client.send("go movetime 100")
    lines = client.until("bestmove", timeout=10)
    elapsed = time.perf_counter() - began
    assert elapsed < 1.0, elapsed
    assert lines[-2].startswith("info depth")
    assert _pv_first(lines[-2]) == lines[-1].split()[1]  # the last info: the move played
    assert any(
        line.startswith("info string clock too short for this level: ")
        and " of 100000 simulations in " in line
        for line in lines
    )


def test_stop_ends_an_infinite_search_promptly(client: UCIClient) -> None:
    client.send("setoption name Simulations value 100000")
    client.ready()
    client.send("position startpos")
    client.send("go infinite")
    time.sleep(0.3)
    assert client.lines.qsize() == 0 or not any(
        line.startswith("bestmove") for line in list(client.lines.queue)
    )
    client.send("isready")  # answered while searching
    assert "readyok" in client.until("readyok", timeout=5)[-1]
    client.send("position startpos moves e2e4")  # refused while searching
    assert errors(client.until("info string error", timeout=5))
    began = time.perf_counter()
    client.send("stop")
    best = client.until("bestmove", timeout=5)[-1].split()[1]
    assert time.perf_counter() - began < 1.0
    assert chess.Move.from_uci(best) in chess.Board().legal_moves


def test_random_lines_never_kill_the_engine(client: UCIClient) -> None:
    rng = random.Random(11)
    words = [
        "uci",
        "isready",
        "position",
        "go",
        "stop",
        "setoption",
        "ponderhit",
        "ucinewgame",
        "debug",
        "foo",
        "name",
        "value",
        "startpos",
        "fen",
        "moves",
        "e2e4",
        "depth",
        "1",
        "nodes",
        "movetime",
        "x",
        "-5",
        "infinite",
        "MultiPV",
        "UCI_Elo",
        "\x00",
        "8/8",
    ]
    for _ in range(300):
        client.send(" ".join(rng.choices(words, k=rng.randrange(1, 6))))
    client.send("stop")
    client.ready()
    assert client.proc.poll() is None


def test_uci_opponent_is_read_and_can_set_the_strength() -> None:
    assert parse_opponent("GM 2800 human Gary Kasparov") == Opponent(
        "GM", 2800, False, "Gary Kasparov"
    )
    assert parse_opponent("none none computer Shredder") == Opponent(None, None, True, "Shredder")
    assert parse_opponent("1450 human lichess_user") == Opponent(None, 1450, False, "lichess_user")
    for bad in ("GM", "GM 2800", "2800 robot x", "GM high human x", "GM 9000 human x"):
        with pytest.raises(UCIError, match="UCI_Opponent"):
            parse_opponent(bad)
    # Match Opponent off: UCI_Elo decides (only with UCI_LimitStrength on)
    assert asked_elo(EngineOptions(opponent="1450 human x")) is None
    assert asked_elo(EngineOptions(limit_strength=True, elo=1800, opponent="1450 human x")) == 1800
    # on: the opponent's rating plus UCI_RatingAdv, clamped to UCI_Elo's range
    on = EngineOptions(match_opponent=True, opponent="1650 human x")
    assert asked_elo(on) == 1650.0
    assert asked_elo(EngineOptions(**{**vars(on), "rating_adv": -100})) == 1550.0
    assert asked_elo(EngineOptions(match_opponent=True, opponent="FM 2900 human y")) == ELO_MAX
    assert asked_elo(EngineOptions(match_opponent=True, opponent="500 human z")) == ELO_MIN
    unrated = EngineOptions(
        match_opponent=True, limit_strength=True, elo=1700, opponent="none none human u"
    )
    assert asked_elo(unrated) == 1700.0


@needs_stockfish
def test_match_opponent_over_the_protocol(client: UCIClient) -> None:
    client.send("setoption name Style value measured")
    client.send("setoption name UCI_Opponent value none 1650 human somebody")
    client.send("setoption name Match Opponent value true")
    assert client.ready() == []
    lines = client.said()
    assert lines[0] == "info string playing at Elo 1650 for the opponent's 1650", lines
    level = "level Elo 1650 (Stockfish 15.1 UCI_Elo): player human-mcts:sf_elo=1650"
    assert lines[1] == f"info string {level}", lines
    client.send("setoption name UCI_Opponent value GM lots human x")  # bad: nothing changes
    lines = client.ready()
    assert lines == ["info string error option UCI_Opponent: rating 'lots' is not a number"]
    client.send("setoption name UCI_RatingAdv value 5000")
    assert client.ready() == ["info string error option UCI_RatingAdv: 5000 outside -1000..1000"]


# ---- a real opponent -------------------------------------------------------------------------
def test_against_stockfish() -> None:
    if not STOCKFISH.exists():
        if os.environ.get("SPARRING_CI") == "1":
            pytest.fail(f"{STOCKFISH} is missing (scripts/install.sh installs Debian's stockfish)")
        pytest.skip(f"{STOCKFISH} is not installed (Debian package stockfish)")
    ours = chess.engine.SimpleEngine.popen_uci(COMMAND)
    theirs = chess.engine.SimpleEngine.popen_uci(str(STOCKFISH))
    try:
        theirs.configure({"Skill Level": 0, "Threads": 1})
        board = chess.Board()
        for ply in range(12):
            engine = ours if ply % 2 == 0 else theirs
            result = engine.play(board, chess.engine.Limit(nodes=8, depth=1))
            assert result.move in board.legal_moves
            board.push(result.move)
            if board.is_game_over():
                break
        assert board.ply() >= 4
    finally:
        ours.quit()
        theirs.quit()


def test_ponder_waits_for_ponderhit(client: UCIClient) -> None:
    client.send("setoption name Simulations value 100000")
    client.ready()
    client.send("position startpos moves e2e4")
    client.send("go ponder movetime 200")
    time.sleep(0.5)  # longer than the move time: pondering waits for the opponent's move
    assert not any(line.startswith("bestmove") for line in list(client.lines.queue))
    began = time.perf_counter()
    client.send("ponderhit")  # the clock starts now: 200 ms less the move overhead
    lines = client.until("bestmove", timeout=5)
    assert time.perf_counter() - began < 1.0
    board = chess.Board()
    board.push_uci("e2e4")
    assert chess.Move.from_uci(lines[-1].split()[1]) in board.legal_moves


def test_bad_options_are_one_line_and_exit_2() -> None:
    done = subprocess.run(
        [*COMMAND, "--elo", "99"], input="uci\n", capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout) == (2, "")
    expected = f"error: --elo must be {ELO_MIN}..{ELO_MAX}, not 99"
    assert done.stderr.strip().splitlines() == [expected]


# ---- go on an engine in this process ------------------------------------------------------------
class _Engine:
    """A :class:`UCIEngine` in this process whose lines are read back per command."""

    def __init__(self, player: str) -> None:
        self.out = io.StringIO()
        self.engine = UCIEngine(self.out, seed=1, options=EngineOptions(player=player))
        self._read = 0

    def lines(self, command: str) -> list[str]:
        """The lines answering ``command`` (a ``go`` is waited for)."""
        self.engine.handle(command)
        self.engine.worker.join()
        text = self.out.getvalue()
        new, self._read = text[self._read :], len(text)
        return new.splitlines()


def _pv_first(line: str) -> str:
    words = line.split()
    return words[words.index("pv") + 1]


def _decisions(
    monkeypatch: pytest.MonkeyPatch, player: Player, limits: list[object] | None = None
) -> list[Decision]:
    """The decisions ``player`` makes from now on (its ``play`` spied on; the limits it is
    given go to ``limits``)."""
    seen: list[Decision] = []
    play = player.play

    def spy(game: Game, state: State, limit: Limit | None = None) -> Decision:
        if limits is not None:
            limits.append(limit)
        seen.append(play(game, state, limit))
        return seen[-1]

    monkeypatch.setattr(player, "play", spy)
    return seen


def test_go_is_one_search_of_the_players_simulations(monkeypatch: pytest.MonkeyPatch) -> None:
    """A long clock does not change the work: one search of the player's 64 simulations
    (iterative deepening by fresh searches made 2 + 4 + ... + 64), info depth log2(64) = 6;
    ``go depth 3`` searches at most 2**3 simulations."""
    uci_engine = _Engine("uct:sims=64")
    uci_engine.lines("position startpos moves e2e4")
    seat = uci_engine.engine.seat
    assert seat is not None
    calls: list[object] = []
    decisions = _decisions(monkeypatch, seat.player, calls)
    lines = uci_engine.lines("go movetime 60000")
    assert len(calls) == 1
    analysis = decisions[-1].analysis
    assert analysis is not None
    assert (analysis.simulations, analysis.budget, analysis.stopped) == (64, 64, False)
    limit = calls[0]
    assert isinstance(limit, uci.Limit) and limit.progress_every == INFO_INTERVAL
    assert limit.time is not None and 59.0 < limit.time < 60.0
    assert not any("clock too short" in line for line in lines)
    assert lines[-2].startswith("info depth 6 multipv 1 score cp ")
    assert f" nodes {analysis.nodes} " in lines[-2]
    lines = uci_engine.lines("go depth 3")
    analysis = decisions[-1].analysis
    assert analysis is not None and (analysis.simulations, analysis.budget) == (8, 8)
    assert lines[-2].startswith("info depth 3 multipv 1 ") and len(calls) == 2


def test_info_while_searching_then_the_clock_says_it_was_short(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Progress info lines come from the one growing search (nodes never fall back, as they
    did with each fresh search); the clock ends it before the level's 100,000 simulations,
    which an info string says before the last info line."""
    monkeypatch.setattr(uci, "INFO_INTERVAL", 0.05)
    uci_engine = _Engine("uct:sims=100000")
    uci_engine.lines("setoption name Move Overhead value 0")
    uci_engine.lines("position startpos")
    seat = uci_engine.engine.seat
    assert seat is not None
    decisions = _decisions(monkeypatch, seat.player)
    lines = uci_engine.lines("go movetime 400")
    analysis = decisions[-1].analysis
    assert analysis is not None
    infos = [line for line in lines if line.startswith("info depth")]
    assert len(infos) >= 2  # progress, then the final line
    nodes = [int(line.split()[line.split().index("nodes") + 1]) for line in infos]
    assert nodes == sorted(nodes) and nodes[-1] == analysis.nodes
    assert lines[-3].startswith(
        f"info string clock too short for this level: {analysis.simulations} of 100000 "
        "simulations in "
    )
    depth = max(1, analysis.simulations.bit_length() - 1)
    assert lines[-2].startswith(f"info depth {depth} multipv 1 ")
    assert _pv_first(lines[-2]) == lines[-1].split()[1] == seat.game.move_to_text(analysis.move)


def test_the_clock_starts_when_go_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Work done for ``go`` before the search counts against its time: ``go movetime 200``
    whose preparation takes 0.25 s has no time left to search (0 simulations, said so)."""
    uci_engine = _Engine("uct:sims=100000")
    uci_engine.lines("setoption name Move Overhead value 0")
    uci_engine.lines("position startpos")
    engine = uci_engine.engine
    seat_position = engine._seat_position

    def slow() -> object:
        time.sleep(0.25)
        return seat_position()

    monkeypatch.setattr(engine, "_seat_position", slow)
    assert engine.seat is not None
    decisions = _decisions(monkeypatch, engine.seat.player)
    lines = uci_engine.lines("go movetime 200")
    analysis = decisions[-1].analysis
    assert analysis is not None and analysis.simulations == 0
    assert lines[0] == "info string player uct:sims=100000"  # said at the first go
    assert lines[1].startswith(
        "info string clock too short for this level: 0 of 100000 simulations in "
    )
    assert chess.Move.from_uci(lines[-1].split()[1]) in chess.Board().legal_moves


def test_the_last_info_before_bestmove_is_the_move_played(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SA at z = -1 over 40 UCT simulations plays another move than the search's most
    visited in each of these positions: the last info line is still the move played
    (``multipv 1``, its own score), after the most visited move's line (``multipv 2``)."""
    uci_engine = _Engine("sa:base=uct,sims=40,z=-1,rth=0.1")
    uci_engine.lines("setoption name MultiPV value 2")
    uci_engine.lines("position startpos")
    seat = uci_engine.engine.seat
    assert seat is not None
    decisions = _decisions(monkeypatch, seat.player)
    game = get_game("chess")
    for i, moves in enumerate(("", " moves e2e4", " moves d2d4")):
        uci_engine.lines("position startpos" + moves)
        lines = uci_engine.lines("go")
        analysis = decisions[-1].analysis
        assert analysis is not None and len(decisions) == i + 1
        assert analysis.move != analysis.pv[0]  # the case that matters
        best = lines[-1].split()[1]
        assert best == game.move_to_text(analysis.move) and _pv_first(lines[-2]) == best
        score = value_to_cp(analysis.q[analysis.moves.index(analysis.move)])
        assert lines[-2].startswith(f"info depth 5 multipv 1 score cp {score} ")
        assert lines[-3].startswith("info depth 5 multipv 2 ")
        assert _pv_first(lines[-3]) == game.move_to_text(analysis.pv[0])


@needs_stockfish
def test_a_level_plays_the_same_moves_with_a_short_and_a_long_clock() -> None:
    """A level is its work, not its seconds: the weakest chess level (a few Stockfish leaves a
    move, well under 0.5 s) plays the same moves at ``go movetime 500`` as at ``movetime
    5000`` (same seed, same positions)."""
    low = str(ELO_MIN)
    moves: dict[int, list[str]] = {}
    for movetime in (500, 5000):
        c = UCIClient("--elo", low)
        try:
            c.ready()
            played: list[str] = []
            for _ in range(4):
                c.send("position startpos" + (" moves " + " ".join(played) if played else ""))
                c.send(f"go movetime {movetime}")
                lines = c.until("bestmove")
                assert not any("clock too short" in line for line in lines), lines
                played.append(lines[-1].split()[1])
            moves[movetime] = played
        finally:
            c.close()
    assert moves[500] == moves[5000]
