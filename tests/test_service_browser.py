"""End-to-end tests of the page in a real headless Chromium.

A real ``sparring serve`` runs on a free loopback port with a temporary data folder; Playwright
for Python drives Debian's Chromium (``/usr/bin/chromium``, installed by scripts/install.sh; no
browser is ever downloaded).  Without Chromium or Playwright the tests are skipped with the
reason, except under ``SPARRING_CI=1`` where a missing browser is a failure.

Where a test is not about the opponent's level, the game is made through the API with a tiny
UCT opponent (20 simulations) and then opened and played in the page, to keep the tests short.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import pytest

from sparring.games.chess import action_to_move

CHROMIUM = Path(os.environ.get("SPARRING_CHROMIUM", "/usr/bin/chromium"))
TINY_AI = {"mode": "settings", "settings": {"kind": "uct", "sims": 20}}
STEP_TIMEOUT_MS = 60_000  # one AI move on a busy 2-core machine, with room to spare


def _missing_browser() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install -e '.[dev]')"
    if not CHROMIUM.is_file():
        return f"no Chromium at {CHROMIUM} (bash scripts/install.sh installs Debian's chromium)"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Api:
    """A small HTTP client of the service for checking what the page did."""

    def __init__(self, base: str) -> None:
        self.base = base

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A ``sparring serve`` on a free loopback port; its base URL."""
    why = _missing_browser()
    if why:
        if os.environ.get("SPARRING_CI") == "1":
            pytest.fail(f"SPARRING_CI=1 and the browser tests cannot run: {why}")
        pytest.skip(why)
    data = tmp_path_factory.mktemp("serve-data")
    port = _free_port()
    log = open(data / "server.log", "w")  # noqa: SIM115 - closed below
    command = [sys.executable, "-m", "sparring", "serve", "--host", "127.0.0.1",
               "--port", str(port), "--data", str(data), "--workers", "1"]  # fmt: skip
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                Api(base).call("GET", "/api/catalog")
                break
            except (urllib.error.URLError, ConnectionError, OSError):
                if process.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    text = (data / "server.log").read_text()[-3000:]
                    pytest.fail(f"sparring serve did not start (exit {process.poll()}):\n{text}")
                time.sleep(0.3)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@pytest.fixture(scope="module")
def browser(server: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    args = ["--no-sandbox"] if os.geteuid() == 0 else []
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=args, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser: Any, server: str) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.set_default_timeout(STEP_TIMEOUT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready='1']")
    yield page
    context.close()
    assert errors == [], f"script errors in the page: {errors}"


def _new_player(page: Any, name: str) -> str:
    """Create a player through the page's form; the token the page kept."""
    page.fill("#player-name", name)
    page.click("#player-form button[type=submit]")
    page.wait_for_selector("#new-section:not([hidden])")
    token = page.evaluate("localStorage.getItem('sparring.token')")
    assert isinstance(token, str) and token
    return token


def _game_id(page: Any) -> str:
    page.wait_for_selector("#game-section:not([hidden])")
    page.wait_for_function("location.hash.startsWith('#game/')")
    return str(page.evaluate("decodeURIComponent(location.hash.slice(6))"))


def _wait_plies(page: Any, n: int) -> None:
    """Wait until the move list shows at least ``n`` moves."""
    page.wait_for_function(f"document.querySelectorAll('#move-list li').length >= {n}")


def _wait_my_turn_or_end(page: Any) -> bool:
    """Wait until the board offers a move or the result shows; True when the game is over."""
    page.wait_for_selector("#board .hit, #result:not([hidden])")
    return bool(page.is_visible("#result"))


def test_connect4_at_a_chosen_elo_played_to_the_end(page: Any, server: str) -> None:
    api = Api(server)
    token = _new_player(page, "Cleo")
    catalog = api.call("GET", "/api/catalog")
    c4 = next(g for g in catalog["games"] if g["name"] == "connect4")
    low, high = c4["levels"]["elo"]["min"], c4["levels"]["elo"]["max"]
    page.select_option("#game-select", "connect4")
    page.check("#mode-elo")
    # Below the calibrated range the page says plainly where the AI will play.
    page.fill("#elo-number", str(int(low) - 200))
    assert f"will play at {round(low)}" in page.text_content("#elo-hint")
    page.fill("#elo-number", str(int(high) + 200))
    assert f"will play at {round(high)}" in page.text_content("#elo-hint")
    target = int(low) + 100
    page.fill("#elo-number", str(target))
    assert "will play at" not in page.text_content("#elo-hint")
    page.select_option("#side-select", "first")
    page.click("#start-game")
    game_id = _game_id(page)

    clicked: list[str] = []
    while not _wait_my_turn_or_end(page):
        hits = page.locator("#board [data-col]")
        # The leftmost open column: a simple, always-legal plan.
        text = hits.first.get_attribute("data-text")
        assert text is not None
        before = len(clicked)
        hits.first.click()
        clicked.append(text)
        _wait_plies(page, 2 * before + 1)
    shown = page.text_content("#result")
    stored = api.call("GET", f"/api/games/{game_id}", token=token)
    assert stored["status"] == "over"
    assert stored["result"] in (0.0, 0.5, 1.0)
    assert shown == stored["result_text"] and shown
    assert [m["text"] for m in stored["moves"] if m["by"] == "human"] == clicked
    assert page.locator("#move-list li").count() == stored["ply"] == len(stored["moves"])
    assert stored["opponent"]["settings"], "the stored opponent has its settings"
    ai_moves = [m for m in stored["moves"] if m["by"] == "ai"]
    strengths = [m["analysis"]["strength"] for m in ai_moves if m["analysis"]]
    assert strengths and all(s["elo_asked"] == target for s in strengths)
    # After the game: the record and what the AI thought at each of its moves.
    with page.expect_download() as download:
        page.click("#downloads button[data-format='moves']")
    record = Path(download.value.path()).read_text()
    request = urllib.request.Request(f"{server}/api/games/{game_id}/record?format=moves")
    request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=30) as response:
        assert record == response.read().decode()
    assert page.locator("#analysis .analysis-move").count() == len(ai_moves)
    page.click("#analysis-wrap summary")
    assert f"Elo asked {target}" in page.text_content("#analysis")
    games = api.call("GET", "/api/games", token=token)
    assert [g["id"] for g in games] == [game_id]


def test_adaptive_series_of_two_games_shows_the_estimate(page: Any, server: str) -> None:
    api = Api(server)
    token = _new_player(page, "Dara")
    for _ in range(2):
        page.goto(server + "/#new")
        page.wait_for_selector("#new-section:not([hidden])")
        page.select_option("#game-select", "connect4")
        page.check("#mode-adaptive")
        page.select_option("#adaptive-select", "bayes")
        page.select_option("#side-select", "first")
        page.click("#start-game")
        game_id = _game_id(page)
        assert not _wait_my_turn_or_end(page)
        page.locator("#board [data-col='3']").click()
        _wait_plies(page, 2)
        assert not _wait_my_turn_or_end(page)
        page.click("#resign-button")
        page.click("#resign-button")  # the second click confirms
        page.wait_for_selector("#result:not([hidden])")
        stored = api.call("GET", f"/api/games/{game_id}", token=token)
        assert stored["status"] == "over" and stored["result"] == 0.0
        assert page.text_content("#result") == stored["result_text"]
    page.click("#nav-profile")
    page.wait_for_selector("#estimate-plots figure.plot")
    profile = api.call("GET", "/api/me/profile", token=token)
    points = [e for e in profile["estimates"] if e["game"] == "connect4" and e["kind"] == "dsa-elo"]
    assert len(points) >= 2, profile["estimates"]
    assert page.locator("#estimate-plots .plot-dot").count() == len(points)
    now = page.text_content("#estimate-now")
    assert f"about {round(points[-1]['value'])} Elo" in now
    assert page.locator("#profile-games li").all_text_contents() == [
        f"Connect Four against {g['opponent_label']} — you lost after 2 moves, "
        + page.evaluate(f"new Date({json.dumps(g['updated'])}).toLocaleString()")
        for g in profile["games"]
    ]


def test_go9_and_chess_moves_by_clicking(page: Any, server: str) -> None:
    api = Api(server)
    token = _new_player(page, "Eli")
    # Go 9x9: a few stones placed by clicking the points.
    game = api.call(
        "POST", "/api/games", {"game": "go9", "opponent": TINY_AI, "side": "first"}, token
    )
    page.goto(f"{server}/#game/{game['id']}")
    clicked: list[str] = []
    for wanted in ("E5", "C3", "G7"):
        assert not _wait_my_turn_or_end(page)
        point = page.locator(f"#board [data-text='{wanted}']")
        if point.count() == 0:  # taken by the AI: any free point
            point = page.locator("#board .go-point [data-move]").first
        text = point.get_attribute("data-text")
        assert text is not None
        point.click()
        clicked.append(text)
        _wait_plies(page, 2 * len(clicked))
    stored = api.call("GET", f"/api/games/{game['id']}", token=token)
    assert [m["text"] for m in stored["moves"] if m["by"] == "human"] == clicked
    assert page.locator("#board circle.stone").count() == 6
    # Undo takes back the last stone of each side.
    page.click("#undo-button")
    _wait_my_turn_or_end(page)
    page.wait_for_function("document.querySelectorAll('#move-list li').length === 4")
    assert page.locator("#board circle.stone").count() == 4
    assert api.call("GET", f"/api/games/{game['id']}", token=token)["ply"] == 4
    # Chess: a move is a click on the piece, then on its square.
    game = api.call(
        "POST", "/api/games", {"game": "chess", "opponent": TINY_AI, "side": "first"}, token
    )
    page.goto(f"{server}/#game/{game['id']}")
    played: list[str] = []
    for _ in range(3):
        assert not _wait_my_turn_or_end(page)
        state = api.call("GET", f"/api/games/{game['id']}", token=token)
        legal = [m["text"] for m in state["legal"]]
        move = next((m for m in ("e2e4", "g1f3", "f1c4", "d2d3") if m in legal), legal[0])
        page.click(f"#board [data-square='{move[:2]}']")
        page.click(f"#board [data-square='{move[2:4]}']")
        played.append(move)
        _wait_plies(page, 2 * len(played))
    stored = api.call("GET", f"/api/games/{game['id']}", token=token)
    assert [m["text"] for m in stored["moves"] if m["by"] == "human"] == played
    # Moves can be typed too: the field takes SAN (and the move list shows it).
    assert not _wait_my_turn_or_end(page)
    state = api.call("GET", f"/api/games/{game['id']}", token=token)
    board = chess.Board(state["board"]["fen"])
    typed_move = chess.Move.from_uci(state["legal"][0]["text"])
    typed = board.san(typed_move)
    page.fill("#move-input", typed)
    page.press("#move-input", "Enter")
    _wait_plies(page, 8)
    stored = api.call("GET", f"/api/games/{game['id']}", token=token)
    assert stored["moves"][6]["text"] == typed_move.uci() and stored["moves"][6]["by"] == "human"
    assert page.locator("#move-list li").nth(6).text_content().startswith(f"4. {typed}")
    # Resigned: what the AI thought, its candidates named as the game writes moves.
    _wait_plies(page, 8)
    page.click("#resign-button")
    page.click("#resign-button")
    page.wait_for_selector("#result:not([hidden])")
    stored = api.call("GET", f"/api/games/{game['id']}", token=token)
    assert stored["status"] == "over" and stored["result"] == 0.0
    analysis = stored["moves"][1]["analysis"]
    order = sorted(range(len(analysis["moves"])), key=lambda i: -analysis["visits"][i])[:5]
    if analysis["move"] not in [analysis["moves"][i] for i in order]:
        order.append(analysis["moves"].index(analysis["move"]))
    before = chess.Board()
    before.push_uci(played[0])  # the AI's first move answered this one
    expected = [before.san(action_to_move(analysis["moves"][i])) for i in order]
    page.click("#analysis-wrap summary")
    first_card = page.locator("#analysis .analysis-move").first
    assert first_card.locator("tbody td:first-child").all_text_contents() == expected


def test_a_player_name_with_html_renders_as_text(page: Any, server: str) -> None:
    name = "<img src=x onerror=__pwned=1><b>Zoe</b>"  # 39 characters: within the 40 allowed
    token = _new_player(page, name)
    assert page.text_content("#player-label") == name
    assert page.locator("#player-label *").count() == 0
    me = Api(server).call("GET", "/api/me", token=token)
    assert me["name"] == name
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.text_content("#player-label") == name  # remembered by this browser
    assert page.evaluate("window.__pwned") is None


def test_keyboard_plays_a_board_target_and_a_typed_move(page: Any, server: str) -> None:
    api = Api(server)
    token = _new_player(page, "Kim")
    first = api.call("GET", "/api/catalog")["games"][0]
    assert first["name"] == "connect4"
    x, o = first["sides"]
    game = api.call(
        "POST", "/api/games", {"game": "connect4", "opponent": TINY_AI, "side": "first"}, token
    )
    page.goto(f"{server}/#game/{game['id']}")
    assert not _wait_my_turn_or_end(page)
    # Every state the status line shows is recorded (a MutationObserver sees each render, however
    # fast the AI answers).
    page.evaluate(
        """() => {
          window.__seen = [];
          const s = document.getElementById('status');
          new MutationObserver(() => window.__seen.push([s.className, s.textContent,
            document.querySelectorAll('#board .hit').length])).observe(s,
            {attributes: true, childList: true, characterData: true, subtree: true});
        }"""
    )
    page.focus("#board [data-col='2']")
    page.keyboard.press("Enter")
    _wait_plies(page, 2)
    page.wait_for_selector("#status:not(.thinking)")
    # While the AI moved, the page said so and offered no move; then it was the person's turn.
    seen = page.evaluate("window.__seen")
    assert ["status thinking", f"The AI is thinking… (it plays {o}, yellow)", 0] in seen, seen
    assert page.text_content("#status") == f"Your move: you play {x}, red."
    assert not _wait_my_turn_or_end(page)
    page.focus("#move-input")
    page.keyboard.type("7")
    page.keyboard.press("Enter")
    _wait_plies(page, 4)
    stored = api.call("GET", f"/api/games/{game['id']}", token=token)
    assert [m["text"] for m in stored["moves"] if m["by"] == "human"] == ["3", "7"]
    # A move the game does not know is refused with the server's sentence, and nothing changes.
    assert not _wait_my_turn_or_end(page)
    page.fill("#move-input", "9")
    page.press("#move-input", "Enter")
    page.wait_for_selector("#message:not([hidden])")
    assert "9" in page.text_content("#message")
    assert api.call("GET", f"/api/games/{game['id']}", token=token)["ply"] == 4


def test_the_new_game_form_fits_a_phone_in_every_game_and_mode(page: Any, server: str) -> None:
    """At a phone's width (390 CSS pixels) no game or level mode widens the page: a long
    option (e.g. "Find my level between games (Bayesian)") once pushed the level fieldset past
    the card and gave the page a sideways scroll."""
    page.set_viewport_size({"width": 390, "height": 844})
    _new_player(page, "Pia")
    games = page.eval_on_selector_all("#game-select option", "e => e.map(o => o.value)")
    assert "othello" in games and "go" in games
    seen = 0
    for game in games:
        page.select_option("#game-select", game)
        for mode in ("elo", "rank", "adaptive", "default"):
            if not page.is_visible(f"#mode-{mode}"):
                continue
            page.check(f"#mode-{mode}")
            seen += 1
            widths = page.evaluate(
                "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
            )
            assert widths[0] <= widths[1], (game, mode, widths)
            box = page.locator("#level-fieldset").bounding_box()
            card = page.locator("#new-section").bounding_box()
            assert box["x"] + box["width"] <= card["x"] + card["width"] + 0.5, (game, mode)
    assert seen >= len(games) + 4  # every game has at least one mode; some have several
