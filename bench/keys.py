"""The receipt signing key of a bench's database, registered as the owner registers it (the benches connect as a
superuser): an API refuses to sign under a key the database does not list."""

from __future__ import annotations

from infra.db import connect
from infra.signing import ReceiptSigner, insert_key, key_registered, utc_timestamp


def registered_signer(database_url: str, signer: ReceiptSigner | None = None) -> ReceiptSigner:
    """`signer` (default: a fresh key) with its key in `database_url`'s signing_keys."""
    signer = signer if signer is not None else ReceiptSigner.ephemeral()
    with connect(database_url) as conn:
        if not key_registered(conn, signer.key_id):
            insert_key(conn, signer, utc_timestamp(), None)
    return signer
