"""The target residues a design contacts, and which of its M/W are exposed (pure: no I/O).

``read(data, fmt, binder_chains, target_chains)`` parses one structure file (gemmi, first
model) and returns a ``Reading``:

- ``contacts``: (target chain, residue number) pairs, sorted: the target residues in
  contact with a designed chain by the viewer's one contact definition
  (``app.viewer.structure.contacts``: a heavy atom within ``CONTACT_CUTOFF``, 4.5 A; CB
  to CB within ``CB_CONTACT``, 8 A, where the designed or the target chains were written
  without side chains), the definition the 3D page's interface reads too.
  Chains are auth chain ids (as the run's input names them), residue numbers the
  position in the chain's sequence (``label_seq_id``, 1-based; the author number when
  the file has none);
- ``exposed``: 1-based positions of the designed chain's M and W whose relative solvent
  accessibility is at least ``EXPOSED_RSA`` (``exposure.exposed``; None when it could not
  be computed).

Hostile files are bounded by the caller's byte limit and by the contact rule's own bounds
(``structure.contacts.MAX_ATOMS`` heavy atoms, crowding, coordinates): such a model raises
``structure.contacts.NotComputed`` (a ``ValueError``) and is recorded as unreadable,
never computed.

``read_item`` is ``read`` as the scan's child process runs it (``runtime.budget``):
its answer is the ``Reading``, or the name of the error class that made the file
unreadable (an exception would end the child's loop).
"""

from __future__ import annotations

from dataclasses import dataclass

import gemmi
import numpy as np

from app.viewer.epitope import exposure
from app.viewer.runtime import budget
from app.viewer.structure import contacts as shared


@dataclass(frozen=True)
class Reading:
    """What one structure file says about its design's epitope and M/W exposure."""

    contacts: tuple[tuple[str, int], ...]
    exposed: tuple[int, ...] | None = None


@dataclass
class _Atoms:
    xyz: list
    keys: list
    beta: list
    names: set


def _structure(data: bytes, fmt: str) -> gemmi.Model:
    text = data.decode("utf-8", errors="replace")
    if fmt == "pdb":
        structure = gemmi.read_pdb_string(text)
    else:
        structure = gemmi.make_structure_from_block(gemmi.cif.read_string(text)[0])
    if len(structure) == 0:
        raise ValueError("no model")
    structure.setup_entities()
    return structure[0]


def _number(residue) -> int:
    return residue.label_seq if residue.label_seq is not None else residue.seqid.num


def _collect(model: gemmi.Model, chains: set[str]) -> _Atoms:
    """Return the polymer heavy atoms of ``chains`` (and the atom names met)."""
    out = _Atoms([], [], [], set())
    for chain in model:
        if chain.name not in chains:
            continue
        for residue in chain:
            if residue.entity_type != gemmi.EntityType.Polymer:
                continue
            beta = shared.beta_atom(residue)
            for atom in residue:
                if atom.element.name in ("H", "D"):
                    continue
                out.names.add(atom.name)
                out.xyz.append(atom.pos.tolist())
                out.keys.append((chain.name, _number(residue)))
                out.beta.append(beta is not None and atom.name == beta.name)
    return out


def contacts_of(model: gemmi.Model, binder_chains: set[str], target_chains: set[str]
                ) -> tuple[tuple[str, int], ...]:
    """Return the sorted (chain, residue number) of target residues the binders contact."""
    binder = _collect(model, binder_chains)
    target = _collect(model, target_chains)
    if len(binder.xyz) + len(target.xyz) > shared.MAX_ATOMS:
        raise shared.TooLarge(len(binder.xyz) + len(target.xyz))
    if not binder.xyz or not target.xyz:
        return ()
    points = np.array(target.xyz + binder.xyz, dtype=np.float64)
    beta = np.array(target.beta + binder.beta)
    cb_rule = not (shared.has_side_chains(binder.names)
                   and shared.has_side_chains(target.names))
    close = shared.touching(points, np.arange(len(target.xyz)),
                            np.arange(len(target.xyz), len(points)), beta, cb_rule)
    return tuple(sorted({target.keys[i] for i in close}))


def read(data: bytes, fmt: str, binder_chains: set[str], target_chains: set[str]
         ) -> Reading:
    """Return the ``Reading`` of one structure file (see the module docstring).

    Raises ``ValueError`` (``structure.contacts.NotComputed`` included) or
    ``RuntimeError`` for a file gemmi cannot read: the caller records the design as
    unreadable.
    """
    model = _structure(data, fmt)
    contacts = contacts_of(model, binder_chains, target_chains)
    designed = next((c for c in model if c.name in binder_chains), None)
    return Reading(contacts, exposure.exposed(designed) if designed is not None else None)


# What makes a file unreadable (``read``'s errors); anything else is a bug, and raises.
UNREADABLE = (RuntimeError, ValueError, IndexError, KeyError)


@budget.task("epitope")
def read_item(item: tuple[bytes, str, set[str], set[str]]) -> Reading | str:
    """Return ``read(*item)``, or the error's class name when the file is unreadable."""
    try:
        return read(*item)
    except UNREADABLE as error:
        return type(error).__name__
