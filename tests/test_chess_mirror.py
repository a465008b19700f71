"""The left-right reflection of chess positions without castling rights, and the play
network's training pairs reflected with it (``SEConfig.mirror``)."""

from __future__ import annotations

from dataclasses import dataclass

import chess
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from sparring.estimation.train import BatchSampler, SEConfig  # noqa: E402
from sparring.games.chess import (  # noqa: E402
    CASTLING_PLANES,
    NUM_ACTIONS,
    Chess,
    action_to_uci,
    encode_board,
    mirror_action_table,
    move_to_action,
    uci_to_action,
)

NO_RIGHTS = "r3k2r/1pp2ppp/p1n5/4p3/2B1P1b1/2NP1N2/PPP2PPP/R3K2R w - - 0 10"
"""A middle game in which neither side may castle any more (the kings never moved, the
rights were given up in the FEN)."""
EN_PASSANT = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2"
PROMOTION = "1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1"


def test_mirror_table_hand_values_and_an_involution() -> None:
    table = mirror_action_table()
    assert table.shape == (NUM_ACTIONS,)
    assert action_to_uci(int(table[uci_to_action("e2e4")])) == "d2d4"
    assert action_to_uci(int(table[uci_to_action("g1f3")])) == "b1c3"
    assert action_to_uci(int(table[uci_to_action("a7b8n")])) == "h7g8n"
    assert action_to_uci(int(table[uci_to_action("h2h1q")])) == "a2a1q"
    assert np.array_equal(table[table], np.arange(NUM_ACTIONS))
    assert np.array_equal(np.sort(table), np.arange(NUM_ACTIONS))


@pytest.mark.parametrize("fen", [NO_RIGHTS, EN_PASSANT, PROMOTION])
def test_a_reflected_position_has_the_reflected_planes_and_moves(fen: str) -> None:
    """Without castling rights, the planes of the reflected board are the planes flipped
    left to right and its legal moves are the reflected legal moves."""
    board = chess.Board(fen)
    mirrored = board.transform(chess.flip_horizontal)
    planes = np.empty((23, 8, 8), np.float32)
    flipped = np.empty((23, 8, 8), np.float32)
    encode_board(board, 1, planes)
    encode_board(mirrored, 1, flipped)
    assert not planes[CASTLING_PLANES].any()
    assert np.array_equal(flipped, planes[:, :, ::-1])
    table = mirror_action_table()
    legal = sorted(int(table[move_to_action(m)]) for m in board.legal_moves)
    assert legal == sorted(move_to_action(m) for m in mirrored.legal_moves)


@dataclass
class _Pairs:
    """The parts of a PairSet the sampler reads: one rank, the given planes and moves."""

    stored: np.ndarray
    action: np.ndarray
    game: str = "chess"
    ranks: tuple[str, ...] = ("1000-1200",)

    def __post_init__(self) -> None:
        self.value = np.zeros(self.action.size, np.float32)

    def by_rank(self) -> list[np.ndarray]:
        return [np.arange(self.action.size)]

    def planes(self, idx: np.ndarray) -> np.ndarray:
        return self.stored[idx].copy()


def _pairs() -> _Pairs:
    """Pair 0: the start (castling rights), pair 1: a position without them."""
    game = Chess()
    start = game.initial_state()
    free = game.state_from_board(chess.Board(NO_RIGHTS))
    return _Pairs(
        stored=np.stack([game.encode(start), game.encode(free)]),
        action=np.array([uci_to_action("e2e4"), uci_to_action("c4f7")]),
    )


def test_the_sampler_reflects_only_pairs_without_castling_rights() -> None:
    pairs = _pairs()
    table = mirror_action_table()
    sampler = BatchSampler(pairs, "play", 64, 4, False, torch.device("cpu"), mirror=True)  # type: ignore[arg-type]
    flips = kept = 0
    rng = np.random.default_rng(5)
    for _ in range(4):
        batch = sampler.sample(rng)
        for planes, action in zip(batch.planes.numpy(), batch.actions.tolist(), strict=True):
            if planes[CASTLING_PLANES].any():  # the start: never reflected
                assert np.array_equal(planes, pairs.stored[0])
                assert action == pairs.action[0]
            elif np.array_equal(planes, pairs.stored[1]):
                assert action == pairs.action[1]
                kept += 1
            else:
                assert np.array_equal(planes, pairs.stored[1][:, :, ::-1])
                assert action == table[pairs.action[1]] == uci_to_action("f4c7")
                flips += 1
    n = flips + kept
    assert n > 200 and 0.35 < flips / n < 0.65
    # off by default, and for Go pairs the option does nothing
    plain = BatchSampler(pairs, "play", 64, 4, False, torch.device("cpu"))  # type: ignore[arg-type]
    assert plain.mirror is None
    go = _Pairs(stored=pairs.stored, action=pairs.action, game="go")
    assert BatchSampler(go, "play", 2, 2, False, torch.device("cpu"), mirror=True).mirror is None  # type: ignore[arg-type]


def test_mirror_is_a_config_field_a_resumed_run_may_switch() -> None:
    from sparring.estimation.train import RESUMABLE_CHANGES

    config = SEConfig.from_mapping({"game": "chess", "variant": "play", "mirror": True})
    assert config.mirror and "mirror" in RESUMABLE_CHANGES
    assert not SEConfig.from_mapping({"game": "chess"}).mirror
