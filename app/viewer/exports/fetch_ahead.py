"""Fetch the files of an export's records several at a time, in order, memory bounded.

SDF and ZIP exports read a file per result (a ligand pose, a structure) through the
presigned URL the API returned: one at a time, an export waits on each file's round trip
in turn, so its pace is one file per round trip.
``in_order`` keeps up to ``WIDTH`` fetches running in a small thread pool while the
writer handles the records before them, and hands back each record with its outcome in
the records' order, so the file still reads top to bottom in the view's order. At most
``WIDTH`` outcomes exist at once (the fetches in flight and the one being written); a
ZIP's fetch keeps a file whole only up to ``zip_writer.HELD_BYTES`` (a bigger one is read
in pieces, in order, when its turn comes), so memory stays bounded whatever the files.

Each fetch runs in a copy of the request's context (``flask.copy_current_request_context``):
it reads through the same link with the same proof as the export itself (a fresh bearer
token a file, minted from the visitor's session). An error of a fetch is kept in its
outcome and raised where the record is written, exactly as if the fetch had run there.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from flask import copy_current_request_context, has_request_context

WIDTH = 4
T = TypeVar("T")
R = TypeVar("R")


class Outcome:
    """What one fetch gave: its value, or the error it raised (raised again by ``get``)."""

    def __init__(self, future: Future):
        self._future = future

    def get(self, *_args):
        """Return the fetch's value or raise its error (extra arguments are ignored, so
        ``get`` can stand in for the fetch function itself)."""
        return self._future.result()


def in_order(items: Iterable[T], fetch: Callable[[T], R], width: int = WIDTH
             ) -> Iterator[tuple[T, Outcome]]:
    """Yield each item with the outcome of ``fetch(item)``, in the items' order, with up
    to ``width`` fetches running ahead (module docstring)."""
    if width <= 1:
        for item in items:
            future: Future = Future()
            try:
                future.set_result(fetch(item))
            except Exception as error:  # kept, raised by Outcome.get like a pool's
                future.set_exception(error)
            yield item, Outcome(future)
        return
    with ThreadPoolExecutor(width, thread_name_prefix="export-fetch") as pool:
        waiting: deque[tuple[T, Future]] = deque()
        try:
            for item in items:
                task = copy_current_request_context(fetch) if has_request_context() \
                    else fetch
                waiting.append((item, pool.submit(task, item)))
                if len(waiting) >= width:
                    first, done = waiting.popleft()
                    yield first, Outcome(done)
            while waiting:
                first, done = waiting.popleft()
                yield first, Outcome(done)
        finally:
            for _item, pending in waiting:  # the visitor hung up or a write failed
                pending.cancel()
