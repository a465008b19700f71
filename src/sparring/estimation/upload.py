"""A player's own games as the strength estimator reads them: record files checked strictly,
games counted once by their content, and the player's name found.

* :func:`game_key` is a game's content: the game (Go board size and setup stones, chess start
  position), both players' names and the moves.  :func:`unique_games` keeps the first game of
  each key, so a file copied under another name, or a game exported twice, is counted once
  (:func:`~sparring.estimation.predict.estimate_player` applies it to every estimate).
* :func:`parse_uploads` reads uploaded SGF (Go 19x19) or PGN (chess) texts: any broken record,
  a board of another size or a mix of Go and chess is refused with the file and line
  (:class:`~sparring.errors.BadValueError`), and nothing of the upload is used.
* :func:`find_player` takes the name given (compared without case), or the one name that is a
  player of every game.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from sparring.errors import BadValueError
from sparring.estimation.data import record_players
from sparring.records import (
    ChessRecord,
    GoRecord,
    RecordError,
    parse_pgn_games,
    parse_sgf_games,
)

Record = GoRecord | ChessRecord

MAX_UPLOAD_GAMES = 200
"""The most games one upload may hold (the request's size bounds it too)."""
GAME_OF_SUFFIX = {".sgf": "go", ".pgn": "chess"}


def game_key(record: Record) -> str:
    """A game's content as a hex digest: the game (Go: board size, setup stones and the side
    that starts; chess: the start position), both players' names (without case or the spaces
    around them) and the moves.  Headers such as dates, events and comments are left out, so
    a copy of a game with other headers has the same key."""
    if isinstance(record, GoRecord):
        setup: list[object] = [
            "go",
            record.size,
            sorted(record.setup_black),
            sorted(record.setup_white),
            record.first_player,
        ]
        names = (record.black_name, record.white_name)
    else:
        setup = ["chess", (record.start_fen or "").strip()]
        names = (record.white_name, record.black_name)
    content = {
        "game": setup,
        "players": [n.strip().casefold() for n in names],
        "moves": [int(m) for m in record.moves],
    }
    return hashlib.sha256(json.dumps(content, separators=(",", ":")).encode()).hexdigest()


@dataclass(frozen=True)
class Duplicate:
    """A game whose content was seen before (:func:`game_key`): it is not counted again."""

    source: str
    """Where the repeat is (``file:line``)."""
    same_as: str
    """Where the game was first read (``file:line``)."""

    def __str__(self) -> str:
        return f"{self.source} is {self.same_as}"


def source_of(record: Record) -> str:
    """``file:line`` of a record."""
    return f"{record.path}:{record.line}"


def unique_games(records: Sequence[Record]) -> tuple[list[Record], list[Duplicate]]:
    """The records with every repeat of a game's content (:func:`game_key`) left out, in their
    order, and the repeats left out."""
    first: dict[str, Record] = {}
    kept: list[Record] = []
    repeats: list[Duplicate] = []
    for rec in records:
        key = game_key(rec)
        seen = first.get(key)
        if seen is None:
            first[key] = rec
            kept.append(rec)
        else:
            repeats.append(Duplicate(source_of(rec), source_of(seen)))
    return kept, repeats


def describe_duplicates(repeats: Sequence[Duplicate], shown: int = 3) -> str:
    """One line on the repeated games counted once (the first ``shown`` named)."""
    named = "; ".join(str(d) for d in repeats[:shown])
    more = f"; and {len(repeats) - shown} more" if len(repeats) > shown else ""
    return f"{len(repeats)} repeated game(s) counted once ({named}{more})"


@dataclass(frozen=True)
class UploadedFile:
    """One uploaded record file: the name it was sent under and its text."""

    name: str
    text: str


@dataclass
class Uploaded:
    """The games of an upload, each counted once."""

    game: str
    """``go`` or ``chess``."""
    records: list[Record]
    """Every game, repeats left out, in the order of the files."""
    duplicates: list[Duplicate] = field(default_factory=list)
    games_per_file: dict[str, int] = field(default_factory=dict)
    """Games read from each file (repeats included)."""


def _file_game(upload: UploadedFile) -> str:
    """``go`` or ``chess`` for a file, by its suffix or else by its first character."""
    name = upload.name.strip().lower()
    for suffix, game in GAME_OF_SUFFIX.items():
        if name.endswith(suffix):
            return game
    start = upload.text.lstrip("\ufeff \t\r\n")[:1]
    if start == "(":
        return "go"
    if start in ("[", "1"):
        return "chess"
    raise BadValueError(
        f"{upload.name}:1: not an SGF (Go) or PGN (chess) file: name it .sgf or .pgn",
        key="files",
    )


def parse_uploads(files: Sequence[UploadedFile], max_games: int = MAX_UPLOAD_GAMES) -> Uploaded:
    """The games of uploaded record texts (see the module docstring).

    Raises :class:`~sparring.errors.BadValueError` (key ``files``) naming the file and line of
    the first broken record; a file of no game, Go on a board other than 19x19, a mix of Go and
    chess files, two files of one name or more than ``max_games`` games are refused too."""
    if not files:
        raise BadValueError("send at least one SGF (Go) or PGN (chess) file", key="files")
    names = [f.name for f in files]
    repeated_names = sorted({n for n in names if names.count(n) > 1})
    if repeated_names:
        raise BadValueError(
            f"two files are named {repeated_names[0]!r}: give each file its own name", key="files"
        )
    kinds = {f.name: _file_game(f) for f in files}
    if len(set(kinds.values())) > 1:
        go = next(n for n, k in kinds.items() if k == "go")
        chess = next(n for n, k in kinds.items() if k == "chess")
        raise BadValueError(
            f"give Go (SGF) or chess (PGN) games, not both ({go} is Go, {chess} is chess)",
            key="files",
        )
    game = next(iter(kinds.values()))
    records: list[Record] = []
    per_file: dict[str, int] = {}
    for upload in files:
        errors: list[RecordError] = []
        found: list[Record] = list(
            parse_sgf_games(upload.text, upload.name, errors)
            if game == "go"
            else parse_pgn_games(upload.text, upload.name, errors)
        )
        if errors:
            more = f" (and {len(errors) - 1} more broken record(s))" if len(errors) > 1 else ""
            raise BadValueError(f"{errors[0]}{more}; nothing of this upload was used", key="files")
        if not found:
            raise BadValueError(f"{upload.name}:1: no game in this file", key="files")
        for rec in found:
            if isinstance(rec, GoRecord) and rec.size != 19:
                raise BadValueError(
                    f"{source_of(rec)}: a {rec.size}x{rec.size} game; the estimator reads "
                    "19x19 Go only",
                    key="files",
                )
        per_file[upload.name] = len(found)
        records.extend(found)
        if len(records) > max_games:
            raise BadValueError(
                f"more than {max_games} games in one upload: send fewer at a time", key="files"
            )
    kept, repeats = unique_games(records)
    return Uploaded(game, kept, repeats, per_file)


def find_player(records: Sequence[Record], given: str | None = None) -> tuple[str, str]:
    """The player whose games these are, and how it was found: ``given`` (the name as written
    in the first game that has it; compared without case) or ``in every game`` (the one name
    that is a player of every game).  :class:`~sparring.errors.BadValueError` (key
    ``player``) naming the most frequent names when neither finds one."""
    counts: dict[str, int] = {}
    spelled: dict[str, str] = {}
    for rec in records:
        for name in {n.strip() for n in record_players(rec) if n.strip()}:
            key = name.casefold()
            counts[key] = counts.get(key, 0) + 1
            spelled.setdefault(key, name)
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
    seen = ", ".join(f"{spelled[k]!r} ({n})" for k, n in top) or "none"
    if given is not None and given.strip():
        key = given.strip().casefold()
        if key not in counts:
            raise BadValueError(
                f"player {given.strip()!r} is in none of the {len(records)} game(s); names "
                f"there (games): {seen}",
                key="player",
            )
        return spelled[key], "given"
    everywhere = [k for k, n in counts.items() if n == len(records)]
    if len(everywhere) == 1:
        return spelled[everywhere[0]], "in every game"
    why = "no name is in every game" if not everywhere else "more than one name is in every game"
    raise BadValueError(
        f"name the player whose games these are: {why}; names there (games): {seen}",
        key="player",
    )


__all__ = [
    "MAX_UPLOAD_GAMES",
    "Duplicate",
    "Uploaded",
    "UploadedFile",
    "describe_duplicates",
    "find_player",
    "game_key",
    "parse_uploads",
    "source_of",
    "unique_games",
]
