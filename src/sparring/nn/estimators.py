"""Strength estimators shipped with sparring, loadable by name (as :mod:`sparring.nn.zoo` does
for the game networks).

A shipped estimator is ``src/sparring/models/estimators/NAME.pt`` (written by ``sparring
se-eval`` as ``RUN/estimator.pt``), its model card ``README.md`` beside them; both are package
data, so an installed sparring has them.  ``NAME`` is ``GAME-KIND``: ``go-se``, ``go-se-inf``,
``chess-se``, ``chess-se-inf``.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from sparring.errors import MissingResourceError

ESTIMATOR_DIR = Path(__file__).resolve().parents[1] / "models" / "estimators"
"""Where shipped estimators live (inside the installed package)."""

DEFAULT_KINDS = ("se", "se-inf")
"""Shipped kinds in order of preference for :func:`default_estimator`: SE measured at least as
accurate as SE-inf at the shipped (CPU) scale for both games
(docs/research/strength-estimation.md)."""


RENAMED = {"go-play-s32": "go-play-early"}
"""Former shipped names -> the names the same files ship under now.  The former names still
resolve, with a :class:`DeprecationWarning`; they will be removed in a later version."""


def shipped_estimators() -> dict[str, Path]:
    """Name -> file of every shipped estimator."""
    return {p.stem: p for p in sorted(ESTIMATOR_DIR.glob("*.pt"))}


def resolve_estimator(name_or_path: str | Path) -> Path:
    """The estimator file named by a shipped name (``go-se``) or a file path.

    A former name (:data:`RENAMED`) resolves to its file under the current name, with a
    :class:`DeprecationWarning`.  Raises :class:`~sparring.errors.MissingResourceError`
    listing the shipped names when neither matches.
    """
    shipped = shipped_estimators()
    renamed = RENAMED.get(str(name_or_path))
    if renamed is not None and str(name_or_path) not in shipped and renamed in shipped:
        warnings.warn(
            f"estimator name {str(name_or_path)!r} is deprecated: the same network ships as "
            f"{renamed!r}",
            DeprecationWarning,
            stacklevel=2,
        )
        return shipped[renamed]
    if str(name_or_path) in shipped:
        return shipped[str(name_or_path)]
    path = Path(name_or_path).expanduser()
    if path.is_file():
        return path
    names = ", ".join(shipped) or "none"
    raise MissingResourceError(
        f"estimator {str(name_or_path)!r} is neither a file nor a shipped estimator "
        f"(shipped: {names})"
    )


def default_estimator(game: str) -> Path:
    """The preferred shipped estimator of ``game`` (``go`` or ``chess``).

    Raises :class:`~sparring.errors.MissingResourceError` when none is shipped.
    """
    shipped = shipped_estimators()
    for kind in DEFAULT_KINDS:
        if f"{game}-{kind}" in shipped:
            return shipped[f"{game}-{kind}"]
    raise MissingResourceError(
        f"no shipped {game} strength estimator; pass --model RUN/estimator.pt "
        f"(shipped: {', '.join(shipped) or 'none'})"
    )
