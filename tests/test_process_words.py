"""The product never speaks of how it was made: no tracked file (docs, model cards, code,
comments, tests, scripts, configs, data) and no tracked file name mentions work sessions,
issue numbers, lent GPUs, worktrees or "this machine".  History belongs in CHANGELOG.md, by
date or version, and a thing is named by what it is."""

from __future__ import annotations

import fnmatch
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

_SEP = r"[ \t]*(?:\r?\n[ \t]*(?:#+|//|\*|>)?[ \t]*)?"
"""Between two words: spaces, or a line break (with a comment or quote marker after it)."""

PATTERNS = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"\bsessions?(?:{_SEP}|[_-])#?[0-9]",  # session 34, sessions 30-33, session-34
        rf"\bissues?(?:{_SEP}|[_-])#?[0-9]",  # issue 28, issue #28, issue24
        rf"\blent{_SEP}(?:gpus?|h[0-9]+)\b",  # lent GPU(s), lent H100
        r"\bworktrees?\b",
        rf"\bthis{_SEP}machine\b",
    )
)
"""The words that tell how the project was worked on (case-insensitive)."""

SELF = "tests/test_process_words.py"
"""This file names the patterns."""

BEING_REWRITTEN: tuple[str, ...] = ()
"""Files whose wording another change is rewriting now (paths, or a file-name pattern); each
is checked once it leaves this list."""

BINARY_SUFFIXES = frozenset(
    {".pt", ".onnx", ".sqlite", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".pdf", ".npz",
     ".xz", ".gz", ".zip", ".bz2", ".ico", ".woff", ".woff2"}
)  # fmt: skip
"""Suffixes never read as text (their names are still checked)."""


def _tracked_files() -> list[str]:
    try:
        result = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
        )
    except (OSError, subprocess.SubprocessError):
        pytest.skip("not a git checkout (or git is missing): nothing to list")
    names = [n for n in result.stdout.decode("utf-8", "surrogateescape").split("\0") if n]
    if not names:
        pytest.skip("git lists no tracked files here")
    return names


def _exempt(name: str) -> bool:
    return name == SELF or any(
        name == entry or fnmatch.fnmatch(Path(name).name, entry) for entry in BEING_REWRITTEN
    )


def _hits(text: str) -> list[tuple[int, str]]:
    found = []
    for pattern in PATTERNS:
        for match in pattern.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((line, " ".join(match.group(0).split())))
    return sorted(found)


def test_no_tracked_file_name_speaks_of_how_it_was_made() -> None:
    bad = [n for n in _tracked_files() if not _exempt(n) and _hits(n.replace("/", " "))]
    assert not bad, "file names that name a session or issue:\n" + "\n".join(bad)


def test_no_tracked_text_speaks_of_how_it_was_made() -> None:
    bad = []
    for name in _tracked_files():
        path = ROOT / name
        if _exempt(name) or Path(name).suffix.lower() in BINARY_SUFFIXES or not path.is_file():
            continue
        data = path.read_bytes()
        if b"\0" in data[:8192]:
            continue  # binary
        text = data.decode("utf-8", "replace")
        lines = text.splitlines()
        for line, words in _hits(text):
            shown = lines[line - 1].strip() if line <= len(lines) else ""
            bad.append(f"{name}:{line}: {words!r}: {shown[:120]}")
    assert not bad, (
        f"{len(bad)} places speak of how the product was made (say what the thing is, or give "
        "a date or version; history goes in CHANGELOG.md):\n" + "\n".join(bad)
    )


def test_the_patterns_catch_the_forms_they_are_for() -> None:
    caught = [
        "session 34's network", "Sessions 30-33", "the session-32 file", "(issue 28)",
        "issue #5", "on a lent GPU", "lent GPUs", "a git worktree", "on this machine",
        "on this\n  machine's CPU", "log-session36.jsonl", "docs/benchmarks/issue25-load",
    ]  # fmt: skip
    missed = [t for t in caught if not _hits(t)]
    assert not missed
    kept = ["GameSession", "a game session", "the session's step", "session.play(move)",
            "sessions = 3", "an issue with", "lent itself", "this machinery"]  # fmt: skip
    assert [t for t in kept if _hits(t)] == []
