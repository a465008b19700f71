"""Exceptions raised by sparring.

Every error a user can cause by bad input derives from :class:`SparringError`, so the
command-line interface can print its message as one line and exit non-zero without a
traceback, and a server can map it to a response without parsing its text.

The classes fall into six categories, each a base class a caller can catch (and each with an
HTTP status a service maps it to, :attr:`SparringError.http_status`):

=========================  =========================================================  ======
category                   what was wrong                                             status
=========================  =========================================================  ======
:class:`BadValueError`     a value of the wrong type, out of range or malformed       422
:class:`UnknownNameError`  a name of no known thing (game, player kind, option key)   404
:class:`MissingResourceError`  a file or stored object that is not there / unreadable  404
:class:`IncompatibleError` things that exist but do not fit together (a calibration   409
                           of another network, a model of another game)
:class:`IllegalMoveError`  a well-formed move that is not legal here                  422
:class:`GameOverError`     a move asked for or played in a finished game               409
=========================  =========================================================  ======

The older names stay as precise subclasses: :class:`UnknownPlayerError` (any problem with a
player's settings; its subclasses say which category), :class:`UnknownGameError`,
:class:`ConfigError`, :class:`MoveParseError`, :class:`PositionParseError`.
"""

from __future__ import annotations

from typing import ClassVar


class SparringError(Exception):
    """Base class of all errors caused by bad input to sparring."""

    http_status: ClassVar[int] = 400
    """The HTTP status a service answers this error with."""

    key: str | None = None
    """The option, setting or field the error is about, when there is one."""


# ---- the six categories ------------------------------------------------------------------------
class BadValueError(SparringError, ValueError):
    """A value of the wrong type, out of range, or malformed; :attr:`key` names the setting
    or field when there is one."""

    http_status = 422

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


class UnknownNameError(SparringError, LookupError):
    """A name that refers to nothing known: a game, a player kind, an option key, a shipped
    model."""

    http_status = 404

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key

    def __str__(self) -> str:  # KeyError subclasses would quote the message
        return str(self.args[0]) if self.args else "unknown name"


class MissingResourceError(SparringError, FileNotFoundError):
    """A file, directory or stored object that is not there or cannot be read."""

    http_status = 404

    def __str__(self) -> str:  # OSError would format (errno, text)
        return str(self.args[0]) if self.args else "missing resource"


class IncompatibleError(SparringError, ValueError):
    """Things that each exist but do not fit together (a calibration made for another network,
    a model of another game, a snapshot of another format)."""

    http_status = 409


class IllegalMoveError(SparringError, ValueError):
    """A move that is well formed but not legal in the given position."""

    http_status = 422


class GameOverError(SparringError, ValueError):
    """A move was asked for, or played, in a finished game."""

    http_status = 409


# ---- precise subclasses --------------------------------------------------------------------------
class UnknownGameError(UnknownNameError, KeyError):
    """A game name that is not registered."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "unknown game"


class UnsupportedGameError(IncompatibleError):
    """A game that a method or player cannot handle (for example chess in a compiled search)."""


class MoveParseError(BadValueError):
    """A move text that cannot be read; the message names the bad token."""


class PositionParseError(BadValueError):
    """A position text that cannot be read; the message names what is wrong."""


class UnknownPlayerError(SparringError, ValueError):
    """A player specification or settings that cannot make a player: the base of the player
    errors below (raised as is only where no category fits)."""

    http_status = 422

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


class PlayerSettingsError(UnknownPlayerError, BadValueError):
    """A player setting with a wrong type, out of range, or malformed (``sims=-1``)."""


class UnknownKindError(UnknownPlayerError, UnknownNameError):
    """A player kind, or an option key of a kind, that does not exist."""

    http_status = 404

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown player kind"


class PlayerResourceError(UnknownPlayerError, MissingResourceError):
    """A network, calibration or table file a player names that is not there or unreadable."""

    http_status = 404

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "missing player file"


class IncompatiblePlayerError(UnknownPlayerError, IncompatibleError):
    """Player files or settings that do not fit together or do not fit the game (a calibration
    of another network, minimax on a game without an evaluation)."""

    http_status = 409


class ConfigError(BadValueError):
    """A configuration file or option set that is malformed or has unknown keys."""


class SnapshotError(IncompatibleError):
    """A session snapshot that cannot be restored; the message says what is wrong."""


class NoPlayerError(SparringError, ValueError):
    """A session was asked to move for a side that has no player."""

    http_status = 409


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


def require_extra(module: str, extra: str, purpose: str) -> None:
    """Raise :class:`MissingResourceError` saying which extra to install when ``module`` (a
    package of the optional extra ``extra``, e.g. matplotlib of ``research``) cannot be
    imported for ``purpose`` (what needs it: ``--plot``)."""
    import importlib

    try:
        importlib.import_module(module)
    except ImportError:
        raise MissingResourceError(
            f"{purpose} needs {module}, which is not installed: pip install 'sparring[{extra}]'"
        ) from None
