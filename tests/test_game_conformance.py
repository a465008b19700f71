"""The Game interface contract, checked on every registered game.

Every test here is parametrised over :data:`sparring.games.GAME_NAMES`, so a new game runs the
whole suite by being registered.  The positions come from seeded random games played with the
checked Python API.  Game-specific facts (symmetry counts, how the compiled random playout
draws its moves, how to write a transformed board as text) are looked up in small tables and
the corresponding checks are skipped for games that are not in them.

The end of the module checks the Othello and tic-tac-toe rules against naive reference
implementations written here (6x6 Othello has no OpenSpiel counterpart).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import numba as nb
import numpy as np
import pytest

from sparring.errors import GameOverError, IllegalMoveError, SparringError
from sparring.games import GAME_NAMES, Game, Outcome, get_game
from sparring.games.base import DRAW, FIRST_WINS, ONGOING, SECOND_WINS
from sparring.rng import new_rng_state, random_below

# ---- random games --------------------------------------------------------------------------

MIN_GAMES = 3
MAX_GAMES = 40
STEP_BUDGET = 1500  # stop adding games once this many positions were collected
SAMPLE = 250  # positions per game for the more expensive per-position checks


@dataclass
class Run:
    """One random game: ``states[i]`` is the position before ``moves[i]``; the last state
    is terminal."""

    seed: int
    moves: list[int] = field(default_factory=list)
    states: list[np.ndarray] = field(default_factory=list)


@cache
def _game(name: str) -> Game:
    return get_game(name)


@cache
def _runs(name: str) -> tuple[Run, ...]:
    game = _game(name)
    runs: list[Run] = []
    steps = 0
    for seed in range(MAX_GAMES):
        if len(runs) >= MIN_GAMES and steps >= STEP_BUDGET:
            break
        rng = np.random.default_rng(seed)
        run = Run(seed)
        state = game.initial_state()
        run.states.append(state)
        while not game.is_terminal(state):
            assert len(run.moves) < game.max_game_length, (
                f"{name}: seed {seed}: no terminal position after max_game_length="
                f"{game.max_game_length} plies"
            )
            legal = game.legal_moves(state)
            move = int(legal[rng.integers(len(legal))])
            state = game.play(state, move)
            run.moves.append(move)
            run.states.append(state)
        steps += len(run.states)
        runs.append(run)
    return tuple(runs)


def _positions(name: str, limit: int = SAMPLE) -> list[np.ndarray]:
    """Up to ``limit`` positions spread over all random games (terminal ones included)."""
    everything = [s for run in _runs(name) for s in run.states]
    if len(everything) <= limit:
        return everything
    idx = np.linspace(0, len(everything) - 1, limit).round().astype(int)
    return [everything[i] for i in np.unique(idx)]


@pytest.fixture(params=GAME_NAMES)
def name(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def game(name: str) -> Game:
    return _game(name)


@pytest.fixture
def runs(name: str) -> tuple[Run, ...]:
    return _runs(name)


# ---- game-specific facts -------------------------------------------------------------------


def _expected_symmetries(name: str) -> int | None:
    if name == "connect4":
        return 2
    if name.startswith(("othello", "go")) or name == "tictactoe":
        return 8
    if name == "chess":
        return 1
    return None


def _planes_to_text(game: Game, planes: np.ndarray) -> str | None:
    """A position text with the stones of ``planes`` (for games whose encoding determines the
    position), so that a symmetric image can be turned back into a position."""
    first, second = planes[0] > 0.5, planes[1] > 0.5
    cells = np.where(first, "x", np.where(second, "o", "."))
    if game.name == "connect4":
        return "/".join("".join(row) for row in cells)
    if game.name == "tictactoe":
        return "".join(cells.reshape(-1))
    if game.name.startswith("othello"):
        return "".join(cells.reshape(-1)) + " " + ("x" if planes[2, 0, 0] > 0 else "o")
    return None


def _playout_draw(game: Game, legal: np.ndarray) -> bool | None:
    """Whether the compiled random playout of ``game`` draws a random number to choose among
    ``legal`` (it picks ``legal[random_below(rng, len(legal))]`` when it does); ``None`` for
    games whose playout policy this table does not describe."""
    if game.name in ("connect4", "tictactoe"):
        return True
    if game.name.startswith("othello"):
        return not (len(legal) == 1 and legal[0] == game.num_actions - 1)  # a forced pass
    return None


def _is_numba(fn: object) -> bool:
    return hasattr(fn, "py_func") and hasattr(fn, "signatures")


# ---- the initial position -------------------------------------------------------------------


def test_initial_state(game: Game) -> None:
    s = game.initial_state()
    assert isinstance(s, np.ndarray) and s.ndim == 1
    assert game.status(s) is Outcome.ONGOING and not game.is_terminal(s)
    assert game.to_move(s) == 0
    assert game.ply(s) == 0
    legal = game.legal_moves(s)
    assert len(legal) > 0
    # a fresh array every time
    t = game.initial_state()
    assert t is not s and np.array_equal(t, s)
    t[...] = 0
    assert np.array_equal(game.initial_state(), s)
    assert game.num_actions > 0 and len(game.board_shape) == 2 and game.max_game_length > 0


# ---- random games ---------------------------------------------------------------------------


def test_random_games_end_within_max_game_length(game: Game, runs: tuple[Run, ...]) -> None:
    assert len(runs) >= MIN_GAMES
    for run in runs:
        final = run.states[-1]
        assert game.is_terminal(final)
        assert len(run.moves) <= game.max_game_length
        assert game.ply(final) == len(run.moves), f"seed {run.seed}"
        for s in run.states[:-1]:
            assert not game.is_terminal(s)


def test_legal_moves_are_sorted_unique_and_consistent(game: Game, name: str) -> None:
    for s in _positions(name):
        legal = game.legal_moves(s)
        assert legal.dtype == np.int64
        assert np.all(np.diff(legal) > 0), "legal moves must be strictly increasing"
        assert np.all((legal >= 0) & (legal < game.num_actions))
        mask = game.legal_mask(s)
        assert mask.dtype == np.bool_ and mask.shape == (game.num_actions,)
        assert np.array_equal(np.flatnonzero(mask), legal)
        for m in legal[:20]:
            assert game.is_legal(s, int(m))
        assert not game.is_legal(s, -1) and not game.is_legal(s, game.num_actions)
        assert (len(legal) == 0) == game.is_terminal(s)


def test_play_does_not_mutate_and_players_alternate(game: Game, runs: tuple[Run, ...]) -> None:
    for run in runs:
        for s, move, child in zip(run.states, run.moves, run.states[1:], strict=False):
            before = s.copy()
            again = game.play(s, move)
            assert np.array_equal(s, before), "play mutated its input"
            assert again is not s and not np.shares_memory(again, s)
            assert np.array_equal(again, child), "play is not deterministic"
            # passes are moves too, so the side to move always alternates
            if not game.is_terminal(child):
                assert game.to_move(child) == 1 - game.to_move(s)
            assert game.ply(child) == game.ply(s) + 1


def test_terminal_positions_have_no_moves(game: Game, runs: tuple[Run, ...]) -> None:
    rng = np.random.default_rng(1)
    for run in runs:
        final = run.states[-1]
        outcome = game.status(final)
        assert outcome in (Outcome.FIRST_WINS, Outcome.SECOND_WINS, Outcome.DRAW)
        assert len(game.legal_moves(final)) == 0
        assert not game.legal_mask(final).any()
        for m in {0, game.num_actions - 1, int(rng.integers(game.num_actions)), run.moves[-1]}:
            assert not game.is_legal(final, m)
            with pytest.raises(GameOverError):
                game.play(final, m)
            with pytest.raises(GameOverError):
                game.parse_move(game.move_to_text(m), final)
        with pytest.raises(SparringError):
            game.play(final, -1)
        scores = (outcome.score_for(0), outcome.score_for(1))
        assert (
            scores
            == {
                Outcome.FIRST_WINS: (1.0, 0.0),
                Outcome.SECOND_WINS: (0.0, 1.0),
                Outcome.DRAW: (0.5, 0.5),
            }[outcome]
        )


def test_outcome_of_ongoing_has_no_score() -> None:
    assert [int(o) for o in Outcome] == [ONGOING, FIRST_WINS, SECOND_WINS, DRAW]
    with pytest.raises(ValueError):
        Outcome.ONGOING.score_for(0)


def test_illegal_moves_raise(game: Game, name: str) -> None:
    rng = np.random.default_rng(2)
    for s in _positions(name, 120):
        if game.is_terminal(s):
            continue
        before = s.copy()
        illegal = np.flatnonzero(~game.legal_mask(s))
        picks = rng.choice(illegal, size=min(8, len(illegal)), replace=False)
        for m in [*(int(x) for x in picks), -1, game.num_actions, game.num_actions + 7]:
            with pytest.raises(IllegalMoveError):
                game.play(s, m)
        for m in picks[:2]:
            with pytest.raises(IllegalMoveError):
                game.parse_move(game.move_to_text(int(m)), s)
        assert np.array_equal(s, before)


# ---- network input ----------------------------------------------------------------------------


def test_encode(game: Game, name: str) -> None:
    shape = (game.num_planes, *game.board_shape)
    for s in _positions(name):
        planes = game.encode(s)
        assert planes.shape == shape and planes.dtype == np.float32
        colour = 1.0 if game.to_move(s) == 0 else -1.0
        assert np.all(planes[2] == colour), "plane 2 is +1 (first) / -1 (second) to move"
        first, second = planes[0], planes[1]
        assert np.all((first == 0) | (first == 1)) and np.all((second == 0) | (second == 1))
        assert not np.any((first == 1) & (second == 1)), "a square holds one stone at most"
        assert np.array_equal(game.encode(s), planes)
        if name in ("connect4", "tictactoe"):  # no captures, no passes: counts follow the ply
            n1, n2 = int(first.sum()), int(second.sum())
            assert n1 + n2 == game.ply(s) and n1 - n2 in (0, 1)


def test_symmetries(game: Game, name: str) -> None:
    expected = _expected_symmetries(name)
    rng = np.random.default_rng(3)
    reconstructed = 0
    for s in _positions(name, 150):
        planes = game.encode(s)
        mask = game.legal_mask(s)
        policy = mask.astype(np.float32)
        images = game.symmetries(planes, policy)
        if expected is not None:
            assert len(images) == expected
        p0, q0 = images[0]
        assert np.array_equal(p0, planes) and np.array_equal(q0, policy), "identity first"
        for p, q in images:
            assert p.shape == planes.shape and p.dtype == np.float32
            assert q.shape == policy.shape and q.dtype == np.float32
            # a symmetry permutes squares: every plane keeps its sum, the policy its values
            assert np.array_equal(p.sum(axis=(1, 2)), planes.sum(axis=(1, 2)))
            assert np.array_equal(np.sort(q), np.sort(policy))
            text = _planes_to_text(game, p)
            if text is not None:
                image = game.parse_position(text)
                assert np.array_equal(game.encode(image), p)
                assert np.array_equal(game.legal_mask(image), q > 0), "legal masks must map"
                assert game.status(image) is game.status(s)
                reconstructed += 1
        # one-hot policies stay one-hot, and distinct moves stay distinct
        for m in rng.choice(game.num_actions, size=min(6, game.num_actions), replace=False):
            one_hot = np.zeros(game.num_actions, dtype=np.float32)
            one_hot[m] = 1.0
            for _, q in game.symmetries(planes, one_hot):
                assert q.sum() == 1.0 and np.count_nonzero(q) == 1
    if _planes_to_text(game, game.encode(game.initial_state())) is not None:
        assert reconstructed > 0


def test_symmetries_are_a_group_action_on_policies(game: Game) -> None:
    """Each image maps the action indices by a permutation (no two actions collide)."""
    planes = game.encode(game.initial_state())
    ids = np.arange(game.num_actions, dtype=np.float32)
    for _, q in game.symmetries(planes, ids):
        assert np.array_equal(np.sort(q), ids)


# ---- text -----------------------------------------------------------------------------------


def test_move_text_round_trip(game: Game) -> None:
    texts = []
    for m in range(game.num_actions):
        text = game.move_to_text(m)
        assert isinstance(text, str) and text and text == text.strip()
        assert game.parse_move(text) == m, text
        assert game.parse_move(f"  {text} ") == m
        texts.append(text)
    assert len(set(texts)) == game.num_actions, "move texts must be distinct"


def test_position_text_round_trip(game: Game, name: str) -> None:
    for s in _positions(name):
        text = game.position_to_text(s)
        assert isinstance(text, str) and "\n" not in text
        back = game.parse_position(text)
        assert np.array_equal(game.legal_moves(back), game.legal_moves(s)), text
        assert game.status(back) is game.status(s), text
        assert game.to_move(back) == game.to_move(s), text
        assert np.array_equal(game.encode(back), game.encode(s)), text
        assert game.position_to_text(back) == text
        diagram = game.render(s)
        assert isinstance(diagram, str) and "\n" in diagram


def test_game_replays_from_its_move_texts(game: Game, runs: tuple[Run, ...]) -> None:
    for run in runs[:5]:
        state = game.initial_state()
        for move in run.moves:
            parsed = game.parse_move(game.move_to_text(move), state)
            assert parsed == move
            state = game.play(state, parsed)
        assert np.array_equal(state, run.states[-1])


# ---- compiled kernels -------------------------------------------------------------------------


def test_random_playout_ends_in_a_consistent_terminal(game: Game, name: str) -> None:
    k = game.kernels
    limit = 60 if _is_numba(k.random_playout) else 12  # Python playouts are slow
    for i, s in enumerate(_positions(name, limit)):
        before = s.copy()
        end = s.copy()
        result = int(k.random_playout(end, new_rng_state(1000 + i)))
        assert np.array_equal(s, before)
        assert result == int(k.status(end)) and result != ONGOING
        assert game.is_terminal(end) and game.status(end) is Outcome(result)
        assert len(game.legal_moves(end)) == 0
        assert game.ply(s) <= game.ply(end) <= game.max_game_length
        # the end position is a real position: its text describes the same outcome
        back = game.parse_position(game.position_to_text(end))
        assert game.status(back) is Outcome(result)


def test_random_playout_replays_with_the_python_api(game: Game, name: str) -> None:
    """The compiled playout equals playing ``legal[random_below(rng, len(legal))]`` with the
    Python API from the same random stream (games whose playout policy is tabled here)."""
    if _playout_draw(game, game.legal_moves(game.initial_state())) is None:
        pytest.skip(f"{name}: playout move policy not described in this test")
    for i, s in enumerate(_positions(name, 80)):
        end = s.copy()
        game.kernels.random_playout(end, new_rng_state(77 + i))
        rng = new_rng_state(77 + i)
        state = s
        while not game.is_terminal(state):
            legal = game.legal_moves(state)
            move = legal[random_below(rng, len(legal))] if _playout_draw(game, legal) else legal[0]
            state = game.play(state, int(move))
        assert np.array_equal(end, state), game.position_to_text(s)


def test_kernels_agree_with_python_api(game: Game, runs: tuple[Run, ...]) -> None:
    k = game.kernels
    out = np.empty(game.num_actions, dtype=np.int64)
    encode = getattr(k, "encode", None)
    planes = np.empty((game.num_planes, *game.board_shape), dtype=np.float32)
    for run in runs:
        state = game.initial_state()
        for i, move in enumerate(run.moves):
            n = int(k.legal_moves(state, out))
            assert np.array_equal(np.sort(out[:n]), game.legal_moves(run.states[i]))
            assert int(k.status(state)) == int(game.status(run.states[i])) == ONGOING
            assert int(k.to_move(state)) == game.to_move(run.states[i])
            if encode is not None:
                encode(state, planes)
                assert np.array_equal(planes, game.encode(state))
            k.play(state, move)
            assert np.array_equal(state, run.states[i + 1])
        assert int(k.status(state)) == int(game.status(run.states[-1])) != ONGOING
        assert int(k.legal_moves(state, out)) == 0


@nb.njit
def _compiled_replay(legal_moves, play, status, to_move, state, moves, counts, movers):  # type: ignore[no-untyped-def]
    buf = np.empty(4096, dtype=np.int64)
    for i in range(moves.shape[0]):
        counts[i] = legal_moves(state, buf)
        movers[i] = to_move(state)
        play(state, moves[i])
    return status(state)


def test_kernels_work_inside_compiled_code(game: Game, runs: tuple[Run, ...]) -> None:
    k = game.kernels
    if not all(_is_numba(f) for f in (k.legal_moves, k.play, k.status, k.to_move)):
        pytest.skip(f"{game.name}: kernels are plain Python callables")
    for run in runs[:10]:
        state = game.initial_state()
        moves = np.array(run.moves, dtype=np.int64)
        counts = np.zeros(len(moves), dtype=np.int64)
        movers = np.zeros(len(moves), dtype=np.int64)
        result = _compiled_replay(
            k.legal_moves, k.play, k.status, k.to_move, state, moves, counts, movers
        )
        assert result == int(game.status(run.states[-1]))
        assert np.array_equal(state, run.states[-1])
        assert counts.tolist() == [len(game.legal_moves(s)) for s in run.states[:-1]]
        assert movers.tolist() == [game.to_move(s) for s in run.states[:-1]]


# ---- independent reference rules --------------------------------------------------------------

_DIRECTIONS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]


def _ref_flips(board: list[list[int]], r: int, c: int, me: int) -> list[tuple[int, int]]:
    """Discs turned by ``me`` (1 black, 2 white) playing at (r, c), by walking the 8 rays."""
    n = len(board)
    if board[r][c]:
        return []
    turned: list[tuple[int, int]] = []
    for dr, dc in _DIRECTIONS:
        line = []
        rr, cc = r + dr, c + dc
        while 0 <= rr < n and 0 <= cc < n and board[rr][cc] == 3 - me:
            line.append((rr, cc))
            rr, cc = rr + dr, cc + dc
        if line and 0 <= rr < n and 0 <= cc < n and board[rr][cc] == me:
            turned += line
    return turned


def _ref_placements(board: list[list[int]], me: int) -> list[int]:
    n = len(board)
    return [r * n + c for r in range(n) for c in range(n) if _ref_flips(board, r, c, me)]


@pytest.mark.parametrize("size", [6, 8])
def test_othello_matches_naive_reference(size: int) -> None:
    from sparring.games.othello import Othello

    game = Othello(size)
    rng = np.random.default_rng(size)
    n_games = 150 if size == 6 else 40
    passes = 0
    for _ in range(n_games):
        board = [[0] * size for _ in range(size)]
        h = size // 2
        board[h - 1][h - 1] = board[h][h] = 2
        board[h - 1][h] = board[h][h - 1] = 1
        me = 1
        state = game.initial_state()
        while True:
            moves = _ref_placements(board, me)
            over = not moves and not _ref_placements(board, 3 - me)
            if over:
                b = sum(row.count(1) for row in board)
                w = sum(row.count(2) for row in board)
                want = [Outcome.DRAW, Outcome.FIRST_WINS, Outcome.SECOND_WINS][(b > w) - (b < w)]
                assert game.status(state) is want
                break
            assert game.status(state) is Outcome.ONGOING
            expected = moves or [game.pass_move]
            assert game.legal_moves(state).tolist() == expected
            assert game.to_move(state) == me - 1
            move = expected[int(rng.integers(len(expected)))]
            if move == game.pass_move:
                passes += 1
            else:
                r, c = divmod(move, size)
                for rr, cc in _ref_flips(board, r, c, me):
                    board[rr][cc] = me
                board[r][c] = me
            me = 3 - me
            state = game.play(state, move)
            black, white = game.discs(state)
            assert black.tolist() == [[v == 1 for v in row] for row in board]
            assert white.tolist() == [[v == 2 for v in row] for row in board]
    assert passes > 0, "the random games should include some passes"


def test_tictactoe_all_positions_match_reference() -> None:
    """Every reachable tic-tac-toe position: legal moves and result against a direct check."""
    game = get_game("tictactoe")
    lines = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]

    def winner(cells: tuple[int, ...]) -> int:
        for a, b, c in lines:
            if cells[a] and cells[a] == cells[b] == cells[c]:
                return cells[a]
        return 0

    seen: dict[tuple[int, ...], np.ndarray] = {}
    frontier = [((0,) * 9, game.initial_state())]
    while frontier:
        cells, state = frontier.pop()
        if cells in seen:
            assert np.array_equal(seen[cells], state)
            continue
        seen[cells] = state
        w = winner(cells)
        empty = [i for i in range(9) if not cells[i]]
        if w or not empty:
            want = {1: Outcome.FIRST_WINS, 2: Outcome.SECOND_WINS, 0: Outcome.DRAW}[w]
            assert game.status(state) is want, cells
            continue
        assert game.status(state) is Outcome.ONGOING
        assert game.legal_moves(state).tolist() == empty
        me = 1 if cells.count(1) == cells.count(2) else 2
        for i in empty:
            child = list(cells)
            child[i] = me
            frontier.append((tuple(child), game.play(state, i)))
    assert len(seen) == 5478  # the number of reachable tic-tac-toe positions


def test_game_names_are_resolvable() -> None:
    for name in GAME_NAMES:
        assert get_game(name).name == name
    assert len(set(GAME_NAMES)) == len(GAME_NAMES) > 0
