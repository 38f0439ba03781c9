"""Liability facets and filters, protein property columns, sorts, exports and the result
page's marked sequence, over the demo's protein design pipeline (260 results)."""

from __future__ import annotations

import csv
import io
import re

import pytest
from Bio.SeqUtils.ProtParam import ProteinAnalysis

from app.viewer.core.api_client import api
from app.viewer.proteins import liabilities
from tests.support.view_rows import view_ids

# Reads the demo: a link over every pipeline (260 protein_design results). Without the
# epitope scan (off in every test app, tests/support/apps.py): these tests are about the
# sequence; the scan's oxidation sites (exposed M/W) are tested in tests/viewer/epitope.
pytestmark = pytest.mark.reads_demo


def _path(demo: dict, kind: str = "protein_design") -> str:
    return f"/share/{demo['share_links']['public']['id']}/pipelines/{demo['pipelines'][kind]}"


def _records(app, demo: dict, kind: str = "protein_design") -> list[dict]:
    with app.test_request_context():
        return api().results(demo["share_links"]["public"]["id"], demo["pipelines"][kind],
                             limit=1000)["data"]


def _designed(record: dict) -> str:
    return next(e["value"] for e in record["entities"] if e["type"] == "protein")


def _counts(sequence: str) -> dict[str, int]:
    """Liability sites counted independently of the module: plain scans, by hand."""
    s = sequence.upper()
    pairs = [s[i:i + 2] for i in range(len(s) - 1)]
    return {
        "n_glycosylation": sum(1 for i in range(len(s) - 2) if s[i] == "N"
                               and s[i + 1] != "P" and s[i + 2] in "ST"),
        "deamidation": pairs.count("NG") + pairs.count("NS"),
        "isomerization": pairs.count("DG") + pairs.count("DS"),
        "unpaired_cysteine": s.count("C") % 2,
        # Counted only where the structure shows M/W exposed, once the scan read it.
        "oxidation": 0,
    }


def test_liability_facets_and_filters_match_the_sequences(app, client, demo):
    records = _records(app, demo)
    assert len(records) == 260
    path = _path(demo)
    counts = {r["id"]: _counts(_designed(r)) for r in records}
    data = client.get(f"{path}/explore.json").get_json()
    assert data["state"] == "ready"
    facets = data["facets"]
    for name in liabilities.LIABILITIES:
        with_it = sorted(rid for rid, c in counts.items() if c[name])
        assert facets["liability"][name] == len(with_it), name
        assert sorted(view_ids(client, path, f"liability={name}")) == with_it, name
    clean = sorted(rid for rid, c in counts.items() if not any(c.values()))
    assert facets["liabilities"] == {"none": len(clean), "any": 260 - len(clean)}
    assert sorted(view_ids(client, path, "liabilities=none")) == clean
    # The page's facet: a link per liability with its count, and "None".
    body = client.get(path).get_data(as_text=True)
    facet = body[body.index('data-facet="liabilities"'):]
    facet = facet[:facet.index("</div>")]
    assert "liabilities=none" in facet and "liability=deamidation" in facet
    assert f'data-value="deamidation">{facets["liability"]["deamidation"]}<' in facet
    # A facet counts the filtered set: deamidation among the liability-free is none.
    narrowed = client.get(f"{path}/explore.json?liabilities=none").get_json()
    assert narrowed["facets"]["liability"]["deamidation"] == 0

    # The count column sorts and filters, ties by id.
    total = {rid: sum(c.values()) for rid, c in counts.items()}
    expected = sorted(total, key=lambda rid: (-total[rid], rid))
    assert view_ids(client, path, "sort=-liability_count") == expected
    assert sorted(view_ids(client, path, "liability_count__lte=2")) == \
        sorted(rid for rid, n in total.items() if n <= 2)


def test_property_columns_sort_and_filter_with_biopythons_values(app, client, demo):
    records = _records(app, demo)
    path = _path(demo)
    pi = {r["id"]: ProteinAnalysis(_designed(r)).isoelectric_point() for r in records}
    gravy = {r["id"]: ProteinAnalysis(_designed(r)).gravy() for r in records}
    # Rounded to 4 decimals in the index: compare orders away from near-ties.
    wanted = sorted((rid for rid in gravy if gravy[rid] <= -0.3), key=lambda rid: pi[rid])
    found = view_ids(client, path, "gravy__lte=-0.3&sort=isoelectric_point")
    assert len(found) == len(wanted) > 0
    assert [round(pi[rid], 3) for rid in found] == [round(pi[rid], 3) for rid in wanted]

    body = client.get(f"{path}?sort=-gravy").get_data(as_text=True)
    for label in ("pI", "GRAVY", "Net charge", "Instability index", "Liabilities"):
        assert f">{label}<" in body or f">{label} <" in body, label
    data = client.get(f"{path}/explore.json?x=isoelectric_point&y=gravy").get_json()
    keys = {h["key"] for h in data["histograms"]}
    assert {"isoelectric_point", "gravy", "net_charge", "protein_weight",
            "instability_index", "extinction_coefficient", "liability_count"} <= keys
    point = data["points"]["data"][0]
    assert point["x"] == pytest.approx(pi[point["id"]], abs=1e-3)
    assert point["y"] == pytest.approx(gravy[point["id"]], abs=1e-3)


def test_the_csv_carries_every_property(app, client, demo):
    records = {r["id"]: r for r in _records(app, demo)}
    response = client.get(f"{_path(demo)}/export.csv?sort=isoelectric_point")
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert len(rows) == 260
    for row in rows[:20]:
        analysis = ProteinAnalysis(_designed(records[row["result_id"]]))
        assert float(row["isoelectric_point"]) == pytest.approx(
            analysis.isoelectric_point(), abs=1e-3)
        assert float(row["gravy"]) == pytest.approx(analysis.gravy(), abs=1e-3)
        assert float(row["extinction_coefficient"]) == \
            analysis.molar_extinction_coefficient()[1]
        for key in ("protein_weight", "net_charge", "instability_index", "liability_count"):
            assert row[key] != "", key


@pytest.mark.parametrize(("query", "named"), [
    ("liabilities=some", "liabilities"), ("liability=glycation", "liability"),
    ("gravy__lte=abc", "gravy__lte"), ("sort=-isoelectric_pointx", "isoelectric_pointx"),
])
def test_bad_liability_and_property_values_are_a_400_naming_them(client, demo, query, named):
    response = client.get(f"{_path(demo)}?{query}")
    assert response.status_code == 400
    assert named in response.get_data(as_text=True)


def test_liability_keys_on_small_molecules_are_a_400(client, demo):
    path = _path(demo, "small_molecule_library_screen")
    for query in ("liabilities=any", "liability=oxidation"):
        response = client.get(f"{path}?{query}")
        assert response.status_code == 400
        assert "protein designs" in response.get_data(as_text=True)


def test_the_result_page_marks_each_motif(app, client, demo):
    records = _records(app, demo)
    record = next(r for r in records if _counts(_designed(r))["deamidation"])
    body = client.get(f"{_path(demo)}/results/{record['id']}").get_data(as_text=True)
    assert "Designed chain" in body and "Sequence liabilities" in body
    assert re.search(r'<mark class="liab[^"]*liab-deamidation[^"]*" title="[^"]*'
                     r'Deamidation \(NG, NS\)', body)
    marked = re.search(r'aria-label="Designed chain [^"]*">(.*?)</pre>', body, re.S).group(1)
    assert re.sub(r"<[^>]+>", "", marked) == _designed(record)
    pi = ProteinAnalysis(_designed(record)).isoelectric_point()
    assert f"{pi:.2f}" in body
