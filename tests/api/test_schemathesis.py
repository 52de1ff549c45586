"""Property-based tests of every operation from the OpenAPI document (schemathesis, through WSGI).

Checks: no 5xx, status codes / content types / headers documented, and bodies
valid against the documented schemas. (negative_data_rejection is left out: it
reports generated extra query parameters that cannot be serialised, e.g. an
empty list, and so are never sent, as "accepted"; tests/api/test_errors.py
covers invalid input.) Authenticated as
a player seated at a real table; generated table ids are replaced by that
table's id so the deeper paths (rules, conflicts) are exercised too.
"""

from __future__ import annotations

import os
import uuid
from typing import Any

import pytest
import schemathesis
from flask import Flask
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from services.api import create_app
from services.api.spec import spec_dict
from services.bootstrap import Container
from tests.api.conftest import TEST_CONFIG, Api
from tests.conftest import empty_all_tables

EXAMPLES = int(os.environ.get("CARDLEDGER_SCHEMATHESIS_EXAMPLES", "60"))
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


@pytest.fixture(scope="module")
def st_world(container: Container, api_database_url: str) -> dict[str, Any]:
    empty_all_tables(api_database_url)
    container.redis.flushdb()
    app = create_app(container=container, config={**TEST_CONFIG, "SSE_MAX_SECONDS": 0.05})
    api = Api(app.test_client())
    _, alice = api.register("alice")
    _, bob = api.register("bob")
    table = api.open_table(alice)["id"]
    api.sit(alice, table)
    api.sit(bob, table)
    return {"app": app, "token": alice, "table": table}


# The same document the app serves at /openapi.json (test_spec checks that); building it needs no server.
schema = schemathesis.openapi.from_dict(spec_dict())


def _is_uuid(value: Any) -> bool:
    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return True


@pytest.mark.slow
@schema.parametrize()
@settings(
    max_examples=int(os.environ.get("CARDLEDGER_SCHEMATHESIS_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_every_operation(case: Any, st_world: dict[str, Any]) -> None:
    if case.path_parameters and _is_uuid(case.path_parameters.get("table_id")):
        case.path_parameters["table_id"] = st_world["table"]
    app: Flask = st_world["app"]
    case.call_and_validate(app=app, headers={"Authorization": f"Bearer {st_world['token']}"}, checks=CHECKS)
