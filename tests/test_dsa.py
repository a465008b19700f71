"""Dynamic strength adjustment: the controllers on hand-made results and win rates,
the ``dsa`` player kind, and save -> load -> continue giving the same games."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sparring.errors import UnknownPlayerError
from sparring.games import get_game
from sparring.players import make_player, parse_player
from sparring.players.base import RandomPlayer
from sparring.players.cache import PlayerCache
from sparring.players.settings import DSASettings
from sparring.session import GameSession
from sparring.strength.controller import MoveContext
from sparring.strength.dsa import (
    AdaptiveState,
    BayesConfig,
    BayesianDSA,
    CalibratedScale,
    EloInterGameConfig,
    EloInterGameDSA,
    EloIntraGameConfig,
    EloIntraGameDSA,
    InterGameConfig,
    InterGameDSA,
    IntraGameConfig,
    IntraGameDSA,
    cooldown_plies,
    derived_inter_steps,
    elo_posterior,
    expected_score,
    intra_step,
)
from sparring.strength.selection import StrengthSetting
from sparring.strength.target import Calibration, CalibrationPoint, load_calibration

INF = math.inf


def _point(setting: StrengthSetting, elo: float) -> CalibrationPoint:
    return CalibrationPoint(setting, "sa", setting.label(), elo, 10.0)


def hand_calibration() -> Calibration:
    """Linear in z: Elo = 1000 + 100 z on z in [-2, 2]; z=+inf 1300, z=-inf 700, floor=1 500.

    Axis t: floor 1 at -4, -inf at -3, -2..2 at themselves, +inf at 3."""
    pts = [
        _point(StrengthSetting(-INF, 0.1, 1.0), 500.0),
        _point(StrengthSetting(-INF, 0.1), 700.0),
        *[_point(StrengthSetting(float(z), 0.1), 1000.0 + 100.0 * z) for z in (-2, -1, 0, 1, 2)],
        _point(StrengthSetting(INF, 0.1), 1300.0),
    ]
    return Calibration("connect4", {"base": "uct"}, StrengthSetting(0.0, 0.1), "test", tuple(pts))


@pytest.fixture(scope="module")
def scale() -> CalibratedScale:
    return CalibratedScale(hand_calibration())


def ctx(ply: int = 0, w: float | None = None) -> MoveContext:
    return MoveContext(ply, 0, None, w)


# ---- inter-game, z ---------------------------------------------------------------------------
def test_inter_dz_schedule_exact(scale: CalibratedScale) -> None:
    config = InterGameConfig(dz_init=0.375, dz_low=0.03, r=0.95)
    assert config.step(0) == 0.375
    assert config.step(3) == pytest.approx(0.375 * 0.95**3)
    # 0.375 * 0.95^k < 0.03 first at k = 50 (0.375 * 0.95^49 = 0.0303, ^50 = 0.0288)
    assert config.step(49) == pytest.approx(0.375 * 0.95**49) and config.step(49) > 0.03
    assert config.step(50) == 0.03 and config.step(500) == 0.03
    dsa = InterGameDSA(config, scale)
    # win, win, loss, loss: z = -0.375 - 0.35625 + 0.3384375 + 0.321515625
    for score in (1.0, 1.0, 0.0, 0.0):
        assert dsa.setting(ctx()) == StrengthSetting(dsa.z, 0.1)  # held within the game
        dsa.game_over(score)
    assert dsa.z == pytest.approx(-0.375 - 0.35625 + 0.3384375 + 0.321515625)
    assert dsa.games == 4


def test_inter_draw_keeps_z_but_shrinks_the_step(scale: CalibratedScale) -> None:
    dsa = InterGameDSA(InterGameConfig(dz_init=0.5, dz_low=0.01, r=0.5), scale)
    dsa.game_over(0.5)
    assert dsa.z == 0.0 and dsa.games == 1
    dsa.game_over(1.0)  # the second game's step: 0.5 * 0.5
    assert dsa.z == pytest.approx(-0.25)


def test_inter_z_is_held_within_a_game(scale: CalibratedScale) -> None:
    dsa = InterGameDSA(InterGameConfig(), scale)
    dsa.new_game(0)
    settings = {dsa.setting(ctx(ply, w)) for ply, w in ((0, 0.9), (2, 0.1), (4, 0.5))}
    assert settings == {StrengthSetting(0.0, 0.1)}


def test_inter_clamps_with_one_notice(scale: CalibratedScale) -> None:
    notices: list[str] = []
    dsa = InterGameDSA(InterGameConfig(dz_init=1.0, dz_low=1.0, z_max=2.0), scale, notices.append)
    for _ in range(4):
        dsa.game_over(0.0)
    assert dsa.z == 2.0
    assert len(notices) == 1 and "z 3 is beyond the strongest end 2" in notices[0]
    assert "\n" not in notices[0]
    dsa.game_over(1.0)
    dsa.game_over(0.0)
    dsa.game_over(0.0)  # a new stretch at the end: told again
    assert len(notices) == 2


def test_derived_inter_steps_on_the_shipped_calibrations() -> None:
    hand = derived_inter_steps(CalibratedScale(hand_calibration()))
    assert hand.slope == pytest.approx(100.0) and (hand.dz_init, hand.dz_low) == (1.0, 0.08)
    c4 = derived_inter_steps(CalibratedScale(load_calibration(_shipped("connect4"))))
    o6 = derived_inter_steps(CalibratedScale(load_calibration(_shipped("othello6"))))
    assert (round(c4.slope, 1), c4.dz_init, c4.dz_low) == (146.8, 0.681, 0.055)
    assert (round(o6.slope, 1), o6.dz_init, o6.dz_low) == (135.7, 0.737, 0.059)
    o8 = derived_inter_steps(CalibratedScale(load_calibration(_shipped("othello"))))
    assert (round(o8.slope, 1), o8.dz_init, o8.dz_low) == (114.0, 0.877, 0.07)


def _shipped(name: str) -> str:
    from sparring.nn.zoo import default_model

    model = default_model(name)
    assert model is not None
    return str(model.with_name(model.stem + ".calibration.json"))


# ---- intra-game, z ---------------------------------------------------------------------------
def test_eq18_damping_and_cooldown_exact() -> None:
    # outside the band: the full (cooled) step, sign against the win rate
    assert intra_step(0.2, 0.1, 150, 0, 0.8) == pytest.approx(-0.2)
    assert intra_step(0.2, 0.1, 150, 0, 0.3) == pytest.approx(0.2)
    assert intra_step(0.2, 0.1, 150, 0, 0.6) == pytest.approx(-0.2)  # |W - 1/2| = eps
    # inside: dZ |W - 1/2| / eps
    assert intra_step(0.2, 0.1, 150, 0, 0.55) == pytest.approx(-0.1)
    assert intra_step(0.2, 0.1, 150, 0, 0.47) == pytest.approx(0.06)
    assert intra_step(0.2, 0.1, 150, 0, 0.5) == 0.0
    # linear cool-down: dZ(75) = 0.1, dZ(120) = 0.04, 0 from ply 150 on
    assert intra_step(0.2, 0.1, 150, 75, 0.9) == pytest.approx(-0.1)
    assert intra_step(0.2, 0.1, 150, 120, 0.1) == pytest.approx(0.04)
    assert intra_step(0.2, 0.1, 150, 150, 0.9) == 0.0
    assert intra_step(0.2, 0.1, 150, 200, 0.1) == 0.0
    assert intra_step(0.2, 0.1, 150, 75, 0.53) == pytest.approx(-0.03)  # both together


def test_intra_sign_and_game_reset(scale: CalibratedScale) -> None:
    dsa = IntraGameDSA(IntraGameConfig(dz=0.2, eps=0.1, cooldown=10), scale)
    dsa.new_game(0)
    assert dsa.uses_search
    assert dsa.setting(ctx(0, 0.9)).z == pytest.approx(-0.2)  # ahead: weaker
    assert dsa.setting(ctx(2, 0.2)).z == pytest.approx(-0.2 + 0.16)  # behind: stronger
    assert dsa.setting(ctx(4, None)).z == pytest.approx(-0.04)  # no W: unchanged
    assert dsa.setting(ctx(5, 0.55)).z == pytest.approx(-0.04 - 0.05)
    dsa.game_over(1.0)
    assert dsa.state().z == pytest.approx(-0.09) and dsa.state().games == 1
    dsa.new_game(1)
    assert dsa.setting(ctx(1, 0.5)).z == 0.0  # the paper: every game starts at z0
    carry = IntraGameDSA(IntraGameConfig(dz=0.2, cooldown=10, carry=True), scale)
    carry.new_game(0)
    carry.setting(ctx(0, 1.0))
    carry.game_over(1.0)
    carry.new_game(1)
    assert carry.setting(ctx(0, 0.5)).z == pytest.approx(-0.2)


def test_cooldown_per_game() -> None:
    assert cooldown_plies("connect4", 42) == 22
    assert cooldown_plies("othello6", 32) == 19
    assert cooldown_plies("somegame", 10) == 6


# ---- Elo space --------------------------------------------------------------------------------
def test_scale_maps_elo_and_settings(scale: CalibratedScale) -> None:
    assert (scale.low, scale.high) == (500.0, 1300.0)
    assert scale.setting_for(1050.0).z == pytest.approx(0.5)
    assert scale.elo_of(StrengthSetting(-1.5, 0.1)) == pytest.approx(850.0)
    assert scale.setting_for(1300.0).z == INF
    low = scale.setting_for(500.0)
    assert (low.z, low.floor) == (-INF, 1.0)


def test_elo_inter_steps_through_the_calibration(scale: CalibratedScale) -> None:
    notices: list[str] = []
    dsa = EloInterGameDSA(
        EloInterGameConfig(step_init=200.0, step_low=16.0, r=0.5, elo0=1000.0),
        scale,
        notices.append,
    )
    assert dsa.setting(ctx()).z == pytest.approx(0.0)
    dsa.game_over(1.0)  # 1000 - 200 = 800: z = -2
    assert dsa.target == 800.0 and dsa.setting(ctx()).z == pytest.approx(-2.0)
    dsa.game_over(1.0)  # 800 - 100 = 700: z = -inf
    assert dsa.setting(ctx()) == StrengthSetting(-INF, 0.1)
    dsa.game_over(1.0)  # - 50 = 650: into the floor
    floor = dsa.setting(ctx())
    assert floor.z == -INF and 0.0 < floor.floor < 1.0
    assert dsa.annotation()["z"] == "-inf" and dsa.annotation()["opponent_z"] is None
    assert dsa.annotation()["elo"] == pytest.approx(650.0)
    for _ in range(10):  # 25, then 16 each: 650 - 25 - 16 * 9 < 500
        dsa.game_over(1.0)
    assert dsa.target == 500.0 and dsa.setting(ctx()).floor == 1.0
    assert len(notices) == 1 and "weakest end 500" in notices[0]
    elo0 = EloInterGameDSA(EloInterGameConfig(elo0=5000.0), scale, notices.append)
    assert elo0.target == 1300.0 and len(notices) == 2


def test_elo_intra_moves_the_target(scale: CalibratedScale) -> None:
    dsa = EloIntraGameDSA(EloIntraGameConfig(step=100.0, eps=0.1, cooldown=10, elo0=1000.0), scale)
    dsa.new_game(0)
    assert dsa.setting(ctx(0, 0.95)).z == pytest.approx(-1.0)  # 900
    assert dsa.setting(ctx(5, 0.52)).z == pytest.approx(-1.1)  # 900 - 50 * 0.2
    dsa.game_over(1.0)
    dsa.new_game(1)  # carries the target over by default
    assert dsa.target == pytest.approx(890.0)


# ---- Bayesian ---------------------------------------------------------------------------------
def test_expected_score_is_the_elo_logistic() -> None:
    assert expected_score(1400.0, 1000.0) == pytest.approx(10.0 / 11.0)
    assert expected_score(1000.0, 1000.0) == 0.5


def _direct_mean(results: tuple[tuple[float, float], ...]) -> float:
    """The posterior mean on [100, 1700] (the hand scale 500..1300 with a 400 margin) by the
    trapezoid rule on a fine grid: prior N(1000, 300^2) times the Elo likelihoods."""
    x = np.linspace(100.0, 1700.0, 160001)
    dens = np.exp(-0.5 * ((x - 1000.0) / 300.0) ** 2)
    for own, s in results:
        p = 1.0 / (1.0 + 10.0 ** ((x - own) / 400.0))
        dens = dens * p**s * (1.0 - p) ** (1.0 - s)
    return float(np.trapezoid(x * dens, x) / np.trapezoid(dens, x))


def test_bayes_posterior_mean_matches_a_direct_computation(scale: CalibratedScale) -> None:
    config = BayesConfig(prior_mean=1000.0, prior_sd=300.0, margin=400.0, grid_step=1.0)
    dsa = BayesianDSA(config, scale)
    # the prior truncated to [100, 1700] (3 sd below, 2.33 above): its mean is below 1000
    assert dsa.target == pytest.approx(_direct_mean(()), abs=0.05)
    assert 990.0 < dsa.target < 995.0
    for score in (1.0, 1.0, 0.5, 0.0):
        dsa.game_over(score)
    played = [own for own, _ in dsa.results]
    assert [s for _, s in dsa.results] == [1.0, 1.0, 0.5, 0.0]
    assert played[0] == pytest.approx(_direct_mean(()), abs=0.05)
    for k in range(1, 4):  # each game was played at the posterior mean of the results before it
        assert played[k] == pytest.approx(_direct_mean(dsa.results[:k]), abs=0.05)
    assert dsa.posterior.mean == pytest.approx(_direct_mean(dsa.results), abs=0.05)
    assert dsa.target == pytest.approx(dsa.posterior.mean)
    assert played[2] < played[1] < played[0]  # two wins lowered the estimate
    assert dsa.target > played[3]  # a loss raised it


def test_bayes_uniform_prior_and_median(scale: CalibratedScale) -> None:
    post = elo_posterior(BayesConfig(prior_sd=INF, margin=0.0, grid_step=100.0), 500, 1300, ())
    assert post.mean == pytest.approx(900.0) and post.median == 900.0
    one = elo_posterior(
        BayesConfig(prior_sd=INF, margin=0.0, grid_step=100.0), 500, 1300, ((900.0, 1.0),)
    )
    assert one.mean < 900.0


def test_bayes_clamps_at_the_calibrated_range(scale: CalibratedScale) -> None:
    notices: list[str] = []
    dsa = BayesianDSA(BayesConfig(prior_mean=1000.0), scale, notices.append)
    for _ in range(30):
        dsa.game_over(0.0)
    assert dsa.target == 1300.0 and dsa.setting(ctx()).z == INF
    assert dsa.posterior.mean > 1300.0 and dsa.annotation()["opponent_elo"] > 1300.0
    assert len(notices) == 1 and "strongest end 1300" in notices[0]


# ---- state ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "make",
    [
        lambda s: InterGameDSA(InterGameConfig(), s),
        lambda s: IntraGameDSA(IntraGameConfig(cooldown=10), s),
        lambda s: EloInterGameDSA(EloInterGameConfig(), s),
        lambda s: EloIntraGameDSA(EloIntraGameConfig(cooldown=10), s),
        lambda s: BayesianDSA(BayesConfig(), s),
    ],
)
def test_state_round_trip_continues_identically(scale: CalibratedScale, make) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(5)
    scores = [float(x) for x in rng.choice([0.0, 0.5, 1.0], size=12)]
    wins = [float(x) for x in rng.random(40)]

    def play(dsa, games):  # type: ignore[no-untyped-def]
        out = []
        for g in games:
            dsa.new_game(g % 2)
            for ply in range(4):
                out.append(dsa.setting(ctx(ply, wins[(g * 4 + ply) % 40])))
            dsa.game_over(scores[g])
        return out

    straight = make(scale)
    played = play(straight, range(12))
    first = make(scale)
    play(first, range(6))
    record = json.loads(json.dumps(first.save_state()))
    assert {"z", "elo", "opponent_elo", "opponent_z", "games"} <= set(record)
    assert record["games"] == 6
    second = make(scale)
    second.restore_state(record)
    assert second.save_state() == record
    assert play(second, range(6, 12)) == played[24:]
    assert second.save_state() == straight.save_state()


def test_state_rejects_bad_records(scale: CalibratedScale) -> None:
    dsa = InterGameDSA(InterGameConfig(), scale)
    with pytest.raises(ValueError, match="mode"):
        dsa.restore_state(BayesianDSA(BayesConfig(), scale).save_state())
    with pytest.raises(ValueError, match="games"):
        dsa.restore_state({"mode": "inter", "games": -1, "z": 0, "elo": 1000})
    with pytest.raises(ValueError, match="no 'z'"):
        dsa.restore_state({"mode": "inter", "games": 0, "elo": 1000})
    state = AdaptiveState("inter", 1, -INF, 700.0, 700.0, None)
    assert state.to_json()["z"] == "-inf" and AdaptiveState.from_json(state.to_json()) == state


def test_configs_validate() -> None:
    with pytest.raises(ValueError, match="dzlow"):
        InterGameConfig(dz_init=0.1, dz_low=0.2)
    with pytest.raises(ValueError, match="eps"):
        IntraGameConfig(eps=0.0)
    with pytest.raises(ValueError, match="r must"):
        EloInterGameConfig(r=1.5)
    with pytest.raises(ValueError, match="priorsd"):
        BayesConfig(prior_sd=0.0)
    with pytest.raises(TypeError):
        InterGameConfig(unknown=1)  # type: ignore[call-arg]


# ---- the dsa player ---------------------------------------------------------------------------
def test_dsa_spec_parses_and_rejects_options_of_other_modes() -> None:
    settings = parse_player("dsa:mode=inter,dz=0.5,r=0.9,sims=8")
    assert isinstance(settings, DSASettings) and isinstance(settings.controller, InterGameConfig)
    assert settings.controller.dz_init == 0.5 and settings.controller.r == 0.9
    assert parse_player(settings.spec()) == settings
    assert parse_player("dsa").mode == "bayes"  # type: ignore[attr-defined]
    with pytest.raises(UnknownPlayerError, match="step is not an option of mode=inter"):
        parse_player("dsa:mode=inter,step=100")
    with pytest.raises(UnknownPlayerError, match="mode must be"):
        parse_player("dsa:mode=fast")
    with pytest.raises(UnknownPlayerError, match="unknown option"):
        parse_player("dsa:zz=1")
    game = get_game("connect4")
    with pytest.raises(UnknownPlayerError, match="dz must be a number > 0"):
        make_player("dsa:mode=inter,dz=-1", game, 1, PlayerCache())
    with pytest.raises(UnknownPlayerError, match=r"eps must be in \(0, 0.5\]"):
        make_player("dsa:mode=intra,eps=0.7", game, 1, PlayerCache())


def test_dsa_player_defaults_per_game() -> None:
    game = get_game("connect4")
    player = make_player("dsa:mode=inter,sims=4", game, 1, PlayerCache())
    config = player.controller.config  # type: ignore[attr-defined]
    assert (config.dz_init, config.dz_low, config.r, config.z0) == (0.681, 0.055, 0.95, 0.0)
    intra = make_player("dsa:mode=intra,sims=4", get_game("othello6"), 1, PlayerCache())
    assert intra.controller.config.cooldown == 19  # type: ignore[attr-defined]


def test_dsa_player_annotations_follow_the_contract() -> None:
    game = get_game("connect4")
    player = make_player("dsa:mode=intra,sims=8", game, 3, PlayerCache())
    session = GameSession(game, (player, RandomPlayer(seed=4)))
    session.play_out()
    mine = [a for a, m in zip(session.annotations, session.movers, strict=True) if m == 0]
    for info in mine:
        assert info is not None and {"z", "elo", "opponent_elo", "opponent_z"} <= set(info)
        assert isinstance(info["z"], float | str) and isinstance(info["elo"], float)
        assert "moves" in info and "visits" in info
        json.dumps(info)
    assert len({info["z"] for info in mine if info}) > 1  # z moved within the game
    state = player.save_state()
    assert state is not None and state["games"] == 1


def _games(spec: str, n: int, split: int | None) -> list[tuple[int, ...]]:
    """``n`` games of the dsa player against Random with alternating colours, reseeded per
    game; with ``split``, the player is saved after ``split`` games and a fresh one restored."""
    game = get_game("connect4")
    cache = PlayerCache()
    player = make_player(spec, game, 7, cache)
    out = []
    for i in range(n):
        if split is not None and i == split:
            record = json.loads(json.dumps(player.save_state()))
            player = make_player(spec, game, 7, cache)
            player.restore_state(record)
        player.reseed(100 + i)
        other = RandomPlayer(seed=200 + i)
        session = GameSession(game, (player, other) if i % 2 == 0 else (other, player))
        session.play_out()
        out.append(session.moves)
    return out


@pytest.mark.parametrize("spec", ["dsa:mode=bayes,sims=4", "dsa:mode=intra,sims=4,carry=yes"])
def test_save_load_continue_gives_the_same_games(spec: str) -> None:
    assert _games(spec, 5, None) == _games(spec, 5, 2)


FIXED_GAMES = {
    # moves played by the sa player before the controller was wired in (commit 787515a),
    # seed 1 as first player against sa:sims=8,z=-1 seeded 6
    "sa:sims=16,z=1,rth=0.5": (
        3,
        3,
        3,
        3,
        3,
        3,
        5,
        4,
        4,
        4,
        4,
        5,
        6,
        4,
        2,
        2,
        2,
        2,
        2,
        2,
        4,
        5,
        5,
        6,
        0,
        1,
        1,
        1,
        1,
        5,
        1,
        6,
        5,
        0,
        6,
        0,
        1,
        6,
        6,
        0,
        0,
    ),
    "sa:base=uct,sims=16,z=-inf,rth=0.1,floor=0.9": (5, 5, 0, 3, 6, 3, 6, 3, 2, 3),
    # sa:elo=900 under the Connect4 calibration before its floor was re-measured (the setting it
    # resolved to then; the re-measured calibration gives elo=900 another floor level)
    "sa:model=connect4,sims=200,z=-inf,rth=0.1,floor=0.8988624742624958": (
        6,
        3,
        3,
        3,
        1,
        1,
        3,
        3,
        2,
        3,
        2,
        2,
        5,
        5,
        6,
        6,
        1,
        1,
        0,
        2,
        0,
        0,
        5,
        5,
        4,
        0,
        0,
        6,
        0,
        4,
        4,
        4,
        4,
        6,
        4,
        6,
    ),
}


@pytest.mark.parametrize("spec", sorted(FIXED_GAMES))
def test_fixed_setting_players_play_the_games_they_played_before(spec: str) -> None:
    """A plain ``sa`` player is the FixedController path: the same games as before."""
    game = get_game("connect4")
    player = make_player(spec, game, 1)
    assert type(player.controller).__name__ == "FixedController"  # type: ignore[attr-defined]
    session = GameSession(game, (player, make_player("sa:sims=8,z=-1", game, 6)))
    session.play_out()
    assert session.moves == FIXED_GAMES[spec]
    assert player.save_state() is None


# ---- play --adaptive -------------------------------------------------------------------------
def _play_adaptive(*args: str, stdin: str) -> Any:
    from typer.testing import CliRunner

    from sparring.cli import app

    return CliRunner().invoke(app, ["play", "connect4", "--adaptive", *args], input=stdin)


def test_play_adaptive_series_shows_the_estimate_and_keeps_a_profile(tmp_path: Path) -> None:
    profile = tmp_path / "me.json"
    args = ("-o", "dsa:sims=4", "--seed", "1", "--profile", str(profile))
    # game 1: resign at once (a loss), play another; game 2: resign, stop
    result = _play_adaptive(*args, stdin="resign\ny\nresign\nn\n")
    assert result.exit_code == 0, result.output
    # The prior's mean over the calibrated range [614, 2267] (1498 when the range began at 581,
    # 1499 at 607: the prior's mean moves by about 1 Elo).
    assert "No estimate of your strength yet; I start at Elo 1499." in result.output
    assert "Game 1: you are X (moves first)" in result.output
    assert "Game 2: you are O (moves second)" in result.output
    estimates = re.findall(r"My estimate of your Elo after (\d) game\(s\): (\d+)", result.output)
    assert [int(n) for n, _ in estimates] == [1, 2]
    first, second = (int(e) for _, e in estimates)
    assert second < first < 1500  # two losses: the estimate of the person goes down
    data = json.loads(profile.read_text())
    assert data["format"] == "sparring.profile" and data["identity"]["display_name"] == "me"
    (entry,) = data["adaptive"]  # kept under the game and the kind, with the spec played
    assert (entry["game"], entry["kind"], entry["spec"]) == ("connect4", "dsa", "dsa:sims=4")
    assert entry["state"]["games"] == 2 and round(entry["state"]["opponent_elo"]) == second
    assert [g["result"] for g in data["history"]] == [0.0, 0.0]
    assert [g["side"] for g in data["history"]] == [0, 1]
    assert [round(e["estimate"]) for e in data["estimates"]] == [first, second]
    # the next session continues from the profile: one more loss, lower again
    again = _play_adaptive(*args, stdin="resign\nn\n")
    assert again.exit_code == 0, again.output
    assert "continuing from" in again.output
    assert f"after 2 game(s): {second}" in again.output  # shown before the first game
    third = re.findall(r"after 3 game\(s\): (\d+)", again.output)
    assert len(third) == 1 and int(third[0]) < second
    assert json.loads(profile.read_text())["adaptive"][0]["state"]["games"] == 3
    # another non-essential option (sims) keeps the state: same game, same kind
    more = _play_adaptive("-o", "dsa:sims=5", "--profile", str(profile), stdin="quit\n")
    assert more.exit_code == 0 and "after 3 game(s)" in more.output


def test_play_adaptive_upgrades_an_old_profile_and_rejects_a_state_that_does_not_fit(
    tmp_path: Path,
) -> None:
    profile = tmp_path / "me.json"
    state = {"mode": "inter", "games": 1, "z": 0.5}
    legacy = {"format": "sparring-adaptive-profile", "game": "connect4", "spec": "dsa"}
    profile.write_text(json.dumps({**legacy, "state": None}))
    upgraded = _play_adaptive("-o", "dsa:sims=4", "--profile", str(profile), stdin="resign\nn\n")
    assert upgraded.exit_code == 0, upgraded.output
    data = json.loads(profile.read_text())
    assert data["format"] == "sparring.profile" and data["adaptive"][0]["kind"] == "dsa"
    data["adaptive"][0]["state"] = state
    profile.write_text(json.dumps(data))
    result = _play_adaptive("-o", "dsa:sims=4", "--profile", str(profile), stdin="")
    assert result.exit_code == 2 and "was kept by 'dsa:sims=4' and does not fit" in result.output
    fixed = _play_adaptive("-o", "random", stdin="")
    assert fixed.exit_code == 2 and "does not adapt" in fixed.output


# ---- series: stop and resume ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "wipe_states"),
    [("dsa:sims=4", False), ("dsa:mode=intra,sims=4,carry=yes", False), ("dsa:sims=4", True)],
    ids=["bayes-restore", "intra-restore", "bayes-replay"],
)
def test_series_stop_and_resume_plays_the_same_games(spec: str, wipe_states: bool) -> None:
    """Stored states restore the adaptive player; without them, replaying the stored games
    rebuilds an inter-game controller's state (its updates depend only on the results)."""
    from sparring.evaluation.series import SeriesConfig, run_series
    from sparring.evaluation.store import GameStore

    config = SeriesConfig("connect4", spec, "random", games_per_series=5, series=1, seed=3)
    straight = run_series(config, progress=False)
    with GameStore(":memory:") as store:
        run_series(config, store, progress=False, stop_after=2)
        if wipe_states:
            store._db.execute("UPDATE games SET player_states = NULL")  # as test_series does
        resumed = run_series(config, store, progress=False)
    assert (resumed.played, resumed.skipped) == (3, 2)
    assert [r.moves for r in resumed.records] == [r.moves for r in straight.records]
    final = [r.player_states for r in straight.records][-1]
    assert final is not None and final[0]["games"] == 5  # type: ignore[index]
