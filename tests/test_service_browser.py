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
    assert f"will play at {c4['levels']['elo']['low']}" in page.text_content("#elo-hint")
    page.fill("#elo-number", str(int(high) + 200))
    assert f"will play at {c4['levels']['elo']['high']}" in page.text_content("#elo-hint")
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
    refusal = "connect4: bad move '9': expected a column 1-7"
    assert page.text_content("#message") == refusal
    assert api.call("GET", f"/api/games/{game['id']}", token=token)["ply"] == 4
    # The refused move stays in the field, marked, with the reason beside it, to be corrected.
    assert page.input_value("#move-input") == "9"
    assert page.get_attribute("#move-input", "aria-invalid") == "true"
    assert page.text_content("#move-error") == f"9 was not played: {refusal}"
    page.fill("#move-input", "1")
    assert page.get_attribute("#move-input", "aria-invalid") is None
    assert not page.is_visible("#move-error")
    page.press("#move-input", "Enter")
    _wait_plies(page, 6)
    assert page.input_value("#move-input") == ""


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


CONTRAST = """(sel) => {
  // The contrast ratio (WCAG) of an element's text against what is behind it.
  const rgba = (c) => c.match(/[\\d.]+/g).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const layers = [];
  for (let e = document.querySelector(sel); e; e = e.parentElement) {
    const c = rgba(getComputedStyle(e).backgroundColor);
    if ((c[3] ?? 1) > 0) layers.push(c);
    if ((c[3] ?? 1) === 1) break;
  }
  let bg = [255, 255, 255];
  for (const c of layers.reverse()) {
    const a = c[3] ?? 1;
    bg = bg.map((v, i) => a * c[i] + (1 - a) * v);
  }
  const fg = rgba(getComputedStyle(document.querySelector(sel)).color);
  const [hi, lo] = [lum(fg), lum(bg)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}"""


def _phone(browser: Any, server: str, token: str, me: dict[str, Any]) -> Any:
    """A page on a phone (390 CSS px wide, touch) of the player with ``token``."""
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    context.add_init_script(
        f"localStorage.setItem('sparring.token', {json.dumps(token)});"
        f"localStorage.setItem('sparring.player', {json.dumps(json.dumps(me))});"
    )
    page = context.new_page()
    page.set_default_timeout(STEP_TIMEOUT_MS)
    return page


def test_header_links_and_text_are_readable_hovered_and_in_dark_mode(
    page: Any, server: str
) -> None:
    """A hovered header link once turned near-white on light grey (the buttons' hover); the
    page's text keeps a contrast of at least 4.5:1 in light and dark mode."""
    _new_player(page, "Hal")
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        page.mouse.move(0, 0)
        for link in ("#nav-new", "#nav-profile", "#forget-player"):
            page.hover(link)
            assert page.evaluate(CONTRAST, link) >= 4.5, (scheme, link)
        page.mouse.move(0, 0)
        for text in ("#new-heading", "#elo-hint", "#start-game", "#game-select", "footer a"):
            assert page.evaluate(CONTRAST, text) >= 4.5, (scheme, text)
    dark = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert dark == "rgb(21, 23, 28)"  # the dark page, not the light one
    page.emulate_media(color_scheme="light")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(246, 244, 239)"


def test_a_blank_name_or_one_with_a_direction_override_is_refused_with_why(page: Any) -> None:
    page.fill("#player-name", "   ")
    page.click("#player-form button[type=submit]")
    page.wait_for_selector("#message:not([hidden])")
    blank = "name: a name needs at least one visible character, not only spaces"
    assert page.text_content("#message") == blank
    page.fill("#player-name", "Ann\u202egnp.exe")
    page.click("#player-form button[type=submit]")
    page.wait_for_function(f"document.getElementById('message').textContent !== {blank!r}")
    assert page.text_content("#message") == (
        "name: a name cannot hold U+202E (RIGHT-TO-LEFT OVERRIDE): use letters, digits, "
        "spaces and punctuation"
    )
    assert page.evaluate("localStorage.getItem('sparring.token')") is None
    assert page.is_visible("#player-section")


def test_the_elo_shown_is_one_number_in_hint_slider_field_and_label(page: Any, server: str) -> None:
    """The hint, the slider and the number field show the catalog's whole-number range and
    default for every game; the slider reaches both ends; an Elo above the range is played,
    labelled and noticed at the high end the hint named."""
    _new_player(page, "Eve")
    catalog = Api(server).call("GET", "/api/catalog")
    seen = 0
    for game in catalog["games"]:
        elo = game["levels"]["elo"]
        if elo is None:
            continue
        seen += 1
        page.select_option("#game-select", game["name"])
        page.check("#mode-elo")
        low, high = elo["low"], elo["high"]
        slider = page.eval_on_selector("#elo-range", "e => [e.min, e.max, e.step, e.value]")
        assert slider == [str(low), str(high), "1", str(game["default_elo"])], game["name"]
        assert page.input_value("#elo-number") == str(game["default_elo"])
        assert page.text_content("#elo-hint").startswith(f"Measured range {low}–{high}:")
        page.focus("#elo-range")
        page.keyboard.press("End")
        assert page.input_value("#elo-number") == str(high)
        page.keyboard.press("Home")
        assert page.input_value("#elo-number") == str(low)
    assert seen == 6
    page.select_option("#game-select", "connect4")
    high = catalog["games"][0]["levels"]["elo"]["high"]
    page.fill("#elo-number", str(high + 50))
    hint = page.text_content("#elo-hint")
    assert f"{high + 50} is above it: the AI will play at {high}," in hint
    page.select_option("#side-select", "first")
    page.click("#start-game")
    _game_id(page)
    scale = catalog["games"][0]["levels"]["elo"]["scale"]
    assert page.text_content("#game-opponent") == f"against Elo {high} ({scale})"
    assert page.text_content("#notices").endswith(f"playing the strongest level, {high}")


def test_the_profile_plots_keep_their_labels_and_count_chess_moves(page: Any) -> None:
    """A chess rank (1400-1600) once lost its first characters to the plot's edge; chess
    games were counted in half-moves.  (The profile is given to the page here, as the server
    would send it after games of chess and Connect Four.)"""
    _new_player(page, "Pat")
    me = page.evaluate("JSON.parse(localStorage.getItem('sparring.player'))")
    ranks = ["1000-1200", "1200-1400", "1400-1600", "1200-1400"]
    summary = {"opponent_label": "UCT", "human_side": 0, "created": "2025-03-01T10:00:00.000+00:00",
               "updated": "2025-03-01T10:00:00.000+00:00"}  # fmt: skip
    profile = {
        **me,
        "adaptive": [],
        "estimates": [
            {"time": f"2025-03-0{i + 1}T10:00:00.000+00:00", "game": "chess", "kind": "rank",
             "value": rank, "low": None, "high": None, "confidence": 0.6, "games": i + 1}
            for i, rank in enumerate(ranks)
        ] + [
            {"time": f"2025-03-0{i + 1}T11:00:00.000+00:00", "game": "connect4", "kind": "dsa-elo",
             "value": v, "low": v - 150, "high": v + 150, "confidence": None, "games": i + 1}
            for i, v in enumerate([1441.0, 1380.5, 1602.2])
        ],
        "games": [
            {**summary, "id": "a", "game": "chess", "status": "over", "result": 0.0, "ply": 13},
            {**summary, "id": "b", "game": "chess", "status": "ongoing", "result": None, "ply": 4},
            {**summary, "id": "c", "game": "connect4", "status": "over", "result": 1.0, "ply": 12},
            {**summary, "id": "d", "game": "chess", "status": "over", "result": 0.5, "ply": 2},
        ],
    }  # fmt: skip
    page.route("**/api/me/profile", lambda route: route.fulfill(json=profile))
    page.click("#nav-profile")
    page.wait_for_selector("#estimate-plots figure.plot")
    labels = page.eval_on_selector_all(
        "#estimate-plots .plot-svg",
        """plots => plots.map(p => [...p.querySelectorAll('.axis')].map(t => {
            const box = t.getBBox();
            return [t.textContent, box.x >= 0 && box.x + box.width <= p.viewBox.baseVal.width];
        }))""",
    )
    assert [t for t, _ in labels[0] if "-" in t] == ["1000-1200", "1200-1400", "1400-1600"]
    assert all(inside for plot in labels for _, inside in plot), labels
    outcomes = [t.split(" — ")[1].rsplit(",", 2)[0] for t in
                page.locator("#profile-games li").all_text_contents()]  # fmt: skip
    assert outcomes == [
        "you lost after 7 moves",
        "in progress, move 3",
        "you won after 12 moves",
        "draw after 1 move",
    ]


def test_a_pass_that_would_end_the_game_asks_first(page: Any, server: str) -> None:
    """Where a pass would end the game (the AI has just passed) Pass asks first: the first
    click sends nothing, the second passes; an ordinary pass takes one click.  (The server's
    ``ends_game`` is set on the state given to the page.)"""
    api = Api(server)
    token = _new_player(page, "Ned")
    body = {"game": "go9", "opponent": TINY_AI, "side": "first"}
    ending, ordinary = (api.call("POST", "/api/games", body, token) for _ in range(2))
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.post_data or "") if r.method == "POST" else None)
    state = api.call("GET", f"/api/games/{ending['id']}", token=token)
    (pass_move,) = [m for m in state["legal"] if m["text"] == "pass"]
    assert pass_move["ends_game"] is False
    pass_move["ends_game"] = True  # as after the AI's pass
    page.route(f"**/api/games/{ending['id']}", lambda route: route.fulfill(json=state))
    page.goto(f"{server}/#game/{ending['id']}")
    page.wait_for_selector("#board .hit")
    assert page.text_content("#status") == (
        "Your move: you play Black. The AI passed: if you pass too, the game ends and is scored."
    )
    page.click("#pass-button")
    assert page.text_content("#pass-button") == "Pass and end the game?"
    page.wait_for_timeout(500)
    assert posts == []  # nothing sent yet
    page.click("#pass-button")
    _wait_plies(page, 1)
    assert [json.loads(p) for p in posts] == [{"move": "pass", "ply": 0}]
    assert page.text_content("#pass-button") == "Pass"
    page.goto(f"{server}/#game/{ordinary['id']}")
    page.wait_for_selector("#board .hit")
    assert page.text_content("#status") == "Your move: you play Black."
    page.click("#pass-button")  # an ordinary pass: one click
    _wait_plies(page, 1)
    assert [json.loads(p) for p in posts[1:]] == [{"move": "pass", "ply": 0}]


def test_go19_on_a_phone_opens_zoomed_with_points_a_finger_can_hit(
    browser: Any, server: str
) -> None:
    """On a phone Go 19x19's points would be 17 px apart: the board opens zoomed (34 px) in a
    frame that scrolls, a point there is played by a tap, and a button shows the whole board."""
    api = Api(server)
    me = api.call("POST", "/api/players", {"name": "Go"})
    game = api.call(
        "POST", "/api/games", {"game": "go", "opponent": TINY_AI, "side": "first"}, me["token"]
    )
    page = _phone(browser, server, me["token"], {"id": me["id"], "name": me["name"]})
    try:
        page.goto(f"{server}/#game/{game['id']}")
        page.wait_for_selector("#board .hit")
        assert page.get_attribute("#zoom-button", "aria-pressed") == "true"
        boxes = page.eval_on_selector_all(
            "#board .hit", "hs => hs.map(h => h.getBoundingClientRect().width)"
        )
        assert len(boxes) == 361 and min(boxes) >= 28, min(boxes)
        widths = page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert widths[0] <= widths[1]  # the frame scrolls, not the page
        page.locator("#board [data-text='D4']").tap()
        page.wait_for_function("document.querySelectorAll('#move-list li').length >= 2")
        state = api.call("GET", f"/api/games/{game['id']}", token=me["token"])
        assert state["moves"][0]["text"] == "D4"
        page.wait_for_selector("#board .hit")
        page.click("#zoom-button")
        assert page.text_content("#zoom-button") == "Zoom in (bigger points)"
        whole = page.locator("#board .hit").first.bounding_box()
        assert whole is not None and whole["width"] < 20  # the whole board: 17 px a point
        page.reload()
        page.wait_for_selector("#board .hit")
        assert page.get_attribute("#zoom-button", "aria-pressed") == "false"  # remembered
    finally:
        page.context.close()
