"""The PostgreSQL server of the tests: its URL comes from ``SPARRING_TEST_PG_URL`` (set by
``.ci/run`` from ``bash scripts/pg_test_server.sh start``, which starts a private cluster on
127.0.0.1).  Without it the PostgreSQL tests skip, saying how to start one, except under
``SPARRING_CI=1``, where they fail: CI must not pass by skipping them.

Each test gets a schema of its own (``pg_schema``), made on the test database and dropped
afterwards, and a URL whose connections use only that schema (``search_path``), so that tests
never see each other's tables."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from urllib.parse import quote

import pytest
import sqlalchemy as sa

from sparring.service.store import make_engine

URL_VAR = "SPARRING_TEST_PG_URL"


def pg_url() -> str:
    """The test server's URL; skips the calling test without one (fails under SPARRING_CI)."""
    url = os.environ.get(URL_VAR, "")
    if not url:
        message = (
            f"{URL_VAR} is not set: start a test server with "
            f"`export {URL_VAR}=$(bash scripts/pg_test_server.sh start)` (Debian postgresql)"
        )
        if os.environ.get("SPARRING_CI") == "1":
            pytest.fail(
                f"{message}; SPARRING_CI is set, so PostgreSQL must be there", pytrace=False
            )
        pytest.skip(message)
    return url


def with_schema(url: str, schema: str) -> str:
    """``url`` whose connections see only ``schema`` (libpq's ``options``)."""
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}options={quote(f'-csearch_path={schema}')}"


@pytest.fixture
def pg_schema() -> Iterator[str]:
    """A URL of the test server on a fresh schema of its own (dropped after the test)."""
    url = pg_url()
    schema = f"t_{uuid.uuid4().hex[:16]}"
    admin = make_engine(url)
    try:
        with admin.begin() as conn:
            conn.execute(sa.text(f"CREATE SCHEMA {schema}"))
    except sa.exc.OperationalError as err:
        admin.dispose()
        pytest.fail(f"the PostgreSQL test server at {URL_VAR} is not reachable: {err.orig}")
    try:
        yield with_schema(url, schema)
    finally:
        with admin.begin() as conn:
            conn.execute(sa.text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


def game_values(game_id: str = "g1") -> dict[str, object]:
    """The columns of one stored game row, for the store's tests."""
    return {
        "id": game_id,
        "player_id": "p1",
        "game": "connect4",
        "game_params": "{}",
        "opponent": json.dumps({"kind": "uct", "sims": 20}),
        "opponent_label": "UCT",
        "human_side": 0,
        "status": "ongoing",
        "result": None,
        "ply": 0,
        "to_move": 0,
        "version": 0,
        "snapshot": json.dumps({"moves": []}),
        "created": "2026-11-25T20:00:00.000+00:00",
        "updated": "2026-11-25T20:00:00.000+00:00",
    }
