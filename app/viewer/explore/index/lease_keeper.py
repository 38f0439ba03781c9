"""Keeping an index build's lease for as long as it works, whatever step takes the time.

A build holds a lease in the store (``result_index.claim``) so that no other worker or
node builds the same index at once; it expires unless renewed, so a build whose worker
died is taken over. Renewing only between pages left the slow steps unguarded: a page that
takes long to arrive, and the end of a build (waiting for the chemistry of the last
molecules, then saving the frame: minutes at a million results), during which another
worker saw an expired lease and built the index again. ``LeaseKeeper`` renews from its own
thread at a fixed interval while the build runs; the build reads ``lost`` to stop.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)


class LeaseKeeper:
    """Call ``renew`` every ``every`` seconds inside a ``with`` block (a daemon thread).

    ``renew`` returns False once the lease is no longer ours (then ``lost`` is True and
    the keeper stops); an error while renewing is logged and tried again next time (the
    store may be briefly unreachable: the lease has two more intervals to spare).
    """

    def __init__(self, renew: Callable[[], bool], every: float) -> None:
        self._renew, self._every = renew, every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="index-lease", daemon=True)
        self.lost = False

    def _run(self) -> None:
        while not self._stop.wait(self._every):
            try:
                if not self._renew():
                    self.lost = True
                    return
            except Exception as error:  # retried at the next interval
                log.warning("renewing an index build's lease failed: %s",
                            type(error).__name__)

    def __enter__(self) -> LeaseKeeper:
        self._thread.start()
        return self

    def __exit__(self, *_exc) -> None:
        self._stop.set()
        self._thread.join()
