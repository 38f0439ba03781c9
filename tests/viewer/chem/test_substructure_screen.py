"""The substructure screen (issue 21: chemistry at scale): pattern fingerprints and records
stored at index time, a new ``smarts=`` query screened in NumPy and only the candidates
confirmed in the chemistry child.

Over both small-molecule demo pools and tricky molecules (charges, isotopes, fused and
large rings, salts, an unreadable SMILES), every query of ``QUERIES`` (aromatic and
aliphatic, charges, ring and hybridisation queries, recursive SMARTS, a query that matches
everything, one that matches nothing) gives exactly what RDKit's ``HasSubstructMatch``
finds over every molecule, and what its ``SubstructLibrary`` finds; the child confirms only
the screened candidates. A frame saved before the screen (or by another RDKit) still
answers, confirming every molecule from its SMILES; a query over budget is refused."""

from __future__ import annotations

import zlib
from urllib.parse import quote

import numpy as np
import pytest
from rdkit import Chem
from rdkit.Chem import rdSubstructLibrary
from rdkit.rdBase import BlockLogs

from app.viewer.chem import index_chemistry, pattern_screen, substructure
from app.viewer.core.errors import BadRequest
from app.viewer.explore import substructure_answers
from app.viewer.explore.index import chem_index, frame, frame_chemistry
from app.viewer.explore.index.frame_screen import Screen
from app.viewer.runtime import budget
from tests.support.molecule_pools import POOLS, UNPARSABLE, pool_pipeline

TRICKY = ["c1ccc2ccccc2c1", "C1CC2CCC1CC2", "c1ccc2c(c1)ccc1ccccc12", "C1CCCCCCCCC1",
          "O=[N+]([O-])c1ccccc1", "CN(=O)=O", "C[N+](C)(C)C", "CC(=O)[O-].[Na+]",
          "[2H]C([2H])([2H])O", "[NH4+]", "C[S@@](=O)c1ccccc1", "F/C=C/F", "c1cc[nH]c1",
          "C1=CC=CC=C1O", "O", "C", "N#N", "c1ccc(N=Nc2ccccc2)cc1", "C=CC(=O)NC"]
POOL = list(dict.fromkeys([s for pool in POOLS.values() for s in pool] + TRICKY))
QUERIES = ["c1ccccc1", "C1=CC=CC=C1", "C1CCCCC1", "c1ccc(Cl)cc1", "[N+](=O)[O-]",
           "N(=O)=O", "[O-]", "[N+;H0]", "[NH4+]", "[2H]", "[r5]", "[R2]", "[r10]", "[x3]",
           "[^2]", "[C^3]", "C@C", "[a;!c]", "[A;R]", "[$([NX3;H2,H1;!$(NC=O)])]",
           "[CX3](=O)[OX2H1,OX1-]", "[$(c1ccccc1)]-[!#6]", "C=CC(=O)N", "S(=O)(=O)N",
           "C#N", "F/C=C/F", "[#6]", "*", "[#7,#8]~[#6]", "[Se]", "C1CCCCCCCCCCC1",
           "[cH0;!$(c[#7])](F)"]
EVERYTHING, NOTHING = "*", "[Se]"


def _screened(smiles: list[str]) -> frame.Molecules:
    """Molecules with the screen as the index build makes it (``screen_now``)."""
    answers = {s: (None, None, b"", *index_chemistry.screen_now(s)) for s in smiles}
    return frame.Molecules(np.arange(len(smiles), dtype=np.int32), list(smiles),
                           frame_chemistry.assemble(smiles, answers))


@pytest.fixture(scope="module")
def molecules() -> frame.Molecules:
    return _screened(POOL)


@pytest.fixture
def confirmed(monkeypatch) -> list[int]:
    """How many candidates each ``smarts`` answer sent to the child to confirm."""
    sent: list[int] = []
    run_each = budget.ChemistryWorker.run_each

    def counted(self, task, items, *args, **kwargs):
        if task in ("confirm", "contains"):
            sent.append(len(items))
        if task == "confirm_block":  # each item a block of candidates
            sent.append(sum(len(block) for block in items))
        return run_each(self, task, items, *args, **kwargs)

    monkeypatch.setattr(budget.ChemistryWorker, "run_each", counted)
    return sent


@pytest.fixture(scope="module")
def rdkit_answers():
    """RDKit's own answers to a query: every molecule parsed from its SMILES and matched,
    and its ``SubstructLibrary`` (pattern fingerprint screen, then match)."""
    with BlockLogs():
        mols = [Chem.MolFromSmiles(s) for s in POOL]
    library = rdSubstructLibrary.SubstructLibrary(rdSubstructLibrary.CachedMolHolder(),
                                                  rdSubstructLibrary.PatternHolder())
    positions = {library.AddMol(mol): index for index, mol in enumerate(mols)
                 if mol is not None}

    def answer(query: str) -> tuple[list[bool], list[bool]]:
        pattern = substructure.parse_query(query)
        plain = [m is not None and m.HasSubstructMatch(pattern) for m in mols]
        screened = [False] * len(POOL)
        for hit in library.GetMatches(pattern, useChirality=False, maxResults=len(POOL)):
            screened[positions[hit]] = True
        return plain, screened

    return answer


@pytest.mark.slow
def test_every_query_finds_what_rdkit_finds_and_confirms_only_candidates(
        molecules, confirmed, rdkit_answers):
    assert molecules.chemistry.screen.valid.sum() == len(POOL) - 1  # UNPARSABLE
    for query in QUERIES:
        confirmed.clear()
        found = substructure_answers.matching(molecules, query).tolist()
        expected, library = rdkit_answers(query)
        assert found == expected == library, query
        screen = molecules.chemistry.screen
        candidates = pattern_screen.screen(screen.bits, screen.valid, np.frombuffer(
            substructure.query_pattern(query), dtype=np.uint8))
        assert sum(confirmed) == len(candidates) >= sum(expected), query
    assert all(rdkit_answers(EVERYTHING)[0][i] for i, s in enumerate(POOL) if s != UNPARSABLE)
    assert not any(rdkit_answers(NOTHING)[0])
    confirmed.clear()
    substructure_answers.matching(molecules, "C#N")  # a selective query: few confirmed
    assert 0 < sum(confirmed) < len(POOL) // 3


def test_a_frame_without_a_current_screen_confirms_every_molecule(molecules, confirmed,
                                                                  rdkit_answers):
    screen = molecules.chemistry.screen
    old = frame.Molecules(molecules.codes, molecules.smiles,
                          frame_chemistry.Chemistry(**{
                              **vars(molecules.chemistry), "screen": None}))
    other = Screen("rdkit-pattern-2048/2000.01.1", screen.bits, screen.valid,
                   screen.records, screen.ends)
    older = frame.Molecules(molecules.codes, molecules.smiles, frame_chemistry.Chemistry(
        **{**vars(molecules.chemistry), "screen": other}))
    for before in (old, older, frame.Molecules(molecules.codes, molecules.smiles)):
        confirmed.clear()
        found = substructure_answers.matching(before, "c1ccc(Cl)cc1").tolist()
        assert found == rdkit_answers("c1ccc(Cl)cc1")[0] and sum(confirmed) == len(POOL)


def test_the_screen_survives_a_save_and_an_older_frame_loads_without_it(molecules):
    chunks = [{key: [None] * len(POOL) for key in frame.STORED_NUMBERS} | {
        "result_id": [f"r{i}" for i in range(len(POOL))], "created_at": [None] * len(POOL),
        "external_id": [None] * len(POOL), "variant": [None] * len(POOL),
        "solubility": [None] * len(POOL), "warning_codes": [None] * len(POOL),
        "smiles": POOL}]
    built = frame.build(chunks)
    built.molecules.chemistry = molecules.chemistry
    loaded = frame.from_bytes(frame.to_bytes(built)).molecules.chemistry.screen
    for key in ("bits", "valid", "records", "ends"):
        assert np.array_equal(getattr(loaded, key), getattr(molecules.chemistry.screen, key))
    assert loaded.current
    arrays = {k[2:]: v for k, v in frame_chemistry.to_arrays(molecules.chemistry).items()}
    before = {k: v for k, v in arrays.items() if not k.startswith("screen_")}
    kept = frame_chemistry.from_arrays(before, len(POOL))
    assert kept is not None and kept.screen is None  # its other chemistry kept
    wrong = {**arrays, "screen_ends": arrays["screen_ends"][:-1]}
    assert frame_chemistry.from_arrays(wrong, len(POOL)).screen is None
    # A damaged record (a saved frame is data) is no molecule, never a crash or a bomb.
    for record in (b"garbage", zlib.compress(b"garbage"), zlib.compress(bytes(2 << 20))):
        assert substructure.confirm_one(record, "C") is False


def test_a_rebuild_gives_a_frame_saved_before_the_screen_only_the_screen(monkeypatch):
    smiles = ["CCO", "c1ccccc1O", UNPARSABLE]
    before = frame_chemistry.assemble(smiles, {s: index_chemistry.molecule_now(s)
                                               for s in smiles})
    before.screen = None
    tasks: list[str] = []
    compute = index_chemistry.compute
    monkeypatch.setattr(index_chemistry, "compute", lambda items, seconds, task="molecule":
                        tasks.append(task) or compute(items, seconds, task))
    chunks = [{key: [None] * 3 for key in frame.STORED_NUMBERS} | {
        "result_id": ["a", "b", "c"], "created_at": [None] * 3, "external_id": [None] * 3,
        "variant": [None] * 3, "solubility": [None] * 3, "warning_codes": [None] * 3,
        "smiles": smiles}]
    previous = frame.build(chunks)
    previous.molecules.chemistry = before
    built = frame.build(chunks)
    chem_index.MoleculeWork().complete(built, previous)
    screen = built.molecules.chemistry.screen
    assert tasks == ["molecule", "screen"] and screen.valid.tolist() == [True, True, False]
    assert screen.bits[1].tobytes() == pattern_screen.bits_of(Chem.MolFromSmiles(smiles[1]))


@pytest.mark.slow
def test_a_block_confirms_what_each_candidate_alone_does(molecules):
    """``confirm_block`` (RDKit's C++ over the records, two threads) answers every query as
    ``confirm_one`` does, records and SMILES mixed, damaged records matching nothing."""
    screen = molecules.chemistry.screen
    records = screen.records_of(np.arange(len(POOL)))
    damaged = [b"garbage", zlib.compress(b"garbage"), zlib.compress(bytes(2 << 20))]
    items = [record or text for record, text in zip(records, POOL, strict=True)]
    items += damaged + POOL[:5] + [UNPARSABLE]  # some candidates read from their SMILES
    both = 0
    for query in QUERIES:
        expected = [substructure.confirm_one(item, query) for item in items]
        assert substructure.confirm_block(items, query) == expected, query
        both += any(expected) and not all(expected)
    assert both > len(QUERIES) // 2  # the answers are no constant
    assert substructure.confirm_block([], "C") == []
    assert substructure.confirm_block(damaged, "*") == [False] * 3


@pytest.mark.slow
def test_a_hostile_molecule_in_a_block_costs_its_budget_and_no_other_answer(monkeypatch):
    """A block holding a molecule that blows up the matcher overruns; its candidates are
    then confirmed one by one: only that one counts as not matching (logged)."""
    from tests.support.hostile_molecules import CORPUS

    ring = "*1" + "~*" * 44 + "1"
    smiles = ["C1CCCCC1", CORPUS["polyacene 20 rings"], "C" * 50, "c1ccccc1"]
    records = [index_chemistry.screen_now(s)[1] for s in smiles]
    monkeypatch.setattr(substructure, "ITEM_SECONDS", 0.5)
    monkeypatch.setattr(substructure, "BLOCK", 3)
    found = substructure.confirm_within_budget(len(records) * 2, iter([records, records]),
                                               ring)
    assert found == [False] * 8  # no ring of 45 anywhere; the polyacene's answer cut short
    found = substructure.confirm_within_budget(4, iter([records]), "[R]")
    assert found == [True, True, False, True]


def test_a_query_over_its_budget_is_refused_saying_how_far_it_got(molecules, monkeypatch):
    monkeypatch.setattr(substructure, "TOTAL_SECONDS", 0.0)
    with pytest.raises(substructure.TooBroad) as refused:
        substructure_answers.matching(molecules, "c1ccccc1")
    assert refused.value.status == 400 and refused.value.checked == 0
    assert "'smarts' has" in refused.value.message and "more specific" in refused.value.message


@pytest.mark.slow
def test_the_results_view_answers_rdkits_set_and_a_bad_query_is_a_400(app, client, org):
    path, smiles_of = pool_pipeline(app, org, "small_molecule_library_screen")
    assert client.get(f"{path}?sort=id").status_code == 200  # builds the index
    for query in ("c1ccc(Cl)cc1", "[$([NX3;H2,H1;!$(NC=O)])]", "C#N", "*", "[Se]"):
        data = client.get(f"{path}/explore.json?smarts={quote(query, safe='')}").get_json()
        pattern = substructure.parse_query(query)
        with BlockLogs():
            expected = sum(1 for s in smiles_of.values()
                           if (m := Chem.MolFromSmiles(s)) and m.HasSubstructMatch(pattern))
        assert data["matched"] == expected, query
    bad = client.get(f"{path}/explore.json?smarts=%5B%236")
    assert bad.status_code == 400 and "not a SMARTS" in bad.get_json()["error"]
    with pytest.raises(BadRequest):
        substructure.parse_query("[#6")


def test_a_graph_query_is_not_fingerprinted_and_still_answered(molecules, rdkit_answers):
    # A complete graph of 6 atoms (RDKit's pattern fingerprint of 12 takes 50 s and 20 GB).
    closures = iter(range(1, 30))
    labels = {(i, j): next(closures) for i in range(6) for j in range(i + 2, 6)}
    digits = {pair: str(n) if n < 10 else f"%{n}" for pair, n in labels.items()}
    graph = "".join("*" + "".join(digits[min(i, j), max(i, j)]
                                  for j in range(6) if abs(i - j) > 1) for i in range(6))
    assert substructure.parse_query(graph).GetNumBonds() == 15
    assert substructure.query_pattern(graph) == b""
    assert substructure.query_pattern("C1CC2CCC1CC2") != b""  # a bicycle is chemistry
    assert substructure_answers.matching(molecules, graph).tolist() == \
        rdkit_answers(graph)[0] == [False] * len(POOL)
