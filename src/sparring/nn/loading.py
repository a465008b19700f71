"""Loading a game network for play: the network file a player names, and the evaluator the
search calls, with the errors a player reports (:class:`~sparring.errors.PlayerResourceError`
for a missing or unreadable file, :class:`~sparring.errors.IncompatiblePlayerError` for
another game's network).

A network's ONNX file (``NAME.onnx``: every shipped network,
:mod:`sparring.nn.onnx_runtime`) runs on ONNX Runtime without PyTorch.  PyTorch is imported
only for a ``.pt`` file and for play-time dropout (AlphaDDA2), and a player says what to
install when it is missing.
"""

from __future__ import annotations

from pathlib import Path

from sparring.errors import IncompatiblePlayerError, MissingResourceError, PlayerResourceError
from sparring.games.base import Game
from sparring.nn.config import NetworkConfig
from sparring.nn.evaluators import OnnxEvaluator, make_evaluator
from sparring.nn.onnx_runtime import TORCH_INSTALL, OnnxPolicyValueNet, load_onnx_network
from sparring.nn.zoo import default_model, resolve_model
from sparring.search.evaluator import Evaluator


def require_torch(what: str, key: str = "model") -> None:
    """Raise :class:`~sparring.errors.PlayerResourceError` (``key``) saying that ``what``
    needs PyTorch and how to install it, when PyTorch cannot be imported."""
    try:
        # torch: whether it imports is the question (the core runs without it)
        import torch  # noqa: F401
    except ImportError:
        raise PlayerResourceError(
            f"{what} needs PyTorch, which is not installed: {TORCH_INSTALL}", key=key
        ) from None


def _check_shape(game: Game, file: Path, config: NetworkConfig) -> None:
    expected = (game.num_planes, tuple(game.board_shape), game.num_actions)
    if (config.input_planes, config.board_shape, config.num_actions) != expected:
        raise IncompatiblePlayerError(
            f"model {str(file)!r} is for {config.input_planes} planes of "
            f"{config.board_shape[0]}x{config.board_shape[1]} and {config.num_actions} moves, "
            f"not {game.name} ({expected[0]} planes of {expected[1][0]}x{expected[1][1]}, "
            f"{expected[2]} moves)",
            key="model",
        )


def _onnx_evaluator(game: Game, file: Path) -> Evaluator:
    try:
        network = load_onnx_network(file)
    except MissingResourceError as exc:
        raise PlayerResourceError(str(exc), key="model") from None
    if not isinstance(network, OnnxPolicyValueNet):
        raise IncompatiblePlayerError(
            f"model {str(file)!r} is a strength network, not an AlphaZero network", key="model"
        )
    _check_shape(game, file, network.config)
    return OnnxEvaluator(network)


def load_network_evaluator(
    game: Game, path: str | Path, dropout: float = 0.0, seed: int | None = None
) -> Evaluator:
    """The fastest evaluator for the network file ``path``, checked against ``game``: ONNX
    Runtime for an ``.onnx`` file (no PyTorch), the fastest of :func:`make_evaluator` for a
    ``.pt`` file.

    With ``dropout > 0`` the heads' dropout (AlphaDDA Fig. 2, Sec. 5.3) stays active at play
    time, its masks drawn from a generator seeded with ``seed``; such a network runs on torch
    (from either file).  Raises :class:`~sparring.errors.PlayerResourceError` for a missing
    or unreadable file, or PyTorch missing where it is needed, and
    :class:`~sparring.errors.IncompatiblePlayerError` for a network of another game (both
    :class:`~sparring.errors.UnknownPlayerError`), saying what is wrong.  Players get their
    evaluators from a :class:`~sparring.players.cache.PlayerCache`, which calls this once per
    network file and process.
    """
    file = Path(path).expanduser()
    if not file.is_file():
        raise PlayerResourceError(f"model file {str(file)!r} not found", key="model")
    if file.suffix == ".onnx" and dropout <= 0.0:
        return _onnx_evaluator(game, file)
    if dropout > 0.0:
        require_torch("play-time dropout (AlphaDDA2's damaged network)")
    else:
        require_torch(f"reading the PyTorch network file {str(file)!r}")
    # torch (through the network module): imported with the first PyTorch network
    import torch

    from sparring.nn.model import load_model

    try:
        model = load_model(file)
    except (ValueError, ImportError) as exc:
        raise PlayerResourceError(str(exc), key="model") from None
    _check_shape(game, file, model.config)
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
                "(a file written by sparring.nn.model.save_model, or its ONNX export)",
                key="model",
            )
        return shipped
    return resolve_model(model)


__all__ = ["load_network_evaluator", "network_file", "require_torch"]
