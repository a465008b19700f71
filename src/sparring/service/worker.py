"""The work the service runs in its pool of worker processes: every change to a game.

Each job takes a game's latest session snapshot (:meth:`GameSession.snapshot`, JSON values),
rebuilds the session with its players (:meth:`GameSession.restore`, players built from the
settings in the snapshot and sharing this process's :class:`PlayerCache`), does one thing (a
new game, a person's move, the AI's move under a :class:`Limit`, an undo, a resignation) and
returns the new snapshot with what the server stores beside it.  A job is a pure function of
its arguments: the server stores the result in one transaction, and a job whose result is
lost (a killed server) is simply run again from the stored snapshot.

Timing
    :func:`ai_move` returns its ``steps``: :func:`time.perf_counter` stamps of its start and
    end (``started``, ``ended``: on Linux one monotonic clock for all processes, so the server
    can tell the time a job waited and the time its result took back) and the seconds it
    spent restoring (``build``: the players, ``replay``: the moves), searching (``search``)
    and writing the result (``result``).

Worker processes are started with the ``spawn`` method (no state of the server's threads is
copied); :func:`init_worker` imports the modules that registered the server's player kinds and
makes the process's cache.
"""

from __future__ import annotations

import functools
import importlib
import os
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from sparring.errors import BadValueError, IncompatibleError
from sparring.games import get_game
from sparring.games.base import Game
from sparring.players.base import JsonValue, Player
from sparring.players.cache import PlayerCache
from sparring.players.registry import build_player, settings_from_json
from sparring.search.limit import Limit
from sparring.session import GameSession


@dataclass
class _Process:
    """What one worker process keeps between jobs: its player cache and built games."""

    cache: PlayerCache = field(default_factory=PlayerCache)
    games: dict[str, Game] = field(default_factory=dict)
    stops: Any = None
    """The server's shared array of stop flags (one per AI move in flight), or None."""


_PROCESS: list[_Process] = []
"""This process's :class:`_Process` (one entry, made by :func:`init_worker` or on first use)."""


def init_worker(
    modules: tuple[str, ...] = (),
    stops: Any = None,
    evaluation_cache: int = 0,
    ignore_interrupts: bool = False,
) -> None:
    """Initialise a worker process: import ``modules`` (those that registered the server's
    player kinds, :attr:`KindInfo.module`: :mod:`sparring.kinds` for the built-in ones), make
    its cache (keeping ``evaluation_cache`` positions' network outputs per network: the
    next search of a game finds the positions the last one evaluated), keep the server's
    shared array of stop flags ``stops`` (see :func:`ai_move`), ignore SIGINT when
    ``ignore_interrupts`` (a Ctrl-C reaches the server's whole process group; the server
    stops its workers), and end the process when its server is gone (a server killed with
    SIGKILL leaves no worker behind)."""
    if ignore_interrupts:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in modules:
        importlib.import_module(name)
    if not _PROCESS:
        _PROCESS.append(_Process(cache=PlayerCache(evaluation_cache=evaluation_cache), stops=stops))
        parent = os.getppid()
        threading.Thread(target=_exit_with, args=(parent,), daemon=True).start()


def _exit_with(parent: int) -> None:
    """End this process once ``parent`` is no longer its parent (checked every second)."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def _process() -> _Process:
    if not _PROCESS:
        init_worker()
    return _PROCESS[0]


def _game(name: str, params: dict[str, Any]) -> Game:
    proc = _process()
    key = f"{name}{sorted(params.items())}"
    if key not in proc.games:
        proc.games[key] = get_game(name, **params)
    return proc.games[key]


def _restore(snapshot: dict[str, Any], steps: dict[str, float] | None = None) -> GameSession:
    proc = _process()
    game = _game(str(snapshot["game"]), dict(snapshot.get("game_params") or {}))
    return GameSession.restore(snapshot, game=game, cache=proc.cache, timings=steps)


def _ai(session: GameSession, human: int) -> Player:
    player = session.players[1 - human]
    if player is None:
        raise IncompatibleError("this game has no AI player")
    return player


def _result(session: GameSession, human: int, **extra: Any) -> dict[str, Any]:
    """What every job returns: the snapshot, the position summary and the AI's state."""
    ai = _ai(session, human)
    return {
        "snapshot": session.snapshot(),
        "ply": session.ply,
        "to_move": session.to_move,
        "over": session.is_over,
        "result": None if not session.is_over else session.score_for(human),
        "ai_state": ai.save_state() if session.is_over else None,
        **extra,
    }


def new_game(
    game_name: str,
    game_params: dict[str, Any],
    settings_json: dict[str, Any],
    seed: int,
    human: int,
    human_name: str,
    adaptive_state: dict[str, JsonValue] | None,
) -> dict[str, Any]:
    """A new session: the AI built from ``settings_json`` (seeded; given
    ``adaptive_state`` as its state kept from earlier games), the person on side
    ``human`` (named ``human_name`` in records).  Returns :func:`_result` plus the AI's
    ``label`` and ``notices``."""
    proc = _process()
    game = _game(game_name, game_params)
    settings = settings_from_json(settings_json)
    ai = build_player(settings, game, seed, proc.cache)
    if adaptive_state is not None:
        try:
            ai.restore_state(adaptive_state)
        except (ValueError, TypeError, KeyError) as err:
            raise IncompatibleError(
                f"the adaptive state kept in the profile does not fit {settings.spec()!r}: {err}"
            ) from None
    players: tuple[Player | None, Player | None] = (None, ai) if human == 0 else (ai, None)
    names = (human_name, ai.name) if human == 0 else (ai.name, human_name)
    session = GameSession(game, players, names=names)
    notices = [str(n) for n in getattr(ai, "notices", ()) or ()]
    return _result(session, human, label=ai.name, notices=notices)


def human_move(snapshot: dict[str, Any], human: int, move: int) -> dict[str, Any]:
    """The person's ``move`` played in the session of ``snapshot``."""
    session = _restore(snapshot)
    if session.to_move != human:
        raise IncompatibleError("it is not your turn: the AI is to move")
    session.play(move)
    return _result(session, human)


def ai_move(snapshot: dict[str, Any], human: int, seconds: float, slot: int = -1) -> dict[str, Any]:
    """The AI's move in the session of ``snapshot``, thinking at most ``seconds`` and
    stopping early (playing its best move so far) once the server sets the stop flag
    ``slot`` (the game was resigned or taken back meanwhile; -1: no flag); adds ``move``,
    ``analysis`` (:meth:`MoveAnalysis.to_json`, or None) and ``steps`` (see the module
    docstring) to the result."""
    steps = {"started": time.perf_counter()}
    session = _restore(snapshot, steps)
    if session.to_move == human:
        raise IncompatibleError("the person is to move, not the AI")
    stops = _process().stops
    stop = None if stops is None or slot < 0 else functools.partial(_stopped, stops, slot)
    began = time.perf_counter()
    decision = session.play_decision(Limit(time=seconds, stop=stop))
    analysis = None if decision.analysis is None else decision.analysis.to_json()
    searched = time.perf_counter()
    steps["search"] = searched - began
    result = _result(session, human, move=decision.move, analysis=analysis, steps=steps)
    steps["ended"] = time.perf_counter()
    steps["result"] = steps["ended"] - searched
    return result


def hint(
    snapshot: dict[str, Any], human: int, settings_json: dict[str, Any], seconds: float
) -> dict[str, Any]:
    """What the player built from ``settings_json`` (a fixed small search, the same every
    time: seeded 0) would play for the person in the session of ``snapshot``, thinking at
    most ``seconds``: ``{"move": ..., "analysis": MoveAnalysis.to_json() or None}``.  The
    game is not changed."""
    proc = _process()
    game = _game(str(snapshot["game"]), dict(snapshot.get("game_params") or {}))
    player = build_player(settings_from_json(settings_json), game, 0, proc.cache)
    players: tuple[Player | None, Player | None] = (player, None) if human == 0 else (None, player)
    session = GameSession.restore(snapshot, players, game=game)
    if session.is_over or session.to_move != human:
        raise IncompatibleError("a hint is for your move, and it is not your turn")
    decision = session.play_decision(Limit(time=seconds))
    analysis = None if decision.analysis is None else decision.analysis.to_json()
    return {"move": decision.move, "analysis": analysis}


def _stopped(stops: Any, slot: int) -> bool:
    """Whether the server set stop flag ``slot``."""
    return bool(stops[slot])


def undo(snapshot: dict[str, Any], human: int) -> dict[str, Any]:
    """Take back the person's last move and the AI's replies after it."""
    session = _restore(snapshot)
    if session.takeback_count(human) == 0:
        raise BadValueError("there is no move of yours to take back", "ply")
    session.undo_turn(human)
    return _result(session, human)


def resign(snapshot: dict[str, Any], human: int) -> dict[str, Any]:
    """The person resigns."""
    session = _restore(snapshot)
    session.resign(human)
    return _result(session, human)


def warm_up() -> int:
    """A job that only starts the process (imports done): its pid."""
    _process()
    return os.getpid()


def estimate_rank(game_name: str, records: list[str], player: str) -> dict[str, Any]:
    """The strength estimator's rank (Go) or Elo band (chess) of ``player`` from the
    ``records`` (SGF or PGN texts of their finished games), with the shipped estimator
    (:func:`sparring.estimation.predict.estimate_player`, what ``sparring estimate`` runs)."""
    from sparring.estimation.predict import estimate_player
    from sparring.nn.estimators import default_estimator
    from sparring.records import parse_pgn_games, parse_sgf_games

    parsed: list[Any] = []
    for i, text in enumerate(records):
        source = f"<game {i + 1}>"
        if game_name == "go":
            parsed.extend(parse_sgf_games(text, source))
        else:
            parsed.extend(parse_pgn_games(text, source))
    result = estimate_player(parsed, player, default_estimator(game_name))
    return {
        "rank": result.rank_name,
        "confidence": result.confidence,
        "within_one": result.within_one,
        "games": len(result.games),
        "moves": result.moves,
    }


__all__ = [
    "ai_move",
    "estimate_rank",
    "hint",
    "human_move",
    "init_worker",
    "new_game",
    "resign",
    "undo",
    "warm_up",
]
