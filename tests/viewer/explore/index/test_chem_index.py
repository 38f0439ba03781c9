"""Chemistry at index time (issue 20: alerts, scaffolds and fingerprints computed once per
distinct molecule when the index is built, not on the first request).

Over both small-molecule demo pipelines, the saved frame's alerts equal RDKit
FilterCatalog's, its scaffolds MurckoScaffold's and Tanimoto on its packed fingerprints
RDKit's ``BulkTanimotoSimilarity`` exactly; after a build, alert, scaffold and similarity
requests on a fresh worker ask the chemistry child nothing; the frame's arrays survive a
save and load; a molecule that overruns its budget is unknown and the build finishes."""

from __future__ import annotations

from urllib.parse import quote

import numpy as np
import pytest
from rdkit import Chem, DataStructs
from rdkit.Chem import rdFingerprintGenerator
from rdkit.Chem.Scaffolds import MurckoScaffold

from app.viewer.chem import alerts, fingerprint_bits, index_chemistry, scaffolds
from app.viewer.chem import similarity as chem_similarity
from app.viewer.explore import answers, chem_answers
from app.viewer.explore.index import chem_index, frame, frame_chemistry
from app.viewer.runtime import budget
from app.viewer.store import get_engine as viewer_engine
from app.viewer.store import index_queries, result_index
from tests.support.rdkit_reference import alert_catalog

SMALL = ("small_molecule_design", "small_molecule_library_screen")
CHEMISTRY_TASKS = {"alerts", "scaffold", "fingerprint", "molecule"}


GENERATOR = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)


@pytest.fixture
def child_calls(monkeypatch) -> list[str]:
    """Every chemistry task sent to a budgeted child, by name (drawings left out)."""
    calls: list[str] = []
    run_each = budget.ChemistryWorker.run_each

    def counted(self, task, items, *args, **kwargs):
        if task in CHEMISTRY_TASKS:
            calls.append(task)
        return run_each(self, task, items, *args, **kwargs)

    monkeypatch.setattr(budget.ChemistryWorker, "run_each", counted)
    return calls


def _saved_frame(app, pipeline_id: str) -> frame.Frame:
    with viewer_engine(app).connect() as conn:
        saved = index_queries.saved_frame(conn, pipeline_id)
    assert saved is not None
    return frame.from_bytes(saved[1])


def _forget_everything() -> None:
    """A fresh worker: no frame, no answer, no molecule cached in this process."""
    answers.clear_caches()
    chem_answers.clear_caches()
    alerts.clear_cache()
    scaffolds.clear_cache()
    chem_similarity.clear_cache()


def _build(client, demo, kind: str) -> str:
    path = f"/share/{demo['share_links']['public']['id']}/pipelines/{demo['pipelines'][kind]}"
    assert client.get(f"{path}?sort=id").status_code == 200  # builds the index
    return path


@pytest.mark.reads_demo
def test_the_saved_frame_holds_rdkits_answers_for_every_demo_molecule(app, client, demo):
    catalog = alert_catalog()
    for kind in SMALL:
        _build(client, demo, kind)
        data = _saved_frame(app, demo["pipelines"][kind])
        molecules = data.molecules
        chemistry = molecules.chemistry
        assert chemistry is not None and len(molecules.smiles) == chemistry.size > 10
        mols = [Chem.MolFromSmiles(s) for s in molecules.smiles]
        assert all(mol is not None for mol in mols)
        for index, mol in enumerate(mols):
            assert chemistry.names_of(index) == tuple(
                e.GetDescription() for e in catalog.GetMatches(mol)), molecules.smiles[index]
            code = chemistry.scaffold_codes[index]
            assert chemistry.scaffold_names[code] == Chem.MolToSmiles(
                MurckoScaffold.GetScaffoldForMol(mol))
        fps = [GENERATOR.GetFingerprint(mol) for mol in mols]
        assert chemistry.fingerprint_valid.all()
        for index, fp in enumerate(fps):  # the same bits, and Tanimoto to the last bit
            assert np.array_equal(chemistry.fingerprint_bits[index],
                                  fingerprint_bits.from_rdkit(fp))
            expected = np.array(DataStructs.BulkTanimotoSimilarity(fp, fps))
            found = fingerprint_bits.tanimoto(chemistry.fingerprint_bits[index],
                                              chemistry.fingerprint_bits)
            assert np.array_equal(found, expected)


# Not reads_demo: the build it counts on is this test's own (no index before it).
@pytest.mark.slow
def test_after_a_build_requests_ask_the_chemistry_child_nothing(app, client, demo,
                                                                child_calls):
    for kind in SMALL:
        path = _build(client, demo, kind)
        assert "molecule" in child_calls  # the build computed the chemistry
        data = _saved_frame(app, demo["pipelines"][kind])
        child_calls.clear()
        _forget_everything()
        first = data.id_list(np.array([0]))[0]
        names = data.molecules.chemistry.alert_names
        for query in ("sort=id", "alerts=any", "alerts=none&alert_family=pains",
                      f"alert={quote(names[0], safe='')}" if names else "alerts=any",
                      "group=scaffold&sort=id",
                      f"similar_to={first}&sort=-similarity&similarity__gte=0.2"):
            assert client.get(f"{path}?{query}").status_code == 200, query
        facets = client.get(f"{path}/explore.json").get_json()["facets"]
        assert sum(facets["alerts"].values()) == np.count_nonzero(data.molecules.codes >= 0)
        assert client.get(f"{path}/export.csv?alerts=any").status_code == 200
        assert child_calls == []


@pytest.mark.reads_demo
def test_similar_to_a_pasted_smiles_equals_rdkit_from_the_index(app, client, demo):
    aspirin = "CC(=O)Oc1ccccc1C(=O)O"
    query = GENERATOR.GetFingerprint(Chem.MolFromSmiles(aspirin))
    for kind in SMALL:
        _build(client, demo, kind)
        data = _saved_frame(app, demo["pipelines"][kind])
        state = _state(app, demo["pipelines"][kind])
        column = chem_answers.similarity_column(state, data, aspirin)
        molecules = data.molecules
        fps = [GENERATOR.GetFingerprint(Chem.MolFromSmiles(s)) for s in molecules.smiles]
        per_molecule = np.array(DataStructs.BulkTanimotoSimilarity(query, fps))
        assert np.array_equal(column, per_molecule[molecules.codes])


def _state(app, pipeline_id: str):
    with viewer_engine(app).connect() as conn:
        return result_index.get(conn, pipeline_id)


def test_a_frame_keeps_its_chemistry_through_save_and_load():
    smiles = ["O=C1NC(=S)SC1=Cc1ccccc1", "CCO", "C1CC(=O", "c1ccccc1O"]
    chunks = [{key: [None] * 5 for key in frame.STORED_NUMBERS} | {
        "result_id": [f"r{i}" for i in range(5)], "created_at": [None] * 5,
        "external_id": [None] * 5, "variant": [None] * 5, "solubility": [None] * 5,
        "warning_codes": [None] * 5, "smiles": [smiles[0], None, *smiles[1:]]}]
    built = frame.build(chunks)
    known = {s: index_chemistry.molecule_now(s) for s in smiles}
    built.molecules.chemistry = frame_chemistry.assemble(built.molecules.smiles, known)
    loaded = frame.from_bytes(frame.to_bytes(built)).molecules
    before = built.molecules.chemistry
    assert loaded.smiles == built.molecules.smiles
    for key in ("alert_offsets", "alert_codes", "alerts_known", "scaffold_codes",
                "fingerprint_bits", "fingerprint_valid"):
        assert np.array_equal(getattr(loaded.chemistry, key), getattr(before, key)), key
    for key in ("alert_names", "alert_smarts", "scaffold_names"):
        assert getattr(loaded.chemistry, key) == getattr(before, key), key
    assert loaded.chemistry.names_of(0) == tuple(name for name, _ in known[smiles[0]][0])
    assert loaded.chemistry.names_of(2) is None  # unreadable: unknown
    assert not loaded.chemistry.fingerprint_valid[2]
    assert frame_chemistry.answers_of(loaded.smiles, loaded.chemistry) == {
        s: a for s, a in known.items() if a[0] is not None}


def test_a_saved_chemistry_that_does_not_fit_its_molecules_is_ignored():
    chemistry = frame_chemistry.assemble(["CCO", "c1ccccc1"], {
        s: index_chemistry.molecule_now(s) for s in ("CCO", "c1ccccc1")})
    arrays = {k[2:]: v for k, v in frame_chemistry.to_arrays(chemistry).items()}
    assert frame_chemistry.from_arrays(arrays, 2) is not None
    assert frame_chemistry.from_arrays(arrays, 3) is None
    assert frame_chemistry.from_arrays({**arrays, "scaffold_codes": np.array([0, 7])},
                                       2) is None
    assert frame_chemistry.from_arrays({}, 2) is None


def test_a_molecule_over_budget_is_unknown_and_the_build_finishes(monkeypatch):
    slow = "C1" + "C" * 38 + "1"
    # No time at all: every molecule overruns (the child is killed, never waited for).
    monkeypatch.setattr(index_chemistry, "ITEM_SECONDS", 0.0)
    monkeypatch.setattr(budget, "FLUSH_SECONDS", 0.0)
    work = chem_index.MoleculeWork()
    work.add_page(["CCO", slow])
    chunks = [{key: [None] for key in frame.STORED_NUMBERS} | {
        "result_id": ["r0"], "created_at": [None], "external_id": [None],
        "variant": [None], "solubility": [None], "warning_codes": [None],
        "smiles": [slow]}]
    built = frame.build(chunks)
    work.complete(built, None)
    work.close()
    chemistry = built.molecules.chemistry
    assert chemistry.names_of(0) is None and chemistry.scaffold_codes[0] == -1
    assert not chemistry.fingerprint_valid[0]
