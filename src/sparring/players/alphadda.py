"""AlphaDDA1, AlphaDDA2 and AlphaDDA3 (Fujita 2022, sections 3.1-3.4), and the floor variant.

Each is the AlphaZero player (PUCT search with the game's network, most visited move) whose
strength follows the value signal of section 3.1: before each of its moves it evaluates the
current position with the *undamaged* network, turns the value to the first player's side
(``v_n``) and takes Eq. 1's mean ``vbar_n`` of its last ``N_h`` own-move values
(:class:`~sparring.strength.alphadda.ValueHistory`, cleared by :meth:`new_game`).  Then

* ``alphadda1`` searches ``N_sim`` simulations (Eq. 2-3, :func:`~sparring.strength.alphadda.
  simulations`);
* ``alphadda2`` searches with the heads' dropout at ``P_drop`` (Eq. 4-5, with the colour sign:
  see :mod:`sparring.strength.alphadda` for why), applied to the fully connected layers of the
  policy and value heads (Fig. 2) for this move's search only;
* ``alphadda3`` searches with AlphaDDA3's score (Eq. 6-7) as the search's score hook
  (:mod:`sparring.search.alphadda3`).

Defaults are the paper's Tables 1-3 for Connect4, 6x6 Othello and Othello (8x8); other games
take Connect4's row.  Every parameter is a spec option.  Options for the author's code where it
differs from the paper (default: the paper): ``history=code`` (the last 2 values only, kept
across games), ``pmax=0.99``, ``sign=none`` (Eq. 4 as printed, no colour), ``vnet=damaged``
(``v_n`` from the network with the previous move's dropout still on), ``wdiv=edge``
(``W/n`` in Eq. 6).  The code's 20% random root picks of AlphaDDA3 are not offered.

**The floor** (beyond the paper; ``floor=on`` for ``alphadda1`` and ``alphadda2``).  The
paper's AlphaDDA1/2 cannot play below ``N_sim = 1`` / ``P_drop = 0.95``, both stronger than
Random (its Discussion).  With the floor, the move is drawn from the search's root visits by
the SA floor of :func:`~sparring.strength.selection.floor_schedule` (``z = -inf``: the least
visited candidate, the threshold relaxing to 0 at level 1; above 1, uniformly random moves
mixed in) at level ``f = clip(fslope (vbar_n c - fstart), 0, fmax)``
(:func:`~sparring.strength.alphadda.floor_level`); ``f = 0`` plays the paper's move.  Defaults:
``fslope = 2``, ``fmax = 1`` (the least visited legal move at ``vbar_n c = 1``; the second
stage of the floor climbs back towards Random, so it is off unless ``fmax > 1`` is asked for),
``fmix = off`` (``on``: the floor's move only with probability ``min(f, 1)``),
and ``fstart`` = the ``vbar_n c`` where AlphaDDA2's ``P_drop`` reaches ``P_max``
(``P_max / A_drop - P_drop0``: Connect4 0.295, 6x6 Othello 0.69), and 0.5 for AlphaDDA1,
whose ``N_sim`` never reaches 1 for ``|vbar_n| <= 1`` with Table 1's values (Connect4: 7 at
``vbar_n c = 1``).  Entering the floor jumps from the most visited move to the least visited
candidate (``R_th = 0.1``): the floor is a coarser continuation, to be tuned.

Each move's annotations (:meth:`annotation`, in its decision): ``v`` (``v_n``), ``vbar``,
the parameter set (``sims``; ``p_drop``; ``c`` for AlphaDDA3), ``floor`` (the level, with the
floor on), and the root ``moves`` and ``visits``.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np

from sparring.errors import PlayerSettingsError
from sparring.nn.loading import load_network_evaluator, network_file
from sparring.players.alphazero import masks_generator
from sparring.players.base import (
    Annotation,
    set_torch_generator_state,
    torch_generator_state,
)
from sparring.players.registry import PlayerSpec, check_options, option_float, option_int
from sparring.players.searching import SearchPlayer
from sparring.players.settings_base import (
    MAX_SIMULATIONS,
    SettingsBase,
    check_int,
    check_name,
    check_number,
    check_root_random,
    check_sims,
    spec_value,
)
from sparring.search.alphadda3 import AlphaDDA3Score
from sparring.search.analysis import MoveAnalysis
from sparring.search.hooks import DEFAULT_C_PUCT
from sparring.search.limit import Limit, LimitClock
from sparring.search.puct import PUCTConfig, search
from sparring.strength.alphadda import (
    P_MAX,
    ValueHistory,
    colour,
    dropout_probability,
    floor_level,
    simulations,
)
from sparring.strength.selection import PAPER_RTH, StrengthSetting, strength_distribution

if TYPE_CHECKING:
    from sparring.games.base import Game, State
    from sparring.players.base import JsonValue, PlayerState
    from sparring.players.cache import PlayerCache
    from sparring.search.evaluator import Evaluator
    from sparring.search.stats import RootStats

History = Literal["paper", "code"]
"""``paper``: Eq. 1 over the game's own moves, cleared each game; ``code``: the author's
harness, the last 2 values kept across games."""
OnOff = Literal["on", "off"]
FloorMode = Literal["sa", "z"]
"""The floor's move choice (:class:`FloorRule`)."""

TABLE_1: dict[str, tuple[int, float, float, int]] = {
    "connect4": (3, 2.0, -1.4, 200),
    "othello6": (4, 1.4, -1.6, 200),
    "othello": (2, 2.8, -1.4, 400),
}
"""AlphaDDA1's ``(N_h, A_sim, B_sim0, N_max)`` (Table 1) by game."""
TABLE_2: dict[str, tuple[int, float, float]] = {
    "connect4": (1, 10.0, -0.2),
    "othello6": (4, 5.0, -0.5),
    "othello": (4, 20.0, -0.9),
}
"""AlphaDDA2's ``(N_h, A_drop, P_drop0)`` (Table 2) by game."""
TABLE_3: dict[str, tuple[int, float]] = {
    "connect4": (5, 1.25),
    "othello6": (1, 0.75),
    "othello": (5, 0.6),
}
"""AlphaDDA3's ``(N_h, C)`` (Table 3) by game."""
TUNED_1: dict[str, tuple[int, float, float, int]] = {
    "connect4": (1, 1.6, -1.3, 300),
    "othello6": (1, 1.4, -1.2, 300),
    "othello": (1, 2.0, -1.2, 400),
}
"""AlphaDDA1's defaults where the grid search (``sparring dda-grid``) replaced Table 1's row:
``(N_h, A_sim, B_sim0, N_max)`` by game (docs/research/alphadda.md, "Grid search").  Connect4: D 82
and 83 on fresh games of seeds 1 and 2 against Table 1's 104 (seed 1); 6x6 Othello: 103 and
115 against 163; 8x8 Othello: 101 and 135 against 134 (seed 2, played after the choice:
Table 1's row 128, so the margin is not confirmed)."""
TUNED_2: dict[str, tuple[int, float, float]] = {"othello6": (3, 5.0, -0.5)}
"""AlphaDDA2's tuned ``(N_h, A_drop, P_drop0)`` by game (as :data:`TUNED_1`).  Connect4 keeps
Table 2's row: the grid's pick (``nh=1,adrop=10,pdrop0=-0.8``) had D 109 on fresh games
against Table 2's 73.  6x6 Othello: 104 and 87 (seeds 1, 2) against Table 2's 107.  8x8
Othello keeps Table 2's row: the grid's pick (``nh=2,adrop=40,pdrop0=-0.9``) had D 100 on
fresh games against Table 2's 97."""
TUNED_3: dict[str, tuple[int, float]] = {"connect4": (1, 0.5), "othello6": (5, 1.0)}
"""AlphaDDA3's tuned ``(N_h, C)`` by game (as :data:`TUNED_1`).  Connect4: D 173 and 168 on
fresh games (seeds 1, 2) against Table 3's 191 (seed 1); 6x6 Othello: 161 and 162 against
168."""
DEFAULT_ROWS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "alphadda1": (TUNED_1, TABLE_1),
    "alphadda2": (TUNED_2, TABLE_2),
    "alphadda3": (TUNED_3, TABLE_3),
}
"""Each kind's (tuned, paper) tables: a game's default row is its tuned row, else the paper's."""
TABLE_A1_SIMULATIONS: dict[str, int] = {"connect4": 200, "othello6": 200, "othello": 400}
"""``N_sim`` of Table A1 (AlphaDDA2 and AlphaDDA3 search as AlphaZero does)."""
FALLBACK_GAME = "connect4"
"""The table row used for games the paper does not play."""
FLOOR_SLOPE = 0.0
"""``fslope`` by default: no ``x``-driven level (it was measured to throw games against MCTS1,
docs/research/alphadda.md "The floor variant"); the base level (``fresult``) does the work."""
FLOOR_MAX = 2.0
"""``fmax`` by default: down to uniformly random moves."""
FLOOR_RESULT = 0.1
"""``fresult`` by default: the base level's step per game result."""
FLOOR_START_ALPHADDA1 = 0.5


def _row(table: dict[str, Any], game: Game) -> Any:
    return table.get(game.name, table[FALLBACK_GAME])


def default_row(kind: str, game_name: str) -> tuple[Any, ...]:
    """The default parameter row of AlphaDDA ``kind`` for ``game_name``: the grid search's
    tuned row where one is shipped (:data:`TUNED_1` ...), else the paper's Table 1-3 row (the
    Connect4 row for games the paper does not play)."""
    tuned, paper = DEFAULT_ROWS[kind]
    if game_name in tuned:
        return tuple(tuned[game_name])
    return tuple(paper.get(game_name, paper[FALLBACK_GAME]))


# ---- the players ------------------------------------------------------------------------------


@dataclass(frozen=True)
class FloorRule:
    """The floor variant's mapping from ``x = vbar_n c`` to the SA floor level."""

    start: float
    slope: float = FLOOR_SLOPE
    maximum: float = FLOOR_MAX
    mix: bool = False
    """Play the floor's move only with probability ``min(f, 1)`` (else the paper's move), so
    that strength falls gradually from ``f = 0`` instead of jumping at the floor's start."""
    mode: FloorMode = "sa"
    """How the floor picks its move: ``sa``, the SA floor over the root visits at level ``f``
    (least visited candidate, then random moves); ``z``, first SA itself (Wu et al.'s softmax
    over visits) with ``z = 2 (1 - 2 f)`` for ``f <= 1`` (2 down to -2), then the SA floor at
    level ``2 (f - 1)``."""
    result_step: float = 0.0
    """``fresult``: with a step ``K > 0`` the floor also has a *base level* ``b`` that the
    game results move, ``b <- clip(b + K (2 s - 1), 0, maximum)`` after each game with score
    ``s`` (a win raises it by ``K``, a loss lowers it), kept across games (the player's saved
    state); each move's level is then ``clip(b + level(x), 0, maximum)``.  0: no base level
    (the floor follows ``x`` alone)."""

    def move_level(self, base: float, x: float) -> float:
        """The level of a move: ``clip(base + level(x), 0, maximum)``."""
        return float(min(max(base + self.level(x), 0.0), self.maximum))

    def next_base(self, base: float, score: float) -> float:
        """The base level after a game with ``score`` (1 win, 0.5 draw, 0 loss)."""
        if self.result_step <= 0.0:
            return base
        return float(min(max(base + self.result_step * (2.0 * score - 1.0), 0.0), self.maximum))

    def level(self, x: float) -> float:
        """:func:`~sparring.strength.alphadda.floor_level` of ``x``."""
        return floor_level(x, self.start, self.slope, self.maximum)


FLOOR_Z_TOP = 2.0
"""``fmode=z``: the SA ``z`` where the floor starts (``f -> 0``); it reaches ``-FLOOR_Z_TOP`` at
``f = 1`` (the z range of Wu et al.'s experiments)."""


def floor_z_setting(level: float) -> StrengthSetting:
    """``fmode=z``'s SA setting at floor level ``f`` in (0, 2]: ``z = 2 (1 - 2 f)`` up to
    ``f = 1``, then ``z = -inf`` with the SA floor at level ``2 (f - 1)``."""
    if level <= 1.0:
        return StrengthSetting(FLOOR_Z_TOP * (1.0 - 2.0 * level), PAPER_RTH, 0.0)
    return StrengthSetting(-math.inf, PAPER_RTH, min(2.0 * (level - 1.0), 2.0))


class AlphaDDAPlayer(SearchPlayer):
    """The common part of AlphaDDA1-3: the value signal, the search, the move choice.

    Subclasses set this move's search config in :meth:`configure` from ``vbar_n`` and record
    the parameter in :attr:`info`.
    """

    info_root = True

    def __init__(
        self,
        evaluator: Evaluator,
        history: ValueHistory,
        c_puct: float,
        name: str,
        seed: int | None,
        floor: FloorRule | None = None,
    ) -> None:
        super().__init__(name, seed)
        self.evaluator = evaluator
        """The undamaged network (the value signal; the search unless damaged)."""
        self.history = history
        self.c_puct = c_puct
        self.floor = floor
        self.root_random = 0.0
        """:attr:`PUCTConfig.root_random` of every search (the author's code: 0.2; paper: 0)."""
        self.floor_base = 0.0
        """The floor's base level, moved by game results (:attr:`FloorRule.result_step`)."""
        self.player_index: int | None = None
        self.info: dict[str, Any] = {}
        """This move's values (``v``, ``vbar``, the parameter, ``floor``), in order."""
        self._search: tuple[PUCTConfig, Evaluator] | None = None
        self._vbar_c = 0.0

    # -- lifecycle
    def new_game(self, game: Game, player_index: int) -> None:
        self.player_index = player_index
        self.history.new_game()

    def live_state(self) -> PlayerState | None:
        """The values ``v_n`` kept now (Eq. 1's history: this game's own moves, and earlier
        games' with ``carry``), which telling the game again does not rebuild."""
        return {"values": [float(v) for v in self.history.to_list()]}

    def restore_live_state(self, data: PlayerState | None) -> None:
        if data is None:
            return
        values = data.get("values")
        if not isinstance(values, list) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in values
        ):
            raise ValueError(f"{self.name}: a live state is {{'values': [floats]}}, not {data!r}")
        self.history.restore([float(v) for v in values])  # type: ignore[arg-type]

    def game_over(self, game: Game, final_state: State, score: float) -> None:
        if self.floor is not None:
            self.floor_base = self.floor.next_base(self.floor_base, score)

    def save_state(self) -> PlayerState | None:
        carry_floor = self.floor is not None and self.floor.result_step > 0.0
        if not self.history.carry and not carry_floor:
            return None
        state: dict[str, JsonValue] = {}
        if self.history.carry:
            state["values"] = [float(v) for v in self.history.to_list()]
        if carry_floor:
            state["floor"] = float(self.floor_base)
        return state

    def restore_state(self, data: PlayerState | None) -> None:
        carry_floor = self.floor is not None and self.floor.result_step > 0.0
        if not self.history.carry and not carry_floor:
            super().restore_state(data)  # (nothing kept between games)
            return
        expected = "{'values': [floats], 'floor': float}"
        if data is None:
            self.history.restore([])
            self.floor_base = 0.0
            return
        if not isinstance(data, dict):
            raise ValueError(f"{self.name}: expected {expected}, got {data!r}")
        if self.history.carry:
            values = data.get("values")
            if not isinstance(values, list):
                raise ValueError(f"{self.name}: expected {expected}, got {data!r}")
            numbers = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
            if len(numbers) != len(values):
                raise ValueError(f"{self.name}: expected {expected}, got {data!r}")
            self.history.restore([float(v) for v in numbers])
        if carry_floor:
            level = data.get("floor")
            if not isinstance(level, int | float) or isinstance(level, bool):
                raise ValueError(f"{self.name}: expected {expected}, got {data!r}")
            self.floor_base = float(level)

    def annotation(self, analysis: MoveAnalysis) -> Annotation:
        """``v``, ``vbar``, the parameter, the root ``moves`` and ``visits``, then ``floor``
        (with the floor on), from the move's ``analysis``."""
        info = {k: v for k, v in analysis.annotations.items() if k != "floor"}
        info["moves"] = list(analysis.moves)
        info["visits"] = list(analysis.visits)
        if "floor" in analysis.annotations:
            info["floor"] = analysis.annotations["floor"]
        return info

    # -- the move
    def signal_value(self, game: Game, state: State) -> float:
        """``v_n``: the network's value of ``state`` from the first player's side."""
        planes = game.encode(state)[None].astype(np.float32, copy=False)
        legal = game.legal_mask(state)[None]
        _, values = self.value_evaluator().evaluate(planes, legal, np.asarray(state)[None])
        return float(values[0]) * colour(game.to_move(state))

    def value_evaluator(self) -> Evaluator:
        """The network that gives ``v_n`` (the undamaged one)."""
        return self.evaluator

    @abstractmethod
    def configure(self, vbar: float, c: int, game: Game) -> tuple[PUCTConfig, Evaluator]:
        """This move's search config and evaluator from ``vbar_n`` and the colour ``c`` (each
        AlphaDDA variant sets its own parameter: simulations, dropout or the score)."""

    def before_search(self, game: Game, state: State) -> int | None:
        """The value signal ``v_n``, its mean ``vbar_n`` and this move's search config."""
        mover = game.to_move(state)
        if self.player_index is None:
            self.player_index = mover
        c = colour(mover)
        v = self.signal_value(game, state)
        vbar = self.history.add(v)
        self.info = {"v": round(v, 6), "vbar": round(vbar, 6)}
        self._vbar_c = vbar * c
        config, evaluator = self.configure(vbar, c, game)
        if self.root_random > 0.0:
            config = replace(config, root_random=self.root_random)
        self._search = (config, evaluator)
        return None

    def run_search(
        self, game: Game, state: State, limit: Limit | None, clock: LimitClock
    ) -> RootStats:
        assert self._search is not None
        config, evaluator = self._search
        return search(game, state, evaluator, config, self.rng, limit, clock)

    def pick(self, game: Game, state: State, root: RootStats) -> int:
        """The most visited move, or the floor's draw when the floor is on."""
        level = 0.0
        if self.floor is not None:
            level = self.floor.move_level(self.floor_base, self._vbar_c)
            self.info["floor"] = round(level, 6)
        self.annotate(**self.info)
        if level > 0.0 and (
            self.floor is None or not self.floor.mix or self.rng.random() < min(level, 1.0)
        ):
            setting = StrengthSetting(-math.inf, PAPER_RTH, level)
            if self.floor is not None and self.floor.mode == "z":
                setting = floor_z_setting(level)
            p = strength_distribution(root.visits.astype(np.float64), setting)
            return int(root.moves[self.rng.choice(len(p), p=p)])
        return super().pick(game, state, root)

    def pick_unsearched(self, game: Game, state: State, root: RootStats) -> int:
        self.annotate(**self.info)
        return super().pick_unsearched(game, state, root)


class AlphaDDA1Player(AlphaDDAPlayer):
    """AlphaDDA1: ``N_sim`` from ``vbar_n`` (Eq. 2-3)."""

    def __init__(
        self,
        evaluator: Evaluator,
        history: ValueHistory,
        a_sim: float,
        b_sim0: float,
        n_max: int,
        c_puct: float = DEFAULT_C_PUCT,
        name: str = "AlphaDDA1",
        seed: int | None = None,
        floor: FloorRule | None = None,
    ) -> None:
        super().__init__(evaluator, history, c_puct, name, seed, floor)
        self.a_sim, self.b_sim0, self.n_max = a_sim, b_sim0, n_max

    def configure(self, vbar: float, c: int, game: Game) -> tuple[PUCTConfig, Evaluator]:
        sims = simulations(vbar, c, self.a_sim, self.b_sim0, self.n_max)
        self.info["sims"] = sims
        return PUCTConfig(simulations=sims, c_puct=self.c_puct), self.evaluator


class AlphaDDA2Player(AlphaDDAPlayer):
    """AlphaDDA2: the heads' dropout at ``P_drop`` from ``vbar_n`` (Eq. 4-5) for the search."""

    def __init__(
        self,
        evaluator: Evaluator,
        history: ValueHistory,
        damaged: Any,
        a_drop: float,
        p_drop0: float,
        sims: int,
        p_max: float = P_MAX,
        colour_sign: bool = True,
        damaged_value: bool = False,
        c_puct: float = DEFAULT_C_PUCT,
        name: str = "AlphaDDA2",
        seed: int | None = None,
        floor: FloorRule | None = None,
    ) -> None:
        super().__init__(evaluator, history, c_puct, name, seed, floor)
        self.damaged = damaged
        """A callable ``seed -> TorchEvaluator`` building the network with dropout (lazily)."""
        self._damaged_evaluator: Any = None
        self._seed = seed
        self.a_drop, self.p_drop0, self.sims, self.p_max = a_drop, p_drop0, sims, p_max
        self.colour_sign = colour_sign
        self.damaged_value = damaged_value
        self.p_drop = 0.0

    def _network(self, p: float) -> Evaluator:
        if self._damaged_evaluator is None:
            self._damaged_evaluator = self.damaged(self._seed)
        self._damaged_evaluator.model.set_dropout(p)
        return self._damaged_evaluator

    def random_state(self) -> dict[str, JsonValue]:
        """The generator's state and, once the damaged network is built, its dropout masks'
        torch generator (``dropout``)."""
        state = super().random_state()
        generator = masks_generator(self._damaged_evaluator)
        if generator is not None:
            state["dropout"] = torch_generator_state(generator)
        return state

    def set_random_state(self, data: JsonValue) -> None:
        super().set_random_state(data)
        if isinstance(data, dict) and "dropout" in data:
            if self._damaged_evaluator is None:
                self._damaged_evaluator = self.damaged(self._seed)
            generator = masks_generator(self._damaged_evaluator)
            if generator is not None:
                set_torch_generator_state(generator, data, "dropout", self.name)

    def reseed(self, seed: int) -> None:
        super().reseed(seed)
        self._seed = seed
        if self._damaged_evaluator is not None:  # masks drawn afresh from ``seed``
            # torch: only a player with a damaged (dropout) network, which runs on torch
            import torch

            model = self._damaged_evaluator.model
            model.set_dropout(model.dropout, torch.Generator().manual_seed(seed))

    def new_game(self, game: Game, player_index: int) -> None:
        super().new_game(game, player_index)
        self.p_drop = 0.0

    def value_evaluator(self) -> Evaluator:
        if self.damaged_value and self.p_drop > 0.0:
            return self._network(self.p_drop)
        return self.evaluator

    def configure(self, vbar: float, c: int, game: Game) -> tuple[PUCTConfig, Evaluator]:
        p = dropout_probability(vbar, c, self.a_drop, self.p_drop0, self.p_max, self.colour_sign)
        self.p_drop = p
        self.info["p_drop"] = round(p, 6)
        config = PUCTConfig(simulations=self.sims, c_puct=self.c_puct)
        return config, (self._network(p) if p > 0.0 else self.evaluator)


class AlphaDDA3Player(AlphaDDAPlayer):
    """AlphaDDA3: the search with Eq. 6-7's score (:class:`~sparring.search.alphadda3.
    AlphaDDA3Score`)."""

    def __init__(
        self,
        evaluator: Evaluator,
        history: ValueHistory,
        c: float,
        sims: int,
        per_edge: bool = False,
        keep_value: bool = False,
        name: str = "AlphaDDA3",
        seed: int | None = None,
    ) -> None:
        super().__init__(evaluator, history, DEFAULT_C_PUCT, name, seed)
        self.c, self.sims, self.per_edge, self.keep_value = c, sims, per_edge, keep_value

    def configure(self, vbar: float, c: int, game: Game) -> tuple[PUCTConfig, Evaluator]:
        score = AlphaDDA3Score(self.c, max(-1.0, min(1.0, vbar)), c, self.per_edge,
                               self.keep_value)  # fmt: skip
        self.info["c"] = self.c
        return PUCTConfig(simulations=self.sims, score_hook=score.hook()), self.evaluator


# ---- typed settings and specs -----------------------------------------------------------------


def _check_common(n_h: int | None, name: str) -> None:
    if n_h is not None:
        check_int("nh", n_h, 1)
    check_name(name)


def _history(n_h: int, history: str) -> ValueHistory:
    return ValueHistory(n_h, carry=history == "code")


@dataclass(frozen=True)
class FloorSettings:
    """The floor variant of AlphaDDA1 and AlphaDDA2 (module doc, :class:`FloorRule`): spec
    ``floor=on`` with ``fstart``, ``fslope``, ``fmax``, ``fmix``, ``fmode``, ``fresult``; JSON
    the object ``{"fstart": .., "fslope": .., ...}`` under ``floor`` (``null``: no floor)."""

    OPTION_KEYS: ClassVar[dict[str, str]] = {
        "start": "fstart", "slope": "fslope", "maximum": "fmax", "mix": "fmix",
        "mode": "fmode", "result_step": "fresult",
    }  # fmt: skip
    BOUNDS: ClassVar[dict[str, tuple[float | None, float | None]]] = {
        "slope": (0, None),
        "maximum": (0, 2),
        "result_step": (0, 2),
    }

    start: float | None = None
    """``fstart``: the ``vbar_n c`` where the floor starts (None: the kind's default, 0.5 for
    AlphaDDA1, where ``P_drop`` reaches ``P_max`` for AlphaDDA2), finite."""
    slope: float = FLOOR_SLOPE
    """``fslope``: floor levels per unit of ``vbar_n c``, >= 0."""
    maximum: float = FLOOR_MAX
    """``fmax``: the highest floor level, in [0, 2]."""
    mix: bool = False
    """``fmix``: the floor's move only with probability ``min(f, 1)`` (:class:`FloorRule`)."""
    mode: FloorMode = "sa"
    """``fmode``: the floor's move choice, ``sa`` or ``z`` (:class:`FloorRule`)."""
    result_step: float = FLOOR_RESULT
    """``fresult``: the step of the floor's base level per game result, in [0, 2]."""

    def __post_init__(self) -> None:
        SettingsBase.check_types(self)  # type: ignore[arg-type]
        check_number("fstart", self.start)
        check_number("fslope", self.slope, 0.0)
        check_number("fmax", self.maximum, 0.0, 2.0)
        check_number("fresult", self.result_step, 0.0, 2.0)

    def rule(self, default_start: float) -> FloorRule:
        """The :class:`FloorRule` (``default_start`` where :attr:`start` is None)."""
        start = default_start if self.start is None else self.start
        return FloorRule(start, self.slope, self.maximum, self.mix, self.mode, self.result_step)

    def spec_items(self) -> list[str]:
        """``floor=on`` and the floor options that differ from their defaults."""
        items = ["floor=on"]
        for f in fields(self):
            value = getattr(self, f.name)
            if value != f.default:
                text = ("on" if value else "off") if isinstance(value, bool) else None
                items.append(f"{self.OPTION_KEYS[f.name]}={text or spec_value(value)}")
        return items


class _FloorSpec(SettingsBase):
    """:meth:`spec` with the floor's options (``floor=on,...``) at the end."""

    floor: FloorSettings | None

    def spec(self) -> str:
        text = SettingsBase.spec(replace(self, floor=None))  # type: ignore[type-var]
        if self.floor is None:
            return text
        return text + ("," if ":" in text else ":") + ",".join(self.floor.spec_items())


@dataclass(frozen=True)
class AlphaDDA1Settings(_FloorSpec):
    """AlphaDDA1 (section 3.2); fields left None take Table 1's row for the game."""

    kind: ClassVar[str] = "alphadda1"
    OPTION_KEYS: ClassVar[dict[str, str]] = {
        "model": "model", "n_h": "nh", "a_sim": "asim", "b_sim0": "bsim0", "n_max": "nmax",
        "c_puct": "cpuct", "history": "history", "floor": "floor",
        "root_random": "rootrand", "name": "name",
    }  # fmt: skip
    BOUNDS: ClassVar[dict[str, tuple[float | None, float | None]]] = {
        "n_h": (1, None),
        "n_max": (1, MAX_SIMULATIONS),
        "c_puct": (0, None),
        "root_random": (0, 1),
    }

    model: str | None = None
    """Shipped network name or network file; None: the game's shipped network."""
    n_h: int | None = None
    """``N_h`` of Eq. 1, >= 1."""
    a_sim: float | None = None
    """``A_sim`` of Eq. 2, finite."""
    b_sim0: float | None = None
    """``B_sim0`` of Eq. 2, finite."""
    n_max: int | None = None
    """``N_max`` of Eq. 3, 1 .. 100000."""
    c_puct: float = DEFAULT_C_PUCT
    """``C_puct`` of Eq. 8, >= 0."""
    history: History = "paper"
    """Eq. 1's window: the paper's, or the author's code's (see :data:`History`)."""
    floor: FloorSettings | None = None
    """The floor variant (module doc); None: off."""
    root_random: float = 0.0
    """``rootrand``: share of simulations leaving the root by a random move, in [0, 1]
    (:attr:`~sparring.search.puct.PUCTConfig.root_random`; paper 0, the author's code 0.2)."""
    name: str = "AlphaDDA1"
    """Display name."""

    def __post_init__(self) -> None:
        self.check_types()
        _check_common(self.n_h, self.name)
        check_root_random(self.root_random)
        check_sims("nmax", self.n_max)
        check_number("asim", self.a_sim)
        check_number("bsim0", self.b_sim0)
        check_number("cpuct", self.c_puct, 0.0)


def build_alphadda1_player(
    settings: AlphaDDA1Settings, game: Game, seed: int | None, cache: PlayerCache
) -> AlphaDDA1Player:
    """The player of ``settings`` (the table row for fields left None), seeded with ``seed``."""
    evaluator = cache.evaluator(game, network_file(game, settings.model))
    n_h, a_sim, b_sim0, n_max = default_row("alphadda1", game.name)
    floor = None if settings.floor is None else settings.floor.rule(FLOOR_START_ALPHADDA1)
    player = AlphaDDA1Player(
        evaluator,
        _history(settings.n_h or n_h, settings.history),
        a_sim if settings.a_sim is None else settings.a_sim,
        b_sim0 if settings.b_sim0 is None else settings.b_sim0,
        settings.n_max or n_max,
        settings.c_puct,
        settings.name,
        seed,
        floor,
    )
    player.root_random = settings.root_random
    return player


@dataclass(frozen=True)
class AlphaDDA2Settings(_FloorSpec):
    """AlphaDDA2 (section 3.3); fields left None take Table 2's row for the game."""

    kind: ClassVar[str] = "alphadda2"
    OPTION_KEYS: ClassVar[dict[str, str]] = {
        "model": "model", "n_h": "nh", "a_drop": "adrop", "p_drop0": "pdrop0", "p_max": "pmax",
        "simulations": "sims", "c_puct": "cpuct", "sign": "sign", "value_net": "vnet",
        "history": "history", "floor": "floor", "root_random": "rootrand", "name": "name",
    }  # fmt: skip
    BOUNDS: ClassVar[dict[str, tuple[float | None, float | None]]] = {
        "n_h": (1, None),
        "p_max": (0, 1),
        "simulations": (1, MAX_SIMULATIONS),
        "c_puct": (0, None),
        "root_random": (0, 1),
    }

    model: str | None = None
    """Shipped network name or network file; None: the game's shipped network."""
    n_h: int | None = None
    """``N_h`` of Eq. 1, >= 1."""
    a_drop: float | None = None
    """``A_drop`` of Eq. 4, finite."""
    p_drop0: float | None = None
    """``P_drop0`` of Eq. 4, finite."""
    p_max: float = P_MAX
    """``P_max`` of Eq. 5 (paper 0.95; the author's code 0.99), in [0, 1)."""
    simulations: int | None = None
    """Simulations per move, 1 .. 100000 (None: Table A1's ``N_sim``)."""
    c_puct: float = DEFAULT_C_PUCT
    """``C_puct`` of Eq. 8, >= 0."""
    sign: Literal["colour", "none"] = "colour"
    """Eq. 4 with ``vbar_n c`` (default, see :mod:`sparring.strength.alphadda`) or as printed."""
    value_net: Literal["clean", "damaged"] = "clean"
    """``v_n`` from the undamaged network (paper) or with the previous dropout on (code)."""
    history: History = "paper"
    """Eq. 1's window (see :data:`History`)."""
    floor: FloorSettings | None = None
    """The floor variant (module doc); None: off."""
    root_random: float = 0.0
    """``rootrand``: share of simulations leaving the root by a random move, in [0, 1]
    (:attr:`~sparring.search.puct.PUCTConfig.root_random`; paper 0, the author's code 0.2)."""
    name: str = "AlphaDDA2"
    """Display name."""

    def __post_init__(self) -> None:
        self.check_types()
        _check_common(self.n_h, self.name)
        check_root_random(self.root_random)
        check_number("adrop", self.a_drop)
        check_number("pdrop0", self.p_drop0)
        check_number("pmax", self.p_max, 0.0, 1.0, high_open=True)
        check_sims("sims", self.simulations)
        check_number("cpuct", self.c_puct, 0.0)


def build_alphadda2_player(
    settings: AlphaDDA2Settings, game: Game, seed: int | None, cache: PlayerCache
) -> AlphaDDA2Player:
    """The player of ``settings`` (the table row for fields left None), seeded with ``seed``."""
    file = network_file(game, settings.model)
    evaluator = cache.evaluator(game, file)
    n_h, a_drop, p_drop0 = default_row("alphadda2", game.name)
    a_drop = a_drop if settings.a_drop is None else settings.a_drop
    p_drop0 = p_drop0 if settings.p_drop0 is None else settings.p_drop0

    def damaged(mask_seed: int | None) -> Evaluator:
        # any p > 0 gives the torch network; the player sets P_drop before each search
        return load_network_evaluator(game, file, 0.5, mask_seed)

    floor = None
    if settings.floor is not None:
        floor = settings.floor.rule(settings.p_max / a_drop - p_drop0 if a_drop > 0 else 1.0)
    sims = settings.simulations or _row(TABLE_A1_SIMULATIONS, game)
    player = AlphaDDA2Player(
        evaluator, _history(settings.n_h or n_h, settings.history), damaged, a_drop, p_drop0,
        sims, settings.p_max, settings.sign == "colour", settings.value_net == "damaged",
        settings.c_puct, settings.name, seed, floor,
    )  # fmt: skip
    player.root_random = settings.root_random
    return player


@dataclass(frozen=True)
class AlphaDDA3Settings(SettingsBase):
    """AlphaDDA3 (section 3.4); fields left None take Table 3's row for the game."""

    kind: ClassVar[str] = "alphadda3"
    OPTION_KEYS: ClassVar[dict[str, str]] = {
        "model": "model", "n_h": "nh", "c": "c", "simulations": "sims", "w_div": "wdiv",
        "keep_value": "keepw", "history": "history", "root_random": "rootrand", "name": "name",
    }  # fmt: skip
    BOUNDS: ClassVar[dict[str, tuple[float | None, float | None]]] = {
        "n_h": (1, None),
        "c": (0, None),
        "simulations": (1, MAX_SIMULATIONS),
        "root_random": (0, 1),
    }

    model: str | None = None
    """Shipped network name or network file; None: the game's shipped network."""
    n_h: int | None = None
    """``N_h`` of Eq. 1, >= 1."""
    c: float | None = None
    """``C`` of Eq. 6, >= 0."""
    simulations: int | None = None
    """Simulations per move, 1 .. 100000 (None: Table A1's ``N_sim``)."""
    w_div: Literal["node", "edge"] = "node"
    """``W'/N(s_t)`` (Eq. 6) or ``W'/n(s_t, a)`` (the author's code)."""
    keep_value: OnOff = "off"
    """Keep the value sum in ``W'`` (:attr:`AlphaDDA3Score.keep_value`)."""
    history: History = "paper"
    """Eq. 1's window (see :data:`History`)."""
    root_random: float = 0.0
    """``rootrand``: share of simulations leaving the root by a random move, in [0, 1]
    (:attr:`~sparring.search.puct.PUCTConfig.root_random`; paper 0, the author's code 0.2)."""
    name: str = "AlphaDDA3"
    """Display name."""

    def __post_init__(self) -> None:
        self.check_types()
        _check_common(self.n_h, self.name)
        check_root_random(self.root_random)
        check_number("c", self.c, 0.0)
        check_sims("sims", self.simulations)


def build_alphadda3_player(
    settings: AlphaDDA3Settings, game: Game, seed: int | None, cache: PlayerCache
) -> AlphaDDA3Player:
    """The player of ``settings`` (the table row for fields left None), seeded with ``seed``."""
    evaluator = cache.evaluator(game, network_file(game, settings.model))
    n_h, c = default_row("alphadda3", game.name)
    player = AlphaDDA3Player(
        evaluator, _history(settings.n_h or n_h, settings.history),
        c if settings.c is None else settings.c,
        settings.simulations or _row(TABLE_A1_SIMULATIONS, game),
        settings.w_div == "edge", settings.keep_value == "on", settings.name, seed,
    )  # fmt: skip
    player.root_random = settings.root_random
    return player


def _choice(spec: PlayerSpec, key: str, allowed: tuple[str, ...], default: str) -> Any:
    value = spec.options.get(key, default)
    if value not in allowed:
        raise PlayerSettingsError(
            f"{key} must be one of {', '.join(allowed)}, not {value!r}", key=key
        )
    return value


def _opt_int(spec: PlayerSpec, key: str) -> int | None:
    return None if key not in spec.options else option_int(spec, key, 1)


def _opt_float(spec: PlayerSpec, key: str) -> float | None:
    return None if key not in spec.options else option_float(spec, key, 0.0)


def _name(spec: PlayerSpec, default: str) -> str:
    return spec.options.get("name", default)


_FLOOR_KEYS = {"floor", "fstart", "fslope", "fmax", "fmix", "fmode", "fresult"}


def _floor(spec: PlayerSpec) -> FloorSettings | None:
    """The floor of ``floor=on`` and its options (None: ``floor=off``, the default)."""
    if _choice(spec, "floor", ("on", "off"), "off") == "off":
        given = sorted(_FLOOR_KEYS & set(spec.options) - {"floor"})
        if given:
            raise PlayerSettingsError(f"{given[0]} needs floor=on", key=given[0])
        return None
    return FloorSettings(
        start=_opt_float(spec, "fstart"),
        slope=option_float(spec, "fslope", FLOOR_SLOPE),
        maximum=option_float(spec, "fmax", FLOOR_MAX),
        mix=_choice(spec, "fmix", ("on", "off"), "off") == "on",
        mode=_choice(spec, "fmode", ("sa", "z"), "sa"),
        result_step=option_float(spec, "fresult", FLOOR_RESULT),
    )


def parse_alphadda1(spec: PlayerSpec) -> AlphaDDA1Settings:
    """``alphadda1[:...]`` (see :class:`AlphaDDA1Settings`)."""
    check_options(spec, {"model", "nh", "asim", "bsim0", "nmax", "cpuct", "history", "rootrand",
                         "name"} | _FLOOR_KEYS)  # fmt: skip
    return AlphaDDA1Settings(
        model=spec.options.get("model"),
        n_h=_opt_int(spec, "nh"),
        a_sim=_opt_float(spec, "asim"),
        b_sim0=_opt_float(spec, "bsim0"),
        n_max=_opt_int(spec, "nmax"),
        c_puct=option_float(spec, "cpuct", DEFAULT_C_PUCT),
        history=_choice(spec, "history", ("paper", "code"), "paper"),
        floor=_floor(spec),
        root_random=option_float(spec, "rootrand", 0.0),
        name=_name(spec, "AlphaDDA1"),
    )


def parse_alphadda2(spec: PlayerSpec) -> AlphaDDA2Settings:
    """``alphadda2[:...]`` (see :class:`AlphaDDA2Settings`)."""
    check_options(spec, {"model", "nh", "adrop", "pdrop0", "pmax", "sims", "cpuct", "sign",
                         "vnet", "history", "rootrand", "name"} | _FLOOR_KEYS)  # fmt: skip
    return AlphaDDA2Settings(
        model=spec.options.get("model"),
        n_h=_opt_int(spec, "nh"),
        a_drop=_opt_float(spec, "adrop"),
        p_drop0=_opt_float(spec, "pdrop0"),
        p_max=option_float(spec, "pmax", P_MAX),
        simulations=_opt_int(spec, "sims"),
        c_puct=option_float(spec, "cpuct", DEFAULT_C_PUCT),
        sign=_choice(spec, "sign", ("colour", "none"), "colour"),
        value_net=_choice(spec, "vnet", ("clean", "damaged"), "clean"),
        history=_choice(spec, "history", ("paper", "code"), "paper"),
        floor=_floor(spec),
        root_random=option_float(spec, "rootrand", 0.0),
        name=_name(spec, "AlphaDDA2"),
    )


def parse_alphadda3(spec: PlayerSpec) -> AlphaDDA3Settings:
    """``alphadda3[:...]`` (see :class:`AlphaDDA3Settings`)."""
    check_options(spec, {"model", "nh", "c", "sims", "wdiv", "keepw", "history", "rootrand",
                         "name"})  # fmt: skip
    return AlphaDDA3Settings(
        model=spec.options.get("model"),
        n_h=_opt_int(spec, "nh"),
        c=_opt_float(spec, "c"),
        simulations=_opt_int(spec, "sims"),
        w_div=_choice(spec, "wdiv", ("node", "edge"), "node"),
        keep_value=_choice(spec, "keepw", ("on", "off"), "off"),
        history=_choice(spec, "history", ("paper", "code"), "paper"),
        root_random=option_float(spec, "rootrand", 0.0),
        name=_name(spec, "AlphaDDA3"),
    )


KINDS: dict[str, tuple[type[Any], Any, str]] = {
    "alphadda1": (
        AlphaDDA1Settings,
        parse_alphadda1,
        "AlphaDDA1 (Fujita 2022): simulations from the mean value, Eq. 2-3 "
        "(alphadda1[:nh=,asim=,bsim0=,nmax=,cpuct=,history=paper|code,floor=on,fstart=,fslope=,"
        "fmax=,fmix=on,fmode=sa|z,fresult=,rootrand=,model=,name=]; defaults Table 1)",
    ),
    "alphadda2": (
        AlphaDDA2Settings,
        parse_alphadda2,
        "AlphaDDA2 (Fujita 2022): head dropout from the mean value, Eq. 4-5 "
        "(alphadda2[:nh=,adrop=,pdrop0=,pmax=,sims=,cpuct=,sign=colour|none,vnet=clean|damaged,"
        "history=paper|code,floor=on,fstart=,fslope=,fmax=,fmix=on,fmode=sa|z,fresult=,"
        "rootrand=,model=,name=]; defaults Table 2)",
    ),
    "alphadda3": (
        AlphaDDA3Settings,
        parse_alphadda3,
        "AlphaDDA3 (Fujita 2022): search with the score of Eq. 6-7 "
        "(alphadda3[:nh=,c=,sims=,wdiv=node|edge,keepw=on|off,history=paper|code,rootrand=,"
        "model=,name=]; defaults Table 3)",
    ),
}
"""The AlphaDDA kinds: kind -> (settings class, spec parser, help), for the composition root
(:mod:`sparring.kinds`) to register."""


__all__ = [
    "TABLE_1",
    "TABLE_2",
    "TABLE_3",
    "AlphaDDA1Player",
    "AlphaDDA1Settings",
    "AlphaDDA2Player",
    "AlphaDDA2Settings",
    "AlphaDDA3Player",
    "AlphaDDA3Settings",
    "AlphaDDAPlayer",
    "FloorRule",
    "FloorSettings",
    "build_alphadda1_player",
    "build_alphadda2_player",
    "build_alphadda3_player",
    "parse_alphadda1",
    "parse_alphadda2",
    "parse_alphadda3",
]
