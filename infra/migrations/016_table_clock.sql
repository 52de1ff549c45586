-- The turn clock's times move from `table_views` to a narrow table of their own, so that the table view's
-- update at each event can be a HOT update (heap-only tuple: no new index entry, the new row version on the
-- same page). An update is HOT only when no indexed column changes and the new version fits on its page;
-- `turn_deadline` (indexed by migration 010) changed at nearly every turn, so no table view update was HOT,
-- and each wrote an entry in each of the table's four indexes (docs/performance.md, "HOT table view updates").
--
-- `table_clock` has one row per table the `table_views` projection has met (NULL times included), written by
-- that projection in the statement of its table views (infra/projections/tables.py), and only when a time
-- changed. Its partial indexes are the ones the clock's sweeps read (infra/sql/table_views.py). A new deadline
-- is an update with index entries; its fillfactor keeps the new version on the row's page (a smaller record).
--
-- `table_views` keeps its columns `turn_deadline` and `vacant_since`, emptied here and no longer written or
-- read by this release: workers of the previous release (a rolling upgrade) still name them, and a later
-- migration may drop them. A fillfactor of 70 leaves room on each page for a row's next version (a row is
-- about 1 to 2 kB, its views compressed in place); pages written before keep theirs until rewritten.
CREATE TABLE table_clock (
    table_id       text PRIMARY KEY,
    turn_deadline  timestamptz,
    vacant_since   timestamptz
) WITH (fillfactor = 50);
INSERT INTO table_clock (table_id, turn_deadline, vacant_since)
SELECT table_id, turn_deadline, vacant_since FROM table_views;
CREATE INDEX table_clock_turn_deadline ON table_clock (turn_deadline) WHERE turn_deadline IS NOT NULL;
CREATE INDEX table_clock_vacant_since ON table_clock (vacant_since) WHERE vacant_since IS NOT NULL;

DROP INDEX table_views_turn_deadline;
DROP INDEX table_views_vacant_since;
UPDATE table_views SET turn_deadline = NULL, vacant_since = NULL
WHERE turn_deadline IS NOT NULL OR vacant_since IS NOT NULL;
ALTER TABLE table_views SET (fillfactor = 70);

-- Upserted by the projection workers, like the other read models (migration 008); emptied only by a rebuild.
GRANT SELECT, INSERT, UPDATE ON table_clock TO cardledger_service;
