"""The glossary's protein, liability and chemistry entries (issue 20 item 10, loose ends):
every protein property and liability, the chemistry keys and filters (structure, alerts,
scaffold, similarity) with meaning, range, direction, sourced thresholds and the exact tool;
and every header that has an entry links to it, on results and result pages."""

from __future__ import annotations

import re

import pytest

from app.viewer.explore import fields
from app.viewer.proteins import liabilities
from tests.viewer.pages.test_glossary import _entries
from tests.viewer.pages.test_prediction_pages import body_of

PROTEIN = [k for k, f in fields.FIELDS.items() if f.group == "protein"]
CHEMISTRY = [k for k, f in fields.FIELDS.items() if f.group == "chemistry"]
LINK = re.compile(r'class="glossary-link" href="/glossary#([\w.]+)"')


@pytest.fixture
def entries(client) -> dict[str, str]:
    return _entries(body_of(client.get("/glossary")))


def test_protein_properties_and_liabilities_have_full_entries(entries):
    assert {"protein_weight", "isoelectric_point", "net_charge", "gravy",
            "instability_index", "extinction_coefficient", "liability_count"} <= set(PROTEIN)
    for key in PROTEIN:
        assert "Biopython ProtParam" in entries[key] or "motif search" in entries[key], key
        assert 'class="glossary-thresholds"' in entries[key], key  # a sourced reading
    for name in liabilities.LIABILITIES:
        assert liabilities.LABELS[name] in entries[name].replace("&#39;", "'"), name
        assert "Lower is better" in entries[name] and "glossary-thresholds" in entries[name]
        assert f"liability={name}" in entries[name]
    assert "&gt; 40 predicts an unstable protein" in entries["instability_index"]
    assert "Guruprasad" in entries["instability_index"]
    assert "Kyte" in entries["gravy"] and "isoelectric_point" in entries["isoelectric_point"]
    assert "Bjellqvist" in entries["isoelectric_point"]
    assert "Pace" in entries["extinction_coefficient"]
    assert "N-X-S/T" in entries["n_glycosylation"] and "Gavel" in entries["n_glycosylation"]


def test_chemistry_keys_and_filters_have_full_entries(entries):
    for key in (*CHEMISTRY, "smiles", "alerts", "scaffold", "similarity"):
        assert "RDKit" in entries[key], key
    for key in (*CHEMISTRY, "alerts", "scaffold", "similarity"):
        assert 'class="glossary-thresholds"' in entries[key], key
    assert "Crippen" in entries["clogp"] and "Bickerton" in entries["qed"]
    assert "Veber" in entries["tpsa"] and "Lipinski" in entries["lipinski_violations"]
    assert "Baell" in entries["alerts"] and "Brenk" in entries["alerts"]
    assert "Bemis" in entries["scaffold"] and "Tanimoto" in entries["similarity"]
    assert "Higher is more similar" in entries["similarity"]


def _linked(markup: str) -> set[str]:
    return set(LINK.findall(markup))


@pytest.mark.reads_demo
def test_every_results_header_with_an_entry_links_to_it(client, demo, entries):
    link = demo["share_links"]["public"]["id"]
    for kind in ("protein_design", "small_molecule_library_screen"):
        body = body_of(client.get(f"/share/{link}/pipelines/{demo['pipelines'][kind]}"))
        head = body[body.index('<table class="results'):]
        head = head[:head.index("</thead>")]
        checked = 0
        for cls, cell in re.findall(r'<th scope="col" class="([^"]*)"[^>]*>(.*?)</th>', head,
                                    re.S):
            # A header's key: what its link sorts by, else its column class (Structure).
            sort = re.search(r"sort=-?([\w.]+)", cell)
            key = sort.group(1) if sort else re.search(r"col-([\w.]+)", cls).group(1)
            key = key.removeprefix("adme.")
            if key in entries:
                assert LINK.search(cell) and LINK.search(cell).group(1) == key, (kind, key)
                checked += 1
        assert checked >= 5, kind
    path = f"/share/{link}/pipelines/{demo['pipelines']['small_molecule_library_screen']}"
    similar = body_of(client.get(f"{path}?similar_to=CCO&sort=-similarity"))
    assert "similarity" in _linked(similar[:similar.index("</thead>")])
    grouped = body_of(client.get(f"{path}?group=scaffold"))
    assert "scaffold" in _linked(grouped[:grouped.index("</thead>")])


@pytest.mark.reads_demo
def test_result_pages_link_their_rows_to_the_glossary(client, demo, entries):
    link = demo["share_links"]["public"]["id"]
    base = f"/share/{link}/pipelines/{demo['pipelines']['small_molecule_library_screen']}"
    first = re.search(r'<tr data-result-id="([^"]+)"', body_of(client.get(base))).group(1)
    page = body_of(client.get(f"{base}/results/{first}"))
    assert {*CHEMISTRY, "alerts"} <= _linked(page)
    base = f"/share/{link}/pipelines/{demo['pipelines']['protein_design']}"
    first = re.search(r'<tr data-result-id="([^"]+)"', body_of(client.get(base))).group(1)
    page = body_of(client.get(f"{base}/results/{first}"))
    assert {*PROTEIN, *liabilities.LIABILITIES} <= _linked(page)
    assert _linked(page) <= set(entries)
