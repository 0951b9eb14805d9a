"""A small bounded map for values a process computes once and reads often (a claim explained,
say): at most ``size`` entries, the least recently read dropped first, safe across threads."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Kept(Generic[K, V]):
    """Least recently read goes first: a page read again and again keeps its values while
    others come and go (a first-in-first-out bound would drop them in turn)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._items

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def find(self, key: K) -> tuple[bool, V | None]:
        """Whether a value is kept for ``key``, and that value (a read: it is kept longer)."""
        with self._lock:
            if key not in self._items:
                return False, None
            self._items.move_to_end(key)
            return True, self._items[key]

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
