"""``app.viewer.pages.predictions``: ADME rows and their order, samples, per-sample files.

Plain dicts in the API's shapes (the SDK's ``AdmeRetrieveResponse`` and
``StructureAndBindingRetrieveResponse``: ``model``, ``input``, ``output``, files as
``{url, url_expires_at}`` inside ``output``), no app: the functions are pure.
"""

from __future__ import annotations

from datetime import datetime

import gemmi
import pytest

from app import domain
from app.synthetic import predictions as demo
from app.viewer.core.errors import BadRequest
from app.viewer.pages import predictions


def molecule(name, smiles, logd=None, papp=None, solubility=None, status="succeeded"):
    """Return one output molecule as the SDK shapes it (``external_id`` = client id)."""
    adme = None if logd is None and papp is None and solubility is None else {
        "lipophilicity": logd, "permeability": papp, "solubility": solubility}
    out = {"id": f"mol_{name}", "external_id": name, "smiles": smiles, "status": status,
           "adme": adme}
    if status == "failed":
        out["error"] = {"code": "invalid_smiles", "message": "could not parse"}
    return out


ITEM = {
    "id": "pred_adme",
    "model": "adme-v1",
    "input": {"molecules": [{"id": n, "smiles": s} for n, s in
                             [("a", "CCO"), ("b", "c1ccccc1"), ("c", "CCN"), ("d", "C#N"),
                              ("e", "CC")]]},
    "output": {"molecules": [
        molecule("a", "CCO", -0.3, 12.5, "high-confidence"),
        molecule("b", "c1ccccc1", 2.1, 30.0, "high-risk"),
        molecule("c", "CCN", 0.4, None, "medium-confidence"),
        molecule("d", "C#N", status="failed"),
        molecule("e", "CC", 2.1, 12.5, "high-confidence"),
    ]},
}


def names(rows) -> list[str]:
    return [r.name for r in rows]


def test_rows_follow_the_request_with_names_values_and_the_tables_labels():
    rows = predictions.adme_rows(ITEM)
    assert names(rows) == ["a", "b", "c", "d", "e"]
    assert [r.position for r in rows] == [1, 2, 3, 4, 5]
    a, b, c, d, _e = rows
    assert (a.smiles, a.lipophilicity, a.permeability, a.solubility) == ("CCO", -0.3, 12.5,
                                                                         "high-confidence")
    # The same words as the results tables, from the one vocabulary.
    assert b.solubility_label == domain.SOLUBILITY_CLASSES["high-risk"][0] == "Solubility risk"
    assert b.solubility_tone == "risk"
    assert c.permeability is None
    assert d.status == "failed" and d.error == "could not parse" and d.lipophilicity is None


def test_rows_name_from_external_id_then_input_id_and_survive_missing_outputs():
    item = {"input": {"molecules": [{"id": "given", "smiles": "CCO"}, {"smiles": "CC"}]},
            "output": {"molecules": [{"id": "mol_internal", "smiles": "CCO",
                                       "status": "succeeded",
                                       "adme": {"lipophilicity": True, "permeability": "7",
                                                "solubility": "high-confidence"}}]}}
    first, second = predictions.adme_rows(item)
    assert first.name == "given"  # the client's id, not the internal one
    # Only real numbers count as values (a bool or a string is not a measurement).
    assert first.lipophilicity is None and first.permeability is None
    assert second.name is None and second.smiles == "CC" and second.status == "pending"
    assert predictions.adme_rows({"output": {"best_sample": {}}}) == []


@pytest.mark.parametrize(("sort", "expected"), [
    (None, ["a", "b", "c", "d", "e"]),
    ("permeability", ["a", "e", "b", "c", "d"]),   # ties (12.5) in request order
    ("-permeability", ["b", "a", "e", "c", "d"]),  # missing last in both directions
    ("lipophilicity", ["a", "c", "b", "e", "d"]),
    ("-lipophilicity", ["b", "e", "c", "a", "d"]),
    ("solubility", ["b", "c", "a", "e", "d"]),     # least soluble first
    ("-solubility", ["a", "e", "c", "b", "d"]),
    ("-name", ["e", "d", "c", "b", "a"]),
    ("smiles", ["d", "e", "c", "a", "b"]),
])
def test_sorting_orders_values_keeps_ties_and_puts_missing_last(sort, expected):
    rows = predictions.adme_rows(ITEM)
    assert names(predictions.sort_adme(rows, predictions.parse_sort(sort))) == expected


@pytest.mark.parametrize("value", ["weight", "-", "--permeability", "permeability,name",
                                   "Permeability", "adme.permeability"])
def test_a_bad_sort_key_is_refused_naming_sort(value):
    with pytest.raises(BadRequest, match=r"^sort must be one of name, smiles, lipophilicity"):
        predictions.parse_sort(value)


def test_headers_link_to_the_next_order_and_say_the_current_one():
    current = predictions.parse_sort("permeability")
    assert predictions.header_sort("permeability", current) == ("-permeability", "ascending")
    assert predictions.header_sort("permeability", current._replace(descending=True)) == (
        "permeability", "descending")
    assert predictions.header_sort("name", current) == ("name", None)
    columns = {c.key: c for c in predictions.adme_columns()}
    assert list(columns) == list(predictions.ADME_SORT_KEYS)
    assert columns["lipophilicity"].unit == "logD 7.4"
    assert columns["permeability"].unit == "10\u207b\u2076 cm/s"


SB_METRICS = [
    {"iptm": 0.81, "ptm": 0.85, "complex_plddt": 0.88, "complex_iplddt": 0.84,
     "structure_confidence": 0.86, "complex_pde": 2.1},
    {"iptm": 0.93, "ptm": 0.91, "complex_plddt": 0.93, "complex_iplddt": 0.9,
     "structure_confidence": 0.92, "complex_pde": 1.7},
    {"iptm": 0.7, "ptm": 0.72, "complex_plddt": 0.75, "complex_iplddt": 0.71,
     "structure_confidence": 0.73, "complex_pde": 3.2},
]


def url(name: str) -> dict:
    """Return a file as the SDK's output names it: a presigned URL and its expiry."""
    return {"url": f"https://files.example/{name}?sig=1",
            "url_expires_at": "2026-11-25T10:00:00Z"}


def sb_item(best: dict | None, *, files: bool = False) -> dict:
    """Return a structure-and-binding record (with every file's URL if ``files``)."""
    samples = [{"metrics": m, **({"structure": url(f"s{n}.cif")} if files else {})}
               for n, m in enumerate(SB_METRICS, 1)]
    best_sample = {"metrics": best} if best else {}
    if files:
        best_sample["structure"] = url("best.cif")
    return {"id": "pred_sb", "model": "boltz-2.1",
            "output": {"best_sample": best_sample,
                       "all_sample_results": samples,
                       "binding_metrics": {"type": "ligand_protein_binding_metrics",
                                           "binding_confidence": 0.9,
                                           "optimization_score": 1.2}}}


def test_the_best_sample_comes_first_and_keeps_its_number():
    found = predictions.samples(sb_item(SB_METRICS[1]))
    assert [(s.number, s.best) for s in found] == [(2, True), (1, False), (3, False)]
    # Without a matching best_sample, the highest structure confidence is the best.
    found = predictions.samples(sb_item(None))
    assert [s.number for s in found if s.best] == [2]
    columns = predictions.sample_columns(found)
    assert [c.label for c in columns] == ["ipTM", "pTM", "Complex ipLDDT", "Complex pLDDT",
                                          "Structure confidence", "Complex PDE"]
    assert [c.unit for c in columns][-2:] == ["0\u20131", "\u00c5"]
    assert [c.label for c in predictions.binding_columns(sb_item(None))] == [
        "Binding confidence", "Optimization score"]


def test_sample_structure_files_come_from_output_in_sample_order():
    item = sb_item(SB_METRICS[1], files=True)
    found = predictions.sample_structure_artifacts(item)
    assert [(a["sample"], a["name"], a["filename"]) for a in found] == [
        (1, "structure_sample_1", "pred_sb_sample_1.cif"),
        (2, "structure_sample_2", "pred_sb_sample_2.cif"),
        (3, "structure_sample_3", "pred_sb_sample_3.cif")]
    assert predictions.sample_structure_artifact(item, 2)["url"] == \
        "https://files.example/s2.cif?sig=1"
    assert predictions.sample_structure_artifact(item, 4) is None
    assert predictions.structure_files(item) == found
    # Samples without a file, a best sample with one: that one is sample 1.
    single = {"model": "boltz-2.1",
              "output": {"best_sample": {"structure": url("best.cif")},
                         "all_sample_results": [{"metrics": {}}]}}
    assert [(f["name"], f["sample"]) for f in predictions.sample_structure_artifacts(single)
            ] == [("structure", 1)]
    assert predictions.sample_structure_artifacts({"output": None}) == []
    # Another model's record has no 3D view, whatever its output holds.
    assert predictions.structure_files({**item, "model": "adme-v1"}) == []


def test_demo_writes_one_distinct_structure_per_sample_deterministically():
    when = datetime(2026, 1, 1)
    _inputs, outputs, files = demo.structure_and_binding("pred_T", when)
    again = demo.structure_and_binding("pred_T", when)[2]
    assert files == again
    by_role = {role: data for role, _name, _type, data in files}
    count = len(outputs["all_sample_results"])
    sample_files = [by_role[demo.sample_artifact_name(n)] for n in range(1, count + 1)]
    assert len(set(sample_files)) == count == 3
    # ``structure`` is the best sample's file; the best is listed first.
    assert outputs["best_sample"] == outputs["all_sample_results"][0]
    assert by_role["structure"] == sample_files[0]

    def ligand(cif: bytes) -> list[tuple[float, float, float]]:
        block = gemmi.cif.read_string(cif.decode()).sole_block()
        model = gemmi.make_structure_from_block(block)[0]
        return [tuple(round(c, 2) for c in atom.pos.tolist())
                for chain in model for residue in chain if residue.het_flag == "H"
                for atom in residue]

    poses = [ligand(f) for f in sample_files]
    assert all(len(p) == len(poses[0]) > 20 for p in poses)
    assert len({tuple(p) for p in poses}) == count  # the ligand sits differently each time


def test_files_are_listed_for_reading_best_structure_then_samples_then_the_archive():
    output = {
        "best_sample": {"metrics": {}, "structure": url("best.cif"),
                        "ligand_structure": url("best_ligand.sdf")},
        "all_sample_results": [
            {"metrics": {}, "structure": url("s1.cif")},
            {"metrics": {}, "structure": url("s2.pdb"), "ligand_structure": url("l2")},
            {"metrics": {}, "structure": {"url": ""}},  # no URL: no file
        ],
        "archive": url("all.zip"),
    }
    listed = predictions.files({"id": "pred_x", "model": "boltz-2.1", "output": output})
    assert [(a["name"], a["filename"], a["content_type"], label) for a, label in listed] == [
        ("structure", "pred_x_best_sample.cif", "chemical/x-mmcif",
         "Structure of the best sample"),
        ("ligand_structure", "pred_x_best_sample_ligand.sdf", "chemical/x-mdl-sdfile",
         "Ligand of the best sample"),
        ("structure_sample_1", "pred_x_sample_1.cif", "chemical/x-mmcif",
         "Structure of sample 1"),
        ("structure_sample_2", "pred_x_sample_2.pdb", "chemical/x-pdb",
         "Structure of sample 2"),
        ("ligand_structure_sample_2", "pred_x_sample_2_ligand.cif", "chemical/x-mmcif",
         "Ligand of sample 2"),
        ("archive", "pred_x_all_files.zip", "application/zip", "All files (zip)"),
    ]
    assert all(a["url"].startswith("https://files.example/") for a, _label in listed)
    # ADME predictions have no files.
    assert predictions.files(ITEM) == []


def test_only_samples_with_a_structure_file_link_to_a_3d_view():
    item = sb_item(None, files=True)
    del item["output"]["all_sample_results"][1]["structure"]
    assert predictions.page_content(item, None)["structure_samples"] == {1, 3}
    # No per-sample files: only the best one (as sample 1), not a link per sample.
    item = sb_item(None)
    item["output"]["best_sample"]["structure"] = url("best.cif")
    assert predictions.page_content(item, None)["structure_samples"] == {1}


def test_page_content_follows_the_model():
    assert predictions.page_content(ITEM, None)["kind"] == "adme"
    assert predictions.page_content(sb_item(None), None)["kind"] == "structure_and_binding"
    assert predictions.page_content({"model": "boltz-3", "output": {"x": 1}}, None) == {
        "files": [], "kind": "other"}


def _two_samples(protein_entities: int) -> dict:
    entities = [{"type": "protein", "chain_ids": [chr(65 + n)], "value": "MKV"}
                for n in range(protein_entities)]
    entities.append({"type": "ligand_ccd", "chain_ids": ["Z"], "value": "ATP"})
    metrics = [{"iptm": 0.9, "protein_iptm": 0.1}, {"iptm": 0.8, "protein_iptm": 0.9}]
    return {"model": "boltz-2.1", "input": {"entities": entities},
            "output": {"all_sample_results": [{"metrics": m} for m in metrics]}}


def test_protein_iptm_is_labelled_for_the_complex_it_describes():
    one = _two_samples(1)
    assert predictions.protein_chains(one) == 1
    columns = {c.key: c for c in predictions.sample_columns(predictions.samples(one), 1)}
    assert columns["protein_iptm"].label == "Protein\u2013protein ipTM (no such interface)"
    assert "no protein\u2013protein interface" in columns["protein_iptm"].description
    # Not graded nor compared between samples where there is no such interface.
    assert predictions.shade("protein_iptm", 0.95, 1) == ""
    two = _two_samples(2)
    assert predictions.protein_chains(two) == 2
    columns = {c.key: c for c in predictions.sample_columns(predictions.samples(two), 2)}
    assert columns["protein_iptm"].label == "Protein\u2013protein ipTM"
    assert predictions.shade("protein_iptm", 0.95, 2) == "strong"
