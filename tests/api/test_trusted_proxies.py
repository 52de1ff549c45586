"""CARDLEDGER_TRUSTED_PROXIES: X-Forwarded-For is believed from exactly that many proxies, and from none by default.

With 0 a client cannot pick its address (and a fresh registration budget) by sending X-Forwarded-For; with 1
every forwarded address has budgets of its own, the logs show it, and the stream admission counts callers by
it (the proxy fix wraps the admission middleware).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import uuid
from collections.abc import Callable, Iterable
from typing import Any

import pytest
from flask.testing import FlaskClient
from werkzeug.middleware.proxy_fix import ProxyFix

from infra.config import Settings
from services.api import create_app
from services.api.middleware.admission import Admission
from services.api.middleware.proxies import behind_proxies
from services.bootstrap import Container
from services.cli import main
from tests.api.conftest import TEST_CONFIG

VARIABLE = "CARDLEDGER_TRUSTED_PROXIES"
STREAM = "/v1/tables/5d0c4d4e-0000-4000-8000-000000000001/stream"


def limited_client(container: Container, hops: int, **limits: str) -> FlaskClient:
    behind = dataclasses.replace(container, settings=dataclasses.replace(container.settings, trusted_proxies=hops))
    config = {**TEST_CONFIG, "RATE_LIMITS_ENABLED": True, "RATELIMIT_STORAGE_URI": "memory://", **limits}
    return create_app(container=behind, config=config).test_client()


def register(client: FlaskClient, forwarded_for: str | None = None) -> int:
    headers = {} if forwarded_for is None else {"X-Forwarded-For": forwarded_for}
    response = client.post("/v1/players", json={"name": f"p-{uuid.uuid4().hex[:8]}"}, headers=headers)
    return response.status_code


# The setting ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("raw", "hops"), [(None, 0), ("", 0), (" 0 ", 0), ("1", 1), ("5", 5)])
def test_the_setting_defaults_to_no_proxy(raw: str | None, hops: int) -> None:
    environ = {} if raw is None else {VARIABLE: raw}
    assert Settings.from_env(environ).trusted_proxies == hops


@pytest.mark.parametrize("raw", ["-1", "6", "two", "1.5", "0x1"])
def test_a_bad_value_is_a_configuration_error_naming_the_variable(
    raw: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ValueError, match=f"^{VARIABLE} must be"):
        Settings.from_env({VARIABLE: raw})
    monkeypatch.setenv(VARIABLE, raw)
    assert main(["spec"]) == 2
    assert f"cardledger: error: configuration error: {VARIABLE} must be" in capsys.readouterr().err


# Rate limits and logs ------------------------------------------------------------------------------------------


def test_without_trusted_proxies_x_forwarded_for_changes_no_budget(
    container: Container, clean: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="cardledger.api.requests")
    client = limited_client(container, 0, RATE_LIMIT_REGISTRATION="2 per 1 minute", RATE_LIMIT_READS="2 per 1 minute")
    statuses = [register(client, f"203.0.113.{n}") for n in range(1, 5)]
    assert statuses == [201, 201, 429, 429], "a forged X-Forwarded-For bought a fresh registration budget"
    # The address fallback of the per-token limits (no token: 401, still counted per address).
    reads = [client.get("/v1/tables", headers={"X-Forwarded-For": f"203.0.113.{n}"}).status_code for n in (1, 2, 3)]
    assert reads == [401, 401, 429]
    addresses = {
        record.__dict__["remote_addr"] for record in caplog.records if record.getMessage() == "request answered"
    }
    assert addresses == {"127.0.0.1"}, "the logs show the peer, not what the client claimed"


def test_behind_one_proxy_each_forwarded_address_has_its_own_budget(
    container: Container, clean: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="cardledger.api.requests")
    client = limited_client(container, 1, RATE_LIMIT_REGISTRATION="2 per 1 minute", RATE_LIMIT_READS="2 per 1 minute")
    assert [register(client, "203.0.113.1") for _ in range(3)] == [201, 201, 429]
    assert register(client, "203.0.113.2") == 201, "another client behind the same proxy has its own budget"
    # What the client wrote itself lies left of what the proxy appended: it is not believed.
    assert register(client, "198.51.100.9, 203.0.113.1") == 429
    assert register(client) == 201, "a request that did not come through the proxy keeps its peer address"
    reads = [client.get("/v1/tables", headers={"X-Forwarded-For": "203.0.113.3"}).status_code for _ in range(3)]
    assert reads == [401, 401, 429]
    assert client.get("/v1/tables", headers={"X-Forwarded-For": "203.0.113.4"}).status_code == 401

    answered = [record for record in caplog.records if record.getMessage() == "request answered"]
    assert [record.__dict__["remote_addr"] for record in answered[:4]] == ["203.0.113.1"] * 3 + ["203.0.113.2"]
    assert answered[5].__dict__["remote_addr"] == "127.0.0.1"
    from services.logs import JsonFormatter

    assert json.loads(JsonFormatter().format(answered[0]))["remote_addr"] == "203.0.113.1"


# What the proxy fix believes -----------------------------------------------------------------------------------


def seen_environ(hops: int, headers: dict[str, str]) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        seen.update(environ)
        start_response("204 No Content", [])
        return []

    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": "/",
        "REMOTE_ADDR": "10.0.0.2",
        "HTTP_HOST": "api.internal:8000",
        "SERVER_NAME": "api.internal",
        "SERVER_PORT": "8000",
        "wsgi.url_scheme": "http",
        **{"HTTP_" + name.upper().replace("-", "_"): value for name, value in headers.items()},
    }
    behind_proxies(app, hops)(environ, lambda status, headers, exc_info=None: None)
    # Rewritten in place: gunicorn's access line reads REMOTE_ADDR from the environ it passed in.
    assert environ["REMOTE_ADDR"] == seen["REMOTE_ADDR"]
    return seen


def test_the_forwarded_address_and_scheme_are_believed_not_the_host() -> None:
    headers = {
        "X-Forwarded-For": "198.51.100.9, 203.0.113.1",
        "X-Forwarded-Proto": "https",
        "X-Forwarded-Host": "evil.example",
        "X-Forwarded-Port": "4443",
        "X-Forwarded-Prefix": "/evil",
    }
    believed = seen_environ(1, headers)
    assert (believed["REMOTE_ADDR"], believed["wsgi.url_scheme"]) == ("203.0.113.1", "https")
    assert (believed["HTTP_HOST"], believed["SERVER_PORT"], believed.get("SCRIPT_NAME", "")) == (
        "api.internal:8000",
        "8000",
        "",
    )
    assert seen_environ(2, headers)["REMOTE_ADDR"] == "198.51.100.9"
    ignored = seen_environ(0, headers)
    assert (ignored["REMOTE_ADDR"], ignored["wsgi.url_scheme"]) == ("10.0.0.2", "http")
    with pytest.raises(ValueError):
        behind_proxies(lambda environ, start_response: [], -1)


# Stream admission sees the client's address ---------------------------------------------------------------------


def open_stream(app: Callable[..., Iterable[bytes]], forwarded_for: str) -> tuple[str, Iterable[bytes]]:
    seen: dict[str, str] = {}

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> None:
        seen["status"] = status

    environ = {"PATH_INFO": STREAM, "REQUEST_METHOD": "GET", "REMOTE_ADDR": "10.0.0.2"}
    environ["HTTP_X_FORWARDED_FOR"] = forwarded_for
    body = app(environ, start_response)
    return seen["status"], body


def streaming_app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    start_response("200 OK", [("Content-Type", "text/event-stream")])
    return [b": open\n\n"]


@pytest.mark.parametrize(("hops", "second"), [(0, "429"), (1, "200")])
def test_stream_admission_counts_callers_by_the_forwarded_address(hops: int, second: str) -> None:
    served = behind_proxies(Admission(streaming_app, requests=1, streams=4, streams_per_caller=1), hops)
    first_status, first = open_stream(served, "203.0.113.1")
    second_status, other = open_stream(served, "203.0.113.2")
    assert first_status.startswith("200") and second_status.startswith(second)
    for body in (first, other):
        body.close()  # type: ignore[attr-defined]


def test_the_served_app_puts_the_proxy_fix_around_admission(monkeypatch: pytest.MonkeyPatch) -> None:
    from services.api import create_served_app

    monkeypatch.setenv("DATABASE_URL", "postgresql://db.example/cardledger")
    monkeypatch.setenv("REDIS_URL", "redis://cache.example/0")
    monkeypatch.setenv(VARIABLE, "1")
    wrapped = create_served_app().wsgi_app
    assert isinstance(wrapped, ProxyFix) and isinstance(wrapped.app, Admission)
    assert (wrapped.x_for, wrapped.x_proto, wrapped.x_host) == (1, 1, 0)
    monkeypatch.setenv(VARIABLE, "0")
    assert isinstance(create_served_app().wsgi_app, Admission)
