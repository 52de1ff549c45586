"""Ed25519 signatures through libsodium, when the system has it (Debian's libsodium23).

Ed25519 is deterministic: one key and one message make one signature, so libsodium's bytes are
`cryptography`'s bytes (`sodium_signer` checks that once per key, and gives None if they differ). libsodium
signs with about half the instructions per signature: OpenSSL's EVP_DigestSign sets up its context on every
call. Without the library (or if it fails its check) the caller signs with `cryptography`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

SEED_BYTES = 32
PUBLIC_KEY_BYTES = 32
SECRET_KEY_BYTES = 64  # libsodium's secret key: the seed, then the public key
SIGNATURE_BYTES = 64
_LIBRARY_NAMES = ("libsodium.so.23", "libsodium.so.26", "libsodium.so")
_CHECKED_MESSAGE = b"cardledger: libsodium and cryptography sign alike"


def _load() -> ctypes.CDLL | None:
    names = [*_LIBRARY_NAMES, ctypes.util.find_library("sodium")]
    for name in names:
        if name is None:
            continue
        try:
            library = ctypes.CDLL(name)
        except OSError:
            continue
        if library.sodium_init() < 0:  # 0: initialised now, 1: already
            return None
        library.crypto_sign_seed_keypair.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p]
        library.crypto_sign_seed_keypair.restype = ctypes.c_int
        library.crypto_sign_detached.argtypes = [
            ctypes.c_char_p,
            ctypes.c_void_p,
            ctypes.c_char_p,
            ctypes.c_ulonglong,
            ctypes.c_char_p,
        ]
        library.crypto_sign_detached.restype = ctypes.c_int
        return library
    return None


_library: ctypes.CDLL | None = None
_loaded = False


def library() -> ctypes.CDLL | None:
    """libsodium, loaded on first use; None when this system has none."""
    global _library, _loaded
    if not _loaded:
        _library, _loaded = _load(), True
    return _library


def sodium_signer(private: Ed25519PrivateKey) -> Callable[[bytes], bytes] | None:
    """A function signing a message with `private` through libsodium (the same bytes as `private.sign`), or None
    when libsodium is missing or signs otherwise."""
    sodium = library()
    if sodium is None:
        return None
    seed = private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    public = ctypes.create_string_buffer(PUBLIC_KEY_BYTES)
    secret = ctypes.create_string_buffer(SECRET_KEY_BYTES)
    if len(seed) != SEED_BYTES or sodium.crypto_sign_seed_keypair(public, secret, seed) != 0:
        return None
    sign_detached = sodium.crypto_sign_detached
    new_buffer = ctypes.create_string_buffer

    def sign(message: bytes) -> bytes:
        signature = new_buffer(SIGNATURE_BYTES)
        if sign_detached(signature, None, message, len(message), secret) != 0:
            raise RuntimeError(f"libsodium refused to sign a message of {len(message)} bytes")
        return signature.raw

    if sign(_CHECKED_MESSAGE) != private.sign(_CHECKED_MESSAGE):
        return None
    return sign
