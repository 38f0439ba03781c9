"""The one table of explorable fields (``explore.fields``) and what reads it: the sortable
headers, the query's keys, the labels, and explore.json's declared shape."""

from __future__ import annotations

import pytest

from app import domain
from app.platform.db import get_engine
from app.viewer.explore import fields
from app.viewer.explore.explore_answer import Ready
from app.viewer.results import table
from tests.support import factories


@pytest.mark.parametrize("kind", sorted(domain.KINDS))
def test_every_sortable_header_sorts_by_a_key_the_query_accepts(kind):
    for column in table.columns_for(domain.KINDS[kind]):
        key = fields.sort_key(column.key)
        if column.source in ("smiles", "warnings"):
            assert key is None, column
            continue
        assert key in fields.KEYS, column
        if column.source != "sequence":  # "Sequence" shows the length, "Length (aa)"
            assert (column.label, column.unit) == (fields.label(key), fields.unit(key))


def test_labels_units_and_first_clicks():
    assert fields.label("iptm") == "ipTM" and fields.unit("iptm") == "0\u20131"
    assert fields.label("length") == "Length (aa)" and fields.unit("length") == "aa"
    assert fields.label("solubility") == "Solubility" and fields.unit("solubility") == "class"
    assert fields.label("mol_weight") == "Molecular weight"
    assert fields.label("some_key") == "Some key" and fields.unit("some_key") == ""
    best_first = {key for key in fields.KEYS if fields.descending_first(key)}
    assert {"length", "permeability", "qed", "iptm", "binding_confidence"} <= best_first
    assert not best_first & {"min_interaction_pae", "mol_weight", "lipophilicity", "id"}


def test_small_molecules_filter_every_computed_property_and_plot_four():
    kind = domain.KINDS["small_molecule_library_screen"]
    plotted, filtered = fields.plot_keys(kind), fields.filter_keys(kind)
    assert plotted == (*kind.metrics, "lipophilicity", "permeability", "mol_weight",
                       "clogp", "tpsa", "qed")
    assert filtered == (*plotted, "hbd", "hba", "rotatable_bonds", "lipinski_violations")
    protein = domain.KINDS["protein_design"]
    # The length, then the designed chain's properties and liability count (proteins).
    assert fields.plot_keys(protein) == fields.filter_keys(protein) == (
        *protein.metrics, "length", "protein_weight", "isoelectric_point", "net_charge",
        "gravy", "instability_index", "extinction_coefficient", "liability_count")


def test_explore_json_is_its_declared_model_and_each_widget_loads_once(app, client, org):
    with get_engine(app).begin() as conn:
        pipeline_id, _ids = factories.insert_pipeline(
            conn, org.workspace_id, "small_molecule_library_screen", 30,
            artifact_dir=app.config["ARTIFACT_DIR"])
    link = factories.make_link(app, org, pipeline_ids=[pipeline_id])
    path = f"/share/{link.id}/pipelines/{pipeline_id}"
    answer = client.get(f"{path}/explore.json?sort=-qed")
    assert answer.mimetype == "application/json"
    body = answer.get_json()
    assert Ready.model_validate(body).model_dump() == body
    assert [h["label"] for h in body["histograms"]][-4:] == [
        "Molecular weight", "cLogP", "TPSA", "QED"]
    for page in (client.get(path).get_data(as_text=True),
                 client.get(f"{path}?sort=-qed").get_data(as_text=True)):
        assert page.count("/static/js/plots.js?v=") == 1
        assert page.count("/static/js/shortlist.js?v=") == 1
        assert "index_progress.js" not in page
    alone = client.get(f"{path}/plot").get_data(as_text=True)
    assert alone.count("/static/js/plots.js?v=") == 1 and "shortlist.js" not in alone
