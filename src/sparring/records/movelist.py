"""Plain move lists: a record of any game, as sparring writes it (``sparring play --save``, the
service's record of a game).

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
(:meth:`~sparring.games.base.Game.move_to_text`), two to a numbered line.
"""

from __future__ import annotations

from collections.abc import Sequence

from sparring.games.base import Game, Outcome, State

HEADER = "# sparring move list"
_RESULTS = {
    Outcome.FIRST_WINS: "1-0",
    Outcome.SECOND_WINS: "0-1",
    Outcome.DRAW: "1/2-1/2",
    Outcome.ONGOING: "*",
}


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
