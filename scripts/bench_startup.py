"""Seconds from a process's start to the first replies of ``sparring --help``, ``sparring gtp``
and ``sparring uci`` (BENCHMARKS.md, "Start-up").

Each case starts ``python -m sparring ...`` afresh, sends its commands at once, and times the
line that ends its answer: GTP ``name`` and ``protocol_version`` (19x19 with its default player,
the Go play network, and 9x9), UCI ``uci`` (to ``uciok``) and ``isready`` (to ``readyok``), and
``--help`` to its exit.  ``--ready`` also times until the engine has built its player (the
network loaded and warmed: GTP ``clear_board`` answered, UCI ``ucinewgame`` then ``isready``).
Prints the median and the largest of ``--repeats`` runs.

    PYTHONPATH=src python scripts/bench_startup.py [--repeats 5] [--ready]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

SPARRING = [sys.executable, "-m", "sparring"]


def first_line(args: list[str], commands: str, marker: str) -> float:
    """Seconds until a line starting with ``marker`` came from ``sparring ARGS`` sent
    ``commands``; the process is killed then."""
    began = time.perf_counter()
    proc = subprocess.Popen(
        [*SPARRING, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True, bufsize=1,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(commands)
    proc.stdin.flush()
    try:
        for line in proc.stdout:
            if line.startswith(marker):
                return time.perf_counter() - began
        raise RuntimeError(f"sparring {' '.join(args)} ended without {marker!r}")
    finally:
        proc.kill()
        proc.wait()


def help_seconds() -> float:
    began = time.perf_counter()
    subprocess.run([*SPARRING, "--help"], capture_output=True, check=True)
    return time.perf_counter() - began


CASES: list[tuple[str, list[str], str, str]] = [
    ("gtp (go 19x19) name", ["gtp"], "name\n", "= sparring"),
    ("gtp (go 19x19) name + protocol_version", ["gtp"], "name\nprotocol_version\n", "= 2"),
    ("gtp (go9) name + protocol_version", ["gtp", "--game", "go9"], "name\nprotocol_version\n",
     "= 2"),
    ("uci uciok", ["uci"], "uci\n", "uciok"),
    ("uci uci + isready", ["uci"], "uci\nisready\n", "readyok"),
]  # fmt: skip
READY: list[tuple[str, list[str], str, str]] = [
    ("gtp (go 19x19) player built", ["gtp"], "clear_board\n", "="),
    ("gtp (go9) player built", ["gtp", "--game", "go9"], "clear_board\n", "="),
    ("uci player built", ["uci"], "uci\nucinewgame\nisready\n", "readyok"),
]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--ready", action="store_true", help="Also time the player's build.")
    args = parser.parse_args()
    rows: list[tuple[str, list[float]]] = [
        ("sparring --help", [help_seconds() for _ in range(args.repeats)])
    ]
    for label, argv, commands, marker in CASES + (READY if args.ready else []):
        rows.append((label, [first_line(argv, commands, marker) for _ in range(args.repeats)]))
    print("| what | median s | largest s | runs |\n| --- | ---: | ---: | ---: |")
    for label, times in rows:
        print(f"| {label} | {statistics.median(times):.2f} | {max(times):.2f} | {len(times)} |")


if __name__ == "__main__":
    main()
