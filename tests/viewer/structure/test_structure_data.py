"""What the 3D page computes on the server: confidence, interface, PAE heatmap, roles, fits.

Pure functions on demo structures (built by the demo's own builders) and small made-up
inputs; the interface search is checked against a brute-force numpy distance matrix.
"""

from __future__ import annotations

import base64
import io
import json
import zipfile
from datetime import datetime, timedelta

import gemmi
import numpy as np
import pytest

from app.synthetic import molecule_pipelines, protein_pipelines
from app.synthetic.pae import pae_matrix, pae_npz
from app.viewer.provenance import roles
from app.viewer.structure import contacts, superpose
from app.viewer.structure import model as structure_model
from app.viewer.structure import pae as pae_data
from app.viewer.structure_pages import compare

START = datetime(2026, 1, 1)


@pytest.fixture(scope="module")
def complex_cif() -> str:
    """A demo binder (A) docked on IL-6 (B)."""
    draft = protein_pipelines.protein_design("pipe_x", START, START + timedelta(hours=1), 1)
    return draft.results[0].structure_cif


@pytest.fixture(scope="module")
def ligand_cif() -> str:
    """A demo JQ1 analog (B) in BRD4 BD1 (A)."""
    draft = molecule_pipelines.small_molecule_design("pipe_x", START,
                                                     START + timedelta(hours=1), 1)
    return draft.results[0].structure_cif


def _b_factors(cif: str) -> dict[tuple[str, int], float]:
    st = gemmi.make_structure_from_block(gemmi.cif.read_string(cif)[0])
    return {(ch.name, res.seqid.num): res[0].b_iso for ch in st[0] for res in ch
            if res.find_atom("CA", "*")}


def test_confidence_comes_from_b_factors_on_the_0_100_scale(complex_cif):
    model = structure_model.read(complex_cif.encode())
    assert model.confidence_source == "b_factor"
    assert model.chains == ["A", "B"] and model.ligands == []
    expected = _b_factors(complex_cif)
    assert {(r.chain, r.seq): r.plddt for r in model.residues} == pytest.approx(expected)


def test_a_0_1_scale_is_multiplied_by_100(complex_cif):
    st = gemmi.make_structure_from_block(gemmi.cif.read_string(complex_cif)[0])
    for chain in st[0]:
        for residue in chain:
            for atom in residue:
                atom.b_iso = round(atom.b_iso / 100.0, 4)
    model = structure_model.read(st.make_mmcif_document().as_string().encode())
    expected = _b_factors(complex_cif)
    for residue in model.residues:
        assert residue.plddt == pytest.approx(expected[(residue.chain, residue.seq)], abs=0.01)


def test_modelcif_local_plddt_wins_over_b_factors(complex_cif):
    qa = ["#", "loop_", "_ma_qa_metric.id", "_ma_qa_metric.name", "_ma_qa_metric.mode",
          "1 pLDDT local", "2 pTM global", "#", "loop_", "_ma_qa_metric_local.ordinal_id",
          "_ma_qa_metric_local.label_asym_id", "_ma_qa_metric_local.label_seq_id",
          "_ma_qa_metric_local.metric_id", "_ma_qa_metric_local.metric_value"]
    residues = sorted(_b_factors(complex_cif))
    qa += [f"{n} {c} {s} 1 {10 + n % 80}.5" for n, (c, s) in enumerate(residues, start=1)]
    model = structure_model.read((complex_cif + "\n".join(qa) + "\n").encode())
    assert model.confidence_source == "ma_qa_metric_local"
    values = {(r.chain, r.seq): r.plddt for r in model.residues}
    assert [values[k] for k in residues] == [10 + n % 80 + 0.5
                                            for n in range(1, len(residues) + 1)]


def test_a_local_metric_that_is_not_plddt_is_not_taken_for_it(complex_cif):
    qa = ["#", "loop_", "_ma_qa_metric.id", "_ma_qa_metric.name", "_ma_qa_metric.mode",
          "1 QMEANDisCo local", "#", "loop_", "_ma_qa_metric_local.ordinal_id",
          "_ma_qa_metric_local.label_asym_id", "_ma_qa_metric_local.label_seq_id",
          "_ma_qa_metric_local.metric_id", "_ma_qa_metric_local.metric_value"]
    residues = sorted(_b_factors(complex_cif))
    qa += [f"{n} {c} {s} 1 0.5" for n, (c, s) in enumerate(residues, start=1)]
    model = structure_model.read((complex_cif + "\n".join(qa) + "\n").encode())
    assert model.confidence_source == "b_factor"
    assert {(r.chain, r.seq): r.plddt for r in model.residues} == pytest.approx(
        _b_factors(complex_cif))


def test_bands_follow_alphafold_db():
    assert [structure_model.band(v) for v in (99, 90.01, 90, 70.5, 70, 50.5, 50, 3)] == \
        [0, 0, 1, 1, 2, 2, 3, 3]
    assert [b[2] for b in structure_model.PLDDT_BANDS] == ["#0053D6", "#65CBF3", "#FFDB13",
                                                           "#FF7D45"]


def _brute_force_interface(cif: str) -> set:
    """Interface by the documented definition (``structure.contacts``), with a full
    distance matrix."""
    st = gemmi.make_structure_from_block(gemmi.cif.read_string(cif)[0])
    st.setup_entities()
    atoms = [(res.subchain, res.label_seq, res.entity_type, atom.name, np.array(atom.pos.tolist()))
             for ch in st[0] for res in ch for atom in res if atom.element.name != "H"]
    xyz = np.array([a[4] for a in atoms])
    d = np.sqrt(((xyz[:, None] - xyz[None]) ** 2).sum(-1))
    polymer = gemmi.EntityType.Polymer
    sides = {}
    for chain, _seq, _kind, name, _p in atoms:
        sides[chain] = sides.get(chain, False) or name not in contacts.BACKBONE
    beta = {}
    for i, (chain, seq, kind, name, _p) in enumerate(atoms):
        if kind == polymer and (name == "CB" or (name == "CA" and (chain, seq) not in beta)):
            beta[(chain, seq)] = i
    found = set()
    for i, (chain, seq, kind, _name, _p) in enumerate(atoms):
        if kind != polymer:
            continue
        other = np.array([a[0] != chain for a in atoms])
        if (d[i][other] <= contacts.CONTACT_CUTOFF).any():
            found.add((chain, seq))
    for (chain, seq), i in beta.items():
        for (chain2, _seq2), j in beta.items():
            backbone_only = not (sides[chain] and sides[chain2])
            if chain2 != chain and backbone_only and d[i, j] <= contacts.CB_CONTACT:
                found.add((chain, seq))
    return found


@pytest.mark.parametrize("block", [contacts._PAIRS_PER_BLOCK, 7])
def test_interface_residues_match_the_definition(complex_cif, ligand_cif, block, monkeypatch):
    monkeypatch.setattr(contacts, "_PAIRS_PER_BLOCK", block)  # 7: rows one by one
    for cif in (complex_cif, ligand_cif):
        model = structure_model.read(cif.encode())
        expected = _brute_force_interface(cif)
        assert expected and model.interface == expected


def test_ligand_tokens_and_ranges(ligand_cif):
    model = structure_model.read(ligand_cif.encode())
    assert model.chains == ["A"] and model.ligands == ["B"] and model.ligand_atoms > 10
    assert structure_model.ranges([("A", 1), ("A", 2), ("A", 4), ("B", 5)]) == [
        ("A", 1, 2), ("A", 4, 4), ("B", 5, 5)]


def _archive(members: dict) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buffer.getvalue()


def test_pae_payload_has_the_matrix_tokens_and_chains(ligand_cif):
    model = structure_model.read(ligand_cif.encode())
    matrix = pae_data.read_npz(_archive({"x.cif": ligand_cif, "pae.npz": pae_npz(ligand_cif)}))
    assert matrix.shape == (len(model.residues) + model.ligand_atoms,) * 2
    heatmap = pae_data.heatmap(matrix, model, {"A": "Target (A)", "B": "Binder (B)"})
    payload = json.loads(heatmap.model_dump_json())  # what pae.js reads
    assert payload["linked"] and payload["n"] == len(matrix)
    assert [(c["chain"], c["start"], c["end"], c["label"]) for c in payload["chains"]] == [
        ("A", 0, len(model.residues) - 1, "Target (A)"),
        ("B", len(model.residues), len(matrix) - 1, "Binder (B)")]
    assert payload["tokens"][0][:2] == ["A", 1] and payload["tokens"][-1][:2] == ["B", None]
    assert set(payload) == {"n", "step", "max", "values", "tokens", "chains", "linked"}
    decoded = np.frombuffer(base64.b64decode(payload["values"]), np.uint8).reshape(matrix.shape)
    assert np.abs(decoded * pae_data.STEP - pae_matrix(ligand_cif)).max() <= pae_data.STEP / 2


def test_an_archive_without_pae_or_with_a_bad_one_is_no_pae():
    for archive in (_archive({"x.cif": "data_x"}), b"not a zip",
                    _archive({"pae.npz": b"garbage"})):
        with pytest.raises(pae_data.NoPae):
            pae_data.read_npz(archive)
    buffer = io.BytesIO()
    np.savez(buffer, pae=np.zeros((3, 4), np.float32))
    with pytest.raises(pae_data.NoPae):
        pae_data.read_npz(_archive({"pae.npz": buffer.getvalue()}))


def _strict_json(text: str):
    """Parse JSON as a browser does: NaN and Infinity are not JSON."""
    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")
    return json.loads(text, parse_constant=refuse)


def test_pae_with_nan_or_infinity_is_still_json(ligand_cif):
    model = structure_model.read(ligand_cif.encode())
    n = len(model.residues) + model.ligand_atoms
    matrix = np.full((n, n), 4.0, np.float32)
    matrix[0, 1], matrix[1, 0] = np.nan, np.inf
    payload = _strict_json(pae_data.heatmap(matrix, model, {}).model_dump_json())
    decoded = np.frombuffer(base64.b64decode(payload["values"]), np.uint8)
    assert decoded[1] == decoded[n] == 255 and payload["max"] == 255 * pae_data.STEP


def test_no_pae_is_its_own_declared_shape():
    assert _strict_json(pae_data.NoHeatmap().model_dump_json()) == {"n": 0}
    with pytest.raises(ValueError):
        pae_data.Heatmap(n=1, step=pae_data.STEP, max=float("nan"), values="", tokens=[],
                         chains=[], linked=False)


def _rotation(rng) -> np.ndarray:
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q = q @ np.diag(np.sign(np.diag(r)))
    return q if np.linalg.det(q) > 0 else -q


def test_kabsch_recovers_a_rigid_motion_and_reports_the_rmsd():
    rng = np.random.default_rng(3)
    fixed = rng.normal(scale=10.0, size=(40, 3))
    rotation, shift = _rotation(rng), np.array([5.0, -3.0, 12.0])
    moving = (fixed - shift) @ rotation  # fixed = rotation @ moving + shift
    fit = superpose.kabsch(fixed, moving)
    assert np.allclose(np.array(fit.rotation), rotation, atol=1e-9)
    assert np.allclose(fit.translation, shift, atol=1e-9) and fit.rmsd < 1e-9
    noise = rng.normal(scale=0.5, size=moving.shape)
    noisy = superpose.kabsch(fixed, moving + noise)
    moved = (moving + noise) @ np.array(noisy.rotation).T + noisy.translation
    assert noisy.rmsd == pytest.approx(np.sqrt(((moved - fixed) ** 2).sum(1).mean()))
    assert 0.2 < noisy.rmsd < 1.0
    # MolViewSpec takes the rotation column by column.
    assert noisy.mvs_rotation()[:3] == [row[0] for row in noisy.rotation]


def test_kabsch_never_answers_a_reflection():
    rng = np.random.default_rng(5)
    fixed = rng.normal(size=(20, 3))
    mirrored = fixed * np.array([1.0, 1.0, -1.0])
    fit = superpose.kabsch(fixed, mirrored)
    assert np.linalg.det(np.array(fit.rotation)) == pytest.approx(1.0)
    assert fit.rmsd > 0.1


def test_fit_on_chain_pairs_residues_by_number():
    a = {("B", n): (float(n), 0.0, 0.0) for n in range(1, 11)}
    a.update({("B", 11): (0.0, 5.0, 0.0), ("B", 12): (0.0, 0.0, 7.0)})
    b = {("B", n): (x + 1.0, y, z) for (_c, n), (x, y, z) in a.items() if n != 3}
    fit = superpose.fit_on_chain(a, b, "B", "B")
    assert fit.pairs == 11 and fit.rmsd < 1e-9
    assert fit.translation == pytest.approx((-1.0, 0.0, 0.0), abs=1e-9)
    assert superpose.fit_on_chain(a, {("B", 1): (0, 0, 0)}, "B", "B") is None


def test_a_binder_is_measured_where_the_target_fit_puts_it():
    target = {("B", n): (float(n), float(n % 3), float(n % 5)) for n in range(1, 13)}
    binder_a = {("A", n): (float(n), 10.0, 0.0) for n in range(1, 6)}
    shift = np.array([1.0, 0.0, 1.0])  # model B: everything moved, its binder 3 Å further
    b = {k: tuple(np.array(v) + shift) for k, v in target.items()}
    b.update({k: tuple(np.array(v) + shift + (0.0, 3.0, 0.0)) for k, v in binder_a.items()})
    fit = superpose.fit_on_chain(target, b, "B", "B")
    rmsd, pairs = superpose.rmsd_after(fit, {**target, **binder_a}, b, "A", "A")
    assert pairs == 5 and rmsd == pytest.approx(3.0)
    shorter = {k: v for k, v in b.items() if k != ("A", 5)}
    assert superpose.rmsd_after(fit, {**target, **binder_a}, shorter, "A", "A") is None


def _side(record: dict, ca: dict) -> compare.Side:
    chains = sorted({chain for chain, _seq in ca})
    model = structure_model.Model([], chains, [], 0, None, ca=ca)
    return compare.Side("res_x", record, "/structure", "mmcif", model)


def test_compare_fits_on_the_target_and_measures_the_binder():
    record = {"entities": [{"type": "protein", "chain_ids": ["A"]},
                           {"type": "protein", "chain_ids": ["B"]}]}
    assert roles.result_roles(record) == {"A": roles.Role.BINDER, "B": roles.Role.TARGET}
    target = {("B", n): (float(n), float(n % 3), float(n % 5)) for n in range(1, 13)}
    binder = {("A", n): (float(n), 10.0, 0.0) for n in range(1, 6)}
    moved = {k: (x + 2.0, y, z) for k, (x, y, z) in target.items()}
    moved.update({k: (x + 2.0, y + 3.0, z) for k, (x, y, z) in binder.items()})
    first, second = _side(record, {**target, **binder}), _side(record, moved)
    assert first.binder_chains == {"A"}
    found = compare.fit(first, second)
    assert found.chain == "B" and found.on_target and found.fit.rmsd < 1e-9
    [(chain, rmsd, pairs)] = found.binders
    assert chain == "A" and pairs == 5 and rmsd == pytest.approx(3.0)
    assert found.fit.mvs_transform()["translation"] == pytest.approx([-2.0, 0.0, 0.0])
    assert compare.fit(first, compare.Side("res_y", record, "/s", "mmcif", None)) is None


def test_roles_are_members_and_their_labels_are_for_people():
    alone = roles.result_roles({"entities": [{"type": "protein", "chain_ids": ["A"]},
                                             {"type": "ligand", "chain_ids": ["G"]}]})
    assert alone == {"A": roles.Role.DESIGNED, "G": roles.Role.LIGAND}
    assert [r.label for r in alone.values()] == ["Designed protein", "Ligand"]
    assert roles.Role.DESIGNED.is_binder and not roles.Role.TARGET.is_binder
    small = roles.result_roles({"smiles": "CCO"})
    assert small == {"A": roles.Role.TARGET, "B": roles.Role.BINDER}
    item = {"inputs": {"binding": {"binder_chain_id": "B"}, "entities": [
        {"type": "protein", "chain_ids": ["A"]}, {"type": "ligand", "chain_ids": ["B", "C"]}]}}
    assert roles.prediction_roles(item) == {"A": roles.Role.TARGET, "B": roles.Role.BINDER,
                                            "C": roles.Role.LIGAND}


class _Download:
    """A fake streamed download: ``expired`` URLs answer like a stale signature."""

    def __init__(self, body: bytes, length: bool = True):
        self.headers = {"content-length": str(len(body))} if length else {}
        self.body = body

    def iter_bytes(self, size):
        for start in range(0, len(self.body), 4):
            yield self.body[start:start + 4]


class _Api:
    def __init__(self, body: bytes, length: bool = True):
        self.body, self.length, self.opened = body, length, []

    def open_download(self, url, range_header=None):
        from contextlib import contextmanager

        from app.viewer.core.errors import LinkNotFound

        @contextmanager
        def opened():
            self.opened.append(url)
            if url == "expired":
                raise LinkNotFound()
            yield _Download(self.body, self.length)
        return opened()


def test_read_artifact_retries_a_stale_url_and_stops_at_the_limit(monkeypatch):
    from app.viewer.core import artifacts

    fake = _Api(b"0123456789")
    monkeypatch.setattr(artifacts, "api", lambda: fake)
    fresh = lambda: {"url": "fresh"}  # noqa: E731 - a one-line locator
    assert artifacts.read_artifact(fresh, 100, {"url": "expired"}) == b"0123456789"
    assert fake.opened == ["expired", "fresh"]
    assert artifacts.read_artifact(fresh, 9) is None  # declared too long
    fake.length = False
    assert artifacts.read_artifact(fresh, 9) is None  # streamed past the limit
    assert artifacts.read_artifact(fresh, 10) == b"0123456789"


def test_read_artifact_asks_for_a_url_when_the_record_has_none(monkeypatch):
    from app.viewer.core import artifacts

    fake = _Api(b"0123456789")
    monkeypatch.setattr(artifacts, "api", lambda: fake)
    assert artifacts.read_artifact(lambda: {"url": "fresh"}, 100,
                                        {"name": "structure"}) == b"0123456789"
    assert fake.opened == ["fresh"]
