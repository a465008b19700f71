"""Strength estimators shipped with sparring, loadable by name (as :mod:`sparring.nn.zoo` does
for the game networks), and the rank labels they are trained on.

A shipped estimator is ``src/sparring/models/estimators/NAME.onnx`` (with ``NAME.head.onnx``
for an estimator's strength head: the ONNX export the players and ``sparring estimate`` run,
:mod:`sparring.nn.onnx_runtime`) of ``NAME.pt`` (written by ``sparring se-eval`` as
``RUN/estimator.pt``; in the repository, not in the wheel), its model card ``README.md``
beside them; the ONNX files and the card are package data, so an installed sparring has
them.  ``NAME`` is ``GAME-KIND``: ``go-se``, ``go-se-inf``, ``chess-se``, ``chess-se-inf``.
The networks themselves are :mod:`sparring.nn.strength_net` (PyTorch) and
:mod:`sparring.nn.onnx_runtime` (their ONNX files); this module only finds their files.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sparring.errors import (
    IncompatibleError,
    MissingResourceError,
    PlayerResourceError,
    SparringError,
)
from sparring.nn.onnx_runtime import TORCH_INSTALL, OnnxStrengthNet, load_onnx_network
from sparring.nn.zoo import network_files

if TYPE_CHECKING:  # PyTorch's module, imported when a .pt network is read
    from sparring.nn.strength_net import StrengthNet

GO_RANKS: tuple[str, ...] = ("9d", "8d", "7d", "6d", "5d", "4d", "3d", "2d", "1d", "1-2k", "3-5k")
"""Go rank groups, strongest first (``r_1`` = 9 dan ... ``r_11`` = 3-5 kyu; section 4.1)."""
CHESS_RANKS: tuple[str, ...] = (
    "2400-2600",
    "2200-2400",
    "2000-2200",
    "1800-2000",
    "1600-1800",
    "1400-1600",
    "1200-1400",
    "1000-1200",
)
"""Chess Elo bands, strongest first (``r_1`` = 2400-2599 ... ``r_8`` = 1000-1199; section 4.5)."""
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
    """Name -> file of every shipped estimator (``NAME.onnx``, else ``NAME.pt``:
    :func:`~sparring.nn.zoo.network_files`)."""
    return network_files(ESTIMATOR_DIR)


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


def load_estimator(path: str | Path) -> tuple[StrengthNet | OnnxStrengthNet, dict[str, Any]]:
    """The strength network of the file ``path`` (an estimator or a play network) and its
    metadata: an ONNX file (every shipped one) on ONNX Runtime, a ``.pt`` on PyTorch.
    :class:`~sparring.errors.MissingResourceError` when the file is missing, not such a
    network, or a ``.pt`` without PyTorch installed;
    :class:`~sparring.errors.IncompatibleError` for an AlphaZero network's ONNX file."""
    file = Path(path).expanduser()
    if file.suffix == ".onnx":
        network = load_onnx_network(file)
        if not isinstance(network, OnnxStrengthNet):
            raise IncompatibleError(
                f"{str(file)!r} is an AlphaZero network, not a strength estimator or play network"
            )
        return network, network.metadata
    try:
        # torch: a .pt network is a PyTorch file, read by PyTorch
        from sparring.nn.strength_net import load_strength_model
    except ImportError:
        raise MissingResourceError(
            f"reading the PyTorch network file {str(file)!r} needs PyTorch, which is not "
            f"installed: {TORCH_INSTALL}"
        ) from None
    return load_strength_model(file)


PLAY_NETWORKS: dict[str, str] = {
    "go-se-inf": "go-se-inf-play",
    "chess-se-inf": "chess-se-inf-play",
}
"""Shipped estimators the player kinds use instead of the estimation default of the same kind.

* Go: ``go-se-inf-play`` (the same training, seed 2), whose policy matches human moves (33%
  top-1 against 8.7% for ``go-se-inf``, whose argmax is illegal in half of the positions) but
  whose rank estimate is behind ``go-se-inf``'s at N = 50 and 100 games
  (docs/research/strength-estimation.md), so ``sparring estimate`` keeps ``go-se-inf``.
* Chess: ``chess-se-inf-play``, trained without the policy's log-probability as an input of the
  strength head (``StrengthNetConfig.prior_input = False``), so that ``beta`` ranks a
  position's moves by more than the prior; it matches more human moves than ``chess-se-inf``
  as a policy, as MCTS and as SE-inf-MCTS, and its SE-inf-MCTS loses more games as the band
  falls, but its rank estimate is behind at large N (docs/research/strength-estimation.md,
  "Why the rank barely matters"), so ``sparring estimate`` keeps ``chess-se-inf``."""


def player_estimator(game_name: str, model: str | None, kind: str) -> Path:
    """The estimator file a human-like player of ``game_name`` searches with: ``model`` (a
    shipped name or a file), else the shipped ``GAME-KIND`` (or its play network,
    :data:`PLAY_NETWORKS`).  :class:`~sparring.errors.PlayerResourceError` (key ``model``)
    when there is none."""
    default = f"{game_name}-{kind}"
    try:
        return resolve_estimator(model or PLAY_NETWORKS.get(default, default))
    except SparringError as exc:
        raise PlayerResourceError(str(exc), key="model") from None


__all__ = [
    "CHESS_RANKS",
    "ESTIMATOR_DIR",
    "GO_RANKS",
    "PLAY_NETWORKS",
    "default_estimator",
    "load_estimator",
    "player_estimator",
    "resolve_estimator",
    "shipped_estimators",
]
