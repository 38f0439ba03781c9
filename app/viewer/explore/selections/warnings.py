"""``warnings=none|any`` (results without / with any API warning) and ``warning=<code>``
(results carrying one warning code), read from the frame's warning columns."""

from __future__ import annotations

import re

import numpy as np

from app.viewer.core.errors import BadRequest
from app.viewer.explore.selections import Selection, ViewContext

_CODE = re.compile(r"[a-z0-9_\-]{1,64}")


def _parse(args) -> dict:
    warnings, warning = args.get("warnings") or None, args.get("warning") or None
    if warnings not in (None, "none", "any"):
        raise BadRequest("'warnings' is 'none' or 'any'.")
    if warning is not None and not _CODE.fullmatch(warning):
        raise BadRequest("'warning' takes a warning code such as 'unpaired_cysteine'.")
    return {"warnings": warnings, "warning": warning}


def _keep(view: ViewContext, query) -> np.ndarray:
    data = view.frame
    keep = np.ones(data.size, dtype=bool)
    if query.warnings:
        count = data.numbers["warning_count"]
        keep &= (count == 0) if query.warnings == "none" else (count > 0)
    if query.warning:
        keep &= data.codes.get(query.warning, np.zeros(data.size, dtype=bool))
    return keep


def _facets(data, keep: np.ndarray) -> dict:
    codes = {code: int(np.count_nonzero(flags & keep)) for code, flags in data.codes.items()}
    clean = int(np.count_nonzero((data.numbers["warning_count"] == 0) & keep))
    return {"warning": {code: n for code, n in codes.items() if n},
            "warnings": {"none": clean, "any": int(np.count_nonzero(keep)) - clean}}


def _describe(key: str, value: str) -> str:
    if key == "warning":
        return f"Warning {value}"
    return "Without warnings" if value == "none" else "With warnings"


SELECTION = Selection("warnings", ("warnings", "warning"), _parse, keep=_keep,
                      facets=_facets, describe=_describe, form_keys=("warnings",))
