"""The dynamic strength adjustment experiment (Wu et al., AAAI 2019, Tables 3-4, Fig. 5; and
Fujita's AlphaDDA, PeerJ CS 2022, Tables 5-13 and the appendix 6 figures).

``sparring adapt GAME ADAPTIVE_SPEC --opponents SPEC,SPEC,... --games G --repeats R --out DIR``
plays every adaptive player (e.g. ``dsa:mode=inter,model=connect4``) against every opponent as
``R`` series of ``G`` games (:mod:`sparring.evaluation.series`: the same player objects through
a series, colours alternating, the adaptive player first in the even-numbered games, all
series in one pool, every game stored, a killed run resumes replaying nothing finished), and
the same opponents against the un-adapted base player (the "w/o DSA" row, ``G`` games each with
:func:`~sparring.evaluation.match.run_match`).  :func:`write_report` writes

* ``report.md``: the win / loss / draw tables of every adaptive player against every
  opponent over all games, as first and as second player (the AlphaDDA paper's Tables 5-13
  analogue, with D of Eq. 11, the balanced marks and, for the paper's AlphaDDA players, the
  paper's numbers: :mod:`sparring.experiments.alphadda_paper`), the seconds per game, and per
  adaptive player but AlphaDDA the Table 3 / Table 4 analogue (columns: opponents),
* ``results.json``: every number of the report plus the per-game series (and the example
  traces, and the think times under ``timing``),
* ``adapt.png``: the Fig. 5 analogue (per adaptive player: the game's z and the estimate of
  the opponent's Elo against the game number, one line per opponent, mean over repeats with a
  band of +- one standard deviation over the repeats), when some player is not an AlphaDDA,
* ``traces.png``: the AlphaDDA paper's appendix 6 figures (:func:`plot_traces`): per AlphaDDA
  player and opponent, the per-move ``vbar_n`` and parameter of a few example games.

What is measured (definitions shared by the report, the JSON and the tests):

* **Win / loss / draw shares** of the adaptive player against an opponent, over all games and
  split by who moved first; **balanced**: ``|wins - losses| <= 0.2`` of the games
  (:data:`BALANCED_SHARE`); per row the opponents balanced against, the largest
  ``|wins - losses|`` share, and **D** (Eq. 11, :func:`_d_metric`): the sum over opponents of
  ``|wins - losses|`` as first player plus ``|wins - losses|`` as second player.

* **Win rate** of the adaptive player: mean score over all games (draws counted half; wins,
  draws and losses also given), with a 95% normal interval ``1.96 * sd / sqrt(n)`` where ``sd``
  is the population standard deviation of the per-game scores (for a win/loss series this is
  the paper's ``1.96 sqrt(p (1 - p) / n)``: 50% over 500 games gives +-4.4%, its Table 3).
* **The game's z** is the z annotated on the adaptive player's *last* move of the game: in the
  inter-game modes z is held within a game, so it is the z played; in the intra-game modes it
  is "the value z at the end of the game" of the paper's Table 4.  ``Avg. z`` / ``Std. z`` are
  the mean and population standard deviation over all games of all repeats (the paper's Table 3
  averages over all games: its z = 2 opponent's 1.93 includes the first games at z near 0),
  infinite z left out and counted; the same over the games after the first ``settle`` is
  given too.  ``Elo`` is the same for the annotated calibrated Elo of the setting played.
* **The estimate of the opponent** after a game is the adaptive player's saved state after it
  (``opponent_elo``, or ``elo`` where the player keeps no separate estimate: the step rule's
  next setting *is* its estimate), else the last move's annotation.
* **Games until within** ``within`` Elo (with ``opponent_elos``): per repeat, the smallest
  ``n`` such that the estimate after game ``n`` and after every later game of the series is
  within ``within`` of the opponent's ladder Elo (None: not by the end); reported per repeat
  and as the mean and maximum over the repeats that got there.
* **Separation game** (several opponents): the opponents' *expected order* is that of their
  ladder Elos when given, else of their z when every opponent is an SA player with a fixed z,
  else the order of their mean z over the last ``settle`` games.  The separation game is the
  smallest game number ``n`` (1-based) such that in game ``n`` and every later game the mean z
  lines (mean over repeats of the game's z) are strictly in the expected order with adjacent
  gaps of at least ``separation_margin``; None when the last game is not ordered.

The package's modules, bottom up: :mod:`.specs` (what is read from player specs),
:mod:`.config` (:class:`AdaptConfig` and the command line's inputs), :mod:`.statistics` (the
numbers above), :mod:`.runner` (:func:`run_adapt`) and :mod:`.report` (the tables, plots and
:func:`write_report`).
"""

from __future__ import annotations

from sparring.experiments.adapt.config import (
    STORE_NAME,
    AdaptConfig,
    parse_elos,
    split_specs,
)
from sparring.experiments.adapt.report import (
    FILES,
    PAPER_GAMES_PER_SIDE,
    PAPER_ROWS,
    PAPER_WITHOUT_DSA,
    adaptive_table,
    paper_win_rate,
    plot_adapt,
    plot_traces,
    report_markdown,
    seconds_table,
    within_table,
    wld_row,
    wld_table,
    write_report,
)
from sparring.experiments.adapt.runner import (
    AdaptResult,
    check_config,
    run_adapt,
)
from sparring.experiments.adapt.specs import (
    ALPHADDA_KINDS,
    ELO_MODES,
    INTRA_MODES,
    PAPER_ROW_KEYS,
    SEARCH_KEYS,
    adaptive_mode,
    baseline_settings,
    baseline_spec,
    default_baseline,
    is_alphadda,
    opponent_z,
    paper_kind,
    paper_opponent,
)
from sparring.experiments.adapt.statistics import (
    BALANCED_SHARE,
    SIDES,
    TRACE_PARAMETERS,
    Z95,
    AdaptiveStats,
    CellStats,
    GameNumbers,
    Moments,
    MoveTrace,
    WinRate,
    adaptive_stats,
    cell_stats,
    example_traces,
    expected_order,
    game_numbers,
    games_until_within,
    move_trace,
    separation_game,
    series_matrix,
)

__all__ = [
    "ALPHADDA_KINDS",
    "BALANCED_SHARE",
    "ELO_MODES",
    "FILES",
    "INTRA_MODES",
    "PAPER_GAMES_PER_SIDE",
    "PAPER_ROWS",
    "PAPER_ROW_KEYS",
    "PAPER_WITHOUT_DSA",
    "SEARCH_KEYS",
    "SIDES",
    "STORE_NAME",
    "TRACE_PARAMETERS",
    "Z95",
    "AdaptConfig",
    "AdaptResult",
    "AdaptiveStats",
    "CellStats",
    "GameNumbers",
    "Moments",
    "MoveTrace",
    "WinRate",
    "adaptive_mode",
    "adaptive_stats",
    "adaptive_table",
    "baseline_settings",
    "baseline_spec",
    "cell_stats",
    "check_config",
    "default_baseline",
    "example_traces",
    "expected_order",
    "game_numbers",
    "games_until_within",
    "is_alphadda",
    "move_trace",
    "opponent_z",
    "paper_kind",
    "paper_opponent",
    "paper_win_rate",
    "parse_elos",
    "plot_adapt",
    "plot_traces",
    "report_markdown",
    "run_adapt",
    "seconds_table",
    "separation_game",
    "series_matrix",
    "split_specs",
    "within_table",
    "wld_row",
    "wld_table",
    "write_report",
]
