"""Operations: liveness and readiness. The metrics are served on a port of their own (`serve_api_metrics`)."""

from __future__ import annotations

from typing import Any

import redis
from flask import Response

from infra.migrations import pending_migrations
from infra.probes import database_down_detail
from infra.sql.session import ping
from services.api.deps import container
from services.api.middleware.problems import problem
from services.api.routing import Blueprint, errors
from services.api.schemas.answers import HealthSchema, ReadySchema

blp = Blueprint("ops", __name__, url_prefix="", description="Operations")


@blp.route("/healthz", methods=["GET"])
@blp.doc(operationId="healthz")
@blp.response(200, HealthSchema)
def healthz() -> dict[str, Any]:
    """The process is alive (no dependency is checked)."""
    return {"status": "ok"}


def _checks() -> dict[str, dict[str, Any]]:
    checks: dict[str, dict[str, Any]] = {}
    try:
        services = container()
    except Exception as error:
        detail = f"{type(error).__name__}: cannot start the services"
        return {"database": {"ok": False, "detail": detail}, "redis": {"ok": False, "detail": detail}}
    try:
        with services.pool.connection(timeout=5) as conn:
            ping(conn)
            pending = pending_migrations(conn)
        checks["database"] = {"ok": True}
        checks["migrations"] = {"ok": not pending, "pending": pending}
    except Exception as error:
        checks["database"] = {"ok": False, "detail": database_down_detail(error)}
    try:
        services.redis.ping()
        checks["redis"] = {"ok": True}
    except Exception as error:
        checks["redis"] = {"ok": False, "detail": _redis_detail(error)}
    return checks


def _redis_detail(error: Exception) -> str:
    if isinstance(error, redis.AuthenticationError):
        return f"{type(error).__name__}: redis refused the credentials of REDIS_URL"
    return f"{type(error).__name__}: redis unreachable"


@blp.route("/readyz", methods=["GET"])
@errors(blp, 503, operationId="readyz")
@blp.response(200, ReadySchema)
def readyz() -> dict[str, Any] | Response:
    """Ready when the database answers, no migration is pending and Redis answers; 503 with the checks otherwise."""
    checks = _checks()
    if all(check["ok"] for check in checks.values()) and "migrations" in checks:
        return {"status": "ready", "checks": checks}
    failing = ", ".join(name for name, check in checks.items() if not check["ok"])
    return problem(503, "not_ready", f"not ready: {failing}", checks=checks)
