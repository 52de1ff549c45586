"""Browsers for the viewer's tests, and the running stack they talk to (the same as the end-to-end tests')."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.driver import INSTALL_HINT, console_errors, find_chromium, new_chromium
from tests.e2e.conftest import AUDITOR, stack

__all__ = ["AUDITOR", "stack"]


@pytest.fixture(scope="session")
def chromium() -> tuple[str, str]:
    found = find_chromium()
    if found is None:
        pytest.skip(f"no Chromium and chromedriver on this machine: {INSTALL_HINT}")
    try:
        import selenium  # noqa: F401
    except ImportError:
        pytest.skip("selenium is not installed: pip install -e '.[dev]'")
    return found


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the tests save their screenshots: $CARDLEDGER_SCREENSHOTS, or a temporary folder."""
    chosen = os.environ.get("CARDLEDGER_SCREENSHOTS", "").strip()
    folder = Path(chosen) if chosen else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def browser(chromium: tuple[str, str], tmp_path: Path) -> Iterator[Callable[..., Any]]:
    """A factory of fresh headless browsers (one profile each); each must end with no console error."""
    opened: list[Any] = []

    def open_browser(width: int = 1280, height: int = 1000) -> Any:
        profile = tmp_path / f"profile-{len(opened)}"
        driver = new_chromium(*chromium, profile, width, height)
        driver.downloads = profile / "downloads"
        opened.append(driver)
        return driver

    try:
        yield open_browser
        for driver in opened:
            assert console_errors(driver) == [], "the page logged errors to the browser console"
    finally:
        for driver in opened:
            driver.quit()
