"""Evaluating players: matches, round-robin tournaments, a durable game store, Elo ratings
and the AlphaDDA result tables.

* :mod:`~sparring.evaluation.store`: :class:`GameStore` (SQLite, WAL) of :class:`GameRecord`.
* :mod:`~sparring.evaluation.match`: :func:`play_game`, :func:`run_match`,
  :func:`run_tournament` (resumable, parallel) with :class:`MatchConfig` /
  :class:`TournamentConfig`.
* :mod:`~sparring.evaluation.series`: :func:`run_series` with :class:`SeriesConfig`: G games
  in order between the same two player objects, many series in parallel, resumable.
* :mod:`~sparring.evaluation.bradley_terry`: the one maximum-likelihood Bradley-Terry fitter
  (:func:`~sparring.evaluation.bradley_terry.fit_bradley_terry`: fixed players, optional
  first-move advantage, covariance) and the Elo constant ``ELO_SCALE = 400 / ln 10``.
* :mod:`~sparring.evaluation.ratings`: :func:`fit_elo` (tournament ratings, one anchor, with
  confidence intervals) and :func:`incremental_elo` (AlphaDDA appendix 5, K = 8).
* :mod:`~sparring.evaluation.ladder`: rating ladders and :func:`fit_against_ladder`.
* :mod:`~sparring.evaluation.report`: win/loss/draw and Elo tables (rich and markdown), plots.
"""

from sparring.evaluation.match import (
    MatchConfig,
    RunInterrupted,
    RunResult,
    TournamentConfig,
    derive_seed,
    play_game,
    run_match,
    run_tournament,
)
from sparring.evaluation.ratings import (
    Anchor,
    EloFit,
    GameResults,
    default_anchor,
    expected_score,
    fit_elo,
    incremental_elo,
)
from sparring.evaluation.report import (
    WLD,
    PairStats,
    elo_markdown,
    elo_rich_table,
    pair_stats,
    plot_elo,
    report_markdown,
    wld_markdown,
    wld_rich_table,
)
from sparring.evaluation.series import SeriesConfig, SeriesResult, run_series, run_series_set
from sparring.evaluation.store import GameRecord, GameStore, RunInfo

__all__ = [
    "WLD",
    "Anchor",
    "EloFit",
    "GameRecord",
    "GameResults",
    "GameStore",
    "MatchConfig",
    "PairStats",
    "RunInfo",
    "RunInterrupted",
    "RunResult",
    "SeriesConfig",
    "SeriesResult",
    "TournamentConfig",
    "default_anchor",
    "derive_seed",
    "elo_markdown",
    "elo_rich_table",
    "expected_score",
    "fit_elo",
    "incremental_elo",
    "pair_stats",
    "play_game",
    "plot_elo",
    "report_markdown",
    "run_match",
    "run_series",
    "run_series_set",
    "run_tournament",
    "wld_markdown",
    "wld_rich_table",
]
