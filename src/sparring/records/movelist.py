"""Plain move lists: a record of any game, written and read by sparring.

The format is text, one game per file::

    # sparring move list
    # game: connect4
    # first: You
    # second: AZ
    # result: 0-1 (first resigned)
    1. 4 4
    2. 3 5

Lines starting with ``#`` hold ``key: value`` fields: ``game`` (a registered name, with the
game's parameters where they differ from the name's defaults, e.g. ``go13:komi=6.5``; required),
``first`` / ``second`` (the names of player 0 and player 1), ``start`` (the start position
in the game's position text, only when it is not the initial position) and ``result``
(``1-0``, ``0-1``, ``1/2-1/2`` or ``*`` for a game not finished; from player 0's side, followed
by an optional remark in parentheses).  The other lines hold the moves in the game's notation
(:meth:`~sparring.games.base.Game.move_to_text`), two to a numbered line; the numbers are
ignored when reading.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sparring.errors import SparringError
from sparring.games.base import Game, Outcome, State

HEADER = "# sparring move list"
_RESULTS = {
    Outcome.FIRST_WINS: "1-0",
    Outcome.SECOND_WINS: "0-1",
    Outcome.DRAW: "1/2-1/2",
    Outcome.ONGOING: "*",
}


class MoveListError(SparringError, ValueError):
    """A move list that cannot be read; the message names the line and what is wrong."""


@dataclass(frozen=True)
class MoveList:
    """One game read from a move list."""

    game: str
    """The game as :func:`~sparring.games.get_game` reads it: its registered name, with its
    parameters where they differ from the name's defaults (``go13:komi=6.5``)."""
    names: tuple[str, str]
    """Names of player 0 and player 1 ("" when absent)."""
    start: str | None
    """The start position text, None for the initial position."""
    moves: tuple[int, ...]
    """The moves, checked to be legal from the start position."""
    result: str
    """``1-0``, ``0-1``, ``1/2-1/2`` or ``*``."""
    remark: str
    """The text in parentheses after the result ("" when none), e.g. ``first resigned``."""


def write_move_list(
    game: Game,
    moves: Sequence[int],
    *,
    start: State | None = None,
    names: Sequence[str] = ("", ""),
    outcome: Outcome = Outcome.ONGOING,
    resigned: int | None = None,
) -> str:
    """One game as a move list (see the module docstring); ``start`` is written only when it
    is not the initial position."""
    from sparring.games import game_spec

    lines = [HEADER, f"# game: {game_spec(game)}"]
    for key, name in zip(("first", "second"), names, strict=False):
        if name:
            lines.append(f"# {key}: {name}")
    if start is not None:
        text = game.position_to_text(start)
        if text != game.position_to_text(game.initial_state()):
            lines.append(f"# start: {text}")
    result = _RESULTS[outcome]
    if resigned is not None:
        result += f" ({'first' if resigned == 0 else 'second'} resigned)"
    lines.append(f"# result: {result}")
    texts = [game.move_to_text(int(m)) for m in moves]
    for i in range(0, len(texts), 2):
        lines.append(f"{i // 2 + 1}. " + " ".join(texts[i : i + 2]))
    return "\n".join(lines) + "\n"


def parse_move_list(text: str, source: str = "<string>") -> MoveList:
    """Read a move list; :class:`MoveListError` names ``source``, the line and the problem
    (an unknown game, a bad field, an illegal move)."""
    from sparring.games import game_spec, get_game

    fields: dict[str, str] = {}
    tokens: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            key, colon, value = stripped[1:].partition(":")
            if colon:
                fields[key.strip().lower()] = value.strip()
            continue
        for token in stripped.split():
            if not (token.endswith(".") and token[:-1].isdigit()):
                tokens.append((number, token))
    if "game" not in fields:
        raise MoveListError(f"{source}: not a move list (no '# game:' line)")
    try:
        game = get_game(fields["game"])
    except SparringError as err:
        raise MoveListError(f"{source}: {err}") from None
    start_text = fields.get("start")
    try:
        state = game.initial_state() if start_text is None else game.parse_position(start_text)
    except SparringError as err:
        raise MoveListError(f"{source}: bad start position: {err}") from None
    result, _, remark = fields.get("result", "*").partition("(")
    result = result.strip()
    if result not in _RESULTS.values():
        raise MoveListError(f"{source}: bad result {result!r} (1-0, 0-1, 1/2-1/2 or *)")
    moves: list[int] = []
    for number, token in tokens:
        try:
            move = game.parse_move(token, state)
        except SparringError as err:
            raise MoveListError(f"{source}:{number}: move {len(moves) + 1}: {err}") from None
        state = game.play(state, move)
        moves.append(move)
    return MoveList(
        game=game_spec(game),
        names=(fields.get("first", ""), fields.get("second", "")),
        start=start_text,
        moves=tuple(moves),
        result=result,
        remark=remark.rstrip(")").strip(),
    )
