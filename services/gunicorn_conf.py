"""gunicorn settings for the API (`gunicorn -c python:services.gunicorn_conf ...`, see `supervisor.gunicorn_command`).

- Logs: gunicorn's error log, its access log and the app's loggers as JSON
  lines on stderr (`services.logs`). The access line has method, path (no
  query string), status, bytes, duration_ms, remote_addr and request_id.
- Metrics: prometheus_client's multiprocess mode. PROMETHEUS_MULTIPROC_DIR
  is used when set (its files are removed here, at start), otherwise a fresh
  temporary folder is made and removed at exit. It is set before any worker
  imports prometheus_client (the app is loaded in the workers, not here).
  A worker that exits is marked dead so its live gauges go away. The arbiter
  serves every worker's metrics on a port of their own
  (CARDLEDGER_API_METRICS_PORT, default 9100; 0: none), never on the public
  port, as the relay and the workers do.
- Shutdown: on SIGTERM the arbiter stops accepting, lets the workers finish
  the requests in flight for up to `graceful_timeout` seconds, then exits 0.

Workers, threads, bind address and log level come from the command line.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from infra.config import Settings
from services.logs import gunicorn_logconfig

MULTIPROC_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"


def _prepare_multiprocess_dir() -> tuple[Path, bool]:
    """The folder of the metric files, emptied; and whether it was made here (then removed at exit)."""
    configured = os.environ.get(MULTIPROC_VARIABLE, "").strip()
    if configured:
        folder = Path(configured)
        folder.mkdir(parents=True, exist_ok=True)
        for leftover in folder.glob("*.db"):
            leftover.unlink(missing_ok=True)
        return folder, False
    folder = Path(tempfile.mkdtemp(prefix="cardledger-metrics-"))
    os.environ[MULTIPROC_VARIABLE] = str(folder)
    return folder, True


_metrics_dir, _metrics_dir_owned = _prepare_multiprocess_dir()

_settings = Settings.from_env()  # the command line that started gunicorn has checked them
logconfig_dict = gunicorn_logconfig(_settings.log_level)
graceful_timeout = 20
timeout = 60
keepalive = 5
# gunicorn 24+ opens a control socket at one fixed per-user path; several servers on a host would share it.
control_socket_disable = True


def when_ready(server: Any) -> None:
    from services.api.middleware.metrics import serve_api_metrics

    serve_api_metrics(str(_metrics_dir), _settings.host, _settings.metrics.api)


def child_exit(server: Any, worker: Any) -> None:
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid, str(_metrics_dir))  # type: ignore[no-untyped-call]


def on_exit(server: Any) -> None:
    if _metrics_dir_owned:
        shutil.rmtree(_metrics_dir, ignore_errors=True)
