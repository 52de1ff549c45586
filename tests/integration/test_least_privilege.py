"""The two database roles (migration 008, infra/db_roles.py; docs/operations.md, "Database roles").

A database of its own, migrated by the superuser of the test server with a service login role made by
`ensure_service_role`; then, connected as that role: every way of changing a stored event is refused, and the
whole service (writes, projections, relay, verify, reports, /readyz) works.

Roles are the server's, not a database's: the login roles made here have names of their own per run and are
dropped at the end. The group role cardledger_service, which every migrated database grants to, stays.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import psycopg
import pytest
import redis
import yaml
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.rows import dict_row

from domain.hashchain import GENESIS_HASH
from infra import projections
from infra.config import Settings
from infra.db import open_pool
from infra.db_roles import (
    SERVICE_GROUP,
    UNSAFE_SUPERUSER_VARIABLE,
    ServiceRoleError,
    check_service_url,
    ensure_service_role,
    service_role_problems,
)
from infra.event_store import EventStore, NewEvent, read_stream_in
from infra.migrations import MIGRATIONS_DIR, migrate, pending_migrations
from infra.signing import SIGNING_KEY_VARIABLE, ReceiptSigner, parse_signing_key
from services.api import create_app
from services.app.audit.service import settlement_report_offline, verify_tables
from services.app.audit.verify import ChainWalker
from services.bootstrap import bootstrap
from services.cli import main
from services.cli.simulate.stack import embedded_stack
from services.projector.rebuild import rebuild
from services.relay import Relay
from tests.conftest import fresh_database, register_key
from tests.e2e.stack import http
from tests.faults.servers import free_port
from tests.integration.test_audit_support import AUDITOR_TOKEN, play_table
from tests.k8s_render import OVERLAYS, rendered
from tests.play import register

# What cardledger_service holds on each table, and nothing else (column privileges as "PRIV(col, ...)").
# A migration that adds a table adds it here, with the least its code needs.
EVENT_COLUMNS = (
    "data, deal_no, hash, hash_version, metadata, occurred_at, prev_hash, schema_version, stream_id, type, version"
)
EXPECTED_PRIVILEGES = {
    "schema_migrations": {"SELECT"},
    "events": {"SELECT", f"INSERT({EVENT_COLUMNS})"},
    "streams": {"SELECT", "INSERT", "UPDATE(last_hash, version)"},
    "idempotency_keys": {"SELECT", "INSERT"},
    "deal_seeds": {"SELECT", "INSERT"},
    "players": {"SELECT", "INSERT"},
    "signing_keys": {"SELECT"},  # only the owner registers keys (migration 017)
    "log_positions": {"SELECT", "INSERT", "UPDATE"},
    "table_views": {"SELECT", "INSERT", "UPDATE"},
    "table_clock": {"SELECT", "INSERT", "UPDATE"},
    "seat_views": {"SELECT", "INSERT", "UPDATE"},
    "hand_tricks": {"SELECT", "INSERT", "UPDATE"},
    "settlements": {"SELECT", "INSERT", "UPDATE"},
    "ledger_lines": {"SELECT", "INSERT"},
    "deal_settlements": {"SELECT", "INSERT", "UPDATE"},
    "closing_refunds": {"SELECT", "INSERT"},
}


@dataclass(frozen=True)
class Roles:
    owner_url: str  # the test server's superuser, on the database of this module
    service_url: str
    service_role: str
    server_url: str  # the superuser on the server's admin database (roles are made and dropped there)


def url_as(url: str, user: str, password: str | None = None) -> str:
    """`url` (a postgresql:// URL, as DATABASE_URL must be) for another role."""
    if "://" not in url:
        return make_conninfo(url, user=user, password=password)
    parts = urlsplit(url)
    auth = quote(user, safe="") + (":" + quote(password, safe="") if password else "")
    return urlunsplit(parts._replace(netloc=auth + "@" + parts.netloc.rpartition("@")[2]))


def drop_roles(server_url: str, *names: str) -> None:
    with psycopg.connect(server_url, autocommit=True) as admin:
        for name in names:
            admin.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(name)))


@pytest.fixture(scope="module")
def roles(pg_server_url: str) -> Iterator[Roles]:
    name = f"cl_test_service_{secrets.token_hex(4)}"
    password = secrets.token_urlsafe(16)
    try:
        with fresh_database(pg_server_url, prefix="cardledger_roles") as owner_url:
            migrate(owner_url)
            register_key(owner_url)  # as `cardledger migrate` does: the owner registers the service's key
            assert ensure_service_role(owner_url, name, password) == ["created", f"made a member of {SERVICE_GROUP}"]
            yield Roles(owner_url, url_as(owner_url, name, password), name, pg_server_url)
    finally:
        drop_roles(pg_server_url, name)


def as_service(roles: Roles) -> psycopg.Connection[dict[str, Any]]:
    return psycopg.connect(roles.service_url, autocommit=True, row_factory=dict_row)


def events_snapshot(url: str, streams: str = "least-%") -> list[tuple[Any, ...]]:
    """Every column of the events of the streams named like `streams` (those of `appended`, by default)."""
    with psycopg.connect(url) as conn:
        return conn.execute(
            """SELECT global_position, stream_id, version, type, data::text, metadata::text, tx_id::text, hash,
                      prev_hash, occurred_at, schema_version, deal_no, hash_version
               FROM events WHERE stream_id LIKE %s ORDER BY global_position""",
            (streams,),
        ).fetchall()


def triggers(url: str) -> list[tuple[str, str]]:
    with psycopg.connect(url) as conn:
        return conn.execute(
            "SELECT tgname, tgenabled::text FROM pg_trigger WHERE tgrelid = 'events'::regclass ORDER BY tgname"
        ).fetchall()


@pytest.fixture(scope="module")
def appended(roles: Roles) -> list[tuple[Any, ...]]:
    """Two streams appended through the EventStore as the service role; the events as the owner reads them."""
    pool = open_pool(roles.service_url, max_size=2)
    try:
        store = EventStore(pool)
        store.append("least-1", 0, [NewEvent("opened", {"n": 1}), NewEvent("moved", {"n": 2})])
        store.append("least-1", 2, [NewEvent("moved", {"n": 3})])
        store.append("least-2", 0, [NewEvent("opened", {"secret": {"cards": ["AS"]}})])
        assert [e.version for e in store.read_stream("least-1")] == [1, 2, 3]
    finally:
        pool.close()
    return events_snapshot(roles.owner_url)


# --------------------------------------------------------------------------- the grants


def granted(url: str, grantee: str) -> dict[str, set[str]]:
    """Every table of the schema public, with the privileges `grantee` ("PUBLIC" or a role) holds on it."""
    role_oid = "0" if grantee == "PUBLIC" else f"'{grantee}'::regrole::oid"
    found: dict[str, set[str]] = {}
    with psycopg.connect(url) as conn:
        for (table,) in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'"):
            found[table] = set()
        for table, privilege in conn.execute(
            f"""SELECT c.relname, a.privilege_type FROM pg_class c
                JOIN pg_namespace n ON n.oid = c.relnamespace, aclexplode(c.relacl) a
                WHERE n.nspname = 'public' AND c.relkind = 'r' AND a.grantee = {role_oid}"""
        ):
            found[table].add(privilege)
        for table, privilege, columns in conn.execute(
            f"""SELECT c.relname, a.privilege_type, string_agg(att.attname, ', ' ORDER BY att.attname)
                FROM pg_attribute att JOIN pg_class c ON c.oid = att.attrelid
                JOIN pg_namespace n ON n.oid = c.relnamespace, aclexplode(att.attacl) a
                WHERE n.nspname = 'public' AND c.relkind = 'r' AND a.grantee = {role_oid}
                GROUP BY c.relname, a.privilege_type"""
        ):
            found[table].add(f"{privilege}({columns})")
    return found


def test_every_table_grants_the_service_exactly_what_it_needs(roles: Roles) -> None:
    found = granted(roles.owner_url, SERVICE_GROUP)
    unknown = set(found) - set(EXPECTED_PRIVILEGES)
    assert not unknown, f"tables {sorted(unknown)} are new: grant {SERVICE_GROUP} what it needs, list it here"
    assert found == EXPECTED_PRIVILEGES
    assert granted(roles.owner_url, "PUBLIC") == {table: set() for table in found}
    assert granted(roles.owner_url, roles.service_role) == {table: set() for table in found}  # all by membership


def test_the_service_role_is_checked_and_fit(roles: Roles) -> None:
    assert check_service_url(roles.owner_url, roles.service_url) == (roles.service_role, [])
    assert ensure_service_role(roles.owner_url, roles.service_role) == []  # there already: checked only
    with psycopg.connect(roles.owner_url) as conn:
        owner = conn.execute("SELECT pg_get_userbyid(relowner) FROM pg_class WHERE relname = 'events'").fetchone()
        assert owner is not None and owner[0] != roles.service_role
        problems = service_role_problems(conn, str(owner[0]))
    assert problems == ["is a superuser (triggers, replica mode and every privilege are its to change)"]


def test_migrating_again_keeps_the_grants(roles: Roles) -> None:
    assert migrate(roles.owner_url) == []
    assert granted(roles.owner_url, SERVICE_GROUP) == EXPECTED_PRIVILEGES


# --------------------------------------------------------------------------- every change of an event, refused

INSERT_COLUMNS = "stream_id, version, type, data, occurred_at, prev_hash, hash"
A_ROW = f"SELECT {INSERT_COLUMNS} FROM events WHERE stream_id = 'least-1' AND version = 1"

REFUSED: dict[str, list[str]] = {
    "update": ["UPDATE events SET data = '{\"n\": 99}' WHERE stream_id = 'least-1'"],
    "update nothing": ["UPDATE events SET type = type WHERE false"],
    "delete": ["DELETE FROM events WHERE stream_id = 'least-1'"],
    "truncate": ["TRUNCATE events"],
    "truncate cascade": ["TRUNCATE events, streams CASCADE"],
    "disable a trigger": ["ALTER TABLE events DISABLE TRIGGER events_immutable_rows"],
    "disable every trigger": ["ALTER TABLE events DISABLE TRIGGER ALL"],
    "drop a trigger": ["DROP TRIGGER events_immutable_rows ON events"],
    "replace the trigger function": [
        """CREATE OR REPLACE FUNCTION refuse_event_change() RETURNS trigger LANGUAGE plpgsql
           AS $$ BEGIN RETURN NEW; END; $$"""
    ],
    "drop the trigger function": ["DROP FUNCTION refuse_event_change() CASCADE"],
    "drop the table": ["DROP TABLE events"],
    "rename the table": ["ALTER TABLE events RENAME TO events_old"],
    "add a column": ["ALTER TABLE events ADD COLUMN note text"],
    "change a column": ["ALTER TABLE events ALTER COLUMN data TYPE text"],
    "take the table": ["ALTER TABLE events OWNER TO CURRENT_USER"],
    "create a trigger": [
        """CREATE TRIGGER sneak BEFORE INSERT ON events
           FOR EACH ROW EXECUTE FUNCTION suppress_redundant_updates_trigger()"""
    ],
    "create a rule": ["CREATE RULE sneak AS ON INSERT TO events DO INSTEAD NOTHING"],
    "update in a CTE": ["WITH moved AS (UPDATE events SET type = 'forged' RETURNING 1) SELECT count(*) FROM moved"],
    "delete in a CTE": ["WITH gone AS (DELETE FROM events RETURNING *) SELECT count(*) FROM gone"],
    "upsert over an event": [
        f"INSERT INTO events ({INSERT_COLUMNS}) {A_ROW} ON CONFLICT (stream_id, version) DO UPDATE SET type = 'forged'"
    ],
    "merge": ["MERGE INTO events e USING (SELECT 1) s ON true WHEN MATCHED THEN UPDATE SET type = 'forged'"],
    "merge delete": ["MERGE INTO events e USING (SELECT 1) s ON true WHEN MATCHED THEN DELETE"],
    "delete through a view": ["CREATE TEMP VIEW mine AS SELECT * FROM events", "DELETE FROM mine"],
    "lock the rows": ["SELECT * FROM events FOR UPDATE"],
    "lock the table": ["LOCK TABLE events IN ACCESS EXCLUSIVE MODE"],
    "replica mode": ["SET session_replication_role = replica"],
    "replica mode for the transaction": ["SET LOCAL session_replication_role = replica"],
    "replica mode by set_config": ["SELECT set_config('session_replication_role', 'replica', false)"],
    "replica mode by default": ["ALTER ROLE CURRENT_USER SET session_replication_role = replica"],
    "the catalog": ["UPDATE pg_catalog.pg_trigger SET tgenabled = 'D' WHERE tgrelid = 'events'::regclass"],
    "forge the commit order": [
        f"INSERT INTO events ({INSERT_COLUMNS}, tx_id) SELECT 'least-9', 1, type, data, occurred_at, prev_hash, "
        "hash, '1'::xid8 FROM events LIMIT 1"
    ],
    "choose a position": [
        f"INSERT INTO events ({INSERT_COLUMNS}, global_position) OVERRIDING SYSTEM VALUE "
        "SELECT 'least-9', 1, type, data, occurred_at, prev_hash, hash, 1 FROM events LIMIT 1"
    ],
    "move the numbering": ["SELECT setval('events_global_position_seq', 1)"],
    "take a number": ["SELECT nextval('events_global_position_seq')"],
    "restart the numbering": ["ALTER TABLE events ALTER COLUMN global_position RESTART WITH 1"],
    "rename a stream": ["UPDATE streams SET stream_id = 'elsewhere' WHERE stream_id = 'least-1'"],
    "delete a stream": ["DELETE FROM streams"],
    "forget an idempotency key": ["DELETE FROM idempotency_keys"],
    "change a seed": ["UPDATE deal_seeds SET server_seed = server_seed"],
    "drop a signing key": ["DELETE FROM signing_keys"],
    "register a signing key of its own": [
        "INSERT INTO signing_keys (key_id, algorithm, public_key, created_at) "
        "VALUES ('ed25519:0000000000000000', 'Ed25519', 'rogue', '2020-01-01')"
    ],
    "unapply a migration": ["DELETE FROM schema_migrations WHERE number = 8"],
    "become the owner": ["SET ROLE {owner}"],
    "join the owner": ["GRANT {owner} TO CURRENT_USER"],
    "write everything": ["GRANT pg_write_all_data TO CURRENT_USER"],
    "become a superuser": ["ALTER ROLE CURRENT_USER SUPERUSER"],
    "bypass row security": ["ALTER ROLE CURRENT_USER BYPASSRLS"],
    "make roles": ["CREATE ROLE cl_test_sneak SUPERUSER"],
    "shadow a function in public": [
        "CREATE FUNCTION public.pg_current_snapshot() RETURNS int LANGUAGE sql AS 'SELECT 1'"
    ],
    "a table in public": ["CREATE TABLE public.events_shadow (id int)"],
    "a schema": ["CREATE SCHEMA sneak"],
}


@pytest.mark.parametrize("statements", list(REFUSED.values()), ids=list(REFUSED))
def test_the_service_role_cannot_change_a_stored_event(
    roles: Roles, appended: list[tuple[Any, ...]], statements: list[str]
) -> None:
    before_triggers = triggers(roles.owner_url)
    assert before_triggers == [
        ("events_immutable_rows", "O"),
        ("events_immutable_truncate", "O"),
        ("events_wake_relay", "O"),
    ]
    with psycopg.connect(roles.owner_url) as conn:
        owner = conn.execute("SELECT quote_ident(pg_get_userbyid(relowner)) FROM pg_class WHERE relname = 'events'")
        owner_name = str(owner.fetchone()[0])  # type: ignore[index]
    with as_service(roles) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege), conn.transaction():
        for statement in statements:
            conn.execute(statement.replace("{owner}", owner_name))
    assert events_snapshot(roles.owner_url) == appended
    assert triggers(roles.owner_url) == before_triggers


def test_granting_itself_more_grants_nothing(roles: Roles, appended: list[tuple[Any, ...]]) -> None:
    with as_service(roles) as conn:
        # Holding SELECT without the grant option, PostgreSQL only warns ("no privileges were granted").
        conn.execute(sql.SQL("GRANT ALL ON events TO {}").format(sql.Identifier(roles.service_role)))
        conn.execute(sql.SQL("GRANT ALL ON events TO PUBLIC"))
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("UPDATE events SET type = 'forged'")
    assert granted(roles.owner_url, roles.service_role)["events"] == set()
    assert granted(roles.owner_url, "PUBLIC")["events"] == set()
    assert events_snapshot(roles.owner_url) == appended


def test_the_immutability_triggers_still_stand_behind_the_privileges(roles: Roles) -> None:
    """Even the owner (here a superuser) cannot change an event without first switching the triggers off."""
    with psycopg.connect(roles.owner_url, autocommit=True) as conn:
        with pytest.raises(psycopg.errors.RestrictViolation):
            conn.execute("UPDATE events SET type = 'forged'")
        with pytest.raises(psycopg.errors.RestrictViolation):
            conn.execute("TRUNCATE events")


def test_what_the_owner_creates_later_is_closed_to_the_service(roles: Roles) -> None:
    with psycopg.connect(roles.owner_url, autocommit=True) as owner:
        owner.execute("CREATE TABLE later_table (id int)")
        owner.execute("CREATE FUNCTION later_function() RETURNS int LANGUAGE sql AS 'SELECT 1'")
        try:
            with as_service(roles) as conn:
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    conn.execute("SELECT * FROM later_table")
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    conn.execute("SELECT later_function()")
        finally:
            owner.execute("DROP TABLE later_table")
            owner.execute("DROP FUNCTION later_function()")


# --------------------------------------------------------------------------- the service, as the service role


def test_the_whole_service_runs_as_the_service_role(roles: Roles, redis_client: redis.Redis, redis_url: str) -> None:
    settings = Settings(
        database_url=roles.service_url,
        redis_url=redis_url,
        auditor_token=AUDITOR_TOKEN,
        signing_key=parse_signing_key(os.environ[SIGNING_KEY_VARIABLE]),
    )
    container = bootstrap(settings, pool_max_size=4, start_embedded=False)
    try:
        ledger = container.ledger
        rng = random.Random(3)
        players = [register(ledger, f"least-{n}") for n in range(2)]
        played = play_table(ledger, "cholek-tiga", players, deals=1, rng=rng)
        assert len(played.deals) == 1
        other = play_table(ledger, "cha-kau-tsz", [register(ledger, f"least-c{n}") for n in range(3)], 1, rng)

        with as_service(roles) as conn:
            # The log is read behind the oldest transaction still running on the server (another test run's
            # included): catch up until every projection has passed the newest event.
            newest, deadline = len(events_snapshot(roles.owner_url, "%")), time.monotonic() + 20
            applied = dict.fromkeys(projections.NAMES, 0)
            while min(applied.values()) < newest and time.monotonic() < deadline:
                for name, count in projections.catch_up_all(conn).items():
                    applied[name] += count
                time.sleep(0.05)
            assert set(applied.values()) == {newest}
            assert pending_migrations(conn) == []
            lobby = conn.execute("SELECT table_id FROM table_views").fetchall()
            assert {row["table_id"] for row in lobby} >= {played.table_id, other.table_id}
            assert conn.execute("SELECT count(*) AS n FROM ledger_lines").fetchone() != {"n": 0}
        view = ledger.queries.table_view(played.table_id)
        assert view["id"] == played.table_id

        total = len(events_snapshot(roles.owner_url, "%"))
        stop = threading.Event()
        relay = Relay(roles.service_url, redis_url, stop, poll_interval=0.02)
        thread = threading.Thread(target=relay.run, daemon=True)
        thread.start()
        try:
            deadline = time.monotonic() + 20
            while relay.published < total and time.monotonic() < deadline:
                time.sleep(0.05)
        finally:
            stop.set()
            thread.join(timeout=30)
        assert relay.published == total

        summary = verify_tables(container.pool, None, progress=False)
        assert summary.ok, summary
        assert settlement_report_offline(container.pool, None, None, None, "json").coverage.complete

        client = create_app(container=container, config={"TESTING": True, "RATE_LIMITS_ENABLED": False}).test_client()
        ready = client.get("/readyz")
        assert ready.status_code == 200, ready.get_json()

        # A rebuild empties read models: the owner's command; as the service it is refused, and changes nothing.
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            rebuild(roles.service_url, ["table_views"], progress=False)
        assert all(rebuilt.equal for rebuilt in rebuild(roles.owner_url, progress=False))
    finally:
        container.close()


def test_the_cli_migrates_as_the_owner_and_checks_the_service_role(
    roles: Roles, redis_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    name = f"cl_test_cli_{secrets.token_hex(4)}"
    service = url_as(roles.owner_url, name, "from-the-environment")
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("DATABASE_URL", service)
    monkeypatch.setenv("CARDLEDGER_MIGRATE_DATABASE_URL", roles.owner_url)
    monkeypatch.setenv("CARDLEDGER_SERVICE_DB_PASSWORD", "from-the-environment")
    try:
        assert main(["migrate", "--service-role", name]) == 0
        out = capsys.readouterr().out
        assert "up to date" in out and f"service role {name}: created, made a member of {SERVICE_GROUP}" in out
        assert main(["migrate", "--service-role", name]) == 0
        assert f"service role {name}: password set; checked" in capsys.readouterr().out
        monkeypatch.delenv("CARDLEDGER_SERVICE_DB_PASSWORD")
        assert main(["migrate"]) == 0  # checks DATABASE_URL's role, which is fit

        assert main(["migrate", "--service-role", "postgres"]) == 1
        assert "refusing postgres as the service role" in capsys.readouterr().err
        # Two URLs, one powerful role: the owner's as DATABASE_URL too (told apart by a parameter).
        monkeypatch.setenv(
            "DATABASE_URL", roles.owner_url + ("&" if "?" in roles.owner_url else "?") + "sslmode=disable"
        )
        assert main(["migrate"]) == 1
        err = capsys.readouterr().err
        assert "the service role postgres (DATABASE_URL)" in err and "superuser" in err
        # No such role yet: DATABASE_URL cannot connect, and migrate says how to make it.
        monkeypatch.setenv("DATABASE_URL", url_as(roles.owner_url, name + "_missing", "x"))
        assert main(["migrate"]) == 1
        assert "--service-role NAME" in capsys.readouterr().err
    finally:
        drop_roles(roles.server_url, name)


# --------------------------------------------------------------------------- an owner that is no superuser


def test_an_owner_without_createrole_migrates_and_is_refused_as_the_service(pg_server_url: str, roles: Roles) -> None:
    """(`roles` first: its migration made the group role, which this owner could not.)"""
    owner, stranger = f"cl_test_owner_{secrets.token_hex(4)}", f"cl_test_new_{secrets.token_hex(4)}"
    password = secrets.token_urlsafe(16)
    try:
        with psycopg.connect(pg_server_url, autocommit=True) as admin:
            admin.execute(
                sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(sql.Identifier(owner), sql.Literal(password))
            )
        with fresh_database(pg_server_url, prefix="cardledger_owner") as admin_url:
            database = conninfo_to_dict(admin_url)["dbname"]
            with psycopg.connect(pg_server_url, autocommit=True) as admin:
                admin.execute(
                    sql.SQL("ALTER DATABASE {} OWNER TO {}").format(sql.Identifier(database), sql.Identifier(owner))
                )
            owner_url = make_conninfo(admin_url, user=owner, password=password)
            migrate(owner_url)
            with psycopg.connect(owner_url) as conn:
                row = conn.execute("SELECT pg_get_userbyid(relowner) FROM pg_class WHERE relname = 'events'")
                assert row.fetchone() == (owner,)
                assert conn.execute("SELECT has_schema_privilege('public', 'CREATE')").fetchone() == (True,)
                # Migration 008 on a server without the group role: this owner may not make it, and is told how.
                group = f"cl_test_group_{secrets.token_hex(4)}"
                text = (MIGRATIONS_DIR / "008_service_role.sql").read_text().replace(SERVICE_GROUP, group)
                with pytest.raises(psycopg.errors.InsufficientPrivilege) as refused, conn.transaction():
                    conn.execute(text.encode())
                assert str(refused.value).startswith(f"migration 008 needs the group role {group}, and {owner} may not")
                assert refused.value.diag.message_hint == (
                    f"have an administrator run CREATE ROLE {group} NOLOGIN "
                    "(or give the migrating role CREATEROLE), then migrate again"
                )

            with pytest.raises(ServiceRoleError, match=f"{owner} may not create or change the role {stranger}"):
                ensure_service_role(owner_url, stranger, "pw")
            with pytest.raises(ServiceRoleError, match=f"refusing {owner} as the service role: it is the role"):
                ensure_service_role(owner_url, owner)
            with pytest.raises(ServiceRoleError, match="is the owner of the event log"):
                ensure_service_role(admin_url, owner)  # the superuser migrating, the owner named
            assert check_service_url(admin_url, owner_url)[1][0].startswith("is the owner of the event log")
    finally:
        drop_roles(pg_server_url, owner, stranger)


def test_moving_a_stream_head_changes_no_event(roles: Roles, appended: list[tuple[Any, ...]]) -> None:
    """The service may move a head (each append does), never an event: a head moved back makes the next append
    fail on the event already at that version (a head moved on leaves a gap the audit reports)."""
    try:
        with as_service(roles) as conn:
            conn.execute("UPDATE streams SET version = 0, last_hash = %s WHERE stream_id = 'least-1'", (GENESIS_HASH,))
        pool = open_pool(roles.service_url, max_size=1)
        try:
            with pytest.raises(psycopg.errors.UniqueViolation):
                EventStore(pool).append("least-1", 0, [NewEvent("opened", {"n": "forged"})])
        finally:
            pool.close()
        assert events_snapshot(roles.owner_url) == appended
        walker = ChainWalker("least-1")  # what `cardledger verify` does at the end of each stream
        with as_service(roles) as conn:
            for event in read_stream_in(conn, "least-1", 1, None, None):
                walker.feed(event)
            walker.check_head(conn)
        assert [problem.reason for problem in walker.problems] == [
            f"stream head says version 0 hash {GENESIS_HASH}, but the last event is version 3 hash "
            f"{appended[2][7]} (events missing or rewritten)"
        ]
    finally:
        with psycopg.connect(roles.owner_url, autocommit=True) as owner:
            owner.execute(
                """UPDATE streams SET version = 3, last_hash = (SELECT hash FROM events
                   WHERE stream_id = 'least-1' AND version = 3) WHERE stream_id = 'least-1'"""
            )


# --------------------------------------------------------------------------- the deployments


@pytest.mark.slow
def test_up_migrates_as_the_owner_and_serves_as_the_service_role(
    roles: Roles, redis_url: str, redis_client: redis.Redis, tmp_path: Path
) -> None:
    env = {
        "DATABASE_URL": roles.service_url,
        "CARDLEDGER_MIGRATE_DATABASE_URL": roles.owner_url,
        "REDIS_URL": redis_url,
        "CARDLEDGER_WORKERS": "1",
        "CARDLEDGER_API_WORKERS": "1",
        "CARDLEDGER_DATA_DIR": str(tmp_path / "data"),
    }
    with embedded_stack(env, tmp_path / "up.log", timeout=120) as stack:
        status, _, player = http("POST", f"{stack.base_url}/v1/players", {"name": "two-roles"})
        assert status == 201, player
        status, _, table = http(
            "POST", f"{stack.base_url}/v1/tables", {"game": "cholek-tiga", "seats": 2}, player["token"]
        )
        assert status == 201, table
        with psycopg.connect(roles.owner_url) as conn:
            users = conn.execute(
                """SELECT DISTINCT usename FROM pg_stat_activity
                   WHERE datname = current_database() AND pid <> pg_backend_pid()"""
            ).fetchall()
        assert users == [(roles.service_role,)]  # the API, the relay and the worker; the migrator has gone
    assert stack.process.returncode == 0, (tmp_path / "up.log").read_text()[-3000:]


ROOT = Path(__file__).resolve().parents[2]


def test_only_the_migrations_are_given_the_owner() -> None:
    """docker-compose.yml and both k8s overlays: the migrate service and job have the owner's URL and make the
    service role; every other process has DATABASE_URL alone, the service role's."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    for name in ("api", "relay", "worker", "migrate"):
        environment = compose[name]["environment"]
        assert environment["DATABASE_URL"].startswith("postgresql://cardledger_app:"), name
        assert ("CARDLEDGER_MIGRATE_DATABASE_URL" in environment) == (name == "migrate"), name
    assert compose["migrate"]["command"] == ["cardledger", "migrate", "--service-role", "cardledger_app"]

    for overlay in OVERLAYS:
        for document in rendered(overlay):
            if document["kind"] not in ("Deployment", "Job") or document["metadata"]["labels"]["app"] != "cardledger":
                continue
            for container in document["spec"]["template"]["spec"]["containers"]:
                secrets_used = {
                    item["valueFrom"]["secretKeyRef"]["name"]
                    for item in container.get("env", [])
                    if "secretKeyRef" in item.get("valueFrom", {})
                }
                is_migrate = container["command"][:2] == ["cardledger", "migrate"]
                assert ("cardledger-migrate" in secrets_used) == is_migrate, document["metadata"]["name"]
                if is_migrate:
                    assert container["command"][2:] == ["--service-role", "cardledger_app"]
    template = list(
        yaml.safe_load_all((ROOT / "k8s" / "overlays" / "production" / "secrets.template.yaml").read_text())
    )
    by_name = {document["metadata"]["name"]: document["stringData"] for document in template}
    assert by_name["cardledger"]["DATABASE_URL"].startswith("postgresql://cardledger_app:")
    assert set(by_name["cardledger-migrate"]) == {"CARDLEDGER_MIGRATE_DATABASE_URL", "CARDLEDGER_SERVICE_DB_PASSWORD"}


def test_the_owners_url_is_a_setting_of_its_own() -> None:
    service, owner = "postgresql://app:s3cret@db/cardledger", "postgresql://owner:0wner-s3cret@db/cardledger"
    settings = Settings.from_env({"DATABASE_URL": service, "CARDLEDGER_MIGRATE_DATABASE_URL": owner})
    assert (settings.database_url, settings.migrate_database_url) == (service, owner)
    assert "0wner-s3cret" not in repr(settings)
    blank = Settings.from_env({"DATABASE_URL": service, "CARDLEDGER_MIGRATE_DATABASE_URL": " "})
    assert blank.migrate_database_url is None
    with pytest.raises(ValueError, match=r"CARDLEDGER_MIGRATE_DATABASE_URL .* needs DATABASE_URL"):
        Settings.from_env({"CARDLEDGER_MIGRATE_DATABASE_URL": owner})
    with pytest.raises(ValueError, match="CARDLEDGER_MIGRATE_DATABASE_URL must be a URL") as error:
        Settings.from_env({"DATABASE_URL": service, "CARDLEDGER_MIGRATE_DATABASE_URL": "mysql://root:hunter2@db/x"})
    assert "hunter2" not in str(error.value)


# --------------------------------------------------------------------------- keys the service cannot forge


def test_a_pinned_verifier_is_not_misled_by_a_rogue_key_or_a_deleted_one(
    roles: Roles, redis_client: redis.Redis, redis_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The experiments of issue 35: a rogue key listed with an old date, and the genuine key's row deleted, on a
    table whose log was rewritten; the verifier pins the genuine key, as `cardledger keys export` printed it."""
    from werkzeug.serving import make_server

    settings = Settings(
        database_url=roles.service_url,
        redis_url=redis_url,
        auditor_token=AUDITOR_TOKEN,
        signing_key=parse_signing_key(os.environ[SIGNING_KEY_VARIABLE]),
    )
    container = bootstrap(settings, pool_max_size=4, start_embedded=False)
    app = create_app(container=container, config={"TESTING": True, "RATE_LIMITS_ENABLED": False})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_port}"
    try:
        client = app.test_client()
        tokens = [client.post("/v1/players", json={"name": f"pin-{n}"}).get_json()["token"] for n in range(2)]
        auth = [{"Authorization": f"Bearer {token}"} for token in tokens]
        opened = client.post("/v1/tables", json={"game": "cholek-tiga", "seats": 2}, headers=auth[0]).get_json()
        table_id = opened["id"]
        receipts = [opened["receipt"]]
        for seat in (0, 1):
            answer = client.post(f"/v1/tables/{table_id}/seats", json={"seat": seat}, headers=auth[seat])
            receipts.append(answer.get_json()["receipt"])
        genuine = container.signer

        assert main(["keys", "export", "--url", url, "--key-id", genuine.key_id]) == 0
        pin = tmp_path / "first-key.json"
        pin.write_text(capsys.readouterr().out)

        def verify(*extra: str) -> tuple[int, dict[str, Any]]:
            path = tmp_path / "receipts.json"
            path.write_text(json.dumps(receipts))
            command = ["verify", "--url", url, "--token", tokens[1], "--table", table_id]
            code = main([*command, "--json", "--receipts", str(path), *extra])
            return code, json.loads(capsys.readouterr().out)

        code, shown = verify("--trust-key", str(pin))
        assert code == 0 and [r["verdict"] for r in shown["receipts"]] == ["ok", "ok", "ok"], shown

        # A rogue key, dated 2020, is listed (by whoever could write the table: no longer the service), and a
        # receipt signed with it "proves" a rewrite of the untouched version 1.
        rogue = ReceiptSigner.ephemeral()
        with psycopg.connect(roles.owner_url, autocommit=True) as owner:
            owner.execute(
                "INSERT INTO signing_keys (key_id, algorithm, public_key, created_at) VALUES (%s, 'Ed25519', %s, %s)",
                (rogue.key_id, rogue.public_key, "2020-01-01T00:00:00Z"),
            )
        receipts.append(rogue.sign(table_id, 1, "f" * 64))
        code, shown = verify("--trust-key", str(pin))
        assert shown["receipts"][-1]["verdict"] == "untrusted_key"
        assert code == 0, shown  # proves nothing: no accusation
        code, shown = verify()  # unpinned, the rogue key is trusted as served, and says so
        assert code == 1 and shown["receipts"][-1]["verdict"] == "rewritten_history"
        assert shown["keys"] == "keys: trusted as served, not pinned"

        # The log is rewritten where the last receipt points, then the genuine key's row is deleted: the pin
        # still proves the rewrite.
        receipts.pop()
        with psycopg.connect(roles.owner_url, autocommit=True) as owner:
            owner.execute("ALTER TABLE events DISABLE TRIGGER USER")
            owner.execute(
                "UPDATE events SET hash = %s WHERE stream_id = %s AND version = %s",
                ("0" * 64, table_id, receipts[-1]["version"]),
            )
            owner.execute("ALTER TABLE events ENABLE TRIGGER USER")
            owner.execute("ALTER TABLE signing_keys DISABLE TRIGGER USER")
            owner.execute("DELETE FROM signing_keys WHERE key_id = %s", (genuine.key_id,))
            owner.execute("ALTER TABLE signing_keys ENABLE TRIGGER USER")
        code, shown = verify("--trust-key", str(pin))
        assert code == 1
        assert [r["verdict"] for r in shown["receipts"]] == ["ok", "ok", "rewritten_history"], shown
        code, shown = verify()
        assert [r["verdict"] for r in shown["receipts"]] == ["unknown_key"] * 3
    finally:
        server.shutdown()
        thread.join(timeout=10)
        container.close()
        with psycopg.connect(roles.owner_url, autocommit=True) as owner:  # the keys as they were, for later tests
            owner.execute("ALTER TABLE signing_keys DISABLE TRIGGER USER")
            owner.execute("DELETE FROM signing_keys WHERE key_id <> %s", (container.signer.key_id,))
            owner.execute("ALTER TABLE signing_keys ENABLE TRIGGER USER")
        register_key(roles.owner_url)


# --------------------------------------------------------------------------- a superuser is never the service


@pytest.fixture
def safe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(UNSAFE_SUPERUSER_VARIABLE, raising=False)


@pytest.mark.parametrize("command", ["api", "relay", "worker"])
def test_a_process_refuses_to_serve_as_a_superuser(
    command: str,
    safe: None,
    migrated_database_url: str,
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("DATABASE_URL", migrated_database_url)
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setattr(os, "execv", lambda *args: (_ for _ in ()).throw(AssertionError("got past its checks")))
    assert main([command]) == 2
    err = capsys.readouterr().err
    role = conninfo_to_dict(migrated_database_url).get("user", "postgres")
    assert err.startswith(f"cardledger: error: the role {role} (DATABASE_URL) is a superuser"), err
    assert "--unsafe-superuser-database" in err and len(err.strip().splitlines()) == 1


def test_the_api_starts_on_a_superuser_only_when_told_the_database_is_a_throwaway(
    safe: None, migrated_database_url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", migrated_database_url)
    monkeypatch.setenv("REDIS_URL", redis_url)

    execs: list[Any] = []

    def started(*args: Any) -> None:
        execs.append(args)
        raise SystemExit(0)  # gunicorn would replace this process here

    monkeypatch.setattr(os, "execv", started)
    with pytest.raises(SystemExit):
        main(["api", "--unsafe-superuser-database"])
    assert execs and "gunicorn" in " ".join(execs[0][1])


def test_up_refuses_one_superuser_url_and_accepts_two_roles(
    safe: None, roles: Roles, redis_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from services.supervisor import Child, run_stack

    started: list[str] = []
    monkeypatch.setattr(Child, "start", lambda self, env: started.append(self.name))
    stopped = threading.Event()
    stopped.set()
    key = parse_signing_key(os.environ[SIGNING_KEY_VARIABLE])
    one = Settings(database_url=roles.owner_url, redis_url=redis_url, port=free_port(), signing_key=key)
    assert run_stack(one, stopped) == 2
    assert "is a superuser" in capsys.readouterr().err and started == []
    two = Settings(
        database_url=roles.service_url,
        migrate_database_url=roles.owner_url,
        redis_url=redis_url,
        port=free_port(),
        signing_key=key,
    )
    assert run_stack(two, stopped) == 0 and "api" in started
