-- The turn clock and abandoned tables (house rules, docs/house-rules.md; the clock: services/clock.py).
--
-- 1. table_views carries the two times the clock sweeps for, both pure functions of the table's log
--    (`domain.table.turn_deadline` and `vacant_since`): `turn_deadline`, when the clock acts for the seat to
--    act (or unseats the seats not ready between deals), NULL without a clock or with nobody to act; and
--    `vacant_since`, since when nobody has sat at the table, NULL while someone does or once it is closed.
--    Each has a partial index, so that a sweep reads only the rows that are due, however many tables there
--    are. Existing rows start with NULL in both: the projection sets them at the table's next event (a table
--    opened before the clock has no `turn_seconds` option and never gets a deadline; to have the vacancy of
--    old empty tables too, run `cardledger projections rebuild table_views` as the owner).
--
-- 2. seats change hands between deals, and a seat may be left empty: the seat_views row of an empty seat has
--    no player (NULL), so the player who left no longer finds it; the service still deletes nothing.
ALTER TABLE table_views ADD COLUMN turn_deadline timestamptz, ADD COLUMN vacant_since timestamptz;
CREATE INDEX table_views_turn_deadline ON table_views (turn_deadline) WHERE turn_deadline IS NOT NULL;
CREATE INDEX table_views_vacant_since ON table_views (vacant_since) WHERE vacant_since IS NOT NULL;

ALTER TABLE seat_views ALTER COLUMN player_id DROP NOT NULL;
