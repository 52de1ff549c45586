"""The request ids, and the admission's look for a query parameter, which reads the query text as parse_qs does."""

from __future__ import annotations

import uuid
from urllib.parse import parse_qs

from hypothesis import given
from hypothesis import strategies as st

from services.api.middleware.admission import names_parameter
from services.logs import new_request_id


def test_request_ids_are_uuid4_hex() -> None:
    made = {new_request_id() for _ in range(2000)}
    assert len(made) == 2000
    for request_id in made:
        parsed = uuid.UUID(request_id)
        assert parsed.hex == request_id and parsed.version == 4 and parsed.variant == uuid.RFC_4122


QUERY_PIECES = st.sampled_from(
    [
        *("wait_for_version", "wait", "_for_version", "%5F", "%5f", "%77", "+", "%2B", "%20", " ", "=", "&", ""),
        *("1", "a", "%", "%zz", "%C3%A9", "\u00e9", "wait%5Ffor%5Fversion", "wait_for_version=", ";", "x"),
    ]
)


@given(st.lists(QUERY_PIECES, max_size=12).map("".join), st.sampled_from(["wait_for_version", "x", "a b"]))
def test_admission_finds_a_query_parameter_as_parse_qs_does(query: str, name: str) -> None:
    assert names_parameter(query, name) == (name in parse_qs(query, keep_blank_values=True))
