"""Strength estimation (Chen, Shih & Wu, ICLR 2025): the ranking loss (Eq. 3-5), SE-inf's
masking, the player split, rank prediction, kill-safe training and the ``estimate`` command.

Tests on real records skip when ``../shared/data`` is absent (and fail under ``SPARRING_CI=1``:
:mod:`shared_data`); they use tiny networks and a few games per rank.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import shared_data  # noqa: E402
from sparring.errors import ConfigError, SparringError  # noqa: E402
from sparring.estimation.baselines import sl_method  # noqa: E402
from sparring.estimation.data import (  # noqa: E402
    CHESS_RANKS,
    GO_RANKS,
    build_dataset,
    folder_makeup,
    load_split,
    manifest,
    ranks_for,
    split_by_player,
)
from sparring.estimation.predict import (  # noqa: E402
    Units,
    accuracy_curves,
    cross_fitted_curves,
    fit_references,
    make_units,
    nearest_rank,
    rank_means_with_error,
    rank_separation,
    reference_scores,
    se_decide,
    se_features,
    unit_groups,
)
from sparring.estimation.train import (  # noqa: E402
    PLAY_TRAINING_PLOT,
    Batch,
    BatchSampler,
    SEConfig,
    SETrainer,
    action_symmetry_table,
    bradley_terry_loss,
    composite_scores,
    dihedral,
    read_log,
    se_losses,
)
from sparring.nn.strength_net import (  # noqa: E402
    ActionPlanes,
    StrengthNetConfig,
    build_strength_model,
    load_strength_model,
    save_strength_model,
)

DATA = shared_data.DATA
STRENGTH = shared_data.STRENGTH

TINY_NET = {"blocks": 1, "channels": 8, "head_channels": 8, "head_hidden": 16, "value_hidden": 16}


def need_data() -> Path:
    shared_data.need_data(STRENGTH / "go" / "testing_by_player")
    return DATA.resolve()


# ---- Eq. 3-5 ---------------------------------------------------------------------------------
def test_bradley_terry_loss_matches_hand_computation() -> None:
    s1, s2, s3 = 2.0, 1.0, 0.0
    e1, e2, e3 = math.exp(s1), math.exp(s2), math.exp(s3)
    # Eq. 5 with n = 3: -log(e^b1 / (e^b1 + e^b2 + e^b3)) - log(e^b2 / (e^b2 + e^b3))
    hand = -math.log(e1 / (e1 + e2 + e3)) - math.log(e2 / (e2 + e3))
    loss = bradley_terry_loss(torch.tensor([[s1, s2, s3]], dtype=torch.float64))
    assert loss.item() == pytest.approx(hand, abs=1e-12)
    assert hand == pytest.approx(0.4076 + 0.3133, abs=1e-3)
    # averaged over groups
    two = torch.tensor([[s1, s2, s3], [0.0, 0.0, 0.0]], dtype=torch.float64)
    assert bradley_terry_loss(two).item() == pytest.approx((hand + math.log(3) + math.log(2)) / 2)


def test_bradley_terry_loss_is_minimised_by_the_rank_order() -> None:
    values = [3.0, 1.5, 0.0, -1.0]
    losses = {
        perm: bradley_terry_loss(torch.tensor([list(perm)])).item()
        for perm in itertools.permutations(values)
    }
    best = min(losses, key=lambda p: losses[p])
    assert list(best) == sorted(values, reverse=True)  # strongest first
    # gradient descent on free scores orders them r_1 > r_2 > ... > r_n
    scores = torch.zeros(1, 5, requires_grad=True)
    for _ in range(200):
        (grad,) = torch.autograd.grad(bradley_terry_loss(scores), scores)
        with torch.no_grad():
            scores -= 0.5 * grad
    s = scores.detach()[0]
    assert torch.all(s[:-1] > s[1:])


def test_composite_score_is_the_mean_over_m() -> None:
    betas = torch.randn(3, 4, 7)
    assert torch.allclose(composite_scores(betas), betas.mean(dim=-1))
    # Eq. 2-3: exp(mean beta) is the geometric mean of the strengths exp(beta)
    geo = torch.exp(betas).prod(dim=-1) ** (1 / 7)
    assert torch.allclose(torch.exp(composite_scores(betas)), geo, rtol=1e-4)


def _batch(game: str, g: int, n: int, m: int, inf: bool, seed: int = 0) -> Batch:
    gen = torch.Generator().manual_seed(seed)
    planes_n, size, actions = (15, 19, 362) if game == "go" else (23, 8, 4272)
    b = g * n * m
    return Batch(
        planes=torch.rand(b, planes_n, size, size, generator=gen),
        actions=torch.randint(0, actions, (b,), generator=gen),
        values=torch.randint(-1, 2, (b,), generator=gen).float(),
        ranks=torch.arange(n).repeat_interleave(m).repeat(g),
        groups=g,
        n_ranks=n,
        m=m,
        inf_index=torch.randint(0, b, (g * m,), generator=gen) if inf else None,
        inf_actions=torch.randint(0, actions, (g * m,), generator=gen) if inf else None,
    )


def test_batch_loss_uses_the_mean_score_of_each_rank() -> None:
    model = build_strength_model(StrengthNetConfig("go", GO_RANKS, "se", **TINY_NET), seed=0)
    batch = _batch("go", 2, len(GO_RANKS), 7, inf=False)
    out = se_losses(model, batch)
    _, _, scores = model(batch.planes, batch.actions)
    expected = scores[:, 0].view(2, len(GO_RANKS), 7).mean(dim=-1)
    assert torch.allclose(out["composite"], expected.detach(), atol=1e-5)
    assert out["rank"].item() == pytest.approx(bradley_terry_loss(expected).item(), abs=1e-5)


def test_se_inf_pairs_get_no_policy_or_value_loss() -> None:
    model = build_strength_model(StrengthNetConfig("go", GO_RANKS, "se_inf", **TINY_NET), seed=0)
    a = _batch("go", 2, len(GO_RANKS), 7, inf=True, seed=1)
    b = _batch("go", 2, len(GO_RANKS), 7, inf=True, seed=1)
    assert b.inf_actions is not None
    b.inf_actions = (b.inf_actions + 17) % 362  # other random moves for r_inf only
    la, lb = se_losses(model, a), se_losses(model, b)
    assert la["policy"].item() == pytest.approx(lb["policy"].item())
    assert la["value"].item() == pytest.approx(lb["value"].item())
    assert la["rank"].item() != pytest.approx(lb["rank"].item())
    assert la["composite"].shape == (2, len(GO_RANKS) + 1)  # r_inf appended as the weakest
    # the policy and value losses are exactly those of the human pairs
    _, logits, value = model.trunk(a.planes)
    ce = torch.nn.functional.cross_entropy(logits, a.actions)
    assert la["policy"].item() == pytest.approx(ce.item(), abs=1e-6)
    mse = torch.nn.functional.mse_loss(value, a.values)
    assert la["value"].item() == pytest.approx(mse.item(), abs=1e-6)


# ---- model inputs ----------------------------------------------------------------------------
def test_action_planes_and_go_symmetries_agree() -> None:
    planes = ActionPlanes("go")
    table = torch.from_numpy(action_symmetry_table(19))
    actions = torch.tensor([0, 18, 20, 200, 360, 361])
    for k in range(8):
        moved = dihedral(planes(actions), k)
        assert torch.equal(moved, planes(table[k, actions]))
    chess = ActionPlanes("chess")
    e2e4 = torch.tensor([12 * 64 + 28])
    p = chess(e2e4)[0]
    assert p[0, 6, 4] == 1 and p[0].sum() == 1  # from e2: row 6 (rank 2), file e
    assert p[1, 4, 4] == 1 and p[1].sum() == 1  # to e4
    assert p[2].sum() == 0
    under = chess(torch.tensor([4096 + 1]))[0]  # a7a8 promoting to a rook
    assert under[2].min() == 1


def test_strength_head_without_the_prior_input_ignores_the_policy() -> None:
    config = StrengthNetConfig("go", GO_RANKS, "se_inf", **TINY_NET, prior_input=False)
    model = build_strength_model(config, seed=0).eval()
    assert model.head_fc[0].in_features == 2 * TINY_NET["head_channels"]
    with_prior = build_strength_model(StrengthNetConfig("go", GO_RANKS, "se_inf", **TINY_NET))
    assert with_prior.head_fc[0].in_features == 2 * TINY_NET["head_channels"] + 1
    features = torch.randn(3, TINY_NET["channels"], 19, 19)
    actions = torch.tensor([0, 40, 361])
    logits = torch.randn(3, 362)
    with torch.inference_mode():
        a = model.strength(features, logits, actions)
        b = model.strength(features, logits * 5 - 3, actions)
        assert torch.equal(a, b)
        c = with_prior.eval().strength(features, logits, actions)
        d = with_prior.strength(features, logits * 5 - 3, actions)
        assert not torch.equal(c, d)
    # shipped files carry no prior_input key: they read back with the prior input
    text = config.to_json().replace(', "prior_input": false', "")
    assert "prior_input" not in text and StrengthNetConfig.from_json(text).prior_input is True


def test_model_file_round_trip(tmp_path: Path) -> None:
    model = build_strength_model(StrengthNetConfig("chess", ("a", "b"), "sl", **TINY_NET), seed=3)
    save_strength_model(tmp_path / "m.pt", model, {"references": {"x": 1}})
    again, meta = load_strength_model(tmp_path / "m.pt")
    assert meta == {"references": {"x": 1}} and again.config == model.config
    for k, v in model.state_dict().items():
        assert torch.equal(v, again.state_dict()[k])
    (tmp_path / "bad.pt").write_bytes(b"not a model")
    with pytest.raises(SparringError, match="not a sparring strength model"):
        load_strength_model(tmp_path / "bad.pt")


def test_a_half_precision_model_file_reads_back_as_float32(tmp_path: Path) -> None:
    """``half=True`` stores float16 tensors (a smaller file); they read back into float32
    parameters equal to the original rounded to float16, integer buffers unchanged."""
    model = build_strength_model(StrengthNetConfig("go", ("a", "b"), "play", **TINY_NET), seed=3)
    save_strength_model(tmp_path / "full.pt", model, {"step": 1})
    save_strength_model(tmp_path / "half.pt", model, {"step": 1}, half=True)
    full, half = (tmp_path / "full.pt").stat().st_size, (tmp_path / "half.pt").stat().st_size
    assert half < 0.7 * full
    again, meta = load_strength_model(tmp_path / "half.pt")
    assert meta == {"step": 1}
    for k, v in model.state_dict().items():
        w = again.state_dict()[k]
        assert w.dtype == v.dtype, k
        if v.is_floating_point():
            assert torch.equal(w, v.half().float()), k
        else:
            assert torch.equal(w, v), k


def test_config_rejects_unknown_keys(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown key 'pairs_per_rnak'"):
        SEConfig.from_mapping({"game": "go", "pairs_per_rnak": 7})
    with pytest.raises(ConfigError, match="variant"):
        SEConfig.from_mapping({"game": "go", "variant": "elo"})
    path = tmp_path / "c.toml"
    path.write_text('variant = "se-inf"\nlr_decay_steps = [5, 9]\n')
    cfg = SEConfig.from_toml(path, "chess", steps=3)
    assert (cfg.variant, cfg.lr_decay_steps, cfg.steps) == ("se_inf", (5, 9), 3)
    for name in ("se-go.toml", "se-chess.toml"):
        shipped = Path(__file__).parents[1] / "configs" / name
        SEConfig.from_toml(shipped, name[3:-5])


# ---- the split and prediction ----------------------------------------------------------------
def test_split_by_player_has_no_player_in_both_sets() -> None:
    rng = np.random.default_rng(0)
    players = []
    for _ in range(3):
        focus = [f"f{i}" for i in range(10)]
        games = [(focus[i % 10], f"o{rng.integers(60)}") for i in range(80)]
        players.append([(a, b) if k % 2 else (b, a) for k, (a, b) in enumerate(games)])
    split = split_by_player(players, 0.3, seed=1)
    val_names = {p for r in range(3) for g in split.val[r] for p in players[r][g]}
    train_names = {
        players[r][g][k]
        for r in range(3)
        for g, mask in zip(split.train[r], split.train_sides[r], strict=True)
        for k in (0, 1)
        if mask >> k & 1
    }
    assert val_names and train_names and not (val_names & train_names)
    assert any(m != 3 for sides in split.train_sides for m in sides)  # one-sided games kept
    assert split.summary()["players_in_both"] == 0
    for r, row in enumerate(split.rows):
        assert row["val_focus_players"] == 3  # ceil(0.3 x 10)
        assert row["val_games"] + row["train_games"] + row["dropped_games"] == 80
        assert row["train_games_one_side"] <= row["train_games"]
        assert not set(split.train[r]) & set(split.val[r])


def test_rank_prediction_picks_the_nearest_mean() -> None:
    refs = np.array([1.0, 0.5, 0.0, -0.5])
    assert nearest_rank(0.9, refs) == 0
    assert nearest_rank(0.7, refs) == 1
    assert nearest_rank(-3.0, refs) == 3
    assert nearest_rank(np.array([0.26, 0.24]), refs).tolist() == [1, 2]
    # references are the mean over all pairs of a rank (paper) or over its games
    betas = np.array([1.0, 3.0, 0.0, 0.0, 0.0])
    ranks = np.array([0, 0, 1, 1, 1])
    assert reference_scores(betas, ranks, 2).tolist() == [2.0, 0.0]
    units = Units(np.array([0, 1, 2, 2, 2]), np.array([0, 0, 1]), np.array([1, 1, 3]))
    assert reference_scores(betas, ranks, 2, units).tolist() == [2.0, 0.0]
    # well separated per-game scores are always predicted right, and accuracy is per rank
    rng = np.random.default_rng(0)
    unit_rank = np.repeat(np.arange(4), 30)
    pair_unit = np.repeat(np.arange(120), 10)
    pair_beta = refs[unit_rank[pair_unit]] + rng.normal(0, 0.05, pair_unit.size)
    units = Units(pair_unit, unit_rank, np.full(120, 10))
    feats, decide = se_features(pair_beta, units), se_decide(refs)
    curves = accuracy_curves(feats, unit_rank, decide, 4, max_games=40, draws=20)
    assert curves.exact.shape == (4, 40) and np.all(curves.exact == 1.0)
    assert curves.with_replacement == [True] * 4  # 30 units per rank < 40 games


def test_reference_error_is_the_spread_over_games() -> None:
    # 4 games of rank 0 whose per-game means are -2, -1, +1, +2 (the mean 0, sd sqrt(2.5)),
    # one game of rank 1 (no spread), no game of rank 2
    game_means = np.array([-2.0, -1.0, 1.0, 2.0, 5.0])
    pair_unit = np.repeat(np.arange(5), 6)
    units = Units(pair_unit, np.array([0, 0, 0, 0, 1]), np.full(5, 6))
    betas = game_means[pair_unit] + np.tile([0.5, -0.5], 15)
    means, errors = rank_means_with_error(betas, units, 3, draws=4000, seed=3)
    ranks = units.rank[pair_unit]
    assert np.allclose(means[:2], reference_scores(betas, ranks, 2))
    assert errors[1] == 0.0 and np.isnan(means[2]) and np.isnan(errors[2])
    # the bootstrap standard error of a mean of 4 games: sd / sqrt(4) (population sd)
    assert errors[0] == pytest.approx(math.sqrt(2.5) / 2, rel=0.08)
    # two players of two games each (-2, -1 and +1, +2): the players' means are -1.5 and
    # +1.5, so resampling players gives 1.5 / sqrt(2), more than resampling the games
    players = np.array([0, 0, 1, 1, 2])
    same, by_player = rank_means_with_error(betas, units, 3, draws=4000, seed=3, groups=players)
    assert np.array_equal(same[:2], means[:2])
    assert by_player[0] == pytest.approx(1.5 / math.sqrt(2), rel=0.08) and by_player[1] == 0.0


def test_line_references_smooth_the_means_and_keep_a_line() -> None:
    means = np.array([1.6, 2.4, 0.7, -0.4, -1.8, -2.2, -3.3, -4.2])  # top two out of order
    line = fit_references(means, "line")
    assert np.all(np.diff(line) < 0)  # ordered again
    assert line.mean() == pytest.approx(means.mean())
    exact = 3.0 - 0.5 * np.arange(6)
    assert np.allclose(fit_references(exact, "line"), exact)
    assert fit_references(means, "mean").tolist() == means.tolist()
    with pytest.raises(ValueError, match="reference fit"):
        fit_references(means, "spline")
    with pytest.raises(ConfigError, match="reference_fit"):
        SEConfig(game="chess", reference_fit="spline")


def _gaussian_games(
    means: list[float], sd: float, games: int, moves: int, seed: int
) -> tuple[np.ndarray, Units]:
    """Pairs of ``games`` games per rank whose game composites are N(mean, sd)."""
    rng = np.random.default_rng(seed)
    n = len(means)
    unit_rank = np.repeat(np.arange(n), games)
    game_score = np.asarray(means)[unit_rank] + rng.normal(0, sd, unit_rank.size)
    pair_unit = np.repeat(np.arange(unit_rank.size), moves)
    offsets = np.tile(np.linspace(-1, 1, moves), unit_rank.size)  # mean 0 within each game
    units = Units(pair_unit, unit_rank, np.full(unit_rank.size, moves))
    return game_score[pair_unit] + offsets, units


def test_rank_separation_matches_its_gaussian_model() -> None:
    means = [3.0, 2.0, 1.0, 0.0, -1.0, -2.0]  # spacing 1
    betas, units = _gaussian_games(means, 2.0, 400, 8, seed=4)  # game sd 2: d' = 0.5
    sep = rank_separation(betas, units, len(means))
    assert sep.spacing == pytest.approx(1.0, abs=0.08)
    assert sep.game_sd == pytest.approx(2.0, rel=0.05)
    assert sep.d_prime == pytest.approx(0.5, rel=0.1)
    assert sep.games_per_rank == [400] * 6
    # (2 z / d')^2 games for 80%, z = 1.2816: 26.3 at d' = 0.5; the model meets itself there
    assert sep.games_for(0.8) == pytest.approx((2 * 1.28155 / sep.d_prime) ** 2, rel=1e-4)
    assert sep.ideal_exact(round(sep.games_for(0.8))) == pytest.approx(0.8, abs=0.01)
    assert sep.d_prime_for(0.8, 15) == pytest.approx(2 * 1.28155 / math.sqrt(15), rel=1e-4)
    # and the measured accuracy of an interior rank with references at the true means agrees
    feats, decide = se_features(betas, units), se_decide(np.asarray(means))
    curves = accuracy_curves(feats, units.rank, decide, 6, max_games=26, draws=400, seed=1)
    interior = curves.exact[1:-1, 25].mean()
    assert interior == pytest.approx(sep.ideal_exact(26), abs=0.06)
    with pytest.raises(SparringError, match="two ranks"):
        rank_separation(betas[:8], Units(np.zeros(8, np.int64), np.array([0]), np.array([8])), 6)


def test_cross_fitted_references_never_use_the_predicted_games() -> None:
    # held-out games sit 1.5 below the candidate references at every rank: nearest-reference
    # prediction is then off by one or two ranks, while references fitted on other held-out
    # players (the same shift) put them right; a group never sits on both sides of a split
    means = [4.5, 3.0, 1.5, 0.0]
    betas, units = _gaussian_games([m - 1.5 for m in means], 0.3, 40, 4, seed=2)
    groups = np.arange(units.size) // 4  # players of 4 games each, 10 per rank
    feats, decide = se_features(betas, units), se_decide(np.asarray(means))
    candidate = accuracy_curves(feats, units.rank, decide, 4, max_games=30, draws=50)
    crossed = cross_fitted_curves(betas, units, groups, 4, repeats=3, max_games=30, draws=50)
    assert crossed is not None
    assert candidate.mean_exact[4] < 0.3 and crossed.mean_exact[4] > 0.95
    assert np.all(np.isnan(crossed.exact[:, 20:]))  # 20 games per half: N stops there
    assert crossed.units_per_rank == [20] * 4
    # a rank whose games all belong to one player cannot be split
    lonely = groups.copy()
    lonely[units.rank == 0] = -1
    assert cross_fitted_curves(betas, units, lonely, 4, repeats=2, max_games=10, draws=5) is None


def test_sl_sum_and_vote_follow_the_paper() -> None:
    probs = np.array([[0.6, 0.4, 0.0], [0.6, 0.4, 0.0], [0.0, 0.1, 0.9]])
    lp = np.log(np.maximum(probs, 1e-12))
    lp2 = np.log(np.array([[0.51, 0.49], [0.51, 0.49], [0.01, 0.99]]))
    units = Units(np.array([0, 0, 0]), np.array([0]), np.array([3]))  # one unit of 3 pairs
    # lp: two votes for rank 0, and the sums 1.2, 0.9, 0.9; lp2: two votes for rank 0, but
    # the sums 1.03, 1.97
    for log_probs, name, want in (
        (lp, "SL_vote", 0),
        (lp, "SL_sum", 0),
        (lp2, "SL_vote", 0),
        (lp2, "SL_sum", 1),
    ):
        feats, decide = sl_method(log_probs, units, name)
        assert int(decide(feats)[0]) == want


# ---- real records ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def go_config(tmp_path_factory: pytest.TempPathFactory) -> SEConfig:
    root = need_data()
    cache = tmp_path_factory.mktemp("se-cache")
    return SEConfig.from_mapping(
        {
            "game": "go",
            "variant": "se",
            "data_root": str(root),
            "cache_dir": str(cache),
            "max_records_per_rank": 14,
            "val_fraction": 0.3,
            "train_positions_per_side": 6,
            "eval_positions_per_side": 4,
            "groups_per_batch": 1,
            "pairs_per_rank": 3,
            "optimizer": "adam",
            "learning_rate": 0.003,
            "lr_decay_steps": [1000],
            "steps": 6,
            "checkpoint_every": 3,
            "log_every": 1,
            "val_every": 0,
            "augment": True,
            "seed": 3,
            **TINY_NET,
        }
    )


def test_real_dataset_split_and_pairs(go_config: SEConfig) -> None:
    folder = build_dataset(go_config.data_config(), show_progress=False)
    assert build_dataset(go_config.data_config(), show_progress=False) == folder  # cached
    info = manifest(folder)
    assert info["ranks"] == list(GO_RANKS) and info["split"]["players_in_both"] == 0
    train, val, cand = (load_split(folder, s) for s in ("train", "val", "cand"))
    assert len(train) and len(val) and len(cand)
    assert not set(train.unit_player.tolist()) & set(val.unit_player.tolist())
    assert set(np.unique(train.rank).tolist()) == set(range(len(GO_RANKS)))
    sample = train.sample_per_rank(3, seed=1)
    assert np.bincount(sample.rank, minlength=len(GO_RANKS)).tolist() == [3] * len(GO_RANKS)
    assert np.array_equal(sample.unit_rank[sample.unit], sample.rank)  # units keep numbering
    # cross-fitting groups: each held-out game goes with one of its own players, the one
    # with the most held-out games (the focus player), and a side unit with its player
    games = make_units(val, "game")
    groups = unit_groups(val, games, "game")
    names = np.unique(val.unit_player)
    game_ids = np.unique(val.unit_game[val.unit])
    for u in range(0, games.size, max(1, games.size // 20)):
        sides = np.flatnonzero(val.unit_game == game_ids[u])
        assert names[groups[u]] in set(val.unit_player[sides].tolist())
    assert groups.min() >= 0 and groups.size == games.size
    sides = make_units(val, "side")
    side_groups = unit_groups(val, sides, "side")
    assert side_groups.size == sides.size
    assert names[side_groups[0]] == val.unit_player[np.unique(val.unit)[0]]
    planes = train.planes(np.arange(5))
    assert planes.shape == (5, 15, 19, 19) and set(np.unique(planes[:, 2])) <= {-1.0, 1.0}
    assert np.all(np.abs(train.value) <= 1) and np.all(train.action <= 361)
    # every position's stored random moves are legal there: empty points or pass
    stones = planes[:, 0] + planes[:, 1]
    for i in range(5):
        for a in train.random_actions[i]:
            assert a == 361 or stones[i].reshape(-1)[a] == 0
    # r_inf pairs are random moves at the positions of human pairs of the same group
    sampler = BatchSampler(train, "se_inf", 2, 7, True, torch.device("cpu"))
    batch = sampler.sample(np.random.default_rng(0))
    assert batch.planes.shape[0] == 2 * 11 * 7 and batch.inf_index is not None
    assert batch.inf_index.shape == (14,)
    assert torch.all(batch.inf_index[:7] < 77) and torch.all(batch.inf_index[7:] >= 77)


def test_shards_extracted_in_workers_are_the_same(go_config: SEConfig, tmp_path: Path) -> None:
    """``build_dataset(..., workers=2)`` writes the shards that one process writes."""
    small = SEConfig.from_mapping(go_config.to_mapping() | {"max_records_per_rank": 4})
    one = build_dataset(small.data_config(), show_progress=False)
    data = dataclasses.replace(small.data_config(), cache_dir=str(tmp_path))
    two = build_dataset(data, show_progress=False, workers=2)
    assert one != two and manifest(one)["games"] == manifest(two)["games"]
    files = sorted(p.name for p in one.glob("*.npz"))
    assert files == sorted(p.name for p in two.glob("*.npz")) and len(files) == 33
    for name in files:
        with np.load(one / name) as a, np.load(two / name) as b:
            assert a.files == b.files
            for key in a.files:
                assert np.array_equal(a[key], b[key]), (name, key)
    with pytest.raises(ConfigError, match="workers"):
        build_dataset(data, workers=0)


def test_folder_makeup_counts_every_game_of_both_folders() -> None:
    need_data()
    go = folder_makeup("go", only=["1-2k"])
    assert [(row.rank, row.folder) for row in go] == [
        ("1-2k", "candidating"),
        ("1-2k", "testing_by_player"),
    ]
    cand = go[0]
    assert cand.games == 100 and sum(cand.years.values()) == sum(cand.time_controls.values()) == 100
    assert 0 < cand.handicap_games < 100 and cand.mean_elo is None  # the kyu groups hold HA[1]
    chess = folder_makeup("chess", only=["1000-1200"])
    assert chess[0].games == 120 and chess[1].games == 800
    assert chess[0].mean_elo is not None and 1000 <= chess[0].mean_elo < 1200
    assert set(chess[0].years) == {"2024"}
    with pytest.raises(SparringError, match="unknown go rank"):
        folder_makeup("go", only=["12k"])


def _fixed_loss(trainer: SETrainer) -> float:
    """The loss of a fixed training batch (batch statistics, on a copy of the network)."""
    rng = np.random.default_rng(123)
    model = copy.deepcopy(trainer.model).train()
    with torch.no_grad():
        return (
            sum(
                float(se_losses(model, trainer.sampler.sample(rng))["total"].item())
                for _ in range(3)
            )
            / 3
        )


def test_tiny_training_decreases_the_loss(go_config: SEConfig, tmp_path: Path) -> None:
    changes = {"learning_rate": 0.003, "steps": 40, "groups_per_batch": 2, "log_every": 10}
    cfg = SEConfig.from_mapping(go_config.to_mapping() | changes)
    trainer = SETrainer(cfg, tmp_path / "learn", show_progress=False)
    before = _fixed_loss(trainer)
    trainer.run()
    assert _fixed_loss(trainer) < before - 0.2


def test_tiny_training_resumes_after_a_kill(go_config: SEConfig, tmp_path: Path) -> None:
    straight = SETrainer(go_config, tmp_path / "straight", show_progress=False)
    straight.run(6)
    assert [r["step"] for r in read_log(tmp_path / "straight" / "log.jsonl")] == list(range(1, 7))
    assert (tmp_path / "straight" / "training.png").exists()

    killed = SETrainer(go_config, tmp_path / "killed", show_progress=False)
    killed.run(3)  # checkpoint at step 3 ...
    killed.train_step()  # ... a step whose checkpoint never came, logged before the kill
    killed._log({"step": 4, "loss_total": 0.0})
    with open(tmp_path / "killed" / "log.jsonl", "a") as fh:
        fh.write('{"step": 5, "loss_to')  # a torn line
    del killed
    resumed = SETrainer(go_config, tmp_path / "killed", show_progress=False)
    assert resumed.state.step == 3
    resumed.run(6)
    steps = [r["step"] for r in read_log(tmp_path / "killed" / "log.jsonl")]
    assert steps == list(range(1, 7))
    a, b = straight.model.state_dict(), resumed.model.state_dict()
    for k in a:
        assert torch.allclose(a[k].float(), b[k].float(), atol=1e-5), k
    other = SEConfig.from_mapping(go_config.to_mapping() | {"channels": 4})
    with pytest.raises(ConfigError, match="different config"):
        SETrainer(other, tmp_path / "killed", show_progress=False)


def test_a_resumed_run_takes_a_new_learning_rate_schedule(
    go_config: SEConfig, tmp_path: Path
) -> None:
    """The decay steps and factor may change on resume: the learning rate at the resumed
    step is the base rate times the factor for each decay step already passed, and a later
    decay step still applies when it comes."""
    first = SETrainer(go_config, tmp_path / "run", show_progress=False)
    first.run(3)  # lr_decay_steps [1000]: still 0.003
    assert first.optimizer.param_groups[0]["lr"] == pytest.approx(0.003)
    del first

    def resumed(decay: list[int], factor: float) -> SETrainer:
        cfg = SEConfig.from_mapping(
            go_config.to_mapping() | {"lr_decay_steps": decay, "lr_decay_factor": factor}
        )
        return SETrainer(cfg, tmp_path / "run", show_progress=False)

    passed = resumed([2], 0.5)  # a decay step before step 3: applied at once
    assert passed.state.step == 3
    assert passed.optimizer.param_groups[0]["lr"] == pytest.approx(0.0015)
    del passed
    later = resumed([1, 5], 0.1)  # one passed, one to come at step 5
    assert later.optimizer.param_groups[0]["lr"] == pytest.approx(0.0003)
    later.run(4)
    assert later.optimizer.param_groups[0]["lr"] == pytest.approx(0.0003)
    later.run(5)
    assert later.optimizer.param_groups[0]["lr"] == pytest.approx(0.00003)


def test_play_network_reads_the_rank_as_one_hot_planes() -> None:
    """A play network's input is the state's planes and one all-ones plane for the pair's
    rank (index 0 = strongest); it has no strength head, and the other network kinds have no
    rank input."""
    model = build_strength_model(StrengthNetConfig("go", GO_RANKS, "play", **TINY_NET), seed=0)
    assert model.az.config.input_planes == 15 + 11
    assert not any(name.startswith("head_") for name, _ in model.named_parameters())
    planes = torch.zeros((2, 15, 19, 19))
    x = model.rank_planes(planes, torch.tensor([0, 10]))
    assert x.shape == (2, 26, 19, 19)
    assert x[0, 15].min() == 1 and x[0, 16:].max() == 0  # rank 0: plane 15
    assert x[1, 25].min() == 1 and x[1, 15:25].max() == 0  # rank 10: plane 25
    with pytest.raises(ValueError, match=r"\[0, 11\)"):
        model.rank_planes(planes, torch.tensor([0, 11]))
    logits, value = model.play(torch.randn(2, 15, 19, 19), torch.tensor([3, 3]))
    assert logits.shape == (2, 362) and value.shape == (2,)
    # the rank changes the policy of the same position (the network reads it)
    same = torch.randn(1, 15, 19, 19).expand(2, 15, 19, 19)
    assert not torch.allclose(*model.play(same, torch.tensor([0, 10]))[0])
    with pytest.raises(SparringError, match="rank"):
        model.policy_value_net()
    with pytest.raises(SparringError, match="no strength head"):
        model(planes, torch.tensor([0, 1]))
    se = build_strength_model(StrengthNetConfig("go", GO_RANKS, "se", **TINY_NET), seed=0)
    with pytest.raises(SparringError, match="no rank input"):
        se.play(planes, torch.tensor([0, 1]))


def test_play_network_trains_resumes_and_is_not_se_evaluated(
    go_config: SEConfig, tmp_path: Path
) -> None:
    """``variant = "play"``: the policy and value losses only (the rank loss is zero), the
    loss falls, the held-out record has top-1 and value-sign accuracy, a killed run resumes
    to the same weights, and ``se-eval`` refuses the run with a message."""
    from sparring.estimation.predict import estimate_player
    from sparring.estimation.report import evaluate_run
    from sparring.nn.strength_net import load_strength_model

    changes = {"variant": "play", "steps": 80, "groups_per_batch": 2, "log_every": 10}
    cfg = SEConfig.from_mapping(go_config.to_mapping() | changes | {"val_every": 40})
    trainer = SETrainer(cfg, tmp_path / "learn", show_progress=False)
    before = _fixed_loss(trainer)
    trainer.run()
    assert _fixed_loss(trainer) < before - 0.2
    record = read_log(tmp_path / "learn" / "log.jsonl")[-1]
    assert record["loss_rank"] == 0.0
    assert 0 <= record["val_policy_top1"] <= 1 and 0 <= record["val_value_sign"] <= 1
    assert 0 < record["val_value_std"] < 1  # a fresh value head still varies
    assert trainer.plot is PLAY_TRAINING_PLOT and (tmp_path / "learn" / "training.png").exists()
    model, meta = load_strength_model(tmp_path / "learn" / "model.pt")
    assert model.config.kind == "play" and meta["step"] == 80
    with pytest.raises(SparringError, match="play network"):
        evaluate_run(tmp_path / "learn", show_progress=False)
    with pytest.raises(SparringError, match=r"a play network .* not a strength estimator"):
        estimate_player([], "someone", tmp_path / "learn" / "model.pt")

    short = SEConfig.from_mapping(go_config.to_mapping() | {"variant": "play"})
    straight = SETrainer(short, tmp_path / "straight", show_progress=False)
    straight.run(6)
    killed = SETrainer(short, tmp_path / "killed", show_progress=False)
    killed.run(3)
    killed.train_step()  # a step whose checkpoint never came
    del killed
    resumed = SETrainer(short, tmp_path / "killed", show_progress=False)
    assert resumed.state.step == 3
    resumed.run(6)
    a, b = straight.model.state_dict(), resumed.model.state_dict()
    for k in a:
        assert torch.allclose(a[k].float(), b[k].float(), atol=1e-5), k


def test_a_run_starts_from_a_model_files_weights(go_config: SEConfig, tmp_path: Path) -> None:
    """``init_from``: a new run starts from the file's weights (its first loss is the first
    run's last, not a fresh network's), a network of another shape is refused with a message,
    a run with a checkpoint resumes from it (the file is not read again), and the default
    leaves the config mapping as before."""
    from sparring.nn.strength_net import load_strength_model

    play = go_config.to_mapping() | {"variant": "play", "steps": 30, "checkpoint_every": 10}
    assert "init_from" not in go_config.to_mapping()
    first = SETrainer(SEConfig.from_mapping(play), tmp_path / "first", show_progress=False)
    fresh = _fixed_loss(first)
    first.run()
    trained = _fixed_loss(first)
    assert abs(trained - fresh) > 0.05  # so the next run's loss can tell them apart
    model_file = tmp_path / "first" / "model.pt"
    cont = SEConfig.from_mapping(play | {"init_from": str(model_file)})
    second = SETrainer(cont, tmp_path / "second", show_progress=False)
    assert _fixed_loss(second) == pytest.approx(trained, abs=1e-4)
    saved, _ = load_strength_model(model_file)
    for k, v in saved.state_dict().items():
        assert torch.equal(second.model.state_dict()[k].cpu(), v), k
    second.run(5)
    _, meta = load_strength_model(tmp_path / "second" / "model.pt")
    assert meta["init_from"] == str(model_file) and meta["step"] == 5

    model_file.unlink()  # a resumed run does not read it
    assert SETrainer(cont, tmp_path / "second", show_progress=False).state.step == 5
    wider = SEConfig.from_mapping(
        play | {"init_from": str(tmp_path / "second" / "model.pt"), "channels": 12}
    )
    with pytest.raises(ConfigError, match=r"init_from .*second/model.pt.*not the config's"):
        SETrainer(wider, tmp_path / "wider", show_progress=False)


def test_channels_last_is_the_same_training_in_another_layout(
    go_config: SEConfig, tmp_path: Path
) -> None:
    """``channels_last``: the weights and each batch's planes in that memory layout, the same
    arithmetic as the default layout (the same loss before training; the same losses step by
    step over 6 steps, 3 of them in each layout: a resumable change), and the default leaves
    the config mapping as before."""
    play = go_config.to_mapping() | {"variant": "play"}
    assert "channels_last" not in SEConfig.from_mapping(play).to_mapping()
    straight = SETrainer(SEConfig.from_mapping(play), tmp_path / "straight", show_progress=False)
    before = _fixed_loss(straight)
    straight.run(6)
    last = SEConfig.from_mapping(play | {"channels_last": True})
    mixed = SETrainer(last, tmp_path / "mixed", show_progress=False)
    assert _fixed_loss(mixed) == pytest.approx(before, abs=1e-5)
    convs = [m.weight for m in mixed.model.modules() if isinstance(m, torch.nn.Conv2d)]
    assert convs and all(w.is_contiguous(memory_format=torch.channels_last) for w in convs)
    assert not all(w.is_contiguous() for w in convs)  # the 3x3 kernels are laid out otherwise
    batch = mixed.sampler.sample(np.random.default_rng(0))
    assert batch.planes.is_contiguous(memory_format=torch.channels_last)
    mixed.run(3)
    mixed = SETrainer(SEConfig.from_mapping(play), tmp_path / "mixed", show_progress=False)
    assert mixed.state.step == 3
    mixed.run(6)
    a, b = read_log(tmp_path / "straight" / "log.jsonl"), read_log(tmp_path / "mixed" / "log.jsonl")
    assert [r["step"] for r in a] == [r["step"] for r in b] == [1, 2, 3, 4, 5, 6]
    for x, y in zip(a, b, strict=True):
        assert y["loss_total"] == pytest.approx(x["loss_total"], rel=1e-3), x["step"]


def test_prefetch_trains_on_the_same_batches_and_resumes_after_a_kill(
    go_config: SEConfig, tmp_path: Path
) -> None:
    """``prefetch``: batches drawn ahead in a thread are the batches of a run without it, in
    the same order (equal weights after 6 steps); a run killed after drawing ahead resumes
    from the batches it trained on (equal weights again), and the option may be switched on
    a resumed run; the default leaves the config mapping as before."""
    play = go_config.to_mapping() | {"variant": "play"}
    assert "prefetch" not in SEConfig.from_mapping(play).to_mapping()
    with pytest.raises(ConfigError, match="prefetch"):
        SEConfig.from_mapping(play | {"prefetch": -1})
    straight = SETrainer(SEConfig.from_mapping(play), tmp_path / "straight", show_progress=False)
    straight.run(6)
    ahead = SEConfig.from_mapping(play | {"prefetch": 3})
    both = SETrainer(ahead, tmp_path / "ahead", show_progress=False)
    both.run(3)
    assert both.prefetcher is None  # the thread is gone when run() returns
    both.run(6)  # from the batch after the last one trained on, not after those drawn ahead
    killed = SETrainer(ahead, tmp_path / "killed", show_progress=False)
    killed.run(2)  # the thread drew batches 3-5 ahead; the checkpoint of step 2 is what stays
    killed.train_step()  # a step whose checkpoint never came
    del killed
    resumed = SETrainer(SEConfig.from_mapping(play), tmp_path / "killed", show_progress=False)
    assert resumed.state.step == 2
    resumed.run(3)  # without prefetch
    resumed = SETrainer(ahead, tmp_path / "killed", show_progress=False)
    resumed.run(6)  # with it again
    a = straight.model.state_dict()
    for other in (both, resumed):
        b = other.model.state_dict()
        for k in a:
            assert torch.allclose(a[k].float(), b[k].float(), atol=1e-6), k

    def broken(rng: np.random.Generator, pin: bool = False) -> None:
        raise ValueError("no more pairs")

    failing = SETrainer(ahead, tmp_path / "failing", show_progress=False)
    failing.sampler.sample_host = broken  # type: ignore[method-assign,assignment]
    with pytest.raises(ValueError, match="no more pairs"):  # the thread's error, in run()
        failing.run(2)
    assert failing.prefetcher is None and failing.state.step == 0


def test_bf16_precision_trains_and_is_a_resumable_change(
    go_config: SEConfig, tmp_path: Path
) -> None:
    """``precision = "bf16"`` trains under bfloat16 autocast (losses finite, weights float32);
    it may be switched on a resumed run, and the default leaves the config mapping as runs
    written before the field recorded it."""
    assert "precision" not in go_config.to_mapping()
    with pytest.raises(ConfigError, match="precision must be one of fp32, bf16"):
        SEConfig.from_mapping(go_config.to_mapping() | {"precision": "fp16"})
    SETrainer(go_config, tmp_path / "run", show_progress=False).run(3)
    bf16 = SEConfig.from_mapping(go_config.to_mapping() | {"precision": "bf16"})
    trainer = SETrainer(bf16, tmp_path / "run", show_progress=False)
    assert trainer.state.step == 3
    losses = trainer.train_step()
    assert all(math.isfinite(v) for v in losses.values())
    trainer.run(6)
    assert all(p.dtype == torch.float32 for p in trainer.model.parameters())
    rows = read_log(tmp_path / "run" / "log.jsonl")
    assert [r["step"] for r in rows] == [1, 2, 3, 5, 6]  # step 4: train_step, unlogged
    assert all(math.isfinite(r["loss_total"]) for r in rows)


def test_training_from_a_copied_cache_folder(go_config: SEConfig, tmp_path: Path) -> None:
    """A cache folder copied elsewhere (to a machine without the games) trains like the
    config's own; a folder of other settings, or one with a shard missing, is refused."""
    import shutil

    from sparring.estimation.data import cache_path, dataset_spec

    spec = dataset_spec("go", Path(go_config.data_root))
    own = cache_path(go_config.data_config(), spec)
    SETrainer(go_config, tmp_path / "own", show_progress=False).run(2)  # builds `own`
    copy = tmp_path / "copied"
    shutil.copytree(own, copy)
    elsewhere = SEConfig.from_mapping(
        go_config.to_mapping() | {"data_root": str(tmp_path / "no-games"), "cache_dir": "x"}
    )
    trainer = SETrainer(elsewhere, tmp_path / "run", show_progress=False, data_folder=copy)
    assert trainer.data_dir == copy
    trainer.run(2)
    a = SETrainer(go_config, tmp_path / "own", show_progress=False).model.state_dict()
    b = trainer.model.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)  # the same pairs, the same steps
    other = SEConfig.from_mapping(go_config.to_mapping() | {"train_positions_per_side": 5})
    with pytest.raises(ConfigError, match="train_positions_per_side: config 5, folder 6"):
        SETrainer(other, tmp_path / "other", show_progress=False, data_folder=copy)
    (copy / "val-03.npz").unlink()
    with pytest.raises(ConfigError, match=r"missing val-03\.npz"):
        SETrainer(go_config, tmp_path / "torn", show_progress=False, data_folder=copy)
    with pytest.raises(ConfigError, match=r"no manifest\.json"):
        SETrainer(go_config, tmp_path / "none", show_progress=False, data_folder=tmp_path)
    assert not (tmp_path / "other" / "log.jsonl").exists()


@pytest.mark.parametrize("where", ["copied", "built"])
def test_gpu_budget_script_probes_plans_and_brings_back_each_run(
    go_config: SEConfig, tmp_path: Path, where: str
) -> None:
    """``research/gpu_play_train.py`` on the CPU with a tiny config: the probe, a plan that
    fills the budget (decays at 60% and 85% of the steps), and each run's files in --out;
    from a copied cache folder, or (``--data-root``) from a cache it builds first from the
    games, in worker processes, under the folder it is given."""
    import os
    import subprocess
    import sys

    from sparring.estimation.data import cache_path, dataset_spec

    spec = dataset_spec("go", Path(go_config.data_root))
    if where == "copied":
        SETrainer(go_config, tmp_path / "build", show_progress=False)  # builds the cache folder
        folder = cache_path(go_config.data_config(), spec)
        build: list[str] = []
    else:
        folder = tmp_path / "cache"
        build = ["--data-root", go_config.data_root, "--workers", "2"]
    fields = go_config.to_mapping() | {"log_every": 50, "checkpoint_every": 50}
    fields.pop("game")
    toml = tmp_path / "tiny.toml"
    toml.write_text("\n".join(_toml_line(k, v) for k, v in fields.items() if v is not None) + "\n")
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [
            sys.executable,
            str(root / "research" / "gpu_play_train.py"),
            "go",
            str(folder),
            str(toml),
            "--runs",
            str(tmp_path / "runs"),
            "--out",
            str(tmp_path / "out"),
            "--budget",
            "25",  # the planned run must start (import torch, load the data) before the end
            "--device",
            "cpu",
            *build,
        ],
        env={**os.environ, "PYTHONPATH": str(root / "src")},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    plan = json.loads((tmp_path / "out" / "plan.json").read_text())["tiny"]
    assert plan["probe_seconds_per_step"] > 0 and plan["steps"] > 150
    assert plan["lr_decay_steps"] == [int(plan["steps"] * 0.6), int(plan["steps"] * 0.85)]
    if where == "built":
        assert plan["build_seconds"] > 0
        data = SEConfig.from_mapping(go_config.to_mapping() | {"cache_dir": str(folder)})
        made = cache_path(data.data_config(), spec)
        assert f"cache {made} built in" in done.stdout
        reference = build_dataset(go_config.data_config(), show_progress=False)
        assert sorted(p.name for p in made.glob("*.npz")) == sorted(
            p.name for p in reference.glob("*.npz")
        )
    else:
        assert plan["build_seconds"] is None
    for name in ("model.pt", "log.jsonl", "config.json"):
        assert (tmp_path / "out" / f"tiny.{name}").exists(), name
    saved = json.loads((tmp_path / "out" / "tiny.config.json").read_text())
    assert saved["lr_decay_steps"] == plan["lr_decay_steps"] and saved["device"] == "cpu"


def _toml_line(key: str, value: object) -> str:
    if isinstance(value, bool):
        return f"{key} = {str(value).lower()}"
    return f"{key} = {json.dumps(value)}"  # strings, numbers and their lists read alike


def test_se_train_command_without_a_progress_bar(go_config: SEConfig, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from sparring.cli import app

    fields = go_config.to_mapping() | {"steps": 2, "checkpoint_every": 2}
    toml = tmp_path / "se.toml"
    toml.write_text("\n".join(_toml_line(k, v) for k, v in fields.items() if v is not None) + "\n")
    out = tmp_path / "run"
    args = ["se-train", "go", "-c", str(toml), "--out", str(out), "--no-progress"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "training" not in result.output.replace("training pairs", "")  # no bar drawn
    assert [r["step"] for r in read_log(out / "log.jsonl")] == [1, 2]
    again = CliRunner().invoke(app, [*args[:-1], "--steps", "3", "--no-progress"])
    assert again.exit_code == 0, again.output
    assert " at step 2" in " ".join(again.output.split())  # "resuming RUN at step 2"
    assert [r["step"] for r in read_log(out / "log.jsonl")] == [1, 2, 3]


def test_estimate_command_on_a_real_sgf(tmp_path: Path) -> None:
    import typer
    from typer.testing import CliRunner

    from sparring.cli.estimation import register

    root = need_data()
    sgf = root / "strength" / "go" / "candidating" / "5d.sgf"
    line = sgf.read_text().splitlines()[0]
    black = line.split("PB[", 1)[1].split("]", 1)[0]
    model = build_strength_model(StrengthNetConfig("go", GO_RANKS, "se_inf", **TINY_NET), seed=0)
    refs = {"ranks": list(GO_RANKS), "scores": [0.5 - 0.1 * i for i in range(11)]}
    save_strength_model(tmp_path / "est.pt", model, {"references": refs})
    app = typer.Typer()
    register(app)
    runner = CliRunner()
    ok = runner.invoke(
        app, ["estimate", str(sgf), "--player", black, "--model", str(tmp_path / "est.pt")]
    )
    assert ok.exit_code == 0, ok.output
    assert "estimated rank:" in ok.output and "confidence:" in ok.output
    assert any(f"estimated rank: {r}\n" in ok.output for r in GO_RANKS)
    missing = runner.invoke(
        app, ["estimate", str(sgf), "--player", "nobody-here", "--model", str(tmp_path / "est.pt")]
    )
    assert isinstance(missing.exception, SparringError)
    assert "not found" in str(missing.exception) and "\n" not in str(missing.exception)
    bad = tmp_path / "bad.sgf"
    bad.write_text("(;GM[1]SZ[19];B[zz]\n")
    broken = runner.invoke(
        app, ["estimate", str(bad), "--player", "x", "--model", str(tmp_path / "est.pt")]
    )
    assert isinstance(broken.exception, SparringError)
    assert "no readable game" in str(broken.exception)
    no_refs = tmp_path / "plain.pt"
    save_strength_model(no_refs, model, {})
    plain = runner.invoke(app, ["estimate", str(sgf), "--player", black, "--model", str(no_refs)])
    assert isinstance(plain.exception, SparringError) and "reference" in str(plain.exception)


def test_estimate_chess_band_from_pgn(tmp_path: Path) -> None:
    from sparring.estimation.data import CHESS_RANKS, read_records
    from sparring.estimation.predict import estimate_player

    root = need_data()
    pgn = root / "strength" / "chess" / "candidating" / "1800-2000.pgn"
    records = read_records(pgn, "chess", limit=4)
    model = build_strength_model(StrengthNetConfig("chess", CHESS_RANKS, "se_inf", **TINY_NET))
    refs = {"ranks": list(CHESS_RANKS), "scores": [0.4 - 0.1 * i for i in range(8)]}
    save_strength_model(tmp_path / "c.pt", model, {"references": refs})
    name = records[0].white_name
    est = estimate_player(records, name, tmp_path / "c.pt", bootstrap=200)
    assert est.game == "chess" and est.rank_name in CHESS_RANKS
    assert est.moves == (records[0].moves.size + 1) // 2 * len(est.games) or est.moves > 0
    assert "estimated Elo band" in est.describe()
    assert 0.0 <= est.confidence <= est.within_one <= 1.0
    assert json.dumps(est.probabilities.tolist())


def test_report_shows_references_with_errors_and_both_fits(tmp_path: Path) -> None:
    from sparring.estimation.predict import Curves, RankSeparation
    from sparring.estimation.report import MethodResult, RunEvaluation, write_report

    pytest.importorskip("matplotlib")
    cfg = SEConfig(game="chess", eval_max_games=5, eval_draws=3)
    ranks = ranks_for("chess")
    n = len(ranks)
    curves = Curves(np.full((n, 5), 0.5), np.full((n, 5), 0.75), [4] * n, [True] * n)
    means = np.linspace(2.0, -4.0, n)
    means[[0, 1]] = means[[1, 0]]  # the top two references swapped
    ev = RunEvaluation(
        run=tmp_path / "run",
        config=cfg,
        kind="se",
        step=10,
        ranks=ranks,
        methods=[MethodResult("SE", "run", curves), MethodResult("SE (line)", "run", curves)],
        references=means,
        fitted_references={"mean": means, "line": fit_references(means, "line")},
        reference_error=np.full(n, 0.3),
        held_out_means=np.linspace(2.0, -4.0, n),
        held_out_error=np.full(n, 0.2),
        train_means=np.linspace(6.0, -8.0, n),
        val_units=[4] * n,
        pairs={"train": 1, "val": 2, "cand": 3},
        separation=RankSeparation(np.linspace(2.0, -4.0, n), 0.6, 2.0, [4] * n),
    )
    report = write_report([ev], tmp_path / "out", "chess").read_text()
    # d' = 0.3: the Gaussian model needs (2 x 1.2816 / 0.3)^2 = 73 games for 80%, at 26 games
    # (chess's paper target) it gives 2 Phi(0.3 sqrt(26) / 2) - 1 = 55.6%
    assert "| 0.600 | 2.000 | 0.300 | 55.6% | 73 | 0.503 |" in report
    for name in ("accuracy.png", "per_rank.png", "references.png", "results.json"):
        assert (tmp_path / "out" / name).is_file()
    top = [line for line in report.splitlines() if line.startswith(f"| {ranks[0]} | ")][-1]
    assert f"{means[0]:+.3f} ± 0.30" in top and "± 0.20" in top and "+6.000" in top
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    line = results["runs"][0]["reference_fits"]["line"]
    assert line[0] > line[1]  # the line puts the top band back on top


# ---- the shipped estimators (package data, found by name) --------------------------------------
def test_shipped_estimators_are_package_data_found_by_name(tmp_path: Path) -> None:
    import fnmatch
    import tomllib

    from sparring.nn.estimators import (
        ESTIMATOR_DIR,
        default_estimator,
        resolve_estimator,
        shipped_estimators,
    )

    package = ESTIMATOR_DIR.parents[1]
    assert ESTIMATOR_DIR.parts[-3:] == ("sparring", "models", "estimators")
    assert sorted(shipped_estimators()) == [
        "chess-play", "chess-se", "chess-se-inf", "chess-se-inf-play", "go-play", "go-play-early",
        "go-se", "go-se-inf", "go-se-inf-play",
    ]  # fmt: skip
    assert default_estimator("go") == ESTIMATOR_DIR / "go-se.onnx"  # the ONNX files run
    assert default_estimator("chess") == ESTIMATOR_DIR / "chess-se.onnx"
    assert resolve_estimator("go-se-inf") == ESTIMATOR_DIR / "go-se-inf.onnx"
    mine = tmp_path / "mine.pt"
    mine.write_bytes(b"")
    assert resolve_estimator(str(mine)) == mine
    with pytest.raises(SparringError, match="neither a file nor a shipped estimator"):
        resolve_estimator("go-xx")
    with pytest.raises(SparringError, match="no shipped othello strength estimator"):
        default_estimator("othello")
    # A former name still resolves, to the same file, with a deprecation warning.
    with pytest.warns(DeprecationWarning, match="'go-play-s32' is deprecated.*'go-play-early'"):
        assert resolve_estimator("go-play-s32") == ESTIMATOR_DIR / "go-play-early.onnx"
    # Every file of the models folder is declared package data (an installed sparring has
    # it), but the PyTorch originals (NAME.pt): the wheel has their ONNX exports instead.
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    globs = pyproject["tool"]["setuptools"]["package-data"]["sparring"]
    for path in (package / "models").rglob("*"):
        if path.is_file():
            rel = path.relative_to(package).as_posix()
            declared = any(
                fnmatch.fnmatch(rel, g) and rel.count("/") == g.count("/") for g in globs
            )
            assert declared == (path.suffix != ".pt"), rel
    for name, path in shipped_estimators().items():
        model, meta = load_strength_model(path)
        assert model.config.game == name.split("-")[0]
        if name.endswith("-se-inf-play") or "-play" not in name:
            # an estimator (GAME-se-inf-play: an SE-inf net) with its reference scores
            kind = name.split("-", 1)[1].removesuffix("-play")
            assert model.config.kind == kind.replace("-", "_")
            assert "references" in meta
        else:  # GAME-play[-NAME]: a play network (the rank an input), no references
            assert model.config.kind == "play" and "references" not in meta
            assert model.config.ranks == (GO_RANKS if model.config.game == "go" else CHESS_RANKS)
