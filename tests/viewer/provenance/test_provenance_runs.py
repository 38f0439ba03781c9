"""Provenance read from SDK run records: entities, design, library, progress, times, titles."""

from __future__ import annotations

import pytest

from app.viewer.core import run_kinds
from app.viewer.core.formatting import format_number
from app.viewer.provenance import chain_parts, prediction_provenance, run_provenance, run_title
from app.viewer.provenance.entities import run_entities, spec_length
from app.viewer.provenance.runs import duration_phrase, prediction_title
from tests.support import sdk_records as records


def facts(p) -> dict[str, str]:
    """Return every labelled fact of a provenance, label -> value."""
    return {f.label: f.value for f in p.design + p.library + p.progress}


def test_protein_design_says_target_binder_and_how_far_it_got():
    record = records.protein_design()
    p = run_provenance(record)
    assert p.headline == "Generated 260 of 300 requested"
    assert p.engine == "boltzprot 1.0"
    assert p.status == "succeeded"
    assert p.started_at == "2026-05-04T10:01:00Z"
    assert p.duration == "2 h 5 min"
    (target,) = p.targets
    assert (target.type, target.chain_ids, target.value) == ("protein", ("B",), records.IL6)
    assert target.length == f"{len(records.IL6)} residues"
    (binder,) = p.binders
    assert binder.designed and binder.chain_ids == ("A",)
    assert binder.value == "QVQLV5..10WGQG"
    got = facts(p)
    assert got["Binder modality"] == "Nanobody"
    assert got["Binder length"] == "14\u201319 residues"
    assert "Requested" not in got  # the progress line says "of 300 requested"


def test_requested_is_said_when_progress_is_absent():
    p = run_provenance(records.protein_design(progress=None))
    assert facts(p)["Requested"] == "300"
    assert p.headline == ""


def test_library_screen_names_its_library_file_and_size_without_the_signature():
    p = run_provenance(records.protein_library_screen())
    got = facts(p)
    assert got["Protein library"] == "binders.fasta"
    assert got["Library size"] == "500"
    assert got["Screened"] == "120 of 500 in the library"
    assert got["Failed"] == "3"
    assert p.duration == ""  # still running
    (target,) = p.targets
    assert target.type == "template_chain" and target.chain_ids == ("C",)
    assert "epitope: 3 residues" in target.notes
    assert "sig=1" not in repr(p)


def test_small_molecule_screen_explore_and_design():
    screen = facts(run_provenance(records.small_molecule_screen()))
    assert screen["Molecule library"] == "library.csv"
    assert screen["Filtered out"] == "7" and screen["Invalid"] == "2"
    explore = run_provenance(records.small_molecule_explore())
    got = facts(explore)
    assert got["Phase"] == "Scoring"
    assert explore.headline.startswith("Scored 1")
    assert got["Molecule library"] == "library.csv, fetched from a web address"
    assert "X-Signature" not in repr(explore)
    assert got["Library format"] == "CSV"
    assert got["Library size"] == format_number(2000000, 0)
    design = run_provenance(records.small_molecule_design())
    assert design.error == "GPU <out> of memory" and design.error_code == "engine_error"
    assert design.stopped_at and design.duration == "30 min"
    assert facts(design)["Chemical space"] == "Enamine REAL"
    assert facts(design)["Pocket"] == "3 residues on chain A"


def test_redesigns_read_their_chains():
    redesign = run_provenance(records.protein_redesign())
    assert [(e.chain_ids, e.side, e.designed) for e in redesign.entities] == [
        (("B",), "target", False), (("L",), "target", False), (("A",), "binder", True)]
    assert facts(redesign)["Starting structure"] == "complex.cif"
    sequence = run_provenance(records.sequence_redesign())
    assert [(e.chain_ids, e.role) for e in sequence.entities] == [
        (("T",), "target"), (("H",), "designed")]


@pytest.mark.parametrize("builder", records.PIPELINES)
def test_every_type_gets_a_title_with_its_kind_and_target(builder):
    record = builder()
    kind = run_kinds.pipeline_kind_key(record)
    title = run_title(record, kind)
    label = title.split(" \u00b7 ")[0]
    assert label and label != "Pipeline"
    assert " \u00b7 target " in title


def test_title_examples():
    assert run_title(records.protein_design(), "protein_design") == (
        f"Protein design \u00b7 target chain B (protein, {len(records.IL6)} residues)")
    assert run_title({"input": None}, None) == "Pipeline"
    assert run_title(records.protein_redesign(), "protein_redesign") == (
        "Protein redesign \u00b7 target chains B, L")


def test_predictions_say_entities_binding_and_samples():
    p = prediction_provenance(records.structure_and_binding())
    assert [(e.chain_ids, e.side) for e in p.entities] == [(("A",), "target"),
                                                           (("B",), "binder")]
    got = {f.label: f.value for f in p.design}
    assert got == {"Binding": "Ligand-protein binding, binder chain B", "Samples": "3"}
    assert p.engine == "Boltz-2.1, version 2.1.0"
    assert prediction_title(records.structure_and_binding()).endswith("chains A, B")
    adme = prediction_provenance(records.adme())
    assert [(f.label, f.value) for f in adme.extra] == [("ethanol", "CCO"),
                                                         ("Molecule 2", "c1ccccc1")]
    assert prediction_title(records.adme()) == "ADME prediction \u00b7 2 molecules"


@pytest.mark.parametrize("record", [
    None, {}, "text", [], {"input": None, "progress": None, "error": None},
    {"input": "x", "progress": [1], "error": "boom", "status": 3, "started_at": 5},
    {"input": {"target": {"entities": [None, 1, {"type": "alien", "chain_ids": ["Q"]},
                                       {"type": "protein", "chain_ids": "AB", "value": 7}]},
               "binder_specification": {"type": "?", "entities": "no"}},
     "progress": {"num_proteins_generated": True, "total_proteins_to_generate": -1}},
    {"input": {"chains_config": {"binder_chains": [], "target_chains": {"A": "x"}}}},
    {"input": {"library": {"source": {"type": "url", "url": "javascript:alert(1)"}}}},
])
def test_anything_unexpected_is_simply_not_shown(record):
    p = run_provenance(record)
    assert run_title(record, None)
    chain_parts(record)
    prediction_provenance(record)
    assert not p.headline
    assert "alien" not in repr(p) and "javascript" not in repr(p)


def test_protein_without_chain_list_is_kept_without_chains():
    views = run_entities({"input": {"target": {"entities": [
        {"type": "protein", "chain_ids": "AB", "value": 7}]}}})
    assert [(v.type, v.chain_ids, v.value) for v in views] == [("protein", (), "")]


@pytest.mark.parametrize(("spec", "expected"), [
    ("20", (20, 20)), ("MKTAYI5..10VKSHFSRQ", (19, 24)), ("ACDE8GHI", (15, 15)),
    ("", None), ("10..5", None), ("AB-C", None), ("5..", None),
])
def test_designed_protein_length(spec, expected):
    assert spec_length(spec) == expected


def test_duration_phrase():
    from datetime import datetime, timedelta

    start = datetime(2026, 1, 1)
    assert duration_phrase(start, start + timedelta(seconds=45)) == "45 s"
    assert duration_phrase(start, start + timedelta(days=3, hours=4)) == "3 d 4 h"
    assert duration_phrase(start, start - timedelta(seconds=1)) == ""
    assert duration_phrase(None, start) == ""


def test_chain_parts_designed_target_fixed():
    assert chain_parts(records.protein_design()) == {"B": "target", "A": "binder"}
    assert chain_parts(records.protein_redesign()) == {"B": "target", "L": "ligand",
                                                       "A": "binder"}
    assert chain_parts(records.small_molecule_screen()) == {"A": "target"}
    assert chain_parts(records.structure_and_binding()) == {"A": "target", "B": "binder"}
    generic = {"pipeline": "boltzprot", "input": {"type": "generic", "entities": [
        {"type": "no_template", "entity": {"type": "designed_protein", "chain_ids": ["A"],
                                           "value": "40"}},
        {"type": "no_template", "entity": {"type": "protein", "chain_ids": ["B"],
                                           "value": "MK"}}]}}
    assert chain_parts(generic) == {"A": "designed", "B": "fixed"}


def test_binder_design_input_with_filters_and_wrapped_entities():
    record = records.validated(records.sdk.PipelineProteinDesignRunResponse, {
        **records.protein_design(), "input": {
            "type": "binder", "num_proteins": 10, "templates": [],
            "target": {"entities": [{"type": "no_template", "entity": {
                "type": "protein", "chain_ids": ["B"], "value": records.IL6}}]},
            "binder": {"modality": "peptide", "entities": [{"type": "no_template", "entity": {
                "type": "designed_protein", "chain_ids": ["A"], "value": "12..20"}}]},
            "global_design_filters": [
                {"type": "excluded_amino_acids", "amino_acids": ["C", "M"]},
                {"type": "max_hydrophobic_fraction", "max_fraction": 0.4}],
        }})
    p = run_provenance(record)
    got = facts(p)
    assert got["Binder modality"] == "Peptide"
    assert got["Binder length"] == "12\u201320 residues"
    assert got["Excluded amino acids"] == "C, M"
    assert got["Max hydrophobic fraction"] == format_number(0.4, 2)
    assert chain_parts(record) == {"B": "target", "A": "binder"}


def test_template_curated_and_sampled_binder_specifications():
    template = {"type": "structure_template", "modality": "antibody",
                "structure": {"url": "https://files.example/fab.cif?sig=3",
                              "url_expires_at": records.EXPIRES},
                "chain_selection": {"H": {"chain_type": "polymer", "crop_residues": "all",
                                          "design_motifs": [{
                                              "type": "replacement", "start_index": 95,
                                              "end_index": 102,
                                              "design_length_range": {"min": 8, "max": 14}}]}}}
    curated = {"type": "boltz_curated", "binder": "boltz_nanobody"}
    sampled = {"type": "uniformly_sampled_specifications",
               "binder_specifications": [template, curated]}
    record = records.protein_design()
    record["input"]["binder_specification"] = sampled
    record = records.validated(records.sdk.PipelineProteinDesignRunResponse, record)
    p = run_provenance(record)
    got = facts(p)
    assert got["Binder modality"] == "Antibody, Boltz curated nanobody"
    assert got["Binder specifications"] == "2, sampled uniformly"
    (heavy,) = p.binders
    assert heavy.chain_ids == ("H",) and heavy.designed
    assert "designed regions: 8\u201314 residues" in heavy.notes
    record["input"]["binder_specification"] = template
    assert facts(run_provenance(record))["Binder source"] == "Template structure (fab.cif)"


def test_a_finished_run_says_no_phase_and_a_stopped_one_says_where_it_stopped():
    running = records.small_molecule_explore()
    assert facts(run_provenance(running))["Phase"] == "Scoring"
    done = facts(run_provenance({**running, "status": "succeeded"}))
    assert "Phase" not in done and "Scoring" not in done.values()
    stopped = facts(run_provenance({**running, "status": "stopped"}))
    assert stopped["Stopped during"] == "Scoring" and "Phase" not in stopped


def test_a_stopped_run_says_why_or_that_the_record_does_not():
    with_error = run_provenance(records.small_molecule_design())
    assert with_error.error == "GPU <out> of memory" and with_error.end_note == ""
    bare = run_provenance({**records.protein_design(), "status": "stopped", "error": None,
                           "stopped_at": "2026-05-04T11:00:00Z"})
    assert bare.end_note == ("Stopped before it finished. The record gives no reason and "
                             "does not say who stopped it.")
    failed = run_provenance({**records.protein_design(), "status": "failed", "error": None})
    assert failed.end_note == "Failed. The record gives no error message."
    assert run_provenance(records.protein_design()).end_note == ""


def test_a_library_is_named_by_its_file_never_its_internal_url():
    record = records.small_molecule_explore()
    internal = "https://inputs.demo.invalid/libraries/enamine_sample.csv?sig=1"
    record["input"]["library"]["source"]["url"] = internal
    got = facts(run_provenance(record))["Molecule library"]
    assert got == "enamine_sample.csv, fetched from a web address"
    assert "inputs.demo.invalid" not in repr(run_provenance(record))


def test_reference_ligands_are_kept_to_be_drawn_not_counted():
    record = records.small_molecule_design()
    record["input"]["target"]["reference_ligands"] = ["CCO", "c1ccccc1"]
    p = run_provenance(record)
    assert p.reference_ligands == ("CCO", "c1ccccc1")
    assert "Reference ligands" not in facts(p)
