"""The page's in-game features in a real headless Chromium (Debian's ``/usr/bin/chromium``
through Playwright, as in test_service_browser.py, whose server and browser fixtures these
tests share): Go's captures and area count; hints on request (chosen when a game starts, not
offered against an adaptive opponent); a sign-in link that takes a player to another device
(a second browser context); clocks; the zoomed Go 19x19 board of a phone (its coordinates kept
in view, a finished game opened on its last stone); the review by rank's default rank."""

from __future__ import annotations

import copy
import json
import time
from typing import Any

import chess

from sparring.games.chess import action_to_move
from test_service_browser import (  # noqa: F401 - fixtures
    CONTRAST,
    STEP_TIMEOUT_MS,
    TINY_AI,
    Api,
    _game_id,
    _new_player,
    _phone,
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


def _rows(tab: Any, selector: str) -> list[list[str]]:
    return list(
        tab.eval_on_selector_all(
            f"{selector} tbody tr", "rs => rs.map(r => [...r.children].map(c => c.textContent))"
        )
    )


def _score(q: float | None) -> str:
    return "–" if q is None else f"{round(100 * (q + 1) / 2)}%"


def test_hints_on_request_in_a_chess_game(page: Any, server: str) -> None:  # noqa: F811
    api = Api(server)
    token = _new_player(page, "Hana")
    # Against an adaptive opponent the box is off and says why; elsewhere it is off until
    # ticked.
    page.select_option("#game-select", "connect4")
    page.check("#mode-adaptive")
    assert page.is_disabled("#hints-check") and not page.is_checked("#hints-check")
    assert page.text_content("#hints-note").startswith("Not against an adaptive opponent")
    page.check("#mode-elo")
    assert page.is_enabled("#hints-check") and not page.is_checked("#hints-check")
    bodies: list[Any] = []
    page.on(
        "request",
        lambda r: (
            bodies.append(json.loads(r.post_data or "{}"))
            if r.method == "POST" and r.url.endswith("/api/games")
            else None
        ),
    )
    page.select_option("#game-select", "chess")
    page.check("#mode-elo")
    page.check("#hints-check")
    page.select_option("#side-select", "first")
    page.click("#start-game")
    game_id = _game_id(page)
    assert bodies[0]["hints"] is True and bodies[0]["game"] == "chess"
    assert not _wait_my_turn_or_end(page)
    assert page.is_visible("#assist") and page.is_disabled("#ai-view-button")  # no AI move yet
    page.click("#hint-button")
    page.wait_for_selector("#assist-output table")
    state = api.call("GET", f"/api/games/{game_id}", token=token)
    hint = api.call("POST", f"/api/games/{game_id}/hint", {"ply": 0}, token)  # the same one
    assert state["hints"]["used"] == 1
    assert page.text_content("#assist-output .assist-head") == (
        f"Hint: the AI would play {hint['move']['text']}."
    )
    assert _rows(page, "#assist-output") == [
        [f"{i + 1}. {c['text']}", f"{round(100 * c['share'])}%", _score(c["q"])]
        for i, c in enumerate(hint["candidates"])
    ]
    assert chess.Board().parse_san(hint["candidates"][0]["text"])  # SAN of the position
    # Play a move: the hint goes (it was for the position before); the AI's view comes.
    page.click("#board [data-square='e2']")
    page.click("#board [data-square='e4']")
    _wait_plies(page, 2)
    assert not _wait_my_turn_or_end(page)
    assert page.locator("#assist-output *").count() == 0
    page.click("#ai-view-button")
    state = api.call("GET", f"/api/games/{game_id}", token=token)
    ai = state["moves"][1]
    a = ai["analysis"]
    order = sorted(range(len(a["moves"])), key=lambda i: -a["visits"][i])[:5]
    if a["move"] not in [a["moves"][i] for i in order]:
        order.append(a["moves"].index(a["move"]))
    board = chess.Board()
    board.push_uci("e2e4")
    total = sum(a["visits"])
    assert _rows(page, "#assist-output") == [
        [
            board.san(action_to_move(a["moves"][i])),
            f"{round(100 * a['visits'][i] / total)}%",
            _score(a["q"][i]),
        ]
        for i in order
    ]
    played = page.locator("#assist-output tr.played td").first.text_content()
    assert played == ai["san"]
    assert (
        page.text_content("#assist-output .assist-head") == f"The AI played {ai['san']} (move 2)."
    )


def test_a_hint_numbers_its_moves_on_a_go_board(page: Any, server: str) -> None:  # noqa: F811
    api = Api(server)
    token = _new_player(page, "Ito")
    body = {"game": "go9", "opponent": TINY_AI, "side": "first", "hints": True}
    game = api.call("POST", "/api/games", body, token)
    page.goto(f"{server}/#game/{game['id']}")
    assert not _wait_my_turn_or_end(page)
    page.click("#hint-button")
    page.wait_for_selector("#board .hint-mark")
    hint = api.call("POST", f"/api/games/{game['id']}/hint", {"ply": 0}, token)
    marks = page.eval_on_selector_all(
        "#board .hint-mark",
        """ms => ms.map(m => {
            const c = m.querySelector('circle');
            return [m.dataset.hint, Number(c.getAttribute('cx')), Number(c.getAttribute('cy'))];
        })""",
    )
    centres = page.eval_on_selector_all(
        "#board .hit",
        """hs => Object.fromEntries(hs.map(h => [h.dataset.move,
            [Number(h.getAttribute('x')) + 20, Number(h.getAttribute('y')) + 20]]))""",
    )
    assert marks == [
        [str(i + 1), *centres[str(c["move"])]] for i, c in enumerate(hint["candidates"])
    ]
    # the marks stay through a redraw (a resize) and go with the move
    page.set_viewport_size({"width": 1000, "height": 900})
    page.wait_for_timeout(400)
    assert page.locator("#board .hint-mark").count() == 5
    page.locator(f"#board [data-move='{hint['candidates'][0]['move']}']").click()
    _wait_plies(page, 2)
    assert page.locator("#board .hint-mark").count() == 0


def _device(browser: Any, server: str, width: int = 1200) -> Any:  # noqa: F811 - not fixtures
    """A page in a browser context of its own: another device."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    tab = context.new_page()
    tab.set_default_timeout(STEP_TIMEOUT_MS)
    return tab


def test_a_signin_link_takes_the_player_to_another_device(
    page: Any,  # noqa: F811
    browser: Any,  # noqa: F811
    server: str,  # noqa: F811
) -> None:
    api = Api(server)
    token = _new_player(page, "Jo")
    me = api.call("GET", "/api/me", token=token)
    game = api.call(
        "POST", "/api/games", {"game": "connect4", "opponent": TINY_AI, "side": "first"}, token
    )
    page.click("#nav-profile")
    page.click("#signin-make")
    page.wait_for_selector("#signin-out:not([hidden])")
    link = page.input_value("#signin-url")
    assert link.startswith(f"{server}/#signin/") and len(link) > len(server) + 28
    assert "It works once, until" in page.text_content("#signin-expiry")
    phone = _device(browser, server, 390)
    try:
        phone.goto(link)
        phone.wait_for_selector("body[data-ready='1']")
        phone.wait_for_selector("#new-section:not([hidden])")
        assert phone.text_content("#player-label") == "Jo"
        assert phone.evaluate("location.hash") == "#new"  # the used code leaves the address
        other = phone.evaluate("localStorage.getItem('sparring.token')")
        assert isinstance(other, str) and other != token
        assert api.call("GET", "/api/me", token=other)["id"] == me["id"]
        phone.wait_for_selector(f"#my-games [data-game-id='{game['id']}']")  # Jo's game
        # the link works once: a third device is refused with the server's sentence
        third = _device(browser, server)
        try:
            third.goto(link)
            third.wait_for_selector("body[data-ready='1']")
            third.wait_for_selector("#message:not([hidden])")
            assert third.text_content("#message").startswith("this sign-in code is not valid")
            assert third.is_visible("#player-section")
            assert third.evaluate("localStorage.getItem('sparring.token')") is None
        finally:
            third.context.close()
    finally:
        phone.context.close()
    # A device that plays as someone else asks first; the link pasted works too.
    page.click("#signin-make")
    page.wait_for_function(f"document.getElementById('signin-url').value !== {link!r}")
    second = page.input_value("#signin-url")
    laptop = _device(browser, server)
    try:
        laptop.goto(server + "/")
        laptop.wait_for_selector("body[data-ready='1']")
        _new_player(laptop, "Kai")
        laptop.goto(second)
        laptop.wait_for_selector("#signin-section:not([hidden])")
        assert laptop.text_content("#signin-keep") == "Keep playing as Kai"
        assert not laptop.is_visible("#new-section")
        laptop.click("#signin-accept")
        laptop.wait_for_selector("#new-section:not([hidden])")
        assert laptop.text_content("#player-label") == "Jo"
    finally:
        laptop.context.close()
    page.click("#signin-make")
    page.wait_for_function(f"document.getElementById('signin-url').value !== {second!r}")
    third_link = page.input_value("#signin-url")
    fresh = _device(browser, server)
    try:
        fresh.goto(server + "/")
        fresh.wait_for_selector("body[data-ready='1']")
        fresh.fill("#signin-paste", third_link)
        fresh.click("#signin-form button[type=submit]")
        fresh.wait_for_selector("#new-section:not([hidden])")
        assert fresh.text_content("#player-label") == "Jo"
    finally:
        fresh.context.close()


def test_clocks_count_down_and_a_game_is_lost_on_time(page: Any, server: str) -> None:  # noqa: F811
    api = Api(server)
    token = _new_player(page, "Lou")
    bodies: list[Any] = []
    page.on(
        "request",
        lambda r: (
            bodies.append(json.loads(r.post_data or "{}"))
            if r.method == "POST" and r.url.endswith("/api/games")
            else None
        ),
    )
    page.select_option("#game-select", "othello6")
    page.select_option("#clock-select", "300+3")
    page.select_option("#side-select", "first")
    page.click("#start-game")
    game_id = _game_id(page)
    assert bodies[0]["clock"] == {"initial": 300, "increment": 3}
    assert not _wait_my_turn_or_end(page)
    sides = next(g for g in api.call("GET", "/api/catalog")["games"] if g["name"] == "othello6")
    you, ai = sides["sides"]
    assert page.text_content("#clock-you .clock-who") == f"You ({you})"
    assert page.text_content("#clock-ai .clock-who") == f"AI ({ai})"
    assert page.text_content("#clock-control") == "5 min + 3 s a move"
    assert "running" in page.get_attribute("#clock-you", "class")
    assert page.text_content("#clock-ai .clock-time") == "5:00"  # not running
    first = page.text_content("#clock-you .clock-time")
    assert first in ("5:00", "4:59", "4:58")
    page.wait_for_function(
        f"document.querySelector('#clock-you .clock-time').textContent !== {first!r}"
    )
    # The person's time runs out (a state with 1.5 s left, as the server would send it):
    # at zero the page asks the server, which answers with the game lost on time.
    state = api.call("GET", f"/api/games/{game_id}", token=token)
    running = copy.deepcopy(state)
    running["clock"]["left"][0] = 1500
    lost = copy.deepcopy(state)
    lost.update(status="over", result=0.0, result_text="AI wins on time", legal=[])
    lost["clock"].update(left=[0, state["clock"]["left"][1]], running=None, flagged=0)
    seen: list[float] = []

    def answer(route: Any) -> None:
        seen.append(time.monotonic())
        route.fulfill(json=running if len(seen) == 1 else lost)

    page.route(f"**/api/games/{game_id}", answer)
    page.reload()
    page.wait_for_selector("#result:not([hidden])")
    assert len(seen) == 2 and seen[1] - seen[0] >= 1.3
    assert page.text_content("#result") == "AI wins on time"
    assert page.text_content("#clock-you .clock-time") == "0:00.0"
    assert "flagged" in page.get_attribute("#clock-you", "class")
    assert page.text_content("#clock-control") == "5 min + 3 s a move · your time ran out"


# The zoomed board's rulers seen in its frame: the labels whose centres lie in the frame beyond
# the other ruler, how far each lies from its column's (row's) points, and where the rulers sit
# against the frame's inner edges.
RULERS = """() => {
  const host = document.getElementById("board");
  const box = host.getBoundingClientRect();
  const [left, top] = [box.left + host.clientLeft, box.top + host.clientTop];
  const [right, bottom] = [left + host.clientWidth, top + host.clientHeight];
  const mid = (e) => {
    const b = e.getBoundingClientRect();
    return [(b.left + b.right) / 2, (b.top + b.bottom) / 2];
  };
  const topRuler = host.querySelector(".ruler-top").getBoundingClientRect();
  const leftRuler = host.querySelector(".ruler-left").getBoundingClientRect();
  const seen = { cols: [], rows: [], off: 0 };
  for (const s of host.querySelectorAll(".ruler-top span")) {
    const [x] = mid(s);
    if (x <= left + leftRuler.width || x >= right) continue;
    seen.cols.push(s.textContent);
    const point = host.querySelector(`[data-text='${s.textContent}1']`);
    seen.off = Math.max(seen.off, Math.abs(mid(point)[0] - x));
  }
  for (const s of host.querySelectorAll(".ruler-left span")) {
    const [, y] = mid(s);
    if (y <= top + topRuler.height || y >= bottom) continue;
    seen.rows.push(s.textContent);
    const point = host.querySelector(`[data-text='A${s.textContent}']`);
    seen.off = Math.max(seen.off, Math.abs(mid(point)[1] - y));
  }
  seen.stuck = [Math.round(topRuler.top - top), Math.round(leftRuler.left - left)];
  return seen;
}"""


def test_a_zoomed_go_board_keeps_its_coordinates_in_view(browser: Any, server: str) -> None:  # noqa: F811
    """On a phone the zoomed Go 19x19 board scrolls in its frame; its letters and numbers,
    drawn in the board's margins, once scrolled out of view with it (rows 18..2 and no letter
    shown).  Rulers along the frame's top and left edges stay, each label over its points,
    readable in light and dark mode; the whole board has none."""
    api = Api(server)
    me = api.call("POST", "/api/players", {"name": "Rue"})
    body = {"game": "go", "opponent": TINY_AI, "side": "first"}
    game = api.call("POST", "/api/games", body, me["token"])
    tab = _phone(browser, server, me["token"], {"id": me["id"], "name": me["name"]})
    try:
        tab.goto(f"{server}/#game/{game['id']}")
        tab.wait_for_selector("#board .hit")
        tab.eval_on_selector("#board", "h => { h.scrollLeft = 1e4; h.scrollTop = 1e4; }")
        seen = tab.evaluate(RULERS)
        assert seen["cols"] == list("LMNOPQRST")
        assert seen["rows"] == [str(n) for n in range(17, 0, -1)]
        assert seen["stuck"] == [0, 0] and seen["off"] < 0.5, seen
        tab.eval_on_selector("#board", "h => { h.scrollLeft = 0; h.scrollTop = 0; }")
        seen = tab.evaluate(RULERS)
        assert seen["cols"] == list("ABCDEFGHJK")
        assert seen["rows"] == [str(n) for n in range(19, 2, -1)]
        for scheme in ("light", "dark"):
            tab.emulate_media(color_scheme=scheme)
            for ruler in (".ruler-top span", ".ruler-left span"):
                assert tab.evaluate(CONTRAST, f"#board {ruler}") >= 4.5, (scheme, ruler)
        tab.click("#zoom-button")
        assert tab.locator("#board .ruler").count() == 0
    finally:
        tab.context.close()


def _over_by_passes(state: dict[str, Any], stones: list[str]) -> dict[str, Any]:
    """A new Go 19x19 game's ``state`` as after ``stones`` (Black first) and two passes."""
    n = 19
    cells = [list(row) for row in state["board"]["cells"]]
    moves = []
    for ply, text in enumerate([*stones, "pass", "pass"]):
        side = ply % 2
        move = n * n
        if text != "pass":
            r, c = n - int(text[1:]), "ABCDEFGHJKLMNOPQRST".index(text[0])
            cells[r][c] = "xo"[side]
            move = r * n + c
        by = "human" if side == state["human_side"] else "ai"
        moves.append({"ply": ply, "side": side, "by": by, "move": move, "text": text})
    return {
        **state,
        **{"status": "over", "result": 1.0, "result_text": "Black wins by 10.5", "legal": []},
        "ply": len(moves),
        "moves": [{**m, "analysis": None} for m in moves],
        "last_move": moves[-1],
        "board": {**state["board"], "cells": ["".join(row) for row in cells]},
    }


def test_a_finished_go_game_opens_zoomed_on_its_last_stone(browser: Any, server: str) -> None:  # noqa: F811
    """A finished Go game ends with two passes, which are on no point: the zoomed board once
    opened on its centre, the last stones out of view.  It opens on the last stone played.
    (The finished game is given to the page, as the server would send it.)"""
    api = Api(server)
    me = api.call("POST", "/api/players", {"name": "Sol"})
    body = {"game": "go", "opponent": TINY_AI, "side": "first"}
    game = api.call("POST", "/api/games", body, me["token"])
    state = api.call("GET", f"/api/games/{game['id']}", token=me["token"])
    over = _over_by_passes(state, ["Q16", "D4", "S2"])
    tab = _phone(browser, server, me["token"], {"id": me["id"], "name": me["name"]})
    try:
        tab.route(f"**/api/games/{game['id']}", lambda route: route.fulfill(json=over))
        tab.goto(f"{server}/#game/{game['id']}")
        tab.wait_for_selector("#result:not([hidden])")
        assert tab.get_attribute("#zoom-button", "aria-pressed") == "true"
        inside = tab.evaluate(
            """() => {
            const host = document.getElementById("board");
            const frame = host.getBoundingClientRect();
            const band = host.querySelector(".ruler-top")?.getBoundingClientRect().height ?? 0;
            const stone = host.querySelector("circle.stone[cx='722'][cy='722']");  // S2
            const b = stone.getBoundingClientRect();
            return b.left >= frame.left + band && b.right <= frame.left + host.clientWidth
                && b.top >= frame.top + band && b.bottom <= frame.top + host.clientHeight;
        }"""
        )
        assert inside
    finally:
        tab.context.close()


def test_the_review_defaults_to_ranks_near_the_players_level(page: Any, server: str) -> None:  # noqa: F811
    """The review's rank once defaulted to the middle of its network's ranks (4d) for a game
    against the 15 kyu AI.  It starts at the rank nearest the level of the game's AI (3-5k, the
    weakest of 3-5k..9d; chess: Elo 1100 in 1000-1200) and compares it with the rank nearest a
    few (3) ranks or bands above, and says what it compares."""
    api = Api(server)
    token = _new_player(page, "Tam")
    games = {}
    for name, opponent in (("go", {"mode": "rank", "rank": "15k"}),
                           ("chess", {"mode": "elo", "elo": 1100})):  # fmt: skip
        game = api.call("POST", "/api/games", {"game": name, "opponent": opponent}, token)
        api.call("POST", f"/api/games/{game['id']}/resign", {"ply": 0}, token)
        games[name] = game["id"]
    sent: list[Any] = []

    def answer(route: Any) -> None:
        sent.append(json.loads(route.request.post_data or "{}"))
        route.fulfill(json={"game": "go", "moves": 0, "player": "Tam", "own_rank": "3-5k",
                            "stronger_rank": "1-2k", "network": "go-play", "notes": [],
                            "marked": [], "values": ""})  # fmt: skip

    page.route("**/api/games/*/review", answer)
    page.goto(f"{server}/#game/{games['go']}")
    page.wait_for_selector("#review-panel .review-rank")
    assert page.input_value("#review-panel .review-rank") == "3-5k"
    assert page.input_value("#review-panel .review-steps") == "1"
    assert page.text_content("#review-panel .review-why") == (
        "This game's AI played at 15 kyu, taken as your rank. The review's network knows "
        "ranks 3-5k to 9d: it starts at the nearest, 3-5k."
    )
    assert page.text_content("#review-panel .review-what") == (
        "Compared: 3-5k players (your rank here) with 1-2k players (1 rank stronger). "
        "Marked: your moves 1-2k players would most likely not have played."
    )
    page.click("#review-panel .review-run")
    page.wait_for_selector("#review-panel .review-out .empty")
    assert sent == [{"rank": "3-5k", "stronger": 1, "top": 5}]
    page.goto(f"{server}/#game/{games['chess']}")
    page.wait_for_selector("#review-panel option[value='1000-1200']", state="attached")
    assert page.input_value("#review-panel .review-rank") == "1000-1200"
    assert page.input_value("#review-panel .review-steps") == "3"
    assert page.text_content("#review-panel .review-what") == (
        "Compared: 1000-1200 players (your band here) with 1600-1800 players (3 bands "
        "stronger). Marked: your moves 1600-1800 players would most likely not have played."
    )
