"""AlphaZero: PUCT search guided by a policy/value network (AlphaDDA app. 1, Fig. 1A).

Each move runs :func:`~sparring.search.puct.search` (AlphaDDA app. 1.2: ``N_sim``
simulations of Select / Expand and Evaluate / Backup with Eq. 8) from the current position
and then *Play*: "AlphaZero selects the action corresponding to the most visited edge from
the root node".  Ties between equally visited moves are broken uniformly at random with the
player's seeded generator; with no root noise (the default for play) the search itself is
deterministic, so a seeded player is reproducible.

Player spec: ``az:model=NAME|PATH[,sims=N][,cpuct=C][,dropout=P][,name=NAME]``, typed as
:class:`~sparring.players.settings.AlphaZeroSettings` and built by
:func:`build_alphazero_player`.  ``model`` is a shipped network's name or a network file
written by :func:`sparring.nn.model.save_model` (default: the game's shipped network).
``sims`` defaults to AlphaDDA Table A1's ``N_sim`` for the game (200 for Connect4 and 6x6
Othello, 400 for Othello) and ``cpuct`` to 1.25.
"""

from __future__ import annotations

from typing import Any

from sparring.games.base import Game, State
from sparring.nn.loading import load_network_evaluator, network_file
from sparring.players.base import JsonValue, set_torch_generator_state, torch_generator_state
from sparring.players.cache import PlayerCache
from sparring.players.searching import SearchPlayer
from sparring.players.settings import AlphaZeroSettings
from sparring.search.evaluator import Evaluator
from sparring.search.limit import Limit, LimitClock
from sparring.search.puct import PUCTConfig, search
from sparring.search.stats import RootStats

TABLE_A1_SIMULATIONS: dict[str, int] = {"connect4": 200, "othello6": 200, "othello": 400}
"""``N_sim`` of AlphaDDA Table A1 by game name."""
DEFAULT_SIMULATIONS = 200
"""``N_sim`` for games not in Table A1."""


class AlphaZeroPlayer(SearchPlayer):
    """Plays the most visited move of a PUCT search with ``evaluator`` (ties at random)."""

    def __init__(
        self,
        evaluator: Evaluator,
        config: PUCTConfig | None = None,
        name: str = "AlphaZero",
        seed: int | None = None,
        finish: bool = False,
    ) -> None:
        super().__init__(name, seed, finish=finish)
        self.evaluator = evaluator
        self.config = config or PUCTConfig()

    def _dropout_generator(self) -> Any:
        """The torch generator of the network's dropout masks (``dropout=P``), or None."""
        return masks_generator(self.evaluator)

    def random_state(self) -> dict[str, JsonValue]:
        """The generator's state and, with dropout, the masks' torch generator (``dropout``)."""
        state = super().random_state()
        generator = self._dropout_generator()
        if generator is not None:
            state["dropout"] = torch_generator_state(generator)
        return state

    def set_random_state(self, data: JsonValue) -> None:
        super().set_random_state(data)
        generator = self._dropout_generator()
        if generator is not None:
            set_torch_generator_state(generator, data, "dropout", self.name)

    def run_search(
        self, game: Game, state: State, limit: Limit | None, clock: LimitClock
    ) -> RootStats:
        return search(game, state, self.evaluator, self.config, self.rng, limit, clock)


def masks_generator(evaluator: object) -> Any:
    """The torch generator an evaluator's network draws its dropout masks from (the heads'
    :class:`~sparring.nn.model.HeadDropout` share one), or None (no torch network, or masks
    from torch's global generator)."""
    model = getattr(evaluator, "model", None)
    return getattr(getattr(model, "policy_dropout", None), "generator", None)


def build_alphazero_player(
    settings: AlphaZeroSettings, game: Game, seed: int | None, cache: PlayerCache
) -> AlphaZeroPlayer:
    """The ``az`` player of ``settings``: its network's evaluator comes from ``cache`` (a
    network with dropout is loaded for this player, its masks seeded with ``seed``)."""
    file = network_file(game, settings.model)
    if settings.dropout > 0.0:
        evaluator = load_network_evaluator(game, file, settings.dropout, seed)
    else:
        evaluator = cache.evaluator(game, file)
    sims = settings.simulations or TABLE_A1_SIMULATIONS.get(game.name, DEFAULT_SIMULATIONS)
    config = PUCTConfig(simulations=sims, c_puct=settings.c_puct, root_random=settings.root_random)
    return AlphaZeroPlayer(evaluator, config, settings.name, seed, finish=settings.finish)


__all__ = ["AlphaZeroPlayer", "build_alphazero_player", "masks_generator"]
