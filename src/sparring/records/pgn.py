"""Chess game records in PGN, parsed with python-chess.

Only the main line is read (variations and comments such as Lichess's ``%clk``/``%eval`` are
skipped).  A game is refused (reported and skipped, never raised) when python-chess reports
an error in it (an illegal or unreadable move, a bad ``FEN`` tag, an unknown variant) or when
it is not standard chess.  Elo tags that are not numbers (``?``) read as None.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import chess
import chess.pgn
import numpy as np
import numpy.typing as npt

from sparring.games.base import State
from sparring.games.chess import Chess, action_to_uci, move_to_action
from sparring.records.common import RecordError, read_bytes, record_files, report


@dataclass(frozen=True, eq=False)
class ChessRecord:
    """One chess game read from a PGN file."""

    path: str
    """The file it came from."""
    line: int
    """The line where the game starts (1-based)."""
    white_name: str
    """``White`` tag ("" when absent)."""
    black_name: str
    """``Black`` tag."""
    white_elo: int | None
    """``WhiteElo`` (None when absent or not a number)."""
    black_elo: int | None
    """``BlackElo``."""
    result: str
    """``Result``: ``1-0``, ``0-1``, ``1/2-1/2`` or ``*``."""
    winner: int | None
    """0 White, 1 Black, None for a draw or no result."""
    moves: npt.NDArray[np.int64]
    """The main line as :class:`~sparring.games.chess.Chess` actions."""
    start_fen: str | None = None
    """The ``FEN`` tag when the game does not start from the initial position."""
    headers: dict[str, str] = field(default_factory=dict)
    """Every tag as read."""

    def uci_moves(self) -> list[str]:
        """The moves in UCI."""
        return [action_to_uci(int(m)) for m in self.moves]

    def initial_state(self, game: Chess) -> State:
        """The position before the first move."""
        if self.start_fen is None:
            return game.initial_state()
        return game.parse_position(self.start_fen)


class _LineCounter:
    """A text handle that counts the lines python-chess reads."""

    def __init__(self, handle: TextIO) -> None:
        self.handle = handle
        self.line = 0

    def readline(self) -> str:
        text = self.handle.readline()
        if text:
            self.line += 1
        return text


class _Collector(chess.pgn.BaseVisitor["_Collector"]):
    """Collects tags, main-line moves and the first error of one game."""

    def __init__(self, counter: _LineCounter) -> None:
        self.counter = counter
        self.start_line = 0
        self.headers: dict[str, str] = {}
        self.moves: list[chess.Move] = []
        self.error: str | None = None

    def begin_game(self) -> None:
        self.start_line = self.counter.line

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.headers[tagname] = tagvalue

    def begin_variation(self) -> chess.pgn.SkipType:
        return chess.pgn.SKIP

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        self.moves.append(move)

    def handle_error(self, error: Exception) -> None:
        if self.error is None:
            self.error = str(error) or type(error).__name__

    def result(self) -> _Collector:
        return self


def _elo(text: str | None) -> int | None:
    if text is None:
        return None
    t = text.strip()
    return int(t) if t.isdigit() else None


def _winner(result: str) -> int | None:
    return 0 if result == "1-0" else 1 if result == "0-1" else None


def _record(c: _Collector, source: str) -> ChessRecord:
    if c.error is not None:
        raise ValueError(c.error)
    variant = c.headers.get("Variant", "Standard").strip().lower()
    if variant not in ("", "standard", "chess", "from position"):
        raise ValueError(f"variant {c.headers['Variant']!r} is not standard chess")
    try:
        actions = [move_to_action(m) for m in c.moves]
    except ValueError as err:
        raise ValueError(str(err)) from None
    result = c.headers.get("Result", "*").strip()
    return ChessRecord(
        path=source,
        line=c.start_line,
        white_name=c.headers.get("White", ""),
        black_name=c.headers.get("Black", ""),
        white_elo=_elo(c.headers.get("WhiteElo")),
        black_elo=_elo(c.headers.get("BlackElo")),
        result=result,
        winner=_winner(result),
        moves=np.array(actions, dtype=np.int64),
        start_fen=c.headers.get("FEN"),
        headers=dict(c.headers),
    )


def _games(handle: TextIO, source: str, errors: list[RecordError] | None) -> Iterator[ChessRecord]:
    counter = _LineCounter(handle)
    while True:
        before = counter.line
        try:
            collected = chess.pgn.read_game(
                counter,  # type: ignore[call-overload]
                Visitor=lambda: _Collector(counter),
            )
        except Exception as err:  # python-chess should not raise; never let one game stop a run
            report(RecordError(source, before + 1, f"unreadable PGN: {err}"), errors)
            if counter.line == before:
                return
            continue
        if collected is None:
            return
        if not collected.headers and not collected.moves and collected.error is None:
            continue
        try:
            yield _record(collected, source)
        except ValueError as err:
            report(RecordError(source, collected.start_line, str(err)), errors)


def parse_pgn_games(
    text: str, source: str = "<string>", errors: list[RecordError] | None = None
) -> Iterator[ChessRecord]:
    """The chess games of PGN text; broken ones are reported with ``source`` and their line
    and skipped."""
    return _games(io.StringIO(text), source, errors)


def read_pgn_games(
    path: str | Path, errors: list[RecordError] | None = None
) -> Iterator[ChessRecord]:
    """The chess games of a PGN file, or of every ``*.pgn`` file of a folder in name order.

    Broken games are reported (appended to ``errors``, or warned as
    :class:`~sparring.records.RecordWarning` when ``errors`` is None) and skipped.  A missing
    path raises :class:`~sparring.records.RecordFileError` at once (an unreadable file when
    its turn comes).  Files are read as UTF-8 (a BOM is ignored; bad bytes are replaced).
    """
    files = record_files(path, ".pgn")

    def games() -> Iterator[ChessRecord]:
        for f in files:
            text = read_bytes(f, "PGN").decode("utf-8", "replace")
            yield from _games(io.StringIO(text), str(f), errors)

    return games()
