"""The command line: bad input gives a one-line error and a non-zero exit, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import Result

from sparring.errors import SparringError
from sparring.games.base import Game, State
from sparring.players.base import Player
from sparring.records import parse_sgf_games
from sparring.search.limit import Limit


def run_cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sparring", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("play", "chesss"), "unknown game 'chesss'"),
        (("play", "connect4", "--opponent", "wizard"), "unknown player 'wizard'"),
        (("play", "connect4", "--opponent", "random:depth=3"), "unknown option 'depth'"),
        (("play", "connect4", "--position", "4459"), "character 4 '9' is not a column"),
        (("play", "othello6", "--position", "xxo"), "expected 36 cells"),
        (("match", "connect4", "random", "nobody"), "unknown player 'nobody'"),
        (("play", "connect4", "-o", "mcts2", "--elo", "1500"), "needs a strength-adjusted"),
    ],
)
def test_bad_input_is_one_line_error(args: tuple[str, ...], needle: str) -> None:
    result = run_cli(*args)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert needle in lines[0]


def test_unknown_option_is_a_usage_error() -> None:
    result = run_cli("bench", "--bogus")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "--bogus" in result.stderr


def test_play_rejects_bad_moves_and_keeps_the_position() -> None:
    # An illegal token is refused with the legal moves listed, then the game goes on.
    result = run_cli(
        "play", "connect4", "--opponent", "random", "--seed", "3", stdin="9\n4\nquit\n"
    )
    assert result.returncode == 0, result.stderr
    assert "bad move '9'" in result.stdout
    assert "legal moves: 1 2 3 4 5 6 7" in result.stdout
    assert "You resigned." in result.stdout


def test_play_full_game_against_random_on_tictactoe() -> None:
    moves = "\n".join(["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"] * 2)
    result = run_cli("play", "tictactoe", "--opponent", "random", "--seed", "1", stdin=moves + "\n")
    assert result.returncode == 0, result.stderr
    # Seed 1 fixes Random's replies (b2, a3): a1, b1, c1 complete the top row on move 3.
    ai_moves = [line for line in result.stdout.splitlines() if line.startswith("Random plays")]
    assert ai_moves == ["Random plays b2", "Random plays a3"]
    assert result.stdout.rstrip().endswith("You win!")


def test_play_opponent_settings_defaults_and_target_elo() -> None:
    from sparring.cli.basic import adaptive_settings, opponent_settings
    from sparring.nn.zoo import default_model
    from sparring.players.settings import DSASettings, SASettings, UCTSettings

    assert opponent_settings("connect4", "mcts2", None) == (UCTSettings(100, name="MCTS2"), None)
    assert opponent_settings("tictactoe", None, None)[0] == UCTSettings(300, name="MCTS1")
    expected = "az" if default_model("connect4") is not None else "mcts1"
    assert opponent_settings("connect4", None, None)[0].spec().split(":")[0] == expected
    settings, report = opponent_settings("connect4", None, 1500)
    assert settings == SASettings(elo=1500.0)
    assert report is not None and report.label == "Elo 1500 (the Connect Four baseline ladder)"
    assert opponent_settings("connect4", None, None, level="elo 1500")[0] == settings
    assert opponent_settings("connect4", "sa:base=uct,calibration=c.json", 1400)[0] == SASettings(
        base="uct", calibration="c.json", elo=1400.0
    )
    assert adaptive_settings("connect4", None) == DSASettings(mode="bayes")
    assert adaptive_settings("connect4", "dsa:sims=4").spec() == "dsa:sims=4"


def test_play_go_and_chess_levels_come_from_the_resolver() -> None:
    from sparring.cli.basic import opponent_settings
    from sparring.errors import SparringError
    from sparring.players.human_like import HumanMCTSSettings

    # a chess Elo is one on Stockfish's scale (the shipped scale chooses the setting)
    assert opponent_settings("chess", None, 1500)[0] == HumanMCTSSettings(sf_elo=1500.0)
    # a Go Elo is one on GNU Go's scale (the shipped GNU Go scale chooses SA's z)
    assert opponent_settings("go", None, 950)[0].spec() == "sa-mcts:gnugo_elo=950"
    # a Go rank is a rung of the shipped handicap ladder
    assert opponent_settings("go", None, None, "12k")[0].spec().startswith("human-mcts:rank=6d,")
    bad = (
        ("connect4", None, None, "3d", "no measured rank ladder"),
        ("go", None, None, "3d", "the measured ranks are 20k to 9k"),  # the handicap ladder
        ("go", "az", None, "3d", "--opponent is a player of its own"),
        ("chess", None, 1500, "3d", "give one of --elo and --rank"),
        ("chess", None, None, "1400-1600", "a rank is like 5k or 3d"),
    )
    for game, opponent, elo, rank, message in bad:
        with pytest.raises(SparringError, match=message):
            opponent_settings(game, opponent, elo, rank)


def test_play_at_a_target_elo_with_a_calibration() -> None:
    calibration = "docs/strength/connect4-uct/calibration.json"
    result = run_cli(
        "play",
        "connect4",
        "-o",
        f"sa:base=uct,calibration={calibration}",
        "--elo",
        "1500",
        stdin="quit\n",
    )
    assert result.returncode == 0, result.stderr
    assert "SA(elo=1500)" in result.stdout


TINY_SGF = "(;GM[1]FF[4]SZ[19]PB[alice]PW[bob]BR[3d]WR[3d];B[pd];W[dd];B[pp];W[dp];B[qf])\n"


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (("--device", "tpu"), "unknown device 'tpu' (cpu, cuda, cuda:N or auto)"),
        (("--model", "go-xx"), "estimator 'go-xx' is neither a file nor a shipped estimator"),
        (("--model", "NOT_A_MODEL"), "not a sparring strength model (torch.load failed"),
    ],
)
def test_estimate_bad_device_and_model_are_one_line_errors(
    tmp_path: Path, extra: tuple[str, ...], needle: str
) -> None:
    sgf = tmp_path / "g.sgf"
    sgf.write_text(TINY_SGF)
    not_a_model = tmp_path / "junk.pt"
    not_a_model.write_text("junk")
    args = [str(not_a_model) if a == "NOT_A_MODEL" else a for a in extra]
    result = run_cli("estimate", str(sgf), "--player", "alice", *args)
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and needle in lines[0], result.stderr


def test_estimate_uses_the_shipped_estimator_by_name(tmp_path: Path) -> None:
    sgf = tmp_path / "g.sgf"
    sgf.write_text(TINY_SGF)
    default = run_cli("estimate", str(sgf), "--player", "alice")
    named = run_cli("estimate", str(sgf), "--player", "alice", "--model", "go-se")
    assert default.returncode == 0, default.stderr
    assert "alice: 1 game(s), 3 moves scored" in default.stdout
    assert "estimated rank:" in default.stdout
    assert named.stdout == default.stdout


def test_train_config_of_the_wrong_type_is_a_one_line_error(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('channels = "abc"\n')
    result = run_cli("train", "connect4", "--config", str(config), "--out", str(tmp_path / "r"))
    assert result.returncode == 2
    assert result.stderr.strip() == "error: train config: channels must be an integer, not 'abc'"
    assert not (tmp_path / "r").exists()


def test_oracle_needs_at_least_one_position() -> None:
    result = run_cli("oracle", "random", "--positions", "0")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and "--positions" in result.stderr


def test_oracle_writes_its_table_with_the_misses_by_kind(tmp_path: Path) -> None:
    pytest.importorskip("bitbully", reason="bitbully is needed for the Connect4 oracle")
    out = tmp_path / "oracle.md"
    args = ("oracle", "minimax1", "--positions", "12", "--seed", "3", "--no-progress")
    result = run_cli(*args, "--markdown", str(out))
    assert result.returncode == 0, result.stderr
    lines = out.read_text().splitlines()
    assert lines[0].startswith("Connect4 move quality on 12 positions (seed 3; ")
    assert lines[2].endswith("| other moves: won->drawn / won->lost / drawn->lost |")
    cells = [c.strip() for c in lines[4].strip("|").split("|")]
    assert cells[0] == "minimax1"
    value_optimal = round(float(cells[1].rstrip("%")) / 100 * 12)
    misses = [int(n) for n in cells[4].split(" / ")]
    assert value_optimal + sum(misses) == 12  # every move is value-optimal or one of the three


# ---- play: driven by GameSession (in-process, with stub opponents) ------------------------------
class _Stub(Player):
    """An opponent that passes (Go), plays the first legal move, or raises ``error``."""

    def __init__(self, error: BaseException | None = None) -> None:
        super().__init__("Stub", 0)
        self.error = error

    def select_move(self, game: Game, state: State, limit: Limit | None = None) -> int:
        if self.error is not None:
            raise self.error
        moves = game.legal_moves(state)
        return int(moves[-1]) if game.name.startswith("go") else int(moves[0])


def _play_with(
    monkeypatch: pytest.MonkeyPatch, stub: Player, *args: str, stdin: str = ""
) -> Result:
    from typer.testing import CliRunner

    from sparring.cli import app

    monkeypatch.setattr("sparring.cli.basic.build_player", lambda settings, game, seed: stub)
    return CliRunner().invoke(app, ["play", *args], input=stdin)


def _interrupted_in_compiled_code() -> SystemError:
    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise SystemError("<numba dispatcher> returned a result with an exception set") from exc
    except SystemError as err:
        return err


@pytest.mark.parametrize(
    "error", [KeyboardInterrupt(), _interrupted_in_compiled_code()], ids=["plain", "numba"]
)
def test_ctrl_c_while_the_ai_searches_exits_130_in_one_line(
    monkeypatch: pytest.MonkeyPatch, error: BaseException
) -> None:
    result = _play_with(monkeypatch, _Stub(error), "connect4", "--second")
    assert result.exit_code == 130, result.output
    assert "Traceback" not in result.output and "SystemError" not in result.output
    lines = result.output.strip().splitlines()
    assert lines[0] == "You are O (moves second) against Stub."
    assert lines[-1] == "interrupted; game abandoned"
    assert len(lines) <= 10  # greeting, the board, the one line


def test_ctrl_c_at_the_prompt_exits_130_and_saves_the_record(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    answers = iter(["c3"])

    def fake_input(prompt: str = "") -> str:
        for answer in answers:
            return answer
        raise KeyboardInterrupt

    monkeypatch.setattr("builtins.input", fake_input)
    record = tmp_path / "game.txt"
    result = _play_with(monkeypatch, _Stub(), "tictactoe", "--save", str(record))
    assert result.exit_code == 130, result.output
    assert result.output.strip().splitlines()[-1] == "interrupted; game abandoned"
    assert "record saved to" in result.output
    assert record.read_text().endswith("\n1. c3 a1\n")  # the two moves played


def test_play_says_which_side_is_yours_undoes_and_saves(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    record = tmp_path / "game.txt"
    # the stub answers with the first free cell: a1, b1, c1 ... X plays c3, b3, a3 and wins.
    stdin = "undo\nc3\nb2\nundo\nb3\nsave\na3\n"
    result = _play_with(monkeypatch, _Stub(), "tictactoe", "--save", str(record), stdin=stdin)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("You are X (moves first) against Stub.")
    assert "nothing to undo: you have not moved yet" in result.output
    assert "took back 2 move(s)" in result.output
    assert "You win!" in result.output
    assert record.read_text() == (
        "# sparring move list\n# game: tictactoe\n# first: You\n# second: Stub\n"
        "# result: 1-0\n1. c3 a1\n2. b3 b1\n3. a3\n"
    )


def test_go_ends_with_the_area_score(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    record = tmp_path / "game.sgf"
    result = _play_with(
        monkeypatch, _Stub(), "go9", "--second", "--save", str(record), stdin="E5\npass\n"
    )
    assert result.exit_code == 0, result.output
    assert result.output.startswith("You are O (White) (moves second) against Stub.")
    # Black (the stub) passes twice; White's one stone owns the board: 81 points.
    assert "Score (area, Tromp-Taylor): Black 0, White 81, komi 7.5: White wins by 88.5." in (
        result.output
    )
    assert "You win!" in result.output
    (game,) = parse_sgf_games(record.read_bytes(), errors=[])
    assert (game.result, game.white_name, game.black_name) == ("W+88.5", "You", "Stub")


def test_play_save_refuses_a_record_the_game_has_none_of(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from sparring.cli import app

    result = CliRunner().invoke(app, ["play", "connect4", "--save", str(tmp_path / "x.pgn")])
    assert isinstance(result.exception, SparringError)
    assert "PGN records are written for chess only" in str(result.exception)


def test_a_bad_move_in_go_lists_a_few_legal_moves_not_all(monkeypatch: pytest.MonkeyPatch) -> None:
    """19x19 Go has 362 legal moves (361 points and pass) at the start: a bad move gets their
    number and eight examples, not a page of them; ``help`` still lists them all."""
    bad = _play_with(monkeypatch, _Stub(), "go", stdin="Z99\nquit\n")
    assert bad.exit_code == 0, bad.output
    flat = " ".join(bad.output.split())  # the console wraps long lines
    assert (
        "362 legal moves (e.g. A19 B19 C19 D19 E19 F19 G19 H19 ...); type 'help' to list them all"
        in flat
    )
    assert "T1" not in flat.split() and "J19" not in flat.split()
    helped = _play_with(monkeypatch, _Stub(), "go", stdin="help\nquit\n")
    flat = " ".join(helped.output.split())
    listed = flat[flat.index("legal moves: ") :].split()[2:364]
    assert listed[:3] == ["A19", "B19", "C19"] and listed[-2:] == ["T1", "pass"]


def test_the_chess_ai_announces_its_moves_in_san(monkeypatch: pytest.MonkeyPatch) -> None:
    from sparring.games import get_game

    chess = get_game("chess")
    start = chess.initial_state()
    first = int(chess.legal_moves(start)[0])  # what the stub plays
    san = chess.san(start, first)  # type: ignore[attr-defined]
    assert san != chess.move_to_text(first)
    result = _play_with(monkeypatch, _Stub(), "chess", "--second", stdin="quit\n")
    assert result.exit_code == 0, result.output
    assert f"Stub plays {san}\n" in result.output
    assert f"Stub plays {chess.move_to_text(first)}" not in result.output


class _AdaptiveStub(_Stub):
    """A stub that keeps a state like a DSA player: the games it was told the end of."""

    def __init__(self) -> None:
        super().__init__()
        self.games = 0
        self.scores: list[float] = []

    def game_over(self, game: Game, final_state: State, score: float) -> None:
        self.games += 1
        self.scores.append(score)

    def save_state(self) -> dict[str, object]:  # type: ignore[override]
        return {"games": self.games, "elo": 1500.0, "opponent_elo": 1400.0}

    def restore_state(self, data: object) -> None:  # type: ignore[override]
        assert isinstance(data, dict)
        self.games = int(data["games"])


def test_quit_in_an_adaptive_series_is_not_a_lost_game_and_a_resumed_series_counts_on(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Game 1 is won (the stub takes the first free cell; X plays c3, b3, a3); in game 2 the
    person types ``quit``: the game is not counted and the profile keeps one game.  A new
    session with the profile goes on at game 2."""
    import json

    profile = tmp_path / "me.json"
    stub = _AdaptiveStub()
    stdin = "c3\nb3\na3\ny\nquit\n"
    result = _play_with(
        monkeypatch,
        stub,
        "tictactoe",
        "--adaptive",
        "--opponent",
        "dsa",
        "--profile",
        str(profile),
        stdin=stdin,
    )
    assert result.exit_code == 0, result.output
    assert "Game 1: you are X (moves first)" in result.output
    assert "You win!" in result.output
    assert "Game 2: you are O (moves second)" in result.output
    assert "Game 2 abandoned; it is not counted." in result.output
    assert "You resigned." not in result.output
    assert stub.scores == [0.0]  # told of game 1 only (the stub lost it)
    saved = json.loads(profile.read_text())
    assert [e["state"]["games"] for e in saved["adaptive"]] == [1]
    assert len(saved["history"]) == 1  # the abandoned game is not in the history either
    again = _play_with(
        monkeypatch, _AdaptiveStub(), "tictactoe", "--adaptive", "--opponent", "dsa",
        "--profile", str(profile),
        stdin="quit\n",
    )  # fmt: skip
    assert again.exit_code == 0, again.output
    assert "Game 2: you are X (moves first)" in again.output
    assert "Game 1:" not in again.output


def test_resign_in_an_adaptive_series_counts_as_a_loss(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    stub = _AdaptiveStub()
    result = _play_with(
        monkeypatch, stub, "tictactoe", "--adaptive", "--opponent", "dsa", stdin="resign\nn\n"
    )
    assert result.exit_code == 0, result.output
    assert "You resigned." in result.output and "Stub wins." in result.output
    assert stub.scores == [1.0]
