-- The event store: one stream per table, a global log, a hash chain per stream.

CREATE TABLE streams (
    stream_id  text PRIMARY KEY,
    version    integer NOT NULL CHECK (version >= 0),
    last_hash  text NOT NULL
);

CREATE TABLE events (
    global_position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    stream_id       text NOT NULL REFERENCES streams (stream_id),
    version         integer NOT NULL CHECK (version >= 1),
    type            text NOT NULL,
    schema_version  smallint NOT NULL DEFAULT 1,
    deal_no         integer NOT NULL DEFAULT 0,
    data            jsonb NOT NULL,
    metadata        jsonb NOT NULL DEFAULT '{}'::jsonb,
    occurred_at     timestamptz NOT NULL,
    prev_hash       text NOT NULL,
    hash            text NOT NULL,
    -- The writing transaction: readers of the global log only pass events whose
    -- transaction is older than every transaction still running, and order by
    -- (tx_id, global_position), so a late commit can never fall behind a reader.
    tx_id           xid8 NOT NULL DEFAULT pg_current_xact_id(),
    CONSTRAINT events_stream_version_unique UNIQUE (stream_id, version)
);

CREATE INDEX events_commit_order ON events (tx_id, global_position);
CREATE INDEX events_stream_deal ON events (stream_id, deal_no, version);

CREATE FUNCTION refuse_event_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events are immutable: % on events is refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END;
$$;

CREATE TRIGGER events_immutable_rows
    BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION refuse_event_change();

CREATE TRIGGER events_immutable_truncate
    BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_event_change();

-- One answer per (caller, Idempotency-Key), written with the events it produced.
CREATE TABLE idempotency_keys (
    scope         text NOT NULL,
    key           text NOT NULL,
    request_hash  text NOT NULL,
    stream_id     text,
    response      jsonb NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (scope, key)
);

-- Server seeds of deals; a seed is secret until its deal ends (the deal_ended event reveals it).
CREATE TABLE deal_seeds (
    stream_id    text NOT NULL,
    deal_no      integer NOT NULL CHECK (deal_no >= 1),
    server_seed  bytea NOT NULL CHECK (length(server_seed) = 32),
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (stream_id, deal_no)
);

CREATE TABLE players (
    id          text PRIMARY KEY,
    name        text NOT NULL,
    token_hash  text NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now()
);
