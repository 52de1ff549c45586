"""The viewer in a real browser against the running stack (`cardledger up`): a complete deal of each game played
through the pages, one headless Chromium per seat, then replayed and verified in the page.

Checked on the way: each page follows the other seat's moves through its live stream; no page ever holds another
seat's hidden cards (in its DOM, or in any answer it received, collected by the page's test recorder); the
replayer steps forward and back; the in-browser verification passes, and names the failing step when an event's
hash is altered; the settlement and ledger show as tables; no page logs a console error (the `browser` fixture).
Screenshots of the lobby, a live table of each game and the replayer go to the `screenshots` folder.
"""

from __future__ import annotations

import random
import secrets
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from tests.browser import pages
from tests.browser.conftest import AUDITOR
from tests.browser.driver import console_errors
from tests.browser.pages import wait_for
from tests.e2e.bots import register
from tests.e2e.stack import http

pytestmark = pytest.mark.slow

GAMES = ["cholek-tiga", "cha-kau-tsz"]
SCREENSHOT_AFTER_ACTIONS = 7
DESKTOP = (1280, 1000)
PHONE = (412, 915)


def open_table_in_lobby(driver: Any, game: str) -> str:
    Select(driver.find_element(By.ID, "new-game")).select_by_value(game)
    seats = driver.find_element(By.ID, "new-seats")
    seats.clear()
    seats.send_keys("2")
    turn = driver.find_element(By.ID, "new-turn-seconds")
    turn.clear()
    turn.send_keys("0")  # no turn clock: the test's pace never matters
    driver.find_element(By.CSS_SELECTOR, "#open-table button[type=submit]").click()
    wait_for(driver, lambda d: d.execute_script("return location.hash").startswith("#/table/"), "the new table")
    return pages.table_id_of(driver)


def sit_from_table_page(driver: Any, seat: int, seed: str) -> None:
    wait_for(driver, lambda d: pages.state(d).get("stream") == "live", "the table's live stream")
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, f"button[data-sit='{seat}']"), "the seat buttons")
    driver.find_element(By.ID, "sit-seed").send_keys(seed)
    driver.find_element(By.CSS_SELECTOR, f"button[data-sit='{seat}']").click()
    wait_for(driver, lambda d: pages.state(d).get("seat") == str(seat), f"seat {seat} taken")


def sit_from_lobby(driver: Any, base_url: str, table_id: str, seat: int, seed: str) -> None:
    pages.go(driver, base_url, "#/lobby")
    row = f"tr[data-table='{table_id}'] button[data-sit='{seat}']"
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, row), "the table in the lobby")  # a read model
    driver.find_element(By.ID, "lobby-seed").send_keys(seed)
    driver.find_element(By.CSS_SELECTOR, row).click()
    wait_for(driver, lambda d: pages.state(d).get("seat") == str(seat), f"seat {seat} taken from the lobby")


def wait_lobby_lists(driver: Any, table_id: str) -> None:
    """The lobby is a read model: refresh until the new table shows."""
    for _ in range(100):
        if driver.find_elements(By.CSS_SELECTOR, f"tr[data-table='{table_id}']"):
            return
        driver.find_element(By.ID, "lobby-refresh").click()
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#lobby-list table, #lobby-list p"), "the list")
    raise AssertionError(f"table {table_id} never showed in the lobby")


def replay_and_verify(driver: Any, base_url: str, table_id: str, screenshot: Path | None) -> dict[str, Any]:
    pages.go(driver, base_url, f"#/replay/{table_id}/1")
    wait_for(driver, lambda d: d.find_elements(By.ID, "verify-button"), "the replayer")
    total = int(driver.find_element(By.ID, "step-slider").get_attribute("max"))
    assert total > 5
    assert pages.state(driver)["step"] == "1"
    driver.find_element(By.CSS_SELECTOR, "button[data-go=forward]").click()
    driver.find_element(By.CSS_SELECTOR, "button[data-go=forward]").click()
    wait_for(driver, lambda d: pages.state(d)["step"] == "3", "step 3")
    driver.find_element(By.CSS_SELECTOR, "button[data-go=back]").click()
    wait_for(driver, lambda d: pages.state(d)["step"] == "2", "back to step 2")
    # Keyboard: the arrows step through the deal once focus is in it.
    driver.find_element(By.ID, "step-heading").send_keys(Keys.ARROW_RIGHT)
    wait_for(driver, lambda d: pages.state(d)["step"] == "3", "step 3 by the right arrow")
    step = driver.find_element(By.CSS_SELECTOR, "section.step")
    assert "Legal choices" in step.text and "chosen" in step.text
    hashes = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "section.step code.hash")]
    assert hashes and all(len(h) == 64 for h in hashes)
    driver.find_element(By.CSS_SELECTOR, "button[data-go=last]").click()
    wait_for(driver, lambda d: pages.state(d)["step"] == str(total), "the last step")
    driver.find_element(By.ID, "verify-button").click()
    wait_for(
        driver,
        lambda d: d.find_element(By.ID, "verification").get_attribute("data-state") in ("ok", "failed"),
        "the verification",
    )
    verdict = driver.find_element(By.CSS_SELECTOR, "#verification .verdict").text
    assert driver.find_element(By.ID, "verification").get_attribute("data-state") == "ok", verdict
    assert verdict.startswith("All ") and "checks passed" in verdict
    if screenshot is not None:
        driver.find_element(By.CSS_SELECTOR, "button[data-go=first]").click()
        for _ in range(min(8, total - 1)):
            driver.find_element(By.CSS_SELECTOR, "button[data-go=forward]").click()
        driver.save_screenshot(str(screenshot))
        driver.find_element(By.ID, "verify-button").click()
        wait_for(driver, lambda d: d.find_element(By.ID, "verification").get_attribute("data-state") == "ok", "ok")
        driver.execute_script("document.getElementById('verification').scrollIntoView()")
        driver.save_screenshot(str(screenshot.with_name("replay-verified.png")))
    report = next(r["body"] for r in reversed(pages.recorded(driver)) if "/v1/reports/dispute" in r["url"])
    return dict(report)


TAMPER = """
const [report, position, done] = arguments;
import('/ui/js/verify.js').then(async ({ verifyReport }) => {
  const altered = structuredClone(report);
  for (const step of altered.steps) for (const event of step.events) {
    if (event.position === position) event.data.tampered = true;
  }
  const result = await verifyReport(altered);
  done({ ok: result.ok, first: result.firstFailure });
}, (error) => done({ error: String(error) }));
"""


def assert_verification_names_an_altered_step(driver: Any, report: dict[str, Any]) -> None:
    step = report["steps"][len(report["steps"]) // 2]
    event = step["events"][0]
    result = driver.execute_async_script(TAMPER, report, event["position"])
    assert result.get("ok") is False, result
    assert result["first"]["step"] == step["step"], result
    assert result["first"]["position"] == event["position"], result
    assert result["first"]["check"] == "hash", result


def provoke_version_mismatch(driver: Any, base_url: str, table_id: str, token: str) -> None:
    """The page acts from a version the table has left (its stream is blocked, and the seat says ready through
    the API meanwhile): the API answers 412 version_mismatch, and the page says so and shows the table anew."""
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": [f"*/v1/tables/{table_id}/stream*"]})
    driver.refresh()
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "button.action.ready"), "the ready button")
    stale = pages.version(driver)
    status, _, body = http(
        "POST",
        f"{base_url}/v1/tables/{table_id}/actions",
        {"type": "ready"},
        token=token,
        headers={"Idempotency-Key": secrets.token_hex(8)},
    )
    assert status == 201 and body["version"] > stale, body
    driver.find_element(By.CSS_SELECTOR, "button.action.ready").click()
    wait_for(
        driver, lambda d: "moved on" in d.find_element(By.ID, "alert-message").text, "the version_mismatch message"
    )
    assert "version_mismatch" in driver.find_element(By.ID, "alert-message").text
    pages.wait_version(driver, body["version"])  # the page read the table again
    assert pages.state(driver)["status"] == "playing"  # both seats were ready: deal 2 began
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    expected = ("ERR_BLOCKED_BY_CLIENT", "status of 412")  # the blocked stream, the refused action
    errors = console_errors(driver)
    assert any("status of 412" in entry["message"] for entry in errors), errors
    assert [e for e in errors if not any(text in e["message"] for text in expected)] == []


def download_csvs(driver: Any, table_id: str) -> None:
    settlement = driver.downloads / f"settlement-{table_id}.csv"
    ledger = driver.downloads / f"ledger-{table_id}.csv"
    driver.find_element(By.ID, "settlement-csv").click()
    wait_for(driver, lambda d: settlement.exists(), "the settlement's CSV")
    driver.find_element(By.ID, "ledger-csv").click()
    wait_for(driver, lambda d: ledger.exists(), "the ledger's CSV")
    assert settlement.read_text().startswith("player_id,name,account,table_id,")
    assert ledger.read_text().startswith("version,line_no,deal_no,event_type,account,")


@pytest.mark.parametrize("game", GAMES)
def test_two_browsers_play_a_deal_replay_and_verify_it(browser: Any, stack: str, screenshots: Path, game: str) -> None:
    rng = random.Random(game)
    tokens = [register(stack, f"{name}-{secrets.token_hex(3)}")[1] for name in ("ana", "ben")]
    seat_pages = [browser(), browser()]
    for driver, token in zip(seat_pages, tokens, strict=True):
        pages.sign_in(driver, stack, token)

    table_id = open_table_in_lobby(seat_pages[0], game)
    sit_from_table_page(seat_pages[0], 0, "ana-seed")
    wait_lobby_lists(seat_pages[1], table_id)
    seat_pages[1].save_screenshot(str(screenshots / "lobby.png"))
    sit_from_lobby(seat_pages[1], stack, table_id, 1, "ben-seed")
    for driver in seat_pages:
        wait_for(driver, lambda d: pages.state(d).get("status") == "playing", "the deal to start")

    dom_leaks: list[str] = []

    def after_each_action(actions: int) -> None:
        for seat, driver in enumerate(seat_pages):
            pages.wait_version(driver, pages.version(seat_pages[0]))
            dom_leaks.extend(pages.dom_hidden_card_leaks(driver, seat))
        if actions == SCREENSHOT_AFTER_ACTIONS:
            seat_pages[0].save_screenshot(str(screenshots / f"table-{game}.png"))
            phone = seat_pages[1]
            phone.set_window_size(*PHONE)
            phone.save_screenshot(str(screenshots / f"table-{game}-phone.png"))
            phone.set_window_size(*DESKTOP)

    actions = pages.play_deal_through_pages(seat_pages, rng, after_each_action)
    assert actions >= 10
    assert dom_leaks == []

    for seat, driver in enumerate(seat_pages):
        wait_for(driver, lambda d: pages.state(d)["status"] == "between_deals", "the end of the deal")
        assert "Deal 2 is committed" in driver.find_element(By.CSS_SELECTOR, ".commitment").text
        assert driver.find_elements(By.CSS_SELECTOR, "button.action.ready"), "no ready button between deals"
        assert "Result of deal 1" in driver.find_element(By.CSS_SELECTOR, "section.result").text
        bodies = [r["body"] for r in pages.recorded(driver)]
        assert any(b and b.get("type") for b in bodies if isinstance(b, dict)), "no streamed event was recorded"
        assert pages.hidden_card_leaks(bodies, seat) == []

    # The table's state matches what the API says, and the pages' streams followed it to the end.
    status, _, table = http("GET", f"{stack}/v1/tables/{table_id}", token=tokens[0])
    assert status == 200 and table["status"] == "between_deals"
    assert all(pages.version(d) == table["version"] for d in seat_pages)

    # Seat 1 says ready through its page (with a client seed for deal 2).
    seat_pages[1].find_element(By.ID, "ready-seed").send_keys("ben-deal-2")
    seat_pages[1].find_element(By.CSS_SELECTOR, "button.action.ready").click()
    wait_for(seat_pages[0], lambda d: "ready" in d.find_element(By.CSS_SELECTOR, "[data-seat='1'] h3").text, "ready")

    shot = screenshots / "replay.png" if game == GAMES[0] else None
    report = replay_and_verify(seat_pages[1], stack, table_id, shot)
    assert_verification_names_an_altered_step(seat_pages[1], report)
    if game == GAMES[-1]:
        auditor = browser()
        pages.sign_in(auditor, stack, AUDITOR)
        assert replay_and_verify(auditor, stack, table_id, None)["viewer"] == "auditor"

    provoke_version_mismatch(seat_pages[0], stack, table_id, tokens[0])

    # Settlement and ledger as tables, for seat 0.
    pages.go(seat_pages[0], stack, f"#/money/{table_id}")
    wait_for(seat_pages[0], lambda d: d.find_elements(By.ID, "ledger-lines"), "the ledger")
    wait_for(seat_pages[0], lambda d: d.find_elements(By.ID, "settlement-table"), "the settlement")
    assert "balanced" in seat_pages[0].find_element(By.ID, "ledger").text
    download_csvs(seat_pages[0], table_id)
