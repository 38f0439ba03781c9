"""What ``explore.json`` answers, declared: the index's progress, or the view's answers.

``static/js/index_progress.js`` reads a ``Building`` answer (how far the index is), or a
``Counting`` one (how far a broad substructure query's count is), until one says
``"state": "ready"``; ``static/js/plots.js`` draws a ``Ready`` answer's
histograms and scatter points. The results page reads the same ``Facets`` and
``Histogram`` objects (``answers.Summary``) from the panel.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel
from typing_extensions import TypedDict  # pydantic's choice before Python 3.12

# Bins and points are typed dicts, not models: a scatter has up to 5,000 points, and
# validating that many plain dicts costs a tenth of making that many model instances.


class Bin(TypedDict):
    """One bar of a histogram: the values from ``x0`` to ``x1`` and how many there are."""

    x0: float
    x1: float
    count: int


class Histogram(BaseModel):
    """The distribution of one numeric key over the matching results."""

    key: str
    label: str
    unit: str
    bins: list[Bin]
    missing: int  # matching results without a value


class Point(TypedDict):
    """One result on the scatter, with its label (``labels``: ``#<rank> <tail>``)."""

    id: str
    label: str
    x: float
    y: float


class Points(BaseModel):
    """The scatter: its axes and the matching results with both values (past ``limit``, an
    even sample of ``limit`` of them along the view's order: ``answers.points``)."""

    x: str
    y: str
    x_label: str
    y_label: str
    data: list[Point]
    truncated: bool  # more results have both values than ``limit`` (data is a sample)
    limit: int


class WarningCounts(BaseModel):
    """Matching results without a warning, with at least one, and with a code the index
    groups (``warnings=other``); and how many distinct codes of the run it groups
    (``index.warning_flags``: beyond the ``MAX_LISTED`` listed ones)."""

    none: int
    any: int
    other: int = 0
    grouped_codes: int = 0


class Facets(BaseModel):
    """Counts of the matching results per variant, solubility class, warning code and alert."""

    variant: dict[str, int]
    solubility: dict[str, int]
    # Only the run's listed codes some matching result has (``index.warning_flags``).
    warning: dict[str, int]
    warnings: WarningCounts
    # Structural alerts (small molecules, ``explore.alert_answers``): matching results per
    # alert name and per family; ``alerts`` holds none / any / unknown. Empty while the
    # molecules of a large set are not all checked yet.
    alert: dict[str, int] = {}
    alert_family: dict[str, int] = {}
    alerts: dict[str, int] = {}
    # Protein kinds: results with each sequence liability; without / with any (else {}).
    liability: dict[str, int] = {}
    liabilities: dict[str, int] = {}


class Building(BaseModel):
    """The index is not ready yet: how many results it holds of how many."""

    state: Literal["building"] = "building"
    indexed: int
    total: int


class Counting(BaseModel):
    """The view's substructure query is still counted (``substructure_counting``): how
    many candidate molecules are checked of how many, and how many of those match. No
    count of the view yet: it comes with the whole answer."""

    state: Literal["counting"] = "counting"
    indexed: int
    total: int
    checked: int
    candidates: int
    matched_so_far: int  # candidate molecules checked that hold the query (a lower bound)


class Ready(BaseModel):
    """The view's answers over the whole set: matches, facets, histograms, scatter."""

    state: Literal["ready"] = "ready"
    indexed: int
    total: int
    matched: int
    facets: Facets
    histograms: list[Histogram]
    points: Points
