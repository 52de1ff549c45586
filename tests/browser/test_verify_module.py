"""The replayer's verification module (static/js/verify.js) run in headless Chromium against the project's own
references: the hash vectors of docs/hashing.md (tests/unit/vectors/hash_vectors.json) and the deck of
`domain.shuffle` for both games. The page is served by the API app alone (no database is needed for files)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import make_server

from domain.games import game_named
from domain.shuffle import commitment, deal_deck
from infra.config import Settings
from services.api import create_app
from tests.api.conftest import TEST_CONFIG

pytestmark = pytest.mark.slow

VECTORS = Path(__file__).resolve().parents[1] / "unit" / "vectors" / "hash_vectors.json"

RUN = """
const [vectors, decks, done] = arguments;
import('/ui/js/verify.js').then(async (verify) => {
  const canonical = vectors.canonical.map((v) => verify.canonical(v.value));
  const hashes = [];
  const texts = [];
  const privates = [];
  for (const vector of vectors.events) {
    if (vector.private_commitment) privates.push(await verify.privateCommitment(vector.input.data.private));
    const event = { ...vector.input, position: vector.input.version };
    texts.push(verify.canonical(verify.hashedFields(vector.input.stream_id, event)));
    hashes.push(await verify.eventHash(vector.input.stream_id, event));
  }
  const computed = [];
  for (const d of decks) {
    computed.push({
      deck: await verify.deckOf(d.game, d.seed, d.table_id, d.deal_no, d.client_seeds),
      commitment: await verify.seedCommitment(d.seed),
    });
  }
  done({ canonical, texts, hashes, privates, decks: computed });
}, (error) => done({ error: String(error) }));
"""


@pytest.fixture(scope="module")
def files_url() -> Iterator[str]:
    app = create_app(settings=Settings(), config={**TEST_CONFIG, "RATELIMIT_STORAGE_URI": "memory://"})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join()


def test_verify_js_reproduces_the_hash_vectors_and_the_shuffle(files_url: str, browser: Callable[..., Any]) -> None:
    vectors = json.loads(VECTORS.read_text(encoding="utf-8"))
    decks = [
        {
            "game": "cholek-tiga",
            "seed": bytes(range(32)).hex(),
            "table_id": "5d0c4d4e-0000-4000-8000-000000000001",
            "deal_no": 1,
            "client_seeds": ["alice-luck", ""],
        },
        {
            "game": "cha-kau-tsz",
            "seed": "ab" * 32,
            "table_id": "7c9e6679-7425-40de-944b-e07fc1f90ae7",
            "deal_no": 12,
            "client_seeds": ["Zoë 𝄞", "", "x" * 64],
        },
    ]
    driver = browser()
    driver.get(f"{files_url}/ui/")
    driver.set_script_timeout(30)
    result = driver.execute_async_script(RUN, vectors, decks)
    assert "error" not in result, result

    assert result["canonical"] == [vector["text"] for vector in vectors["canonical"]]
    assert result["texts"] == [vector["hashed_text"] for vector in vectors["events"]]
    assert result["hashes"] == [vector["hash"] for vector in vectors["events"]]
    committed = [vector["private_commitment"] for vector in vectors["events"] if "private_commitment" in vector]
    assert committed and result["privates"] == committed
    for given, computed in zip(decks, result["decks"], strict=True):
        seed = bytes.fromhex(given["seed"])
        expected = deal_deck(
            game_named(given["game"]).canonical_deck, seed, given["table_id"], given["deal_no"], given["client_seeds"]
        )
        assert computed["deck"] == list(expected)
        assert computed["commitment"] == commitment(seed)
