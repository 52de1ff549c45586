"""The hash chain's conformance vectors (tests/unit/vectors/hash_vectors.json) against domain.hashchain, against
docs/hashing.md (every canonical text, input and hash the page shows must be the vectors', so the page cannot
drift), and against the standard-library reimplementation the page gives (run as written there)."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest

from domain.events import PRIVATE
from domain.hashchain import (
    GENESIS_HASH,
    HASH_V1,
    PRIVATE_COMMITMENT,
    SALT,
    canonical_text,
    chained_hash,
    commitment_problem,
    event_hash,
    hashed_data,
    hashed_fields,
    private_commitment,
)
from tests.unit.source_trees import parse

ROOT = Path(__file__).resolve().parents[2]
VECTORS = json.loads((Path(__file__).parent / "vectors" / "hash_vectors.json").read_text(encoding="utf-8"))
EVENTS: list[dict[str, Any]] = VECTORS["events"]
CANONICAL: list[dict[str, Any]] = VECTORS["canonical"]
DOC = (ROOT / "docs" / "hashing.md").read_text(encoding="utf-8")

# A marked fenced block: <!-- vector:NAME:FIELD --> (or canonical:NAME:FIELD, or reimplementation), then ```lang.
MARKED = re.compile(r"<!-- ([\w:-]+) -->\n```(\w*)\n(.*?)\n```", re.DOTALL)
HEX64 = re.compile(r"(?<![0-9a-fA-F])[0-9a-f]{64}(?![0-9a-fA-F])")


def marked_blocks() -> dict[str, str]:
    blocks: dict[str, str] = {}
    for marker, _, body in MARKED.findall(DOC):
        assert marker not in blocks, f"docs/hashing.md marks two blocks {marker}"
        blocks[marker] = body
    return blocks


def api_event(vector: dict[str, Any]) -> dict[str, Any]:
    """The vector's event as GET /v1/tables/{id}/events shows it (the stream id is the URL's)."""
    given = vector["input"]
    return {
        "position": given["version"],
        "type": given["type"],
        "deal_no": given["deal_no"],
        "occurred_at": given["occurred_at"],
        "data": given["data"],
        "metadata": given["metadata"],
        "schema_version": given["schema_version"],
        "hash_version": given["hash_version"],
        "prev_hash": given["prev_hash"],
        "hash": vector["hash"],
    }


def strings_in(node: Any) -> set[str]:
    if isinstance(node, str):
        return {node}
    if isinstance(node, dict):
        return set().union(*(strings_in(value) for value in node.values())) if node else set()
    if isinstance(node, list):
        return set().union(*(strings_in(item) for item in node)) if node else set()
    return set()


# The vectors against domain.hashchain -------------------------------------------------------------------


def test_the_vectors_cover_every_form_and_chain_from_the_genesis_hash() -> None:
    assert VECTORS["genesis_hash"] == GENESIS_HASH
    forms = {(v["input"]["hash_version"], PRIVATE in v["input"]["data"]) for v in EVENTS}
    assert forms == {(1, False), (1, True), (2, False), (2, True)}
    prev = GENESIS_HASH
    for vector in EVENTS:
        assert vector["input"]["prev_hash"] == prev, vector["name"]
        prev = vector["hash"]


@pytest.mark.parametrize("vector", CANONICAL, ids=lambda v: v["name"])
def test_canonical_vectors(vector: dict[str, Any]) -> None:
    assert canonical_text(vector["value"]) == vector["text"]


@pytest.mark.parametrize("vector", EVENTS, ids=lambda v: v["name"])
def test_event_vectors(vector: dict[str, Any]) -> None:
    given = vector["input"]
    fields = hashed_fields(
        given["stream_id"],
        given["version"],
        given["type"],
        given["schema_version"],
        given["deal_no"],
        given["data"],
        given["metadata"],
        given["occurred_at"],
        given["hash_version"],
    )
    assert canonical_text(fields) == vector["hashed_text"]
    assert event_hash(given["prev_hash"], fields) == vector["hash"]
    fast = chained_hash(
        given["prev_hash"],
        given["stream_id"],
        given["version"],
        given["type"],
        given["schema_version"],
        given["deal_no"],
        canonical_text(hashed_data(given["data"], given["hash_version"])),
        canonical_text(given["metadata"]),
        given["occurred_at"],
        given["hash_version"],
    )
    assert fast == vector["hash"]
    private = given["data"].get(PRIVATE)
    if given["hash_version"] == HASH_V1:
        assert PRIVATE_COMMITMENT not in given["data"] and "private_commitment" not in vector
        assert private is None or SALT not in private
        return
    assert commitment_problem(given["data"]) is None
    if private is not None:
        assert canonical_text(private) == vector["private_text"]
        assert private_commitment(private) == vector["private_commitment"] == given["data"][PRIVATE_COMMITMENT]
        # Without the block (as other seats receive it) the hash is the same.
        hidden = {key: value for key, value in given["data"].items() if key != PRIVATE}
        assert event_hash(given["prev_hash"], {**fields, "data": hidden}) == vector["hash"]


# docs/hashing.md against the vectors ---------------------------------------------------------------------


def test_the_doc_shows_every_vector_as_it_is() -> None:
    blocks = marked_blocks()
    expected: dict[str, str | dict[str, Any]] = {}
    for canonical in CANONICAL:
        expected[f"canonical:{canonical['name']}:value"] = canonical["value"]
        expected[f"canonical:{canonical['name']}:text"] = canonical["text"]
    for vector in EVENTS:
        prefix = f"vector:{vector['name']}:"
        expected[prefix + "input"] = vector["input"]
        for field in ("hashed_text", "hash", "private_text", "private_commitment"):
            if field in vector:
                expected[prefix + field] = vector[field]
    shown = {marker: body for marker, body in blocks.items() if marker != "reimplementation"}
    assert shown.keys() == expected.keys()
    for marker, value in expected.items():
        if isinstance(value, str):
            assert shown[marker] == value, marker
        else:
            assert json.loads(shown[marker]) == value, marker


def test_every_hash_in_the_doc_is_one_of_the_vectors() -> None:
    known = strings_in(VECTORS) | {GENESIS_HASH}
    shown = HEX64.findall(DOC)
    assert shown
    assert [text for text in shown if text not in known] == []
    for vector in EVENTS:
        assert vector["hash"] in shown and vector["hashed_text"] in DOC


# The reimplementation in docs/hashing.md ----------------------------------------------------------------


@pytest.fixture(scope="module")
def reimplementation() -> dict[str, Any]:
    code = marked_blocks()["reimplementation"]
    imported = {
        alias.name
        for node in ast.walk(parse(code))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in (node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")])
    }
    assert imported == {"hashlib", "json"}
    assert len(code.splitlines()) <= 32
    namespace: dict[str, Any] = {"__name__": "hashing_md"}
    exec(compile(code, "docs/hashing.md", "exec"), namespace)
    return namespace


def test_the_reimplementation_gives_every_vector(reimplementation: dict[str, Any]) -> None:
    for canonical in CANONICAL:
        assert reimplementation["canonical"](canonical["value"]) == canonical["text"].encode("utf-8")
    for vector in EVENTS:
        assert reimplementation["event_hash"](vector["input"]["stream_id"], api_event(vector)) == vector["hash"]
        if "private_commitment" in vector:
            private = vector["input"]["data"][PRIVATE]
            assert reimplementation["commitment"](private) == vector["private_commitment"]
    table_id = EVENTS[0]["input"]["stream_id"]
    reimplementation["check"](table_id, [api_event(vector) for vector in EVENTS])


def test_the_reimplementation_catches_a_changed_event(reimplementation: dict[str, Any]) -> None:
    table_id = EVENTS[0]["input"]["stream_id"]
    events = [api_event(vector) for vector in EVENTS]
    # Other seats' view of the version-2 draw (no private block) checks out from the last version-1 event on.
    hidden = [{**event, "data": {k: v for k, v in event["data"].items() if k != PRIVATE}} for event in events[2:]]
    reimplementation["check"](table_id, hidden, events[1]["hash"])
    last = events[-1]
    changed_cards = {**last, "data": {**last["data"], PRIVATE: {**last["data"][PRIVATE], "cards": ["WF", "2C", "RF"]}}}
    changed_time = {**events[0], "occurred_at": events[0]["occurred_at"].replace(".250000Z", ".25Z")}
    for changed, at in ((changed_cards, 3), (changed_time, 0)):
        with pytest.raises(ValueError, match=f"event {changed['position']}"):
            reimplementation["check"](table_id, [*events[:at], changed, *events[at + 1 :]])
    with pytest.raises(ValueError, match="event 2"):  # a version-1 event's block can't be left out
        reimplementation["check"](table_id, [events[0], {**events[1], "data": {"seat": 0}}, *events[2:]])
