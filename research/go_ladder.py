"""The Go (19x19) handicap ladder: tune, confirm and anchor rungs with the batched runner.

The rule and the procedure are in docs/strength/go-ladder.md; the runner is
:mod:`sparring.experiments.go_ladder`.  Commands::

    PYTHONPATH=src python research/go_ladder.py bench --batch 64 256 --plies 24
    PYTHONPATH=src python research/go_ladder.py pair OUT.jsonl --black 1d@1 --white 9d@0.5 \\
        --games 64
    PYTHONPATH=src python research/go_ladder.py run OUT_DIR --budget 420 --device cuda
    PYTHONPATH=src python research/go_ladder.py summary OUT_DIR/games.jsonl [MORE.jsonl ...]

``run`` writes into OUT_DIR: ``games.jsonl`` (every game), ``ladder.jsonl`` (the plan, the
tuning of each rung, the rungs, timings, the pair summaries), ``anchors.jsonl`` (GNU Go
games), ``ladder.json`` (the final summary) and ``log.txt``.  Started again on the same
folder it skips the games already written.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sparring.experiments.go_ladder import (
    AnchorGame,
    BatchedGames,
    GameOutcome,
    LadderGame,
    LadderNetwork,
    Rung,
    append_records,
    confirmation_games,
    game_records,
    game_seeds,
    load_network,
    moves_hash,
    pair_key,
    pair_summaries,
    read_records,
    sgf_moves,
    temperature_grid,
    tune_rung,
)

GO_RANKS = ("9d", "8d", "7d", "6d", "5d", "4d", "3d", "2d", "1d", "1-2k", "3-5k")


TOP_LABEL = "9k"
"""The top rung's rank: the one assumed for GNU Go 3.8 level 10 (docs/strength/go-ladder.md)."""


def log(out: Path | None, text: str) -> None:
    """Print ``text`` and append it to ``out/log.txt``."""
    line = f"[{time.strftime('%H:%M:%S')}] {text}"
    print(line, flush=True)
    if out is not None:
        with (out / "log.txt").open("a") as f:
            f.write(line + "\n")


def pick_device(name: str) -> str:
    import torch

    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return name


def rank_schedule(top: str, k: int, schedule: str) -> str:
    """The rank input of rung ``k`` (0 = the top rung): ``follow`` steps one rank down per
    rung from ``top`` and stays at 3-5k; ``fixed`` keeps ``top``."""
    if schedule == "fixed":
        return top
    return GO_RANKS[min(GO_RANKS.index(top) + k, len(GO_RANKS) - 1)]


# ---- bench ------------------------------------------------------------------------------------
def bench(args: argparse.Namespace) -> int:
    """Seconds a ply and positions a second of the runner at each batch size, network and
    game logic apart; then whole games a second at the smallest batch."""
    device = pick_device(args.device)
    network = load_network(args.model, device, args.precision, args.threads)
    top, low = Rung.parse(args.white), Rung.parse(args.black)
    for batch in args.batch:
        games = [LadderGame("bench", low, top, *game_seeds(1, batch, i), i) for i in range(batch)]
        # warm up at the same batch: the compiled kernels, cuDNN's choice for the shapes
        BatchedGames(network, batch=batch, max_ply=2, lanes=args.lanes).play(games)
        runner = BatchedGames(network, batch=batch, max_ply=args.plies, lanes=args.lanes)
        began = time.perf_counter()
        runner.play(games)
        seconds = time.perf_counter() - began
        per_ply = seconds / runner.plies
        net = runner.network_seconds / runner.plies
        print(
            f"batch {batch}: {per_ply:.4f} s a ply ({net:.4f} network, {per_ply - net:.4f} "
            f"game logic and sampling), {runner.positions / seconds:.0f} positions/s "
            f"[{runner.plies} plies of the opening, device {device}, {args.precision}]",
            flush=True,
        )
    if args.full_games:
        runner = BatchedGames(network, batch=args.full_games, lanes=args.lanes)
        games = [
            LadderGame("bench", low, top, *game_seeds(2, i), i) for i in range(args.full_games)
        ]
        began = time.perf_counter()
        outcomes = runner.play(games)
        seconds = time.perf_counter() - began
        plies = [len(o.moves) for o in outcomes]
        print(
            f"{len(outcomes)} whole games at batch {args.full_games}: {seconds:.1f} s, "
            f"{len(outcomes) / seconds:.4f} games/s, {runner.positions / seconds:.0f} "
            f"positions/s, {runner.plies} batches, plies a game {min(plies)}-{max(plies)} "
            f"(mean {np.mean(plies):.0f}), Black scored "
            f"{sum(o.black_score for o in outcomes):g}",
            flush=True,
        )
    return 0


# ---- pair -------------------------------------------------------------------------------------
def pair(args: argparse.Namespace) -> int:
    """``--games`` games of one pair (resumable: the games already in the file are skipped)."""
    device = pick_device(args.device)
    network = load_network(args.model, device, args.precision, args.threads)
    black, white = Rung.parse(args.black), Rung.parse(args.white)
    path = Path(args.out)
    known = {
        tuple(r[k] for k in ("phase", "pair", "black_seed", "white_seed"))
        for r in game_records(read_records([path]))
    }
    games = [
        LadderGame(args.phase, black, white, *game_seeds(args.seed, 4, i), i)
        for i in range(args.games)
    ]
    todo = [g for g in games if g.key not in known]
    runner = BatchedGames(
        network, batch=min(args.batch, max(len(todo), 1)), max_ply=args.max_ply, lanes=args.lanes
    )
    began = time.perf_counter()
    runner.play(todo, lambda o: append_records(path, [o.record()]))
    seconds = time.perf_counter() - began
    if todo:
        append_records(path, [timing_record(args.phase, runner, len(todo), seconds)])
    print_summaries(list(read_records([path])), None)
    return 0


def timing_record(phase: str, runner: BatchedGames, games: int, seconds: float) -> dict[str, Any]:
    """A ``timing`` record of a phase of ``games`` games."""
    return {
        "type": "timing",
        "phase": phase,
        "games": games,
        "seconds": round(seconds, 2),
        "games_per_s": round(games / seconds, 4) if seconds else None,
        "plies": runner.plies,
        "positions": runner.positions,
        "network_seconds": round(runner.network_seconds, 2),
        "device": str(runner.network.device),
        "precision": runner.network.precision,
        "batch": runner.batch,
    }


def print_summaries(records: list[dict[str, Any]], phase: str | None) -> None:
    print(
        f"{'pair (Black vs White)':34} {'games':>5} {'W-L-D':>11} {'score':>6} "
        f"{'Wilson 95%':>13} {'level':>5} {'dups':>4} {'capped':>6} {'plies':>5}"
    )
    for s in pair_summaries(records, phase):
        low, high = s.interval
        print(
            f"{s.pair:34} {s.games:5d} {f'{s.wins}-{s.losses}-{s.draws}':>11} {s.score:6.3f} "
            f"{f'{low:.3f}-{high:.3f}':>13} {('yes' if s.level else 'no'):>5} "
            f"{s.duplicates:4d} {s.capped:6d} {s.mean_plies:5.0f}"
        )
    for r in records:
        if r.get("type") == "timing" and (phase is None or r["phase"] == phase):
            print(
                f"timing {r['phase']}: {r['games']} games in {r['seconds']} s = "
                f"{r['games_per_s']} games/s, {r['positions']} positions, "
                f"{r['network_seconds']} s in the network ({r['device']}, batch {r['batch']})"
            )


def summary(args: argparse.Namespace) -> int:
    records = list(read_records(Path(p) for p in args.files))
    print_summaries(records, args.phase)
    for row in anchors_summary([r for r in records if r.get("type") == "anchor"]):
        stones = row["handicap"]
        taker = (
            "" if not stones else (" to the rung" if row["stones_to"] == "rung" else " to GNU Go")
        )
        print(
            f"anchor {json.dumps(row['rung'])} vs gnugo level {row['level']}, handicap "
            f"{stones}{taker}, komi {row['komi']}: {row['rung_score']:g}/{row['games']}"
        )
    return 0


def play_anchor_game(anchor: AnchorGame) -> dict[str, Any]:
    """Play ``anchor`` and return its ``anchor`` record (the rung's score, the moves, who
    resigned).  Needs the ``gnugo`` program (:func:`~sparring.players.external.find_program`)."""
    from sparring.games.go import Go
    from sparring.kinds import register_builtin_kinds
    from sparring.players.registry import make_player
    from sparring.session import GameSession

    register_builtin_kinds()
    go = Go(19, anchor.komi, anchor.max_ply)
    rung_seed, gnugo_seed = game_seeds(anchor.seed, 3, anchor.level, anchor.handicap)
    rung_player = make_player(anchor.rung.spec(anchor.model), go, rung_seed)
    gnugo = make_player(f"gnugo:level={anchor.level}", go, gnugo_seed)
    sides = (rung_player, gnugo) if anchor.rung_black else (gnugo, rung_player)
    began = time.monotonic()
    try:
        session = GameSession(go, sides, handicap=anchor.handicap or None)
        session.play_out()
        record = session.record()
    finally:
        for player in sides:
            player.close()
    assert record.result is not None
    black_score = float(record.result)
    rung_score = black_score if anchor.rung_black else 1.0 - black_score
    moves = np.asarray(record.moves, dtype=np.int16)
    return {
        "type": "anchor", "rung": anchor.rung.to_json(), "level": anchor.level,
        "rung_black": anchor.rung_black, "handicap": anchor.handicap, "komi": anchor.komi,
        "seed": anchor.seed, "rung_score": rung_score, "resigned": record.resigned,
        "plies": len(moves), "seconds": round(time.monotonic() - began, 1),
        "hash": moves_hash(moves), "moves": sgf_moves(moves),
    }  # fmt: skip


# ---- the ladder's games as SGF, the shipped ladder -------------------------------------------
def rank_label(index: int, top: str = TOP_LABEL) -> str:
    """The rank of rung ``index`` (0: the top rung, labelled ``top``, ``9k``): one kyu a rung
    below it (``10k``, ``11k``, ...)."""
    number = int(top[:-1])
    if not top.endswith("k"):
        raise ValueError(f"the top rung's label is a kyu rank, not {top!r}")
    return f"{number + index}k"


def sgf(args: argparse.Namespace) -> int:
    """Up to ``--games`` confirmation games of each rung as SGF files, one folder a rung
    (``OUT/12k/``), the rung named ``rung`` and its opponent ``other``: Black in its pair with
    the rung above, White (the top rung) in the pair below."""
    final = json.loads(Path(args.ladder).read_text())
    rungs = [Rung.from_json(r) for r in final["rungs"]]
    records = game_records(read_records([Path(args.games_file)]))
    out = Path(args.out)
    for index, rung in enumerate(rungs):
        if index:
            wanted = pair_key(rung, rungs[index - 1])
            rung_black = True
        else:
            wanted = pair_key(rungs[1], rung)
            rung_black = False
        games = sorted((r for r in records if r["pair"] == wanted), key=lambda r: r["index"])
        folder = out / rank_label(index)
        folder.mkdir(parents=True, exist_ok=True)
        for r in games[: args.games]:
            result = "B+" if r["result"] == 1.0 else "W+"
            names = "PB[rung]PW[other]" if rung_black else "PB[other]PW[rung]"
            moves = r["moves"]
            body = "".join(
                f";{'BW'[i % 2]}[{moves[2 * i : 2 * i + 2]}]" for i in range(len(moves) // 2)
            )
            text = f"(;GM[1]FF[4]SZ[19]KM[{r['komi']}]RU[Chinese]{names}RE[{result}]{body})\n"
            (folder / f"game-{r['index']:03d}.sgf").write_text(text)
        print(f"{folder}: {min(len(games), args.games)} games ({rung.label()})")
    return 0


def ship(args: argparse.Namespace) -> int:
    """The shipped ladder file (package data read by ``sparring levels-build``) from a run's
    ``ladder.json``, refused unless every pair is level."""
    final = json.loads(Path(args.ladder).read_text())
    if not final.get("all_level"):
        raise SystemExit(f"{args.ladder}: not every pair is level; no ladder ships")
    pairs = {(p["pair"]): p for p in final["pairs"]}
    rungs = [Rung.from_json(r) for r in final["rungs"]]
    rows = []
    for index, rung in enumerate(rungs):
        row: dict[str, Any] = {"rank": rank_label(index), "setting": rung.spec(args.model)}
        if index:
            p = pairs[pair_key(rung, rungs[index - 1])]
            row |= {
                "games": p["games"], "score": p["score"],
                "interval": [p["wilson_low"], p["wilson_high"]],
                "against": rank_label(index - 1),
            }  # fmt: skip
        rows.append(row)
    data = {
        "format": "sparring-rank-ladder",
        "game": "go",
        "rule": "each rung, Black with komi 0.5 and no handicap stones, scores 40-60% "
        "against the rung above with its Wilson 95% interval containing 50%",
        "top": f"{rank_label(0)}: the rank assumed for GNU Go 3.8 level 10 "
        "(GNU Go's manual, 3.7.10 edition, section 1.1: 'GNU Go 3.6 plays at about the "
        "level of 9 kyu')",
        "anchors": anchors_summary(
            [r for r in read_records(Path(f) for f in args.anchors) if r.get("type") == "anchor"]
        ),
        "command": args.command,
        "seed": args.seed,
        "rungs": rows[::-1],
    }
    Path(args.out).write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {args.out}: {len(rows)} rungs, {rows[-1]['rank']} to {rows[0]['rank']}")
    return 0


# ---- run --------------------------------------------------------------------------------------
def _anchor_worker(anchor: AnchorGame, deadline: float) -> dict[str, Any] | None:
    """One anchor game in a worker process, unless the wall-clock ``deadline`` has passed."""
    if time.time() > deadline:
        return None
    import torch

    torch.set_num_threads(1)
    try:
        return play_anchor_game(anchor)
    except Exception as exc:  # a failed engine must not stop the ladder
        return {
            "type": "anchor-error",
            "rung": anchor.rung.to_json(),
            "level": anchor.level,
            "handicap": anchor.handicap,
            "seed": anchor.seed,
            "error": repr(exc),
        }


def anchor_plan(top: Rung, args: argparse.Namespace) -> list[AnchorGame]:
    """The top rung against GNU Go at each level of ``--anchor-levels``: even games (komi
    7.5, colours alternating), for each count of ``--anchor-handicaps`` games where the rung
    takes that many stones as Black (komi 0.5), and for each count of
    ``--anchor-gnugo-handicaps`` (``LEVEL:STONES``) games where GNU Go takes them;
    interleaved so that a run stopped early has some of each."""
    plans: list[list[AnchorGame]] = []
    for level in args.anchor_levels:
        plans.append(
            [
                AnchorGame(top, level, i % 2 == 0, 0, 7.5, args.seed + i, args.model, args.max_ply)
                for i in range(args.anchor_games)
            ]
        )
        for stones in args.anchor_handicaps:
            plans.append(
                [
                    AnchorGame(
                        top, level, True, stones, 0.5, args.seed + i, args.model, args.max_ply
                    )
                    for i in range(args.anchor_games)
                ]
            )
        for stones in (
            int(v.partition(":")[2])
            for v in args.anchor_gnugo_handicaps
            if int(v.partition(":")[0]) == level
        ):
            plans.append(
                [
                    AnchorGame(
                        top, level, False, stones, 0.5, args.seed + i, args.model, args.max_ply
                    )
                    for i in range(args.anchor_games)
                ]
            )
    return [p[i] for i in range(args.anchor_games) for p in plans]


def start_anchors(out: Path, top: Rung, args: argparse.Namespace, deadline: float) -> Any:
    """A pool of ``--anchor-workers`` processes playing :func:`anchor_plan` until the
    deadline (results appended to ``anchors.jsonl``); None without GNU Go or workers."""
    if args.anchor_workers <= 0 or not args.anchor_games:
        return None
    if shutil.which("gnugo") is None and not Path("/usr/games/gnugo").exists():
        log(out, "anchors: no gnugo program here, skipped")
        return None
    try:
        import chess  # noqa: F401  (the player kinds' registry needs python-chess)
    except ImportError:
        log(out, "anchors: python-chess is missing (the player registry needs it), skipped")
        return None
    done = {
        (json.dumps(r["rung"]), r["level"], r["handicap"], r["seed"], r["rung_black"])
        for r in read_records([out / "anchors.jsonl"])
        if r.get("type") == "anchor"
    }
    plan = [
        a
        for a in anchor_plan(top, args)
        if (json.dumps(a.rung.to_json()), a.level, a.handicap, a.seed, a.rung_black) not in done
    ]

    def written(record: dict[str, Any] | None) -> None:
        if record is not None:
            append_records(out / "anchors.jsonl", [record])

    context = multiprocessing.get_context("spawn")
    pool = context.Pool(args.anchor_workers)
    for anchor in plan:
        pool.apply_async(_anchor_worker, (anchor, deadline), callback=written)
    pool.close()
    log(out, f"anchors: {len(plan)} games queued on {args.anchor_workers} processes")
    return pool


def run(args: argparse.Namespace) -> int:
    """Tune the rungs one below the other, then confirm every adjacent pair with fresh seeds
    (docs/strength/go-ladder.md), within ``--budget`` seconds."""
    began = time.monotonic()
    deadline = began + args.budget
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.numba_threads:
        import numba

        numba.set_num_threads(min(args.numba_threads, numba.get_num_threads()))
    top = Rung.parse(args.top)
    ladder_path, games_path = out / "ladder.jsonl", out / "games.jsonl"
    plan = {"type": "plan", "argv": sys.argv[1:], "top": top.to_json(), "pid": os.getpid()}
    append_records(ladder_path, [plan])
    log(out, f"plan: {json.dumps(plan)}")
    pool = start_anchors(out, top, args, time.time() + args.budget - args.anchor_margin)
    device = pick_device(args.device)
    network = load_network(args.model, device, args.precision, args.threads)
    log(out, f"network on {device} ({args.precision}); {time.monotonic() - began:.1f} s so far")
    check_precision(out, network, ladder_path)
    records = list(read_records([games_path]))

    def write(outcome: GameOutcome) -> None:
        append_records(games_path, [outcome.record()])

    rungs = [top]
    games_per_temp = args.tune_games
    for k in range(1, args.rungs):
        left = deadline - time.monotonic() - args.confirm_reserve
        if left <= 0:
            log(out, f"tuning stopped at {len(rungs)} rungs: the time left is the confirmation's")
            break
        rank = rank_schedule(top.rank, k, args.schedule)
        grid = temperature_grid(rungs[-1].temperature, args.grid_low, args.grid_high, args.grid)
        runner = BatchedGames(
            network,
            batch=min(args.batch, len(grid) * games_per_temp),
            max_ply=args.max_ply,
            lanes=args.lanes,
        )
        t0 = time.monotonic()
        result = tune_rung(
            runner, rungs[-1], rank, grid, games_per_temp, args.seed, k, write, records,
            degree=args.fit_degree,
        )  # fmt: skip
        played = len(grid) * games_per_temp
        if args.refine:
            # the second stage: a narrow grid about the first stage's crossing, fitted with
            # the first stage's games
            coarse = result.chosen.temperature
            fine = sorted(
                {
                    float(f"{coarse * f:.4g}")
                    for f in np.linspace(
                        1 - args.refine_spread, 1 + args.refine_spread, args.refine
                    )
                }
            )
            append_records(ladder_path, [result.record() | {"stage": 1}])
            result = tune_rung(
                runner, rungs[-1], rank, fine, args.refine_games, args.seed, k, write, records,
                degree=args.fit_degree, stage=2, earlier=result.samples,
            )  # fmt: skip
            played += len(fine) * args.refine_games
        seconds = time.monotonic() - t0
        rungs.append(result.chosen)
        append_records(
            ladder_path,
            [
                result.record(),
                {"type": "rung", "index": k, **result.chosen.to_json()},
                timing_record(f"tune-{k}", runner, played, seconds),
            ],
        )
        scores = " ".join(
            f"{t:g}:{s:.2f}" for t, s in zip(result.temperatures, result.scores, strict=True)
        )
        log(
            out,
            f"rung {k}: {result.chosen.label()} (bracketed {result.bracketed}; scores "
            f"{scores}); {played} games in {seconds:.1f} s",
        )
        rounds_left = args.rungs - 1 - k
        if rounds_left:
            budget = (deadline - time.monotonic() - args.confirm_reserve) / rounds_left
            if seconds > budget and games_per_temp > args.min_tune_games:
                games_per_temp = max(
                    args.min_tune_games, int(games_per_temp * budget / seconds) // 8 * 8
                )
                log(out, f"tuning rounds cut to {games_per_temp} games a temperature")
    append_records(ladder_path, [{"type": "ladder", "rungs": [r.to_json() for r in rungs]}])
    log(out, f"ladder: {' > '.join(r.label() for r in rungs)}")

    start = 0
    runner = BatchedGames(network, batch=args.batch, max_ply=args.max_ply, lanes=args.lanes)
    while time.monotonic() < deadline - args.finish_margin and start < args.confirm_games:
        chunk = min(args.confirm_chunk, args.confirm_games - start)
        known = {
            tuple(r[k] for k in ("phase", "pair", "black_seed", "white_seed"))
            for r in game_records(read_records([games_path]))
        }
        games = [
            g for g in confirmation_games(rungs, chunk, args.seed, start) if g.key not in known
        ]
        t0 = time.monotonic()
        outcomes = runner.play(games, write, deadline=deadline - args.finish_margin)
        seconds = time.monotonic() - t0
        append_records(ladder_path, [timing_record("confirm", runner, len(outcomes), seconds)])
        log(
            out,
            f"confirmation games {start}-{start + chunk - 1} of each pair: "
            f"{len(outcomes)} games in {seconds:.1f} s",
        )
        start += chunk
    records = list(read_records([games_path]))
    summaries = pair_summaries(records, "confirm")
    append_records(ladder_path, [s.to_json() for s in summaries])
    anchors = [r for r in read_records([out / "anchors.jsonl"]) if r.get("type") == "anchor"]
    final = {
        "rungs": [r.to_json() | {"spec": r.spec(args.model)} for r in rungs],
        "pairs": [s.to_json() for s in summaries],
        "all_level": bool(summaries) and all(s.level for s in summaries),
        "anchors": anchors_summary(anchors),
        "seconds": round(time.monotonic() - began, 1),
        "device": device,
        "precision": args.precision,
    }
    (out / "ladder.json").write_text(json.dumps(final, indent=1) + "\n")
    print_summaries(records, "confirm")
    log(out, f"done in {time.monotonic() - began:.1f} s; all pairs level: {final['all_level']}")
    if pool is not None:
        pool.terminate()
    return 0


def anchors_summary(anchors: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rung's score per (rung, level, handicap, who takes the stones, komi) of the anchor
    records (``stones_to``: ``rung`` or ``gnugo``; an even game's is ``none``)."""
    groups: dict[tuple[str, int, int, str, float], list[float]] = {}
    for r in anchors:
        stones = int(r["handicap"])
        to = "none" if not stones else ("rung" if r["rung_black"] else "gnugo")
        key = (json.dumps(r["rung"]), int(r["level"]), stones, to, float(r["komi"]))
        groups.setdefault(key, []).append(float(r["rung_score"]))
    return [
        {
            "rung": json.loads(k[0]),
            "level": k[1],
            "handicap": k[2],
            "stones_to": k[3],
            "komi": k[4],
            "games": len(v),
            "rung_score": sum(v),
        }
        for k, v in sorted(groups.items())
    ]


def check_precision(out: Path, network: LadderNetwork, path: Path) -> None:
    """Write how far the batched network's priors are from the per-game player's (a batch
    of positions from the first 40 plies of 16 games)."""
    from sparring.games.go import Go

    go = Go(19, 0.5)
    rng = np.random.default_rng(0)
    states = []
    for _ in range(16):
        state = go.initial_state()
        for _ in range(int(rng.integers(0, 40))):
            legal = go.legal_moves(state)[:-1]
            state = go.play(state, int(legal[rng.integers(len(legal))]))
        states.append(state)
    planes = np.stack([go.encode(s) for s in states])
    legal = np.stack([go.legal_mask(s) for s in states])
    ranks = np.arange(16, dtype=np.int64) % len(network.ranks)
    gap = network.max_prior_gap(planes, ranks, legal)
    append_records(
        path,
        [
            {
                "type": "precision",
                "precision": network.precision,
                "device": str(network.device),
                "max_prior_gap": gap,
            }
        ],
    )
    log(out, f"largest prior gap against the per-game player's network: {gap:.2e}")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--model", default="go-play")
        p.add_argument("--device", default="auto", help="cpu, cuda or auto")
        p.add_argument("--precision", default="fp32", choices=("fp32", "tf32", "bf16"))
        p.add_argument("--threads", type=int, default=None, help="torch threads (CPU)")
        p.add_argument("--seed", type=int, default=20260)
        p.add_argument("--max-ply", type=int, default=None, help="the games' ply cap (722)")
        p.add_argument("--lanes", type=int, default=None, help="2 on CUDA, 1 on a CPU")

    p = sub.add_parser("bench", help=bench.__doc__)
    common(p)
    p.add_argument("--batch", type=int, nargs="+", default=[64, 256])
    p.add_argument("--plies", type=int, default=24, help="plies timed at each batch size")
    p.add_argument("--full-games", type=int, default=0, help="then this many whole games")
    p.add_argument("--black", default="1d@1")
    p.add_argument("--white", default="9d@0.5")
    p.set_defaults(func=bench)

    p = sub.add_parser("pair", help=pair.__doc__)
    common(p)
    p.add_argument("out")
    p.add_argument("--black", required=True, help="RANK@TEMPERATURE")
    p.add_argument("--white", required=True)
    p.add_argument("--games", type=int, default=64)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--phase", default="pair")
    p.set_defaults(func=pair)

    p = sub.add_parser("run", help=run.__doc__)
    common(p)
    p.add_argument("out")
    p.add_argument("--budget", type=float, default=420.0, help="seconds for the whole run")
    p.add_argument("--top", default="9d@0.5", help="the top rung, RANK@TEMPERATURE")
    p.add_argument("--rungs", type=int, default=13)
    p.add_argument("--schedule", choices=("follow", "fixed"), default="follow")
    p.add_argument("--grid", type=int, default=12, help="temperatures a tuning round")
    p.add_argument("--grid-low", type=float, default=0.6)
    p.add_argument("--grid-high", type=float, default=2.5)
    p.add_argument("--tune-games", type=int, default=96, help="games a temperature")
    p.add_argument("--min-tune-games", type=int, default=32)
    p.add_argument(
        "--fit-degree", type=int, choices=(1, 2), default=1, help="the tuning fit in log T"
    )
    p.add_argument("--refine", type=int, default=0, help="temperatures of a second stage")
    p.add_argument("--refine-spread", type=float, default=0.06, help="its half-width, relative")
    p.add_argument("--refine-games", type=int, default=384, help="its games a temperature")
    p.add_argument("--confirm-games", type=int, default=400, help="games a pair")
    p.add_argument("--confirm-chunk", type=int, default=100)
    p.add_argument("--confirm-reserve", type=float, default=120.0)
    p.add_argument("--finish-margin", type=float, default=20.0)
    p.add_argument("--batch", type=int, default=2048)
    p.add_argument("--numba-threads", type=int, default=0)
    p.add_argument("--anchor-workers", type=int, default=0)
    p.add_argument("--anchor-games", type=int, default=8, help="games per anchor setting")
    p.add_argument("--anchor-levels", type=int, nargs="*", default=[10])
    p.add_argument("--anchor-handicaps", type=int, nargs="*", default=[2])
    p.add_argument(
        "--anchor-gnugo-handicaps",
        nargs="*",
        default=[],
        help="LEVEL:STONES: games where GNU Go at LEVEL takes STONES as Black (komi 0.5) "
        "from the top rung",
    )
    p.add_argument(
        "--anchor-margin",
        type=float,
        default=90.0,
        help="no anchor game starts this many seconds before the budget ends",
    )
    p.set_defaults(func=run)

    p = sub.add_parser("sgf", help=sgf.__doc__)
    p.add_argument("ladder", help="a run's ladder.json")
    p.add_argument("games_file", help="its confirmation games (JSON lines, gzip or not)")
    p.add_argument("out")
    p.add_argument("--games", type=int, default=20)
    p.set_defaults(func=sgf)

    p = sub.add_parser("ship", help=ship.__doc__)
    p.add_argument("ladder", help="a run's ladder.json")
    p.add_argument("out", help="the ladder file to write")
    p.add_argument("--model", default="go-play")
    p.add_argument("--anchors", nargs="*", default=[], help="anchors.jsonl files (all runs')")
    p.add_argument("--command", default="", help="the run's command, as documented")
    p.add_argument("--seed", type=int, required=True)
    p.set_defaults(func=ship)

    p = sub.add_parser("summary", help="per-pair results of JSON-lines files")
    p.add_argument("files", nargs="+")
    p.add_argument("--phase", default=None)
    p.set_defaults(func=summary)

    args = ap.parse_args(argv)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    raise SystemExit(main())
