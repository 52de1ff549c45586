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
