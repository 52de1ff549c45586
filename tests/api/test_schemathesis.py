"""schemathesis, as an integrator would run it: its CLI with every check, all four phases (examples, coverage,
fuzzing, and the stateful phase that follows the document's links from opening a table to every operation on
it) against the app served over HTTP on the real PostgreSQL and Redis, authenticated as a registered player.
The run must end with no failure: the document promises exactly what the service does.

CARDLEDGER_SCHEMATHESIS_EXAMPLES sets the cases per operation and phase (default 10, kept small for the
default run); CARDLEDGER_SCHEMATHESIS_SECONDS bounds the run (default none); CARDLEDGER_SCHEMATHESIS_SEED
picks another run (default 21). The rules the document cannot state are in schemathesis_hooks.py.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from services.api import create_app
from services.api.spec.document import SPEC_PATH
from services.bootstrap import Container
from tests.api.conftest import TEST_CONFIG, Api
from tests.conftest import empty_all_tables

pytestmark = pytest.mark.slow

EXAMPLES = int(os.environ.get("CARDLEDGER_SCHEMATHESIS_EXAMPLES", "10"))
SECONDS = os.environ.get("CARDLEDGER_SCHEMATHESIS_SECONDS")
SEED = os.environ.get("CARDLEDGER_SCHEMATHESIS_SEED", "21")
SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
CONFIG = Path(__file__).with_name("schemathesis.toml")
HOOKS = Path(__file__).with_name("schemathesis_hooks.py")


@pytest.fixture(scope="module")
def served(container: Container, api_database_url: str) -> Iterator[tuple[str, str]]:
    """The app on a free local port, and the token of a registered player."""
    empty_all_tables(api_database_url)
    container.redis.flushdb()
    app = create_app(container=container, config={**TEST_CONFIG, "SSE_MAX_SECONDS": 0.05, "LONG_POLL_SECONDS": 0.05})
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # not a line per request
    _, token = Api(app.test_client()).register("schemathesis")
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", token
    finally:
        server.shutdown()
        thread.join()


def run_schemathesis(base_url: str, token: str, report: Path) -> subprocess.CompletedProcess[str]:
    command = [
        str(SCHEMATHESIS),
        "--config-file",
        str(CONFIG),
        "run",
        str(SPEC_PATH),
        "--url",
        base_url,
        "--checks",
        "all",
        "--phases",
        "examples,coverage,fuzzing,stateful",
        "--max-examples",
        str(EXAMPLES),
        "--header",
        f"Authorization: Bearer {token}",
        "--seed",
        SEED,
        "--workers",
        "1",
        "--no-color",
        "--report",
        "json",
        "--report-json-path",
        str(report),
        "--generation-database",
        "none",
    ]
    if SECONDS:
        command += ["--max-time", SECONDS]
    # In a temporary folder: the CLI keeps a cache of its cases in .schemathesis/ of where it runs.
    env = {**os.environ, "SCHEMATHESIS_HOOKS": str(HOOKS)}
    return subprocess.run(
        command, capture_output=True, text=True, timeout=3600, check=False, cwd=report.parent, env=env
    )


def test_schemathesis_finds_no_failure(served: tuple[str, str], tmp_path: Path) -> None:
    if not SCHEMATHESIS.exists():
        pytest.skip(f"schemathesis is not installed beside {sys.executable}: pip install -e '.[dev]'")
    base_url, token = served
    report_path = tmp_path / "schemathesis.json"
    run = run_schemathesis(base_url, token, report_path)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-20000:]
    report = json.loads(report_path.read_text())
    cases = report["test_cases"]
    assert cases["with_failures"] == 0 and not report["failures"] and not report["errors"], output[-20000:]
    assert cases["generated"] > 0
    dropped = report.get("filtered", 0)  # by schemathesis_hooks.filter_failure
    print(f"schemathesis: {cases['generated']} cases generated, 0 failures ({dropped} state refusals dropped)")
