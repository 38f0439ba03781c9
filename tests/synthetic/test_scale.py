"""``seed-demo --results N``: N realistic results in the two big pipelines, read back
through the compute API the viewer uses; and the default seed stays exactly as it was.

N = 1,200 crosses the API's largest page (1,000), so the walk needs a cursor, and the
download is of a result on the second page.
"""

from __future__ import annotations

import hashlib
import io
import json
import statistics
import tempfile
import threading
import zipfile
from collections import Counter
from datetime import datetime
from urllib.parse import urlsplit

import gemmi
import pytest
import sqlalchemy as sa
from rdkit import Chem, RDLogger

from app.artifact_storage import path_for
from app.platform.db import get_engine
from app.platform.ids import is_record_id, new_id
from app.store import schema
from app.synthetic import scale
from app.synthetic.catalog import build_catalog
from tests.support.apps import make_test_app
from tests.support.databases import migrated_database

# The module fixture seeds a whole demo through the CLI: seconds before the first test.
pytestmark = pytest.mark.slow

RDLogger.DisableLog("rdApp.*")

N = 1200
SCALED = set(scale.SCALED_KINDS)
# Today's sizes of the pipelines that --results leaves alone.
DEFAULT_SIZES = {"protein_redesign": 24, "protein_sequence_redesign": 30,
                 "protein_library_screen": 36, "small_molecule_design": 28,
                 "small_molecule_explore": 38}
# The progress fields that count a run's results (the SDK's; the share read has no kind).
COUNTS = ("num_proteins_generated", "num_proteins_screened", "num_molecules_generated",
          "num_molecules_screened", "num_molecules_scored")


def result_count(record: dict) -> int:
    """Return how many results a run record's progress counts."""
    return next(record["progress"][k] for k in COUNTS if k in record["progress"])


@pytest.fixture(scope="module")
def scaled(tmp_path_factory):
    """Run ``flask seed-demo --results 1200 --json`` once on a fresh database."""
    tmp = tmp_path_factory.mktemp("demo_scale")
    url, drop = migrated_database(tmp)
    app = make_test_app(url, tmp)
    result = app.test_cli_runner().invoke(args=["seed-demo", "--results", str(N), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    client = app.test_client()
    link = summary["share_links"]["public"]["id"]
    read = {p["id"]: p for p in client.get(f"/compute/v1/share/{link}").get_json()[
        "pipelines"]}
    pipelines = {kind: read[pipeline_id] for kind, pipeline_id in summary["pipelines"].items()}
    records = {kind: _walk(client, link, pipelines[kind]["id"]) for kind in SCALED}
    yield app, client, summary, pipelines, records
    get_engine(app).dispose()
    drop()


def _walk(client, link: str, pipeline_id: str) -> list[dict]:
    """Return every result of a pipeline, a page of 1,000 at a time (id order)."""
    out, after = [], None
    while True:
        query = "limit=1000" + (f"&after_id={after}" if after else "")
        page = client.get(f"/compute/v1/share/{link}/pipelines/{pipeline_id}/results?{query}")
        assert page.status_code == 200, page.get_data(as_text=True)
        body = page.get_json()
        out += body["data"]
        if not body["has_more"]:
            return out
        after = body["last_id"]


def _download(client, artifact: dict) -> bytes:
    url = urlsplit(artifact["url"])
    response = client.get(f"{url.path}?{url.query}")
    assert response.status_code == 200
    return response.data


@pytest.mark.dialect  # written by COPY on PostgreSQL
def test_result_count_is_n_in_the_scaled_pipelines_and_the_rest_as_today(scaled):
    _app, _client, summary, pipelines, records = scaled
    assert set(pipelines) == SCALED | set(DEFAULT_SIZES)
    for kind in SCALED:
        assert result_count(pipelines[kind]) == N == len(records[kind])
        assert pipelines[kind]["id"] == summary["pipelines"][kind]
    for kind, size in DEFAULT_SIZES.items():
        assert result_count(pipelines[kind]) == size
    assert set(summary["predictions"]) == {"structure_and_binding", "adme"}


@pytest.mark.dialect  # written by COPY on PostgreSQL
def test_ids_are_unique_record_ids_in_creation_order(scaled):
    records = scaled[4]
    all_ids = [r["id"] for kind in SCALED for r in records[kind]]
    assert len(set(all_ids)) == len(all_ids) == 2 * N
    for kind in SCALED:
        rows = records[kind]
        assert all(is_record_id(r["id"], "res") for r in rows)
        assert [r["id"] for r in rows] == sorted(r["id"] for r in rows)
        times = [r["created_at"] for r in rows]
        assert times == sorted(times) and len(set(times)) == N


def test_ids_have_the_shape_and_time_of_new_id():
    at_ms = 1_763_900_000_123
    result_id, artifact_ids = scale._ids(at_ms, 3)
    assert result_id[:14] == new_id("res", at_ms=at_ms)[:14]  # prefix and the time
    assert is_record_id(result_id, "res") and len(artifact_ids) == 3
    assert all(is_record_id(a, "art") and a[4:14] == result_id[4:14] for a in artifact_ids)
    assert len({result_id[14:], *(a[14:] for a in artifact_ids)}) == 4


@pytest.mark.dialect  # written by COPY on PostgreSQL
def test_designs_have_their_own_sequences_lengths_and_metrics(scaled):
    rows = scaled[4]["protein_design"]
    binders = [r["entities"][0] for r in rows]
    assert all(e["chain_ids"] == ["A"] and e["type"] == "protein" for e in binders)
    assert {r["entities"][1]["chain_ids"][0] for r in rows} == {"B"}
    assert len({r["entities"][1]["value"] for r in rows}) == 1  # one target
    sequences = [e["value"] for e in binders]
    assert len(set(sequences)) > 0.95 * N
    lengths = Counter(len(s) for s in sequences)
    assert len(lengths) >= 10 and min(lengths) >= 60 and max(lengths) <= 120
    assert not any(e["cyclic"] for e in binders)  # 60-120 residue miniproteins, as asked
    assert all(0 <= r["metrics"]["ipsae_min"] <= r["metrics"]["iptm"] for r in rows)
    iptm = [r["metrics"]["iptm"] for r in rows]
    assert len(set(iptm)) > 0.8 * N and statistics.pstdev(iptm) > 0.1
    binding = [r["metrics"]["binding_confidence"] for r in rows]
    assert statistics.correlation(iptm, binding) > 0.8
    codes = Counter(w["code"] for r in rows for w in r.get("warnings", []))
    assert {"unpaired_cysteine", "clashes_detected"} <= set(codes)
    assert 0.03 * N < sum(1 for r in rows if r.get("warnings")) < 0.4 * N


@pytest.mark.dialect  # written by COPY on PostgreSQL
def test_screen_has_parseable_varied_smiles_wells_adme_and_warnings(scaled):
    rows = scaled[4]["small_molecule_library_screen"]
    smiles = Counter(r["smiles"] for r in rows)
    assert len(smiles) >= 40
    for text in smiles:
        assert Chem.MolFromSmiles(text) is not None, text
    wells = [r["external_id"] for r in rows]
    assert len(set(wells)) == N and wells[0] == "L1300-01-A02" and wells[-1] == "L1300-15-H11"
    assert wells == sorted(wells)  # plate order is id order
    adme = [r for r in rows if "adme" in r]
    assert 0.3 * N < len(adme) < 0.7 * N
    assert {r["adme"]["solubility"] for r in adme} >= {"high-confidence", "medium-confidence"}
    scores = [r["metrics"]["optimization_score"] for r in rows]
    hits = sum(s > 1.0 for s in scores)
    assert 0 < hits < 0.2 * N  # a screen: few hits
    codes = {w["code"] for r in rows for w in r.get("warnings", [])}
    assert {"pains_substructure", "reactive_group"} <= codes
    with_sdf = sum("ligand_structure" in r["artifacts"] for r in rows)
    assert 0.2 * N < with_sdf < 0.5 * N


@pytest.mark.dialect  # written by COPY on PostgreSQL
def test_downloads_work_deep_in_the_set(scaled):
    _app, client, _summary, _pipelines, records = scaled
    design = records["protein_design"][1100]
    cif = _download(client, design["artifacts"]["structure"]).decode()
    structure = gemmi.make_structure_from_block(gemmi.cif.read_string(cif)[0])
    # Shared with the variants of its model: same chain lengths, same target.
    assert len(structure[0]["A"]) == len(design["entities"][0]["value"])
    assert len(structure[0]["B"]) == len(design["entities"][1]["value"])
    with zipfile.ZipFile(io.BytesIO(_download(client, design["artifacts"]["archive"]))) as z:
        assert z.testzip() is None and "metrics.json" in z.namelist()
    screened = next(r for r in records["small_molecule_library_screen"][1000:]
                    if "ligand_structure" in r["artifacts"])
    sdf = _download(client, screened["artifacts"]["ligand_structure"]).decode()
    mol = Chem.MolFromMolBlock(sdf)
    assert Chem.MolToSmiles(mol, isomericSmiles=False) == Chem.MolToSmiles(
        Chem.MolFromSmiles(screened["smiles"]), isomericSmiles=False)


@pytest.mark.dialect  # written by COPY on PostgreSQL
def test_every_result_has_its_own_artifact_rows_on_shared_files(scaled):
    app = scaled[0]
    with get_engine(app).connect() as conn:
        a, r = schema.artifacts, schema.results
        rows = list(conn.execute(
            sa.select(a.c.result_id, a.c.role, a.c.filename, a.c.storage_path, a.c.sha256,
                      a.c.size)
            .join(r, r.c.id == a.c.result_id)
            .where(r.c.pipeline_id.in_(list(scaled[2]["pipelines"][k] for k in SCALED)))))
    roles = Counter(row.result_id for row in rows if row.role in ("structure", "archive"))
    assert len(roles) == 2 * N and set(roles.values()) == {2}
    assert all(row.filename.startswith(row.result_id) for row in rows)
    files = {row.storage_path: row for row in rows}
    assert len(files) < 0.1 * len(rows)  # a pool of shared files, not one per result
    root = app.config["ARTIFACT_DIR"]
    for path, row in files.items():
        data = path_for(root, path).read_bytes()
        assert len(data) == row.size and hashlib.sha256(data).hexdigest() == row.sha256


# --- the default seed is unchanged -------------------------------------------------

# Digest of every result's content (metrics, variant, entities, warnings, SMILES, ADME,
# external id) of the default demo. Update it only when the demo data is meant to change
# (last: issue 18, SDK inputs: ipsae_min, the explore run, no cyclic or generic designs).
DEFAULT_DIGEST = "dc8ee12b3d5bd56e01c146d4f7297f833219462fa9c629611686e4d42cbfe2ac"


def test_the_default_seed_content_is_unchanged():
    with tempfile.TemporaryDirectory() as artifacts:
        data = build_catalog("ws_x", artifacts, datetime(2026, 1, 1))
    assert not data.streams and len(data.results) == 456
    digest = hashlib.sha256()
    for r in data.results:
        digest.update(json.dumps([r.metrics, r.variant, r.entities, r.warnings, r.smiles,
                                  r.adme, r.external_id], sort_keys=True).encode())
    assert digest.hexdigest() == DEFAULT_DIGEST


# --- the option's validation --------------------------------------------------------


@pytest.mark.parametrize("value", ["0", "-3", "abc", "1.5", "", "1000001"])
def test_results_must_be_a_positive_integer(runner, app, value):
    result = runner.invoke(args=["seed-demo", "--results", value, "--json"])
    assert result.exit_code == 2
    assert "--results" in result.output and "N must be a positive integer" in result.output
    with get_engine(app).connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(
            schema.organizations)).scalar() == 0


# --- rows made ahead in a thread ------------------------------------------------------


def test_prefetched_yields_every_chunk_in_order_and_raises_the_makers_error():
    assert list(scale.prefetched(iter(range(7)), depth=2)) == list(range(7))

    def failing():
        yield 1
        raise RuntimeError("boom")

    got = []
    with pytest.raises(RuntimeError, match="boom"):
        for item in scale.prefetched(failing()):
            got.append(item)
    assert got == [1]


def test_prefetched_stops_its_thread_when_the_consumer_stops_early():
    made = []

    def endless():
        n = 0
        while True:
            made.append(n)
            yield n
            n += 1

    chunks = scale.prefetched(endless(), depth=1)
    assert next(chunks) == 0
    chunks.close()  # what a failed insert does to the loop reading it
    assert not any(t.name == "demo-scale-rows" for t in threading.enumerate())
    assert len(made) <= 4
