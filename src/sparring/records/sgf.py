"""Go game records in SGF, parsed with sgfmill.

Files may hold one whole game per line (the Fox data in ``shared/data/strength/go``) or
ordinary multi-line SGF collections.  The file is cut into game trees by a bracket-aware
scanner; a new line that opens a game with a root property (``(;GM[``, ``(;FF[`` or
``(;SZ[``) while the previous game is still open ends that game as *unterminated*, so one
truncated line never swallows the games after it.  Each tree is then parsed by sgfmill.

Only the main line is read.  A record is refused (reported and skipped, never raised) when
it does not parse, is not Go (``GM`` other than 1), has a board size above 25, has setup
stones after the root node, has a node with both a Black and a White move, has moves whose
colours do not alternate, or (``check_legal=True``, the default) has a move that is illegal
under :class:`~sparring.games.go.Go`'s rules.

Writing: :func:`write_sgf` writes one game (setup stones for a start position other than the
empty board, the players' names, komi, the moves and the result: ``B+R``/``W+R`` for a
resignation, ``B+3.5``/``W+0.5`` for the area score, ``0`` for a draw, no ``RE`` for a game not
finished) that :func:`parse_sgf_games` reads back with the same moves and result.

Komi: the Fox server stores it multiplied by 100 (``KM[650]`` is 6.5) and, under Chinese
rules, in stones (``KM[375]``: 3.75 stones, 7.5 points).  :attr:`GoRecord.komi` undoes both
for values of 50 and above; :attr:`GoRecord.komi_raw` keeps the text as stored.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt
from sgfmill import sgf, sgf_grammar

from sparring.errors import MoveParseError, UnsupportedGameError
from sparring.games.base import Game, Outcome, State
from sparring.games.go import MAX_SIZE, Go, move_to_gtp, sgf_to_move
from sparring.records.common import RecordError, read_bytes, record_files, report
from sparring.version import __version__


@dataclass(frozen=True, eq=False)
class GoRecord:
    """One Go game read from an SGF file."""

    path: str
    """The file it came from."""
    line: int
    """The line where the game starts (1-based)."""
    size: int
    black_name: str
    """``PB`` ("" when absent)."""
    white_name: str
    """``PW``."""
    black_rank: str
    """``BR`` as stored, e.g. ``"3k"``, ``"9d"`` ("" when absent)."""
    white_rank: str
    """``WR``."""
    handicap: int
    """``HA`` (0 when absent)."""
    komi: float
    """Komi in points (see the module docstring for the Fox conventions)."""
    komi_raw: str
    """``KM`` as stored."""
    result: str
    """``RE`` as stored, e.g. ``"B+R"``, ``"W+2.5"``, ``"draw"``."""
    winner: int | None
    """0 Black, 1 White, None for a draw or no result."""
    moves: npt.NDArray[np.int64]
    """The main line as :class:`~sparring.games.go.Go` actions (pass = size*size)."""
    first_player: int = 0
    """Who plays the first move: 0 Black, 1 White (``PL`` or the first move's colour)."""
    setup_black: tuple[int, ...] = ()
    """Black stones placed before the first move (``AB``), as actions."""
    setup_white: tuple[int, ...] = ()
    """White stones placed before the first move (``AW``)."""
    properties: dict[str, str] = field(default_factory=dict)
    """Every root property's first value as raw text (escapes kept)."""

    def initial_state(self, game: Go) -> State:
        """The position before the first move (setup stones, player to move)."""
        return game.setup(self.setup_black, self.setup_white, self.first_player)

    def game(self) -> Go:
        """A :class:`Go` of this record's board size and komi (rounded to half points)."""
        return Go(self.size, komi=round(self.komi * 2) / 2)


# ---- splitting a file into game trees ----------------------------------------------------
_TOKEN = re.compile(rb"[()\[]")
_VALUE_REST = re.compile(rb"(?:[^\]\\]|\\.)*\]", re.S)
_SPACE = re.compile(rb"\s*")
_VALUE = re.compile(rb"\[(?:[^\]\\]|\\.)*\]", re.S)
_PARENS = re.compile(rb"[()]")
_ROOT_PROPERTY = re.compile(rb"(?<![A-Za-z])(?:GM|FF|SZ)\[")


def _opens_game(line: bytes) -> bool:
    s = line.lstrip()
    if not s.startswith(b"(;"):
        return False
    return bool(_ROOT_PROPERTY.search(s[2:].split(b";", 1)[0]))


def _whole_game_line(line: bytes) -> bytes | None:
    """``line`` stripped when it is exactly one whole game tree, else None (fast path)."""
    text = line.strip()
    if not text.startswith(b"(") or not text.endswith(b")"):
        return None
    bare = _VALUE.sub(b"", text)
    if b"[" in bare or b"]" in bare:
        return None
    depth = 0
    parens = _PARENS.findall(bare)
    for i, ch in enumerate(parens):
        depth += 1 if ch == b"(" else -1
        if depth == 0 and i != len(parens) - 1:
            return None
    return text if depth == 0 else None


def split_game_trees(data: bytes) -> Iterator[tuple[int, bytes | None, str]]:
    """Cut SGF text into game trees: ``(line, tree, "")`` for each, ``(line, None, reason)``
    for text that is not one."""
    lines = data.split(b"\n")
    buf: list[bytes] = []
    start_line = 0
    depth = 0
    in_value = False
    for number, line in enumerate(lines, 1):
        if (depth > 0 or in_value) and _opens_game(line):
            yield start_line, None, "unterminated game tree (no closing ')')"
            buf, depth, in_value = [], 0, False
        if depth == 0 and not in_value:
            whole = _whole_game_line(line)
            if whole is not None:
                yield number, whole, ""
                continue
        seg = 0  # start of the part of this line that belongs to the open game
        pos = 0
        end = len(line)
        while pos < end:
            if in_value:
                m = _VALUE_REST.match(line, pos)
                if m is None:
                    pos = end
                    break
                pos = m.end()
                in_value = False
                continue
            if depth == 0:
                pos = _SPACE.match(line, pos).end()  # type: ignore[union-attr]
                if pos >= end:
                    break
                if line[pos] != ord("("):
                    snippet = line[pos : pos + 30].decode("utf-8", "replace")
                    yield number, None, f"text outside a game tree: {snippet!r}"
                    pos = end
                    break
                start_line, seg, depth, buf = number, pos, 1, []
                pos += 1
                continue
            m = _TOKEN.search(line, pos)
            if m is None:
                pos = end
                break
            ch = m.group()
            pos = m.end()
            if ch == b"[":
                in_value = True
            elif ch == b"(":
                depth += 1
            else:
                depth -= 1
                if depth == 0:
                    buf.append(line[seg:pos])
                    yield start_line, b"\n".join(buf), ""
                    buf = []
        if depth > 0 or in_value:
            buf.append(line[seg:])
    if depth > 0 or in_value:
        yield start_line, None, "unterminated game tree (no closing ')' before the end)"


# ---- interpreting one tree ------------------------------------------------------------------
class _Refused(Exception):
    """A record that cannot be used; the message is the reason."""


def _text(root: sgf.Tree_node, ident: str) -> str:
    if not root.has_property(ident):
        return ""
    try:
        value = root.get(ident)
    except (ValueError, LookupError):
        return root.get_raw(ident).decode("utf-8", "replace")
    return str(value)


def _normalised_komi(raw: str, rules: str) -> float:
    try:
        komi = float(raw) if raw else 0.0
    except ValueError:
        raise _Refused(f"bad komi KM[{raw}]") from None
    if abs(komi) >= 50:  # Fox stores komi x 100
        komi /= 100.0
        if rules.strip().lower() == "chinese":  # ... and Chinese komi in stones
            komi *= 2.0
    return komi


def _winner(result: str) -> int | None:
    r = result.strip().upper()
    if r.startswith("B+"):
        return 0
    if r.startswith("W+"):
        return 1
    return None


def _points(values: list[bytes], size: int, ident: str) -> tuple[int, ...]:
    out: list[int] = []
    for raw in values:
        text = raw.decode("ascii", "replace")
        if ":" in text:  # compressed rectangle "aa:cc"
            a, b = text.split(":", 1)
            p, q = sgf_to_move(a, size), sgf_to_move(b, size)
            if p >= size * size or q >= size * size:
                raise _Refused(f"bad point list {ident}[{text}]")
            (r0, c0), (r1, c1) = divmod(p, size), divmod(q, size)
            for r in range(min(r0, r1), max(r0, r1) + 1):
                for c in range(min(c0, c1), max(c0, c1) + 1):
                    out.append(r * size + c)
        else:
            p = sgf_to_move(text, size)
            if p >= size * size:
                raise _Refused(f"bad setup point {ident}[{text}]")
            out.append(p)
    return tuple(out)


def _record(
    tree: bytes, source: str, line: int, games: dict[int, Go], check_legal: bool
) -> GoRecord:
    try:
        coarse = sgf_grammar.parse_sgf_game(tree)
        game = sgf.Sgf_game.from_coarse_game_tree(coarse)
    except ValueError as err:
        raise _Refused(f"SGF syntax: {err}") from None
    root_props = coarse.sequence[0]
    gm = root_props.get("GM", [b"1"])[0].strip()
    if gm != b"1":
        raise _Refused(f"not a Go game (GM[{gm.decode('ascii', 'replace')}])")
    size = game.get_size()
    if not 2 <= size <= MAX_SIZE:
        raise _Refused(f"board size {size} is not supported (2..{MAX_SIZE})")
    root = game.get_root()

    nodes = list(coarse.sequence)
    t = coarse
    while t.children:
        t = t.children[0]
        nodes.extend(t.sequence)
    setup_black = _points(root_props.get("AB", []), size, "AB")
    setup_white = _points(root_props.get("AW", []), size, "AW")
    moves: list[int] = []
    colours: list[int] = []
    for i, props in enumerate(nodes):
        if i > 0 and ("AB" in props or "AW" in props or "AE" in props):
            raise _Refused(f"setup stones in node {i} (after the root) are not supported")
        has_b, has_w = "B" in props, "W" in props
        if has_b and has_w:
            raise _Refused(f"node {i} holds both a Black and a White move")
        if not (has_b or has_w):
            continue
        colour = 0 if has_b else 1
        raw = props["B" if has_b else "W"][0].decode("ascii", "replace")
        try:
            moves.append(sgf_to_move(raw, size))
        except MoveParseError:
            raise _Refused(f"move {len(moves) + 1}: bad point {'BW'[colour]}[{raw}]") from None
        colours.append(colour)

    pl = root_props.get("PL", [b""])[0].strip().upper()
    if colours:
        first = colours[0]
    elif pl in (b"B", b"W"):
        first = 0 if pl == b"B" else 1
    else:
        first = 1 if setup_black and not setup_white else 0
    for k, c in enumerate(colours):
        if c != (first + k) % 2:
            raise _Refused(
                f"move {k + 1} is by {'Black' if c == 0 else 'White'} but the colours must "
                "alternate"
            )
    handicap_text = _text(root, "HA")
    try:
        handicap = int(handicap_text) if handicap_text.strip() else 0
    except ValueError:
        raise _Refused(f"bad handicap HA[{handicap_text}]") from None
    komi_raw = root_props.get("KM", [b""])[0].decode("ascii", "replace").strip()
    rules = _text(root, "RU")
    result = _text(root, "RE")
    move_array = np.array(moves, dtype=np.int64)

    go = games.get(size)
    if go is None:
        go = games[size] = Go(size)
    if check_legal:
        try:
            start = go.setup(setup_black, setup_white, first)
        except ValueError as err:
            raise _Refused(str(err)) from None
        bad = go.first_illegal(move_array, start)
        if bad >= 0:
            raise _Refused(
                f"move {bad + 1} ({'BW'[(first + bad) % 2]} {move_to_gtp(moves[bad], size)}) "
                "is illegal"
            )
    return GoRecord(
        path=source,
        line=line,
        size=size,
        black_name=_text(root, "PB"),
        white_name=_text(root, "PW"),
        black_rank=_text(root, "BR").strip(),
        white_rank=_text(root, "WR").strip(),
        handicap=handicap,
        komi=_normalised_komi(komi_raw, rules),
        komi_raw=komi_raw,
        result=result,
        winner=_winner(result),
        moves=move_array,
        first_player=first,
        setup_black=setup_black,
        setup_white=setup_white,
        properties={k: v[0].decode("utf-8", "replace") for k, v in root_props.items() if v},
    )


_NUL_SAMPLE = 4096
"""How many leading bytes of a file are checked for binary data."""


def binary_reason(data: bytes | str, kind: str) -> str | None:
    """Why ``data`` is not a text record (a NUL byte or character near the start, as in an
    image or a compressed file), or None when it may be one."""
    if isinstance(data, bytes):
        nul = data.find(b"\0", 0, _NUL_SAMPLE)
    else:
        nul = data.find("\0", 0, _NUL_SAMPLE)
    if nul < 0:
        return None
    return f"binary data, not {kind} text (a NUL byte at offset {nul})"


def parse_sgf_games(
    data: bytes | str,
    source: str = "<string>",
    errors: list[RecordError] | None = None,
    check_legal: bool = True,
) -> Iterator[GoRecord]:
    """The Go games of SGF text (see the module docstring); broken ones are reported with
    ``source`` and their line and skipped."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if raw.startswith(b"\xef\xbb\xbf"):  # UTF-8 byte-order mark
        raw = raw[3:]
    binary = binary_reason(raw, "SGF")
    if binary is not None:  # one report for the file, not one (full of raw bytes) per line
        report(RecordError(source, 1, binary), errors)
        return
    games: dict[int, Go] = {}
    for line, tree, reason in split_game_trees(raw):
        if tree is None:
            report(RecordError(source, line, reason), errors)
            continue
        try:
            yield _record(tree, source, line, games, check_legal)
        except _Refused as err:
            report(RecordError(source, line, str(err)), errors)


def read_sgf_games(
    path: str | Path,
    errors: list[RecordError] | None = None,
    check_legal: bool = True,
) -> Iterator[GoRecord]:
    """The Go games of an SGF file, or of every ``*.sgf`` file of a folder in name order.

    Broken records are reported (appended to ``errors``, or warned as
    :class:`~sparring.records.RecordWarning` when ``errors`` is None) and skipped.  A missing
    path raises :class:`~sparring.records.RecordFileError` at once (an unreadable file when
    its turn comes).
    """
    files = record_files(path, ".sgf")

    def games() -> Iterator[GoRecord]:
        for f in files:
            yield from parse_sgf_games(read_bytes(f, "SGF"), str(f), errors, check_legal)

    return games()


# ---- writing --------------------------------------------------------------------------------
def sgf_result(go: Go, final: State, outcome: Outcome, resigned: int | None = None) -> str:
    """The ``RE`` text of a game: ``B+R``/``W+R`` (resignation), ``B+m``/``W+m`` (area score
    margin ``m`` after komi), ``0`` (draw), ``""`` (not finished)."""
    if outcome is Outcome.ONGOING:
        return ""
    if resigned is not None:
        return "W+R" if resigned == 0 else "B+R"
    if outcome is Outcome.DRAW:
        return "0"
    margin = go.score_margin(final)
    return f"B+{margin:g}" if outcome is Outcome.FIRST_WINS else f"W+{-margin:g}"


def write_sgf(
    game: Game,
    moves: Sequence[int],
    *,
    start: State | None = None,
    names: Sequence[str] = ("", ""),
    outcome: Outcome = Outcome.ONGOING,
    final: State | None = None,
    resigned: int | None = None,
    properties: Mapping[str, str] | None = None,
    movers: Sequence[int] | None = None,
    handicap: int = 0,
) -> str:
    """One Go game as SGF text (FF[4], written by sgfmill).

    ``moves`` are :class:`~sparring.games.go.Go` actions played from ``start`` (default the
    empty board; its stones become ``AB``/``AW`` setup and White to move ``PL[W]``; ko and
    pass counts are not kept), ``names`` are Black's and White's, ``outcome``, ``final`` (the
    last position, for the area score; replayed when None) and ``resigned`` give ``RE`` (see
    :func:`sgf_result`), and ``properties`` add or replace root properties (``GN``, ``DT``,
    ...).  ``movers`` give the colour of each move (0 Black, 1 White) where a side moved out
    of turn; by default the colours alternate from ``start``'s side to move.  ``handicap``
    (the number of handicap stones in ``start``) is written as ``HA`` when not 0.
    UnsupportedGameError for a game other than Go.
    """
    if not isinstance(game, Go):
        raise UnsupportedGameError(f"SGF records are written for Go only, not {game.name}")
    size = game.size
    begin = game.initial_state() if start is None else start
    record = sgf.Sgf_game(size)
    root = record.get_root()
    root.set("AP", ("sparring", __version__))
    root.set("KM", game.komi)
    for ident, name in zip(("PB", "PW"), names, strict=False):
        if name:
            root.set(ident, name)

    def point(action: int) -> tuple[int, int] | None:  # sgfmill counts rows from the bottom
        if action == game.pass_move:
            return None
        r, c = divmod(action, size)
        return size - 1 - r, c

    board = game.board(begin).reshape(-1)
    black = [point(int(p)) for p in np.flatnonzero(board == 1)]
    white = [point(int(p)) for p in np.flatnonzero(board == 2)]
    if black or white:
        root.set_setup_stones(black, white)
    if handicap:
        root.set("HA", int(handicap))
    colour = game.to_move(begin)
    if colour == 1:
        root.set("PL", "w")
    for i, move in enumerate(moves):
        if movers is not None:
            colour = int(movers[i])
        node = record.extend_main_sequence()
        node.set_move("bw"[colour], point(int(move)))
        colour = 1 - colour
    if outcome is not Outcome.ONGOING:
        if final is None:
            final = game.replay_states(list(moves), begin)[-1]
        root.set("RE", sgf_result(game, final, outcome, resigned))
    for ident, value in (properties or {}).items():
        root.set(ident, value)
    return record.serialise().decode("utf-8")
