"""A small thread-safe least-recently-used map, for this process's caches of values that never go stale
(or that are checked against the store before use)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Lru(Generic[K, V]):
    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"an LRU cache needs a size of at least 1, got {size}")
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: K, value: V, replaces: Callable[[V], bool] | None = None) -> bool:
        """Store `value` under `key`; with `replaces`, an existing value is kept unless `replaces(existing)`.
        True when stored."""
        with self._lock:
            existing = self._items.get(key)
            if existing is not None and replaces is not None and not replaces(existing):
                return False
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
            return True

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)
