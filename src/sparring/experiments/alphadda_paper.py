"""The paper's Tables 5-13 (Fujita, AlphaDDA, PeerJ CS 2022): win, loss and draw rates of
AlphaDDA1-3 at their Table 1-3 settings against the eight AI agents, over 100 games per
opponent (``"all"``: Tables 5, 8, 11) and over the 50 games as first player (``"first"``:
Tables 6, 9, 12) and as second player (``"second"``: Tables 7, 10, 13).

Transcribed from ``../shared/papers/001_dbf64b5d3e3a8bed.txt``; every row sums to 1 within
the paper's rounding and every ``"all"`` entry is the mean of its ``"first"`` and ``"second"``
entries within 0.01 (``tests/test_adapt_tables.py`` checks both).  Shown beside the measured
rows of ``sparring adapt``'s win / loss / draw tables (:mod:`sparring.experiments.adapt`).
"""

from __future__ import annotations

from typing import Literal

Side = Literal["all", "first", "second"]
"""All games, the games where AlphaDDA moved first, or those where it moved second."""

PaperRow = tuple[float, float, float]
"""``(win, loss, draw)`` rates of AlphaDDA against one opponent."""

PAPER_TABLE_NUMBER: dict[str, dict[Side, int]] = {
    "connect4": {"all": 5, "first": 6, "second": 7},
    "othello6": {"all": 8, "first": 9, "second": 10},
    "othello": {"all": 11, "first": 12, "second": 13},
}
"""The paper's table number by game and side."""

PAPER_OPPONENTS: dict[str, str] = {
    "az": "AlphaZero",
    "mcts1": "MCTS1",
    "mcts2": "MCTS2",
    "mcts3": "MCTS3",
    "mcts4": "MCTS4",
    "minimax1": "Minimax1",
    "minimax2": "Minimax2",
    "random": "Random",
}
"""The paper's opponent names by the player kind that plays them here (``az``: AlphaZero
with the game's shipped network and Table A1's simulations)."""

PAPER_TABLES: dict[str, dict[Side, dict[str, dict[str, PaperRow]]]] = {
    "connect4": {
        "all": {  # Table 5
            "alphadda1": {
                "AlphaZero": (0.02, 0.02, 0.96),
                "MCTS1": (0.22, 0.76, 0.02),
                "MCTS2": (0.46, 0.54, 0.0),
                "MCTS3": (0.32, 0.63, 0.05),
                "MCTS4": (0.58, 0.41, 0.01),
                "Minimax1": (0.69, 0.3, 0.01),
                "Minimax2": (0.68, 0.32, 0.0),
                "Random": (0.98, 0.02, 0.0),
            },
            "alphadda2": {
                "AlphaZero": (0.01, 0.19, 0.8),
                "MCTS1": (0.29, 0.67, 0.04),
                "MCTS2": (0.55, 0.42, 0.03),
                "MCTS3": (0.39, 0.52, 0.09),
                "MCTS4": (0.79, 0.2, 0.01),
                "Minimax1": (0.73, 0.27, 0.0),
                "Minimax2": (0.94, 0.06, 0.0),
                "Random": (1.0, 0.0, 0.0),
            },
            "alphadda3": {
                "AlphaZero": (0.0, 0.72, 0.28),
                "MCTS1": (0.0, 1.0, 0.0),
                "MCTS2": (0.01, 0.98, 0.01),
                "MCTS3": (0.0, 0.98, 0.02),
                "MCTS4": (0.02, 0.95, 0.03),
                "Minimax1": (0.0, 0.99, 0.01),
                "Minimax2": (0.04, 0.96, 0.0),
                "Random": (0.46, 0.49, 0.05),
            },
        },
        "first": {  # Table 6
            "alphadda1": {
                "AlphaZero": (0.02, 0.04, 0.94),
                "MCTS1": (0.32, 0.66, 0.02),
                "MCTS2": (0.54, 0.46, 0.0),
                "MCTS3": (0.44, 0.5, 0.06),
                "MCTS4": (0.76, 0.22, 0.02),
                "Minimax1": (0.94, 0.06, 0.0),
                "Minimax2": (0.88, 0.12, 0.0),
                "Random": (1.0, 0.0, 0.0),
            },
            "alphadda2": {
                "AlphaZero": (0.02, 0.24, 0.74),
                "MCTS1": (0.24, 0.76, 0.0),
                "MCTS2": (0.58, 0.4, 0.02),
                "MCTS3": (0.36, 0.54, 0.1),
                "MCTS4": (0.78, 0.22, 0.0),
                "Minimax1": (0.78, 0.22, 0.0),
                "Minimax2": (0.94, 0.06, 0.0),
                "Random": (1.0, 0.0, 0.0),
            },
            "alphadda3": {
                "AlphaZero": (0.0, 0.44, 0.56),
                "MCTS1": (0.0, 1.0, 0.0),
                "MCTS2": (0.02, 0.96, 0.02),
                "MCTS3": (0.0, 0.98, 0.02),
                "MCTS4": (0.04, 0.94, 0.02),
                "Minimax1": (0.0, 0.98, 0.02),
                "Minimax2": (0.08, 0.92, 0.0),
                "Random": (0.56, 0.4, 0.04),
            },
        },
        "second": {  # Table 7
            "alphadda1": {
                "AlphaZero": (0.02, 0.0, 0.98),
                "MCTS1": (0.12, 0.86, 0.02),
                "MCTS2": (0.38, 0.62, 0.0),
                "MCTS3": (0.2, 0.76, 0.04),
                "MCTS4": (0.4, 0.6, 0.0),
                "Minimax1": (0.44, 0.54, 0.02),
                "Minimax2": (0.48, 0.52, 0.0),
                "Random": (0.96, 0.04, 0.0),
            },
            "alphadda2": {
                "AlphaZero": (0.0, 0.14, 0.86),
                "MCTS1": (0.34, 0.58, 0.08),
                "MCTS2": (0.52, 0.44, 0.04),
                "MCTS3": (0.42, 0.5, 0.08),
                "MCTS4": (0.8, 0.18, 0.02),
                "Minimax1": (0.68, 0.32, 0.0),
                "Minimax2": (0.94, 0.06, 0.0),
                "Random": (1.0, 0.0, 0.0),
            },
            "alphadda3": {
                "AlphaZero": (0.0, 1.0, 0.0),
                "MCTS1": (0.0, 1.0, 0.0),
                "MCTS2": (0.0, 1.0, 0.0),
                "MCTS3": (0.0, 0.98, 0.02),
                "MCTS4": (0.0, 0.96, 0.04),
                "Minimax1": (0.0, 1.0, 0.0),
                "Minimax2": (0.0, 1.0, 0.0),
                "Random": (0.36, 0.58, 0.06),
            },
        },
    },
    "othello6": {
        "all": {  # Table 8
            "alphadda1": {
                "AlphaZero": (0.23, 0.62, 0.15),
                "MCTS1": (0.29, 0.61, 0.1),
                "MCTS2": (0.57, 0.38, 0.05),
                "MCTS3": (0.4, 0.54, 0.06),
                "MCTS4": (0.62, 0.33, 0.05),
                "Minimax1": (0.65, 0.34, 0.01),
                "Minimax2": (0.96, 0.04, 0.0),
                "Random": (0.96, 0.02, 0.02),
            },
            "alphadda2": {
                "AlphaZero": (0.19, 0.8, 0.01),
                "MCTS1": (0.27, 0.67, 0.06),
                "MCTS2": (0.55, 0.38, 0.07),
                "MCTS3": (0.52, 0.44, 0.04),
                "MCTS4": (0.69, 0.28, 0.03),
                "Minimax1": (0.75, 0.19, 0.06),
                "Minimax2": (0.95, 0.05, 0.0),
                "Random": (0.94, 0.04, 0.02),
            },
            "alphadda3": {
                "AlphaZero": (0.0, 1.0, 0.0),
                "MCTS1": (0.01, 0.98, 0.01),
                "MCTS2": (0.0, 0.93, 0.07),
                "MCTS3": (0.02, 0.98, 0.0),
                "MCTS4": (0.03, 0.92, 0.05),
                "Minimax1": (0.27, 0.44, 0.29),
                "Minimax2": (0.63, 0.06, 0.31),
                "Random": (0.4, 0.44, 0.16),
            },
        },
        "first": {  # Table 9
            "alphadda1": {
                "AlphaZero": (0.4, 0.6, 0.0),
                "MCTS1": (0.3, 0.62, 0.08),
                "MCTS2": (0.64, 0.28, 0.08),
                "MCTS3": (0.48, 0.46, 0.06),
                "MCTS4": (0.66, 0.26, 0.08),
                "Minimax1": (0.88, 0.1, 0.02),
                "Minimax2": (0.98, 0.02, 0.0),
                "Random": (0.96, 0.04, 0.0),
            },
            "alphadda2": {
                "AlphaZero": (0.08, 0.92, 0.0),
                "MCTS1": (0.32, 0.62, 0.06),
                "MCTS2": (0.58, 0.34, 0.08),
                "MCTS3": (0.42, 0.54, 0.04),
                "MCTS4": (0.76, 0.22, 0.02),
                "Minimax1": (0.74, 0.22, 0.04),
                "Minimax2": (0.96, 0.04, 0.0),
                "Random": (0.92, 0.04, 0.04),
            },
            "alphadda3": {
                "AlphaZero": (0.0, 1.0, 0.0),
                "MCTS1": (0.0, 0.98, 0.02),
                "MCTS2": (0.0, 0.98, 0.02),
                "MCTS3": (0.0, 1.0, 0.0),
                "MCTS4": (0.04, 0.88, 0.08),
                "Minimax1": (0.18, 0.26, 0.56),
                "Minimax2": (0.98, 0.02, 0.0),
                "Random": (0.3, 0.54, 0.16),
            },
        },
        "second": {  # Table 10
            "alphadda1": {
                "AlphaZero": (0.06, 0.64, 0.3),
                "MCTS1": (0.28, 0.6, 0.12),
                "MCTS2": (0.5, 0.48, 0.02),
                "MCTS3": (0.32, 0.62, 0.06),
                "MCTS4": (0.58, 0.4, 0.02),
                "Minimax1": (0.42, 0.58, 0.0),
                "Minimax2": (0.94, 0.06, 0.0),
                "Random": (0.96, 0.0, 0.04),
            },
            "alphadda2": {
                "AlphaZero": (0.3, 0.68, 0.02),
                "MCTS1": (0.22, 0.72, 0.06),
                "MCTS2": (0.52, 0.42, 0.06),
                "MCTS3": (0.62, 0.34, 0.04),
                "MCTS4": (0.62, 0.34, 0.04),
                "Minimax1": (0.76, 0.16, 0.08),
                "Minimax2": (0.94, 0.06, 0.0),
                "Random": (0.96, 0.04, 0.0),
            },
            "alphadda3": {
                "AlphaZero": (0.0, 1.0, 0.0),
                "MCTS1": (0.02, 0.98, 0.0),
                "MCTS2": (0.0, 0.88, 0.12),
                "MCTS3": (0.04, 0.96, 0.0),
                "MCTS4": (0.02, 0.96, 0.02),
                "Minimax1": (0.36, 0.62, 0.02),
                "Minimax2": (0.28, 0.1, 0.62),
                "Random": (0.5, 0.34, 0.16),
            },
        },
    },
    "othello": {
        "all": {  # Table 11
            "alphadda1": {
                "AlphaZero": (0.56, 0.44, 0.0),
                "MCTS1": (0.35, 0.6, 0.05),
                "MCTS2": (0.52, 0.43, 0.05),
                "MCTS3": (0.36, 0.56, 0.08),
                "MCTS4": (0.71, 0.27, 0.02),
                "Minimax1": (0.64, 0.32, 0.04),
                "Minimax2": (0.59, 0.39, 0.02),
                "Random": (0.96, 0.03, 0.01),
            },
            "alphadda2": {
                "AlphaZero": (0.47, 0.5, 0.03),
                "MCTS1": (0.35, 0.62, 0.03),
                "MCTS2": (0.55, 0.37, 0.08),
                "MCTS3": (0.46, 0.45, 0.09),
                "MCTS4": (0.73, 0.21, 0.06),
                "Minimax1": (0.74, 0.22, 0.04),
                "Minimax2": (0.82, 0.17, 0.01),
                "Random": (0.99, 0.01, 0.0),
            },
            "alphadda3": {
                "AlphaZero": (0.0, 1.0, 0.0),
                "MCTS1": (0.0, 0.96, 0.04),
                "MCTS2": (0.01, 0.92, 0.07),
                "MCTS3": (0.01, 0.98, 0.01),
                "MCTS4": (0.05, 0.89, 0.06),
                "Minimax1": (0.13, 0.67, 0.2),
                "Minimax2": (0.13, 0.87, 0.0),
                "Random": (0.43, 0.38, 0.19),
            },
        },
        "first": {  # Table 12
            "alphadda1": {
                "AlphaZero": (0.52, 0.48, 0.0),
                "MCTS1": (0.36, 0.6, 0.04),
                "MCTS2": (0.52, 0.42, 0.06),
                "MCTS3": (0.44, 0.5, 0.06),
                "MCTS4": (0.8, 0.18, 0.02),
                "Minimax1": (0.58, 0.4, 0.02),
                "Minimax2": (0.9, 0.08, 0.02),
                "Random": (0.98, 0.0, 0.02),
            },
            "alphadda2": {
                "AlphaZero": (0.38, 0.6, 0.02),
                "MCTS1": (0.36, 0.64, 0.0),
                "MCTS2": (0.56, 0.42, 0.02),
                "MCTS3": (0.4, 0.48, 0.12),
                "MCTS4": (0.62, 0.34, 0.04),
                "Minimax1": (0.72, 0.22, 0.06),
                "Minimax2": (0.82, 0.16, 0.02),
                "Random": (1.0, 0.0, 0.0),
            },
            "alphadda3": {
                "AlphaZero": (0.0, 1.0, 0.0),
                "MCTS1": (0.0, 0.96, 0.04),
                "MCTS2": (0.02, 0.9, 0.08),
                "MCTS3": (0.0, 0.98, 0.02),
                "MCTS4": (0.04, 0.9, 0.06),
                "Minimax1": (0.1, 0.84, 0.06),
                "Minimax2": (0.06, 0.94, 0.0),
                "Random": (0.56, 0.28, 0.16),
            },
        },
        "second": {  # Table 13
            "alphadda1": {
                "AlphaZero": (0.6, 0.4, 0.0),
                "MCTS1": (0.34, 0.6, 0.06),
                "MCTS2": (0.52, 0.44, 0.04),
                "MCTS3": (0.28, 0.62, 0.1),
                "MCTS4": (0.62, 0.36, 0.02),
                "Minimax1": (0.7, 0.24, 0.06),
                "Minimax2": (0.28, 0.7, 0.02),
                "Random": (0.94, 0.06, 0.0),
            },
            "alphadda2": {
                "AlphaZero": (0.56, 0.4, 0.04),
                "MCTS1": (0.34, 0.6, 0.06),
                "MCTS2": (0.54, 0.32, 0.14),
                "MCTS3": (0.52, 0.42, 0.06),
                "MCTS4": (0.84, 0.08, 0.08),
                "Minimax1": (0.76, 0.22, 0.02),
                "Minimax2": (0.82, 0.18, 0.0),
                "Random": (0.98, 0.02, 0.0),
            },
            "alphadda3": {
                "AlphaZero": (0.0, 1.0, 0.0),
                "MCTS1": (0.0, 0.96, 0.04),
                "MCTS2": (0.0, 0.94, 0.06),
                "MCTS3": (0.02, 0.98, 0.0),
                "MCTS4": (0.06, 0.88, 0.06),
                "Minimax1": (0.16, 0.5, 0.34),
                "Minimax2": (0.2, 0.8, 0.0),
                "Random": (0.3, 0.48, 0.22),
            },
        },
    },
}
"""``PAPER_TABLES[game][side][kind][opponent] = (win, loss, draw)``."""
