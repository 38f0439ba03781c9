"""The substructure query of ``smarts=``: a SMARTS, or a SMILES, read with RDKit.

A query is read as SMARTS first: a SMILES written with aromatic atoms (as RDKit, ChEMBL
and most tools write them) is also a valid SMARTS with the same meaning as a substructure.
What SMARTS cannot read is read as a SMILES (aromaticity perceived, so a Kekulé ring then
matches an aromatic one). Either way the answer is an RDKit query molecule, or
``InvalidQuery`` with a message fit for a 400 page naming ``smarts``.
"""

from __future__ import annotations

from functools import lru_cache

from rdkit import Chem
from rdkit.rdBase import BlockLogs

# Longer than any sensible substructure; bounds the parse and match cost of one request.
MAX_QUERY_LENGTH = 500


class InvalidQuery(ValueError):
    """The text is not a SMARTS nor a SMILES RDKit can read (or is too long)."""


@lru_cache(maxsize=256)
def _parse(text: str) -> Chem.Mol | None:
    with BlockLogs():  # a bad query is the visitor's 400, not an RDKit error line
        query = Chem.MolFromSmarts(text)
        if query is None:
            query = Chem.MolFromSmiles(text)
    if query is None or query.GetNumAtoms() == 0:
        return None
    return query


def parse_query(text: str) -> Chem.Mol:
    """Return the query molecule of ``text`` (SMARTS, else SMILES) or raise ``InvalidQuery``."""
    text = (text or "").strip()
    if not text:
        raise InvalidQuery("smarts: give a SMARTS or a SMILES")
    if len(text) > MAX_QUERY_LENGTH:
        raise InvalidQuery(f"smarts: at most {MAX_QUERY_LENGTH} characters")
    query = _parse(text)
    if query is None:
        raise InvalidQuery("smarts: not a SMARTS or SMILES RDKit can read")
    return query


def matches(mol: Chem.Mol | None, query: Chem.Mol) -> bool:
    """Return whether ``mol`` contains ``query`` (an unparsable molecule never does)."""
    return mol is not None and mol.HasSubstructMatch(query)


def matched_atoms_and_bonds(mol: Chem.Mol, query: Chem.Mol) -> tuple[list[int], list[int]]:
    """Return the atoms and bonds of ``mol`` covered by every match of ``query``."""
    atoms: set[int] = set()
    bonds: set[int] = set()
    query_bonds = [(b.GetBeginAtomIdx(), b.GetEndAtomIdx()) for b in query.GetBonds()]
    for match in mol.GetSubstructMatches(query, uniquify=True, maxMatches=100):
        atoms.update(match)
        for begin, end in query_bonds:
            bond = mol.GetBondBetweenAtoms(match[begin], match[end])
            if bond is not None:
                bonds.add(bond.GetIdx())
    return sorted(atoms), sorted(bonds)
