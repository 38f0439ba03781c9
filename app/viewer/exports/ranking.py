"""The order every export keeps: the view's, with each result's rank and label.

A file is read top to bottom as "the best first", so an export holds the
view's results **in the view's order** and says where each one stands:

- ``rank``: the 1-based position in the view (across its pages), the table's Rank column;
- ``label``: the run-wide name of ``explore.labels`` (``#<rank in the run> <id tail>``),
  the same as on every page.

The order is the view's ``sort``; without one, the kind's default order
(``labels.primary_sort``: its primary metric, best first), as the results page opens. A
shortlist export (``ids=``) is the view of those ids: in the sort of the page it was
exported from (``static/js/shortlist.js`` sends it along), else the default order, never
the order the boxes were ticked in (an accident of paging and the scatter's picks).
``limit=`` keeps the first that many results of the view ("the top 10" is
``sort=-binding_confidence&limit=10``); without it an export holds the whole view.

``diverse=N`` keeps the view's picks: the best-ranked result of each of N families, in
that order, each with its ``family_size`` (``explore.diverse_answers``); the file's head
says so.

``ranked`` adds ``rank`` and ``label`` to each record (as its first keys, so the JSON
export carries them too) and stops after the limit.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from app import domain
from app.viewer.core import paging
from app.viewer.explore import labels
from app.viewer.explore.labels import RunLabels


def export_limit(args: Mapping[str, str]) -> int | None:
    """Return the view's ``limit`` when the query gives one (already validated), else None.

    On an export ``limit`` is not a page size: an absent one means the whole view.
    """
    raw = (args.get("limit") or "").strip()
    return paging.parse({"limit": raw}).limit if raw else None


def ranked(pages: Iterable[list[dict]], labels: RunLabels, limit: int | None = None
           ) -> Iterator[list[dict]]:
    """Yield ``pages`` with ``rank`` and ``label`` first in each record, up to ``limit``."""
    rank = 0
    for records in pages:
        if limit is not None:
            records = records[:max(limit - rank, 0)]
        out = []
        for record in records:
            rank += 1
            result_id = str(record.get("id") or "")
            out.append({"rank": rank, "label": labels.label(result_id) if result_id else "",
                        **{k: v for k, v in record.items() if k not in ("rank", "label")}})
        if out:
            yield out
        if limit is not None and rank >= limit:
            return


def describe(args: Mapping[str, str], kind: domain.Kind) -> dict:
    """Return what a file's head says of its order: the sort, the limit, rank and label."""
    sort, diverse = (args.get("sort") or "").strip(), (args.get("diverse") or "").strip()
    default = ",".join(f"-{key}" if desc else key for key, desc in labels.primary_sort(kind))
    return {
        "sort": sort or default,
        "sort_is_default": not sort,
        "limit": export_limit(args),
        "rank": "the 1-based position of the result in this export's order (best first)",
        "label": "the result's name in the viewer: #<rank in the run by "
                 f"{kind.primary_metric}> <shortest distinguishing end of its id>",
    } | ({"diverse": f"the best-ranked result of each of {diverse} families of the view; "
                     "family_size: the view's results in its family"} if diverse else {})
