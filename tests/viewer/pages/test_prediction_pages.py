"""The prediction pages over the in-process API, with the demo's two predictions stored as
the seeder stores them: the ADME table (depictions, units, server-side sorting, 400 for a
bad key) and the structure-and-binding samples (best first, labels, links to 3D)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from app import domain
from app.platform.db import get_engine
from app.platform.ids import new_id
from app.store import schema
from app.synthetic import predictions as demo
from tests.support import factories

WHEN = datetime(2026, 1, 5, tzinfo=UTC)


@pytest.fixture
def pages(app, org) -> dict:
    """Store the demo's structure_and_binding and adme predictions with their files behind a
    public link; return the page path of each, by application, and the link's base path."""
    ids = {}
    with get_engine(app).begin() as conn:
        for application in ("structure_and_binding", "adme"):
            prediction_id = new_id("pred")
            inputs, outputs, files = (demo.adme(prediction_id) if application == "adme"
                                      else demo.structure_and_binding(prediction_id, WHEN))
            conn.execute(schema.predictions.insert().values(
                id=prediction_id, workspace_id=org.workspace_id, application=application,
                name=None, status="succeeded", inputs=inputs, outputs=outputs,
                created_at=WHEN, completed_at=WHEN, livemode=True))
            for role, filename, content_type, data in files:
                factories.insert_artifact(conn, app.config["ARTIFACT_DIR"], content=data,
                                          role=role, filename=filename,
                                          content_type=content_type,
                                          prediction_id=prediction_id)
            ids[application] = prediction_id
    link = factories.make_link(app, org, prediction_ids=list(ids.values()))
    base = f"/share/{link.id}"
    return {"base": base, **{k: f"{base}/predictions/{v}" for k, v in ids.items()}}


def body_of(response) -> str:
    assert response.status_code == 200, response.data[:1500]
    return response.get_data(as_text=True)


def adme_row_names(body: str) -> list[str]:
    """Return the row headers of the ADME table, top to bottom."""
    return re.findall(r'<th scope="row" class="col-name">([^<]+)', body)


def test_adme_page_is_a_table_with_a_depiction_units_and_the_tables_labels(client, pages):
    body = body_of(client.get(pages["adme"]))
    assert adme_row_names(body) == list(demo.ADME_PANEL)  # request order by default
    # A drawing of every molecule, served under the link's own path.
    images = re.findall(r'<img src="(/share/[^"]+/depictions/[^"]+\.svg\?[^"]+)"', body)
    assert len(images) == len(demo.ADME_PANEL)
    assert client.get(images[0].replace("&amp;", "&")).mimetype == "image/svg+xml"
    # Units in the headers, solubility in the results tables' words.
    assert '<span class="unit">logD 7.4</span>' in body
    assert '<span class="unit">10\u207b\u2076 cm/s</span>' in body
    assert "Caco-2" in body and "A\u2192B" in body
    shown = set(re.findall(r'<span class="sol sol-\w+">([^<]+)</span>', body))
    assert shown and shown <= {label for label, _tone in domain.SOLUBILITY_CLASSES.values()}
    # The SMILES is whole and copyable; the inputs are summarised; raw JSON is kept.
    jq1 = demo.JQ1
    assert f'data-copy="{jq1}"' in body
    assert "<dt>Molecules</dt><dd class=\"num\">10</dd>" in body
    assert "<summary>Inputs as JSON</summary>" in body and "tree depth-0" not in body


def test_adme_sorts_on_the_server_with_links_that_say_the_order(client, pages):
    rows = demo.adme("pred_x")[1]["molecules"]
    by_permeability = [m["id"] for m in sorted(rows, key=lambda m: m["adme"]["permeability"])]
    body = body_of(client.get(f"{pages['adme']}?sort=permeability"))
    assert adme_row_names(body) == by_permeability
    header = re.search(r'<th scope="col" class="col-permeability num" aria-sort="ascending">'
                       r'\s*<a class="sort-link" data-sort-key="permeability" href="([^"]+)"',
                       body)
    assert header, "the sorted column says so and links to the other direction"
    assert header.group(1).startswith(f"{pages['adme']}?sort=-permeability")
    body = body_of(client.get(f"{pages['adme']}?sort=-permeability&embed=1"))
    assert adme_row_names(body) == by_permeability[::-1]
    assert 'aria-sort="descending"' in body
    assert f'href="{pages["adme"]}?sort=lipophilicity&amp;embed=1#adme-heading"' in body


@pytest.mark.parametrize("value", ["weight", "-", "permeability,name"])
def test_a_bad_sort_key_is_a_400_that_names_sort(client, pages, value):
    response = client.get(f"{pages['adme']}?sort={value}")
    assert response.status_code == 400
    assert "sort must be one of" in response.get_data(as_text=True)


def test_structure_and_binding_shows_the_best_sample_first_with_labels_and_units(client,
                                                                                pages):
    body = body_of(client.get(pages["structure_and_binding"]))
    outputs = demo.structure_and_binding("pred_x", WHEN)[1]
    best = outputs["best_sample"]["metrics"]
    summary = body[body.index('id="best-heading"'):body.index('id="samples-heading"')]
    assert "Best sample: sample 1" in summary
    for key, label in (("iptm", "ipTM"), ("ptm", "pTM"), ("complex_iplddt", "Complex ipLDDT"),
                       ("complex_plddt", "Complex pLDDT")):
        assert f">{label}</abbr>" in summary
        assert f">{best[key]:.3f}</span> <span class=\"unit-inline\">0\u20131</span>" in summary
    assert f">{best['complex_pde']:.2f}</span> <span class=\"unit-inline\">\u00c5</span>" in summary
    assert "Binding confidence" in summary and "Optimization score" in summary
    assert "Iptm" not in body and "Complex iplddt" not in body
    # Every sample in a row, the best first and marked, each with its own 3D view.
    rows = re.findall(r'<tr data-sample="(\d+)"( class="best")?', body)
    assert rows == [("1", ' class="best"'), ("2", ""), ("3", "")]
    for n in (1, 2, 3):
        assert f'href="{pages["structure_and_binding"]}/structure?sample={n}"' in body
    # The inputs read as entities, the ligand drawn.
    assert "Ligand (SMILES)" in body and "/depictions/" in body


def test_every_sample_file_downloads_through_the_viewer(client, pages):
    body = body_of(client.get(pages["structure_and_binding"]))
    outputs = demo.structure_and_binding("pred_x", WHEN)[1]
    count = len(outputs["all_sample_results"])
    names = [demo.sample_artifact_name(n) for n in range(1, count + 1)]
    downloads = {}
    for name in names:
        path = f"{pages['structure_and_binding']}/artifacts/{name}"
        assert f'href="{path}" download' in body
        response = client.get(path)
        assert response.status_code == 200 and response.data.startswith(b"data_pred_")
        downloads[name] = response.data
    assert len(set(downloads.values())) == len(names)


def test_protein_iptm_of_a_one_protein_complex_says_there_is_no_such_interface(client, pages):
    body = body_of(client.get(pages["structure_and_binding"]))
    assert "Protein ipTM" not in body
    assert "Protein\u2013protein ipTM (no such interface)" in body
    assert "Protein\u2013ligand ipTM" in body


def test_adme_page_names_its_source_and_model_and_defines_the_solubility_classes(client,
                                                                                 pages):
    body = body_of(client.get(pages["adme"]))
    source = re.search(r"<p class=\"adme-source\" data-adme-source><strong>Source:</strong> "
                       r"([^<]+)</p>", body)
    assert source and source.group(1).startswith("From this ADME prediction, model ADME v1")
    for value, meaning in domain.SOLUBILITY_MEANINGS.items():
        assert f"<code>{value}</code></dt><dd>{meaning}</dd>" in body, value
    # "Soluble (medium confidence)" is soluble: the tone of good news, not of a warning.
    medium = re.findall(r'<span class="sol sol-(\w+)">Soluble \(medium confidence\)</span>',
                        body)
    assert medium and set(medium) == {"good"}
    assert set(re.findall(r'<span class="sol sol-(\w+)">Solubility risk</span>', body)) <= {
        "risk"}
