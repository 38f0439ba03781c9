"""The compare page says which design is better (issue 19 item 7): both results' metrics
side by side, the better value marked by the metric's direction; no mark for a metric
without one, for values equal as shown, or where a side lacks the value."""

from __future__ import annotations

import re

from app import domain
from app.platform.db import get_engine
from app.viewer.structure_pages.compare import Side, metric_rows
from tests.support import factories


def _side(metrics: dict) -> Side:
    return Side("res_x", {"metrics": metrics}, "/x", "mmcif", None)


def test_the_better_value_follows_each_metrics_direction():
    first = _side({"binding_confidence": 0.91, "min_interaction_pae": 4.0,
                   "helix_fraction": 0.7, "iptm": 0.8124, "ptm": 0.5})
    second = _side({"binding_confidence": 0.42, "min_interaction_pae": 2.5,
                    "helix_fraction": 0.2, "iptm": 0.8121, "custom_score": 3.0})
    rows = {row.key: row for row in metric_rows(first, second,
                                                domain.KINDS["protein_design"])}
    assert rows["binding_confidence"].better == 0  # higher is better
    assert rows["min_interaction_pae"].better == 1  # lower is better (Å)
    assert rows["helix_fraction"].better is None  # describes, does not grade
    assert rows["iptm"].better is None  # 0.812 against 0.812 as shown
    assert rows["ptm"].values == (0.5, None) and rows["ptm"].better is None
    assert rows["custom_score"].better is None  # unknown metric: no direction assumed
    # The kind's order first, then the others as the records carry them.
    assert list(rows)[:3] == ["binding_confidence", "iptm", "min_interaction_pae"]


def test_the_compare_page_shows_both_metrics_with_the_better_marked(app, client, org):
    with get_engine(app).begin() as conn:
        pipeline_id, ids = factories.insert_pipeline(
            conn, org.workspace_id, "protein_design", 6, seed=2,
            artifact_dir=app.config["ARTIFACT_DIR"])
    link = factories.make_link(app, org, pipeline_ids=[pipeline_id])
    base = f"/share/{link.id}/pipelines/{pipeline_id}"
    records = {r["id"]: r for r in client.get(
        f"/compute/v1/share/{link.id}/pipelines/{pipeline_id}/results").get_json()["data"]}
    a, b = ids[0], ids[1]
    body = client.get(f"{base}/compare?a={a}&b={b}&sort=-iptm").get_data(as_text=True)
    table = re.search(r'<table class="metrics compare-table">.*?</table>', body, re.S).group(0)
    row = re.search(r'<tr data-metric="binding_confidence">.*?</tr>', table, re.S).group(0)
    values = [records[x]["metrics"]["binding_confidence"] for x in (a, b)]
    cells = re.findall(r"<td class=\"num( better)?\"[^>]*>([^<]+)", row)
    assert [float(text) for _mark, text in cells] == [round(v, 3) for v in values]
    better = 0 if round(values[0], 3) > round(values[1], 3) else 1
    assert cells[better][0] == " better" and cells[1 - better][0] == ""
    assert row.count("✓ better") == 1
    assert "higher is better" in row
    # Each side is named by its label (the id's tail here: no index yet), linked back
    # to its result page in the view the visitor came from.
    assert f'href="{base}/results/{a}?sort=-iptm"' in body
    assert (f'<span data-side-label="0">{a[-4:]}</span> and '
            f'<span data-side-label="1">{b[-4:]}</span>') in body
    helix = re.search(r'<tr data-metric="helix_fraction">.*?</tr>', table, re.S).group(0)
    assert "✓ better" not in helix and "neither is better" in helix
