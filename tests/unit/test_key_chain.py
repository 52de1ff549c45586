"""The chain of signing keys (`infra.key_chain`): the worked vector of docs/hashing.md, and which keys a pinned
verifier trusts."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from infra.b64url import b64url_encode
from infra.key_chain import (
    NOT_PINNED_NOTE,
    endorsement_message,
    parse_trust_keys,
    trusted_keys,
)
from infra.receipts import OK, REWRITTEN_HISTORY, UNKNOWN_KEY, UNTRUSTED_KEY, check_receipts
from infra.signing import ReceiptSigner
from services.api.spec.examples import KEYS

DOC = Path(__file__).resolve().parents[2] / "docs" / "hashing.md"
FIRST = ReceiptSigner.from_seed(bytes(range(32)))
SECOND = ReceiptSigner.from_seed(bytes(range(32, 64)))


def entry(signer: ReceiptSigner, created_at: str, endorser: ReceiptSigner | None = None) -> dict[str, Any]:
    endorsement = None
    if endorser is not None:
        endorsement = b64url_encode(endorser.endorse(signer.key_id, signer.public_key, created_at))
    return {
        "key_id": signer.key_id,
        "algorithm": "Ed25519",
        "public_key": signer.public_key,
        "created_at": created_at,
        "endorsed_by": None if endorser is None else endorser.key_id,
        "endorsement": endorsement,
    }


def pin(signer: ReceiptSigner) -> str:
    return f"{signer.key_id}={signer.public_key}"


def test_the_worked_vector_of_the_docs_is_the_code_s() -> None:
    first, second = KEYS["keys"]
    assert first == entry(FIRST, first["created_at"])
    assert second == entry(SECOND, second["created_at"], endorser=FIRST)
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## The chain of signing keys") :]
    message = endorsement_message(second["key_id"], second["public_key"], second["created_at"])
    assert f"The signed message of the second key ({len(message)} bytes)" in section
    assert "\n    " + message.decode().replace("\n", "\n    ") + "\n" in section
    assert f"\n    {second['endorsement']}\n" in section
    for signer in (FIRST, SECOND):
        assert f"`{signer.key_id}`" in section and f"`{signer.public_key}`" in section


def test_a_pinned_verifier_trusts_the_pinned_key_and_what_the_chain_endorses_from_it() -> None:
    third = ReceiptSigner.ephemeral()
    chain = [entry(FIRST, "2026-01-01T00:00:00.000000Z"), entry(SECOND, "2026-02-01T00:00:00.000000Z", FIRST)]
    chain.append(entry(third, "2026-03-01T00:00:00.000000Z", SECOND))
    rogue = ReceiptSigner.ephemeral()
    chain.append(entry(rogue, "2020-01-01T00:00:00.000000Z"))  # listed by whoever could write the table
    forged = ReceiptSigner.ephemeral()
    chain.append({**entry(forged, "2026-04-01T00:00:00.000000Z", rogue), "endorsed_by": FIRST.key_id})

    trusted = trusted_keys(chain, parse_trust_keys(pin(FIRST)))
    assert set(trusted.keys) == {FIRST.key_id, SECOND.key_id, third.key_id}
    assert trusted.untrusted[rogue.key_id] == "not pinned and endorsed by no key"
    assert trusted.untrusted[forged.key_id] == f"its endorsement by {FIRST.key_id} is not valid"
    # Pinning a later key trusts it onwards, not backwards.
    assert set(trusted_keys(chain, parse_trust_keys(pin(SECOND))).keys) == {SECOND.key_id, third.key_id}

    served = trusted_keys(chain, None)
    assert not served.pinned and served.note == NOT_PINNED_NOTE
    assert rogue.key_id in served.keys


def test_a_changed_endorsement_field_breaks_the_link() -> None:
    good = entry(SECOND, "2026-02-01T00:00:00.000000Z", FIRST)
    for field, value in (("created_at", "2020-02-01T00:00:00.000000Z"), ("endorsement", "A" * 86)):
        chain = [entry(FIRST, "2026-01-01T00:00:00.000000Z"), {**good, field: value}]
        assert set(trusted_keys(chain, parse_trust_keys(pin(FIRST))).keys) == {FIRST.key_id}


def test_receipts_under_a_key_outside_the_pins_prove_nothing_and_a_deleted_key_changes_nothing() -> None:
    rogue = ReceiptSigner.ephemeral()
    log = {1: "a" * 64, 2: "b" * 64}
    genuine = FIRST.sign("t", 2, "c" * 64)  # the log now holds another hash at version 2: rewritten
    forged = rogue.sign("t", 1, "d" * 64)  # a rogue key's "proof" against an untouched log
    chain = [entry(FIRST, "2026-01-01T00:00:00.000000Z"), entry(rogue, "2020-01-01T00:00:00.000000Z")]
    pinned = trusted_keys(chain, parse_trust_keys(pin(FIRST)))
    checks = check_receipts([genuine, forged], pinned.keys, log, "t", pinned=pinned.pinned)
    assert [check.verdict for check in checks] == [REWRITTEN_HISTORY, UNTRUSTED_KEY]
    assert "(proves nothing)" in checks[1].explanation
    # The owner deletes the genuine key's row: the pin still holds it, the proof stands.
    without = trusted_keys(chain[1:], parse_trust_keys(pin(FIRST)))
    checks = check_receipts([genuine, forged], without.keys, log, "t", pinned=True)
    assert [check.verdict for check in checks] == [REWRITTEN_HISTORY, UNTRUSTED_KEY]
    # Unpinned, the same deletion leaves the genuine receipt unknown.
    served = trusted_keys(chain[1:], None)
    assert [c.verdict for c in check_receipts([genuine], served.keys, log, "t")] == [UNKNOWN_KEY]
    assert [c.verdict for c in check_receipts([FIRST.sign("t", 1, "a" * 64)], pinned.keys, log, "t")] == [OK]


def test_trust_keys_come_inline_or_from_an_exported_file(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    path.write_text(json.dumps({"keys": [entry(FIRST, "2026-01-01T00:00:00.000000Z")]}))
    assert [key.key_id for key in parse_trust_keys(str(path))] == [FIRST.key_id]
    assert parse_trust_keys(pin(SECOND))[0].public_key == SECOND.public_key


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        (f"{FIRST.key_id}={SECOND.public_key}", f"key_id {FIRST.key_id} is not the id of public key"),
        (f"{FIRST.key_id}=not-a-key", "is not an Ed25519 key"),
        ("no-such-file.json", "neither KEY_ID=PUBLIC_KEY nor a file"),
    ],
)
def test_a_bad_trust_key_is_named(argument: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_trust_keys(argument)
