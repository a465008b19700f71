"""What the record readers and writers share: error reports, path handling, the date tags."""

from __future__ import annotations

import datetime
import warnings
from dataclasses import dataclass
from pathlib import Path

from sparring.errors import SparringError


def date_headers(fmt: str, day: datetime.date) -> dict[str, str]:
    """The tag that dates a record of format ``fmt`` (``GameSession.export``'s headers): PGN
    ``Date`` (``2025.03.01``), SGF ``DT`` (``2025-03-01``); none for a move list."""
    if fmt == "pgn":
        return {"Date": day.strftime("%Y.%m.%d")}
    if fmt == "sgf":
        return {"DT": day.isoformat()}
    return {}


class RecordFileError(SparringError, ValueError):
    """A record path that is missing, unreadable or holds no record files."""


class RecordWarning(UserWarning):
    """A broken game record was skipped (issued when no ``errors`` list is given)."""


@dataclass(frozen=True)
class RecordError:
    """A broken record that a reader skipped: where it starts and why it was refused."""

    path: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.reason}"


def report(error: RecordError, errors: list[RecordError] | None) -> None:
    """Append ``error`` to ``errors``, or warn with :class:`RecordWarning` when it is None."""
    if errors is not None:
        errors.append(error)
    else:
        warnings.warn(str(error), RecordWarning, stacklevel=3)


def record_files(path: str | Path, suffix: str) -> list[Path]:
    """The files to read for ``path``: the file itself, or a folder's ``*suffix`` files in
    name order.  RecordFileError when there is nothing readable."""
    kind = suffix.lstrip(".").upper()
    try:
        p = Path(path)
    except TypeError:
        raise RecordFileError(f"bad {kind} path {path!r}: expected a file or folder name") from None
    if str(path).strip() == "":
        raise RecordFileError(f"bad {kind} path {path!r}: empty name")
    try:
        if p.is_dir():
            files = sorted(f for f in p.iterdir() if f.is_file() and f.suffix.lower() == suffix)
            if not files:
                raise RecordFileError(f"{kind} folder {str(p)!r} holds no *{suffix} files")
            return files
        if not p.exists():
            raise RecordFileError(f"{kind} file {str(p)!r} does not exist")
        if not p.is_file():
            raise RecordFileError(f"{kind} path {str(p)!r} is not a regular file")
    except (OSError, ValueError) as err:  # e.g. a NUL byte in the name, no permission
        if isinstance(err, RecordFileError):
            raise
        raise RecordFileError(f"bad {kind} path {str(path)!r}: {err}") from None
    return [p]


def read_bytes(path: Path, kind: str) -> bytes:
    """The bytes of ``path``; RecordFileError if it cannot be read."""
    try:
        return path.read_bytes()
    except OSError as err:
        raise RecordFileError(f"cannot read {kind} file {str(path)!r}: {err.strerror}") from None
