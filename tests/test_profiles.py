"""Profiles: identity, adaptive state keyed by game and kind, history, estimates; strict JSON,
legacy upgrade, atomic writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sparring.errors import BadValueError, IncompatibleError, MissingResourceError
from sparring.games import get_game
from sparring.games.base import Game, State
from sparring.players.base import Player, PlayerState, RandomPlayer
from sparring.profiles import (
    OPPONENT_ELO_ESTIMATE,
    AdaptiveEntry,
    Profile,
    load_or_new,
    load_profile,
    save_profile,
    upgrade_legacy,
)
from sparring.session import GameSession

T0 = "2026-01-02T03:04:05+00:00"


class Learner(Player):
    """An adaptive stand-in: counts games, keeps an Elo estimate, checks its state's shape."""

    def __init__(self, name: str = "L") -> None:
        super().__init__(name, 0)
        self.games = 0
        self.elo = 1500.0

    def select_move(self, game: Game, state: State) -> int:
        return int(game.legal_moves(state)[0])

    def game_over(self, game: Game, final_state: State, score: float) -> None:
        self.games += 1
        self.elo += 100.0 * (score - 0.5)

    def save_state(self) -> PlayerState | None:
        return {"games": self.games, "opponent_elo": self.elo}

    def restore_state(self, data: PlayerState | None) -> None:
        if not isinstance(data, dict) or set(data) != {"games", "opponent_elo"}:
            raise ValueError(f"expected games and opponent_elo, got {data!r}")
        self.games = int(data["games"])  # type: ignore[arg-type]
        self.elo = float(data["opponent_elo"])  # type: ignore[arg-type]


def _finished(learner: Player) -> GameSession:
    game = get_game("tictactoe")
    session = GameSession(game, (RandomPlayer("R", 3), learner))
    session.play_out()
    return session


def _full_profile() -> Profile:
    profile = Profile.new("ann", id="p1", now=T0)
    learner = Learner()
    session = _finished(learner)
    profile.finish_adaptive_game(session, 0, "stub:sims=4", learner, now=T0)
    profile.add_estimate("go", "3d", "se-inf:rank", now=T0)
    return profile


def test_a_profile_round_trips_through_json_exactly() -> None:
    profile = _full_profile()
    data = json.loads(json.dumps(profile.to_json()))
    assert data["identity"] == {"id": "p1", "display_name": "ann", "created": T0}
    (entry,) = data["adaptive"]
    assert (entry["game"], entry["kind"], entry["spec"]) == ("tictactoe", "stub", "stub:sims=4")
    (game,) = data["history"]
    assert game["opponent"] == {"spec": "stub:sims=4", "settings": None, "seed": None}
    assert game["side"] == 0 and game["result"] in (0.0, 0.5, 1.0) and game["date"] == T0
    assert [e["kind"] for e in data["estimates"]] == [OPPONENT_ELO_ESTIMATE, "se-inf:rank"]
    assert Profile.from_json(data).to_json() == profile.to_json()


def test_adaptive_state_is_keyed_by_game_and_kind_not_by_the_spec() -> None:
    profile = Profile.new("ann", now=T0)
    learner = Learner()
    _finished(learner)
    profile.keep_adaptive(get_game("tictactoe"), "stub:sims=4", learner, now=T0)
    again = Learner()
    entry = profile.restore_adaptive(again, get_game("tictactoe"), "stub:sims=400,name=X")
    assert entry is not None and again.games == 1 and again.elo == learner.elo
    assert profile.restore_adaptive(Learner(), get_game("connect4"), "stub") is None
    assert profile.restore_adaptive(Learner(), get_game("tictactoe"), "other") is None
    profile.keep_adaptive(get_game("tictactoe"), "stub:sims=8", again, now=T0)
    assert [e.spec for e in profile.adaptive] == ["stub:sims=8"]  # replaced, not added


def test_a_state_that_does_not_fit_the_new_settings_is_named() -> None:
    profile = Profile.new(now=T0)
    profile.adaptive.append(AdaptiveEntry("tictactoe", "stub", "stub:mode=a", None, {"z": 1.0}, T0))
    with pytest.raises(IncompatibleError, match="kept by 'stub:mode=a' and does not fit 'stub'"):
        profile.restore_adaptive(Learner(), get_game("tictactoe"), "stub")


def test_legacy_profiles_are_upgraded(tmp_path: Path) -> None:
    path = tmp_path / "bob.json"
    state = {"games": 3, "opponent_elo": 1234.0}
    legacy = {
        "format": "sparring-adaptive-profile",
        "version": 1,
        "game": "connect4",
        "spec": "dsa:sims=4,mode=bayes",
        "state": state,
    }
    path.write_text(json.dumps(legacy))
    profile = load_profile(path)
    assert profile.identity.display_name == "bob" and len(profile.identity.id) == 32
    (entry,) = profile.adaptive
    assert (entry.game, entry.kind, entry.spec, entry.state) == (
        "connect4",
        "dsa",
        "dsa:sims=4,mode=bayes",
        state,
    )
    assert profile.history == [] and profile.estimates == []
    save_profile(profile, path)
    assert json.loads(path.read_text())["format"] == "sparring.profile"
    with pytest.raises(IncompatibleError, match="adaptive profile version 2"):
        upgrade_legacy({**legacy, "version": 2})


@pytest.mark.parametrize(
    ("change", "error", "needle", "key"),
    [
        (lambda d: d.update(extra=1), BadValueError, "unknown key 'extra'", "profile.extra"),
        (
            lambda d: d["identity"].update(nick="x"),
            BadValueError,
            "identity has an unknown key 'nick'",
            "identity.nick",
        ),
        (
            lambda d: d["identity"].update(created="yesterday"),
            BadValueError,
            "'yesterday' is not an ISO 8601 time",
            "identity.created",
        ),
        (
            lambda d: d["history"][0].update(result=0.3),
            BadValueError,
            "result must be 0, 0.5 or 1, not 0.3",
            None,
        ),
        (
            lambda d: d["history"][0].pop("moves"),
            BadValueError,
            "history\\[0\\] lacks 'moves'",
            "history[0].moves",
        ),
        (
            lambda d: d["adaptive"][0].update(state=[1]),
            BadValueError,
            "adaptive\\[0\\].state must be an object or null",
            "adaptive[0].state",
        ),
        (
            lambda d: d["adaptive"].append(dict(d["adaptive"][0])),
            BadValueError,
            "two adaptive entries for stub in tictactoe",
            "adaptive",
        ),
        (lambda d: d.update(estimates={}), BadValueError, "estimates must be a list", "estimates"),
        (lambda d: d.update(version=2), IncompatibleError, "profile version 2 is not", None),
        (lambda d: d.update(format="x"), IncompatibleError, "not a sparring profile", None),
    ],
)
def test_loading_is_strict_and_names_the_field(
    change: Any, error: type[Exception], needle: str, key: str | None
) -> None:
    data = json.loads(json.dumps(_full_profile().to_json()))
    change(data)
    with pytest.raises(error, match=needle) as err:
        Profile.from_json(data)
    if key is not None:
        assert getattr(err.value, "key", None) == key


def test_files_that_cannot_be_read_are_named(tmp_path: Path) -> None:
    with pytest.raises(MissingResourceError, match="cannot be read"):
        load_profile(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(BadValueError, match="is not JSON"):
        load_profile(bad)
    profile, existed = load_or_new(tmp_path / "new.json")
    assert not existed and profile.identity.display_name == "new"
    assert not (tmp_path / "new.json").exists()  # nothing written until saved


def test_writes_are_atomic(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "me.json"
    profile = _full_profile()
    save_profile(profile, path)
    before = path.read_text()
    assert load_profile(path).to_json() == profile.to_json()
    with pytest.raises(BadValueError, match="finite number, not nan"):
        profile.add_estimate("go", float("nan"), "broken", now=T0)
    profile.add_estimate("go", 1.0, "broken", now=T0)
    profile.estimates[-1] = type(profile.estimates[-1])(T0, "go", object(), "x")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        save_profile(profile, path)  # fails while writing the temporary file
    assert path.read_text() == before  # the old profile is intact
    assert sorted(p.name for p in path.parent.iterdir()) == ["me.json"]  # no temporary left


def test_a_game_goes_into_the_history_only_when_it_is_over() -> None:
    profile = Profile.new(now=T0)
    game = get_game("connect4")
    session = GameSession(game, (None, RandomPlayer("R", 1)))
    with pytest.raises(BadValueError, match="only a finished game"):
        profile.record_game(session, 0)
    session.resign(0)
    entry = profile.record_game(session, 0, now=T0)
    assert (entry.result, entry.moves, entry.game, entry.opponent["spec"]) == (
        0.0,
        0,
        "connect4",
        "R",
    )
    go = GameSession(get_game("go", size=9, komi=6.5), (None, RandomPlayer("R", 1)))
    go.resign(1)
    assert profile.record_game(go, 0, now=T0).game_params == {"size": 9, "komi": 6.5}


def test_play_with_a_profile_adds_the_game_to_its_history(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from sparring.cli import app

    path = tmp_path / "ann.json"
    args = ["play", "tictactoe", "--opponent", "random", "--seed", "3", "--profile", str(path)]
    first = CliRunner().invoke(app, args, input="resign\n")
    assert first.exit_code == 0, first.output
    assert "game added to the profile" in first.output
    second = CliRunner().invoke(app, [*args, "--second"], input="resign\n")
    assert second.exit_code == 0, second.output
    profile = load_profile(path)
    assert profile.identity.display_name == "ann" and profile.adaptive == []
    assert [(g.game, g.side, g.result, g.moves) for g in profile.history] == [
        ("tictactoe", 0, 0.0, 0),
        ("tictactoe", 1, 0.0, 1),  # the random player moved first, then the person resigned
    ]
    assert profile.history[0].opponent["settings"] == {"kind": "random", "name": "Random"}
    path.write_text("{}")
    broken = CliRunner().invoke(app, args, input="resign\n")
    assert isinstance(broken.exception, IncompatibleError)  # the CLI's main prints it, exit 2
    assert "not a sparring profile (format None" in str(broken.exception)
    assert "your move>" not in broken.output  # found before the game starts
