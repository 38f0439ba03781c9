"""The chemistry an index build computes once per distinct molecule, in the budgeted child.

For each SMILES: its structural alerts (``alerts``: PAINS A/B/C and Brenk, name and
SMARTS), its Bemis-Murcko scaffold (``scaffolds``) and its Morgan fingerprint (radius 2,
2048 bits, ``similarity``) packed as 256 bytes (``fingerprint_bits``), from one parse of
the SMILES. The child (``budget``) gives each molecule ``ITEM_SECONDS``: a hostile SMILES
that overruns is ``budget.OVERRUN`` and the build records it as unknown, never hangs.

The answer of one molecule, ``MoleculeAnswer``, is ``(alerts, scaffold, fingerprint)``:
``alerts`` None when RDKit cannot read it, ``scaffold`` None likewise ("" acyclic),
``fingerprint`` b"" likewise; small and picklable (about 300 bytes).
"""

from __future__ import annotations

from collections.abc import Sequence

from rdkit import Chem
from rdkit.Chem.Scaffolds import MurckoScaffold
from rdkit.rdBase import BlockLogs

from app.viewer.chem import alerts, budget, fingerprint_bits, similarity

MoleculeAnswer = tuple[tuple[tuple[str, str | None], ...] | None, str | None, bytes]
UNREADABLE: MoleculeAnswer = (None, None, b"")
ITEM_SECONDS = 2.0  # alerts, scaffold and fingerprint of one molecule (typically ~6 ms)
MAX_SMILES = 2000  # the depictions' limit: longer is no small molecule of a pipeline
WORKER = "index"  # its own child: a build never waits for a visitor's search or drawing


def molecule_now(smiles: str) -> MoleculeAnswer:
    """Return the alerts, scaffold and packed fingerprint of ``smiles`` (the child's task)."""
    if not smiles or len(smiles) > MAX_SMILES:
        return UNREADABLE
    with BlockLogs():  # an unreadable SMILES of the set is unknown, not an error line
        mol = Chem.MolFromSmiles(smiles)
        if mol is None:
            return UNREADABLE
        found = alerts.alerts_of_mol(mol)
        scaffold = Chem.MolToSmiles(MurckoScaffold.GetScaffoldForMol(mol))
        bits = similarity.generator().GetFingerprintAsNumPy(mol)
    return found, scaffold, fingerprint_bits.pack(bits).tobytes()


def compute(smiles: Sequence[str], total_seconds: float) -> list:
    """Return each SMILES's ``MoleculeAnswer``, ``budget.OVERRUN`` where its own budget or
    ``total_seconds`` for all of them ran out."""
    if not smiles:
        return []
    return budget.worker(WORKER).run_each("molecule", list(smiles),
                                          item_seconds=ITEM_SECONDS,
                                          total_seconds=total_seconds)
