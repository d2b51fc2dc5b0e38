"""The page of `wizard-sim serve` in a real browser (headless Chromium from Debian, driven by
Playwright): a hand entered by taps gives the chart and the recommended bid of the API's answer,
bad input is marked with its sentence, and the page works at phone and desktop widths.

Screenshots go to a temporary folder, or to $WIZARD_SIM_SCREENSHOTS (docs/ for the ones
docs/serve.md shows: `WIZARD_SIM_SCREENSHOTS=docs pytest tests/test_serve_browser.py`).
Without Chromium (/usr/bin/chromium) or Playwright the tests skip with one line."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from benchmarks.serving import running_server

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]  # fmt: skip
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
TIMEOUT_MS = 60_000

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - the test extra installs it
    sync_playwright = None

pytestmark = [
    pytest.mark.skipif(sync_playwright is None, reason="Playwright is not installed (pip install playwright)"),
    pytest.mark.skipif(not shutil.which(CHROMIUM),
                       reason=f"no headless Chromium at {CHROMIUM} (apt-get install chromium)"),
    pytest.mark.browser,
]


def card_id(text: str) -> int:
    """docs/rules.md §1: suit x 13 + rank (2..A); a Wizard 52, a Jester 56 (the first free one)."""
    if text == "W":
        return 52
    if text == "J":
        return 56
    rank, suit = text[:-1], text[-1]
    return "CDHS".index(suit) * 13 + ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"].index(rank)


@pytest.fixture(scope="module")
def server():
    with running_server("--workers", "2") as running:
        yield running


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture
def shots(tmp_path) -> Path:
    folder = Path(os.environ.get("WIZARD_SIM_SCREENSHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def open_page(browser, server, viewport):
    page = browser.new_page(viewport=viewport)
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(server.url)
    return page


def tap_hand(page, cards: list[str]) -> None:
    wizards = jesters = 0
    for card in cards:
        ident = card_id(card)
        if card == "W":
            ident, wizards = 52 + wizards, wizards + 1
        elif card == "J":
            ident, jesters = 56 + jesters, jesters + 1
        page.click(f"#hand [data-card='{ident}']")


def enter(page, hand, turned, position=0, bids=(), model="exact", samples="20000"):
    page.select_option("#model", model)
    page.select_option("#samples", samples)
    tap_hand(page, hand)
    page.click(f"#turned [data-card='{card_id(turned)}']")
    page.click(f"#position [data-position='{position}']")
    for index, bid in enumerate(bids):
        page.fill(f"#bids input[data-position='{index}']", str(bid))


def answer_on_page(page) -> dict:
    page.wait_for_function("window.lastResult !== undefined && !document.querySelector('#outcome').hidden")
    page.wait_for_function("document.querySelector('#progress').hidden")
    return page.evaluate("window.lastResult")


def test_a_hand_entered_by_taps_shows_the_apis_chart_and_recommended_bid(browser, server, shots):
    page = open_page(browser, server, DESKTOP)
    enter(page, ["W", "AS", "KH", "7H", "J"], "3H", position=2, bids=(1, 0))
    shown = answer_on_page(page)
    code, text = server.post("/api/estimate", {"hand": "W AS KH 7H J", "trump": "3H", "players": 4, "position": 2,
                                               "bids": [1, 0], "bidding": "open", "even_bids": "allowed",
                                               "totals": [0, 0, 0, 0], "samples": 20000, "seed": 0})  # fmt: skip
    assert code == 200
    api = json.loads(text)
    assert shown == api
    assert page.inner_text("#recommended") == str(api["recommended_bid"])
    legal = [entry for entry in api["bids"] if entry["legal"]]
    assert page.locator("#chart rect.p-make").count() == len(legal)
    assert page.locator("#chart circle.score").count() == len(legal)
    rows = page.locator("#bid-table tbody tr")
    assert rows.count() == len(api["bids"])
    first = api["bids"][0]
    assert rows.nth(0).inner_text().split("\t")[1].rstrip("*") == f"{100 * first['p_make']:.1f}%"
    assert page.locator("#distribution [data-tricks]").count() == len(api["tricks_distribution"])
    assert "exactly like the heuristic" in page.inner_text("#assumptions")
    assert page.inner_text("#effective").startswith(f"{round(api['effective_samples']):,}")
    page.screenshot(path=str(shots / "serve-desktop.png"), full_page=True)
    page.close()


def test_bad_input_is_marked_with_one_sentence(browser, server, shots):
    page = open_page(browser, server, DESKTOP)
    enter(page, ["AS", "KH"], "AS")  # the turned-up card is also in the hand
    page.wait_for_selector("#error:not([hidden])")
    assert page.inner_text("#error") == "the trump card AS is also in the hand"
    assert "bad" in page.get_attribute("#turned-section", "class")
    page.screenshot(path=str(shots / "serve-error.png"), full_page=True)
    page.click(f"#turned [data-card='{card_id('3H')}']")  # corrected: the mark goes, the answer comes
    answer_on_page(page)
    assert page.locator("#error").is_hidden() and not page.locator(".bad").count()
    page.click("#position [data-position='1']")  # a bid too big for a 2-card round
    page.fill("#bids input[data-position='0']", "5")
    page.wait_for_selector("#error:not([hidden])")
    assert page.inner_text("#error") == "earlier bid 5 (position 0) is outside 0..2"
    assert "bad" in page.get_attribute("#bids-section", "class")
    page.close()


def test_a_wizard_turned_up_asks_for_the_suit_and_a_jester_means_no_trump(browser, server):
    page = open_page(browser, server, DESKTOP)
    enter(page, ["AS", "KH"], "W")  # ids 52.. are Wizards: the first one is taken as turned up
    page.wait_for_selector("#suit:not([hidden])")
    page.wait_for_selector("#error:not([hidden])")
    assert "give the suit the dealer chose" in page.inner_text("#error")
    page.click("#suit [data-suit='S']")
    assert answer_on_page(page)["trump"] == "spades"
    page.click(f"#turned [data-card='{card_id('J')}']")
    page.wait_for_function("window.lastResult.trump === null")
    assert page.locator("#suit").is_hidden() and "no trump" in page.inner_text("#trump-label")
    page.close()


def test_the_phone_layout_is_one_column_and_answers(browser, server, shots):
    page = open_page(browser, server, PHONE)
    page.select_option("#players", "3")
    enter(page, ["W", "QS", "10D"], "7C", position=1, bids=(2,), model="unknown")
    shown = answer_on_page(page)
    assert shown["players"] == 3 and shown["assumptions"]["opponent_model"].startswith("tolerant heuristic")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"]  # nothing wider than the phone
    hand_box, results_box = page.locator("#hand").bounding_box(), page.locator("#answer").bounding_box()
    assert results_box["y"] > hand_box["y"] + hand_box["height"]  # one column: the answer below the inputs
    page.screenshot(path=str(shots / "serve-phone.png"), full_page=True)
    page.close()


def test_a_change_of_input_cancels_the_running_estimate(browser, server):
    page = open_page(browser, server, DESKTOP)
    page.select_option("#samples", "300000")
    enter(page, ["W", "AS", "KH", "7H", "JD", "10D", "4C", "9S", "2S", "J"], "3H", samples="300000")
    page.wait_for_selector("#progress:not([hidden])")
    page.wait_for_function("document.querySelector('#progress .label').textContent.includes(' of ')")
    page.select_option("#samples", "20000")  # the input changes while it samples
    shown = answer_on_page(page)
    assert shown["samples"] == 20000
    assert server.status()["running"] == 0  # the 300,000-sample estimate was stopped, not finished
    page.close()


@pytest.mark.parametrize("typed", ["", "e", "1.5", "-1"])
def test_an_empty_or_invalid_bid_is_an_error_and_nothing_is_sent(browser, server, typed):
    """#40: Number("") is 0: a cleared bid (or "e", which a number field reads as "") was sent
    as bid 0 and answered. The field's error is shown instead, and no request leaves the page."""
    page = open_page(browser, server, DESKTOP)
    enter(page, ["W", "AS", "KH"], "3H", position=1, bids=(1,))
    answer_on_page(page)
    posted = []
    page.on("request", lambda request: posted.append(request.url) if request.method == "POST" else None)
    page.evaluate("window.lastResult = undefined")
    field = page.locator("#bids input[data-position='0']")
    field.fill("")
    if typed:
        field.press_sequentially(typed)
    page.wait_for_selector("#error:not([hidden])")
    assert page.inner_text("#error") == "the 1st bid: give a whole number (0 or more)"
    assert "bad" in page.get_attribute("#bids-section", "class") and "bad" in field.get_attribute("class")
    page.wait_for_timeout(600)  # past the page's 250 ms debounce
    assert posted == [] and page.locator("#outcome").is_hidden()
    assert page.evaluate("window.lastResult") is None
    field.fill("0")  # a real 0 is sent and answered
    assert answer_on_page(page)["bids"] is not None and "bad" not in (field.get_attribute("class") or "")
    page.close()
