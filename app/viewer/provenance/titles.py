"""Titles of runs and predictions: a kind's label and what was run on.

``run_title(record, kind)`` is a pipeline's title (its kind's label and its target, as
there is no name on the wire); ``prediction_title(record)`` a prediction's.
"""

from __future__ import annotations

from app import domain
from app.viewer.provenance.entities import (
    TARGET,
    EntityView,
    as_dict,
    as_list,
    prediction_entities,
    run_entities,
    text,
)
from app.viewer.provenance.facts import count_phrase


def _kind_label(kind) -> str:
    if isinstance(kind, domain.Kind):
        return kind.label
    if isinstance(kind, str) and kind:
        return domain.kind(kind).label
    return "Pipeline"


def target_phrase(entities: list[EntityView] | tuple[EntityView, ...]) -> str:
    """Say the target in a few words: "target B (protein, 129 residues)" or ""."""
    targets = [e for e in entities if e.side == TARGET]
    if not targets:
        return ""
    chains = [c for e in targets for c in e.chain_ids]
    where = f"chain{'s' if len(chains) != 1 else ''} {', '.join(chains)}" if chains else ""
    if len(targets) > 1:
        return f"target {where}" if where else f"{len(targets)} target entities"
    only = targets[0]
    what = "from the template" if only.type == "template_chain" else only.label.lower()
    if only.type == "ligand_ccd" and only.value:
        what = f"ligand {only.value}"
    detail = ", ".join(p for p in (what, only.length) if p)
    return " ".join(p for p in ("target", where, f"({detail})" if detail else "") if p)


def run_title(record, kind=None) -> str:
    """Return a pipeline's title: its kind's label and its target.

    "Protein design · target chain B (protein, 129 residues)"; the label alone when the
    input names no target. ``kind`` is a ``domain.Kind``, a kind key or None.
    """
    label = _kind_label(kind)
    phrase = target_phrase(run_entities(record))
    return f"{label} · {phrase}" if phrase else label


def prediction_title(record) -> str:
    """Return a prediction's title: its model's application and its chains."""
    record = as_dict(record)
    model = text(record.get("model"))
    label = {"boltz-2.1": domain.APPLICATIONS["structure_and_binding"],
             "adme-v1": domain.APPLICATIONS["adme"]}.get(model, "Prediction")
    entities = prediction_entities(record)
    chains = [c for e in entities for c in e.chain_ids]
    if chains:
        return f"{label} · chain{'s' if len(chains) != 1 else ''} {', '.join(chains)}"
    molecules = [m for m in as_list(as_dict(record.get("input")).get("molecules"))
                 if text(as_dict(m).get("smiles"))]
    if molecules:
        plural = "s" if len(molecules) != 1 else ""
        return f"{label} · {count_phrase(len(molecules))} molecule{plural}"
    return label
