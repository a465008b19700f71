"""Crash-safe files of a run directory, shared by the AlphaZero and strength-estimator trainers.

A training run lives in one folder and is resumed by re-running its command; these helpers
write its files so that a kill never leaves a half-written one (or, for the append-only
``log.jsonl``, so that a torn last line is tolerated), and refuse to resume a run under a
different configuration.  :class:`TrainingPlot` draws the training plot of either from its
log.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
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


def check_run_config(
    out: Path,
    config: Mapping[str, Any],
    resumable: frozenset[str],
    checkpoint: str = "checkpoint.pt",
) -> None:
    """Refuse to resume the run in ``out`` under another config, then record this one.

    If ``out/config.json`` exists and the run has saved progress (``out/checkpoint``
    exists), every key of ``config`` except those in ``resumable`` must hold the same value
    there, else :class:`ConfigError` names the differing keys.  A run without a checkpoint
    has nothing a resume would keep (an attempt that failed in its first iteration, say), so
    a corrected config may replace its ``config.json``.
    Then ``config`` is written to ``out/config.json`` atomically.
    """
    path = out / "config.json"
    mine = dict(config)
    if path.exists() and (out / checkpoint).exists():
        try:
            theirs = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise ConfigError(f"{path} cannot be read ({exc}); use another directory") from None
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


@dataclass(frozen=True)
class Curve:
    """One line (or one line per matching key) of a :class:`Panel` of a :class:`TrainingPlot`."""

    key: str
    """The log key plotted; ending in ``*``: one line per key with that prefix (sorted),
    labelled by the rest of the key."""
    label: str = ""
    """Legend label (for a prefix key: the rest of each key)."""
    style: str = "-"
    """Matplotlib format string (``"-"``, ``"o-"``)."""
    alpha: float = 1.0
    """Opacity of the line."""

    def lines(self, records: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
        """``(key, label)`` of every line this curve draws over ``records``."""
        if not self.key.endswith("*"):
            return [(self.key, self.label)]
        prefix = self.key[:-1]
        keys = sorted({k for r in records for k in r if k.startswith(prefix)})
        return [(k, k[len(prefix) :]) for k in keys]


@dataclass(frozen=True)
class Panel:
    """One panel of a :class:`TrainingPlot`."""

    title: str
    curves: tuple[Curve, ...]
    ylim: tuple[float, float] | None = None
    """Fixed y range (None: matplotlib's)."""


@dataclass(frozen=True)
class TrainingPlot:
    """The training plot of both trainers (AlphaZero's and the strength estimators'), each
    with its own panels: one panel per :class:`Panel` side by side, each curve the values of
    its log key against the log key :attr:`x`, a legend where a panel has lines."""

    x: str
    """The log key on the x axis (``iteration``, ``step``)."""
    panels: tuple[Panel, ...]
    figsize: tuple[float, float]
    """Figure size in inches."""
    dpi: int = 90

    def write(self, log: Path, png: Path) -> None:
        """Plot the records of ``log`` that hold :attr:`x` and a curve's key; written
        atomically to ``png``; nothing is written for an empty log."""
        from sparring.errors import require_extra

        require_extra("matplotlib", "train", "the training plot")
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        records = read_log(log)
        if not records:
            return
        figure = Figure(figsize=self.figsize)
        FigureCanvasAgg(figure)
        axes = figure.subplots(1, len(self.panels), squeeze=False)[0]
        for ax, panel in zip(axes, self.panels, strict=True):
            drawn = 0
            for curve in panel.curves:
                for key, label in curve.lines(records):
                    points = [(r[self.x], r[key]) for r in records if self.x in r and key in r]
                    if not points:
                        continue
                    xs, ys = zip(*points, strict=True)
                    ax.plot(xs, ys, curve.style, label=label, alpha=curve.alpha)
                    drawn += 1
            if panel.ylim is not None:
                ax.set_ylim(*panel.ylim)
            ax.set_xlabel(self.x)
            ax.set_title(panel.title)
            if drawn:
                ax.legend()
        figure.tight_layout()
        atomic_savefig(figure, png, self.dpi)
