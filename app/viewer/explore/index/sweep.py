"""The viewer's own caches held to the retention bound: ``purge-expired``'s viewer step.

The exploration index copies results the API returned; ``purge-expired`` drops the index
of every pipeline it purged (composed app), every index made longer ago than the longest
retention a workspace can have (``LONGEST_RETENTION``: its results are gone from the API
by then, whichever API it reads) and those nobody used for ``EXPLORE_INDEX_IDLE_HOURS``.
Results purged from a pipeline that stays lower its result count (its run record's
``progress``), and the indexer rebuilds an index holding more rows than that
(``app.viewer.explore.index.indexer.ensure``), so purged rows are never served. Expired
sessions and sign-in requests go too (they are already refused on read; this keeps a
quiet viewer from holding them).

A dry run does the same deletions in transactions it rolls back: exact counts, no change.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from flask import Flask

from app.platform.settings import setting
from app.viewer import store
from app.viewer.explore.index import frame_files
from app.viewer.store import result_index, sessions, signin_requests

# The spec's maximum data_retention (14 days, 336 hours).
LONGEST_RETENTION = timedelta(days=14)


def sweep(app: Flask, now: datetime, *, dry_run: bool,
          purged_pipelines: list[str] = ()) -> dict[str, int]:
    """Sweep the viewer store of ``app`` as of ``now``; return what went (or would)."""
    engine = store.get_engine(app)
    idle = timedelta(hours=setting(app, "EXPLORE_INDEX_IDLE_HOURS"))
    with engine.connect() as conn:
        doomed = set(result_index.indexed_among(conn, list(purged_pipelines)))
        doomed.update(result_index.expired(conn, built_before=now - LONGEST_RETENTION,
                                           used_before=now - idle, now=now))
    indexes = 0
    for pipeline_id in sorted(doomed):  # one transaction each: an index can be large
        indexes += _in_transaction(engine, dry_run,
                                   lambda conn, p=pipeline_id: result_index.delete(conn, p))
        if not dry_run:  # this machine's mapped copy of its frame (other nodes: idle)
            frame_files.remove(frame_files.root(app), pipeline_id)
    return {
        "indexes": indexes,
        "sessions": _in_transaction(engine, dry_run,
                                    lambda conn: sessions.purge_expired(conn, now)),
        "signin_requests": _in_transaction(
            engine, dry_run, lambda conn: signin_requests.purge_expired(conn, now)),
    }


def viewer_step(app: Flask, context: dict) -> dict:
    """``purge-expired``'s step for the viewer store of ``app`` (``app.jobs.cli.add_purge``)."""
    return {"viewer": sweep(app, context["now"], dry_run=context["dry_run"],
                            purged_pipelines=context.get("purged_pipelines", []))}


def _in_transaction(engine, dry_run: bool, step) -> int:
    """Run ``step(conn)`` in a transaction, rolled back in a dry run; return its count."""
    with engine.connect() as conn:
        transaction = conn.begin()
        try:
            count = int(step(conn))
        except BaseException:
            transaction.rollback()
            raise
        if dry_run:
            transaction.rollback()
        else:
            transaction.commit()
    return count
