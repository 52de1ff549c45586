"""Hostile bodies, query strings and headers against every write and read: never a 5xx, always a problem, and a
refused request appends nothing.

The values are those a client can send but the service cannot hold: integers of thousands of digits, lone
surrogates, NUL, deep nesting, duplicate keys, bytes that are not UTF-8, and wrong content types.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.bootstrap import Container
from tests.api.conftest import Api, Scene


def _encode(value: Any) -> str:
    """JSON text of `value`, where `_Raw` pieces go in as written (huge integers, duplicate keys)."""
    if isinstance(value, _Raw):
        return value.text
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{_encode(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_encode(v) for v in value) + "]"
    return json.dumps(value)  # ensure_ascii: a lone surrogate is written as the escape \ud800


class _Raw:
    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"_Raw({self.text[:40]!r})"


huge_integers = st.integers(19, 6000).map(lambda n: _Raw("-" * (n % 2) + "9" * n))
lone_surrogates = st.sampled_from(["\ud800", "a\udfffb", "\udbff", "x" * 10 + "\ud83d"])
nul_text = st.sampled_from(["\x00", "seed\x00", "\x00" * 3])
deep = st.integers(33, 900).map(lambda n: _Raw("[" * n + "]" * n))
duplicated = st.sampled_from(['{"a": 1, "a": 2}', '{"type": "pass", "type": "pass"}']).map(_Raw)
hostile = st.one_of(
    huge_integers, lone_surrogates, nul_text, deep, duplicated, st.sampled_from([_Raw("NaN"), _Raw("1e99999")])
)

FIELDS = ["name", "game", "seats", "options", "seat", "client_seed", "type", "card", "cards", "capture", "count"]


@st.composite
def hostile_bodies(draw: st.DrawFn) -> bytes:
    """A JSON object with one or more hostile values among plausible ones, or bytes that are not UTF-8."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from([b"\xff\xfe{}", b'{"name": "\xc3("}', b"\x00", b""]))
    body: dict[str, Any] = {}
    for field in draw(st.lists(st.sampled_from(FIELDS), min_size=1, max_size=4, unique=True)):
        body[field] = draw(st.one_of(hostile, st.integers(0, 3), st.just("cholek-tiga"), st.just("pass")))
    if "options" in body and draw(st.booleans()):
        body["options"] = {"point_value_cents": draw(hostile)}
    if draw(st.booleans()):
        body["nested"] = [draw(hostile)]
    return _encode(body).encode()


CONTENT_TYPES = [
    "application/json",
    "application/json; charset=utf-8",
    "text/plain",
    "application/x-www-form-urlencoded",
]


def operations(scene: Scene) -> list[tuple[str, str, Callable[[Scene], dict[str, str]]]]:
    def player(s: Scene) -> dict[str, str]:
        return {"Authorization": f"Bearer {s.alice}", "Idempotency-Key": "fuzz"}

    def nobody(s: Scene) -> dict[str, str]:
        return {}

    return [
        ("POST", "/v1/players", nobody),
        ("POST", "/v1/tables", player),
        ("POST", f"/v1/tables/{scene.table}/seats", player),
        ("POST", f"/v1/tables/{scene.other_table}/seats", player),
        ("POST", f"/v1/tables/{scene.table}/actions", player),
        ("POST", "/v1/reports/dispute", player),
    ]


def event_count(container: Container) -> int:
    with container.pool.connection() as conn:
        row = conn.execute("SELECT count(*) AS n FROM events").fetchone()
    return int(row["n"])


def assert_problem_or_success(response: Any, what: str) -> None:
    assert response.status_code < 500, f"{what}: {response.status_code} {response.get_data(as_text=True)[:300]}"
    if response.status_code >= 400:
        assert response.headers["Content-Type"].startswith("application/problem+json"), what
        body = response.get_json()
        assert body["status"] == response.status_code and body["code"], what


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_hostile_bodies_never_answer_5xx_and_append_nothing(
    api: Api, scene: Scene, container: Container, data: st.DataObject
) -> None:
    client: FlaskClient = api.client
    method, path, headers_for = data.draw(st.sampled_from(operations(scene)), label="operation")
    body = data.draw(hostile_bodies(), label="body")
    content_type = data.draw(st.sampled_from(CONTENT_TYPES), label="content type")
    before = event_count(container)
    response = client.open(path, method=method, data=body, headers={**headers_for(scene), "Content-Type": content_type})
    assert_problem_or_success(response, f"{method} {path} {body[:80]!r}")
    if response.status_code >= 400:
        assert event_count(container) == before, "a refused request appended events"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    parameter=st.sampled_from(["after", "limit", "game", "status", "player_id", "table_id", "deal_no", "format"]),
    value=st.one_of(
        st.integers(19, 6000).map(lambda n: "9" * n),
        st.sampled_from(["%ED%A0%80", "%00", "%FF", "-1", "1.5", "NaN", "[]", "%F0%9F%82%A1"]),
    ),
    path=st.sampled_from(
        ["/v1/tables", "/events", "/ledger", "/deals/1", "/v1/reports/settlement", "/v1/reports/dispute"]
    ),
)
def test_hostile_query_strings_never_answer_5xx(api: Api, scene: Scene, parameter: str, value: str, path: str) -> None:
    if not path.startswith("/v1"):
        path = f"/v1/tables/{scene.table}{path}"
    url = f"{path}?{parameter}={value}"
    response = api.client.get(url, headers={"Authorization": f"Bearer {scene.alice}"})
    assert_problem_or_success(response, url)


@pytest.mark.parametrize(
    ("header", "value"),
    [
        ("Authorization", "Bearer " + "x" * 5000),
        ("Authorization", "Bearer \x00"),
        ("Authorization", "Basic dXNlcjpwYXNz"),
        ("If-Match", '"' + "9" * 5000 + '"'),
        ("If-Match", '"\x00"'),
        ("If-Match", 'W/"1"'),
        ("Idempotency-Key", "k" * 129),
        ("Idempotency-Key", "\x7f"),
        ("X-Request-ID", "\x00" * 10),
        ("Last-Event-ID", "9" * 5000),
        ("Content-Type", "application/json; charset=x-unknown"),
    ],
)
def test_hostile_headers_never_answer_5xx(
    api: Api, scene: Scene, container: Container, header: str, value: str
) -> None:
    before = event_count(container)
    headers = {"Authorization": f"Bearer {scene.alice}", "Idempotency-Key": "h", "Content-Type": "application/json"}
    headers[header] = value
    response = api.client.post(f"/v1/tables/{scene.table}/actions", data=b'{"type": "close"}', headers=headers)
    assert_problem_or_success(response, f"{header}: {value[:40]!r}")
    stream = api.client.get(f"/v1/tables/{scene.table}/stream", headers=headers)
    assert_problem_or_success(stream, f"stream with {header}")
    assert event_count(container) == before or response.status_code < 400


def test_each_refusal_names_the_place_of_the_value(api: Api, scene: Scene) -> None:
    headers = {"Authorization": f"Bearer {scene.alice}", "Content-Type": "application/json"}
    cases = {
        '{"game": "cholek-tiga", "seats": 2, "options": {"point_value_cents": ' + "1" * 5000 + "}}": (
            "number_too_large",
            "$.options.point_value_cents is an integer of 5000 digits",
        ),
        '{"game": "cholek-tiga", "seats": 2, "options": {"x": "\\ud800"}}': ("invalid_text", "$.options.x"),
        '{"game": "cholek-tiga", "seats": 2, "seats": 3}': ("duplicate_key", "the key 'seats' twice"),
        "[" * 40 + "]" * 40: ("nesting_too_deep", "deeper than 32 levels"),
    }
    for body, (code, words) in cases.items():
        response = api.client.post("/v1/tables", data=body, headers=headers)
        problem = response.get_json()
        assert (response.status_code, problem["code"]) == (400, code), problem
        assert words in problem["detail"], problem
