"""base64url as the service writes it (no padding) and reads it (strictly, padding optional): the encoding of
signing seeds, public keys and signatures. No third-party import, so configuration can parse a seed without
loading cryptography."""

from __future__ import annotations

import base64
import binascii
import re

_B64URL = re.compile(r"^[A-Za-z0-9_-]*={0,2}$")


def b64url_encode(raw: bytes) -> str:
    """base64url without padding."""
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """Strict base64url (padding optional); ValueError on any other character or an impossible length."""
    if not _B64URL.match(text):
        raise ValueError("not base64url (only A-Z a-z 0-9 - _ and optional = padding)")
    bare = text.rstrip("=")
    if len(bare) % 4 == 1 or (len(text) != len(bare) and len(text) % 4 != 0):
        raise ValueError("not base64url (impossible length or padding)")
    try:
        return base64.urlsafe_b64decode(bare + "=" * (-len(bare) % 4))
    except (binascii.Error, ValueError):
        raise ValueError("not base64url") from None
