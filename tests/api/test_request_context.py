"""The pipeline's cheaper spellings give what the ones they replace gave: the path converter's UUIDs, the request
ids, and the request, `g` and app read from Flask's context variables."""

from __future__ import annotations

import uuid
from urllib.parse import parse_qs

import pytest
from flask import Flask, current_app, g, request
from hypothesis import given
from hypothesis import strategies as st

from services.api.admission import names_parameter
from services.api.context import current_flask_app, current_g, current_request
from services.api.converters import TableIdConverter, uuid_of_matched
from services.logs import new_request_id


def _spellings(made: uuid.UUID) -> list[str]:
    text = str(made)
    return [text, text.upper(), text[:9] + text[9:].upper(), text[:19].upper() + text[19:]]


@given(st.uuids(version=None))
def test_a_matched_uuid_is_the_uuid_werkzeug_would_make(made: uuid.UUID) -> None:
    for text in _spellings(made):
        fast, slow = uuid_of_matched(text), uuid.UUID(text)
        assert fast == slow and hash(fast) == hash(slow)
        assert (fast.int, fast.is_safe, str(fast), repr(fast)) == (slow.int, slow.is_safe, str(slow), repr(slow))
        assert (fast.version, fast.variant, fast.hex) == (slow.version, slow.variant, slow.hex)


def test_the_app_routes_table_ids_through_the_converter_and_refuses_what_werkzeug_refused(app: Flask) -> None:
    assert app.url_map.converters["uuid"] is TableIdConverter
    adapter = app.url_map.bind("localhost")
    table = uuid.uuid4()
    endpoint, values = adapter.match(f"/v1/tables/{str(table).upper()}/view", method="GET")
    assert endpoint == "tables.seat_view" and values == {"table_id": table}
    assert type(values["table_id"]) is uuid.UUID
    text = str(table)
    for wrong in ("not-a-uuid", text.replace("-", ""), text[:-1], text + "0", "g" + text[1:]):
        with pytest.raises(Exception) as refused:
            adapter.match(f"/v1/tables/{wrong}/view", method="GET")
        assert getattr(refused.value, "code", None) == 404, wrong


def test_request_ids_are_uuid4_hex() -> None:
    made = {new_request_id() for _ in range(2000)}
    assert len(made) == 2000
    for request_id in made:
        parsed = uuid.UUID(request_id)
        assert parsed.hex == request_id and parsed.version == 4 and parsed.variant == uuid.RFC_4122


def test_the_context_reads_are_flasks_proxies_objects() -> None:
    app = Flask("context")
    with app.test_request_context("/somewhere?x=1"):
        assert current_request() is request._get_current_object()  # type: ignore[attr-defined]
        assert current_g() is g._get_current_object()  # type: ignore[attr-defined]
        assert current_flask_app() is current_app._get_current_object() is app  # type: ignore[attr-defined]
    with app.app_context():
        assert current_flask_app() is app and current_g() is g._get_current_object()  # type: ignore[attr-defined]
        with pytest.raises(RuntimeError, match="request context"):
            current_request()
    with pytest.raises(RuntimeError, match="application context"):
        current_g()
    with pytest.raises(RuntimeError, match="application context"):
        current_flask_app()


QUERY_PIECES = st.sampled_from(
    [
        *("wait_for_version", "wait", "_for_version", "%5F", "%5f", "%77", "+", "%2B", "%20", " ", "=", "&", ""),
        *("1", "a", "%", "%zz", "%C3%A9", "\u00e9", "wait%5Ffor%5Fversion", "wait_for_version=", ";", "x"),
    ]
)


@given(st.lists(QUERY_PIECES, max_size=12).map("".join), st.sampled_from(["wait_for_version", "x", "a b"]))
def test_admission_finds_a_query_parameter_as_parse_qs_does(query: str, name: str) -> None:
    assert names_parameter(query, name) == (name in parse_qs(query, keep_blank_values=True))
