"""Where the tests find the shared strength data (SGF/PGN records), and what happens when it
is missing.

The data lives outside the repository, at ``../shared/data`` from the repository root (or at
``$SPARRING_DATA``), and is read in place.  A test that needs it calls :func:`need_data`: when
the path is missing the test is skipped with a message naming it, except under CI
(``SPARRING_CI=1``, set by ``.ci/run``), where it fails: CI must not pass by skipping every
test on real records.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
"""The repository root."""

DATA = Path(os.environ.get("SPARRING_DATA") or REPO.parent / "shared" / "data")
"""``$SPARRING_DATA``, else ``../shared/data`` from the repository root."""

STRENGTH = DATA / "strength"
"""The strength data sets (``go``, ``chess``)."""


def missing_data(path: Path, what: str = "strength data") -> None:
    """Skip the calling test because ``path`` is missing, or fail it under ``SPARRING_CI``."""
    message = f"{what} not found at {path} (../shared/data or $SPARRING_DATA)"
    if os.environ.get("SPARRING_CI"):
        pytest.fail(f"{message}; SPARRING_CI is set, so the data must be there", pytrace=False)
    pytest.skip(message)


def need_data(path: Path, what: str = "strength data") -> Path:
    """``path`` when it exists; else skip the calling test, or fail it under ``SPARRING_CI``."""
    if not path.exists():
        missing_data(path, what)
    return path
