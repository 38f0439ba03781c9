"""Tanimoto similarity of ``similar_to=``: Morgan fingerprints, radius 2, 2048 bits.

The query is a SMILES a visitor pastes or a result of the pipeline (its id); its
fingerprint is compared with every distinct molecule's, in NumPy on packed bits
(``fingerprint_bits``: equal to RDKit's ``BulkTanimotoSimilarity``). Fingerprints come
from ``rdFingerprintGenerator``'s Morgan generator (the ECFP4-like fingerprint most
similarity searches use): the index build makes them (``index_chemistry``); for a frame
saved before that, each distinct SMILES once per process here (a bounded cache), the
missing ones made in the budgeted chemistry child (``budget``) and sent back as RDKit's
binary form. A SMILES RDKit cannot read has no
fingerprint and no similarity (NaN: sorted last, never within a ``similarity__gte``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from rdkit import Chem, DataStructs
from rdkit.Chem import rdFingerprintGenerator
from rdkit.rdBase import BlockLogs

from app.viewer.core.errors import BadRequest
from app.viewer.runtime import budget
from app.viewer.runtime.cache import BoundedCache

RADIUS = 2
BITS = 2048
ITEM_SECONDS = 2.0
TOTAL_SECONDS = 60.0
MAX_SMILES = 2000  # the depictions' limit: longer is no small molecule of a pipeline
# ~300 bytes a fingerprint: 120,000 distinct molecules is ~40 MB at most.
_known: BoundedCache = BoundedCache(120_000)
_UNREADABLE = b""  # cached marker of a SMILES RDKit cannot read


@lru_cache(maxsize=1)
def generator():
    """Return the Morgan fingerprint generator (radius 2, 2048 bits)."""
    return rdFingerprintGenerator.GetMorganGenerator(radius=RADIUS, fpSize=BITS)


def fingerprint_of(mol: Chem.Mol) -> DataStructs.ExplicitBitVect:
    """Return the Morgan fingerprint of ``mol``."""
    return generator().GetFingerprint(mol)


@budget.task("fingerprint")
def fingerprint_now(smiles: str) -> bytes:
    """Return the binary fingerprint of ``smiles`` (b"" if RDKit cannot read it): the
    child's answer, small and picklable."""
    if not smiles or len(smiles) > MAX_SMILES:
        return _UNREADABLE
    with BlockLogs():
        mol = Chem.MolFromSmiles(smiles)
    return _UNREADABLE if mol is None else fingerprint_of(mol).ToBinary()


def query_fingerprint(smiles: str) -> DataStructs.ExplicitBitVect:
    """Return the fingerprint of a pasted SMILES, or raise ``BadRequest`` (completes
    "'similar_to' ...")."""
    if len(smiles) > MAX_SMILES:
        raise BadRequest(f"is longer than {MAX_SMILES} characters")
    with BlockLogs():  # the visitor's typing: a 400, not an RDKit error line
        mol = Chem.MolFromSmiles(smiles)
    if mol is None or mol.GetNumAtoms() == 0:
        raise BadRequest("is neither a result id of this pipeline nor a SMILES that RDKit "
                         "can read")
    return fingerprint_of(mol)


def fingerprints(smiles: Sequence[str]) -> list:
    """Return each SMILES's fingerprint (None: unreadable or over budget), cached ones at
    once, the rest computed in the budgeted child."""
    found: list = [_known.get(text) for text in smiles]
    missing = [i for i, fp in enumerate(found) if fp is None]
    if missing:
        answers = budget.worker("fingerprints").run_each(
            "fingerprint", [smiles[i] for i in missing], item_seconds=ITEM_SECONDS,
            total_seconds=TOTAL_SECONDS)
        for index, answer in zip(missing, answers, strict=True):
            if answer is budget.OVERRUN:
                continue  # none for now: another request may finish it
            value = DataStructs.ExplicitBitVect(answer) if answer else _UNREADABLE
            found[index] = value
            _known.put(smiles[index], value)
    return [None if fp is None or fp is _UNREADABLE else fp for fp in found]


def uncached(smiles: Sequence[str]) -> bool:
    """Whether some of ``smiles`` has no fingerprint in this process yet (work to do)."""
    return any(_known.get(text) is None for text in smiles)


def clear_cache() -> None:
    """Forget every fingerprint (tests, benchmarks)."""
    _known.clear()
