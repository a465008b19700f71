"""API fuzzing of the service from its OpenAPI schema (schemathesis): a short run of
``scripts/fuzz_api.py`` (the 10,000-request run is the script's default; BENCHMARKS.md), and
a check that the fuzzer does catch a 5xx and an answer the schema does not declare."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from script_module import SCRIPTS, load_script
from service_server import serve_app
from sparring.service import ServiceSettings, create_app

SCRIPT = SCRIPTS / "fuzz_api.py"


def test_short_fuzz_run_finds_no_5xx_and_no_schema_violation(tmp_path: Path) -> None:
    """400 generated requests (seed 0) against ``sparring serve``: every answer is declared by
    the schema and none is a 5xx; the run reached past the token check and the 404s."""
    out = tmp_path / "counts.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--budget", "400", "--seed", "0", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    counts = json.loads(out.read_text())
    assert counts["requests"] == 400
    assert counts["server_errors_5xx"] == 0
    assert counts["schema_violations"] == 0
    assert counts["other_check_failures"] == 0
    assert counts["transport_errors"] == 0
    assert sum(counts["statuses"].values()) == 400
    ops = counts["by_operation"]
    # valid requests with the token got through: players and games made, states read
    assert ops["POST /api/players"].get("201", 0) > 0
    assert ops["POST /api/games"].get("201", 0) > 0
    assert ops["GET /api/games/{game_id}"].get("200", 0) > 0
    # and invalid ones were refused with the declared errors
    assert counts["statuses"].get("401", 0) > 0
    assert counts["statuses"].get("422", 0) > 0
    assert "requests: 400  5xx: 0  schema violations: 0" in done.stdout


class _Broken:
    """ASGI wrapper that breaks the app on purpose: ``GET /api/me/profile`` answers 500, and
    the errors of ``GET /api/games/{id}`` come with status 418 (declared nowhere)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and path == "/api/me/profile":
            await send(
                {
                    "type": "http.response.start",
                    "status": 500,
                    "headers": [(b"content-type", b"application/json")],
                }
            )
            await send({"type": "http.response.body", "body": b'{"detail": "x", "key": null}'})
            return
        broken = (
            scope["type"] == "http"
            and scope["method"] == "GET"
            and path.startswith("/api/games/")
            and not path.endswith("/record")
        )

        async def send_changed(message: Any) -> None:
            if broken and message["type"] == "http.response.start" and message["status"] >= 400:
                message = {**message, "status": 418}
            await send(message)

        await self.app(scope, receive, send_changed)


@contextmanager
def _broken_server(data: Path) -> Iterator[str]:
    app = _Broken(create_app(ServiceSettings(data_dir=data, workers=1, ai_time=0.05)))
    with serve_app(app, log_level="error") as base:
        yield base


def test_fuzzer_reports_5xx_and_undeclared_status(tmp_path: Path) -> None:
    """The checks can fail: against a deliberately broken server the same fuzzing counts the
    500s and the undeclared 418s."""
    fuzz = load_script("fuzz_api").fuzz
    with _broken_server(tmp_path) as base:
        tally = fuzz(base, budget=120, seed=0, max_seconds=120)
    assert tally.requests == 120
    assert tally.statuses[500] == tally.server_errors > 0
    assert tally.statuses[418] > 0
    # each 418 and each 500 is a status the schema does not declare; an invalid request
    # answered 418 is also one not rejected (negative_data_rejection); nothing else is wrong
    assert tally.schema_violations == tally.statuses[418] + tally.statuses[500]
    assert tally.other_failures <= tally.statuses[418]
    assert tally.transport_errors == 0
    assert any("[5xx] GET /api/me/profile" in e for e in tally.examples)
