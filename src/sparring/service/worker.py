"""The work the service runs in its pool of worker processes: every change to a game.

Each job takes a game's latest session snapshot (:meth:`GameSession.snapshot`, JSON values),
rebuilds the session with its players (:meth:`GameSession.restore`, players built from the
settings in the snapshot and sharing this process's :class:`PlayerCache`), does one thing (a
new game, a person's move, the AI's move under a :class:`Limit`, an undo, a resignation) and
returns the new snapshot with what the server stores beside it.  A job is a pure function of
its arguments: the server stores the result in one transaction, and a job whose result is
lost (a killed server) is simply run again from the stored snapshot.

Live games
    Restoring replays the whole game and rebuilds both players, at every move.  So a process
    keeps the sessions of the last ``live_games`` games it worked on (by game id, least
    recently used out first) and continues such a session instead
    (:meth:`GameSession.catch_up`: the moves the snapshot holds beyond the session's, such as
    the person's move played in another process, are played on it, each player's random
    streams and live state are put back from the snapshot, and the session is used only if
    its own snapshot then equals the one given, field for field); otherwise (a move taken
    back, a result that was never stored, a game changed by another server process) the game
    is restored from the snapshot as before.  The snapshot stays the only truth: a job
    computes what it would compute from the restored session, and nothing but the stored
    snapshot outlives the process.

Timing
    :func:`ai_move` returns its ``steps``: :func:`time.perf_counter` stamps of its start and
    end (``started``, ``ended``: on Linux one monotonic clock for all processes, so the server
    can tell the time a job waited and the time its result took back) and the seconds it
    spent restoring (``build``: the players, ``replay``: the moves; or ``catch_up``: moves
    played on a live session and its check), searching (``search``) and writing the result
    (``result``).

Worker processes are started with the ``spawn`` method (no state of the server's threads is
copied); :func:`init_worker` imports the modules that registered the server's player kinds and
makes the process's cache.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import signal
import threading
import time
from collections import OrderedDict
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

LIVE_GAMES = 32
"""Games whose session a worker process keeps live between jobs by default (see the module
docstring; about a megabyte each for a 19x19 Go game of 200 moves)."""


@dataclass
class _Process:
    """What one worker process keeps between jobs: its player cache, built games and the
    sessions of the games it worked on last."""

    cache: PlayerCache = field(default_factory=PlayerCache)
    games: dict[str, Game] = field(default_factory=dict)
    stops: Any = None
    """The server's shared array of stop flags (one per AI move in flight), or None."""
    live_games: int = LIVE_GAMES
    """How many sessions :attr:`live` keeps (0: none, every job restores its game)."""
    live: OrderedDict[str, GameSession] = field(default_factory=OrderedDict)
    """The live sessions by game id, the least recently used first."""


_PROCESS: list[_Process] = []
"""This process's :class:`_Process` (one entry, made by :func:`init_worker` or on first use)."""


def init_worker(
    modules: tuple[str, ...] = (),
    stops: Any = None,
    evaluation_cache: int = 0,
    ignore_interrupts: bool = False,
    live_games: int = LIVE_GAMES,
) -> None:
    """Initialise a worker process: import ``modules`` (those that registered the server's
    player kinds, :attr:`KindInfo.module`: :mod:`sparring.kinds` for the built-in ones), make
    its cache (keeping ``evaluation_cache`` positions' network outputs per network: the
    next search of a game finds the positions the last one evaluated), keep the server's
    shared array of stop flags ``stops`` (see :func:`ai_move`), keep up to ``live_games``
    games' sessions live between jobs (0: restore every game at every job), ignore SIGINT
    when ``ignore_interrupts`` (a Ctrl-C reaches the server's whole process group; the server
    stops its workers), and end the process when its server is gone (a server killed with
    SIGKILL leaves no worker behind)."""
    if ignore_interrupts:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in modules:
        importlib.import_module(name)
    if not _PROCESS:
        cache = PlayerCache(evaluation_cache=evaluation_cache)
        _PROCESS.append(_Process(cache=cache, stops=stops, live_games=max(0, int(live_games))))
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


def _session(
    snapshot: dict[str, Any], game_id: str | None, steps: dict[str, float] | None = None
) -> GameSession:
    """The session of ``snapshot``: the live session of ``game_id`` brought up to it when
    that is exactly the snapshot's game (see the module docstring), else restored.  The
    session is taken out of the live ones: :func:`_keep` puts it back once the job is done
    (a job that fails leaves nothing behind)."""
    live = _process().live
    session = live.pop(game_id, None) if game_id is not None else None
    if session is not None:
        began = time.perf_counter()
        caught = session.catch_up(snapshot)
        if steps is not None:
            steps["catch_up"] = time.perf_counter() - began
        if caught:
            return session
        _close(session)
    return _restore(snapshot, steps)


def _keep(game_id: str | None, session: GameSession) -> None:
    """Keep ``session`` live as ``game_id``'s (not once the game is over), the least
    recently used one out beyond :attr:`_Process.live_games`."""
    proc = _process()
    if game_id is None or proc.live_games <= 0 or session.is_over:
        return
    proc.live[game_id] = session
    proc.live.move_to_end(game_id)
    while len(proc.live) > proc.live_games:
        _close(proc.live.popitem(last=False)[1])


def _close(session: GameSession) -> None:
    """Release what the players of a session no longer used hold outside the process."""
    for player in session.players:
        if player is not None:
            with contextlib.suppress(Exception):
                player.close()


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


def human_move(
    snapshot: dict[str, Any], human: int, move: int, game_id: str | None = None
) -> dict[str, Any]:
    """The person's ``move`` played in the session of ``snapshot`` (of the game ``game_id``:
    see the module docstring's live games; None: restored)."""
    session = _session(snapshot, game_id)
    if session.to_move != human:
        raise IncompatibleError("it is not your turn: the AI is to move")
    session.play(move)
    result = _result(session, human)
    _keep(game_id, session)
    return result


def ai_move(
    snapshot: dict[str, Any],
    human: int,
    seconds: float,
    slot: int = -1,
    game_id: str | None = None,
) -> dict[str, Any]:
    """The AI's move in the session of ``snapshot`` (of the game ``game_id``: see the module
    docstring's live games; None: restored), thinking at most ``seconds`` and stopping early
    (playing its best move so far) once the server sets the stop flag ``slot`` (the game was
    resigned or taken back meanwhile; -1: no flag); adds ``move``, ``analysis``
    (:meth:`MoveAnalysis.to_json`, or None) and ``steps`` (see the module docstring) to the
    result."""
    steps = {"started": time.perf_counter()}
    session = _session(snapshot, game_id, steps)
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
    _keep(game_id, session)
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


def undo(snapshot: dict[str, Any], human: int, game_id: str | None = None) -> dict[str, Any]:
    """Take back the person's last move and the AI's replies after it."""
    session = _session(snapshot, game_id)
    if session.takeback_count(human) == 0:
        raise BadValueError("there is no move of yours to take back", "ply")
    session.undo_turn(human)
    result = _result(session, human)
    _keep(game_id, session)
    return result


def resign(snapshot: dict[str, Any], human: int, game_id: str | None = None) -> dict[str, Any]:
    """The person resigns (the game's live session, if any, is dropped)."""
    session = _session(snapshot, game_id)
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
