"""protein_sequence_redesign records come as binder or generic designs: each shows its own
metrics (table columns, result page, CSV), never the other variant's."""

from __future__ import annotations

import csv
import io
import re

import pytest

from app.platform.db import get_engine
from tests.support import factories

BINDER_ONLY = ("Binding confidence", "ipTM", "Min. interaction PAE")
GENERIC = ("Structure confidence", "Helix", "Sheet", "Loop")


def seed(app, org, variant: str | None, n: int = 3) -> tuple[str, str, list[str]]:
    """Insert a sequence-redesign pipeline of ``variant`` rows (None: alternating) and a
    public link over it; return the link id, pipeline id and result ids."""
    with get_engine(app).begin() as conn:
        pipeline_id, ids = factories.insert_pipeline(
            conn, org.workspace_id, "protein_sequence_redesign", n, variant=variant,
            artifact_dir=app.config["ARTIFACT_DIR"])
    link = factories.make_link(app, org, pipeline_ids=[pipeline_id])
    return link.id, pipeline_id, ids


def headers(body: str) -> list[str]:
    """Return the results table's column headers as text (units, glossary links and tags
    stripped)."""
    thead = body.split("<thead>", 1)[1].split("</thead>", 1)[0]
    cells = re.findall(r"<th[^>]*>(.*?)</th>", thead, re.S)
    extras = re.compile(r'<span class="unit">.*?</span>|<a class="glossary-link".*?</a>', re.S)
    return [re.sub(r"<[^>]+>", "", extras.sub("", c)).strip() for c in cells]


def page(client, path: str) -> str:
    """Return the body of a page that must render."""
    response = client.get(path)
    assert response.status_code == 200, response.data[:2000]
    return response.get_data(as_text=True)


def test_generic_sequence_redesign_results_show_generic_metric_columns(app, client, org):
    link_id, pipeline_id, _ids = seed(app, org, "generic")
    shown = headers(page(client, f"/share/{link_id}/pipelines/{pipeline_id}"))
    for label in GENERIC:
        assert label in shown, shown
    for label in BINDER_ONLY:
        assert label not in shown, shown
    assert "Variant" in shown


def test_binder_sequence_redesign_results_show_binder_metric_columns(app, client, org):
    link_id, pipeline_id, _ids = seed(app, org, "binder")
    shown = headers(page(client, f"/share/{link_id}/pipelines/{pipeline_id}"))
    for label in BINDER_ONLY + GENERIC:
        assert label in shown, shown


def test_mixed_page_shows_binder_columns_and_dashes_for_generic_rows(app, client, org):
    link_id, pipeline_id, ids = seed(app, org, None, n=2)  # binder, then generic
    body = page(client, f"/share/{link_id}/pipelines/{pipeline_id}")
    shown = headers(body)
    for label in BINDER_ONLY + GENERIC:
        assert label in shown, shown
    generic_row = body.split(f"/results/{ids[1]}", 1)[1].split("</tr>", 1)[0]
    assert "badge-generic" in generic_row
    # binding_confidence, iptm and PAE do not apply: three dashes before the four values.
    assert generic_row.count('<td class="num">\u2013</td>') == 3


def test_generic_result_page_lists_generic_metrics_with_their_range(app, client, org):
    link_id, pipeline_id, ids = seed(app, org, "generic", n=1)
    body = page(client, f"/share/{link_id}/pipelines/{pipeline_id}/results/{ids[0]}")
    metrics = body.split('<table class="metrics">', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r'<th scope="row">(.*?)</th>', metrics)
    # Each row's label, then its link to the glossary entry of that metric.
    links = [re.search(r'<a class="glossary-link" href="/glossary#(\w+)"', r) for r in rows]
    assert [r.split("<a ", 1)[0] for r in rows] == list(GENERIC)
    assert all(links), rows
    assert metrics.count("<td>0\u20131</td>") == 4
    assert "badge-generic" in body


@pytest.mark.parametrize("variant", ["generic", "binder"])
def test_csv_export_has_one_header_with_every_variants_metrics(app, client, org, variant):
    link_id, pipeline_id, _ids = seed(app, org, variant)
    response = client.get(f"/share/{link_id}/pipelines/{pipeline_id}/export.csv")
    assert response.status_code == 200, response.data[:500]
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert len(rows) == 3
    for row in rows:
        assert row["variant"] == variant
        assert row["structure_confidence"] and row["helix_fraction"]
        # Binder-only metrics are columns of the kind; a generic design leaves them empty.
        assert bool(row["binding_confidence"]) == (variant == "binder")
        assert bool(row["min_interaction_pae"]) == (variant == "binder")
