"""Receipts signed through libsodium carry the bytes cryptography's Ed25519 signs (the signature is
deterministic), and a system without libsodium signs with cryptography."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from infra import sodium
from infra.b64url import b64url_decode
from infra.receipts import receipt_message
from infra.signing import ReceiptSigner

needs_sodium = pytest.mark.skipif(
    sodium.library() is None, reason="this system has no libsodium: `apt-get install libsodium23` (Debian/Ubuntu)"
)


@needs_sodium
@settings(max_examples=200)
@given(st.binary(min_size=32, max_size=32), st.binary(max_size=600))
def test_libsodium_signs_what_cryptography_signs(seed: bytes, message: bytes) -> None:
    private = Ed25519PrivateKey.from_private_bytes(seed)
    sign = sodium.sodium_signer(private)
    assert sign is not None
    assert sign(message) == private.sign(message)


@needs_sodium
def test_a_receipt_is_signed_through_libsodium_with_the_same_bytes() -> None:
    seed = bytes(range(32))
    signer = ReceiptSigner.from_seed(seed)
    assert signer._sign is not signer._private.sign, "libsodium signs where the system has it"
    moment = datetime(2026, 12, 2, 5, 0, 0, 123456, tzinfo=UTC)
    receipt = signer.sign("00000000-0000-0000-0000-000000000018", 12, "ab" * 32, moment)
    expected = Ed25519PrivateKey.from_private_bytes(seed).sign(
        receipt_message(receipt["table_id"], 12, receipt["hash"], receipt["signed_at"])
    )
    assert b64url_decode(receipt["signature"]) == expected


def test_without_libsodium_receipts_are_signed_by_cryptography(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sodium, "_loaded", True)
    monkeypatch.setattr(sodium, "_library", None)
    signer = ReceiptSigner.ephemeral()
    assert signer._sign == signer._private.sign
    receipt = signer.sign("t", 1, "00" * 32)
    message = receipt_message("t", 1, "00" * 32, receipt["signed_at"])
    signer._private.public_key().verify(b64url_decode(receipt["signature"]), message)


def test_a_library_that_signs_otherwise_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    class Wrong:
        def crypto_sign_seed_keypair(self, public: object, secret: object, seed: bytes) -> int:
            return 0

        def crypto_sign_detached(
            self, signature: object, length: object, message: bytes, size: int, key: object
        ) -> int:
            return 0  # leaves the signature's 64 zero bytes

    monkeypatch.setattr(sodium, "_loaded", True)
    monkeypatch.setattr(sodium, "_library", Wrong())
    assert sodium.sodium_signer(Ed25519PrivateKey.generate()) is None
