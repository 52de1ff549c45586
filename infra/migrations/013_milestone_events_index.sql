-- Deal records and dispute reports (services/app/audit/) find a table's opening and seatings and a deal's end
-- among the table's events; without an index each such read walked the whole stream, so its cost grew with
-- every deal the table had played (docs/performance.md, "Flat with history"). A partial index holds only these
-- rare events, so an append of any other event adds no index entry. The queries name the types in their text
-- (infra/sql/deal_events.py): a generic plan uses a partial index only when its predicate shows there.
-- Building the index locks out appends meanwhile.
CREATE INDEX events_milestones ON events (stream_id, type, deal_no, version)
    WHERE type IN ('table_opened', 'player_seated', 'deal_ended');
