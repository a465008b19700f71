"""What the commands share: output paths checked before any work starts, and the default
ladder found from the package's own location (:func:`default_ladder`).

A command that runs for minutes (training, a tournament, a game in the terminal) and then
fails to write its result loses the work.  Every command therefore checks its output paths
first with :func:`check_output_file` / :func:`check_output_dir`, which raise a one-line
:class:`~sparring.errors.BadValueError` naming the option (exit code 2 from the entry point).

The checks probe the file system (an anonymous temporary file in the directory that would
hold the output), so they also see read-only file systems and hold for root, where
permission bits say little.  They create nothing that stays.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from sparring.errors import BadValueError

if TYPE_CHECKING:
    from sparring.evaluation.backend import Backend


def _nearest_existing(path: Path) -> Path:
    """``path`` or its nearest ancestor that exists (``.`` for a relative path with none)."""
    current = path
    while not current.exists() and not current.is_symlink():
        parent = current.parent
        if parent == current:
            break
        current = parent
    return current


def _probe_directory(directory: Path, option: str, target: Path) -> None:
    """Raise unless a file can be created in the existing directory ``directory``."""
    try:
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise BadValueError(
            f"{option} {str(target)!r}: cannot write in {str(directory)!r} ({why})", key=option
        ) from None


def _check_folder_on_the_way(path: Path, option: str, target: Path, create: bool) -> None:
    """The directory that will hold ``path`` (an output file, or a run folder itself) is
    writable: it exists, or (``create``) its nearest existing ancestor is a writable folder."""
    folder = _nearest_existing(path)
    if not folder.is_dir():
        raise BadValueError(
            f"{option} {str(target)!r}: {str(folder)!r} is a file, not a folder", key=option
        )
    if folder != path and not create:
        raise BadValueError(
            f"{option} {str(target)!r}: the folder {str(path)!r} does not exist", key=option
        )
    _probe_directory(folder, option, target)


def check_output_file(path: Path | None, option: str, *, create_parents: bool = True) -> None:
    """Raise :class:`BadValueError` (``key=option``) unless the file ``path`` can be written:
    it is not a folder, an existing file is writable, and the folder to hold it exists or
    (``create_parents``, the command creates it) can be created.  None is accepted."""
    if path is None:
        return
    if path.is_dir():
        raise BadValueError(f"{option} {str(path)!r} is a folder, not a file", key=option)
    if path.exists():
        try:
            with open(path, "ab"):  # opens for writing; changes nothing
                pass
        except OSError as exc:
            why = exc.strerror or type(exc).__name__
            raise BadValueError(
                f"{option} {str(path)!r}: cannot write it ({why})", key=option
            ) from None
        return
    parent = path.parent if str(path.parent) else Path(os.curdir)
    _check_folder_on_the_way(parent, option, path, create_parents)


def check_output_dir(path: Path | None, option: str) -> None:
    """Raise :class:`BadValueError` (``key=option``) unless the folder ``path`` exists and
    files can be created in it, or it can be created.  None is accepted."""
    if path is None:
        return
    if path.exists() and not path.is_dir():
        raise BadValueError(f"{option} {str(path)!r} is a file, not a folder", key=option)
    _check_folder_on_the_way(path, option, path, True)


def default_ladder(game: str, option: str = "--ladder") -> Path | None:
    """The shipped baseline ladder of ``game`` (``baselines-GAME.json``, package data:
    :func:`~sparring.evaluation.ladder.shipped_ladder`), wherever the command runs (shown
    relative to the working folder when it is below it), or None when none ships for
    ``game``.  Raises :class:`~sparring.errors.MissingResourceError` when the shipped ladders
    are missing from the installation, so that no command silently falls back to another Elo
    scale: the caller must then be given ``option``."""
    # the ladder module (numpy, the rating fits): loaded by the commands that rate, not at
    # start-up
    from sparring.errors import MissingResourceError
    from sparring.evaluation import ladder

    if not ladder.LADDER_DIR.is_dir():
        raise MissingResourceError(
            f"no default ladder: the shipped ladders ({ladder.LADDER_DIR}) are missing from "
            f"this installation of sparring; give {option} FILE"
        )
    path = ladder.shipped_ladder(game)
    if path is None:
        return None
    here = Path.cwd()
    return path.relative_to(here) if path.is_relative_to(here) else path


class BackendName(StrEnum):
    """The choices of ``--backend``."""

    LOCAL = "local"
    RAY = "ray"


BACKEND_HELP = (
    "Where the games are played: local (this computer: --workers processes) or ray (the Ray "
    "cluster at --ray-address; pip install 'sparring[ray]'). The games and the store do not "
    "depend on it."
)
RAY_ADDRESS_HELP = (
    "Address of the Ray cluster for --backend ray, e.g. 127.0.0.1:6379 (default: RAY_ADDRESS, "
    "else Ray's default)."
)


@contextmanager
def backend_from_options(
    backend: BackendName | str, ray_address: str | None
) -> Iterator[Backend | None]:
    """The backend the ``--backend`` and ``--ray-address`` options name, closed on leaving:
    None for ``local`` (the run's own pool of ``--workers`` processes), a
    :class:`~sparring.evaluation.ray_backend.RayBackend` for ``ray``.  Raises a one-line
    :class:`BadValueError` for ``--ray-address`` without ``--backend ray`` and a one-line
    :class:`~sparring.errors.MissingResourceError` naming the extra when Ray is not
    installed, before anything is written."""
    name = BackendName(backend).value
    if name == BackendName.LOCAL.value:
        if ray_address is not None:
            raise BadValueError("--ray-address needs --backend ray", key="--ray-address")
        yield None
        return
    from sparring.evaluation.ray_backend import RayBackend

    ray_backend = RayBackend(ray_address)
    try:
        yield ray_backend
    finally:
        ray_backend.close()


__all__ = [
    "BACKEND_HELP",
    "RAY_ADDRESS_HELP",
    "BackendName",
    "backend_from_options",
    "check_output_dir",
    "check_output_file",
    "default_ladder",
]
