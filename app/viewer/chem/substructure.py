"""The substructure query of ``smarts=``: a SMARTS, or a SMILES, read with RDKit.

A query is read as SMARTS first: a SMILES written with aromatic atoms (as RDKit, ChEMBL
and most tools write them) is also a valid SMARTS with the same meaning as a substructure,
and SMARTS keeps its exact meaning (``[OH]`` is a hydroxyl, not any oxygen). Two cases are
read as a SMILES instead (a molecule, aromaticity perceived): what SMARTS cannot read, and
a Kekulé ring (``C1=CC=CC=C1``), which as SMARTS asks for alternating double bonds that no
aromatic ring has and would match nothing a chemist meant. Either way the answer is an
RDKit query molecule, or ``BadRequest`` whose message completes "'smarts' ..." on a 400
page.

A whole-set query is answered in the budgeted child (``budget``): ``query_pattern`` makes
the query's pattern fingerprint there (``pattern_screen``; a hostile query such as a
complete graph of 12 atoms takes RDKit most of a minute and gigabytes, so a query with more than
``DENSE_QUERY`` bonds per atom gets none) and the parent screens with it;
``confirm_within_budget`` checks each candidate there, read from its record (the index's
pickle) or else its SMILES. Over ``TOTAL_SECONDS`` in all, the query is refused with a 400
that says how far it got (``TooBroad``), never answered with the candidates not reached
counted as non-matching; one candidate over ``ITEM_SECONDS`` (a hostile pair) does not
match, and is logged.

The child confirms ``BLOCK`` candidates per call into RDKit's C++ (``confirm_block``: its
``SubstructLibrary`` over the records, with ``HasSubstructMatch``'s own parameters), not
one Python call per molecule: reading a pickle and matching it is most of a
candidate's cost, and the library does both without the
interpreter between molecules. A block takes milliseconds, so one that overruns
``ITEM_SECONDS`` holds a hostile molecule: its candidates are then confirmed one by one
(``confirm_one``), each with its own budget, the answers unchanged.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Iterable
from functools import lru_cache

from rdkit import Chem
from rdkit.Chem import rdSubstructLibrary
from rdkit.rdBase import BlockLogs

from app.viewer.chem import pattern_screen
from app.viewer.core.errors import BadRequest
from app.viewer.runtime import budget

# The depictions' limit: longer is no small molecule of a design pipeline.
MAX_SMILES = 2000
# Longer than any sensible substructure; bounds the parse and match cost of one request.
MAX_QUERY_LENGTH = 500
# The hard budget of a whole-set search (``match_within_budget``): a molecule normally
# takes microseconds; a 40-atom ring query against a polyacene takes seconds, one more
# atom much more.
ITEM_SECONDS = 2.0
TOTAL_SECONDS = 60.0
# The query's own pattern fingerprint (a millisecond; over this: no screen, all candidates).
PATTERN_SECONDS = 2.0
# More bonds per atom than this is a graph, not a substructure (a benzene ring has 1, a
# cubane 1.5): not fingerprinted, screened by nothing.
DENSE_QUERY = 2
# Candidates per call into RDKit's C++ (``confirm_block``): milliseconds of work, so a
# block that overruns ``ITEM_SECONDS`` holds a hostile molecule. One thread: on a shared
# 2-core machine a second thread per block makes a broad query slower (each block waits for
# its slower thread when other processes hold a core) and would take the visitors' core.
BLOCK = 256
THREADS = 1


class TooBroad(BadRequest):
    """A query whose candidates could not all be checked within ``TOTAL_SECONDS`` (400)."""

    def __init__(self, checked: int, candidates: int, seconds: float | None = None):
        seconds = TOTAL_SECONDS if seconds is None else seconds
        super().__init__(
            f"'smarts' has {candidates:,} candidate molecules; {checked:,} were checked "
            f"within the {seconds:.0f} s a search may take, so no answer is given: "
            "make the substructure more specific (more atoms or bonds).")
        self.checked, self.candidates = checked, candidates


def _aromatic_atoms(mol: Chem.Mol) -> int:
    return sum(atom.GetIsAromatic() for atom in mol.GetAtoms())


@lru_cache(maxsize=256)
def _parse(text: str) -> Chem.Mol | None:
    with BlockLogs():  # a bad query is the visitor's 400, not an RDKit error line
        smarts = Chem.MolFromSmarts(text)
        smiles = Chem.MolFromSmiles(text)
    if smarts is not None and smiles is not None \
            and _aromatic_atoms(smiles) > _aromatic_atoms(smarts):
        smarts = None  # a Kekulé ring: aromatic once read as a molecule (module doc)
    query = smarts if smarts is not None else smiles
    if query is None or query.GetNumAtoms() == 0:
        return None
    return query


def parse_query(text: str) -> Chem.Mol:
    """Return the query molecule of ``text`` (SMARTS, else SMILES) or raise ``BadRequest``."""
    text = (text or "").strip()
    if not text:
        raise BadRequest("is empty: give a SMARTS or a SMILES")
    if len(text) > MAX_QUERY_LENGTH:
        raise BadRequest(f"is longer than {MAX_QUERY_LENGTH} characters")
    query = _parse(text)
    if query is None:
        raise BadRequest("is not a SMARTS or a SMILES that RDKit can read")
    return query


def match_each(smiles: list[str], query: Chem.Mol) -> list[bool]:
    """Return, for each SMILES, whether its molecule contains ``query`` (unparsable: no)."""
    out = []
    with BlockLogs():  # an unparsable SMILES in the set simply does not match
        for text in smiles:
            mol = Chem.MolFromSmiles(text) if len(text) <= MAX_SMILES else None
            out.append(mol is not None and mol.HasSubstructMatch(query))
    return out


def match_within_budget(smiles: list[str], text: str) -> list[bool]:
    """Return ``match_each`` of the query ``text``, computed in a budgeted child process.

    A molecule whose match takes longer than ``ITEM_SECONDS`` (a hostile pair of query and
    molecule: matching is exponential in the worst case) counts as not matching, as do the
    molecules not reached in ``TOTAL_SECONDS``; both are logged (``budget``).
    """
    found = budget.worker("substructure").run_each(
        "contains", smiles, (text,), item_seconds=ITEM_SECONDS, total_seconds=TOTAL_SECONDS)
    return [answer is True for answer in found]


@budget.task("contains")
def contains(smiles: str, query_text: str) -> bool:
    """Whether the molecule of ``smiles`` holds the query (parsed once, cached)."""
    return match_each([smiles], parse_query(query_text))[0]


@budget.task("confirm")
def confirm_one(item: bytes | str, query_text: str) -> bool:
    """Whether a candidate holds the query: ``item`` is its record (``pattern_screen``)
    or its SMILES (unreadable: no). The child's task."""
    query = parse_query(query_text)
    if isinstance(item, bytes):
        try:
            return pattern_screen.mol_of(item).HasSubstructMatch(query)
        except (ValueError, RuntimeError, zlib.error):  # a damaged record: no molecule
            return False
    return match_each([item], query)[0]


@budget.task("confirm_block")
def confirm_block(items: list[bytes | str], query_text: str) -> list[bool]:
    """Return ``confirm_one`` of each item, the records matched by RDKit's
    ``SubstructLibrary`` (module doc). The child's task."""
    query = parse_query(query_text)
    holder = rdSubstructLibrary.CachedMolHolder()
    out, positions = [False] * len(items), []
    for index, item in enumerate(items):
        if not isinstance(item, bytes):
            out[index] = match_each([item], query)[0]
            continue
        try:
            holder.AddBinary(pattern_screen.pickle_of(item))
        except (ValueError, zlib.error):  # a damaged record: no molecule
            continue
        positions.append(index)
    if not positions:
        return out
    library = rdSubstructLibrary.SubstructLibrary(holder)
    # HasSubstructMatch's parameters: chirality ignored, recursion allowed, and one match
    # is enough (the default 1,000 enumerates every benzene ring's 12 mappings: slower).
    parameters = Chem.SubstructMatchParameters()
    parameters.maxMatches = 1
    try:
        hits = library.GetMatches(query, parameters, THREADS, -1)
    except RuntimeError:  # a pickle RDKit cannot read: each record read on its own
        return [confirm_one(item, query_text) for item in items]
    for hit in hits:
        out[positions[hit]] = True
    return out


@budget.task("query_pattern")
def query_pattern(query_text: str) -> bytes:
    """Return the packed pattern fingerprint of the query (b"": none, screen nothing).
    The child's task: the parent has already refused a query it cannot read."""
    try:
        query = parse_query(query_text)
    except BadRequest:
        return b""
    if query.GetNumBonds() > DENSE_QUERY * query.GetNumAtoms():
        return b""  # no chemical query; RDKit's time and memory explode on it (module doc)
    try:
        return pattern_screen.bits_of(query)
    except (RuntimeError, ValueError):
        return b""


def query_bits(query_text: str) -> bytes:
    """Return ``query_pattern`` computed in the budgeted child (b"" if it overran)."""
    found = budget.worker("substructure").run_one("query_pattern", query_text,
                                                  seconds=PATTERN_SECONDS)
    return found if isinstance(found, bytes) else b""


def confirm_within_budget(candidates: int, chunks: Iterable[list], query_text: str, *,
                          seconds: float | None = None, worker: str = "substructure",
                          niceness: int = 0, progress: Callable[[int, int], None] | None = None
                          ) -> list[bool]:
    """Return ``confirm_one`` of each candidate, the ``chunks`` (lists of records or
    SMILES, ``candidates`` items in all) sent to the child one after the other, ``BLOCK``
    at a time (``confirm_block``; a block over ``ITEM_SECONDS``: one by one); raise
    ``TooBroad`` when ``seconds`` (default ``TOTAL_SECONDS``) run out before the last one
    is checked. ``worker`` names the child (``budget.worker``: a background count has its
    own, at ``niceness``); ``progress(checked, matched)`` is told after each chunk."""
    seconds = TOTAL_SECONDS if seconds is None else seconds
    deadline = time.monotonic() + seconds
    child = budget.worker(worker, niceness)
    found: list[bool] = []
    matched = 0

    def run(task: str, items: list) -> list:
        try:
            return _run(child, task, items, query_text, deadline)
        except _OutOfTime as late:
            raise TooBroad(len(found) + late.reached, candidates, seconds) from None

    for chunk in chunks:
        blocks = [chunk[start:start + BLOCK] for start in range(0, len(chunk), BLOCK)]
        answers = run("confirm_block", blocks) if blocks else []
        for block, answer in zip(blocks, answers, strict=True):
            if answer is budget.OVERRUN:  # a hostile molecule in it (or the time is up)
                answer = run("confirm", block)
            confirmed = [item is True for item in answer]
            found.extend(confirmed)
            matched += sum(confirmed)
        if progress is not None:
            progress(len(found), matched)
    return found


class _OutOfTime(Exception):
    """The deadline came with ``reached`` candidates of the task answered."""

    def __init__(self, reached: int):
        super().__init__(reached)
        self.reached = reached


def _run(worker: budget.ChemistryWorker, task: str, items: list, query_text: str,
         deadline: float) -> list:
    """Return the child's answers of ``task`` over ``items`` within what is left before
    ``deadline``; raise ``_OutOfTime`` when it runs out."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise _OutOfTime(0)
    answers = worker.run_each(task, items, (query_text,), item_seconds=ITEM_SECONDS,
                              total_seconds=left)
    if answers and answers[-1] is budget.OVERRUN and time.monotonic() >= deadline:
        reached = max((i + 1 for i, a in enumerate(answers) if a is not budget.OVERRUN),
                      default=0)
        if task == "confirm_block":
            reached = sum(len(block) for block in items[:reached])
        raise _OutOfTime(reached)
    return answers


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
