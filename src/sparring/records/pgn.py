"""Chess game records in PGN, parsed with python-chess.

Only the main line is read (variations and comments such as Lichess's ``%clk``/``%eval`` are
skipped).  A game is refused (reported and skipped, never raised) when python-chess reports
an error in it (an illegal or unreadable move, a bad ``FEN`` tag, an unknown variant) or when
it is not standard chess, or when its move text is cut off (no game termination marker
``1-0``, ``0-1``, ``1/2-1/2`` or ``*`` after the moves, as in a truncated file): such a game's
moves would otherwise be scored with its ``Result`` tag.  Elo tags that are not numbers
(``?``) read as None.  A file with a NUL byte near its start is reported once as binary data.

:func:`write_pgn` writes one game (python-chess's exporter) that :func:`parse_pgn_games` reads
back with the same moves and result.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import chess
import chess.pgn
import numpy as np
import numpy.typing as npt

from sparring.errors import UnsupportedGameError
from sparring.games.base import Game, Outcome, State
from sparring.games.chess import Chess, action_to_move, action_to_uci, move_to_action
from sparring.records.common import RecordError, read_bytes, record_files, report
from sparring.records.sgf import binary_reason


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
        self.terminated = False

    def begin_game(self) -> None:
        self.start_line = self.counter.line

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.headers[tagname] = tagvalue

    def begin_variation(self) -> chess.pgn.SkipType:
        return chess.pgn.SKIP

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        self.moves.append(move)

    def visit_result(self, result: str) -> None:
        self.terminated = True

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
    if not c.terminated:
        raise ValueError(
            f"the game is cut off after {len(c.moves)} move(s): no termination marker "
            "(1-0, 0-1, 1/2-1/2 or *) ends its move text"
        )
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
    binary = binary_reason(handle.read(4096), "PGN")
    if binary is not None:
        report(RecordError(source, 1, binary), errors)
        return
    handle.seek(0)
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
            raw = read_bytes(f, "PGN")
            binary = binary_reason(raw, "PGN")  # offsets in bytes, before decoding
            if binary is not None:
                report(RecordError(str(f), 1, binary), errors)
                continue
            yield from _games(io.StringIO(raw.decode("utf-8", "replace")), str(f), errors)

    return games()


# ---- writing --------------------------------------------------------------------------------
def pgn_result(outcome: Outcome) -> str:
    """The PGN result of an outcome: ``1-0``, ``0-1``, ``1/2-1/2`` or ``*`` (not finished)."""
    return {
        Outcome.FIRST_WINS: "1-0",
        Outcome.SECOND_WINS: "0-1",
        Outcome.DRAW: "1/2-1/2",
        Outcome.ONGOING: "*",
    }[outcome]


def write_pgn(
    game: Game,
    moves: Sequence[int],
    *,
    start: State | None = None,
    names: Sequence[str] = ("", ""),
    outcome: Outcome = Outcome.ONGOING,
    resigned: int | None = None,
    headers: Mapping[str, str] | None = None,
) -> str:
    """One chess game as PGN text (moves in SAN).

    ``moves`` are :class:`~sparring.games.chess.Chess` actions played from ``start`` (default
    the initial position; another start is written with ``SetUp``/``FEN`` tags), ``names``
    are White's and Black's, ``outcome`` gives ``Result`` (``*`` while not finished), a
    resignation adds the comment "White resigns" / "Black resigns" after the last move, and
    ``headers`` add or replace tags.  UnsupportedGameError for a game other than chess.
    """
    if not isinstance(game, Chess):
        raise UnsupportedGameError(f"PGN records are written for chess only, not {game.name}")
    board = game.board(game.initial_state() if start is None else start)
    record = chess.pgn.Game()
    record.headers["Event"] = "sparring game"
    for tag, name in zip(("White", "Black"), names, strict=False):
        if name:
            record.headers[tag] = name
    if board.fen() != chess.STARTING_FEN:
        record.setup(board)
    node: chess.pgn.GameNode = record
    for move in moves:
        node = node.add_variation(action_to_move(int(move)))
    result = pgn_result(outcome)
    record.headers["Result"] = result
    if resigned is not None:
        node.comment = f"{'White' if resigned == 0 else 'Black'} resigns"
        record.headers["Termination"] = "normal"
    for tag, value in (headers or {}).items():
        record.headers[tag] = value
    exporter = chess.pgn.StringExporter(headers=True, variations=True, comments=True)
    return record.accept(exporter) + "\n"
