-- Reads whose cost is bounded by what they ask for, not by the size of the log (docs/operations.md, "What
-- reads cost").
--
-- 1. deal_settlements: the read model of the settlement report (services/audit_reports.py), built by the
--    projection of the same name (infra/projections/deal_settlements.py). One row per (table, deal, account):
--    the net of the deal's transfers for the account (the deal_ended's and the in-play bonuses' of that
--    deal), dated by the deal's deal_ended. Every seat of the table (and the Cha Kau Tsz pool) has a row for
--    each settled deal, at zero when untouched. In-play bonuses of a deal still running wait in rows with
--    settled_at NULL, which no report reads. The report used to join the event log with itself on
--    type = 'deal_ended' (no index: every request read the whole log).
--    table_id is in the "C" collation: the report pages by table id in the same order as Python sorts them.
--
-- 2. ledger_lines gains the version and type of the event each line comes from, so that GET
--    /v1/tables/{id}/ledger pages through this read model (by (table_id, global_position)) and answers lines
--    as it did when it read them from the log. The backfill joins the two tables once; on a large database
--    time it on a copy first (it takes the events' heap once, and locks ledger_lines meanwhile).
--
-- The new read model starts empty: the projection workers fill it from the start of the log (or, faster,
-- `cardledger projections rebuild deal_settlements` as the owner). Until it has caught up, settlement reports
-- are missing the deals it has not reached.

CREATE TABLE deal_settlements (
    table_id      text COLLATE "C" NOT NULL,
    deal_no       integer NOT NULL,
    account       text NOT NULL,
    player_id     text,                 -- the player seated at "seat:N"; NULL for the pool
    game          text NOT NULL,
    unit          text NOT NULL,        -- the game's money unit (cents or points)
    amount        bigint NOT NULL,      -- net of the deal's transfers for the account, in `unit`
    amount_cents  bigint NOT NULL,      -- the same in cents (points at the table's chip_value_cents)
    settled_at    timestamptz,          -- the deal_ended's occurred_at; NULL while the deal runs
    result_net    bigint[],             -- the deal_ended's result.net (by seat), the same on each row of the deal
    consistent    boolean,              -- the seats' amounts equal result_net (the report's discrepancy check)
    PRIMARY KEY (table_id, deal_no, account)
);
-- The report's filters: a player's deals in a period, a table's, every table's.
CREATE INDEX deal_settlements_player ON deal_settlements (player_id, settled_at);
CREATE INDEX deal_settlements_table ON deal_settlements (table_id, settled_at);
CREATE INDEX deal_settlements_settled ON deal_settlements (settled_at);
-- Deals whose transfers do not add up to their result (none, unless the log was tampered with).
CREATE INDEX deal_settlements_discrepancies ON deal_settlements (table_id, settled_at) WHERE NOT consistent;

-- Upserted by the projection workers (a bonus row is updated when its deal ends); nothing deleted.
GRANT SELECT, INSERT, UPDATE ON deal_settlements TO cardledger_service;

ALTER TABLE ledger_lines ADD COLUMN version integer, ADD COLUMN event_type text;
UPDATE ledger_lines AS l
SET version = e.version, event_type = e.type
FROM events AS e
WHERE e.stream_id = l.table_id AND e.global_position = l.global_position;
ALTER TABLE ledger_lines ALTER COLUMN version SET NOT NULL, ALTER COLUMN event_type SET NOT NULL;
