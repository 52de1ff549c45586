-- The table loader (infra/table_loader.py) finds where a table's opening ends and where its latest deals
-- begin from the table's deal_started events alone, then reads the events by (stream_id, version) through
-- events_stream_version_unique. The index on (stream_id, deal_no, version) held every event and cost each
-- append an index insertion (callgrind, server instructions per one-event append: 258.4k with it, 247.6k
-- with this partial index instead, its predicate included). Building the index locks out appends meanwhile.
CREATE INDEX events_deal_starts ON events (stream_id, deal_no, version) WHERE type = 'deal_started';
DROP INDEX events_stream_deal;
