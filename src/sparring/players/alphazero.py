"""AlphaZero: PUCT search guided by a policy/value network (AlphaDDA app. 1, Fig. 1A).

Each move runs :func:`~sparring.search.puct.search` (AlphaDDA app. 1.2: ``N_sim``
simulations of Select / Expand and Evaluate / Backup with Eq. 8) from the current position
and then *Play*: "AlphaZero selects the action corresponding to the most visited edge from
the root node".  Ties between equally visited moves are broken uniformly at random with the
player's seeded generator; with no root noise (the default for play) the search itself is
deterministic, so a seeded player is reproducible.

Player spec: ``az:model=PATH[,sims=N][,cpuct=C][,name=NAME]``.  ``model`` is a network file
written by :func:`sparring.nn.model.save_model` (loading shipped models by name comes later).
``sims`` defaults to AlphaDDA Table A1's ``N_sim`` for the game (200 for Connect4 and 6x6
Othello, 400 for Othello) and ``cpuct`` to 1.25.
"""

from __future__ import annotations

from pathlib import Path

from sparring.errors import GameOverError, UnknownPlayerError
from sparring.games.base import Game, State
from sparring.nn.zoo import default_model, resolve_model
from sparring.players.base import Player
from sparring.players.registry import (
    PlayerSpec,
    check_options,
    option_float,
    option_int,
    register,
)
from sparring.search.evaluator import Evaluator
from sparring.search.puct import PUCTConfig, search
from sparring.search.stats import RootStats

TABLE_A1_SIMULATIONS: dict[str, int] = {"connect4": 200, "othello6": 200, "othello": 400}
"""``N_sim`` of AlphaDDA Table A1 by game name."""
DEFAULT_SIMULATIONS = 200
"""``N_sim`` for games not in Table A1."""
DEFAULT_C_PUCT = 1.25
"""``C_puct`` of AlphaDDA Table A1."""


class AlphaZeroPlayer(Player):
    """Plays the most visited move of a PUCT search with ``evaluator`` (ties at random)."""

    def __init__(
        self,
        evaluator: Evaluator,
        config: PUCTConfig | None = None,
        name: str = "AlphaZero",
        seed: int | None = None,
    ) -> None:
        super().__init__(name, seed)
        self.evaluator = evaluator
        self.config = config or PUCTConfig()
        self.last_result: RootStats | None = None
        """The search of the last move chosen (for analysis and the AlphaDDA variants)."""

    def select_move(self, game: Game, state: State) -> int:
        if game.is_terminal(state):
            raise GameOverError(f"{game.name}: the game is over, no move can be played")
        result = search(game, state, self.evaluator, self.config, self.rng)
        self.last_result = result
        best = result.best_moves()
        return int(best[self.rng.integers(len(best))])


def load_network_evaluator(
    game: Game, path: str, spec_text: str, dropout: float = 0.0, seed: int | None = None
) -> Evaluator:
    """The fastest evaluator for the network file ``path``, checked against ``game``.

    With ``dropout > 0`` the heads' dropout (AlphaDDA Fig. 2, Sec. 5.3) stays active at play
    time, its masks drawn from a generator seeded with ``seed``; such a network runs on torch.
    Raises :class:`UnknownPlayerError` saying what is wrong with the file.
    """
    from sparring.nn.evaluators import make_evaluator
    from sparring.nn.model import load_model

    file = Path(path).expanduser()
    if not file.is_file():
        raise UnknownPlayerError(f"player {spec_text!r}: model file {str(file)!r} not found")
    try:
        model = load_model(file)
    except ValueError as exc:
        raise UnknownPlayerError(f"player {spec_text!r}: {exc}") from None
    config = model.config
    expected = (game.num_planes, tuple(game.board_shape), game.num_actions)
    if (config.input_planes, config.board_shape, config.num_actions) != expected:
        raise UnknownPlayerError(
            f"player {spec_text!r}: model {str(file)!r} is for {config.input_planes} planes of "
            f"{config.board_shape[0]}x{config.board_shape[1]} and {config.num_actions} moves, "
            f"not {game.name} ({expected[0]} planes of {expected[1][0]}x{expected[1][1]}, "
            f"{expected[2]} moves)"
        )
    if dropout > 0.0:
        import torch

        generator = torch.Generator().manual_seed(0 if seed is None else seed)
        model.set_dropout(dropout, generator)
    return make_evaluator(model)


@register(
    "az",
    "AlphaZero: PUCT search with a network (az[:model=NAME|PATH,sims=N,cpuct=C,dropout=P,"
    "name=...]; default: the game's shipped model)",
)
def _alphazero(game: Game, spec: PlayerSpec, seed: int | None) -> Player:
    check_options(spec, {"sims", "cpuct", "model", "name", "dropout"})
    model = spec.options.get("model")
    if model is None:
        shipped = default_model(game.name)
        if shipped is None:
            raise UnknownPlayerError(
                f"player {spec.text!r}: no shipped {game.name} network; give one with "
                "az:model=PATH (a file written by sparring.nn.model.save_model)"
            )
        model = str(shipped)
    else:
        try:
            model = str(resolve_model(model))
        except UnknownPlayerError as exc:
            raise UnknownPlayerError(f"player {spec.text!r}: {exc}") from None
    sims = option_int(spec, "sims", TABLE_A1_SIMULATIONS.get(game.name, DEFAULT_SIMULATIONS))
    c_puct = option_float(spec, "cpuct", DEFAULT_C_PUCT)
    if c_puct < 0:
        raise UnknownPlayerError(f"player {spec.text!r}: cpuct must be >= 0")
    dropout = option_float(spec, "dropout", 0.0)
    if not 0.0 <= dropout < 1.0:
        raise UnknownPlayerError(f"player {spec.text!r}: dropout must be in [0, 1)")
    evaluator = load_network_evaluator(game, model, spec.text, dropout, seed)
    config = PUCTConfig(simulations=sims, c_puct=c_puct)
    return AlphaZeroPlayer(evaluator, config, spec.options.get("name", "AlphaZero"), seed)


__all__ = ["AlphaZeroPlayer", "load_network_evaluator"]
