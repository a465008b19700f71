"""The page's in-game features in a real headless Chromium (Debian's ``/usr/bin/chromium``
through Playwright, as in test_service_browser.py, whose server and browser fixtures these
tests share): Go's captures and area count."""

from __future__ import annotations

from typing import Any

from test_service_browser import (  # noqa: F401 - fixtures
    TINY_AI,
    Api,
    _new_player,
    _wait_my_turn_or_end,
    _wait_plies,
    browser,
    page,
    server,
)


def test_go_shows_the_captures_and_the_area_count(page: Any, server: str) -> None:  # noqa: F811
    api = Api(server)
    token = _new_player(page, "Gus")
    game = api.call(
        "POST", "/api/games", {"game": "go9", "opponent": TINY_AI, "side": "second"}, token
    )
    page.goto(f"{server}/#game/{game['id']}")
    assert not _wait_my_turn_or_end(page)
    page.locator("#board [data-move]").first.click()
    _wait_plies(page, 3)
    assert not _wait_my_turn_or_end(page)
    state = api.call("GET", f"/api/games/{game['id']}", token=token)
    score = state["score"]
    rows = page.eval_on_selector_all(
        "#go-score tbody tr", "rs => rs.map(r => [...r.children].map(c => c.textContent))"
    )
    assert rows == [
        ["Black (AI)", str(score["captures"][0]), str(score["area"][0])],
        ["White (you)", str(score["captures"][1]), f"{score['area'][1]} + 7.5 komi"],
    ]
    margin = score["margin"]
    leader = "Black" if margin > 0 else "White"
    assert page.text_content("#go-score .score-lead") == (
        f"{leader} is ahead by {abs(margin):g} by area."
    )
    assert page.text_content("#go-score caption") == "The count now"
    c4 = api.call(
        "POST", "/api/games", {"game": "connect4", "opponent": TINY_AI, "side": "first"}, token
    )
    page.goto(f"{server}/#game/{c4['id']}")
    page.wait_for_selector("#board .hit")
    assert not page.is_visible("#go-score")
