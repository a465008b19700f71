"""Chess levels measured through the engine a GUI meets: ``sparring uci`` driven by python-chess
against Stockfish 15.1 at fixed ``UCI_Elo`` anchors, under a GUI's clock.

Usage (from the repository root; resumable: the games already in OUT are not played again)::

    .venv/bin/python scripts/uci_level_check.py OUT --elos 1000,1300,1600,1900,2200 \\
        --anchors 1350,1600,2000 --games 20 --clock 3+2 --busy --seed 1
    .venv/bin/python scripts/uci_level_check.py OUT --strongest --anchors 2000 --games 40 \\
        --clock 3+2 --anchor-movetime 0.5 --busy
    .venv/bin/python scripts/uci_level_check.py OUT --summary

Each asked Elo ``E`` is ``setoption UCI_LimitStrength true`` and ``UCI_Elo E`` (``--strongest``:
the engine's own strongest level, no limit); it plays ``--games`` games against each of the
two anchors nearest to ``E`` (Stockfish with ``UCI_LimitStrength``, one thread, 16 MB hash),
colours alternating, each game from one of :data:`OPENINGS` (the game index chooses it).  Both
sides get the same clock: ``--clock M+I`` (minutes and increment seconds, each side's time
kept from the measured think times) or ``--movetime S``.  ``--anchor-movetime S`` gives the
anchors ``S`` seconds a move instead of the clock (sparring still gets ``go wtime btime winc
binc`` with both sides' clocks, the anchor's kept from its think times): Stockfish with
``UCI_LimitStrength`` picks its move from the iteration of depth ``1 + level`` (``Skill``
in its search.cpp) and only deepens after it, so a longer think changes its wall time, not
its pick, once that depth is reached; each game records the depths the anchor's searches
reached (``anchor_depth``: the smallest and the median).  ``--reverse`` plays the run's
games last first: a second process sharing one run (each game is claimed under
``OUT/claims`` before it is played, and the file's games are read again before each).
``--busy`` keeps one process spinning beside the games (the other core of a 2-core CPU busy,
as a user's machine often is).
A game ends by the rules (a claimable draw is a draw) or, at 300 plies, as a draw; a side whose
clock runs out loses.

Each game is one JSON line in ``OUT/games.jsonl``: the asked level, the anchor, colours, the
result for sparring, the moves, seconds, sparring's think times, any ``info string`` the
engine sent (``clock too short ...``) and the share of the machine's CPU time (all cores)
that was busy during the game (``cpu_busy``: near 1.0 on a 2-core CPU when the other core is
kept busy, by ``--busy`` or by another run's game beside it).  ``--summary`` prints, per
asked level, the score against each anchor, sparring's seconds a move (the longest after a
game's first, and how many went over a ``movetime``), the clock-short notices (a lower
bound: the last ``info string`` of a move, the first 20 of a game), the CPU busy shares, and
the Elo that makes the results most likely with the anchors at their ``UCI_Elo`` (95%
interval from the likelihood's curvature), the error against the asked Elo, the RMS of the
errors and whether the measured Elos rise with the asked ones; ``--with DIR`` pools another
run's games with OUT's (two clocks, or two runs of one plan), ``--elos`` keeps those asked.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

import chess
import chess.engine

from sparring.elo import ELO_SCALE, expected_score

OPENINGS = (
    "e2e4 e7e5 g1f3 b8c6", "e2e4 c7c5 g1f3 d7d6", "d2d4 d7d5 c2c4 e7e6",
    "d2d4 g8f6 c2c4 g7g6", "e2e4 e7e6 d2d4 d7d5", "e2e4 c7c6 d2d4 d7d5",
    "c2c4 e7e5 b1c3 g8f6", "g1f3 d7d5 g2g3 g8f6", "d2d4 g8f6 c2c4 e7e6",
    "e2e4 e7e5 f1c4 g8f6", "d2d4 d7d5 g1f3 g8f6", "e2e4 d7d5 e4d5 d8d5",
)  # fmt: skip
"""Four-ply openings (common lines), one a game by its index: no two engines' games repeat."""
MAX_PLIES = 300


def cpu_times(line: str | None = None) -> tuple[float, float]:
    """The machine's busy and total CPU time so far, all cores (``/proc/stat``'s first line, or
    ``line``; zeros where there is none).

    The fields are user, nice, system, idle, iowait, irq, softirq, steal, guest, guest_nice;
    guest time is already inside user and nice time, so only the first eight count.
    """
    try:
        if line is None:
            line = Path("/proc/stat").read_text().split("\n")[0]
        fields = [float(x) for x in line.split()[1:9]]
    except (OSError, ValueError):
        return 0.0, 0.0
    idle = sum(fields[3:5])  # idle + iowait
    return sum(fields) - idle, sum(fields)


def busy_share(before: tuple[float, float], after: tuple[float, float]) -> float | None:
    """The share of all cores' time that was busy between two :func:`cpu_times`."""
    total = after[1] - before[1]
    return None if total <= 0 else round((after[0] - before[0]) / total, 3)


def _spin(stop: Any) -> None:
    while not stop.is_set():
        pass


def _clock_limit(
    args: argparse.Namespace, clocks: list[float], anchor: bool = False
) -> chess.engine.Limit:
    seconds = args.anchor_movetime if anchor and args.anchor_movetime else args.movetime
    if seconds:
        return chess.engine.Limit(time=seconds)
    inc = args.increment
    return chess.engine.Limit(
        white_clock=max(clocks[0], 0.01), black_clock=max(clocks[1], 0.01),
        white_inc=inc, black_inc=inc,
    )  # fmt: skip


def _anchor_clock(args: argparse.Namespace) -> str | None:
    """The anchors' own clock when it is not the game's (``--anchor-movetime``)."""
    return f"movetime {args.anchor_movetime}" if args.anchor_movetime else None


def play_game(args: argparse.Namespace, asked: float | None, anchor: int, index: int) -> dict:
    """One game of ``sparring uci`` at ``asked`` (None: its strongest) against Stockfish at
    ``anchor``; sparring is White when ``index`` is even."""
    ours = chess.engine.SimpleEngine.popen_uci(
        [sys.executable, "-m", "sparring", "uci"], stderr=subprocess.DEVNULL
    )
    theirs = chess.engine.SimpleEngine.popen_uci(args.stockfish)
    try:
        if asked is not None:
            ours.configure({"UCI_LimitStrength": True, "UCI_Elo": int(asked)})
        theirs.configure({"UCI_LimitStrength": True, "UCI_Elo": anchor, "Threads": 1, "Hash": 16})
        ours.ping()  # isready after the options, as a GUI sends it: the level is built before
        theirs.ping()  # the game's clock starts (the first move's time is the move's alone)
        board = chess.Board()
        for uci in OPENINGS[index % len(OPENINGS)].split():
            board.push_uci(uci)
        sparring_white = index % 2 == 0
        minutes = 0.0 if args.movetime else args.minutes
        clocks = [minutes * 60.0, minutes * 60.0]
        think: list[float] = []
        depths: list[int] = []
        notes: list[str] = []
        result, reason = None, ""
        while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
            engine = ours if board.turn == sparring_white else theirs
            side = 0 if board.turn == chess.WHITE else 1
            began = time.perf_counter()
            limit = _clock_limit(args, clocks, anchor=engine is theirs)
            played = engine.play(board, limit, info=chess.engine.INFO_ALL)
            spent = time.perf_counter() - began
            if engine is theirs and "depth" in played.info:
                depths.append(int(played.info["depth"]))
            if not args.movetime:
                clocks[side] += args.increment - spent
                if clocks[side] < 0 and limit.time is None:
                    sparring_lost = engine is ours
                    result, reason = (0.0 if sparring_lost else 1.0), "time"
                    break
            if engine is ours:
                think.append(round(spent, 3))
                text = played.info.get("string")
                if text and len(notes) < 20:
                    notes.append(str(text))
            if played.move is None:
                result, reason = (0.0 if engine is ours else 1.0), "no move"
                break
            board.push(played.move)
        if result is None:
            outcome = board.outcome(claim_draw=True)
            if outcome is None or outcome.winner is None:
                result, reason = 0.5, "draw" if outcome else "ply cap"
            else:
                result = 1.0 if outcome.winner == sparring_white else 0.0
                reason = outcome.termination.name.lower()
        return {
            "asked": asked, "anchor": anchor, "index": index, "sparring_white": sparring_white,
            "result": result, "reason": reason, "plies": board.ply(),
            "moves": " ".join(m.uci() for m in board.move_stack), "think": think,
            "notes": notes, "clock": args.clock or f"movetime {args.movetime}",
            "anchor_clock": _anchor_clock(args),
            "anchor_depth": [min(depths), sorted(depths)[len(depths) // 2]] if depths else None,
        }  # fmt: skip
    finally:
        ours.quit()
        theirs.quit()


def played_keys(path: Path) -> set[tuple]:
    """The games already in ``path``: (asked, anchor, index, clock, anchors' clock)."""
    if not path.exists():
        return set()
    games = [json.loads(line) for line in path.read_text().splitlines()]
    return {(g["asked"], g["anchor"], g["index"], g["clock"], g.get("anchor_clock")) for g in games}


def claim(out: Path, key: tuple) -> bool:
    """Take the game ``key`` for this process (a file under ``OUT/claims`` holding its process
    id); False when another live process holds it, so two processes can share one run."""
    folder = out / "claims"
    folder.mkdir(exist_ok=True)
    name = folder / "_".join(str(part) for part in key).replace(" ", "-").replace("/", "-")
    try:
        fd = os.open(name, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        try:
            holder = int(name.read_text() or 0)
        except (OSError, ValueError):
            holder = 0
        if holder and holder != os.getpid() and Path(f"/proc/{holder}").exists():
            return False
        name.write_text(str(os.getpid()))  # a claim left by a process that is gone
        return True
    with os.fdopen(fd, "w") as f:
        f.write(str(os.getpid()))
    return True


def nearest_anchors(asked: float | None, anchors: list[int]) -> list[int]:
    """The two anchors nearest to ``asked`` (all anchors given for the strongest)."""
    if asked is None:
        return anchors
    return sorted(sorted(anchors, key=lambda a: abs(a - asked))[:2])


def fit_elo(games: list[dict]) -> tuple[float, float]:
    """The Elo that makes ``games``' results most likely against their anchors (Newton's
    method on the likelihood of AlphaDDA Eq. 16, :func:`sparring.elo.expected_score`), and its
    95% half-interval."""
    elo = sum(g["anchor"] for g in games) / len(games)
    info = 1e-9
    for _ in range(60):
        grad, info = 0.0, 1e-9
        for g in games:
            p = expected_score(elo, g["anchor"])
            k = 1.0 / ELO_SCALE
            grad += k * (g["result"] - p)
            info += k * k * p * (1 - p)
        step = max(min(grad / info, 400.0), -400.0)
        elo += step
        if abs(step) < 1e-6:
            break
    return elo, 1.96 / math.sqrt(info)


def _over_movetime(game: dict, seconds: float) -> bool:
    """Whether sparring's ``seconds`` exceed the game's ``movetime`` (False on a clock)."""
    clock = str(game.get("clock", ""))
    return clock.startswith("movetime ") and seconds > float(clock.split()[1])


def summary(out: Path, pooled: Sequence[Path] = (), elos: Collection[float] = ()) -> int:
    """Print each asked level's line and the RMS line for the games of ``out`` and of the
    ``pooled`` runs together, only the asked Elos in ``elos`` when it is given."""
    games = [
        g
        for run in (out, *pooled)
        for g in map(json.loads, (run / "games.jsonl").read_text().splitlines())
        if not elos or g["asked"] in elos
    ]
    rows = []
    for asked in sorted({g["asked"] for g in games}, key=lambda a: math.inf if a is None else a):
        mine = [g for g in games if g["asked"] == asked]
        elo, half = fit_elo(mine)
        per = ", ".join(
            f"{sum(g['result'] for g in mine if g['anchor'] == a):g}/"
            f"{sum(1 for g in mine if g['anchor'] == a)} vs {a}"
            for a in sorted({g["anchor"] for g in mine})
        )
        think = [t for g in mine for t in g["think"]]
        later = [t for g in mine for t in g["think"][1:]]  # a game's first move aside
        over = [t for g in mine for t in g["think"][1:] if _over_movetime(g, t)]
        short = sum(1 for g in mine for n in g["notes"] if "too short" in n)
        depths = [g["anchor_depth"][0] for g in mine if g.get("anchor_depth")]
        depth = f"; the anchors' searches reached depth >= {min(depths)}" if depths else ""
        busy = sorted(g["cpu_busy"] for g in mine if g.get("cpu_busy") is not None)
        if busy:
            median = busy[len(busy) // 2]
            depth += f"; CPU busy {busy[0]:.0%} to {busy[-1]:.0%} of a game (median {median:.0%})"
        label = "strongest" if asked is None else f"{asked:g}"
        error = None if asked is None else elo - asked
        rows.append((asked, elo, error))
        print(
            f"{label:>9}: {per}; measured {elo:.0f} ± {half:.0f}"
            + ("" if error is None else f" (error {error:+.0f})")
            + f"; {sum(think) / max(len(think), 1):.2f} s a move"
            + (f", longest {max(later):.2f} s after the first" if later else "")
            + (f" ({len(over)} of {len(later)} over the movetime)" if over else "")
            + f"; {short} clock-short notices"
            + depth
        )
    errors = [e for _, _, e in rows if e is not None]
    if errors:
        rms = math.sqrt(sum(e * e for e in errors) / len(errors))
        measured = [m for a, m, _ in rows if a is not None]
        monotone = all(b > a for a, b in itertools.pairwise(measured))
        print(f"RMS {rms:.1f} over {len(errors)} asked Elos; monotone: {monotone}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--elos", default="", help="asked Elos, comma-separated")
    ap.add_argument("--strongest", action="store_true", help="the engine's strongest level")
    ap.add_argument("--anchors", default="1350,1600,2000", help="Stockfish UCI_Elo anchors")
    ap.add_argument("--games", type=int, default=20, help="games against each anchor")
    ap.add_argument("--clock", default="", help="M+I: minutes and increment seconds")
    ap.add_argument("--movetime", type=float, default=0.0, help="seconds a move instead")
    ap.add_argument(
        "--anchor-movetime",
        type=float,
        default=0.0,
        help="the anchors' seconds a move instead of the clock (with --clock)",
    )
    ap.add_argument("--busy", action="store_true", help="one process spinning beside the games")
    ap.add_argument("--stockfish", default=shutil.which("stockfish") or "/usr/games/stockfish")
    ap.add_argument(
        "--reverse",
        action="store_true",
        help="play the run's games last first (a second process sharing the run)",
    )
    ap.add_argument("--summary", action="store_true")
    ap.add_argument(
        "--with",
        dest="pooled",
        action="append",
        default=[],
        metavar="DIR",
        help="with --summary: pool this run's games with OUT's (again for more; --elos filters)",
    )
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.summary:
        elos = {float(e) for e in args.elos.split(",") if e}
        return summary(out, [Path(d) for d in args.pooled], elos)
    if bool(args.clock) == bool(args.movetime):
        ap.error("give one of --clock M+I and --movetime S")
    if args.anchor_movetime and not args.clock:
        ap.error("--anchor-movetime goes with --clock")
    if args.clock:
        minutes, _, inc = args.clock.partition("+")
        args.minutes, args.increment = float(minutes), float(inc or 0)
    else:
        args.minutes, args.increment = 0.0, 0.0
    anchors = [int(a) for a in args.anchors.split(",")]
    asked_levels: list[float | None] = [float(e) for e in args.elos.split(",") if e]
    if args.strongest:
        asked_levels.append(None)
    path = out / "games.jsonl"
    stop = multiprocessing.Event()
    spinner = multiprocessing.Process(target=_spin, args=(stop,), daemon=True)
    if args.busy:
        spinner.start()
    clock = args.clock or f"movetime {args.movetime}"
    jobs = [
        (asked, anchor, index)
        for index in range(args.games)
        for asked in asked_levels
        for anchor in nearest_anchors(asked, anchors)
    ]
    try:
        for asked, anchor, index in reversed(jobs) if args.reverse else jobs:
            key = (asked, anchor, index, clock, _anchor_clock(args))
            if key in played_keys(path) or not claim(out, key):
                continue
            began, cpu = time.perf_counter(), cpu_times()
            record = play_game(args, asked, anchor, index)
            record["seconds"] = round(time.perf_counter() - began, 1)
            record["cpu_busy"] = busy_share(cpu, cpu_times())
            with path.open("a") as f:
                f.write(json.dumps(record) + "\n")
            print(
                f"{asked} vs {anchor} #{index}: {record['result']} ({record['reason']}, "
                f"{record['plies']} plies, {record['seconds']} s)",
                flush=True,
            )
    finally:
        stop.set()
        if args.busy:
            spinner.join(5)
    return summary(out)


if __name__ == "__main__":
    raise SystemExit(main())
