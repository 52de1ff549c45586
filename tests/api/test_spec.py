"""The OpenAPI document: served at /openapi.json, committed as api-spec/openapi.json, and the two agree."""

from __future__ import annotations

import json

from flask.testing import FlaskClient

from services.api.spec.document import REGENERATE, SPEC_PATH, spec_dict, spec_text


def test_committed_spec_matches_the_code() -> None:
    committed = SPEC_PATH.read_text(encoding="utf-8") if SPEC_PATH.exists() else ""
    assert committed == spec_text(), f"api-spec/openapi.json is out of date; regenerate it with: {REGENERATE}"


def test_served_spec_is_the_generated_one(client: FlaskClient) -> None:
    response = client.get("/openapi.json")
    assert response.status_code == 200
    served = response.get_json()
    assert served["openapi"] == "3.1.0"
    assert json.dumps(served, sort_keys=True) == json.dumps(spec_dict(), sort_keys=True)


def test_every_operation_documents_problem_errors() -> None:
    spec = spec_dict()
    responses = spec["components"]["responses"]
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method == "parameters":
                continue
            codes = operation["responses"]
            errors = [code for code in codes if code == "default" or int(code) >= 400]
            assert errors, (method, path)
            for code in errors:
                ref = codes[code]["$ref"].rsplit("/", 1)[-1]
                content = responses[ref]["content"]
                assert set(content) == {"application/problem+json"}, (method, path, code)
            if path.startswith("/v1/") and path not in ("/v1/players", "/v1/keys"):  # the two public ones
                assert operation["security"] == [{"bearerAuth": []}]
                assert "401" in codes


def test_docs_page(client: FlaskClient) -> None:
    response = client.get("/docs")
    assert response.status_code == 200
    assert "swagger" in response.get_data(as_text=True).lower()


def test_every_parameter_a_route_reads_is_documented() -> None:
    """A manual `doc(parameters=...)` once replaced the generated list and hid `min_version` on the table reads."""
    operations = spec_dict()["paths"]
    for path in ("/v1/tables/{table_id}", "/v1/tables/{table_id}/view"):
        names = {p["name"] for p in operations[path]["get"]["parameters"]}
        assert {"min_version", "If-None-Match"} <= names, (path, names)
    assert {p["name"] for p in operations["/v1/tables/{table_id}/actions"]["post"]["parameters"]} >= {
        "Idempotency-Key",
        "If-Match",
    }


def test_document_is_valid_openapi() -> None:
    from openapi_spec_validator import validate

    validate(spec_dict())


def test_every_operation_has_a_unique_operation_id_and_a_tag() -> None:
    spec = spec_dict()
    declared = {tag["name"] for tag in spec["tags"]}
    assert all(tag.get("description") for tag in spec["tags"])
    seen: dict[str, tuple[str, str]] = {}
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method == "parameters":
                continue
            operation_id = operation.get("operationId")
            assert operation_id, (method, path)
            assert operation_id not in seen, (operation_id, seen.get(operation_id), (method, path))
            seen[operation_id] = (method, path)
            assert operation.get("tags"), (method, path)
            assert set(operation["tags"]) <= declared, (method, path)


def test_info_version_is_the_package_version_and_servers_are_listed() -> None:
    from services.api.spec.meta import package_version

    spec = spec_dict()
    assert spec["info"]["version"] == package_version() != "0.0.0"
    assert spec["servers"] and all(server.get("description") for server in spec["servers"])
    responses = spec["components"]["responses"]
    for name in ("TOO_MANY_REQUESTS", "SERVICE_UNAVAILABLE"):
        assert "Retry-After" in responses[name]["headers"], name
