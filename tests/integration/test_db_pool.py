"""FastPool: connections used again and again skip psycopg_pool's bookkeeping, and nothing else changes."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg.pq import TransactionStatus
from psycopg_pool import PoolClosed, PoolTimeout

import infra.db
from infra.db import FastPool, open_pool


def short_idle_pool(db_url: str, max_size: int, max_idle: float) -> FastPool:
    """A FastPool whose shrink rounds come every `max_idle` seconds, opened and filled to min_size (1)."""
    pool = FastPool(db_url, min_size=1, max_size=max_size, max_idle=max_idle, kwargs={"autocommit": True}, open=True)
    pool.wait(timeout=10)
    return pool


@pytest.fixture
def pool(db_url: str) -> Iterator[FastPool]:
    pool = open_pool(db_url, min_size=1, max_size=2)
    yield pool
    pool.close()


def test_a_connection_given_back_clean_is_handed_out_again_without_psycopg_pool(pool: FastPool) -> None:
    first = pool.getconn()
    pool.putconn(first)
    requests = pool.get_stats()["requests_num"]
    again = pool.getconn()
    assert again is first
    assert pool.get_stats()["requests_num"] == requests
    assert again.execute("SELECT 1 AS one").fetchone() == {"one": 1}
    pool.putconn(again)


def test_a_connection_given_back_inside_a_transaction_is_rolled_back_by_psycopg_pool(pool: FastPool) -> None:
    conn = pool.getconn()
    conn.execute("BEGIN")
    conn.execute("CREATE TEMPORARY TABLE scratch (n int)")
    assert conn.pgconn.transaction_status == TransactionStatus.INTRANS
    pool.putconn(conn)
    for _ in range(2):  # whichever connection comes out, it is not inside that transaction
        with pool.connection() as again:
            assert again.pgconn.transaction_status == TransactionStatus.IDLE
            assert again.execute("SELECT to_regclass('pg_temp.scratch') AS t").fetchone() == {"t": None}


def test_a_closed_connection_is_replaced(pool: FastPool) -> None:
    with pool.connection() as conn:
        conn.close()
    for _ in range(3):
        with pool.connection() as again:
            assert not again.closed
            assert again.execute("SELECT 2 AS two").fetchone() == {"two": 2}


def test_a_waiting_caller_gets_a_connection_given_back_meanwhile(db_url: str) -> None:
    pool = open_pool(db_url, min_size=1, max_size=1)
    try:
        held = pool.getconn()
        got: list[object] = []

        def wait_for_it() -> None:
            got.append(pool.getconn(timeout=5))

        waiter = threading.Thread(target=wait_for_it)
        waiter.start()
        threading.Event().wait(0.3)  # the waiter is inside psycopg_pool's getconn by now
        pool.putconn(held)  # into the idle queue, which psycopg_pool does not watch
        # Long before its own timeout (5 s): the waiter looks at the idle queue every 50 ms, and would otherwise
        # sit in psycopg_pool's queue until then.
        waiter.join(timeout=3)
        assert got == [held]
        waiter.join()
        pool.putconn(held)
    finally:
        pool.close()


def test_an_exhausted_pool_still_times_out(db_url: str) -> None:
    pool = open_pool(db_url, min_size=1, max_size=1)
    try:
        held = pool.getconn()
        with pytest.raises(PoolTimeout, match=r"0\.20 sec"):
            pool.getconn(timeout=0.2)
        pool.putconn(held)
        pool.putconn(pool.getconn(timeout=1))
    finally:
        pool.close()


def test_connections_go_back_through_psycopg_pool_after_their_rounds(
    pool: FastPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(infra.db, "_ROUNDS_SECONDS", -1.0)  # every give-back is past the rounds
    for _ in range(3):
        before = pool.get_stats().get("requests_num", 0)
        with pool.connection() as conn:
            conn.execute("SELECT 1")
        assert pool.get_stats()["requests_num"] == before + 1


def test_many_threads_share_the_pool_without_losing_a_connection(db_url: str) -> None:
    pool = open_pool(db_url, min_size=1, max_size=3)
    seen: set[int] = set()
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(200):
                with pool.connection() as conn:
                    seen.add(id(conn))
                    assert conn.execute("SELECT %s::int AS n", (n * 1000 + i,)).fetchone() == {"n": n * 1000 + i}
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert errors == []
        assert 1 <= len(seen) <= 3
        held = [pool.getconn(timeout=5) for _ in range(3)]  # all three are still there to be had
        for conn in held:
            pool.putconn(conn)
    finally:
        pool.close()


def test_closing_closes_the_idle_connections_and_hands_out_no_more(db_url: str) -> None:
    pool = open_pool(db_url, min_size=1, max_size=2)
    idle, busy = pool.getconn(), pool.getconn()
    pool.putconn(idle)
    pool.close()
    assert idle.closed
    pool.putconn(busy)  # given back after the close: closed too
    assert busy.closed
    with pytest.raises(PoolClosed):
        pool.getconn(timeout=0.2)


def test_connections_left_unused_after_a_burst_are_closed_down_to_min_size(db_url: str) -> None:
    """psycopg_pool closes one connection per `max_idle` seconds that it saw unused throughout; the connections
    resting in FastPool's own queue must be counted as unused too, or the pool never shrinks after a burst."""
    pool = short_idle_pool(db_url, max_size=4, max_idle=0.3)
    try:
        burst = [pool.getconn(timeout=5) for _ in range(4)]
        for conn in burst:
            pool.putconn(conn)
        assert pool.get_stats()["pool_size"] == 4
        deadline = time.monotonic() + 10
        while pool.get_stats()["pool_size"] > 1 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert pool.get_stats()["pool_size"] == 1
        assert sum(conn.closed for conn in burst) == 3
        with pool.connection() as conn:  # the one left still serves, through the fast path again afterwards
            assert conn.execute("SELECT 1").fetchone() == (1,)
    finally:
        pool.close()


def test_a_connection_in_use_is_never_closed_by_shrinking(db_url: str) -> None:
    pool = short_idle_pool(db_url, max_size=3, max_idle=0.2)
    try:
        held = [pool.getconn(timeout=5) for _ in range(3)]
        time.sleep(1.0)  # several shrink rounds while every connection is out
        assert not any(conn.closed for conn in held)
        assert all(conn.execute("SELECT 1").fetchone() == (1,) for conn in held)
        for conn in held:
            pool.putconn(conn)
    finally:
        pool.close()


def test_when_the_server_drops_every_connection_only_the_first_caller_fails(db_url: str) -> None:
    """After a server restart each pooled connection is dead; the first failure has the pool test the others."""
    pool = open_pool(db_url, min_size=3, max_size=3)
    try:
        held = [pool.getconn(timeout=5) for _ in range(3)]
        pids = [conn.info.backend_pid for conn in held]
        for conn in held:
            pool.putconn(conn)  # all three rest in the idle queue
        with psycopg.connect(db_url, autocommit=True) as admin:
            for pid in pids:
                admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        outcomes = []
        for _ in range(6):
            try:
                with pool.connection(timeout=10) as conn:
                    conn.execute("SELECT 1")
                outcomes.append("ok")
            except psycopg.OperationalError:
                outcomes.append("failed")
        assert outcomes == ["failed"] + ["ok"] * 5
    finally:
        pool.close()


def _application_name(conn: psycopg.Connection[Any]) -> str:
    row = conn.execute("SELECT current_setting('application_name') AS name").fetchone()
    assert row is not None
    return str(row["name"] if isinstance(row, dict) else row[0])


def test_connections_carry_their_component_s_name_unless_the_url_gives_one(db_url: str) -> None:
    named = open_pool(db_url, min_size=1, max_size=1, component="relay")
    try:
        with named.connection() as conn:
            assert _application_name(conn) == "cardledger-relay"
    finally:
        named.close()
    with infra.db.connect(db_url, "projector") as conn:
        assert _application_name(conn) == "cardledger-projector"
    with infra.db.connect(db_url) as conn:
        assert _application_name(conn) == "cardledger"
    separator = "&" if "?" in db_url else "?"
    with infra.db.connect(f"{db_url}{separator}application_name=operator-chosen", "relay") as conn:
        assert _application_name(conn) == "operator-chosen"


def test_a_connection_broken_by_the_server_tells_who_keeps_what_it_said(pool: FastPool, db_url: str) -> None:
    """A failover ends every backend: the first caller to meet one tells the listeners (the application drops
    its caches, since the server that takes over may hold less), then the pool replaces the dead connections."""
    told: list[str] = []
    pool.server_lost_listeners.append(lambda: told.append("lost"))
    with pool.connection() as conn:
        backend = conn.info.backend_pid
    with psycopg.connect(db_url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (backend,))
    with pytest.raises(psycopg.OperationalError), pool.connection() as conn:
        assert conn.info.backend_pid == backend
        conn.execute("SELECT 1")
    assert told == ["lost"]
    with pool.connection() as again:
        assert again.execute("SELECT 3 AS three").fetchone() == {"three": 3}
    assert told == ["lost"]  # a healthy connection tells nobody
