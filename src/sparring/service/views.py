"""The JSON the API answers with: game summaries and states, profiles with estimates.

A game's position is rebuilt from its stored snapshot without its players
(:meth:`GameSession.restore` with both sides None: the moves replayed by the rules alone, no
network loaded), so reading a game never touches the worker pool; a :class:`SessionCache`
keeps the sessions of the games shown last, so that showing a game again after a move plays
that move instead of the whole game.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from sparring.games.base import Game, State
from sparring.games.chess import Chess, action_to_move
from sparring.games.go import Go
from sparring.profiles import OPPONENT_ELO_ESTIMATE, Profile
from sparring.service.clock import clock_view, now_ms
from sparring.service.store import GameRow, MoveRow
from sparring.session import GameSession


def session_of(row: GameRow, game: Game) -> GameSession:
    """The stored game as a session without players (rules only)."""
    return GameSession.restore(row.snapshot, players=(None, None), game=game)


class SessionCache:
    """The sessions without players (:func:`session_of`) of the last ``size`` games shown, by
    game id: a game shown again is its kept session when that is at the stored snapshot, or
    a copy of it continued to the snapshot (:meth:`GameSession.catch_up`), and is restored
    only when neither fits (a move taken back, a server started afresh).

    Thread-safe (requests read games in threads).  A session handed out is never changed
    afterwards, so the caller may read it while another request continues the game."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._sessions: OrderedDict[str, GameSession] = OrderedDict()
        self._lock = threading.Lock()

    def session(self, row: GameRow, game: Game) -> GameSession:
        """The game of ``row`` as a session without players (do not change it)."""
        with self._lock:
            kept = self._sessions.get(row.id)
        session = None
        if kept is not None and kept.game is game:
            if kept.matches(row.snapshot):
                session = kept
            else:
                fresh = kept.copy()
                session = fresh if fresh.catch_up(row.snapshot) else None
        if session is None:
            session = session_of(row, game)
        if session is not kept:
            with self._lock:
                self._sessions[row.id] = session
                self._sessions.move_to_end(row.id)
                while len(self._sessions) > self.size:
                    self._sessions.popitem(last=False)
        return session


def summary(row: GameRow) -> dict[str, Any]:
    """A game's summary (GameSummary in the contract)."""
    return {
        "id": row.id,
        "game": row.game,
        "opponent_label": row.opponent_label,
        "human_side": row.human_side,
        "status": row.status,
        "result": row.result,
        "ply": row.ply,
        "created": row.created,
        "updated": row.updated,
    }


_RUN = re.compile(r"\d+")


def grid_cells(game: Game, state: State) -> list[str]:
    """The board as rows of ``.``, ``x``, ``o`` (row 0 at the top, as the game renders it),
    read from the game's position text."""
    rows, cols = game.board_shape
    board = game.position_to_text(state).split()[0]
    if "/" in board:
        lines = [_RUN.sub(lambda m: "." * int(m.group()), line) for line in board.split("/")]
    else:
        lines = [board[i * cols : (i + 1) * cols] for i in range(rows)]
    return [line.lower() for line in lines]


def _cells_of_moves(game: Game, state: State, legal: list[int]) -> dict[str, list[int]]:
    """For each legal move, the cell it fills: the one empty cell that is not empty after it
    (moves that fill no cell, such as a pass, are left out).  In Go that is the move's own
    point, row ``move // size`` from the top (a legal move is on an empty point and its
    stone stays: no suicide), read without playing the moves."""
    if isinstance(game, Go):
        return {str(m): list(divmod(int(m), game.size)) for m in legal if m < game.size**2}
    before = grid_cells(game, state)
    out: dict[str, list[int]] = {}
    for move in legal:
        after = grid_cells(game, game.play(state, move))
        filled = [
            (r, c)
            for r, (a, b) in enumerate(zip(before, after, strict=True))
            for c in range(len(a))
            if a[c] == "." and b[c] != "."
        ]
        if len(filled) == 1:
            out[str(move)] = [filled[0][0], filled[0][1]]
    return out


def move_texts(game: Game, state: State, moves: Sequence[int]) -> list[str]:
    """``moves`` (legal in ``state``) as a player reads them: SAN in chess (``Nf3``, one
    board built for all of them), the game's text elsewhere."""
    if isinstance(game, Chess):
        board = game.board(state)
        return [board.san(action_to_move(int(m))) for m in moves]
    return [game.move_to_text(int(m)) for m in moves]


def _with_texts(game: Game, state: State, analysis: Any) -> Any:
    """An AI move's analysis record with ``texts``: its candidate moves as a player reads
    them (SAN in chess), in the order of its ``moves``."""
    if not isinstance(analysis, dict) or not isinstance(analysis.get("moves"), list):
        return analysis
    try:
        texts = move_texts(game, state, analysis["moves"])
    except (ValueError, TypeError, AssertionError):  # a record that does not fit: as stored
        return analysis
    return {**analysis, "texts": texts}


def result_text(session: GameSession, human: int) -> str | None:
    """How the game ended, for the person ("You win: ...", "AI wins on resignation")."""
    if not session.is_over:
        return None
    game = session.game
    score = session.score_for(human)
    if session.resigned is not None:
        return "You win: the AI resigned" if score == 1 else "AI wins on resignation"
    detail = game.score_text(session.state)
    head = "You win" if score == 1 else "Draw" if score == 0.5 else "AI wins"
    return head if not detail else f"{head}: {detail}"


def _pass_ends(game: Game, state: State, move: int) -> dict[str, bool]:
    """For a pass (Go, Othello): ``{"ends_game": ...}``, whether it ends the game (the other
    side passed just before), so that a page can ask before it; ``{}`` for other moves."""
    if game.move_to_text(move) != "pass":
        return {}
    return {"ends_game": bool(game.is_terminal(game.play(state, move)))}


def go_score(game: Game, state: State) -> dict[str, Any] | None:
    """Go's count of the position (None for other games): the stones each side captured
    (Black's, White's), the Tromp-Taylor area of each (its stones and the empty points
    reaching only its stones: no stone is taken as dead), the komi, and the margin
    ``black - white - komi`` (above 0 Black is ahead, below 0 White)."""
    if not isinstance(game, Go):
        return None
    black, white = game.area(state)
    by_black, by_white = game.captures(state)
    return {
        "captures": [by_black, by_white],
        "area": [black, white],
        "komi": game.komi,
        "margin": black - white - game.komi,
    }


def analysis_from(row: GameRow) -> int:
    """The first ply whose AI analysis a game's state shows: while the game goes on only the
    AI's last move's (the page shows the AI's thinking once the game is over, and a hint's
    "AI's view" of its last move; a state holding every move's would grow by a whole
    analysis each move), and none against an adaptive opponent (rated: it estimates the
    person's strength, so what the AI thought is shown only after the game); all of them
    once it is over."""
    if row.status != "ongoing":
        return 0
    movers = row.snapshot.get("movers") or []
    if row.adaptive_key is not None:
        return len(movers)
    ai_plies = [i for i, side in enumerate(movers) if side != row.human_side]
    return ai_plies[-1] if ai_plies else len(movers)


def _chess_sans(game: Chess, session: GameSession) -> list[str]:
    """The SAN of every move of a chess session, on one board played through."""
    board = game.board(session.start_state)
    out = []
    for move in session.moves:
        chosen = action_to_move(int(move))
        out.append(board.san(chosen))
        board.push(chosen)
    return out


def game_state(
    row: GameRow, game: Game, move_rows: list[MoveRow], sessions: SessionCache | None = None
) -> dict[str, Any]:
    """A game's state (GameState in the contract): each move's ``analysis`` from ply
    :func:`analysis_from` on (None before it); the session from ``sessions`` when given."""
    session = session_of(row, game) if sessions is None else sessions.session(row, game)
    state = session.state
    human = row.human_side
    ongoing = not session.is_over
    human_turn = ongoing and session.to_move == human
    legal = session.legal_moves() if human_turn else []
    board: dict[str, Any]
    if isinstance(game, Chess):  # the position now (position_to_text adds the moves since
        board = {"kind": "chess", "fen": game.fen(state)}  # the last irreversible one)
    else:
        rows, cols = game.board_shape
        board = {"kind": "grid", "rows": rows, "cols": cols, "cells": grid_cells(game, state)}
    first = analysis_from(row)
    analysis = {m.ply: m.analysis for m in move_rows if m.ply >= first}
    texts = session.move_texts()
    sans = _chess_sans(game, session) if isinstance(game, Chess) else None
    moves = []
    for i, (move, side) in enumerate(zip(session.moves, session.movers, strict=True)):
        shown = analysis.get(i)
        entry: dict[str, Any] = {
            "ply": i,
            "side": side,
            "by": "human" if side == human else "ai",
            "move": move,
            "text": texts[i],
            "analysis": None if shown is None else _with_texts(game, session.state_at(i), shown),
        }
        if sans is not None:
            entry["san"] = sans[i]
        moves.append(entry)
    last = moves[-1] if moves else None
    return {
        **summary(row),
        "to_move": session.to_move,
        "ai_thinking": row.ai_to_move,
        "board": board,
        "legal": [
            {"move": m, "text": game.move_to_text(m)}
            | ({"san": san} if isinstance(game, Chess) else {})
            | _pass_ends(game, state, m)
            for m, san in zip(legal, move_texts(game, state, legal), strict=True)
        ],
        "last_move": None
        if last is None
        else {k: last[k] for k in ("move", "text", "side", "san") if k in last},
        "moves": moves,
        "result_text": "AI wins on time"
        if row.clock is not None and row.clock.get("flagged") == human
        else result_text(session, human),
        "opponent": {
            "label": row.opponent_label,
            "settings": row.opponent,
            "notices": row.notices,
            "level": row.ai_level,
        },
        "cell_of_move": {} if game.name == "chess" else _cells_of_moves(game, state, legal),
        "click": "column" if game.name == "connect4" else "cell",
        "score": go_score(game, state),
        "clock": clock_view(row.clock, session.to_move, ongoing, now_ms()),
        "hints": {
            "on": row.hints,
            "offered": row.adaptive_key is None,
            "used": row.hints_used,
        },
    }


HINT_CANDIDATES = 5
"""The candidate moves a hint shows."""


def hint_view(game: Game, state: State, analysis: Mapping[str, Any], ply: int) -> dict[str, Any]:
    """A hint from a search's analysis (:meth:`MoveAnalysis.to_json`) of the person's
    position ``state``: its top :data:`HINT_CANDIDATES` moves by visits (by value where it
    counted no visits), each with its text (SAN in chess), visits, share of the visits, value
    ``q`` for the person (-1 to 1) and prior; the search's value of the position."""
    moves = [int(m) for m in analysis.get("moves", [])]
    visits = [int(v) for v in analysis.get("visits", [])] or [0] * len(moves)
    q = list(analysis.get("q", [])) or [None] * len(moves)
    priors = list(analysis.get("priors", [])) or [None] * len(moves)
    by_visits = any(visits)
    order = sorted(
        range(len(moves)),
        key=lambda i: -visits[i] if by_visits else -(_number(q[i]) or -2.0),
    )[:HINT_CANDIDATES]
    texts = move_texts(game, state, [moves[i] for i in order])
    total = sum(visits) or 1
    chosen = int(analysis["move"])
    return {
        "ply": ply,
        "move": {"move": chosen, "text": move_texts(game, state, [chosen])[0]},
        "candidates": [
            {
                "move": moves[i],
                "text": text,
                "visits": visits[i],
                "share": visits[i] / total,
                "q": _number(q[i]),
                "prior": _number(priors[i]),
            }
            for i, text in zip(order, texts, strict=True)
        ],
        "value": _number(analysis.get("value")),
        "simulations": int(analysis.get("simulations") or 0),
        "search": str(analysis.get("search", "none")),
    }


def _number(x: Any) -> float | None:
    """A finite number of an analysis record, or None (null, or NaN written as text)."""
    return float(x) if isinstance(x, int | float) and not isinstance(x, bool) else None


RANK_ESTIMATE = "se-rank"
"""The profile's kind of the strength estimator's rank estimates (Go, chess)."""


def profile_view(
    player: dict[str, Any],
    profile: Profile | None,
    rows: list[GameRow],
    details: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The profile with its estimates (see the contract); ``details`` are what the store
    keeps beside them (:meth:`Store.estimate_details_of`: interval, confidence, games)."""
    extra = {(d["game"], d["time"], d["kind"]): d for d in details}
    estimates: list[dict[str, Any]] = []
    adaptive: list[dict[str, Any]] = []
    if profile is not None:
        for est in profile.estimates:
            kind = {OPPONENT_ELO_ESTIMATE: "dsa-elo", RANK_ESTIMATE: "rank"}.get(est.kind)
            if kind is None:
                continue
            detail = extra.get((est.game, est.time, est.kind), {})
            played = sum(1 for g in profile.history if g.game == est.game and g.date <= est.time)
            games = detail.get("games")
            estimates.append(
                {
                    "time": est.time,
                    "game": est.game,
                    "kind": kind,
                    "value": est.estimate,
                    "low": detail.get("low"),
                    "high": detail.get("high"),
                    "confidence": detail.get("confidence"),
                    "games": played if games is None else int(games),
                }
            )
        for entry in profile.adaptive:
            value = None if entry.state is None else entry.state.get("opponent_elo")
            number = (
                value if isinstance(value, int | float) and not isinstance(value, bool) else None
            )
            adaptive.append({"game": entry.game, "kind": entry.kind, "elo": number})
    return {
        "id": player["id"],
        "name": player["name"],
        "games": [summary(r) for r in rows],
        "estimates": estimates,
        "adaptive": adaptive,
    }


__all__ = [
    "RANK_ESTIMATE",
    "SessionCache",
    "analysis_from",
    "game_state",
    "go_score",
    "grid_cells",
    "hint_view",
    "profile_view",
    "result_text",
    "session_of",
    "summary",
]
