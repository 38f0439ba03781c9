"""The chemistry an index build computes once per distinct molecule, in the budgeted child.

For each SMILES: its structural alerts (``alerts``: PAINS A/B/C and Brenk, name and
SMARTS), its Bemis-Murcko scaffold (``scaffolds.scaffold_of_mol``), its Morgan
fingerprint (radius 2, 2048 bits, ``similarity``) packed as 256 bytes
(``fingerprint_bits``), and for the substructure screen its pattern fingerprint (packed
likewise) and its record (compressed binary pickle, ``pattern_screen``), from one parse of
the SMILES. The child (``budget``) gives each molecule ``ITEM_SECONDS``: a hostile SMILES
that overruns is ``budget.OVERRUN`` and the build records it as unknown, never hangs.

The answer of one molecule, ``MoleculeAnswer``, is ``(alerts, scaffold, fingerprint,
pattern, record)``: ``alerts`` None when RDKit cannot read it, ``scaffold`` None likewise
("" acyclic), ``fingerprint``, ``pattern`` and ``record`` b"" likewise; small and
picklable (about 750 bytes). ``screen_now`` gives the last two alone: a frame saved
before the screen existed keeps its other answers and gets only these at its next build.
"""

from __future__ import annotations

from collections.abc import Sequence

from rdkit import Chem
from rdkit.rdBase import BlockLogs

from app.viewer.chem import alerts, fingerprint_bits, pattern_screen, scaffolds, similarity
from app.viewer.runtime import budget

MoleculeAnswer = tuple[tuple[tuple[str, str | None], ...] | None, str | None, bytes, bytes,
                       bytes]
UNREADABLE: MoleculeAnswer = (None, None, b"", b"", b"")
# Alerts, scaffold, fingerprints and record of one molecule: typically milliseconds.
ITEM_SECONDS = 2.0
MAX_SMILES = 2000  # the depictions' limit: longer is no small molecule of a pipeline
WORKER = "index"  # its own child: a build never waits for a visitor's search or drawing


@budget.task("molecule")
def molecule_now(smiles: str) -> MoleculeAnswer:
    """Return the alerts, scaffold and packed fingerprint of ``smiles`` (the child's task)."""
    if not smiles or len(smiles) > MAX_SMILES:
        return UNREADABLE
    with BlockLogs():  # an unreadable SMILES of the set is unknown, not an error line
        mol = Chem.MolFromSmiles(smiles)
        if mol is None:
            return UNREADABLE
        found = alerts.alerts_of_mol(mol)
        scaffold = scaffolds.scaffold_of_mol(mol)
        bits = similarity.generator().GetFingerprintAsNumPy(mol)
        pattern = pattern_screen.bits_of(mol)
    return (found, scaffold, fingerprint_bits.pack(bits).tobytes(), pattern,
            pattern_screen.record_of(mol))


@budget.task("screen")
def screen_now(smiles: str) -> tuple[bytes, bytes]:
    """Return the pattern fingerprint and the record of ``smiles`` (b"", b"" if RDKit
    cannot read it): the child's task for molecules whose other answers are known."""
    if not smiles or len(smiles) > MAX_SMILES:
        return b"", b""
    with BlockLogs():
        mol = Chem.MolFromSmiles(smiles)
        if mol is None:
            return b"", b""
        return pattern_screen.bits_of(mol), pattern_screen.record_of(mol)


def compute(smiles: Sequence[str], total_seconds: float, task: str = "molecule") -> list:
    """Return each SMILES's ``MoleculeAnswer`` (``task="screen"``: ``screen_now``'s pair),
    ``budget.OVERRUN`` where its own budget or ``total_seconds`` for all of them ran out."""
    if not smiles:
        return []
    return budget.worker(WORKER).run_each(task, list(smiles), item_seconds=ITEM_SECONDS,
                                          total_seconds=total_seconds)
