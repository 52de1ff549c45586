"""How many requests and streams one API worker serves at once, from the environment (read by the served app's
admission and by the supervisor's gunicorn command)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from infra.config import int_setting

API_THREADS_VARIABLE = "CARDLEDGER_API_THREADS"
DEFAULT_API_THREADS = 4  # with 2 workers: chosen by measurement on 2 cores (docs/operations.md)
API_STREAMS_VARIABLE = "CARDLEDGER_API_STREAMS"
DEFAULT_API_STREAMS = 32
API_QUEUE_SECONDS_VARIABLE = "CARDLEDGER_API_QUEUE_SECONDS"
DEFAULT_API_QUEUE_SECONDS = 5
API_STREAMS_PER_CALLER_VARIABLE = "CARDLEDGER_API_STREAMS_PER_CALLER"
DEFAULT_API_STREAMS_PER_CALLER = 4
API_REQUESTS_PER_CALLER_VARIABLE = "CARDLEDGER_API_REQUESTS_PER_CALLER"
DEFAULT_API_REQUESTS_PER_CALLER = 2
LONG_POLL_SECONDS_VARIABLE = "CARDLEDGER_LONG_POLL_SECONDS"
DEFAULT_LONG_POLL_SECONDS = 25
LONG_POLL_MAX_SECONDS = 60


def api_threads(environ: Mapping[str, str] = os.environ) -> int:
    """CARDLEDGER_API_THREADS: requests one gunicorn worker serves at once (streams aside)."""
    return int_setting(environ, API_THREADS_VARIABLE, DEFAULT_API_THREADS, 1, 64)


def api_streams(environ: Mapping[str, str] = os.environ) -> int:
    """CARDLEDGER_API_STREAMS: Server-Sent Events streams one gunicorn worker follows at once, each on a thread
    of its own (0: none; streams are then refused with 503)."""
    return int_setting(environ, API_STREAMS_VARIABLE, DEFAULT_API_STREAMS, 0, 512)


def api_queue_seconds(environ: Mapping[str, str] = os.environ) -> float:
    """CARDLEDGER_API_QUEUE_SECONDS: how long a request may wait for a free request slot before 503."""
    return float(int_setting(environ, API_QUEUE_SECONDS_VARIABLE, DEFAULT_API_QUEUE_SECONDS, 1, 300))


def api_streams_per_caller(environ: Mapping[str, str] = os.environ) -> int:
    """CARDLEDGER_API_STREAMS_PER_CALLER: streams one token (or address) follows at once on one worker."""
    return int_setting(environ, API_STREAMS_PER_CALLER_VARIABLE, DEFAULT_API_STREAMS_PER_CALLER, 1, 512)


def api_streams_per_address(environ: Mapping[str, str] = os.environ) -> int:
    """CARDLEDGER_API_STREAMS_PER_ADDRESS: streams one client address follows at once on one worker, across tokens."""
    return int_setting(environ, "CARDLEDGER_API_STREAMS_PER_ADDRESS", 8, 1, 512)


def api_streams_reserved(environ: Mapping[str, str] = os.environ) -> int:
    """CARDLEDGER_API_STREAMS_RESERVED: stream slots of one worker kept for the players seated at a table (a
    bystander's stream or long-poll never takes them); default half of CARDLEDGER_API_STREAMS."""
    streams = api_streams(environ)
    return int_setting(environ, "CARDLEDGER_API_STREAMS_RESERVED", streams // 2, 0, streams)


def api_requests_per_caller(environ: Mapping[str, str] = os.environ) -> int:
    """CARDLEDGER_API_REQUESTS_PER_CALLER: requests one token has in progress at once on one worker."""
    return int_setting(environ, API_REQUESTS_PER_CALLER_VARIABLE, DEFAULT_API_REQUESTS_PER_CALLER, 1, 64)


def long_poll_seconds(environ: Mapping[str, str] = os.environ) -> int:
    """CARDLEDGER_LONG_POLL_SECONDS: the longest a long-poll read (`wait_for_version`) waits for its version."""
    return int_setting(environ, LONG_POLL_SECONDS_VARIABLE, DEFAULT_LONG_POLL_SECONDS, 1, LONG_POLL_MAX_SECONDS)
