"""The execution seam and the Ray backend.

Without Ray: the seam's cost arithmetic, and ``--backend ray`` failing in one line when Ray is
missing.  With Ray: a real two-node Ray cluster on the local machine (``ray start --head`` plus a
second ``ray start --address``, one CPU each), started and stopped by the tests inside a
private network and PID namespace (``unshare -n -p -f --mount-proc``, then
``ip link set lo up``), so every Ray process binds to and talks over 127.0.0.1 only and none
outlives the test.  In it a driver (this file run as a script) plays:

* a match through ``sparring match --backend ray``,
* a DSA experiment through ``sparring adapt --backend ray`` (series and baseline match),
* new ladder rungs through ``sparring ladder-extend --backend ray``,
* a match whose driver kills itself (SIGKILL) after 4 stored games, then runs again,
* a match through the CLI stopped by Ctrl-C (SIGINT) once games are stored, then run again,
* series during which the second node is killed (its raylet and all its processes),

and the tests compare the stores with those the local backend writes for the same commands:
the same game keys and, game by game, the same moves, results, seeds, players, annotations
and saved player states (everything but the think times and the finishing time, which are
clock readings).

The cluster tests skip when Ray is not installed or ``unshare`` cannot make the namespaces,
except with ``SPARRING_CI=1``, where they fail instead.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sparring.evaluation.backend import LocalBackend, RunCost

REPOSITORY = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
SPARRING = str(Path(PYTHON).parent / "sparring")
PORT = 6379
ADDRESS = f"127.0.0.1:{PORT}"

MATCH = ["connect4", "mcts1", "random", "--games", "8", "--seed", "3"]
ADAPT = [
    "connect4",
    "dsa:mode=inter,model=connect4,sims=8",
    "--opponents",
    "random,minimax1",
    "--games",
    "3",
    "--repeats",
    "2",
    "--baseline-games",
    "2",
    "--seed",
    "1",
    "--trace-games",
    "0",
]
KILLED_DRIVER = {"game": "connect4", "spec_a": "mcts1", "spec_b": "minimax1", "games": 12}
KILLED_DRIVER_SEED = 5
KILL_AFTER = 4
NODE_SERIES = {
    "game": "connect4",
    "spec_a": "uct:sims=20000",
    "spec_b": "uct:sims=20000",
    "games_per_series": 3,
    "series": 4,
}
NODE_SERIES_SEED = 7
INTERRUPTED = ["connect4", "uct:sims=20000", "random", "--games", "16", "--seed", "9"]
LADDER = REPOSITORY / "src" / "sparring" / "models" / "ladders" / "baselines-connect4.json"
CALIBRATION = REPOSITORY / "src" / "sparring" / "models" / "connect4.calibration.json"
LADDER_EXTEND = [str(LADDER), "uct:sims=20,name=U20", "--against", "random,mcts1", "-n", "2"]
"""``ladder-extend`` on the cluster: 4 games of a cheap new rung against two ladder players."""


# ---- without Ray --------------------------------------------------------------------------
def test_run_cost_rates() -> None:
    cost = RunCost("local (2 workers)", games=8, seconds=2.0, cpu_seconds=3.0)
    assert cost.games_per_second == 4.0
    assert cost.cpu_seconds_per_game == 0.375
    assert cost.line() == "local (2 workers): 8 games in 2.0 s, 4.00 games/s, 0.375 CPU-s per game"
    empty = RunCost("local (in-process)", games=0, seconds=0.0, cpu_seconds=0.0)
    assert (empty.games_per_second, empty.cpu_seconds_per_game) == (0.0, 0.0)


def test_local_backend_describes_itself_and_checks_workers() -> None:
    assert LocalBackend(1).description == "local (in-process)"
    assert LocalBackend(3).description == "local (3 workers)"
    from sparring.errors import ConfigError

    with pytest.raises(ConfigError, match="workers must be >= 1"):
        LocalBackend(0)


def test_ray_backend_checks_its_settings_before_importing_ray() -> None:
    from sparring.errors import BadValueError
    from sparring.evaluation.ray_backend import RayBackend

    with pytest.raises(BadValueError, match="--ray-address must not be empty"):
        RayBackend(" ")
    with pytest.raises(BadValueError, match="max_retries must be >= 0, not -1"):
        RayBackend("127.0.0.1:1", max_retries=-1)
    with pytest.raises(BadValueError, match="in_flight must be >= 1, not 0"):
        RayBackend("127.0.0.1:1", in_flight=0)


def _cli_without_ray(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``sparring ARGS`` in a process where ``import ray`` fails."""
    code = (
        "import sys; sys.modules['ray'] = None; from sparring.cli import main; "
        f"sys.argv = ['sparring', *{args!r}]; main()"
    )
    return subprocess.run(
        [PYTHON, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_backend_ray_without_ray_fails_in_one_line_and_writes_nothing(tmp_path: Path) -> None:
    store = tmp_path / "games.sqlite"
    done = _cli_without_ray(
        ["match", *MATCH, "--store", str(store), "--backend", "ray", "--no-progress"], tmp_path
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        "error: --backend ray needs Ray, which is not installed: pip install 'sparring[ray]'\n"
    )
    assert not store.exists()
    # everything else still works without Ray
    done = _cli_without_ray(["match", *MATCH, "--store", str(store), "--no-progress"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "8 of 8 games stored" in " ".join(done.stdout.split())


# Every other command whose games go through run_match / run_series_set, with tiny arguments
# (OUT: a path in the test's empty working folder); each must stop before writing anything.
OTHER_COMMANDS = {
    "ladder-extend": [*LADDER_EXTEND, "--out", "OUT/ext.json", "--store", "OUT/s.sqlite"],
    "study": [
        "connect4", "sims", "2", "--ladder", str(LADDER), "--opponents", "random", "-n", "2",
        "--store", "OUT/s.sqlite", "--markdown", "OUT/study.md",
    ],
    "calibrate": [
        "tictactoe", "--no-ladder", "--base", "base=uct,sims=2", "--z", "0,1", "--rth", "0.1",
        "--floor", "none", "--games", "2", "--store", "OUT/s.sqlite", "--out", "OUT/cal",
        "--no-progress",
    ],
    "strength-check": [
        str(CALIBRATION), "--elo", "1200", "--ladder", str(LADDER), "--opponents", "1",
        "--games", "2", "--store", "OUT/s.sqlite", "--markdown", "OUT/check.md", "--no-progress",
    ],
    "dda-grid": [
        "tictactoe", "uct", "--grid", "sims=1,9", "-o", "random", "--games", "2",
        "--out", "OUT/grid", "--no-progress",
    ],
    "se-strength": [
        "chess", "--out", "OUT/se", "-p", "random:name=R{rank}", "--ranks", "r1", "--games", "2",
        "--no-progress",
    ],
}  # fmt: skip


@pytest.mark.parametrize("command", sorted(OTHER_COMMANDS))
def test_other_commands_backend_ray_without_ray_fail_in_one_line(
    command: str, tmp_path: Path
) -> None:
    args = [a.replace("OUT", str(tmp_path)) for a in OTHER_COMMANDS[command]]
    done = _cli_without_ray([command, *args, "--backend", "ray"], tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr == (
        "error: --backend ray needs Ray, which is not installed: pip install 'sparring[ray]'\n"
    )
    assert done.stdout == ""
    assert list(tmp_path.iterdir()) == []  # no store, no report, no folder


def test_interrupt_flag_remembers_a_sigint_whatever_becomes_of_its_exception() -> None:
    from sparring.evaluation.ray_backend import InterruptFlag

    before = signal.getsignal(signal.SIGINT)
    assert before is signal.default_int_handler  # (pytest leaves Python's own in place)
    with InterruptFlag() as flag:
        flag.check()  # no SIGINT yet: nothing
        with pytest.raises(KeyboardInterrupt):  # Python's handler still runs ...
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        assert flag.set  # ... and the flag stays set after its exception was caught (as
        with pytest.raises(KeyboardInterrupt):  # Ray's waits can drop it)
            flag.check()
    assert signal.getsignal(signal.SIGINT) is before
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with InterruptFlag() as flag:  # an ignored SIGINT is left alone
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.1)
            assert not flag.set
    finally:
        signal.signal(signal.SIGINT, before)


def test_ray_address_needs_backend_ray(tmp_path: Path) -> None:
    store = tmp_path / "games.sqlite"
    done = subprocess.run(
        [SPARRING, "match", *MATCH, "--store", str(store), "--ray-address", ADDRESS],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr == "error: --ray-address needs --backend ray\n"
    assert not store.exists()


# ---- comparing stores ---------------------------------------------------------------------
def stored_games(path: Path) -> dict[tuple[str, int, int], tuple[Any, ...]]:
    """Every stored game of the store at ``path`` by key, without its clock readings (think
    times, finishing time)."""
    with sqlite3.connect(path) as db:
        rows = db.execute(
            "SELECT run_key, pairing, game_index, game, spec_a, spec_b, label_a, label_b, "
            "a_first, seed, moves, result, plies, annotations, player_states FROM games"
        ).fetchall()
    games = {(row[0], row[1], row[2]): tuple(row[3:]) for row in rows}
    assert len(games) == len(rows)
    return games


def stored_runs(path: Path) -> dict[str, tuple[Any, ...]]:
    """Every run of the store at ``path`` by key, without its times."""
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT run_key, kind, game, config FROM runs").fetchall()
    return {row[0]: tuple(row[1:]) for row in rows}


def run_cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([SPARRING, *args], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


# ---- the cluster --------------------------------------------------------------------------
def _need(reason: str) -> None:
    if os.environ.get("SPARRING_CI") == "1":
        pytest.fail(f"{reason} (SPARRING_CI=1: the Ray backend tests must run)")
    pytest.skip(reason)


def _namespaces_work() -> bool:
    try:
        done = subprocess.run(
            ["unshare", "-n", "-p", "-f", "--mount-proc", "sh", "-c", "ip link set lo up"],
            capture_output=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


CLUSTER_SCRIPT = textwrap.dedent(
    """\
    set -e
    ip link set lo up
    export RAY_USAGE_STATS_ENABLED=0 RAY_health_check_initial_delay_ms=0 \\
        RAY_health_check_period_ms=300 RAY_health_check_timeout_ms=300 \\
        RAY_health_check_failure_threshold=2
    "$RAY" start --head --node-ip-address=127.0.0.1 --port=$PORT --num-cpus=1 \\
        --disable-usage-stats --include-dashboard=false --temp-dir="$TEMP" >"$WORK/head.log" 2>&1
    "$RAY" start --address=127.0.0.1:$PORT --node-ip-address=127.0.0.1 --num-cpus=1 \\
        --node-name=second --disable-usage-stats >"$WORK/second.log" 2>&1
    exec "$PYTHON" "$TESTS/test_ray_backend.py" scenarios "$WORK" 127.0.0.1:$PORT
    """
)


@pytest.fixture(scope="module")
def cluster_run() -> Iterator[tuple[Path, dict[str, Any]]]:
    """Start the two-node cluster in private namespaces, run every scenario's driver in it
    and give back the work folder (the stores) and the drivers' report; nothing of the
    cluster outlives it (the PID namespace ends with the driver).  About a minute on an idle
    2-core machine; Ray's workers run at a lower priority (nice), so CPU-bound jobs beside
    the tests can starve them for many minutes."""
    try:
        import ray  # noqa: F401
    except ImportError:
        _need("Ray is not installed (pip install 'sparring[ray]')")
    if shutil.which("unshare") is None or not _namespaces_work():
        _need("unshare -n -p cannot make a private network namespace here (needs root)")
    work = Path(tempfile.mkdtemp(prefix="sray"))  # short: Ray's socket paths must fit
    temp = work / "t"
    env = {
        **os.environ,
        "RAY": str(Path(PYTHON).parent / "ray"),
        "PYTHON": PYTHON,
        "PORT": str(PORT),
        "TEMP": str(temp),
        "WORK": str(work),
        "TESTS": str(REPOSITORY / "tests"),
    }
    env.pop("RAY_ADDRESS", None)
    try:
        done = subprocess.run(
            ["unshare", "-n", "-p", "-f", "--mount-proc", "bash", "-c", CLUSTER_SCRIPT],
            cwd=REPOSITORY,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        report_path = work / "report.json"
        logs = "\n".join(
            (work / name).read_text()[-3000:]
            for name in ("head.log", "second.log")
            if (work / name).exists()
        )
        assert done.returncode == 0 and report_path.exists(), (
            f"cluster run failed ({done.returncode}):\n{done.stdout[-5000:]}\n"
            f"{done.stderr[-5000:]}\n{logs}"
        )
        yield work, json.loads(report_path.read_text())
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_match_on_ray_stores_the_local_games(
    cluster_run: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    work, report = cluster_run
    local = tmp_path / "local.sqlite"
    run_cli(["match", *MATCH, "--store", str(local), "--no-progress"], tmp_path)
    ray_games = stored_games(work / "match.sqlite")
    assert len(ray_games) == 8
    assert ray_games == stored_games(local)
    assert stored_runs(work / "match.sqlite") == stored_runs(local)
    # the cost line, printed after the progress bar
    assert "ray (2 CPUs): 8 games in" in report["match"]["stdout"]
    stdout = " ".join(report["match"]["stdout"].split())  # as rich wrapped it
    assert "8 of 8 games stored (8 played now, 0 already stored)" in stdout


def test_adapt_on_ray_stores_the_local_games(
    cluster_run: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    work, report = cluster_run
    run_cli(["adapt", *ADAPT, "--out", str(tmp_path / "out"), "--no-progress"], tmp_path)
    ray_games = stored_games(work / "adapt" / "games.sqlite")
    local_games = stored_games(tmp_path / "out" / "games.sqlite")
    # 2 opponents x 2 series x 3 games, and 2 baseline matches of 2 games
    assert len(ray_games) == 16
    assert ray_games == local_games
    states = [g[-1] for g in ray_games.values() if g[-1] is not None]
    assert len(states) == 12  # the series' games carry the players' states
    assert "16 of 16 games stored" in " ".join(report["adapt"]["stdout"].split())
    local_results = json.loads((tmp_path / "out" / "results.json").read_text())
    ray_results = json.loads((work / "adapt" / "results.json").read_text())
    for results in (local_results, ray_results):  # the command line and the clock readings
        del results["command"], results["timing"]
    assert ray_results == local_results


def test_ladder_extend_on_ray_stores_the_local_games(
    cluster_run: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    work, report = cluster_run
    local = tmp_path / "local.sqlite"
    run_cli(
        [
            "ladder-extend",
            *LADDER_EXTEND,
            "--out",
            str(tmp_path / "ext.json"),
            "--store",
            str(local),
        ],
        tmp_path,
    )
    ray_games = stored_games(work / "ladder.sqlite")
    assert len(ray_games) == 4  # 2 games against each of Random and MCTS1
    assert ray_games == stored_games(local)
    assert stored_runs(work / "ladder.sqlite") == stored_runs(local)
    # the same rung: the same Elo, written the same way
    assert (work / "ladder.json").read_text() == (tmp_path / "ext.json").read_text()
    assert report["ladder_extend"]["stdout"].count("ray (2 CPUs): 2 games in") == 2


def test_driver_killed_and_restarted_resumes(
    cluster_run: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    work, report = cluster_run
    killed = report["killed_driver"]
    assert killed["returncode"] == -signal.SIGKILL
    assert killed["stored_after_kill"] == KILL_AFTER
    assert killed["resumed_played"] == KILLED_DRIVER["games"] - KILL_AFTER
    assert killed["resumed_skipped"] == KILL_AFTER
    from sparring.evaluation.match import MatchConfig, run_match
    from sparring.evaluation.store import GameStore

    local = tmp_path / "local.sqlite"
    with GameStore(local) as db:
        run_match(
            MatchConfig(**KILLED_DRIVER, seed=KILLED_DRIVER_SEED),
            db,
            progress=False,
        )
    ray_games = stored_games(work / "killed-driver.sqlite")
    assert len(ray_games) == KILLED_DRIVER["games"]
    assert ray_games == stored_games(local)


def test_ctrl_c_stops_a_ray_run_and_a_rerun_resumes(
    cluster_run: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    work, report = cluster_run
    stopped = report["interrupted"]
    assert stopped["returncode"] == 130, (
        f"exit {stopped['returncode']}, running at the signal: {stopped['running_at_signal']}, "
        f"{stopped['seconds_to_exit']} s to exit\nstdout:\n{stopped['stdout']}\n"
        f"stderr:\n{stopped['stderr'][-3000:]}"
    )
    stored = stopped["stored_after_interrupt"]
    assert 1 <= stored < 16
    store = work / "interrupted.sqlite"
    assert stopped["stderr"].endswith(
        f"interrupted: {stored} games of this run are stored in {store} "
        f"({stored} played now); re-run the same command to resume\n"
    )
    assert (
        f"16 of 16 games stored ({16 - stored} played now, {stored} already stored)"
        in " ".join(stopped["rerun_stdout"].split())  # as rich wrapped it
    )
    local = tmp_path / "local.sqlite"
    run_cli(["match", *INTERRUPTED, "--store", str(local), "--no-progress"], tmp_path)
    assert stored_games(store) == stored_games(local)


def test_node_killed_mid_run_loses_and_duplicates_nothing(
    cluster_run: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    work, report = cluster_run
    node = report["killed_node"]
    said = f"attempts {node['attempts']}, killer errors {node['killer_errors']}"
    assert node["killed_processes"] >= 2, said  # the raylet and the worker playing a series
    assert node["busy_worker_killed"] is True
    assert node["alive_nodes_after"] == 1
    expected = NODE_SERIES["games_per_series"] * NODE_SERIES["series"]
    assert node["played"] == expected
    assert node["delivered"] == expected  # on_game saw every game once
    from sparring.evaluation.series import SeriesConfig, run_series
    from sparring.evaluation.store import GameStore

    local = tmp_path / "local.sqlite"
    with GameStore(local) as db:
        run_series(
            SeriesConfig(**NODE_SERIES, seed=NODE_SERIES_SEED),
            db,
            progress=False,
        )
    ray_games = stored_games(work / "killed-node.sqlite")
    assert len(ray_games) == expected
    assert ray_games == stored_games(local)


# ---- the drivers (run inside the namespaces) ----------------------------------------------
def _processes() -> dict[int, tuple[int, str]]:
    """Every process: pid -> (parent pid, command line)."""
    found: dict[int, tuple[int, str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        parent = int(stat[stat.rindex(")") + 2 :].split()[1])
        found[int(entry.name)] = (parent, cmdline)
    return found


def _kill_second_node() -> tuple[int, bool]:
    """When a worker of the second node is running a task (``ray::_play_remote``), SIGKILL
    the node's raylet and every process below it; returns how many were killed (0: none, the
    node had no task running) and whether one of them was running a task."""
    processes = _processes()
    raylets = [
        pid
        for pid, (_, cmd) in processes.items()
        if "raylet" in cmd.split(" ")[0] and "--node-name=second" in cmd
    ]
    assert len(raylets) == 1, raylets
    doomed = set(raylets)
    grew = True
    while grew:
        below = {pid for pid, (parent, _) in processes.items() if parent in doomed}
        grew = not below <= doomed
        doomed |= below
    busy = any(processes[pid][1].startswith("ray::_play_remote") for pid in doomed)
    if not busy:
        return 0, False
    for pid in doomed:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return len(doomed), busy


def _run_cli_here(args: list[str]) -> dict[str, Any]:
    done = subprocess.run([SPARRING, *args], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"sparring {args} failed: {done.stdout}\n{done.stderr}")
    return {"stdout": done.stdout}


def _scenarios(work: Path, address: str) -> None:
    import sparring.kinds  # noqa: F401  (the player kinds)
    from sparring.evaluation.match import MatchConfig, run_match
    from sparring.evaluation.ray_backend import RayBackend
    from sparring.evaluation.series import SeriesConfig, run_series
    from sparring.evaluation.store import GameStore

    backend = ["--backend", "ray", "--ray-address", address]
    report: dict[str, Any] = {}
    report["match"] = _run_cli_here(
        ["match", *MATCH, "--store", str(work / "match.sqlite"), *backend]
    )
    report["adapt"] = _run_cli_here(
        ["adapt", *ADAPT, "--out", str(work / "adapt"), "--no-progress", *backend]
    )

    report["ladder_extend"] = _run_cli_here(
        [
            "ladder-extend",
            *LADDER_EXTEND,
            "--out",
            str(work / "ladder.json"),
            "--store",
            str(work / "ladder.sqlite"),
            *backend,
        ]
    )

    report["train"] = _train_scenarios(work, address)

    store = work / "killed-driver.sqlite"
    killed = subprocess.run(
        [PYTHON, __file__, "kill-driver", address, str(store)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    with GameStore(store) as db:
        config = MatchConfig(**KILLED_DRIVER, seed=KILLED_DRIVER_SEED)
        stored = db.count(config_run_key(config))
        resumed = run_match(config, db, progress=False, backend=RayBackend(address))
    report["killed_driver"] = {
        "returncode": killed.returncode,
        "stderr": killed.stderr[-2000:],
        "stored_after_kill": stored,
        "resumed_played": resumed.played,
        "resumed_skipped": resumed.skipped,
    }

    report["interrupted"] = _interrupt_cli(work / "interrupted.sqlite", backend)

    import ray

    delivered = 0
    killed_info: tuple[int, bool] = (0, False)
    killer_errors: list[str] = []
    attempts = 0

    def on_game(record: object) -> None:
        nonlocal delivered
        delivered += 1

    # The series must lose a task on the second node; when no task of it happened to run
    # there while the killer watched (seen now and then on a loaded machine), the series is
    # played again on a fresh store, the cluster untouched, at most 3 times in all.
    while attempts < 3 and not killed_info[1]:
        attempts += 1
        delivered = 0
        (work / "killed-node.sqlite").unlink(missing_ok=True)
        finished = threading.Event()

        def killer(finished: threading.Event) -> None:  # until a busy worker was killed
            nonlocal killed_info
            while not finished.is_set() and not killed_info[1]:
                try:
                    killed_info = _kill_second_node()
                except Exception as error:  # reported, not lost with the thread
                    killer_errors.append(repr(error))
                finished.wait(0.05)

        # The interrupted run's tasks may still hold a node's CPU: wait until both are free,
        # so that the series starts on both nodes and the second one has a task to lose.
        deadline = time.monotonic() + 60
        while (
            ray.is_initialized()
            and ray.available_resources().get("CPU", 0) < 2
            and time.monotonic() < deadline
        ):
            time.sleep(0.2)
        watch = threading.Thread(target=killer, args=(finished,), daemon=True)
        watch.start()
        try:
            with GameStore(work / "killed-node.sqlite") as db:
                result = run_series(
                    SeriesConfig(**NODE_SERIES, seed=NODE_SERIES_SEED),
                    db,
                    progress=False,
                    on_game=on_game,
                    backend=RayBackend(address),
                )
        finally:
            finished.set()
            watch.join()
    time.sleep(1.0)  # the dead node's health checks
    report["killed_node"] = {
        "killed_processes": killed_info[0],
        "busy_worker_killed": killed_info[1],
        "alive_nodes_after": sum(1 for node in ray.nodes() if node["Alive"]),
        "played": result.played,
        "delivered": delivered,
        "attempts": attempts,
        "killer_errors": killer_errors[-5:],
    }
    (work / "report.json").write_text(json.dumps(report))


def _interrupt_cli(store: Path, backend: list[str]) -> dict[str, Any]:
    """Start ``sparring match`` on Ray, send it SIGINT once a game is stored, run it again."""
    args = ["match", *INTERRUPTED, "--store", str(store), "--no-progress", *backend]
    driver = subprocess.Popen(
        [SPARRING, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and driver.poll() is None:
        time.sleep(0.05)
        if not store.exists():
            continue
        try:
            with sqlite3.connect(store) as db:
                if db.execute("SELECT COUNT(*) FROM games").fetchone()[0] >= 1:
                    break
        except sqlite3.OperationalError:  # the tables are not there yet
            continue
    running = driver.poll() is None  # (else the run ended before a stored game was seen)
    driver.send_signal(signal.SIGINT)
    signalled = time.monotonic()
    stdout, stderr = driver.communicate(timeout=60)
    with sqlite3.connect(store) as db:
        stored = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    rerun = _run_cli_here(args)
    return {
        "returncode": driver.returncode,
        "running_at_signal": running,
        "seconds_to_exit": round(time.monotonic() - signalled, 2),
        "stdout": stdout[-2000:],
        "stderr": stderr,
        "stored_after_interrupt": stored,
        "rerun_stdout": rerun["stdout"],
    }


def config_run_key(config: Any) -> str:
    from sparring.evaluation.match import run_key_for

    return run_key_for("match", config.game, config.specs, config.seed)


def _kill_driver(address: str, store: Path) -> None:
    """A driver that SIGKILLs itself right after its KILL_AFTER-th game is stored."""
    import sparring.kinds  # noqa: F401
    from sparring.evaluation.match import MatchConfig, run_match
    from sparring.evaluation.ray_backend import RayBackend
    from sparring.evaluation.store import GameRecord, GameStore

    stored = 0

    def on_game(record: GameRecord) -> None:
        nonlocal stored
        stored += 1
        if stored == KILL_AFTER:
            os.kill(os.getpid(), signal.SIGKILL)

    with GameStore(store) as db:
        run_match(
            MatchConfig(**KILLED_DRIVER, seed=KILLED_DRIVER_SEED),
            db,
            progress=False,
            on_game=on_game,
            backend=RayBackend(address, in_flight=2),
        )


# ---- self-play training on Ray (sparring train --backend ray) -----------------------------
TRAIN_TINY = {
    "games_per_iteration": 3,
    "simulations": 8,
    "parallel_games": 2,
    "queue_size": 500,
    "batch_size": 32,
    "blocks": 1,
    "channels": 8,
    "eval_every": 0,
    "threads": 1,
    "backend": "torch",
}
TRAIN_ACTORS = 2


def test_train_backend_ray_without_ray_fails_in_one_line_and_writes_nothing(
    tmp_path: Path,
) -> None:
    out = tmp_path / "run"
    done = _cli_without_ray(
        ["train", "connect4", "--out", str(out), "--iterations", "1", "--backend", "ray"],
        tmp_path,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        "error: --backend ray needs Ray, which is not installed: pip install 'sparring[ray]'\n"
    )
    assert not out.exists()


def test_train_selfplay_actors_needs_backend_ray(tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = subprocess.run(
        [SPARRING, "train", "connect4", "--out", str(out), "--selfplay-actors", "2"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr == "error: --selfplay-actors needs --backend ray\n"
    assert not out.exists()


def test_games_split_into_shares_with_their_own_generators() -> None:
    from sparring.training.distributed import share_rng, split_games

    assert split_games(3, 2) == [2, 1]
    assert split_games(8, 3) == [3, 3, 2]
    assert split_games(1, 3) == [1, 0, 0]
    draws = {
        (s, t, i): share_rng(s, t, i).integers(2**62)
        for s in (0, 1)
        for t in (1, 2)
        for i in (0, 1)
    }
    assert len(set(draws.values())) == 8  # every (seed, iteration, share) its own stream
    assert share_rng(0, 2, 1).integers(2**62) == draws[(0, 2, 1)]  # and reproducible


def _local_shares(config: Any, network: dict[str, Any], iteration: int) -> Any:
    """The merged batch of ``iteration``'s shares, played here by the actors' class."""
    from sparring.games import get_game
    from sparring.training.distributed import SelfPlayActor, merge_batches, split_games
    from sparring.training.selfplay import SelfPlaySettings

    actor = SelfPlayActor(config.game, config.backend, config.threads)
    settings = SelfPlaySettings.from_config(config)
    shares = split_games(config.games_per_iteration, TRAIN_ACTORS)
    batches = [
        actor.play(network, iteration, settings, n, config.seed, i)[0] for i, n in enumerate(shares)
    ]
    game = get_game(config.game)
    return merge_batches(batches, (game.num_planes, *game.board_shape))


def test_an_actors_share_is_play_games_with_the_share_generator() -> None:
    from sparring.games import get_game
    from sparring.nn.evaluators import make_evaluator
    from sparring.nn.model import NetworkConfig, build_model
    from sparring.training.config import TrainConfig
    from sparring.training.distributed import network_payload, share_rng
    from sparring.training.selfplay import SelfPlaySettings, play_games

    config = TrainConfig.for_game("connect4", **TRAIN_TINY)
    game = get_game("connect4")
    model = build_model(NetworkConfig.for_game(game, blocks=1, channels=8), seed=0)
    merged = _local_shares(config, network_payload(model), 1)
    settings = SelfPlaySettings.from_config(config)
    evaluator = make_evaluator(model.eval(), backend="torch", threads=1)
    first = play_games(game, evaluator, settings, 2, share_rng(0, 1, 0))
    second = play_games(game, evaluator, settings, 1, share_rng(0, 1, 1))
    assert merged.games == 3 and merged.lengths == first.lengths + second.lengths
    assert np.array_equal(merged.planes, np.concatenate([first.planes, second.planes]))
    assert np.array_equal(merged.pi, np.concatenate([first.pi, second.pi]))
    assert np.array_equal(merged.z, np.concatenate([first.z, second.z]))


def test_train_on_ray_runs_two_iterations(cluster_run: tuple[Path, dict[str, Any]]) -> None:
    work, report = cluster_run
    assert "model:" in report["train"]["cli"]["stdout"]
    lines = (work / "train-ray" / "log.jsonl").read_text().splitlines()
    log = [json.loads(line) for line in lines]
    assert [r["iteration"] for r in log] == [1, 2]
    assert [r["games"] for r in log] == [3, 6]
    samples = 2 * sum(r["positions"] for r in log)  # Connect4: each position and its mirror
    assert log[-1]["queue"] == samples
    with np.load(work / "train-ray" / "replay.npz") as replay:
        assert int(replay["added"]) == samples
    # iteration 1's samples are those of the shares played here from the same network
    from sparring.games import get_game
    from sparring.nn.model import NetworkConfig, build_model
    from sparring.training.config import TrainConfig
    from sparring.training.distributed import network_payload

    config = TrainConfig.for_game("connect4", **TRAIN_TINY)
    model = build_model(
        NetworkConfig.for_game(get_game("connect4"), blocks=1, channels=8), seed=config.seed
    )
    assert log[0]["positions"] == len(_local_shares(config, network_payload(model), 1).z)


def test_train_on_ray_resumes_after_kill_9_with_the_same_weights(
    cluster_run: tuple[Path, dict[str, Any]],
) -> None:
    import torch

    work, report = cluster_run
    killed = report["train"]["killed"]
    assert killed["returncode"] == -signal.SIGKILL
    assert killed["iterations_at_kill"] == [1]
    assert killed["resumed_from"] == 1
    # an actor killed during the resumed iteration 2: its share played again, once
    assert killed["actor_killed"] is True
    assert killed["replacements"] == 1
    log = (work / "train-killed" / "log.jsonl").read_text().splitlines()
    assert [json.loads(line)["iteration"] for line in log] == [1, 2]
    resumed = torch.load(work / "train-killed" / "checkpoint.pt", weights_only=False)
    uninterrupted = torch.load(work / "train-ray" / "checkpoint.pt", weights_only=False)
    assert resumed["state"]["games"] == uninterrupted["state"]["games"] == 6
    for name, value in uninterrupted["model"].items():
        assert torch.equal(resumed["model"][name], value), name


def _train_scenarios(work: Path, address: str) -> dict[str, Any]:
    """``sparring train --backend ray`` for 2 iterations; the same run killed (SIGKILL) after
    iteration 1 and resumed with a self-play actor killed during the resumed iteration."""
    toml = work / "train.toml"
    toml.write_text("".join(f"{k} = {json.dumps(v)}\n" for k, v in TRAIN_TINY.items()))
    args = ["--config", str(toml), "--iterations", "2", "--backend", "ray"]
    args += ["--ray-address", address, "--selfplay-actors", str(TRAIN_ACTORS)]
    report: dict[str, Any] = {}
    report["cli"] = _run_cli_here(["train", "connect4", "--out", str(work / "train-ray"), *args])
    killed_dir = work / "train-killed"
    killed = subprocess.run(
        [PYTHON, __file__, "kill-trainer", address, str(killed_dir), str(toml)],
        capture_output=True,
        text=True,
        timeout=180,
    )
    at_kill = [json.loads(line)["iteration"] for line in (killed_dir / "log.jsonl").open()]
    report["killed"] = {
        "returncode": killed.returncode,
        "stderr": killed.stderr[-2000:],
        "iterations_at_kill": at_kill,
        **_resume_killing_an_actor(address, killed_dir, toml),
    }
    return report


def _resume_killing_an_actor(address: str, out: Path, toml: Path) -> dict[str, Any]:
    """Resume the killed run to iteration 2, SIGKILLing one self-play actor process as soon
    as it exists (during iteration 2's self-play)."""
    import threading

    from sparring.evaluation.ray_backend import RayBackend
    from sparring.training.config import TrainConfig
    from sparring.training.distributed import RaySelfPlay
    from sparring.training.trainer import Trainer

    cluster = RayBackend(address)
    self_play = RaySelfPlay(cluster, actors=TRAIN_ACTORS)
    trainer = Trainer(TrainConfig.from_toml(toml, "connect4"), out, self_play)
    resumed_from = trainer.state.iteration
    stop = threading.Event()
    killed: list[int] = []
    # actors of the runs before (ended, maybe not gone yet) are not this run's
    old = {pid for pid, (_, cmd) in _processes().items() if cmd.startswith("ray::SelfPlayActor")}

    def killer() -> None:
        while not stop.is_set() and not killed:
            for pid, (_, cmd) in _processes().items():
                if cmd.startswith("ray::SelfPlayActor") and pid not in old:
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                    break
            time.sleep(0.02)

    thread = threading.Thread(target=killer)
    thread.start()
    try:
        trainer.run(2)
    finally:
        stop.set()
        thread.join()
        self_play.close()
        cluster.close()
    return {
        "resumed_from": resumed_from,
        "actor_killed": bool(killed),
        "replacements": self_play.replacements,
    }


def _kill_trainer(address: str, out: Path, toml: Path) -> None:
    """A training driver on Ray that SIGKILLs itself right after iteration 1's checkpoint."""
    from sparring.evaluation.ray_backend import RayBackend
    from sparring.training.config import TrainConfig
    from sparring.training.distributed import RaySelfPlay
    from sparring.training.trainer import Trainer

    def report(iteration: int, total: int, record: dict[str, Any]) -> None:
        if iteration == 1:
            os.kill(os.getpid(), signal.SIGKILL)

    self_play = RaySelfPlay(RayBackend(address), actors=TRAIN_ACTORS)
    Trainer(TrainConfig.from_toml(toml, "connect4"), out, self_play).run(2, report=report)


if __name__ == "__main__":
    if sys.argv[1] == "scenarios":
        _scenarios(Path(sys.argv[2]), sys.argv[3])
    elif sys.argv[1] == "kill-driver":
        _kill_driver(sys.argv[2], Path(sys.argv[3]))
    elif sys.argv[1] == "kill-trainer":
        _kill_trainer(sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))
    else:
        raise SystemExit(f"unknown mode {sys.argv[1]!r}")
