"""Tests of strength-adjusted move selection (Wu et al. 2019) and of the ``sa`` player."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sparring.errors import UnknownPlayerError
from sparring.games import get_game
from sparring.players import make_player
from sparring.players.base import Decision
from sparring.players.strength import StrengthAdjustedPlayer
from sparring.strength.selection import (
    StrengthSetting,
    candidate_mask,
    floor_schedule,
    format_z,
    parse_z,
    sa_distribution,
    sephton_distribution,
    strength_distribution,
    top_n_distribution,
)

INF = math.inf


# ---- the selection function on hand-made visit vectors ---------------------------------------
def test_threshold_screens_candidates() -> None:
    visits = [100, 50, 10, 9, 0]
    assert candidate_mask(visits, 0.1).tolist() == [True, True, True, False, False]
    assert candidate_mask(visits, 0.5).tolist() == [True, True, False, False, False]
    assert candidate_mask(visits, 0.0).tolist() == [True] * 5
    assert candidate_mask(visits, 1.0).tolist() == [True, False, False, False, False]


def test_softmax_over_candidates() -> None:
    visits = [100, 50, 10, 9, 0]
    p = sa_distribution(visits, 1.0, 0.1)
    np.testing.assert_allclose(p, np.array([100, 50, 10, 0, 0]) / 160)
    p = sa_distribution(visits, 2.0, 0.1)
    np.testing.assert_allclose(p, np.array([1e4, 2500, 100, 0, 0]) / 12600)
    p = sa_distribution(visits, -1.0, 0.1)
    w = np.array([1 / 100, 1 / 50, 1 / 10, 0, 0])
    np.testing.assert_allclose(p, w / w.sum())


def test_limits_of_z() -> None:
    visits = [100, 50, 10, 10, 9]
    np.testing.assert_allclose(sa_distribution(visits, INF, 0.1), [1, 0, 0, 0, 0])
    np.testing.assert_allclose(sa_distribution(visits, -INF, 0.1), [0, 0, 0.5, 0.5, 0])
    np.testing.assert_allclose(sa_distribution(visits, 0.0, 0.1), [0.25, 0.25, 0.25, 0.25, 0])
    # Ties for the most visited move are shared.
    np.testing.assert_allclose(sa_distribution([7, 7, 1], INF, 0.1), [0.5, 0.5, 0])
    # Huge finite z behaves like the limits without overflow.
    np.testing.assert_allclose(
        sa_distribution([1e9, 1e9 - 1, 5e8], 1e6, 0.1), [0.5, 0.5, 0], atol=0.01
    )
    assert sa_distribution([1e9, 1e9 - 1, 5e8], 1e300, 0.1)[2] == 0.0
    np.testing.assert_allclose(sa_distribution([100, 50, 10], -1e300, 0.1), [0, 0, 1])


def test_zero_visit_conventions() -> None:
    visits = [10, 5, 0, 0]
    # R_th > 0: zero-visit moves are never candidates, whatever z.
    for z in (-INF, -3.0, 0.0, 3.0, INF):
        assert sa_distribution(visits, z, 0.01)[2:].sum() == 0.0
    # R_th = 0 (Sephton): 0^z = 0 for z > 0, 0^0 = 1, 0^z = inf for z < 0.
    np.testing.assert_allclose(sephton_distribution(visits, 1.0), [10 / 15, 5 / 15, 0, 0])
    np.testing.assert_allclose(sephton_distribution(visits, 0.0), [0.25] * 4)
    np.testing.assert_allclose(sephton_distribution(visits, -0.5), [0, 0, 0.5, 0.5])
    np.testing.assert_allclose(sephton_distribution(visits, -INF), [0, 0, 0.5, 0.5])
    # No visits at all: uniform over the legal moves.
    for z in (-INF, -1.0, 0.0, 1.0, INF):
        np.testing.assert_allclose(sa_distribution([0, 0, 0], z, 0.1), [1 / 3] * 3)


def test_top_n_keeps_ties() -> None:
    visits = [40, 30, 30, 5]
    np.testing.assert_allclose(top_n_distribution(visits, 0.0, 1), [1, 0, 0, 0])
    np.testing.assert_allclose(top_n_distribution(visits, 0.0, 2), [1 / 3, 1 / 3, 1 / 3, 0])
    np.testing.assert_allclose(top_n_distribution(visits, 1.0, 10), np.array(visits) / 105)
    with pytest.raises(ValueError):
        top_n_distribution(visits, 1.0, 0)


def test_batches_with_a_legal_mask() -> None:
    visits = np.array([[10, 5, 1, 99], [3, 3, 0, 0]])
    legal = np.array([[1, 1, 1, 0], [1, 1, 1, 0]], dtype=bool)
    p = sa_distribution(visits, 1.0, 0.1, legal)
    np.testing.assert_allclose(p[0], [10 / 16, 5 / 16, 1 / 16, 0])
    np.testing.assert_allclose(p[1], [0.5, 0.5, 0, 0])


@pytest.mark.parametrize(
    ("visits", "z", "rth"),
    [([], 1.0, 0.1), ([1, -1], 1.0, 0.1), ([1, 2], math.nan, 0.1), ([1, 2], 1.0, 1.5)],
)
def test_bad_input(visits: list[int], z: float, rth: float) -> None:
    with pytest.raises(ValueError):
        sa_distribution(visits, z, rth)


def test_floor_schedule_and_setting() -> None:
    assert floor_schedule(0.0) == (0.1, 0.0)
    assert floor_schedule(0.5) == pytest.approx((0.05, 0.0))
    assert floor_schedule(1.0) == (0.0, 0.0)
    assert floor_schedule(1.25) == (0.0, 0.25)
    assert floor_schedule(2.0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        floor_schedule(2.5)
    with pytest.raises(ValueError, match="z = -inf"):
        StrengthSetting(0.0, 0.1, 0.5)
    setting = StrengthSetting(-INF, 0.1, 1.5)
    assert setting.effective == (-INF, 0.0, 0.5)
    assert setting.label() == "z=-inf,rth=0.1,floor=1.5"
    # Half the time the least visited move, half the time a uniformly random one.
    p = strength_distribution([10, 5, 1, 2], setting)
    np.testing.assert_allclose(p, [0.125, 0.125, 0.625, 0.125])
    np.testing.assert_allclose(
        strength_distribution([10, 5, 1], StrengthSetting(-INF, 0.1, 2)), [1 / 3] * 3
    )
    assert [format_z(z) for z in (INF, -INF, 1.5)] == ["+inf", "-inf", "1.5"]
    assert parse_z("-inf") == -INF and parse_z(" inf ") == INF and parse_z("0.5") == 0.5


# ---- properties -------------------------------------------------------------------------------
visit_vectors = st.lists(st.integers(0, 10**6), min_size=1, max_size=12)
z_values = st.one_of(st.floats(-50, 50, allow_nan=False), st.sampled_from([-INF, INF, 0.0]))
rth_values = st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, 0.1, 1.0]))


@settings(max_examples=150, deadline=None)
@given(visit_vectors, z_values, rth_values)
def test_distribution_respects_eq7(visits: list[int], z: float, rth: float) -> None:
    p = sa_distribution(visits, z, rth)
    assert p.shape == (len(visits),)
    assert np.all(p >= 0) and p.sum() == pytest.approx(1.0)
    n = np.array(visits, dtype=float)
    chosen = p > 0
    # Eq. 7: every move that can be chosen has N_i >= R_th N_max, i.e. ln R_i >= ln R_th.
    assert np.all(n[chosen] >= rth * n.max())


@settings(max_examples=100, deadline=None)
@given(visit_vectors, st.lists(z_values, min_size=2, max_size=6), rth_values)
def test_top_move_probability_is_monotone_in_z(
    visits: list[int], zs: list[float], rth: float
) -> None:
    top = np.array(visits) == max(visits)
    probs = [float(sa_distribution(visits, z, rth)[top].sum()) for z in sorted(zs)]
    assert all(a <= b + 1e-9 for a, b in itertools.pairwise(probs))


# ---- the sa player ----------------------------------------------------------------------------
def _play_some(player: StrengthAdjustedPlayer, plies: int = 3) -> list[Decision]:
    game = get_game("tictactoe")
    state = game.initial_state()
    decisions = []
    for _ in range(plies):
        decisions.append(player.play(game, state))
        state = game.play(state, decisions[-1].move)
    return decisions


def test_sa_player_on_uct_is_seeded_and_reports_visits() -> None:
    game = get_game("tictactoe")
    spec = "sa:base=uct,sims=60,z=1,rth=0.1"
    a, b = make_player(spec, game, 7), make_player(spec, game, 7)
    assert isinstance(a, StrengthAdjustedPlayer) and a.name == "SA(z=1,rth=0.1)"
    played = _play_some(a)  # type: ignore[arg-type]
    assert [d.move for d in played] == [d.move for d in _play_some(b)]  # type: ignore[arg-type]
    info = played[-1].annotation
    assert info is not None and sum(info["visits"]) == 60
    assert sorted(info["moves"]) == info["moves"] and len(info["moves"]) == 7


def test_sa_player_limits() -> None:
    game = get_game("tictactoe")
    state = game.initial_state()
    best = make_player("sa:base=uct,sims=80,z=inf", game, 3)
    decision = best.play(game, state)
    move, info = decision.move, decision.annotation
    assert info is not None
    assert info["visits"][info["moves"].index(move)] == max(info["visits"])
    worst = make_player("sa:base=uct,sims=80,z=-inf,rth=0", game, 3)
    decision = worst.play(game, state)
    move, info = decision.move, decision.annotation
    assert info is not None and info["visits"][info["moves"].index(move)] == min(info["visits"])
    rand = make_player("sa:base=uct,floor=2", game, 3)
    assert rand.name == "SA(z=-inf,rth=0.1,floor=2)"
    decision = rand.play(game, state)
    assert decision.move in range(9) and decision.annotation == {"random": True}
    for spec in ("sa:base=uct,sims=40,select=sephton,z=-1", "sa:base=uct,sims=40,select=topn,n=2"):
        assert make_player(spec, game, 1).select_move(game, state) in range(9)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("sa:base=uct,foo=1", "unknown option"),
        ("sa:base=uct,z=1,floor=0.5", "z = -inf"),
        ("sa:base=uct,rth=2", "R_th"),
        ("sa:base=uct,z=nan", "z must"),
        ("sa:base=mcts", "base must be"),
        ("sa:base=uct,cpuct=1", "for base=az"),
        ("sa:base=uct,elo=1500", "calibration=PATH"),
        ("sa:base=uct,z=1,elo=1500", "either elo or z"),
        ("sa:base=uct,calibration=x.json", "calibration file 'x.json' not found"),
        ("sa:base=uct,select=best", "select must"),
        ("sa:base=az,model=/nonexistent.pt", "neither a file"),
    ],
)
def test_sa_spec_errors(spec: str, message: str) -> None:
    with pytest.raises(UnknownPlayerError, match=message):
        make_player(spec, get_game("tictactoe"), 0)


def test_sa_player_on_a_tiny_network(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from sparring.nn.model import NetworkConfig, build_model, save_model

    game = get_game("tictactoe")
    model = tmp_path / "net.pt"
    save_model(model, build_model(NetworkConfig.for_game(game, blocks=1, channels=8), 0))
    player = make_player(f"sa:base=az,model={model},sims=16,z=0.5,rth=0.05", game, 2)
    state = game.initial_state()
    decision = player.play(game, state)
    move, info = decision.move, decision.annotation
    assert game.is_legal(state, move) and info is not None and sum(info["visits"]) == 16
    assert info["visits"][info["moves"].index(move)] >= 0.05 * max(info["visits"])
