"""A helper of the tests that drive engine processes: this process's children."""

from __future__ import annotations

import os
from pathlib import Path


def children() -> list[int]:
    """Process ids of this process's children (zombies included), read from /proc."""
    me = str(os.getpid())
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == me:
            found.append(int(stat.parent.name))
    return found
