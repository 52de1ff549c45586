"""Pieces of the OpenAPI document that do not belong to one blueprint: the package version and the response
headers shared by many operations (components/headers)."""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path
from typing import Any

PACKAGE = "cardledger"
PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"

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
