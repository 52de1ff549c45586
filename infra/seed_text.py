"""The text form of a receipt signing seed (CARDLEDGER_SIGNING_KEY and the key file): base64url of 32 bytes.
Configuration parses it here, without loading the signing machinery (`infra.signing`)."""

from __future__ import annotations

from infra.b64url import b64url_decode, b64url_encode

SIGNING_KEY_VARIABLE = "CARDLEDGER_SIGNING_KEY"
SEED_BYTES = 32


def parse_signing_key(text: str, name: str = SIGNING_KEY_VARIABLE) -> bytes:
    """The 32-byte seed that `text` encodes (base64url, padding optional). The ValueError names `name` and
    never quotes the value (it is a secret)."""
    try:
        seed = b64url_decode(text.strip())
    except ValueError as error:
        raise ValueError(
            f"{name} must be base64url (padding optional) of a 32-byte Ed25519 seed; the value is {error}"
        ) from None
    if len(seed) != SEED_BYTES:
        raise ValueError(f"{name} must encode a 32-byte Ed25519 seed; the value decodes to {len(seed)} bytes")
    return seed


def encode_signing_key(seed: bytes) -> str:
    """The encoding of CARDLEDGER_SIGNING_KEY and of the key file: base64url without padding."""
    return b64url_encode(seed)
