-- Positions in the global log (relay, projections) and the read models.

CREATE TABLE log_positions (
    name             text PRIMARY KEY,
    tx_id            xid8 NOT NULL DEFAULT '0'::xid8,
    global_position  bigint NOT NULL DEFAULT 0,
    updated_at       timestamptz NOT NULL DEFAULT now()
);

-- Public table state, one row per table (the lobby and GET /v1/tables/{id}).
CREATE TABLE table_views (
    table_id    text PRIMARY KEY,
    game        text NOT NULL,
    status      text NOT NULL,
    seats       integer NOT NULL,
    version     integer NOT NULL,
    created_seq bigint NOT NULL,
    view        jsonb NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX table_views_lobby ON table_views (created_seq);

-- Private seat views: only ever served to the seat's own player.
CREATE TABLE seat_views (
    table_id   text NOT NULL,
    seat       integer NOT NULL,
    player_id  text NOT NULL,
    version    integer NOT NULL,
    view       jsonb NOT NULL,
    PRIMARY KEY (table_id, seat)
);

-- Tricks won per hand (Cha Kau Tsz), by seat.
CREATE TABLE hand_tricks (
    table_id  text NOT NULL,
    deal_no   integer NOT NULL,
    seat      integer NOT NULL,
    tricks    integer NOT NULL,
    PRIMARY KEY (table_id, deal_no, seat)
);

-- The double-entry ledger: two lines per transfer (payer debited, payee credited).
CREATE TABLE ledger_lines (
    global_position  bigint NOT NULL,
    line_no          integer NOT NULL,
    table_id         text NOT NULL,
    game             text NOT NULL,
    deal_no          integer NOT NULL,
    account          text NOT NULL,
    player_id        text,
    amount           bigint NOT NULL,
    unit             text NOT NULL,
    amount_cents     bigint NOT NULL,
    reason           text NOT NULL,
    occurred_at      timestamptz NOT NULL,
    PRIMARY KEY (global_position, line_no)
);
CREATE INDEX ledger_lines_table ON ledger_lines (table_id, global_position);
CREATE INDEX ledger_lines_player ON ledger_lines (player_id, occurred_at);

-- Per-player settlement figures per table.
CREATE TABLE settlements (
    player_id   text NOT NULL,
    table_id    text NOT NULL,
    game        text NOT NULL,
    net_cents   bigint NOT NULL,
    net_amount  bigint NOT NULL,
    unit        text NOT NULL,
    deals       integer NOT NULL,
    PRIMARY KEY (player_id, table_id)
);
