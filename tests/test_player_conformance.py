"""Conformance of every registered player kind, driven through GameSession.

For each kind of :func:`sparring.players.player_kinds` (with the tiny settings of
:data:`TINY`): only legal moves over whole games of Connect4 (and of tic-tac-toe and 6x6
Othello where the kind plays them, plus the opening moves of 9x9 Go and chess), the same games
from the same seeds, the lifecycle hooks called in order (``new_game``, ``observe`` after every
move of either side with the position after it, ``game_over`` once with the right score), and
``save_state`` -> JSON -> ``restore_state`` giving back the same record.

A kind that is registered but missing from :data:`TINY` fails
:func:`test_every_kind_has_tiny_settings`; add it there with settings that keep a game well under
a second.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from sparring.errors import PlayerResourceError, SparringError
from sparring.games import get_game
from sparring.games.base import Game, Outcome, State
from sparring.players import external, make_player, player_kinds
from sparring.players.base import Decision, Player, RandomPlayer
from sparring.search.limit import Limit
from sparring.session import GameSession


@dataclass(frozen=True)
class Tiny:
    """How to build a kind cheaply for these tests."""

    specs: tuple[str, ...]
    """Player specs of the kind with tiny settings (each one is tested)."""
    big_games: bool = True
    """Also play the opening moves of 9x9 Go and chess where the kind supports them (False for
    the presets whose fixed 50-300 whole-game playouts per move make that slow)."""
    games: tuple[str, ...] | None = None
    """The only games the kind plays (e.g. 19x19 Go and chess for the strength-estimator
    kinds), each checked over its first :data:`OPENING_PLIES` plies (ended by a resignation
    where a finished game is needed); None: whole games of :data:`WHOLE_GAMES`."""


TINY: dict[str, Tiny] = {
    "random": Tiny(("random",)),
    "uct": Tiny(("uct:sims=8",)),
    "mcts1": Tiny(("mcts1",), big_games=False),
    "mcts2": Tiny(("mcts2",), big_games=False),
    "mcts3": Tiny(("mcts3",), big_games=False),
    "mcts4": Tiny(("mcts4",), big_games=False),
    "minimax": Tiny(("minimax:depth=1",)),
    "minimax1": Tiny(("minimax1",)),
    "minimax2": Tiny(("minimax2",)),
    "az": Tiny(("az:sims=8",)),
    "level": Tiny(("level:at=1000",), big_games=False),
    "sa": Tiny(("sa:sims=8,z=1,rth=0.5", "sa:base=uct,sims=8,z=1,rth=0.5")),
    "dsa": Tiny(("dsa:sims=8", "dsa:mode=intra,sims=8", "dsa:mode=elo-intra,sims=8,elo0=1900")),
    "alphadda1": Tiny(("alphadda1:nmax=4", "alphadda1:nmax=4,floor=on,fstart=-1")),
    "alphadda2": Tiny(("alphadda2:sims=4,adrop=1,pdrop0=1.5,floor=on,fstart=0.5",)),
    "alphadda3": Tiny(("alphadda3:sims=8",)),
    "human-mcts": Tiny(
        ("human-mcts:sims=4", "human-mcts:sims=1,temp=1"), big_games=False, games=("go", "chess")
    ),
    "sa-mcts": Tiny(("sa-mcts:sims=4,z=1",), big_games=False, games=("go", "chess")),
    "se-mcts": Tiny(
        ("se-mcts:rank=5d,sims=4", "se-mcts:elo=1900,sims=4"),
        big_games=False,
        games=("go", "chess"),
    ),
    "se-inf-mcts": Tiny(
        ("se-inf-mcts:rank=3-5k,sims=4", "se-inf-mcts:elo=1500,sims=4"),
        big_games=False,
        games=("go", "chess"),
    ),
    "stockfish": Tiny(("stockfish:depth=1,movetime=none",), big_games=False, games=("chess",)),
    "gnugo": Tiny(("gnugo:level=0",), big_games=False, games=("go9",)),
}
"""Tiny settings per registered kind (the shipped small networks for ``az``, ``sa`` and
``dsa``)."""

WHOLE_GAMES = ("connect4", "tictactoe", "othello6", "othello")
"""Games played to the end; every kind must play Connect4 (except kinds with ``games``)."""
OPENING_GAMES = ("go9", "chess")
"""Games of which only the first moves are played (where the kind supports them)."""
OPENING_PLIES = 4


def _specs() -> list[str]:
    return [spec for kind in sorted(player_kinds()) for spec in TINY.get(kind, Tiny(())).specs]


def _tiny(spec: str) -> Tiny:
    return TINY[spec.split(":")[0]]


def _skip_missing_program(spec: str, err: SparringError) -> None:
    """Skip the test of an external engine kind that is not installed (unless SPARRING_CI=1)."""
    if (
        isinstance(err, PlayerResourceError)
        and err.key == "path"
        and spec.split(":")[0] in external.KINDS
        and os.environ.get("SPARRING_CI") != "1"
    ):
        pytest.skip(f"{spec}: {err}")


def _home(spec: str) -> tuple[Game, int | None]:
    """The game the lifecycle, seed and state tests use for ``spec`` and how many plies they
    play (None: to the end): Connect4, or the first playable game of a kind with ``games``
    (where the spec's rank belongs: a Go rank or a chess band)."""
    games = _tiny(spec).games
    if games is None:
        return get_game("connect4"), None
    for name in games:
        game = get_game(name)
        try:
            make_player(spec, game, 0)
        except SparringError as err:
            _skip_missing_program(spec, err)
            continue
        return game, OPENING_PLIES
    raise AssertionError(f"{spec} plays none of {games}")


def _build(spec: str, game: Game, seed: int) -> Player | None:
    """The player, or None when its kind does not play ``game`` (Connect4 must work)."""
    try:
        return make_player(spec, game, seed)
    except SparringError as err:
        _skip_missing_program(spec, err)
        if game.name == "connect4":
            raise
        return None


def test_every_kind_has_tiny_settings() -> None:
    missing = sorted(set(player_kinds()) - set(TINY))
    assert not missing, (
        f"player kind(s) {', '.join(missing)} have no tiny settings in "
        "tests/test_player_conformance.py TINY: add a spec that plays a Connect4 game fast"
    )
    stale = sorted(set(TINY) - set(player_kinds()))
    assert not stale, f"TINY names kinds that are no longer registered: {', '.join(stale)}"


# ---- legal moves over whole games --------------------------------------------------------------
def _play(game: Game, players: tuple[Player, Player], plies: int | None = None) -> GameSession:
    session = GameSession(game, players)
    while not session.is_over and (plies is None or session.ply < plies):
        session.play_player()  # raises IllegalMoveError naming the player for an illegal move
    return session


def _assert_replays(game: Game, session: GameSession) -> None:
    state = session.start_state
    for move in session.moves:
        assert game.is_legal(state, move)
        state = game.play(state, move)
    assert np.array_equal(state, session.state)


@pytest.mark.parametrize("spec", _specs())
def test_only_legal_moves_over_whole_games(spec: str) -> None:
    played = []
    games = _tiny(spec).games
    plies = None if games is None else OPENING_PLIES
    for name in games or WHOLE_GAMES:
        game = get_game(name)
        for seat in (0, 1):
            player = _build(spec, game, 3 + seat)
            if player is None:
                continue
            other = RandomPlayer(seed=10 + seat)
            players = (player, other) if seat == 0 else (other, player)
            session = _play(game, players, plies)
            if plies is None:
                assert session.is_over and session.resigned is None
                assert session.outcome is game.status(session.state)
            else:
                assert session.ply == plies
            _assert_replays(game, session)
            played.append(name)
    assert "connect4" in played if games is None else played


@pytest.mark.parametrize("spec", [s for s in _specs() if _tiny(s).big_games])
def test_only_legal_moves_in_the_openings_of_go_and_chess(spec: str) -> None:
    for name in OPENING_GAMES:
        game = get_game(name)
        player = _build(spec, game, 5)
        if player is None:
            continue
        session = _play(game, (player, RandomPlayer(seed=6)), plies=OPENING_PLIES)
        assert session.ply == OPENING_PLIES
        _assert_replays(game, session)


# ---- seeded reproducibility --------------------------------------------------------------------
@pytest.mark.parametrize("spec", _specs())
def test_same_seeds_give_the_same_games(spec: str) -> None:
    game, plies = _home(spec)
    games = []
    for _ in range(2):
        first, second = make_player(spec, game, 21), make_player(spec, game, 22)
        session = _play(game, (first, second), plies)
        games.append((session.moves, session.outcome))
    assert games[0] == games[1]


# ---- lifecycle -----------------------------------------------------------------------------------
def _spy(player: Player, log: list[tuple[Any, ...]]) -> None:
    """Record every lifecycle call of ``player`` (and still make it)."""
    new_game, observe, game_over, play = (
        player.new_game,
        player.observe,
        player.game_over,
        player.play,
    )

    def spy_new_game(game: Game, player_index: int) -> None:
        log.append(("new_game", player_index))
        new_game(game, player_index)

    def spy_observe(game: Game, move: int, state: State) -> None:
        log.append(("observe", move, state.tobytes()))
        observe(game, move, state)

    def spy_game_over(game: Game, final_state: State, score: float) -> None:
        log.append(("game_over", score, final_state.tobytes()))
        game_over(game, final_state, score)

    def spy_play(game: Game, state: State, limit: Limit | None = None) -> Decision:
        log.append(("play", state.tobytes()))
        return play(game, state, limit)

    player.new_game = spy_new_game  # type: ignore[method-assign]
    player.observe = spy_observe  # type: ignore[method-assign]
    player.game_over = spy_game_over  # type: ignore[method-assign]
    player.play = spy_play  # type: ignore[method-assign]


@pytest.mark.parametrize("spec", _specs())
def test_lifecycle_hooks_are_called_in_order(spec: str) -> None:
    game, plies = _home(spec)
    for seat in (0, 1):
        log: list[tuple[Any, ...]] = []
        player = make_player(spec, game, 31)
        _spy(player, log)
        other = RandomPlayer(seed=32)
        session = _play(game, (player, other) if seat == 0 else (other, player), plies)
        if not session.is_over:
            session.resign(1 - seat)  # a game cut short: the opponent resigns
        states = [session.state_at(i).tobytes() for i in range(session.ply + 1)]
        expected: list[tuple[Any, ...]] = [("new_game", seat)]
        for i, (move, mover) in enumerate(zip(session.moves, session.movers, strict=True)):
            if mover == seat:
                expected.append(("play", states[i]))
            expected.append(("observe", move, states[i + 1]))
        expected.append(("game_over", session.score_for(seat), states[-1]))
        assert log == expected
        assert session.outcome is not Outcome.ONGOING


# ---- state round trip ----------------------------------------------------------------------------
@pytest.mark.parametrize("spec", _specs())
def test_save_state_round_trips_through_json(spec: str) -> None:
    game, plies = _home(spec)
    player = make_player(spec, game, 41)
    session = _play(game, (player, RandomPlayer(seed=42)), plies)  # something to keep
    if not session.is_over:
        session.resign(1)
    saved = player.save_state()
    text = json.dumps(saved)
    assert json.loads(text) == saved
    fresh = make_player(spec, game, 41)
    fresh.restore_state(json.loads(text))
    assert fresh.save_state() == saved
    if saved is None:
        with pytest.raises(ValueError, match="keeps no state"):
            fresh.restore_state({"learned": 1})
    # a restored player goes on playing legal moves
    session = _play(game, (RandomPlayer(seed=43), fresh), plies)
    _assert_replays(game, session)
