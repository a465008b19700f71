"""What a new user tripped over and the error classes: each bad
input is refused before any work starts, as one line on standard error with exit code 2.

The commands run in this process through the console entry point :func:`sparring.cli.main`
(the same code path as the ``sparring`` executable, which turns a SparringError into one
line and exit code 2)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

import sparring
from sparring.errors import (
    IncompatiblePlayerError,
    MissingResourceError,
    PlayerResourceError,
    SparringError,
)

REPO = Path(__file__).resolve().parents[1]
LADDER = REPO / "src" / "sparring" / "models" / "ladders" / "baselines-connect4.json"
TINY_SGF = "(;GM[1]FF[4]SZ[19]PB[alice]PW[bob]BR[3d]WR[3d];B[pd];W[dd];B[pp];W[dp];B[qf])\n"


def run_main(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    *args: str,
    stdin: str = "",
) -> tuple[int, str, str]:
    """Run ``sparring ARGS`` in this process; (exit code, standard output, standard error)."""
    from sparring.cli import main

    monkeypatch.setattr(sys, "argv", ["sparring", *args])
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    with pytest.raises(SystemExit) as exit_info:
        main()
    out = capsys.readouterr()
    code = exit_info.value.code
    return (0 if code is None else int(code)), out.out, out.err


def one_line_error(code: int, err: str) -> str:
    """The single error line of a refused command (asserting exit 2 and no traceback)."""
    assert code == 2, err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")
    return lines[0]


@pytest.fixture
def blocked(tmp_path: Path) -> dict[str, Path]:
    """A regular file where a folder is expected, and a folder where a file is expected."""
    a_file = tmp_path / "a_file"
    a_file.write_text("not a folder\n")
    a_dir = tmp_path / "a_dir"
    a_dir.mkdir()
    return {"file": a_file, "dir": a_dir, "store": tmp_path / "store.sqlite"}


# ---- output paths are checked before the work starts ---------------------------------------
OUTPUT_CASES = [
    (["train", "connect4", "--out", "{file}"], "--out", "is a file, not a folder"),
    (["train", "connect4", "--out", "{file}/run"], "--out", "is a file, not a folder"),
    (
        ["adapt", "connect4", "dsa", "-o", "mcts1", "--out", "{file}", "--games", "2"],
        "--out",
        "is a file, not a folder",
    ),
    (
        ["calibrate", "tictactoe", "--no-ladder", "--out", "{file}", "--store", "{store}"],
        "--out",
        "is a file, not a folder",
    ),
    (
        ["calibrate", "tictactoe", "--no-ladder", "--calibration", "{dir}", "--store", "{store}"],
        "--calibration",
        "is a folder, not a file",
    ),
    (["dda-grid", "connect4", "alphadda1", "--out", "{file}"], "--out", "is a file, not a folder"),
    (["se-strength", "go", "--out", "{file}"], "--out", "is a file, not a folder"),
    (["se-eval", "go", "{dir}", "--out", "{file}"], "--out", "is a file, not a folder"),
    (["se-train", "go", "--out", "{file}"], "--out", "is a file, not a folder"),
    (
        ["ladder-extend", str(LADDER), "uct:sims=8", "--out", "{dir}", "--store", "{store}"],
        "--out",
        "is a folder, not a file",
    ),
    (
        ["tournament", "connect4", "random", "mcts1", "--markdown", "{dir}", "--store", "{store}"],
        "--markdown",
        "is a folder, not a file",
    ),
    (
        ["match", "connect4", "random", "mcts1", "--plot", "{file}/elo.png", "--store", "{store}"],
        "--plot",
        "is a file, not a folder",
    ),
    (
        ["match", "connect4", "random", "mcts1", "--json", "{dir}", "--store", "{store}"],
        "--json",
        "is a folder, not a file",
    ),
    (["bench", "--markdown", "{dir}"], "--markdown", "is a folder, not a file"),
    (["bench", "--markdown", "{dir}/no/such.md"], "--markdown", "does not exist"),
    (["play", "connect4", "--save", "{file}/game.txt"], "--save", "is a file, not a folder"),
    (["play", "connect4", "--save", "{dir}"], "--save", "is a folder, not a file"),
    (
        ["play", "connect4", "--adaptive", "--profile", "{dir}"],
        "--profile",
        "is a folder, not a file",
    ),
]


@pytest.mark.parametrize(
    ("args", "option", "needle"), OUTPUT_CASES, ids=[" ".join(c[0][:2]) for c in OUTPUT_CASES]
)
def test_an_output_path_that_cannot_be_written_is_refused_first(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    blocked: dict[str, Path],
    args: list[str],
    option: str,
    needle: str,
) -> None:
    filled = [a.format(**{k: str(v) for k, v in blocked.items()}) for a in args]
    code, out, err = run_main(monkeypatch, capsys, *filled)
    line = one_line_error(code, err)
    assert line.startswith(f"error: {option} "), line
    assert needle in line, line
    assert not blocked["store"].exists()  # no game store opened: nothing was played
    assert out == ""  # no game started, no progress shown


@pytest.mark.skipif(not Path("/sys/kernel").is_dir(), reason="needs Linux sysfs")
def test_a_folder_without_write_permission_is_refused_even_for_root(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """sysfs refuses new files to everyone: the check probes, not the permission bits."""
    code, _, err = run_main(monkeypatch, capsys, "bench", "--markdown", "/sys/kernel/bench.md")
    line = one_line_error(code, err)
    assert line.startswith("error: --markdown '/sys/kernel/bench.md': cannot write in "), line


def test_output_checks_create_nothing(tmp_path: Path) -> None:
    from sparring.cli.common import check_output_dir, check_output_file

    check_output_dir(tmp_path / "new" / "run", "--out")
    check_output_file(tmp_path / "deep" / "report.md", "--markdown")
    existing = tmp_path / "kept.txt"
    existing.write_text("kept")
    check_output_file(existing, "--save", create_parents=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.txt"]
    assert existing.read_text() == "kept"


# ---- typed configs: non-finite and out-of-range numbers --------------------------------------
@pytest.mark.parametrize(
    ("command", "line", "message"),
    [
        ("train", "learning_rate = nan", "train config: learning_rate must be a finite number"),
        ("train", "temperature = inf", "train config: temperature must be a finite number"),
        ("train", "momentum = 1.5", "train config: momentum must be in [0, 1)"),
        ("train", "seed = -1", "train config: seed must be >= 0"),
        ("train", "c_puct = -1.0", "train config: c_puct must be >= 0"),
        ("se-train", "learning_rate = nan", "se config: learning_rate must be a finite number"),
        ("se-train", "momentum = -0.5", "se config: momentum must be in [0, 1)"),
        ("se-train", "policy_weight = -1.0", "se config: policy_weight must be >= 0"),
    ],
)
def test_a_config_with_a_bad_number_is_refused_before_training(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    command: str,
    line: str,
    message: str,
) -> None:
    config = tmp_path / "c.toml"
    config.write_text(line + "\n")
    game = "connect4" if command == "train" else "go"
    run = tmp_path / "run"
    code, _, err = run_main(
        monkeypatch, capsys, command, game, "--config", str(config), "--out", str(run)
    )
    assert message in one_line_error(code, err)
    assert not run.exists()


def test_eval_opponents_are_checked_when_the_config_is_loaded(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "c.toml"
    config.write_text('eval_opponents = ["mcts1", "nosuch"]\n')
    run = tmp_path / "run"
    code, _, err = run_main(
        monkeypatch, capsys, "train", "connect4", "-c", str(config), "--out", str(run)
    )
    line = one_line_error(code, err)
    assert line.startswith("error: train config: eval_opponents: unknown player 'nosuch'"), line
    assert not run.exists()
    from sparring.errors import ConfigError
    from sparring.training.config import TrainConfig
    from sparring.training.trainer import Trainer

    config_ = TrainConfig.for_game("connect4", eval_opponents=("mcts1", "nosuch"))
    with pytest.raises(ConfigError) as info:
        config_.check_opponents()
    assert info.value.key == "eval_opponents"
    with pytest.raises(ConfigError, match="nosuch"):  # a library caller: before any work
        Trainer(config_, run)
    assert not run.exists()
    # no evaluation, no check: a run that never evaluates may name anything
    TrainConfig.for_game("connect4", eval_opponents=("nosuch",), eval_every=0).check_opponents()


@pytest.mark.parametrize("kind", ["binary", "folder"])
def test_a_binary_or_folder_config_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, kind: str
) -> None:
    config = tmp_path / "c.toml"
    if kind == "binary":
        config.write_bytes(b"\x80\x81\xff\x00PK\x03\x04")
    else:
        config.mkdir()
    code, _, err = run_main(
        monkeypatch, capsys, "train", "connect4", "-c", str(config), "--out", str(tmp_path / "r")
    )
    line = one_line_error(code, err)
    expected = "is not a text (TOML) file" if kind == "binary" else "cannot be read"
    assert f"config file {str(config)!r}" in line and expected in line, line


@pytest.mark.parametrize("kind", ["binary", "folder"])
def test_a_binary_or_folder_ladder_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, kind: str
) -> None:
    ladder = tmp_path / "ladder.json"
    if kind == "binary":
        ladder.write_bytes(b"\x80\x81\xff\x00")
    else:
        ladder.mkdir()
    store = tmp_path / "s.sqlite"
    code, _, err = run_main(
        monkeypatch, capsys, "study", "connect4", "sims", "10", "--ladder", str(ladder),
        "--store", str(store),
    )  # fmt: skip
    line = one_line_error(code, err)
    expected = "is not a text (JSON) file" if kind == "binary" else "cannot be read"
    assert f"ladder file {str(ladder)!r}" in line and expected in line, line
    assert not store.exists()


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (["nan"], "study values must be finite numbers >= 0, not nan"),
        (["10", "inf"], "study values must be finite numbers >= 0, not inf"),
        (["1.5"], "sims must be whole numbers >= 1, not 1.5"),
        (["0"], "sims must be whole numbers >= 1, not 0"),
    ],
)
def test_study_refuses_values_that_are_not_numbers_of_simulations(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    values: list[str],
    message: str,
) -> None:
    store = tmp_path / "s.sqlite"
    code, _, err = run_main(
        monkeypatch, capsys, "study", "connect4", "sims", *values, "--ladder", str(LADDER),
        "--store", str(store),
    )  # fmt: skip
    assert message in one_line_error(code, err)
    assert not store.exists()


def test_play_refuses_a_negative_seed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_main(monkeypatch, capsys, "play", "connect4", "--seed", "-1")
    assert one_line_error(code, err) == "error: --seed must be >= 0, not -1"
    assert out == ""


# ---- a train run that failed before its first checkpoint does not block a rerun -------------
def test_a_run_that_failed_in_its_first_iteration_can_be_rerun_with_another_config(
    tmp_path: Path,
) -> None:
    from sparring.errors import ConfigError
    from sparring.rundir import check_run_config

    run = tmp_path / "run"
    run.mkdir()
    check_run_config(run, {"game": "connect4", "learning_rate": 0.5}, frozenset())
    # the first attempt died before writing checkpoint.pt: a corrected config is accepted
    check_run_config(run, {"game": "connect4", "learning_rate": 0.02}, frozenset())
    assert json.loads((run / "config.json").read_text())["learning_rate"] == 0.02
    (run / "checkpoint.pt").write_bytes(b"progress")  # once there is progress, it is kept
    with pytest.raises(ConfigError, match=r"different config \(learning_rate\)"):
        check_run_config(run, {"game": "connect4", "learning_rate": 0.1}, frozenset())
    assert json.loads((run / "config.json").read_text())["learning_rate"] == 0.02


def test_train_reruns_after_a_crash_in_the_first_iteration(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from sparring.training.config import TrainConfig
    from sparring.training.trainer import Trainer

    tiny = {"games_per_iteration": 1, "simulations": 2, "parallel_games": 1, "queue_size": 64,
            "batch_size": 8, "blocks": 1, "channels": 4, "eval_every": 0, "threads": 1,
            "backend": "torch"}  # fmt: skip
    run = tmp_path / "run"

    def crash(self: Trainer) -> dict[str, float]:
        raise RuntimeError("killed in the first iteration")

    with monkeypatch.context() as m:
        m.setattr(Trainer, "self_play", crash)
        with pytest.raises(RuntimeError):
            Trainer(TrainConfig.for_game("connect4", **tiny), run).run(1)
    assert (run / "config.json").exists() and not (run / "checkpoint.pt").exists()
    fixed = TrainConfig.for_game("connect4", **(tiny | {"simulations": 3}))
    trainer = Trainer(fixed, run)
    trainer.run(1)
    assert trainer.state.iteration == 1
    assert json.loads((run / "config.json").read_text())["simulations"] == 3


# ---- estimate counts each file once -----------------------------------------------------------
def test_estimate_reads_a_file_given_twice_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The file by its full name, by a relative name and inside its folder: read once, said."""
    sgf = tmp_path / "a.sgf"
    sgf.write_text(TINY_SGF)
    monkeypatch.chdir(tmp_path)
    code, once, err = run_main(monkeypatch, capsys, "estimate", str(sgf), "-p", "alice")
    assert code == 0, err
    assert "alice: 1 game(s), 3 moves scored" in once
    code, thrice, err = run_main(
        monkeypatch, capsys, "estimate", str(sgf), "a.sgf", str(tmp_path), "-p", "alice"
    )
    assert code == 0, err
    note = f"(2 file(s) given more than once read once: {sgf}, a.sgf)\n"
    assert thrice == note + once


# ---- the default ladder is package data, found from any folder -------------------------------
def test_the_default_ladder_is_found_from_any_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from sparring.cli.common import default_ladder

    monkeypatch.chdir(tmp_path)
    assert default_ladder("connect4") == LADDER
    assert default_ladder("tictactoe") is None  # none ships: relative scale
    monkeypatch.chdir(REPO / "src" / "sparring")  # below the working folder: shown relative
    assert default_ladder("connect4") == Path("models/ladders/baselines-connect4.json")


def test_every_shipped_ladder_is_read_and_matches_its_game() -> None:
    from sparring.evaluation.ladder import LADDER_DIR, read_ladder, shipped_ladder

    names = sorted(p.name for p in LADDER_DIR.glob("*.json"))
    assert names == [
        "baselines-connect4.json", "baselines-go9.json", "baselines-othello.json",
        "baselines-othello6.json", "ladder-connect4.json", "ladder-othello.json",
        "ladder-othello6.json",
    ]  # fmt: skip
    for name in names:
        kind, game = name.removesuffix(".json").split("-")
        assert shipped_ladder(game, kind) == LADDER_DIR / name
        assert read_ladder(LADDER_DIR / name).game == game
    assert shipped_ladder("go9", "ladder") is None
    copies = [p.name for p in (REPO / "docs").rglob("*.json") if p.name in names]
    assert copies == []  # one copy, the package's: none in docs to drift from it


def test_strength_check_outside_the_repository_uses_the_repository_ladder(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from sparring.evaluation.ladder import read_ladder

    seen: dict[str, object] = {}

    def fake_check(cal, path, targets, rungs, db, **kw):  # type: ignore[no-untyped-def]
        seen["rungs"], seen["targets"] = rungs, targets
        return []

    monkeypatch.setattr("sparring.experiments.target_check.check_targets", fake_check)
    calibration = REPO / "src" / "sparring" / "models" / "connect4.calibration.json"
    monkeypatch.chdir(tmp_path)
    code, _, err = run_main(
        monkeypatch, capsys, "strength-check", str(calibration), "--elo", "1200",
        "--store", str(tmp_path / "s.sqlite"), "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    assert seen["targets"] == (1200.0,)
    assert seen["rungs"] == read_ladder(LADDER)


def test_calibrate_never_switches_scale_silently(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """From any folder the shipped ladder is used; an installation that lacks the shipped
    ladders is refused (give --ladder or --no-ladder), not run on a relative scale."""
    seen: dict[str, object] = {}

    class Stop(Exception):
        pass

    def fake_run(config, db, **kw):  # type: ignore[no-untyped-def]
        seen["ladder"] = config.ladder
        raise Stop

    monkeypatch.setattr("sparring.experiments.calibration.run_calibration", fake_run)
    monkeypatch.chdir(tmp_path)
    args = ["calibrate", "connect4", "--store", str(tmp_path / "s.sqlite"), "--no-progress",
            "--out", str(tmp_path / "out")]  # fmt: skip
    monkeypatch.setattr(sys, "argv", ["sparring", *args])
    from sparring.cli import main

    with pytest.raises(Stop):
        main()
    assert seen["ladder"] == str(LADDER)
    capsys.readouterr()
    monkeypatch.setattr("sparring.evaluation.ladder.LADDER_DIR", tmp_path / "none")
    code, _, err = run_main(monkeypatch, capsys, *args)
    line = one_line_error(code, err)
    assert "no default ladder" in line and "--ladder" in line, line


# ---- --version ----------------------------------------------------------------------------------
def test_version(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(monkeypatch, capsys, "--version")
    assert (code, out, err) == (0, f"sparring {sparring.__version__}\n", "")


# ---- item 6: the error classes of player files ------------------------------------------------
def test_player_file_errors_have_precise_classes(tmp_path: Path) -> None:
    from sparring.games import get_game
    from sparring.nn.zoo import resolve_model
    from sparring.players import make_player

    connect4 = get_game("connect4")
    with pytest.raises(PlayerResourceError) as missing:
        resolve_model("no-such-network")
    assert missing.value.key == "model"
    with pytest.raises(PlayerResourceError):
        make_player(f"az:model={tmp_path / 'none.pt'}", connect4, 0)
    with pytest.raises(IncompatiblePlayerError):  # an Othello network on Connect4
        make_player("az:model=othello6", connect4, 0)
    othello_cal = REPO / "src" / "sparring" / "models" / "othello6.calibration.json"
    with pytest.raises(IncompatiblePlayerError) as other_game:
        make_player(f"sa:base=uct,calibration={othello_cal},elo=1500", connect4, 0)
    assert other_game.value.key == "calibration"
    with pytest.raises(PlayerResourceError):
        make_player(f"sa:base=uct,calibration={tmp_path / 'none.json'},elo=1500", connect4, 0)
    with pytest.raises(PlayerResourceError):
        make_player(f"sa:base=uct,calibration={tmp_path},elo=1500", connect4, 0)


def test_estimator_files_have_precise_classes(tmp_path: Path) -> None:
    from sparring.nn.estimators import resolve_estimator
    from sparring.nn.strength_net import load_strength_model

    with pytest.raises(MissingResourceError):
        resolve_estimator("go-nothing")
    junk = tmp_path / "junk.pt"
    junk.write_text("junk")
    with pytest.raises(MissingResourceError):
        load_strength_model(junk)


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("az:model=othello6", "is for"),
        ("az:model=/no/such/file.pt", "neither a file nor a shipped model"),
        ("sa:base=uct,calibration=/no/such.json,elo=1500", "not found"),
    ],
)
def test_player_file_errors_are_one_line_in_the_cli(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], spec: str, needle: str
) -> None:
    code, _, err = run_main(monkeypatch, capsys, "play", "connect4", "-o", spec)
    assert needle in one_line_error(code, err)


def test_every_sparring_error_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each category, raised from inside a command, reaches the user as one line."""
    import sparring.errors as errors

    classes = [
        c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, SparringError)
    ]
    assert len(classes) >= 15
    for cls in classes:

        def boom(*args: object, _cls: type[SparringError] = cls, **kw: object) -> None:
            raise _cls(f"{_cls.__name__} raised")

        monkeypatch.setattr("sparring.cli.basic.get_game", boom)
        code, out, err = run_main(monkeypatch, capsys, "bench", "--no-rules")
        assert one_line_error(code, err) == f"error: {cls.__name__} raised", cls
        assert out == ""


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("az:sims=1000000000", "sims must be <= "),  # was a MemoryError
        ("uct:c=-1", "c must be >= 0, not -1"),  # was accepted
        ("minimax:depth=1000", "depth must be <= "),  # was accepted, and ran forever
    ],
)
def test_out_of_range_player_settings_are_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], spec: str, needle: str
) -> None:
    code, out, err = run_main(monkeypatch, capsys, "play", "connect4", "-o", spec, stdin="quit\n")
    line = one_line_error(code, err)
    assert needle in line and spec in line, line
    assert out == ""


# ---- counts, repeated options, the server's folder, the default store -----------------------
def test_bad_counts_repeated_options_and_folders_are_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    cases = [
        (("match", "tictactoe", "random", "random", "--games", "99999999999999999999"),
         "error: match config: games must be at most 10,000,000, not 99999999999999999999"),
        (("match", "tictactoe", "uct:sims=5,sims=6", "random", "--games", "2"),
         "error: bad player spec 'uct:sims=5,sims=6': option 'sims' is given twice"),
        (("serve", "--data", "/proc/no-such-folder", "--port", "0"),
         "error: --data /proc/no-such-folder: cannot keep the database there (No such file or "
         "directory)"),
    ]  # fmt: skip
    for args, line in cases:
        code, out, err = run_main(monkeypatch, capsys, *args)
        assert (code, out, err.strip().splitlines()) == (2, "", [line]), args
    assert not list(tmp_path.iterdir())  # nothing made, not even the default store


def test_the_default_store_is_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run_main(
        monkeypatch, capsys, "match", "tictactoe", "random", "random", "--games", "2",
        "--no-progress",
    )  # fmt: skip
    assert code == 0
    assert err.splitlines()[0] == (
        f"games are stored in {tmp_path / 'sparring-games.sqlite'} (--store PATH for another "
        "file); a re-run with the same players and seed resumes there"
    )
