"""A new substructure query counted in the background; meanwhile, how far it got.

A broad query (benzene over a million molecules: most of them candidates, each confirmed
with RDKit) takes longer than a visitor should hold a page. So each new query is
a ``Count`` run by a thread of the worker, and a request waits for it: a selective query
is answered in that request; a broader one (past ``INTERACTIVE_CANDIDATES``: over a second of
work) answers, once screened (a fraction of a second), ``Counting`` (a 503 with Retry-After)
saying how far the count got
("has checked 412,000 of 950,000 candidate molecules: 398,000 match so far"), never a
partial set or a count that is not the final one: the view's count, facets, histograms
and exports wait for the whole answer. The count goes on without the visitor; the next
request of the same query (a retry, another visitor, explore.json) finds it further on,
at once, or done: kept for the index version. The results page and explore.json show that
progress as they show the index build's (``panel.Panel.counting``,
``explore_answer.Counting``: a progress bar polled until the answer is ready), the page
with its rows as far as they are known (``substructure_first``: confirmed in the view's
order, "at least N match"); exports answer 503 until then.

Which child confirms: a count of at most ``INTERACTIVE_CANDIDATES`` candidates (about a
second) runs in the worker's ``substructure`` child under ``substructure.TOTAL_SECONDS``,
one query at a time; a larger one in a ``substructure-background``
child at ``NICENESS`` (the workers' requests come first on a busy machine) under
``BACKGROUND_SECONDS`` (a hostile query costs that at most, at a low priority), and at
most ``BACKGROUND_COUNTS`` of them at once per worker. One more, while that child is
busy, is waited for in the worker's own child if it has at most ``WAITED_CANDIDATES``
(seconds: a visitor waits rather than meets a refusal), else it is
``work_gate.Busy``, a 503 with Retry-After, as are counts past ``PENDING`` unfinished
ones: a client sending many new queries holds a few threads, never the worker. A count
over its budget ends as ``substructure.TooBroad``, kept like an answer, so a retry is
refused at once instead of counting again.

Each worker counts on its own (a query seen by two workers is counted twice); finished
counts are kept for the ``KEPT`` latest queries.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

import numpy as np

from app.viewer.core.errors import BadRequest, Retryable
from app.viewer.explore import substructure_answers
from app.viewer.explore.index.frame import Molecules
from app.viewer.runtime import work_gate

log = logging.getLogger(__name__)

# A request looks at its count every POLL_SECONDS: until it is done (an interactive one)
# or known to be a background one (then it answers how far it got).
POLL_SECONDS = 0.05
# Candidates a request's own child confirms in about a second, waited for; more:
# counted in the background, the page showing its first rows meanwhile.
INTERACTIVE_CANDIDATES = 25_000
# Up to this many, a count that finds the background child busy is waited for instead.
WAITED_CANDIDATES = 150_000
BACKGROUND_SECONDS = 900.0
BACKGROUND_WORKER = "substructure-background"
NICENESS = 10
BACKGROUND_COUNTS = 1
RETRY_AFTER_SECONDS = 5
PENDING = 8
KEPT = 16
# One interactive count at a time per worker: many new queries hold one thread, not all.
_interactive_turn = threading.Lock()


@dataclass
class Count:
    """One query's count: how far it got, then its answer (or its refusal)."""

    candidates: int = -1  # not screened yet
    screened: np.ndarray | None = None  # the candidates (molecule indices) once screened
    checked: int = 0
    matched: int = 0
    background: bool = False
    started: float = field(default_factory=time.monotonic)
    answer: np.ndarray | None = None
    error: Exception | None = None  # its refusal (TooBroad, Busy) or failure
    done: threading.Event = field(default_factory=threading.Event)

    def tell(self, checked: int, matched: int) -> None:
        """Record the progress ``substructure.confirm_within_budget`` reports."""
        self.checked, self.matched = checked, matched


class Counting(Retryable):
    """The query's count is not finished: a 503 saying how far it got (module doc)."""

    def __init__(self, count: Count):
        self.candidates, self.checked = max(count.candidates, 0), count.checked
        self.matched = count.matched  # a background count: screened already
        message = (f"The substructure search has checked {self.checked:,} of "
                   f"{self.candidates:,} candidate molecules: {self.matched:,} match so "
                   "far, and the count goes on.")
        super().__init__(message, retry_after=RETRY_AFTER_SECONDS, reason="counting",
                         details={"counting": self.progress()})

    def progress(self) -> dict:
        """How far the count got, for ``explore.json``."""
        return {"checked": self.checked, "candidates": self.candidates,
                "matched_so_far": self.matched}


# Not a ``runtime.cache.BoundedCache``: a running count is never dropped (it is bounded by
# ``PENDING``), only finished ones beyond the ``KEPT`` latest.
_counts: OrderedDict[Hashable, Count] = OrderedDict()
_lock = threading.Lock()


def clear() -> None:
    """Forget every finished count (benchmarks and tests; running ones finish unseen)."""
    with _lock:
        for key in [k for k, c in _counts.items() if c.done.is_set()]:
            del _counts[key]


def answer(key: Hashable, molecules: Molecules, smarts: str) -> np.ndarray:
    """Return ``substructure_answers.matching`` of ``smarts`` (already read), counted
    once per ``key`` (the index version and the query); raise ``Counting`` while it is
    counted in the background, its refusal (``TooBroad``) when it ended so. An
    interactive count is waited for (its child's first start included)."""
    count = _count_of(key, lambda count: _run(count, molecules, smarts))
    while not count.done.wait(POLL_SECONDS):
        if count.background:
            raise Counting(count)
    if count.error is not None:
        raise count.error
    return count.answer


def candidates_of(key: Hashable) -> np.ndarray | None:
    """Return the screened candidates (molecule indices) of the count of ``key`` still
    going on, or None (no such count, not screened yet, or done)."""
    with _lock:
        count = _counts.get(key)
    return None if count is None or count.done.is_set() else count.screened


def _count_of(key: Hashable, run: Callable[[Count], None]) -> Count:
    """Return the count of ``key``, started on a thread when there is none."""
    with _lock:
        count = _counts.get(key)
        if count is not None:
            _counts.move_to_end(key)
            return count
        if sum(not c.done.is_set() for c in _counts.values()) >= PENDING:
            raise work_gate.Busy("substructure count")
        count = _counts[key] = Count()
        finished = [k for k, c in _counts.items() if c.done.is_set()]
        for old in finished[:max(0, len(finished) - KEPT)]:
            del _counts[old]
    threading.Thread(target=run, args=(count,), name="substructure-count",
                     daemon=True).start()
    return count


def _run(count: Count, molecules: Molecules, smarts: str) -> None:
    """Count ``smarts`` over ``molecules`` into ``count`` (the thread's work)."""
    try:
        candidates, usable = substructure_answers.screened(molecules, smarts)
        count.screened, count.candidates = candidates, len(candidates)
        if len(candidates) > INTERACTIVE_CANDIDATES and _background(count):
            count.answer = substructure_answers.confirmed(
                molecules, smarts, candidates, usable, progress=count.tell,
                seconds=BACKGROUND_SECONDS, worker=BACKGROUND_WORKER, niceness=NICENESS)
        elif len(candidates) <= WAITED_CANDIDATES:
            with _interactive_turn:
                count.answer = substructure_answers.confirmed(
                    molecules, smarts, candidates, usable, progress=count.tell)
        else:
            count.error = work_gate.Busy("substructure count")
            _forget(count)
            return
        log.info("substructure: %d of %d candidates match (%.1f s%s)", count.matched,
                 len(candidates), time.monotonic() - count.started,
                 ", in the background" if count.background else "")
    except BadRequest as refused:  # TooBroad: over its budget, kept as its answer
        count.error = refused
    except Exception as error:  # the request raises it (a 500), a retry counts again
        count.error = error
        _forget(count)
    finally:
        count.done.set()


def _background(count: Count) -> bool:
    """Mark ``count`` a background one if fewer than ``BACKGROUND_COUNTS`` run."""
    with _lock:
        running = sum(c.background and not c.done.is_set() for c in _counts.values())
        count.background = running < BACKGROUND_COUNTS
        return count.background


def _forget(count: Count) -> None:
    """Drop a failed count, so the next request counts again."""
    with _lock:
        for key in [k for k, c in _counts.items() if c is count]:
            del _counts[key]
