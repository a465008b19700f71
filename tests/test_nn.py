"""The policy/value network (AlphaDDA Fig. A1, Fig. 2), its evaluators and the compiled encoders."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sparring.games import GAME_NAMES, get_game
from sparring.games.base import Game, State

# ---- compiled input-plane encoders (no torch needed) -----------------------------------------


def _reference_planes(game: Game, state: State) -> np.ndarray:
    """AlphaDDA app. 1.1 planes built from the games' Python views of the board."""
    if game.name == "connect4":
        first, second = game.stones(state)  # type: ignore[attr-defined]
    elif game.name == "tictactoe":
        first, second = game._grid(state, 0), game._grid(state, 1)  # type: ignore[attr-defined]
    else:
        first, second = game.discs(state)  # type: ignore[attr-defined]
    planes = np.zeros((3, *game.board_shape), dtype=np.float32)
    planes[0] = first
    planes[1] = second
    planes[2] = 1.0 if game.to_move(state) == 0 else -1.0
    return planes


def _random_states(game: Game, count: int, seed: int) -> list[State]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        state = game.initial_state()
        plies = int(rng.integers(0, game.max_game_length + 1))
        for _ in range(plies):
            if game.is_terminal(state):
                break
            moves = game.legal_moves(state)
            state = game.play(state, int(moves[rng.integers(len(moves))]))
        out.append(state)
    return out


@pytest.mark.parametrize("name", ["connect4", "tictactoe", "othello", "othello6"])
def test_compiled_encoder_matches_python(name: str) -> None:
    game = get_game(name)
    encode = game.kernels.encode
    assert encode is not None
    for state in _random_states(game, 60, seed=7):
        expected = _reference_planes(game, state)
        out = np.full((3, *game.board_shape), 9.0, dtype=np.float32)
        encode(state, out)
        assert np.array_equal(out, expected)
        planes = game.encode(state)
        assert planes.dtype == np.float32 and np.array_equal(planes, expected)


def test_every_compiled_encoder_matches_game_encode() -> None:
    for name in GAME_NAMES:
        game = get_game(name)
        if game.kernels.encode is None:
            continue
        for state in _random_states(game, 5, seed=3):
            out = np.zeros((game.num_planes, *game.board_shape), dtype=np.float32)
            game.kernels.encode(state, out)
            assert np.array_equal(out, game.encode(state)), name


# ---- the network ----------------------------------------------------------------------------


def _small(game_name: str = "connect4", **kw: object):  # type: ignore[no-untyped-def]
    from sparring.nn.model import NetworkConfig, build_model

    game = get_game(game_name)
    config = NetworkConfig.for_game(game, blocks=1, channels=8, value_hidden=16, **kw)
    return game, build_model(config, seed=0)


def _batch(game: Game, n: int) -> tuple[np.ndarray, np.ndarray]:
    states = _random_states(game, n, seed=1)
    planes = np.stack([game.encode(s) for s in states])
    legal = np.stack([game.legal_mask(s) if not game.is_terminal(s) else
                      np.ones(game.num_actions, bool) for s in states])  # fmt: skip
    return planes, legal


@pytest.mark.parametrize("name", ["connect4", "othello6", "tictactoe"])
def test_forward_shapes(name: str) -> None:
    torch = pytest.importorskip("torch")
    game, model = _small(name)
    planes, _ = _batch(game, 5)
    with torch.inference_mode():
        logits, value = model(torch.from_numpy(planes))
    assert logits.shape == (5, game.num_actions) and value.shape == (5,)
    assert torch.all(value.abs() <= 1.0)


def test_dropout_changes_outputs_only_when_positive() -> None:
    torch = pytest.importorskip("torch")
    game, model = _small()
    x = torch.from_numpy(_batch(game, 4)[0])
    with torch.inference_mode():
        a, va = model(x)
        b, vb = model(x)
        assert torch.equal(a, b) and torch.equal(va, vb)
        model.set_dropout(0.5, generator=torch.Generator().manual_seed(1))
        assert model.dropout == 0.5
        c, vc = model(x)
        d, _ = model(x)
        assert not torch.equal(c, a) and not torch.equal(c, d)
        # The same generator seed gives the same damaged outputs.
        model.set_dropout(0.5, generator=torch.Generator().manual_seed(1))
        e, ve = model(x)
        assert torch.equal(c, e) and torch.equal(vc, ve)
        model.set_dropout(0.0)
        f, vf = model(x)
        assert torch.equal(f, a) and torch.equal(vf, va)
    with pytest.raises(ValueError):
        model.set_dropout(1.0)


def test_save_load_round_trip(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from sparring.nn.model import load_model, save_model

    game, model = _small("othello6", dropout=0.25)
    path = tmp_path / "net.pt"
    save_model(path, model)
    loaded = load_model(path)
    assert loaded.config == model.config and not loaded.training
    assert loaded.dropout == 0.25
    model.set_dropout(0.0)
    loaded.set_dropout(0.0)
    x = torch.from_numpy(_batch(game, 3)[0])
    with torch.inference_mode():
        for got, want in zip(loaded(x), model(x), strict=True):
            assert torch.equal(got, want)
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a network")
    with pytest.raises(ValueError):
        load_model(bad)
    torch.save({"something": 1}, tmp_path / "other.pt")
    with pytest.raises(ValueError):
        load_model(tmp_path / "other.pt")


def test_torch_evaluator_priors_and_values() -> None:
    pytest.importorskip("torch")
    from sparring.nn.evaluators import Evaluator, TorchEvaluator

    game, model = _small()
    planes, legal = _batch(game, 6)
    legal[0, :3] = False
    evaluator = TorchEvaluator(model, threads=1)
    assert isinstance(evaluator, Evaluator)
    priors, values = evaluator.evaluate(planes, legal)
    assert priors.dtype == np.float32 and values.dtype == np.float32
    assert priors.shape == legal.shape and values.shape == (6,)
    assert np.all(priors[~legal] == 0.0)
    assert np.allclose(priors.sum(axis=1), 1.0, atol=1e-5)
    logits, raw_values = evaluator.forward(planes)
    assert np.array_equal(values, raw_values)
    row = np.exp(logits[1] - logits[1].max())
    assert np.allclose(priors[1], row / row.sum(), atol=1e-6)


def test_onnx_evaluator_matches_torch() -> None:
    pytest.importorskip("torch")
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    from sparring.nn.evaluators import OnnxEvaluator, TorchEvaluator, make_evaluator

    game, model = _small("othello6")
    planes, legal = _batch(game, 7)
    onnx_eval = OnnxEvaluator(model)
    p1, v1 = onnx_eval.evaluate(planes, legal)
    p2, v2 = TorchEvaluator(model).evaluate(planes, legal)
    assert np.allclose(p1, p2, atol=1e-5) and np.allclose(v1, v2, atol=1e-5)
    p3, _ = onnx_eval.evaluate(planes[:1], legal[:1])  # any batch size
    assert np.allclose(p3, p1[:1], atol=1e-5)
    assert isinstance(make_evaluator(model), OnnxEvaluator)
    model.set_dropout(0.3)
    assert isinstance(make_evaluator(model), TorchEvaluator)
    with pytest.raises(ValueError, match="dropout"):
        OnnxEvaluator(model)


def test_search_and_player_with_a_network(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from sparring.errors import UnknownPlayerError
    from sparring.nn.evaluators import TorchEvaluator
    from sparring.nn.model import save_model
    from sparring.players.alphazero import AlphaZeroPlayer
    from sparring.players.registry import make_player
    from sparring.search.puct import PUCTConfig, search

    game, model = _small()
    state = game.parse_position("4433")
    result = search(game, state, TorchEvaluator(model), PUCTConfig(simulations=40))
    assert result.simulations == 40 and result.visits.sum() == 40
    path = tmp_path / "c4.pt"
    save_model(path, model)
    player = make_player(f"az:model={path},sims=16,cpuct=2,name=AZ", game, seed=3)
    assert isinstance(player, AlphaZeroPlayer) and player.name == "AZ"
    assert player.config.simulations == 16 and player.config.c_puct == 2.0
    assert game.is_legal(state, player.select_move(game, state))
    with pytest.raises(UnknownPlayerError, match="is for"):
        make_player(f"az:model={path}", get_game("othello6"))
