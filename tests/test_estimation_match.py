"""Held-out positions, policy-head move match (``se-policy``) and human move matching
(``se-match``).  Tests on real records skip when ``../shared/data`` is absent
(and fail under ``SPARRING_CI=1``: :mod:`shared_data`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import shared_data  # noqa: E402
from sparring.errors import SparringError  # noqa: E402
from sparring.estimation.heldout import (  # noqa: E402
    HeldOutPositions,
    held_out_positions,
    policy_match,
    policy_moves,
    wilson_interval,
)
from sparring.estimation.match import (  # noqa: E402
    PlayerProgram,
    PolicyProgram,
    parse_program,
    run_match,
    write_match,
)
from sparring.nn.estimators import resolve_estimator  # noqa: E402
from sparring.nn.strength_net import StrengthNet, load_strength_model  # noqa: E402

DATA = shared_data.DATA


def need_data() -> Path:
    shared_data.need_data(DATA / "strength")
    return DATA


def test_wilson_interval_hand_values() -> None:
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(0.236587, abs=1e-5)
    assert hi == pytest.approx(0.763413, abs=1e-5)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0
    assert hi == pytest.approx(0.277540, abs=1e-5)


def test_policy_moves_masks_illegal_moves() -> None:
    logits = np.array([[5.0, 1.0, 3.0, 2.0], [0.0, 0.0, 1.0, 4.0]], dtype=np.float32)
    legal = np.array([[False, True, True, True], [True, True, True, False]])
    assert policy_moves(logits, None, k=2).tolist() == [[0, 2], [3, 2]]
    assert policy_moves(logits, legal, k=2).tolist() == [[2, 3], [2, 0]]


def _toy_positions() -> HeldOutPositions:
    """Four positions of two ranks with hand-set moves (only counting is exercised)."""
    return HeldOutPositions(
        game="go",
        ranks=("9d", "3-5k"),
        states=[np.zeros(1, np.uint64) for _ in range(4)],
        planes=np.zeros((4, 15, 19, 19), np.float32),
        actions=np.array([10, 20, 30, 40]),
        rank=np.array([0, 0, 1, 1]),
        legal=np.ones((4, 362), bool),
        move_number=np.arange(4),
        source=["x"] * 4,
    )


class _Fixed:
    def __init__(self, name: str, moves: list[int]) -> None:
        self.name = name
        self._moves = np.array(moves, dtype=np.int64)

    def moves(self, pos: HeldOutPositions) -> np.ndarray:
        return self._moves


def test_run_match_counts_per_rank_and_writes_the_report(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    pos = _toy_positions()
    table = run_match(pos, [_Fixed("a", [10, 0, 30, 40]), _Fixed("b", [0, 0, 0, 40])])
    a, b = table.results
    assert a.hits == (1, 2) and a.positions == (2, 2)
    assert b.hits == (0, 1)
    assert a.share() == 0.75 and a.share(0) == 0.5
    assert a.interval(0) == wilson_interval(1, 2)
    md = write_match(table, tmp_path, "sparring se-match go --out X")
    data = json.loads((tmp_path / "match.json").read_text())
    assert [p["hits"] for p in data["programs"]] == [[1, 2], [0, 1]]
    assert (tmp_path / "match.png").stat().st_size > 0
    text = md.read_text()
    assert "| 9d | 2 | 50.0 (" in text and "**75.0**" in text


def test_paired_comparison_hand_values(tmp_path: Path) -> None:
    """Against the first program ``a`` (hits 1, 0, 1, 1): ``b`` (0, 0, 0, 1) matched no
    position that ``a`` missed and missed two that ``a`` matched: McNemar's exact two-sided p
    of 0 in 2 is 2 * (1/2)^2 = 0.5; ``c`` (0, 1, 1, 1): one each way, p = 1; ``a`` again:
    no discordant position, p = 1."""
    pytest.importorskip("matplotlib")
    from sparring.estimation.match import paired_comparisons

    pos = _toy_positions()
    table = run_match(
        pos,
        [
            _Fixed("a", [10, 0, 30, 40]),
            _Fixed("b", [0, 0, 0, 40]),
            _Fixed("c", [0, 20, 30, 40]),
            _Fixed("a2", [10, 0, 30, 40]),
        ],
    )
    assert table.results[0].matched == (True, False, True, True)
    b, c, a2 = paired_comparisons(table)
    assert (b.name, b.reference, b.only_this, b.only_reference) == ("b", "a", 0, 2)
    assert b.p_value == pytest.approx(0.5) and b.difference == -0.5
    assert (c.only_this, c.only_reference, c.p_value, c.difference) == (1, 1, 1.0, 0.0)
    assert (a2.only_this, a2.only_reference, a2.p_value) == (0, 0, 1.0)
    text = write_match(table, tmp_path).read_text()
    assert "| b | 0 | 2 | -50.0 | 0.5 |" in text and "| c | 1 | 1 | +0.0 | 1 |" in text
    data = json.loads((tmp_path / "match.json").read_text())
    assert data["programs"][1]["matched"] == [False, False, False, True]
    one = run_match(pos, [_Fixed("a", [10, 0, 30, 40])])
    assert paired_comparisons(one) == [] and "Paired" not in write_match(one, tmp_path).read_text()


def test_run_match_rejects_a_program_with_the_wrong_number_of_moves() -> None:
    with pytest.raises(SparringError, match="moves for 4 positions"):
        run_match(_toy_positions(), [_Fixed("short", [1, 2])])


def test_parse_program() -> None:
    p = parse_program("policy:model=go-se-inf")
    assert isinstance(p, PolicyProgram) and p.model == "go-se-inf"
    q = parse_program("player:se-inf-mcts:rank={rank},sims=50")
    assert isinstance(q, PlayerProgram) and q.spec == "se-inf-mcts:rank={rank},sims=50"
    for bad in ("policy", "policy:net=go-se", "mcts", "player:"):
        with pytest.raises(SparringError, match="bad program"):
            parse_program(bad)


# ---- real records and the shipped estimators -------------------------------------------------
@pytest.fixture(scope="module")
def go_positions() -> HeldOutPositions:
    return held_out_positions("go", 220, seed=0, data_root=need_data())


def test_held_out_positions_are_per_rank_and_legal(go_positions: HeldOutPositions) -> None:
    pos = go_positions
    assert len(pos) == 220 and np.bincount(pos.rank).tolist() == [20] * 11
    assert pos.legal[np.arange(len(pos)), pos.actions].all()  # the human move is legal
    assert len(set(pos.source)) == len(pos)  # no position twice


def test_tune_and_test_parts_split_the_held_out_games_by_player() -> None:
    from sparring.estimation.data import record_players
    from sparring.estimation.heldout import _held_out_games

    data = need_data()
    _, whole = _held_out_games("chess", data, 0.15, 1)
    _, tune = _held_out_games("chess", data, 0.15, 1, "tune")
    _, test = _held_out_games("chess", data, 0.15, 1, "test")
    for w, a, b in zip(whole, tune, test, strict=True):
        assert a and b and len(a) + len(b) == len(w)
        keys = {(rec.path, rec.line) for rec in a}
        assert keys.isdisjoint((rec.path, rec.line) for rec in b)
        assert keys | {(rec.path, rec.line) for rec in b} == {(rec.path, rec.line) for rec in w}
        # each game's focus player (of its two, the one with more held-out games in the
        # rank) is on one side only
        counts: dict[str, int] = {}
        for rec in w:
            for n in record_players(rec):
                counts[n] = counts.get(n, 0) + 1

        def focus(rec: object, counts: dict[str, int] = counts) -> str:
            x, y = record_players(rec)  # type: ignore[arg-type]
            return x if counts[x] >= counts[y] else y

        assert {focus(rec) for rec in a}.isdisjoint(focus(rec) for rec in b)
    with pytest.raises(SparringError, match="unknown part 'dev'"):
        _held_out_games("chess", data, 0.15, 1, "dev")


@pytest.mark.parametrize("name", ["go-se", "go-se-inf-play"])
def test_shipped_go_se_policy_is_usable(go_positions: HeldOutPositions, name: str) -> None:
    net, _ = load_strength_model(resolve_estimator(name))
    res = policy_match(net, go_positions)
    assert res.top1_legal > 0.22
    assert res.illegal_top1 < 0.10


@pytest.mark.xfail(
    strict=True,
    reason="the Go SE-inf policy diagnosis: the shipped go-se-inf policy puts ~38% of its "
    "probability on illegal moves (argmax illegal in ~49% of positions); the player kinds use "
    "go-se-inf-play",
)
def test_shipped_go_se_inf_policy_is_usable(go_positions: HeldOutPositions) -> None:
    """go-se-inf stays the SE-inf estimator (its rank accuracy at N = 50 and 100 is ahead of
    go-se-inf-play's); the player kinds default to go-se-inf-play (test below)."""
    net, _ = load_strength_model(resolve_estimator("go-se-inf"))
    res = policy_match(net, go_positions)
    assert res.top1_legal > 0.22
    assert res.illegal_top1 < 0.10


def _median_beta_prior_rank_correlation(name: str, pos: HeldOutPositions) -> float:
    """Median over positions of the Spearman correlation between the strength score
    beta(s, a) and the policy's log-probability over the legal moves (research/
    semcts_beta_prior.py)."""
    from scipy.stats import spearmanr

    from sparring.estimation.heldout import legal_move_scores

    net, _ = load_strength_model(resolve_estimator(name))
    rho = [spearmanr(beta, logp).statistic for beta, logp in legal_move_scores(net, pos, 60)]
    return float(np.median(rho))


@pytest.mark.xfail(
    strict=True,
    reason="the shipped Go strength heads score a move by its policy log-probability "
    "alone (median within-position Spearman go-se-inf-play 0.997, go-se -1.000, "
    "research/semcts_beta_prior.py), so SE-MCTS can only prefer more or less likely moves; "
    "the Go head trained without that input (checkpoints/se-go-se-inf-noprior) is not shipped: "
    "its policy is weaker and the rank still does not change the Go game results",
)
@pytest.mark.parametrize("name", ["go-se-inf-play", "go-se"])
def test_shipped_go_strength_score_is_more_than_the_prior(
    go_positions: HeldOutPositions, name: str
) -> None:
    assert abs(_median_beta_prior_rank_correlation(name, go_positions)) < 0.9


def test_chess_play_network_scores_moves_by_more_than_the_prior() -> None:
    """chess-se-inf-play's strength head has no log-probability input (median within-position
    Spearman 0.41 against 0.995 for chess-se-inf, research/semcts_beta_prior.py)."""
    pos = held_out_positions("chess", 64, seed=0, data_root=need_data())
    assert abs(_median_beta_prior_rank_correlation("chess-se-inf-play", pos)) < 0.7
    assert _median_beta_prior_rank_correlation("chess-se-inf", pos) > 0.9


def test_player_kinds_use_the_play_networks() -> None:
    from sparring.nn.estimators import player_estimator

    # the ONNX files, which the players run
    assert player_estimator("go", None, "se-inf").name == "go-se-inf-play.onnx"
    assert player_estimator("go", None, "se").name == "go-se.onnx"
    assert player_estimator("go", "go-se-inf", "se-inf").name == "go-se-inf.onnx"
    assert player_estimator("chess", None, "se-inf").name == "chess-se-inf-play.onnx"
    assert player_estimator("chess", None, "se").name == "chess-se.onnx"
    assert player_estimator("chess", "chess-se-inf", "se-inf").name == "chess-se-inf.onnx"


def test_sa_mcts_finishes_go_games_like_the_other_programs() -> None:
    from sparring.games import get_game
    from sparring.players.registry import make_player
    from sparring.players.strength import StrengthAdjustedPlayer

    player = make_player("sa-mcts:z=1,sims=2", get_game("go"))
    assert isinstance(player, StrengthAdjustedPlayer) and player.finish_go


def _chess_positions() -> HeldOutPositions:
    """Three chess positions of two ranks: the start and after one and two first-legal moves."""
    from sparring.games.chess import Chess

    game = Chess()
    moves: list[int] = []
    state = game.initial_state()
    for _ in range(3):
        moves.append(int(game.legal_moves(state)[0]))
        state = game.play(state, moves[-1])
    states = game.replay_states(moves)[:3]
    return HeldOutPositions(
        game="chess",
        ranks=("2400-2600", "1000-1200"),
        states=list(states),
        planes=game.replay_planes(moves),
        actions=np.array(moves, dtype=np.int64),
        rank=np.array([0, 1, 1]),
        legal=np.stack([game.legal_mask(s) for s in states]),
        move_number=np.arange(3),
        source=["toy"] * 3,
    )


def test_player_program_builds_one_player_per_rank_with_its_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sparring.players.registry as registry

    pos = _chess_positions()
    built: list[str] = []
    real = registry.make_player

    def spy(spec: str, game: object, seed: int | None = None, cache: object = None) -> object:
        built.append(spec)
        return real("random", game, seed=seed)  # type: ignore[arg-type]

    monkeypatch.setattr(registry, "make_player", spy)
    program = parse_program("player:uct:sims=8,name=r{rank}")
    moves = program.moves(pos)
    assert built == ["uct:sims=8,name=r2400-2600", "uct:sims=8,name=r1000-1200"]
    assert pos.legal[np.arange(3), moves].all()


def test_random_player_program_on_real_chess_positions() -> None:
    pos = _chess_positions()
    table = run_match(pos, [parse_program("player:random")])
    assert sum(table.results[0].positions) == 3
    assert table.results[0].positions == (1, 2)


def test_player_program_closes_each_player_even_when_a_move_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An engine player (Stockfish through python-chess) keeps a non-daemon thread until it is
    closed, and a process that never closes it does not exit: every player built is closed,
    also when its move raises."""
    import sparring.players.registry as registry
    from sparring.players.base import RandomPlayer

    closed: list[str] = []

    class Recording(RandomPlayer):
        def close(self) -> None:
            closed.append(self.name)

    class Failing(Recording):
        def select_move(self, game: object, state: object, limit: object = None) -> int:
            raise RuntimeError("engine gone")

    pos = _chess_positions()
    monkeypatch.setattr(registry, "make_player", lambda spec, game, seed=None: Recording(spec))
    parse_program("player:random,name=r{rank}").moves(pos)
    assert closed == ["random,name=r2400-2600", "random,name=r1000-1200"]
    closed.clear()
    monkeypatch.setattr(registry, "make_player", lambda spec, game, seed=None: Failing(spec))
    with pytest.raises(RuntimeError, match="engine gone"):
        parse_program("player:random").moves(pos)
    assert closed == ["random"]


def _tiny_chess_play_network(ranks: tuple[str, ...]) -> StrengthNet:
    from sparring.nn.strength_net import StrengthNetConfig, build_strength_model

    config = StrengthNetConfig(
        game="chess", ranks=ranks, kind="play", blocks=1, channels=8, value_hidden=8
    )
    return build_strength_model(config, seed=3)


def test_policy_program_asks_a_play_network_at_each_positions_rank(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``policy:model=NET`` of a play network is its policy's legal top move for a player of
    the position's rank group (what :class:`PlayNetEvaluator` gives its search as priors),
    matched by label even when the network lists its ranks in another order."""
    from sparring.nn import strength_net as model_module
    from sparring.nn.playnet import PlayNetEvaluator

    pos = _chess_positions()
    net = _tiny_chess_play_network(("1000-1200", "1600-1800", "2400-2600"))
    monkeypatch.setattr(model_module, "load_strength_model", lambda path: (net, {}))
    monkeypatch.setattr("sparring.nn.estimators.resolve_estimator", lambda name: name)
    got = PolicyProgram(name="p", model="net").moves(pos)
    want = []
    for i in range(len(pos)):
        rank = net.config.ranks.index(pos.ranks[int(pos.rank[i])])
        evaluator = PlayNetEvaluator(net, rank)
        priors, _ = evaluator.evaluate(pos.planes[i : i + 1], pos.legal[i : i + 1])
        want.append(int(np.argmax(priors[0])))
    assert got.tolist() == want
    # the rank input is read: each row's logits are the network's at that row's rank, and
    # they differ between ranks
    from sparring.estimation.heldout import network_ranks, policy_logits

    ranks = network_ranks(net, pos)
    assert ranks is not None and ranks.tolist() == [2, 0, 0]
    logits = policy_logits(net, pos.planes, ranks=ranks)
    other = policy_logits(net, pos.planes, ranks=np.array([0, 2, 2]))
    assert not np.allclose(logits, other, atol=1e-4)
    with torch.no_grad():
        direct, _ = net.play(torch.from_numpy(pos.planes), torch.from_numpy(ranks))
    assert np.allclose(logits, direct.numpy(), atol=1e-5)
    res = policy_match(net, pos)
    assert res.top1_legal == pytest.approx(float(np.mean(got == pos.actions)))


def test_a_play_networks_policy_needs_the_ranks() -> None:
    from sparring.errors import IncompatibleError
    from sparring.estimation.heldout import policy_logits

    pos = _chess_positions()
    net = _tiny_chess_play_network(("1000-1200", "1600-1800"))
    with pytest.raises(SparringError, match="rank of every position"):
        policy_logits(net, pos.planes)
    with pytest.raises(IncompatibleError, match="no rank 2400-2600"):
        policy_match(net, pos)
