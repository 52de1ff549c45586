"""The servers the settings name, checked once at start: a name that does not resolve or a Sentinel service no
Sentinel knows is a one-line configuration error, not a stream of failed connections later."""

from __future__ import annotations

import socket

from psycopg.conninfo import conninfo_to_dict

from infra.config import Settings
from infra.redis_clients import check_reachable


def database_hosts(url: str) -> list[str]:
    """The host names of a PostgreSQL URL (several in a multi-host URL), without Unix socket folders."""
    hosts = str(conninfo_to_dict(url).get("host") or "").split(",")
    return [host for host in hosts if host and not host.startswith("/")]


def check_database_hosts(url: str, variable: str) -> None:
    """A ValueError naming `variable` and the host when one of the URL's hosts does not resolve: a multi-host URL
    would otherwise skip it quietly, and a failover would find one node fewer than the operator thinks."""
    for host in database_hosts(url):
        try:
            socket.getaddrinfo(host, None)
        except socket.gaierror as error:
            raise ValueError(f"{variable}: host {host!r} does not resolve ({error.strerror})") from None


def check_endpoints(settings: Settings) -> None:
    """Every configured server named by a setting: database hosts resolve, Sentinels know the Redis service."""
    if settings.database_url is not None:
        check_database_hosts(settings.database_url, "DATABASE_URL")
    if settings.migrate_database_url is not None:
        check_database_hosts(settings.migrate_database_url, "CARDLEDGER_MIGRATE_DATABASE_URL")
    if settings.redis_url is not None:
        check_reachable(settings.redis_url, "REDIS_URL")
