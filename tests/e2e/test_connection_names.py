"""Who is who in pg_stat_activity: every process of `cardledger up` names its PostgreSQL connections after its
component (`infra.db.application_name`)."""

from __future__ import annotations

import psycopg
import pytest

from tests.e2e.bots import call, register
from tests.faults.servers import wait_until

pytestmark = pytest.mark.slow

COMPONENTS = {"cardledger-api", "cardledger-relay", "cardledger-projector", "cardledger-clock"}


def names(database_url: str) -> set[str]:
    with psycopg.connect(database_url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT DISTINCT application_name FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
    return {row[0] for row in rows}


def test_each_component_s_connections_carry_its_name(stack: str, migrated_database_url: str) -> None:
    _, token = register(stack, "named")
    call("POST", f"{stack}/v1/tables", {"game": "cholek-tiga", "seats": 2}, token)  # the API's pool, a job
    wait_until(lambda: names(migrated_database_url) >= COMPONENTS, timeout=30, what=f"connections named {COMPONENTS}")
