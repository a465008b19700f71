"""Tiny untrained strength networks written to files, for the player tests."""

from __future__ import annotations

from pathlib import Path

from sparring.estimation.data import GO_RANKS
from sparring.nn.strength_net import (
    StrengthNet,
    StrengthNetConfig,
    build_strength_model,
    save_strength_model,
)

TINY = {"blocks": 1, "channels": 8, "value_hidden": 16}
"""The smallest useful network shape."""


def tiny_go_network(folder: Path, kind: str = "play", seed: int = 0) -> tuple[StrengthNet, Path]:
    """A tiny Go network of ``kind`` (``play``, ``se_inf``, ...) over the 11 Go ranks, saved
    as ``folder/KIND.pt``; the network and the file."""
    net = build_strength_model(StrengthNetConfig("go", GO_RANKS, kind, **TINY), seed=seed)
    path = folder / f"{kind}.pt"
    save_strength_model(path, net, {})
    return net, path
