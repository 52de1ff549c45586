"""Driving the viewer's pages as a player would (clicks and keys), and reading what a page holds."""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

CHOICES = "button.action:enabled, button[data-action=follow]"  # a follow is enabled once cards are chosen
WAIT_SECONDS = 60  # generous: the machine may be shared; a page that works answers within a second


def wait_for(driver: Any, condition: Callable[[Any], Any], what: str, timeout: float = WAIT_SECONDS) -> Any:
    try:
        ignored = (NoSuchElementException, StaleElementReferenceException)  # the page redraws as the table moves
        return WebDriverWait(driver, timeout, poll_frequency=0.05, ignored_exceptions=ignored).until(condition)
    except TimeoutException:
        shown = driver.execute_script(
            "return [document.getElementById('alert-message').innerText, document.getElementById('app').innerText]"
        )
        raise AssertionError(
            f"waited {timeout} s for {what}; the page said {shown[0]!r} and shows {shown[1][:800]!r}"
        ) from None


def sign_in(driver: Any, base_url: str, token: str) -> None:
    """Open /ui/ with the page's answer recorder on, and sign in through the form."""
    driver.get(f"{base_url}/ui/")
    driver.execute_script("sessionStorage.setItem('cardledger.test.record', '1')")
    driver.refresh()
    wait_for(driver, lambda d: d.find_elements(By.ID, "token"), "the sign-in form")
    driver.find_element(By.ID, "token").send_keys(token)
    driver.find_element(By.CSS_SELECTOR, "#sign-in button[type=submit]").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "sign-out"), "the signed-in header")
    wait_for(driver, lambda d: d.find_elements(By.ID, "lobby-list"), "the lobby")


def go(driver: Any, base_url: str, fragment: str) -> None:
    """Navigate inside the page (a hash change keeps the page, its token and its recorder)."""
    driver.execute_script("location.hash = arguments[0]", fragment)


def state(driver: Any) -> dict[str, str]:
    """The live table's data attributes: version, status, seat, toAct."""
    return dict(driver.execute_script("return Object.assign({}, document.getElementById('app').dataset)"))


def version(driver: Any) -> int:
    return int(state(driver).get("version") or 0)


def wait_version(driver: Any, at_least: int) -> None:
    wait_for(driver, lambda d: version(d) >= at_least, f"the page to show version {at_least}")


def table_id_of(driver: Any) -> str:
    fragment = driver.execute_script("return location.hash")
    assert fragment.startswith("#/table/"), fragment
    return str(fragment.removeprefix("#/table/"))


def play_one(driver: Any, rng: random.Random) -> None:
    """Take one of the seat's legal actions with the keyboard, every other time, else the mouse (for a Cha Kau
    Tsz follow, choose cards in the hand first: Space toggles a card, Enter plays)."""
    keyboard = rng.random() < 0.5

    def press(element: Any, key: str) -> None:
        if keyboard:
            element.send_keys(key)
        else:
            element.click()

    follow = driver.find_elements(By.CSS_SELECTOR, "button[data-action=follow]")
    if follow:
        count = int(follow[0].get_attribute("data-count"))
        cards = driver.find_elements(By.CSS_SELECTOR, "[data-hand-seat] button.card")
        for index in sorted(rng.sample(range(len(cards)), count)):
            card = driver.find_element(By.CSS_SELECTOR, f'[data-hand-seat] button[data-hand-index="{index}"]')
            press(card, Keys.SPACE)
        button = driver.find_element(By.CSS_SELECTOR, "button[data-action=follow]")
        assert button.is_enabled()
        press(button, Keys.ENTER)
        return
    buttons = [b for b in driver.find_elements(By.CSS_SELECTOR, "button.action") if b.is_enabled()]
    assert buttons, "the seat to act has no enabled action button"
    press(rng.choice(buttons), Keys.ENTER)


def play_deal_through_pages(drivers: list[Any], rng: random.Random, on_step: Callable[[int], None]) -> int:
    """Play until the deal ends, each seat in its own browser; every page must follow the table through its live
    stream (no reload). Answers the number of actions clicked."""
    actions = 0
    deadline = time.monotonic() + 600
    current = max(version(d) for d in drivers)
    while time.monotonic() < deadline:
        for driver in drivers:
            wait_version(driver, current)  # the page heard of the last move through its stream
        seen = state(drivers[0])
        if seen["status"] != "playing":
            return actions
        actor = next(d for d in drivers if state(d)["seat"] == seen["toAct"])
        wait_for(actor, lambda d: d.find_elements(By.CSS_SELECTOR, CHOICES), "the actor's buttons")
        play_one(actor, rng)
        actions += 1
        wait_version(actor, current + 1)  # the acting page shows its own move
        current = version(actor)
        on_step(actions)
    raise AssertionError(f"the deal did not end within the time allowed ({actions} actions clicked)")


def recorded(driver: Any) -> list[dict[str, Any]]:
    """Every answer body the page received (the recorder of api.js and sse.js), parsed where it is JSON."""
    out = []
    for entry in driver.execute_script("return window.cardledgerRecorded || []"):
        try:
            out.append({**entry, "body": json.loads(entry["text"])})
        except ValueError:
            out.append({**entry, "body": None})
    return out


def _walk(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


def hidden_card_leaks(bodies: list[Any], seat: int) -> list[str]:
    """What, in answers received by the page of `seat`, shows cards only another seat may see: a private block
    of another seat's event, or another seat's hand."""
    leaks = []
    for body in bodies:
        for node in _walk(body):
            if "private" in node and node.get("seat") != seat:
                leaks.append(f"private block of seat {node.get('seat')}: {node['private']}")
            if "hand" in node and node.get("seat") != seat:
                leaks.append(f"hand of seat {node.get('seat')}: {node['hand']}")
    return leaks


DOM_CARDS = """
const root = document.getElementById('app');
const handSeats = [...root.querySelectorAll('[data-hand-seat]')].map((e) => e.dataset.handSeat);
const hand = [...root.querySelectorAll('[data-hand-seat] [data-card]')].map((e) => e.dataset.card);
const others = [...root.querySelectorAll('[data-card]')]
  .filter((e) => !e.closest('[data-hand-seat]') && !e.closest('.actions'))
  .map((e) => e.dataset.card);
const views = (window.cardledgerRecorded || []).filter((r) => r.kind === 'http' && r.url.includes('/view'));
const view = views.length ? views[views.length - 1].text : null;
return {handSeats, hand, others, version: Number(root.dataset.version), view};
"""


def public_cards(view: dict[str, Any]) -> Counter[str]:
    """Every face-up card of a public state: pool, piles, turn-up; trick and last trick."""
    cards: Counter[str] = Counter()
    cards.update(view.get("pool") if isinstance(view.get("pool"), list) else [])
    for pile in view.get("piles") or []:
        cards.update(pile)
    if view.get("pending"):
        cards.update([view["pending"]])
    plays = list(view.get("trick") or [])
    if view.get("last_trick"):
        plays += view["last_trick"]["plays"]
    for play in plays:
        cards.update(play["cards"])
    return cards


def dom_hidden_card_leaks(driver: Any, seat: int) -> list[str]:
    """Face-up cards on the page beyond the seat's own hand and the public state of the view it shows (the DOM
    and the last view the page read, taken in one script so that neither moves on in between)."""
    found = driver.execute_script(DOM_CARDS)
    view = json.loads(found["view"])
    if view["version"] != found["version"]:
        return [f"the page shows version {found['version']}, its last view is of version {view['version']}"]
    leaks = [f"a hand of seat {other} is shown" for other in found["handSeats"] if int(other) != seat]
    if Counter(found["hand"]) != Counter(view["hand"]):
        leaks.append(f"the hand shown {found['hand']} is not the seat's {view['hand']}")
    extra = Counter(found["others"]) - public_cards(view)
    if extra:
        shown = sorted(extra.elements())
        leaks.append(f"face-up cards neither public nor the seat's at version {view['version']}: {shown}")
    return leaks
