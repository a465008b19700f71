"""The SE-MCTS strength evaluator's bounded cache of parents' trunk outputs:
a parent found in the cache must still be usable after the leaves of the same batch are
remembered, even when remembering them evicts it (``play go --opponent
se-inf-mcts:rank=3d,sims=1100`` crashed with a ``KeyError`` once a search outgrew the
1,024-entry cache)."""

from __future__ import annotations

import numpy as np
import torch

from sparring.games import get_game
from sparring.games.base import State
from sparring.nn.strength_eval import StrengthEvaluator
from sparring.nn.strength_net import StrengthNet, StrengthNetConfig, build_strength_model

GO = get_game("go")


def _tiny_model() -> StrengthNet:
    config = StrengthNetConfig(
        "go", ("9d", "5d", "1d"), "se", blocks=1, channels=8, head_channels=8,
        head_hidden=8, value_hidden=8,
    )  # fmt: skip
    return build_strength_model(config, seed=3)


def _rows(states: list[State]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    planes = np.stack([GO.encode(s) for s in states]).astype(np.float32)
    legal = np.stack([GO.legal_mask(s) for s in states])
    return planes, legal, np.stack(states)


def test_a_cached_parent_evicted_by_its_own_batch_is_still_scored() -> None:
    """Capacity 2: the root is cached first (the least recently used entry), then a batch of
    three of its children is evaluated.  Remembering the three leaves evicts the root before
    beta is computed; beta must still be the network's score of (root, move)."""
    model = _tiny_model()
    evaluator = StrengthEvaluator(model, GO, capacity=2)
    root = GO.initial_state()
    planes, legal, states = _rows([root])
    evaluator.evaluate_edge_aux(planes, legal, states, states, np.array([-1]))  # caches root
    assert evaluator.trunk_positions == 1
    moves = np.array([72, 300, 60], dtype=np.int64)
    leaves = [GO.play(root, int(m)) for m in moves]
    planes, legal, states = _rows(leaves)
    parents = np.stack([root] * 3)
    _, _, beta = evaluator.evaluate_edge_aux(planes, legal, states, parents, moves)
    assert evaluator.trunk_positions == 4  # the three leaves; the root came from the cache
    with torch.inference_mode():
        root_planes = torch.from_numpy(np.stack([GO.encode(root)] * 3).astype(np.float32))
        _, _, expected = model(root_planes, torch.from_numpy(moves))
    assert np.allclose(beta, expected[:, 0].numpy(), atol=1e-5)
    assert len(evaluator._cache) == 2  # bounded, the leaves pushed the root out


def test_a_search_with_more_simulations_than_the_cache_holds() -> None:
    """An SE-MCTS search of 96 simulations (8 leaves a batch) through a 16-entry cache runs to
    the end with every simulation counted, and parents evicted between batches are sent
    through the trunk again (more trunk positions than leaves)."""
    from sparring.search.puct import PUCTConfig, search
    from sparring.search.semcts import SEMCTSConfig

    evaluator = StrengthEvaluator(_tiny_model(), GO, capacity=16)
    config = PUCTConfig(
        simulations=96, leaves_per_batch=8, score_hook=SEMCTSConfig(-5.0, 1.25, 2.0).hook()
    )
    state = GO.play(GO.initial_state(), 72)
    result = search(GO, state, evaluator, config, np.random.default_rng(0))
    assert int(np.sum(result.visits)) == 96
    assert len(evaluator._cache) == 16
    assert evaluator.trunk_positions > 96
