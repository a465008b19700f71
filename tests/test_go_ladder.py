"""Moves drawn from the play network's policy (``human-mcts:...,sims=1,temp=T``,
:mod:`sparring.players.sampling`) and the batched Go ladder runner
(:mod:`sparring.experiments.go_ladder`) that must play the same player."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from script_module import load_script  # noqa: E402
from sparring.errors import PlayerSettingsError  # noqa: E402
from sparring.experiments.go_ladder import (  # noqa: E402
    AnchorGame,
    BatchedGames,
    LadderGame,
    LadderNetwork,
    Rung,
    _prepare,
    _priors,
    append_records,
    choose_temperature,
    confirmation_games,
    fit_logistic,
    fit_logistic_polynomial,
    game_records,
    game_seeds,
    load_network,
    moves_hash,
    padded_batch,
    pair_summaries,
    read_records,
    temperature_grid,
    wilson,
)
from sparring.games.go import Go, gtp_to_move  # noqa: E402
from sparring.kinds import register_builtin_kinds  # noqa: E402
from sparring.players.external import find_program  # noqa: E402
from sparring.players.human_like import HumanMCTSSettings  # noqa: E402
from sparring.players.registry import make_player, parse_player  # noqa: E402
from sparring.players.sampling import (  # noqa: E402
    NO_PASS,
    PolicySamplingPlayer,
    policy_probabilities,
    sample_policy_moves,
)
from sparring.session import GameSession  # noqa: E402

register_builtin_kinds()

SPEC = "human-mcts:model=go-play,rank={rank},sims=1,temp={temp}"
OPENING = ["Q16", "D4", "Q4", "D16", "R6", "C14"]
"""A few moves of a common opening: the positions after 0..6 of them."""


@pytest.fixture(scope="module")
def go() -> Go:
    return Go(19, 0.5)


@pytest.fixture(scope="module")
def positions(go: Go) -> list[np.ndarray]:
    states = [go.initial_state()]
    for text in OPENING:
        states.append(go.play(states[-1], gtp_to_move(text, 19)))
    return states


# ---- the kernels on hand cases --------------------------------------------------------------
def _row(priors: list[float], allowed: list[bool] | None = None) -> tuple[np.ndarray, np.ndarray]:
    p = np.array([priors], dtype=np.float32)
    a = np.array([allowed if allowed is not None else [x > 0 for x in priors]], dtype=np.bool_)
    return p, a


def test_probabilities_at_temperatures_by_hand() -> None:
    """Priors 0.5, 0.3, 0.2 and a pass of prior 0 (action 3): T = 1 keeps them, T = 0.5
    squares and renormalises them (0.25, 0.09, 0.04 over 0.38), T = 0 puts all on the top."""
    priors, allowed = _row([0.5, 0.3, 0.2, 0.0], [True, True, True, True])
    no = np.zeros(1, dtype=np.bool_)
    for temp, want in (
        (1.0, [0.5, 0.3, 0.2, 0.0]),
        (0.5, [0.25 / 0.38, 0.09 / 0.38, 0.04 / 0.38, 0.0]),
        (0.0, [1.0, 0.0, 0.0, 0.0]),
        (2.0, np.sqrt([0.5, 0.3, 0.2, 0.0]) / np.sqrt([0.5, 0.3, 0.2]).sum()),
        (0.01, [1.0, 0.3**100 / 0.5**100, 0.0, 0.0]),
    ):
        got = policy_probabilities(priors, allowed, no, np.array([temp]), 3)[0]
        assert np.allclose(got, want, rtol=1e-6, atol=1e-9), (temp, got)


def test_draws_invert_the_cumulative_weights() -> None:
    """With priors 0.5, 0.3, 0.2 (cumulative 0.5, 0.8, 1.0) at T = 1 the uniform u picks
    the first action whose cumulative weight exceeds u (u = 0.5 is the second)."""
    priors, allowed = _row([0.5, 0.3, 0.2, 0.0], [True, True, True, True])
    no = np.zeros(1, dtype=np.bool_)
    for u, want in ((0.0, 0), (0.49, 0), (0.5, 1), (0.79, 1), (0.81, 2), (0.999999, 2)):
        got = sample_policy_moves(priors, allowed, no, np.ones(1), np.array([u]), 3)[0]
        assert got == want, (u, got)


def test_finishing_rules_in_the_draw() -> None:
    """An avoided move (an own eye) is never drawn; ties at T = 0 split evenly; only the pass
    allowed forces it, as does the pass-to-win flag; a game without a pass never passes."""
    no, yes = np.zeros(1, dtype=np.bool_), np.ones(1, dtype=np.bool_)
    priors, allowed = _row([0.6, 0.2, 0.2, 0.0], [False, True, True, True])
    got = policy_probabilities(priors, allowed, no, np.ones(1), 3)[0]
    assert np.allclose(got, [0.0, 0.5, 0.5, 0.0])
    got = policy_probabilities(priors, allowed, no, np.zeros(1), 3)[0]
    assert np.allclose(got, [0.0, 0.5, 0.5, 0.0])
    priors, allowed = _row([0.9, 0.0, 0.0, 0.1], [False, False, False, True])
    assert policy_probabilities(priors, allowed, no, np.ones(1), 3)[0].tolist() == [0, 0, 0, 1]
    assert sample_policy_moves(priors, allowed, no, np.ones(1), np.zeros(1), 3)[0] == 3
    priors, allowed = _row([0.5, 0.3, 0.2, 0.0], [True, True, True, True])
    assert sample_policy_moves(priors, allowed, yes, np.ones(1), np.zeros(1), 3)[0] == 3
    priors, allowed = _row([0.5, 0.5, 0.0], [True, True, False])
    got = sample_policy_moves(priors, allowed, yes, np.ones(1), np.array([0.7]), NO_PASS)
    assert got[0] == 1


# ---- the option ------------------------------------------------------------------------------
def test_temp_option_spec_json_and_name() -> None:
    settings = parse_player("human-mcts:model=go-play,rank=9d,sims=1,temp=0.5")
    assert isinstance(settings, HumanMCTSSettings)
    assert settings.temperature == 0.5
    assert settings.spec() == "human-mcts:rank=9d,sims=1,model=go-play,temp=0.5"
    data = settings.to_json()
    assert data["temp"] == 0.5
    assert HumanMCTSSettings.from_json(data) == settings
    assert settings.display_name() == "Policy(9d, T=0.5)"
    schema = HumanMCTSSettings.json_schema()["properties"]["temp"]
    assert (schema["minimum"], schema["maximum"]) == (0, 100)
    assert parse_player("human-mcts:model=go-play,rank=9d,sims=1,temp=0").spec().endswith("temp=0")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ("sims=1,temp=-0.5", "temp must be a number in [0, 100]"),
        ("sims=1,temp=nan", "temp must be a number in [0, 100]"),
        ("sims=1,temp=101", "temp must be a number in [0, 100]"),
        ("sims=1,temp=hot", "temp='hot' is not a number"),
        ("temp=1", "give sims=1, not sims=100"),
        ("sims=4,temp=1", "give sims=1, not sims=4"),
        ("sims=1,temp=1,sweep=true", "drop sweep"),
    ],
)
def test_bad_temperatures_are_refused(options: str, message: str) -> None:
    with pytest.raises(PlayerSettingsError) as info:
        parse_player(f"human-mcts:model=go-play,rank=9d,{options}")
    assert message in str(info.value)
    assert info.value.key == "temp"


def test_other_kinds_take_no_temp() -> None:
    with pytest.raises(Exception, match="unknown option 'temp'"):
        parse_player("sa-mcts:model=go-play,rank=9d,z=1,temp=1")


# ---- the player ------------------------------------------------------------------------------
def _moves(go: Go, spec: str, seed: int, positions: list[np.ndarray]) -> list[int]:
    player = make_player(spec, go, seed)
    return [player.select_move(go, s) for s in positions]


def test_same_seed_same_moves_other_seeds_other_moves(go: Go, positions: list[np.ndarray]) -> None:
    """At T = 1 the seed decides the draws: the same seed replays them, and each of five
    seeds differs from each other one at one position at least."""
    spec = SPEC.format(rank="9d", temp=1)
    runs = [_moves(go, spec, seed, positions) for seed in range(5)]
    assert _moves(go, spec, 3, positions) == runs[3]
    for i in range(5):
        for j in range(i + 1, 5):
            assert runs[i] != runs[j], (i, j)
    assert len({tuple(r) for r in runs}) == 5


def test_zero_temperature_plays_the_top_prior(go: Go, positions: list[np.ndarray]) -> None:
    """T = 0 plays the allowed move of the highest prior, whatever the seed."""
    player = make_player(SPEC.format(rank="5d", temp=0), go, 1)
    assert isinstance(player, PolicySamplingPlayer)
    for state in positions:
        priors, _ = player.evaluator.evaluate(go.encode(state)[None], go.legal_mask(state)[None])
        allowed = go.legal_mask(state) & ~go.own_eyes(state)
        top = int(np.argmax(np.where(allowed, priors[0], -1.0)))
        for seed in (1, 2):
            cold = make_player(SPEC.format(rank="5d", temp=0), go, seed)
            assert cold.select_move(go, state) == top


# ---- the runner plays the player -------------------------------------------------------------
@pytest.fixture(scope="module")
def network() -> LadderNetwork:
    return load_network()


def test_runner_distribution_equals_the_players(
    go: Go, positions: list[np.ndarray], network: LadderNetwork
) -> None:
    """For each position, rank and temperature, the probabilities of the runner's batch (all
    positions in one network call) equal the player's (one call a position)."""
    states = np.stack(positions)
    n, actions = len(positions), go.num_actions
    planes = np.zeros((n, go.num_planes, 19, 19), np.float32)
    legal = np.zeros((n, actions), np.bool_)
    avoid = np.zeros((n, actions), np.bool_)
    pass_now = np.zeros(n, np.bool_)
    _prepare(states, np.arange(n), planes, legal, avoid, pass_now)
    for rank, temp in (("9d", 1.0), ("1-2k", 0.5), ("3d", 1.7)):
        ranks = np.full(n, network.rank_index(rank), np.int64)
        priors = _priors(network.logits(planes, ranks), legal)
        temps = np.full(n, temp)
        batched = policy_probabilities(priors, legal & ~avoid, pass_now, temps, go.pass_move)
        player = make_player(SPEC.format(rank=rank, temp=temp), go, 0)
        assert isinstance(player, PolicySamplingPlayer)
        for i, state in enumerate(positions):
            player.select_move(go, state)
            assert player.last_result is not None
            single = player.probabilities(go, state, player.last_result)
            # the runner's network call and the player's differ by float rounding (torch
            # against ONNX Runtime: logits within about 1e-4), so the probabilities agree to a
            # relative 1e-4
            np.testing.assert_allclose(single, batched[i], rtol=1e-4, atol=1e-9)
            assert single.sum() == pytest.approx(1.0)


def test_runner_games_are_the_players_games(network: LadderNetwork) -> None:
    """Four games (capped at 30 plies) of the runner: the same moves in two lanes at batch 4
    as in one lane at batch 3; two of them replayed by the per-game players with the seeds
    the runner gave them, in a GameSession: the same moves and results."""
    top, low = Rung("9d", 0.5), Rung("1-2k", 1.5)
    games = [LadderGame("t", low, top, *game_seeds(7, 0, i), i) for i in range(4)]
    outcomes = BatchedGames(network, batch=4, max_ply=30, lanes=2).play(games)
    assert sorted(o.game.index for o in outcomes) == [0, 1, 2, 3]
    one_lane = BatchedGames(network, batch=3, max_ply=30, lanes=1).play(games)
    by_index = {o.game.index: o.moves.tolist() for o in one_lane}
    assert all(o.moves.tolist() == by_index[o.game.index] for o in outcomes)
    go = Go(19, 0.5, 30)
    for o in outcomes[:2]:
        black = make_player(o.game.black.spec(), go, o.game.black_seed)
        white = make_player(o.game.white.spec(), go, o.game.white_seed)
        session = GameSession(go, (black, white))
        session.play_out()
        record = session.record()
        assert list(record.moves) == o.moves.tolist()
        assert record.result == o.black_score
        assert o.capped and len(o.moves) == 30
        data = o.record()
        assert set(data) >= {"phase", "pair", "result", "margin", "plies", "hash", "moves"}
        assert data["pair"] == "1-2k@1.5 vs 9d@0.5" and len(data["moves"]) == 60


# ---- records and statistics ------------------------------------------------------------------
def test_wilson_interval_exact_values() -> None:
    """Hand values (z = 1.96): 5 of 10 gives 0.23659-0.76341; 30 of 60 gives 0.37735-0.62265,
    wider than 40-60%, so 60 games at 50% do not show a level pair; 50 of 100 does."""
    assert wilson(5, 10) == pytest.approx((0.2365896, 0.7634104), abs=1e-7)
    assert wilson(30, 60) == pytest.approx((0.3773481, 0.6226519), abs=1e-7)
    assert wilson(50, 100) == pytest.approx((0.4038298, 0.5961702), abs=1e-7)


def _game(
    pair: str, seed: int, result: float, moves: str, phase: str = "confirm"
) -> dict[str, object]:
    return {"type": "game", "phase": phase, "pair": pair, "black_seed": seed,
            "white_seed": seed + 1, "result": result, "hash": moves, "capped": False,
            "plies": 200}  # fmt: skip


def test_duplicates_and_merged_files(tmp_path: Path) -> None:
    """Four games of a pair, two of which repeat the first's moves: 2 duplicates; the same
    games again in a second file (a merged run) count once."""
    games = [_game("a vs b", 1, 1.0, "h1"), _game("a vs b", 2, 0.0, "h1"),
             _game("a vs b", 3, 0.5, "h2"), _game("a vs b", 4, 1.0, "h1"),
             _game("c vs a", 5, 0.0, "h3")]  # fmt: skip
    append_records(tmp_path / "one.jsonl", games)
    append_records(tmp_path / "two.jsonl", [*games[:2], {"type": "timing", "games": 2}])
    with (tmp_path / "two.jsonl").open("a") as f:
        f.write('{"type": "game", "cut')  # a line cut short by a stopped run
    records = list(read_records([tmp_path / "one.jsonl", tmp_path / "two.jsonl"]))
    assert len(game_records(records)) == 5
    first, second = pair_summaries(records)
    assert (first.pair, first.games, first.wins, first.losses, first.draws) == (
        "a vs b",
        4,
        2,
        1,
        1,
    )
    assert first.duplicates == 2 and first.score == 0.625
    assert (second.games, second.duplicates, second.score) == (1, 0, 0.0)
    assert pair_summaries(records, "tune") == []
    assert moves_hash(np.array([1, 2, 3])) == moves_hash(np.array([1, 2, 3]))
    assert moves_hash(np.array([1, 2, 3])) != moves_hash(np.array([1, 3, 2]))
    json.dumps(first.to_json())


def test_level_rule() -> None:
    """A pair is level when the Wilson interval lies inside 40-60%: 50 of 100 yes, 30 of 60
    no (too few games), 58 of 100 no (0.482-0.672)."""
    for wins, games, level in ((50, 100, True), (30, 60, False), (58, 100, False)):
        records = [_game("x vs y", i, 1.0 if i < wins else 0.0, f"h{i}") for i in range(games)]
        (summary,) = pair_summaries(records)
        assert summary.level is level


def test_logistic_fit_and_the_chosen_temperature() -> None:
    """Scores symmetric in log T about T = 1 (3 of 4 at T = 0.5, 1 of 4 at T = 2) cross 50% at
    T = 1; scores that never reach 50% choose the end nearer to it, unbracketed."""
    temps = [0.5] * 4 + [2.0] * 4
    results = [1, 1, 1, 0, 0, 0, 0, 1]
    chosen, a, b, bracketed = choose_temperature(temps, results)
    assert chosen == pytest.approx(1.0, abs=1e-9) and bracketed and b < 0
    assert a == pytest.approx(0.0, abs=1e-9)
    assert b == pytest.approx(-math.log(3) / math.log(2), rel=1e-2)
    chosen, _, _, bracketed = choose_temperature(temps, [1, 1, 1, 1, 1, 1, 0, 1])
    assert chosen == 2.0 and not bracketed
    # two points: the fit goes through both shares (0.5 at x = 0, 0.75 at x = 1)
    a, b = fit_logistic([0.0] * 4 + [1.0] * 4, [1, 1, 0, 0, 1, 1, 1, 0], ridge=0.0)
    assert a == pytest.approx(0.0, abs=1e-9) and b == pytest.approx(math.log(3), abs=1e-9)


def test_the_quadratic_fit_finds_a_bent_crossing() -> None:
    """Shares that follow ``1 / (1 + exp(-(0.2 - 1.5 x - 4 x^2)))`` of the centred ``x = log
    T`` (flat at low T, steep above) cross 50% where ``0.2 - 1.5 x - 4 x^2 = 0``, at the root
    ``x = (-1.5 + sqrt(1.5^2 + 3.2)) / 8 = 0.10432``; the quadratic fit finds it, the line
    does not."""
    xs = np.linspace(-0.3, 0.3, 7)
    temps = np.exp(xs + 0.1)  # the fit centres log T itself: the mean of log T is 0.1
    shares = 1.0 / (1.0 + np.exp(-(0.2 - 1.5 * xs - 4 * xs**2)))
    root = (-1.5 + math.sqrt(1.5**2 + 4 * 4 * 0.2)) / (2 * 4)
    assert root == pytest.approx(0.10432, abs=1e-5)
    # each share as 1,000 games' mean, so that the fit's small ridge does not matter
    games_temps, games_shares = list(np.repeat(temps, 1000)), list(np.repeat(shares, 1000))
    chosen, _, _, bracketed = choose_temperature(games_temps, games_shares, degree=2)
    assert bracketed and math.log(chosen) - 0.1 == pytest.approx(root, abs=1e-3)
    line, _, _, _ = choose_temperature(games_temps, games_shares, degree=1)
    assert abs(math.log(line) - 0.1 - root) > 0.02
    coefficients = fit_logistic_polynomial(xs, shares, 2, ridge=0.0)
    assert coefficients == pytest.approx((0.2, -1.5, -4.0), abs=1e-6)


def test_grid_seeds_and_confirmation_games() -> None:
    assert [padded_batch(n) for n in (1, 2, 3, 100, 128, 129, 1100, 2048)] == [
        1, 2, 4, 128, 128, 256, 1152, 2048,
    ]  # fmt: skip
    assert temperature_grid(1.0, 0.5, 2.0, 3) == [0.5, 1.0, 2.0]
    assert temperature_grid(0.1, 0.1, 1.0, 2) == [0.05, 0.1]
    assert game_seeds(1, 2, 3) == game_seeds(1, 2, 3) != game_seeds(1, 2, 4)
    rungs = [Rung("9d", 0.5), Rung("8d", 0.8), Rung("7d", 1.1)]
    games = confirmation_games(rungs, 2, 5)
    assert [(g.black.label(), g.white.label(), g.index) for g in games] == [
        ("8d@0.8", "9d@0.5", 0), ("7d@1.1", "8d@0.8", 0),
        ("8d@0.8", "9d@0.5", 1), ("7d@1.1", "8d@0.8", 1),
    ]  # fmt: skip
    assert len({g.key for g in games + confirmation_games(rungs, 2, 6)}) == 8
    assert Rung.parse("1-2k@1.25") == Rung("1-2k", 1.25)
    assert Rung("9d", 0.123456).spec() == SPEC.format(rank="9d", temp="0.1235")


needs_gnugo = pytest.mark.skipif(
    find_program("gnugo") is None and os.environ.get("SPARRING_CI") != "1",
    reason="gnugo is not installed (apt-get install gnugo; SPARRING_CI=1 fails instead)",
)


@needs_gnugo
def test_anchor_game_against_gnugo() -> None:
    """A rung against GNU Go through the per-game players, with two handicap stones (capped
    at 12 plies): a record with the rung's score and White's 12 moves after the stones."""
    script = load_script("go_ladder")
    record = script.play_anchor_game(
        AnchorGame(Rung("9d", 0.5), 1, True, 2, 0.5, seed=3, max_ply=12)
    )
    assert record["type"] == "anchor" and record["handicap"] == 2
    assert record["plies"] == 12 and record["rung_score"] in (0.0, 1.0)


def test_the_run_command_end_to_end(tmp_path: Path) -> None:
    """``research/go_ladder.py run`` on a CPU with tiny settings (8-ply games): two rungs tuned
    below the top, the confirmation, the summary file; started again, it plays no game twice."""
    script = load_script("go_ladder")
    argv = ["run", str(tmp_path), "--device", "cpu", "--max-ply", "8", "--rungs", "3",
            "--grid", "2", "--tune-games", "2", "--confirm-games", "2", "--batch", "8",
            "--confirm-reserve", "1", "--finish-margin", "0", "--budget", "600"]  # fmt: skip
    assert script.main(argv) == 0
    final = json.loads((tmp_path / "ladder.json").read_text())
    assert [r["rank"] for r in final["rungs"]] == ["9d", "8d", "7d"]
    assert final["rungs"][0]["spec"] == SPEC.format(rank="9d", temp=0.5)
    assert [p["games"] for p in final["pairs"]] == [2, 2]
    games = game_records(read_records([tmp_path / "games.jsonl"]))
    assert len(games) == 2 * 2 * 2 + 2 * 2 and all(g["plies"] == 8 for g in games)
    kinds = [r["type"] for r in read_records([tmp_path / "ladder.jsonl"])]
    assert kinds.count("tune") == 2 and "precision" in kinds and kinds.count("pair") == 2
    assert script.main(argv) == 0
    assert len(list(read_records([tmp_path / "games.jsonl"]))) == len(games)
