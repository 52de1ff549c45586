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
from tests.browser.test_viewer_plays_a_deal import register

pytestmark = pytest.mark.slow


def account_text(driver: Any) -> str:
    return str(driver.find_element(By.ID, "account").text)


def test_the_header_names_the_player_and_the_auditor(browser: Callable[..., Any], stack: str) -> None:
    name = f"zoë-{secrets.token_hex(3)}"
    player = register(stack, name)
    driver = browser()
    pages.sign_in(driver, stack, player["token"])
    wait_for(driver, lambda d: f"Signed in as {name}" in account_text(d), "the player's name in the header")

    auditor = browser()
    auditor.get(f"{stack}/ui/")
    wait_for(auditor, lambda d: d.find_elements(By.ID, "token"), "the sign-in form")
    auditor.find_element(By.ID, "token").send_keys(AUDITOR)
    auditor.find_element(By.CSS_SELECTOR, "#sign-in button[type=submit]").click()
    wait_for(auditor, lambda d: "Signed in as the auditor" in account_text(d), "the auditor named in the header")
