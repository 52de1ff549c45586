"""Headless Chromium for the browser tests, from the machine's own packages (Debian's `chromium` and
`chromium-driver`): Selenium is handed the driver's path and the browser's, so it never downloads either."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

INSTALL_HINT = "apt-get install chromium chromium-driver (or put chromium and chromedriver on PATH)"
BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)


def find_chromium() -> tuple[str, str] | None:
    """(browser, driver) executables, or None when either is missing."""
    browser = next((path for name in BROWSER_NAMES if (path := shutil.which(name))), None)
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        return None
    return browser, driver


def new_chromium(browser: str, driver: str, profile: Path, width: int = 1280, height: int = 1000) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager must never fetch a driver or a browser
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.add_argument(f"--window-size={width},{height}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    options.add_experimental_option(
        "prefs",
        {
            "download.default_directory": str(profile / "downloads"),
            "download.prompt_for_download": False,
            "profile.default_content_setting_values.automatic_downloads": 1,
        },
    )
    return webdriver.Chrome(service=Service(executable_path=driver), options=options)


def console_errors(driver: Any) -> list[dict[str, Any]]:
    """The browser console's errors since the last call (the log is drained by reading it)."""
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
