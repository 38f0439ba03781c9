"""``scaffold=<SMILES>|acyclic``: molecules with that Bemis-Murcko scaffold; and
``group=scaffold``: the view's first molecule of each scaffold, in the view's order
(``chem_answers``). Small molecules only."""

from __future__ import annotations

from app.viewer.core.errors import BadRequest
from app.viewer.explore import chem_answers
from app.viewer.explore.query import text_arg
from app.viewer.explore.selections import SMALL_MOLECULES, Selection, ViewContext


def _keep(view: ViewContext, query):
    return chem_answers.scaffold_rows(view.state, view.frame, query.scaffold)


def _parse_group(args) -> dict:
    group = args.get("group") or None
    if group not in (None, "scaffold"):
        raise BadRequest("'group' is 'scaffold'.")
    return {"group": group}


def _pick(view: ViewContext, _query, rows):
    return chem_answers.groups(view.state, view.frame, rows)[0]


SCAFFOLD = Selection("scaffold", ("scaffold",),
                     lambda args: {"scaffold": text_arg(args, "scaffold")},
                     families=SMALL_MOLECULES, keep=_keep,
                     describe=lambda _key, value: f"Scaffold {value}")
GROUP = Selection("group", ("group",), _parse_group, families=SMALL_MOLECULES,
                  pick=_pick, narrows=False,
                  describe=lambda _key, _value: "One row per scaffold")
SELECTIONS = (SCAFFOLD, GROUP)
