"""AlphaDDA's value signal and its parameter laws (Fujita 2022, sections 3.1-3.3, Eq. 1-5).

Pure functions and one small history class, no network: the players
(:mod:`sparring.players.alphadda`) feed them the network's values.

Conventions.  ``v`` values are *from the first player's side* (+1: the first player wins), as
the paper's disc colour: ``c_AlphaDDA = +1`` when AlphaDDA moves first, ``-1`` when second
(:func:`colour`).  ``x = vbar_n * c_AlphaDDA`` is then the mean value from AlphaDDA's own side
(+1: AlphaDDA is sure to win).

* Eq. 1 (:class:`ValueHistory`, :func:`mean_value`): ``vbar_n`` is the mean of AlphaDDA's last
  ``N_h`` values ``v_n, v_{n-1}, ...`` (one per own move, the current one included); at the start
  of a game, with fewer than ``N_h`` values, the mean is over those there are ("if n - N_h < 0,
  N_h = n").
* Eq. 2-3 (:func:`simulations`): ``N_sim = min(ceil(10^(-A_sim (vbar_n c + B_sim0))), N_max)``.
* Eq. 4-5 (:func:`dropout_probability`): ``P_drop = clip(A_drop (vbar_n c + P_drop0), 0,
  P_max)``, ``P_max = 0.95``.  **The colour sign.**  Eq. 4 as printed has no ``c``:
  ``A_drop (vbar_n + P_drop0)``.  With Table 2's values (``A_drop > 0``, ``P_drop0 < 0``;
  every ``P_drop0`` of the grid Table A3 is <= 0) and Fig. 4 (the Elo rating falls as ``P_drop``
  rises), the printed form damages a *first* player when it is winning but a *second* player
  only when it is *losing* (``vbar -> -1`` gives ``P_drop < 0 -> 0``: full strength when
  winning), the opposite of section 3's aim; yet Tables 6-7 report AlphaDDA2 adjusting as the
  second player as well as the first.  Only ``A_drop (vbar_n c + P_drop0)`` (the author's code
  carries the sign) fits Table 2, Fig. 4 and Tables 6-7 together, so it is the default;
  ``colour_sign=False`` gives the printed form.
* The floor (not in the paper; :func:`floor_level`): below the weakest setting of AlphaDDA1/2,
  the SA floor of :func:`sparring.strength.selection.floor_schedule` takes over, with level
  ``f = clip(slope (x - start), 0, f_max)`` of the same ``x = vbar_n c``.
* Eq. 11 (:class:`SideCounts`, :func:`metric_d`): the grid search's metric ``D``, the sum over
  the opponents of ``|wins - losses|`` with AlphaDDA first plus the same with it second.
"""

from __future__ import annotations

import dataclasses
import math
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sparring.errors import SparringError

P_MAX = 0.95
"""The cap of ``P_drop`` in the paper (section 3.3: "P_max is set as 0.95")."""
P_MAX_CODE = 0.99
"""The cap of ``P_drop`` in the author's code."""
CODE_HISTORY = 2
"""The author's harness keeps only the last 2 values (``N_h > 2`` never takes effect)."""


def colour(player_index: int) -> int:
    """The paper's disc colour ``c``: +1 for the first player (index 0), -1 for the second."""
    if player_index not in (0, 1):
        raise SparringError(f"player index must be 0 or 1, not {player_index}")
    return 1 if player_index == 0 else -1


def mean_value(values: Sequence[float], n_h: int) -> float:
    """Eq. 1: the mean of the last ``n_h`` of ``values`` (oldest first), or of all of them
    when there are fewer (the start of a game); 0.0 for no values."""
    if n_h < 1:
        raise SparringError(f"N_h must be >= 1, not {n_h}")
    last = list(values)[-n_h:]
    return float(sum(last) / len(last)) if last else 0.0


def simulations(vbar: float, c: int, a_sim: float, b_sim0: float, n_max: int) -> int:
    """Eq. 2-3: ``min(ceil(10^(-A_sim (vbar c + B_sim0))), N_max)`` (always >= 1)."""
    if n_max < 1:
        raise SparringError(f"N_max must be >= 1, not {n_max}")
    exponent = round(-a_sim * (vbar * c + b_sim0), 12)  # (no ceil of float noise)
    if exponent >= math.log10(n_max):
        return int(n_max)
    return max(1, min(int(n_max), math.ceil(10.0**exponent)))


def dropout_probability(
    vbar: float,
    c: int,
    a_drop: float,
    p_drop0: float,
    p_max: float = P_MAX,
    colour_sign: bool = True,
) -> float:
    """Eq. 4-5: ``clip(A_drop (vbar c + P_drop0), 0, P_max)`` (``colour_sign=False``: the
    printed ``A_drop (vbar + P_drop0)``; see the module doc)."""
    if not 0.0 <= p_max < 1.0:
        raise SparringError(f"P_max must be in [0, 1), not {p_max}")
    x = vbar * c if colour_sign else vbar
    return float(min(max(a_drop * (x + p_drop0), 0.0), p_max))


def floor_level(x: float, start: float, slope: float, f_max: float) -> float:
    """The SA floor level (:func:`~sparring.strength.selection.floor_schedule`) at
    ``x = vbar_n c``: ``clip(slope (x - start), 0, f_max)``; 0 means no floor (plain play)."""
    if slope < 0 or not 0.0 <= f_max <= 2.0:
        raise SparringError("floor slope must be >= 0 and its maximum in [0, 2]")
    return float(min(max(slope * (x - start), 0.0), f_max))


class ValueHistory:
    """AlphaDDA's own-move values ``v_n`` of one game (first player's side) and Eq. 1's mean.

    :meth:`new_game` clears it (the paper); with ``carry=True`` it keeps the values across games
    and holds at most :data:`CODE_HISTORY` of them, as the author's harness does.
    """

    def __init__(self, n_h: int, carry: bool = False) -> None:
        if n_h < 1:
            raise SparringError(f"N_h must be >= 1, not {n_h}")
        self.n_h = n_h
        self.carry = carry
        self.values: deque[float] = deque(maxlen=CODE_HISTORY if carry else n_h)

    def new_game(self) -> None:
        """Start a game: forget the values (unless carrying them, as the author's code)."""
        if not self.carry:
            self.values.clear()

    def add(self, v: float) -> float:
        """Record this move's ``v_n`` and return ``vbar_n`` (Eq. 1, ``v_n`` included)."""
        self.values.append(float(v))
        return mean_value(self.values, self.n_h)

    def to_list(self) -> list[float]:
        """The values kept (oldest first), for saving."""
        return list(self.values)

    def restore(self, values: Sequence[float]) -> None:
        """Continue from :meth:`to_list`'s values."""
        self.values.clear()
        for v in values:
            self.values.append(float(v))


@dataclass(frozen=True)
class SideCounts:
    """AlphaDDA's wins, losses and draws against one opponent, split by who moved first.

    ``*_first``: the games AlphaDDA moved first in (the opponent second); ``*_second``: the
    games it moved second in.  The paper's Eq. 11 names the sides by the opponent ("when the
    opponent X is the first player"); D sums both sides, so the naming does not change it.
    """

    wins_first: int = 0
    losses_first: int = 0
    draws_first: int = 0
    wins_second: int = 0
    losses_second: int = 0
    draws_second: int = 0

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise SparringError(f"SideCounts.{name} must be an integer >= 0, not {value!r}")

    @property
    def games(self) -> int:
        """All games counted."""
        return sum(vars(self).values())

    @property
    def games_first(self) -> int:
        """Games AlphaDDA moved first in."""
        return self.wins_first + self.losses_first + self.draws_first

    @property
    def games_second(self) -> int:
        """Games AlphaDDA moved second in."""
        return self.wins_second + self.losses_second + self.draws_second

    @property
    def imbalance(self) -> int:
        """This opponent's term of Eq. 11: ``|W_first - L_first| + |W_second - L_second|``."""
        return abs(self.wins_first - self.losses_first) + abs(self.wins_second - self.losses_second)

    def add(self, score: float, first: bool) -> SideCounts:
        """These counts plus one game AlphaDDA scored ``score`` in (1 win, 0.5 draw, 0 loss),
        moving first when ``first``."""
        if score not in (0.0, 0.5, 1.0):
            raise SparringError(f"a game's score must be 0, 0.5 or 1, not {score!r}")
        outcome = {1.0: "wins", 0.0: "losses", 0.5: "draws"}[float(score)]
        name = f"{outcome}_{'first' if first else 'second'}"
        return dataclasses.replace(self, **{name: getattr(self, name) + 1})

    def __add__(self, other: SideCounts) -> SideCounts:
        return SideCounts(
            *(a + b for a, b in zip(vars(self).values(), vars(other).values(), strict=True))
        )


def metric_d(counts: Mapping[str, SideCounts]) -> int:
    """Eq. 11 (appendix 2): ``D = sum_X (|N^Win_X,first - N^Loss_X,first| + |N^Win_X,second -
    N^Loss_X,second|)`` over the opponents ``X`` (keys: any opponent names; the paper's X =
    AlphaZero, MCTS1, MCTS2, Minimax1, Random).  Smaller is better (0: every side of every
    opponent balanced); the grid search keeps the setting with the smallest ``D``.  ``D``
    counts games, so it is comparable only between settings with the same games per opponent
    and side (divide by the games for a rate)."""
    return sum(c.imbalance for c in counts.values())


__all__ = [
    "CODE_HISTORY",
    "P_MAX",
    "P_MAX_CODE",
    "SideCounts",
    "ValueHistory",
    "colour",
    "dropout_probability",
    "floor_level",
    "mean_value",
    "metric_d",
    "simulations",
]
