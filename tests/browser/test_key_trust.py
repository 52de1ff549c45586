"""The viewer's trust on first use of the signing keys (static/js/keytrust.js) in headless Chromium: the first
key list is remembered in local storage; the same list later matches; a changed public key, a key that no
longer appears, or a new key without a valid endorsement by a remembered one is a plain warning. GET /v1/keys
is answered in the page (the worked chain of docs/hashing.md), so no database is needed."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from services.api.spec.examples import KEYS
from tests.browser.test_verify_module import files_url

__all__ = ["files_url"]

pytestmark = pytest.mark.slow

RUN = """
const [answers, done] = arguments;
const real = window.fetch;
let served = null;
window.fetch = (url, options) => String(url).includes('/v1/keys')
  ? Promise.resolve(new Response(JSON.stringify(served), {headers: {'Content-Type': 'application/json'}}))
  : real(url, options);
import('/ui/js/keytrust.js').then(async (trust) => {
  const results = [];
  for (const answer of answers) {
    served = answer;
    const result = await trust.checkKeys();
    results.push({...result, sentence: trust.keysSentence(result)});
  }
  done({results, ed25519: await crypto.subtle.importKey('raw', new Uint8Array(32), {name: 'Ed25519'}, false,
    ['verify']).then(() => true, () => false)});
}, (error) => done({error: String(error)}));
"""


def check(driver: Any, answers: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], bool]:
    driver.set_script_timeout(30)
    result = driver.execute_async_script(RUN, answers)
    assert "error" not in result, result
    return result["results"], result["ed25519"]


@pytest.fixture
def page(files_url: str, browser: Callable[..., Any]) -> Iterator[Any]:
    driver = browser()
    driver.get(f"{files_url}/ui/")
    yield driver


def test_the_first_keys_are_remembered_and_a_changed_list_is_a_plain_warning(page: Any) -> None:
    first_only = {"keys": KEYS["keys"][:1]}
    first = first_only["keys"][0]
    other_key = copy.deepcopy(first_only)
    other_key["keys"][0]["public_key"] = KEYS["keys"][1]["public_key"]
    results, _ = check(page, [first_only, first_only, other_key, {"keys": []}])
    assert [r["state"] for r in results] == ["first-use", "match", "changed", "changed"]
    assert results[0]["fingerprints"] == [first["key_id"]]
    assert "remembered in this browser" in results[0]["sentence"] and first["key_id"] in results[0]["sentence"]
    assert results[2]["sentence"].startswith("Warning: the service's signing keys no longer match")
    assert f"key {first['key_id']} is listed with another public key" in results[2]["sentence"]
    assert f"key {first['key_id']}, remembered since" in results[3]["problems"][0]


def test_a_new_key_endorsed_by_a_remembered_one_is_accepted_and_a_forged_one_is_not(page: Any) -> None:
    forged = copy.deepcopy(KEYS)
    forged["keys"][1]["endorsement"] = "A" * 86
    rogue = copy.deepcopy(KEYS)
    rogue["keys"][1]["endorsed_by"] = None
    rogue["keys"][1]["endorsement"] = None
    results, ed25519 = check(page, [{"keys": KEYS["keys"][:1]}, rogue, forged, KEYS])
    second = KEYS["keys"][1]["key_id"]
    assert results[1]["state"] == "changed"
    assert f"key {second} is listed but no remembered key endorses it" in results[1]["problems"]
    if not ed25519:
        pytest.skip("this Chromium's Web Crypto has no Ed25519: the endorsement is left to cardledger verify")
    assert results[2]["state"] == "changed"
    assert results[3]["state"] == "match" and results[3]["fingerprints"] == [KEYS["keys"][0]["key_id"], second]
