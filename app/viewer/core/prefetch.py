"""Read a download's next chunks from upstream while the current one goes to the visitor.

Relaying in one thread alternates: read a chunk from the bucket, write it to the visitor,
read the next... so the time per chunk is the sum of both, and a download through the
viewer would be much slower than one straight from S3 (``bench/bench_s3.py`` compares
the two). A reader thread
keeps up to ``DEPTH`` chunks ready, so reading and writing overlap and the relay runs at
the slower of the two. Memory stays bounded: ``DEPTH`` chunks of ``CHUNK_SIZE`` at most.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator

DEPTH = 4
# How often a blocked reader looks whether the visitor has gone, seconds.
_POLL = 0.5
_END = object()


def prefetched(chunks: Iterator[bytes], depth: int = DEPTH) -> Iterator[bytes]:
    """Yield ``chunks`` as a background thread reads them, at most ``depth`` ahead.

    An exception of the reader is raised here, after the chunks read before it. When the
    caller stops early (the visitor hung up), the reader stops at its next chunk; the
    caller closes the upstream response, which ends a read in progress.
    """
    ready: queue.Queue = queue.Queue(maxsize=depth)
    stopped = threading.Event()

    def put(item) -> bool:
        while not stopped.is_set():
            try:
                ready.put(item, timeout=_POLL)
                return True
            except queue.Full:
                continue
        return False

    def read() -> None:
        try:
            for chunk in chunks:
                if not put(chunk):
                    return
            put(_END)
        except BaseException as error:  # handed to the consumer, who raises it
            put(error)

    threading.Thread(target=read, name="download-prefetch", daemon=True).start()
    try:
        while (item := ready.get()) is not _END:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stopped.set()
