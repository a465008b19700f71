"""What the service offers: its games, their levels, and the opponent a request asks for.

Levels per game (read from the shipped files, never typed in): the calibrated Elo range of
the shipped network's calibration where the game has one (Connect4, 6x6 and 8x8 Othello:
the ``sa:elo=E`` player, the adaptive players), in Go 19x19 the range of the shipped GNU Go
scale (``sa-mcts:gnugo_elo=E``: an Elo where GNU Go 3.8 at level 1 is 1000,
:mod:`sparring.estimation.external_scale`), and the strength estimator's ranks in Go 19x19
and chess (SE-inf-MCTS, Chen et al. 2025).  Elsewhere the best available AI is MCTS1 (UCT).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sparring.errors import BadValueError, IncompatiblePlayerError
from sparring.estimation.external_scale import shipped_range
from sparring.estimation.human_like import (
    SAMCTSSettings,
    SEInfMCTSSettings,
    elo_band,
    game_ranks,
)
from sparring.games import get_game
from sparring.games.base import Game
from sparring.nn.zoo import default_model
from sparring.players.alphadda import AlphaDDA1Settings, FloorSettings
from sparring.players.cache import PlayerCache
from sparring.players.external import KINDS as PROGRAM_KINDS
from sparring.players.registry import kinds
from sparring.players.settings import (
    DSASettings,
    SASettings,
    default_ai,
)
from sparring.players.settings_base import PlayerSettings
from sparring.strength.target import calibration_path_for_model, strength_curve

SERVICE_GAMES: dict[str, str] = {
    "connect4": "Connect Four",
    "othello6": "Othello 6x6",
    "othello": "Othello 8x8",
    "go9": "Go 9x9",
    "go": "Go 19x19",
    "chess": "Chess",
}
"""The games the service offers (name -> label)."""

ADAPTIVE_MODES: dict[str, str] = {
    "bayes": "dsa",
    "intra": "dsa-intra",
    "alphadda1-floor": "alphadda1-floor",
}
"""Adaptive opponent -> the key its state is kept under in the profile (per game).  ``bayes``
uses the key of ``sparring play --adaptive`` (``dsa``), so the command line and the service
continue the same state."""


@dataclass(frozen=True)
class GameInfo:
    """One game of the catalog."""

    name: str
    label: str
    game: Game
    elo_range: tuple[float, float] | None
    """The shipped calibration's Elo range (its curve's ends), or None."""
    ranks: tuple[str, ...] | None
    elo_scale: str | None = None
    """What the Elo is measured against when it is not the game's baseline ladder (Go: GNU
    Go's scale); None: the ladder of the shipped network's calibration."""

    @property
    def adaptive(self) -> list[str]:
        """The adaptive opponents this game offers (those need a calibrated network)."""
        return list(ADAPTIVE_MODES) if self.elo_range is not None and not self.elo_scale else []

    def to_json(self) -> dict[str, Any]:
        """The catalog entry (see the service contract)."""
        g = self.game
        rows, cols = g.board_shape
        low_high = self.elo_range
        return {
            "name": self.name,
            "label": self.label,
            "sides": [g.side_names[0], g.side_names[1]],
            "board": {"kind": "chess" if g.name == "chess" else "grid", "rows": rows, "cols": cols},
            "levels": {
                "elo": None
                if low_high is None
                else {
                    "min": round(low_high[0], 1),
                    "max": round(low_high[1], 1),
                    "scale": self.elo_scale or "ladder",
                },
                "ranks": None if self.ranks is None else list(self.ranks),
                "adaptive": self.adaptive,
            },
            "default_elo": None if low_high is None else round((low_high[0] + low_high[1]) / 2),
        }


def _elo_range(game: Game, cache: PlayerCache) -> tuple[float, float] | None:
    model = default_model(game.name)
    if model is None:
        return None
    path = calibration_path_for_model(model)
    if path is None:
        return None
    curve = strength_curve(cache.calibration(path))
    return float(curve.low), float(curve.high)


GO_SCALE = "GNU Go"
"""``levels.elo.scale`` of Go 19x19: an Elo where GNU Go 3.8 at level 1 is 1000."""


def build_catalog() -> dict[str, GameInfo]:
    """Every game of :data:`SERVICE_GAMES` with its levels."""
    cache = PlayerCache()
    out: dict[str, GameInfo] = {}
    for name, label in SERVICE_GAMES.items():
        game = get_game(name)
        ranks = game_ranks(name) if name in ("go", "chess") else None
        if name == "go":
            scale = shipped_range("go")
            out[name] = GameInfo(name, label, game, scale, ranks, GO_SCALE if scale else None)
            continue
        out[name] = GameInfo(name, label, game, _elo_range(game, cache), ranks)
    return out


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


def default_opponent(info: GameInfo) -> PlayerSettings:
    """The game's best available AI: its shipped network, else MCTS1
    (:func:`~sparring.players.settings.default_ai`)."""
    return default_ai(info.name)


def elo_opponent(info: GameInfo, elo: float) -> PlayerSettings:
    """The AI at target ``elo``: ``sa:elo=E`` on the shipped network's calibration (clamped
    to its range, and the AI says so), in Go 19x19 ``sa-mcts:gnugo_elo=E`` on the shipped
    GNU Go scale (clamped likewise), SE-inf-MCTS at the Elo band in chess."""
    if info.name == "chess":
        return SEInfMCTSSettings(rank=elo_band(elo))
    if info.elo_scale == GO_SCALE:
        return SAMCTSSettings(gnugo_elo=float(elo))
    if info.elo_range is None:
        raise IncompatiblePlayerError(
            f"{info.name} has no calibrated network, so no target Elo; "
            + ("choose a rank" if info.ranks else "choose player settings"),
            "elo",
        )
    return SASettings(elo=float(elo))


def rank_opponent(info: GameInfo, rank: str) -> PlayerSettings:
    """SE-inf-MCTS at ``rank`` (Go 19x19, chess)."""
    if info.ranks is None:
        raise IncompatiblePlayerError(f"{info.name} has no ranks (Go 19x19 and chess do)", "rank")
    if rank not in info.ranks:
        raise BadValueError(f"{info.name} ranks are {', '.join(info.ranks)}; not {rank!r}", "rank")
    return SEInfMCTSSettings(rank=rank)


def adaptive_opponent(info: GameInfo, mode: str) -> tuple[PlayerSettings, str]:
    """The adaptive AI ``mode`` (:data:`ADAPTIVE_MODES`) and its profile key."""
    if not info.adaptive:
        raise IncompatiblePlayerError(
            f"{info.name} has no calibrated network, so no adaptive opponent", "kind"
        )
    if mode not in ADAPTIVE_MODES:
        raise BadValueError(f"adaptive kinds are {', '.join(ADAPTIVE_MODES)}; not {mode!r}", "kind")
    settings: PlayerSettings
    if mode == "bayes":
        settings = DSASettings(mode="bayes")
    elif mode == "intra":
        settings = DSASettings(mode="intra")
    else:
        settings = AlphaDDA1Settings(floor=FloorSettings())
    return settings, ADAPTIVE_MODES[mode]


__all__ = [
    "ADAPTIVE_MODES",
    "GO_SCALE",
    "SERVICE_GAMES",
    "GameInfo",
    "adaptive_opponent",
    "build_catalog",
    "default_opponent",
    "elo_opponent",
    "kinds_json",
    "rank_opponent",
]
