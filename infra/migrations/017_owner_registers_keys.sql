-- Signing keys are the owner's to register (`cardledger migrate`, `cardledger keys add|rotate`), never the
-- service's: a service that could list keys could forge the trust a receipt rests on (list a key of its own,
-- backdated) and then sign whatever it liked with it. The service reads the list, nothing more.
--
-- Keys form a chain: every key after the first names its predecessor (`endorsed_by`) and carries that
-- key's Ed25519 signature (`endorsement`, base64url, no padding) over the UTF-8 bytes of
--     "cardledger-key-v1\n" + key_id + "\n" + public_key + "\n" + created_at
-- where created_at is written as RFC 3339 UTC with microseconds (2026-12-01T13:27:02.123456Z); see
-- docs/hashing.md, "The chain of signing keys". A verifier that pins one key trusts exactly the keys the
-- chain endorses from it. Keys listed before this migration have no endorsement: a verifier trusts them
-- only when it pins them.
REVOKE INSERT ON signing_keys FROM cardledger_service;

ALTER TABLE signing_keys
    ADD COLUMN endorsed_by text REFERENCES signing_keys (key_id),
    ADD COLUMN endorsement text,
    ADD CONSTRAINT signing_keys_endorsement_pairs CHECK ((endorsed_by IS NULL) = (endorsement IS NULL));
