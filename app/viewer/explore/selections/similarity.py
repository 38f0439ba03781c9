"""``similar_to=<SMILES or result id>``: adds the view's ``similarity`` column (Tanimoto on
Morgan fingerprints, ``chem_answers``), which ``similarity__gte=`` filters and ``sort=``
orders. It narrows nothing by itself. Small molecules only."""

from __future__ import annotations

import numpy as np

from app.viewer.core.errors import BadRequest
from app.viewer.explore import answers, chem_answers
from app.viewer.explore.selections import SMALL_MOLECULES, Selection

MAX_SIMILAR_TO = 2000  # a pasted SMILES: the depictions' limit


def _parse(args) -> dict:
    text = (args.get("similar_to") or "").strip()
    if len(text) > MAX_SIMILAR_TO:
        raise BadRequest(f"'similar_to' is longer than {MAX_SIMILAR_TO} characters.")
    return {"similar_to": text or None}


def uses_similarity(query) -> bool:
    """Whether the query filters or sorts by the ``similarity`` column."""
    return (any(f.key == "similarity" for f in query.filters)
            or any(key == "similarity" for key, _ in query.sort))


def _validate(query) -> None:
    if uses_similarity(query) and not query.similar_to:
        raise BadRequest("'similarity' needs 'similar_to': a SMILES or a result id to "
                         "compare with.")


def similarities(state, query, ids: list[str]) -> dict:
    """Return the similarity to ``query.similar_to`` of each of ``ids`` that has one."""
    data = answers.view_frame(state, query)
    rows = np.flatnonzero(np.isin(data.ids, np.array([i.encode() for i in ids], dtype="S")))
    values = data.numbers["similarity"][rows]
    return {i: float(v) for i, v in zip(data.id_list(rows), values, strict=True)
            if not np.isnan(v)}


def _extend(state, data, query):
    return chem_answers.with_similarity(state, data, query.similar_to)


SELECTION = Selection("similarity", ("similar_to",), _parse, families=SMALL_MOLECULES,
                      extend=_extend, columns=("similarity",), narrows=False, validate=_validate,
                      describe=lambda _key, value: f"Similar to {value}",
                      form_keys=("similar_to", "similarity__gte"),
                      export_columns=("similarity",),
                      export=lambda state, query, ids: {
                          "similarity": similarities(state, query, ids)})
