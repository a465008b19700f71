"""What the service offers: its games, their levels, and the opponent a request asks for.

The levels of each game are its shipped level table (:func:`sparring.levels.level_table`:
the scale with its anchor, every measured level with its games, interval and seconds a
move, the strongest level, a rank ladder where one was measured, the adaptive opponents),
and a request becomes a player through the level resolver alone
(:func:`sparring.levels.resolve`), as in ``sparring play`` and the engines.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sparring.errors import BadValueError
from sparring.games import get_game
from sparring.games.base import Game
from sparring.levels import ADAPTIVE_MODES, Level, LevelReport, LevelRow, LevelTable, level_table
from sparring.levels import resolve as resolve_level
from sparring.players.external import KINDS as PROGRAM_KINDS
from sparring.players.human_like import game_ranks
from sparring.players.registry import kinds
from sparring.players.settings_base import PlayerSettings

SERVICE_GAMES: dict[str, str] = {
    "connect4": "Connect Four",
    "othello6": "Othello 6x6",
    "othello": "Othello 8x8",
    "go9": "Go 9x9",
    "go": "Go 19x19",
    "chess": "Chess",
}
"""The games the service offers (name -> label)."""


@dataclass(frozen=True)
class GameInfo:
    """One game of the catalog: the game and its level table."""

    name: str
    label: str
    game: Game
    table: LevelTable

    @property
    def elo_range(self) -> tuple[float, float] | None:
        """The Elo levels' range (None: no Elo levels)."""
        return self.table.elo_range

    @property
    def whole_range(self) -> tuple[int, int] | None:
        """The whole Elo numbers inside the Elo levels' range: the ends the page shows and
        the service plays (as ``UCI_Elo``'s range in the UCI engine); None: no Elo levels."""
        return self.table.whole_range

    @property
    def adaptive(self) -> list[str]:
        """The adaptive opponents this game offers."""
        return list(self.table.adaptive)

    def to_json(self) -> dict[str, Any]:
        """The catalog entry (see the service contract)."""
        g, table = self.game, self.table
        rows, cols = g.board_shape
        low_high = table.elo_range
        elo = None
        if low_high is not None:
            low, high = self.whole_range or (0, 0)
            elo = {
                "min": round(low_high[0], 1),
                "max": round(low_high[1], 1),
                "low": low,
                "high": high,
                "nearest": table.kind == "rows",
                "scale": table.scale,
                "anchor": table.anchor,
                "levels": [_row_json(r) for r in table.rows],
            }
        return {
            "name": self.name,
            "label": self.label,
            "sides": [g.side_names[0], g.side_names[1]],
            "board": {"kind": "chess" if g.name == "chess" else "grid", "rows": rows, "cols": cols},
            "levels": {
                "elo": elo,
                "ranks": [r.rank for r in table.ranks] or None,
                "rank_levels": [_row_json(r) for r in table.ranks] or None,
                "strongest": None if table.strongest is None else _row_json(table.strongest),
                "adaptive": self.adaptive,
                "estimator_ranks": list(game_ranks(g.name)) if g.name in ("go", "chess") else None,
            },
            "default_elo": None if low_high is None else whole_elo((low_high[0] + low_high[1]) / 2),
        }


def whole_elo(elo: float) -> int:
    """An Elo as the service writes it: the nearest whole number, a half to the even one (as
    the labels and notices format it, ``f"{elo:.0f}"``)."""
    return round(elo)


def _row_json(row: LevelRow) -> dict[str, Any]:
    """A level row as the catalog gives it: the table's row without the player spec."""
    return {key: value for key, value in row.to_json().items() if key != "setting"}


def build_catalog() -> dict[str, GameInfo]:
    """Every game of :data:`SERVICE_GAMES` with its level table."""
    return {
        name: GameInfo(name, label, get_game(name), level_table(name))
        for name, label in SERVICE_GAMES.items()
    }


NOT_SERVED = frozenset(PROGRAM_KINDS)
"""Kinds the service does not offer: they start another program on the server (Stockfish,
GNU Go) for each player built."""


def check_served(settings: Mapping[str, Any]) -> None:
    """:class:`BadValueError` (key ``settings.kind``) when ``settings`` asks for a kind the
    service does not offer (:data:`NOT_SERVED`)."""
    kind = settings.get("kind")
    if isinstance(kind, str) and kind in NOT_SERVED:
        raise BadValueError(
            f"player kind {kind!r} runs another program on the server and is not offered "
            "here; use it from the command line (sparring match)",
            "settings.kind",
        )


def kinds_json() -> list[dict[str, Any]]:
    """The player kinds with their help line and JSON Schema (kinds without one, and those
    not served, left out)."""
    out = []
    for kind, info in sorted(kinds().items()):
        if info.settings_class is None or kind in NOT_SERVED:
            continue
        try:
            schema = info.json_schema()
        except Exception:  # a plug-in kind without a schema is not offered
            continue
        out.append({"kind": kind, "help": info.help, "schema": schema})
    return out


HINT_SIMULATIONS = 100
"""The simulations of a hint's search in a game with a network (its default AI's)."""


def hint_settings(info: GameInfo) -> PlayerSettings:
    """The player whose search gives a hint: the game's default AI, its network searching
    :data:`HINT_SIMULATIONS` simulations; in a game without a network of that kind (Go
    19x19, chess: the default AI there plays random playouts) its strongest measured level,
    a fixed search of a few dozen simulations.  (Bounded in time by the server's AI time.)"""
    from sparring.nn.zoo import default_model

    if default_model(info.game.name) is None and info.table.strongest is not None:
        return resolve_level(info.game, Level.strongest())[0]
    return resolve_level(info.game, Level.strongest(simulations=HINT_SIMULATIONS))[0]


def opponent_for(info: GameInfo, level: Level | None) -> tuple[PlayerSettings, LevelReport]:
    """The AI of a request for ``level`` (None: the game's default AI), by the level
    resolver; its errors say what the game offers."""
    return resolve_level(info.game, level)


__all__ = [
    "ADAPTIVE_MODES",
    "HINT_SIMULATIONS",
    "SERVICE_GAMES",
    "GameInfo",
    "build_catalog",
    "check_served",
    "hint_settings",
    "kinds_json",
    "opponent_for",
    "whole_elo",
]
