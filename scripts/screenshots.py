"""Screenshots of the page for the README: a game in progress and the profile with its plot.

Usage (from the repository root)::

    .venv/bin/python scripts/screenshots.py [--out docs/screenshots]

It starts ``sparring serve`` on a free loopback port with a temporary data folder, drives the
page in Debian's headless Chromium (Playwright for Python; no browser is downloaded), and
writes ``game.png`` / ``game-phone.png`` (Connect4 at a chosen Elo, a few moves in) and
``profile.png`` / ``profile-phone.png`` (after a short adaptive series: the estimate and its
plot) at a laptop size (1280x800) and a phone size (390x844).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from serve_helper import serve

CHROMIUM = "/usr/bin/chromium"
LAPTOP: Any = {"width": 1280, "height": 800}
PHONE: Any = {"width": 390, "height": 844}
STEP_MS = 60_000


def _wait_turn(page: Any) -> bool:
    """Wait for the human's turn or the end; True when the game is over."""
    page.wait_for_selector("#board .hit, #result:not([hidden])", timeout=STEP_MS)
    return bool(page.is_visible("#result"))


def _plies(page: Any, n: int) -> None:
    page.wait_for_function(
        f"document.querySelectorAll('#move-list li').length >= {n}", timeout=STEP_MS
    )


def _new_game(page: Any, base: str, game: str, mode: str, value: str | None = None) -> None:
    page.goto(base + "/#new")
    page.wait_for_selector("#new-section:not([hidden])")
    page.select_option("#game-select", game)
    page.check(f"#mode-{mode}")
    if mode == "elo" and value is not None:
        page.fill("#elo-number", value)
    if mode == "adaptive" and value is not None:
        page.select_option("#adaptive-select", value)
    page.select_option("#side-select", "first")
    page.click("#start-game")
    page.wait_for_selector("#game-section:not([hidden])", timeout=STEP_MS)


def _click_columns(page: Any, columns: list[int]) -> None:
    for i, col in enumerate(columns):
        if _wait_turn(page):
            return
        target = page.locator(f"#board [data-col='{col}']")
        (target if target.count() else page.locator("#board [data-col]").first).click()
        _plies(page, 2 * i + 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="sparring-shots-") as tmp:
        data = Path(tmp)
        options = ("--workers", "1")
        with (
            serve(data, data / "server.log", *options, seconds=90) as (_, base),
            sync_playwright() as p,
        ):
            launch_args = ["--no-sandbox"] if os.geteuid() == 0 else []
            browser = p.chromium.launch(executable_path=CHROMIUM, args=launch_args)
            context = browser.new_context(viewport=LAPTOP)
            page = context.new_page()
            page.goto(base + "/")
            page.wait_for_selector("body[data-ready='1']")
            page.fill("#player-name", "Ada")
            page.click("#player-form button[type=submit]")
            page.wait_for_selector("#new-section:not([hidden])")
            token = page.evaluate("localStorage.getItem('sparring.token')")

            # The profile: a short adaptive series (each game resigned after a few moves).
            for _ in range(4):
                _new_game(page, base, "connect4", "adaptive", "bayes")
                _click_columns(page, [3, 2, 4])
                _wait_turn(page)
                if not page.is_visible("#result"):
                    page.click("#resign-button")
                    page.click("#resign-button")
                    page.wait_for_selector("#result:not([hidden])", timeout=STEP_MS)

            # A game in progress: Connect4 at a chosen Elo, a few moves in.
            _new_game(page, base, "connect4", "elo", "1200")
            _click_columns(page, [3, 3, 2, 4])
            _wait_turn(page)
            page.screenshot(path=str(args.out / "game.png"))
            game_url = page.url
            phone = browser.new_context(viewport=PHONE, device_scale_factor=2)
            mobile = phone.new_page()
            mobile.goto(base + "/")
            mobile.evaluate(f"localStorage.setItem('sparring.token', {json.dumps(token)})")
            mobile.goto(game_url)
            mobile.reload()
            mobile.wait_for_selector("#board .hit", timeout=STEP_MS)
            mobile.screenshot(path=str(args.out / "game-phone.png"))

            page.goto(base + "/#profile")
            page.wait_for_selector("#estimate-plots figure.plot", timeout=STEP_MS)
            page.screenshot(path=str(args.out / "profile.png"))
            mobile.goto(base + "/#profile")
            mobile.wait_for_selector("#estimate-plots figure.plot", timeout=STEP_MS)
            mobile.screenshot(path=str(args.out / "profile-phone.png"))
            browser.close()
    for name in ("game.png", "game-phone.png", "profile.png", "profile-phone.png"):
        print(args.out / name)


if __name__ == "__main__":
    main()
