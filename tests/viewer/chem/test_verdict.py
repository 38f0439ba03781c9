"""One alert verdict per molecule (``chem.verdict``): the demo's molecules the API flags
``pains_substructure`` (RDKit's catalog finds no PAINS in some) are out of ``alerts=none``,
in ``alerts=any`` and ``alert_family=pains``, and their badge and result page name the
API as the source."""

from __future__ import annotations

import csv
import io
import re

import pytest

from app.viewer.chem import verdict
from tests.support.html import page, text
from tests.support.view_rows import view_ids


def test_the_verdict_reconciles_both_sources():
    api_only = verdict.Verdict((), ("pains_substructure",))
    assert api_only.flagged() and api_only.flagged("pains") and not api_only.flagged("brenk")
    assert api_only.sources == {"rdkit": [], "api": ["pains_substructure"]}
    assert api_only.known
    assert not verdict.Verdict(()).flagged() and verdict.Verdict(()).known
    assert not verdict.Verdict(None).known and verdict.Verdict(None, ("pains_substructure",)).known
    record = {"warnings": [{"code": "low_iptm"}, {"code": "pains_substructure"}]}
    assert verdict.of_record(record, ("nitro_group",)).sources == {
        "rdkit": ["nitro_group"], "api": ["pains_substructure"]}


@pytest.mark.reads_demo
@pytest.mark.slow
def test_the_apis_pains_flags_are_alerts_everywhere(client, demo):
    link_id = demo["share_links"]["public"]["id"]
    seen = 0
    for kind in (k for k in demo["pipelines"] if k.startswith("small_molecule")):
        path = f"/share/{link_id}/pipelines/{demo['pipelines'][kind]}"
        rows = list(csv.DictReader(io.StringIO(
            client.get(f"{path}/export.csv?sort=id").get_data(as_text=True))))
        flagged = {r["result_id"] for r in rows
                   if "pains_substructure" in r["warnings"].split(";")}
        if not flagged:
            continue
        seen += len(flagged)
        assert not flagged & set(view_ids(client, path, "alerts=none"))
        assert not flagged & set(view_ids(client, path, "alerts=none&alert_family=pains"))
        assert flagged <= set(view_ids(client, path, "alerts=any"))
        assert flagged <= set(view_ids(client, path, "alert_family=pains"))
        facets = client.get(f"{path}/explore.json").get_json()["facets"]
        assert facets["alert_family"]["pains"] >= len(flagged)
        one = sorted(flagged)[0]
        body = client.get(f"{path}?ids={one}").get_data(as_text=True)
        row = re.search(rf'<tr data-result-id="{one}".*?</tr>', body, re.S).group(0)
        badge = re.search(r'<span class="badge alert-pains"[^>]*>', row).group(0)
        assert "api" in re.search(r'data-sources="([^"]*)"', badge).group(1)
        assert "flagged by the API&#39;s check" in badge or "flagged by the API's check" in badge
        result = page(client, f"{path}/results/{one}")
        api_item = result.select_one('li[data-source="api"]')
        assert api_item is not None and "flagged by the API's check" in text(api_item)
        assert result.select_one('[data-alerts="none"]') is None
    assert seen  # the demo has such molecules (aspirin, fluoxetine, a JQ1 amide)
