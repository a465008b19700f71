"""SE-MCTS (Chen, Shih & Wu 2025, Eq. 6): the score hook by hand, selection and the subtree-mean
backup on a hand-worked tic-tac-toe tree, the strength evaluator against the network itself,
the target curve, and the rank / elo options of the human-like player kinds."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch

from sparring.errors import UnknownPlayerError
from sparring.games import get_game
from sparring.games.base import Game
from sparring.search.evaluator import EdgeAuxEvaluator
from sparring.search.puct import PUCTConfig, search
from sparring.search.semcts import SEMCTSConfig, se_mcts_score

TTT = get_game("tictactoe")
C, C1 = 1.25, 2.0


def _call(n: float, aux: float, parent_n: float, context: np.ndarray, score: float = 1.0,
          target: float = 0.0, below: float = 0.5) -> float:  # fmt: skip
    params = np.array([C, C1, target, below], dtype=np.float64)
    return float(
        se_mcts_score(score, n, 0.0, 0.1, parent_n, aux, 0.0, np.nan, 0, 0, params, context)
    )


def test_eq6_hook_by_hand() -> None:
    """Target 0; the running min/max start empty (+inf, -inf).

    * unvisited edge: delta 0, no penalty, min/max untouched;
    * edge A, mean 2/2 = 1: delta 1, min = max = 1, span 0 -> no penalty;
    * edge B, mean 9/3 = 3: delta 3, max 3 -> hat delta (3-1)/2 = 1, above the target:
      penalty ``1.25 * 2 * 1 * sqrt(16) / (1 + 3) = 2.5``;
    * edge C, mean -4/2 = -2: delta 2 -> hat delta (2-1)/2 = .5, below the target: halved to
      .25, penalty ``1.25 * 2 * .25 * 4 / 3 = 5/6``;
    * edge A again: delta 1 is the minimum -> hat delta 0.
    """
    context = np.array([math.inf, -math.inf])
    assert _call(0.0, 0.0, 16.0, context) == 1.0
    assert context[0] == math.inf and context[1] == -math.inf
    assert _call(2.0, 2.0, 16.0, context) == 1.0
    assert context.tolist() == [1.0, 1.0]
    assert _call(3.0, 9.0, 16.0, context) == pytest.approx(1.0 - 2.5)
    assert _call(2.0, -4.0, 16.0, context) == pytest.approx(1.0 - 5.0 / 6.0)
    assert _call(2.0, 2.0, 16.0, context) == 1.0
    assert context.tolist() == [1.0, 3.0]
    # below_factor 1: the same edge C gets the full penalty 1.25 * 2 * .5 * 4 / 3
    assert _call(2.0, -4.0, 16.0, context, below=1.0) == pytest.approx(1.0 - 5.0 / 3.0)


def test_eq6_equal_deltas_normalise_to_zero() -> None:
    """All differences equal (here |mean - target| = 2 above and below): max == min, so every
    hat delta is 0 and Eq. 6 is Eq. 8."""
    context = np.array([math.inf, -math.inf])
    for n, aux in ((1.0, 3.0), (4.0, 12.0), (2.0, -2.0), (5.0, 15.0)):
        assert _call(n, aux, 10.0, context, score=0.25, target=1.0) == 0.25
    assert context.tolist() == [2.0, 2.0]


ROOT_PRIORS = {4: 0.4, 0: 0.3}
"""Priors by move everywhere (the other legal moves share 0.3 equally, then renormalised)."""


class EdgeStrengthStub:
    """An :class:`EdgeAuxEvaluator` on tic-tac-toe: priors :data:`ROOT_PRIORS`, value 0, and
    ``beta = 1`` for an edge playing the centre (4), else 0.  It checks the search's contract:
    ``parents[b]`` played ``moves[b]`` gives ``states[b]`` (a root: -1 and the leaf itself)."""

    def __init__(self) -> None:
        self.edges: list[int] = []

    def evaluate(self, planes, legal, states=None):  # type: ignore[no-untyped-def]
        priors = np.zeros(legal.shape, dtype=np.float32)
        for b in range(len(legal)):
            rest = [m for m in np.flatnonzero(legal[b]) if m not in ROOT_PRIORS]
            for m in rest:
                priors[b, m] = 0.3 / 7
            for m, p in ROOT_PRIORS.items():
                if legal[b, m]:
                    priors[b, m] = p
            priors[b] /= priors[b].sum()
        return priors, np.zeros(len(legal), dtype=np.float32)

    def evaluate_aux(self, planes, legal, states=None):  # type: ignore[no-untyped-def]
        raise AssertionError("the search must call evaluate_edge_aux")

    def evaluate_edge_aux(self, planes, legal, states, parents, moves):  # type: ignore[no-untyped-def]
        for b in range(len(states)):
            if moves[b] < 0:
                assert np.array_equal(parents[b], states[b])
            else:
                assert np.array_equal(TTT.play(parents[b], int(moves[b])), states[b])
            self.edges.append(int(moves[b]))
        priors, values = self.evaluate(planes, legal, states)
        return priors, values, (np.asarray(moves) == 4).astype(np.float32)


def _visits(simulations: int, hooked: bool) -> dict[int, int]:
    hook = SEMCTSConfig(target=0.0, c_puct=C, c1=C1).hook() if hooked else None
    config = PUCTConfig(simulations=simulations, c_puct=C, score_hook=hook)
    result = search(TTT, TTT.initial_state(), EdgeStrengthStub(), config)
    return {int(m): int(v) for m, v in zip(result.moves, result.visits, strict=True) if v}


def test_eq6_selection_on_a_hand_worked_tree() -> None:
    """Root priors b2 (4) .4, a1 (0) .3, the 7 others .3/7; values 0; beta 1 on centre moves,
    target 0.

    * sim 1 (N = 1): 4 scores 1.25 * .4 = .5 > 0's .375 -> 4 (beta 1: delta 1; min = max = 1);
    * sim 2 (N = 2): 4: .3536 (span 0, no penalty) < 0: 1.25 * .3 * sqrt 2 = .5303 -> 0
      (beta 0);
    * sim 3 (N = 3): 0: 1.25 * .3 * sqrt 3 / 2 = .3248, delta 0 = min; 4: .4330 minus
      1.25 * 2 * 1 * sqrt 3 / 2 = 2.165 -> 0.  Plain Eq. 8 takes 4 (.4330 > .3248).
      Below 0, O answers in the centre (prior .4/.7): that leaf's beta is 1.
    * sim 4 (N = 4): 0 has mean (0 + 1) / 2 = .5 (the subtree mean, both players' moves):
      hat delta .5, .25 - 1.25 * 2 * .5 * 2 / 3 = -.583; 4: .5 - 2.5 = -2; the unvisited 1:
      1.25 * .3/7 * 2 = .107 -> 1.  Were the mean the first leaf's beta alone (0), 0 would
      score .25 and be taken again.
    """
    assert _visits(3, hooked=False) == {4: 2, 0: 1}
    assert _visits(3, hooked=True) == {0: 2, 4: 1}
    assert _visits(4, hooked=True) == {0: 2, 1: 1, 4: 1}
    stub = EdgeStrengthStub()
    assert isinstance(stub, EdgeAuxEvaluator)
    config = PUCTConfig(simulations=3, score_hook=SEMCTSConfig(0.0).hook())
    search(TTT, TTT.initial_state(), stub, config)
    assert stub.edges == [-1, 4, 0, 4]  # the root, then the move into each leaf


def test_semcts_config_rejects_bad_values() -> None:
    with pytest.raises(ValueError):
        SEMCTSConfig(math.nan)
    with pytest.raises(ValueError):
        SEMCTSConfig(0.0, c1=-1.0)
    hook = SEMCTSConfig(-12.5, c_puct=1.5, c1=3.0).hook()
    assert hook.uses_aux and hook.params == (1.5, 3.0, -12.5, 0.5)


# ---- the strength evaluator and the target -------------------------------------------------
def test_strength_evaluator_scores_the_edge_into_each_leaf() -> None:
    """beta of a leaf is the network's score of (parent, move), whether the parent's trunk
    outputs come from the cache or are computed in the leaves' batch; priors and values are
    the network's own."""
    from sparring.nn.strength_eval import StrengthEvaluator
    from sparring.nn.strength_net import StrengthNetConfig, build_strength_model
    from sparring.search.evaluator import masked_softmax

    go = get_game("go")
    ranks = ("9d", "5d", "1d")
    model = build_strength_model(
        StrengthNetConfig("go", ranks, "se", blocks=1, channels=8, head_channels=8,
                          head_hidden=8, value_hidden=8), seed=3)  # fmt: skip
    evaluator = StrengthEvaluator(model, go, capacity=4)
    root = go.initial_state()
    moves = np.array([72, 300], dtype=np.int64)
    leaves = np.stack([go.play(root, int(m)) for m in moves])
    planes = np.stack([go.encode(s) for s in leaves]).astype(np.float32)
    legal = np.stack([go.legal_mask(s) for s in leaves])
    parents = np.stack([root, root])
    with torch.inference_mode():
        parent_planes = torch.from_numpy(np.stack([go.encode(root)] * 2).astype(np.float32))
        _, _, expected = model(parent_planes, torch.from_numpy(moves))
        logits, values, _ = model(torch.from_numpy(planes), torch.from_numpy(moves))
    missing = evaluator.evaluate_edge_aux(planes, legal, leaves, parents, moves)
    assert evaluator.trunk_positions == 3  # two leaves and the one missing parent
    cached = evaluator.evaluate_edge_aux(planes, legal, leaves, parents, moves)
    assert evaluator.trunk_positions == 5  # the parent came from the cache
    for priors, vals, beta in (missing, cached):
        assert np.allclose(beta, expected[:, 0].numpy(), atol=1e-5)
        assert np.allclose(vals, values.numpy(), atol=1e-5)
        assert np.allclose(priors, masked_softmax(logits.numpy(), legal), atol=1e-5)
    root_only = evaluator.evaluate_edge_aux(
        planes[:1], legal[:1], leaves[:1], leaves[:1], np.array([-1])
    )
    assert root_only[2].tolist() == [0.0]

    # Centred for the players: beta minus the target at the edge's own move number (the
    # parent's ply): -2 at ply 0, -2.2 at ply 1 on this curve; a root stays 0.
    from sparring.nn.strength_eval import CentredStrengthEvaluator, RankTarget

    centred = CentredStrengthEvaluator(evaluator, RankTarget("x", 0.0, (0.0, 10.0), (-2.0, -4.0)))
    deeper = go.play(leaves[0], 100)
    rows = np.stack([leaves[0], deeper, leaves[0]])
    rows_planes = np.stack([go.encode(r) for r in rows]).astype(np.float32)
    rows_legal = np.stack([go.legal_mask(r) for r in rows])
    rows_parents = np.stack([root, leaves[0], leaves[0]])
    rows_moves = np.array([72, 100, -1])
    _, _, raw = evaluator.evaluate_edge_aux(rows_planes, rows_legal, rows, rows_parents, rows_moves)
    _, _, aux = centred.evaluate_edge_aux(rows_planes, rows_legal, rows, rows_parents, rows_moves)
    assert np.allclose(aux, [raw[0] + 2.0, raw[1] + 2.2, 0.0], atol=1e-5)


def test_rank_target_interpolates_the_move_curve() -> None:
    """Buckets of 20 plies (first moves 1, 21, 41) centred on plies 9.5, 29.5, 49.5; the
    empty middle bucket is skipped: -10 at 9.5, -14 at 49.5, -12 halfway, flat outside."""
    from sparring.nn.strength_eval import RankTarget

    curves = [[-10.0, None, -14.0], [-13.0, -13.0, -13.0]]
    metadata = {
        "references": {
            "ranks": ["9d", "5d"],
            "scores": [-11.0, -13.0],
            "by_move": {"first_move": [1, 21, 41], "scores": curves},
        }
    }
    target = RankTarget.from_metadata(metadata, "9d")
    assert target.at(10) == pytest.approx(-10.0 + 0.5 * -4 / 40)
    assert target.at(9) == target.at(0) == -10.0 and target.at(200) == -14.0
    assert target.at(29) == pytest.approx(-12.0 + 0.5 * 4 / 40)
    del metadata["references"]["by_move"]
    assert RankTarget.from_metadata(metadata, "5d").at(50) == -13.0
    with pytest.raises(ValueError, match="unknown rank '3d'"):
        RankTarget.from_metadata(metadata, "3d")


# ---- rank and elo options --------------------------------------------------------------------
def test_rank_and_elo_parsing() -> None:
    from sparring.players.human_like import elo_band, normalise_rank

    assert normalise_rank("3D") == "3d" and normalise_rank("2k") == "1-2k"
    assert normalise_rank("4k") == "3-5k" and normalise_rank("1400-1600") == "1400-1600"
    assert elo_band(1500) == "1400-1600" and elo_band(1000) == "1000-1200"
    assert elo_band(2599.5) == "2400-2600" and elo_band(2600) == "2400-2600"
    for bad in ("10d", "6k", "1500", ""):
        with pytest.raises(UnknownPlayerError, match="unknown rank") as info:
            normalise_rank(bad)
        assert "\n" not in str(info.value) and "9d" in str(info.value)
    for elo in (999.0, 2601.0, math.inf):
        with pytest.raises(UnknownPlayerError, match="outside the chess Elo bands"):
            elo_band(elo)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("se-inf-mcts:rank=12d", "unknown rank '12d'"),
        ("se-inf-mcts", "needs rank=R"),
        ("se-mcts:rank=3d,elo=1500", "either rank or elo"),
        ("se-mcts:elo=3000", "outside the chess Elo bands"),
        ("sa-mcts:sims=10", "sa-mcts needs z=Z"),
        ("human-mcts:rank=3d", "rank=R is for a play network"),
        ("se-inf-mcts:rank=3d,sims=0", "sims must be >= 1"),
        ("human-mcts:fpu_parent=maybe", "fpu_parent='maybe' is not yes or no"),
    ],
)
def test_bad_specs_are_one_line_errors(spec: str, message: str) -> None:
    from sparring.players.registry import parse_player

    with pytest.raises(UnknownPlayerError, match=message) as info:
        parse_player(spec)
    assert "\n" not in str(info.value) and spec in str(info.value)


def test_specs_round_trip_and_ranks_must_fit_the_game() -> None:
    from sparring.players.registry import make_player, parse_player

    settings = parse_player("se-inf-mcts:elo=1500,sims=7,c1=1.5")
    assert settings.spec() == "se-inf-mcts:rank=1400-1600,sims=7,c1=1.5"
    assert parse_player(settings.spec()) == settings
    assert parse_player("sa-mcts:z=-0.2").spec() == "sa-mcts:z=-0.2"
    with pytest.raises(UnknownPlayerError, match="'3d' is not a chess rank"):
        make_player("se-inf-mcts:rank=3d", get_game("chess"))
    with pytest.raises(UnknownPlayerError, match="not connect4"):
        make_player("se-mcts:rank=3d", get_game("connect4"))
    with pytest.raises(UnknownPlayerError, match=r"is for go, not chess"):
        make_player("se-mcts:elo=1500,model=go-se", get_game("chess"))


def _search_config(player: object, game: Game) -> PUCTConfig:
    """A human-like player's search configuration (SA-MCTS keeps its search in
    ``player.search.config``)."""
    search = getattr(player, "search", None)
    if search is not None:
        return search.config  # type: ignore[no-any-return]
    return player.search_config(game, game.initial_state())  # type: ignore[attr-defined,no-any-return]


def test_fpu_parent_turns_on_the_searchs_first_play_value() -> None:
    from sparring.players.registry import make_player, parse_player

    chess = get_game("chess")
    for kind in ("human-mcts", "sa-mcts:z=0", "se-mcts:rank=1000-1200", "se-inf-mcts:elo=1500"):
        text = kind + ("," if ":" in kind else ":") + "fpu_parent=yes"
        settings = parse_player(text)
        assert settings.spec().endswith("fpu_parent=true")
        assert parse_player(settings.spec()) == settings
        assert _search_config(make_player(text, chess, 0), chess).first_play_parent
        assert not _search_config(make_player(kind, chess, 0), chess).first_play_parent
        assert "fpu_parent" not in parse_player(kind).spec()


def test_sweep_gives_the_search_the_root_sweep() -> None:
    from sparring.players.registry import make_player, parse_player
    from sparring.search.sweep import RootSweep

    chess = get_game("chess")
    for kind in ("human-mcts", "sa-mcts:z=0", "se-inf-mcts:elo=1500"):
        text = kind + ("," if ":" in kind else ":") + "sweep=on"
        assert parse_player(text).spec().endswith("sweep=true")
        for spec, plan in ((text, RootSweep), (kind, type(None))):
            config = _search_config(make_player(spec, chess, 0), chess)
            assert isinstance(config.root_plan, plan)
    # one search with the sweep: 20 simulations over the start's 20 moves, one each
    player = make_player("human-mcts:sims=20,sweep=true", chess, 0)
    player.select_move(chess, chess.initial_state())
    visits = player.last_result.visits  # type: ignore[attr-defined]
    assert sorted(visits.tolist()) == [1] * 20


def test_se_inf_mcts_follows_the_target_per_move_number() -> None:
    """The Go player's search aims at its rank's curve: its evaluator subtracts the rank's
    target at each edge's move number, and the hook aims at 0."""
    from sparring.players.human_mcts import RankedSearchPlayer
    from sparring.players.registry import make_player

    go = get_game("go")
    strong = make_player("se-inf-mcts:rank=9d,sims=4", go, 0)
    weak = make_player("se-inf-mcts:rank=3-5k,sims=4", go, 0)
    assert isinstance(strong, RankedSearchPlayer) and isinstance(weak, RankedSearchPlayer)
    from sparring.nn.strength_eval import CentredStrengthEvaluator

    state = go.play(go.initial_state(), 72)
    assert strong.target is not None and weak.target is not None
    assert isinstance(strong.evaluator, CentredStrengthEvaluator)
    assert strong.evaluator.target is strong.target
    hook = strong.search_config(go, state).score_hook
    assert hook is not None and hook.params[2] == 0.0  # the scores are centred on the target
    assert strong.target.at(100) > weak.target.at(100)  # 9d scores above 3-5k mid-game
    decision = strong.play(go, state)
    assert go.is_legal(state, decision.move)
    info = decision.annotation
    assert info is not None and sum(info["visits"]) == 4
    assert info["target"] == strong.target.at(1)


def test_a_play_network_plays_at_the_rank_asked_for(tmp_path: Path) -> None:
    """``human-mcts:model=PATH,rank=R`` and ``sa-mcts:...,rank=R`` with a play network (the
    rank an input, ``se-train --variant play``) search with its policy and value for that
    rank; a play network needs a rank, ``human-mcts:rank=R`` needs a play network, and the SE
    kinds refuse one."""
    from tests.tiny_networks import tiny_go_network

    from sparring.nn.playnet import PlayNetEvaluator
    from sparring.players.cache import PlayerCache
    from sparring.players.registry import make_player, parse_player

    play, path = tiny_go_network(tmp_path, "play")
    _, se_path = tiny_go_network(tmp_path, "se_inf")
    go = get_game("go")
    state = go.initial_state()
    planes = go.encode(state)[None]
    legal = go.legal_mask(state)[None]
    # the evaluator is the network's policy (softmax over the legal moves) and value at the rank
    strong, weak = PlayNetEvaluator(play, 0), PlayNetEvaluator(play, 10)
    priors, values = strong.evaluate(planes, legal)
    with torch.no_grad():
        logits, value = play.play(torch.from_numpy(planes), torch.tensor([0]))
    mask = legal[0].astype(bool)
    want = np.where(mask, np.exp(logits[0].numpy() - logits[0].numpy()[mask].max()), 0.0)
    assert mask.sum() == 362 and np.allclose(priors[0], want / want.sum(), atol=1e-6)
    assert values[0] == pytest.approx(float(value[0]), abs=1e-6)
    assert not np.allclose(priors, weak.evaluate(planes, legal)[0])
    assert weak.rank_name == "3-5k"
    # the players
    cache = PlayerCache()
    for spec in (f"human-mcts:rank=9d,sims=4,model={path}", f"sa-mcts:rank=9d,sims=4,model={path}"):
        assert parse_player(spec).spec() == spec
        player = make_player(spec, go, 0, cache)
        assert go.is_legal(state, player.select_move(go, state))
    evaluator = make_player(f"human-mcts:model={path},rank=9d,sims=4", go, 0, cache).evaluator  # type: ignore[attr-defined]
    assert isinstance(evaluator, PlayNetEvaluator) and evaluator.rank_name == "9d"
    with pytest.raises(UnknownPlayerError, match="plays at a rank: give rank=R"):
        make_player(f"human-mcts:model={path},sims=4", go, 0, cache)
    with pytest.raises(UnknownPlayerError, match="plays at a rank: give rank=R"):
        make_player(f"sa-mcts:model={path},z=0,sims=4", go, 0, cache)
    with pytest.raises(UnknownPlayerError, match="is a strength estimator"):
        make_player(f"human-mcts:model={se_path},rank=9d,sims=4", go, 0, cache)
    with pytest.raises(UnknownPlayerError, match="not 'play'"):
        make_player(f"se-inf-mcts:model={path},rank=9d,sims=4", go, 0, cache)
    with pytest.raises(UnknownPlayerError, match="no rank '1400-1600'"):
        make_player(f"human-mcts:model={path},rank=1400-1600,sims=4", go, 0, cache)
