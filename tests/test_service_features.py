"""The service's in-game features against a real server (uvicorn on a loopback port, one
worker process): Go's captures and area count in the state."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from service_server import UCT20, Client, thread_server
from sparring.games import get_game
from sparring.service import ServiceSettings
from sparring.service.views import go_score
from sparring.session import GameSession

AI_TIME = 0.4


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    data = tmp_path_factory.mktemp("service-features")
    with thread_server(ServiceSettings(data_dir=data, workers=1, ai_time=AI_TIME)) as base:
        yield base, data


@pytest.fixture(scope="module")
def base(server: tuple[str, Path]) -> str:
    return server[0]


def test_a_go_state_has_the_captures_and_the_area_count(base: str) -> None:
    ann = Client(base)
    state = ann.new_game("go9", UCT20)
    assert state["score"] == {"captures": [0, 0], "area": [0, 0], "komi": 7.5, "margin": -7.5}
    state = ann.settled(ann.move(state, "E5").json()["id"])
    assert state["ply"] == 2
    game = get_game("go9")
    session = GameSession(game)
    for m in state["moves"]:
        session.play(m["move"])
    assert state["score"] == go_score(game, session.state)
    black, white = game.area(session.state)
    assert state["score"]["area"] == [black, white] and black >= 1 and white + black >= 2
    assert ann.new_game("connect4", UCT20)["score"] is None
