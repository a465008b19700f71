"""Game records: readers of human games in Go SGF (:func:`read_sgf_games`) and chess PGN
(:func:`read_pgn_games`), and writers of SGF (:func:`write_sgf`), PGN (:func:`write_pgn`) and
plain move lists of any game (:func:`write_move_list`).

Both readers are generators that never stop at a broken record: it is reported as a
:class:`RecordError` (file, line, reason) and skipped.  Pass a list as ``errors=`` to collect
the reports; without one each report is issued as a :class:`RecordWarning`.  A path that is
missing or unreadable raises :class:`RecordFileError` (a :class:`~sparring.errors.SparringError`).
A path may name a file or a folder (its ``*.sgf`` / ``*.pgn`` files, in name order).
"""

from __future__ import annotations

from sparring.records.common import RecordError, RecordFileError, RecordWarning
from sparring.records.movelist import write_move_list
from sparring.records.pgn import ChessRecord, parse_pgn_games, read_pgn_games, write_pgn
from sparring.records.sgf import GoRecord, parse_sgf_games, read_sgf_games, write_sgf

__all__ = [
    "ChessRecord",
    "GoRecord",
    "RecordError",
    "RecordFileError",
    "RecordWarning",
    "parse_pgn_games",
    "parse_sgf_games",
    "read_pgn_games",
    "read_sgf_games",
    "write_move_list",
    "write_pgn",
    "write_sgf",
]
