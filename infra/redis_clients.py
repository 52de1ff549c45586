"""Every Redis client of the service, made from REDIS_URL in one place.

REDIS_URL names one server (`redis://`, `rediss://`, `unix://`, as redis-py's `from_url` reads them) or the
primary that Redis Sentinels name: `redis+sentinel://[[user]:password@]host:port[,host:port...]/service[/db]`,
the form the `limits` library (the rate limiter's storage) already reads. Its password is the primary's and the
Sentinels' (as `limits` uses it). A client of a Sentinel-named primary asks the Sentinels for the primary at each
new connection, so the API, the rate limits, the relay, the workers and RQ follow a failover.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

import redis
from redis.sentinel import MasterNotFoundError, Sentinel, SentinelManagedConnection

SENTINEL_SCHEME = "redis+sentinel"
SENTINEL_ANSWER_SECONDS = 2.0


@dataclass(frozen=True)
class SentinelUrl:
    """A `redis+sentinel://` URL, parsed."""

    sentinels: tuple[tuple[str, int], ...]
    service: str
    db: int = 0
    username: str | None = None
    password: str | None = field(default=None, repr=False)

    @property
    def credentials(self) -> dict[str, str]:
        given = {"username": self.username, "password": self.password}
        return {name: value for name, value in given.items() if value is not None}

    def limits_uri(self) -> str:
        """The same Sentinels and service for the `limits` library, which reads no database number."""
        user = self.username or ""
        auth = f"{user}:{self.password}@" if self.password is not None else (f"{user}@" if user else "")
        hosts = ",".join(f"{_host_text(host)}:{port}" for host, port in self.sentinels)
        return f"{SENTINEL_SCHEME}://{auth}{hosts}/{self.service}"


def _host_text(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def is_sentinel_url(url: str) -> bool:
    return urlsplit(url).scheme == SENTINEL_SCHEME


def parse_sentinel_url(url: str, variable: str = "REDIS_URL") -> SentinelUrl:
    """The parts of a `redis+sentinel://` URL; a ValueError names `variable` and what is wrong, never the password."""
    parts = urlsplit(url)
    form = f"{SENTINEL_SCHEME}://[:password@]host:port[,host:port...]/service[/db]"
    location = parts.netloc.rpartition("@")[2]
    if not location:
        raise ValueError(f"{variable} names no Sentinel; the form is {form}")
    sentinels: list[tuple[str, int]] = []
    for entry in location.split(","):
        try:
            address = urlsplit(f"//{entry.strip()}")
            host, port = address.hostname, address.port
        except ValueError:
            raise ValueError(f"{variable}: Sentinel {entry!r} is not host:port") from None
        if not host or port is None:
            raise ValueError(f"{variable}: Sentinel {entry!r} is not host:port (a Sentinel's port, often 26379)")
        sentinels.append((host, port))
    path = [segment for segment in parts.path.split("/") if segment]
    if not path or len(path) > 2:
        raise ValueError(f"{variable} must name the Sentinels' service (the primary's name) in its path: {form}")
    db = 0
    if len(path) == 2:
        if not path[1].isdigit():
            raise ValueError(f"{variable}: database {path[1]!r} after the service name is not a number")
        db = int(path[1])
    if parts.query:
        raise ValueError(f"{variable}: a {SENTINEL_SCHEME}:// URL takes no query parameters ({parts.query[:60]!r})")
    return SentinelUrl(
        sentinels=tuple(sentinels),
        service=unquote(path[0]),
        db=db,
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password is not None else None,
    )


class PrimaryFollowingConnection(SentinelManagedConnection):
    """A connection to the Sentinels' primary that asks them again whenever it reconnects.

    redis-py's own reconnects a dropped socket on the next command (`send_packed_command`) to the address it had,
    so a connection held across a failover (the relay's, a stream reader's) would knock at the dead primary for
    ever; only connections taken from the pool anew would find the new one."""

    def connect_check_health(self, check_health: bool = True, retry_socket_connect: bool = True) -> None:
        if not self.is_connected and self.connection_pool.is_master:
            self.host, self.port = self.connection_pool.get_master_address()
        super().connect_check_health(check_health, retry_socket_connect)


def sentinel_for(url: SentinelUrl, **options: Any) -> Sentinel:
    """The Sentinels of `url`; `options` are the connection options of the primary's clients."""
    asked = {
        "socket_timeout": options.get("socket_connect_timeout", SENTINEL_ANSWER_SECONDS),
        "socket_connect_timeout": options.get("socket_connect_timeout", SENTINEL_ANSWER_SECONDS),
        **url.credentials,
    }
    return Sentinel(list(url.sentinels), sentinel_kwargs=asked, db=url.db, **url.credentials, **options)  # type: ignore[no-untyped-call]


def connect(url: str, **options: Any) -> redis.Redis:
    """A client of REDIS_URL: of the one server it names, or of the primary its Sentinels name now and after a
    failover. `options` are redis-py's connection options (timeouts, health checks); the URL's own win."""
    if is_sentinel_url(url):
        parsed = parse_sentinel_url(url)
        client: redis.Redis = sentinel_for(parsed, **options).master_for(  # type: ignore[no-untyped-call]
            parsed.service, connection_class=PrimaryFollowingConnection
        )
        return client
    return redis.Redis.from_url(url, **options)


def check_reachable(url: str, variable: str = "REDIS_URL") -> None:
    """For a Sentinel URL: a ValueError naming `variable` unless some Sentinel answers and knows the service. A
    one-server URL is not checked here (its clients retry a server that is down, as they must at any time)."""
    if not is_sentinel_url(url):
        return
    parsed = parse_sentinel_url(url, variable)
    sentinel = sentinel_for(parsed, socket_connect_timeout=SENTINEL_ANSWER_SECONDS)
    asked = ", ".join(f"{_host_text(host)}:{port}" for host, port in parsed.sentinels)
    try:
        sentinel.discover_master(parsed.service)  # type: ignore[no-untyped-call]
    except MasterNotFoundError:
        answered = 0
        for client in sentinel.sentinels:
            try:
                client.ping()
                answered += 1
            except redis.AuthenticationError:
                raise ValueError(f"{variable}: a Sentinel at {asked} refused the URL's credentials") from None
            except redis.RedisError:
                pass
        if answered == 0:
            raise ValueError(f"{variable}: no Sentinel answers at {asked}") from None
        raise ValueError(
            f"{variable}: no Sentinel at {asked} knows a primary named {parsed.service!r} "
            f"({answered} answered; check the service name)"
        ) from None
    finally:
        for client in sentinel.sentinels:
            client.close()
