"""Runs whose data retention deleted: what the overview and their own pages say.

The compute API keeps a stub of each run its retention purge deleted: the record stays in
the share read with ``data_deleted_at`` set and ``input`` (and a prediction's ``output``)
null (the SDK's fields; ``app.jobs.retention``). The link is still valid, so the viewer says
what happened instead of hiding the run or answering the 404 of a gone link:

- the overview lists such a run as a card "Deleted on <date> under the workspace's
  data-retention policy", without a link to results, under a notice at the top
  ("N of the M runs shared through this link were deleted under data retention");
- its pipeline, result, 3D, export and download pages (everything the loaders load under
  it) answer **410 Gone** with that sentence and a way back to the overview. 410, not
  200: the address will not come back, and tools and crawlers should know; not 404: the
  link is fine, and the visitor should not think it was mistyped or withdrawn.
"""

from __future__ import annotations

from typing import NamedTuple

from flask import Response, render_template

from app.viewer.core import run_kinds
from app.viewer.core.errors import RunDataDeleted
from app.viewer.core.formatting import parse_time

MESSAGE = "Deleted under the workspace's data-retention policy."


class Retained(NamedTuple):
    """How many of a link's runs (pipelines and predictions) retention deleted."""

    deleted: int
    total: int


def is_deleted(record: object) -> bool:
    """Tell whether a run record says its data was deleted (``data_deleted_at`` set)."""
    return isinstance(record, dict) and bool(record.get("data_deleted_at"))


def deleted_on(record: dict) -> str:
    """Return the day a run's data was deleted, ``2026-05-04`` (UTC), or "" if unknown."""
    when = parse_time(str(record.get("data_deleted_at") or ""))
    return when.strftime("%Y-%m-%d") if when else ""


def retained(share: dict) -> Retained:
    """Count the link's runs and those of them whose data was deleted."""
    runs = [*(share.get("pipelines") or []), *(share.get("predictions") or [])]
    return Retained(sum(1 for run in runs if is_deleted(run)), len(runs))


def page(error: RunDataDeleted) -> Response:
    """Answer the 410 page of a deleted run (``error`` carries its record and link)."""
    record = error.record
    if error.kind == "pipeline":
        kind = run_kinds.pipeline_kind(record)
        label = kind.label
    else:
        kind, label = None, run_kinds.prediction_label(record)
    body = render_template("share/deleted.html", link_id=error.link_id, record=record,
                           run_type=error.kind, kind=kind, label=label,
                           deleted_on=deleted_on(record))
    return Response(body, status=410, mimetype="text/html")
