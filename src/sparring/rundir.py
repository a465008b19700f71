"""Crash-safe files of a run directory, shared by the AlphaZero and strength-estimator trainers.

A training run lives in one folder and is resumed by re-running its command; these helpers
write its files so that a kill never leaves a half-written one (or, for the append-only
``log.jsonl``, so that a torn last line is tolerated), and refuse to resume a run under a
different configuration.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sparring.errors import ConfigError


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically: write ``<name>.tmp`` beside it, fsync, rename.

    A kill at any point leaves either the old file or the new one, never a torn one.
    """
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def atomic_savefig(figure: Any, png: Path, dpi: int = 90) -> None:
    """Save a matplotlib ``figure`` as ``png`` atomically (``<stem>.tmp.png``, then rename)."""
    tmp = png.with_name(png.stem + ".tmp.png")
    figure.savefig(tmp, dpi=dpi)
    os.replace(tmp, png)


def atomic_torch_save(path: Path, payload: dict[str, Any]) -> None:
    """:func:`torch.save` ``payload`` (a checkpoint's dict) to ``path`` atomically.

    The payload is serialised in memory first, then written by :func:`atomic_write`.
    """
    import torch

    buffer = io.BytesIO()
    torch.save(payload, buffer)
    atomic_write(path, buffer.getvalue())


def check_run_config(out: Path, config: Mapping[str, Any], resumable: frozenset[str]) -> None:
    """Refuse to resume the run in ``out`` under another config, then record this one.

    If ``out/config.json`` exists, every key of ``config`` except those in ``resumable`` must
    hold the same value there, else :class:`ConfigError` names the differing keys.  Then
    ``config`` is written to ``out/config.json`` atomically.
    """
    path = out / "config.json"
    mine = dict(config)
    if path.exists():
        theirs = json.loads(path.read_text())
        fixed = set(mine) - resumable
        diff = sorted(k for k in fixed if theirs.get(k) != mine[k])
        if diff:
            raise ConfigError(
                f"{out} holds a run with a different config ({', '.join(diff)}); "
                "use another directory"
            )
    atomic_write(path, json.dumps(mine, indent=2).encode())


def append_log(path: Path, record: Mapping[str, Any]) -> None:
    """Append ``record`` as one JSON line to the log at ``path`` and fsync it.

    A kill during an earlier write can leave a torn last line without its newline; that line
    is ended first so the new record stands alone (:func:`read_log` skips the torn one).
    """
    torn = path.exists() and path.stat().st_size > 0 and not path.read_bytes().endswith(b"\n")
    with open(path, "a") as fh:
        fh.write(("\n" if torn else "") + json.dumps(record) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def read_log(path: Path) -> list[dict[str, Any]]:
    """The records of a ``log.jsonl`` (a torn last line from a kill is skipped)."""
    records: list[dict[str, Any]] = []
    if not path.exists():
        return records
    for line in path.read_text().splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return records
