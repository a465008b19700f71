"""Check that stored results reproduce byte-identical from their seeds (no regression).

Usage, from the repository root::

    .venv/bin/python scripts/reproduce_check.py [--base COMMIT] [--keep DIR]

Three cheap commands (about a minute each on one core, the first run of a tree longer while numba
compiles) run twice: from the working tree and from ``--base`` (default ``7757c9f``, the commit
before the typed-players rework of 2026-11-25; extracted read-only with ``git archive``), each in a
fresh folder of its own with the same relative paths, so that the command lines written into the
outputs are equal too.  The outputs are compared byte for byte: the markdown and JSON files as
written, the SQLite game stores as their games (every column but the row id, the think times and the
finishing time) and runs (every column but the timestamps).  Parts that
measure time are left out: ``results.json``'s ``timing`` and ``report.md``'s "Seconds per
game" section of ``sparring adapt``.

1. ``strength-check``: the command stored in ``docs/strength/connect4-uct/targets.md`` (a
   calibration report: targets -> settings -> 1,000 games against the ladder).  Its output
   is also compared with the stored file (reported, not failed: the rows for targets 700
   and 1000 changed with commit 5fcd6d8, the target inversion's use of the floor's second
   stage, after the file was written; the other rows reproduce).
2. ``match``: AlphaZero (the shipped Connect4 network) against MCTS2, 4 games, seed 5.
3. ``adapt``: a DSA player (UCT base) and AlphaDDA1 against an SA player and MCTS4, 2 series
   of 6 games each, seed 3 (series, baseline matches, statistics, tables, plots).

Exit status 0 when every output of the working tree equals the base's, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_BASE = "7757c9f"
CALIBRATION = "docs/strength/connect4-uct/calibration.json"
STORED_TARGETS = "docs/strength/connect4-uct/targets.md"

CASES: dict[str, list[str]] = {
    "strength-check": [
        "strength-check", CALIBRATION, "--elo", "700,1000,1300,1600,1850", "--opponents", "4",
        "--games", "50", "--seed", "11", "--store", "runs/strength-check.sqlite",
        "--markdown", STORED_TARGETS, "--no-progress",
    ],
    "match": [
        "match", "connect4", "az", "mcts2", "--games", "4", "--seed", "5",
        "--store", "out/match.sqlite", "--json", "out/match.json", "--no-progress",
    ],
    "adapt": [
        "adapt", "connect4", f"dsa:mode=inter,base=uct,calibration={CALIBRATION}",
        "alphadda1:nmax=8", "--opponents", "sa:base=uct,z=2,rth=0.1;mcts4", "--games", "6",
        "--repeats", "2", "--seed", "3", "--out", "out/adapt", "--no-progress",
    ],
}  # fmt: skip
"""The commands (``sparring`` arguments), run in a folder holding copies of the ``docs`` files
they read."""

OUTPUTS: dict[str, list[str]] = {
    "strength-check": [STORED_TARGETS, "runs/strength-check.sqlite"],
    "match": ["out/match.json", "out/match.sqlite"],
    "adapt": [
        "out/adapt/report.md",
        "out/adapt/results.json",
        "out/adapt/games.sqlite",
        "out/adapt/adapt.png",
        "out/adapt/traces.png",
    ],
}
"""The files each command writes, compared between the two trees."""


def prepare(folder: Path, tree: Path) -> None:
    """A fresh run folder with copies of the docs the commands read (never the tree's own)."""
    for part in ("docs/strength/connect4-uct", "docs/results"):
        shutil.copytree(tree / part, folder / part)
    (folder / STORED_TARGETS).unlink()  # the command writes it
    (folder / "runs").mkdir()
    (folder / "out").mkdir()


def run(case: str, tree: Path, folder: Path) -> None:
    """Run ``case`` with the package of ``tree`` in ``folder``."""
    env = {**os.environ, "PYTHONPATH": str(tree / "src")}
    env.pop("SPARRING_DATA", None)
    command = [sys.executable, "-m", "sparring", *CASES[case]]
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{case} failed in {tree}:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")


def canonical(path: Path) -> bytes:
    """The bytes compared: the file, or a store's games and runs without times, or an adapt
    report / results without the think times."""
    if path.suffix == ".sqlite":
        db = sqlite3.connect(path)

        def rows(query: str, drop: tuple[str, ...]) -> list[dict[str, object]]:
            cursor = db.execute(query)
            names = [d[0] for d in cursor.description]
            return [
                {k: v for k, v in zip(names, row, strict=True) if k not in drop} for row in cursor
            ]

        games = rows(
            "SELECT * FROM games ORDER BY run_key, pairing, game_index",
            ("id", "think_times", "finished_at"),
        )
        runs = rows("SELECT * FROM runs ORDER BY run_key", ("created_at", "updated_at"))
        db.close()
        return json.dumps({"runs": runs, "games": games}, indent=1).encode()
    data = path.read_bytes()
    if path.name == "results.json":
        results = json.loads(data)
        results.pop("timing", None)
        return json.dumps(results, indent=1).encode()
    if path.name == "report.md":
        text = data.decode()
        start = text.find("### Seconds per game")
        if start >= 0:
            end = text.find("\n## ", start)
            text = text[:start] + (text[end:] if end >= 0 else "")
        return text.encode()
    return data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default=DEFAULT_BASE, help="commit to compare against")
    parser.add_argument("--keep", type=Path, help="keep the run folders here")
    args = parser.parse_args()
    scratch = Path(args.keep or tempfile.mkdtemp(prefix="reproduce-"))
    scratch.mkdir(parents=True, exist_ok=True)
    base_tree = scratch / "base-tree"
    if not base_tree.exists():
        base_tree.mkdir()
        archive = subprocess.run(
            ["git", "archive", args.base], cwd=ROOT, capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(base_tree)], input=archive, check=True)
    same = True
    for case in CASES:
        folders = {}
        for side, tree in (("work", ROOT), ("base", base_tree)):
            folder = scratch / f"{case}-{side}"
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            prepare(folder, tree)
            run(case, tree, folder)
            folders[side] = folder
        for output in OUTPUTS[case]:
            work, base = (canonical(folders[s] / output) for s in ("work", "base"))
            verdict = "identical" if work == base else "DIFFERENT"
            same &= work == base
            print(f"{case}: {output}: working tree vs {args.base}: {verdict} ({len(work)} bytes)")
        if case == "strength-check":
            stored = (ROOT / STORED_TARGETS).read_bytes()
            mine = (folders["work"] / STORED_TARGETS).read_bytes()
            print(
                f"{case}: {STORED_TARGETS}: working tree vs stored file: "
                + ("identical" if mine == stored else "different (see the docstring):")
            )
            if mine != stored:
                old, new = stored.decode().splitlines(), mine.decode().splitlines()
                for i, (a, b) in enumerate(zip(old, new, strict=False)):
                    if a != b:
                        print(f"  line {i + 1} stored: {a}\n  line {i + 1} now:    {b}")
    if not args.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    print("all outputs identical" if same else "SOME OUTPUTS DIFFER")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
