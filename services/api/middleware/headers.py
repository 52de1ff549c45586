"""Conditional request headers: ETag / If-None-Match on reads, If-Match on actions."""

from __future__ import annotations

import re
from typing import Any

import flask
from flask import Response

from services.api.middleware.problems import ApiError

_IF_MATCH = re.compile(r'^\s*(?:"(\d{1,10})"|(\d{1,10}))\s*$')

IF_NONE_MATCH = "HTTP_IF_NONE_MATCH"  # the header as the WSGI environ holds it
ETAG_HEADER = {"ETag": {"description": 'the table version, "<version>"', "schema": {"type": "string"}}}


def etag(version: int) -> str:
    return f'"{version}"'


def not_modified(version: int) -> Response | None:
    """A 304 when the request's If-None-Match names `version` (or is `*`)."""
    served = flask.request
    if IF_NONE_MATCH not in served.environ:  # werkzeug would parse the absent header into an empty set of tags
        return None
    tags = served.if_none_match
    if tags and tags.contains_weak(str(version)):
        response = Response(status=304)
        response.headers["ETag"] = etag(version)
        return response
    return None


def with_etag(view: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]] | Response:
    version = int(view["version"])
    cached = not_modified(version)
    if cached is not None:
        return cached
    return view, 200, {"ETag": etag(version)}


def parse_if_match(raw: str | None) -> int | None:
    if raw is None or raw.strip() == "*":
        return None
    match = _IF_MATCH.match(raw)
    if match is None:
        raise ApiError(400, "invalid_if_match", 'If-Match must be a table version in quotes, e.g. "12"')
    return int(match.group(1) or match.group(2))
