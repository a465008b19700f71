"""AlphaDDA's MCTS players: UCT with random playouts (appendix 3), MCTS1-MCTS4.

The search itself (Eq. 12, the compiled UCT) is :mod:`sparring.search.uct`; this module is
the player: after ``N_sim`` simulations it plays the most visited root child, ties broken
uniformly at random with the player's random generator.  MCTS1-MCTS4 are 300, 100, 200 and
50 simulations (AlphaDDA section 4.3).  Games with Python-only rules (chess) run the same
search as Python with capped playouts (:mod:`sparring.search.pyrules`).
"""

from __future__ import annotations

from sparring.games.base import Game, State
from sparring.players.base import JsonValue, set_stream
from sparring.players.cache import PlayerCache
from sparring.players.searching import SearchPlayer
from sparring.players.settings import MCTS_PRESETS, UCTSettings
from sparring.rng import rng_state_from
from sparring.search.limit import Limit, LimitClock
from sparring.search.stats import RootStats
from sparring.search.uct import DEFAULT_C, DEFAULT_N_OPEN, uct_search


class UCTPlayer(SearchPlayer):
    """AlphaDDA's MCTS player: UCT with random playouts (appendix 3, Eq. 12).

    The player's compiled random stream is drawn once from its seeded generator, so a seeded
    player is reproducible; ties for the most visited root child are broken at random.
    """

    search_kind = "uct"

    def __init__(
        self,
        name: str = "MCTS",
        simulations: int = 300,
        seed: int | None = None,
        c: float = DEFAULT_C,
        n_open: int = DEFAULT_N_OPEN,
    ) -> None:
        super().__init__(name, seed)
        if simulations < 1:
            raise ValueError("simulations must be >= 1")
        if n_open < 1:
            raise ValueError("n_open must be >= 1")
        self.simulations = simulations
        self.c = c
        self.n_open = n_open
        self._stream = rng_state_from(self.rng)

    def reseed(self, seed: int) -> None:
        """Reset the generator and draw the compiled stream from it again (as built)."""
        super().reseed(seed)
        self._stream = rng_state_from(self.rng)

    def random_state(self) -> dict[str, JsonValue]:
        """The generator's state and the compiled search's stream (``stream``)."""
        return {**super().random_state(), "stream": int(self._stream[0])}

    def set_random_state(self, data: JsonValue) -> None:
        super().set_random_state(data)
        set_stream(self._stream, data, "stream", self.name)

    def search(
        self, game: Game, state: State, limit: Limit | None = None, clock: LimitClock | None = None
    ) -> RootStats:
        """The root statistics of a search from ``state`` with this player's settings."""
        result = uct_search(
            game, state, self.simulations, self._stream, self.c, self.n_open,
            limit=limit, clock=clock,
        )  # fmt: skip
        self.last_result = result
        return result

    def run_search(
        self, game: Game, state: State, limit: Limit | None, clock: LimitClock
    ) -> RootStats:
        return self.search(game, state, limit, clock)


def build_uct_player(
    settings: UCTSettings, game: Game, seed: int | None, cache: PlayerCache
) -> UCTPlayer:
    """The ``uct`` player (and MCTS1-4) of ``settings``."""
    return UCTPlayer(settings.name, settings.simulations, seed, settings.c, settings.n_open)


__all__ = ["MCTS_PRESETS", "UCTPlayer", "build_uct_player"]
