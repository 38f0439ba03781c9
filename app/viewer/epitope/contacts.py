"""The target residues a design contacts, and which of its M/W are exposed (pure: no I/O).

``read(data, fmt, binder_chains, target_chains)`` parses one structure file (gemmi, first
model) and returns a ``Reading``:

- ``contacts``: (target chain, residue number) pairs, sorted. A target residue is in
  contact when one of its heavy atoms lies within ``CONTACT_CUTOFF`` (4.5 A, the usual
  heavy-atom cutoff of interface analyses) of a heavy atom of a designed chain. A model
  written without side chains (no atom beyond N, CA, C, O, CB in the designed chains, as
  backbone generators and our demo write them) could only touch through its backbone, so
  there a residue whose CB (CA for glycine) lies within ``CB_CUTOFF`` (8 A, pDockQ's
  contact) of a designed CB counts too, as on the 3D page (``structure.model``).
  Chains are auth chain ids (as the run's input names them), residue numbers the
  position in the chain's sequence (``label_seq_id``, 1-based; the author number when
  the file has none);
- ``exposed``: 1-based positions of the designed chain's M and W whose relative solvent
  accessibility is at least ``EXPOSED_RSA`` (``exposure.exposed``; None when it could not
  be computed).

Hostile files are bounded by the caller's byte limit and by ``MAX_ATOMS`` here: a larger
model raises ``TooLarge`` and is recorded as unreadable, never computed.

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

CONTACT_CUTOFF = 4.5  # Angstroms, heavy atom to heavy atom
CB_CUTOFF = 8.0  # Angstroms, CB to CB, for models without side chains
MAX_ATOMS = 150_000
_BACKBONE = frozenset({"N", "CA", "C", "O", "CB", "OXT"})
_PAIRS_PER_BLOCK = 1 << 21


class TooLarge(ValueError):
    """The model has more atoms than ``MAX_ATOMS``."""


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


def _collect(model: gemmi.Model, chains: set[str]) -> tuple[_Atoms, bool]:
    """Return the polymer heavy atoms of ``chains`` and whether they have side chains."""
    out, side_chains = _Atoms([], [], []), False
    for chain in model:
        if chain.name not in chains:
            continue
        for residue in chain:
            if residue.entity_type != gemmi.EntityType.Polymer:
                continue
            beta = residue.find_atom("CB", "*") or residue.find_atom("CA", "*")
            for atom in residue:
                if atom.element.name in ("H", "D"):
                    continue
                side_chains |= atom.name not in _BACKBONE
                out.xyz.append(atom.pos.tolist())
                out.keys.append((chain.name, _number(residue)))
                out.beta.append(beta is not None and atom.name == beta.name)
    return out, side_chains


def _near(points: np.ndarray, box_of: np.ndarray, margin: float) -> np.ndarray:
    """Return the indices of ``points`` within ``margin`` of ``box_of``'s bounding box."""
    low, high = box_of.min(0) - margin, box_of.max(0) + margin
    return np.flatnonzero(((points >= low) & (points <= high)).all(1))


def contacts_of(model: gemmi.Model, binder_chains: set[str], target_chains: set[str]
                ) -> tuple[tuple[str, int], ...]:
    """Return the sorted (chain, residue number) of target residues the binders contact."""
    binder, side_chains = _collect(model, binder_chains)
    target, _ = _collect(model, target_chains)
    if len(binder.xyz) + len(target.xyz) > MAX_ATOMS:
        raise TooLarge(f"more than {MAX_ATOMS} atoms")
    if not binder.xyz or not target.xyz:
        return ()
    b_xyz, t_xyz = np.array(binder.xyz), np.array(target.xyz)
    cb_rule = not side_chains
    margin = CB_CUTOFF if cb_rule else CONTACT_CUTOFF
    near_t = _near(t_xyz, b_xyz, margin)
    near_b = _near(b_xyz, t_xyz[near_t], margin) if len(near_t) else near_t
    if not len(near_t) or not len(near_b):
        return ()
    b_beta = np.array(binder.beta)[near_b]
    t_beta = np.array(target.beta)
    found: set[tuple[str, int]] = set()
    rows = max(1, _PAIRS_PER_BLOCK // len(near_b))
    for start in range(0, len(near_t), rows):  # blocks: a large complex stays in memory
        part = near_t[start:start + rows]
        d2 = ((t_xyz[part, None, :] - b_xyz[None, near_b, :]) ** 2).sum(-1)
        close = (d2 <= CONTACT_CUTOFF ** 2).any(1)
        if cb_rule:
            close |= ((d2 <= CB_CUTOFF ** 2) & b_beta[None, :]).any(1) & t_beta[part]
        found.update(target.keys[i] for i in part[close])
    return tuple(sorted(found))


def read(data: bytes, fmt: str, binder_chains: set[str], target_chains: set[str]
         ) -> Reading:
    """Return the ``Reading`` of one structure file (see the module docstring).

    Raises ``ValueError`` (``TooLarge`` included) or ``RuntimeError`` for a file gemmi
    cannot read: the caller records the design as unreadable.
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
