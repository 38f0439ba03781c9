"""Which chain of a result or prediction is the binder and which the target.

A chain's part is a ``Role``; its ``label`` is only for people (the legend, the PAE's
chain names). Read from the run's input first (``provenance.chains.chain_parts``: the
chains the SDK ``input`` designs, keeps fixed or names as the target), by auth chain id:

- a pipeline result with its run record (``result_roles(record, pipeline)``): the input's
  designed chains are ``BINDER`` (``DESIGNED`` without a target), its target chains
  ``TARGET``, its fixed polymers ``PROTEIN``, its ligands ``LIGAND``. A chain of the
  result the input does not name is the one made or screened (``BINDER``) when it is a
  protein beside a named target (a screened library protein, a curated binder); a
  small-molecule result's ligand is the first chain id the target does not use;
- a prediction: ``input.binding``'s binder chains are ``BINDER``, the other entities
  ``TARGET`` (polymers) or ``LIGAND``; without a binding, ``PROTEIN`` or ``LIGAND``.

When the input is absent, unknown, or names none of the result's chains, the guess of
old stands: the first protein entity is the designed one (``BINDER`` when another protein
is there, else ``DESIGNED``), other proteins ``TARGET``, ligands ``LIGAND``; a
small-molecule record (no entities) is ``{"A": TARGET, "B": BINDER}``; a prediction's
``inputs.binding.binder_chain_id`` is the binder. A chain no one names a role for is
``PROTEIN`` (a polymer) or ``LIGAND``.
"""

from __future__ import annotations

import enum
import string

from app.viewer.provenance import chains as input_chains


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


def _from_part(part: str, has_target: bool) -> Role:
    """Return the role of an input part (``provenance.chains.PARTS``)."""
    if part == input_chains.BINDER_PART:
        return Role.BINDER
    if part == input_chains.DESIGNED_PART:
        return Role.BINDER if has_target else Role.DESIGNED
    if part == input_chains.TARGET_PART:
        return Role.TARGET
    if part == input_chains.LIGAND_PART:
        return Role.LIGAND
    return Role.PROTEIN


def _guessed_result_roles(record: dict) -> dict[str, Role]:
    """Return the roles guessed from the result record alone (no input)."""
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


def result_roles(record: dict, pipeline: dict | None = None) -> dict[str, Role]:
    """Return {auth chain id: role} for a pipeline result, from its run's input if known.

    ``pipeline`` is the run record (with ``input``); without it, or when its input names
    none of the result's chains, the roles are guessed from the result alone.
    """
    parts = input_chains.chain_parts(pipeline) if pipeline else {}
    entities = [e for e in record.get("entities") or [] if isinstance(e, dict)]
    result_chains = {c: e.get("type") for e in entities for c in e.get("chain_ids") or []
                     if isinstance(c, str)}
    if not parts or (result_chains and not set(parts) & set(result_chains)):
        return _guessed_result_roles(record)
    has_target = input_chains.TARGET_PART in parts.values()
    roles = {chain: _from_part(part, has_target) for chain, part in parts.items()}
    for chain, kind in result_chains.items():
        if chain in roles:
            continue
        if kind == "protein":
            roles[chain] = Role.BINDER if has_target else Role.DESIGNED
        else:
            roles[chain] = Role.LIGAND
    if not result_chains and record.get("smiles"):
        free = next((c for c in string.ascii_uppercase if c not in roles), None)
        if free:
            roles[free] = Role.BINDER
    return roles


def prediction_roles(item: dict) -> dict[str, Role]:
    """Return {auth chain id: role} for a structure_and_binding prediction.

    From the SDK ``input`` (entities and ``binding``); an item without one falls back to
    the old ``inputs.binding.binder_chain_id``.
    """
    parts = input_chains.chain_parts(item, prediction=True) if item.get("input") else {}
    if parts:
        return {chain: _from_part(part, True) for chain, part in parts.items()}
    inputs = item.get("inputs") or {}
    binder = (inputs.get("binding") or {}).get("binder_chain_id")
    roles = {}
    for entity in inputs.get("entities") or []:
        for chain in entity.get("chain_ids") or []:
            roles[chain] = Role.BINDER if chain == binder else (
                Role.TARGET if entity.get("type") == "protein" else Role.LIGAND)
    return roles
