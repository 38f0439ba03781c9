"""Recognising pipelines and predictions from the SDK's fields alone (``core.run_kinds``).

Records are built with the field names of the SDK's models (boltz-api's
``ShareLinkReadResponse``) and, where they are complete, validated strictly by those
models, so the recogniser is tested on what the real API sends.
"""

from __future__ import annotations

import pytest
from boltz_api.types.share_link_read_response import Pipeline, Prediction
from pydantic import TypeAdapter

from app import domain
from app.viewer.core import run_kinds

CREATED = "2026-11-20T10:00:00Z"


def run(pipeline: str, version: str, progress: dict | None, **extra) -> dict:
    """Return a run record as the share read sends it (input deleted unless given)."""
    return {"id": "pl_1", "created_at": CREATED, "engine": pipeline,
            "engine_version": version, "pipeline": pipeline, "pipeline_version": version,
            "livemode": True, "status": "running", "workspace_id": "ws_1",
            "input": None, "progress": progress, **extra}


SDK_RUNS = {
    "protein_design": run("boltzprot", "1.0", {
        "num_proteins_generated": 12, "total_proteins_to_generate": 50,
        "latest_result_id": "res_12"}),
    "protein_redesign": run("boltz-protein-redesign", "v2026-03-01", {
        "num_proteins_generated": 7, "total_proteins_to_generate": 10}),
    "protein_sequence_redesign": run("boltz-protein-redesign", "v2026-07-14", {
        "num_proteins_generated": 3, "total_proteins_to_generate": 3,
        "latest_result_id": "res_3"}),
    "protein_library_screen": run("boltzprot", "1.0", {
        "num_proteins_failed": 1, "num_proteins_screened": 40,
        "total_proteins_to_screen": 60}),
    "small_molecule_design": run("boltzmol", "1.0", {
        "num_molecules_generated": 260, "total_molecules_to_generate": 300}),
    "small_molecule_library_screen": run("boltzmol", "1.0", {
        "num_molecules_failed": 0, "num_molecules_screened": 90,
        "total_molecules_to_screen": 100,
        "rejection_summary": {"filtered_count": 2, "invalid_count": 1}}),
    "small_molecule_explore": run("boltzmol", "1.0", {
        "num_molecules_failed": 2, "num_molecules_scored": 500, "phase": "scoring",
        "total_molecules_to_score": 1000, "library_size": 14000}),
}
COUNTS = {"protein_design": 12, "protein_redesign": 7, "protein_sequence_redesign": 3,
          "protein_library_screen": 40, "small_molecule_design": 260,
          "small_molecule_library_screen": 90, "small_molecule_explore": 500}


def test_every_kind_has_an_sdk_record():
    assert set(SDK_RUNS) == set(domain.KINDS)


@pytest.mark.parametrize("key", list(SDK_RUNS))
def test_records_are_what_the_sdk_declares(key):
    TypeAdapter(Pipeline).validate_python(SDK_RUNS[key], strict=False)


@pytest.mark.parametrize("key", list(SDK_RUNS))
def test_each_pipeline_type_is_recognised_from_sdk_fields(key):
    record = SDK_RUNS[key]
    kind = run_kinds.pipeline_kind(record)
    assert kind is domain.KINDS[key]
    assert run_kinds.is_known(kind)
    assert run_kinds.result_count(record) == COUNTS[key]


def test_input_shape_tells_screens_when_progress_does_not():
    assert run_kinds.pipeline_kind_key(
        run("boltzprot", "1.0", None, input={"proteins": {}, "target": {}})
    ) == "protein_library_screen"
    assert run_kinds.pipeline_kind_key(
        run("boltzmol", "1.0", None, input={"molecules": {}, "target": {}})
    ) == "small_molecule_library_screen"
    assert run_kinds.pipeline_kind_key(
        run("boltzmol", "1.0", None, input={"budget": 10, "library": {}, "target": {}})
    ) == "small_molecule_explore"
    # Nothing but the pipeline: the design of its family.
    assert run_kinds.pipeline_kind_key(run("boltzprot", "1.0", None)) == "protein_design"
    assert run_kinds.pipeline_kind_key(run("boltzmol", "1.0", None)) == "small_molecule_design"


def test_explore_is_told_by_its_phase_alone():
    record = run("boltzmol", "1.0", {"phase": "preparing_library"})
    assert run_kinds.pipeline_kind_key(record) == "small_molecule_explore"
    assert run_kinds.result_count(record) is None


def test_deprecated_engine_fields_are_read_when_pipeline_is_missing():
    record = {"engine": "boltz-protein-redesign", "engine_version": "v2026-07-14"}
    assert run_kinds.pipeline_kind_key(record) == "protein_sequence_redesign"


@pytest.mark.parametrize("pipeline,version", [
    ("boltzfuture", "1.0"), ("boltzprot", "2.0"), ("boltz-protein-redesign", "v2027-01-01"),
    ("", ""), (None, None),
])
def test_an_unknown_type_or_version_is_a_plain_unknown_kind(pipeline, version):
    record = run(pipeline, version, {"num_widgets_generated": 4, "latest_result_id": "r_4"})
    kind = run_kinds.pipeline_kind(record)
    assert isinstance(kind, run_kinds.UnknownKind)
    assert not run_kinds.is_known(kind)
    assert kind.key == run_kinds.UNKNOWN and kind.metrics == ()
    assert kind.label.startswith("Pipeline ")
    if pipeline:
        assert pipeline in kind.label and version in kind.label
    # Any num_*_generated counter still counts its results.
    assert run_kinds.result_count(record) == 4
    assert run_kinds.latest_result_id(record) == "r_4"


def test_counts_and_freshness_read_progress_only():
    record = SDK_RUNS["protein_design"]
    assert run_kinds.freshness(record) == run_kinds.Freshness("res_12", "running", 12)
    pending = run("boltzprot", "1.0", None, status="pending")
    assert run_kinds.result_count(pending) is None
    assert run_kinds.freshness(pending) == run_kinds.Freshness(None, "pending", 0)
    # Failed and requested totals are not results; a non-integer count is ignored.
    assert run_kinds.result_count({"progress": {"num_proteins_failed": 3,
                                                "total_proteins_to_screen": 9}}) is None
    assert run_kinds.result_count({"progress": {"num_proteins_generated": "12"}}) is None
    assert run_kinds.result_count({"progress": "broken"}) is None


def test_freshness_counts_0_for_a_known_kind_and_none_for_an_unknown_one_without_count():
    # A kind the viewer knows, no progress yet: nothing produced, 0.
    assert run_kinds.freshness(run("boltzmol", "1.0", None, status="pending")).count == 0
    assert run_kinds.freshness(run("boltzmol", "1.0", {"phase": "preparing_library"})
                               ) == run_kinds.Freshness(None, "running", 0)
    # A kind it does not know: a count it can read is the count, else none is known.
    unknown = run("boltzfuture", "1.0", {"num_widgets_generated": 4, "latest_result_id": "r_4"})
    assert run_kinds.freshness(unknown) == run_kinds.Freshness("r_4", "running", 4)
    silent = run("boltzfuture", "1.0", {"widgets_done": 4, "latest_result_id": "r_4"},
                 status="succeeded")
    assert run_kinds.freshness(silent) == run_kinds.Freshness("r_4", "succeeded", None)
    assert run_kinds.freshness({}) == run_kinds.Freshness(None, "", None)


def prediction(model: str, **extra) -> dict:
    """Return a prediction record as the share read sends it."""
    return {"id": "pred_1", "created_at": CREATED, "livemode": False, "model": model,
            "status": "pending", "version": "2026-01", "workspace_id": "ws_1",
            "input": None, "output": None, **extra}


@pytest.mark.parametrize("model,expected", [("boltz-2.1", "structure_and_binding"),
                                            ("adme-v1", "adme")])
def test_prediction_types_come_from_model(model, expected):
    record = prediction(model)
    TypeAdapter(Prediction).validate_python(record, strict=False)
    assert run_kinds.prediction_type(record) == expected
    assert run_kinds.prediction_label(record) == domain.APPLICATIONS[expected]


def test_an_unknown_model_is_named_by_its_model():
    record = prediction("boltz-3")
    assert run_kinds.prediction_type(record) is None
    assert run_kinds.prediction_label(record) == "Prediction (boltz-3)"
    assert run_kinds.prediction_label({}) == "Prediction"
