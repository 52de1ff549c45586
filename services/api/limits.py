"""Rate limits (flask-limiter, counters in Redis so that every API replica shares them).

Configured by the environment:

==================================  ============  ==========================================
variable                            default       meaning
==================================  ============  ==========================================
CARDLEDGER_RATE_LIMITS              on            ``off`` disables every limit (load tests)
CARDLEDGER_RATE_LIMIT_REGISTRATION  30/minute     POST /v1/players, per client address
CARDLEDGER_RATE_LIMIT_ACTIONS       20/second     POST /v1/tables/{id}/actions, per token
==================================  ============  ==========================================

A breach answers 429 problem+json with `Retry-After`. When Redis cannot be
reached each API worker counts in its own memory until Redis answers again
(flask-limiter's in-memory fallback: one warning when it starts, one line when
Redis is back); the limits then hold per worker instead of across replicas.
Any other failure of the limiter lets the request through (swallow_errors).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from flask import Flask
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

from services.api import actions, players
from services.api.auth import token_key

DEFAULT_REGISTRATION = "30/minute"
DEFAULT_ACTIONS = "20/second"


def limit_config(environ: Mapping[str, str] = os.environ) -> dict[str, Any]:
    enabled = (environ.get("CARDLEDGER_RATE_LIMITS") or "on").strip().lower() not in ("off", "0", "false", "no")
    return {
        "RATE_LIMITS_ENABLED": enabled,
        "RATE_LIMIT_REGISTRATION": (environ.get("CARDLEDGER_RATE_LIMIT_REGISTRATION") or DEFAULT_REGISTRATION).strip(),
        "RATE_LIMIT_ACTIONS": (environ.get("CARDLEDGER_RATE_LIMIT_ACTIONS") or DEFAULT_ACTIONS).strip(),
    }


def storage_uri(redis_url: str | None) -> str:
    if not redis_url:
        return "memory://"
    if redis_url.startswith("unix://"):
        return "redis+unix://" + redis_url.removeprefix("unix://")
    return redis_url


def install_limits(app: Flask, redis_url: str | None) -> Limiter:
    config = app.config
    uri = config.get("RATELIMIT_STORAGE_URI") or storage_uri(redis_url)
    limiter = Limiter(
        get_remote_address,
        app=app,
        storage_uri=uri,
        headers_enabled=True,
        swallow_errors=True,
        in_memory_fallback_enabled=True,
        enabled=bool(config["RATE_LIMITS_ENABLED"]),
        key_prefix="cardledger:ratelimit",
        strategy="fixed-window",
    )
    limiter.limit(str(config["RATE_LIMIT_REGISTRATION"]), key_func=get_remote_address)(players.blp)
    limiter.limit(str(config["RATE_LIMIT_ACTIONS"]), key_func=token_key)(actions.blp)
    return limiter
