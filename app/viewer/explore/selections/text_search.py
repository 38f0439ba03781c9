"""``q=<text>``: results whose id, external id, sequence or SMILES contains the text
(case-insensitive), found by the store's search so long sequences stay out of memory."""

from __future__ import annotations

import numpy as np

from app.viewer.explore.query import text_arg
from app.viewer.explore.selections import Selection, ViewContext
from app.viewer.store import get_engine
from app.viewer.store import index_queries as queries


def _keep(view: ViewContext, query) -> np.ndarray:
    with get_engine().connect() as conn:
        found = queries.search_ids(conn, view.state.pipeline_id, query.q)
    return np.isin(view.frame.ids, np.array([i.encode() for i in sorted(found)], dtype="S"))


SELECTION = Selection(
    "text_search", ("q",), lambda args: {"q": text_arg(args, "q")}, keep=_keep,
    describe=lambda _key, value: f"Search “{value}”", form_keys=("q",),
    cache_value=lambda _key, value: value.lower())
