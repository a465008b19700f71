"""AlphaDDA's MCTS players: UCT with random playouts (appendix 3), MCTS1-MCTS4.

The search itself (Eq. 12, the compiled UCT) is :mod:`sparring.search.uct`; this module is
the player: after ``N_sim`` simulations it plays the most visited root child, ties broken
uniformly at random with the player's random generator.  MCTS1-MCTS4 are 300, 100, 200 and
50 simulations (AlphaDDA section 4.3).  Games with Python-only rules (chess) run the same
search as Python with capped playouts (:mod:`sparring.search.pyrules`).
"""

from __future__ import annotations

from sparring.games.base import Game, State
from sparring.players.base import Player
from sparring.rng import rng_state_from
from sparring.search.kernels import KERNEL_TYPES, STATE_TYPE, as_state, check_compiled
from sparring.search.stats import RootStats
from sparring.search.uct import (
    DEFAULT_C,
    DEFAULT_N_OPEN,
    EPSILON,
    UCTResult,
    tree_capacity,
    uct_benchmark,
    uct_search,
)

MCTS_PRESETS: dict[str, tuple[str, int]] = {
    "mcts1": ("MCTS1", 300),
    "mcts2": ("MCTS2", 100),
    "mcts3": ("MCTS3", 200),
    "mcts4": ("MCTS4", 50),
}
"""AlphaDDA's MCTS baselines: preset name -> (display name, simulations)."""


class UCTPlayer(Player):
    """AlphaDDA's MCTS player: UCT with random playouts (appendix 3, Eq. 12).

    The player's compiled random stream is drawn once from its seeded generator, so a seeded
    player is reproducible; ties for the most visited root child are broken at random.
    """

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
        self.last_result: RootStats | None = None

    def reseed(self, seed: int) -> None:
        """Reset the generator and draw the compiled stream from it again (as built)."""
        super().reseed(seed)
        self._stream = rng_state_from(self.rng)

    def search(self, game: Game, state: State) -> RootStats:
        """The root statistics of a search from ``state`` with this player's settings."""
        result = uct_search(game, state, self.simulations, self._stream, self.c, self.n_open)
        self.last_result = result
        return result

    def select_move(self, game: Game, state: State) -> int:
        best = self.search(game, state).best_moves()
        return int(best[self.rng.integers(len(best))])


__all__ = [
    "DEFAULT_C",
    "DEFAULT_N_OPEN",
    "EPSILON",
    "KERNEL_TYPES",
    "MCTS_PRESETS",
    "STATE_TYPE",
    "UCTPlayer",
    "UCTResult",
    "as_state",
    "check_compiled",
    "tree_capacity",
    "uct_benchmark",
    "uct_search",
]
