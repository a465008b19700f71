"""Does a Stockfish ``UCI_Elo`` anchor's strength depend on its time a move?  Stockfish 15.1
at one ``UCI_Elo`` plays itself, one side at ``--times A`` seconds a move, the other at ``B``,
colours alternating, from the chess level check's openings (scripts/uci_level_check.py).

Usage (from the repository root; resumable from OUT/games.jsonl)::

    .venv/bin/python scripts/anchor_time_check.py OUT --elo 1600 --times 0.5,0.1 --games 40 \\
        --parallel 2

Each side is one thread with a 16 MB hash, as the level check's anchors.  The summary is the
score of the first time against the second and the Elo difference that makes it most likely
(95% interval from the likelihood's curvature); ``--summary DIR DIR ...`` pools runs'
games without playing.
"""

from __future__ import annotations

import argparse
import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import chess
import chess.engine
from uci_level_check import MAX_PLIES, OPENINGS, fit_elo


def play(program: str, elo: int, first: float, second: float, index: int) -> dict:
    """One game: ``first`` seconds a move against ``second``; ``first`` is White when
    ``index`` is even."""
    engines = [chess.engine.SimpleEngine.popen_uci(program) for _ in range(2)]
    try:
        for engine in engines:
            engine.configure({"UCI_LimitStrength": True, "UCI_Elo": elo, "Threads": 1, "Hash": 16})
        board = chess.Board()
        for uci in OPENINGS[index % len(OPENINGS)].split():
            board.push_uci(uci)
        first_white = index % 2 == 0
        while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
            mine = board.turn == first_white
            limit = chess.engine.Limit(time=first if mine else second)
            board.push(engines[0 if mine else 1].play(board, limit).move)
        outcome = board.outcome(claim_draw=True)
        if outcome is None or outcome.winner is None:
            result = 0.5
        else:
            result = 1.0 if outcome.winner == first_white else 0.0
        return {
            "index": index,
            "first_white": first_white,
            "result": result,
            "plies": board.ply(),
            "moves": " ".join(m.uci() for m in board.move_stack),
        }
    finally:
        for engine in engines:
            engine.quit()


def summary(paths: list[Path], first: float, second: float) -> None:
    """The first time's score and Elo against the second over the games of ``paths``."""
    games = [json.loads(line) for path in paths for line in path.read_text().splitlines()]
    n, score = len(games), sum(g["result"] for g in games)
    # the first time's Elo with the second at 0: the level check's fit, one opponent
    diff, half = fit_elo([{"anchor": 0, "result": g["result"]} for g in games])
    print(f"{first:g} s against {second:g} s a move: {score:g}/{n}, {diff:+.0f} ± {half:.0f} Elo")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="+", help="the run's folder (with --summary: any number)")
    ap.add_argument("--elo", type=int, default=1600)
    ap.add_argument("--times", default="0.5,0.1", help="A,B: each side's seconds a move")
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--parallel", type=int, default=1, help="games at once (one core each)")
    ap.add_argument("--summary", action="store_true", help="the folders' games pooled, no play")
    ap.add_argument("--stockfish", default=shutil.which("stockfish") or "/usr/games/stockfish")
    args = ap.parse_args()
    first, second = (float(t) for t in args.times.split(","))
    if args.summary:
        summary([Path(o) / "games.jsonl" for o in args.out], first, second)
        return 0
    if len(args.out) != 1:
        ap.error("one folder to play into (several only with --summary)")
    out = Path(args.out[0])
    out.mkdir(parents=True, exist_ok=True)
    path = out / "games.jsonl"
    done = (
        {json.loads(line)["index"] for line in path.read_text().splitlines()}
        if path.exists()
        else set()
    )
    todo = [i for i in range(args.games) if i not in done]
    with ThreadPoolExecutor(args.parallel) as pool:
        for record in pool.map(lambda i: play(args.stockfish, args.elo, first, second, i), todo):
            with path.open("a") as f:
                f.write(json.dumps(record) + "\n")
            print(f"#{record['index']}: {record['result']} ({record['plies']} plies)", flush=True)
    summary([path], first, second)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
