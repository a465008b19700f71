"""The service's AI-move path, step by step, at ply 10 and ply 200 of a 19x19 Go game and a
chess game.

Usage (from the repository root)::

    PYTHONPATH=src .venv/bin/python scripts/bench_ai_move_path.py [--games go,chess] \
        [--plies 10,200] [--repeats 3] [--seed 1] [--label NAME] [--live 0,32] [--out FILE]
    PYTHONPATH=src .venv/bin/python scripts/bench_ai_move_path.py --table FILE...

A real server (``create_app`` served by uvicorn in a thread of this process on a loopback
port, one AI worker process and the quick one, SQLite in a temporary folder), or one per
``--live`` value (``ServiceSettings.live_games``: the games each worker keeps live; 0 restores
every game at every move), all started first and then used in turn, repetition by repetition.
The script runs against older code too (``PYTHONPATH`` pointing at its checkout, without
``--live``): its rows are labelled ``--label``, and ``--table`` prints the medians of several
runs' ``--out`` files side by side.  The AI is the game's default level (``{"mode":
"default"}``: Go ``human-mcts`` on the go-play network, chess ``human-mcts`` with Stockfish's
leaf values when Stockfish is installed; without Stockfish, chess plays the Elo level 1560,
which needs none); ``chess-0.6s`` is chess against an AI whose search takes the same time
at every ply (:data:`FIXED_WORK`), so that its ply-10 and ply-200 moves differ by the path
alone.  The person plays second, so that the AI is to move at even plies.

How a game reaches ply P: the game is created through the API (the AI's first move is played
by the server), then the *stored snapshot is written directly*: this process restores the
game's session with its players (:meth:`GameSession.restore`), plays random legal moves for
both sides up to ply P - 3 (Go: no passes; chess: quiet moves first, so that material stays),
and stores it the way the server stores a change (:meth:`Store.apply`: the snapshot, one move
row per ply); the AI's moves get an analysis and an annotation of the size of its real ones
(one visit count, value and prior per legal move), so that the stored game weighs what a
game the AI played weighs.  Then, through the API: the person's move at P - 3, the AI's move
at P - 2 (the worker now has the game, as in a game it played from the start), the person's
move at P - 1 and the measured AI move at P.

Steps of the measured move (milliseconds), from the server's DEBUG record of the AI move
(``ai_move_steps``, see ``sparring.service.scheduler.log_steps`` and ``sparring.service.worker``)
and this client's clock (one monotonic clock for all processes on Linux):

* ``request``: the person's ``POST .../moves`` sent until the AI task reads the game (the
  request's checks, the person's move in the quick worker, its store, the AI scheduled);
* ``read``: the game row read and its JSON decoded;
* ``queue``: the job sent to the AI worker process (arguments pickled) until it starts;
* ``build``, ``replay``: the players built and the moves replayed from the snapshot (a
  restore), or ``catch_up``: the worker's live session brought to the snapshot and checked;
* ``search``: the AI's decision (:meth:`GameSession.play_decision`);
* ``result``: the new snapshot and state written in the worker;
* ``back``: the result pickled back to the server;
* ``store``: the snapshot encoded as JSON and the change stored in one transaction;
* ``notify``: the waiting requests woken (and, for a finished game, the rank estimate
  started);
* ``respond``: the woken ``GET .../?wait`` reads the game and answers with its state;
* ``total``: the person's ``POST`` sent until the answer holding the AI's move arrived.
  ``other`` is what the steps leave of it (the event loop between them).

Also the size of the ``GET`` answer with the AI's move and of the stored snapshot, and what
one ``json.loads`` / ``json.dumps`` of the snapshot costs here.  Prints a Markdown table of
the medians and writes all measurements as JSON (``--out``).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import logging
import os
import random
import socket
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import uvicorn

import sparring.kinds  # noqa: F401 - registers the player kinds
from sparring.games import get_game
from sparring.games.base import Game
from sparring.games.chess import Chess, action_to_move
from sparring.players.cache import PlayerCache
from sparring.players.external import find_program
from sparring.service import ServiceSettings, create_app
from sparring.service.store import Store
from sparring.session import GameSession

STEPS = (
    "request",
    "read",
    "queue",
    "build",
    "replay",
    "catch_up",
    "search",
    "result",
    "back",
    "store",
    "notify",
    "respond",
    "other",
    "total",
)
AI_TIME = 60.0
"""The server's time limit of an AI move: far above the default levels' searches (their
simulations end them)."""
CHESS_WITHOUT_STOCKFISH = {"mode": "elo", "elo": 1560}
"""Chess's opponent where Stockfish is missing: a level of the play network alone."""
FIXED_WORK = {
    "chess-0.6s": (
        "chess",
        {"kind": "human-mcts", "sf_nodes": 10000, "cpuct": 0.25, "sweep": True,
         "sims": 100_000, "movetime": 0.6},
    ),
}  # fmt: skip
"""Games of ``--games`` whose AI searches equally long at every ply: chess's default level
(``human-mcts`` with Stockfish's leaf values at 10,000 nodes) with more simulations than it
can run and a cap of 0.6 seconds a move (``movetime``), so that its search ends at the cap
whatever the position; the default level's own search costs what the position makes
Stockfish's leaf values cost."""


class StepRecords(logging.Handler):
    """Keeps the ``ai_move_steps`` of the server's DEBUG records, by game id and ply."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.found: dict[tuple[str, int], dict[str, float]] = {}
        self.guard = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        steps = getattr(record, "ai_move_steps", None)
        if steps is not None and isinstance(record.args, tuple):
            with self.guard:
                game_id, ply = record.args[0], record.args[1]
                self.found[(str(game_id), int(str(ply)))] = dict(steps)

    def wait_for(self, game_id: str, ply: int, seconds: float = 10.0) -> dict[str, float]:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with self.guard:
                if (game_id, ply) in self.found:
                    return self.found[(game_id, ply)]
            time.sleep(0.005)
        raise RuntimeError(f"no step record of game {game_id} at ply {ply}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def served(settings: ServiceSettings) -> Iterator[str]:
    """The service for ``settings`` on a loopback port, in a thread; yields its base URL."""
    port = free_port()
    config = uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{base}/api/catalog", timeout=5).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError(f"the server at {base} did not start")
            time.sleep(0.2)
        yield base
    finally:
        server.should_exit = True
        thread.join(timeout=60)


class Server:
    """One running service, its store (opened a second time, here) and a player's token."""

    def __init__(self, base: str, data: Path) -> None:
        self.base = base
        self.store = Store.open(f"sqlite:///{data / 'sparring.sqlite'}")
        reply = httpx.post(f"{base}/api/players", json={"name": "bench"}, timeout=30)
        reply.raise_for_status()
        self.headers = {"Authorization": f"Bearer {reply.json()['token']}"}
        self.client = httpx.Client(base_url=base, headers=self.headers, timeout=120)
        self.answer_bytes = 0

    def post(self, path: str, body: Any) -> Any:
        reply = self.client.post(path, json=body)
        if reply.status_code >= 300:
            raise RuntimeError(f"POST {path}: {reply.status_code} {reply.text}")
        return reply.json()

    def settled(self, game_id: str, ply: int) -> Any:
        """The game's state once it is past ``ply`` and the AI is not thinking."""
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            reply = self.client.get(f"/api/games/{game_id}", params={"wait": 10})
            state = reply.json()
            self.answer_bytes = len(reply.content)
            if (state["ply"] > ply and not state["ai_thinking"]) or state["status"] == "over":
                return state
        raise RuntimeError(f"game {game_id}: no AI move after ply {ply}")


def opponent(name: str) -> tuple[str, dict[str, Any]]:
    """The game of ``--games``'s ``name`` and its opponent (the request's ``opponent``)."""
    if name in FIXED_WORK:
        game, settings = FIXED_WORK[name]
        return game, {"mode": "settings", "settings": settings}
    if name == "chess" and find_program("stockfish") is None:
        return name, CHESS_WITHOUT_STOCKFISH
    return name, {"mode": "default"}


def random_move(game: Game, session: GameSession, rng: random.Random) -> int | None:
    """A random legal move that does not end the game (Go: no pass; chess: a quiet move
    where there is one); None when there is none."""
    state = session.state
    legal = [m for m in session.legal_moves() if game.move_to_text(m) != "pass"]
    rng.shuffle(legal)
    if isinstance(game, Chess):
        board = game.board(state)
        legal.sort(key=lambda m: board.is_capture(action_to_move(m)))
    for move in legal:
        if not game.is_terminal(game.play(state, move)):
            return move
    return None


def ai_records(
    template: dict[str, Any], legal: list[int], move: int, rng: random.Random
) -> tuple[dict[str, Any], dict[str, Any]]:
    """An analysis and an annotation of the AI's ``move`` among ``legal`` shaped as the
    AI's real ones (``template``: the analysis of its first move): one visit count, value and
    prior per legal move, ``move`` the most visited."""
    sims = max(1, int(template.get("simulations") or 32))
    visits = [0] * len(legal)
    for _ in range(sims):
        visits[rng.randrange(len(legal))] += 1
    best = legal.index(move)
    visits[best] = max(visits) + 1
    priors = [rng.random() for _ in legal]
    total = sum(priors)
    analysis = {
        **template,
        "move": move,
        "moves": list(legal),
        "visits": visits,
        "q": [rng.uniform(-1.0, 1.0) for _ in legal],
        "priors": [p / total for p in priors],
        "pv": [move],
        "value": rng.uniform(-1.0, 1.0),
    }
    annotation = {"moves": list(legal), "visits": list(visits), **template["annotations"]}
    return analysis, annotation


def write_position(
    server: Server, game_id: str, game: Game, target: int, rng: random.Random, cache: PlayerCache
) -> None:
    """Store the game ``game_id`` continued with random moves up to ply ``target``, each of
    the AI's moves with an analysis and an annotation shaped as its real ones (:func:`ai_records`
    from the analysis of its first move), as a game it played would hold them."""
    row = server.store.game(game_id)
    template = server.store.moves_of(game_id)[-1].analysis
    assert template is not None, "the AI's first move has no analysis"
    session = GameSession.restore(row.snapshot, game=game, cache=cache)
    analyses: dict[int, str] = {}
    while session.ply < target:
        move = random_move(game, session, rng)
        if move is None:
            raise RuntimeError("the random game ended")
        if session.to_move == row.human_side:
            session.play(move)
        else:
            analysis, note = ai_records(template, session.legal_moves(), move, rng)
            analyses[session.ply] = json.dumps(analysis)
            session.play(move, annotation=note)
    snapshot = session.snapshot()
    new_moves = [
        {
            "ply": i,
            "move": move,
            "side": side,
            "played_by": "human" if side == row.human_side else "ai",
            "analysis": analyses.get(i),
        }
        for i, (move, side) in enumerate(zip(session.moves, session.movers, strict=True))
        if i >= row.ply
    ]
    changes = {
        "snapshot": json.dumps(snapshot),
        "ply": session.ply,
        "to_move": session.to_move,
        "status": "ongoing",
        "result": None,
    }
    with server.store.transaction() as conn:
        server.store.apply(conn, row, changes, keep_moves=row.ply, new_moves=new_moves)


def human_move(state: Any, rng: random.Random) -> str:
    """A random legal move of the state's list (no pass)."""
    moves = [m["text"] for m in state["legal"] if m["text"] != "pass" and not m.get("ends_game")]
    return rng.choice(moves)


def json_costs(text: str) -> tuple[float, float]:
    """Seconds of one ``json.loads`` and one ``json.dumps`` of ``text`` (median of 5)."""
    loads, dumps = [], []
    for _ in range(5):
        began = time.perf_counter()
        data = json.loads(text)
        loads.append(time.perf_counter() - began)
        began = time.perf_counter()
        json.dumps(data)
        dumps.append(time.perf_counter() - began)
    return statistics.median(loads), statistics.median(dumps)


def measure(
    server: Server,
    records: StepRecords,
    name: str,
    ply: int,
    seed: int,
    cache: PlayerCache,
) -> dict[str, float]:
    """One measured AI move at ``ply`` of a new game of ``name`` (seconds per step)."""
    rng = random.Random(seed)
    game_name, ai = opponent(name)
    game = get_game(game_name)
    body = {"game": game_name, "opponent": ai, "side": "second"}
    game_id = server.post("/api/games", body)["id"]
    server.settled(game_id, 0)
    write_position(server, game_id, game, ply - 3, rng, cache)
    state = server.client.get(f"/api/games/{game_id}").json()
    state = server.post(
        f"/api/games/{game_id}/moves", {"move": human_move(state, rng), "ply": ply - 3}
    )
    state = server.settled(game_id, ply - 2)
    if state["status"] != "ongoing" or state["ply"] != ply - 1:
        raise RuntimeError(f"game {game_id} ended before ply {ply}")
    move = human_move(state, rng)
    began = time.perf_counter()
    server.post(f"/api/games/{game_id}/moves", {"move": move, "ply": ply - 1})
    posted = time.perf_counter()
    state = server.settled(game_id, ply)
    answered = time.perf_counter()
    if state["ply"] != ply + 1:
        raise RuntimeError(f"game {game_id}: the AI did not move at ply {ply}")
    steps = records.wait_for(game_id, ply)
    out = {k: float(v) for k, v in steps.items() if not k.endswith("_at")}
    out["request"] = steps["began_at"] - began
    out["respond"] = answered - steps["notified_at"]
    out["total"] = answered - began
    out["other"] = out["total"] - sum(v for k, v in out.items() if k != "total")
    out["post_answered"] = posted - began
    out["answer_bytes"] = float(server.answer_bytes)
    text = json.dumps(server.store.game(game_id).snapshot)
    out["snapshot_bytes"] = float(len(text))
    out["json_loads"], out["json_dumps"] = json_costs(text)
    return out


def measure_retried(
    server: Server,
    records: StepRecords,
    name: str,
    ply: int,
    seed: int,
    cache: PlayerCache,
) -> dict[str, float]:
    """:func:`measure` with seeds ``seed`` to ``seed + 4`` in turn until a game reaches
    ``ply`` (a random game, or the AI, may end it before)."""
    for attempt in range(5):
        try:
            return measure(server, records, name, ply, seed + attempt, cache)
        except RuntimeError as err:
            print(f"retry ({err})", flush=True)
    raise RuntimeError(f"{name} ply {ply}: no game reached it")


def _median(rows: list[dict[str, Any]], col: tuple[str, str, int], step: str) -> float:
    values = [r["steps"].get(step, 0.0) for r in rows if (r["label"], r["game"], r["ply"]) == col]
    return statistics.median(values) if values else float("nan")


def median_table(rows: list[dict[str, Any]]) -> str:
    """The medians as a Markdown table: one column per game, ply and label, then per game and
    label the ply-200 move against the ply-10 one."""
    labels = list(dict.fromkeys(r["label"] for r in rows))
    order = ["go", "chess", *FIXED_WORK]
    keys = sorted(
        {(r["game"], r["ply"]) for r in rows},
        key=lambda k: (order.index(k[0]) if k[0] in order else len(order), k[0], k[1]),
    )
    columns = [(label, g, p) for g, p in keys for label in labels]
    counts = [sum(1 for r in rows if (r["label"], r["game"], r["ply"]) == c) for c in columns]
    head = "| step (ms, median) | " + " | ".join(
        f"{g} ply {p}, {label} ({n})" for (label, g, p), n in zip(columns, counts, strict=True)
    )
    lines = [head + " |", "| --- |" + " ---: |" * len(columns)]
    for step in STEPS:
        cells = [f"{_median(rows, c, step) * 1000:.1f}" for c in columns]
        lines.append(f"| {step} | " + " | ".join(cells) + " |")
    share = []
    for c in columns:
        total = _median(rows, c, "total")
        share.append(f"{(total - _median(rows, c, 'search')) / total * 100:.1f}%")
    lines.append("| all but the search, % of total | " + " | ".join(share) + " |")
    for extra, scale, unit in (
        ("post_answered", 1000, "ms"),
        ("answer_bytes", 1 / 1024, "KiB"),
        ("snapshot_bytes", 1 / 1024, "KiB"),
        ("json_loads", 1000, "ms"),
        ("json_dumps", 1000, "ms"),
    ):
        cells = [f"{_median(rows, c, extra) * scale:.1f}" for c in columns]
        lines.append(f"| {extra} ({unit}) | " + " | ".join(cells) + " |")
    plies = sorted({r["ply"] for r in rows})
    if len(plies) >= 2:
        low, high = plies[0], plies[-1]
        lines += ["", f"| game, label | total ply {high} / ply {low} | all but the search, "
                      f"ply {low} -> {high} (ms) |", "| --- | ---: | ---: |"]  # fmt: skip
        for g in dict.fromkeys(k[0] for k in keys):
            for label in labels:
                a, b = (label, g, low), (label, g, high)
                ratio = _median(rows, b, "total") / _median(rows, a, "total")
                rest = [_median(rows, c, "total") - _median(rows, c, "search") for c in (a, b)]
                lines.append(
                    f"| {g}, {label} | {ratio:.2f} | {rest[0] * 1000:.0f} -> {rest[1] * 1000:.0f} |"
                )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Start the servers and measure; the rows."""
    games = [g for g in args.games.split(",") if g]
    plies = [int(p) for p in args.plies.split(",")]
    lives: list[int | None] = [int(v) for v in args.live.split(",")] if args.live else [None]
    records = StepRecords()
    logger = logging.getLogger("sparring.service")
    logger.setLevel(logging.DEBUG)
    logger.addHandler(records)
    cache = PlayerCache()
    rows: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        servers: list[tuple[str, Server]] = []
        for live in lives:
            data = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            settings = ServiceSettings(data_dir=data, workers=1, ai_time=AI_TIME)
            if live is not None:  # (a setting that code before the live games lacks)
                settings = dataclasses.replace(settings, live_games=live)
            label = args.label if live is None else f"{args.label}, live {live}"
            servers.append((label, Server(stack.enter_context(served(settings)), data)))
        for _, server in servers:  # the networks loaded, the first searches compiled
            for name in games:
                measure_retried(server, records, name, min(plies), 0, cache)
        for rep in range(args.repeats):
            for label, server in servers:
                for name in games:
                    for ply in plies:
                        seed = args.seed * 1000 + rep * 10 + ply
                        steps = measure_retried(server, records, name, ply, seed, cache)
                        row = {"label": label, "game": name, "ply": ply, "rep": rep,
                               "steps": steps}  # fmt: skip
                        rows.append(row)
                        print(
                            f"{label} rep {rep} {name} ply {ply}: total "
                            f"{steps['total'] * 1000:.0f} ms, search {steps['search'] * 1000:.0f}"
                            " ms",
                            flush=True,
                        )
        for _, server in servers:
            server.client.close()
            server.store.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--games", default="go,chess", help="go, chess, chess-0.6s (chess, its search capped)"
    )
    parser.add_argument("--plies", default="10,200")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--label", default="this code", help="the rows' label")
    parser.add_argument(
        "--live", default="", help="ServiceSettings.live_games values, one server each"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, help="write the rows (JSON) here")
    parser.add_argument(
        "--table",
        type=Path,
        nargs="+",
        default=None,
        help="only print the table of these --out files",
    )
    args = parser.parse_args()
    if args.table:
        rows = [row for path in args.table for row in json.loads(path.read_text())["rows"]]
        print(median_table(rows))
        return
    if any(int(p) < 4 or int(p) % 2 for p in args.plies.split(",")):
        parser.error("--plies: even numbers >= 4 (the AI moves at even plies)")
    load_before = os.getloadavg()
    rows = run(args)
    print(median_table(rows))
    if args.out is not None:
        info = {"load_before": load_before, "load_after": os.getloadavg(), "date": time.ctime()}
        args.out.write_text(json.dumps({"rows": rows, **info}, indent=1) + "\n")


if __name__ == "__main__":
    main()
