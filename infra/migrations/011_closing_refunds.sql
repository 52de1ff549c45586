-- The pool refunds of closed tables in the settlement report (services/audit_reports.py; house rules,
-- docs/house-rules.md, "Abandoned tables").
--
-- closing_refunds: the second table of the settlement report's read model, built by the deal_settlements
-- projection (infra/projections/deal_settlements.py) beside deal_settlements. When the service closes an
-- abandoned Cha Kau Tsz table, its `table_closed` event carries transfers from `pool` to `player:<id>` (the
-- pool back to those who paid into it since it was last won). They come after the table's last deal_ended
-- and belong to no deal, so deal_settlements (one row per deal and account) leaves them out. Here they are
-- one row per (table, account) the closing touched: the pool (negative) and each `player:<id>` refunded
-- (positive; player_id is that player), dated by the table_closed's occurred_at. A table is closed once.
-- table_id is in the "C" collation, as in deal_settlements: the report pages by table id over both tables.
--
-- The new table starts empty, and the projection's checkpoint is already past the closings written before
-- this migration: run `cardledger projections rebuild deal_settlements` as the owner after the upgrade to
-- have them in the report (closings after the upgrade are projected as they come).

CREATE TABLE closing_refunds (
    table_id      text COLLATE "C" NOT NULL,
    account       text NOT NULL,        -- "pool" or "player:<id>"
    player_id     text,                 -- the player of "player:<id>"; NULL for the pool
    game          text NOT NULL,
    unit          text NOT NULL,        -- the game's money unit (points for Cha Kau Tsz)
    amount        bigint NOT NULL,      -- net of the closing's transfers for the account, in `unit`
    amount_cents  bigint NOT NULL,      -- the same in cents (points at the table's chip_value_cents)
    closed_at     timestamptz NOT NULL, -- the table_closed's occurred_at
    PRIMARY KEY (table_id, account)
);
-- The report's filters, as on deal_settlements: a player's refunds in a period, every table's (a table's
-- goes through the primary key).
CREATE INDEX closing_refunds_player ON closing_refunds (player_id, closed_at);
CREATE INDEX closing_refunds_closed ON closing_refunds (closed_at);

-- Inserted by the projection workers once per closing; never updated or deleted.
GRANT SELECT, INSERT ON closing_refunds TO cardledger_service;
