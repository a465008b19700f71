"""Go rules: captures, suicide, ko, passes, scoring, text, planes, replay of real games and a
cross-check against OpenSpiel's ``go``."""

from __future__ import annotations

import numpy as np
import pytest

import shared_data
from sparring.errors import IllegalMoveError, MoveParseError, PositionParseError
from sparring.games.base import DRAW, FIRST_WINS, SECOND_WINS, Outcome
from sparring.games.go import (
    NUM_PLANES,
    Go,
    gtp_to_move,
    move_to_gtp,
    move_to_sgf,
    sgf_to_move,
)
from sparring.rng import new_rng_state

DATA = shared_data.STRENGTH / "go"


def pos(game: Go, rows: list[str], side: str = "b", extra: str = "") -> np.ndarray:
    """A position from rows written top first."""
    return game.parse_position("/".join(rows) + f" {side} {extra}".rstrip())


def mv(game: Go, text: str) -> int:
    return game.parse_move(text)


# ---- rules ---------------------------------------------------------------------------------
def test_capture_removes_stones_and_counts_them() -> None:
    g = Go(5)
    s = pos(g, [".x...", "xox..", ".....", ".....", "....."])
    after = g.play(s, mv(g, "B3"))
    black, white = g.stones(after)
    assert not white.any()
    assert black[2, 1] and black.sum() == 4
    assert g.captures(after) == (1, 0)
    assert g.to_move(after) == 1 and g.ply(after) == 1


def test_capture_of_a_two_stone_group_in_the_corner() -> None:
    g = Go(5)
    s = pos(g, ["oo...", "xx...", ".....", ".....", "....."])
    assert g.is_legal(s, mv(g, "A5")) is False  # occupied
    after = g.play(s, mv(g, "C5"))
    assert g.captures(after) == (2, 0)
    assert not g.stones(after)[1].any()


def test_suicide_is_illegal_unless_it_captures() -> None:
    g = Go(5)
    s = pos(g, [".x...", "x.x..", ".x...", ".....", "....."], side="w")
    b4 = mv(g, "B4")
    assert not g.is_legal(s, b4)
    with pytest.raises(IllegalMoveError):
        g.play(s, b4)
    black_to_play = pos(g, [".x...", "x.x..", ".x...", ".....", "....."], side="b")
    assert g.is_legal(black_to_play, b4)  # filling one's own eye is legal

    # White A5 captures B5 and A4, so it is legal; Black A5 would kill its own three stones.
    corner = [".xo..", "xo...", "o....", ".....", "....."]
    a5 = mv(g, "A5")
    white = pos(g, corner, side="w")
    after = g.play(white, a5)
    assert g.captures(after) == (0, 2)
    assert not g.is_legal(pos(g, corner, side="b"), a5)


def test_simple_ko_forbids_the_immediate_recapture_only() -> None:
    g = Go(5)
    s = pos(g, [".....", ".xo..", "xo.o.", ".xo..", "....."])
    c3, b3 = mv(g, "C3"), mv(g, "B3")
    s = g.play(s, c3)  # Black takes the ko
    assert g.captures(s) == (1, 0)
    assert g.ko_point(s) == b3
    assert not g.is_legal(s, b3)
    assert "ko=B3" in g.position_to_text(s)
    assert g.encode(s)[13].reshape(-1)[b3] == 1.0
    s = g.play(s, mv(g, "E1"))  # a ko threat elsewhere
    assert g.ko_point(s) == -1
    s = g.play(s, mv(g, "E5"))
    assert g.is_legal(s, b3)
    s = g.play(s, b3)  # White retakes; now Black may not
    assert g.ko_point(s) == c3
    assert g.captures(s) == (1, 1)


def test_capturing_two_stones_or_snapback_is_not_ko() -> None:
    g = Go(5)
    # Black A3 captures the two white stones A4 and A5: no ko.
    s = pos(g, ["ox...", "ox...", ".x...", ".....", "....."])
    after = g.play(s, mv(g, "A3"))
    assert g.captures(after) == (2, 0) and g.ko_point(after) == -1


def test_two_passes_end_the_game_and_a_move_resets_the_count() -> None:
    g = Go(5)
    s = g.initial_state()
    s = g.play(s, mv(g, "C3"))
    s = g.play(s, g.pass_move)
    s = g.play(s, mv(g, "C4"))  # resets the pass count
    s = g.play(s, g.pass_move)
    assert g.status(s) is Outcome.ONGOING
    s = g.play(s, g.pass_move)
    assert g.status(s) is Outcome.FIRST_WINS  # Black owns the board: 25 - 0 - 7.5
    assert g.legal_moves(s).size == 0
    empty = g.play(g.play(g.initial_state(), g.pass_move), g.pass_move)
    assert g.status(empty) is Outcome.SECOND_WINS  # 0 - 0 - 7.5


def test_ply_cap_ends_the_game() -> None:
    g = Go(5, max_ply=3)
    assert g.max_game_length == 3
    s = g.initial_state()
    for text in ("A1", "B1", "C1"):
        assert g.status(s) is Outcome.ONGOING
        s = g.play(s, mv(g, text))
    assert g.status(s) is not Outcome.ONGOING


@pytest.mark.parametrize(("komi", "expected"), [(4.5, FIRST_WINS), (5.0, DRAW), (5.5, SECOND_WINS)])
def test_area_scoring_with_komi(komi: float, expected: int) -> None:
    g = Go(5, komi=komi)
    rows = ["..xo."] * 5
    s = pos(g, rows, extra="passes=1")
    assert g.area(s) == (15, 10)
    end = g.play(s, g.pass_move)
    assert int(g.status(end)) == expected
    assert g.score_margin(end) == 5 - komi


def test_dame_counts_for_nobody() -> None:
    g = Go(5, komi=0)
    s = pos(g, ["x.o.."] * 5)
    assert g.area(s) == (5, 15)
    s = pos(g, [".....", ".x...", ".....", "...o.", "....."])
    assert g.area(s) == (1, 1)  # the one empty region touches both colours


def test_random_playouts_end_legally() -> None:
    g = Go(9)
    rng = new_rng_state(7)
    for _ in range(20):
        s = g.initial_state()
        result = g.kernels.random_playout(s, rng)
        assert result in (FIRST_WINS, SECOND_WINS, DRAW)
        assert g.status(s) == result and g.ply(s) <= g.max_game_length
        assert g._group_without_liberty(s) == -1


def test_legal_moves_match_play_by_play_checks() -> None:
    g = Go(7)
    rng = np.random.default_rng(3)
    s = g.initial_state()
    while not g.is_terminal(s):
        legal = g.legal_moves(s)
        assert legal[-1] == g.pass_move
        points = legal[:-1]
        board = g.board(s).reshape(-1)
        assert np.all(board[points] == 0)
        assert g.ko_point(s) not in points
        non_pass = points if points.size and rng.random() < 0.97 else legal
        s = g.play(s, int(rng.choice(non_pass)))
        assert g._group_without_liberty(s) == -1


# ---- text ----------------------------------------------------------------------------------
def test_gtp_and_sgf_coordinates() -> None:
    assert move_to_gtp(0, 19) == "A19"
    assert move_to_gtp(18 * 19, 19) == "A1"
    assert move_to_gtp(18 * 19 + 8, 19) == "J1"  # no I
    assert move_to_gtp(361, 19) == "pass"
    assert gtp_to_move("q16", 19) == 3 * 19 + 15
    assert sgf_to_move("dp", 19) == 15 * 19 + 3 == gtp_to_move("D4", 19)
    assert sgf_to_move("", 19) == sgf_to_move("tt", 19) == 361
    assert move_to_sgf(gtp_to_move("Q16", 19), 19) == "pd"
    g = Go(9)
    for a in range(g.num_actions):
        assert g.parse_move(g.move_to_text(a)) == a
        assert sgf_to_move(move_to_sgf(a, 9), 9) == a
    for bad in ("I5", "A10", "Z1", "A0", "pas", "5E"):
        with pytest.raises(MoveParseError, match="bad move"):
            g.parse_move(bad)
    with pytest.raises(MoveParseError):
        sgf_to_move("zz", 19)


def test_position_text_round_trips_exactly() -> None:
    g = Go(9, komi=6.5)
    rng = np.random.default_rng(11)
    s = g.initial_state()
    texts = set()
    for _ in range(120):
        text = g.position_to_text(s)
        assert "\n" not in text
        back = g.parse_position(text)
        np.testing.assert_array_equal(back, s)
        texts.add(text)
        if g.is_terminal(s):
            break
        legal = g.legal_moves(s)
        s = g.play(s, int(rng.choice(legal[:-1] if legal.size > 1 else legal)))
    assert g.position_to_text(g.initial_state()) == "9/9/9/9/9/9/9/9/9 b"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("5/5/5/5 b", "4 rows"),
        ("5/5/5/5/6 b", "row 5"),
        ("5/5/5/5/4y b", "'y'"),
        ("5/5/5/5/5 x", "side to move"),
        ("5/5/5/5/5", "expected 5"),
        ("xo3/o4/5/5/5 b", "no liberty"),
        ("x4/5/5/5/5 b ko=A5", "not an empty point"),
        ("5/5/5/5/5 b ko=Z9", "ko="),
        ("5/5/5/5/5 b foo=1", "unknown field"),
        ("5/5/5/5/5 b passes=x", "passes="),
        ("5/5/5/5/5 b ply=1 ply=2", "twice"),
    ],
)
def test_parse_position_errors_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(PositionParseError, match=message):
        Go(5).parse_position(text)


def test_parse_position_of_a_finished_game_is_terminal() -> None:
    g = Go(5)
    s = g.parse_position("5/5/5/5/5 b passes=2 ply=2")
    assert g.status(s) is Outcome.SECOND_WINS
    assert "X (Black) to move" in g.render(s)


# ---- planes and symmetries --------------------------------------------------------------------
def test_encode_planes() -> None:
    g = Go(5)
    s = pos(g, ["x....", ".....", "..o..", ".....", "....."], side="w", extra="last=C3,A5")
    planes = g.encode(s)
    assert planes.shape == (NUM_PLANES, 5, 5) == (g.num_planes, *g.board_shape)
    assert planes.dtype == np.float32
    assert planes[0, 0, 0] == 1 and planes[0].sum() == 1
    assert planes[1, 2, 2] == 1 and planes[1].sum() == 1
    assert np.all(planes[2] == -1.0)
    assert planes[3, 2, 2] == 1 and planes[4, 0, 0] == 1 and planes[5].sum() == 0
    assert planes[8, 0, 0] == 1 and planes[7:10].sum() == 1  # corner stone: 2 liberties
    assert planes[12, 2, 2] == 1 and planes[10:13].sum() == 1  # centre stone: 4
    assert planes[13].sum() == 0 and np.all(planes[14] == 1)
    out = np.empty_like(planes)
    assert g.kernels.encode is not None
    g.kernels.encode(s, out)
    np.testing.assert_array_equal(out, planes)


def test_symmetries_move_planes_and_policy_together() -> None:
    g = Go(9)
    s = g.initial_state()
    for text in ("C7", "D5", "G4"):
        s = g.play(s, mv(g, text))
    planes = g.encode(s)
    policy = np.zeros(g.num_actions, dtype=np.float32)
    policy[mv(g, "C7")] = 0.7
    policy[g.pass_move] = 0.3
    images = g.symmetries(planes, policy)
    assert len(images) == 8
    np.testing.assert_array_equal(images[0][0], planes)
    seen = set()
    for p, pol in images:
        assert p.shape == planes.shape and pol.shape == policy.shape
        assert pol[g.pass_move] == pytest.approx(0.3)
        # Black's C7 stone sits where the policy's 0.7 went.
        board_policy = pol[:-1].reshape(9, 9)
        assert p[0][board_policy == pytest.approx(0.7)].all()
        seen.add(p.tobytes())
    assert len(seen) == 8


def test_replay_planes_and_states_agree_with_play() -> None:
    g = Go(9)
    moves = [mv(g, t) for t in ("E5", "E4", "D4", "D5", "F5", "C5", "pass", "E6")]
    states = g.replay_states(moves)
    planes = g.replay_planes(moves)
    assert states.shape == (len(moves) + 1, g.state_length)
    assert planes.shape == (len(moves), NUM_PLANES, 9, 9)
    s = g.initial_state()
    for i, m in enumerate(moves):
        np.testing.assert_array_equal(states[i], s)
        np.testing.assert_array_equal(planes[i], g.encode(s))
        s = g.play(s, m)
    np.testing.assert_array_equal(states[-1], s)
    assert g.first_illegal(moves) == -1
    assert g.first_illegal([*moves, moves[0]]) == len(moves)
    with pytest.raises(IllegalMoveError, match="move 9"):
        g.replay_planes([*moves, moves[0]])


def test_setup_places_handicap_stones() -> None:
    g = Go(9)
    s = g.setup(black=[mv(g, "C3"), mv(g, "G7")], to_move=1)
    assert g.to_move(s) == 1 and g.stones(s)[0].sum() == 2
    with pytest.raises(ValueError, match="twice"):
        g.setup(black=[0], white=[0])


# ---- real games --------------------------------------------------------------------------------
def test_real_fox_games_replay_legally() -> None:
    shared_data.need_data(DATA / "candidating", "Fox Go data")
    from sparring.records import read_sgf_games

    errors: list = []
    records = []
    for record in read_sgf_games(DATA / "candidating" / "9d.sgf", errors=errors):
        records.append(record)
        if len(records) == 5:
            break
    assert not errors and len(records) == 5
    g = Go(19)
    for record in records:
        assert record.moves.size > 0
        planes = g.replay_planes(record.moves, record.initial_state(g))
        assert planes.shape[0] == record.moves.size
        states = g.replay_states(record.moves, record.initial_state(g))
        for m, st in zip(record.moves, states[:-1], strict=True):
            assert g.is_legal(st, int(m))


# ---- OpenSpiel ---------------------------------------------------------------------------------
def test_rules_agree_with_openspiel_go_on_random_9x9_games() -> None:
    """OpenSpiel's ``go``: simple ko, suicide illegal, Tromp-Taylor area scoring, game over after
    two passes or 2*N*N plies -- the same rules, so legal sets and results must agree."""
    pyspiel = pytest.importorskip("pyspiel")
    n = 9
    os_game = pyspiel.load_game("go", {"board_size": n, "komi": 7.5})
    assert os_game.max_game_length() == 2 * n * n
    g = Go(n, komi=7.5)

    def to_ours(a: int) -> int:  # OpenSpiel: a1 = 0, rows from the bottom
        return a if a == n * n else (n - 1 - a // n) * n + a % n

    rng = np.random.default_rng(2024)
    games = 150
    for _ in range(games):
        os_state = os_game.new_initial_state()
        s = g.initial_state()
        while not os_state.is_terminal():
            ours = g.legal_moves(s)
            theirs = np.sort([to_ours(a) for a in os_state.legal_actions()])
            np.testing.assert_array_equal(ours, theirs)
            a = int(rng.choice(os_state.legal_actions()))
            os_state.apply_action(a)
            g.kernels.play(s, to_ours(a))
        assert g.status(s) is not Outcome.ONGOING
        black_return = os_state.returns()[0]
        expected = FIRST_WINS if black_return > 0 else SECOND_WINS if black_return < 0 else DRAW
        assert int(g.status(s)) == expected


# ---- parameters: board size and komi through get_game -----------------------------------------
@pytest.mark.parametrize(
    ("name", "params", "expected_name", "expected"),
    [
        ("go", {}, "go", {"size": 19, "komi": 7.5}),
        ("go19", {"komi": 6.5}, "go", {"size": 19, "komi": 6.5}),
        ("go9", {}, "go9", {"size": 9, "komi": 7.5}),
        ("go13", {"komi": 0.5}, "go13", {"size": 13, "komi": 0.5}),
        ("go", {"size": 13, "komi": 6.5}, "go13", {"size": 13, "komi": 6.5}),
        ("go:size=9,komi=-3", {}, "go9", {"size": 9, "komi": -3.0}),
    ],
)
def test_get_game_builds_any_size_and_komi(
    name: str, params: dict[str, float], expected_name: str, expected: dict[str, float]
) -> None:
    from sparring.games import game_spec, get_game

    game = get_game(name, **params)
    assert isinstance(game, Go) and game.name == expected_name and game.params() == expected
    again = get_game(game.name, **game.params())
    assert again.params() == game.params() and again.num_actions == game.size**2 + 1
    assert get_game(game_spec(game)).params() == game.params()
    assert (game.record_format, game.side_names, game.plays_out_of_turn) == (
        "sgf",
        ("Black", "White"),
        True,
    )


def test_komi_from_get_game_decides_the_result() -> None:
    from sparring.games import get_game

    for komi, expected in ((6.5, FIRST_WINS), (7.5, SECOND_WINS)):
        g = get_game("go", size=5, komi=komi)
        s = g.parse_position("x.xo./xxxo./xxxo./xxxo./xxxxo b passes=1")
        end = g.play(s, g.pass_move)
        assert g.area(end) == (16, 9)  # Black ahead by 7 on the board
        assert int(g.status(end)) == expected


@pytest.mark.parametrize(
    ("params", "key", "needle"),
    [
        ({"size": 26}, "size", "board size must be 2..25, not 26"),
        ({"size": 13.5}, "size", "size must be an integer"),
        ({"komi": 6.3}, "komi", "komi must be a multiple of 0.5"),
        ({"komi": 250}, "komi", "komi must be a multiple of 0.5 in -200..200, not 250"),
        ({"komi": float("nan")}, "komi", "komi must be a multiple of 0.5"),
        ({"max_ply": 0}, "max_ply", "max_ply must be 1..32000"),
    ],
)
def test_get_game_names_the_parameter_out_of_range(
    params: dict[str, float], key: str, needle: str
) -> None:
    from sparring.errors import BadValueError
    from sparring.games import get_game

    with pytest.raises(BadValueError, match=needle) as err:
        get_game("go", **params)
    assert err.value.key == key


def test_get_game_rejects_unknown_and_conflicting_parameters() -> None:
    from sparring.errors import BadValueError, UnknownNameError
    from sparring.games import get_game

    with pytest.raises(UnknownNameError, match="go has no parameter 'rules'") as unknown:
        get_game("go", rules=1)
    assert unknown.value.key == "rules"
    with pytest.raises(UnknownNameError, match="connect4 has no parameter 'size'"):
        get_game("connect4", size=7)
    with pytest.raises(BadValueError, match="go9 is played with size=9, not 13") as clash:
        get_game("go9", size=13)
    assert clash.value.key == "size"
    with pytest.raises(BadValueError, match="'komi' is not key=value"):
        get_game("go:komi")


@pytest.mark.parametrize(("size", "most"), [(5, 0), (7, 4), (8, 4), (9, 9), (13, 9), (19, 9)])
def test_fixed_handicap_limits_follow_gtp(size: int, most: int) -> None:
    from sparring.errors import BadValueError
    from sparring.games.go import fixed_handicap_points, max_fixed_handicap

    assert max_fixed_handicap(size) == most
    if most:
        assert len(set(fixed_handicap_points(most, size))) == most
    with pytest.raises(BadValueError):
        fixed_handicap_points(most + 1, size)


def test_a_move_out_of_turn_hands_the_move_over_and_clears_the_ko() -> None:
    g = Go(5)
    s = pos(g, [".....", ".....", ".....", ".....", "....."])
    white = g.with_side_to_move(s, 1)
    assert g.to_move(white) == 1 and g.to_move(s) == 0
    after = g.play(white, mv(g, "C3"))
    assert g.to_move(after) == 0 and g.board(after)[2, 2] == 2
    # a ko point forbids the side to move; handing the move to the capturer clears it
    ko = pos(g, [".xo..", "xo.o.", ".xo..", ".....", "....."], side="b")
    taken = g.play(ko, mv(g, "C4"))
    assert g.ko_point(taken) == mv(g, "B4")
    assert g.ko_point(g.with_side_to_move(taken, 0)) == -1
    assert np.array_equal(g.with_side_to_move(taken, 1), taken)


def test_game_spec_names_only_the_parameters_that_differ() -> None:
    from sparring.games import game_spec, get_game
    from sparring.session import GameSession

    assert game_spec(get_game("go13")) == "go13"
    assert game_spec(get_game("go", size=9, komi=5.5)) == "go9:komi=5.5"
    assert game_spec(get_game("connect4")) == "connect4"
    session = GameSession(get_game("go13", komi=6.5))
    session.play(3)
    written = session.export("moves")
    assert "# game: go13:komi=6.5" in written
