"""Trained networks shipped with sparring, loadable by name.

A shipped model is ``src/sparring/models/NAME.onnx`` (the ONNX export the players run,
:mod:`sparring.nn.onnx_runtime`) of ``NAME.pt`` (written by
:func:`sparring.nn.model.save_model`; in the repository, not in the wheel), with its model
card ``NAME.md`` beside it (how it was trained, its measured strength) and, once calibrated,
``NAME.calibration.json``.  The name is the game's registry name (``connect4``, ``othello6``,
...).
"""

from __future__ import annotations

from pathlib import Path

from sparring.errors import PlayerResourceError

MODEL_DIR = Path(__file__).resolve().parents[1] / "models"
"""Where shipped models live (inside the installed package)."""


def network_files(folder: Path) -> dict[str, Path]:
    """Name -> file of every network in ``folder``: ``NAME.onnx`` where there is one (what
    the players run), else ``NAME.pt`` (a strength head's ``NAME.head.onnx`` is part of
    ``NAME.onnx``)."""
    files = {p.stem: p for p in sorted(folder.glob("*.pt"))}
    for p in sorted(folder.glob("*.onnx")):
        if not p.name.endswith(".head.onnx"):
            files[p.stem] = p
    return dict(sorted(files.items()))


def shipped_models() -> dict[str, Path]:
    """Name -> file of every shipped network (:func:`network_files`)."""
    return network_files(MODEL_DIR)


def resolve_model(name_or_path: str) -> Path:
    """The network file named by a shipped model name or a file path.

    Raises :class:`~sparring.errors.PlayerResourceError` (an
    :class:`~sparring.errors.UnknownPlayerError`) listing the shipped names when neither
    matches.
    """
    shipped = shipped_models()
    if name_or_path in shipped:
        return shipped[name_or_path]
    path = Path(name_or_path).expanduser()
    if path.is_file():
        return path
    names = ", ".join(shipped) or "none yet"
    raise PlayerResourceError(
        f"model {name_or_path!r} is neither a file nor a shipped model (shipped: {names})",
        key="model",
    )


def default_model(game_name: str) -> Path | None:
    """The shipped network for ``game_name``, if there is one."""
    return shipped_models().get(game_name)
