"""Every error leaves as `application/problem+json` (RFC 9457): type, title, status, detail, code.

Three sources are shaped here: the application's `ServiceError`s, HTTP
exceptions (routing 404/405, webargs validation 422, malformed JSON 400,
rate limits 429) and anything unexpected (a 500 that is logged without the
request body or headers, so no token or card ever reaches a log).
"""

from __future__ import annotations

import codecs
import http
import logging
import re
import uuid
from collections.abc import Mapping
from typing import Any

import flask
import psycopg
import redis
from flask import Flask, Response, request
from psycopg_pool import PoolTimeout
from werkzeug.exceptions import HTTPException, NotFound

from infra import json_codec
from infra.errors import TableLogInconsistent
from infra.metrics import count_error
from services.api.middleware.retry_after import retry_after_seconds
from services.app.errors import ServiceError

PROBLEM_JSON = "application/problem+json"
PROBLEM_TYPE_BASE = "https://cardledger.dev/problems/"

log = logging.getLogger("cardledger.api")

# Stable codes for HTTP errors raised outside the application service.
HTTP_CODES: Mapping[int, str] = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    411: "length_required",
    412: "version_mismatch",
    413: "payload_too_large",
    414: "uri_too_long",
    415: "unsupported_media_type",
    422: "validation_error",
    429: "rate_limited",
    431: "headers_too_large",
    500: "internal_error",
    503: "unavailable",
}


class ApiError(Exception):
    """An error raised by the HTTP layer itself (header checks and the like)."""

    def __init__(self, status: int, code: str, detail: str, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = dict(headers or {})


def problem(
    status: int,
    code: str,
    detail: str,
    *,
    headers: Mapping[str, str] | None = None,
    **extra: Any,
) -> Response:
    try:
        title = http.HTTPStatus(status).phrase
    except ValueError:
        title = "Error"
    body: dict[str, Any] = {
        "type": PROBLEM_TYPE_BASE + code,
        "title": title,
        "status": status,
        "detail": detail,
        "code": code,
    }
    body.update(extra)
    count_error("api", code)
    response = Response(json_codec.dumps(body), status=status, mimetype=PROBLEM_JSON)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    if status == 401:
        response.headers.setdefault("WWW-Authenticate", 'Bearer realm="cardledger"')
    return response


def _http_exception(error: HTTPException) -> Response:
    status = error.code or 500
    code = HTTP_CODES.get(status, "http_error")
    detail = error.description or http.HTTPStatus(status).phrase
    extra: dict[str, Any] = {}
    data = getattr(error, "data", None)
    if isinstance(data, Mapping):
        messages = data.get("messages")
        if messages:
            extra["errors"] = messages
            if status == 400 and "json" in messages:
                code, detail = "malformed_json", "the request body is not valid JSON"
            elif status == 422:
                detail = "the request does not match the schema; see errors"
            elif status == 400:
                code, detail = "invalid_header", "a request header is missing or invalid; see errors"
    if status == 404 and request and error.description == NotFound.description:  # the router's, not a route's
        detail = _not_found_detail(request.path)
    headers: dict[str, str] = {}
    if status == 405:
        allowed = getattr(error, "valid_methods", None)
        if allowed:
            headers["Allow"] = ", ".join(sorted(allowed))
    if status == 429:
        detail = f"rate limit exceeded ({error.description})"
        retry = _retry_after(error)
        headers["Retry-After"] = str(retry)
    return problem(status, code, detail, headers=headers, **extra)


_TABLE_PATH = re.compile(r"^/v1/tables/([^/]+)(/.*)?$")


def _is_uuid(text: str) -> bool:
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


def _not_found_detail(path: str) -> str:
    """What a 404 of the routing means where a path names a table: its id is not one (never Flask's generic text)."""
    found = _TABLE_PATH.match(path)
    if found is None or _is_uuid(found.group(1)):
        return f"no operation of this API answers {path[:200]!r}; the operations are listed at /docs"
    return (
        f"{found.group(1)[:80]!r} is not a table id: a table id is a UUID, such as 7c9e6679-7425-40de-944b-e07fc1f90ae7"
    )


def _retry_after(error: HTTPException) -> int:
    try:
        return retry_after_seconds()
    except Exception:  # the limiter's storage failed mid-request: a short wait is the honest answer
        return 1


def handle_http_exception(error: HTTPException) -> Response:
    return _http_exception(error)


def _check_charset() -> Response | None:
    """A JSON body in an unknown charset is a 415, before any parser tries to decode it."""
    served = flask.request
    charset = served.mimetype_params.get("charset")
    if charset is not None and served.is_json:
        try:
            codecs.lookup(charset)
        except LookupError:
            return problem(415, "unsupported_charset", f"unknown charset {charset[:40]!r}; send UTF-8 JSON")
    return None


def install_error_handlers(app: Flask) -> None:
    app.before_request(_check_charset)

    @app.errorhandler(RecursionError)
    def _too_deep(error: RecursionError) -> Response:
        return problem(400, "malformed_json", "the request body is nested too deeply")

    @app.errorhandler(psycopg.OperationalError)
    @app.errorhandler(PoolTimeout)
    @app.errorhandler(redis.ConnectionError)
    @app.errorhandler(redis.TimeoutError)
    def _unavailable(error: Exception) -> Response:
        log.warning("dependency unavailable: %s", type(error).__name__)
        return problem(
            503, "unavailable", "a backing service is unavailable; retry later", headers={"Retry-After": "1"}
        )

    @app.errorhandler(TableLogInconsistent)
    def _log_inconsistent(error: TableLogInconsistent) -> Response:
        # Someone altered a stored event: an operator must look (alert CardledgerTableLogInconsistent).
        log.error("%s", error)
        count_error("api", error.code)
        return problem(409, error.code, str(error), table_id=error.stream_id, position=error.version)

    @app.errorhandler(ServiceError)
    def _service_error(error: ServiceError) -> Response:
        return problem(error.status, error.code, error.message)

    @app.errorhandler(ApiError)
    def _api_error(error: ApiError) -> Response:
        return problem(error.status, error.code, error.detail, headers=error.headers)

    @app.errorhandler(HTTPException)
    def _http_error(error: HTTPException) -> Response:
        return _http_exception(error)

    @app.errorhandler(Exception)
    def _unexpected(error: Exception) -> Response:
        if isinstance(error, HTTPException):  # pragma: no cover - routed above
            return _http_exception(error)
        # Method and path only: never the body or the headers (tokens, cards).
        log.error(
            "unhandled %s on %s %s",
            type(error).__name__,
            request.method,
            request.url_rule.rule if request.url_rule else "<unmatched>",
            exc_info=(type(error), error, error.__traceback__),
        )
        return problem(500, "internal_error", "an unexpected error occurred; it has been logged")
