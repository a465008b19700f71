"""Write the level tables into docs/guide/levels.md between its ``<!-- levels:GAME -->`` and
``<!-- /levels -->`` markers, from the shipped tables (``sparring levels GAME --markdown``).

    .venv/bin/python scripts/levels_doc.py          # rewrite the doc
    .venv/bin/python scripts/levels_doc.py --check  # exit 1 if the doc is out of date
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from sparring.cli.levels import markdown_table
from sparring.levels import level_table

DOC = Path(__file__).resolve().parent.parent / "docs" / "guide" / "levels.md"
MARKER = re.compile(r"(<!-- levels:(\w+) -->\n)(.*?)(<!-- /levels -->)", re.S)


def render(text: str) -> str:
    """``text`` with every marked table replaced by the shipped table's Markdown."""
    return MARKER.sub(
        lambda m: m.group(1) + "\n" + markdown_table(level_table(m.group(2))) + "\n" + m.group(4),
        text,
    )


def main() -> int:
    text = DOC.read_text()
    new = render(text)
    if "--check" in sys.argv[1:]:
        if new != text:
            print(f"{DOC} is out of date: run scripts/levels_doc.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(new)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
