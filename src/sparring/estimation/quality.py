"""Move quality in chess: each move's centipawn loss judged by Stockfish.

Human move matching (:mod:`sparring.estimation.match`) says how often a program plays *the*
human move; it does not say whether a program told to play at a rank plays *as well as* that
rank.  The centipawn loss of a move does: with Stockfish's evaluation ``E`` (centipawns, from
the side to move, searched to a fixed depth),

    ``loss(s, a) = max(0, E(s) - (-E(s')))``  with ``s'`` the position after ``a``,

clipped to :attr:`StockfishJudge.cap` on both evaluations (a mate counts as the cap), so one
move loses at most ``2 * cap``.  A checkmating move is worth ``+cap``, a move that ends the
game drawn ``0``.  The mean loss of the humans' own moves per rank band is the reference a
rank-conditioned program should follow (it rises as the rating falls); ``se-match
--cpl-depth D`` reports both.

Reproducible: Stockfish runs on one thread with a small hash table that is cleared before every
search (a new game for the engine), so the same position, move and depth give the same loss.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

import chess
import chess.engine
import numpy as np
import numpy.typing as npt

from sparring.errors import SparringError
from sparring.games.chess import Chess, action_to_move
from sparring.players.external import find_program


def find_stockfish() -> Path | None:
    """Stockfish on the PATH, or in Debian's ``/usr/games``; None when neither
    (:func:`sparring.players.external.find_program`)."""
    return find_program("stockfish")


@dataclass(frozen=True)
class LossSummary:
    """Mean centipawn loss per rank group, with what a 95% interval needs."""

    n: tuple[int, ...]
    mean: tuple[float, ...]
    sd: tuple[float, ...]
    """Sample standard deviation per rank (0 with one move)."""

    @classmethod
    def of(
        cls, losses: npt.NDArray[np.float64], rank: npt.NDArray[np.int64], ranks: int
    ) -> LossSummary:
        """Summarise per-position ``losses`` by the positions' rank groups."""
        n, mean, sd = [], [], []
        for r in range(ranks):
            x = losses[rank == r]
            n.append(int(x.size))
            mean.append(float(x.mean()) if x.size else float("nan"))
            sd.append(float(x.std(ddof=1)) if x.size > 1 else 0.0)
        return cls(tuple(n), tuple(mean), tuple(sd))

    def interval(self, r: int) -> tuple[float, float]:
        """Normal 95% interval of rank ``r``'s mean loss."""
        half = 1.96 * self.sd[r] / math.sqrt(self.n[r]) if self.n[r] else float("nan")
        return self.mean[r] - half, self.mean[r] + half

    def overall(self) -> float:
        """Mean loss over all positions."""
        total = sum(self.n)
        return sum(m * k for m, k in zip(self.mean, self.n, strict=True) if k) / total


@dataclass
class StockfishJudge:
    """Centipawn losses of chess moves by a Stockfish process (a context manager).

    ``depth``: Stockfish's search depth for every evaluation; ``cap``: the evaluation clip in
    centipawns (mates count as the cap).  Losses are cached by position text and move, so the
    same positions judged for several programs cost one search per distinct move.
    """

    engine_path: Path
    depth: int = 10
    cap: int = 1000
    _engine: chess.engine.SimpleEngine | None = field(default=None, init=False, repr=False)
    _scores: dict[str, float] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.depth < 1:
            raise SparringError(f"Stockfish depth must be >= 1, got {self.depth}")
        if self.cap < 1:
            raise SparringError(f"centipawn cap must be >= 1, got {self.cap}")

    def __enter__(self) -> StockfishJudge:
        try:
            self._engine = chess.engine.SimpleEngine.popen_uci(str(self.engine_path))
        except (OSError, chess.engine.EngineError) as exc:
            raise SparringError(f"cannot start Stockfish at {self.engine_path}: {exc}") from exc
        self._engine.configure({"Threads": 1, "Hash": 16})
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._engine is not None:
            self._engine.quit()
            self._engine = None

    def evaluation(self, board: chess.Board) -> float:
        """Stockfish's evaluation of ``board`` for the side to move, clipped to +-cap."""
        key = board.fen()
        if key in self._scores:
            return self._scores[key]
        if self._engine is None:
            raise SparringError("StockfishJudge: use it in a with-block (the engine is closed)")
        if board.is_checkmate():
            value = float(-self.cap)
        elif board.is_game_over(claim_draw=False):
            value = 0.0
        else:
            # a new ``game`` object makes python-chess send ucinewgame: the hash is cleared
            info = self._engine.analyse(board, chess.engine.Limit(depth=self.depth), game=object())
            score = info["score"].pov(board.turn).score(mate_score=10 * self.cap)
            assert score is not None
            value = float(np.clip(score, -self.cap, self.cap))
        self._scores[key] = value
        return value

    def loss(self, board: chess.Board, move: chess.Move) -> float:
        """Centipawn loss of ``move`` in ``board`` (see the module docstring)."""
        if move not in board.legal_moves:
            raise SparringError(f"illegal move {move.uci()} in {board.fen()}")
        after = board.copy(stack=False)
        after.push(move)
        return max(0.0, self.evaluation(board) + self.evaluation(after))

    def losses(self, states: list[object], moves: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
        """The loss of ``moves[i]`` (an action) in chess state ``states[i]``, for every ``i``."""
        rules = Chess()
        out = np.empty(len(states), dtype=np.float64)
        for i, (state, action) in enumerate(zip(states, moves.tolist(), strict=True)):
            board = rules.board(state)  # type: ignore[arg-type]
            out[i] = self.loss(board, action_to_move(int(action)))
        return out


__all__ = ["LossSummary", "StockfishJudge", "find_stockfish"]
