"""``smarts=<SMARTS or SMILES>``: molecules that contain the substructure (RDKit, in a
budgeted child; a broad query is counted in the background: ``answers.substructure_rows``
raises ``Counting``, a 503 saying how far it got). Small molecules only."""

from __future__ import annotations

from app.viewer.chem import substructure
from app.viewer.core.errors import BadRequest
from app.viewer.results import answers
from app.viewer.results.selections import SMALL_MOLECULES, Selection, ViewContext


def _parse(args) -> dict:
    text = (args.get("smarts") or "").strip()
    if not text:
        return {"smarts": None}
    try:
        substructure.parse_query(text)
    except BadRequest as error:
        raise BadRequest(f"'smarts' {error.message}.") from None
    return {"smarts": text}


def _keep(view: ViewContext, query):
    return answers.substructure_rows(view.state, query.smarts)


SELECTION = Selection("substructure", ("smarts",), _parse, families=SMALL_MOLECULES,
                      keep=_keep, describe=lambda _key, value: f"Substructure {value}",
                      form_keys=("smarts",))
