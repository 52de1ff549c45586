"""The viewer's files as the API serves them (no browser needed): a strict Content-Security-Policy, nothing
loaded from elsewhere, every module import served, and every file shipped in the package's data."""

from __future__ import annotations

import fnmatch
import re
import tomllib
from pathlib import Path

from flask.testing import FlaskClient

from infra.config import Settings
from services.api import create_app, ui
from tests.api.conftest import TEST_CONFIG

ROOT = Path(__file__).resolve().parents[2]
STATIC = ui.STATIC_DIRECTORY
SVG_NAMESPACE = "http://www.w3.org/2000/svg"  # a name in createElementNS, never fetched


def offline_client() -> FlaskClient:
    """No database, no Redis: static files never reach the services."""
    return create_app(settings=Settings(), config={**TEST_CONFIG, "RATELIMIT_STORAGE_URI": "memory://"}).test_client()


def static_files() -> list[Path]:
    return sorted(path for path in STATIC.rglob("*") if path.is_file())


def test_the_page_and_its_files_are_served_with_a_strict_policy() -> None:
    client = offline_client()
    redirect = client.get("/ui")
    assert redirect.status_code == 308 and redirect.headers["Location"].endswith("/ui/")
    for url in ["/ui/", *(f"/ui/{path.relative_to(STATIC).as_posix()}" for path in static_files())]:
        with client.get(url) as answer:  # a file's answer holds the file open until closed
            assert answer.status_code == 200, url
            policy = answer.headers["Content-Security-Policy"]
            assert "default-src 'self'" in policy and "connect-src 'self'" in policy and "script-src 'self'" in policy
            assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
            assert answer.headers["X-Content-Type-Options"] == "nosniff"
    with client.get("/ui/js/main.js") as main:
        assert main.mimetype in ("text/javascript", "application/javascript")


def test_only_the_viewer_files_are_served() -> None:
    client = offline_client()
    for url in ("/ui/__init__.py", "/ui/../__init__.py", "/ui/%2e%2e/__init__.py", "/ui/js/nothing.js", "/ui/x.py"):
        assert client.get(url).status_code == 404, url


def test_nothing_comes_from_another_origin() -> None:
    """No CDN, font or script from the internet, and no inline script (the policy would refuse it)."""
    for path in static_files():
        text = path.read_text(encoding="utf-8")
        urls = set(re.findall(r"https?://[^\s\"'`)]+", text)) - {SVG_NAMESPACE}
        assert urls == set(), f"{path.name} names {urls}"
    index = (STATIC / "index.html").read_text(encoding="utf-8")
    assert re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", index) == [], "inline script in index.html"
    assert " style=" not in index and "onclick=" not in index


def test_every_module_import_is_a_served_file() -> None:
    client = offline_client()
    for path in (STATIC / "js").glob("*.js"):
        for name in re.findall(r'from "\./([\w-]+\.js)"', path.read_text(encoding="utf-8")):
            with client.get(f"/ui/js/{name}") as answer:
                assert answer.status_code == 200, f"{path.name} imports {name}"


def test_the_package_data_ships_every_static_file() -> None:
    """A non-editable install serves the viewer too: pyproject's package-data names each file."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["services.api.ui"]
    package = STATIC.parent
    for path in static_files():
        relative = path.relative_to(package).as_posix()
        assert any(fnmatch.fnmatch(relative, pattern) for pattern in patterns), f"{relative} is not package data"
