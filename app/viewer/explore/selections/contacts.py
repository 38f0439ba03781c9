"""``contacts=B:45,B:48`` (designs contacting every listed target residue) and
``contacts_any=`` (at least one), from the epitope scan's contacts (``epitope.answers``).
Their answer changes as the scan reads more designs: the scan's progress is part of the
view's cache key. Protein designs only."""

from __future__ import annotations

from app.viewer.epitope import answers as epitope_answers
from app.viewer.epitope import query_keys
from app.viewer.explore.selections import PROTEINS, Selection, ViewContext


def _keep(view: ViewContext, query):
    return epitope_answers.contact_rows(view.state.pipeline_id, view.frame.ids, query)


def _describe(key: str, value: str) -> str:
    listed = ", ".join(value.split(","))
    return f"Contacts {'all' if key == 'contacts' else 'any'} of {listed}"


SELECTION = Selection("contacts", query_keys.NAMES, query_keys.parse, families=PROTEINS,
                      keep=_keep, scope=lambda state: epitope_answers.progress_key(
                          state.pipeline_id), describe=_describe)
