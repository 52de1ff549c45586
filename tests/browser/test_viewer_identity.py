"""The viewer knows who signed in: GET /v1/players/me names the player (or the auditor), and the header says so."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import pytest
from selenium.webdriver.common.by import By

from tests.browser import pages
from tests.browser.conftest import AUDITOR
from tests.browser.pages import wait_for
from tests.e2e.bots import register

pytestmark = pytest.mark.slow


def account_text(driver: Any) -> str:
    return str(driver.find_element(By.ID, "account").text)


def test_the_header_names_the_player_and_the_auditor(browser: Callable[..., Any], stack: str) -> None:
    name = f"zoë-{secrets.token_hex(3)}"
    _, token = register(stack, name)
    driver = browser()
    pages.sign_in(driver, stack, token)
    wait_for(driver, lambda d: f"Signed in as {name}" in account_text(d), "the player's name in the header")

    auditor = browser()
    auditor.get(f"{stack}/ui/")
    wait_for(auditor, lambda d: d.find_elements(By.ID, "token"), "the sign-in form")
    auditor.find_element(By.ID, "token").send_keys(AUDITOR)
    auditor.find_element(By.CSS_SELECTOR, "#sign-in button[type=submit]").click()
    wait_for(auditor, lambda d: "Signed in as the auditor" in account_text(d), "the auditor named in the header")


def sign_in_as(driver: Any, base_url: str, token: str) -> None:
    driver.get(f"{base_url}/ui/")
    wait_for(driver, lambda d: d.find_elements(By.ID, "token"), "the sign-in form")
    driver.find_element(By.ID, "token").send_keys(token)
    driver.find_element(By.CSS_SELECTOR, "#sign-in button[type=submit]").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "lobby-list"), "the lobby")


def lobby_row(driver: Any, table_id: str) -> Any:
    """The table's row, refreshing the lobby (a read model) until it shows."""
    for _ in range(100):
        rows = driver.find_elements(By.CSS_SELECTOR, f"tr[data-table='{table_id}']")
        if rows:
            return rows[0]
        driver.find_element(By.ID, "lobby-refresh").click()
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#lobby-list table, #lobby-list p"), "the list")
    raise AssertionError(f"table {table_id} never showed in the lobby")


def test_the_lobby_shows_tables_in_play_and_each_role_its_own_actions(browser: Callable[..., Any], stack: str) -> None:
    from tests.e2e.bots import call

    tokens = [register(stack, f"p-{secrets.token_hex(3)}")[1] for _ in range(2)]
    table = call("POST", f"{stack}/v1/tables", {"game": "cholek-tiga", "seats": 2}, token=tokens[0])
    for seat, token in enumerate(tokens):
        call("POST", f"{stack}/v1/tables/{table['id']}/seats", {"seat": seat}, token=token)

    auditor = browser()
    sign_in_as(auditor, stack, AUDITOR)
    row = lobby_row(auditor, table["id"])  # a table in play, shown without choosing a status
    assert "playing" in row.text
    assert not auditor.find_elements(By.ID, "open-table"), "the auditor is offered to open a table"
    assert not auditor.find_elements(By.CSS_SELECTOR, "button[data-sit]"), "the auditor is offered a seat"
    assert row.find_elements(By.CSS_SELECTOR, "a[data-link='money']"), "no link to the table's settlement"

    bystander = browser()
    sign_in_as(bystander, stack, register(stack, f"b-{secrets.token_hex(3)}")[1])
    row = lobby_row(bystander, table["id"])
    assert bystander.find_elements(By.ID, "open-table")  # a player may open a table
    assert not row.find_elements(By.CSS_SELECTOR, "a[data-link]")  # not its table: nothing it could open
