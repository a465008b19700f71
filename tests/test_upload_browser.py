"""The estimate from uploaded games and the review by rank in the page, in a real headless
Chromium (the server and browser of tests/test_service_browser.py: ``sparring serve`` on a
loopback port, Debian's Chromium through Playwright, skipped with the reason when missing).

A broken file beside a good one is refused with its file and line and nothing is stored; the
good file of 12 Go games alone shows the server's estimate with its distribution over the
ranks, the games and moves it rests on, the level offered (which starts a game) and the
review of one of its games."""

from __future__ import annotations

from typing import Any

from test_service_browser import Api, _new_player, browser, page, server  # noqa: F401
from upload_games import go_file

GOOD, COUNTS = go_file(12, 30, seed=300)
BROKEN = "(;GM[1]SZ[19]PB[alice]PW[x];B[pd];W[dd])\n\n(;GM[1]SZ[19]PB[alice]PW[y];B[pd];W[pd])\n"


def _files(page: Any, files: dict[str, str]) -> None:  # noqa: F811
    page.set_input_files(
        "#upload-files",
        [
            {"name": name, "mimeType": "application/x-go-sgf", "buffer": text.encode()}
            for name, text in files.items()
        ],
    )
    page.click("#upload-submit")


def test_an_upload_shows_the_estimate_the_level_and_a_review(page: Any, server: str) -> None:  # noqa: F811
    api = Api(server)
    token = _new_player(page, "Alice")
    page.click("#nav-upload")
    page.wait_for_selector("#upload-section:not([hidden])")
    _files(page, {"games.sgf": GOOD, "broken.sgf": BROKEN})
    page.wait_for_selector("#upload-error:not([hidden])")
    assert page.text_content("#upload-error") == (
        "broken.sgf:3: move 2 (W Q16) is illegal; nothing of this upload was used"
    )
    assert not page.is_visible("#upload-result")
    profile = api.call("GET", "/api/me/profile", token=token)
    assert (profile["games"], profile["estimates"]) == ([], [])

    _files(page, {"games.sgf": GOOD})
    page.wait_for_selector("#upload-result:not([hidden])")
    assert not page.is_visible("#upload-error")
    found = api.call(
        "POST", "/api/estimate", {"files": [{"name": "games.sgf", "text": GOOD}]}, token=token
    )
    assert page.text_content("#upload-result .headline") == (
        f"Go 19x19: estimated rank {found['estimate']}"
    )
    text = page.text_content("#upload-result")
    assert f"From 12 games and {sum(COUNTS)} of alice's moves (the one name in every game)" in text
    rows = page.locator("table.dist tbody tr")
    assert rows.count() == 11
    shown = [
        (rows.nth(i).locator("th").text_content(), rows.nth(i).locator(".share").text_content())
        for i in range(11)
    ]
    assert shown == [(d["rank"], f"{100 * d['share']:.0f}%") for d in found["distribution"]]
    assert page.text_content("table.dist tr.estimate th") == found["estimate"]
    assert page.text_content(".offer p") == f"The level offered: {found['offer']['label']}."
    assert page.text_content(".offer .hint.warn") == found["offer"]["notice"]
    assert page.locator(".upload-games li").count() == 12

    page.click(".upload-games button[data-index='3']")
    page.select_option("#upload-review .review-rank", "2d")
    page.select_option("#upload-review .review-steps", "2")
    page.click("#upload-review .review-run")
    page.wait_for_selector("#upload-review .review-moves")
    review = api.call(
        "POST",
        "/api/review",
        {"files": [{"name": "games.sgf", "text": GOOD}], "game": 3, "rank": "2d", "stronger": 2},
        token=token,
    )
    assert review["stronger_rank"] == "4d" and review["marked"]
    heads = page.locator("#upload-review .review-head strong")
    assert [heads.nth(i).text_content() for i in range(heads.count())] == [
        f"{m['number']}. {m['text']}" for m in review["marked"]
    ]

    page.click("#offer-play")
    page.wait_for_selector("#game-section:not([hidden])")
    page.wait_for_function("location.hash.startsWith('#game/')")
    assert page.text_content("#game-opponent") == f"against {found['offer']['label']}"


def test_a_finished_chess_game_has_its_review_beside_the_record(page: Any, server: str) -> None:  # noqa: F811
    api = Api(server)
    token = _new_player(page, "Bo")
    body = {"game": "chess", "opponent": {"mode": "settings", "settings": {"kind": "random"}}}
    state = api.call("POST", "/api/games", body | {"side": "first"}, token=token)
    game = f"/api/games/{state['id']}"
    for move in ("e4", "Nf3", "Bc4", "d3"):
        while state["ai_thinking"] or state["to_move"] != state["human_side"]:
            state = api.call("GET", f"{game}?wait=5", token=token)
        chosen = next((m["text"] for m in state["legal"] if m["san"] == move), None)
        move_body = {"move": chosen or state["legal"][0]["text"], "ply": state["ply"]}
        state = api.call("POST", f"{game}/moves", move_body, token=token)
    while state["ai_thinking"]:
        state = api.call("GET", f"{game}?wait=5", token=token)
    api.call("POST", f"{game}/resign", {"ply": state["ply"]}, token=token)
    page.goto(f"{server}/#game/{state['id']}")
    page.wait_for_selector("#review-panel:not([hidden]) .review-run")
    # no estimate yet, and no level (a random mover): the band of the default level, the
    # middle of the Elo levels (842-1991: 1417)
    assert page.input_value("#review-panel .review-rank") == "1400-1600"
    page.select_option("#review-panel .review-rank", "1200-1400")
    page.click("#review-panel .review-run")
    page.wait_for_selector("#review-panel .review-moves, #review-panel .empty")
    review = api.call("POST", f"{game}/review", {"rank": "1200-1400", "stronger": 3}, token=token)
    assert review["stronger_rank"] == "1800-2000"
    heads = page.locator("#review-panel .review-head strong")
    assert [heads.nth(i).text_content() for i in range(heads.count())] == [
        f"{m['number']}. {m['text']}" for m in review["marked"]
    ]
    marked = page.locator("#move-list li.review-mark")
    assert marked.count() == len(review["marked"])
    plies = page.evaluate(
        "[...document.querySelectorAll('#move-list li')]"
        ".flatMap((li, i) => li.classList.contains('review-mark') ? [i] : [])"
    )
    assert plies == sorted(m["ply"] for m in review["marked"])
