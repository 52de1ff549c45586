"""A receipt's time (`infra.signing.utc_timestamp`) is what strftime writes in UTC, byte for byte."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from infra.signing import utc_timestamp

# A day from the ends of datetime's range: a time zone may move the moment out of it (an error either way).
within = {"min_value": datetime(1, 1, 2), "max_value": datetime(9999, 12, 30)}


@given(st.datetimes(**within, timezones=st.just(UTC) | st.timezones() | st.none()))
def test_a_receipts_time_is_what_strftime_writes_in_utc(moment: datetime) -> None:
    assert utc_timestamp(moment) == moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def test_a_receipts_time_defaults_to_now() -> None:
    before = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    stamp = utc_timestamp()
    after = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert before <= stamp <= after and len(stamp) == len("2026-12-01T13:27:02.123456Z")
