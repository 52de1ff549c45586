"""Signed receipts: the message the service signs for each write, and how anyone checks a receipt (no I/O).

Every successful write (opening a table, sitting down, an action) answers with a receipt::

    {"table_id", "version", "hash", "signed_at", "key_id", "signature"}

`hash` is the hash of the last event the write appended and `version` its version in the table's
stream; `signed_at` is RFC 3339 UTC (``2026-12-01T13:27:02.123456Z``). `signature` is the base64url
(no padding) Ed25519 signature over the UTF-8 bytes of::

    "cardledger-receipt-v1\\n" + table_id + "\\n" + str(version) + "\\n" + hash + "\\n" + signed_at

The public keys are listed by ``GET /v1/keys`` (key_id, algorithm, public_key = base64url of the raw 32
bytes, created_at). A key_id is ``"ed25519:"`` + the first 16 hex digits of the SHA-256 of the raw public
key, so a key list can be checked against itself (`parse_public_keys` refuses a key_id that does not match
its key).

A receipt whose signature is valid binds the service: it said that version `version` of the table had
hash `hash`. If the log later holds another hash at that version, or no event there, the log was
rewritten after the receipt was given (`check_receipts` calls that ``rewritten_history``).

Clients (the CLI, the dispute report) use:

* `parse_receipts(document)` -> list[Receipt]: validate a parsed JSON document (a list of receipt
  objects); `ReceiptFormatError` names the entry index and the field.
* `load_receipts(text)` -> list[Receipt]: the same from JSON text.
* `check_receipts(receipts, keys, log_hashes, table_id=None)` -> list[ReceiptCheck].
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

from infra.b64url import b64url_decode

RECEIPT_CONTEXT = "cardledger-receipt-v1"
ALGORITHM = "Ed25519"
KEY_ID_PREFIX = "ed25519:"
PUBLIC_KEY_BYTES = 32
SIGNATURE_BYTES = 64
MAX_FIELD_CHARS = 256  # generous: the service's fields are at most 86 characters (the signature)

# (field, type) in the order of the receipt object
RECEIPT_FIELDS: tuple[tuple[str, type], ...] = (
    ("table_id", str),
    ("version", int),
    ("hash", str),
    ("signed_at", str),
    ("key_id", str),
    ("signature", str),
)


# Verdicts of check_receipts
OK = "ok"
REWRITTEN_HISTORY = "rewritten_history"
BAD_SIGNATURE = "bad_signature"
UNKNOWN_KEY = "unknown_key"
UNTRUSTED_KEY = "untrusted_key"
OTHER_TABLE = "other_table"
WITHHELD = "withheld"
# Verdicts that prove nothing either way: the receipt cannot be held against the log (or not by this reader).
PROVES_NOTHING = frozenset({BAD_SIGNATURE, UNKNOWN_KEY, UNTRUSTED_KEY, WITHHELD})


# --------------------------------------------------------------------------- encoding


def key_id_for(public_key: bytes) -> str:
    """The key_id of a raw 32-byte Ed25519 public key: "ed25519:" + 16 hex digits of its SHA-256."""
    return KEY_ID_PREFIX + hashlib.sha256(public_key).hexdigest()[:16]


def receipt_message(table_id: str, version: int, hash_: str, signed_at: str) -> bytes:
    """The bytes a receipt's signature covers."""
    return f"{RECEIPT_CONTEXT}\n{table_id}\n{version}\n{hash_}\n{signed_at}".encode()


# --------------------------------------------------------------------------- receipts


@dataclass(frozen=True, slots=True)
class Receipt:
    table_id: str
    version: int
    hash: str
    signed_at: str
    key_id: str
    signature: str

    @property
    def message(self) -> bytes:
        return receipt_message(self.table_id, self.version, self.hash, self.signed_at)

    def to_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name, _ in RECEIPT_FIELDS}


class ReceiptFormatError(ValueError):
    """A receipts document that is not a list of well-formed receipts; the message names the entry and field."""


def _receipt(index: int, entry: object) -> Receipt:
    where = f"receipt {index}"
    if not isinstance(entry, Mapping):
        raise ReceiptFormatError(f"{where}: must be a JSON object, got {_json_type(entry)}")
    values: dict[str, Any] = {}
    for name, kind in RECEIPT_FIELDS:
        if name not in entry:
            raise ReceiptFormatError(f"{where}: field {name!r} is missing")
        value = entry[name]
        if kind is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise ReceiptFormatError(f"{where}: field {name!r} must be an integer, got {_json_type(value)}")
            if value < 1:
                raise ReceiptFormatError(f"{where}: field {name!r} must be at least 1, got {value}")
        else:
            if not isinstance(value, str):
                raise ReceiptFormatError(f"{where}: field {name!r} must be a string, got {_json_type(value)}")
            if not value or len(value) > MAX_FIELD_CHARS or "\n" in value or "\r" in value:
                raise ReceiptFormatError(
                    f"{where}: field {name!r} must be 1 to {MAX_FIELD_CHARS} characters without line breaks"
                )
        values[name] = value
    return Receipt(**values)


def parse_receipts(document: object) -> list[Receipt]:
    """The receipts of a parsed JSON document, which must be a list of receipt objects (extra fields are
    ignored). Raises ReceiptFormatError naming the entry index (from 0) and the field."""
    if not isinstance(document, list):
        raise ReceiptFormatError(f"the receipts must be a JSON list of receipt objects, got {_json_type(document)}")
    return [_receipt(index, entry) for index, entry in enumerate(document)]


def load_receipts(text: str) -> list[Receipt]:
    """`parse_receipts` of JSON text; ReceiptFormatError when it is not JSON."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ReceiptFormatError(
            f"the receipts are not JSON: {error.msg} at line {error.lineno} column {error.colno}"
        ) from None
    return parse_receipts(document)


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


# --------------------------------------------------------------------------- keys and signatures


def public_key_from(encoded: str) -> VerifyKey:
    """An Ed25519 public key from base64url of its raw 32 bytes; ValueError otherwise."""
    raw = b64url_decode(encoded)
    if len(raw) != PUBLIC_KEY_BYTES:
        raise ValueError(f"an Ed25519 public key is {PUBLIC_KEY_BYTES} bytes, got {len(raw)}")
    return VerifyKey(raw)


def parse_public_keys(keys: Sequence[Mapping[str, Any]]) -> dict[str, VerifyKey]:
    """key_id -> public key of a key list as GET /v1/keys answers (its "keys"). ValueError on an entry that is
    not an Ed25519 key, or whose key_id is not the one its public key gives."""
    found: dict[str, VerifyKey] = {}
    for index, entry in enumerate(keys):
        if not isinstance(entry, Mapping):
            raise ValueError(f"key {index}: must be an object")
        key_id, algorithm, encoded = entry.get("key_id"), entry.get("algorithm"), entry.get("public_key")
        if not isinstance(key_id, str) or not isinstance(encoded, str):
            raise ValueError(f"key {index}: key_id and public_key must be strings")
        if algorithm != ALGORITHM:
            raise ValueError(f"key {index} ({key_id}): algorithm must be {ALGORITHM!r}, got {algorithm!r}")
        try:
            public_key = public_key_from(encoded)
        except ValueError as error:
            raise ValueError(f"key {index} ({key_id}): public_key: {error}") from None
        if key_id_for(b64url_decode(encoded)) != key_id:
            raise ValueError(f"key {index}: key_id {key_id} is not the id of its public key")
        found[key_id] = public_key
    return found


def signature_is_valid(receipt: Receipt, public_key: VerifyKey) -> bool:
    """Whether `receipt`'s signature is the key's over the receipt's message."""
    try:
        signature = b64url_decode(receipt.signature)
    except ValueError:
        return False
    if len(signature) != SIGNATURE_BYTES:
        return False
    try:
        public_key.verify(receipt.message, signature)
    except BadSignatureError:
        return False
    return True


# --------------------------------------------------------------------------- checking against a log


@dataclass(frozen=True, slots=True)
class ReceiptCheck:
    """The check of one receipt.

    signature: "valid", "invalid", "unknown_key" (its key_id is not in the key list) or "untrusted_key" (the
         verifier pinned its keys, and this one is neither pinned nor endorsed from a pinned key).
    log: "matches" (the log holds the receipt's hash at its version), "contradicts" (another hash there),
         "missing" (no event at that version), "other_table" (the receipt is for another table) or "withheld"
         (the reader may not see the hash there yet: a running deal begun before hash version 2).
    verdict: "ok", "rewritten_history" (valid signature, the log contradicts it or lacks the event: the
         service signed what its log no longer holds), "bad_signature", "unknown_key", "untrusted_key" or
         "other_table". Only "rewritten_history" is evidence against the service; the others prove nothing.
    """

    index: int
    receipt: Receipt
    signature: str
    log: str
    log_hash: str | None
    verdict: str

    @property
    def ok(self) -> bool:
        return self.verdict == OK

    @property
    def explanation(self) -> str:
        r = self.receipt
        if self.verdict == OK:
            return f"signature valid ({r.key_id}) and the log holds hash {r.hash} at version {r.version}"
        if self.verdict == REWRITTEN_HISTORY:
            now = f"holds {self.log_hash}" if self.log_hash is not None else "has no event"
            return (
                f"PROOF OF A REWRITTEN HISTORY: the service signed hash {r.hash} for version {r.version} "
                f"of table {r.table_id} at {r.signed_at} (key {r.key_id}), but the log now {now} there"
            )
        if self.verdict == BAD_SIGNATURE:
            return f"the signature is not valid for key {r.key_id}: the receipt was altered or forged (proves nothing)"
        if self.verdict == UNKNOWN_KEY:
            return f"key {r.key_id} is not among the service's listed keys (proves nothing)"
        if self.verdict == WITHHELD:
            return (
                f"the log's hash at version {r.version} is withheld from you until its deal ends (proves nothing yet)"
            )
        if self.verdict == UNTRUSTED_KEY:
            return f"key {r.key_id} is neither pinned nor endorsed from a pinned key (proves nothing)"
        return f"the receipt is for table {r.table_id}, not the table checked"

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "receipt": self.receipt.to_json(),
            "signature": self.signature,
            "log": self.log,
            "log_hash": self.log_hash,
            "verdict": self.verdict,
            "ok": self.ok,
            "explanation": self.explanation,
        }


def check_receipts(
    receipts: Sequence[Receipt | Mapping[str, Any]],
    keys: Sequence[Mapping[str, Any]] | Mapping[str, VerifyKey],
    log_hashes: Mapping[int, str],
    table_id: str | None = None,
    *,
    pinned: bool = False,
    withheld: Collection[int] = (),
) -> list[ReceiptCheck]:
    """Check each receipt's signature against `keys` (the "keys" list of GET /v1/keys, or key_id -> public key
    of the keys a verifier trusts, `infra.key_chain.trusted_keys`) and its hash against `log_hashes` (version
    -> hash of the table's log; a version absent from it has no event). With `pinned`, a key outside `keys`
    is "untrusted_key" (the verifier's pins do not reach it) rather than "unknown_key". A version in `withheld`
    is one whose hash the reader may not see: its receipt is "withheld", and its signature is not even checked
    (a signature over a guessed hash would otherwise tell whether the guess is right).

    Receipts may be `Receipt`s or raw mappings (validated by `parse_receipts`: ReceiptFormatError). With
    `table_id`, a receipt for another table is reported as "other_table" (the log cannot speak for it).
    A malformed key list is a ValueError.
    """
    parsed = [r if isinstance(r, Receipt) else _receipt(i, r) for i, r in enumerate(receipts)]
    public_keys = keys if isinstance(keys, Mapping) else parse_public_keys(keys)
    outside = UNTRUSTED_KEY if pinned else UNKNOWN_KEY
    checks = []
    for index, receipt in enumerate(parsed):
        key = public_keys.get(receipt.key_id)
        signature = outside if key is None else "valid" if signature_is_valid(receipt, key) else "invalid"
        if table_id is not None and receipt.table_id != table_id:
            log, log_hash = OTHER_TABLE, None
        elif receipt.version in withheld:
            checks.append(ReceiptCheck(index, receipt, "not_checked", WITHHELD, None, WITHHELD))
            continue
        else:
            log_hash = log_hashes.get(receipt.version)
            log = "missing" if log_hash is None else "matches" if log_hash == receipt.hash else "contradicts"
        if log == OTHER_TABLE:
            verdict = OTHER_TABLE
        elif signature == outside:
            verdict = outside
        elif signature == "invalid":
            verdict = BAD_SIGNATURE
        else:
            verdict = OK if log == "matches" else REWRITTEN_HISTORY
        checks.append(ReceiptCheck(index, receipt, signature, log, log_hash, verdict))
    return checks
