"""CARDLEDGER_CORS_ORIGINS: browsers of the listed origins may call the API; without it, no CORS header at all.

The preflight of an action (Authorization, Content-Type, If-Match, Idempotency-Key) is answered for an allowed
origin and refused (no Access-Control-Allow-Origin) for any other; it needs no token, is never rate limited
nor counted, and the admission middleware lets it through. Answers expose ETag, Retry-After and the rate
limiter's headers, refusals of the limiter and of the admission middleware included.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from infra.config import Settings
from services.api import create_app
from services.api.middleware.admission import Admission
from services.api.middleware.cors import EXPOSED_HEADERS, CorsPolicy
from services.bootstrap import Container
from services.cli import main
from tests.api.conftest import TEST_CONFIG, Api, bearer

VARIABLE = "CARDLEDGER_CORS_ORIGINS"
ALLOWED = "https://app.example.com"
OTHER = "http://localhost:3000"
TABLE = "5d0c4d4e-0000-4000-8000-000000000001"
ACTIONS = f"/v1/tables/{TABLE}/actions"
ACTION_HEADERS = ("Authorization", "Content-Type", "If-Match", "Idempotency-Key")
RATE_LIMIT_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")


def app_for(origins: tuple[str, ...], **config: Any) -> Flask:
    """An app on no database: preflights and /docs never reach the services."""
    return create_app(
        settings=Settings(cors_origins=origins),
        config={**TEST_CONFIG, "RATELIMIT_STORAGE_URI": "memory://", **config},
    )


def served_client(container: Container, origins: tuple[str, ...], **config: Any) -> FlaskClient:
    with_cors = dataclasses.replace(container, settings=dataclasses.replace(container.settings, cors_origins=origins))
    return create_app(container=with_cors, config={**TEST_CONFIG, **config}).test_client()


def preflight(
    client: FlaskClient,
    origin: str,
    path: str = ACTIONS,
    method: str = "POST",
    headers: Iterable[str] = ACTION_HEADERS,
) -> Any:
    return client.open(
        path,
        method="OPTIONS",
        buffered=True,  # closed at once: the admission middleware frees the slot when the body is closed
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": method,
            "Access-Control-Request-Headers": ", ".join(name.lower() for name in headers),
        },
    )


def listed(value: str | None) -> set[str]:
    return {item.strip().lower() for item in (value or "").split(",") if item.strip()}


def cors_headers(response: Any) -> dict[str, str]:
    return {name: value for name, value in response.headers.items() if name.lower().startswith("access-control-")}


# The setting ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "origins"),
    [
        (None, ()),
        ("", ()),
        ("  ", ()),
        (ALLOWED, (ALLOWED,)),
        (f" {ALLOWED} , {OTHER} ", (ALLOWED, OTHER)),
        (f"{ALLOWED},{ALLOWED}", (ALLOWED,)),
        ("http://[::1]:8080", ("http://[::1]:8080",)),
        ("http://127.0.0.1:5173", ("http://127.0.0.1:5173",)),
        ("*", ("*",)),
    ],
)
def test_the_setting(raw: str | None, origins: tuple[str, ...]) -> None:
    environ = {} if raw is None else {VARIABLE: raw}
    assert Settings.from_env(environ).cors_origins == origins


@pytest.mark.parametrize(
    "raw",
    [
        f"*,{ALLOWED}",  # any origin mixed with origins
        f"{ALLOWED}/",  # a path, even a trailing slash: browsers never send one
        f"{ALLOWED}/app",
        f"{ALLOWED}?x=1",
        f"{ALLOWED}#top",
        "app.example.com",  # no scheme
        "ftp://app.example.com",
        "null",
        "https://user@app.example.com",
        "https://App.Example.com",  # browsers send it lowercase
        "https://app.example.com:443",  # and without the default port
        "https://app.example.com:99999",
        "https://app example.com",
        f"{ALLOWED},",
        f"{ALLOWED},,{OTHER}",
    ],
)
def test_a_bad_value_is_a_configuration_error_naming_the_variable(
    raw: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ValueError, match=f"^{VARIABLE}"):
        Settings.from_env({VARIABLE: raw})
    monkeypatch.setenv(VARIABLE, raw)
    assert main(["spec"]) == 2
    assert f"cardledger: error: configuration error: {VARIABLE}" in capsys.readouterr().err


# Preflights ----------------------------------------------------------------------------------------------------


def test_without_the_setting_no_cors_header_is_sent() -> None:
    client = app_for(()).test_client()
    for origin in (ALLOWED, OTHER, "null"):
        response = preflight(client, origin)
        assert cors_headers(response) == {}, response.headers
        assert "Origin" not in response.headers.get("Vary", "")
    docs = client.get("/docs", headers={"Origin": ALLOWED})
    assert docs.status_code == 200 and cors_headers(docs) == {}


def test_the_preflight_of_an_action_works_from_an_allowed_origin() -> None:
    client = app_for((ALLOWED, OTHER)).test_client()
    for origin in (ALLOWED, OTHER):
        response = preflight(client, origin)
        assert response.status_code == 200
        assert response.headers["Access-Control-Allow-Origin"] == origin
        assert "post" in listed(response.headers["Access-Control-Allow-Methods"])
        assert listed(response.headers["Access-Control-Allow-Headers"]) >= {name.lower() for name in ACTION_HEADERS}
        assert int(response.headers["Access-Control-Max-Age"]) > 0
        assert "Access-Control-Allow-Credentials" not in response.headers, "bearer tokens, never cookies"
        assert "origin" in listed(response.headers.get("Vary"))


@pytest.mark.parametrize(
    "origin",
    [
        "https://evil.example.com",
        "https://app.example.com.evil.example",  # a prefix of an allowed origin is not that origin
        "https://app.example.co",
        "http://app.example.com",  # another scheme is another origin
        "https://app.example.com:8443",
        "null",
    ],
)
def test_the_preflight_is_refused_for_another_origin(origin: str) -> None:
    response = preflight(app_for((ALLOWED,)).test_client(), origin)
    assert "Access-Control-Allow-Origin" not in response.headers
    assert cors_headers(response) == {}
    assert "origin" in listed(response.headers.get("Vary")), "the answer depends on Origin: caches must know"


def test_an_ipv6_origin_is_matched_exactly() -> None:
    client = app_for(("http://[::1]:3000",)).test_client()
    assert preflight(client, "http://[::1]:3000").headers["Access-Control-Allow-Origin"] == "http://[::1]:3000"
    # Read as a regular expression, "[::1]" would match one character of ":" or "1".
    assert "Access-Control-Allow-Origin" not in preflight(client, "http://1:3000").headers


def test_a_header_the_api_does_not_take_is_not_allowed() -> None:
    response = preflight(app_for((ALLOWED,)).test_client(), ALLOWED, headers=("Authorization", "X-Evil"))
    assert listed(response.headers["Access-Control-Allow-Headers"]) == {"authorization"}


def test_any_origin_with_a_star() -> None:
    client = app_for(("*",)).test_client()
    response = preflight(client, "https://anywhere.example")
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in response.headers
    assert "Access-Control-Allow-Origin" not in client.get("/healthz").headers, "no Origin, no CORS header"


def test_preflights_are_never_rate_limited_nor_counted() -> None:
    app = app_for((ALLOWED,), RATE_LIMITS_ENABLED=True, RATE_LIMIT_ACTIONS="1 per 1 minute")
    client = app.test_client()
    for _ in range(5):
        response = preflight(client, ALLOWED)
        assert response.status_code == 200, response.get_json()
        assert not any(name in response.headers for name in RATE_LIMIT_HEADERS)
    # Without a token an action is counted per address, which the preflights share: none of them was counted.
    # (No database: the first action answers 401 or 503, but it is not refused by the limiter.)
    first = client.post(ACTIONS, json={"type": "pass"}, headers={"Origin": ALLOWED})
    assert first.status_code != 429, first.get_json()
    second = client.post(ACTIONS, json={"type": "pass"}, headers={"Origin": ALLOWED})
    assert second.status_code == 429
    assert second.headers["Access-Control-Allow-Origin"] == ALLOWED
    assert int(second.headers["Retry-After"]) >= 1
    exposed = listed(second.headers["Access-Control-Expose-Headers"])
    assert {"retry-after", "etag", *(name.lower() for name in RATE_LIMIT_HEADERS)} <= exposed
    assert preflight(client, ALLOWED).status_code == 200, "a limited caller's browser still gets its preflights"


# Through the admission middleware --------------------------------------------------------------------------------


def admitted(app: Flask, policy: CorsPolicy, **limits: Any) -> FlaskClient:
    app.wsgi_app = Admission(app.wsgi_app, **{"requests": 1, "streams": 0, **limits}, cors=policy)  # type: ignore[method-assign]
    return app.test_client()


def test_admission_lets_a_preflight_through_without_a_token() -> None:
    client = admitted(app_for((ALLOWED,)), CorsPolicy((ALLOWED,)), requests_per_caller=1)
    for _ in range(3):
        response = preflight(client, ALLOWED)
        assert response.status_code == 200
        assert response.headers["Access-Control-Allow-Origin"] == ALLOWED
    stream = f"/v1/tables/{TABLE}/stream"
    response = preflight(client, ALLOWED, path=stream, method="GET", headers=("Authorization", "Last-Event-ID"))
    assert response.status_code == 200, "a stream's preflight is an ordinary request, not a stream"
    assert listed(response.headers["Access-Control-Allow-Headers"]) == {"authorization", "last-event-id"}


def test_admission_refusals_carry_the_cors_headers() -> None:
    client = admitted(app_for((ALLOWED,)), CorsPolicy((ALLOWED,)))  # streams=0: every stream is refused
    stream = f"/v1/tables/{TABLE}/stream"
    refused = client.get(stream, headers={**bearer("t0k3n"), "Origin": ALLOWED}, buffered=True)
    assert refused.status_code == 503 and refused.headers["Retry-After"]
    assert refused.headers["Access-Control-Allow-Origin"] == ALLOWED
    assert "retry-after" in listed(refused.headers["Access-Control-Expose-Headers"])
    assert "origin" in listed(refused.headers["Vary"])
    other = client.get(stream, headers={**bearer("t0k3n"), "Origin": "https://evil.example.com"}, buffered=True)
    assert other.status_code == 503 and "Access-Control-Allow-Origin" not in other.headers
    plain = admitted(app_for(()), CorsPolicy(())).get(
        stream, headers={**bearer("t0k3n"), "Origin": ALLOWED}, buffered=True
    )
    assert plain.status_code == 503 and cors_headers(plain) == {} and "Vary" not in plain.headers


def test_the_served_app_gives_its_admission_the_origins(monkeypatch: pytest.MonkeyPatch) -> None:
    from services.api import create_served_app

    monkeypatch.setenv("DATABASE_URL", "postgresql://db.example/cardledger")
    monkeypatch.setenv("REDIS_URL", "redis://cache.example/0")
    monkeypatch.setenv(VARIABLE, f"{ALLOWED},{OTHER}")
    monkeypatch.delenv("CARDLEDGER_TRUSTED_PROXIES", raising=False)
    wrapped = create_served_app().wsgi_app
    assert isinstance(wrapped, Admission)
    assert wrapped._cors is not None and wrapped._cors.origins == (ALLOWED, OTHER)


def test_the_policy_headers() -> None:
    environ = {"HTTP_ORIGIN": ALLOWED}
    assert CorsPolicy(()).headers_for(environ) == {}
    headers = CorsPolicy((ALLOWED,)).headers_for(environ)
    assert headers["Access-Control-Allow-Origin"] == ALLOWED
    assert set(headers["Access-Control-Expose-Headers"].split(", ")) == set(EXPOSED_HEADERS)
    assert CorsPolicy(("*",)).headers_for({"HTTP_ORIGIN": OTHER})["Access-Control-Allow-Origin"] == "*"
    assert CorsPolicy((ALLOWED,)).headers_for({"HTTP_ORIGIN": OTHER}) == {"Vary": "Origin"}


# Real calls ------------------------------------------------------------------------------------------------------


def test_a_browser_plays_an_action_from_an_allowed_origin(container: Container, clean: str) -> None:
    client = served_client(container, (ALLOWED,))
    api = Api(client)
    _, alice = api.register("alice")
    _, bob = api.register("bob")
    table = api.open_table(alice)["id"]
    api.sit(alice, table, 0)
    api.sit(bob, table, 1)
    state = client.get(f"/v1/tables/{table}", headers={**bearer(alice), "Origin": ALLOWED})
    assert state.status_code == 200
    assert state.headers["Access-Control-Allow-Origin"] == ALLOWED
    assert "etag" in listed(state.headers["Access-Control-Expose-Headers"])
    token = alice if state.get_json()["to_act"] == 0 else bob
    view = api.view(token, table)
    path = f"/v1/tables/{table}/actions"
    assert preflight(client, ALLOWED, path=path).headers["Access-Control-Allow-Origin"] == ALLOWED
    headers = {
        **bearer(token),
        "Origin": ALLOWED,
        "If-Match": f'"{view["version"]}"',
        "Idempotency-Key": f"cors-{uuid.uuid4().hex}",
    }
    acted = client.post(path, json=view["legal_actions"][0], headers=headers)
    assert acted.status_code == 201, acted.get_json()
    assert acted.headers["Access-Control-Allow-Origin"] == ALLOWED
    # Errors too: a stale If-Match is a 412 the page can read.
    stale = client.post(path, json=view["legal_actions"][0], headers={**headers, "Idempotency-Key": "cors-stale"})
    assert stale.status_code == 412 and stale.headers["Access-Control-Allow-Origin"] == ALLOWED
    assert stale.get_json()["code"] == "version_mismatch"
    refused = client.get(f"/v1/tables/{table}", headers={**bearer(alice), "Origin": "https://evil.example.com"})
    assert refused.status_code == 200 and "Access-Control-Allow-Origin" not in refused.headers


def test_an_unauthenticated_call_is_a_readable_401(container: Container, clean: str) -> None:
    response = served_client(container, (ALLOWED,)).get("/v1/tables", headers={"Origin": ALLOWED})
    assert response.status_code == 401 and response.mimetype == "application/problem+json"
    assert response.headers["Access-Control-Allow-Origin"] == ALLOWED
