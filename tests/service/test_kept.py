"""service.kept: the bound on what a process keeps drops the least recently read first."""

from __future__ import annotations

import threading

from service.kept import Kept


def test_the_least_recently_read_goes_first() -> None:
    kept: Kept[str, int | None] = Kept(2)
    kept.put("a", 1)
    kept.put("b", None)
    assert kept.find("a") == (True, 1)  # read: "b" is now the least recent
    kept.put("c", 3)
    assert "b" not in kept and kept.find("a") == (True, 1) and kept.find("c") == (True, 3)
    assert kept.find("b") == (False, None)
    assert kept.find("a") == (True, 1)
    kept.put("b", None)  # a kept None is found as such
    assert kept.find("b") == (True, None) and "c" not in kept and len(kept) == 2


def test_many_threads_never_exceed_the_bound() -> None:
    kept: Kept[int, int] = Kept(50)

    def work(offset: int) -> None:
        for i in range(2000):
            kept.put(offset + i % 80, i)
            kept.find(offset + (i * 7) % 80)

    threads = [threading.Thread(target=work, args=(n * 1000,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(kept) == 50
