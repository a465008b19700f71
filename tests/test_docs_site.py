"""The documentation site's generated reference pages (scripts/docs_hooks.py) say what the
program has: every command and option, every HTTP route and model, every config field.

The site itself is built with ``mkdocs build --strict`` by scripts/test.sh; these tests check
the generators without a build.  Without MkDocs (the ``dev`` extra) they are skipped, and
with ``SPARRING_CI=1`` they fail instead."""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import re
from pathlib import Path
from types import ModuleType

import pytest
import typer

from sparring.cli import app
from sparring.training.config import TrainConfig

REPO = Path(__file__).resolve().parents[1]


def _need_mkdocs() -> None:
    missing = [
        name
        for name in ("mkdocs", "material", "mkdocstrings", "griffe")
        if importlib.util.find_spec(name) is None
    ]
    if missing:
        message = f"the documentation tools are not installed ({', '.join(missing)})"
        if os.environ.get("SPARRING_CI") == "1":
            pytest.fail(message + " (SPARRING_CI=1)")
        pytest.skip(message + ": pip install -e '.[dev]'")


@pytest.fixture(scope="module")
def hooks() -> ModuleType:
    _need_mkdocs()
    spec = importlib.util.spec_from_file_location("docs_hooks", REPO / "scripts" / "docs_hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sections(markdown: str, level: str) -> dict[str, str]:
    """The text under each heading of ``level`` (``##``), by heading."""
    parts = re.split(rf"^{level} (.+)$", markdown, flags=re.M)
    return {parts[i].strip(): parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def test_the_cli_page_has_every_command_and_option(hooks: ModuleType) -> None:
    page = hooks.cli_markdown()
    sections = _sections(page, "##")
    root = typer.main.get_command(app)
    commands = getattr(root, "commands", {})
    assert list(sections) == list(commands)  # every command, in the program's order
    assert len(commands) >= 25
    for name, command in commands.items():
        text = sections[name]
        assert f"sparring {name} [OPTIONS]" in text
        for param in command.params:
            for opt in (*param.opts, *param.secondary_opts):
                shown = param.name.upper() if param.param_type_name == "argument" else opt
                assert shown in text, f"{name}: {shown} is not on the page"
    serve = sections["serve"]
    assert "| `--port <int>` | Port to listen on (0..65535). | `8000` |" in serve
    assert "| `GAME_NAME` (required) | Game to play, e.g. connect4. |  |" in sections["play"]


def test_the_http_page_has_every_route_and_model(hooks: ModuleType) -> None:
    spec = hooks.openapi()
    page = hooks.http_markdown(spec)
    routes = [f"### `{m.upper()} {p}`" for p, ops in spec["paths"].items() for m in ops]
    assert len(routes) == 18
    for heading in routes:
        assert heading in page
    models = set(spec["components"]["schemas"]) - {"HTTPValidationError", "ValidationError"}
    assert {"NewGame", "MoveBody", "ErrorBody", "GameStateModel"} <= models
    for name in models:
        assert f"\n### {name}\n" in page
    errors = _sections(page, "##")["Errors"]
    assert (
        "| 409 | The game is at another ply or over, or the state kept in the profile does not "
        "fit. |" in (errors)
    )
    assert "| `move` | string | yes |" in _sections(page, "###")["MoveBody"]


def test_the_config_page_has_every_field(hooks: ModuleType) -> None:
    table = hooks.fields_markdown("sparring.training.config.TrainConfig")
    rows = [line for line in table.splitlines()[2:] if line.startswith("| `")]
    names = [row.split("`")[1] for row in rows]
    assert names == [f.name for f in dataclasses.fields(TrainConfig)]
    assert "| `iterations` | `int` | `600` | `N_iter`: self-play" in table


def test_sphinx_roles_become_plain_code(hooks: ModuleType) -> None:
    html = "see :class:<code>~sparring.search.limit.Limit</code> and :func:<code>resolve</code>"
    assert hooks.on_page_content(html, None, None, None) == (
        "see <code>Limit</code> and <code>resolve</code>"
    )
