"""The Prefer header (RFC 7240) as the API reads it, and the long-poll wait's setting."""

from __future__ import annotations

import pytest

from infra.config import ServingLimits
from services.api.middleware.prefer import preferences, preferred_wait, wants_representation


@pytest.mark.parametrize(
    ("raw", "wanted"),
    [
        ("return=representation", True),
        ('RETURN="Representation"; charset=x', True),
        ("wait=5, return=representation", True),
        ("return=minimal", False),
        ("return=minimal, return=representation", False),  # the first of a name wins
        ("respond-async", False),
        ("", False),
        (None, False),
        (",;=,,", False),
    ],
)
def test_return_representation(raw: str | None, wanted: bool) -> None:
    assert wants_representation(raw) is wanted


@pytest.mark.parametrize(
    ("raw", "seconds"),
    [("wait=10", 10), ("return=representation, wait=0", 0), ("wait=-1", None), ("wait=1.5", None), ("wait", None)],
)
def test_wait(raw: str, seconds: int | None) -> None:
    assert preferred_wait(raw) == seconds


def test_preferences_keep_names_lowercase_and_drop_parameters() -> None:
    assert preferences("Return=representation; a=b, Wait=3") == {"return": "representation", "wait": "3"}


def test_long_poll_seconds_is_bounded() -> None:
    assert ServingLimits.from_env({}).long_poll_seconds == 25
    assert ServingLimits.from_env({"CARDLEDGER_LONG_POLL_SECONDS": "5"}).long_poll_seconds == 5
    for bad in ("0", "61", "x"):
        with pytest.raises(ValueError, match="CARDLEDGER_LONG_POLL_SECONDS"):
            ServingLimits.from_env({"CARDLEDGER_LONG_POLL_SECONDS": bad})
