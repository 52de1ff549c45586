"""infra.lru.Lru: a bounded map that evicts the least recently *used* key (a get counts as a use)."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from infra.lru import Lru


def contents(lru: Lru[str, int], keys: str) -> dict[str, int | None]:
    return {key: lru.get(key) for key in keys}


def test_never_holds_more_than_its_size() -> None:
    lru: Lru[int, int] = Lru(3)
    for n in range(10):
        lru.put(n, n * 10)
        assert len(lru) == min(n + 1, 3)
    assert [lru.get(n) for n in range(10)] == [None] * 7 + [70, 80, 90]


def test_evicts_the_least_recently_put_when_nothing_was_read() -> None:
    lru: Lru[str, int] = Lru(2)
    lru.put("a", 1)
    lru.put("b", 2)
    lru.put("c", 3)
    assert len(lru) == 2
    assert contents(lru, "abc") == {"a": None, "b": 2, "c": 3}


def test_a_get_makes_a_key_the_most_recently_used() -> None:
    lru: Lru[str, int] = Lru(3)
    lru.put("a", 1)
    lru.put("b", 2)
    lru.put("c", 3)
    assert lru.get("a") == 1  # a is now the most recently used: b is the oldest
    lru.put("d", 4)
    assert lru.get("b") is None
    assert lru.get("a") == 1
    assert lru.get("c") == 3
    assert lru.get("d") == 4
    # order of use now: a, c, d (d newest); a new key evicts a
    lru.put("e", 5)
    assert contents(lru, "acde") == {"a": None, "c": 3, "d": 4, "e": 5}


def test_a_miss_does_not_change_the_order() -> None:
    lru: Lru[str, int] = Lru(2)
    lru.put("a", 1)
    lru.put("b", 2)
    assert lru.get("zzz") is None
    lru.put("c", 3)
    assert contents(lru, "abc") == {"a": None, "b": 2, "c": 3}


def test_putting_an_existing_key_replaces_it_and_makes_it_the_most_recently_used() -> None:
    lru: Lru[str, int] = Lru(2)
    lru.put("a", 1)
    lru.put("b", 2)
    lru.put("a", 10)
    assert len(lru) == 2
    lru.put("c", 3)  # b is the oldest now
    assert contents(lru, "abc") == {"a": 10, "b": None, "c": 3}


def test_replaces_false_keeps_the_existing_value() -> None:
    lru: Lru[str, int] = Lru(4)
    lru.put("k", 5)
    seen: list[int] = []

    def only_if_newer(value: int) -> Callable[[int], bool]:
        def replaces(existing: int) -> bool:
            seen.append(existing)
            return existing <= value

        return replaces

    lru.put("k", 3, replaces=only_if_newer(3))
    assert lru.get("k") == 5
    assert seen == [5]  # the predicate was asked about the value kept
    lru.put("k", 5, replaces=only_if_newer(5))
    assert lru.get("k") == 5
    lru.put("k", 8, replaces=only_if_newer(8))
    assert lru.get("k") == 8
    assert seen == [5, 5, 5]
    assert len(lru) == 1


def test_replaces_is_not_asked_for_a_new_key() -> None:
    lru: Lru[str, int] = Lru(2)

    def never(existing: int) -> bool:
        raise AssertionError(f"asked about {existing} though the key was absent")

    lru.put("k", 1, replaces=never)
    assert lru.get("k") == 1


def test_a_kept_value_still_counts_towards_the_size() -> None:
    lru: Lru[str, int] = Lru(2)
    lru.put("a", 1)
    lru.put("b", 2)
    lru.put("a", 0, replaces=lambda existing: False)
    lru.put("c", 3)
    assert len(lru) == 2
    seen = contents(lru, "abc")
    assert seen["c"] == 3
    assert [seen["a"], seen["b"]].count(None) == 1  # one of the two older keys was evicted
    assert seen["a"] in (1, None)  # never the refused 0


def test_clear_empties_it() -> None:
    lru: Lru[str, int] = Lru(2)
    lru.put("a", 1)
    lru.put("b", 2)
    lru.clear()
    assert len(lru) == 0
    assert contents(lru, "ab") == {"a": None, "b": None}
    lru.put("c", 3)
    assert lru.get("c") == 3


def test_a_size_of_one_keeps_the_last_key() -> None:
    lru: Lru[str, int] = Lru(1)
    lru.put("a", 1)
    lru.put("b", 2)
    assert contents(lru, "ab") == {"a": None, "b": 2}


@pytest.mark.parametrize("size", [0, -1, -100])
def test_a_size_below_one_is_refused(size: int) -> None:
    with pytest.raises(ValueError, match=rf"at least 1, got {size}\b"):
        Lru(size)


def test_threads_never_push_it_over_its_size() -> None:
    lru: Lru[int, int] = Lru(50)
    errors: list[BaseException] = []

    def work(offset: int) -> None:
        try:
            for n in range(2_000):
                lru.put(offset + n % 200, n)
                lru.get(offset + (n * 7) % 200)
                assert len(lru) <= 50
        except BaseException as error:  # reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=work, args=(t * 100,)) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(lru) == 50
