-- Wake the relay as soon as events commit (NOTIFY is delivered at commit;
-- identical notifications of one transaction are folded into one).
CREATE FUNCTION notify_events_appended() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('cardledger_events', '');
    RETURN NULL;
END;
$$;

CREATE TRIGGER events_notify_appended
    AFTER INSERT ON events
    FOR EACH STATEMENT EXECUTE FUNCTION notify_events_appended();
