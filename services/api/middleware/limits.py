"""Rate limits (flask-limiter, counters in Redis so that every API replica shares them).

Each blueprint declares its limit (`services.api.routing.RateLimit`); the figures are the settings'
(`infra.config.RateLimits`), from the environment:

==================================  ============  ==========================================
variable                            default       meaning
==================================  ============  ==========================================
CARDLEDGER_RATE_LIMITS              on            ``off`` disables every limit (load tests)
CARDLEDGER_RATE_LIMIT_REGISTRATION  30/minute     POST /v1/players, per client address
CARDLEDGER_RATE_LIMIT_ACTIONS       20/second     POST /v1/tables/{id}/actions, per token
CARDLEDGER_RATE_LIMIT_READS         100/second    tables, seats, views, keys, streams, per token
CARDLEDGER_RATE_LIMIT_REPORTS       10/second     event pages, deal records, ledgers, reports
==================================  ============  ==========================================

Every limit is a moving window (a log of the hits of the last period, so no
burst of twice the limit across a window's edge), and a refusal is not
counted. A breach answers 429 problem+json with `Retry-After`: whole seconds
until the oldest hit in the window leaves it, at least 1, so a client that
waits as told gets through. When Redis cannot be
reached each API worker counts in its own memory until Redis answers again
(flask-limiter's in-memory fallback: one warning when it starts, one line when
Redis is back); the limits then hold per worker instead of across replicas.
Any other failure of the limiter lets the request through (swallow_errors).
A Redis that refuses the password of REDIS_URL counts as unreachable: the same
fallback (and /readyz says why).

CORS preflights (OPTIONS) are never counted nor refused: a browser sends one before a cross-origin call,
without the token, so counting it would charge the page's address, not its player, for the call
(`services.api.middleware.cors`).

The client address is `request.remote_addr`: the peer's, or with
CARDLEDGER_TRUSTED_PROXIES the one the trusted proxies forwarded
(`services.api.middleware.proxies`); with 0, X-Forwarded-For changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from flask import Flask, Response, request
from flask_limiter import HeaderNames, Limiter
from flask_limiter.util import get_remote_address

from infra.config import RateLimits
from infra.redis_clients import is_sentinel_url, parse_sentinel_url
from services.api.middleware.auth import token_key
from services.api.routing import Blueprint

# flask-limiter writes its own Retry-After on every response, as int(reset - now) from a reset time it has
# already rounded: 0 for a refusal in the last second of a window. It writes it under this name instead,
# which is dropped; the 429 problem carries the true figure (`retry_after_seconds`).
_LIMITER_RETRY_AFTER = "X-Cardledger-Limiter-Retry-After"


def limit_config(limits: RateLimits) -> dict[str, Any]:
    """The Flask settings of the limits (a test's `config` may override them)."""
    return {
        "RATE_LIMITS_ENABLED": limits.enabled,
        "RATE_LIMIT_REGISTRATION": limits.registration,
        "RATE_LIMIT_ACTIONS": limits.actions,
        "RATE_LIMIT_READS": limits.reads,
        "RATE_LIMIT_REPORTS": limits.reports,
    }


def _is_preflight() -> bool:
    """OPTIONS: a CORS preflight (or a client asking what a path allows); Flask answers it without a view."""
    return request.method == "OPTIONS"


def _drop_limiter_retry_after(response: Response) -> Response:
    # getlist scans without raising: `pop` of an absent header (every answer while limits are off) makes and
    # catches a KeyError.
    if response.headers.getlist(_LIMITER_RETRY_AFTER):
        del response.headers[_LIMITER_RETRY_AFTER]
    return response


# A Redis that does not answer costs a request at most this long before the in-memory fallback takes over.
# (Parameters in REDIS_URL's query string win: redis-py's from_url lets them.)
STORAGE_OPTIONS: dict[str, str | int] = {"socket_connect_timeout": 2, "socket_timeout": 2}


def storage_uri(redis_url: str | None) -> str:
    """limits' storage URI for REDIS_URL: the same URL (credentials, rediss:// and query parameters such as
    ssl_ca_certs pass through to redis-py's from_url), except unix:// which limits spells redis+unix://, and a
    redis+sentinel:// URL without its database number (`storage_options` passes it)."""
    if not redis_url:
        return "memory://"
    if is_sentinel_url(redis_url):
        return parse_sentinel_url(redis_url).limits_uri()
    if redis_url.startswith("unix://"):
        return "redis+unix://" + redis_url.removeprefix("unix://")
    return redis_url


def storage_options(uri: str, redis_url: str | None) -> dict[str, str | int]:
    """Connection options of limits' storage at `uri`: the timeouts for any Redis (redis, rediss, redis+unix,
    redis+sentinel), and a Sentinel URL's database number."""
    if not uri.startswith("redis"):
        return {}
    options = dict(STORAGE_OPTIONS)
    if redis_url and is_sentinel_url(redis_url) and uri == storage_uri(redis_url):
        options["db"] = parse_sentinel_url(redis_url).db
    return options


def install_limits(app: Flask, redis_url: str | None, blueprints: Iterable[Blueprint]) -> Limiter:
    """The limiter of `app`, each of `blueprints` limited as it declares."""
    config = app.config
    uri = config.get("RATELIMIT_STORAGE_URI") or storage_uri(redis_url)
    if config["RATE_LIMITS_ENABLED"]:  # off, the limiter sends no header to drop
        # Registered before the limiter's own hook, so it runs after it (Flask runs after_request hooks in reverse).
        app.after_request(_drop_limiter_retry_after)
    limiter = Limiter(
        get_remote_address,
        app=app,
        storage_uri=uri,
        storage_options=storage_options(uri, redis_url),
        headers_enabled=True,
        header_name_mapping={HeaderNames.RETRY_AFTER: _LIMITER_RETRY_AFTER},
        swallow_errors=True,
        in_memory_fallback_enabled=True,
        enabled=bool(config["RATE_LIMITS_ENABLED"]),
        key_prefix="cardledger:ratelimit",
        strategy="moving-window",
    )
    limiter.request_filter(_is_preflight)
    for blueprint in blueprints:
        declared = blueprint.rate_limit
        if declared is None:
            continue
        key_func = get_remote_address if declared.per == "address" else token_key
        limiter.limit(str(config[f"RATE_LIMIT_{declared.limit.upper()}"]), key_func=key_func)(blueprint)
    return limiter
