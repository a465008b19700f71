"""A policy averaged over the rules' symmetries (:mod:`sparring.nn.symmetry`) and the
``policy:model=NAME,sym=yes`` program of ``se-match``."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from sparring.errors import SparringError  # noqa: E402
from sparring.estimation.heldout import policy_logits  # noqa: E402
from sparring.estimation.match import PolicyProgram, parse_program  # noqa: E402
from sparring.games.chess import (  # noqa: E402
    NUM_ACTIONS,
    encode_board,
    mirror_action_table,
    uci_to_action,
)
from sparring.nn.strength_net import StrengthNetConfig, build_strength_model  # noqa: E402
from sparring.nn.symmetry import (  # noqa: E402
    action_symmetry_table,
    chess_mirrorable,
    dihedral,
    log_softmax,
    symmetric_log_policy,
)

NO_RIGHTS = "r3k2r/1pp2ppp/p1n5/4p3/2B1P1b1/2NP1N2/PPP2PPP/R3K2R w - - 0 10"
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def _chess_planes(*fens: str) -> np.ndarray:
    import chess

    planes = np.empty((len(fens), 23, 8, 8), np.float32)
    for i, fen in enumerate(fens):
        encode_board(chess.Board(fen), 1, planes[i])
    return planes


def test_go_hand_values_of_a_policy_that_ignores_the_board() -> None:
    """A 3 x 3 board and a fixed policy with logit ln 2 on point 0 (a corner): the 8 images
    carry a corner's preference to each of the 4 corners twice, so every corner gets
    ``(2 ln 2) / 8 - ln 11`` and every other action ``-ln 11`` (11 = 9 points + pass + 1)."""
    fixed = np.zeros(10, np.float32)
    fixed[0] = math.log(2)
    planes = np.zeros((1, 2, 3, 3), np.float32)
    got = symmetric_log_policy("go", planes, lambda p, rows: np.tile(fixed, (len(p), 1)))
    want = np.full(10, -math.log(11))
    want[[0, 2, 6, 8]] += math.log(2) / 4
    assert np.allclose(got[0], want, atol=1e-6)


def test_chess_hand_values_with_and_without_castling_rights() -> None:
    """A fixed policy with logit ln 2 on e2e4: without castling rights the reflection shares
    the preference between e2e4 and d2d4 (``ln 2 / 2 - ln Z`` each); with rights (the start
    position) the policy is the plain one."""
    fixed = np.zeros(NUM_ACTIONS, np.float32)
    e4, d4 = uci_to_action("e2e4"), uci_to_action("d2d4")
    fixed[e4] = math.log(2)
    planes = _chess_planes(NO_RIGHTS, START)
    assert chess_mirrorable(planes).tolist() == [True, False]
    calls: list[list[int]] = []

    def logits(p: np.ndarray, rows: np.ndarray) -> np.ndarray:
        calls.append(rows.tolist())
        return np.tile(fixed, (len(p), 1))

    got = symmetric_log_policy("chess", planes, logits)
    log_z = math.log(NUM_ACTIONS + 1)
    assert calls == [[0, 1], [0]]  # the reflection is asked for the reflectable row only
    assert got[0, e4] == pytest.approx(math.log(2) / 2 - log_z, abs=1e-6)
    assert got[0, d4] == pytest.approx(math.log(2) / 2 - log_z, abs=1e-6)
    assert got[1, e4] == pytest.approx(math.log(2) - log_z, abs=1e-6)
    assert got[1, d4] == pytest.approx(-log_z, abs=1e-6)


def test_another_game_gets_the_plain_log_policy() -> None:
    x = np.array([[1.0, 2.0, 3.0]], np.float32)
    got = symmetric_log_policy("connect4", np.zeros((1, 2, 6, 7), np.float32), lambda p, rows: x)
    assert np.allclose(got, log_softmax(x))


def _tiny_play_network(game: str) -> torch.nn.Module:
    config = StrengthNetConfig(
        game=game, ranks=("a", "b"), kind="play", blocks=1, channels=8, value_hidden=8
    )
    return build_strength_model(config, seed=5)


def test_a_networks_go_policy_becomes_invariant() -> None:
    """A random (not symmetric) network: its plain policies of a position and of a rotated
    image differ, the symmetric ones are the same policy moved by the symmetry."""
    net = _tiny_play_network("go")
    rng = np.random.default_rng(0)
    planes = (rng.random((1, net.config.network_config().input_planes - 2, 19, 19)) < 0.2).astype(
        np.float32
    )

    def logits(p: np.ndarray, rows: np.ndarray) -> np.ndarray:
        return policy_logits(net, p, ranks=np.zeros(len(p), np.int64))

    table = action_symmetry_table(19)
    k = 7  # a flip and three quarter turns
    image = np.ascontiguousarray(dihedral(torch.from_numpy(planes), k).numpy())
    one = np.zeros(1, np.int64)
    plain, plain_image = log_softmax(logits(planes, one)), log_softmax(logits(image, one))
    assert not np.allclose(plain_image[:, table[k]], plain, atol=1e-3)
    sym = symmetric_log_policy("go", planes, logits)
    sym_image = symmetric_log_policy("go", image, logits)
    assert np.allclose(sym_image[:, table[k]], sym, atol=1e-4)


def test_a_networks_chess_policy_becomes_invariant_without_castling_rights() -> None:
    import chess

    """Rows of several ranks, one with castling rights: each image is asked at its own
    position's rank."""
    net = _tiny_play_network("chess")
    ranks = np.array([0, 1, 1], np.int64)  # the start position at rank 0, the pair at rank 1

    def logits(p: np.ndarray, rows: np.ndarray) -> np.ndarray:
        return policy_logits(net, p, ranks=ranks[rows])

    board = chess.Board(NO_RIGHTS)
    planes = _chess_planes(START, NO_RIGHTS, board.transform(chess.flip_horizontal).fen())
    table = mirror_action_table()
    plain = log_softmax(logits(planes, np.arange(3)))
    assert not np.allclose(plain[2, table], plain[1], atol=1e-3)
    sym = symmetric_log_policy("chess", planes, logits)
    assert np.allclose(sym[2, table], sym[1], atol=1e-5)
    assert np.allclose(sym[0], plain[0], atol=1e-6)  # castling rights: the plain policy


def test_position_logits_asks_each_reflection_at_its_positions_rank(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``policy:model=NET,sym=yes`` over positions of two rank groups (some without castling
    rights): the program's moves are the top moves of the hand-built symmetric policy."""
    from sparring.estimation.heldout import HeldOutPositions
    from sparring.games.chess import Chess
    from sparring.nn import strength_net as model_module

    game = Chess()
    import chess

    fens = [START, NO_RIGHTS, chess.Board(NO_RIGHTS).transform(chess.flip_horizontal).fen()]
    states = [game.state_from_board(chess.Board(f)) for f in fens]
    config = StrengthNetConfig(
        game="chess", ranks=("a", "b"), kind="play", blocks=1, channels=8, value_hidden=8
    )
    net = build_strength_model(config, seed=5)
    pos = HeldOutPositions(
        game="chess",
        ranks=("b", "a"),
        states=states,
        planes=_chess_planes(*fens),
        actions=np.zeros(3, np.int64),
        rank=np.array([0, 1, 0]),
        legal=np.stack([game.legal_mask(s) for s in states]),
        move_number=np.arange(3),
        source=["toy"] * 3,
    )
    monkeypatch.setattr(model_module, "load_strength_model", lambda path: (net, {}))
    monkeypatch.setattr("sparring.nn.estimators.resolve_estimator", lambda name: name)
    got = PolicyProgram(name="p", model="net", symmetric=True).moves(pos)
    net_ranks = np.array([1, 0, 1])  # the positions' groups b, a, b in the network's order
    plain = log_softmax(policy_logits(net, pos.planes, ranks=net_ranks))
    flipped = log_softmax(
        policy_logits(net, np.ascontiguousarray(pos.planes[1:, ..., ::-1]), ranks=net_ranks[1:])
    )[:, mirror_action_table()]
    want = plain.copy()
    want[1:] = (plain[1:] + flipped) / 2
    assert got.tolist() == np.argmax(np.where(pos.legal, want, -np.inf), axis=1).tolist()


def test_parse_the_symmetric_policy_program() -> None:
    p = parse_program("policy:model=chess-play,sym=yes")
    assert isinstance(p, PolicyProgram) and p.model == "chess-play" and p.symmetric
    assert p.name == "policy chess-play (symmetries)"
    q = parse_program("policy: sym = no , model = go-play")
    assert isinstance(q, PolicyProgram) and q.model == "go-play" and not q.symmetric
    assert not parse_program("policy:model=go-se").symmetric
    for bad in (
        "policy:sym=yes",
        "policy:model=a,sym=maybe",
        "policy:model=a,model=b",
        "policy:model=a,sims=2",
        "policy:model=a,",
        "policy:model=",
    ):
        with pytest.raises(SparringError, match="bad program"):
            parse_program(bad)


def test_a_symmetric_play_evaluator_averages_priors_and_values() -> None:
    """``PlayNetEvaluator(symmetric=True)``: priors are the legal softmax of the mean
    log-policy over the 8 images, values the mean of the images' values; a rotated position
    gets the same priors moved by the rotation and the same value."""
    from sparring.games import get_game
    from sparring.nn.playnet import PlayNetEvaluator

    net = _tiny_play_network("go")
    go = get_game("go")
    state = go.initial_state()
    for move in (60, 72, 300):  # a few stones off the board's symmetry
        state = go.play(state, move)
    planes = go.encode(state)[None].astype(np.float32)
    legal = go.legal_mask(state)[None]
    plain = PlayNetEvaluator(net, 1)
    sym = PlayNetEvaluator(net, 1, symmetric=True)
    priors, values = sym.evaluate(planes, legal)
    images = [np.ascontiguousarray(dihedral(torch.from_numpy(planes), k).numpy()) for k in range(8)]
    table = action_symmetry_table(19)
    logp = np.zeros(362)
    value = 0.0
    for k, image in enumerate(images):
        with torch.no_grad():
            lg, v = net.play(torch.from_numpy(image), torch.tensor([1]))
        logp += log_softmax(lg.numpy())[0, table[k]] / 8
        value += float(v[0]) / 8
    want = np.where(legal[0], np.exp(logp - logp.max()), 0.0)
    assert np.allclose(priors[0], want / want.sum(), atol=1e-5)
    assert values[0] == pytest.approx(value, abs=1e-5)
    assert not np.allclose(plain.evaluate(planes, legal)[0], priors, atol=1e-4)
    k = 2  # a half turn
    legal_k = legal[:, table[k]]  # legal_k[table[k, a]] = legal[a]
    legal_k[:, table[k]] = legal
    priors_k, values_k = sym.evaluate(images[k], legal_k)
    assert np.allclose(priors_k[0, table[k]], priors[0], atol=1e-5)
    assert values_k[0] == pytest.approx(float(values[0]), abs=1e-5)


def test_the_players_sym_option(tmp_path: Path) -> None:
    """``human-mcts`` and ``sa-mcts`` take ``sym=true`` with a play network (spec and JSON
    round trip, a symmetric evaluator); without one it is refused with a message that says
    what it needs, and the SE kinds do not take it."""
    from tests.tiny_networks import tiny_go_network

    from sparring.errors import PlayerSettingsError, UnknownPlayerError
    from sparring.games import get_game
    from sparring.nn.playnet import PlayNetEvaluator
    from sparring.players.cache import PlayerCache
    from sparring.players.registry import (
        make_player,
        parse_player,
        settings_from_json,
        settings_to_json,
    )

    _, path = tiny_go_network(tmp_path, "play")
    _, se_path = tiny_go_network(tmp_path, "se_inf")
    go = get_game("go")
    state = go.initial_state()
    cache = PlayerCache()
    for spec in (
        f"human-mcts:rank=9d,sims=4,model={path},sym=true",
        f"sa-mcts:rank=9d,z=1.0,sims=4,model={path},sym=true",
    ):
        settings = parse_player(spec)
        assert settings.spec() == spec
        data = settings_to_json(settings)
        assert data["sym"] is True and settings_from_json(data) == settings
        player = make_player(spec, go, 0, cache)
        assert go.is_legal(state, player.select_move(go, state))
    evaluator = make_player(f"human-mcts:rank=9d,sims=4,model={path},sym=true", go, 0, cache)
    assert isinstance(evaluator.evaluator, PlayNetEvaluator)  # type: ignore[attr-defined]
    assert evaluator.evaluator.symmetric  # type: ignore[attr-defined]
    plain = make_player(f"human-mcts:rank=9d,sims=4,model={path}", go, 0, cache)
    assert not plain.evaluator.symmetric  # type: ignore[attr-defined]
    with pytest.raises(PlayerSettingsError, match="sym=true is for a play network"):
        parse_player("human-mcts:sims=4,sym=true")
    with pytest.raises(UnknownPlayerError, match="sym=true is for a play network"):
        make_player(f"human-mcts:model={se_path},sims=4,sym=true", go, 0, cache)
    with pytest.raises(UnknownPlayerError, match="unknown option 'sym'"):
        make_player("se-inf-mcts:rank=9d,sims=4,sym=true", go, 0, cache)
    with pytest.raises(UnknownPlayerError, match="is not yes or no"):
        parse_player(f"human-mcts:rank=9d,model={path},sym=maybe")


def test_se_policy_symmetric_on_real_chess_positions(monkeypatch: pytest.MonkeyPatch) -> None:
    """``sparring se-policy chess --model chess-play --symmetric`` on 16 held-out positions
    (the shipped play network): one line per model with its top-1 match, exit 0."""
    from typer.testing import CliRunner

    import shared_data
    from sparring.cli import app

    monkeypatch.setenv("SPARRING_DATA", str(shared_data.need_data(shared_data.STRENGTH).parent))
    args = ["se-policy", "chess", "--model", "chess-play", "--positions", "16"]
    for extra in ([], ["--symmetric"]):
        result = CliRunner().invoke(app, [*args, *extra])
        assert result.exit_code == 0, result.output
        assert "chess-play: top-1" in result.output and "16 positions" in result.output
