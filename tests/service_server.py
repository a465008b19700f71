"""Helpers of the service tests: a real server (uvicorn) on a free loopback port, in a thread
of the test process or as a ``sparring serve`` subprocess, and a small client."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from sparring.service import ServiceSettings, create_app

UCT20: dict[str, Any] = {"mode": "settings", "settings": {"kind": "uct", "sims": 20}}
"""A quick opponent: UCT with 20 simulations."""
SLOW: dict[str, Any] = {"mode": "settings", "settings": {"kind": "az", "sims": 100000}}
"""An opponent that thinks the whole server time limit (the network, 100000 simulations)."""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until_up(base: str, seconds: float = 120.0) -> None:
    """Poll ``base``/api/catalog until it answers 200 (AssertionError after ``seconds``)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/api/catalog", timeout=2.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"the server at {base} did not start in {seconds:.0f} s")


@contextmanager
def thread_server(settings: ServiceSettings) -> Iterator[str]:
    """``create_app(settings)`` served by uvicorn in a thread; yields the base URL."""
    with serve_app(create_app(settings)) as base:
        yield base


@contextmanager
def serve_app(app: Any, log_level: str = "warning") -> Iterator[str]:
    """An ASGI ``app`` served by uvicorn in a thread on a free loopback port; yields the base
    URL and stops the server on exit."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level=log_level))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base)
        yield base
    finally:
        server.should_exit = True
        thread.join(timeout=30)


class ServeProcess:
    """``python -m sparring serve`` in its own process group (killed with SIGKILL); its
    standard error goes to the file ``log`` (appended) when given."""

    def __init__(
        self,
        data: Path,
        port: int,
        ai_time: float = 1.0,
        workers: int = 1,
        db: str | None = None,
        log: Path | None = None,
    ) -> None:
        self.base = f"http://127.0.0.1:{port}"
        stderr: Any = subprocess.PIPE if log is None else log.open("ab")
        self.proc = subprocess.Popen(
            [
                *(sys.executable, "-m", "sparring", "serve", "--port", str(port)),
                *("--data", str(data), "--workers", str(workers), "--ai-time", str(ai_time)),
                *(("--db", db) if db else ()),
            ],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            start_new_session=True,
        )
        if log is not None:
            stderr.close()  # (the server has its own copy)
        try:
            wait_until_up(self.base)
        except AssertionError:
            self.kill()
            raise

    def group(self) -> list[int]:
        """The live processes of the server's process group (the server, its workers)."""
        pids = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z" and int(fields[2]) == self.proc.pid:
                pids.append(int(stat.parent.name))
        return pids

    def kill_server_only(self) -> None:
        """SIGKILL the server process alone (its workers must then end by themselves)."""
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def kill(self) -> None:
        """SIGKILL the server and its worker processes (its process group)."""
        if self.proc.poll() is None or self.group():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)
        if self.proc.stderr is not None:
            self.proc.stderr.close()


class Client:
    """One player's view of the API (its token in every request)."""

    def __init__(self, base: str, name: str = "ann") -> None:
        self.base = base
        reply = httpx.post(f"{base}/api/players", json={"name": name}, timeout=30)
        assert reply.status_code == 201, reply.text
        self.player = reply.json()
        self.headers = {"Authorization": f"Bearer {self.player['token']}"}

    def get(self, path: str, **kw: Any) -> httpx.Response:
        return httpx.get(f"{self.base}{path}", headers=self.headers, timeout=60, **kw)

    def post(self, path: str, body: Any, **kw: Any) -> httpx.Response:
        return httpx.post(f"{self.base}{path}", json=body, headers=self.headers, timeout=60, **kw)

    def new_game(self, game: str = "connect4", opponent: Any = None, side: str = "first") -> Any:
        body = {"game": game, "opponent": opponent or UCT20, "side": side}
        reply = self.post("/api/games", body)
        assert reply.status_code == 201, reply.text
        return reply.json()

    def settled(self, game_id: str) -> Any:
        """The game's state once the AI has moved (waits up to 30 s)."""
        deadline = time.monotonic() + 30
        while True:
            state = self.get(f"/api/games/{game_id}", params={"wait": 5}).json()
            if not state["ai_thinking"] or time.monotonic() > deadline:
                return state

    def move(self, state: Any, text: str | None = None) -> httpx.Response:
        """Play ``text`` (default: the first legal move) at the state's ply."""
        move = text if text is not None else state["legal"][0]["text"]
        return self.post(f"/api/games/{state['id']}/moves", {"move": move, "ply": state["ply"]})
