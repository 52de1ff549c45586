"""The relay's and the workers' HTTP endpoint on their metrics port: /metrics, /livez and /readyz.

- `/metrics`: the default registry (Prometheus text format), as prometheus_client serves it.
- `/livez`: 200 while the process runs and serves; it reads nothing, so a PostgreSQL or Redis outage never makes
  Kubernetes restart a process that would only reconnect.
- `/readyz`: 200 `{"status": "ready", "checks": {...}}` when every check passes, else 503
  `{"status": "not_ready", "checks": {...}}`, each check `{"ok": bool, "detail"?: str}`:
  - relay: `database` (PostgreSQL answers), `relay_lock` (the relay's own session holds the advisory lock or
    waits for it: the session is alive in pg_stat_activity, and pg_locks says whether it holds the lock);
  - worker: `database` and `redis` (each answers the worker's URL).

Each check runs on a connection of the endpoint's own (short timeouts), never on the process's working ones.
"""

from __future__ import annotations

import json
import logging
import socket
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol
from wsgiref.simple_server import WSGIRequestHandler, make_server
from wsgiref.types import StartResponse, WSGIApplication, WSGIEnvironment

import psycopg
import redis
from prometheus_client import REGISTRY, CollectorRegistry, make_wsgi_app
from prometheus_client.exposition import ThreadingWSGIServer

from infra import redis_bus, redis_clients

log = logging.getLogger("cardledger.probes")

CONNECT_TIMEOUT_S = 3
STATEMENT_TIMEOUT_MS = 2000

Check = dict[str, Any]
Readiness = Callable[[], dict[str, Check]]


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # probes every few seconds: no access log
        pass


def probe_app(readiness: Readiness, registry: CollectorRegistry = REGISTRY) -> WSGIApplication:
    """/livez and /readyz as above; every other path is the metrics app (of `registry`)."""
    metrics = make_wsgi_app(registry)

    def app(environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path == "/livez":
            return _json(start_response, 200, {"status": "alive"})
        if path == "/readyz":
            checks = readiness()
            ready = all(check["ok"] for check in checks.values())
            body = {"status": "ready" if ready else "not_ready", "checks": checks}
            return _json(start_response, 200 if ready else 503, body)
        served: Iterable[bytes] = metrics(environ, start_response)
        return served

    return app


def _json(start_response: StartResponse, status: int, body: dict[str, Any]) -> list[bytes]:
    payload = json.dumps(body).encode()
    reason = "OK" if status == 200 else "Service Unavailable"
    start_response(f"{status} {reason}", [("Content-Type", "application/json"), ("Content-Length", str(len(payload)))])
    return [payload]


def start_endpoint(host: str, port: int, readiness: Readiness, registry: CollectorRegistry = REGISTRY) -> int:
    """Serve `probe_app(readiness)` on host:port in a daemon thread; the port served (OSError when it cannot bind)."""

    class Server(ThreadingWSGIServer):
        address_family = socket.AF_INET6 if ":" in host else socket.AF_INET

    server = make_server(host, port, probe_app(readiness, registry), Server, handler_class=_QuietHandler)
    threading.Thread(target=server.serve_forever, name="probe-endpoint", daemon=True).start()
    return int(server.server_address[1])


# Checks -------------------------------------------------------------------------------------------------------


class _ProbeConnection:
    """One autocommit PostgreSQL connection for the checks, opened again after a failure."""

    def __init__(self, database_url: str, component: str) -> None:
        self.database_url = database_url
        self.component = component
        self._conn: psycopg.Connection[Any] | None = None
        self._lock = threading.Lock()

    def query(self, sql: str, params: Mapping[str, Any] | None = None) -> tuple[Any, ...] | None:
        with self._lock:
            try:
                if self._conn is None or self._conn.closed or self._conn.broken:
                    self._conn = psycopg.connect(
                        self.database_url,
                        autocommit=True,
                        connect_timeout=CONNECT_TIMEOUT_S,
                        options=f"-c statement_timeout={STATEMENT_TIMEOUT_MS}",
                        application_name=f"cardledger-{self.component}-probe",
                    )
                return self._conn.execute(sql, params).fetchone()
            except psycopg.Error:
                if self._conn is not None:
                    self._conn.close()
                    self._conn = None
                raise


def database_down_detail(error: Exception) -> str:
    """Why the database check failed, for /readyz: the error's kind and libpq's first line (which says, during a
    failover, why a host was not taken: "session is read-only", "Connection refused"). libpq never puts the
    password in a message."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    reason = lines[0][:200] if lines else "no reason given"
    return f"{type(error).__name__}: database unreachable ({reason})"


def _database_down(error: psycopg.Error) -> Check:
    return {"ok": False, "detail": database_down_detail(error)}


class RelaySession(Protocol):
    """What the relay tells about its lock session (services.relay.Relay)."""

    @property
    def session_pid(self) -> int | None: ...


def relay_readiness(relay: RelaySession, database_url: str, lock_key: int) -> Readiness:
    """Ready while PostgreSQL answers and the relay's session is alive, holding the lock `lock_key` or waiting."""
    probe = _ProbeConnection(database_url, "relay")
    # pg_locks shows a bigint advisory key as its high and low 32 bits.
    high, low = lock_key >> 32, lock_key & 0xFFFFFFFF

    def readiness() -> dict[str, Check]:
        pid = relay.session_pid
        try:
            row = probe.query(
                """SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = %(pid)s),
                          EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = %(pid)s
                                  AND classid::bigint = %(high)s AND objid::bigint = %(low)s AND objsubid = 1)""",
                {"pid": pid or 0, "high": high, "low": low},
            )
        except psycopg.Error as error:
            return {"database": _database_down(error), "relay_lock": {"ok": False, "detail": "unknown"}}
        alive, holds = (bool(row[0]), bool(row[1])) if row is not None else (False, False)
        if pid is None:
            lock: Check = {"ok": False, "detail": "the relay has no database session (connecting)"}
        elif not alive:
            lock = {"ok": False, "detail": f"the relay's session (backend {pid}) is gone"}
        else:
            lock = {"ok": True, "detail": "held" if holds else "waiting"}
        return {"database": {"ok": True}, "relay_lock": lock}

    return readiness


def worker_readiness(database_url: str, redis_url: str) -> Readiness:
    """Ready while PostgreSQL and Redis answer the worker's URLs."""
    probe = _ProbeConnection(database_url, "worker")
    client = redis_clients.connect(redis_url, socket_timeout=2, socket_connect_timeout=2)

    def readiness() -> dict[str, Check]:
        checks: dict[str, Check] = {}
        try:
            probe.query("SELECT 1")
            checks["database"] = {"ok": True}
        except psycopg.Error as error:
            checks["database"] = _database_down(error)
        try:
            client.ping()
            checks["redis"] = {"ok": True}
        except (redis.RedisError, OSError) as error:
            checks["redis"] = {"ok": False, "detail": redis_bus.describe_failure(error)}
        return checks

    return readiness
