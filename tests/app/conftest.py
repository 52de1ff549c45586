"""The application service (`CardLedger`) on each storage, one test case per adapter as the `eventsourcing`
library runs one per recorder: `storage` is the in-memory storage (no server at all) or PostgreSQL's (a
migrated, emptied test database). `project` brings the read models up to date where there are some
(PostgreSQL's projections, run inline); in memory the lobby and the clock's sweep are always current.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from infra.storage.memory import InMemoryStorage
from infra.storage.postgres import PostgresStorage
from services.app.ledger import CardLedger
from services.app.ports import Storage
from services.bootstrap import application
from tests.conftest import register_signer
from tests.integration.test_audit_support import project as project_all

AUDITOR_TOKEN = "auditor-token-of-the-application-tests-0123456789"


@pytest.fixture(params=["memory", "postgres"])
def storage(request: pytest.FixtureRequest) -> Storage:
    if request.param == "memory":
        return InMemoryStorage()
    return PostgresStorage(request.getfixturevalue("pool"))


@pytest.fixture
def ledger(storage: Storage) -> CardLedger:
    """Wired as the API's is (`services.bootstrap.application`), on the storage of the case."""
    ledger = application(storage, AUDITOR_TOKEN)
    register_signer(storage, ledger.signer)
    return ledger


@pytest.fixture
def project(storage: Storage) -> Callable[[], None]:
    if isinstance(storage, PostgresStorage):
        return lambda: project_all(storage.pool)
    return lambda: None
