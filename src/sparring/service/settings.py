"""How the service runs: :class:`ServiceSettings` (``sparring serve``'s options)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sparring.service import worker


@dataclass(frozen=True)
class ServiceSettings:
    """How the service runs."""

    data_dir: Path = Path("sparring-data")
    """Where the default SQLite database lives."""
    db_url: str | None = None
    """A SQLAlchemy URL; None: ``sqlite:///DATA_DIR/sparring.sqlite``."""
    workers: int = 1
    """Worker processes for AI moves (one more takes the quick jobs: new games, moves,
    undo, resign, so that these never wait behind a search)."""
    ai_time: float = 2.0
    """Seconds an AI move may think at most (the simulations come from its settings)."""
    max_body: int = 64 * 1024
    """Largest request body in bytes (413 above)."""
    max_games_in_flight: int = 4
    """AI moves one player may wait for at once (429 above)."""
    max_queue: int = 64
    """Jobs the worker processes may hold at once (429 above)."""
    evaluation_cache: int = 50_000
    """Positions whose network outputs each worker process keeps (its
    :class:`~sparring.players.cache.PlayerCache`'s ``evaluation_cache``; 0: none)."""
    live_games: int = worker.LIVE_GAMES
    """Games whose session each worker process keeps live between moves instead of restoring
    it from the stored snapshot at every move (:mod:`sparring.service.worker`; 0: none)."""
    retry_after: int = 2
    """Seconds a 429 answer asks the client to wait."""
    rank_min_moves: int = 20
    """The fewest of a player's own moves (over their finished games of the game) that a
    rank estimate in their profile may rest on: a game resigned after a few moves gives
    none, instead of a rank whose bootstrap confidence over two or three moves means little."""

    def url(self) -> str:
        """The database URL."""
        if self.db_url:
            return self.db_url
        return f"sqlite:///{(self.data_dir / 'sparring.sqlite').resolve()}"


__all__ = ["ServiceSettings"]
