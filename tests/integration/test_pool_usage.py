"""ServicePool.usage(): what `cardledger_db_pool_connections` shows."""

from __future__ import annotations

from infra.db import open_pool


def test_usage_counts_connections_in_use_and_resting(db_url: str) -> None:
    pool = open_pool(db_url, min_size=1, max_size=4)
    try:
        pool.wait()
        with pool.connection() as first, pool.connection() as second:
            first.execute("SELECT 1")
            second.execute("SELECT 1")
            held = pool.usage()
        assert held["in_use"] == 2 and held["max"] == 4 and held["waiting"] == 0
        rested = pool.usage()  # both given back
        assert rested["in_use"] == 0
        assert rested["idle"] == held["idle"] + 2
    finally:
        pool.close()
