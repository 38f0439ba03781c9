"""Which chain of a result or prediction is the binder and which the target.

Read from the records, by auth chain id (``entities[].chain_ids``):

- protein kinds: the first protein entity is the designed protein ("Binder" when the
  result has a target, i.e. another protein entity, else "Designed protein"); the other
  proteins are "Target"; ligand entities (a glycan) are "Ligand";
- small-molecule kinds (no entities in the record): polymer chains are the "Target" and
  the ligand is the designed or screened molecule ("Binder");
- structure_and_binding predictions: ``inputs.binding.binder_chain_id`` is the "Binder",
  the other entities are "Target".
"""

from __future__ import annotations


def result_roles(record: dict) -> dict[str, str]:
    """Return {auth chain id: role} for a pipeline result."""
    entities = record.get("entities") or []
    if not entities:
        return {"A": "Target", "B": "Binder"} if record.get("smiles") else {}
    proteins = [e for e in entities if e.get("type") == "protein"]
    roles = {}
    for entity in entities:
        for chain in entity.get("chain_ids") or []:
            if entity.get("type") != "protein":
                roles[chain] = "Ligand"
            elif entity is proteins[0]:
                roles[chain] = "Binder" if len(proteins) > 1 else "Designed protein"
            else:
                roles[chain] = "Target"
    return roles


def prediction_roles(item: dict) -> dict[str, str]:
    """Return {auth chain id: role} for a structure_and_binding prediction."""
    inputs = item.get("inputs") or {}
    binder = (inputs.get("binding") or {}).get("binder_chain_id")
    roles = {}
    for entity in inputs.get("entities") or []:
        for chain in entity.get("chain_ids") or []:
            roles[chain] = "Binder" if chain == binder else (
                "Target" if entity.get("type") == "protein" else "Ligand")
    return roles
