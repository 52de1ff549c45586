"""The chain of receipt signing keys, and which keys a verifier trusts (no I/O).

Every key after the first is endorsed by its predecessor: an Ed25519 signature by the predecessor over the
UTF-8 bytes of::

    "cardledger-key-v1\\n" + key_id + "\\n" + public_key + "\\n" + created_at

(`public_key` base64url without padding, `created_at` RFC 3339 UTC with microseconds, as GET /v1/keys shows
both). A verifier that pins a key (`--trust-key`) trusts that key and every key the chain endorses from it,
and nothing else: a key the service lists without such an endorsement proves nothing to it. A verifier that
pins nothing trusts the keys as the service serves them, and says so.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

from infra.b64url import b64url_decode
from infra.receipts import SIGNATURE_BYTES, key_id_for, public_key_from

KEY_CONTEXT = "cardledger-key-v1"
NOT_PINNED_NOTE = "keys: trusted as served, not pinned"


def endorsement_message(key_id: str, public_key: str, created_at: str) -> bytes:
    """The bytes a key's predecessor signs to endorse it."""
    return f"{KEY_CONTEXT}\n{key_id}\n{public_key}\n{created_at}".encode()


def endorsement_is_valid(entry: Mapping[str, Any], endorser: VerifyKey) -> bool:
    """Whether `entry` (a key as GET /v1/keys lists it) carries `endorser`'s valid endorsement."""
    key_id, public_key, created_at = entry.get("key_id"), entry.get("public_key"), entry.get("created_at")
    endorsement = entry.get("endorsement")
    if not all(isinstance(value, str) for value in (key_id, public_key, created_at, endorsement)):
        return False
    try:
        signature = b64url_decode(str(endorsement))
    except ValueError:
        return False
    if len(signature) != SIGNATURE_BYTES:
        return False
    try:
        endorser.verify(endorsement_message(str(key_id), str(public_key), str(created_at)), signature)
    except BadSignatureError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class PinnedKey:
    """A key the verifier trusts from outside the service (`--trust-key`)."""

    key_id: str
    public_key: str

    def loaded(self) -> VerifyKey:
        return public_key_from(self.public_key)


def pinned_key(key_id: str, public_key: str, where: str) -> PinnedKey:
    """A PinnedKey, checked: the public key decodes to 32 bytes and `key_id` is its id. ValueError naming `where`."""
    try:
        raw = b64url_decode(public_key)
        public_key_from(public_key)
    except ValueError as error:
        raise ValueError(f"{where}: the public key {public_key!r} is not an Ed25519 key ({error})") from None
    if key_id_for(raw) != key_id:
        raise ValueError(f"{where}: key_id {key_id} is not the id of public key {public_key} ({key_id_for(raw)} is)")
    return PinnedKey(key_id, public_key)


def parse_trust_keys(argument: str) -> list[PinnedKey]:
    """The keys one `--trust-key` names: ``KEY_ID=PUBLIC_KEY``, or the path of a file as `cardledger keys export`
    prints it (JSON: {"keys": [{"key_id", "public_key", ...}, ...]} or a list of such objects). ValueError says
    what is wrong."""
    if "=" in argument and not Path(argument).exists():
        key_id, _, public_key = argument.partition("=")
        return [pinned_key(key_id.strip(), public_key.strip(), f"--trust-key {argument}")]
    path = Path(argument)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(
            f"--trust-key {argument}: neither KEY_ID=PUBLIC_KEY nor a file (as `cardledger keys export` prints)"
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"--trust-key {argument}: cannot read it as a key file ({error})") from None
    entries = document.get("keys") if isinstance(document, dict) else document
    if not isinstance(entries, list) or not entries:
        raise ValueError(f'--trust-key {argument}: expected {{"keys": [...]}} or a non-empty list of keys')
    pinned = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("key_id"), str):
            raise ValueError(f"--trust-key {argument}: key {index} must be an object with key_id and public_key")
        if not isinstance(entry.get("public_key"), str):
            raise ValueError(f"--trust-key {argument}: key {index} must be an object with key_id and public_key")
        pinned.append(pinned_key(entry["key_id"], entry["public_key"], f"--trust-key {argument}, key {index}"))
    return pinned


@dataclass(frozen=True, slots=True)
class TrustedKeys:
    """The keys a verifier accepts receipts under.

    pinned: whether they come from `--trust-key` (else: as served). untrusted: the served keys left out (a
    pinned verifier's only), each with the reason."""

    keys: Mapping[str, VerifyKey]
    pinned: bool
    untrusted: Mapping[str, str] = field(default_factory=dict)

    @property
    def note(self) -> str:
        if not self.pinned:
            return NOT_PINNED_NOTE
        return f"keys: pinned, trusting {len(self.keys)} ({', '.join(sorted(self.keys))})"


def trusted_keys(served: Sequence[Mapping[str, Any]], pinned: Sequence[PinnedKey] | None) -> TrustedKeys:
    """The keys to accept: with no pins, every served key whose key_id matches its public key; with pins, the
    pinned keys (whatever the service serves) and every served key endorsed, link by link, from one of them."""
    by_id: dict[str, Mapping[str, Any]] = {}
    loaded: dict[str, VerifyKey] = {}
    for entry in served:
        key_id, public_key = entry.get("key_id"), entry.get("public_key")
        if not isinstance(key_id, str) or not isinstance(public_key, str):
            continue
        try:
            if key_id_for(b64url_decode(public_key)) != key_id:
                continue
            loaded[key_id] = public_key_from(public_key)
        except ValueError:
            continue
        by_id[key_id] = entry
    if pinned is None:
        return TrustedKeys(loaded, pinned=False)
    trusted: dict[str, VerifyKey] = {key.key_id: key.loaded() for key in pinned}
    grew = True
    while grew:
        grew = False
        for key_id, entry in by_id.items():
            endorser = entry.get("endorsed_by")
            if key_id in trusted or not isinstance(endorser, str) or endorser not in trusted:
                continue
            if endorsement_is_valid(entry, trusted[endorser]):
                trusted[key_id] = loaded[key_id]
                grew = True
    untrusted = {}
    for key_id, entry in by_id.items():
        if key_id in trusted:
            continue
        endorser = entry.get("endorsed_by")
        if not isinstance(endorser, str):
            untrusted[key_id] = "not pinned and endorsed by no key"
        elif endorser not in trusted:
            untrusted[key_id] = f"endorsed by {endorser}, which is not trusted"
        else:
            untrusted[key_id] = f"its endorsement by {endorser} is not valid"
    return TrustedKeys(trusted, pinned=True, untrusted=untrusted)
