"""The floor of the strength-adjusted player, sampled: its move frequencies against the
closed form.

Below ``z = -inf`` the floor level ``f`` (``sparring.strength.selection.floor_schedule``)
relaxes the threshold to ``R_th (1 - f)`` for ``f <= 1`` and, for ``1 < f <= 2``, plays a
uniformly random legal move with probability ``q = f - 1`` (otherwise the least visited
candidate, ``R_th = 0``).  The player (``players/strength.py``) samples this; the closed form
of the mixture is ``strength_distribution``.  Here a stub search returns fixed root visit
counts, so the player's seeded draws over many moves must match the closed form for every
``q``, including ``0 < q <= 0.5``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from sparring.games import get_game
from sparring.games.base import Game, State
from sparring.players.strength import RootSearch, StrengthAdjustedPlayer
from sparring.search.limit import Limit, LimitClock
from sparring.search.stats import RootStats
from sparring.strength.selection import StrengthSetting, floor_schedule, strength_distribution

VISITS = np.array([50, 20, 10, 5, 5, 3, 3, 2, 2], dtype=np.int64)
"""Root visit counts of the nine opening moves of tic-tac-toe (moves 0..8)."""
DRAWS = 4000


def _fixed_search(rng: np.random.Generator) -> RootSearch:
    def search(
        game: Game, state: State, limit: Limit | None = None, clock: LimitClock | None = None
    ) -> RootStats:
        moves = np.asarray(game.legal_moves(state), dtype=np.int64)
        return RootStats.from_visits(moves, VISITS.copy())

    return search


@pytest.mark.parametrize("floor", [0.5, 1.0, 1.3, 1.5, 1.75, 2.0])
def test_sampled_floor_matches_the_closed_form(floor: float) -> None:
    game = get_game("tictactoe")
    state = game.initial_state()
    assert list(game.legal_moves(state)) == list(range(9))
    setting = StrengthSetting(-math.inf, 0.1, floor)
    player = StrengthAdjustedPlayer(search=_fixed_search, setting=setting, seed=11)
    counts = np.zeros(9)
    random_moves = 0
    for _ in range(DRAWS):
        decision = player.play(game, state)
        counts[decision.move] += 1
        info = decision.annotation
        random_moves += int(info is not None and info.get("random") is True)
    expected = strength_distribution(VISITS, setting)
    frequency = counts / DRAWS
    # Four binomial standard deviations per move (a deterministic check: the player is seeded).
    tolerance = 4.0 * np.sqrt(expected * (1.0 - expected) / DRAWS) + 1e-9
    assert np.all(np.abs(frequency - expected) <= tolerance), (frequency, expected)
    _, q = floor_schedule(floor, 0.1)
    assert abs(random_moves / DRAWS - q) <= 4.0 * math.sqrt(q * (1 - q) / DRAWS) + 1e-9
    # Moves outside the floor's candidates come only from the random moves: at q = 0.3 each of
    # the seven more-visited moves has probability 0.3 / 9, about 133 of 4000 draws.
    if q > 0.0:
        assert counts[:7].min() > 0
    else:
        assert counts[expected == 0.0].sum() == 0
