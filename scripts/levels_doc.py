"""Write the level tables into docs/guide/levels.md and README.md between their
``<!-- levels:GAME -->`` (or ``<!-- levels:summary -->``) and ``<!-- /levels -->`` markers,
from the shipped tables (``sparring levels GAME --markdown``).

    .venv/bin/python scripts/levels_doc.py          # rewrite the docs
    .venv/bin/python scripts/levels_doc.py --check  # exit 1 if one is out of date
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from sparring.cli.levels import markdown_table
from sparring.levels import TABLE_GAMES, LevelTable, level_table

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "guide" / "levels.md"
DOCS = (DOC, ROOT / "README.md", ROOT / "BENCHMARKS.md", ROOT / "docs" / "index.md")
MARKER = re.compile(r"(<!-- levels:(\w+) -->\n)(.*?)(<!-- /levels -->)", re.S)


def summary_table() -> str:
    """One row per game: its scale, the Elo levels' range, the ranks, the strongest level,
    adaptive."""
    lines = [
        "| game | scale | Elo levels | ranks | strongest | adaptive |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for game in TABLE_GAMES:
        table = level_table(game)
        low, high = table.whole_range or (0, 0)  # the whole Elos offered: the page's ends
        levels = f"{low}-{high} ({len(table.rows)} measured)"
        ranks = f"{table.ranks[0].rank}-{table.ranks[-1].rank}" if table.ranks else "-"
        lines.append(
            f"| `{game}` | {table.scale_label()} | {levels} | {ranks} | {_strongest(table)} | "
            f"{'yes' if table.adaptive else 'no'} |"
        )
    return "\n".join(lines) + "\n"


def seconds_table() -> str:
    """Seconds a move of every offered level, one row per game (BENCHMARKS.md)."""
    lines = ["| game | level (Elo or rank): seconds a move |", "| --- | --- |"]
    for game in TABLE_GAMES:
        table = level_table(game)
        rows = [*table.rows, *table.ranks]
        cells = [
            f"{r.elo:.0f}: {r.seconds:.2f}" if r.elo is not None else f"{r.rank}: {r.seconds:.3f}"
            for r in rows
            if (r.elo is not None or r.rank) and r.seconds
        ]
        top = table.strongest
        if top is not None and top.seconds is not None:
            cells.append(f"strongest: {top.seconds:.2f}")
        lines.append(f"| `{game}` | {', '.join(cells)} |")
    return "\n".join(lines) + "\n"


def _strongest(table: LevelTable) -> str:
    row = table.strongest
    if row is None:
        return "-"
    if row.elo is not None:
        return f"{row.elo:.0f}"
    return row.note.split(",")[0]


def render(text: str) -> str:
    """``text`` with every marked table replaced by the shipped tables' Markdown."""

    def table(m: re.Match[str]) -> str:
        name = m.group(2)
        if name in ("summary", "seconds"):
            body = summary_table() if name == "summary" else seconds_table()
            return m.group(1) + body + m.group(4)
        return m.group(1) + "\n" + markdown_table(level_table(name)) + "\n" + m.group(4)

    return MARKER.sub(table, text)


def main() -> int:
    stale = []
    for doc in DOCS:
        text = doc.read_text()
        new = render(text)
        if new != text:
            stale.append(doc)
            if "--check" not in sys.argv[1:]:
                doc.write_text(new)
    if stale and "--check" in sys.argv[1:]:
        print(
            f"out of date: {', '.join(map(str, stale))}: run scripts/levels_doc.py", file=sys.stderr
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
