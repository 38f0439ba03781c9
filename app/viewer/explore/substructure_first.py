"""The first rows of a view whose substructure query is still counted, confirmed in order.

While a broad query is counted in the background (``substructure_counting``), the results
page already shows its pages (``view_rows``): the view's rows whose molecule passed the
screen (``substructure_answers.screened``: a superset of the matches, the other filters
applied as ever), in the view's order, are confirmed one distinct molecule after the
other in the worker's ``substructure`` child (under ``SECONDS``), ``BATCH`` rows at a
time, until the page's rows are found. For a broad query most candidates match, so a page
of 50 costs about 50 confirmations (milliseconds). The rows found are exactly the view's
first matching rows (each row before them was confirmed not to match); their number is a
lower bound of the view's count, which comes with the whole answer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.viewer.explore import answers, substructure_answers, substructure_counting
from app.viewer.explore.index import frame
from app.viewer.explore.index.frame import Molecules
from app.viewer.explore.query import ExploreQuery
from app.viewer.explore.selections import substructure
from app.viewer.store.result_index import IndexState

BATCH = 256
SECONDS = 10.0


@dataclass(frozen=True)
class FirstRows:
    """The view's first matching rows (at most the number wanted), and whether rows after
    them were left unconfirmed."""

    rows: np.ndarray  # int64 frame rows, in the view's order
    more: bool


def view_rows(state: IndexState, query: ExploreQuery, wanted: int) -> FirstRows | None:
    """Return the view's first ``wanted`` rows while its substructure query is counted:
    its rows whose molecule passed the screen, in its order (the view's other selections,
    the screen's candidates standing for the substructure's answer), confirmed by
    ``first_rows``; None when the count has none to offer (not screened yet, or done:
    the whole answer is there)."""
    answers.check_keys(state, query)
    candidates = substructure_counting.candidates_of(substructure.smarts_key(state, query.smarts))
    molecules = answers.current_frame(state).molecules
    if candidates is None or molecules is None:
        return None
    screened = np.zeros(len(molecules.smiles), dtype=bool)
    screened[candidates] = True
    others = answers.selected(state, query.without("smarts"))
    rows = frame.order(answers.view_frame(state, query), query,
                       others & molecules.rows_matching(screened))
    return first_rows(molecules, query.smarts, rows, wanted)


def first_rows(molecules: Molecules, smarts: str, candidates: np.ndarray, wanted: int
               ) -> FirstRows:
    """Return the first ``wanted`` of ``candidates`` (frame rows in the view's order whose
    molecule passed the screen) that hold ``smarts``, each molecule confirmed once."""
    codes = molecules.codes[candidates]
    known: dict[int, bool] = {}
    found: list[int] = []
    position = 0
    while position < len(candidates) and len(found) < wanted:
        part = codes[position:position + BATCH].tolist()
        new = [code for code in dict.fromkeys(part) if code not in known]
        if new:
            known.update(zip(new, substructure_answers.confirm_each(
                molecules, smarts, np.array(new, dtype=np.int64), seconds=SECONDS),
                strict=True))
        for offset, code in enumerate(part):
            if known[code]:
                found.append(int(candidates[position + offset]))
                if len(found) == wanted:
                    part = part[:offset + 1]
                    break
        position += len(part)
    return FirstRows(np.array(found, dtype=np.int64), position < len(candidates))
