"""``liabilities=none|any`` (designs without / with a sequence liability) and
``liability=<name>`` (designs with that liability), read from the frame's liability
columns (``proteins.columns``). A result without a designed chain matches neither.
Protein designs only."""

from __future__ import annotations

import numpy as np

from app.viewer.explore.selections import PROTEINS, Selection, ViewContext
from app.viewer.proteins import liabilities, query_keys
from app.viewer.proteins.columns import LIABILITY_COLUMNS


def _keep(view: ViewContext, query) -> np.ndarray:
    numbers = view.frame.numbers
    keep = np.ones(view.frame.size, dtype=bool)
    if query.liabilities:  # NaN (no designed chain) is neither none nor any
        count = numbers["liability_count"]
        keep &= (count == 0) if query.liabilities == "none" else (count > 0)
    if query.liability:
        keep &= numbers[LIABILITY_COLUMNS[query.liability]] > 0
    return keep


def _facets(data, keep: np.ndarray) -> dict:
    count = data.numbers["liability_count"]
    if np.isnan(count).all():  # not protein designs
        return {}
    return {"liability": {name: int(np.count_nonzero((data.numbers[column] > 0) & keep))
                          for name, column in LIABILITY_COLUMNS.items()},
            "liabilities": {"none": int(np.count_nonzero((count == 0) & keep)),
                            "any": int(np.count_nonzero((count > 0) & keep))}}


def _describe(key: str, value: str) -> str:
    if key == "liability":
        return f"Liability: {liabilities.LABELS.get(value, value)}"
    return "Without sequence liabilities" if value == "none" else "With sequence liabilities"


SELECTION = Selection("liabilities", query_keys.NAMES, query_keys.parse, families=PROTEINS,
                      keep=_keep, facets=_facets, describe=_describe)
