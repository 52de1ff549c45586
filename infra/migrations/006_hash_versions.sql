-- Hash version 2 (docs/hashing.md): an event's private block enters its hash only through a salted
-- commitment, so a hash shown to other seats no longer lets them brute-force the hidden cards.
-- Events written before keep version 1 and their hashes; the store writes version 2 from now on.
-- A column with a constant default is added without rewriting the table, and the check is NOT VALID
-- so that it skips the scan of the old rows (all of them 1, the default) and holds for every new one.
ALTER TABLE events ADD COLUMN hash_version smallint NOT NULL DEFAULT 1;
ALTER TABLE events ADD CONSTRAINT events_hash_version_known CHECK (hash_version IN (1, 2)) NOT VALID;
