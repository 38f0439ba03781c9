"""``warnings=none|any|other`` (results without / with any API warning / with a code the
index groups) and ``warning=<code>`` (results carrying one listed code), read from the
frame's warning flags (``index.warning_flags``: which codes a run lists, and the group
beyond them, ``MAX_LISTED``).

``warnings=other`` is a value of ``warnings``, not a code: it cannot be mistaken for a
code literally named ``other``, which ``warning=other`` selects as any other code.
``warning=<code>`` for a code the run does not list, in a run that groups codes, is a 400
naming the rule (the index cannot tell which results carry it).
"""

from __future__ import annotations

import re

import numpy as np

from app.viewer.core.errors import BadRequest
from app.viewer.explore.index.warning_flags import MAX_LISTED
from app.viewer.explore.selections import Selection, ViewContext

_CODE = re.compile(r"[a-z0-9_\-]{1,64}")
_STATES = ("none", "any", "other")


def _parse(args) -> dict:
    warnings, warning = args.get("warnings") or None, args.get("warning") or None
    if warnings is not None and warnings not in _STATES:
        raise BadRequest("'warnings' is 'none', 'any' or 'other'.")
    if warning is not None and not _CODE.fullmatch(warning):
        raise BadRequest("'warning' takes a warning code such as 'unpaired_cysteine'.")
    return {"warnings": warnings, "warning": warning}


def _keep(view: ViewContext, query) -> np.ndarray:
    data = view.frame
    keep = np.ones(data.size, dtype=bool)
    if query.warnings == "other":
        keep &= data.warning_flags.other_rows()
    elif query.warnings:
        count = data.numbers["warning_count"]
        keep &= (count == 0) if query.warnings == "none" else (count > 0)
    if query.warning:
        rows = data.warning_flags.rows_with(query.warning)
        if rows is None:
            flags = data.warning_flags
            raise BadRequest(
                f"'warning': this run's results carry {len(flags.listed) + flags.grouped:,}"
                f" distinct warning codes; the index lists the {MAX_LISTED} most common"
                f" apart and groups the rest (warnings=other). '{query.warning}' is not"
                " one of those listed.")
        keep &= rows
    return keep


def _facets(data, keep: np.ndarray) -> dict:
    codes, other = data.warning_flags.counts(keep)
    clean = int(np.count_nonzero((data.numbers["warning_count"] == 0) & keep))
    return {"warning": codes,
            "warnings": {"none": clean, "any": int(np.count_nonzero(keep)) - clean,
                         "other": other, "grouped_codes": data.warning_flags.grouped}}


def _describe(key: str, value: str) -> str:
    if key == "warning":
        return f"Warning {value}"
    return {"none": "Without warnings", "any": "With warnings",
            "other": "With a less common warning code"}[value]


SELECTION = Selection("warnings", ("warnings", "warning"), _parse, keep=_keep,
                      facets=_facets, describe=_describe, form_keys=("warnings",))
