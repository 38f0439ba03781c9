"""The demo's and test mode's stored records in the official SDK's shapes (issue 18).

Built without a database (``app.synthetic.catalog.build_catalog``, as ``seed-demo`` and test mode's
synthetic data build them) and through the test factories: every pipeline input, every
stored progress completed as the service completes it, every prediction input and output
(with placeholder file objects where the service injects them) validates strictly against
the SDK model of its type (``boltz-api`` 0.50.0), with no key the model does not declare.
And the records are coherent: entities name the chains of the structure files.
"""

from __future__ import annotations

import statistics
from datetime import datetime

import gemmi
import pytest
import sqlalchemy as sa
from pydantic import BaseModel, TypeAdapter

from app.artifact_storage import path_for
from app.domain import PIPELINE_KINDS
from app.store import schema
from app.synthetic import test_mode as synthetic_data
from app.synthetic.catalog import DEMO_ONLY, PIPELINE_PLAN, build_catalog
from tests.support import factories

# The module fixture builds the whole demo catalog: seconds before the first test.
pytestmark = pytest.mark.slow

wire = pytest.importorskip("boltz_api.types.share_link_read_response")

INPUTS = {
    "protein_design": wire.PipelineProteinDesignRunResponseInput,
    "protein_redesign": wire.PipelineProteinRedesignRunInput,
    "protein_sequence_redesign": wire.PipelineProteinSequenceRedesignRunInput,
    "protein_library_screen": wire.PipelineProteinLibraryScreenInput,
    "small_molecule_design": wire.PipelineSmDesignRunInput,
    "small_molecule_library_screen": wire.PipelineSmScreenInput,
    "small_molecule_explore": wire.PipelineSmExploreInput,
}
# kind -> (SDK progress model, the count the service fills from result_count)
PROGRESS = {
    "protein_design": (wire.PipelineProteinDesignRunResponseProgress,
                       "num_proteins_generated"),
    "protein_redesign": (wire.PipelineProteinRedesignRunProgress, "num_proteins_generated"),
    "protein_sequence_redesign": (wire.PipelineProteinSequenceRedesignRunProgress,
                                  "num_proteins_generated"),
    "protein_library_screen": (wire.PipelineProteinLibraryScreenProgress,
                               "num_proteins_screened"),
    "small_molecule_design": (wire.PipelineSmDesignRunProgress, "num_molecules_generated"),
    "small_molecule_library_screen": (wire.PipelineSmScreenProgress,
                                      "num_molecules_screened"),
    "small_molecule_explore": (wire.PipelineSmExploreProgress, "num_molecules_scored"),
}
PREDICTIONS = {
    "structure_and_binding": (wire.PredictionBoltz2PredictionInput,
                              wire.PredictionBoltz2PredictionOutput),
    "adme": (wire.PredictionAdmePredictionInput, wire.PredictionAdmePredictionOutput),
}
FILE = {"url": "https://files.test/x", "url_expires_at": "2030-01-01T00:00:00Z"}


def strict(model, value):
    """Validate ``value`` with the SDK ``model``; fail on any key the model does not declare.

    The SDK's models allow extra keys, so a misspelt optional field would pass
    validation alone.
    """
    parsed = TypeAdapter(model).validate_python(value)
    _no_extra(parsed, "$")
    return parsed


def _no_extra(node, where: str) -> None:
    if isinstance(node, BaseModel):
        assert not node.model_extra, f"{where}: undeclared {sorted(node.model_extra)}"
        for name in type(node).model_fields:
            _no_extra(getattr(node, name), f"{where}.{name}")
    elif isinstance(node, list):
        for i, item in enumerate(node):
            _no_extra(item, f"{where}[{i}]")
    elif isinstance(node, dict):
        for key, item in node.items():
            _no_extra(item, f"{where}.{key}")


def with_files(output: dict, roles: set[str]) -> dict:
    """Return a structure-and-binding output with the file objects the service injects.

    As plan decision 3 says: ``best_sample`` gets ``structure`` (and ``ligand_structure``
    if that artifact exists), sample ``n`` its ``structure_sample_<n>`` (and
    ``ligand_structure_sample_<n>``), the output its ``archive``.
    """
    def sample(entry: dict, ligand_role: str) -> dict:
        out = {**entry, "structure": FILE}
        if ligand_role in roles:
            out["ligand_structure"] = FILE
        return out
    done = {**output, "best_sample": sample(output["best_sample"], "ligand_structure"),
            "all_sample_results": [sample(s, f"ligand_structure_sample_{n}") for n, s in
                                   enumerate(output["all_sample_results"], 1)]}
    if "archive" in roles:
        done["archive"] = FILE
    return done


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The demo's catalog and test mode's, built into one file store."""
    store = tmp_path_factory.mktemp("wire")
    now = datetime.utcnow()
    return {
        "store": store,
        "demo": build_catalog("ws_demo", store, now),
        "test": build_catalog("ws_test", store, now, livemode=False,
                              count=synthetic_data.RESULTS_PER_PIPELINE),
    }


def test_the_demo_has_one_pipeline_of_each_of_the_seven_kinds(built):
    assert set(PIPELINE_PLAN) == set(PIPELINE_KINDS) == set(INPUTS)
    for mode in ("demo", "test"):
        assert sorted(p.kind for p in built[mode].pipelines) == sorted(PIPELINE_KINDS)


@pytest.mark.parametrize("mode", ["demo", "test"])
def test_every_stored_input_and_progress_is_the_sdks(built, mode):
    data = built[mode]
    last = {}
    for result in data.results:
        last[result.pipeline_id] = max(last.get(result.pipeline_id, ""), result.id)
    for p in data.pipelines:
        strict(INPUTS[p.kind], p.input)
        model, count_field = PROGRESS[p.kind]
        strict(model, {**p.progress, count_field: p.result_count,
                       "latest_result_id": last[p.id]})
        assert p.started_at is not None and p.created_at <= p.started_at
        assert p.error is None
        first = min(r.created_at for r in data.results if r.pipeline_id == p.id)
        assert p.started_at < first
        if p.status == "stopped":
            assert p.completed_at is None and p.stopped_at > p.started_at
        else:
            assert p.status == "succeeded" and p.stopped_at is None
            assert p.completed_at > p.started_at


@pytest.mark.parametrize("mode", ["demo", "test"])
def test_every_prediction_input_and_output_is_the_sdks(built, mode):
    data = built[mode]
    roles = {}
    for artifact in data.artifacts:
        if artifact.prediction_id:
            roles.setdefault(artifact.prediction_id, set()).add(artifact.role)
    assert sorted(p.application for p in data.predictions) == sorted(PREDICTIONS)
    for p in data.predictions:
        input_model, output_model = PREDICTIONS[p.application]
        strict(input_model, p.inputs)
        output = p.outputs
        if p.application == "structure_and_binding":
            assert "archive" not in output and "structure" not in output["best_sample"]
            samples = len(output["all_sample_results"])
            assert {f"structure_sample_{n}" for n in range(1, samples + 1)} | {
                "structure", "archive"} <= roles[p.id]
            output = with_files(output, roles[p.id])
        strict(output_model, output)
        assert p.started_at is not None and p.created_at < p.started_at < p.completed_at


def test_the_demo_design_asked_for_more_than_it_made_and_was_stopped(built):
    design = next(p for p in built["demo"].pipelines if p.kind == "protein_design")
    requested = DEMO_ONLY["protein_design"]["requested"]
    assert design.input["num_proteins"] == requested
    assert design.progress["total_proteins_to_generate"] == requested > design.result_count
    assert design.status == "stopped"
    screens = [p for p in built["demo"].pipelines if p.kind.endswith(("screen", "explore"))]
    for screen in screens:
        failed = next(v for k, v in screen.progress.items() if k.endswith("_failed"))
        total = next(v for k, v in screen.progress.items() if k.startswith("total_"))
        assert failed > 0 and total == screen.result_count + failed


def _chains(store, data, result_id: str) -> dict[str, str]:
    """Return {chain id: one-letter sequence or ligand code} of a result's structure."""
    artifact = next(a for a in data.artifacts
                    if a.result_id == result_id and a.role == "structure")
    text = path_for(str(store), artifact.storage_path).read_text()
    st = gemmi.make_structure_from_block(gemmi.cif.read_string(text)[0])
    st.setup_entities()
    out = {}
    for chain in st[0]:
        polymer = chain.get_polymer()
        if len(polymer):
            out[chain.name] = gemmi.one_letter_code([r.name for r in polymer])
        else:
            out[chain.name] = chain[0].name
    return out


@pytest.mark.parametrize("mode", ["demo", "test"])
def test_the_il6_design_target_is_the_target_chain_of_its_structures(built, mode):
    data = built[mode]
    design = next(p for p in data.pipelines if p.kind == "protein_design")
    [target] = design.input["target"]["entities"]
    entity = target["entity"]
    [binder] = design.input["binder"]["entities"]
    low, high = map(int, binder["entity"]["value"].split(".."))
    assert design.input["binder"]["modality"] == "custom_protein"
    results = [r for r in data.results if r.pipeline_id == design.id]
    for result in results[:: max(1, len(results) // 12)]:
        chains = _chains(built["store"], data, result.id)
        assert set(chains) == {*entity["chain_ids"], *binder["entity"]["chain_ids"]}
        for chain in entity["chain_ids"]:
            assert chains[chain] == entity["value"]
        (binder_chain,) = binder["entity"]["chain_ids"]
        assert low <= len(chains[binder_chain]) <= high
        assert result.entities[1]["chain_ids"] == entity["chain_ids"]


@pytest.mark.parametrize("mode", ["demo", "test"])
def test_other_targets_and_chain_configs_match_their_structures(built, mode):
    data = built[mode]
    for p in data.pipelines:
        first = next(r for r in data.results if r.pipeline_id == p.id)
        chains = _chains(built["store"], data, first.id)
        if p.kind in ("protein_redesign",):
            config = p.input["chains_config"]
            assert set(chains) == {*config["binder_chains"], *config["target_chains"]}
            binder = next(iter(config["binder_chains"]))
            designed = config["binder_chains"][binder]["designed_residues"]
            assert max(designed) < len(chains[binder])
        elif p.kind == "protein_sequence_redesign":
            assert {e["chain_id"] for e in p.input["entities"]} == set(chains)
        elif p.kind == "protein_library_screen":
            for entity in p.input["target"]["entities"]:
                (chain,) = entity["chain_ids"]
                assert chains[chain] == entity["value"]
            bond = p.input["target"]["bonds"][0]
            residue = bond["atom1"]["residue_index"]
            assert chains[bond["atom1"]["chain_id"]][residue] == "N"
        elif p.kind.startswith("small_molecule"):
            (entity,) = p.input["target"]["entities"]
            (chain,) = entity["chain_ids"]
            assert chains[chain] == entity["value"]


def test_binder_results_carry_ipsae_min_below_and_following_iptm(built):
    iptm, ipsae = [], []
    for result in built["demo"].results:
        metrics = result.metrics
        if "iptm" in metrics and result.entities:
            assert 0.0 <= metrics["ipsae_min"] <= metrics["iptm"] <= 1.0
            iptm.append(metrics["iptm"])
            ipsae.append(metrics["ipsae_min"])
    assert len(iptm) > 300
    assert statistics.correlation(iptm, ipsae) > 0.9


def test_the_exploration_scores_a_named_library_without_adme(built):
    explore = next(p for p in built["demo"].pipelines if p.kind == "small_molecule_explore")
    results = [r for r in built["demo"].results if r.pipeline_id == explore.id]
    library = explore.input["library"]
    assert library["source"]["url"].endswith(".csv") and library["format"] == "csv"
    assert explore.progress["library_size"] > explore.input["budget"]
    assert explore.progress["phase"] == "scoring"
    assert all(r.adme is None and r.smiles and r.external_id for r in results)
    assert len({r.smiles for r in results}) == len(results)
    # Explored best first: the first half scores better than the second on average.
    half = len(results) // 2
    scores = [r.metrics["binding_confidence"] for r in results]
    assert statistics.mean(scores[:half]) > statistics.mean(scores[half:])


@pytest.fixture()
def memory_conn():
    """A connection to an in-memory database holding the API's tables."""
    engine = sa.create_engine("sqlite://")
    schema.metadata.create_all(engine)
    with engine.begin() as conn:
        yield conn
    engine.dispose()


def test_the_factories_store_sdk_shapes(memory_conn):
    for kind in factories.KINDS:
        pipeline_id, _ids = factories.insert_pipeline(memory_conn, "ws_1", kind, 3)
        row = memory_conn.execute(sa.select(schema.pipelines).where(
            schema.pipelines.c.id == pipeline_id)).one()
        strict(INPUTS[kind], row.input)
        model, count_field = PROGRESS[kind]
        strict(model, {**row.progress, count_field: 3})
    assert set(factories.KINDS) == set(PIPELINE_KINDS)
    for application, (input_model, output_model) in PREDICTIONS.items():
        prediction_id = factories.insert_prediction(memory_conn, "ws_1", application)
        row = memory_conn.execute(sa.select(schema.predictions).where(
            schema.predictions.c.id == prediction_id)).one()
        strict(input_model, row.inputs)
        output = row.outputs
        if application == "structure_and_binding":
            output = with_files(output, {"archive"})
        strict(output_model, output)
