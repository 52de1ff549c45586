"""An iterator's items made by a thread of their own, one item ahead of the one who takes them.

A rebuild reads the log in batches and applies each batch: reading on a connection of its own while the
previous batch is applied lets the database answer one while Python works on the other.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import TypeVar

T = TypeVar("T")

_POLL_SECONDS = 0.1  # how often a producer blocked on a full queue looks whether the consumer has gone


class _End:
    """No more items."""


class _Failed:
    """`items` raised `error`."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


_END = _End()


def read_ahead(items: Iterator[T], ahead: int = 1) -> Iterator[T]:
    """The items of `items`, in order, made by a daemon thread at most `ahead` items before the consumer.

    An exception raised by `items` is raised to the consumer where that item would have come. A consumer that
    stops early (break, exception, close) stops the thread after the item it is making and waits for it; the
    thread closes `items` (if it is a generator), so nothing it holds (a connection) is used afterwards.
    """
    handoff: queue.Queue[T | _End | _Failed] = queue.Queue(maxsize=ahead)
    stopping = threading.Event()

    def put(item: T | _End | _Failed) -> bool:
        while not stopping.is_set():
            try:
                handoff.put(item, timeout=_POLL_SECONDS)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in items:
                if not put(item):
                    return
            put(_END)
        except BaseException as error:  # handed to the consumer, who raises it
            put(_Failed(error))
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                close()

    producer = threading.Thread(target=produce, name="read-ahead", daemon=True)
    producer.start()
    try:
        while True:
            item = handoff.get()
            if isinstance(item, _End):
                return
            if isinstance(item, _Failed):
                raise item.error
            yield item
    finally:
        stopping.set()
        producer.join()
