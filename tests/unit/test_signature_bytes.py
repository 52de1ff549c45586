"""Receipts and endorsements are signed by libsodium through PyNaCl; Ed25519 is deterministic, so the bytes are
those of an independent implementation (OpenSSL, through `cryptography`), and each verifies the other's."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from hypothesis import given
from hypothesis import strategies as st
from nacl.exceptions import BadSignatureError

from infra.b64url import b64url_decode
from infra.key_chain import endorsement_message
from infra.receipts import parse_receipts, public_key_from, signature_is_valid
from infra.signing import ReceiptSigner


@given(seed=st.binary(min_size=32, max_size=32), table=st.uuids(), version=st.integers(1, 2**31 - 1))
def test_a_receipt_carries_the_signature_openssl_makes_and_verifies(seed: bytes, table: object, version: int) -> None:
    signer = ReceiptSigner.from_seed(seed)
    (receipt,) = parse_receipts([signer.sign(str(table), version, "ab" * 32)])
    signature = b64url_decode(receipt.signature)
    openssl = Ed25519PrivateKey.from_private_bytes(seed)
    assert signature == openssl.sign(receipt.message)
    Ed25519PublicKey.from_public_bytes(signer.public_key_raw).verify(signature, receipt.message)
    assert signature_is_valid(receipt, public_key_from(signer.public_key))


@given(seed=st.binary(min_size=32, max_size=32), message=st.binary(max_size=300))
def test_pynacl_verifies_what_openssl_signs_and_refuses_a_changed_byte(seed: bytes, message: bytes) -> None:
    openssl = Ed25519PrivateKey.from_private_bytes(seed)
    key = public_key_from(ReceiptSigner.from_seed(seed).public_key)
    signature = openssl.sign(message)
    key.verify(message, signature)
    with pytest.raises(BadSignatureError):
        key.verify(message, bytes([signature[0] ^ 1]) + signature[1:])


def test_an_endorsement_is_the_predecessors_openssl_signature() -> None:
    seed = bytes(range(32))
    message = endorsement_message("ed25519:abc", "PUBLIC", "2026-12-05T00:00:00.000000Z")
    endorsement = ReceiptSigner.from_seed(seed).endorse("ed25519:abc", "PUBLIC", "2026-12-05T00:00:00.000000Z")
    assert endorsement == Ed25519PrivateKey.from_private_bytes(seed).sign(message)


def test_a_receipt_whose_version_was_changed_is_not_valid() -> None:
    signer = ReceiptSigner.from_seed(bytes(range(32)))
    receipt = {**signer.sign("t", 3, "cd" * 32), "version": 4}
    (parsed,) = parse_receipts([receipt])
    assert not signature_is_valid(parsed, public_key_from(signer.public_key))
