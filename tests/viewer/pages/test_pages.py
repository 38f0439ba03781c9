"""Viewer pages over the in-process API: what each page shows for each kind of result."""

from __future__ import annotations

import re
import time

import pytest

from app import domain
from app.viewer.access import identity
from tests.support.links import KINDS


def text(response) -> str:
    """Return the page body as text, asserting it rendered."""
    assert response.status_code == 200, response.data[:2000]
    return response.get_data(as_text=True)


def test_overview_lists_every_pipeline_and_prediction(client, shared):
    body = text(client.get(shared.url()))
    for kind in KINDS:
        pipeline_id = shared.pipelines[kind]
        assert f'href="/share/{shared.link_id}/pipelines/{pipeline_id}"' in body
        assert domain.KINDS[kind].label in body
    for prediction_id in shared.predictions:
        assert f'href="/share/{shared.link_id}/predictions/{prediction_id}"' in body
    assert "Structure and binding prediction" in body
    assert "Link expires in 24 hours" in body or "Link expires in 23 hours" in body
    # Counts come from each run record's progress (4 results each).
    assert body.count('<dt>Results</dt><dd class="num">4</dd>') == len(KINDS)
    # Nothing the share read does not carry: no access mode guessed.
    assert "Public link" not in body and "Verified e-mail link" not in body


EXPECTED_HEADERS = {
    "protein_design": ["Sequence", "Binding confidence", "ipTM", "Min. interaction PAE",
                       "Structure confidence", "Helix", "Sheet", "Loop", "Warnings"],
    "protein_redesign": ["Sequence", "Binding confidence", "Min. interaction PAE"],
    "protein_sequence_redesign": ["Variant", "Sequence", "Binding confidence"],
    "protein_library_screen": ["External ID", "Sequence", "Binding confidence"],
    "small_molecule_design": ["Structure", "Binding confidence", "Optimization score", "pTM",
                              "Complex pLDDT", "Complex ipLDDT", "Molecular weight", "cLogP",
                              "TPSA", "QED", "Lipophilicity", "Permeability", "Solubility"],
    "small_molecule_library_screen": ["External ID", "Structure", "Optimization score",
                                      "QED", "Solubility"],
    "small_molecule_explore": ["External ID", "Structure", "Binding confidence",
                               "Optimization score", "QED"],
}


def header_labels(body: str) -> list[str]:
    """Return the text of the results table's column headers, tags stripped."""
    thead = body.split("<thead>", 1)[1].split("</thead>", 1)[0]
    cells = re.findall(r"<th[^>]*>(.*?)</th>", thead, re.S)
    return [re.sub(r"<span class=\"unit\">.*?</span>", "", re.sub(r"\s+", " ", c))
            .replace("<abbr", "\0<abbr") for c in cells]


@pytest.mark.parametrize("kind", KINDS)
def test_results_table_has_the_columns_of_its_kind(client, shared, kind):
    body = text(client.get(shared.url(f"/pipelines/{shared.pipelines[kind]}")))
    headers = " | ".join(re.sub(r"<[^>]+>", "", h) for h in header_labels(body))
    for label in EXPECTED_HEADERS[kind]:
        assert label in headers, (label, headers)
    if kind.startswith("protein"):
        assert "SMILES" not in headers and "Solubility" not in headers
    else:
        assert "Sequence" not in headers and "Min. interaction PAE" not in headers
    assert ("External ID" in headers) == domain.KINDS[kind].has_external_id
    # Each row links to its result page.
    for result_id in shared.results[kind]:
        assert f"/pipelines/{shared.pipelines[kind]}/results/{result_id}" in body
    assert '<caption id="results-caption">' in body
    assert 'scope="row"' in body and 'scope="col"' in body


def test_metric_headers_carry_descriptions_and_units(client, shared):
    body = text(client.get(shared.url(f"/pipelines/{shared.pipelines['protein_design']}")))
    assert '<abbr title="Minimum predicted aligned error across the interface' in body
    assert '<span class="unit">\u00c5</span>' in body
    assert "primary metric for hit discovery" in body


def test_sequence_redesign_shows_binder_and_generic_variants(client, shared):
    body = text(client.get(
        shared.url(f"/pipelines/{shared.pipelines['protein_sequence_redesign']}")))
    assert "badge-binder" in body and "badge-generic" in body


def test_small_molecule_table_shows_smiles_adme_and_warnings(client, shared):
    body = text(client.get(
        shared.url(f"/pipelines/{shared.pipelines['small_molecule_library_screen']}")))
    assert "CC(=O)Oc1ccccc1C(=O)O" in body
    assert "Soluble (high confidence)" in body
    assert "ext-0" in body
    assert "low_confidence: Low structure confidence" in body
    # Numbers are formatted with fixed decimals, not raw floats.
    assert re.search(r'<td class="num" data-sort="0\.\d+">0\.\d{3}</td>', body)


def test_result_page_shows_full_sequence_metrics_and_downloads(client, shared):
    pipeline_id = shared.pipelines["protein_design"]
    result_id = shared.results["protein_design"][0]
    body = text(client.get(shared.url(f"/pipelines/{pipeline_id}/results/{result_id}")))
    assert 'data-copy="MKTAYIAKQRQISFVKSHFSRQ"' in body
    assert "<code>low_confidence</code>" in body
    assert "Ligand (CCD code)" in body and 'data-copy="ATP"' in body
    assert "Confidence that the binder binds the target" in body
    for name in ("archive", "structure"):
        assert f"/results/{result_id}/artifacts/{name}" in body
    assert "/artifacts/ligand_structure" not in body
    # The first result has a next neighbour and no previous one.
    second = shared.results["protein_design"][1]
    assert f'rel="next" href="/share/{shared.link_id}/pipelines/{pipeline_id}/results/{second}"' \
        in body
    assert 'rel="prev"' not in body


def test_small_molecule_result_page_shows_smiles_and_adme(client, shared):
    pipeline_id = shared.pipelines["small_molecule_library_screen"]
    result_id = shared.results["small_molecule_library_screen"][0]
    body = text(client.get(shared.url(f"/pipelines/{pipeline_id}/results/{result_id}")))
    assert 'data-copy="CC(=O)Oc1ccccc1C(=O)O"' in body
    assert "Lipophilicity" in body and "1.20" in body
    assert "<code>ext-0</code>" in body
    assert "/artifacts/ligand_structure" in body


def test_prediction_page_shows_application_status_and_files(client, shared):
    body = text(client.get(shared.url(f"/predictions/{shared.predictions[0]}")))
    assert "Structure and binding prediction" in body
    assert "Succeeded" in body
    # Its file is the one its output names, under the viewer's own file name.
    assert f"{shared.predictions[0]}_best_sample.cif" in body
    assert f"/predictions/{shared.predictions[0]}/artifacts/structure" in body


def test_embed_mode_drops_chrome_and_keeps_embed_on_links(app, client, shared):
    app.config["EMBED_FRAME_ANCESTORS"] = "https://partner.example"
    response = client.get(shared.url("?embed=1"))
    body = text(response)
    assert 'class="embed"' in body and "site-header" not in body
    links = re.findall(r'href="(/share/[^"]+)"', body)
    assert links and all("embed=1" in link for link in links)
    assert "frame-ancestors https://partner.example" in response.headers["Content-Security-Policy"]
    assert "X-Frame-Options" not in response.headers
    normal = client.get(shared.url())
    assert "frame-ancestors 'none'" in normal.headers["Content-Security-Policy"]
    assert normal.headers["X-Frame-Options"] == "DENY"


def test_robots_txt_disallows_share_pages(client):
    response = client.get("/robots.txt")
    assert response.status_code == 200
    assert "Disallow: /share/" in response.get_data(as_text=True)


def test_post_is_refused_and_changes_nothing(client, shared):
    response = client.post(shared.url())
    assert response.status_code == 405
    assert "read-only" in response.get_data(as_text=True)
    assert client.get(shared.url()).status_code == 200


def test_the_overview_says_a_verified_address_opened_it_and_nothing_else(client, shared):
    """The share read says nothing of how a link is shared: the viewer only tells a
    visitor who holds a verified address (sent with the read) that it was used."""
    assert "Opened with your verified address" not in text(client.get(shared.url()))
    with client.session_transaction() as session:
        session[identity.SESSION_EMAIL_KEY] = "reader@example.org"
        session["verified_at"] = int(time.time())
    assert "Opened with your verified address" in text(client.get(shared.url()))
