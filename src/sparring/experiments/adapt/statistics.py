"""The numbers of the dynamic strength adjustment experiment, from its stored games (see
:mod:`sparring.experiments.adapt` for every definition): per game, per adaptive player and
opponent (:class:`CellStats`), per adaptive player (:class:`AdaptiveStats`)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sparring.evaluation.store import GameRecord
from sparring.experiments.adapt.config import AdaptConfig
from sparring.experiments.adapt.specs import (
    INTRA_MODES,
    adaptive_mode,
    is_alphadda,
    opponent_z,
)
from sparring.strength.alphadda import SideCounts, metric_d

Z95 = 1.959963984540054
"""Two-sided 95% normal quantile."""

BALANCED_SHARE = 0.2
"""A player is *balanced* against an opponent when ``|wins - losses| <= 0.2`` of the games
(after the paper's reading of Tables 5-13)."""

TRACE_PARAMETERS = ("sims", "p_drop", "c")
"""The AlphaDDA annotations that carry the parameter a move was played with (AlphaDDA1's
``N_sim``, AlphaDDA2's ``P_drop``, AlphaDDA3's ``C``), in the order they are looked for."""


# ---- per-game numbers ------------------------------------------------------------------------
def _as_float(value: Any) -> float | None:
    """A JSON number or ``"inf"`` / ``"-inf"`` as a float (None for null or junk)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


@dataclass(frozen=True)
class GameNumbers:
    """What one game of a series says about the adaptive player (A)."""

    score: float
    """A's score: 1, 0.5 or 0."""
    z: float | None
    """The z on A's last annotated move (may be +-inf; None: no annotation)."""
    elo: float | None
    """The calibrated Elo on A's last annotated move."""
    estimate_elo: float | None
    """A's estimate of the opponent's Elo after the game."""
    estimate_z: float | None
    """A's estimate of the opponent's z after the game."""


def game_numbers(record: GameRecord) -> GameNumbers:
    """The numbers of one game, A being the adaptive player (see the module docstring)."""
    last: dict[str, Any] = {}
    if record.annotations is not None:
        parity = 0 if record.a_first else 1
        for index, note in enumerate(record.annotations):
            if index % 2 == parity and isinstance(note, dict) and "z" in note:
                last = note
    state = record.player_states[0] if record.player_states is not None else None
    state = state if isinstance(state, dict) else {}

    def estimate(own: str, key: str) -> float | None:
        for source, name in ((state, own), (state, key), (last, own), (last, key)):
            value = _as_float(source.get(name))
            if value is not None:
                return value
        return None

    return GameNumbers(
        score=record.score_a,
        z=_as_float(last.get("z")),
        elo=_as_float(last.get("elo")),
        estimate_elo=estimate("opponent_elo", "elo"),
        estimate_z=estimate("opponent_z", "z"),
    )


def series_matrix(
    records: Sequence[GameRecord], repeats: int, games: int, value: Callable[[GameNumbers], Any]
) -> np.ndarray:
    """A ``repeats x games`` float array of ``value`` of every stored game (NaN: missing)."""
    out = np.full((repeats, games), np.nan)
    for record in records:
        if record.pairing < repeats and record.game_index < games:
            v = value(game_numbers(record))
            out[record.pairing, record.game_index] = np.nan if v is None else v
    return out


# ---- statistics ------------------------------------------------------------------------------
@dataclass(frozen=True)
class WinRate:
    """A player's score over games, draws counted half, with a 95% normal interval."""

    games: int
    wins: int
    draws: int
    losses: int

    @classmethod
    def of(cls, scores: Sequence[float]) -> WinRate:
        """Count the scores (1, 0.5, 0)."""
        return cls(
            len(scores),
            sum(1 for s in scores if s == 1.0),
            sum(1 for s in scores if s == 0.5),
            sum(1 for s in scores if s == 0.0),
        )

    @property
    def rate(self) -> float | None:
        """Mean score (None without games)."""
        return None if self.games == 0 else (self.wins + 0.5 * self.draws) / self.games

    @property
    def ci95(self) -> float | None:
        """Half width of the 95% interval: ``1.96 * sd(scores) / sqrt(games)``."""
        p = self.rate
        if p is None:
            return None
        second = (self.wins + 0.25 * self.draws) / self.games
        return Z95 * math.sqrt(max(second - p * p, 0.0) / self.games)

    @property
    def shares(self) -> tuple[float, float, float] | None:
        """``(win, loss, draw)`` shares of the games, the paper's Tables 5-13 order (None
        without games)."""
        if self.games == 0:
            return None
        return (self.wins / self.games, self.losses / self.games, self.draws / self.games)

    @property
    def imbalance(self) -> float | None:
        """``|wins - losses| / games`` (None without games)."""
        return None if self.games == 0 else abs(self.wins - self.losses) / self.games

    @property
    def balanced(self) -> bool | None:
        """Whether ``|wins - losses| <= BALANCED_SHARE * games`` (None without games); exact
        2 more wins than losses in 10 games is balanced, 3 is not."""
        if self.games == 0:
            return None
        return abs(self.wins - self.losses) <= BALANCED_SHARE * self.games + 1e-9

    def __add__(self, other: WinRate) -> WinRate:
        return WinRate(
            self.games + other.games,
            self.wins + other.wins,
            self.draws + other.draws,
            self.losses + other.losses,
        )

    def to_json(self) -> dict[str, Any]:
        """All numbers as a dict."""
        return {
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "rate": self.rate,
            "ci95": self.ci95,
            "imbalance": self.imbalance,
            "balanced": self.balanced,
        }


def _d_metric(sides: Sequence[tuple[WinRate, WinRate]]) -> int:
    """The paper's performance metric D (Fujita 2022, appendix, Eq. 11) of AlphaDDA's wins and
    losses against each opponent as first and as second player (``sides``: one ``(as_first,
    as_second)`` pair per opponent), by the one implementation
    :func:`sparring.strength.alphadda.metric_d`.  0 is perfectly balanced; draws count nothing."""
    return metric_d(
        {
            str(i): SideCounts(
                wins_first=f.wins,
                losses_first=f.losses,
                draws_first=f.draws,
                wins_second=s.wins,
                losses_second=s.losses,
                draws_second=s.draws,
            )
            for i, (f, s) in enumerate(sides)
        }
    )


@dataclass(frozen=True)
class Moments:
    """Mean and population standard deviation of the finite values; infinities counted."""

    n: int
    mean: float | None
    sd: float | None
    plus_inf: int = 0
    minus_inf: int = 0

    @classmethod
    def of(cls, values: np.ndarray) -> Moments:
        """Of the non-NaN entries of ``values``."""
        v = np.asarray(values, dtype=float).ravel()
        v = v[~np.isnan(v)]
        finite = v[np.isfinite(v)]
        return cls(
            n=int(finite.size),
            mean=float(finite.mean()) if finite.size else None,
            sd=float(finite.std()) if finite.size else None,
            plus_inf=int(np.sum(v == np.inf)),
            minus_inf=int(np.sum(v == -np.inf)),
        )

    def to_json(self) -> dict[str, Any]:
        """All numbers as a dict."""
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class MoveTrace:
    """One example game's per-move value signal of an AlphaDDA player (the paper's appendix
    6 figures): for each of its moves, the turn (1-based ply of the game), ``v_n`` and
    ``vbar_n`` as annotated (the first player's side) and the parameter it set."""

    series: int
    game_index: int
    a_first: bool
    """Whether the adaptive player moved first (its colour ``c`` is +1)."""
    score: float
    """The adaptive player's score."""
    turns: tuple[int, ...]
    v: tuple[float | None, ...]
    vbar: tuple[float, ...]
    parameter: str | None
    """The annotation key of the parameter (:data:`TRACE_PARAMETERS`), None when absent."""
    values: tuple[float | None, ...]
    """The parameter on each move (None where absent)."""
    floor: tuple[float | None, ...] | None
    """The floor level on each move (``floor=on``), None when no move carries one."""

    @property
    def colour(self) -> int:
        """The paper's ``c_AlphaDDA``: +1 moving first, -1 second."""
        return 1 if self.a_first else -1

    def to_json(self) -> dict[str, Any]:
        """Every number."""
        return dataclasses.asdict(self)


def move_trace(record: GameRecord) -> MoveTrace | None:
    """The trace of the adaptive player (A) in one game; None when none of its moves carries
    a ``vbar`` annotation (not an AlphaDDA player)."""
    if record.annotations is None:
        return None
    parity = 0 if record.a_first else 1
    notes = [
        (i + 1, note)
        for i, note in enumerate(record.annotations)
        if i % 2 == parity and isinstance(note, dict) and _as_float(note.get("vbar")) is not None
    ]
    if not notes:
        return None
    key = next((k for k in TRACE_PARAMETERS if any(k in n for _, n in notes)), None)
    floors = [_as_float(n.get("floor")) for _, n in notes]
    return MoveTrace(
        series=record.pairing,
        game_index=record.game_index,
        a_first=record.a_first,
        score=record.score_a,
        turns=tuple(t for t, _ in notes),
        v=tuple(_as_float(n.get("v")) for _, n in notes),
        vbar=tuple(float(_as_float(n["vbar"]) or 0.0) for _, n in notes),
        parameter=key,
        values=tuple(None if key is None else _as_float(n.get(key)) for _, n in notes),
        floor=None if all(f is None for f in floors) else tuple(floors),
    )


def example_traces(records: Sequence[GameRecord], count: int) -> tuple[MoveTrace, ...]:
    """Up to ``count`` example traces from ``records`` (in series and game order),
    alternately a game where the adaptive player moved first and one where it moved second
    while both kinds are left."""
    ordered = sorted(records, key=lambda r: (r.pairing, r.game_index))
    pools = {
        first: [t for r in ordered if r.a_first == first and (t := move_trace(r)) is not None]
        for first in (True, False)
    }
    out: list[MoveTrace] = []
    turn = True
    while len(out) < count and (pools[True] or pools[False]):
        pool = pools[turn] or pools[not turn]
        out.append(pool.pop(0))
        turn = not turn
    return tuple(out)


def games_until_within(estimates: np.ndarray, target: float, within: float) -> int | None:
    """The smallest game number ``n`` (1-based) such that the estimate after game ``n`` and
    after every later game is within ``within`` of ``target``; None when the last is not
    (or is missing)."""
    close = np.abs(np.asarray(estimates, dtype=float) - target) <= within  # NaN -> False
    if close.size == 0 or not close[-1]:
        return None
    outside = np.flatnonzero(~close)
    return 1 if outside.size == 0 else int(outside[-1]) + 2


def separation_game(lines: np.ndarray, order: Sequence[int], margin: float = 0.0) -> int | None:
    """The smallest game number ``n`` (1-based) such that in game ``n`` and every later game
    the rows of ``lines`` (one per opponent, one column per game) taken in ``order`` (expected
    strongest first) are strictly decreasing with gaps of at least ``margin``; None when the
    last game is not so ordered or there are fewer than two lines."""
    values = np.asarray(lines, dtype=float)[list(order)]
    if values.shape[0] < 2 or values.shape[1] == 0:
        return None
    gaps = values[:-1] - values[1:]
    ok = np.all((gaps > 0) & (gaps >= margin), axis=0)  # NaN gaps -> False
    if not ok[-1]:
        return None
    bad = np.flatnonzero(~ok)
    return 1 if bad.size == 0 else int(bad[-1]) + 2


def expected_order(
    opponents: Sequence[str],
    elos: Sequence[float | None] | None,
    lines: np.ndarray,
    settle: int,
) -> tuple[list[int], str]:
    """The opponents' expected order (strongest first) and the rule that gave it: ladder Elos,
    else fixed SA z, else the mean over the last ``settle`` games of ``lines``."""
    if elos is not None and all(e is not None for e in elos):
        keys = [float(e) for e in elos if e is not None]
        return sorted(range(len(keys)), key=lambda i: -keys[i]), "ladder Elo"
    zs = [opponent_z(s) for s in opponents]
    if all(z is not None for z in zs):
        keys = [float(z) for z in zs if z is not None]
        return sorted(range(len(keys)), key=lambda i: -keys[i]), "opponent z"
    tail = np.asarray(lines, dtype=float)[:, -max(settle, 1) :]
    finite = np.where(np.isfinite(tail), tail, np.nan)
    means = [
        float(np.mean(row[~np.isnan(row)])) if np.any(~np.isnan(row)) else 0.0 for row in finite
    ]
    return sorted(range(len(means)), key=lambda i: -means[i]), "mean z of the last games"


def _nan_mean_sd(matrix: np.ndarray) -> tuple[list[float | None], list[float | None]]:
    """Per column mean and population sd over the rows (finite values only)."""
    means: list[float | None] = []
    sds: list[float | None] = []
    for column in np.asarray(matrix, dtype=float).T:
        finite = column[np.isfinite(column)]
        means.append(float(finite.mean()) if finite.size else None)
        sds.append(float(finite.std()) if finite.size else None)
    return means, sds


@dataclass(frozen=True)
class CellStats:
    """The numbers of one adaptive player against one opponent."""

    opponent: str
    """The opponent's spec."""
    label: str
    """The opponent's display label."""
    win: WinRate
    """The adaptive player's score."""
    z: Moments
    """The game's z over all games."""
    z_settled: Moments
    """The game's z over the games after the first ``settle``."""
    elo: Moments
    """The Elo played, over all games."""
    elo_settled: Moments
    """The Elo played after the first ``settle`` games."""
    estimate_final: Moments
    """The estimate of the opponent's Elo after each repeat's last game."""
    ladder_elo: float | None
    """The opponent's ladder Elo (None: not given)."""
    until_within: tuple[int | None, ...] | None
    """Per repeat, :func:`games_until_within` (None when no ladder Elo or no estimate)."""
    z_lines: np.ndarray = field(repr=False)
    """``repeats x games`` game z (NaN missing)."""
    elo_lines: np.ndarray = field(repr=False)
    """``repeats x games`` Elo played."""
    estimate_lines: np.ndarray = field(repr=False)
    """``repeats x games`` estimate of the opponent's Elo after each game."""
    scores: np.ndarray = field(repr=False)
    """``repeats x games`` scores (NaN missing)."""
    first: WinRate = WinRate(0, 0, 0, 0)
    """The adaptive player's score in the games it moved first."""
    second: WinRate = WinRate(0, 0, 0, 0)
    """The adaptive player's score in the games it moved second."""
    seconds: Moments = Moments(0, None, None)
    """Seconds per game: both players' think time (a game's cost)."""
    own_seconds: Moments = Moments(0, None, None)
    """Seconds per game the adaptive player thought."""
    traces: tuple[MoveTrace, ...] = ()
    """Example games' per-move value signal (:func:`example_traces`; AlphaDDA players)."""

    def to_json(self) -> dict[str, Any]:
        """Every number, the per-game series included (non-finite values as strings); not the
        think times (:meth:`AdaptResult.timing_json`), so that it is a function of the games'
        moves and results alone."""
        z_mean, z_sd = _nan_mean_sd(self.z_lines)
        est_mean, est_sd = _nan_mean_sd(self.estimate_lines)
        reached = [n for n in (self.until_within or ()) if n is not None]
        return {
            "opponent": self.opponent,
            "label": self.label,
            "win": self.win.to_json(),
            "first": self.first.to_json(),
            "second": self.second.to_json(),
            "z": self.z.to_json(),
            "z_settled": self.z_settled.to_json(),
            "elo": self.elo.to_json(),
            "elo_settled": self.elo_settled.to_json(),
            "estimate_final": self.estimate_final.to_json(),
            "ladder_elo": self.ladder_elo,
            "until_within": None if self.until_within is None else list(self.until_within),
            "until_within_mean": float(np.mean(reached)) if reached else None,
            "until_within_max": max(reached) if reached else None,
            "per_game": {
                "z_mean": z_mean,
                "z_sd": z_sd,
                "estimate_elo_mean": est_mean,
                "estimate_elo_sd": est_sd,
                "z": _json_matrix(self.z_lines),
                "elo": _json_matrix(self.elo_lines),
                "estimate_elo": _json_matrix(self.estimate_lines),
                "score": _json_matrix(self.scores),
            },
            "traces": [t.to_json() for t in self.traces],
        }


def _json_matrix(matrix: np.ndarray) -> list[list[float | str | None]]:
    out: list[list[float | str | None]] = []
    for row in np.asarray(matrix, dtype=float):
        out.append(
            [
                None
                if math.isnan(v)
                else ("inf" if v == math.inf else "-inf")
                if math.isinf(v)
                else float(v)
                for v in row
            ]
        )
    return out


def cell_stats(
    records: Sequence[GameRecord],
    *,
    opponent: str,
    label: str,
    repeats: int,
    games: int,
    settle: int,
    ladder_elo: float | None = None,
    within: float = 100.0,
    trace_games: int = 0,
) -> CellStats:
    """The numbers of one adaptive player (A) against one opponent from its series' games
    (those within ``repeats`` series of ``games`` games)."""
    wanted = [r for r in records if r.pairing < repeats and r.game_index < games]
    z = series_matrix(records, repeats, games, lambda g: g.z)
    elo = series_matrix(records, repeats, games, lambda g: g.elo)
    estimate = series_matrix(records, repeats, games, lambda g: g.estimate_elo)
    scores = series_matrix(records, repeats, games, lambda g: g.score)
    finals = [row[~np.isnan(row)][-1] for row in estimate if np.any(~np.isnan(row))]
    until = None
    if ladder_elo is not None and np.any(~np.isnan(estimate)):
        until = tuple(games_until_within(row, ladder_elo, within) for row in estimate)
    return CellStats(
        opponent=opponent,
        label=label,
        win=WinRate.of([float(s) for s in scores.ravel() if not math.isnan(s)]),
        z=Moments.of(z),
        z_settled=Moments.of(z[:, settle:]),
        elo=Moments.of(elo),
        elo_settled=Moments.of(elo[:, settle:]),
        estimate_final=Moments.of(np.array(finals, dtype=float)),
        ladder_elo=ladder_elo,
        until_within=until,
        z_lines=z,
        elo_lines=elo,
        estimate_lines=estimate,
        scores=scores,
        first=WinRate.of([r.score_a for r in wanted if r.a_first]),
        second=WinRate.of([r.score_a for r in wanted if not r.a_first]),
        seconds=Moments.of(np.array([sum(r.think_times) for r in wanted], dtype=float)),
        own_seconds=Moments.of(np.array([_own_seconds(r) for r in wanted], dtype=float)),
        traces=example_traces(wanted, trace_games),
    )


def _own_seconds(record: GameRecord) -> float:
    """Seconds the adaptive player (A) thought in ``record``."""
    parity = 0 if record.a_first else 1
    return float(sum(t for i, t in enumerate(record.think_times) if i % 2 == parity))


@dataclass(frozen=True)
class AdaptiveStats:
    """One adaptive player against all opponents."""

    spec: str
    label: str
    mode: str
    cells: tuple[CellStats, ...]
    order: tuple[int, ...]
    """Expected order of the opponents, strongest first (see :func:`expected_order`)."""
    order_rule: str
    separation_z: int | None
    """:func:`separation_game` of the mean z lines."""
    separation_estimate: int | None
    """:func:`separation_game` of the mean estimate-of-opponent-Elo lines (margin 0)."""

    @property
    def intra(self) -> bool:
        """Whether it adapts within games (a Table 4 analogue)."""
        return self.mode in INTRA_MODES

    @property
    def dsa_tables(self) -> bool:
        """Whether the report gives it the DSA tables (the Table 3-4 analogue, ``adapt.png``):
        every kind but AlphaDDA's (:func:`is_alphadda`), whose games carry no z."""
        return not is_alphadda(self.spec)

    @property
    def d(self) -> int:
        """The metric D of Eq. 11 over all the opponents (:func:`_d_metric`)."""
        return _d_metric([(c.first, c.second) for c in self.cells])

    def max_imbalance(self, side: str = "all") -> float | None:
        """The largest ``|wins - losses| / games`` over the opponents (``side``: ``all``,
        ``first`` or ``second``); None when no opponent has games."""
        values = [v for c in self.cells if (v := _side(c, side).imbalance) is not None]
        return max(values) if values else None

    def balanced_count(self, side: str = "all") -> int:
        """The opponents it is balanced against (:attr:`WinRate.balanced`)."""
        return sum(1 for c in self.cells if _side(c, side).balanced)

    def to_json(self) -> dict[str, Any]:
        """Every number."""
        return {
            "spec": self.spec,
            "label": self.label,
            "mode": self.mode,
            "expected_order": [self.cells[i].opponent for i in self.order],
            "order_rule": self.order_rule,
            "separation_game_z": self.separation_z,
            "separation_game_estimate": self.separation_estimate,
            "d": self.d,
            "max_imbalance": {s: self.max_imbalance(s) for s in SIDES},
            "balanced_opponents": {s: self.balanced_count(s) for s in SIDES},
            "opponents": [c.to_json() for c in self.cells],
        }


SIDES = ("all", "first", "second")
"""All games, the games the adaptive player moved first, those it moved second."""


def _side(cell: CellStats, side: str) -> WinRate:
    """The cell's score over ``side`` (:data:`SIDES`)."""
    if side == "all":
        return cell.win
    if side == "first":
        return cell.first
    if side == "second":
        return cell.second
    raise ValueError(f"side must be one of {SIDES}, not {side!r}")


def _mean_line(matrix: np.ndarray) -> np.ndarray:
    means, _ = _nan_mean_sd(matrix)
    return np.array([np.nan if m is None else m for m in means])


def adaptive_stats(
    config: AdaptConfig,
    spec: str,
    label: str,
    results: Sequence[Sequence[GameRecord]],
    labels: Sequence[str],
) -> AdaptiveStats:
    """The numbers of adaptive player ``spec`` from its series against each opponent."""
    elos = config.opponent_elos
    cells = tuple(
        cell_stats(
            records,
            opponent=opponent,
            label=opp_label,
            repeats=config.repeats,
            games=config.games,
            settle=config.settle,
            ladder_elo=None if elos is None else elos[i],
            within=config.within,
            trace_games=config.trace_games,
        )
        for i, (opponent, opp_label, records) in enumerate(
            zip(config.opponents, labels, results, strict=True)
        )
    )
    z_lines = np.array([_mean_line(c.z_lines) for c in cells])
    est_lines = np.array([_mean_line(c.estimate_lines) for c in cells])
    order, rule = expected_order(config.opponents, elos, z_lines, config.settle)
    return AdaptiveStats(
        spec=spec,
        label=label,
        mode=adaptive_mode(spec),
        cells=cells,
        order=tuple(order),
        order_rule=rule,
        separation_z=separation_game(z_lines, order, config.separation_margin),
        separation_estimate=separation_game(est_lines, order),
    )
