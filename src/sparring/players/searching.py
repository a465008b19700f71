"""Search, then pick: the one base class of the players that choose from a tree search's root.

:class:`SearchPlayer` runs the move of every searching player built on root statistics
(:class:`~sparring.search.stats.RootStats`): UCT (MCTS1-4), AlphaZero, the SA and DSA
players, AlphaDDA1-3 and the human-like kinds.  :meth:`SearchPlayer.play` is

1. :meth:`~SearchPlayer.before_search`: work before the search, which may already give the
   move (an SA floor's random move skips the search);
2. :meth:`~SearchPlayer.run_search`: the search, under the caller's
   :class:`~sparring.search.limit.Limit` (whose
   :attr:`~sparring.search.limit.Limit.progress`, if any, the PUCT and UCT searches call
   between chunks with the analysis so far);
3. :meth:`~SearchPlayer.pick`: the move from the root (by default the most visited, ties
   at random with the player's generator; with :attr:`~SearchPlayer.finish` under the
   game's :meth:`~sparring.games.base.Game.move_filter`, e.g. Go's finishing rules).  A
   search stopped before its first simulation plays the move of the highest prior instead
   (uniform priors: a random legal move);
4. the :class:`~sparring.search.analysis.MoveAnalysis` of the move (with the search's
   simulation budget, so that a search the limit cut short can be told apart), returned
   with the move in a :class:`~sparring.players.base.Decision` by
   :meth:`~SearchPlayer.play`, with the annotation the game store keeps derived from it
   (:meth:`~SearchPlayer.annotation`); :meth:`~SearchPlayer.select_move` is the move alone.
"""

from __future__ import annotations

from abc import abstractmethod

import numpy as np

from sparring.errors import GameOverError
from sparring.games.base import Game, State
from sparring.players.base import Annotation, Decision, JsonValue, Player
from sparring.players.finish import allowed_moves, go_finishing_move
from sparring.search.analysis import MoveAnalysis, SearchKind, StrengthReport
from sparring.search.limit import Limit, LimitClock, cap_time
from sparring.search.stats import RootStats


class SearchPlayer(Player):
    """A player that searches from the position and picks its move from the root (see the
    module doc).  Subclasses implement :meth:`run_search` and may override the other steps.
    """

    search_kind: SearchKind = "puct"
    """The search recorded in the analysis (``"puct"`` or ``"uct"``)."""
    info_root: bool = False
    """Whether :meth:`annotation` reports the root's moves and visit counts (players whose
    games are analysed from them: SA, DSA, AlphaDDA, the human-like kinds); the others
    report nothing, as they always did."""

    def __init__(self, name: str, seed: int | None = None, finish: bool = False) -> None:
        super().__init__(name, seed)
        self.finish = finish
        """Whether moves are picked under the game's move filter (finishing Go games)."""
        self.last_result: RootStats | None = None
        """The root of the last search (None before the first or after a move without one)."""
        self.notices: tuple[str, ...] = ()
        """What the user should know about this player's setting (e.g. a clamped target Elo);
        copied into every analysis."""
        self.movetime: float | None = None
        """At most this many seconds a move, whatever limit :meth:`select_move` is given (a
        setting's cap, e.g. ``human-mcts:movetime=0.9``); None: no cap of its own.  A move
        the cap cuts short depends on the machine's speed, so it is not reproducible."""
        self._annotations: dict[str, JsonValue] = {}

    # ---- the steps -------------------------------------------------------------------------
    def before_search(self, game: Game, state: State) -> int | None:
        """Work before the search; a move to play without searching, or None (the default)."""
        return None

    @abstractmethod
    def run_search(
        self, game: Game, state: State, limit: Limit | None, clock: LimitClock
    ) -> RootStats:
        """The root statistics of this player's search from ``state`` under ``limit``
        (``clock``: the limit's clock, started with the move)."""

    def pick(self, game: Game, state: State, root: RootStats) -> int:
        """The move from a root with visits: the root plan's
        :attr:`~sparring.search.stats.RootStats.selected_move` when it names one and no move
        filter applies, else the most visited (ties at random), under the game's move filter
        when :attr:`finish`."""
        if root.selected_move is not None and not (
            self.finish and game.move_filter(state) is not None
        ):
            return int(root.selected_move)
        if self.finish:
            return go_finishing_move(game, state, root.moves, root.visits, self.rng)
        best = root.best_moves()
        return int(best[self.rng.integers(len(best))])

    def pick_unsearched(self, game: Game, state: State, root: RootStats) -> int:
        """The move when the search was stopped before any simulation: the highest prior
        (ties at random; UCT's uniform priors: a random legal move), under the game's move
        filter when :attr:`finish`."""
        moves = root.moves
        if len(moves) == 0:  # (a root is expanded before any limit is checked)
            legal = game.legal_moves(state)
            return int(legal[self.rng.integers(len(legal))])
        scores = root.priors.astype(np.float64)
        if self.finish:
            rule = game.move_filter(state)
            if rule is not None:
                allowed = allowed_moves(rule, moves)
                if rule.pass_now or not np.any(allowed & (moves != rule.pass_move)):
                    return rule.pass_move
                scores = np.where(allowed, scores, -1.0)
        best = np.flatnonzero(scores == scores.max())
        return int(moves[best[self.rng.integers(len(best))]])

    def annotate(self, **values: JsonValue) -> None:
        """Add player-specific values to this move's analysis (in order)."""
        self._annotations.update(values)

    def strength_report(self) -> StrengthReport | None:
        """The strength setting of this move, for strength-adjusted players (default None)."""
        return None

    # ---- the move ----------------------------------------------------------------------------
    def select_move(self, game: Game, state: State, limit: Limit | None = None) -> int:
        return self.play(game, state, limit).move

    def play(self, game: Game, state: State, limit: Limit | None = None) -> Decision:
        if game.is_terminal(state):
            raise GameOverError(f"{game.name}: the game is over, no move can be played")
        limit = cap_time(limit, self.movetime)
        clock = LimitClock(limit)
        self._annotations = {}
        root: RootStats | None = None
        move = self.before_search(game, state)
        if move is None:
            root = self.run_search(game, state, limit, clock)
            self.last_result = root
            if root.simulations == 0 and int(root.visits.sum()) == 0:
                move = self.pick_unsearched(game, state, root)
            else:
                move = self.pick(game, state, root)
        else:
            self.last_result = None
        analysis = MoveAnalysis.from_root(
            move,
            self.search_kind,
            root,
            time=clock.elapsed(),
            stopped=clock.stopped,
            strength=self.strength_report(),
            notices=self.notices,
            annotations=self._annotations,
            budget=clock.budget if root is not None else None,
        )
        return Decision(move, analysis, self.annotation(analysis))

    def annotation(self, analysis: MoveAnalysis) -> Annotation:
        """What the game record keeps with the move of ``analysis``
        (:attr:`Decision.annotation`): with :attr:`info_root`, the root's ``moves`` and
        ``visits`` followed by the player's annotations (``{"random": true, ...}`` for a
        move played at random instead); otherwise None."""
        if not self.info_root:
            return None
        if analysis.annotations.get("random") is True or analysis.search == "none":
            return dict(analysis.annotations)
        return {
            "moves": list(analysis.moves),
            "visits": list(analysis.visits),
            **analysis.annotations,
        }


__all__ = ["SearchPlayer"]
