"""json and jsonb columns come back through infra.json_loading on the connections infra.db makes, and importing
infra changes nothing for anyone else's connections."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import psycopg
from psycopg.pq import Format
from psycopg_pool import ConnectionPool

from infra import json_loading
from infra.db import connect

QUERY = """SELECT '{"b": [1, 2.5, "x"], "a": null}'::jsonb AS j, ' [1] '::json AS k"""


def json_loaders(conn: psycopg.Connection[Any]) -> list[Any]:
    """The `loads` of the loaders `conn` uses for json and jsonb, text and binary."""
    loaders = []
    for name in ("json", "jsonb"):
        oid = conn.adapters.types[name].oid
        for fmt in (Format.TEXT, Format.BINARY):
            loader = conn.adapters.get_loader(oid, fmt)
            assert loader is not None
            loaders.append(loader._loads)
    return loaders


def assert_reads_json(conn: psycopg.Connection[dict[str, Any]]) -> None:
    row = conn.execute(QUERY).fetchone()
    assert row is not None
    assert row["j"] == {"a": None, "b": [1, 2.5, "x"]}
    assert row["k"] == [1]


def test_pool_connections_read_json_with_the_project_loader(pool: ConnectionPool) -> None:  # type: ignore[type-arg]
    with pool.connection() as conn:
        assert json_loaders(conn) == [json_loading.loads] * 4
        assert_reads_json(conn)


def test_connections_of_their_own_read_json_with_the_project_loader(db_url: str) -> None:
    with connect(db_url) as conn:
        assert json_loaders(conn) == [json_loading.loads] * 4
        assert_reads_json(conn)


def test_other_connections_keep_psycopgs_loader(db_url: str) -> None:
    with psycopg.connect(db_url, row_factory=psycopg.rows.dict_row) as conn:
        assert json_loading.loads not in json_loaders(conn)
        assert_reads_json(conn)


def test_importing_infra_installs_nothing_globally() -> None:
    program = (
        "import json, infra, infra.db, infra.event_store, infra.projections\n"
        "from psycopg.types.json import _JsonLoader\n"
        "assert _JsonLoader._loads is json.loads, _JsonLoader._loads\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
