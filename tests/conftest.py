"""Shared fixtures: where the tests' PostgreSQL and Redis come from.

Servers are found in this order, separately for PostgreSQL and Redis, and only
when a test first asks for them (unit tests start nothing):

1. ``DATABASE_URL`` / ``REDIS_URL`` from the environment (CI, a developer's servers);
2. testcontainers (``postgres:16``, ``redis:7``) when a Docker engine answers a ping
   (set ``CARDLEDGER_TEST_DOCKER=0`` to skip even the ping);
3. the embedded servers of ``infra.embedded`` in a temporary folder removed at the end.

Fixtures:

``pg_server_url``  (session) URL of the server's admin database; ``fresh_database(pg_server_url)``
                   makes more throw-away databases.
``database_url``   (session) a database created for this test session on that server
                   (``cardledger_test_<hex>``), dropped at the end. Nothing is applied to it:
                   build on it, e.g. ``migrated_database_url`` below.
``redis_url``      (session) external servers: db 15 unless the URL names a db; otherwise db 0 of
                   a server private to the session.
``redis_client``   (function) a client on ``redis_url``; that db is flushed before each test.

The discovery functions (``discover_postgres``, ``discover_redis``, ``docker_available``,
``fresh_database``) are plain functions so other conftests and scripts can reuse them.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import secrets
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

import psycopg
import pytest
import redis
from psycopg import sql
from psycopg.conninfo import make_conninfo
from psycopg_pool import ConnectionPool

from infra.db import connect, open_pool
from infra.db_roles import UNSAFE_SUPERUSER_VARIABLE
from infra.event_store import EventStore
from infra.migrations import migrate
from infra.signing import (
    SIGNING_KEY_VARIABLE,
    ReceiptSigner,
    insert_key,
    key_registered,
    new_signing_key,
    parse_signing_key,
    utc_timestamp,
)
from infra.storage.memory import InMemoryStorage
from infra.storage.postgres import PostgresStorage
from services.app.ports import Storage
from tests.faults.servers import RedisServer
from tests.horizon import held_horizon

EXTERNAL_REDIS_DB = 15
DOCKER_PING_TIMEOUT = 2.0

# The receipt signing key of this test session (unless the environment brings one): with DATABASE_URL set the
# API refuses to start without CARDLEDGER_SIGNING_KEY, and every process the tests start (`cardledger up`,
# gunicorn, their workers) inherits it from here.
if not os.environ.get(SIGNING_KEY_VARIABLE, "").strip():
    os.environ[SIGNING_KEY_VARIABLE] = new_signing_key()
# The test servers' databases are throwaway ones, reached as a superuser (CI's, a developer's): the processes the
# tests start may run as that role. The tests of the refusal (tests/integration/test_least_privilege.py) unset it.
os.environ.setdefault(UNSAFE_SUPERUSER_VARIABLE, "1")


# --------------------------------------------------------------------------- discovery


@functools.cache
def docker_available() -> bool:
    """True when a Docker engine answers a ping within a couple of seconds."""
    if os.environ.get("CARDLEDGER_TEST_DOCKER", "").strip() == "0":
        return False
    try:
        import docker

        client = docker.from_env(timeout=DOCKER_PING_TIMEOUT)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:
        return False


def _env_url(name: str) -> str | None:
    value = os.environ.get(name, "").strip()
    return value or None


def discover_postgres(stack: ExitStack, scratch_dir: Callable[[], Path]) -> str:
    """URL of a PostgreSQL server's admin database; whatever is started is stopped by ``stack``."""
    url = _env_url("DATABASE_URL")
    if url is not None:
        return url
    if docker_available():
        try:
            from testcontainers.community.postgres import PostgresContainer

            container = PostgresContainer(
                "postgres:16", username="postgres", password="postgres", dbname="postgres", driver=None
            )
            stack.enter_context(container)
            return str(container.get_connection_url())
        except Exception as err:
            warnings.warn(f"testcontainers PostgreSQL failed ({err!r}); using the embedded server", stacklevel=1)
    from infra.embedded import start_embedded_postgres

    server = start_embedded_postgres(scratch_dir())
    stack.callback(server.stop)
    return server.url


def discover_redis(stack: ExitStack, scratch_dir: Callable[[], Path]) -> str:
    """URL of a Redis database for the tests; whatever is started is stopped by ``stack``."""
    url = _env_url("REDIS_URL")
    if url is not None:
        return with_default_redis_db(url, EXTERNAL_REDIS_DB)
    if docker_available():
        try:
            from testcontainers.community.redis import RedisContainer

            container = RedisContainer("redis:7")
            stack.enter_context(container)
            host = container.get_container_host_ip()
            port = container.get_exposed_port(container.port)
            return f"redis://{host}:{port}/0"
        except Exception as err:
            warnings.warn(f"testcontainers Redis failed ({err!r}); using the embedded server", stacklevel=1)
    from infra.embedded import start_embedded_redis

    server = start_embedded_redis(scratch_dir())
    stack.callback(server.stop)
    return server.url


def with_default_redis_db(url: str, db: int) -> str:
    """``url`` unchanged when it names a database, else pointed at ``db``."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    if any(key == "db" for key, _ in query):
        return url
    if parts.scheme == "unix":
        return urlunsplit(parts._replace(query=urlencode([*query, ("db", str(db))])))
    if parts.path.strip("/"):
        return url
    return urlunsplit(parts._replace(path=f"/{db}"))


def database_url_for(server_url: str, database: str) -> str:
    """The same server and credentials as ``server_url``, another database."""
    if "://" not in server_url:  # key=value conninfo
        return make_conninfo(server_url, dbname=database)
    parts = urlsplit(server_url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "dbname"]
    return urlunsplit(parts._replace(path="/" + quote(database, safe=""), query=urlencode(query, safe="/")))


@contextlib.contextmanager
def fresh_database(server_url: str, prefix: str = "cardledger_test") -> Iterator[str]:
    """Create an empty database on the server, yield its URL, drop it (disconnecting its users)."""
    name = f"{prefix}_{secrets.token_hex(6)}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield database_url_for(server_url, name)
    finally:
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


class TestServers:
    """What the session started, created on first use and torn down at the session's end."""

    __test__ = False  # not a test class

    def __init__(self) -> None:
        self.stack = ExitStack()
        self._scratch: Path | None = None
        self._postgres: str | None = None
        self._redis: str | None = None

    def scratch_dir(self) -> Path:
        if self._scratch is None:
            self._scratch = Path(tempfile.mkdtemp(prefix="cardledger-test-"))
            self.stack.callback(shutil.rmtree, self._scratch, ignore_errors=True)
        return self._scratch

    def postgres_url(self) -> str:
        if self._postgres is None:
            self._postgres = discover_postgres(self.stack, self.scratch_dir)
        return self._postgres

    def redis_url(self) -> str:
        if self._redis is None:
            self._redis = discover_redis(self.stack, self.scratch_dir)
        return self._redis

    def close(self) -> None:
        self.stack.close()


# --------------------------------------------------------------------------- fixtures


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--hold-horizon",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="before each test that uses PostgreSQL, hold the log's commit-safe horizon SECONDS from another "
        "database, as other sessions on a shared server do (tests/horizon.py)",
    )


@pytest.fixture(autouse=True)
def _held_horizon(request: pytest.FixtureRequest) -> Iterator[None]:
    seconds = request.config.getoption("--hold-horizon")
    if not seconds or "pg_server_url" not in request.fixturenames:
        yield
        return
    with held_horizon(request.getfixturevalue("pg_server_url"), seconds):
        yield


@pytest.fixture(autouse=True)
def _root_logger_kept() -> Iterator[None]:
    """The root logger as the test found it: a command run in this process (`services.cli.main`) sends its logs
    to the stderr it finds, pytest's capture, which later tests would write to and the session's end closes."""
    root = logging.getLogger()
    handlers, level, showwarning = root.handlers[:], root.level, warnings.showwarning
    yield
    if warnings.showwarning is not showwarning:
        logging.captureWarnings(False)
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.fixture(scope="session")
def test_servers() -> Iterator[TestServers]:
    servers = TestServers()
    try:
        yield servers
    finally:
        servers.close()


@pytest.fixture(scope="session")
def pg_server_url(test_servers: TestServers) -> str:
    return test_servers.postgres_url()


@pytest.fixture(scope="session")
def database_url(pg_server_url: str) -> Iterator[str]:
    with fresh_database(pg_server_url) as url:
        yield url


@pytest.fixture(scope="session")
def redis_url(test_servers: TestServers) -> str:
    return test_servers.redis_url()


@pytest.fixture
def redis_client(redis_url: str) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    try:
        yield client
    finally:
        client.close()


# --------------------------------------------------------------------------- the migrated database


def register_key(url: str, signer: ReceiptSigner | None = None, endorser: ReceiptSigner | None = None) -> ReceiptSigner:
    """Register `signer` (default: the session's key, CARDLEDGER_SIGNING_KEY) in `url`'s signing_keys, as the
    owner's `cardledger migrate` (or, with `endorser`, `keys rotate`) does, whatever the chain's latest key;
    kept by `empty_all_tables`. A key already registered stays as it is."""
    signer = signer or ReceiptSigner.from_seed(parse_signing_key(os.environ[SIGNING_KEY_VARIABLE]))
    with connect(url) as conn:
        if not key_registered(conn, signer.key_id):
            insert_key(conn, signer, utc_timestamp(), endorser)
    return signer


def register_signer(storage: Storage, signer: ReceiptSigner) -> None:
    """Register `signer` where `storage` keeps its keys, as the owner does: the application itself cannot."""
    if isinstance(storage, InMemoryStorage):
        storage.register_first_key(signer)
    else:
        assert isinstance(storage, PostgresStorage)
        with storage.pool.connection() as conn:
            register_key(conn.info.dsn, signer)


@pytest.fixture(scope="session")
def migrated_database_url(database_url: str) -> str:
    migrate(database_url)
    register_key(database_url)
    return database_url


def empty_all_tables(url: str) -> None:
    """Every table emptied but the migrations' record and the registered signing keys (the owner's, made once)."""
    with psycopg.connect(url, autocommit=True) as conn:
        names = [
            row[0]
            for row in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
                " AND tablename NOT IN ('schema_migrations', 'signing_keys')"
            )
        ]
        # The events table refuses TRUNCATE through its triggers; replica mode skips them for this cleanup only.
        conn.execute("SET session_replication_role = replica")
        conn.execute(
            sql.SQL("TRUNCATE {} RESTART IDENTITY CASCADE").format(sql.SQL(", ").join(map(sql.Identifier, names)))
        )


@pytest.fixture
def db_url(migrated_database_url: str) -> str:
    """The migrated test database, emptied before the test."""
    empty_all_tables(migrated_database_url)
    return migrated_database_url


@pytest.fixture
def pool(db_url: str) -> Iterator[ConnectionPool]:  # type: ignore[type-arg]
    pool = open_pool(db_url, min_size=1, max_size=20)
    yield pool
    pool.close()


@pytest.fixture
def store(pool: ConnectionPool) -> EventStore:  # type: ignore[type-arg]
    return EventStore(pool)


@pytest.fixture
def conn(db_url: str) -> Iterator[psycopg.Connection[dict[str, Any]]]:
    """An autocommit connection to the emptied test database."""
    with connect(db_url) as connection:
        yield connection


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    """A private redis-server process for tests that stop Redis or must not share its queues."""
    server = RedisServer()
    server.start()
    yield server
    server.stop()
