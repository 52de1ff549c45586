-- The relay's wake-up (services/relay/relay.py, docs/architecture.md "The relay's wake-up").
--
-- While the active relay has nothing to publish it sleeps holding the session advisory lock 7410221004
-- (RELAY_ASLEEP_KEY, infra/projections/checkpoint.py). Every statement that inserts events tries that lock in
-- shared mode, and keeps it until its transaction ends: if the relay holds it, the transaction NOTIFYs channel
-- cardledger_log, which PostgreSQL delivers at its commit. Holding the shared lock keeps the relay from falling
-- asleep while an append is in flight (its try fails and it looks again shortly), so no commit is missed.
--
-- Only appends that find the relay asleep notify: a NOTIFY takes a lock global to the cluster at commit, and
-- with a NOTIFY in every append, sixteen writers appended a tenth as fast (docs/performance.md).
CREATE FUNCTION events_wake_relay() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT pg_try_advisory_xact_lock_shared(7410221004) THEN
        PERFORM pg_notify('cardledger_log', '');
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER events_wake_relay AFTER INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION events_wake_relay();
