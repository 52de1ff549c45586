"""The app's own request pipeline (`SyncFlask`'s kept URL adapters, `AnswerResponse`'s headers) answers exactly
what Flask's and Werkzeug's plain path answers: the same requests, good and bad, replayed on both, compared whole
(status, every header in order, body bytes), and the metrics they leave. The pieces are also checked alone
against the library calls they stand for, so that a Flask or Werkzeug whose behaviour they assume fails here."""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask, Response
from hypothesis import given, settings
from hypothesis import strategies as st
from werkzeug.exceptions import HTTPException
from werkzeug.test import EnvironBuilder

from services.api import SyncFlask, create_app, served_admission
from services.api.metrics import metrics_of
from services.api.url_adapters import KeptUrlAdapters
from services.api.wsgi_headers import AnswerResponse
from services.bootstrap import Container
from tests.api.conftest import TEST_CONFIG, Api, bearer

ORIGIN = "https://app.example.com"
Answer = tuple[int, list[tuple[str, str]], bytes]


def _app(container: Container, plain: bool) -> Flask:
    with_cors = dataclasses.replace(container, settings=dataclasses.replace(container.settings, cors_origins=(ORIGIN,)))
    app = create_app(container=with_cors, config=TEST_CONFIG, middleware=[served_admission()])
    if plain:  # Flask's and Werkzeug's own path
        app.response_class = Response  # type: ignore[misc]
        app.create_url_adapter = types.MethodType(Flask.create_url_adapter, app)  # type: ignore[method-assign]
    return app


def _answer(app: Flask, *args: Any, stream: bool = False, **kwargs: Any) -> Answer:
    headers = {"X-Request-ID": "replayed", **kwargs.pop("headers", {})}  # else a new id on each side
    with app.test_client() as client:
        response = client.open(*args, buffered=not stream, headers=headers, **kwargs)
        body = b"" if stream else response.get_data()
        sent = list(response.headers.items())
        response.close()
    return response.status_code, sent, body


@pytest.fixture
def apps(container: Container, clean: str) -> Iterator[tuple[Flask, Flask]]:
    yield _app(container, plain=False), _app(container, plain=True)


def test_the_apps_pipeline_answers_what_flasks_plain_path_answers(apps: tuple[Flask, Flask], client: Any) -> None:
    kept, plain = apps
    assert isinstance(kept, SyncFlask) and kept.response_class is AnswerResponse
    api = Api(client)  # the scene set on an app without admission (whose slots wait for answers to be closed)
    _, alice = api.register("alice")
    _, bob = api.register("bob")
    table = api.open_table(alice)["id"]
    api.sit(alice, table, 0)
    api.sit(bob, table, 1)
    view = client.get(f"/v1/tables/{table}/view", headers=bearer(alice))
    etag = view.headers["ETag"]
    mover = next(token for token in (alice, bob) if api.view(token, table)["legal_actions"])
    action = api.view(mover, table)["legal_actions"][0]
    posted = api.act_raw(mover, table, action, key="replayed-key")
    assert posted.status_code == 201, posted.get_json()  # each app answers it again from the idempotency record
    actions = f"/v1/tables/{table}/actions"
    alice_json = {**bearer(alice), "X-Request-ID": "fixed-id"}
    requests: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
        (("/healthz",), {}),
        (("/healthz",), {"headers": {"Host": "Example.COM:8080"}}),
        (("/healthz",), {"headers": {"Host": "bücher.example"}}),
        (("/healthz",), {"headers": {"Host": "a b"}}),
        (("/healthz",), {"base_url": "https://localhost:443/"}),
        (("/healthz",), {"headers": {"Connection": "keep-alive, Upgrade", "Upgrade": "websocket"}}),
        (("/healthz",), {"method": "HEAD"}),
        (("/healthz",), {"method": "POST"}),
        (("/healthz/",), {}),
        (("/no/such/path?x=%FF",), {}),
        (("/v1/tables/not-a-uuid/view",), {"headers": bearer(alice)}),
        ((f"/v1/tables/{table}/view",), {"headers": alice_json}),
        ((f"/v1/tables/{table}/view?wait_for_version=x",), {"headers": alice_json}),
        ((f"/v1/tables/{table}/view",), {"headers": {**alice_json, "If-None-Match": etag}}),
        ((f"/v1/tables/{table}/view",), {"headers": {**alice_json, "If-None-Match": '"other"'}}),
        ((f"/v1/tables/{table}/view",), {"headers": {"Authorization": "Bearer nobody"}}),
        ((f"/v1/tables/{table}",), {"headers": alice_json}),
        ((actions,), {"method": "GET", "headers": alice_json}),
        (
            (actions,),
            {"method": "POST", "headers": {**bearer(mover), "Idempotency-Key": "replayed-key"}, "json": action},
        ),
        (
            (actions,),
            {
                "method": "POST",
                "headers": {**alice_json, "Idempotency-Key": "k2"},
                "data": "{not json",
                "content_type": "application/json",
            },
        ),
        (
            (actions,),
            {
                "method": "POST",
                "headers": {**alice_json, "Idempotency-Key": "k3"},
                "data": "x",
                "content_type": "text/plain",
            },
        ),
        (
            (actions,),
            {
                "method": "POST",
                "headers": {**alice_json, "Idempotency-Key": "k4"},
                "data": "{}",
                "content_type": "application/json; charset=klingon",
            },
        ),
        (
            (actions,),
            {
                "method": "POST",
                "headers": {**alice_json, "Idempotency-Key": "k5"},
                "data": "[" * 70_000,
                "content_type": "application/json",
            },
        ),
        (
            (actions,),
            {"method": "POST", "headers": {**alice_json, "Idempotency-Key": "k6", "If-Match": '"7"'}, "json": action},
        ),
        ((actions,), {"method": "POST", "headers": {**alice_json, "Idempotency-Key": "k7"}, "json": {"type": "nope"}}),
        (
            (actions,),
            {
                "method": "OPTIONS",
                "headers": {
                    "Origin": ORIGIN,
                    "Access-Control-Request-Method": "POST",
                    "Access-Control-Request-Headers": "authorization, content-type, if-match",
                },
            },
        ),
        ((f"/v1/tables/{table}/view",), {"headers": {**alice_json, "Origin": ORIGIN}}),
        ((f"/v1/tables/{table}/view",), {"headers": {**alice_json, "Origin": "https://evil.example"}}),
        (("/openapi.json",), {}),
        (("/docs",), {}),
        (("/ui/",), {}),
    ]
    for args, kwargs in requests:
        assert _answer(kept, *args, **kwargs) == _answer(plain, *args, **kwargs), (args, kwargs)
    for path in (f"/v1/tables/{table}/stream", f"/v1/tables/{table}/view/stream"):
        assert _answer(kept, path, headers=alice_json, stream=True) == _answer(
            plain, path, headers=alice_json, stream=True
        ), path
    assert _counts(kept) == _counts(plain)


def _counts(app: Flask) -> dict[tuple[str, ...], float]:
    """The request counter's samples, and the latency histogram's counts (not its sums, which are times)."""
    found = {}
    for family in (metrics_of(app).requests, metrics_of(app).latency):
        for metric in family.collect():
            for sample in metric.samples:
                if sample.name.endswith(("_total", "_count", "_bucket")) and "le" not in sample.labels:
                    found[(sample.name, *sorted(sample.labels.items()))] = sample.value  # type: ignore[arg-type]
    assert found
    return found


ENVIRON_VALUES = st.fixed_dictionaries(
    {
        "HTTP_HOST": st.one_of(
            st.sampled_from(
                [None, "localhost", "LOCALHOST:80", "example.com:443", "bücher.example", "a b", "[::1]:80"]
            ),
            st.text(st.characters(codec="latin-1"), max_size=12),
        ),
        "SERVER_NAME": st.sampled_from([None, "localhost", "127.0.0.1", "Example.org"]),
        "SERVER_PORT": st.sampled_from([None, "80", "443", "8000", "x"]),
        "wsgi.url_scheme": st.sampled_from(["http", "https"]),
        "HTTP_CONNECTION": st.sampled_from([None, "upgrade", "keep-alive, Upgrade", "close"]),
        "HTTP_UPGRADE": st.sampled_from([None, "websocket", "WebSocket", "h2c"]),
        "SCRIPT_NAME": st.sampled_from([None, "", "/prefix", "/prefix/", "/caf\xc3\xa9"]),
        "PATH_INFO": st.one_of(st.none(), st.text(st.characters(codec="latin-1"), max_size=12)),
        "QUERY_STRING": st.one_of(st.none(), st.text(st.characters(codec="latin-1"), max_size=12)),
        "REQUEST_METHOD": st.sampled_from(["GET", "POST", "OPTIONS", "BREW"]),
    }
)


def _environ(values: dict[str, str | None]) -> dict[str, Any]:
    environ = EnvironBuilder().get_environ()
    for name in values:
        environ.pop(name, None)
    environ.update({name: value for name, value in values.items() if value is not None})
    return environ


@settings(max_examples=500, deadline=None)
@given(st.lists(ENVIRON_VALUES, min_size=1, max_size=4), st.data())
def test_a_kept_adapter_is_the_adapter_flask_makes(environs: list[dict[str, str | None]], data: st.DataObject) -> None:
    """Requests one after the other, some of them sharing their host's part with one before (kept)."""
    app = Flask("adapters")
    kept = KeptUrlAdapters()
    for values in environs:
        if data.draw(st.booleans()):  # a request seen before with one key changed: a kept host's, or its path...
            changed = data.draw(st.sampled_from(sorted(values)))
            values = {**data.draw(st.sampled_from(environs)), changed: values[changed]}
        environ = _environ(values)
        assert _made(app, environ, kept) == _made(app, environ, None), values


def _made(app: Flask, environ: dict[str, Any], kept: KeptUrlAdapters | None) -> Any:
    request = app.request_class(dict(environ))
    try:
        if kept is None:
            adapter = app.create_url_adapter(request)
        else:
            adapter = kept.adapter(app, request, app.create_url_adapter)
    except HTTPException as refused:
        return type(refused), refused.code
    fields = ("server_name", "script_name", "subdomain", "url_scheme", "path_info", "default_method", "query_args")
    return request.__dict__.get("host"), [getattr(adapter, name) for name in (*fields, "websocket")]


def test_hosts_kept_are_bounded() -> None:
    app = Flask("bounded")
    kept = KeptUrlAdapters(limit=3)
    for number in range(10):
        request = app.request_class(EnvironBuilder(headers={"Host": f"h{number}.example"}).get_environ())
        assert kept.adapter(app, request, app.create_url_adapter) is not None
    assert len(kept.kept) == 3


def test_a_set_server_name_or_trusted_hosts_goes_through_flask() -> None:
    app = Flask("configured")
    app.config.update(SERVER_NAME="example.com", TRUSTED_HOSTS=["example.com"])
    kept = KeptUrlAdapters()
    request = app.request_class(EnvironBuilder(headers={"Host": "evil.example"}).get_environ())
    with pytest.raises(HTTPException):
        kept.adapter(app, request, app.create_url_adapter)
    assert kept.kept == {}


HEADER_NAMES = st.sampled_from(
    ["Content-Type", "Content-Length", "Location", "content-location", "ETag", "X-Request-ID", "Allow", "Expires"]
)


@settings(max_examples=300, deadline=None)
@given(
    status=st.sampled_from([100, 200, 201, 204, 206, 301, 304, 404, 412, 500]),
    headers=st.lists(st.tuples(HEADER_NAMES, st.sampled_from(["1", "/a b", "ü", "http://x/ä", '"e"'])), max_size=5),
    body=st.one_of(st.binary(max_size=8), st.just(None)),
    streamed=st.booleans(),
)
def test_answer_headers_are_werkzeugs(
    status: int, headers: list[tuple[str, str]], body: bytes | None, streamed: bool
) -> None:
    environ = EnvironBuilder(path="/p/q", base_url="http://example.com/root/").get_environ()

    def sent(cls: type[Response]) -> list[tuple[str, str]]:
        content: Any = iter([body or b""]) if streamed else body
        response = cls(content, status=status, headers=headers)
        listed: list[tuple[str, str]] = response.get_wsgi_response(environ)[2]
        return listed

    assert sent(AnswerResponse) == sent(Response)
