"""``diverse=N``: the best-ranked design of each of N families of the view, in the view's
order (``diverse_key`` validates it, ``diverse_answers`` clusters, ``picks`` caches)."""

from __future__ import annotations

from app.viewer.explore import answers, diverse_answers, diverse_key
from app.viewer.explore.selections import Selection, ViewContext


def picks(state, query) -> diverse_answers.Picks:
    """Return the picks of ``diverse=N``: the best row of each of N families of the view."""
    return answers.cached(state, query, f"diverse:{query.sort_text()}",
                          lambda: diverse_answers.picks(state, answers.current_frame(state),
                                                        answers.ordered_rows(state, query),
                                                        query.diverse))


def _pick(view: ViewContext, query, _rows):
    return picks(view.state, query).rows


def _describe(_key: str, value: int) -> str:
    return f"Top {value} famil{'y' if value == 1 else 'ies'}"


def _family_sizes(state, query, ids: list[str]) -> dict[str, dict]:
    sizes = picks(state, query).sizes
    return {"family_size": {i: sizes.get(i.encode()) for i in ids}}


SELECTION = Selection("diverse", (diverse_key.NAME,),
                      lambda args: {diverse_key.NAME: diverse_key.parse(args)},
                      pick=_pick, describe=_describe, export_columns=("family_size",),
                      export=_family_sizes)
