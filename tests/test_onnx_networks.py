"""The shipped networks' ONNX files: each is its ``.pt``'s export (recorded hash, the same
outputs), the players move the same from either file, and the core plays without PyTorch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import sparring.kinds  # noqa: F401  (registers the player kinds)
from sparring.games import get_game
from sparring.nn.estimators import ESTIMATOR_DIR
from sparring.nn.onnx_runtime import (
    OnnxPolicyValueNet,
    OnnxStrengthNet,
    head_file,
    load_onnx_network,
    onnx_source_sha256,
)
from sparring.nn.zoo import MODEL_DIR
from sparring.players import make_player
from sparring.strength.target import file_sha256

SOURCES = sorted([*MODEL_DIR.glob("*.pt"), *ESTIMATOR_DIR.glob("*.pt")])
"""Every shipped PyTorch network (in the repository; the wheel ships their ONNX files)."""
ESTIMATORS = {"se", "se_inf", "sl"}


def test_every_shipped_network_has_its_onnx_export() -> None:
    names = [p.name for p in SOURCES]
    assert len(names) == 13, names  # 4 AlphaZero networks, 9 strength networks
    for source in SOURCES:
        target = source.with_suffix(".onnx")
        assert target.is_file(), f"{target.name} missing: run scripts/export_onnx.py"
        assert onnx_source_sha256(target) == file_sha256(source), (
            f"{target.name} is not the export of {source.name}: run scripts/export_onnx.py"
        )
        network = load_onnx_network(target)
        if isinstance(network, OnnxStrengthNet):
            assert (network.config.kind in ESTIMATORS) == head_file(target).is_file()
            assert (network.head is None) == (network.config.kind == "play")
        else:
            assert isinstance(network, OnnxPolicyValueNet) and source.parent == MODEL_DIR
    exported = {p.name for folder in (MODEL_DIR, ESTIMATOR_DIR) for p in folder.glob("*.onnx")}
    heads = {p.name for p in ESTIMATOR_DIR.glob("*.head.onnx")}
    assert exported - heads == {p.with_suffix(".onnx").name for p in SOURCES}  # no stray file
    assert len(heads) == 6  # go-se, go-se-inf, go-se-inf-play and the three chess ones


def _planes(count: int, shape: tuple[int, ...], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.random((count, *shape)) < 0.3).astype(np.float32)


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_onnx_outputs_equal_the_torch_networks(source: Path) -> None:
    """On a few positions the ONNX file's outputs are PyTorch's within float rounding (the
    weights are the same numbers; only the order of the arithmetic differs)."""
    torch = pytest.importorskip("torch")
    from sparring.nn.model import load_model
    from sparring.nn.strength_net import TorchStrengthRunner, load_strength_model

    network = load_onnx_network(source.with_suffix(".onnx"))
    close = {"rtol": 1e-5, "atol": 5e-4}
    if isinstance(network, OnnxPolicyValueNet):
        model = load_model(source)
        c = model.config
        x = _planes(6, (c.input_planes, *c.board_shape), seed=1)
        with torch.inference_mode():
            logits, value = model(torch.from_numpy(x))
        got = network.forward(x)
        np.testing.assert_allclose(got[0], logits.numpy(), **close)
        np.testing.assert_allclose(got[1], value.numpy(), **close)
        return
    strength, metadata = load_strength_model(source)
    assert network.metadata == metadata and network.config == strength.config
    runner = TorchStrengthRunner(strength, threads=None)
    config, net = strength.config, strength.config.network_config()
    rank_count = len(config.ranks) if config.kind == "play" else 0
    x = _planes(6, (net.input_planes - rank_count, *net.board_shape), seed=2)
    rng = np.random.default_rng(3)
    if config.kind == "play":
        ranks = rng.integers(0, len(config.ranks), size=6)
        for want, got in zip(runner.play(x, ranks), network.play(x, ranks), strict=True):
            np.testing.assert_allclose(got, want, **close)
        return
    want_trunk, got_trunk = runner.trunk(x), network.trunk(x)
    for want, got in zip(want_trunk, got_trunk, strict=True):
        np.testing.assert_allclose(got, want, **close)
    actions = rng.integers(0, net.num_actions, size=6)
    np.testing.assert_allclose(
        network.strength(*got_trunk[:2], actions),
        runner.strength(*want_trunk[:2], actions),
        **close,
    )


def test_torch_rebuilds_a_network_from_its_onnx_file() -> None:
    """The ONNX file holds the ``.pt``'s weights exactly (float16 ones too), so PyTorch can
    read it where the ``.pt`` is not installed (the wheel ships no ``.pt``)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from sparring.nn.model import load_model
    from sparring.nn.strength_net import load_strength_model

    def same(a: dict[str, object], b: dict[str, object]) -> bool:
        keys = [k for k in a if not k.endswith("num_batches_tracked")]
        return keys == [k for k in b if not k.endswith("num_batches_tracked")] and all(
            torch.equal(a[k], b[k]) for k in keys
        )

    connect4 = MODEL_DIR / "connect4.pt"
    assert same(
        load_model(connect4).state_dict(), load_model(connect4.with_suffix(".onnx")).state_dict()
    )
    for name in ("go-play-early", "go-se"):  # float16 weights; an estimator with its head
        pt, pt_meta = load_strength_model(ESTIMATOR_DIR / f"{name}.pt")
        onnx, onnx_meta = load_strength_model(ESTIMATOR_DIR / f"{name}.onnx")
        assert same(pt.state_dict(), onnx.state_dict()) and pt_meta == onnx_meta


PLAYERS = [
    ("connect4", "sa:model={},elo=1200", MODEL_DIR / "connect4"),
    ("othello6", "sa:model={},elo=1500", MODEL_DIR / "othello6"),
    ("go9", "az:model={},sims=24,finish=yes", MODEL_DIR / "go9"),
    ("go", "human-mcts:model={},rank=6d,sims=1,temp=0.7", ESTIMATOR_DIR / "go-play"),
    ("go", "sa-mcts:model={},rank=9d,z=0,sims=8", ESTIMATOR_DIR / "go-play-early"),
    ("go", "se-mcts:model={},rank=1d,sims=8", ESTIMATOR_DIR / "go-se"),
    ("chess", "human-mcts:model={},cpuct=0.25,sweep=true,sims=6",
     ESTIMATOR_DIR / "chess-se-inf-play"),
]  # fmt: skip
"""Players of the shipped levels (and SE-MCTS), each with the network it runs."""


@pytest.mark.parametrize(
    ("game_name", "spec", "network"), PLAYERS, ids=[f"{g}-{s.split(':')[0]}" for g, s, _ in PLAYERS]
)
def test_a_player_moves_the_same_from_the_onnx_file_and_the_pt(
    game_name: str, spec: str, network: Path
) -> None:
    """The same seed gives the same moves from the ONNX file (no PyTorch) as from the
    ``.pt`` run by PyTorch (the AlphaZero networks: exported in memory, as before)."""
    pytest.importorskip("torch")
    game = get_game(game_name)
    for seed in (1, 2):
        moves: list[list[int]] = []
        for file in (network.with_suffix(".onnx"), network.with_suffix(".pt")):
            player = make_player(spec.format(file), game, seed=seed)
            player.new_game(game, 0)
            state, played = game.initial_state(), []
            for _ in range(4):
                move = player.select_move(game, state)
                played.append(move)
                state = game.play(state, move)
            moves.append(played)
        assert moves[0] == moves[1], (seed, moves)


def test_a_calibration_is_checked_against_the_onnx_file_the_player_runs(tmp_path: Path) -> None:
    """The shipped calibration names both files (``model_sha256`` the ``.pt``, ``onnx_sha256``
    its export): the ONNX file is checked by its own hash, or, where a calibration records
    none, by the ``.pt`` hash the file records; a mismatch is said (one notice)."""
    import json
    import shutil

    from sparring.players.cache import PlayerCache

    shutil.copy(MODEL_DIR / "connect4.onnx", tmp_path / "net.onnx")
    shipped = json.loads((MODEL_DIR / "connect4.calibration.json").read_text())
    game = get_game("connect4")

    def notices(**changes: str | None) -> int:
        data = {**shipped, **changes}
        data = {k: v for k, v in data.items() if v is not None}
        (tmp_path / "net.calibration.json").write_text(json.dumps(data))
        cache = PlayerCache()
        make_player(f"sa:model={tmp_path / 'net.onnx'},elo=1200", game, seed=0, cache=cache)
        return cache.stats.notices

    assert notices() == 0
    assert notices(onnx_sha256="0" * 64) == 1  # another export
    assert notices(onnx_sha256=None) == 0  # the .pt hash the file records
    assert notices(onnx_sha256=None, model_sha256="0" * 64) == 1  # another network


NO_TORCH = """
import sys
sys.modules["torch"] = None  # as if PyTorch (and onnx) were not installed
sys.modules["onnx"] = None
import sparring.kinds
from sparring.games import get_game
from sparring.players import make_player
for game_name, spec in [
    ("connect4", "sa:model=connect4,elo=1200"),
    ("go", "human-mcts:model=go-play,rank=6d,sims=1,temp=0.7"),
    ("go", "se-inf-mcts:rank=1d,sims=4"),
    ("chess", "human-mcts:cpuct=0.25,sweep=true,sims=4"),
]:
    game = get_game(game_name)
    player = make_player(spec, game, seed=0)
    state = game.initial_state()
    move = player.select_move(game, state)
    assert game.is_legal(state, move), (spec, move)
    print(game_name, "moved")
from sparring.estimation.review import network_functions, play_network
policy, value = network_functions(play_network("go")[0])
print("review", policy(get_game("go").encode(get_game("go").initial_state())[None], 3).shape)
"""


def test_the_core_players_need_no_torch() -> None:
    done = subprocess.run(
        [sys.executable, "-c", NO_TORCH], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split("\n") == [
        "connect4 moved", "go moved", "go moved", "chess moved", "review (1, 362)", "",
    ]  # fmt: skip
