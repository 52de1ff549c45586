"""The running stack (`cardledger up` against the test database) shared by the end-to-end modules."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest

from services.cli.simulate.stack import embedded_stack

AUDITOR = "e2e-auditor-" + secrets.token_hex(16)


@pytest.fixture(scope="module")
def stack(migrated_database_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from running_stack(migrated_database_url, redis_url, tmp_path_factory, rate_limits="off")


@pytest.fixture(scope="module")
def shipped_stack(
    migrated_database_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """The stack with the rate limits as shipped (what a client meets)."""
    yield from running_stack(migrated_database_url, redis_url, tmp_path_factory, rate_limits="on")


def running_stack(
    database_url: str,
    redis_url: str,
    tmp_path_factory: pytest.TempPathFactory,
    rate_limits: str,
    auditor: str = AUDITOR,
) -> Iterator[str]:
    log = tmp_path_factory.mktemp("stack") / "up.log"
    env = {
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "CARDLEDGER_AUDITOR_TOKEN": auditor,
        "CARDLEDGER_WORKERS": "2",
        "CARDLEDGER_API_WORKERS": "2",
        "CARDLEDGER_RATE_LIMITS": rate_limits,
        "CARDLEDGER_DATA_DIR": str(tmp_path_factory.mktemp("data")),
        "CARDLEDGER_API_METRICS_PORT": "0",
    }
    with embedded_stack(env, log, timeout=120) as running:
        yield running.base_url
