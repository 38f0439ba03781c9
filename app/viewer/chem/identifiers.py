"""Identifiers a chemist can look a molecule up by: canonical SMILES, InChIKey and a name.

The canonical SMILES and the standard InChIKey are RDKit's (``Chem.MolToSmiles``,
``Chem.MolToInchiKey``): paste either into PubChem, ChEMBL or a notebook. A name is known
only for the demo's compounds: the API's records carry no compound names, and the runs'
inputs (library files behind URLs) are not read by the viewer, so ``name`` looks the
InChIKey up among the approved drugs of the demo library (``app.synthetic.chemistry``) -
demo-only knowledge, None for every other molecule.

Answers are kept per SMILES in a bounded cache (an export of 100,000 results drawn from a
few thousand molecules computes each once). A SMILES longer than the
depictions' limit, or one RDKit cannot read, has no identifiers.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from rdkit import Chem
from rdkit.rdBase import BlockLogs

from app.synthetic import chemistry as demo_chemistry
from app.viewer.chem.depict import MAX_SMILES
from app.viewer.runtime.cache import BoundedCache


@dataclass(frozen=True)
class Identifiers:
    """A molecule's canonical SMILES, standard InChIKey ("" if InChI fails) and name."""

    canonical_smiles: str
    inchikey: str
    name: str | None


_NONE = Identifiers("", "", None)  # cached "cannot be read"
_known: BoundedCache[Identifiers] = BoundedCache(200_000)


@lru_cache(maxsize=1)
def demo_names() -> dict[str, str]:
    """Return the demo library's compound names by InChIKey (demo-only knowledge)."""
    out = {}
    with BlockLogs():
        for name, smiles in demo_chemistry.LIBRARY:
            mol = Chem.MolFromSmiles(smiles)
            if mol is not None:
                out.setdefault(Chem.MolToInchiKey(mol), name)
    return out


def _compute(smiles: str) -> Identifiers:
    if len(smiles) > MAX_SMILES:
        return _NONE
    with BlockLogs():  # an unreadable SMILES has no identifiers, not an error line
        mol = Chem.MolFromSmiles(smiles)
        if mol is None:
            return _NONE
        key = Chem.MolToInchiKey(mol) or ""
    return Identifiers(Chem.MolToSmiles(mol), key, demo_names().get(key) if key else None)


def of(smiles: str | None) -> Identifiers | None:
    """Return the identifiers of ``smiles``, or None when there is none or RDKit cannot
    read it."""
    if not smiles:
        return None
    found = _known.get(smiles)
    if found is None:
        found = _compute(smiles)
        _known.put(smiles, found)
    return None if found is _NONE or not found.canonical_smiles else found


def inchikey(smiles: str | None) -> str:
    """Return the InChIKey of ``smiles`` ("" when unknown): the exports' column."""
    found = of(smiles)
    return found.inchikey if found is not None else ""
