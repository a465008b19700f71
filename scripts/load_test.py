"""Load test of ``sparring serve`` : simulated players against Connect4.

Usage (from the repository root; needs the ``load`` extra: ``pip install -e ".[load]"``)::

    .venv/bin/python scripts/load_test.py [--users 100] [--spawn-rate 10] [--time 5m]
        [--workers 2] [--ai-time 2] [--opponent az|elo] [--sims 200]
        [--out DIR] [--markdown BENCHMARKS.md]

The runner starts ``sparring serve`` on a free 127.0.0.1 port with a temporary data folder,
runs locust headless against it (this same file is the locustfile), stops both by itself
(locust's own ``--run-time`` bounds the run; the runner kills whatever is left after a grace
period), and prints a summary (also written as ``summary.json`` under ``--out``): requests/s,
the error count, the latency of an AI move, and every endpoint's latencies.

Each simulated player creates a player, starts a Connect4 game as the first player against
AlphaZero at ``--sims`` simulations (``--opponent az``: settings ``{"kind": "az", "sims": N}``;
``--opponent elo``: the catalog's middle Elo, the SA player on the shipped calibration, whose
search is 200 simulations), then repeats: think 1-3 s, play a random legal move
(``POST /api/games/{id}/moves`` with the ply), wait for the AI's reply with
``GET /api/games/{id}?wait=10`` (again while the AI still thinks); a finished game is followed
by a new one.  The latency of an AI move is the time from sending the person's move until the
``GET ?wait`` that shows the AI's reply returns (reported from the raw samples, not locust's
rounded histogram); beside it the search time the AI's analysis record reports, so that the
rest (the worker pool's queue, restoring the session, the store, polling) can be told apart.
Every non-2xx answer (429 "busy" included) counts as an error.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

WAIT = 10.0
"""Seconds one ``GET ?wait`` waits for the AI at most (the API's largest)."""
AI_NAME = "move (POST move -> GET ?wait shows the reply)"
MOVES = "/api/games/{id}/moves"
WAITED = "/api/games/{id}?wait"
"""The names of the two requests of a move in locust's statistics."""

if __name__ != "__main__":  # loaded by locust as its locustfile
    from locust import FastHttpUser, between, events, task
    from locust.env import Environment

    @events.init_command_line_parser.add_listener
    def _options(parser: Any) -> None:
        parser.add_argument(
            "--opponent-json",
            default='{"mode": "default"}',
            help="the opponent of every game (JSON)",
        )
        parser.add_argument("--samples-out", default="", help="where the AI move samples go")

    @events.init.add_listener
    def _init(environment: Environment, **_: Any) -> None:
        environment.ai_samples = []  # type: ignore[attr-defined]

    @events.quitting.add_listener
    def _write_samples(environment: Environment, **_: Any) -> None:
        """Write the AI move samples and every endpoint's final statistics (locust's own
        CSV files are written before the last moves in flight end)."""
        path = environment.parsed_options.samples_out if environment.parsed_options else ""
        if not path or environment.stats is None:
            return
        endpoints = [
            {
                "type": e.method,
                "name": e.name,
                "requests": e.num_requests,
                "failures": e.num_failures,
                "p50_ms": e.get_response_time_percentile(0.5),
                "p95_ms": e.get_response_time_percentile(0.95),
                "p99_ms": e.get_response_time_percentile(0.99),
                "max_ms": round(e.max_response_time or 0.0),
            }
            for e in environment.stats.entries.values()
        ]
        errors = [
            {"method": e.method, "name": e.name, "error": str(e.error), "count": e.occurrences}
            for e in environment.stats.errors.values()
        ]
        samples = environment.ai_samples  # type: ignore[attr-defined]
        data = {"samples": samples, "endpoints": endpoints, "errors": errors}
        Path(path).write_text(json.dumps(data))

    class Player(FastHttpUser):
        """One person: a player, then Connect4 games move by move, thinking 1-3 s."""

        wait_time = between(1.0, 3.0)

        def on_start(self) -> None:
            self.state: dict[str, Any] | None = None
            self.headers: dict[str, str] | None = None
            name = f"load-{random.randrange(10**9)}"
            player = self._call("POST", "/api/players", 201, "/api/players", json={"name": name})
            if player is None:
                return
            self.headers = {"Authorization": f"Bearer {player['token']}"}
            self.new_game()

        def _call(self, method: str, path: str, expect: int, name: str, **kw: Any) -> Any:
            """The answer's JSON, or None after counting a failure (a status not ``expect``)."""
            with self.client.request(
                method, path, headers=self.headers, name=name, catch_response=True, **kw
            ) as r:
                if r.status_code != expect:
                    r.failure(f"{r.status_code}: {r.text[:200]}")
                    return None
                return r.json()

        def new_game(self) -> None:
            opts = self.environment.parsed_options
            opponent = json.loads(opts.opponent_json) if opts else {"mode": "default"}
            body = {"game": "connect4", "opponent": opponent, "side": "first"}
            self.state = self._call("POST", "/api/games", 201, "/api/games", json=body)

        @task
        def move(self) -> None:
            if self.headers is None:
                return  # no player (its creation failed, counted as an error)
            state = self.state
            if state is None or state["status"] != "ongoing":
                self.new_game()
                return
            gid = state["id"]
            ply = int(state["ply"])
            choice = random.choice(state["legal"])["text"]
            body = {"move": choice, "ply": ply}
            start = time.perf_counter()
            answer = self._call("POST", f"/api/games/{gid}/moves", 200, MOVES, json=body)
            if answer is None:
                self.state = self._reload(gid)
                return
            state = answer
            post_done = time.perf_counter()
            polls = 0
            while state["status"] == "ongoing" and state["to_move"] != state["human_side"]:
                polls += 1
                answer = self._call("GET", f"/api/games/{gid}?wait={WAIT:g}", 200, WAITED)
                if answer is None:
                    self.state = self._reload(gid)
                    return
                state = answer
            self.state = state
            if polls == 0:
                return  # the person's move ended the game: no AI reply
            last = state["moves"][-1]
            if last["by"] != "ai" or last["ply"] != ply + 1:
                return
            elapsed = time.perf_counter() - start
            analysis = last.get("analysis") or {}
            events.request.fire(
                request_type="AI",
                name=AI_NAME,
                response_time=elapsed * 1000.0,
                response_length=0,
                exception=None,
                context={},
            )
            self.environment.ai_samples.append(
                {
                    "latency": elapsed,
                    "post": post_done - start,
                    "polls": polls,
                    "search_time": analysis.get("time"),
                    "simulations": analysis.get("simulations"),
                    "stopped": analysis.get("stopped"),
                    "ply": ply,
                    "t": time.time() - self.environment.stats.start_time,
                }
            )

        def _reload(self, gid: str) -> dict[str, Any] | None:
            r = self.client.get(f"/api/games/{gid}", headers=self.headers, name="/api/games/{id}")
            return r.json() if r.status_code == 200 else None


# ---- the runner ---------------------------------------------------------------------------------
def _get(url: str, timeout: float = 10.0) -> Any:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.loads(r.read())


def _cpu_seconds(pid: int, client: int | None = None) -> dict[str, float]:
    """CPU seconds (user + system) of the server's main process, of its children (the
    worker processes) and of the load generator ``client`` (locust)."""
    import psutil

    used = 0.0
    if client is not None:
        try:
            c = psutil.Process(client).cpu_times()
            used = c.user + c.system
        except psutil.NoSuchProcess:
            pass

    main = psutil.Process(pid)
    t = main.cpu_times()
    children = 0.0
    for child in main.children(recursive=True):
        try:
            c = child.cpu_times()
            children += c.user + c.system
        except psutil.NoSuchProcess:
            pass
    return {"server_main": t.user + t.system, "workers": children, "locust": used}


def _seconds(text: str) -> float:
    """locust's run time text (``30s``, ``5m``, ``1h2m``) in seconds."""
    total, number = 0.0, ""
    for ch in text:
        if ch.isdigit() or ch == ".":
            number += ch
        else:
            total += float(number) * {"s": 1, "m": 60, "h": 3600}[ch]
            number = ""
    return total + (float(number) if number else 0.0)


def _percentiles(values: list[float]) -> dict[str, float]:
    import numpy as np

    if not values:
        return {}
    arr = np.asarray(values, dtype=float)
    return {
        "p50": float(np.percentile(arr, 50)),
        "p95": float(np.percentile(arr, 95)),
        "p99": float(np.percentile(arr, 99)),
        "mean": float(arr.mean()),
        "max": float(arr.max()),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Start the server, run locust against it, stop both; the summary."""
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="sparring-load-"))
    out.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="sparring-load-data-") as tmp:
        data = Path(tmp)
        from serve_helper import serve  # (this folder; the runner alone starts a server)

        options = ("--workers", str(args.workers), "--ai-time", str(args.ai_time))
        with serve(data / "db", data / "server.log", *options, seconds=120) as (server, base):
            catalog = _get(base + "/api/catalog")
            if args.opponent == "az":
                opponent: dict[str, Any] = {
                    "mode": "settings",
                    "settings": {"kind": "az", "sims": args.sims},
                }
            else:
                c4 = next(g for g in catalog["games"] if g["name"] == "connect4")
                opponent = {"mode": "elo", "elo": c4["default_elo"]}
            cpu_before = _cpu_seconds(server.pid)
            command = [
                sys.executable,
                "-m",
                "locust",
                "-f",
                str(Path(__file__).resolve()),
                "--headless",
                "--host",
                base,
                "-u",
                str(args.users),
                "-r",
                str(args.spawn_rate),
                "-t",
                args.time,
                "--stop-timeout",
                "15",
                "--csv",
                str(out / "locust"),
                "--only-summary",
                "--opponent-json",
                json.dumps(opponent),
                "--samples-out",
                str(out / "ai_samples.json"),
                "--loglevel",
                "WARNING",
            ]
            started = time.monotonic()
            with open(out / "locust.log", "wb") as log:
                locust = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
                limit = _seconds(args.time) + 90
                cpu_end = cpu_before
                while locust.poll() is None and time.monotonic() - started < limit:
                    time.sleep(1.0)
                    cpu_end = _cpu_seconds(server.pid, locust.pid)  # last sample while it runs
                if locust.poll() is None:
                    locust.send_signal(signal.SIGINT)
                    try:
                        locust.wait(20)
                    except subprocess.TimeoutExpired:
                        locust.kill()
                locust_rc = locust.wait()
            wall = time.monotonic() - started
        (out / "server.log").write_bytes((data / "server.log").read_bytes())
    load_after = os.getloadavg()
    if not (out / "ai_samples.json").exists():
        raise SystemExit(f"locust wrote no results; see {out / 'locust.log'}")
    found = json.loads((out / "ai_samples.json").read_text())
    samples, endpoints = found["samples"], found["endpoints"]
    latencies = [s["latency"] for s in samples]
    search = [s["search_time"] for s in samples if s["search_time"] is not None]
    posts = [s["post"] for s in samples]
    http_requests = sum(e["requests"] for e in endpoints if e["type"] != "AI")
    failures = sum(e["failures"] for e in endpoints)
    span = float(_seconds(args.time))
    cpu = {k: cpu_end[k] - cpu_before[k] for k in cpu_before}
    summary: dict[str, Any] = {
        "command": " ".join(["scripts/load_test.py", *sys.argv[1:]]),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "users": args.users,
        "spawn_rate": args.spawn_rate,
        "run_time_s": span,
        "wall_s": round(wall, 1),
        "workers": args.workers,
        "ai_time": args.ai_time,
        "opponent": opponent,
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in load_after],
        "http_requests": http_requests,
        "requests_per_s": http_requests / span,
        "errors": failures,
        "locust_rc": locust_rc,
        "ai_moves": len(samples),
        "ai_moves_per_s": len(samples) / span,
        "ai_latency_s": _percentiles(latencies),
        "ai_search_time_s": _percentiles(search),
        "ai_post_s": _percentiles(posts),
        "ai_simulations": _percentiles(
            [float(s["simulations"]) for s in samples if s["simulations"] is not None]
        ),
        "ai_stopped_by_time": sum(1 for s in samples if s["stopped"]),
        "polls_per_ai_move": _percentiles([float(s["polls"]) for s in samples]),
        "ai_samples_after_ramp_up": _percentiles(
            [s["latency"] for s in samples if s["t"] >= args.users / args.spawn_rate]
        ),
        "cpu_s": {k: round(v, 1) for k, v in cpu.items()},
        "endpoints": endpoints,
        "error_kinds": found["errors"],
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    summary["out"] = str(out)
    return summary


def markdown(s: dict[str, Any]) -> str:
    """The summary as a BENCHMARKS.md section."""
    ms = {
        k: {q: round(v * 1000) for q, v in s[k].items()}
        for k in ("ai_latency_s", "ai_samples_after_ramp_up", "ai_search_time_s", "ai_post_s")
    }
    lines = [
        "## Service load",
        "",
        f"Command: `.venv/bin/python {s['command']}`  ",
        f"Date: {s['date']}; machine: x86_64, {os.cpu_count()} cores, shared with other work: "
        f"load average (1/5/15 min) {s['load_before']} before, {s['load_after']} after.  ",
        f"{s['users']} simulated players (locust, FastHttpUser, on the same machine), "
        f"{s['run_time_s']:g} s, Connect4, opponent `{json.dumps(s['opponent'])}`, "
        f"`sparring serve --workers {s['workers']} --ai-time {s['ai_time']:g}` (SQLite).",
        "",
        "| metric | value |",
        "| --- | ---: |",
        f"| HTTP requests/s | {s['requests_per_s']:.1f} |",
        f"| errors (non-2xx and exceptions) | {s['errors']} |",
        f"| AI moves measured | {s['ai_moves']} ({s['ai_moves_per_s']:.2f}/s) |",
        f"| AI move latency p50 / p95 / p99 (ms) | {ms['ai_latency_s'].get('p50')} / "
        f"{ms['ai_latency_s'].get('p95')} / {ms['ai_latency_s'].get('p99')} |",
        f"| the same after ramp-up (t >= {s['users'] / s['spawn_rate']:g} s) | "
        f"{ms['ai_samples_after_ramp_up'].get('p50')} / "
        f"{ms['ai_samples_after_ramp_up'].get('p95')} / "
        f"{ms['ai_samples_after_ramp_up'].get('p99')} |",
        f"| AI search time in the worker p50 / p95 / p99 (ms) | "
        f"{ms['ai_search_time_s'].get('p50')} / {ms['ai_search_time_s'].get('p95')} / "
        f"{ms['ai_search_time_s'].get('p99')} |",
        f"| POST move (human move job) p50 / p95 / p99 (ms) | {ms['ai_post_s'].get('p50')} / "
        f"{ms['ai_post_s'].get('p95')} / {ms['ai_post_s'].get('p99')} |",
        f"| AI moves cut short by --ai-time | {s['ai_stopped_by_time']} |",
        f"| CPU seconds: server main process / worker processes / locust | "
        f"{s['cpu_s']['server_main']} / {s['cpu_s']['workers']} / {s['cpu_s']['locust']} |",
        "",
        "| endpoint | requests | failures | p50 ms | p95 ms | p99 ms | max ms |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for e in s["endpoints"]:
        lines.append(
            f"| {e['type']} {e['name']} | {e['requests']} | {e['failures']} | "
            f"{e['p50_ms']} | {e['p95_ms']} | {e['p99_ms']} | {e['max_ms']} |"
        )
    if s["error_kinds"]:
        lines += ["", "Errors:", ""]
        for e in s["error_kinds"]:
            lines.append(f"- {e['count']} x {e['method']} {e['name']}: {e['error'][:160]}")
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=100)
    parser.add_argument("--spawn-rate", type=float, default=10.0)
    parser.add_argument("--time", default="5m", help="locust run time (30s, 5m, ...)")
    parser.add_argument("--workers", type=int, default=2, help="sparring serve --workers")
    parser.add_argument("--ai-time", type=float, default=2.0, help="sparring serve --ai-time")
    parser.add_argument("--opponent", choices=("az", "elo"), default="az")
    parser.add_argument("--sims", type=int, default=200, help="simulations (--opponent az)")
    parser.add_argument("--out", default="", help="folder of the results (default: a temp one)")
    parser.add_argument("--markdown", default="", help="append the section to this file")
    args = parser.parse_args(argv)
    summary = run(args)
    text = markdown(summary)
    print(json.dumps({k: v for k, v in summary.items() if k != "endpoints"}, indent=2))
    print(text)
    if args.markdown:
        with open(args.markdown, "a") as f:
            f.write("\n" + text)
    return 0 if summary["errors"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
