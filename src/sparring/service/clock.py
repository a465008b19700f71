"""Clocks of the service's games: a time control chosen when a game starts, kept by the server.

A game's clock is JSON stored with the game (``games.clock``)::

    {"initial": 300, "increment": 3, "left": [ms, ms], "since": epoch_ms, "flagged": null}

``left`` is each side's time in milliseconds when its turn began; ``since`` is when the side
to move began (``time.time()`` in milliseconds; null once the game is over).  At every stored
change the side that was to move is charged the time since then (never below zero) and, for
a move it played, gains the increment.  The person whose time runs out loses the game on time
(``flagged``: their side).  The AI is charged its time too, but its thinking stays bounded by
its level's work and the server's AI time, not by its clock: it never loses on time.
"""

from __future__ import annotations

import time
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field


class TimeControl(BaseModel):
    """A time control: ``initial`` seconds for each side and ``increment`` seconds added
    after each of its moves (``{"initial": 300, "increment": 3}``: 5 minutes + 3 seconds)."""

    model_config = ConfigDict(extra="forbid")

    initial: Annotated[int, Field(ge=30, le=3 * 3600, strict=True)]
    increment: Annotated[int, Field(ge=0, le=60, strict=True)] = 0


def now_ms() -> float:
    """The wall-clock time in milliseconds (what ``since`` holds)."""
    return time.time() * 1000.0


def new_clock(control: TimeControl, now: float) -> dict[str, Any]:
    """The clock of a game starting at ``now``: both sides at the initial time, the first
    side's time running."""
    full = control.initial * 1000
    return {
        "initial": control.initial,
        "increment": control.increment,
        "left": [full, full],
        "since": now,
        "flagged": None,
    }


def left_now(clock: dict[str, Any], to_move: int, now: float) -> list[int]:
    """Each side's time left at ``now`` (milliseconds, never below zero): the side to move's
    running since ``since``."""
    left = [int(x) for x in clock["left"]]
    since = clock.get("since")
    if since is not None:
        left[to_move] = max(0, left[to_move] - int(now - float(since)))
    return left


def after_change(
    clock: dict[str, Any],
    to_move: int,
    *,
    moved: bool,
    over: bool,
    now: float,
    flagged: int | None = None,
) -> dict[str, Any]:
    """The clock after a stored change at ``now``: the side that was to move (``to_move``)
    charged its time, plus the increment when it ``moved``; stopped when the game is
    ``over``; ``flagged``: the side that lost on time."""
    left = left_now(clock, to_move, now)
    if moved:
        left[to_move] += int(clock["increment"]) * 1000
    if flagged is not None:
        left[flagged] = 0
    return {**clock, "left": left, "since": None if over else now, "flagged": flagged}


def out_of_time(clock: dict[str, Any] | None, human: int, to_move: int, now: float) -> bool:
    """Whether the person's time ran out (their clock running and at zero)."""
    if clock is None or clock.get("since") is None or to_move != human:
        return False
    return left_now(clock, to_move, now)[human] <= 0


def clock_view(clock: dict[str, Any] | None, to_move: int, ongoing: bool, now: float) -> Any:
    """The clock as a game's state gives it (None without one): the time control, each
    side's time left now (ms), the side whose time runs (or None) and the side that lost on
    time (or None)."""
    if clock is None:
        return None
    running = to_move if ongoing and clock.get("since") is not None else None
    return {
        "initial": clock["initial"],
        "increment": clock["increment"],
        "left": left_now(clock, to_move, now) if running is not None else list(clock["left"]),
        "running": running,
        "flagged": clock.get("flagged"),
    }


__all__ = [
    "TimeControl",
    "after_change",
    "clock_view",
    "left_now",
    "new_clock",
    "now_ms",
    "out_of_time",
]
