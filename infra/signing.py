"""The service's Ed25519 signing key: where it comes from, signing receipts, and the list of public keys.

Where the key comes from (`signing_seed`):

1. ``CARDLEDGER_SIGNING_KEY``: base64url (padding optional) of a 32-byte Ed25519 seed, parsed by
   `Settings.from_env` (a malformed value is a configuration error naming the variable);
2. otherwise, when the database is the embedded one (no ``DATABASE_URL``), the key file
   ``<CARDLEDGER_DATA_DIR>/signing.key`` (the seed in the same encoding), made on the first start
   (mode 0600, written to a temporary file and linked into place, so concurrent starts agree on one key);
3. otherwise there is no key: `MissingSigningKey`, and the API refuses to start.

Every API process of a deployment must sign with the same key: `cardledger up` resolves it once and hands
it to gunicorn (whose workers inherit it) in the environment; compose and Kubernetes set the variable
from a secret.

The key never leaves this module's objects: no log line, answer, event or metric holds the seed, and
`ReceiptSigner`'s repr shows the key_id only. The public half is registered in the ``signing_keys`` table by
the database owner (`cardledger migrate`, `cardledger keys add|rotate`; migration 017: the service may only
read it) and served by ``GET /v1/keys``; an API whose key is not registered refuses to start. Keys form a
chain (`infra.key_chain`): each after the first is endorsed by its predecessor; old keys stay listed, so old
receipts still verify.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import stat
import tempfile
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nacl.signing import SigningKey
from psycopg.rows import tuple_row

from domain.hashchain import canonical_timestamp
from infra.b64url import b64url_encode
from infra.db import AnyConn
from infra.key_chain import endorsement_message
from infra.receipts import ALGORITHM, key_id_for, receipt_message
from infra.seed_text import SEED_BYTES as SEED_BYTES  # the seed's names, re-exported: callers know them here
from infra.seed_text import SIGNING_KEY_VARIABLE as SIGNING_KEY_VARIABLE
from infra.seed_text import encode_signing_key as encode_signing_key
from infra.seed_text import parse_signing_key as parse_signing_key

if TYPE_CHECKING:
    from infra.config import Settings

_log = logging.getLogger(__name__)

KEY_FILE_NAME = "signing.key"


class MissingSigningKey(ValueError):
    """No signing key is configured and none can be made (the database is not the embedded one)."""


def new_signing_key() -> str:
    """A fresh random key, encoded as CARDLEDGER_SIGNING_KEY expects."""
    return encode_signing_key(secrets.token_bytes(SEED_BYTES))


def utc_timestamp(moment: datetime | None = None) -> str:
    """RFC 3339 UTC with microseconds, e.g. 2026-12-01T13:27:02.123456Z: strftime("%Y-%m-%dT%H:%M:%S.%fZ") of the
    moment in UTC, written as the hash chain writes its times (`canonical_timestamp`, the same text, cheaper)."""
    return canonical_timestamp(datetime.now(UTC) if moment is None else moment)


class ReceiptSigner:
    """Signs receipts with one Ed25519 key. Its repr names the key_id, never the key."""

    __slots__ = ("_private", "key_id", "public_key", "public_key_raw")

    def __init__(self, private: SigningKey) -> None:
        self._private = private
        self.public_key_raw = bytes(private.verify_key)
        self.public_key = b64url_encode(self.public_key_raw)
        self.key_id = key_id_for(self.public_key_raw)

    @classmethod
    def from_seed(cls, seed: bytes) -> ReceiptSigner:
        return cls(SigningKey(seed))

    @classmethod
    def ephemeral(cls) -> ReceiptSigner:
        """A throw-away key (tests and tools that build a CardLedger by hand; the API always has a real one)."""
        return cls(SigningKey.generate())

    def sign(self, table_id: str, version: int, hash_: str, signed_at: datetime | None = None) -> dict[str, Any]:
        """The receipt of a write whose last event is (`version`, `hash_`) in `table_id`'s stream."""
        stamp = utc_timestamp(signed_at)
        signature = self._sign(receipt_message(table_id, version, hash_, stamp))
        return {
            "table_id": table_id,
            "version": version,
            "hash": hash_,
            "signed_at": stamp,
            "key_id": self.key_id,
            "signature": b64url_encode(signature),
        }

    def _sign(self, message: bytes) -> bytes:
        """Ed25519, deterministic: one key and one message make one signature (libsodium, through PyNaCl)."""
        return self._private.sign(message).signature

    def endorse(self, key_id: str, public_key: str, created_at: str) -> bytes:
        """This key's endorsement of a successor (`infra.key_chain.endorsement_message`)."""
        return self._sign(endorsement_message(key_id, public_key, created_at))

    def __repr__(self) -> str:
        return f"ReceiptSigner(key_id={self.key_id!r})"

    def __reduce__(self) -> Any:
        raise TypeError("a ReceiptSigner is not pickled (it holds the private key)")


# --------------------------------------------------------------------------- where the key comes from


def signing_seed(settings: Settings) -> bytes:
    """The seed to sign with: CARDLEDGER_SIGNING_KEY, else the embedded default's key file (made on first use
    when the database is the embedded one), else MissingSigningKey."""
    if settings.signing_key is not None:
        return settings.signing_key
    if settings.database_url is None:
        return load_or_create_key_file(Path(settings.data_dir).expanduser().resolve())
    raise MissingSigningKey(
        f"{SIGNING_KEY_VARIABLE} is not set: with DATABASE_URL set, the API needs the receipt signing key, the "
        "same for every replica (base64url of a 32-byte Ed25519 seed; docs/operations.md shows how to make one)"
    )


def load_or_create_key_file(data_dir: Path) -> bytes:
    """The seed in ``data_dir/signing.key``, made first if missing (mode 0600, atomically: written to a temporary
    file, then hard-linked into place, which fails if another process got there first; then its key is used)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / KEY_FILE_NAME
    if not path.exists():
        handle, temporary = tempfile.mkstemp(prefix=".signing-", suffix=".tmp", dir=data_dir)  # mode 0600
        try:
            with os.fdopen(handle, "w", encoding="ascii") as out:
                out.write(new_signing_key() + "\n")
                out.flush()
                os.fsync(out.fileno())
            with contextlib.suppress(FileExistsError):
                os.link(temporary, path)
                _log.info("made a new receipt signing key in %s", path)
        finally:
            Path(temporary).unlink(missing_ok=True)
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        _log.warning("the signing key file %s is readable by others (mode %o); chmod 600 it", path, mode)
    return parse_signing_key(path.read_text(encoding="ascii"), f"the signing key file {path}")


# --------------------------------------------------------------------------- the list of public keys


class UnregisteredSigningKey(ValueError):
    """The configured key is not in signing_keys, or cannot be registered as asked; the message says which
    command (run as the database owner) registers it."""


def key_registered(conn: AnyConn, key_id: str) -> bool:
    """Whether `key_id` is in signing_keys (the service may read the list; only the owner writes it)."""
    return conn.execute("SELECT 1 FROM signing_keys WHERE key_id = %s", (key_id,)).fetchone() is not None


def require_registered(conn: AnyConn, signer: ReceiptSigner) -> None:
    """UnregisteredSigningKey unless the signer's key is registered: an API must not sign under a key a
    verifier cannot find."""
    if not key_registered(conn, signer.key_id):
        raise UnregisteredSigningKey(
            f"the receipt signing key {signer.key_id} is not registered in this database's signing_keys: as the "
            "database owner, run `cardledger migrate` (or `cardledger keys add`) for the first key, or "
            "`cardledger keys rotate` for a key that replaces a registered one"
        )


def _latest_key(conn: AnyConn) -> str | None:
    with conn.cursor(row_factory=tuple_row) as cur:
        row = cur.execute("SELECT key_id FROM signing_keys ORDER BY created_at DESC, key_id DESC LIMIT 1").fetchone()
    return None if row is None else str(row[0])


def insert_key(conn: AnyConn, signer: ReceiptSigner, created_at: str, endorser: ReceiptSigner | None) -> None:
    """The row of `signer`'s key, endorsed by `endorser` (None: the first of a chain); no check of the chain."""
    endorsed_by = endorsement = None
    if endorser is not None:
        endorsed_by = endorser.key_id
        endorsement = b64url_encode(endorser.endorse(signer.key_id, signer.public_key, created_at))
    conn.execute(
        """INSERT INTO signing_keys (key_id, algorithm, public_key, created_at, endorsed_by, endorsement)
           VALUES (%s, %s, %s, %s, %s, %s)""",
        (signer.key_id, ALGORITHM, signer.public_key, created_at, endorsed_by, endorsement),
    )


def register_first_key(conn: AnyConn, signer: ReceiptSigner) -> bool:
    """As the owner: register `signer`'s key as the chain's first. True when it was added; False when it was
    registered already. UnregisteredSigningKey when other keys are registered (a new key is a rotation)."""
    with conn.transaction():
        conn.execute("LOCK TABLE signing_keys IN SHARE ROW EXCLUSIVE MODE")  # two first keys at once: one wins
        if key_registered(conn, signer.key_id):
            return False
        latest = _latest_key(conn)
        if latest is not None:
            raise UnregisteredSigningKey(
                f"the configured signing key {signer.key_id} is not registered, and the chain already has keys "
                f"(the latest is {latest}): a new key is registered by `cardledger keys rotate`, which signs it "
                "with the latest key"
            )
        insert_key(conn, signer, utc_timestamp(), None)
    _log.info("registered receipt signing key %s (the first of the chain)", signer.key_id)
    return True


def rotate_key(conn: AnyConn, old: ReceiptSigner, new: ReceiptSigner) -> bool:
    """As the owner: register `new`, endorsed by `old`, which must be the chain's latest key. False when `new`
    is registered already; UnregisteredSigningKey when `old` is not the latest key."""
    with conn.transaction():
        conn.execute("LOCK TABLE signing_keys IN SHARE ROW EXCLUSIVE MODE")
        if key_registered(conn, new.key_id):
            return False
        latest = _latest_key(conn)
        if latest != old.key_id:
            what = "no key is registered" if latest is None else f"the latest registered key is {latest}"
            raise UnregisteredSigningKey(
                f"cannot rotate from {old.key_id}: {what}; the old key must be the chain's latest "
                "(a first key is registered by `cardledger keys add`)"
            )
        insert_key(conn, new, utc_timestamp(), old)
    _log.info("registered receipt signing key %s, endorsed by %s", new.key_id, old.key_id)
    return True


def public_keys(conn: AnyConn) -> list[dict[str, Any]]:
    """Every listed key, oldest first, as GET /v1/keys shows them: each after the first carries the endorsement
    of its predecessor (null for keys listed before endorsements existed)."""
    with conn.cursor(row_factory=tuple_row) as cur:
        rows = cur.execute(
            """SELECT key_id, algorithm, public_key, created_at, endorsed_by, endorsement
               FROM signing_keys ORDER BY created_at, key_id"""
        ).fetchall()
    return [
        {
            "key_id": key_id,
            "algorithm": algorithm,
            "public_key": public_key,
            "created_at": utc_timestamp(created_at),
            "endorsed_by": endorsed_by,
            "endorsement": endorsement,
        }
        for key_id, algorithm, public_key, created_at, endorsed_by, endorsement in rows
    ]


def log_deals(conn: AnyConn, table_id: str, versions: Iterable[int]) -> dict[int, int]:
    """version -> deal number of the table's events at `versions` (those that exist)."""
    wanted = sorted({v for v in versions if 1 <= v <= 2**31 - 1})
    with conn.cursor(row_factory=tuple_row) as cur:
        rows = cur.execute(
            "SELECT version, deal_no FROM events WHERE stream_id = %s AND version = ANY(%s)", (table_id, wanted)
        ).fetchall()
    return {int(version): int(deal_no) for version, deal_no in rows}


def log_hashes(conn: AnyConn, table_id: str, versions: Iterable[int] | None = None) -> dict[int, str]:
    """version -> hash of the table's events (only `versions` when given)."""
    with conn.cursor(row_factory=tuple_row) as cur:
        if versions is None:
            rows = cur.execute("SELECT version, hash FROM events WHERE stream_id = %s", (table_id,)).fetchall()
        else:
            wanted = sorted({v for v in versions if 1 <= v <= 2**31 - 1})
            rows = cur.execute(
                "SELECT version, hash FROM events WHERE stream_id = %s AND version = ANY(%s)", (table_id, wanted)
            ).fetchall()
    return {int(version): str(hash_) for version, hash_ in rows}
