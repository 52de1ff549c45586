"""Bearer authentication: `Authorization: Bearer <token>` on every /v1 call except registration."""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable
from typing import Any, TypeVar, cast

import flask

from services.api.deps import container
from services.api.middleware.problems import ApiError
from services.app.callers import Caller

F = TypeVar("F", bound=Callable[..., Any])

# Tokens are "<uuid>.<secret>" (players) or the configured operator token: printable ASCII, bounded.
_TOKEN = re.compile(r"^[\x21-\x7e]{1,512}$")
_BEARER = re.compile(r"^Bearer[ \t]+(\S+)[ \t]*$", re.IGNORECASE)

SECURITY: list[dict[str, list[str]]] = [{"bearerAuth": []}]


def _unauthorized(detail: str, code: str = "unauthorized") -> ApiError:
    return ApiError(401, code, detail, {"WWW-Authenticate": 'Bearer realm="cardledger"'})


# The header as the WSGI environ holds it: what `request.headers.get("Authorization")` reads, without the
# lookup's key mangling.
AUTHORIZATION = "HTTP_AUTHORIZATION"


def bearer_token() -> str | None:
    return _bearer(flask.request.environ.get(AUTHORIZATION))


def _bearer(header: str | None) -> str | None:
    if header is None:
        return None
    match = _BEARER.match(header)
    if match is None or not _TOKEN.match(match.group(1)):
        return None
    return match.group(1)


def token_key() -> str:
    """A rate-limit key per bearer token (hashed: the key lands in Redis), else per address."""
    token = bearer_token()
    if token is None:
        return f"ip:{flask.request.remote_addr or 'unknown'}"
    return "token:" + hashlib.sha256(token.encode()).hexdigest()[:32]


def authenticate() -> Caller:
    header = flask.request.environ.get(AUTHORIZATION)
    if header is None:
        raise _unauthorized("this call needs an 'Authorization: Bearer <token>' header", "missing_token")
    token = _bearer(header)
    if token is None:
        raise _unauthorized("the Authorization header must be 'Bearer <token>'", "invalid_token")
    caller = container().ledger.identity.authenticate(token)
    if caller is None:
        raise _unauthorized("the bearer token is not valid", "invalid_token")
    return caller


def authenticated(view: F) -> F:
    """Authenticate before anything else (so 401 comes before validation errors and 404s)."""

    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        flask.g.caller = authenticate()
        return view(*args, **kwargs)

    return cast(F, wrapper)


def caller() -> Caller:
    found: Caller = flask.g.caller
    return found
