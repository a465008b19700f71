"""Every ``sparring`` command shown in README.md and the documentation site's pages (docs/index.md,
docs/guide/, docs/reference/, docs/research/, docs/development/; not the result folders' reports,
which keep the commands they were run with) names a command and options the program has (read
from the command line's own definition, as ``--help`` shows it)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import typer

from sparring.cli import app

REPO = Path(__file__).resolve().parents[1]
SECTIONS = ("guide", "reference", "research", "development")
PAGES = [
    REPO / "README.md",
    REPO / "docs" / "index.md",
    *(page for part in SECTIONS for page in sorted((REPO / "docs" / part).glob("*.md"))),
]
BLOCK = re.compile(r"```(?:bash|sh|console)?\n(.*?)```", re.S)


def shown_commands(text: str) -> list[str]:
    """The ``sparring ...`` lines of the page's code blocks (comments cut, continuation
    lines joined)."""
    lines = []
    for block in BLOCK.findall(text):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split(" #")[0].strip()
            for prefix in (".venv/bin/sparring ", "sparring "):
                if line.startswith(prefix):
                    lines.append("sparring " + line[len(prefix) :])
    return lines


def problems(command_line: str, root: Any) -> list[str]:
    """What in ``command_line`` the program does not have (empty: it parses)."""
    words = shlex.split(command_line)[1:]
    if not words or words[0].startswith("-"):
        return []
    command = root.commands.get(words[0])
    if command is None:
        return [f"no command {words[0]!r}"]
    known = {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}
    return [
        f"{words[0]}: no option {word.split('=')[0]!r}"
        for word in words[1:]
        if word.startswith("--") and word.split("=")[0] not in known
    ]


def test_the_reader_finds_commands_and_bad_options() -> None:
    text = "```bash\nsparring play connect4 --level 1500   # a comment\nls\n```\n"
    assert shown_commands(text) == ["sparring play connect4 --level 1500"]
    root = typer.main.get_command(app)
    assert hasattr(root, "commands")  # a group of commands (click's, as typer builds it)
    assert problems("sparring play connect4 --level 1500", root) == []
    assert problems("sparring play connect4 --strength 3", root) == ["play: no option '--strength'"]
    assert problems("sparring fly", root) == ["no command 'fly'"]


def test_every_command_in_the_readme_and_the_guide_parses() -> None:
    root = typer.main.get_command(app)
    assert hasattr(root, "commands")  # a group of commands (click's, as typer builds it)
    found: list[str] = []
    seen = 0
    for page in PAGES:
        for line in shown_commands(page.read_text()):
            seen += 1
            found += [f"{page.relative_to(REPO)}: {p}" for p in problems(line, root)]
    assert seen >= 60, seen  # the pages do show commands
    assert not found, "\n".join(found)
