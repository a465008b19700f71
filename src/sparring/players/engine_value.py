"""Stockfish's evaluation as the value of a PUCT leaf, behind the human policy's priors.

The chess human-like kinds (:mod:`sparring.players.human_like`) search with the strength
estimator's policy as the prior and, by default, its value head as ``v(s)``.  With
``sf_nodes=N`` > 0 the value of every leaf is Stockfish's instead: :class:`EngineValueEvaluator`
wraps the kind's evaluator, keeps its priors (so the moves stay the human policy's moves,
and SA-MCTS / SE-MCTS steer down from them as before) and its auxiliary output (SE-MCTS's
``beta``, through :meth:`~EngineValueEvaluator.evaluate_aux` and
:meth:`~EngineValueEvaluator.evaluate_edge_aux`), and replaces each value by
:meth:`StockfishValue.values`.

:class:`StockfishValue` is one persistent Stockfish process (one thread, a 1 MB hash) driven
over UCI through its pipes, that scores a position with ``go nodes N`` and takes the last
``score`` it reports: the position is sent as the FEN after the last irreversible move and the
moves since (so the engine sees repetitions), and every analysis starts a new UCI game
(``ucinewgame``: hash and history tables cleared, about 3 ms), so that a position's value
depends on the position and ``N`` alone and a game depends only on its seed, whichever
positions the process scored before.  Values are cached by ``(N, position text)`` (least
recently used first out, :data:`VALUE_CACHE` positions): the next move's tree and the other
games of a process reach many of the same positions.  One process is shared by the players
of a worker process (:meth:`~sparring.players.cache.PlayerCache.shared`); it is started on
first use, restarted once when it dies during an analysis (then
:class:`~sparring.errors.PlayerResourceError`), and quit and reaped when the object is
garbage-collected or the Python process exits (:func:`weakref.finalize`), so no engine
process is left behind.  python-chess's :class:`chess.engine.SimpleEngine` is not used
here: its event-loop thread is not a daemon, so an engine kept open for the life of the
process kept the interpreter from exiting (the finalizers run after non-daemon threads are
joined).

Centipawns to a value: Lichess's win percentage of a centipawn score ``cp`` from the side to
move (https://lichess.org/page/accuracy; lila ``modules/analyse/src/main/WinPercent.scala``),
``win% = 50 + 50 * (2 / (1 + exp(-0.00368208 * cp)) - 1)``, as a value in ``[-1, 1]``:
``value = win% / 50 - 1 = 2 / (1 + exp(-0.00368208 * cp)) - 1`` (:func:`cp_to_value`).  lila
caps ``cp`` at +-1000 and counts a mate as +-1000 cp; here ``cp`` is not capped and a mate for
the side to move is +1, against it -1 (:func:`score_value`), so that the search tells a
mate from a large material gain.

A limit seen in play: the PUCT search gives an unvisited move ``Q = 0``
(:attr:`~sparring.search.puct.PUCTConfig.unvisited_q`).  In a won position every visited
move's Stockfish value is near +1, far above 0, so the search keeps visiting the first move
it tried (the policy's favourite) and rarely tries the others, the mating move included: with
16 simulations it does not mate with K+R against K, and games against weak opponents run long.
:attr:`~sparring.search.puct.PUCTConfig.first_play_parent` (an untried move starts at its
position's value) is the search's remedy; it is not used here yet: with it (and mates worth
more the quicker they are) ``human-mcts:sf_nodes=1000`` scored 1 of 6 against Stockfish at
``UCI_Elo`` 1350, against 4.5 of 10 without, too few games to choose.

The remedy measured better is the root sweep (``sweep=true``,
:class:`~sparring.search.sweep.RootSweep`: every legal move gets one simulation, so one
Stockfish value, before Eq. 8 takes over) with a small ``C_puct`` (``cpuct=0.25``), so that a
move's value weighs more than the human prior: ``human-mcts:sf_nodes=1000,cpuct=0.25,sweep=true``
(docs/research/external-strength.md, "The root sweep").
"""

from __future__ import annotations

import math
import subprocess
import weakref
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np

from sparring.errors import PlayerResourceError
from sparring.games.base import State
from sparring.games.chess import Chess
from sparring.players.external import EngineDied, spawn, stop_process
from sparring.search.evaluator import Evaluator, LeafValueEvaluator, StateBatch, Values

LICHESS_K = 0.00368208
"""The slope of Lichess's win-percentage logistic per centipawn."""
VALUE_CACHE = 50_000
"""Positions whose Stockfish value a :class:`StockfishValue` keeps."""
HASH_MB = 1
"""Stockfish's hash table (MB): small, since it is cleared before every analysis."""
MAX_SF_NODES = 1_000_000
"""The most Stockfish nodes per leaf a setting may ask for."""


def cp_to_value(cp: float) -> float:
    """A centipawn score from the side to move as a value in ``[-1, 1]``: Lichess's win
    percentage ``win% = 50 + 50 * (2 / (1 + exp(-0.00368208 * cp)) - 1)`` as ``win% / 50 - 1``
    (``0 -> 0``; ``100 -> 0.182``; odd in ``cp``)."""
    return 2.0 / (1.0 + math.exp(-LICHESS_K * cp)) - 1.0


def score_value(kind: str, amount: int) -> float:
    """The value of a UCI ``score`` from the side to move: ``cp`` through :func:`cp_to_value`;
    ``mate N`` +1 for N > 0 (the side to move mates), -1 for N <= 0 (it is mated)."""
    if kind == "mate":
        return 1.0 if amount > 0 else -1.0
    if kind == "cp":
        return cp_to_value(float(amount))
    raise ValueError(f"not a UCI score kind: {kind!r}")


def parse_score(line: str) -> tuple[str, int] | None:
    """The ``score cp X`` / ``score mate N`` of a UCI ``info`` line (None when it has none)."""
    words = line.split()
    if not words or words[0] != "info":
        return None
    for i in range(1, len(words) - 2):
        if words[i] == "score" and words[i + 1] in ("cp", "mate"):
            try:
                return words[i + 1], int(words[i + 2])
            except ValueError:
                return None
    return None


def split_position(text: str) -> tuple[str, list[str]]:
    """The FEN and the UCI moves of a :meth:`Chess.position_to_text` position."""
    fen, _, moves = text.partition(" moves ")
    return fen.strip(), moves.split()


class StockfishValue:
    """A persistent Stockfish process that scores chess positions (see the module doc).

    ``program`` is the Stockfish executable (:func:`~sparring.players.external.find_program`).
    The engine is driven over UCI through its pipes directly, without python-chess's engine
    thread: that thread is not a daemon, so an engine left open for the life of the process
    (as this shared one is) would keep the interpreter from exiting.  Not thread-safe: one
    per process, shared through the player cache.
    """

    def __init__(self, program: Path, capacity: int = VALUE_CACHE) -> None:
        if capacity < 1:
            raise ValueError("capacity must be >= 1")
        self.program = Path(program)
        self.capacity = int(capacity)
        self._process: subprocess.Popen[str] | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self._cache: OrderedDict[tuple[int, str], float] = OrderedDict()
        self.analyses = 0
        """Positions sent to Stockfish so far."""
        self.hits = 0
        """Positions answered from the cache."""
        self.restarts = 0
        """Dead engines replaced."""

    @property
    def pid(self) -> int | None:
        """The running engine's process id (None before the first analysis and after
        :meth:`close`)."""
        return None if self._process is None else self._process.pid

    def _send(self, *commands: str) -> None:
        process = self._process
        assert process is not None and process.stdin is not None
        try:
            process.stdin.write("".join(c + "\n" for c in commands))
            process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as err:
            raise EngineDied(f"the engine's pipe broke: {err}") from None

    def _read_until(self, prefix: str) -> list[str]:
        """The lines the engine writes up to and including the first that starts with
        ``prefix``."""
        process = self._process
        assert process is not None and process.stdout is not None
        lines = []
        while True:
            try:
                line = process.stdout.readline()
            except (OSError, ValueError) as err:
                raise EngineDied(f"the engine's pipe broke: {err}") from None
            if not line:
                raise EngineDied("the engine ended")
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def _start(self) -> None:
        if self._process is not None:
            return
        try:
            self._process = spawn([str(self.program)])
        except OSError as err:
            raise PlayerResourceError(
                f"stockfish value: cannot start {self.program}: {err}", key="sf_nodes"
            ) from None
        self._finalizer = weakref.finalize(self, stop_process, self._process)
        try:
            self._send("uci")
            self._read_until("uciok")
            self._send(
                "setoption name Threads value 1",
                f"setoption name Hash value {HASH_MB}",
                "isready",
            )
            self._read_until("readyok")
        except EngineDied as err:
            self.close()
            raise PlayerResourceError(
                f"stockfish value: {self.program} is not a UCI engine ({err})", key="sf_nodes"
            ) from None

    def _analyse(self, text: str, nodes: int) -> float:
        """The value of the position ``text`` for its side to move after ``nodes`` nodes; a
        dead engine is restarted once."""
        fen, moves = split_position(text)
        position = f"position fen {fen}" + (" moves " + " ".join(moves) if moves else "")
        last: BaseException | None = None
        for attempt in range(2):
            if attempt:
                self.restarts += 1
            self._start()
            try:
                # A new game per analysis clears the hash and the history tables, so that the
                # value depends on the position alone (Stockfish reads its commands in order:
                # "go" waits until the tables are cleared).
                self._send("ucinewgame", position, f"go nodes {nodes}")
                lines = self._read_until("bestmove")
            except EngineDied as err:
                last = err
                self.close()
                continue
            scores = [s for s in map(parse_score, lines) if s is not None]
            if not scores:
                raise PlayerResourceError(f"stockfish value: no score for {text!r}", key="sf_nodes")
            self.analyses += 1
            return score_value(*scores[-1])
        raise PlayerResourceError(
            f"stockfish value: {self.program} died twice scoring {text!r}: {last}",
            key="sf_nodes",
        )

    def value_of_text(self, text: str, nodes: int) -> float:
        """The value for the side to move of the :meth:`Chess.position_to_text` position
        ``text`` after ``nodes`` Stockfish nodes (cached)."""
        if nodes < 1:
            raise ValueError("nodes must be >= 1")
        key = (int(nodes), text)
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            self.hits += 1
            return hit
        value = self._analyse(text, int(nodes))
        self._cache[key] = value
        while len(self._cache) > self.capacity:
            self._cache.popitem(last=False)
        return value

    def values(self, game: Chess, states: StateBatch, nodes: int) -> Values:
        """The values ``[B]`` (float32, side to move) of the positions ``states``."""
        out = np.empty(len(states), dtype=np.float32)
        for b in range(len(states)):
            out[b] = self.value_of_text(game.position_to_text(states[b]), nodes)
        return out

    def value(self, game: Chess, state: State, nodes: int) -> float:
        """The value of one position for its side to move."""
        return self.value_of_text(game.position_to_text(state), nodes)

    def clear(self) -> None:
        """Forget the cached values."""
        self._cache.clear()

    def close(self) -> None:
        """Quit the engine and reap it (a later analysis starts a new one)."""
        if self._finalizer is not None:
            self._finalizer()
        self._process, self._finalizer = None, None


class EngineValueEvaluator(LeafValueEvaluator):
    """An evaluator whose priors and auxiliary outputs are ``evaluator``'s and whose values
    are Stockfish's at ``nodes`` nodes a leaf (:class:`StockfishValue`); the methods are
    :class:`~sparring.search.evaluator.LeafValueEvaluator`'s."""

    def __init__(self, evaluator: Evaluator, engine: StockfishValue, game: Chess, nodes: int):
        if nodes < 1:
            raise ValueError("nodes must be >= 1")
        super().__init__(evaluator)
        self.engine = engine
        self.game = game
        self.nodes = int(nodes)

    def leaf_values(self, values: Values, states: StateBatch) -> Values:
        """Stockfish's values of ``states`` (the network's ``values`` unused)."""
        return self.engine.values(self.game, states, self.nodes)


__all__ = [
    "HASH_MB",
    "LICHESS_K",
    "MAX_SF_NODES",
    "VALUE_CACHE",
    "EngineValueEvaluator",
    "StockfishValue",
    "cp_to_value",
    "parse_score",
    "score_value",
    "split_position",
]
