-- An idempotency record's answer is json, not jsonb: PostgreSQL keeps the text the service sent, so a retry
-- gets the first answer's keys in the first answer's order (jsonb sorts them), and an append no longer takes
-- the record apart into jsonb. What the service stores there is smaller too: an action's record keeps what
-- the log does not (the events' data as the caller saw it, the receipt), and a retry reads the rest back from
-- the log (services/app/replays.py; docs/performance.md, "The write path in the database").
--
-- Records written before keep their values (jsonb's text of them); their retries answer what they answered
-- before. Rewrites the table, locking out appends meanwhile.
ALTER TABLE idempotency_keys ALTER COLUMN response TYPE json USING response::json;
