"""Leaf values from random playouts behind a network's priors (``rollouts=N``, Go).

:class:`~sparring.search.evaluator.RolloutValueEvaluator` keeps the wrapped evaluator's priors
and mixes its values with the mean result of random playouts (AlphaGo's
``(1 - lambda) v + lambda z``); the human-like kinds take it as ``rollouts=N,rollout_mix=L``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sparring.errors import IncompatiblePlayerError, PlayerSettingsError
from sparring.games import get_game
from sparring.search.evaluator import RolloutValueEvaluator, UniformEvaluator

# 5x5, Black everywhere but four single-point eyes of its own: the playouts never fill an own
# eye and White has no legal point, so every playout ends at once in Black's win.
SETTLED = "x1xxx/xxxxx/xx1xx/xxxxx/xxx1x"


class _Constant:
    """Priors of a uniform evaluator, value ``v`` everywhere."""

    def __init__(self, v: float) -> None:
        self.v = v

    def evaluate(self, planes, legal, states=None):  # type: ignore[no-untyped-def]
        priors, _ = UniformEvaluator().evaluate(planes, legal, states)
        return priors, np.full(len(legal), self.v, dtype=np.float32)


def _batch(game, states):  # type: ignore[no-untyped-def]
    planes = np.stack([game.encode(s) for s in states])
    legal = np.stack([game.legal_mask(s) for s in states])
    return planes, legal, np.stack(states)


def test_settled_positions_value_exactly_from_the_side_to_move() -> None:
    go = get_game("go:size=5,komi=0.5")
    black, white = go.parse_position(SETTLED + " b"), go.parse_position(SETTLED + " w")
    planes, legal, states = _batch(go, [black, white])
    ev = RolloutValueEvaluator(_Constant(0.25), go, seed=3, playouts=8)
    priors, values = ev.evaluate(planes, legal, states)
    assert values.tolist() == [1.0, -1.0]
    assert np.array_equal(priors, UniformEvaluator().evaluate(planes, legal)[0])
    # AlphaGo's mix: (1 - 0.5) * 0.25 + 0.5 * (+-1)
    half = RolloutValueEvaluator(_Constant(0.25), go, seed=3, playouts=8, mix=0.5)
    assert half.evaluate(planes, legal, states)[1].tolist() == [0.625, -0.375]
    none = RolloutValueEvaluator(_Constant(0.25), go, seed=3, playouts=8, mix=0.0)
    assert none.evaluate(planes, legal, states)[1].tolist() == [0.25, 0.25]


def test_a_position_gets_the_same_value_in_any_batch() -> None:
    """The playouts of a position are seeded by the seed and the position, so its value does
    not depend on the batch or on what was evaluated before; other seeds draw other playouts."""
    go = get_game("go:size=9")
    rng = np.random.default_rng(0)
    states = [go.initial_state()]
    for _ in range(3):
        s = states[-1]
        states.append(go.play(s, int(rng.choice(np.flatnonzero(go.legal_mask(s))))))
    planes, legal, batch = _batch(go, states)
    ev = RolloutValueEvaluator(UniformEvaluator(), go, seed=11, playouts=4)
    values = ev.evaluate(planes, legal, batch)[1]
    order = [3, 1, 0, 2]
    again = RolloutValueEvaluator(UniformEvaluator(), go, seed=11, playouts=4)
    again.evaluate(planes[:1], legal[:1], batch[:1])  # something evaluated before
    assert np.array_equal(again.evaluate(planes[order], legal[order], batch[order])[1],
                          values[order])  # fmt: skip
    assert values.dtype == np.float32 and np.all(np.abs(values) <= 1)
    assert set((values * 4).tolist()) <= {-4.0, -2.0, 0.0, 2.0, 4.0, -3.0, -1.0, 1.0, 3.0}
    seeds = {float(RolloutValueEvaluator(UniformEvaluator(), go, k, 8).rollout_values(
        batch[:1])[0]) for k in range(8)}  # fmt: skip
    assert len(seeds) > 1
    with pytest.raises(ValueError, match="positions"):
        ev.evaluate(planes, legal)
    with pytest.raises(ValueError, match="playouts"):
        RolloutValueEvaluator(UniformEvaluator(), go, 0, 0)
    with pytest.raises(ValueError, match="mix"):
        RolloutValueEvaluator(UniformEvaluator(), go, 0, 1, mix=1.5)


def test_the_human_like_kinds_take_rollouts_for_go_only(tmp_path: Path) -> None:
    from tests.tiny_networks import tiny_go_network

    from sparring.players.cache import PlayerCache
    from sparring.players.registry import make_player, parse_player, settings_from_json

    _, path = tiny_go_network(tmp_path, "play")
    spec = f"human-mcts:rank=9d,sims=4,model={path},rollouts=2,rollout_mix=0.5"
    settings = parse_player(spec)
    assert settings.spec() == spec and settings_from_json(settings.to_json()) == settings
    go = get_game("go")
    player = make_player(spec, go, seed=5, cache=PlayerCache())
    evaluator = player.evaluator  # type: ignore[attr-defined]
    assert isinstance(evaluator, RolloutValueEvaluator)
    assert (evaluator.seed, evaluator.playouts, evaluator.mix) == (5, 2, 0.5)
    state = go.initial_state()
    assert go.legal_mask(state)[player.select_move(go, state)]
    bad = {
        "human-mcts:rank=9d,model=M,rollout_mix=0.5": "rollout_mix needs rollouts",
        "human-mcts:rank=9d,model=M,rollouts=2000": "rollouts",
        "human-mcts:rank=9d,model=M,rollouts=-1": "rollouts",
        "sa-mcts:z=1,rollouts=4,sf_nodes=100": "not both",
        "se-inf-mcts:rank=1400-1600,rollouts=4": "is for Go",
        "human-mcts:rollouts=4,rollout_mix=2": "rollout_mix",
    }
    for text, message in bad.items():
        with pytest.raises(PlayerSettingsError, match=message):
            parse_player(text)
    with pytest.raises(IncompatiblePlayerError, match="is for Go, not chess"):
        make_player("human-mcts:rollouts=4,sims=2", get_game("chess"), seed=1, cache=PlayerCache())
