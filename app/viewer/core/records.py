"""Result records as the viewer reads them: a value that cannot be read is blanked, and said.

Every record of a results page, wherever it is read (the table, a result page, the
exploration index's build, every export, the epitope scan), passes through ``readable``
first (``api_client.ComputeApi.results``; the index build's child process, which parses
its pages itself, calls ``readable_page``). The API's records are data, not trust: one
malformed record must cost that record's unreadable values, never the page, the index,
the scan or the export. The rule, field by field:

- ``id``: text matching ``paging.ID`` (the API's own id pattern), else the whole record
  is skipped: without an id it can be neither linked nor asked for again. Skipped
  records are counted in the page's ``UNREADABLE_RECORDS`` key and logged.
- ``metrics``: an object of names to finite numbers (or null: no value); a metric whose
  value is not one (text, ``true``, a number no float holds such as ``10^400``) is left
  out (a blank cell); metrics that are not an object are none.
- ``entities``: an array of objects whose ``value`` is text and whose ``chain_ids``, when
  given, is an array of text; any other entity is left out; entities that are not an
  array are none.
- ``warnings``: an array of objects with text ``code`` and ``message``; any other
  warning is left out; warnings that are not an array are none.
- ``adme``: an object whose ``lipophilicity`` and ``permeability`` are finite numbers and
  ``solubility`` text (each may be null); another value of those is left out; an
  ``adme`` that is not an object is none.
- ``smiles``, ``external_id``, ``created_at``, ``type``: text, else none;
  ``artifacts``: an object, else an empty one (no files).

A record that lost anything gets one more warning, ``domain.UNREADABLE_VALUES``, naming
the fields (``metrics.iptm``, ``adme.solubility``...), so the table, the result page, the
warning facet and every export say so. A record that needed nothing is returned as it came (no
copy: an index build reads a million).
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from app import domain
from app.viewer.core.paging import ID

log = logging.getLogger(__name__)

UNREADABLE_CODE = domain.UNREADABLE_VALUES
# The key of a results page (beside ``data``) counting the records skipped for their id.
UNREADABLE_RECORDS = "unreadable_records"
_LARGEST = sys.float_info.max
_TEXT_FIELDS = ("smiles", "external_id", "created_at", "type")


def is_number(value: Any) -> bool:
    """Tell whether ``value`` is a finite number a float holds (``bool`` is not one)."""
    if type(value) is float:
        return value - value == 0.0  # false for inf and nan
    return type(value) is int and -_LARGEST <= value <= _LARGEST


def _is_text_list(value: Any) -> bool:
    return type(value) is list and all(type(item) is str for item in value)


def _metrics(value: Any, lost: list[str]) -> dict:
    if type(value) is not dict:
        lost.append("metrics")
        return {}
    bad = [name for name, number in value.items()
           if number is not None and not is_number(number)]
    if not bad:
        return value
    lost.extend(f"metrics.{name}" for name in bad)
    return {name: number for name, number in value.items() if name not in bad}


def _entities(value: Any, lost: list[str]) -> list:
    if type(value) is not list:
        lost.append("entities")
        return []
    kept = [entity for entity in value if type(entity) is dict
            and type(entity.get("value")) is str
            and (entity.get("chain_ids") is None or _is_text_list(entity["chain_ids"]))]
    if len(kept) != len(value):
        lost.append("entities")
        return kept
    return value


def _warnings(value: Any, lost: list[str]) -> list:
    if type(value) is not list:
        lost.append("warnings")
        return []
    kept = [warning for warning in value if type(warning) is dict
            and type(warning.get("code")) is str and type(warning.get("message")) is str]
    if len(kept) != len(value):
        lost.append("warnings")
        return kept
    return value


def _adme(value: Any, lost: list[str]) -> dict | None:
    if type(value) is not dict:
        lost.append("adme")
        return None
    bad = [name for name in ("lipophilicity", "permeability")
           if value.get(name) is not None and not is_number(value[name])]
    if value.get("solubility") is not None and type(value["solubility"]) is not str:
        bad.append("solubility")
    if not bad:
        return value
    lost.extend(f"adme.{name}" for name in bad)
    return {name: item for name, item in value.items() if name not in bad}


# Field -> its reading; a reading that returns the value it was given changed nothing.
_READINGS = {"metrics": _metrics, "entities": _entities, "warnings": _warnings,
             "adme": _adme}


def readable(record: Any) -> dict | None:
    """Return ``record`` with its unreadable values blanked and a warning naming them, the
    record itself when it needed nothing, or None when it has no readable id."""
    if type(record) is not dict:
        return None
    record_id = record.get("id")
    if type(record_id) is not str or not ID.fullmatch(record_id):
        return None
    lost: list[str] = []
    fixed: dict[str, Any] = {}
    for name, reading in _READINGS.items():
        value = record.get(name)
        if value is not None:
            answer = reading(value, lost)
            if answer is not value:
                fixed[name] = answer
    for name in _TEXT_FIELDS:
        value = record.get(name)
        if value is not None and type(value) is not str:
            lost.append(name)
            fixed[name] = None
    if record.get("artifacts") is not None and type(record["artifacts"]) is not dict:
        lost.append("artifacts")
        fixed["artifacts"] = {}
    if not lost:
        return record
    note = {"code": UNREADABLE_CODE,
            "message": "Values that could not be read were left blank: "
                       + ", ".join(dict.fromkeys(lost))}
    warnings = fixed.get("warnings", record.get("warnings")) or []
    return {**record, **fixed, "warnings": [*warnings, note]}


def readable_records(records: Any) -> tuple[list[dict], int]:
    """Return the ``readable`` records of a page's ``data`` and how many were skipped for
    want of a readable id (logged)."""
    given = records if type(records) is list else []
    kept = [answer for answer in map(readable, given) if answer is not None]
    skipped = len(given) - len(kept)
    if skipped:
        log.warning("results page: %d records without a readable id skipped", skipped)
    return kept, skipped


def readable_page(page: Any) -> dict:
    """Return a results page with its records ``readable_records``: those without a
    readable id skipped and counted in ``UNREADABLE_RECORDS``."""
    if type(page) is not dict:
        page = {"has_more": False}
    kept, skipped = readable_records(page.get("data"))
    return {**page, "data": kept, UNREADABLE_RECORDS: skipped}
