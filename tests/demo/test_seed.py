"""The demo seeder: the ``seed-demo --json`` contract, and data a scientist would believe.

One seeded database serves the module (seeding takes a few seconds); every check reads it
back from the tables, the artifact files and the API the viewer uses. ``create-org`` is
tested here too because it shares the command-line contract of DESIGN.md.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import re
import statistics
import time
import zipfile
from datetime import datetime, timedelta

import gemmi
import pytest
import sqlalchemy as sa
from rdkit import Chem, RDLogger

from app.artifact_storage import path_for
from app.demo.seed import seed_demo
from app.platform.db import get_engine
from app.store import schema
from app.synthetic.chemistry import LIGAND_CCD, MODIFIED_RESIDUES, all_smiles
from tests.support.apps import make_test_app
from tests.support.databases import migrated_database

# The module fixture seeds a whole demo through the CLI: seconds before the first test.
pytestmark = pytest.mark.slow

RDLogger.DisableLog("rdApp.*")

KINDS = {
    "protein_design", "protein_redesign", "protein_sequence_redesign",
    "protein_library_screen", "small_molecule_design", "small_molecule_library_screen",
    "small_molecule_explore",
}
PROTEIN_KINDS = {k for k in KINDS if k.startswith("protein")}
SMALL_KINDS = KINDS - PROTEIN_KINDS
# Kinds whose results carry the library's compound or well ids.
SCREENS = {"protein_library_screen", "small_molecule_library_screen",
           "small_molecule_explore"}
# ipsae_min is beyond the spec: the real API sends it with binder metrics.
BINDER_KEYS = {"binding_confidence", "helix_fraction", "iptm", "ipsae_min", "loop_fraction",
               "min_interaction_pae", "sheet_fraction", "structure_confidence"}
GENERIC_KEYS = {"helix_fraction", "loop_fraction", "sheet_fraction", "structure_confidence"}
SMALL_KEYS = {"binding_confidence", "complex_iplddt", "complex_plddt", "iptm",
              "optimization_score", "ptm", "structure_confidence"}
AMINO_ACIDS = set("ACDEFGHIKLMNPQRSTVWY")


class Seeded:
    """The seeded app, the command's output and everything read back from the tables."""

    def __init__(self, app, output: str, seconds: float):
        self.app = app
        self.output = output
        self.seconds = seconds
        self.summary = json.loads(output)
        with get_engine(app).connect() as conn:
            self.pipelines = {r.kind: r for r in conn.execute(sa.select(schema.pipelines))}
            self.results = {
                kind: list(conn.execute(
                    sa.select(schema.results).where(schema.results.c.pipeline_id == p.id)
                    .order_by(schema.results.c.id)))
                for kind, p in self.pipelines.items()
            }
            self.artifacts = list(conn.execute(sa.select(schema.artifacts)))
            self.predictions = {r.application: r for r in conn.execute(
                sa.select(schema.predictions))}
            self.usage = list(conn.execute(sa.select(schema.usage_records)))

    def artifacts_of(self, owner_id: str) -> dict:
        """Return {role: artifact row} of a result or prediction."""
        return {a.role: a for a in self.artifacts if owner_id in (a.result_id, a.prediction_id)}

    def read(self, artifact) -> bytes:
        """Return the bytes of a stored artifact file."""
        return path_for(self.app.config["ARTIFACT_DIR"], artifact.storage_path).read_bytes()

    def all_results(self) -> list:
        return [r for rows in self.results.values() for r in rows]


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    """Run ``flask seed-demo --json`` once on a fresh database (SQLite or PostgreSQL)."""
    tmp = tmp_path_factory.mktemp("demo")
    url, drop = migrated_database(tmp)
    app = make_test_app(url, tmp)
    started = time.monotonic()
    result = app.test_cli_runner().invoke(args=["seed-demo", "--json"])
    seconds = time.monotonic() - started
    assert result.exit_code == 0, result.output
    yield Seeded(app, result.output, seconds)
    get_engine(app).dispose()
    drop()


# --- the JSON contract --------------------------------------------------------------


def test_seed_demo_prints_exactly_one_json_object_with_the_contract_keys(seeded):
    assert seeded.output.count("\n") == 1 and seeded.output.endswith("}\n")
    s = seeded.summary
    assert set(s) == {"organization_id", "admin_key", "workspace_id", "workspace_key",
                      "pipelines", "predictions", "share_links"}
    for key in ("organization_id", "admin_key", "workspace_id", "workspace_key"):
        assert isinstance(s[key], str) and s[key]
    assert set(s["pipelines"]) == KINDS
    assert set(s["predictions"]) == {"structure_and_binding", "adme"}
    assert all(isinstance(v, str) for v in [*s["pipelines"].values(),
                                            *s["predictions"].values()])
    assert set(s["share_links"]) == {"public", "email"}
    assert set(s["share_links"]["public"]) == {"id", "url"}
    assert set(s["share_links"]["email"]) == {"id", "url", "allowed_emails"}
    for link in s["share_links"].values():
        assert link["url"] == f"http://viewer.test/share/{link['id']}"
    emails = s["share_links"]["email"]["allowed_emails"]
    assert emails and all("@" in e for e in emails)


def test_seed_demo_is_fast(seeded):
    # A newcomer's first run must show a link quickly; generous for shared CI machines.
    assert seeded.seconds < 30


def test_the_keys_work_and_the_links_cover_what_the_contract_says(seeded):
    s = seeded.summary
    client = seeded.app.test_client()
    admin = client.get("/compute/v1/admin/workspaces", headers={"x-api-key": s["admin_key"]})
    assert admin.status_code == 200
    assert s["workspace_id"] in [w["id"] for w in admin.get_json()["data"]]
    assert len(admin.get_json()["data"]) == 2  # default plus a second workspace
    public = client.get(f"/compute/v1/share-links/{s['share_links']['public']['id']}",
                        headers={"x-api-key": s["workspace_key"]}).get_json()
    assert public["access_parameters"] == {"access_mode": "public"}
    assert public["pipeline_ids"] == list(s["pipelines"].values())
    assert sorted(public["prediction_ids"]) == sorted(s["predictions"].values())
    email = client.get(f"/compute/v1/share-links/{s['share_links']['email']['id']}",
                       headers={"x-api-key": s["admin_key"]}).get_json()
    assert email["access_parameters"]["access_mode"] == "email"
    assert email["access_parameters"]["allowed_emails"] == s["share_links"]["email"][
        "allowed_emails"]
    assert 1 <= len(email["pipeline_ids"]) < len(KINDS)
    now = datetime.utcnow()
    for body, days in ((public, 14), (email, 7)):
        expires = datetime.fromisoformat(body["expires_at"].rstrip("Z"))
        assert abs((expires - now) - timedelta(days=days)) < timedelta(minutes=5)
    read = client.get(f"/compute/v1/share/{s['share_links']['public']['id']}")
    assert read.status_code == 200


# --- pipelines and results --------------------------------------------------------


def test_one_pipeline_per_kind_with_enough_results_and_a_true_result_count(seeded):
    assert set(seeded.pipelines) == KINDS
    for kind, pipeline in seeded.pipelines.items():
        assert pipeline.id == seeded.summary["pipelines"][kind]
        assert pipeline.workspace_id == seeded.summary["workspace_id"]
        assert pipeline.name
        assert pipeline.result_count == len(seeded.results[kind])
        # The IL-6 design was stopped at 260 of 300 requested binders; the rest finished.
        if kind == "protein_design":
            assert pipeline.status == "stopped" and pipeline.completed_at is None
            end = pipeline.stopped_at
            assert pipeline.progress["total_proteins_to_generate"] > pipeline.result_count
        else:
            assert pipeline.status == "succeeded" and pipeline.stopped_at is None
            end = pipeline.completed_at
        assert pipeline.created_at < pipeline.started_at < end < datetime.utcnow()
        assert datetime.utcnow() - pipeline.created_at < timedelta(days=7)  # retention
    assert len(seeded.results["protein_design"]) >= 250
    assert all(len(rows) >= 3 for rows in seeded.results.values())


def test_result_ids_sort_in_creation_order(seeded):
    for rows in seeded.results.values():
        times = [r.created_at for r in rows]  # rows are ordered by id
        assert times == sorted(times) and len(set(times)) == len(times)


def test_protein_sequences_look_natural(seeded):
    binders, lengths = [], []
    for kind in PROTEIN_KINDS:
        for r in seeded.results[kind]:
            chain_ids = [e["chain_ids"] for e in r.entities]
            assert chain_ids == [["A"], ["B"], ["C"]][: len(chain_ids)]
            for entity in r.entities:
                if entity["type"] == "ligand_ccd":
                    assert entity["value"] in LIGAND_CCD and set(entity) == {
                        "type", "chain_ids", "value"}
                    continue
                assert entity["type"] == "protein"
                assert set(entity["value"]) <= AMINO_ACIDS
            binder = r.entities[0]
            if not binder["cyclic"]:
                binders.append(binder["value"])
                lengths.append(len(binder["value"]))
    assert min(lengths) >= 60 and max(lengths) <= 120
    joined = "".join(binders)
    fractions = {aa: joined.count(aa) / len(joined) for aa in AMINO_ACIDS}
    assert max(fractions.values()) < 0.2  # no single residue dominates
    assert 0.25 < sum(fractions[a] for a in "AILMFVWY") < 0.5  # hydrophobic share
    assert 0.15 < sum(fractions[a] for a in "DEKR") < 0.4  # charged share
    assert fractions["C"] < 0.02 and fractions["W"] < 0.03
    assert len(set(binders)) > 0.9 * len(binders)  # designs are distinct


def test_targets_are_shared_and_modifications_sit_on_matching_residues(seeded):
    modified = set()
    for kind in PROTEIN_KINDS:
        targets = {r.entities[1]["value"] for r in seeded.results[kind] if len(r.entities) > 1}
        assert len(targets) == 1 and 110 <= len(targets.pop()) <= 220
        for r in seeded.results[kind]:
            for entity in _proteins(r):
                assert not entity["cyclic"]  # every binder is a 60-120 residue miniprotein
                for mod in entity["modifications"]:
                    assert mod["type"] == "ccd"
                    assert entity["value"][mod["residue_index"]] == MODIFIED_RESIDUES[
                        mod["value"]]
                    modified.add(mod["value"])
    assert {"MSE"} < modified | {"MSE"} and len(modified) >= 2


def _proteins(result) -> list[dict]:
    return [e for e in result.entities if e["type"] == "protein"]


def test_screened_proteins_meet_a_glycosylated_target(seeded):
    for r in seeded.results["protein_library_screen"]:
        assert r.entities[2] == {"type": "ligand_ccd", "chain_ids": ["C"], "value": "NAG"}
        assert r.entities[1]["value"][17] == "N"  # the glycan sits on an asparagine
    r = seeded.results["protein_library_screen"][0]
    st = _structure(seeded, seeded.artifacts_of(r.id)["structure"])
    (glycan,) = st[0]["C"]
    assert glycan.name == "NAG" and len(glycan) == 15 and glycan["C1"]
    cb = st[0]["B"][17]["CB"][0].pos
    assert 3.0 < cb.dist(glycan["C1"][0].pos) < 8.0


def test_binder_metrics_in_range_correlated_and_spread(seeded):
    iptm, binding, pae = [], [], []
    for kind in PROTEIN_KINDS:
        for r in seeded.results[kind]:
            expected = GENERIC_KEYS if r.variant == "generic" else BINDER_KEYS
            assert set(r.metrics) == expected
            for key, value in r.metrics.items():
                low, high = (1.5, 25.0) if key == "min_interaction_pae" else (0.0, 1.0)
                assert low <= value <= high, (key, value)
            total = sum(r.metrics[k] for k in ("helix_fraction", "sheet_fraction",
                                               "loop_fraction"))
            assert math.isclose(total, 1.0, abs_tol=1e-6)
            if expected is BINDER_KEYS:
                iptm.append(r.metrics["iptm"])
                binding.append(r.metrics["binding_confidence"])
                pae.append(r.metrics["min_interaction_pae"])
    assert statistics.correlation(iptm, binding) > 0.8
    assert statistics.correlation(iptm, pae) < -0.8
    assert statistics.stdev(binding) > 0.15 and statistics.stdev(pae) > 3


def test_sequence_redesign_is_a_binder_redesign_as_its_input_says(seeded):
    pipeline = seeded.pipelines["protein_sequence_redesign"]
    assert pipeline.input["type"] == "binder"
    for r in seeded.results["protein_sequence_redesign"]:
        assert r.variant == "binder" and len(r.entities) == 2
        assert "C" not in r.entities[0]["value"]  # the input excludes cysteines
    for kind in KINDS - {"protein_sequence_redesign"}:
        assert {r.variant for r in seeded.results[kind]} == {None}


def test_smiles_are_valid_and_drug_like(seeded):
    for smiles in all_smiles():
        assert Chem.MolFromSmiles(smiles) is not None, smiles
    for kind in SMALL_KINDS:
        seen = []
        for r in seeded.results[kind]:
            mol = Chem.MolFromSmiles(r.smiles)
            assert mol is not None, r.smiles
            assert 8 <= mol.GetNumHeavyAtoms() <= 45
            assert r.entities is None
            seen.append(Chem.MolToSmiles(mol))
        assert len(set(seen)) == len(seen)  # no molecule twice in one pipeline


def test_small_molecule_metrics_and_adme(seeded):
    scores, binding = [], []
    for kind in SMALL_KINDS:
        rows = seeded.results[kind]
        with_adme = [r for r in rows if r.adme is not None]
        if kind == "small_molecule_explore":  # explore records have no ADME
            assert with_adme == []
        else:
            assert 0 < len(with_adme) < len(rows)
        for r in rows:
            assert set(r.metrics) == SMALL_KEYS
            for key, value in r.metrics.items():
                low, high = (-2.0, 3.0) if key == "optimization_score" else (0.0, 1.0)
                assert low <= value <= high, (key, value)
            scores.append(r.metrics["optimization_score"])
            binding.append(r.metrics["binding_confidence"])
        for r in with_adme:
            assert set(r.adme) == {"lipophilicity", "permeability", "solubility"}
            assert -1.0 <= r.adme["lipophilicity"] <= 5.0
            assert 0.1 <= r.adme["permeability"] <= 50.0
            assert r.adme["solubility"] in {"high-confidence", "medium-confidence",
                                            "high-risk"}
    assert statistics.correlation(scores, binding) > 0.8
    assert min(scores) < 0 < max(scores)


def test_warnings_on_some_results_with_codes_and_messages(seeded):
    results = seeded.all_results()
    warned = [r for r in results if r.warnings]
    assert 0.05 * len(results) <= len(warned) <= 0.3 * len(results)
    codes = set()
    for r in warned:
        for w in r.warnings:
            assert set(w) == {"code", "message"}
            assert re.fullmatch(r"[a-z][a-z_]+", w["code"]) and len(w["message"]) > 20
            codes.add(w["code"])
    assert {"low_iptm", "unpaired_cysteine", "pains_substructure"} <= codes
    for r in results:
        if r.entities:
            odd = r.entities[0]["value"].count("C") % 2 == 1
            assert odd == any(w["code"] == "unpaired_cysteine" for w in r.warnings or [])


def test_external_ids_exactly_on_screens_and_unique(seeded):
    for kind, rows in seeded.results.items():
        ids = [r.external_id for r in rows]
        if kind in SCREENS:
            assert all(ids) and len(set(ids)) == len(ids)
        else:
            assert set(ids) == {None}


# --- artifact files ----------------------------------------------------------------


def test_every_result_has_archive_and_structure_files_matching_their_rows(seeded):
    for kind, rows in seeded.results.items():
        ligand_files = 0
        for r in rows:
            arts = seeded.artifacts_of(r.id)
            assert {"archive", "structure"} <= set(arts) <= {"archive", "structure",
                                                             "ligand_structure"}
            assert arts["archive"].content_type == "application/zip"
            assert arts["archive"].filename == f"{r.id}.zip"
            assert arts["structure"].content_type == "chemical/x-mmcif"
            assert arts["structure"].filename == f"{r.id}.cif"
            ligand_files += "ligand_structure" in arts
            for art in arts.values():
                data = seeded.read(art)
                assert len(data) == art.size
                assert hashlib.sha256(data).hexdigest() == art.sha256
        if kind in SMALL_KINDS:
            assert 0 < ligand_files < len(rows)
        else:
            assert ligand_files == 0


def test_archives_hold_the_structure_and_the_metrics(seeded):
    for rows in seeded.results.values():
        for r in rows[:5]:
            arts = seeded.artifacts_of(r.id)
            with zipfile.ZipFile(io.BytesIO(seeded.read(arts["archive"]))) as archive:
                assert archive.testzip() is None
                assert archive.read(f"{r.id}.cif") == seeded.read(arts["structure"])
                record = json.loads(archive.read("metrics.json"))
            assert record["metrics"] == r.metrics
            assert record.get("smiles") == r.smiles and record.get("entities") == r.entities


def _structure(seeded, artifact) -> gemmi.Structure:
    block = gemmi.cif.read_string(seeded.read(artifact).decode())[0]
    for tag in ("_atom_site.Cartn_x", "_atom_site.B_iso_or_equiv", "_atom_site.label_seq_id",
                "_atom_site.auth_asym_id", "_atom_site.pdbx_PDB_model_num"):
        assert block.find_value(tag) is not None or block.find_loop(tag), tag
    assert block.find_value("_entry.id") is not None
    return gemmi.make_structure_from_block(block)


def _check_backbone(chain: gemmi.Chain) -> None:
    residues = [r for r in chain if r.find_atom("CA", "*")]
    for i, res in enumerate(residues):
        n, ca, c = (res.find_atom(a, "*").pos for a in ("N", "CA", "C"))
        assert abs(n.dist(ca) - 1.46) < 0.02 and abs(ca.dist(c) - 1.52) < 0.02
        if i:
            prev = residues[i - 1]
            assert abs(prev.find_atom("CA", "*").pos.dist(ca) - 3.8) < 0.1
            assert abs(prev.find_atom("C", "*").pos.dist(n) - 1.33) < 0.02


def test_structures_parse_with_sound_geometry_and_match_the_entities(seeded):
    rows = [r for kind in PROTEIN_KINDS for r in seeded.results[kind][::4]]
    for r in rows:
        st = _structure(seeded, seeded.artifacts_of(r.id)["structure"])
        model = st[0]
        assert [ch.name for ch in model] == [e["chain_ids"][0] for e in r.entities]
        for chain, entity in zip(model, _proteins(r), strict=False):
            names = [res.name for res in chain]
            expected = [gemmi.find_tabulated_residue(n).one_letter_code.upper()
                        if n not in MODIFIED_RESIDUES else MODIFIED_RESIDUES[n] for n in names]
            assert "".join(expected) == entity["value"]
            for mod in entity["modifications"]:
                assert names[mod["residue_index"]] == mod["value"]
            _check_backbone(chain)
            plddt = [a.b_iso for res in chain for a in res]
            assert min(plddt) >= 20 and max(plddt) <= 100
        if len(model) >= 2:
            a = [res["CA"][0].pos for res in model[0]]
            b = [res["CA"][0].pos for res in model[1]]
            closest = min(p.dist(q) for p in a for q in b)
            assert 5.0 < closest < 9.0  # in contact, not overlapping


def test_helices_are_ideal_alpha_helices(seeded):
    r = seeded.results["protein_design"][0]
    st = _structure(seeded, seeded.artifacts_of(r.id)["structure"])
    assert len(st.helices) >= 3
    for helix in st.helices:
        chain = st[0][helix.start.chain_name]
        first, last = helix.start.res_id.seqid.num, helix.end.res_id.seqid.num
        cas = [chain[str(k)][0]["CA"][0].pos for k in range(first, last + 1)]
        # Alpha helix: CA(i)-CA(i+3) about 5.0-5.4 A, CA(i)-CA(i+4) about 6.2 A, and
        # 18 residues make five turns of 1.5 A rise per residue, i.e. about 27 A.
        assert all(5.0 < cas[i].dist(cas[i + 3]) < 5.4 for i in range(len(cas) - 3))
        assert all(6.0 < cas[i].dist(cas[i + 4]) < 6.5 for i in range(len(cas) - 4))
        if len(cas) > 18:
            assert 26.5 < cas[0].dist(cas[18]) < 28.5


def test_small_molecule_structures_hold_the_ligand_of_the_smiles(seeded):
    for kind in SMALL_KINDS:
        for r in seeded.results[kind]:
            arts = seeded.artifacts_of(r.id)
            st = _structure(seeded, arts["structure"])
            ligand = [a for ch in st[0] for res in ch if res.name == "LIG" for a in res]
            protein = [a.pos for ch in st[0] for res in ch if res.name != "LIG" for a in res]
            heavy = Chem.MolFromSmiles(r.smiles).GetNumHeavyAtoms()
            assert len(ligand) == heavy
            assert min(a.pos.dist(p) for a in ligand for p in protein) > 3.0
            for atom in ligand:  # every atom is bonded to one at a covalent distance
                near = min(atom.pos.dist(b.pos) for b in ligand if b is not atom)
                assert 1.1 < near < 1.9
            if "ligand_structure" in arts:
                mol = Chem.MolFromMolBlock(seeded.read(arts["ligand_structure"]).decode())
                assert mol is not None
                assert Chem.MolToSmiles(mol, isomericSmiles=False) == Chem.MolToSmiles(
                    Chem.MolFromSmiles(r.smiles), isomericSmiles=False)


def test_predictions_have_inputs_outputs_and_readable_files(seeded):
    sb = seeded.predictions["structure_and_binding"]
    assert sb.id == seeded.summary["predictions"]["structure_and_binding"]
    assert [e["type"] for e in sb.inputs["entities"]] == ["protein", "ligand_smiles"]
    assert Chem.MolFromSmiles(sb.inputs["entities"][1]["value"]) is not None
    assert sb.inputs["binding"] == {"type": "ligand_protein_binding", "binder_chain_id": "B"}
    samples = [s["metrics"] for s in sb.outputs["all_sample_results"]]
    assert sb.outputs["best_sample"]["metrics"] == samples[0]
    assert len(samples) == sb.inputs["num_samples"]
    for metrics in samples:
        for key, value in metrics.items():
            assert (0 < value < 10) if key.endswith("pde") else (0 <= value <= 1), key
    binding = sb.outputs["binding_metrics"]
    assert 0 <= binding["binding_confidence"] <= 1 and -2 <= binding["optimization_score"] <= 3
    arts = seeded.artifacts_of(sb.id)
    sample_roles = {f"structure_sample_{n}" for n in range(1, len(samples) + 1)}
    assert set(arts) == {"structure", "ligand_structure", "archive", *sample_roles}
    st = _structure(seeded, arts["structure"])
    _check_backbone(st[0]["A"])
    # One structure per sample (the best is also "structure"): the ligand in the pocket
    # in its own pose each time, touching the protein without clashing.
    assert seeded.read(arts["structure_sample_1"]) == seeded.read(arts["structure"])
    poses = set()
    for role in sample_roles:
        model = _structure(seeded, arts[role])[0]
        ligand = [a.pos for ch in model for res in ch if res.het_flag == "H" for a in res]
        protein = [a.pos for ch in model for res in ch if res.het_flag != "H" for a in res]
        assert 3.0 < min(p.dist(q) for p in ligand for q in protein) < 5.0, role
        poses.add(tuple(round(p.x, 1) for p in ligand))
    assert len(poses) == len(samples)
    assert Chem.MolFromMolBlock(seeded.read(arts["ligand_structure"]).decode()) is not None
    adme = seeded.predictions["adme"]
    arts = seeded.artifacts_of(adme.id)
    assert set(arts) == {"report", "table"}
    report = json.loads(seeded.read(arts["report"]))
    assert report["molecules"] == adme.outputs["molecules"]
    table = list(csv.DictReader(io.StringIO(seeded.read(arts["table"]).decode())))
    assert len(table) == len(adme.inputs["molecules"]) == len(report["molecules"]) >= 5
    for given, row in zip(adme.inputs["molecules"], adme.outputs["molecules"], strict=True):
        assert row["id"] == given["id"] and row["smiles"] == given["smiles"]
        assert Chem.MolFromSmiles(row["smiles"]) is not None
        assert row["status"] == "succeeded"
        assert row["adme"]["solubility"] in {"high-confidence", "medium-confidence",
                                             "high-risk"}


# --- usage -------------------------------------------------------------------------


def test_usage_spreads_over_thirty_days_two_workspaces_and_six_applications(seeded):
    now = int(time.time())
    times = [u.recorded_at for u in seeded.usage]
    assert now - 30 * 86400 - 3600 <= min(times) and max(times) <= now
    assert max(times) - min(times) > 29 * 86400
    days = {t // 86400 for t in times}
    assert len(days) >= 29
    assert {u.application for u in seeded.usage} == {
        "structure_and_binding", "small_molecule_design", "small_molecule_library_screen",
        "protein_design", "protein_library_screen", "adme"}
    assert len({u.workspace_id for u in seeded.usage}) == 2
    assert all(isinstance(u.quantity, int) and u.quantity > 0 for u in seeded.usage)


def test_content_is_reproducible_but_ids_are_new(seeded):
    with get_engine(seeded.app).connect() as conn:
        before = set(conn.execute(sa.select(schema.results.c.id)).scalars())
    again = seed_demo(get_engine(seeded.app), artifact_dir=seeded.app.config["ARTIFACT_DIR"])
    assert again["organization_id"] != seeded.summary["organization_id"]
    assert again["share_links"]["public"]["url"].startswith("http://127.0.0.1:8000/share/")
    with get_engine(seeded.app).connect() as conn:
        r = schema.results
        rows = list(conn.execute(sa.select(r).where(
            r.c.pipeline_id == again["pipelines"]["protein_design"]).order_by(r.c.id)))
    assert not {row.id for row in rows} & before
    first = seeded.results["protein_design"]
    assert [row.metrics for row in rows] == [row.metrics for row in first]
    assert [row.entities for row in rows] == [row.entities for row in first]


# --- create-org --------------------------------------------------------------------


def test_create_org_prints_id_and_working_admin_key(runner, client):
    result = runner.invoke(args=["create-org", "Acme Biologics", "--json"])
    assert result.exit_code == 0, result.output
    body = json.loads(result.output)
    assert set(body) == {"organization_id", "admin_key"}
    response = client.get("/compute/v1/admin/workspaces", headers={"x-api-key":
                                                                   body["admin_key"]})
    assert response.status_code == 200
    assert [w["is_default"] for w in response.get_json()["data"]] == [True]


@pytest.mark.parametrize("name", ["", "   ", "x" * 201])
def test_create_org_rejects_a_bad_name(runner, app, name):
    result = runner.invoke(args=["create-org", name, "--json"])
    assert result.exit_code == 2
    assert "NAME" in result.output
    with get_engine(app).connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(
            schema.organizations)).scalar() == 0


# --- generated data ----------------------------------------------------------------


@pytest.mark.parametrize("smiles", all_smiles())
def test_stored_conformers_match_their_smiles(smiles):
    """The generated conformer modules are in step with the SMILES (rerun the builder)."""
    from app.synthetic.chemistry import conformer

    elements, charges, xyz, bonds = conformer(smiles)
    mol = Chem.MolFromSmiles(smiles)
    assert elements == [a.GetSymbol() for a in mol.GetAtoms()]
    assert charges == [a.GetFormalCharge() for a in mol.GetAtoms()]
    assert {frozenset((i, j)) for i, j, _o in bonds} == {
        frozenset((b.GetBeginAtomIdx(), b.GetEndAtomIdx())) for b in mol.GetBonds()}
    for i, j, _order in bonds:
        length = math.dist(xyz[i], xyz[j])
        assert 1.1 < length < 1.9, (i, j, length)
