"""``patch=B:82,B:83,B:86,B:87`` with ``patch_min=k``: designs that contact at least ``k``
residues of an epitope patch (all of them without ``patch_min``), from the epitope scan's
contacts (``epitope.answers``). ``contacts=`` is the patch with k = all, ``contacts_any=``
with k = 1; ``patch_min`` ranks the ground between. A design not read yet matches none.
Protein designs only."""

from __future__ import annotations

import numpy as np

from app.viewer.core.errors import BadRequest
from app.viewer.epitope import answers as epitope_answers
from app.viewer.epitope import query_keys
from app.viewer.explore.selections import PROTEINS, Selection, ViewContext


def _parse(args) -> dict:
    patch = query_keys.parse_residues("patch", args.get("patch"))
    raw = (args.get("patch_min") or "").strip()
    if not raw:
        return {"patch": patch, "patch_min": None}
    size = len(patch.split(",")) if patch else 0
    if not size:
        raise BadRequest("'patch_min' needs 'patch': the residues of the epitope patch.")
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= size:
        raise BadRequest(f"'patch_min' is a whole number of patch residues from 1 to {size}, "
                         f"not '{raw[:40]}'.")
    return {"patch": patch, "patch_min": int(raw)}


def _keep(view: ViewContext, query) -> np.ndarray:
    found = epitope_answers.contacts(view.state.pipeline_id).by_residue
    residues = query_keys.residues(query.patch)
    touched = np.zeros(view.frame.size, dtype=np.int32)
    for chain, number in residues:
        touched += np.isin(view.frame.ids, found.get(f"{chain}:{number}", ()))
    return touched >= (query.patch_min or len(residues))


def _describe(key: str, value) -> str:
    if key == "patch_min":
        return f"At least {value} patch residue{'s' if value != 1 else ''} contacted"
    return f"Epitope patch {', '.join(value.split(','))}"


SELECTION = Selection("patch", ("patch", "patch_min"), _parse, families=PROTEINS,
                      keep=_keep, scope=lambda state: epitope_answers.progress_key(
                          state.pipeline_id), describe=_describe)
