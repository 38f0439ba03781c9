"""Which chain of a result or prediction is the binder and which the target.

A chain's part is a ``Role``; its ``label`` is only for people (the legend, the PAE's
chain names). Read from the records, by auth chain id (``entities[].chain_ids``):

- protein kinds: the first protein entity is the designed protein (``BINDER`` when the
  result has a target, i.e. another protein entity, else ``DESIGNED``); the other
  proteins are ``TARGET``; ligand entities (a glycan) are ``LIGAND``;
- small-molecule kinds (no entities in the record): polymer chains are the ``TARGET``
  and the ligand is the designed or screened molecule (``BINDER``);
- structure_and_binding predictions: ``inputs.binding.binder_chain_id`` is the
  ``BINDER``, the other entities are ``TARGET`` (proteins) or ``LIGAND``.

A chain the record names no role for is ``PROTEIN`` (a polymer) or ``LIGAND``.
"""

from __future__ import annotations

import enum


class Role(enum.Enum):
    """What a chain is in a result or prediction."""

    BINDER = "binder"
    DESIGNED = "designed"  # the designed protein of a result without a target
    TARGET = "target"
    LIGAND = "ligand"
    PROTEIN = "protein"  # a polymer chain the record gives no role

    @property
    def label(self) -> str:
        """Return the role as people read it ("Binder", "Designed protein"...)."""
        return _LABELS[self]

    @property
    def is_binder(self) -> bool:
        """Return whether the chain is the one made or screened: binder or designed protein.

        Compare measures these chains after the fit and draws them in the strong colour.
        """
        return self in (Role.BINDER, Role.DESIGNED)


_LABELS = {
    Role.BINDER: "Binder",
    Role.DESIGNED: "Designed protein",
    Role.TARGET: "Target",
    Role.LIGAND: "Ligand",
    Role.PROTEIN: "Protein",
}


def result_roles(record: dict) -> dict[str, Role]:
    """Return {auth chain id: role} for a pipeline result."""
    entities = record.get("entities") or []
    if not entities:
        return {"A": Role.TARGET, "B": Role.BINDER} if record.get("smiles") else {}
    proteins = [e for e in entities if e.get("type") == "protein"]
    roles = {}
    for entity in entities:
        for chain in entity.get("chain_ids") or []:
            if entity.get("type") != "protein":
                roles[chain] = Role.LIGAND
            elif entity is proteins[0]:
                roles[chain] = Role.BINDER if len(proteins) > 1 else Role.DESIGNED
            else:
                roles[chain] = Role.TARGET
    return roles


def prediction_roles(item: dict) -> dict[str, Role]:
    """Return {auth chain id: role} for a structure_and_binding prediction."""
    inputs = item.get("inputs") or {}
    binder = (inputs.get("binding") or {}).get("binder_chain_id")
    roles = {}
    for entity in inputs.get("entities") or []:
        for chain in entity.get("chain_ids") or []:
            roles[chain] = Role.BINDER if chain == binder else (
                Role.TARGET if entity.get("type") == "protein" else Role.LIGAND)
    return roles
