"""sparring: an AlphaZero-style game AI as a training partner at any strength."""

from sparring.errors import (
    ConfigError,
    GameOverError,
    IllegalMoveError,
    MoveParseError,
    PositionParseError,
    SparringError,
    UnknownGameError,
    UnknownPlayerError,
)

__version__ = "0.1.0"

__all__ = [
    "ConfigError",
    "GameOverError",
    "IllegalMoveError",
    "MoveParseError",
    "PositionParseError",
    "SparringError",
    "UnknownGameError",
    "UnknownPlayerError",
    "__version__",
]
