"""AlphaDDA (Fujita 2022): Eq. 1-5 on hand-made values, AlphaDDA3's score (Eq. 6-7) on a
hand-worked tree, the floor variant's mapping, and the players' annotations and defaults."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sparring.errors import SparringError, UnknownPlayerError
from sparring.games import get_game
from sparring.players import make_player
from sparring.players.alphadda import (
    AlphaDDA1Player,
    AlphaDDA2Player,
    AlphaDDA3Player,
    AlphaDDAPlayer,
    FloorRule,
    floor_z_setting,
    parse_alphadda1,
)
from sparring.players.registry import PlayerSpec, parse_player
from sparring.search.alphadda3 import AlphaDDA3Score
from sparring.search.evaluator import uniform_priors
from sparring.search.puct import PUCTConfig, search
from sparring.strength.alphadda import (
    ValueHistory,
    colour,
    dropout_probability,
    floor_level,
    mean_value,
    simulations,
)

C4 = get_game("connect4")
TTT = get_game("tictactoe")

# ---- Eq. 1: the mean value -------------------------------------------------------------------


def test_eq1_mean_over_the_last_nh_values_shrinking_at_the_start() -> None:
    """N_h = 3: the first two means are over 1 and 2 values ("if n - N_h < 0, N_h = n")."""
    history = ValueHistory(3)
    assert history.add(0.9) == pytest.approx(0.9)
    assert history.add(0.3) == pytest.approx(0.6)
    assert history.add(-0.3) == pytest.approx(0.3)
    assert history.add(0.6) == pytest.approx(0.2)  # (0.3 - 0.3 + 0.6) / 3: 0.9 dropped
    history.new_game()
    assert history.add(-0.5) == pytest.approx(-0.5)  # a new game starts afresh
    assert mean_value([0.1, 0.2, 0.4], 2) == pytest.approx(0.3)
    assert mean_value([], 4) == 0.0
    with pytest.raises(SparringError):
        ValueHistory(0)


def test_eq1_authors_code_history_keeps_two_values_across_games() -> None:
    history = ValueHistory(4, carry=True)
    for v in (0.9, 0.3, -0.3):
        history.add(v)
    history.new_game()
    assert history.to_list() == [0.3, -0.3]
    assert history.add(0.6) == pytest.approx(0.15)  # (-0.3 + 0.6) / 2: N_h = 4 never reached


def test_colour() -> None:
    assert (colour(0), colour(1)) == (1, -1)
    with pytest.raises(SparringError):
        colour(2)


# ---- Eq. 2-3: AlphaDDA1's simulations ---------------------------------------------------------


def test_eq2_3_simulations_hand_made() -> None:
    """Connect4's Table 1 (A_sim 2.0, B_sim0 -1.4, N_max 200): ``ceil(10^(2.8 - 2 x))`` with
    ``x = vbar c``; at ``x = 1`` it is ``ceil(10^0.8) = ceil(6.31) = 7``, the appendix 6 figure
    ("the number of simulations of AlphaDDA1's MCTS is 7 in Connect4")."""
    assert simulations(1.0, 1, 2.0, -1.4, 200) == 7
    assert simulations(-1.0, -1, 2.0, -1.4, 200) == 7  # second player sure to win
    assert simulations(0.5, 1, 2.0, -1.4, 200) == 64  # ceil(10^1.8) = ceil(63.1)
    assert simulations(0.4, 1, 2.0, -1.4, 200) == 100  # exactly 10^2
    assert simulations(0.0, 1, 2.0, -1.4, 200) == 200  # 631 capped at N_max (Eq. 3)
    assert simulations(1.0, -1, 2.0, -1.4, 200) == 200  # losing: full strength
    assert simulations(1.0, 1, 2.8, -1.4, 400) == 14  # Othello: ceil(10^1.12) = ceil(13.18)
    assert simulations(1.0, 1, 2.0, 0.5, 200) == 1  # ceil(10^-3) = 1: never below 1
    with pytest.raises(SparringError):
        simulations(0.0, 1, 2.0, -1.4, 0)


# ---- Eq. 4-5: AlphaDDA2's dropout probability -------------------------------------------------


def test_eq4_5_dropout_hand_made_and_clipped() -> None:
    """Connect4's Table 2 (A_drop 10, P_drop0 -0.2): ``clip(10 (vbar c - 0.2), 0, 0.95)``."""
    assert dropout_probability(0.25, 1, 10.0, -0.2) == pytest.approx(0.5)
    assert dropout_probability(0.1, 1, 10.0, -0.2) == 0.0  # -1 clipped to 0
    assert dropout_probability(0.3, 1, 10.0, -0.2) == 0.95  # 1.0 clipped to P_max
    assert dropout_probability(1.0, 1, 10.0, -0.2) == 0.95
    assert dropout_probability(0.3, 1, 10.0, -0.2, p_max=0.99) == 0.99  # the author's cap
    # the colour sign: the second player sure to win (vbar -> -1) is damaged too
    assert dropout_probability(-0.25, -1, 10.0, -0.2) == pytest.approx(0.5)
    assert dropout_probability(-1.0, -1, 10.0, -0.2) == 0.95
    # Eq. 4 as printed (no colour): the winning second player plays undamaged, the losing one
    # is damaged
    assert dropout_probability(-1.0, -1, 10.0, -0.2, colour_sign=False) == 0.0
    assert dropout_probability(0.25, -1, 10.0, -0.2, colour_sign=False) == pytest.approx(0.5)
    with pytest.raises(SparringError):
        dropout_probability(0.0, 1, 1.0, 0.0, p_max=1.0)


# ---- the floor --------------------------------------------------------------------------------


def test_floor_level_mapping() -> None:
    """``f = clip(slope (vbar c - start), 0, f_max)``."""
    assert floor_level(0.4, 0.5, 2.0, 1.0) == 0.0
    assert floor_level(0.75, 0.5, 2.0, 1.0) == pytest.approx(0.5)
    assert floor_level(1.0, 0.5, 2.0, 1.0) == pytest.approx(1.0)
    assert floor_level(1.0, 0.5, 4.0, 2.0) == pytest.approx(2.0)  # up to uniformly random
    assert floor_level(1.0, 0.5, 4.0, 1.0) == pytest.approx(1.0)
    with pytest.raises(SparringError):
        floor_level(0.0, 0.0, 1.0, 2.5)


def test_floor_default_starts() -> None:
    """AlphaDDA2's floor starts where P_drop reaches P_max: ``P_max / A_drop - P_drop0`` =
    0.95 / 10 + 0.2 = 0.295 on Connect4, 0.95 / 5 + 0.5 = 0.69 on 6x6 Othello; AlphaDDA1's at
    ``vbar c = 0.5``."""
    p2 = make_player("alphadda2:floor=on", C4, 0)
    assert isinstance(p2, AlphaDDA2Player) and p2.floor is not None
    assert p2.floor.start == pytest.approx(0.295)
    p2o = make_player("alphadda2:floor=on", get_game("othello6"), 0)
    assert isinstance(p2o, AlphaDDA2Player) and p2o.floor is not None
    assert p2o.floor.start == pytest.approx(0.69)
    p1 = make_player("alphadda1:floor=on", C4, 0)
    assert isinstance(p1, AlphaDDA1Player) and p1.floor is not None
    assert (p1.floor.start, p1.floor.slope, p1.floor.maximum) == (0.5, 0.0, 2.0)
    assert p1.floor.result_step == 0.1 and p1.floor.mode == "sa"
    assert make_player("alphadda1", C4, 0).floor is None  # type: ignore[attr-defined]


def test_floor_plays_the_least_visited_move() -> None:
    """With the floor at level 1 (``fstart=-1``: ``2 (x + 1) >= 1`` for every ``x >= -0.5``;
    the empty board's value is near 0) the move is one of the least visited (R_th = 0)."""
    for seed in range(4):
        player = make_player("alphadda1:nmax=5,floor=on,fstart=-1,fslope=2,fmax=1", C4, seed)
        player.new_game(C4, 0)
        decision = player.play(C4, C4.initial_state())
        move, info = decision.move, decision.annotation
        assert info is not None and info["floor"] == pytest.approx(1.0) and info["sims"] == 5
        visits = dict(zip(info["moves"], info["visits"], strict=True))
        assert visits[move] == min(visits.values())


def test_floor_base_level_follows_game_results() -> None:
    """``fresult=K``: a win raises the base level by K, a loss lowers it, a draw keeps it,
    clipped to [0, fmax]; each move's level is the base plus the x-driven level."""
    rule = FloorRule(0.5, 2.0, 2.0, result_step=0.25)
    assert rule.next_base(0.0, 1.0) == 0.25 and rule.next_base(0.25, 0.5) == 0.25
    assert rule.next_base(0.25, 0.0) == 0.0 and rule.next_base(0.1, 0.0) == 0.0
    assert rule.next_base(1.9, 1.0) == 2.0
    assert rule.move_level(0.25, 0.4) == 0.25  # x below fstart: the base alone
    assert rule.move_level(0.25, 0.75) == pytest.approx(0.75)  # 0.25 + 2 (0.75 - 0.5)
    assert rule.move_level(1.5, 1.0) == 2.0
    assert FloorRule(0.5).next_base(0.3, 1.0) == 0.3  # no result step: unchanged
    player = make_player("alphadda1:floor=on,fslope=0,fmax=2,fresult=0.2", C4, 0)
    assert isinstance(player, AlphaDDA1Player)
    assert player.save_state() == {"floor": 0.0}
    for score in (1.0, 1.0, 0.5, 0.0, 1.0):
        player.game_over(C4, C4.initial_state(), score)
    assert player.floor_base == pytest.approx(0.4)
    saved = player.save_state()
    again = make_player("alphadda1:floor=on,fslope=0,fmax=2,fresult=0.2", C4, 1)
    assert isinstance(again, AlphaDDA1Player)
    again.restore_state(saved)
    assert again.floor_base == pytest.approx(0.4)
    again.new_game(C4, 0)  # the base level is kept across games
    info = again.play(C4, C4.initial_state()).annotation
    assert info is not None and info["floor"] == pytest.approx(0.4)
    with pytest.raises(ValueError, match="expected"):
        again.restore_state({"floor": "high"})
    text = "alphadda2:floor=on,fslope=0,fmax=2,fmode=z,fresult=0.1"
    assert parse_player(parse_player(text).spec()) == parse_player(text)
    with pytest.raises(UnknownPlayerError, match="fresult"):
        make_player("alphadda1:floor=on,fresult=-1", C4, 0)
    assert make_player("alphadda1:floor=on,fresult=0", C4, 0).save_state() is None


def test_floor_z_mode_settings() -> None:
    """``fmode=z``: SA z = 2 (1 - 2 f) up to f = 1, then the SA floor at 2 (f - 1)."""
    assert floor_z_setting(0.25).z == pytest.approx(1.0)
    assert floor_z_setting(0.5).z == pytest.approx(0.0)
    assert floor_z_setting(1.0).z == pytest.approx(-2.0) and floor_z_setting(1.0).floor == 0.0
    low = floor_z_setting(1.5)
    assert low.z == -math.inf and low.floor == pytest.approx(1.0)
    assert floor_z_setting(2.0).floor == pytest.approx(2.0)


# ---- the players ------------------------------------------------------------------------------


def test_players_report_signal_and_parameter() -> None:
    state = C4.initial_state()
    for move in (3, 3, 3, 2):
        state = C4.play(state, move)
    p1 = make_player("alphadda1:nh=3,asim=2,bsim0=-1.4,nmax=200", C4, 0)  # Table 1
    p1.new_game(C4, 0)
    info = p1.play(C4, state).annotation
    assert info is not None
    # v from the undamaged network, first player's side; vbar = v on the first move
    evaluator = p1.evaluator  # type: ignore[attr-defined]
    _, values = evaluator.evaluate(C4.encode(state)[None], C4.legal_mask(state)[None], state[None])
    assert info["v"] == pytest.approx(float(values[0]) * colour(C4.to_move(state)), abs=1e-5)
    assert info["vbar"] == pytest.approx(info["v"], abs=1e-6)
    assert info["sims"] == simulations(info["vbar"], 1, 2.0, -1.4, 200)
    assert sum(info["visits"]) == info["sims"]

    p2 = make_player("alphadda2:sims=6,adrop=1,pdrop0=0.5", C4, 0)
    p2.new_game(C4, 0)
    info2 = p2.play(C4, state).annotation
    assert info2 is not None
    assert info2["p_drop"] == pytest.approx(
        dropout_probability(info2["vbar"], 1, 1.0, 0.5), abs=1e-6
    )
    assert info2["p_drop"] > 0  # the damaged network searched
    assert sum(info2["visits"]) == 6

    p3 = make_player("alphadda3:sims=6,c=0.5", C4, 0)
    p3.new_game(C4, 0)
    info3 = p3.play(C4, state).annotation
    assert info3 is not None and info3["c"] == 0.5 and sum(info3["visits"]) == 6


def test_table_defaults_and_spec_round_trip() -> None:
    p1 = make_player("alphadda1", get_game("othello6"), 0)  # TUNED_1
    assert isinstance(p1, AlphaDDA1Player)
    assert (p1.history.n_h, p1.a_sim, p1.b_sim0, p1.n_max) == (1, 1.4, -1.2, 300)
    p2 = make_player("alphadda2", C4, 0)
    assert isinstance(p2, AlphaDDA2Player)
    assert (p2.history.n_h, p2.a_drop, p2.p_drop0, p2.p_max, p2.sims) == (1, 10.0, -0.2, 0.95, 200)
    assert p2.colour_sign and not p2.damaged_value
    p3 = make_player("alphadda3", C4, 0)  # the grid search's row (TUNED_3), not Table 3's
    assert isinstance(p3, AlphaDDA3Player)
    assert (p3.history.n_h, p3.c, p3.sims, p3.per_edge) == (1, 0.5, 200, False)
    p1c = make_player("alphadda1", C4, 0)  # TUNED_1
    assert isinstance(p1c, AlphaDDA1Player)
    assert (p1c.history.n_h, p1c.a_sim, p1c.b_sim0, p1c.n_max) == (1, 1.6, -1.3, 300)
    p3o = make_player("alphadda3:wdiv=edge,history=code", get_game("othello6"), 0)
    assert isinstance(p3o, AlphaDDA3Player)
    assert (p3o.history.n_h, p3o.c, p3o.per_edge, p3o.history.carry) == (5, 1.0, True, True)
    text = "alphadda1:nh=2,asim=1.6,bsim0=-1.2,nmax=300,floor=on,fstart=0.4,fmix=on,history=code"
    settings = parse_alphadda1(PlayerSpec.parse(text))
    assert parse_alphadda1(PlayerSpec.parse(settings.spec())) == settings
    assert settings.floor is not None and settings.floor.mix and settings.floor.start == 0.4
    assert settings.n_h == 2 and settings.b_sim0 == -1.2
    with pytest.raises(UnknownPlayerError):
        make_player("alphadda2:pmax=1", C4, 0)
    with pytest.raises(UnknownPlayerError):
        make_player("alphadda3:bogus=1", C4, 0)
    # the author's code's 20% random root picks, an option of every kind (paper: none)
    for kind in ("alphadda1", "alphadda2", "alphadda3"):
        plain, player = make_player(kind, C4, 0), make_player(f"{kind}:rootrand=0.2", C4, 0)
        assert isinstance(plain, AlphaDDAPlayer) and isinstance(player, AlphaDDAPlayer)
        assert (plain.root_random, player.root_random) == (0.0, 0.2)
        assert parse_player(f"{kind}:rootrand=0.2").spec() == f"{kind}:rootrand=0.2"
        with pytest.raises(UnknownPlayerError, match="rootrand"):
            make_player(f"{kind}:rootrand=-0.1", C4, 0)
    # every simulation at random (rootrand=1) spreads AlphaDDA1's 200 root visits evenly
    visits = {}
    table_1 = "alphadda1:nh=3,asim=2,bsim0=-1.4,nmax=200"
    for spec in (table_1, f"{table_1},rootrand=1"):
        searcher = make_player(spec, C4, 0)
        assert isinstance(searcher, AlphaDDAPlayer)
        searcher.new_game(C4, 0)
        analysis = searcher.play(C4, C4.initial_state()).analysis
        assert analysis is not None
        visits[spec] = list(analysis.visits)
    assert sum(visits[table_1]) == sum(visits[f"{table_1},rootrand=1"]) == 200
    assert min(visits[table_1]) <= 5 and min(visits[f"{table_1},rootrand=1"]) >= 15


# ---- Eq. 6-7: AlphaDDA3's selection on a hand-worked tree ------------------------------------

ROOT_MOVES = (0, 2, 1, 3, 5, 4)
"""X a1, O a3, X a2, O b1, X b3, O b2: X holds 0, 1, 5 and O 2, 3, 4; X (first player) to
move with moves 6, 7, 8 left, none of which ends the game."""
CHILD_VALUES = {6: 0.5, 7: -0.3, 8: 0.9}
"""The stub's value of the position after each root move, for O (to move there): from the
first player's side ``v = -0.5, +0.3, -0.9``."""


class TreeStub:
    """Uniform priors; :data:`CHILD_VALUES` after the root moves, 0 elsewhere."""

    def __init__(self, root: np.ndarray) -> None:
        self.children = {TTT.play(root, m).tobytes(): v for m, v in CHILD_VALUES.items()}

    def evaluate(
        self, planes: np.ndarray, legal: np.ndarray, states: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        assert states is not None
        values = np.array([self.children.get(s.tobytes(), 0.0) for s in states], np.float32)
        return uniform_priors(legal), values


def _root() -> np.ndarray:
    state = TTT.initial_state()
    for move in ROOT_MOVES:
        state = TTT.play(state, move)
    assert not TTT.is_terminal(state) and list(TTT.legal_moves(state)) == [6, 7, 8]
    return state


def _alphadda3_visits(score: AlphaDDA3Score, sims: int = 8) -> dict[int, int]:
    root = _root()
    result = search(TTT, root, TreeStub(root), PUCTConfig(simulations=sims,
                                                          score_hook=score.hook()))  # fmt: skip
    return {int(m): int(n) for m, n in zip(result.moves, result.visits, strict=True)}


def test_alphadda3_selection_hand_worked_own_moves() -> None:
    """AlphaDDA3 is X (``c = +1``), ``vbar = 0.5``, ``C = 0.25``.  Its own edges' penalty
    ``|v + vbar|`` (v from the first player's side): move 6: |-0.5 + 0.5| = 0, move 7:
    |0.3 + 0.5| = 0.8, move 8: |-0.9 + 0.5| = 0.4.  Eq. 6 with ``W' = -n pen``, ``N = 1 + sum n``:
    ``U = -n pen / N + 0.25 sqrt(2 ln(N + 1) / (n + 1))``:

    ===  ===  ==========================  ======
    sim  N    U (move 6 / 7 / 8)          chosen
    ===  ===  ==========================  ======
    1    1    .2944 / .2944 / .2944       6 (tie: first)
    2    2    .2620 / .3706 / .3706       7
    3    3    .2944 / .0277 / .4163       8
    4    4    .3172 / .1172 / .2172       6
    5    5    .2732 / .1746 / .2546       6
    6    6    .2466 / .2154 / .2821       8
    7    7    .2549 / .2462 / .1801       6
    8    8    .2344 / .2706 / .2026       7
    ===  ===  ==========================  ======

    Visits 4 / 2 / 2 (plain Eq. 8 would favour move 7, the best for X).  With ``W'/n``
    (``wdiv=edge``, the author's code) from sim 3 on: move 7 scores -0.8 + ..., move 8
    -0.4 + ..., so after one visit each, move 6 takes the rest: 6 / 1 / 1.
    """
    assert _alphadda3_visits(AlphaDDA3Score(0.25, 0.5, 1)) == {6: 4, 7: 2, 8: 2}
    assert _alphadda3_visits(AlphaDDA3Score(0.25, 0.5, 1, per_edge=True)) == {6: 6, 7: 1, 8: 1}


def test_alphadda3_selection_hand_worked_opponent_moves() -> None:
    """The same tree with AlphaDDA3 as O (``c_AlphaDDA = -1``): the root edges are now the
    *opponent's*, penalised by ``|v - vbar|`` (they should reach ``v = vbar``): move 6:
    |-0.5 - 0.5| = 1.0, move 7: |0.3 - 0.5| = 0.2, move 8: |-0.9 - 0.5| = 1.4:

    ===  ===  ==========================  ======
    sim  N    U (move 6 / 7 / 8)          chosen
    ===  ===  ==========================  ======
    1    1    .2944 / .2944 / .2944       6
    2    2    -.2380 / .3706 / .3706      7
    3    3    -.0390 / .2277 / .4163      8
    4    4    .0672 / .2672 / -.0328      7
    5    5    .1346 / .1932 / .0546       7
    6    6    .1821 / .1466 / .1154       6
    7    7    .0086 / .1692 / .1605       7
    8    8    .0526 / .1344 / .1956       8
    ===  ===  ==========================  ======

    Visits 2 / 4 / 2.
    """
    assert _alphadda3_visits(AlphaDDA3Score(0.25, 0.5, -1)) == {6: 2, 7: 4, 8: 2}


def test_alphadda3_score_config_is_checked() -> None:
    with pytest.raises(ValueError):
        AlphaDDA3Score(-1.0, 0.0, 1)
    with pytest.raises(ValueError):
        AlphaDDA3Score(1.0, 1.5, 1)
    with pytest.raises(ValueError):
        AlphaDDA3Score(1.0, 0.0, 0)
    assert AlphaDDA3Score(1.0, 0.5, -1, per_edge=True).hook().params == (1.0, 0.5, -1.0, 1.0, 0.0)


def test_code_history_is_saved_and_restored() -> None:
    """``history=code`` keeps the last 2 values across games: :meth:`save_state` holds them, and
    a fresh player restored from it plays the next game as the used one does."""
    from sparring.players.base import RandomPlayer
    from sparring.session import GameSession

    def play(player: AlphaDDA1Player, opponent_seed: int) -> tuple[int, ...]:
        session = GameSession(C4, (player, RandomPlayer(seed=opponent_seed)))
        session.play_out()
        return session.moves

    spec = "alphadda1:nmax=4,history=code"
    used = make_player(spec, C4, 1)
    assert isinstance(used, AlphaDDA1Player)
    play(used, 2)
    saved = used.save_state()
    assert saved is not None and len(saved["values"]) == 2  # type: ignore[arg-type]
    assert saved["values"] == used.history.to_list()
    fresh = make_player(spec, C4, 5)
    assert isinstance(fresh, AlphaDDA1Player)
    fresh.restore_state(saved)
    used.reseed(5)
    assert play(used, 3) == play(fresh, 3)
    with pytest.raises(ValueError):
        fresh.restore_state({"values": ["x"]})


def test_alphadda2_damaged_value_option() -> None:
    """``vnet=damaged`` (the author's code): ``v_n`` comes from the network with the previous
    move's dropout on; the first move of a game has none, so it matches the clean value."""
    state = C4.initial_state()
    clean = make_player("alphadda2:sims=4,adrop=1,pdrop0=1.5", C4, 3)
    damaged = make_player("alphadda2:sims=4,adrop=1,pdrop0=1.5,vnet=damaged", C4, 3)
    for player in (clean, damaged):
        player.new_game(C4, 0)
    first_clean = clean.play(C4, state).annotation
    first_damaged = damaged.play(C4, state).annotation
    assert first_clean is not None and first_damaged is not None
    assert first_damaged["v"] == first_clean["v"]
    assert first_damaged["p_drop"] > 0.5
    later = C4.play(C4.play(state, 3), 3)
    second_clean = clean.play(C4, later).annotation
    second_damaged = damaged.play(C4, later).annotation
    assert second_clean is not None and second_damaged is not None
    assert second_damaged["v"] != pytest.approx(second_clean["v"], abs=1e-4)


def test_tuned_default_rows_replace_the_paper_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    from sparring.experiments.adapt import paper_kind
    from sparring.players import alphadda

    assert alphadda.default_row("alphadda1", "connect4") == (1, 1.6, -1.3, 300)  # shipped
    assert alphadda.default_row("alphadda2", "connect4") == (1, 10.0, -0.2)  # Table 2 kept
    assert alphadda.default_row("alphadda1", "othello6") == (1, 1.4, -1.2, 300)  # tuned
    assert alphadda.default_row("alphadda1", "othello") == (1, 2.0, -1.2, 400)  # tuned
    assert alphadda.default_row("alphadda2", "othello") == (4, 20.0, -0.9)  # Table 2 kept
    assert alphadda.default_row("alphadda3", "go9") == (5, 1.25)  # Table 3's Connect4 row
    assert paper_kind("alphadda1", "connect4") is None  # the default is no longer the paper's
    assert paper_kind("alphadda2", "connect4") == "alphadda2"
    paper = "alphadda1:nh=3,asim=2,bsim0=-1.4,nmax=200,rootrand=0.2"
    assert paper_kind(paper, "connect4") == "alphadda1"
    assert paper_kind("alphadda1", "othello") is None  # the 8x8 grid's row since 2026-11-28
    assert paper_kind("alphadda2", "othello") == "alphadda2"  # no tuned 8x8 AlphaDDA2 row
    monkeypatch.setitem(alphadda.TUNED_2, "othello", (2, 40.0, -0.9))
    assert alphadda.default_row("alphadda2", "othello") == (2, 40.0, -0.9)
    assert paper_kind("alphadda2", "othello") is None
