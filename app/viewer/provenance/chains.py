"""Which chains a run's input designs and which it keeps fixed, by chain id.

``chain_parts(record)`` reads a pipeline run record's ``input`` (or a prediction's
``input.entities`` and ``binding``) and returns ``{chain id: part}``, a part being one of
``PARTS``. Chains the input does not name are absent: the caller decides (a result's
screened protein, a small molecule's ligand chain). An absent or unknown input gives {}.
"""

from __future__ import annotations

from app.viewer.provenance.entities import (
    BINDER,
    TARGET,
    as_dict,
    prediction_entities,
    run_entities,
)

BINDER_PART = "binder"  # designed (or, in a prediction, declared the binder) with a target
DESIGNED_PART = "designed"  # designed, and the input names no target
TARGET_PART = "target"
FIXED_PART = "fixed"  # a polymer the input gives and keeps as it is, not the target
LIGAND_PART = "ligand"
PARTS = (BINDER_PART, DESIGNED_PART, TARGET_PART, FIXED_PART, LIGAND_PART)
LABELS = {
    BINDER_PART: "Binder (designed)",
    DESIGNED_PART: "Designed",
    TARGET_PART: "Target (fixed)",
    FIXED_PART: "Fixed",
    LIGAND_PART: "Ligand (fixed)",
}


def is_prediction(record) -> bool:
    """Return whether ``record`` is a prediction record (it names a ``model``)."""
    return "model" in as_dict(record) and "pipeline" not in as_dict(record)


def chain_parts(record, prediction: bool | None = None) -> dict[str, str]:
    """Return {chain id: part} from a run's or prediction's ``input`` ({} when unknown).

    ``prediction`` says which the record is; None tells from the record (``model``).
    """
    record = as_dict(record)
    if is_prediction(record) if prediction is None else prediction:
        out = {}
        for view in prediction_entities(record):
            for chain in view.chain_ids:
                if view.side == BINDER:
                    out[chain] = BINDER_PART
                elif view.is_ligand:
                    out[chain] = LIGAND_PART
                else:
                    out[chain] = TARGET_PART if view.side == TARGET else FIXED_PART
        return out
    views = run_entities(record)
    has_target = any(v.side == TARGET and not v.is_ligand for v in views)
    out = {}
    for view in views:
        for chain in view.chain_ids:
            if view.designed:
                out[chain] = BINDER_PART if has_target else DESIGNED_PART
            elif view.is_ligand:
                out[chain] = LIGAND_PART
            elif view.side == TARGET:
                out[chain] = TARGET_PART
            else:
                out[chain] = FIXED_PART
    return out


def part_label(part: str | None) -> str:
    """Return a part as people read it ("Binder (designed)", "Target (fixed)"), or ""."""
    return LABELS.get(part or "", "")
