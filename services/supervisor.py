"""`cardledger up`: the whole stack in one process group.

Starts the embedded servers when no URLs are configured, applies migrations
(as the owner: CARDLEDGER_MIGRATE_DATABASE_URL when set), then runs the API
(gunicorn), the relay and the projection workers as child processes connected
as the service's role (DATABASE_URL; docs/operations.md, "Database roles"),
restarting any that dies. SIGINT or SIGTERM stops the children
(SIGTERM, then SIGKILL after a grace period) and then the embedded servers.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

from infra.config import (
    API_STREAMS_VARIABLE,
    API_THREADS_VARIABLE,
    AUDITOR_TOKEN_VARIABLE,
    WORKER_METRICS_PORT_VARIABLE,
    Settings,
)
from infra.db_roles import MIGRATE_URL_VARIABLE, SERVICE_PASSWORD_VARIABLE, own_role_refusal, service_url_refusal
from infra.embedded import require_embedded_servers, start_servers
from infra.migrations import migrate
from infra.signing import SIGNING_KEY_VARIABLE, UnregisteredSigningKey, encode_signing_key, signing_seed
from services.cli.keys import register_configured_key

log = logging.getLogger("cardledger.supervisor")

GRACE_PERIOD_S = 25.0
RESTART_BACKOFF_S = (1.0, 2.0, 5.0, 10.0)


def gunicorn_command(
    settings: Settings,
    workers: int | None = None,
    threads: int | None = None,
    worker_class: str | None = None,
    streams: int | None = None,
) -> list[str]:
    """The gunicorn command line of the API: settings from `services.gunicorn_conf` (JSON logs, metrics).

    Each worker runs `threads` threads for requests and `streams` more for Server-Sent Events streams
    (`services.api.middleware.admission` keeps them apart; both reach the app through `--env`). Defaults:
    CARDLEDGER_API_WORKERS workers, CARDLEDGER_API_THREADS and CARDLEDGER_API_STREAMS, the gthread worker class
    when that makes more than one thread, else sync (which follows no streams).
    """
    threads = threads if threads is not None else settings.serving.threads
    streams = streams if streams is not None else settings.serving.streams
    worker_class = worker_class or ("gthread" if threads + streams > 1 else "sync")
    if worker_class == "sync":  # one thread per process: nothing to spare for streams
        threads, streams = 1, 0
    return [
        sys.executable,
        "-m",
        "gunicorn",
        "--config",
        "python:services.gunicorn_conf",
        "--bind",
        f"{settings.host}:{settings.port}",
        "--workers",
        str(workers if workers is not None else settings.api_workers),
        "--worker-class",
        worker_class,
        "--threads",
        str(threads + streams),
        "--env",
        f"{API_THREADS_VARIABLE}={threads}",
        "--env",
        f"{API_STREAMS_VARIABLE}={streams}",
        "--graceful-timeout",
        "20",
        "--log-level",
        settings.log_level.lower(),
        "services.api:create_served_app()",
    ]


@dataclass
class Child:
    name: str
    command: list[str]
    process: subprocess.Popen[bytes] | None = None
    restarts: int = 0
    next_start: float = 0.0
    started_at: float = field(default=0.0)
    env: dict[str, str] = field(default_factory=dict)  # on top of the stack's environment

    def start(self, env: dict[str, str]) -> None:
        log.info("starting %s", self.name)
        self.process = subprocess.Popen(self.command, env={**env, **self.env})
        self.started_at = time.monotonic()


# Settings that are secrets, and the processes that use them: each child gets the secrets it uses and no other
# (anything running as a child's user can read its /proc/<pid>/environ).
OWNER_SECRETS = (MIGRATE_URL_VARIABLE, SERVICE_PASSWORD_VARIABLE)  # the migrations', done before the children
API_SECRETS = (SIGNING_KEY_VARIABLE, AUDITOR_TOKEN_VARIABLE)  # the API signs receipts and knows the auditor


def _api_secrets(signing_key: str, auditor_token: str | None) -> dict[str, str]:
    secrets = {SIGNING_KEY_VARIABLE: signing_key}
    if auditor_token:
        secrets[AUDITOR_TOKEN_VARIABLE] = auditor_token
    return secrets


def _children(settings: Settings, api_secrets: dict[str, str]) -> list[Child]:
    cli = [sys.executable, "-m", "services.cli"]
    children = [Child("api", gunicorn_command(settings), env=api_secrets), Child("relay", [*cli, "relay"])]
    children += [
        Child(f"worker-{n}", [*cli, "worker"], env=_worker_metrics_env(n, settings.metrics.worker))
        for n in range(1, settings.workers + 1)
    ]
    return children


def _worker_metrics_env(n: int, base: int) -> dict[str, str]:
    """Worker n serves its metrics on the base port + n - 1, so workers on one host do not collide (0: off)."""
    return {WORKER_METRICS_PORT_VARIABLE: str(base + n - 1 if base else 0)}


def bind_error(host: str, port: int) -> OSError | None:
    """Why `host:port` cannot be bound (gunicorn's would fail the same way), or None when it can."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gunicorn binds
        try:
            probe.bind((host, port))
        except OSError as error:
            return error
    return None


def run_stack(settings: Settings, stop: threading.Event) -> int:
    # Checked first: otherwise the API would fail to bind and be restarted forever behind a stack that looks up.
    refused = bind_error(settings.host, settings.port)
    if refused is not None:
        print(
            f"cardledger: error: cannot serve the API on {settings.host}:{settings.port} ({refused.strerror}); "
            "stop what holds it or set CARDLEDGER_HOST / CARDLEDGER_PORT",
            file=sys.stderr,
        )
        return 2
    require_embedded_servers(settings)  # before the embedded default's signing key is made
    try:
        # One key for every gunicorn worker: resolved here (the embedded default's key file is made on the first
        # start) and handed down in the environment, which gunicorn's workers inherit.
        signing_key = encode_signing_key(signing_seed(settings))
    except ValueError as error:
        print(f"cardledger: error: configuration error: {error}", file=sys.stderr)
        return 2
    servers = start_servers(settings)
    database_url, redis_url, stop_servers = servers.database_url, servers.redis_url, servers.stop
    try:
        applied = migrate(servers.owner_url)  # as the owner; the children connect as the service's role
        log.info("migrations applied: %s", ", ".join(applied) or "none needed")
        try:
            log.info("%s", register_configured_key(servers.owner_url, settings))
        except UnregisteredSigningKey as error:
            print(f"cardledger: error: {error}", file=sys.stderr)
            return 2
        if servers.owner_url != database_url:
            refusal = service_url_refusal(servers.owner_url, database_url)
        elif settings.unsafe_superuser_database:
            refusal = None
        else:  # one URL for the owner and the service: fit only if that role is no more than the service's
            refusal = own_role_refusal(database_url)
        if refusal is not None:
            print(f"cardledger: error: {refusal}", file=sys.stderr)
            return 2
        env = {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": redis_url}
        for secret in (*OWNER_SECRETS, *API_SECRETS):  # the children are the service; the API's own are its alone
            env.pop(secret, None)
        children = _children(settings, _api_secrets(signing_key, settings.auditor_token))
        for child in children:
            child.start(env)
        log.info("cardledger is up on http://%s:%s", settings.host, settings.port)
        while not stop.wait(0.5):
            _restart_dead(children, env)
        _stop_children(children)
    finally:
        stop_servers()
    log.info("cardledger stopped")
    return 0


def _restart_dead(children: list[Child], env: dict[str, str]) -> None:
    now = time.monotonic()
    for child in children:
        if child.process is None or child.process.poll() is None:
            continue
        if child.next_start == 0.0:
            # A child that ran a while before dying starts again quickly; one that keeps dying waits longer.
            if now - child.started_at > 60:
                child.restarts = 0
            delay = RESTART_BACKOFF_S[min(child.restarts, len(RESTART_BACKOFF_S) - 1)]
            log.warning("%s exited with %s; restarting in %.0f s", child.name, child.process.returncode, delay)
            child.next_start = now + delay
        elif now >= child.next_start:
            child.restarts += 1
            child.next_start = 0.0
            child.start(env)


def _stop_children(children: list[Child]) -> None:
    running = [c for c in children if c.process is not None and c.process.poll() is None]
    for child in running:
        assert child.process is not None
        child.process.terminate()
    deadline = time.monotonic() + GRACE_PERIOD_S
    for child in running:
        assert child.process is not None
        try:
            child.process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            log.warning("%s did not stop within %.0f s; killing it", child.name, GRACE_PERIOD_S)
            child.process.kill()
            child.process.wait()
