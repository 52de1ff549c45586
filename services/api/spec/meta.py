"""Pieces of the OpenAPI document that do not belong to one blueprint: the package version and the response
headers shared by many operations (components/headers)."""

from __future__ import annotations

import http
import tomllib
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path
from typing import Any

from apispec import BasePlugin

PACKAGE = "cardledger"
PYPROJECT = Path(__file__).resolve().parents[3] / "pyproject.toml"

RATE_LIMIT_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")

RESPONSE_HEADERS: dict[str, dict[str, Any]] = {
    "Retry-After": {
        "description": "whole seconds to wait before retrying",
        "schema": {"type": "integer", "minimum": 0},
    },
    "X-RateLimit-Limit": {
        "description": "requests allowed in the current window of the route's limit",
        "schema": {"type": "integer", "minimum": 0},
    },
    "X-RateLimit-Remaining": {
        "description": "requests left in the current window",
        "schema": {"type": "integer", "minimum": 0},
    },
    "X-RateLimit-Reset": {
        "description": "when the window resets, in seconds since the Unix epoch",
        "schema": {"type": "integer", "minimum": 0},
    },
}


def header_ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/headers/{name}"}


# flask-smorest registers one response component per status, described by the status's phrase.
RETRY_AFTER_PHRASES = frozenset(http.HTTPStatus(status).phrase for status in (429, 503))


class SharedHeadersPlugin(BasePlugin):
    """What the error answers and many operations share, through apispec's plugin hooks. The response
    components (flask-smorest's error responses) are `error_type` with Retry-After on 429 and 503; the
    successful answers of the operations tagged `limited_tags` carry X-RateLimit-*."""

    def __init__(self, limited_tags: Iterable[str], error_type: str) -> None:
        self.limited_tags = frozenset(limited_tags)
        self.error_type = error_type

    def response_helper(self, response: dict[str, Any], **kwargs: Any) -> dict[str, Any] | None:
        changed: dict[str, Any] = {}
        content = response.get("content")
        if content:  # one media type, flask-smorest's default
            changed["content"] = {self.error_type: next(iter(content.values()))}
        if response.get("description") in RETRY_AFTER_PHRASES:
            changed["headers"] = {"Retry-After": header_ref("Retry-After")}
        return changed

    def operation_helper(
        self, path: str | None = None, operations: dict[str, Any] | None = None, **kwargs: Any
    ) -> None:
        for operation in (operations or {}).values():
            if not isinstance(operation, dict) or not self.limited_tags.intersection(operation.get("tags", ())):
                continue
            for code, response in operation.get("responses", {}).items():
                if str(code).startswith("2") and isinstance(response, dict):
                    headers = response.setdefault("headers", {})
                    for name in RATE_LIMIT_HEADERS:
                        headers.setdefault(name, header_ref(name))


def package_version() -> str:
    """pyproject's `version`: from the installed distribution, else read from pyproject.toml itself."""
    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        pass
    try:
        with PYPROJECT.open("rb") as handle:
            return str(tomllib.load(handle)["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "0.0.0"


def table_links(table_id: str, deal_no: str | None = None) -> dict[str, dict[str, Any]]:
    """OpenAPI links from an answer about a table to every operation on it; `table_id` and `deal_no` are runtime
    expressions naming them in that answer (or its request)."""
    on_table = {"path.table_id": table_id}
    links: dict[str, dict[str, Any]] = {
        "getTable": {"operationId": "getTable", "parameters": on_table, "description": "the table's public state"},
        "getSeatView": {"operationId": "getSeatView", "parameters": on_table, "description": "your seat's view"},
        "sit": {"operationId": "sit", "parameters": on_table, "description": "sit down at the table"},
        "act": {"operationId": "act", "parameters": on_table, "description": "act at the table"},
        "listEvents": {"operationId": "listEvents", "parameters": on_table, "description": "the table's events"},
        "followTable": {"operationId": "followTable", "parameters": on_table, "description": "its live events"},
        "getLedger": {"operationId": "getLedger", "parameters": on_table, "description": "the table's ledger"},
        "getSettlementReport": {
            "operationId": "getSettlementReport",
            "parameters": {"query.table_id": table_id},
            "description": "the table's settlement",
        },
        "getSettlementCsv": {
            "operationId": "getSettlementCsv",
            "parameters": {"query.table_id": table_id},
            "description": "the table's settlement as CSV",
        },
    }
    if deal_no is not None:
        links["getDeal"] = {
            "operationId": "getDeal",
            "parameters": {**on_table, "path.deal_no": deal_no},
            "description": "the record of the deal",
        }
        links["getDisputeReport"] = {
            "operationId": "getDisputeReport",
            "parameters": {"query.table_id": table_id, "query.deal_no": deal_no},
            "description": "the dispute report of the deal",
        }
        links["getDisputePage"] = {
            "operationId": "getDisputePage",
            "parameters": {"query.table_id": table_id, "query.deal_no": deal_no},
            "description": "the dispute report of the deal as a page",
        }
    return links
