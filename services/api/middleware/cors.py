"""Cross-origin calls from browsers (CORS), for the origins of CARDLEDGER_CORS_ORIGINS (`infra.config`).

Unset (the default), the API sends no CORS header at all: a browser page of another origin cannot read its
answers. With exact origins, a request whose `Origin` is one of them is answered with
`Access-Control-Allow-Origin: <that origin>` (and every answer says `Vary: Origin`); any other origin gets
no CORS header, so the browser refuses the answer to the page. With `*`, every origin is answered `*` (the API
authenticates with bearer tokens, never cookies, so no credentials are ever allowed).

Preflights (`OPTIONS` with `Access-Control-Request-Method`) are answered by Flask's automatic OPTIONS
response, before any view: no token is needed (a browser sends none), the rate limiter does not count them
(`services.api.middleware.limits`), and the admission middleware lets them through as requests without a token. They
allow the methods and request headers a client of the API sends, and are cached by the browser for
`MAX_AGE_SECONDS`. The answers expose the headers a client reads (`EXPOSED_HEADERS`): ETag, Location, Link,
Retry-After, the rate limiter's X-RateLimit-* and X-Request-ID.

The admission middleware's own refusals (429 and 503 with Retry-After) are made outside Flask; they carry
the same headers through `CorsPolicy.headers_for`, so a page can read them and wait as told.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from flask import Flask, Response
from flask_cors import CORS
from flask_limiter import HeaderNames

from infra.config import ANY_ORIGIN

ALLOWED_METHODS = ("GET", "HEAD", "POST", "OPTIONS")
ALLOWED_HEADERS = (
    "Accept",
    "Authorization",
    "Content-Type",
    "Idempotency-Key",
    "If-Match",
    "If-None-Match",
    "Last-Event-ID",
    "X-Request-ID",
)
EXPOSED_HEADERS = (
    "ETag",
    "Link",
    "Location",
    "Retry-After",
    HeaderNames.LIMIT.value,
    HeaderNames.REMAINING.value,
    HeaderNames.RESET.value,
    "X-Request-ID",
)
MAX_AGE_SECONDS = 600


class CorsPolicy:
    """Which origins may read the API's answers, and the headers that say so."""

    def __init__(self, origins: Sequence[str]) -> None:
        self.origins = tuple(origins)
        self.any_origin = self.origins == (ANY_ORIGIN,)
        self._allowed = frozenset(self.origins)

    @property
    def enabled(self) -> bool:
        return bool(self.origins)

    def allowed_origin(self, origin: str | None) -> str | None:
        """The value of Access-Control-Allow-Origin for a request from `origin`; None: no CORS header."""
        if not origin or not self.enabled:
            return None
        if self.any_origin:
            return ANY_ORIGIN
        return origin if origin.lower() in self._allowed else None

    def headers_for(self, environ: Mapping[str, Any]) -> dict[str, str]:
        """The CORS headers of an answer made outside Flask (the admission middleware's refusals)."""
        if not self.enabled:
            return {}
        headers = {} if self.any_origin else {"Vary": "Origin"}
        allowed = self.allowed_origin(environ.get("HTTP_ORIGIN"))
        if allowed is not None:
            headers["Access-Control-Allow-Origin"] = allowed
            headers["Access-Control-Expose-Headers"] = ", ".join(sorted(EXPOSED_HEADERS))
        return headers

    def flask_cors_options(self) -> dict[str, Any]:
        """flask-cors's options. Exact origins are given as anchored, escaped patterns: flask-cors would read a
        plain string holding `[` (an IPv6 host) as a regular expression, and matches patterns at the start only."""
        origins: str | list[re.Pattern[str]] = (
            ANY_ORIGIN
            if self.any_origin
            else [re.compile(re.escape(origin) + r"\Z", re.IGNORECASE) for origin in self.origins]
        )
        return {
            "origins": origins,
            "send_wildcard": self.any_origin,
            "methods": list(ALLOWED_METHODS),
            "allow_headers": list(ALLOWED_HEADERS),
            "expose_headers": list(EXPOSED_HEADERS),
            "max_age": MAX_AGE_SECONDS,
            "supports_credentials": False,
            "always_send": False,  # no Origin, no CORS header (flask-cors would otherwise list every origin)
            "vary_header": False,  # `_vary_on_origin` says it on every answer, allowed or not
            "automatic_options": True,
        }


def install_cors(app: Flask, origins: Sequence[str]) -> CorsPolicy:
    """CORS for `origins` (nothing at all when empty)."""
    policy = CorsPolicy(origins)
    if not policy.enabled:
        return policy
    CORS(app, **policy.flask_cors_options())
    if not policy.any_origin:

        @app.after_request
        def _vary_on_origin(response: Response) -> Response:
            # The answer differs by Origin (a header for one, none for another): a shared cache must know.
            response.vary.add("Origin")
            return response

    return policy
