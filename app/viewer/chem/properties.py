"""The computed chemistry of a SMILES (RDKit): eight properties for pages and the index.

``mol_weight`` (average molecular weight, g/mol), ``clogp`` (Wildman-Crippen logP),
``tpsa`` (topological polar surface area, Ertl, Å²), ``hbd`` and ``hba`` (RDKit's
H-bond donor and acceptor counts), ``rotatable_bonds`` (RDKit's strict definition),
``lipinski_violations`` (how many of MW > 500, cLogP > 5, HBD > 5, HBA > 10, counted with
the donors and acceptors shown beside it, so the page adds up) and ``qed`` (Bickerton's
quantitative estimate of drug-likeness, 0-1, computed from the same descriptors).

Each value is the property's number at its stated precision (``Property.precision``:
0.01 g/mol, 0.01 log units, 0.01 Å², QED to 0.001, whole counts), rounded here once: the
table, the result page, the index and every export read this number, each page showing
it at its own ``decimals``, so no page rounds a number another page wrote rounded
otherwise (514.449 shown as 514.4 beside an export's 514.45). The Lipinski count reads the
rounded weight and cLogP, the numbers it is shown with.

``compute`` keeps its answers by SMILES in a bounded cache: an index of 100,000 results
drawn from a few thousand molecules computes each molecule once (QED's structural alerts
are most of its cost).
"""

from __future__ import annotations

from dataclasses import dataclass

from rdkit import Chem
from rdkit.Chem import QED, rdMolDescriptors
from rdkit.rdBase import BlockLogs

from app.viewer.chem.depict import MAX_SMILES
from app.viewer.runtime.cache import BoundedCache


@dataclass(frozen=True)
class Property:
    """How a property is shown: label, unit, hover description, the decimals a page shows,
    integer-valued, and the decimals of the value itself (what the exports write)."""

    label: str
    unit: str
    description: str
    decimals: int
    integer: bool = False
    precision: int = 0


PROPERTIES = {
    "mol_weight": Property("Molecular weight", "g/mol",
                           "Average molecular weight from the SMILES (RDKit).", 1,
                           precision=2),
    "clogp": Property("cLogP", "", "Calculated octanol/water partition coefficient "
                      "(Wildman-Crippen, RDKit); higher is more lipophilic.", 2,
                      precision=2),
    "tpsa": Property("TPSA", "Å²", "Topological polar surface area (Ertl); above about "
                     "140 Å² oral absorption is poor.", 1, precision=2),
    "hbd": Property("H-bond donors", "", "Hydrogen-bond donors (RDKit's count).", 0, True),
    "hba": Property("H-bond acceptors", "", "Hydrogen-bond acceptors (RDKit's count).", 0,
                    True),
    "rotatable_bonds": Property("Rotatable bonds", "", "Rotatable bonds (RDKit's strict "
                                "definition); a measure of flexibility.", 0, True),
    "lipinski_violations": Property(
        "Lipinski violations", "of 4", "Rule-of-five criteria broken: molecular weight > "
        "500 g/mol, cLogP > 5, H-bond donors > 5, H-bond acceptors > 10.", 0, True),
    "qed": Property("QED", "0\u20131", "Quantitative estimate of drug-likeness (Bickerton et "
                    "al. 2012): 1 is most drug-like.", 2, precision=3),
}

_cache: BoundedCache[dict] = BoundedCache(20_000)


def _parse(smiles: str) -> Chem.Mol | None:
    with BlockLogs():  # an unparsable SMILES simply has no computed chemistry
        return Chem.MolFromSmiles(smiles)


def of_mol(mol: Chem.Mol) -> dict[str, float | int]:
    """Return the eight properties of a parsed molecule, each at its ``precision``.

    QED's own descriptors (RDKit's ``QED.properties``) are the same functions as the
    page's weight, cLogP, donors, TPSA and rotatable bonds: computed once, used for both.
    """
    shared = QED.properties(mol)
    hba = rdMolDescriptors.CalcNumHBA(mol)  # QED's acceptor count is its own (SMARTS set)
    mw, logp, hbd = _stated("mol_weight", shared.MW), _stated("clogp", shared.ALOGP), \
        int(shared.HBD)
    violations = (mw > 500) + (logp > 5) + (hbd > 5) + (hba > 10)
    return {
        "mol_weight": mw,
        "clogp": logp,
        "tpsa": _stated("tpsa", shared.PSA),
        "hbd": hbd,
        "hba": hba,
        "rotatable_bonds": int(shared.ROTB),
        "lipinski_violations": int(violations),
        "qed": _stated("qed", QED.qed(mol, qedProperties=shared)),
    }


def _stated(key: str, value: float) -> float:
    """Return ``value`` at property ``key``'s precision (Python's correctly rounded
    ``round``)."""
    return round(value, PROPERTIES[key].precision)


def compute(smiles: str | None) -> dict[str, float | int] | None:
    """Return the properties of ``smiles`` (cached), or None if it cannot be parsed."""
    if not smiles or len(smiles) > MAX_SMILES:
        return None
    cached = _cache.get(smiles)
    if cached is None:
        mol = _parse(smiles)
        cached = {"values": of_mol(mol) if mol is not None else None}
        _cache.put(smiles, cached)
    return cached["values"]


def table(smiles: str | None) -> list[tuple[str, Property, float | int]] | None:
    """Return (key, how to show it, value) of each property of ``smiles``, or None."""
    values = compute(smiles)
    if values is None:
        return None
    return [(key, prop, values[key]) for key, prop in PROPERTIES.items()]
