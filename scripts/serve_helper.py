"""Start ``sparring serve`` for the scripts (fuzz_api.py, load_test.py, screenshots.py).

:func:`serve` runs ``python -m sparring serve`` on a free 127.0.0.1 port in its own process
group, its output in a log file, waits until ``/api/catalog`` answers, and stops it on exit
(SIGTERM to the server, then SIGKILL to its process group if it has not ended in time).
Standard library only; the scripts import it from their own folder.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def serve(
    data: Path, log: Path, *options: str, seconds: float = 180.0
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """``sparring serve --data data *options`` (stdout and stderr to ``log``); yields the
    process and its base URL. SystemExit with the log's end when it ends or does not answer
    within ``seconds``."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "sparring", "serve", "--host", "127.0.0.1",
               "--port", str(port), "--data", str(data), *options]  # fmt: skip
    with log.open("wb") as out:
        proc = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            deadline = time.monotonic() + seconds
            while True:
                try:
                    with urllib.request.urlopen(base + "/api/catalog", timeout=2):
                        break
                except (urllib.error.URLError, OSError):
                    if proc.poll() is not None or time.monotonic() > deadline:
                        raise SystemExit(
                            f"sparring serve did not start (code {proc.poll()}): "
                            + log.read_text(errors="replace")[-2000:]
                        ) from None
                    time.sleep(0.2)
            yield proc, base
        finally:
            proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=30)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # the server or workers still left
            proc.wait(timeout=30)
