"""The 3D pages' routes (``app.viewer.structure_pages.views``) over the shared seeded demo, their
server HTML read with a real HTML parser: the compare page puts both designs' metrics side
by side, the better value marked. Moved from the Chromium tests (tests/browser), which keep
what needs a browser (Mol* drawing, the phone's layout, screenshots).
"""

from __future__ import annotations

import pytest

from tests.support.html import one, page, text
from tests.viewer.structure.test_pae_alphafold import _base

# Reads the demo: a link over six pipelines and two predictions.
pytestmark = pytest.mark.reads_demo


def test_compare_shows_both_designs_metrics_with_the_better_marked(client, demo):
    base = (f"/share/{demo['share_links']['public']['id']}/pipelines/"
            f"{demo['pipelines']['protein_design']}")
    # The first two rows of the table ranked by binding confidence.
    table_page = page(client, f"{base}?sort=-binding_confidence")
    a, b = [tr["data-result-id"] for tr in table_page.select("tbody tr[data-result-id]")[:2]]
    soup = page(client, f"{base}/compare?a={a}&b={b}&sort=-binding_confidence")
    table = one(soup, "table.compare-table")
    header = text(one(table, "thead"))
    labels = [text(one(soup, f"[data-side-label='{i}']")) for i in (0, 1)]
    assert labels[0].startswith("#1 ") and labels[1].startswith("#2 ")
    assert labels[0] in header and labels[1] in header
    cells = one(table, "tr[data-metric='binding_confidence']").select("td")
    assert len(cells) == 2
    # A ranks first by binding confidence: its value is the marked one.
    assert "better" in text(cells[0]) and "better" not in text(cells[1])
    values = [float(text(cells[i]).split()[0]) for i in (0, 1)]
    assert values[0] >= values[1]
    assert "A (" in text(one(soup, "[data-compare-verdict]"))
    # Metrics that grade nothing are never marked.
    for key in ("helix_fraction", "sheet_fraction", "loop_fraction"):
        assert table.select(f"tr[data-metric='{key}'] td[data-better]") == []


def test_the_3d_pages_plddt_legend_and_pae_map_link_to_their_glossary_entries(app, client,
                                                                             demo):
    base, _result = _base(demo, "small_molecule_design", app)
    body = client.get(base).get_data(as_text=True)
    legend = body[body.index('data-legend="plddt"'):]
    legend = legend[:legend.index("</section>")]
    assert '<a href="/glossary#plddt">What is pLDDT?</a>' in legend
    panel = body[body.index('id="pae-panel"'):]
    panel = panel[:panel.index("</section>")]
    assert '<a href="/glossary#pae">What is PAE?</a>' in panel
