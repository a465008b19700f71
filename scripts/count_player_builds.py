"""Run ``sparring ARGS...`` in this process and count what building the players cost.

Usage (from a checkout): ``PYTHONPATH=src python scripts/count_player_builds.py match ...``.
Counts the calls of ``load_calibration``, ``file_sha256``, ``setting_for_elo``, ``load_model``
and ``export_onnx`` (one each per file means nothing was re-read per game), times every game
(``play_task``) and the ``make_player`` calls of the match runner, and prints one line to
standard error.  Works on the code before and after the player cache (BENCHMARKS.md).
"""

from __future__ import annotations

import collections
import contextlib
import sys
import time
from collections.abc import Callable
from typing import Any

import sparring.evaluation.match as match
import sparring.nn.evaluators as evaluators
import sparring.nn.model as model
import sparring.strength.target as target

counts: collections.Counter[str] = collections.Counter()
seconds: dict[str, list[float]] = {"play_task": [], "make_player": []}


def counted(module: Any, name: str) -> None:
    original = getattr(module, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        counts[name] += 1
        return original(*args, **kwargs)

    setattr(module, name, wrapper)


def timed(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            seconds[name].append(time.perf_counter() - start)

    return wrapper


for _module, _name in [
    (target, "load_calibration"),
    (target, "file_sha256"),
    (target, "setting_for_elo"),
    (model, "load_model"),
    (evaluators, "export_onnx"),
]:
    counted(_module, _name)
match.play_task = timed("play_task", match.play_task)  # type: ignore[assignment]
match.make_player = timed("make_player", match.make_player)

sys.argv = ["sparring", *sys.argv[1:]]
from sparring.cli import main  # noqa: E402

start = time.perf_counter()
with contextlib.suppress(SystemExit):
    main()
total = time.perf_counter() - start
games = seconds["play_task"]
n = max(len(games), 1)
builds = seconds["make_player"][-2 * len(games) :] if games else []
print(
    f"RESULT games={len(games)} command_s={total:.1f} per_game_ms={1000 * sum(games) / n:.1f} "
    f"build_ms_per_game={1000 * sum(builds) / n:.2f} "
    + " ".join(f"{k}={v}" for k, v in sorted(counts.items())),
    file=sys.stderr,
)
