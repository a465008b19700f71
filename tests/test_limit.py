"""The limit conformance suite: every searching kind honours a :class:`Limit`.

For every searching kind on every game it supports among Connect4, 6x6 Othello, 9x9 Go and
chess (the human-like kinds play 19x19 Go and chess: their networks are 19x19), with a
simulation budget that would take well over 5 s: a 50 ms time limit returns a legal move
within 1 s, and a stop flag set from another thread ends the search within 1 s.  The bounds
are loose on purpose (a shared 2-core machine); the tight figures are measured by
``scripts/bench_limit.py`` (BENCHMARKS.md).  Each player is warmed up first (compilation,
network loading), so only the search is timed.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from sparring.errors import BadValueError, UnknownPlayerError
from sparring.games import get_game
from sparring.games.base import Game, State
from sparring.players import PlayerCache, make_player, parse_player, settings_from_json
from sparring.players.base import Player
from sparring.players.minimax import MinimaxPlayer, minimax_search
from sparring.players.uct import UCTPlayer
from sparring.rng import new_rng_state
from sparring.search.analysis import MoveAnalysis
from sparring.search.evaluator import UniformEvaluator
from sparring.search.limit import ChunkSizer, Limit, LimitClock, cap_time
from sparring.search.puct import PUCTConfig, search
from sparring.search.uct import uct_search

TIME_LIMIT = 0.05
BOUND = 1.0
"""Seconds: a loose bound that a correct implementation meets with a wide margin."""

HUMAN_LIKE_RANKS = {"go": "3d", "chess": "1600-1800"}

CASES: list[tuple[str, str]] = [
    # (game, spec): budgets far beyond 5 s of thinking on a 2-core CPU (specs allow at most
    # 100,000 simulations; the compiled UCT runs that in about 0.1 s on Connect4 and 6x6
    # Othello, so there it is built directly with more: "uct-direct")
    *[(g, "uct-direct") for g in ("connect4", "othello6")],
    *[(g, "uct:sims=100000") for g in ("go9", "chess")],
    *[(g, "az:sims=100000") for g in ("connect4", "othello6")],
    *[(g, "sa:sims=100000,z=1,rth=0.1") for g in ("connect4", "othello6")],
    *[(g, "sa:base=uct,sims=100000,z=1,rth=0.1") for g in ("go9", "chess")],
    *[(g, "dsa:mode=inter,sims=100000") for g in ("connect4", "othello6")],
    *[(g, "alphadda1:asim=1,bsim0=-10,nmax=100000") for g in ("connect4", "othello6")],
    *[(g, "alphadda2:sims=100000") for g in ("connect4", "othello6")],
    *[(g, "alphadda3:sims=100000") for g in ("connect4", "othello6")],
    *[(g, "human-mcts:sims=20000") for g in ("go", "chess")],
    *[(g, "sa-mcts:sims=20000,z=1") for g in ("go", "chess")],
    *[(g, f"{kind}:sims=20000,rank={rank}")
      for g, rank in HUMAN_LIKE_RANKS.items() for kind in ("se-mcts", "se-inf-mcts")],
]  # fmt: skip

_CACHE = PlayerCache()


def _position(game: Game) -> State:
    """A position a few plies in (not the opening), the same for every run."""
    state = game.initial_state()
    rng = np.random.default_rng(5)
    for _ in range(4):
        moves = game.legal_moves(state)
        state = game.play(state, int(moves[rng.integers(len(moves))]))
    return state


def _player(game: Game, spec: str) -> Player:
    if spec == "uct-direct":
        player: Player = UCTPlayer("UCT", simulations=100_000_000, seed=3)
    else:
        player = make_player(spec, game, seed=3, cache=_CACHE)
    player.new_game(game, game.to_move(_position(game)))
    return player


def _warm(player: Player, game: Game, state: State) -> None:
    player.select_move(game, state, Limit(time=TIME_LIMIT))


def _check_time_limit(player: Player, game: Game) -> MoveAnalysis:
    """The player's move under a time limit is legal and in time; its analysis."""
    state = _position(game)
    _warm(player, game, state)
    began = time.perf_counter()
    decision = player.play(game, state, Limit(time=TIME_LIMIT))
    took = time.perf_counter() - began
    move, analysis = decision.move, decision.analysis
    assert game.is_legal(state, move)
    assert took < BOUND, f"{player.name} took {took:.3f} s under a {TIME_LIMIT} s limit"
    assert analysis is not None and analysis.move == move and analysis.stopped
    return analysis


def _check_stop_flag(player: Player, game: Game) -> None:
    state = _position(game)
    _warm(player, game, state)
    event = threading.Event()
    set_at: list[float] = []

    def stop() -> None:
        set_at.append(time.perf_counter())
        event.set()

    timer = threading.Timer(0.1, stop)
    timer.start()
    try:
        decision = player.play(game, state, Limit(stop=event))
    finally:
        timer.cancel()
    returned = time.perf_counter()
    assert set_at, "the search ended before the stop flag was set"
    assert game.is_legal(state, decision.move)
    assert returned - set_at[0] < BOUND
    assert decision.analysis is not None and decision.analysis.stopped


@pytest.mark.parametrize(
    ("game_name", "spec"), CASES, ids=[f"{g}-{s.split(':')[0]}" for g, s in CASES]
)
def test_time_limit_and_stop_flag(game_name: str, spec: str) -> None:
    game = get_game(game_name)
    player = _player(game, spec)
    _check_time_limit(player, game)
    _check_stop_flag(player, game)


def test_cap_time_keeps_the_shorter_bound() -> None:
    event = threading.Event()
    assert cap_time(None, None) is None
    assert cap_time(None, 0.5) == Limit(time=0.5)
    long = Limit(time=2.0, nodes=7, stop=event)
    assert cap_time(long, 0.5) == Limit(time=0.5, nodes=7, stop=event)
    short = Limit(time=0.1, simulations=3)
    assert cap_time(short, 0.5) is short and cap_time(short, None) is short


@pytest.mark.parametrize(
    "spec",
    ["human-mcts:sims=20000", "sa-mcts:sims=20000,z=1", "se-inf-mcts:sims=20000,rank=1600-1800"],
)
def test_a_movetime_setting_caps_every_move(spec: str) -> None:
    """``movetime=S`` (the human-like kinds) bounds a move given no limit, or a longer one."""
    game = get_game("chess")
    text = f"{spec},movetime={TIME_LIMIT}"
    settings = parse_player(text)
    assert parse_player(settings.spec()) == settings
    assert settings_from_json(settings.to_json()) == settings
    assert getattr(settings, "movetime", None) == TIME_LIMIT
    player = _player(game, text)
    state = _position(game)
    _warm(player, game, state)
    for limit in (None, Limit(time=60.0)):
        began = time.perf_counter()
        decision = player.play(game, state, limit)
        took = time.perf_counter() - began
        assert game.is_legal(state, decision.move)
        assert took < BOUND, f"{player.name} took {took:.3f} s with movetime={TIME_LIMIT}"
        analysis = decision.analysis
        assert analysis is not None and analysis.stopped and analysis.simulations < 20000


@pytest.mark.parametrize(("value", "needle"), [("0", "movetime"), ("x", "not a number")])
def test_bad_movetime_is_named(value: str, needle: str) -> None:
    with pytest.raises(UnknownPlayerError, match=needle) as err:
        parse_player(f"human-mcts:movetime={value}")
    assert err.value.key == "movetime"


@pytest.mark.parametrize("game_name", ["connect4", "othello6"])
def test_minimax_time_limit_and_stop_flag(game_name: str) -> None:
    game = get_game(game_name)
    player = MinimaxPlayer("Minimax", depth=40, seed=3)  # far beyond 5 s without a limit
    analysis = _check_time_limit(player, game)
    assert analysis.depth is not None and 1 <= analysis.depth < 40
    _check_stop_flag(player, game)


# ---- a limit that never hits changes nothing ---------------------------------------------------
def _never() -> bool:
    return False


@pytest.mark.parametrize("game_name", ["connect4", "othello6", "go9"])
def test_uct_in_chunks_is_the_search_in_one_call(game_name: str) -> None:
    game = get_game(game_name)
    state = _position(game)
    whole = uct_search(game, state, 3000, new_rng_state(9))
    chunked = uct_search(game, state, 3000, new_rng_state(9), limit=Limit(stop=_never))
    assert np.array_equal(whole.visits, chunked.visits)
    assert np.array_equal(whole.q, chunked.q)
    assert whole.nodes == chunked.nodes and np.array_equal(whole.pv, chunked.pv)


@pytest.mark.parametrize(("game_name", "depth"), [("connect4", 5), ("othello6", 4)])
def test_minimax_deepening_in_chunks_gives_the_same_values(game_name: str, depth: int) -> None:
    game = get_game(game_name)
    state = _position(game)
    whole = minimax_search(game, state, depth)
    chunked = minimax_search(game, state, depth, limit=Limit(stop=_never))
    assert np.array_equal(whole.moves, chunked.moves)
    assert np.array_equal(whole.values, chunked.values)
    assert chunked.depth == depth and not chunked.stopped


def test_puct_with_a_limit_that_never_hits_is_the_plain_search() -> None:
    game = get_game("connect4")
    state = _position(game)
    config = PUCTConfig(simulations=300)
    plain = search(game, state, UniformEvaluator(), config)
    limited = search(game, state, UniformEvaluator(), config, limit=Limit(stop=_never, time=60.0))
    assert np.array_equal(plain.visits, limited.visits) and np.array_equal(plain.pv, limited.pv)


def test_progress_reports_change_nothing_and_see_the_search_grow() -> None:
    """Reports due after every chunk (``progress_every=0``): the same search as without
    them; each report a snapshot of the one growing tree, its move its pv's first."""
    game = get_game("connect4")
    state = _position(game)
    seen: list[MoveAnalysis] = []
    limit = Limit(progress=seen.append, progress_every=0.0)
    whole = uct_search(game, state, 3000, new_rng_state(9))
    clock = LimitClock(limit)
    reported = uct_search(game, state, 3000, new_rng_state(9), clock=clock)
    assert np.array_equal(whole.visits, reported.visits) and whole.nodes == reported.nodes
    assert clock.budget == 3000 and not clock.stopped
    sims = [a.simulations for a in seen]
    assert len(seen) >= 2 and sims == sorted(set(sims)) and sims[-1] < 3000
    assert all(a.search == "uct" and a.budget == 3000 and a.move == a.pv[0] for a in seen)
    config = PUCTConfig(simulations=300)
    plain = search(game, state, UniformEvaluator(), config)
    seen.clear()
    limited = search(game, state, UniformEvaluator(), config, limit=limit)
    assert np.array_equal(plain.visits, limited.visits) and np.array_equal(plain.pv, limited.pv)
    # one leaf a batch: a report after each simulation but the last
    assert [a.simulations for a in seen] == list(range(1, 300))
    assert sum(seen[-1].visits) == 299 and seen[-1].budget == 300
    assert all(a.search == "puct" and a.move == a.pv[0] for a in seen)


def test_progress_every_spaces_the_reports_and_the_player_gives_the_budget() -> None:
    game = get_game("connect4")
    state = _position(game)
    seen: list[MoveAnalysis] = []
    player = make_player("uct:sims=500", game, seed=1)
    analysis = player.play(game, state, Limit(progress=seen.append, progress_every=3600.0)).analysis
    assert seen == []  # none due within the search; the analysis is the final word
    assert analysis is not None and (analysis.simulations, analysis.budget) == (500, 500)
    analysis = player.play(game, state, Limit(simulations=40)).analysis
    assert analysis is not None and analysis.budget == 40


# ---- simulations and nodes ----------------------------------------------------------------------
def test_limit_simulations_caps_the_players_own() -> None:
    game = get_game("connect4")
    state = _position(game)
    uct = make_player("uct:sims=500", game, seed=1)
    analysis = uct.play(game, state, Limit(simulations=40)).analysis
    assert analysis is not None and analysis.simulations == 40
    assert not analysis.stopped  # a smaller budget is not a stop
    analysis = uct.play(game, state, Limit(simulations=10_000)).analysis
    assert analysis is not None and analysis.simulations == 500
    result = search(game, state, UniformEvaluator(), PUCTConfig(simulations=200),
                    limit=Limit(simulations=7))  # fmt: skip
    assert result.simulations == 7 and int(result.visits.sum()) == 7


def test_limit_nodes_stops_uct_and_puct() -> None:
    game = get_game("connect4")
    state = _position(game)
    clock = LimitClock(Limit(nodes=200))
    result = uct_search(game, state, 1_000_000, new_rng_state(2), clock=clock)
    assert clock.stopped and clock.reason == "nodes"
    assert 200 <= result.nodes < 20_000 and result.simulations < 1_000_000
    clock = LimitClock(Limit(nodes=50))
    puct = search(game, state, UniformEvaluator(), PUCTConfig(simulations=10_000), clock=clock)
    assert clock.reason == "nodes" and puct.nodes == 50  # one new node per batch of one leaf


def test_a_limit_hit_at_once_still_gives_a_legal_move() -> None:
    """Time 0: no simulation runs; the move is the prior's best (uniform: a random one)."""
    game = get_game("othello6")
    state = _position(game)
    for spec in ("uct:sims=1000", "az:sims=1000"):
        player = make_player(spec, game, seed=4, cache=_CACHE)
        decision = player.play(game, state, Limit(time=0.0))
        assert game.is_legal(state, decision.move)
        analysis = decision.analysis
        assert analysis is not None and analysis.simulations == 0 and analysis.stopped
    az = make_player("az:sims=1000", game, seed=4, cache=_CACHE)
    decision = az.play(game, state, Limit(time=0.0))
    move, analysis = decision.move, decision.analysis
    assert analysis is not None
    best_prior = analysis.moves[int(np.argmax(analysis.priors))]
    assert move == best_prior


# ---- the limit itself -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "key"),
    [
        ({"simulations": -1}, "simulations"),
        ({"nodes": 1.5}, "nodes"),
        ({"time": -0.1}, "time"),
        ({"time": float("nan")}, "time"),
        ({"stop": 3}, "stop"),
        ({"progress": 3}, "progress"),
        ({"progress_every": -1.0}, "progress_every"),
        ({"progress_every": float("inf")}, "progress_every"),
    ],
)
def test_bad_limits_name_the_field(kwargs: dict[str, object], key: str) -> None:
    with pytest.raises(BadValueError) as err:
        Limit(**kwargs)  # type: ignore[arg-type]
    assert err.value.key == key


def test_clock_reasons_and_chunk_sizes() -> None:
    assert not LimitClock(None).hit() and not Limit(simulations=5).interruptible
    assert LimitClock(Limit(stop=lambda: True)).hit() is True
    clock = LimitClock(Limit(nodes=10))
    assert not clock.hit(9) and clock.hit(10) and clock.reason == "nodes" and clock.stopped
    event = threading.Event()
    clock = LimitClock(Limit(stop=event, time=100.0))
    assert not clock.hit()
    event.set()
    assert clock.hit() and clock.reason == "stop"
    sizer = ChunkSizer(LimitClock(Limit(time=100.0)), first=16, target=0.002)
    assert sizer.next(1000) == 16 and sizer.next(5) == 5
    sizer.done(1000, 0.001)  # a million units a second: 2 ms is 2000 units
    assert sizer.next(10**9) == 2000
