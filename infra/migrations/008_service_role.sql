-- Two roles (docs/operations.md, "Database roles"; infra/db_roles.py). The owner runs the migrations and
-- owns every table, function and trigger. The service (API, relay, projection workers, verify, reports)
-- connects as a login role that is a member of the group role cardledger_service, which holds the
-- privileges granted below and nothing else.
--
-- On the event log the service may read and append, nothing more: no UPDATE, DELETE or TRUNCATE; and as it
-- owns no table it cannot ALTER one (no DISABLE TRIGGER, no new column), DROP it, or add a trigger or rule
-- to it; session_replication_role (which skips triggers) is a superuser's. It appends only the columns the
-- store sends: the database numbers each event (global_position) and stamps the writing transaction (tx_id),
-- which the readers of the log order by, so the service can set neither. A migration that adds a column the
-- store writes must grant INSERT on it too.
--
-- The streams' head rows are the exception to "append only": each append moves its stream's version and
-- last_hash (only those two columns; a stream's id stays). A head moved by hand makes the next append fail
-- or leaves a gap in the chain, both of which the audit reports (it checks each head against the stream's
-- last event); the events themselves stay as written.
--
-- The read models (table_views, seat_views, hand_tricks, settlements) are upserted, so the service updates
-- them; ledger_lines is insert-only. The service deletes nothing anywhere: `cardledger projections rebuild`,
-- which empties read models, is an operator's command and runs as the owner (CARDLEDGER_MIGRATE_DATABASE_URL).
--
-- Roles belong to the whole server: this creates cardledger_service when it is missing, which takes a role
-- with CREATEROLE (or a superuser); otherwise an administrator creates it first. Every database of the
-- server migrated by cardledger grants to the same group role.
--
-- Nothing is open by default: a table a later migration creates is the owner's alone until that migration
-- grants cardledger_service what the service needs on it (tests/integration/test_least_privilege.py holds
-- the expected privileges of every table, and fails on a table it does not know).
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'cardledger_service') THEN
        BEGIN
            CREATE ROLE cardledger_service NOLOGIN;
        EXCEPTION
            WHEN duplicate_object OR unique_violation THEN
                NULL;  -- the migration of another database on this server made it meanwhile
            WHEN insufficient_privilege THEN
                RAISE EXCEPTION 'migration 008 needs the group role cardledger_service, and % may not create roles',
                        current_user
                    USING ERRCODE = 'insufficient_privilege',
                          HINT = 'have an administrator run CREATE ROLE cardledger_service NOLOGIN '
                                 '(or give the migrating role CREATEROLE), then migrate again';
        END;
    END IF;
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'cardledger_service'
               AND (rolsuper OR rolbypassrls OR rolcreaterole OR rolreplication)) THEN
        RAISE EXCEPTION 'the role cardledger_service has SUPERUSER, BYPASSRLS, CREATEROLE or REPLICATION'
            USING HINT = 'it holds the service''s privileges: make it a plain role (ALTER ROLE cardledger_service '
                         'NOSUPERUSER NOBYPASSRLS NOCREATEROLE NOREPLICATION), then migrate again';
    END IF;
    IF pg_has_role('cardledger_service', current_user, 'MEMBER') THEN
        RAISE EXCEPTION 'migrations run as %, which is cardledger_service or one of its groups', current_user
            USING HINT = 'migrate as the owner (CARDLEDGER_MIGRATE_DATABASE_URL), not as the service';
    END IF;
END;
$$;

-- Start from nothing (idempotent, and undoes grants made by hand), then grant exactly what is needed.
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM PUBLIC, cardledger_service;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM PUBLIC, cardledger_service;

-- The schema: use it, create nothing in it (no table or function to shadow the owner's). PostgreSQL 15
-- already keeps CREATE from PUBLIC; older servers gave it. Only the schema's owner can take it back (for
-- anyone else this is a warning, and `cardledger migrate --service-role` reports the CREATE left).
GRANT USAGE ON SCHEMA public TO cardledger_service;
REVOKE CREATE ON SCHEMA public FROM PUBLIC, cardledger_service;

-- /readyz compares the applied migrations with the shipped ones.
GRANT SELECT ON schema_migrations TO cardledger_service;

-- The event log: read, and append the columns the store writes.
GRANT SELECT ON events TO cardledger_service;
GRANT INSERT (stream_id, version, type, schema_version, deal_no, data, metadata, occurred_at, prev_hash, hash,
              hash_version)
    ON events TO cardledger_service;

-- Stream heads: made at version 0 by a table's first append, then moved by each append (version, last_hash).
GRANT SELECT, INSERT ON streams TO cardledger_service;
GRANT UPDATE (version, last_hash) ON streams TO cardledger_service;

-- Written once, with the events or before them; never changed.
GRANT SELECT, INSERT ON idempotency_keys, deal_seeds, players, signing_keys TO cardledger_service;

-- Positions of the relay and the projections (SELECT ... FOR UPDATE, then UPDATE).
GRANT SELECT, INSERT, UPDATE ON log_positions TO cardledger_service;

-- Read models: upserted by the projection workers.
GRANT SELECT, INSERT, UPDATE ON table_views, seat_views, hand_tricks, settlements TO cardledger_service;
GRANT SELECT, INSERT ON ledger_lines TO cardledger_service;

-- Objects the owner creates later: PostgreSQL gives PUBLIC nothing on tables and sequences already (said
-- here so that it stays so), but EXECUTE on every function; a function the service needs is granted to it
-- by its migration. (Triggers fire whoever has EXECUTE.)
ALTER DEFAULT PRIVILEGES REVOKE ALL ON TABLES FROM PUBLIC;
ALTER DEFAULT PRIVILEGES REVOKE ALL ON SEQUENCES FROM PUBLIC;
ALTER DEFAULT PRIVILEGES REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;
