"""read_ahead: a thread makes an iterator's items one ahead of the consumer, in order, and stops with it."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from services.projector.read_ahead import read_ahead


def test_items_come_in_order_and_all_of_them() -> None:
    assert list(read_ahead(iter(range(100)))) == list(range(100))
    assert list(read_ahead(iter([]))) == []


def test_items_are_made_on_another_thread_at_most_one_ahead() -> None:
    made: list[int] = []
    threads: set[str] = set()

    def items() -> Iterator[int]:
        for i in range(5):
            threads.add(threading.current_thread().name)
            made.append(i)
            yield i

    taken = read_ahead(items())
    assert next(taken) == 0
    # The producer can make item 1 (into the queue) and item 2 (waiting to be put), no further.
    time.sleep(0.2)
    assert len(made) <= 3
    assert list(taken) == [1, 2, 3, 4]
    assert threads == {"read-ahead"}


def test_an_error_of_the_iterator_reaches_the_consumer_after_the_items_before_it() -> None:
    def items() -> Iterator[int]:
        yield 1
        yield 2
        raise ValueError("batch 3 could not be read")

    taken = read_ahead(items())
    assert [next(taken), next(taken)] == [1, 2]
    with pytest.raises(ValueError, match="batch 3 could not be read"):
        next(taken)


def test_a_consumer_that_stops_early_stops_the_producer_and_closes_the_iterator() -> None:
    closed = threading.Event()
    made: list[int] = []

    def items() -> Iterator[int]:
        try:
            for i in range(1_000_000):
                made.append(i)
                yield i
        finally:
            closed.set()

    taken = read_ahead(items())
    assert next(taken) == 0
    taken.close()
    assert not any(t.name == "read-ahead" for t in threading.enumerate())
    assert len(made) <= 3
    assert closed.is_set()
