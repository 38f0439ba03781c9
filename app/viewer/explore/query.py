"""The exploration query of a results table: whole-set sort, filters, selections, axes.

The contract is ``../shared/DESIGN.md``, "Exploring results": ``sort=k1,-k2`` (``-`` is
descending; ties always by id), ``<k>__gte/__gt/__lte/__lt=<number>``, ``<k>__eq=<text>``,
``ids=``, ``limit=``, ``page=``, the scatter axes ``x=``/``y=``, and the keys of the
registered selections (``explore.selections``: ``warnings=``, ``q=``, ``smarts=``,
``contacts=``, ...), each parsed by its own selection. ``parse`` validates all of it before
anything is read: an unknown filter key or a malformed value raises
``core.errors.BadRequest`` with a message naming it, which the error pages answer as a 400.

Keys are those of ``fields.FIELDS``: the spec's metric names, the ADME values, ``id``,
``created_at``, ``length``, ``variant``, ``external_id`` and the computed chemistry; and
any key that may name a metric found in the records (``extra_metrics.is_key``, e.g.
``foo_score``), a number. Whether the pipeline has that metric is known only from its
index: ``check_keys`` refuses the keys it lacks once the index is ready. A
query with none of sort, filters, search (``is_plain``) is served straight from the API.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection
from dataclasses import dataclass, replace

from werkzeug.datastructures import MultiDict

from app import domain
from app.viewer.core import paging
from app.viewer.core.errors import BadRequest
from app.viewer.explore.extra_metrics import is_key as is_metric_key
from app.viewer.explore.fields import KEYS, is_numeric
from app.viewer.explore.selections import REGISTRY, Selection

OPERATORS = ("gte", "gt", "lte", "lt", "eq")
MAX_SORT_KEYS = 5
MAX_FILTERS = 30
MAX_TEXT = 200
_NUMBER = re.compile(r"-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?")
MAX_PAGE = 100_000


@dataclass(frozen=True)
class Filter:
    """One condition: ``key`` ``op`` ``value`` (a float for the numeric operators)."""

    key: str
    op: str
    value: float | str


@dataclass(frozen=True)
class ExploreQuery:
    """A validated exploration query (see the module docstring)."""

    sort: tuple[tuple[str, bool], ...] = ()  # (key, descending)
    filters: tuple[Filter, ...] = ()
    # The registered selections' keys in force, (key, value) in registry order
    # (``selections``): ``query.<key>`` reads one (None when not given).
    selected: tuple[tuple[str, object], ...] = ()
    ids: tuple[str, ...] = ()
    limit: int = paging.DEFAULT_PAGE_SIZE
    page: int = 1
    x: str | None = None
    y: str | None = None

    def __getattr__(self, name: str):
        # Only for names that are not fields: a registered key not in force reads None.
        if name in REGISTRY.keys:
            return dict(self.selected).get(name)
        raise AttributeError(name)

    def value(self, key: str):
        """Return the value of the registered query key ``key`` (None when not given)."""
        return dict(self.selected).get(key)

    def in_force(self) -> list[Selection]:
        """Return the selections with a key in this query, in registry order."""
        return REGISTRY.in_force(self.selected)

    def without(self, *keys: str) -> ExploreQuery:
        """Return this query without the registered keys ``keys``."""
        return replace(self, selected=tuple((k, v) for k, v in self.selected
                                            if k not in keys))

    @property
    def is_plain(self) -> bool:
        """Whether the API can answer it alone: no sort, filter or search (``ids`` is fine)."""
        return not (self.sort or self.filters or self.selected)

    @property
    def has_selection(self) -> bool:
        """Whether it narrows the set (anything but sort, paging and keys that only add
        a column or pick rows of the view, such as ``similar_to`` and ``group``)."""
        return bool(self.filters or self.ids
                    or any(s.narrows for s in self.in_force()))

    def selection_key(self) -> tuple:
        """Return what decides the matching set (not its order): a cache key."""
        chosen = tuple((key, REGISTRY.owner(key).cache_value(key, value))
                       for key, value in self.selected)
        return (chosen, self.filters, self.ids)

    def args(self, *, page: int | None = None, sort: str | None = None) -> dict:
        """Return the query string values of this view (for links that keep it).

        ``page`` and ``sort`` override this view's page and sort (``sort=""`` drops it).
        """
        out: dict = {}
        sort_text = self.sort_text() if sort is None else sort
        if sort_text:
            out["sort"] = sort_text
        for item in self.filters:
            out[f"{item.key}__{item.op}"] = value_text(item.value)
        for key, value in self.selected:
            out[key] = value
        if self.ids:
            out["ids"] = ",".join(self.ids)
        if self.limit != paging.DEFAULT_PAGE_SIZE:
            out["limit"] = self.limit
        chosen_page = self.page if page is None else page
        if chosen_page > 1:
            out["page"] = chosen_page
        for name in ("x", "y"):
            if getattr(self, name):
                out[name] = getattr(self, name)
        return out

    def value_of(self, key: str, op: str) -> str:
        """Return the text of the filter ``key__op`` of this view ("" if none)."""
        for item in self.filters:
            if item.key == key and item.op == op:
                return value_text(item.value)
        return ""

    def sort_text(self) -> str:
        """Return the ``sort`` parameter of this view ("" when unsorted)."""
        return ",".join(f"-{key}" if desc else key for key, desc in self.sort)

    def sort_direction(self, key: str) -> str | None:
        """Return "descending"/"ascending" if ``key`` is this view's first sort key."""
        if self.sort and self.sort[0][0] == key:
            return "descending" if self.sort[0][1] else "ascending"
        return None

    def toggled_sort(self, key: str, descending_first: bool) -> str:
        """Return the ``sort`` value of a header link: this key first, flipped if it was."""
        direction = self.sort_direction(key)
        desc = descending_first if direction is None else direction == "ascending"
        return f"-{key}" if desc else key


def value_text(value: float | str) -> str:
    """Return a filter value as a link writes it (whole numbers without ".0")."""
    if isinstance(value, float):
        return repr(int(value)) if value.is_integer() else repr(value)
    return value


def _unknown(name: str, what: str) -> BadRequest:
    return BadRequest(f"Unknown {what} key '{name[:64]}'. Known keys: "
                      f"{', '.join(sorted(KEYS))}, and the metrics the results carry.")


def _key(name: str, what: str) -> str:
    if name not in KEYS and not is_metric_key(name):
        raise _unknown(name, what)
    return name


def text_arg(args: MultiDict, name: str) -> str | None:
    """Return the stripped text of ``name`` (None when empty); a 400 when too long."""
    value = (args.get(name) or "").strip()
    if len(value) > MAX_TEXT:
        raise BadRequest(f"'{name}' is longer than {MAX_TEXT} characters.")
    return value or None


def parse_sort(text: str) -> tuple[tuple[str, bool], ...]:
    """Parse ``k1,-k2`` into ``((k1, False), (k2, True))``; repeated keys are refused."""
    keys: list[tuple[str, bool]] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        desc = part.startswith("-")
        name = _key(part.lstrip("-+"), "sort")
        if any(name == k for k, _ in keys):
            raise BadRequest(f"Sort key '{name}' is given twice.")
        keys.append((name, desc))
    if len(keys) > MAX_SORT_KEYS:
        raise BadRequest(f"Sort by at most {MAX_SORT_KEYS} keys.")
    return tuple(keys)


def _number(name: str, raw: str) -> float:
    text = raw.strip()
    if not _NUMBER.fullmatch(text) or not math.isfinite(float(text)):
        raise BadRequest(f"'{name}' needs a number, not '{raw[:40]}'.")
    return float(text)


def parse_filters(args: MultiDict) -> tuple[Filter, ...]:
    """Return the ``<key>__<op>`` conditions of ``args`` in a stable order."""
    found: list[Filter] = []
    for name in sorted(set(args.keys())):
        if "__" not in name:
            continue
        key, _, op = name.rpartition("__")
        if op not in OPERATORS:
            raise BadRequest(f"Unknown filter '{name[:64]}': use __gte, __gt, __lte, "
                             "__lt or __eq.")
        _key(key, "filter")
        raw = args.get(name, "")
        if raw.strip() == "":
            continue  # an empty box of the filter form: no condition
        if op == "eq":
            value: float | str = _number(name, raw) if is_numeric(key) else raw.strip()
        elif not is_numeric(key):
            raise BadRequest(f"'{key}' is not a number: filter it with {key}__eq.")
        else:
            value = _number(name, raw)
        found.append(Filter(key, op, value))
    if len(found) > MAX_FILTERS:
        raise BadRequest(f"Use at most {MAX_FILTERS} filters.")
    return tuple(found)


def _axis(args: MultiDict, name: str) -> str | None:
    value = args.get(name) or None
    if value is not None and not is_numeric(value):
        raise _bad_axis(name, value)
    return value


def _bad_axis(name: str, value: str) -> BadRequest:
    return BadRequest(f"The plot axis '{name}' must be a numeric key, not '{value[:64]}'.")


def check_keys(query: ExploreQuery, numbers: Collection[str]) -> None:
    """Refuse keys of metrics the pipeline's results do not have (``BadRequest``).

    ``numbers`` are the number columns of the pipeline's index (its frame), which hold
    every metric found in its records; the table's other keys are always fine.
    """
    for key, _desc in query.sort:
        if key not in KEYS and key not in numbers:
            raise _unknown(key, "sort")
    for item in query.filters:
        if item.key not in KEYS and item.key not in numbers:
            raise _unknown(item.key, "filter")
    for name in ("x", "y"):
        value = getattr(query, name)
        if value is not None and value not in numbers:
            raise _bad_axis(name, value)


def check_kind(query: ExploreQuery, kind: domain.Kind) -> None:
    """Refuse the keys of selections that do not apply to the pipeline's kind."""
    for selection in query.in_force():
        if not selection.applies_to(kind.family):
            key = next(key for key, _ in query.selected if key in selection.keys)
            raise BadRequest(selection.wrong_family(key, kind.family))


def _page(args: MultiDict) -> int:
    raw = args.get("page") or "1"
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= MAX_PAGE:
        raise BadRequest("The page must be a whole number from 1.")
    return int(raw)


def parse(args: MultiDict) -> ExploreQuery:
    """Validate a results table's query string (raises ``BadRequest`` naming the fault)."""
    base = paging.parse(args)  # limit, cursors and ids, validated by core.paging
    selected = tuple((key, value) for selection in REGISTRY
                     for key, value in selection.parse(args).items() if value is not None)
    query = ExploreQuery(
        sort=parse_sort(args.get("sort", "")), filters=parse_filters(args),
        selected=selected, ids=base.ids,
        limit=base.limit, page=_page(args), x=_axis(args, "x"), y=_axis(args, "y"),
    )
    for selection in REGISTRY:  # checks across keys, whichever keys are given
        if selection.validate is not None:
            selection.validate(query)
    return query
