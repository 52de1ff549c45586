"""The pure receipt functions (infra/receipts.py) and the signer and key parsing of infra/signing.py."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from infra.b64url import b64url_decode, b64url_encode
from infra.config import Settings
from infra.receipts import (
    ReceiptFormatError,
    check_receipts,
    key_id_for,
    load_receipts,
    parse_public_keys,
    parse_receipts,
    receipt_message,
)
from infra.signing import ReceiptSigner, encode_signing_key, new_signing_key, parse_signing_key

SEED = bytes(range(32))
TABLE = "6f1c1c9e-1a7e-4b8e-9b4e-2b8f3c1d2e10"


def keys_of(*signers: ReceiptSigner) -> list[dict[str, Any]]:
    return [
        {"key_id": s.key_id, "algorithm": "Ed25519", "public_key": s.public_key, "created_at": "2026-12-01T00:00:00Z"}
        for s in signers
    ]


def test_a_receipt_is_signed_over_the_documented_message() -> None:
    signer = ReceiptSigner.from_seed(SEED)
    receipt = signer.sign(TABLE, 7, "ab" * 32)
    assert list(receipt) == ["table_id", "version", "hash", "signed_at", "key_id", "signature"]
    message = f"cardledger-receipt-v1\n{TABLE}\n7\n{'ab' * 32}\n{receipt['signed_at']}".encode()
    assert receipt_message(TABLE, 7, "ab" * 32, receipt["signed_at"]) == message
    Ed25519PublicKey.from_public_bytes(b64url_decode(signer.public_key)).verify(
        b64url_decode(receipt["signature"]), message
    )
    assert "=" not in receipt["signature"] and len(b64url_decode(receipt["signature"])) == 64
    assert receipt["key_id"] == key_id_for(signer.public_key_raw) == signer.key_id
    assert signer.key_id.startswith("ed25519:") and len(signer.key_id) == len("ed25519:") + 16


def test_the_signer_never_shows_its_key() -> None:
    signer = ReceiptSigner.from_seed(SEED)
    for text in (repr(signer), str(signer)):
        assert encode_signing_key(SEED) not in text and SEED.hex() not in text
    with pytest.raises(TypeError):
        pickle.dumps(signer)
    settings = Settings(signing_key=SEED)
    assert encode_signing_key(SEED) not in repr(settings) and repr(SEED) not in repr(settings)


@pytest.mark.parametrize(
    "text",
    [encode_signing_key(SEED), encode_signing_key(SEED) + "=", f"  {encode_signing_key(SEED)}\n"],
)
def test_a_signing_key_is_base64url_padding_optional(text: str) -> None:
    assert parse_signing_key(text) == SEED
    assert Settings.from_env({"CARDLEDGER_SIGNING_KEY": text}).signing_key == SEED


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("not base64url!", "not base64url"),
        (encode_signing_key(SEED).replace("-", "+") + "+/", "not base64url"),  # standard base64 alphabet
        (encode_signing_key(SEED[:31]), "decodes to 31 bytes"),
        (encode_signing_key(SEED + b"x"), "decodes to 33 bytes"),
        ("Q", "not base64url"),
        ("AAAA=", "not base64url"),
    ],
)
def test_a_malformed_signing_key_is_refused_by_name_without_its_value(value: str, why: str) -> None:
    with pytest.raises(ValueError) as caught:
        Settings.from_env({"CARDLEDGER_SIGNING_KEY": value})
    message = str(caught.value)
    assert message.startswith("CARDLEDGER_SIGNING_KEY must") and why in message
    assert value.strip() not in message or len(value.strip()) < 3  # a one-letter value may occur by chance


def test_new_keys_are_random_and_well_formed() -> None:
    first, second = new_signing_key(), new_signing_key()
    assert first != second and len(parse_signing_key(first)) == 32 and "=" not in first


def test_b64url_round_trip_and_strictness() -> None:
    for raw in (b"", b"a", b"ab", b"abc", bytes(range(256))):
        assert b64url_decode(b64url_encode(raw)) == raw
    for bad in ("a b", "ab+c", "ab/c", "a", "abc=d", "ab==="):
        with pytest.raises(ValueError):
            b64url_decode(bad)


# --------------------------------------------------------------------------- parsing receipts files


def test_receipts_documents_are_validated_entry_by_entry() -> None:
    good = ReceiptSigner.from_seed(SEED).sign(TABLE, 3, "c" * 64)
    assert parse_receipts([good, {**good, "note": "mine"}])[1].version == 3
    cases: list[tuple[Any, str]] = [
        ({"receipts": []}, "must be a JSON list"),
        ("text", "must be a JSON list"),
        ([good, 5], "receipt 1: must be a JSON object, got a number"),
        ([good, good, {k: v for k, v in good.items() if k != "hash"}], "receipt 2: field 'hash' is missing"),
        ([{**good, "version": "3"}], "receipt 0: field 'version' must be an integer, got a string"),
        ([{**good, "version": True}], "receipt 0: field 'version' must be an integer, got a boolean"),
        ([{**good, "version": 0}], "receipt 0: field 'version' must be at least 1"),
        ([{**good, "signature": None}], "receipt 0: field 'signature' must be a string, got null"),
        ([{**good, "table_id": "a\nb"}], "receipt 0: field 'table_id' must be 1 to 256 characters without line"),
        ([{**good, "key_id": ""}], "receipt 0: field 'key_id' must be 1 to 256"),
    ]
    for document, message in cases:
        with pytest.raises(ReceiptFormatError) as caught:
            parse_receipts(document)
        assert message in str(caught.value), (document, str(caught.value))
    with pytest.raises(ReceiptFormatError, match=r"not JSON: .* at line 1 column 3"):
        load_receipts("[{")


# --------------------------------------------------------------------------- checking


def test_check_receipts_tells_valid_forged_unknown_and_rewritten_apart() -> None:
    old, new, stranger = (ReceiptSigner.from_seed(bytes([n]) * 32) for n in (1, 2, 3))
    log = {1: "a" * 64, 2: "b" * 64, 3: "c" * 64}
    receipts: list[Any] = [
        old.sign(TABLE, 1, "a" * 64),  # ok, an old key
        new.sign(TABLE, 3, "c" * 64),  # ok, the new key
        {**new.sign(TABLE, 2, "b" * 64), "signed_at": "2020-01-01T00:00:00.000000Z"},  # altered: signature fails
        stranger.sign(TABLE, 2, "b" * 64),  # a key nobody listed
        new.sign(TABLE, 2, "9" * 64),  # signed, and the log holds another hash there
        new.sign(TABLE, 4, "d" * 64),  # signed, and the log lost the event
        new.sign("another-table", 1, "a" * 64),
    ]
    checks = check_receipts(receipts, keys_of(old, new), log, table_id=TABLE)
    assert [(c.signature, c.log, c.verdict) for c in checks] == [
        ("valid", "matches", "ok"),
        ("valid", "matches", "ok"),
        ("invalid", "matches", "bad_signature"),
        ("unknown_key", "matches", "unknown_key"),
        ("valid", "contradicts", "rewritten_history"),
        ("valid", "missing", "rewritten_history"),
        ("valid", "other_table", "other_table"),
    ]
    assert [c.ok for c in checks] == [True, True, False, False, False, False, False]
    assert "PROOF OF A REWRITTEN HISTORY" in checks[4].explanation and "b" * 64 in checks[4].explanation
    assert "has no event" in checks[5].explanation
    assert checks[4].to_json()["log_hash"] == "b" * 64
    # Without table_id every receipt is taken for the log's table.
    assert check_receipts(receipts[:1], keys_of(old), log)[0].ok


def test_a_key_list_must_be_consistent() -> None:
    signer = ReceiptSigner.from_seed(SEED)
    assert set(parse_public_keys(keys_of(signer))) == {signer.key_id}
    other = ReceiptSigner.from_seed(bytes(32))
    for bad, message in [
        ([{**keys_of(signer)[0], "key_id": other.key_id}], "is not the id of its public key"),
        ([{**keys_of(signer)[0], "algorithm": "RSA"}], "algorithm must be 'Ed25519'"),
        ([{**keys_of(signer)[0], "public_key": "abc"}], "public_key"),
    ]:
        with pytest.raises(ValueError, match=message):
            parse_public_keys(bad)
