"""Exceptions raised by sparring.

Every error a user can cause by bad input derives from :class:`SparringError`, so the
command-line interface can print its message as one line and exit non-zero without a
traceback.
"""

from __future__ import annotations


class SparringError(Exception):
    """Base class of all errors caused by bad input to sparring."""


class UnknownGameError(SparringError, KeyError):
    """A game name that is not registered."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "unknown game"


class UnsupportedGameError(SparringError, ValueError):
    """A game that a method or player cannot handle (for example chess in a compiled search)."""


class IllegalMoveError(SparringError, ValueError):
    """A move that is well formed but not legal in the given position."""


class MoveParseError(SparringError, ValueError):
    """A move text that cannot be read; the message names the bad token."""


class PositionParseError(SparringError, ValueError):
    """A position text that cannot be read; the message names what is wrong."""


class GameOverError(SparringError, ValueError):
    """A move was asked for in a finished game."""


class UnknownPlayerError(SparringError, ValueError):
    """A player specification that names no known player or has bad options."""


class ConfigError(SparringError, ValueError):
    """A configuration file or option set that is malformed or has unknown keys."""


def is_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` is Ctrl-C: a :class:`KeyboardInterrupt`, or an error caused by one
    (numba raises :class:`SystemError` when the interrupt arrives inside compiled code)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False
