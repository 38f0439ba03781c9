"""The bounded LRU cache: its count and weight bounds, its order, compute on a miss, clear,
and many threads sharing one."""

from __future__ import annotations

import dataclasses
import threading

import numpy as np

from app.viewer.runtime.cache import BoundedCache, approximate_bytes


def test_the_least_recently_used_entry_goes_first():
    cache = BoundedCache(3)
    for key in "abc":
        cache.put(key, key.upper())
    assert cache.get("a") == "A"  # now the most recent: "b" is the oldest
    cache.put("d", "D")
    assert len(cache) == 3
    assert cache.get("b") is None
    assert [cache.get(k) for k in "acd"] == ["A", "C", "D"]


def test_a_hit_of_get_or_compute_counts_as_use():
    cache = BoundedCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get_or_compute("a", lambda: 99) == 1  # a hit: not computed
    cache.put("c", 3)
    assert cache.get("b") is None and cache.get("a") == 1


def test_a_weight_bound_drops_the_oldest_until_the_values_fit():
    cache = BoundedCache(100, maxweight=10)
    for key, value in (("a", "xxxx"), ("b", "yyyy"), ("c", "zzzz")):
        cache.put(key, value)
    assert cache.get("a") is None and cache.get("b") == "yyyy"  # 12 > 10: "a" went
    cache.put("b", "y")  # replacing a value counts its new weight only
    cache.put("d", "dddd")
    assert [cache.get(k) for k in "bcd"] == ["y", "zzzz", "dddd"]
    assert cache.weight == 9
    cache.put("big", "q" * 50)  # heavier than the bound alone: kept, everything else goes
    assert len(cache) == 1 and cache.get("big") and cache.weight == 50


def test_the_weight_is_what_the_cache_is_told():
    cache = BoundedCache(100, maxweight=100, weight=lambda value: value["size"])
    for key in range(5):
        cache.put(key, {"size": 30})
    assert len(cache) == 3 and cache.weight == 90
    assert [cache.get(k) is not None for k in range(5)] == [False, False, True, True, True]


def test_get_or_compute_computes_once_and_keeps_none_too():
    cache = BoundedCache(4)
    calls = []

    def compute():
        calls.append(1)
        return None

    assert cache.get_or_compute("k", compute) is None
    assert cache.get_or_compute("k", compute) is None
    assert len(calls) == 1


def test_clear_forgets_every_entry_and_its_weight():
    cache = BoundedCache(4, maxweight=100)
    cache.put("a", "xyz")
    cache.get_or_compute("b", lambda: "uvw")
    cache.clear()
    assert len(cache) == 0 and cache.weight == 0
    assert cache.get("a") is None
    assert cache.get_or_compute("b", lambda: "new") == "new"


def test_a_slow_computation_does_not_hold_up_other_keys():
    cache = BoundedCache(8)
    started, release = threading.Event(), threading.Event()

    def slow():
        started.set()
        release.wait(5)
        return "slow"

    thread = threading.Thread(target=cache.get_or_compute, args=("slow", slow))
    thread.start()
    assert started.wait(5)
    cache.put("fast", 1)  # the lock is free while "slow" computes
    assert cache.get_or_compute("fast", lambda: 2) == 1
    release.set()
    thread.join(5)
    assert cache.get("slow") == "slow"


def test_many_threads_keep_the_bounds_and_the_values_consistent():
    cache = BoundedCache(16, maxweight=40, weight=lambda value: value % 7)
    errors = []

    def work(offset: int) -> None:
        try:
            for i in range(2000):
                key = (offset * 7 + i) % 50
                if cache.get_or_compute(key, lambda key=key: key) != key:
                    errors.append(key)
                if i % 3 == 0:
                    cache.put(key, key)
        except Exception as error:  # pragma: no cover - what the test looks for
            errors.append(error)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(cache) <= 16 and cache.weight <= 40
    kept = [key for key in range(50) if cache.get(key) is not None]
    assert cache.weight == sum(key % 7 for key in kept)


def test_approximate_bytes_counts_arrays_by_their_buffers_inside_containers():
    @dataclasses.dataclass
    class Answer:
        rows: np.ndarray
        counts: dict

    rows = np.arange(1_000_000, dtype=np.int64)
    assert approximate_bytes(rows) == 8_000_000
    nested = Answer(rows, {"a": (rows[:1000], [rows[:10]])})
    assert 8_008_080 <= approximate_bytes(nested) < 8_020_000
    assert 0 < approximate_bytes("x" * 100) < 200

