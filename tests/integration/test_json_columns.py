"""json and jsonb columns come back through infra.json_loading (installed by importing infra)."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.types.json import _JsonLoader

from infra import json_loading


def test_psycopg_reads_json_columns_with_the_project_loader(conn: psycopg.Connection[dict[str, Any]]) -> None:
    assert _JsonLoader._loads is json_loading.loads
    row = conn.execute("""SELECT '{"b": [1, 2.5, "x"], "a": null}'::jsonb AS j, ' [1] '::json AS k""").fetchone()
    assert row is not None
    assert row["j"] == {"a": None, "b": [1, 2.5, "x"]}
    assert row["k"] == [1]
