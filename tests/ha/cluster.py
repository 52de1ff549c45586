"""The highly available shape on loopback ports in one folder: etcd, PostgreSQL 15 nodes under Patroni, a Redis
primary with a replica watched by three Sentinels, and the cardledger processes on top (docs/operations.md,
"High availability").

Every engine is Debian's (`apt-get install patroni etcd-server redis-sentinel`, PostgreSQL 15); `missing_engines()`
says which are absent. PostgreSQL refuses to run as root, so when the tests run as root Patroni (and the
PostgreSQL it starts) runs as the `postgres` user.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import redis

from services.cli.simulate.runner import SimulationConfig
from services.cli.simulate.stack import free_port

ROOT = Path(__file__).resolve().parents[2]
PG_BIN = Path("/usr/lib/postgresql/15/bin")
INSTALL_HINT = "apt-get install patroni etcd-server redis-sentinel postgresql-15"
SERVICE_NAME = "cardledger"  # the Sentinels' name of the Redis primary
SERVICE_ROLE = "cardledger_app"  # a login role, member of the group role cardledger_service
PATRONI_TTL_S = 20  # the leader key's lifetime: a dead primary's key expires after this, then a standby promotes


def missing_engines() -> list[str]:
    """The programs of this shape that are not installed."""
    wanted = {"patroni": "patroni", "etcd": "etcd", "redis-server": "redis-server", "redis-sentinel": "redis-sentinel"}
    missing = [name for name, program in wanted.items() if shutil.which(program) is None]
    if not (PG_BIN / "postgres").exists():
        missing.append("postgresql-15")
    return missing


def wait_for(predicate: Callable[[], Any], timeout: float, what: str, interval: float = 0.2) -> Any:
    """The first truthy value of `predicate()`, polled until `timeout`; AssertionError naming `what` after it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = predicate()
        except (OSError, psycopg.Error, redis.RedisError, ValueError):
            value = None
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def _get_json(url: str) -> Any:
    try:
        with urllib.request.urlopen(url, timeout=2) as answer:
            return json.load(answer)
    except urllib.error.HTTPError as error:  # Patroni answers 503 with the same JSON for a replica's /primary
        return json.load(error)


def _kill(process: subprocess.Popen[bytes] | None) -> None:
    if process is not None and process.poll() is None:
        process.kill()
        process.wait(timeout=10)


def _stop(process: subprocess.Popen[bytes] | None, timeout: float = 30) -> None:
    if process is not None and process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


class Folder:
    """The shape's temporary folder; owned by the user the engines run as."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.runs_as_postgres = os.geteuid() == 0
        if self.runs_as_postgres:
            entry = pwd.getpwnam("postgres")
            os.chown(path, entry.pw_uid, entry.pw_gid)
            path.chmod(0o755)

    def own(self, path: Path) -> Path:
        if self.runs_as_postgres:
            entry = pwd.getpwnam("postgres")
            for item in [path, *path.rglob("*")] if path.is_dir() else [path]:
                os.chown(item, entry.pw_uid, entry.pw_gid)
        return path

    def log(self, name: str) -> Any:
        handle = (self.path / name).open("ab")
        self.own(self.path / name)
        return handle


@dataclass
class Etcd:
    folder: Folder
    client_port: int = field(default_factory=free_port)
    peer_port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.client_port}"

    def start(self) -> None:
        peer = f"http://127.0.0.1:{self.peer_port}"
        arguments = ["etcd", "--name", "etcd0", "--data-dir", str(self.folder.path / "etcd")]
        arguments += ["--listen-client-urls", self.url, "--advertise-client-urls", self.url]
        arguments += ["--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer]
        arguments += ["--initial-cluster", f"etcd0={peer}"]
        log = self.folder.log("etcd.log")
        self.process = subprocess.Popen(arguments, stdout=log, stderr=subprocess.STDOUT)
        wait_for(lambda: _get_json(f"{self.url}/health").get("health") == "true", 30, "etcd to answer")

    def stop(self) -> None:
        _stop(self.process)


@dataclass
class PatroniNode:
    """One PostgreSQL node under Patroni."""

    name: str
    folder: Folder
    etcd: Etcd
    synchronous: bool
    pg_port: int = field(default_factory=free_port)
    rest_port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def data_dir(self) -> Path:
        return self.folder.path / self.name

    @property
    def config_path(self) -> Path:
        return self.folder.path / f"{self.name}.yml"

    def write_config(self) -> None:
        config = {
            "scope": "cardledger",
            "name": self.name,
            "restapi": {"listen": f"127.0.0.1:{self.rest_port}", "connect_address": f"127.0.0.1:{self.rest_port}"},
            "etcd3": {"hosts": f"127.0.0.1:{self.etcd.client_port}"},
            "bootstrap": {
                "dcs": {
                    "ttl": PATRONI_TTL_S,
                    "loop_wait": 2,
                    "retry_timeout": 5,
                    "synchronous_mode": self.synchronous,
                    "postgresql": {
                        "use_pg_rewind": True,
                        "parameters": {"wal_log_hints": "on", "max_connections": 200},
                    },
                },
                "initdb": [{"encoding": "UTF8"}, {"locale": "C"}],
                "pg_hba": [
                    "local all all trust",
                    "host all all 127.0.0.1/32 trust",
                    "host replication all 127.0.0.1/32 trust",
                ],
            },
            "postgresql": {
                "listen": f"127.0.0.1:{self.pg_port}",
                "connect_address": f"127.0.0.1:{self.pg_port}",
                "data_dir": str(self.data_dir),
                "bin_dir": str(PG_BIN),
                "pgpass": str(self.folder.path / f"{self.name}.pgpass"),
                "authentication": {
                    "superuser": {"username": "postgres"},
                    "replication": {"username": "postgres"},
                    "rewind": {"username": "postgres"},
                },
            },
        }
        self.config_path.write_text(json.dumps(config, indent=1))  # JSON is YAML
        self.folder.own(self.config_path)

    def start(self) -> None:
        if not self.config_path.exists():
            self.write_config()
        user = "postgres" if self.folder.runs_as_postgres else None
        self.process = subprocess.Popen(
            ["patroni", str(self.config_path)],
            stdout=self.folder.log(f"{self.name}.log"),
            stderr=subprocess.STDOUT,
            user=user,
            cwd=self.folder.path,
        )

    def state(self) -> dict[str, Any]:
        """Patroni's own account of the node (GET /patroni): role, state, timeline, replication."""
        answer: dict[str, Any] = _get_json(f"http://127.0.0.1:{self.rest_port}/patroni")
        return answer

    def is_primary(self) -> bool:
        state = self.state()
        return state.get("role") in ("master", "primary") and state.get("state") == "running"

    def postmaster_pid(self) -> int | None:
        try:
            return int((self.data_dir / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def kill(self) -> None:
        """The machine is lost: SIGKILL Patroni (so that it neither restarts PostgreSQL nor hands over the leader
        key) and the postmaster."""
        pid = self.postmaster_pid()
        _kill(self.process)
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def stop(self) -> None:
        _stop(self.process, timeout=60)
        pid = self.postmaster_pid()
        if pid is not None:  # Patroni stops PostgreSQL on its way out; a killed Patroni left it to us
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@dataclass
class PostgresCluster:
    folder: Folder
    synchronous: bool = True
    nodes: list[PatroniNode] = field(default_factory=list)
    etcd: Etcd | None = None

    def start(self, count: int = 2) -> None:
        self.etcd = Etcd(self.folder)
        self.etcd.start()
        for n in range(count):
            node = PatroniNode(f"pg{n + 1}", self.folder, self.etcd, self.synchronous)
            self.nodes.append(node)
            node.start()
            if n == 0:
                wait_for(node.is_primary, 90, f"{node.name} to bootstrap as the primary")
        self.wait_in_sync()

    def primary(self) -> PatroniNode:
        def find() -> PatroniNode | None:
            for node in self.nodes:
                if node.process is None or node.process.poll() is not None:
                    continue
                try:
                    if node.is_primary():
                        return node
                except OSError:
                    continue
            return None

        found: PatroniNode = wait_for(find, 120, "a PostgreSQL primary")
        return found

    def members(self) -> list[dict[str, Any]]:
        for node in self.nodes:
            if node.process is None or node.process.poll() is not None:
                continue
            try:
                return list(_get_json(f"http://127.0.0.1:{node.rest_port}/cluster")["members"])
            except OSError:
                continue
        return []

    def wait_in_sync(self, timeout: float = 120) -> None:
        """Until every node runs and follows the primary (a synchronous standby, when synchronous) at lag 0."""
        wanted = "sync_standby" if self.synchronous else "replica"

        def settled() -> bool:
            members = self.members()
            standbys = [m for m in members if m.get("role") != "leader"]
            return (
                len(members) == len(self.nodes)
                and all(m.get("state") in ("running", "streaming") for m in members)
                and (len(self.nodes) == 1 or any(m.get("role") == wanted for m in standbys))
                and all(m.get("lag") in (0, "0") for m in standbys)
            )

        wait_for(settled, timeout, "every PostgreSQL node to follow the primary")

    def url(self, user: str = "postgres", database: str = "cardledger") -> str:
        """The libpq multi-host URL every cardledger process uses: whichever node takes writes."""
        hosts = ",".join(f"127.0.0.1:{node.pg_port}" for node in self.nodes)
        return f"postgresql://{user}@{hosts}/{database}?target_session_attrs=read-write"

    def create_database(self, name: str = "cardledger") -> None:
        primary = self.primary()
        with psycopg.connect(f"postgresql://postgres@127.0.0.1:{primary.pg_port}/postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
        if self.etcd is not None:
            self.etcd.stop()


@dataclass
class RedisShape:
    """A Redis primary, a replica and three Sentinels, one password for all."""

    folder: Folder
    password: str = field(default_factory=lambda: secrets.token_hex(16))
    ports: list[int] = field(default_factory=lambda: [free_port(), free_port()])
    sentinel_ports: list[int] = field(default_factory=lambda: [free_port() for _ in range(3)])
    servers: dict[int, subprocess.Popen[bytes]] = field(default_factory=dict)
    sentinels: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def url(self) -> str:
        hosts = ",".join(f"127.0.0.1:{port}" for port in self.sentinel_ports)
        return f"redis+sentinel://:{self.password}@{hosts}/{SERVICE_NAME}"

    def start_server(self, port: int, replica_of: int | None) -> None:
        arguments = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        arguments += ["--requirepass", self.password, "--masterauth", self.password, "--dir", str(self.folder.path)]
        if replica_of is not None:
            arguments += ["--replicaof", "127.0.0.1", str(replica_of)]
        self.servers[port] = subprocess.Popen(
            arguments, stdout=self.folder.log(f"redis-{port}.log"), stderr=subprocess.STDOUT
        )
        wait_for(lambda: self.client(port).ping(), 20, f"redis-server on {port}")

    def client(self, port: int) -> redis.Redis:
        return redis.Redis(port=port, password=self.password, socket_timeout=2, socket_connect_timeout=1)

    def start(self) -> None:
        primary, replica = self.ports
        self.start_server(primary, None)
        self.start_server(replica, primary)
        for port in self.sentinel_ports:
            config = self.folder.path / f"sentinel-{port}.conf"
            config.write_text(
                f"port {port}\nbind 127.0.0.1\ndir {self.folder.path}\nrequirepass {self.password}\n"
                f"sentinel monitor {SERVICE_NAME} 127.0.0.1 {primary} 2\n"
                f"sentinel auth-pass {SERVICE_NAME} {self.password}\n"
                f"sentinel down-after-milliseconds {SERVICE_NAME} 2000\n"
                f"sentinel failover-timeout {SERVICE_NAME} 10000\n"
                f"sentinel sentinel-pass {self.password}\n"
            )
            self.sentinels.append(
                subprocess.Popen(
                    ["redis-sentinel", str(config)],
                    stdout=self.folder.log(f"sentinel-{port}.log"),
                    stderr=subprocess.STDOUT,
                )
            )
        wait_for(lambda: self.primary_port() == primary and self.sentinels_agree(), 30, "the Sentinels to agree")

    def sentinels_agree(self) -> bool:
        """Every Sentinel knows the other two and the replica."""
        for port in self.sentinel_ports:
            client = self.client(port)
            fields = client.sentinel_master(SERVICE_NAME)
            if int(fields["num-other-sentinels"]) < 2 or int(fields["num-slaves"]) < 1:
                return False
        return True

    def primary_port(self) -> int | None:
        for port in self.sentinel_ports:
            try:
                address = self.client(port).sentinel_get_master_addr_by_name(SERVICE_NAME)
                return int(address[1]) if address else None
            except (redis.RedisError, TypeError, ValueError):
                continue
        return None

    def kill(self, port: int) -> None:
        _kill(self.servers.pop(port))

    def stop(self) -> None:
        for process in [*self.sentinels, *self.servers.values()]:
            _stop(process)


@dataclass
class Stack:
    """The cardledger processes: 2 API instances, 2 relays (one stands by), 2 projection workers."""

    folder: Folder
    database_url: str
    owner_url: str
    redis_url: str
    signing_key: str = field(default_factory=lambda: _new_signing_key())
    auditor_token: str = field(default_factory=lambda: secrets.token_hex(32))
    api_ports: list[int] = field(default_factory=lambda: [free_port(), free_port()])
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    def environment(self, **more: str) -> dict[str, str]:
        environ = {k: v for k, v in os.environ.items() if not k.startswith("CARDLEDGER_")}
        environ.update(
            PYTHONPATH=str(ROOT),
            DATABASE_URL=self.database_url,
            CARDLEDGER_MIGRATE_DATABASE_URL=self.owner_url,
            REDIS_URL=self.redis_url,
            CARDLEDGER_SIGNING_KEY=self.signing_key,
            CARDLEDGER_AUDITOR_TOKEN=self.auditor_token,
            CARDLEDGER_RATE_LIMITS="off",
            CARDLEDGER_LOG_LEVEL="WARNING",
            CARDLEDGER_API_WORKERS="1",
            CARDLEDGER_API_METRICS_PORT="0",
            CARDLEDGER_RELAY_METRICS_PORT="0",
            CARDLEDGER_WORKER_METRICS_PORT="0",
            CARDLEDGER_DATA_DIR=str(self.folder.path / "cardledger"),
        )
        environ.update(more)
        return environ

    def command(self, *arguments: str, **more: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "services.cli", *arguments],
            cwd=ROOT,
            env=self.environment(**more),
            capture_output=True,
            text=True,
            timeout=300,
        )

    def spawn(self, name: str, *arguments: str, **more: str) -> None:
        self.processes[name] = subprocess.Popen(
            [sys.executable, "-m", "services.cli", *arguments],
            cwd=ROOT,
            env=self.environment(**more),
            stdout=self.folder.log(f"{name}.log"),
            stderr=subprocess.STDOUT,
        )

    @property
    def api_urls(self) -> list[str]:
        return [f"http://127.0.0.1:{port}" for port in self.api_ports]

    def start(self) -> None:
        migrated = self.command("migrate", "--service-role", SERVICE_ROLE)
        assert migrated.returncode == 0, migrated.stderr
        for n, port in enumerate(self.api_ports):
            self.spawn(f"api{n + 1}", "api", CARDLEDGER_PORT=str(port))
        for n in range(2):
            self.spawn(f"relay{n + 1}", "relay")
            self.spawn(f"worker{n + 1}", "worker")
        for url in self.api_urls:
            wait_for(lambda url=url: _get_json(f"{url}/readyz").get("status") == "ready", 120, f"{url}/readyz")

    def exited(self) -> dict[str, int]:
        return {name: code for name, p in self.processes.items() if (code := p.poll()) is not None}

    def stop(self) -> None:
        for process in self.processes.values():
            _stop(process)


def _new_signing_key() -> str:
    import base64

    return base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()


@dataclass(frozen=True)
class Shape:
    postgres: PostgresCluster
    redis: RedisShape
    stack: Stack


@contextmanager
def running_shape(folder: Folder, nodes: int = 2, synchronous: bool = True) -> Iterator[Shape]:
    """The whole shape in `folder`, started in order (PostgreSQL, Redis, the stack) and stopped in reverse."""
    with ExitStack() as running:
        postgres = PostgresCluster(folder, synchronous=synchronous)
        running.callback(postgres.stop)
        postgres.start(count=nodes)
        postgres.create_database()
        redis_shape = RedisShape(folder)
        running.callback(redis_shape.stop)
        redis_shape.start()
        stack = Stack(folder, postgres.url(SERVICE_ROLE), postgres.url("postgres"), redis_shape.url)
        running.callback(stack.stop)
        stack.start()
        yield Shape(postgres, redis_shape, stack)


BOT_TABLES = 8


def bots(stack: Stack, seconds: float, **more: Any) -> SimulationConfig:
    """Bots at BOT_TABLES two-seat Cholek Tiga tables at once, holding client, spread over the stack's APIs,
    starting deals for `seconds`."""
    return SimulationConfig(
        base_url=stack.api_urls[0],
        other_urls=tuple(stack.api_urls[1:]),
        game="cholek-tiga",
        tables=BOT_TABLES,
        seats=2,
        concurrency=BOT_TABLES,
        client="holding",
        deals=10_000,
        duration=seconds,
        progress=False,
        **more,
    )


def main() -> None:
    """`python -m tests.ha.cluster [--async]`: the shape on loopback ports until Ctrl-C, its URLs printed."""
    import contextlib
    import tempfile

    folder = Folder(Path(tempfile.mkdtemp(prefix="cardledger-ha-")))
    with running_shape(folder, synchronous="--async" not in sys.argv) as shape:
        stack = shape.stack
        print(f"folder (logs): {folder.path}")
        print(f"DATABASE_URL={stack.database_url}\nREDIS_URL={stack.redis_url}")
        print(f"API: {' '.join(stack.api_urls)}\nCARDLEDGER_AUDITOR_TOKEN={stack.auditor_token}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            signal.pause()


if __name__ == "__main__":
    main()
