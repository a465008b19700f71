"""Loading a game network for play: the network file a player names, and the evaluator the
search calls, with the errors a player reports (:class:`~sparring.errors.PlayerResourceError`
for a missing or unreadable file, :class:`~sparring.errors.IncompatiblePlayerError` for
another game's network).

PyTorch is imported when the first network is loaded, not with this module.
"""

from __future__ import annotations

from pathlib import Path

from sparring.errors import IncompatiblePlayerError, PlayerResourceError
from sparring.games.base import Game
from sparring.nn.evaluators import make_evaluator
from sparring.nn.zoo import default_model, resolve_model
from sparring.search.evaluator import Evaluator


def load_network_evaluator(
    game: Game, path: str | Path, dropout: float = 0.0, seed: int | None = None
) -> Evaluator:
    """The fastest evaluator for the network file ``path``, checked against ``game``.

    With ``dropout > 0`` the heads' dropout (AlphaDDA Fig. 2, Sec. 5.3) stays active at play
    time, its masks drawn from a generator seeded with ``seed``; such a network runs on torch.
    Raises :class:`~sparring.errors.PlayerResourceError` for a missing or unreadable file and
    :class:`~sparring.errors.IncompatiblePlayerError` for a network of another game (both
    :class:`~sparring.errors.UnknownPlayerError`), saying what is wrong.  Players get their
    evaluators from a :class:`~sparring.players.cache.PlayerCache`, which calls this once per
    network file and process.
    """
    # torch (through the network module): imported with the first network, not at start-up
    import torch

    from sparring.nn.model import load_model

    file = Path(path).expanduser()
    if not file.is_file():
        raise PlayerResourceError(f"model file {str(file)!r} not found", key="model")
    try:
        model = load_model(file)
    except ValueError as exc:
        raise PlayerResourceError(str(exc), key="model") from None
    config = model.config
    expected = (game.num_planes, tuple(game.board_shape), game.num_actions)
    if (config.input_planes, config.board_shape, config.num_actions) != expected:
        raise IncompatiblePlayerError(
            f"model {str(file)!r} is for {config.input_planes} planes of "
            f"{config.board_shape[0]}x{config.board_shape[1]} and {config.num_actions} moves, "
            f"not {game.name} ({expected[0]} planes of {expected[1][0]}x{expected[1][1]}, "
            f"{expected[2]} moves)",
            key="model",
        )
    if dropout > 0.0:
        generator = torch.Generator().manual_seed(0 if seed is None else seed)
        model.set_dropout(dropout, generator)
    return make_evaluator(model)


def network_file(game: Game, model: str | None) -> Path:
    """The network file named by ``model`` (a shipped name or a path), or the game's shipped
    network when None; :class:`~sparring.errors.PlayerResourceError` saying why when there
    is none."""
    if model is None:
        shipped = default_model(game.name)
        if shipped is None:
            raise PlayerResourceError(
                f"no shipped {game.name} network; give one with model=NAME|PATH "
                "(a file written by sparring.nn.model.save_model)",
                key="model",
            )
        return shipped
    return resolve_model(model)


__all__ = ["load_network_evaluator", "network_file"]
