"""Start-up: ``sparring --help`` lists the commands without importing them, and the engines
answer their protocol's first commands (GTP ``name``, ``protocol_version``; UCI ``uci``,
``isready``) while they load (:mod:`sparring.engines.front`).  BENCHMARKS.md, "Start-up",
has the times on a 2-core CPU (scripts/bench_startup.py); the bound here is 3 s."""

from __future__ import annotations

import importlib
import io
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest
import typer
from typer.testing import CliRunner

import sparring.cli as cli
from sparring.engines.front import (
    GTP_COMMANDS,
    EngineFront,
    gtp_quick,
    measured_elo_range,
    uci_identity,
    uci_quick,
)
from sparring.engines.gtp import GTPEngine
from sparring.engines.uci import ELO_MAX, ELO_MIN, UCIEngine
from sparring.games import get_game
from sparring.levels import level_table

FIRST_REPLY_BOUND = 3.0
"""Seconds from the process's start to an engine's first reply (1 s measured, BENCHMARKS.md)."""


def test_the_command_table_is_what_the_modules_register() -> None:
    registered: dict[str, str] = {}
    for module in cli.COMMAND_MODULES:
        app = typer.Typer()
        importlib.import_module(f"sparring.cli.{module}").register(app)
        for command in app.registered_commands:
            assert command.callback is not None
            registered[command.name or command.callback.__name__] = module
    assert {name: module for name, (module, _) in cli.COMMANDS.items()} == registered
    runner = CliRunner()
    listing = runner.invoke(cli.listing_app(), ["--help"], terminal_width=100)
    full = runner.invoke(cli.app, ["--help"], terminal_width=100)
    assert listing.exit_code == full.exit_code == 0
    assert listing.output == full.output  # the same names and help, in the same order
    assert "levels-build" in listing.output and "Write the level tables" in listing.output


def test_the_help_imports_no_command_module() -> None:
    code = (
        "import sys; sys.argv = ['sparring', '--help']\n"
        "from sparring.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "heavy = sorted(m for m in ('numba', 'torch', 'sparring.kinds', 'sparring.games') "
        "if m in sys.modules)\n"
        "print('HEAVY', heavy)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "HEAVY []"
    assert "Usage: sparring" in done.stdout


def test_the_quick_answers_are_the_engines_own() -> None:
    engine = GTPEngine(io.StringIO(), game=get_game("go9"), strength=("player", "random"))
    assert tuple(engine.commands) == GTP_COMMANDS
    for line in ("name", "7 protocol_version", "version", "known_command genmove",
                 "known_command fly", "list_commands"):  # fmt: skip
        engine.out = io.StringIO()
        engine.handle(line)
        assert gtp_quick(line) == engine.out.getvalue()
    assert gtp_quick("genmove b") is None and gtp_quick("# a comment") == ""
    out = io.StringIO()
    UCIEngine(out).handle("uci")
    assert out.getvalue() == "\n".join(uci_identity()) + "\n" == uci_quick("uci")
    assert (ELO_MIN, ELO_MAX) == (842, 1991)  # the chess table's rows, rounded inwards
    for game in ("chess", "go", "go9", "connect4", "othello", "othello6"):
        assert measured_elo_range(game) == level_table(game).elo_range


class _Pipe(io.TextIOBase):
    """Lines put in from the test, read by the front's thread."""

    def __init__(self) -> None:
        self.lines: queue.Queue[str | None] = queue.Queue()

    def __iter__(self) -> Iterator[str]:
        while (line := self.lines.get()) is not None:
            yield line


def _until(predicate: object, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_the_front_answers_in_order_and_hands_the_rest_over() -> None:
    pipe, out = _Pipe(), io.StringIO()
    front = EngineFront(pipe, out, gtp_quick)
    pipe.lines.put("1 name\n")
    pipe.lines.put("2 protocol_version\n")
    _until(lambda: out.getvalue() == "=1 sparring\n\n=2 2\n\n")
    pipe.lines.put("3 boardsize 9\n")  # needs the engine: it and all after it wait
    pipe.lines.put("4 name\n")
    time.sleep(0.2)
    assert out.getvalue() == "=1 sparring\n\n=2 2\n\n"
    front.held.write("held\n")  # the engine's output while it starts
    front.hand_over()
    assert out.getvalue() == "=1 sparring\n\n=2 2\n\nheld\n"
    pipe.lines.put("5 name\n")
    pipe.lines.put(None)
    assert list(front.lines()) == ["3 boardsize 9\n", "4 name\n", "5 name\n"]


def _first_replies(args: list[str], commands: list[str], last: str) -> tuple[float, list[str]]:
    """Seconds from the start of ``sparring ARGS`` until the line starting with ``last``
    came, having sent ``commands`` at once, and the lines until then; the process is ended
    then (it may still be loading its network)."""
    env = {k: v for k, v in os.environ.items() if k != "SPARRING_CI"}
    began = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "sparring", *args],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        text=True, bufsize=1, env=env,
    )  # fmt: skip
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line.rstrip("\n"))

    threading.Thread(target=read, daemon=True).start()
    try:
        assert proc.stdin is not None
        proc.stdin.write("".join(c + "\n" for c in commands))
        proc.stdin.flush()
        seen: list[str] = []
        while not (seen and seen[-1].startswith(last)):
            seen.append(lines.get(timeout=60))
        return time.perf_counter() - began, seen
    finally:
        proc.kill()
        proc.wait(timeout=30)


@pytest.mark.parametrize("game", ["go", "go9"])
def test_gtp_answers_name_and_protocol_version_at_once(game: str) -> None:
    """The default player (Go: the 19x19 play network) loads for seconds; the replies come
    before."""
    seconds, seen = _first_replies(
        ["gtp", "--game", game], ["name", "protocol_version"], "= 2"
    )  # fmt: skip
    assert seen == ["= sparring", "", "= 2"]
    assert seconds < FIRST_REPLY_BOUND, f"{seconds:.2f} s"


def test_uci_answers_uci_and_isready_at_once() -> None:
    seconds, seen = _first_replies(["uci"], ["uci", "isready"], "readyok")
    assert seen == [*uci_identity(), "readyok"]
    assert seconds < FIRST_REPLY_BOUND, f"{seconds:.2f} s"


def test_the_help_comes_at_once() -> None:
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "sparring", "--help"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    seconds = time.perf_counter() - began
    assert done.returncode == 0 and "gtp" in done.stdout
    assert seconds < FIRST_REPLY_BOUND, f"{seconds:.2f} s"


def test_a_started_engine_plays_the_commands_that_waited() -> None:
    """Commands sent while the engine starts are answered in order once it has: a quick one
    after a waiting one is answered by the engine, after it."""
    done = subprocess.run(
        [sys.executable, "-m", "sparring", "gtp", "--game", "go9", "--player", "uct:sims=8"],
        input="name\nboardsize 9\nname\ngenmove b\nquit\n",
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    answers = [line for line in done.stdout.splitlines() if line]
    assert answers[:3] == ["= sparring", "=", "= sparring"]
    assert answers[3].startswith("= ") and len(answers[3]) > 3 and answers[4] == "="
