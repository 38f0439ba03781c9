"""``smarts=<SMARTS or SMILES>``: molecules that contain the substructure (RDKit, in a
budgeted child; a broad query is counted in the background: ``rows`` raises ``Counting``,
a 503 saying how far it got). Small molecules only."""

from __future__ import annotations

import numpy as np

from app.viewer.chem import substructure
from app.viewer.core.errors import BadRequest
from app.viewer.explore import answers, substructure_counting
from app.viewer.explore.selections import SMALL_MOLECULES, Selection, ViewContext
from app.viewer.runtime import work_gate
from app.viewer.store.result_index import IndexState


def _parse(args) -> dict:
    text = (args.get("smarts") or "").strip()
    if not text:
        return {"smarts": None}
    try:
        substructure.parse_query(text)
    except BadRequest as error:
        raise BadRequest(f"'smarts' {error.message}.") from None
    return {"smarts": text}


def smarts_key(state: IndexState, smarts: str) -> tuple:
    """Return the key of ``smarts``'s answer (and count) for the index's version."""
    return (state.pipeline_id, state.generation, state.version, "smarts", smarts)


def rows(state: IndexState, smarts: str) -> np.ndarray:
    """Return which rows' molecule holds ``smarts`` (screened, then RDKit once per
    candidate distinct molecule: ``substructure_answers``), or raise
    ``substructure_counting.Counting`` (a 503 saying how far it got) while a broad query
    is still counted in the background.

    Cached per index version and query, apart from the other filters: changing a number
    filter of a substructure view matches nothing again.
    """
    def compute() -> np.ndarray:
        data = answers.current_frame(state)
        molecules = data.molecules
        if molecules is None or not molecules.smiles:
            return np.zeros(data.size, dtype=bool)
        substructure.parse_query(smarts)  # a bad query is the visitor's 400, here
        # A new query over every molecule is expensive work: admitted or Busy (a 503);
        # waiting for its count (a thread's: substructure_counting) holds the request.
        release = work_gate.enter("substructure")
        try:
            found = substructure_counting.answer(smarts_key(state, smarts), molecules,
                                                 smarts)
        finally:
            release()
        return molecules.rows_matching(found)

    return answers.remember(smarts_key(state, smarts), compute)


def _keep(view: ViewContext, query):
    return rows(view.state, query.smarts)


SELECTION = Selection("substructure", ("smarts",), _parse, families=SMALL_MOLECULES,
                      keep=_keep, describe=lambda _key, value: f"Substructure {value}",
                      form_keys=("smarts",))
