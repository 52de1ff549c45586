-- The public halves of the Ed25519 keys that sign write receipts (infra/signing.py, GET /v1/keys).
-- The API lists its key at start (INSERT ... ON CONFLICT (key_id) DO NOTHING: idempotent, safe from
-- several replicas at once). key_id is "ed25519:" + the first 16 hex digits of the SHA-256 of the raw
-- public key; public_key is base64url (no padding) of its raw 32 bytes.
--
-- A receipt is worth something only while its key stays listed: after a rotation the old keys remain,
-- and no row is ever changed or removed. The service needs SELECT and INSERT here and nothing more (the
-- service role's migration, 008, grants cardledger_service exactly that); the triggers below refuse
-- UPDATE, DELETE and TRUNCATE to every role, the owner included, as for the events.
CREATE TABLE signing_keys (
    key_id      text PRIMARY KEY,
    algorithm   text NOT NULL CHECK (algorithm = 'Ed25519'),
    public_key  text NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now()
);

REVOKE ALL ON signing_keys FROM PUBLIC;

CREATE FUNCTION refuse_signing_key_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'listed signing keys are permanent: % on signing_keys is refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END;
$$;

CREATE TRIGGER signing_keys_permanent_rows
    BEFORE UPDATE OR DELETE ON signing_keys
    FOR EACH ROW EXECUTE FUNCTION refuse_signing_key_change();

CREATE TRIGGER signing_keys_permanent_truncate
    BEFORE TRUNCATE ON signing_keys
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_signing_key_change();
