"""REDIS_URL with a password (and TLS): every Redis client the service builds uses it, and a refused password is
one clear log line per attempt, never a traceback storm.

A private redis-server with `--requirepass` serves the relay (publish and enqueue), the API's rate-limit
storage and stream, and a projection worker's RQ connection, all given the same URL. The password holds
characters that must be percent-encoded in a URL. With TLS (`rediss://` and `ssl_ca_certs`), the same; that test
is skipped when the redis-server here was built without TLS.
"""

from __future__ import annotations

import datetime
import ipaddress
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis
from psycopg.rows import dict_row
from rq import Queue, Worker

from infra import redis_bus
from infra.config import Settings
from infra.event_store import EventStore, NewEvent
from infra.metrics import ERRORS
from infra.projections.checkpoint import read_position
from infra.signing import SIGNING_KEY_VARIABLE, parse_signing_key
from services.api import create_app
from services.api.middleware.limits import storage_uri
from services.bootstrap import bootstrap
from services.projector.worker import QUEUE, run_worker
from services.relay import RELAY_POSITION, Relay
from tests.api.conftest import TEST_CONFIG
from tests.faults.servers import RedisServer, RedisServerExited, TlsFiles, redis_server_binary, wait_until
from tests.integration.test_projection_workers import Running

PASSWORD = "s3cret/with+odd@chars:%"
WRONG = "not-the-pa55word"
NO_TLS = (
    "this redis-server ({binary}) cannot serve TLS ({said}); put a TLS-capable one (Redis 6+ built with "
    "BUILD_TLS=yes, e.g. Debian/Ubuntu's `apt-get install redis-server`, or the redis:7 image) first on PATH"
)


@pytest.fixture
def secured() -> Iterator[RedisServer]:
    server = RedisServer(password=PASSWORD)
    server.start()
    yield server
    server.stop()


def events_for(store: EventStore, table: str, count: int) -> None:
    version = store.stream_version(table) or 0
    store.append(table, version, [NewEvent("plain", {"k": version + n}) for n in range(count)])


def relay_position(db_url: str) -> int:
    with psycopg.connect(db_url, row_factory=dict_row) as conn:
        return read_position(conn, RELAY_POSITION).global_position


def events_in(db_url: str) -> int:
    with psycopg.connect(db_url) as conn:
        row = conn.execute("SELECT count(*) FROM events").fetchone()
    return int(row[0]) if row else 0


@pytest.fixture
def running() -> Iterator[Running]:
    loops = Running()
    yield loops
    loops.close()


def relay(database_url: str, redis_url: str, stop: threading.Event) -> None:
    Relay(database_url, redis_url, stop, poll_interval=0.05, max_backoff=0.2).run()


@contextmanager
def api_client(database_url: str, redis_url: str) -> Iterator[Any]:
    """The API wired from `redis_url` as in production (`bootstrap`): the stream's and /readyz's client, the
    rate limits' storage (no RATELIMIT_STORAGE_URI: `storage_uri(REDIS_URL)`)."""
    settings = Settings(
        database_url=database_url,
        redis_url=redis_url,
        signing_key=parse_signing_key(os.environ[SIGNING_KEY_VARIABLE]),
    )
    container = bootstrap(settings, pool_max_size=4, start_embedded=False)
    config = {**TEST_CONFIG, "RATE_LIMITS_ENABLED": True, "RATE_LIMIT_REGISTRATION": "2 per 1 minute"}
    try:
        yield create_app(container=container, config=config).test_client()
    finally:
        container.close()


def open_table(api: Any) -> tuple[dict[str, str], str]:
    """A player's bearer header (registered from another address: the registration budget stays) and a table."""
    token = api.post("/v1/players", json={"name": "x"}, environ_base={"REMOTE_ADDR": "192.0.2.1"}).get_json()["token"]
    bearer = {"Authorization": f"Bearer {token}"}
    table = api.post("/v1/tables", json={"game": "cholek-tiga", "seats": 2}, headers=bearer).get_json()["id"]
    return bearer, str(table)


def errors_counted(component: str, code: str) -> float:
    return float(ERRORS.labels(component, code)._value.get())


def every_service_works_with(server: RedisServer, store: EventStore, db_url: str, running: Running) -> None:
    """The relay publishes and enqueues, the worker's RQ connection takes the job, the API counts its rate limits
    in this Redis and follows a table's stream from it: each built from `server.url` alone."""
    url = server.url
    assert Settings.from_env({"REDIS_URL": url}).redis_url == url
    check = server.client()
    events_for(store, "table-auth", 3)
    running.start(relay, db_url, url)
    running.start(run_worker, db_url, url)
    wait_until(lambda: check.xlen(redis_bus.GLOBAL_STREAM) == 3, what="events published through the password")
    wait_until(lambda: any(w.name for w in Worker.all(connection=check)), what="the RQ worker registered")
    wait_until(lambda: Queue(QUEUE, connection=check).count == 0, what="the worker took the relay's job")
    assert Queue(QUEUE, connection=check).failed_job_registry.count == 0

    with api_client(db_url, url) as api:
        statuses = [api.post("/v1/players", json={"name": f"p{n}"}).status_code for n in range(3)]
        assert statuses == [201, 201, 429]
        assert check.keys("*cardledger:ratelimit*"), "the limits were counted in this Redis, not in memory"
        bearer, table = open_table(api)
        assert api.get("/readyz").status_code == 200
        stream = api.get(f"/v1/tables/{table}/stream", headers=bearer)
        assert stream.status_code == 200
        stream.close()


def test_every_redis_client_works_with_a_password_in_the_url(
    secured: RedisServer, store: EventStore, db_url: str, running: Running
) -> None:
    assert ":s3cret%2Fwith%2Bodd%40chars%3A%25@" in secured.url
    assert storage_uri(secured.url) == secured.url, "the rate limiter gets the credentials as they are"
    every_service_works_with(secured, store, db_url, running)


@pytest.mark.parametrize("credentials", [WRONG, None], ids=["wrong-password", "no-password"])
def test_a_refused_password_is_one_clear_line_per_attempt_and_recovers(
    credentials: str | None,
    secured: RedisServer,
    store: EventStore,
    db_url: str,
    running: Running,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    url = f"redis://{'' if credentials is None else ':' + credentials + '@'}127.0.0.1:{secured.port}/0"
    check = secured.client()
    with pytest.raises(redis.AuthenticationError) as refused:
        redis.Redis.from_url(url).ping()
    assert redis_bus.failure_code(refused.value) == "redis_auth_failed"
    assert redis_bus.describe_failure(refused.value).startswith("Redis refused the credentials of REDIS_URL")
    before = errors_counted("relay", "redis_auth_failed"), errors_counted("worker", "redis_auth_failed")

    # The API: rate limits fall back to each worker's memory (still enforced), /readyz and the stream say 503.
    with api_client(db_url, url) as api:
        statuses = [api.post("/v1/players", json={"name": f"p{n}"}).status_code for n in range(3)]
        assert statuses == [201, 201, 429]
        ready = api.get("/readyz")
        assert ready.status_code == 503
        assert ready.get_json()["checks"]["redis"] == {
            "ok": False,
            "detail": "AuthenticationError: redis refused the credentials of REDIS_URL",
        }
        bearer, table = open_table(api)
        stream = api.get(f"/v1/tables/{table}/stream", headers=bearer)
        assert stream.status_code == 503 and stream.get_json()["code"] == "stream_unavailable"
    assert not check.keys("*cardledger:ratelimit*")

    # The relay and the worker retry with one line per attempt, publish nothing and move no position.
    events_for(store, "table-auth", 2)
    start = relay_position(db_url)
    running.start(relay, db_url, url)
    running.start(run_worker, db_url, url)
    wait_until(
        lambda: (
            errors_counted("relay", "redis_auth_failed") >= before[0] + 3
            and errors_counted("worker", "redis_auth_failed") >= before[1] + 2
        ),
        timeout=15,
        what="the relay and the worker retried",
    )
    assert check.xlen(redis_bus.GLOBAL_STREAM) == 0 and relay_position(db_url) == start
    records = caplog.records
    assert not [r for r in records if r.exc_info], "a refused password logged a traceback"
    for name, start_of_message in [("cardledger.relay", "relay cannot publish events"), ("cardledger.projector", "")]:
        refused_lines = [r for r in records if r.name == name and "refused the credentials" in r.getMessage()]
        assert refused_lines and all(r.levelno == logging.ERROR for r in refused_lines), name
        assert all(r.getMessage().startswith(start_of_message) for r in refused_lines)
    limiter_lines = [r for r in records if r.name == "flask-limiter" and r.levelno >= logging.WARNING]
    assert len(limiter_lines) == 1 and "falling back to in-memory" in limiter_lines[0].getMessage()
    everything = "\n".join(r.getMessage() for r in records)
    assert PASSWORD not in everything and WRONG not in everything, "a password was logged"

    # The server takes the relay's password (a rotation catching up): the relay publishes without a restart.
    if credentials is not None:
        check.config_set("requirepass", credentials)
        wait_until(
            lambda: check.xlen(redis_bus.GLOBAL_STREAM) == events_in(db_url) > 0,
            what="published once the password matched",
        )


# TLS -----------------------------------------------------------------------------------------------------------


def make_tls_files(folder: Path) -> TlsFiles:
    """A CA and a server certificate it signed, for 127.0.0.1 and localhost (one day)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "cardledger test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True
        )  # keyCertSign, cRLSign
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    files = TlsFiles(ca=folder / "ca.crt", cert=folder / "server.crt", key=folder / "server.key")
    files.ca.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    files.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    files.key.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    files.key.chmod(0o600)
    return files


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(password=PASSWORD, tls=make_tls_files(tmp_path))
    try:
        server.start()
    except RedisServerExited as exited:
        said = str(exited).splitlines()[-1] if str(exited) else "it exited"
        pytest.skip(NO_TLS.format(binary=redis_server_binary(), said=said))
    yield server
    server.stop()


def test_every_redis_client_works_over_tls_with_a_private_ca(
    tls_server: RedisServer, store: EventStore, db_url: str, running: Running
) -> None:
    url = tls_server.url
    assert url.startswith("rediss://") and "ssl_ca_certs=" in url
    every_service_works_with(tls_server, store, db_url, running)

    # Without the CA the certificate is not trusted; a plain redis:// client gets no answer from a TLS port.
    untrusted = url.split("?", 1)[0]
    with pytest.raises(redis.ConnectionError) as failed:
        redis.Redis.from_url(untrusted, socket_connect_timeout=2, socket_timeout=2).ping()
    assert redis_bus.describe_failure(failed.value).startswith("TLS with Redis failed")
    with pytest.raises(redis.ConnectionError):
        redis.Redis.from_url(untrusted.replace("rediss://", "redis://"), socket_timeout=2).ping()


def test_a_missing_ca_file_is_a_configuration_error(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "ca.crt"
    with pytest.raises(
        ValueError, match=f"^REDIS_URL names a CA file \\(ssl_ca_certs\\) that does not exist: {missing}"
    ):
        Settings.from_env({"REDIS_URL": f"rediss://:pw@cache.example:6380/0?ssl_ca_certs={missing}"})
    assert Settings.from_env({"REDIS_URL": "rediss://:pw@cache.example:6380/0"}).redis_url is not None
