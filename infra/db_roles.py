"""The two database roles (docs/operations.md, "Database roles").

* The owner runs the migrations (``CARDLEDGER_MIGRATE_DATABASE_URL``, else ``DATABASE_URL``) and owns every
  table, function and trigger.
* The service's role is what the API, the relay and the projection workers connect as (``DATABASE_URL``).
  Its privileges are granted by migration 008 to the group role ``cardledger_service`` (NOLOGIN); a login
  role gets them by membership. On the event log it may only read and append.

``ensure_service_role`` (``cardledger migrate --service-role NAME``) creates the login role when missing,
makes it a member of the group and checks it; ``check_service_url`` (``cardledger up`` and ``migrate`` when
the two URLs differ) checks the role ``DATABASE_URL`` logs in as. ``ensure_embedded_roles`` makes the
embedded default's roles (infra/embedded.py).
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg import sql
from psycopg.rows import tuple_row

from infra.db import AnyConn
from infra.migrations import MIGRATING

SERVICE_GROUP = "cardledger_service"  # NOLOGIN; migration 008 grants the service's privileges to it
EMBEDDED_SERVICE_ROLE = "cardledger_app"  # the login role of the embedded default (and of the compose file)
SERVICE_PASSWORD_VARIABLE = "CARDLEDGER_SERVICE_DB_PASSWORD"
MIGRATE_URL_VARIABLE = "CARDLEDGER_MIGRATE_DATABASE_URL"


class ServiceRoleError(Exception):
    """The service role cannot be made, reached, or is unfit (a superuser, the owner...)."""


def _rows(conn: AnyConn, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    with conn.cursor(row_factory=tuple_row) as cur:
        return cur.execute(query, params).fetchall()


def _one(conn: AnyConn, query: str, params: tuple[Any, ...] = ()) -> Any:
    rows = _rows(conn, query, params)
    return rows[0][0] if rows else None


def _role_exists(conn: AnyConn, role: str) -> bool:
    return bool(_one(conn, "SELECT count(*) FROM pg_roles WHERE rolname = %s", (role,)))


def _log_owner(conn: AnyConn) -> str | None:
    """The owner of the events table (None before the migrations made it)."""
    owner = _one(conn, "SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = to_regclass('public.events')")
    return None if owner is None else str(owner)


def _refusal(conn: AnyConn, role: str) -> str | None:
    """Why `role` may never be the service's role: a superuser, the owner (or a member of it), the migrator."""
    if _one(conn, "SELECT rolsuper FROM pg_roles WHERE rolname = %s", (role,)):
        return "is a superuser (triggers, replica mode and every privilege are its to change)"
    if role == _one(conn, "SELECT current_user"):
        return "is the role the migrations run as"
    owner = _log_owner(conn)
    if (
        owner is not None
        and _role_exists(conn, role)
        and _one(conn, "SELECT pg_has_role(%s, %s, 'MEMBER')", (role, owner))
    ):
        return f"is the owner of the event log ({owner}) or a member of that role"
    return None


def service_role_problems(conn: AnyConn, role: str) -> list[str]:
    """What makes `role` more (or less) than the service's role, checked on `conn` (the owner's, any rows):
    empty when it is fit."""
    found = _rows(conn, "SELECT rolcreaterole, rolbypassrls, rolreplication FROM pg_roles WHERE rolname = %s", (role,))
    if not found:
        return [f"the role {role} does not exist"]
    refusal = _refusal(conn, role)  # a superuser, the owner: everything else follows from that
    if refusal is not None:
        return [refusal]
    createrole, bypassrls, replication = found[0]
    problems = []
    if createrole:
        problems.append("has CREATEROLE (it could make itself a member of other roles)")
    if bypassrls:
        problems.append("has BYPASSRLS")
    if replication:
        problems.append("has REPLICATION")
    if not _role_exists(conn, SERVICE_GROUP):
        problems.append(f"the group role {SERVICE_GROUP} does not exist (migration 008 makes it)")
    elif not _one(conn, "SELECT pg_has_role(%s, %s, 'MEMBER')", (role, SERVICE_GROUP)):
        problems.append(f"is not a member of {SERVICE_GROUP}, so it can neither read nor append")
    owned = _one(
        conn,
        """SELECT (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                   WHERE c.relowner = r.oid AND n.nspname NOT LIKE 'pg\\_%%' AND n.nspname <> 'information_schema')
                + (SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                   WHERE p.proowner = r.oid AND n.nspname NOT LIKE 'pg\\_%%' AND n.nspname <> 'information_schema')
                + (SELECT count(*) FROM pg_namespace n WHERE n.nspowner = r.oid AND n.nspname NOT LIKE 'pg\\_%%')
           FROM pg_roles r WHERE r.rolname = %s""",
        (role,),
    )
    if owned:
        problems.append(f"owns {owned} tables, functions or schemas in this database (the owner's alone)")
    if _one(conn, "SELECT to_regclass('public.events') IS NOT NULL"):
        held = [
            str(r[0])
            for r in _rows(
                conn,
                """SELECT p AS privilege FROM unnest(ARRAY['UPDATE', 'DELETE', 'TRUNCATE', 'TRIGGER']) AS p
                   WHERE has_table_privilege(%s, 'public.events', p)
                   UNION ALL SELECT 'UPDATE (a column)' WHERE has_any_column_privilege(%s, 'public.events', 'UPDATE')
                         AND NOT has_table_privilege(%s, 'public.events', 'UPDATE')""",
                (role, role, role),
            )
        ]
        if held:
            problems.append(f"may {', '.join(held)} the events table")
        other = [
            str(r[0])
            for r in _rows(
                conn,
                """SELECT string_agg(p, ', ' ORDER BY p) || ' on ' || c.relname AS what
                   FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace,
                        unnest(ARRAY['DELETE', 'TRUNCATE', 'TRIGGER']) AS p
                   WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname <> 'events'
                     AND has_table_privilege(%s, c.oid, p)
                   GROUP BY c.relname ORDER BY c.relname""",
                (role,),
            )
        ]
        if other:
            problems.append(f"holds {'; '.join(other)} (the service deletes nothing)")
    if _one(conn, "SELECT has_schema_privilege(%s, 'public', 'CREATE')", (role,)):
        problems.append("may CREATE in the schema public (REVOKE CREATE ON SCHEMA public FROM PUBLIC)")
    if _one(conn, "SELECT has_database_privilege(%s, current_database(), 'CREATE')", (role,)):
        problems.append("may CREATE schemas in this database")
    if conn.info.server_version >= 150000 and _one(
        conn, "SELECT has_parameter_privilege(%s, 'session_replication_role', 'SET')", (role,)
    ):
        problems.append("may SET session_replication_role (which switches the triggers off)")
    return problems


def ensure_service_role(owner_url: str, role: str, password: str | None = None) -> list[str]:
    """Create the login role `role` if missing (with `password`, else none), set `password` on an existing
    one, make it a member of SERVICE_GROUP, then check it. Returns what was done; ServiceRoleError when `role`
    is unfit (a superuser, the owner), when the owner may not create or change it, or when the check fails.

    The password goes to the server already hashed (libpq's PQencryptPasswordConn), never in clear text."""
    with psycopg.connect(owner_url, autocommit=True, fallback_application_name=MIGRATING) as conn:
        refusal = _refusal(conn, role)
        if refusal is not None:
            raise ServiceRoleError(
                f"refusing {role} as the service role: it {refusal}; name a role of its own "
                f"(e.g. {EMBEDDED_SERVICE_ROLE}), which this command creates"
            )
        if not _role_exists(conn, SERVICE_GROUP):
            raise ServiceRoleError(f"the group role {SERVICE_GROUP} does not exist: apply the migrations first")
        done = []
        migrator = _one(conn, "SELECT current_user")
        try:
            secret = None
            if password is not None:
                hashed = conn.pgconn.encrypt_password(password.encode(), role.encode())
                secret = sql.SQL(" PASSWORD {}").format(sql.Literal(hashed.decode()))
            if not _role_exists(conn, role):
                try:
                    conn.execute(sql.SQL("CREATE ROLE {} LOGIN{}").format(sql.Identifier(role), secret or sql.SQL("")))
                    done.append("created")
                except (psycopg.errors.DuplicateObject, psycopg.errors.UniqueViolation):
                    pass  # another migrator made it meanwhile
            if secret is not None and "created" not in done:
                conn.execute(sql.SQL("ALTER ROLE {}{}").format(sql.Identifier(role), secret))
                done.append("password set")
            if not _one(conn, "SELECT pg_has_role(%s, %s, 'MEMBER')", (role, SERVICE_GROUP)):
                conn.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(SERVICE_GROUP), sql.Identifier(role)))
                done.append(f"made a member of {SERVICE_GROUP}")
        except psycopg.errors.InsufficientPrivilege as error:
            raise ServiceRoleError(
                f"{migrator} may not create or change the role {role} ({error.diag.message_primary}); have an "
                f"administrator run CREATE ROLE {role} LOGIN PASSWORD '...'; GRANT {SERVICE_GROUP} TO {role}; "
                "then migrate again"
            ) from None
        problems = service_role_problems(conn, role)
    if problems:
        raise ServiceRoleError(f"the service role {role} " + "; ".join(problems))
    return done


def check_service_url(owner_url: str, service_url: str) -> tuple[str, list[str]]:
    """The role `service_url` logs in as, and its problems (checked through `owner_url`); ServiceRoleError
    when it cannot connect."""
    try:
        with psycopg.connect(service_url, connect_timeout=10, fallback_application_name=MIGRATING) as conn:
            role = str(_one(conn, "SELECT session_user"))
    except psycopg.OperationalError as error:
        # libpq's message names the server and the user, never the password.
        raise ServiceRoleError(
            f"cannot connect with DATABASE_URL ({str(error).strip()}); create its role with "
            "`cardledger migrate --service-role NAME`"
        ) from None
    with psycopg.connect(owner_url, fallback_application_name=MIGRATING) as conn:
        return role, service_role_problems(conn, role)


def ensure_embedded_roles(owner_url: str, role: str = EMBEDDED_SERVICE_ROLE) -> None:
    """The embedded default's roles: SERVICE_GROUP and the login role `role` in it (no password: the
    embedded server listens on a unix socket only, with trust authentication). Safe from several processes."""
    for attempt in range(3):
        try:
            with psycopg.connect(owner_url, autocommit=True, fallback_application_name=MIGRATING) as conn:
                for name, options in ((SERVICE_GROUP, "NOLOGIN"), (role, "LOGIN")):
                    if not _role_exists(conn, name):
                        conn.execute(sql.SQL("CREATE ROLE {} {}").format(sql.Identifier(name), sql.SQL(options)))
                if not _one(conn, "SELECT pg_has_role(%s, %s, 'MEMBER')", (role, SERVICE_GROUP)):
                    conn.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(SERVICE_GROUP), sql.Identifier(role)))
            return
        except (psycopg.errors.DuplicateObject, psycopg.errors.UniqueViolation):
            if attempt == 2:
                raise


def service_url_refusal(owner_url: str, service_url: str) -> str | None:
    """Why the stack must not serve as `service_url`'s role (None when it is fit): `check_service_url` as text."""
    try:
        role, problems = check_service_url(owner_url, service_url)
    except ServiceRoleError as error:
        return str(error)
    return f"the service role {role} (DATABASE_URL) " + "; ".join(problems) if problems else None


UNSAFE_SUPERUSER_VARIABLE = "CARDLEDGER_UNSAFE_SUPERUSER_DATABASE"


def own_role_refusal(url: str, variable: str = "DATABASE_URL") -> str | None:
    """Why the service must not run as the role `url` logs in as (None when it may), in one line naming the
    role and what it may do: a superuser, a role that owns tables (so it can disable their triggers), that can
    bypass row security, or that holds TRIGGER, UPDATE, DELETE or TRUNCATE on the event log."""
    with psycopg.connect(url, connect_timeout=10, fallback_application_name=MIGRATING) as conn:
        role = str(_one(conn, "SELECT session_user"))
        found = _rows(conn, "SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = %s", (role,))
        superuser, bypassrls = found[0] if found else (False, False)
        owned = _one(
            conn,
            """SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
               WHERE pg_has_role(session_user, c.relowner, 'MEMBER') AND c.relkind IN ('r', 'p')
                 AND n.nspname NOT LIKE 'pg\\_%%' AND n.nspname <> 'information_schema'""",
        )
        held: list[str] = []
        if _one(conn, "SELECT to_regclass('public.events') IS NOT NULL"):
            held = [
                str(r[0])
                for r in _rows(
                    conn,
                    """SELECT p FROM unnest(ARRAY['TRIGGER', 'UPDATE', 'DELETE', 'TRUNCATE']) AS p
                       WHERE has_table_privilege(session_user, 'public.events', p)""",
                )
            ]
    may = []
    if superuser:
        may.append("is a superuser (it may disable triggers, rewrite the log and read any file)")
    if owned:
        may.append(f"owns {owned} tables (it may disable their triggers and alter them)")
    if bypassrls and not superuser:
        may.append("may bypass row security")
    if held and not superuser and not owned:
        may.append(f"holds {', '.join(held)} on the event log")
    if not may:
        return None
    return (
        f"the role {role} ({variable}) " + "; ".join(may) + ": the service must run as a role of its own "
        "(`cardledger migrate --service-role NAME` as the owner, then DATABASE_URL as NAME; docs/operations.md, "
        f'"Database roles"), or, on a throwaway development database only, with {UNSAFE_SUPERUSER_VARIABLE}=1 '
        "(`--unsafe-superuser-database`)"
    )
