"""What the players of one process share: loaded networks, calibrations, file hashes.

A match builds both players afresh for every game (so that a game depends only on its seed),
and a strength-adjusted player asked for an Elo needs a network, its calibration, the
network's SHA-256 (to check the calibration belongs to it) and the monotone curve fitted to
the calibration.  None of these depends on the seed, so a :class:`PlayerCache` passed to
:func:`~sparring.players.registry.make_player` (or
:func:`~sparring.players.registry.build_player`) keeps them for the next player: a file is
read, hashed and exported once per process, however many players are built from it.

The cache is an ordinary object, created by whoever builds the players (the match runner
makes one per worker process); nothing is kept in module globals.  Entries are keyed by the
file's resolved path, modification time and size, so a file rewritten in place is read anew.
:attr:`PlayerCache.stats` counts the work actually done (for tests and benchmarks).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar, cast

from sparring.errors import ConfigError, PlayerResourceError
from sparring.games.base import Game
from sparring.nn.loading import load_network_evaluator
from sparring.nn.onnx_runtime import onnx_source_sha256
from sparring.search.evaluator import CachedEvaluator, Evaluator
from sparring.strength.target import (
    Calibration,
    TargetResult,
    file_sha256,
    load_calibration,
    setting_for_elo,
)

LOGGER = logging.getLogger("sparring.players")
"""Where :meth:`PlayerCache.notice` writes its one-line notices (a warning each)."""

T = TypeVar("T")

FileKey = tuple[str, int, int]
"""A file's identity: resolved path, modification time (ns) and size."""


def file_key(path: str | Path) -> FileKey:
    """The identity of the file at ``path`` (which must exist)."""
    file = Path(path).expanduser().resolve()
    stat = file.stat()
    return str(file), stat.st_mtime_ns, stat.st_size


@dataclass
class CacheStats:
    """How often a :class:`PlayerCache` did real work (a miss) rather than reuse an entry."""

    networks_loaded: int = 0
    """Network files read and turned into an evaluator (an ONNX export where ONNX is used)."""
    calibrations_read: int = 0
    """Calibration files read."""
    files_hashed: int = 0
    """Files whose SHA-256 was computed."""
    curves_fitted: int = 0
    """Targets resolved by :func:`~sparring.strength.target.setting_for_elo` (a curve fit)."""
    notices: int = 0
    """Notices written (each distinct notice once)."""


class PlayerCache:
    """Networks, evaluators, calibrations, hashes and target settings shared by players.

    Evaluators of networks without dropout are shared (a search only reads them); a network
    with play-time dropout draws its masks from the player's own generator and so is loaded
    for each player.  Not thread-safe: one cache per process (or per thread).

    ``evaluation_cache`` > 0 wraps each shared evaluator in a
    :class:`~sparring.search.evaluator.CachedEvaluator` keeping that many positions' outputs:
    a process that searches the same games move after move (the service's workers) then
    sends a position the last search already evaluated to the network only once.  The
    outputs are the network's own (the evaluators shared here are deterministic), so a
    search gives the same result with or without it.
    """

    def __init__(self, evaluation_cache: int = 0) -> None:
        if evaluation_cache < 0:
            raise ValueError("evaluation_cache must be >= 0")
        self.evaluation_cache = int(evaluation_cache)
        """Positions kept per shared evaluator (0: no cache)."""
        self.stats = CacheStats()
        """Work done so far (misses)."""
        self._evaluators: dict[tuple[str, FileKey], Evaluator] = {}
        self._calibrations: dict[FileKey, Calibration] = {}
        self._hashes: dict[FileKey, str] = {}
        self._sources: dict[FileKey, str | None] = {}
        self._targets: dict[tuple[FileKey, float, float | None], TargetResult] = {}
        self._notices: set[str] = set()
        self._shared: dict[tuple[str, FileKey], object] = {}

    def evaluator(self, game: Game, model_file: Path) -> Evaluator:
        """The evaluator of the network file ``model_file`` (no dropout), checked against
        ``game``; loaded on first use.  Raises :class:`~sparring.errors.PlayerResourceError`
        (missing or unreadable) or :class:`~sparring.errors.IncompatiblePlayerError` (another
        game's network) saying what is wrong with the file."""
        key = (game.name, file_key(model_file))
        if key not in self._evaluators:
            loaded = load_network_evaluator(game, model_file)
            if self.evaluation_cache:
                loaded = CachedEvaluator(loaded, capacity=self.evaluation_cache)
            self._evaluators[key] = loaded
            self.stats.networks_loaded += 1
        return self._evaluators[key]

    def calibration(self, path: str | Path) -> Calibration:
        """The calibration file at ``path``, read on first use; raises
        :class:`~sparring.errors.ConfigError` if it is missing or malformed and
        :class:`~sparring.errors.PlayerResourceError` if it cannot be read (a folder, no
        permission)."""
        try:
            key = file_key(path)
        except FileNotFoundError:
            raise ConfigError(f"calibration file {str(path)!r} not found") from None
        if key not in self._calibrations:
            try:
                self._calibrations[key] = load_calibration(key[0])
            except OSError as exc:
                raise PlayerResourceError(
                    f"calibration file {str(path)!r} cannot be read ({exc.strerror or exc})",
                    key="calibration",
                ) from None
            self.stats.calibrations_read += 1
        return self._calibrations[key]

    def sha256(self, path: str | Path) -> str:
        """SHA-256 of the file at ``path``, computed on first use."""
        key = file_key(path)
        if key not in self._hashes:
            self._hashes[key] = file_sha256(key[0])
            self.stats.files_hashed += 1
        return self._hashes[key]

    def onnx_source(self, path: str | Path) -> str | None:
        """The SHA-256 of the ``.pt`` the ONNX file at ``path`` was exported from, as the
        file records it (None: not recorded), read on first use."""
        key = file_key(path)
        if key not in self._sources:
            self._sources[key] = onnx_source_sha256(key[0])
        return self._sources[key]

    def target(self, path: str | Path, elo: float, rth: float | None = None) -> TargetResult:
        """:func:`~sparring.strength.target.setting_for_elo` of the calibration at ``path``,
        resolved on first use for each ``(elo, rth)``."""
        key = (file_key(path), float(elo), rth)
        if key not in self._targets:
            self._targets[key] = setting_for_elo(self.calibration(path), elo, rth)
            self.stats.curves_fitted += 1
        return self._targets[key]

    def shared(self, key: tuple[str, FileKey], load: Callable[[], T]) -> T:
        """What ``load()`` returns, loaded once per ``key`` (e.g. ``("strength", file_key(path))``):
        the shared read-only objects of other player kinds (the strength estimator networks
        of the human-like kinds, :mod:`sparring.players.human_mcts`)."""
        if key not in self._shared:
            self._shared[key] = load()
            self.stats.networks_loaded += 1
        return cast(T, self._shared[key])

    def notice(self, message: str) -> None:
        """Tell the user ``message`` as one line (a warning of the ``sparring.players`` logger,
        printed to standard error when logging is not configured), once per cache."""
        if message in self._notices:
            return
        self._notices.add(message)
        self.stats.notices += 1
        LOGGER.warning(message)


__all__ = ["LOGGER", "CacheStats", "FileKey", "PlayerCache", "file_key"]
