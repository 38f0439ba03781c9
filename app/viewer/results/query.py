"""The exploration query of a results table: whole-set sort, filters, search, plot axes.

The contract is ``../shared/DESIGN.md``, "Exploring results": ``sort=k1,-k2`` (``-`` is
descending; ties always by id), ``<k>__gte/__gt/__lte/__lt=<number>``, ``<k>__eq=<text>``,
``warnings=none|any``, ``warning=<code>``, ``q=<text>``, ``smarts=<SMARTS or SMILES>``
(small-molecule kinds: a substructure, ``chem.substructure``), ``alerts=none|any``
(small-molecule kinds: without / with a PAINS or Brenk alert, ``chem.alerts``; ``alert=<name>``
one alert, ``alert_family=pains|brenk`` one family), ``ids=``, ``limit=``,
``page=`` and the scatter axes ``x=``/``y=``. ``parse`` validates all of it before anything
is read: an unknown key or a malformed value raises ``core.errors.BadRequest`` with a
message naming it, which ``web.error_pages`` answers as a 400.

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
from dataclasses import dataclass

from werkzeug.datastructures import MultiDict

from app import domain
from app.viewer.chem import alert_names, substructure
from app.viewer.core import paging
from app.viewer.core.errors import BadRequest
from app.viewer.epitope import query_keys as epitope_keys
from app.viewer.proteins import query_keys as protein_keys
from app.viewer.results import diverse_key
from app.viewer.results.extra_metrics import is_key as is_metric_key
from app.viewer.results.fields import KEYS, is_numeric

OPERATORS = ("gte", "gt", "lte", "lt", "eq")
MAX_SORT_KEYS = 5
MAX_FILTERS = 30
MAX_TEXT = 200
_NUMBER = re.compile(r"-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?")
_WARNING_CODE = re.compile(r"[a-z0-9_\-]{1,64}")
MAX_PAGE = 100_000
MAX_SIMILAR_TO = 2000  # a pasted SMILES: the depictions' limit


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
    warnings: str | None = None  # "none" | "any"
    warning: str | None = None
    q: str | None = None
    smarts: str | None = None
    alerts: str | None = None  # "none" | "any": PAINS or Brenk alerts (chem.alerts)
    alert: str | None = None  # one alert by its catalog name (chem.alerts)
    alert_family: str | None = None  # "pains" | "brenk": narrows alerts= and the badges
    scaffold: str | None = None  # a Bemis-Murcko scaffold SMILES or "acyclic" (chem.scaffolds)
    similar_to: str | None = None  # a SMILES or a result id (chem.similarity)
    group: str | None = None  # "scaffold": the first row of each scaffold in the view's order
    liabilities: str | None = None  # "none" | "any": sequence liabilities (proteins)
    liability: str | None = None  # one of proteins.liabilities.LIABILITIES
    diverse: int | None = None  # N: the best-ranked row of N families (diverse_key)
    contacts: str | None = None  # "B:45,B:48": contacting all of them (epitope.query_keys)
    contacts_any: str | None = None  # contacting any of them
    ids: tuple[str, ...] = ()
    limit: int = paging.DEFAULT_PAGE_SIZE
    page: int = 1
    x: str | None = None
    y: str | None = None

    @property
    def is_plain(self) -> bool:
        """Whether the API can answer it alone: no sort, filter or search (``ids`` is fine)."""
        if (self.liabilities or self.liability or self.diverse or self.contacts
                or self.contacts_any):
            return False
        return not (self.sort or self.filters or self.warnings or self.warning or self.q
                    or self.smarts or self.alerts or self.scaffold or self.similar_to
                    or self.group or self.alert or self.alert_family)

    @property
    def has_selection(self) -> bool:
        """Whether it narrows the set (anything but sort and paging)."""
        if (self.liabilities or self.liability or self.diverse or self.contacts
                or self.contacts_any):
            return True
        return bool(self.filters or self.warnings or self.warning or self.q or self.smarts
                    or self.alerts or self.ids or self.scaffold or self.alert
                    or self.alert_family)

    def selection_key(self) -> tuple:
        """Return what decides the matching set (not its order): a cache key."""
        mine = (self.liabilities, self.liability, self.diverse, self.contacts,
                self.contacts_any)  # liabilities, diverse=, epitope keys
        return (*mine, self.filters, self.warnings, self.warning, (self.q or "").lower(),
                self.smarts, self.alerts, self.ids, self.scaffold, self.similar_to,
                self.alert, self.alert_family)

    def args(self, *, page: int | None = None, sort: str | None = None) -> dict:
        """Return the query string values of this view (for links that keep it).

        ``page`` and ``sort`` override this view's page and sort (``sort=""`` drops it).
        """
        out: dict = {}
        sort_text = self.sort_text() if sort is None else sort
        if sort_text:
            out["sort"] = sort_text
        for item in self.filters:
            out[f"{item.key}__{item.op}"] = _value_text(item.value)
        for name in ("warnings", "warning", "q", "smarts", "alerts", "scaffold", "similar_to",
                     "group", "alert", "alert_family"):
            if getattr(self, name):
                out[name] = getattr(self, name)
        for name in (*protein_keys.NAMES, diverse_key.NAME, *epitope_keys.NAMES):
            if getattr(self, name):
                out[name] = getattr(self, name)
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
                return _value_text(item.value)
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


def _value_text(value: float | str) -> str:
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


def _text(args: MultiDict, name: str) -> str | None:
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


def _smarts(args: MultiDict) -> str | None:
    text = (args.get("smarts") or "").strip()
    if not text:
        return None
    try:
        substructure.parse_query(text)
    except BadRequest as error:
        raise BadRequest(f"'smarts' {error.message}.") from None
    return text


def _similarity(args: MultiDict, filters: tuple[Filter, ...], sort: tuple) -> str | None:
    """Return ``similar_to`` (checked as text here; as a SMILES or id by ``answers``)."""
    text = (args.get("similar_to") or "").strip()
    if len(text) > MAX_SIMILAR_TO:
        raise BadRequest(f"'similar_to' is longer than {MAX_SIMILAR_TO} characters.")
    uses = any(f.key == "similarity" for f in filters) or any(k == "similarity"
                                                              for k, _ in sort)
    if uses and not text:
        raise BadRequest("'similarity' needs 'similar_to': a SMILES or a result id to "
                         "compare with.")
    return text or None


def check_kind(query: ExploreQuery, kind: domain.Kind) -> None:
    """Refuse what the pipeline's kind cannot answer: ``smarts`` on protein results."""
    protein_keys.check_family(query, kind.family)
    epitope_keys.check_family(query, kind.family)
    if query.smarts and kind.family != "small_molecule":
        raise BadRequest("'smarts' filters small molecules, and this pipeline's results "
                         "are proteins.")
    chem_alerts = query.alerts or query.alert or query.alert_family
    if chem_alerts and kind.family != "small_molecule":
        raise BadRequest("'alerts' filters small molecules, and this pipeline's results "
                         "are proteins.")
    for name in ("scaffold", "similar_to", "group"):
        if getattr(query, name) and kind.family != "small_molecule":
            raise BadRequest(f"'{name}' is for small molecules, and this pipeline's "
                             "results are proteins.")


def _page(args: MultiDict) -> int:
    raw = args.get("page") or "1"
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= MAX_PAGE:
        raise BadRequest("The page must be a whole number from 1.")
    return int(raw)


def parse(args: MultiDict) -> ExploreQuery:
    """Validate a results table's query string (raises ``BadRequest`` naming the fault)."""
    base = paging.parse(args)  # limit, cursors and ids, validated by core.paging
    warnings = args.get("warnings") or None
    if warnings not in (None, "none", "any"):
        raise BadRequest("'warnings' is 'none' or 'any'.")
    alerts = args.get("alerts") or None
    if alerts not in (None, "none", "any"):
        raise BadRequest("'alerts' is 'none' or 'any'.")
    group = args.get("group") or None
    if group not in (None, "scaffold"):
        raise BadRequest("'group' is 'scaffold'.")
    warning = args.get("warning") or None
    if warning is not None and not _WARNING_CODE.fullmatch(warning):
        raise BadRequest("'warning' takes a warning code such as 'unpaired_cysteine'.")
    sort, filters = parse_sort(args.get("sort", "")), parse_filters(args)
    return ExploreQuery(
        sort=sort, filters=filters,
        warnings=warnings, warning=warning, q=_text(args, "q"), smarts=_smarts(args),
        alerts=alerts, scaffold=_text(args, "scaffold"),
        alert=alert_names.parse_name(args.get("alert")),
        alert_family=alert_names.parse_family(args.get("alert_family")),
        similar_to=_similarity(args, filters, sort), group=group,
        ids=base.ids, **protein_keys.parse(args), diverse=diverse_key.parse(args),
        **epitope_keys.parse(args),
        limit=base.limit, page=_page(args), x=_axis(args, "x"), y=_axis(args, "y"),
    )

