"""The results page (``app.viewer.results.views``) over the shared seeded demo, its server
HTML read with a real HTML parser: each kind's columns, pagination and sorting by following
the page's own links, the ranked default with its Rank column and labels, the export menu,
the glossary links of the headers, the alert badges, an inline similar_to error, the
protein columns and liability facet, and the chemistry quick filters.

Moved from the Chromium tests (tests/browser): what they read there was server HTML; what
needs a browser (layout, JavaScript, screenshots) stays there.
"""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit

import pytest
from Bio.SeqUtils.ProtParam import ProteinAnalysis
from bs4 import Tag
from rdkit import Chem
from rdkit.Chem import QED, rdMolDescriptors

from tests.rdkit_reference import alert_catalog
from tests.support.html import one, page, parse, text, texts
from tests.viewer.exports.test_csv_export import api_records

# Reads the demo: a link over six pipelines and two predictions.
pytestmark = pytest.mark.reads_demo

KIND_PROTEIN = ["Molecular weight", "pI", "Net charge", "GRAVY", "Instability index",
                "Extinction coeff.", "Liabilities"]
# The results page's columns: the rank, the result's name, the key metrics (the kind's
# primary metric first), then the others in the CSV's order.
COLUMNS = {
    "protein_design": ["Rank", "Result", "Binding confidence", "ipTM",
                       "Min. interaction PAE", "Sequence", "Structure confidence",
                       "Helix", "Sheet", "Loop", "ipSAE (min)", *KIND_PROTEIN, "Warnings"],
    "protein_redesign": ["Rank", "Result", "Binding confidence", "ipTM",
                         "Min. interaction PAE", "Sequence", "Structure confidence",
                         "Helix", "Sheet", "Loop", "ipSAE (min)", *KIND_PROTEIN, "Warnings"],
    "protein_sequence_redesign": ["Rank", "Result", "Binding confidence", "ipTM",
                                  "Min. interaction PAE", "Variant", "Sequence",
                                  "Structure confidence", "Helix", "Sheet", "Loop",
                                  "ipSAE (min)", *KIND_PROTEIN, "Warnings"],
    "protein_library_screen": ["Rank", "Result", "Binding confidence", "ipTM",
                               "Min. interaction PAE", "External ID", "Sequence",
                               "Structure confidence", "Helix", "Sheet", "Loop",
                               "ipSAE (min)", *KIND_PROTEIN, "Warnings"],
    "small_molecule_design": ["Rank", "Result", "Optimization score",
                              "Binding confidence", "ipTM", "Structure", "pTM",
                              "Structure confidence", "Complex pLDDT", "Complex ipLDDT",
                              "Molecular weight", "cLogP", "TPSA", "QED", "Lipophilicity",
                              "Permeability", "Solubility", "Warnings"],
    "small_molecule_library_screen": ["Rank", "Result", "Binding confidence",
                                      "Optimization score", "ipTM", "External ID",
                                      "Structure", "pTM", "Structure confidence",
                                      "Complex pLDDT", "Complex ipLDDT",
                                      "Molecular weight", "cLogP", "TPSA", "QED",
                                      "Lipophilicity", "Permeability", "Solubility",
                                      "Warnings"],
    # Library-screen records without ADME (the SDK's explore results).
    "small_molecule_explore": ["Rank", "Result", "Binding confidence",
                               "Optimization score", "ipTM", "External ID", "Structure",
                               "pTM", "Structure confidence", "Complex pLDDT",
                               "Complex ipLDDT", "Molecular weight", "cLogP", "TPSA",
                               "QED", "Warnings"],
}
LABEL = re.compile(r"#(\d+) [A-Za-z0-9_\-]{4,}")
SCREEN = "small_molecule_library_screen"


def pipeline_path(demo: dict, kind: str, query: str = "") -> str:
    """The path of the results page of the demo pipeline of ``kind``, plus ``query``."""
    return (f"/share/{demo['share_links']['public']['id']}/pipelines/"
            f"{demo['pipelines'][kind]}{query}")


def local(href: str) -> str:
    """The path and query of ``href`` (the pages link with the public URL)."""
    parts = urlsplit(href)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def header_label(th: Tag) -> str:
    """A column header's label: without its unit (a line of its own) or glossary "?"."""
    copy = parse(str(th))
    for extra in copy.select(".glossary-link, .unit"):
        extra.decompose()
    return text(copy).removesuffix("?").strip()


def inline_text(element: Tag) -> str:
    """The element's text as a browser's innerText joins inline elements (no added space)."""
    return " ".join(element.get_text().split())


def row_ids(soup) -> list[str]:
    """The full result ids of the table's rows, in order."""
    return [tr["data-result-id"] for tr in soup.select("table.results tbody tr")]


def follow(client, soup, selector: str, status: int = 200):
    """Follow the link ``selector`` names (one) on ``soup``; return the parsed page."""
    return page(client, local(one(soup, selector)["href"]), status)


@pytest.mark.parametrize("kind", list(COLUMNS))
def test_each_kind_has_its_table_columns(app, client, demo, kind):
    soup = page(client, pipeline_path(demo, kind))
    labels = [header_label(th) for th in soup.select("table.results thead th")]
    assert labels == COLUMNS[kind]
    rows = soup.select("table.results tbody tr")
    assert len(rows) == min(100, len(api_records(app, demo, kind)))


@pytest.mark.parametrize("order", ["", "&sort=created_at"])
def test_pagination_forward_and_back_without_overlap(app, client, demo, order):
    """The default (ranked) view and the as-run order page through every result once."""
    soup = page(client, pipeline_path(demo, "protein_design", f"?limit=100{order}"))
    pages, soups = [row_ids(soup)], [soup]
    while soup.select("a[rel=next]"):
        soup = follow(client, soup, "a[rel=next]")
        pages.append(row_ids(soup))
        soups.append(soup)
    records = api_records(app, demo, "protein_design")
    everything = [record["id"] for record in records]
    flat = [rid for ids in pages for rid in ids]
    if order:  # as run: the API's order
        assert flat == everything  # each result once, in order: no overlap, no gap
    else:  # ranked: each result once, the best first
        assert sorted(flat) == sorted(everything) and len(flat) == len(everything)
        scores = {r["id"]: r["metrics"]["binding_confidence"] for r in records}
        assert [scores[i] for i in flat] == sorted(scores.values(), reverse=True)
    assert len(pages) == 3 and len(pages[0]) == 100
    for expected in reversed(pages[:-1]):
        soup = follow(client, soup, "a[rel=prev]")
        assert row_ids(soup) == expected
    assert soup.select("a[rel=prev]") == []


def test_sorting_a_column_orders_every_result(app, client, demo):
    soup = page(client, pipeline_path(demo, "protein_design"))
    # The page opens ranked by binding confidence (aria-sort says so); ipTM is one click.
    headers = soup.select("table.results thead th")
    ranked = [th for th in headers if "Binding confidence" in text(th)]
    assert len(ranked) == 1 and ranked[0].get("aria-sort") == "descending"
    iptm = [n for n, th in enumerate(headers) if "ipTM" in text(th)]
    assert len(iptm) == 1
    index = iptm[0]
    href = local(one(headers[index], "a.sort-link")["href"])
    assert "sort=-iptm" in href  # first click: best first, the whole set
    soup = page(client, href)
    header = soup.select("table.results thead th")[index]
    assert "ipTM" in text(header) and header.get("aria-sort") == "descending"
    assert "sorted by ipTM" in inline_text(one(soup, ".view-order"))
    values = [float(text(tr.find_all(["th", "td"], recursive=False)[index]))
              for tr in soup.select("table.results tbody tr")]
    assert values == sorted(values, reverse=True) and len(values) == 100
    # The best of all 260, not of the first page.
    every = api_records(app, demo, "protein_design")
    assert len(every) == 260
    assert values[0] == round(max(r["metrics"]["iptm"] for r in every), 3)


def filename(response) -> str:
    """The file name a browser saves ``response`` under (its Content-Disposition)."""
    found = re.search(r'filename="?([^";]+)"?', response.headers["Content-Disposition"])
    return found.group(1)


def test_the_whole_pipeline_downloads_as_csv(client, demo):
    soup = page(client, pipeline_path(demo, "protein_design", "?limit=25"))
    menu = one(soup, ".export-menu")
    # 25 rows per page: the menu's files hold the first 25 of the view, and say so.
    assert "Download the first 25 as" in text(menu)
    csv_links = [a for a in menu.select("a") if text(a) == "CSV"]
    assert len(csv_links) == 1
    first = client.get(local(csv_links[0]["href"]))
    assert first.status_code == 200
    first_lines = first.get_data(as_text=True).splitlines()
    assert len(first_lines) == 1 + 25
    every = client.get(local(one(menu, "a[data-export-all]")["href"]))
    assert every.status_code == 200
    assert filename(every).startswith("Protein_design-")
    lines = every.get_data(as_text=True).splitlines()
    assert lines[0].startswith("rank,label,result_id,sequence_length,chains,sequence,")
    assert len(lines) == 1 + 260
    assert lines[1:26] == first_lines[1:]  # the same ranking, the first 25 of it


@pytest.mark.parametrize(("kind", "primary", "header"), [
    ("protein_design", "binding_confidence", "Binding confidence"),
    ("small_molecule_design", "optimization_score", "Optimization score"),
])
def test_the_page_opens_on_the_table_ranked_by_the_primary_metric(
        app, client, demo, kind, primary, header):
    records = api_records(app, demo, kind)
    best = sorted(records, key=lambda r: (-r["metrics"][primary], r["id"]))
    soup = page(client, pipeline_path(demo, kind))
    rows = soup.select("#results-table tbody tr")
    count = min(len(records), 100)
    assert len(rows) == count
    ranks = texts(soup, "#results-table tbody td.col-rank")
    assert [int(r) for r in ranks] == list(range(1, count + 1))
    ids = [tr["data-result-id"] for tr in rows]
    assert ids == [r["id"] for r in best[:count]]
    # Each row is named by its label (#rank in the run, the id's end); the full id is in
    # the link's title.
    links = soup.select("#results-table tbody th.col-id a.rid")
    for n, link in enumerate(links[:20], start=1):
        label = text(link)
        assert LABEL.fullmatch(label) and int(LABEL.fullmatch(label).group(1)) == n
        assert link["title"] == ids[n - 1]
        assert ids[n - 1].endswith(label.split()[1])
    # The primary metric is the first metric column and the header says the order.
    assert text(soup.select("#results-table thead th")[2]).startswith(header)
    order = one(soup, ".view-order")
    assert f"ranked by {header}, best first" in inline_text(order)
    as_run = [a for a in order.select("a") if "As run" in text(a)]
    assert len(as_run) == 1
    # A row's link opens the result with the view's order in its query string.
    assert links[0]["href"].endswith(f"/results/{ids[0]}?sort=-{primary}")
    # "As run": the run's own order.
    soup = page(client, local(as_run[0]["href"]))
    ids_run = [tr["data-result-id"] for tr in soup.select("#results-table tbody tr")]
    assert ids_run == sorted(r["id"] for r in records)[:count]
    assert "in the order they were run" in inline_text(one(soup, ".view-order"))


def glossary_targets(soup, scope: str) -> set[str]:
    """The glossary entries the ``scope``'s "?" links point at."""
    return {a["href"].split("#", 1)[1] for a in soup.select(f"{scope} a.glossary-link")}


def test_glossary_entries_are_reachable_from_headers(client, demo):
    glossary = page(client, "/glossary")
    ids = {article["id"] for article in glossary.select("article.glossary-entry")}
    for kind, must in (("protein_design", {"instability_index", "liability_count", "gravy"}),
                       (SCREEN, {"smiles", "clogp", "qed"})):
        soup = page(client, pipeline_path(demo, kind))
        targets = glossary_targets(soup, "table.results thead")
        assert must <= targets, (kind, must - targets)
        assert targets <= ids, targets - ids
        result = page(client, local(soup.select("table.results tbody tr th a.rid")[0]["href"]))
        result_targets = glossary_targets(result, "main")
        assert result_targets and result_targets <= ids, result_targets - ids
        if kind == "protein_design":
            assert {"n_glycosylation", "oxidation", "isoelectric_point"} <= result_targets
        else:
            assert {"alerts", "tpsa"} <= result_targets
    # The instability index's header "?" leads to its entry (the browser test follows it).
    soup = page(client, pipeline_path(demo, "protein_design"))
    link = one(soup, 'table.results thead a.glossary-link[href$="#instability_index"]')
    assert urlsplit(link["href"]).path == "/glossary"
    entry = text(one(glossary, "article#instability_index"))
    assert "Guruprasad" in entry and "> 40" in entry


def alerts_by_result(app, demo) -> dict[str, list[str]]:
    """RDKit's own alerts (PAINS A/B/C, Brenk) of each molecule of the demo screen."""
    catalog = alert_catalog()
    found = {}
    for record in api_records(app, demo, SCREEN):
        mol = Chem.MolFromSmiles(record["smiles"])
        found[record["id"]] = [e.GetDescription() for e in catalog.GetMatches(mol)]
    return found


def test_the_table_badge_title_names_every_alert(app, client, demo):
    found = alerts_by_result(app, demo)
    chosen = max(found, key=lambda rid: len(found[rid]))
    assert len(found[chosen]) >= 2, "the demo library has a molecule with two alerts"
    soup = page(client, pipeline_path(demo, SCREEN, "?limit=100"))
    titles = [badge.get("title", "") for badge in
              soup.select(f'tr[data-result-id="{chosen}"] [data-alert-family]')]
    assert titles and all(name in title for title in titles for name in found[chosen])


def test_a_bad_similar_to_is_an_inline_error(client, demo):
    bad = "C1CC(=O"
    soup = page(client, pipeline_path(demo, SCREEN, f"?similar_to={quote(bad)}"
                                                    "&sort=-similarity"), 400)
    field = one(soup, "#f-similar")
    assert field["value"] == bad
    assert field.get("aria-invalid") == "true"
    error = one(soup, "#f-similar-error")
    assert "neither a result id" in text(error)
    # Shown: in the filter form, which opens (the browser test checks it is visible).
    assert error.find_parent("details", class_="explore-filters").has_attr("open")
    assert soup.select("table.results tbody tr")  # the rest of the page
    assert soup.select("th.col-similarity") == []


def column_values(soup, key: str) -> dict[str, str]:
    """The ``data-sort`` of the column that sorts by ``key``, per row id."""
    sorts = re.compile(rf"[?&]sort=-?{key}(&|$)")
    headers = soup.select("table.results thead th")
    at = [n for n, th in enumerate(headers)
          if any(sorts.search(a["href"]) for a in th.select("a.sort-link"))]
    assert len(at) == 1, (key, at)
    return {tr["data-result-id"]: tr.find_all(["th", "td"], recursive=False)[at[0]]["data-sort"]
            for tr in soup.select("table.results tbody tr")}


def designed(record: dict) -> str:
    """The designed chain's sequence."""
    return next(e["value"] for e in record["entities"] if e["type"] == "protein")


def count_of(element: Tag) -> int:
    """A number as the page writes it (thin spaces between thousands)."""
    return int(text(element).replace("\u2009", "").replace(" ", ""))


def test_the_protein_columns_and_the_liability_facet(app, client, demo):
    records = {r["id"]: r for r in api_records(app, demo, "protein_design")}
    soup = page(client, pipeline_path(demo, "protein_design", "?sort=-liability_count&limit=25"))
    shown_pi = column_values(soup, "isoelectric_point")
    shown_gravy = column_values(soup, "gravy")
    shown_count = column_values(soup, "liability_count")
    assert len(shown_pi) == 25
    for rid, value in shown_pi.items():
        analysis = ProteinAnalysis(designed(records[rid]))
        assert float(value) == pytest.approx(analysis.isoelectric_point(), abs=1e-3)
        assert float(shown_gravy[rid]) == pytest.approx(analysis.gravy(), abs=1e-3)
    counts = [int(shown_count[rid]) for rid in shown_pi]
    assert counts == sorted(counts, reverse=True) and counts[0] > 0
    # The facet (in the plots panel): "deamidation" counts, and its link gets exactly those.
    facet = one(soup, '[data-facet="liabilities"]')
    expected = count_of(one(facet, '[data-value="deamidation"]'))
    wanted = {rid for rid, r in records.items()
              if any(pair in designed(r).upper() for pair in ("NG", "NS"))}
    assert expected == len(wanted) > 0
    links = [a for a in facet.select("a") if "deamidation" in text(a)]
    assert len(links) == 1
    href = local(links[0]["href"])
    assert "liability=deamidation" in href
    assert count_of(one(page(client, href), "#match-count")) == len(wanted)


def ranked(records: list[dict], key: str = "binding_confidence") -> list[dict]:
    """Best first by ``key`` (missing last), ties by id: the table's default order."""
    return sorted(records, key=lambda r: (r["metrics"].get(key) is None,
                                          -(r["metrics"].get(key) or 0.0), r["id"]))


def passes_lipinski(mol) -> bool:
    """At most one of Lipinski's four rules broken."""
    shared = QED.properties(mol)
    broken = ((shared.MW > 500) + (shared.ALOGP > 5) + (shared.HBD > 5)
              + (rdMolDescriptors.CalcNumHBA(mol) > 10))
    return broken <= 1


def test_carboxylic_acids_passing_lipinski_ranked_as_sdf(app, client, demo):
    """A recipient's task (issue 19): the quick filters, then the export menu's SDF."""
    acid = Chem.MolFromSmarts("[CX3](=O)[OX2H1,OX1-]")
    expected = []
    for record in ranked(api_records(app, demo, SCREEN)):
        mol = Chem.MolFromSmiles(record["smiles"])
        if mol is not None and mol.HasSubstructMatch(acid) and passes_lipinski(mol):
            expected.append(record["id"])
    assert len(expected) >= 2, "the demo screen should hold carboxylic acids to rank"
    soup = page(client, pipeline_path(demo, SCREEN))
    for name in ("Carboxylic acid", "Lipinski pass"):
        presets = [a for a in soup.select(".chem-presets a") if name in text(a)]
        assert len(presets) == 1, name
        soup = page(client, local(presets[0]["href"]))
    shown = [tr["data-result-id"] for tr in
             soup.select("#results-table tbody tr[data-result-id]")]
    assert shown == expected
    sdf_links = [a for a in soup.select(".export-menu a") if text(a) == "SDF"]
    assert len(sdf_links) == 1
    sdf = client.get(local(sdf_links[0]["href"]))
    assert sdf.status_code == 200
    titles = [block.splitlines()[0] for block in sdf.get_data(as_text=True).split("$$$$\n")
              if block.strip()]
    assert [title.split("|")[2] for title in titles] == expected
    assert [title.split("|")[0] for title in titles] == [
        str(i) for i in range(1, len(expected) + 1)]
    # Each title says what the coordinates are: a docked pose or a 2D drawing.
    assert all(title.endswith(("docked 3D pose", "2D depiction")) for title in titles)
