"""The results page's server HTML, in process over the seeded demo (app/viewer/results/views.py).

What the browser tests of tests/browser read off these pages without any JavaScript: the
export menu of a limited view (issue 19 item 3), the structural-alert badges and facet
(issue 20 item 1), the depictions of every row, the substructure filter (its GET form, as
a browser submits it), "Top 10 families" (item 8), "Find similar" and "Group by scaffold"
(items 2 and 3), and exploring a set larger than one API page (sort, filters, facets,
access asked of the API on every request). Chromium keeps what needs it: drawings decoded,
the shortlist, layout and screenshots (tests/browser).
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, quote, unquote, urlsplit

import lxml.html
import pytest
from Bio import Align
from Bio.Align import substitution_matrices
from Bio.SeqUtils.ProtParam import ProteinAnalysis
from bs4 import Tag
from rdkit import Chem, DataStructs
from rdkit.Chem import QED, rdFingerprintGenerator, rdMolDescriptors
from rdkit.Chem.Scaffolds import MurckoScaffold
from rdkit.ML.Cluster import Butina
from rdkit.rdBase import BlockLogs

from app.demo.seed import seed_demo
from app.platform.db import get_engine
from app.viewer.core.api_client import api
from tests.support.apps import make_test_app
from tests.support.databases import dispose_engines, migrated_database
from tests.support.demo import PUBLIC_URL
from tests.support.html import body, form_query, one, page, parse, text, texts
from tests.support.rdkit_reference import alert_catalog
from tests.viewer.exports.test_csv_export import api_records
from tests.viewer.exports.test_export_order import ranked

LIBRARY = "small_molecule_library_screen"
SMALL_MOLECULE_KINDS = ("small_molecule_design", LIBRARY)
CHLOROPHENYL = "c1ccc(Cl)cc1"


def view(demo: dict, kind: str, query: str = "") -> str:
    """The path of the public demo link's results page of ``kind``."""
    return (f"/share/{demo['share_links']['public']['id']}/pipelines/"
            f"{demo['pipelines'][kind]}{query}")


def local(href: str) -> str:
    """``href`` as a test client's path (the in-process demo's public URL dropped)."""
    return href.removeprefix(PUBLIC_URL)


def number(element) -> str:
    """An element's number as a reader sees it (thousands apart by a thin space, dropped)."""
    return element.get_text().strip().replace("\u2009", "")


def row_ids(soup) -> list[str | None]:
    """The ``data-result-id`` of every row of the results table, in order."""
    return [tr.get("data-result-id") for tr in soup.select("table.results tbody tr")]


def link_with(soup, selector: str, words: str):
    """The one element of ``selector`` whose text holds ``words`` (any case), as
    Playwright's ``has_text`` / ``get_by_role(name=...)`` would find it."""
    found = [a for a in soup.select(selector) if words.lower() in text(a).lower()]
    assert len(found) == 1, (selector, words, len(found))
    return found[0]


def _mol(smiles: str | None):
    with BlockLogs():
        return Chem.MolFromSmiles(smiles or "")


# ---------------------------------------------------------- over the shared, read-only demo


@pytest.mark.reads_demo
def test_the_page_menu_of_the_top_10_view_exports_exactly_those(app, client, demo):
    kind = "protein_design"
    best = [r["id"] for r in ranked(api_records(app, demo, kind), "binding_confidence")[:10]]
    soup = page(client, view(demo, kind, "?sort=-binding_confidence&limit=10"))
    menu = one(soup, ".export-menu")
    assert "Download the first 10 as" in text(menu)
    fasta = client.get(local(link_with(menu, "a", "FASTA")["href"]))
    assert fasta.status_code == 200
    names = [line[1:].split(" ")[0].split("|") for line in
             fasta.get_data(as_text=True).splitlines() if line.startswith(">")]
    assert [n[2] for n in names] == best
    assert [n[0] for n in names] == [str(i) for i in range(1, 11)]


def _expected_alerts(records: list[dict]) -> dict[str, list[tuple[str, str]]]:
    catalog = alert_catalog()
    return {r["id"]: [(e.GetDescription(), e.GetProp("FilterSet"))
                      for e in catalog.GetMatches(Chem.MolFromSmiles(r["smiles"]))]
            for r in records}


@pytest.mark.reads_demo
@pytest.mark.slow
def test_alert_badges_and_the_alert_facet_are_the_verdicts(app, client, demo):
    # The verdict (chem.verdict): RDKit's catalog, and the API's own PAINS warning.
    records = api_records(app, demo, LIBRARY)
    expected = _expected_alerts(records)
    api_pains = {r["id"] for r in records
                 if any(w.get("code") == "pains_substructure" for w in r.get("warnings") or [])}
    soup = page(client, view(demo, LIBRARY, "?limit=100"))
    badged = {tr.get("data-result-id"): [badge.get_text() + " " + badge.get("title", "")
                                         for badge in tr.select("[data-alert-family]")]
              for tr in soup.select("table.results tbody tr")}
    assert set(badged) == set(expected)
    for rid, titles in badged.items():
        families = {"PAINS" if s.startswith("PAINS") else "Brenk" for _n, s in expected[rid]}
        families |= {"PAINS"} if rid in api_pains else set()
        assert {t.split(" ")[0] for t in titles} == families, rid
        if rid in api_pains:
            assert any("flagged by the API's check" in title for title in titles), rid
        for name, _family in expected[rid]:
            assert any(name in title for title in titles)
    flagged = [rid for rid, found in expected.items() if found]
    assert flagged, "the demo library has flagged drugs"
    # The facet (with the plots, one click away): its counts; its link keeps one alert's.
    facet = one(soup, 'details.plots-panel [data-facet="alerts"]')
    name = expected[flagged[0]][0][0]
    holding = {rid for rid, found in expected.items() if name in {n for n, _ in found}}
    assert one(facet, f'[data-value="{name}"]').get_text().strip() == str(len(holding))
    kept = page(client, local(link_with(facet, "a", name)["href"]))
    assert set(row_ids(kept)) == holding


@pytest.mark.reads_demo
@pytest.mark.parametrize("kind", SMALL_MOLECULE_KINDS)
def test_every_row_has_its_drawing_or_its_smiles_with_a_note(app, client, demo, kind):
    records = api_records(app, demo, kind)[:100]
    soup = page(client, view(demo, kind, "?limit=100"))
    assert len(soup.select("table.results tbody tr")) == len(records)
    drawable = sum(_mol(r.get("smiles")) is not None for r in records)
    assert drawable > 0
    # In the table: the run's reference ligands above it are drawn too.
    assert len(soup.select("table.results figure.mol img")) == drawable
    assert len(soup.select("td.smiles figure.mol")) == len(records)
    assert len(soup.select("td.smiles .mol-undrawn")) == len(records) - drawable


@pytest.mark.reads_demo
def test_the_substructure_filter_form_gives_exactly_the_matching_set(app, client, demo):
    records = api_records(app, demo, LIBRARY)
    pattern = Chem.MolFromSmarts(CHLOROPHENYL)
    wanted = {r["id"] for r in records
              if (mol := _mol(r.get("smiles"))) is not None and mol.HasSubstructMatch(pattern)}
    assert 0 < len(wanted) < len(records)  # some of the demo molecules, not all
    soup = page(client, view(demo, LIBRARY, "?limit=250"))
    form = one(soup, "details.explore-filters form")
    label = link_with(form, "label", "Substructure (SMARTS or SMILES)")
    field = one(form, f"#{label['for']}")
    assert field["name"] == "smarts"
    answer = page(client, local(form["action"]).split("?")[0] + "?"
                  + form_query(form, smarts=CHLOROPHENYL))
    assert number(one(answer, "#match-count")) == str(len(wanted))
    assert set(row_ids(answer)) == wanted
    # The matched atoms are highlighted: every drawing of the view asks for them.
    sources = [img["src"] for img in answer.select("table.results figure.mol img")]
    assert sources and all("highlight=c1ccc(Cl)cc1" in s.replace("%28", "(").replace("%29", ")")
                           for s in sources)


def _fp(smiles: str):
    generator = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)
    mol = Chem.MolFromSmiles(smiles)
    return None if mol is None else generator.GetFingerprint(mol)


def _families(order: list[str], smiles: dict[str, str], wanted: int) -> list[list[str]]:
    """The best of each of the first ``wanted`` Butina clusters with its size (RDKit)."""
    distinct = list(dict.fromkeys(smiles[r] for r in order if _fp(smiles[r])))
    fps = [_fp(s) for s in distinct]
    distances = []
    for i in range(1, len(fps)):
        distances.extend(1.0 - s for s in DataStructs.BulkTanimotoSimilarity(fps[i], fps[:i]))
    found = sorted(Butina.ClusterData(distances, len(fps), 0.6, isDistData=True), key=min)
    out = []
    for members in found[:wanted]:
        family = {distinct[i] for i in members}
        rows = [r for r in order if smiles[r] in family]
        out.append([rows[0], str(len(rows))])
    return out


def _family_rows(soup) -> list[list[str]]:
    rows = []
    for tr in soup.select("table.results tbody tr"):
        cell = tr.select_one("td.col-family")
        rows.append([tr.get("data-result-id"), "" if cell is None else text(cell)])
    return rows


@pytest.mark.reads_demo
def test_top_10_families_are_rdkits_butina_clusters_and_turn_off(app, client, demo):
    smiles = {r["id"]: r["smiles"] for r in api_records(app, demo, LIBRARY)}
    soup = page(client, view(demo, LIBRARY, "?limit=250"))
    order = row_ids(soup)
    assert sorted(order) == sorted(smiles)  # the whole ranked view on one page
    toggle = one(soup, ".order-choice a.diverse-toggle")
    assert text(toggle) == "Top 10 families"
    assert parse_qs(urlsplit(toggle["href"]).query)["diverse"] == ["10"]
    diverse = page(client, local(toggle["href"]))
    assert text(one(diverse, ".order-choice strong.diverse-on")) == "Top 10 families"
    assert _family_rows(diverse) == _families(order, smiles, 10)
    assert "one row per family" in text(one(diverse, "#results-caption"))
    # And back: "Every result" turns it off.
    back = link_with(diverse, ".order-choice a.diverse-toggle", "Every result")
    assert "diverse" not in parse_qs(urlsplit(back["href"]).query)
    assert row_ids(page(client, local(back["href"]))) == order


def _identity(first: str, second: str) -> float:
    """Identity with Biopython, recomputed here: needle's defaults, over the shorter."""
    aligner = Align.PairwiseAligner(
        mode="global", substitution_matrix=substitution_matrices.load("BLOSUM62"),
        open_gap_score=-10.0, extend_gap_score=-0.5)
    best = aligner.align(first, second)[0]
    return best.counts().identities / min(len(first), len(second))


@pytest.mark.reads_demo
@pytest.mark.parametrize("kind", ["protein_design", "protein_redesign"])
@pytest.mark.slow
def test_protein_families_by_sequence_identity(app, client, demo, kind):
    records = api_records(app, demo, kind)
    chains = {r["id"]: next(e["value"] for e in r["entities"] if e["type"] == "protein")
              for r in records}
    soup = page(client, view(demo, kind, "?diverse=10"))
    rows = _family_rows(soup)
    assert 1 <= len(rows) <= 10
    assert "designed chains ≥ 50% identical" in text(one(soup, ".order-choice"))
    if kind == "protein_redesign":  # point mutants of one parent: one family of all
        first = chains[rows[0][0]]
        assert all(_identity(first, s) >= 0.5 for s in chains.values())
        assert rows == [[rows[0][0], str(len(records))]]


@pytest.mark.reads_demo
def test_find_similar_ranks_by_rdkits_tanimoto_and_scaffolds_are_rdkits(app, client, demo):
    records = {r["id"]: r["smiles"] for r in api_records(app, demo, LIBRARY)}
    soup = page(client, view(demo, LIBRARY, "?limit=100"))
    first = soup.select("table.results tbody tr")[0]
    start = first["data-result-id"]
    similar = page(client, local(one(first, "a.find-similar")["href"]))
    assert one(similar, "section.similar-query").select("img")  # the query molecule drawn
    shown = [[tr.get("data-result-id"), text(one(tr, "td.col-similarity"))]
             for tr in similar.select("table.results tbody tr")]
    expected = {rid: DataStructs.TanimotoSimilarity(_fp(records[start]), _fp(s))
                for rid, s in records.items()}
    assert shown[0][1] == "1.000"
    assert [float(v) for _rid, v in shown] == [round(expected[rid], 3) for rid, _v in shown]
    assert [rid for rid, _v in shown] == sorted(expected, key=lambda r: (-expected[r], r))[
        :len(shown)]

    scaffolds = link_with(one(soup, "details.scaffold-facet"), "a", "Group by scaffold")
    grouped = page(client, local(scaffolds["href"]))
    counts = Counter(Chem.MolToSmiles(MurckoScaffold.GetScaffoldForMol(
        Chem.MolFromSmiles(s))) or "acyclic" for s in records.values())
    cells = [((parse_qs(urlsplit(a["href"]).query, keep_blank_values=True)
               .get("scaffold") or [None])[0], text(a))
             for a in grouped.select("table.results tbody td.col-group a")]
    assert {s: int(n) for s, n in cells} == dict(counts)


# ----------------------------------------- more results than one API page (1,000), own data

BIG = 1200


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """An app over the demo seeded with 1,200 results per large pipeline; (app, summary)."""
    tmp = tmp_path_factory.mktemp("explore-big")
    url, drop = migrated_database(tmp)
    application = make_test_app(url, tmp)
    summary = seed_demo(get_engine(application), artifact_dir=application.config["ARTIFACT_DIR"],
                        public_url=PUBLIC_URL, results=BIG)
    yield application, summary
    dispose_engines(application)
    drop()


def every_record(app, demo: dict, kind: str) -> list[dict]:
    """Every result of the public link's ``kind`` pipeline, read from the API page by page."""
    link, pipeline = demo["share_links"]["public"]["id"], demo["pipelines"][kind]
    records, after = [], None
    with app.test_request_context():
        while True:
            answer = api().results(link, pipeline, limit=1000,
                                   **({"after_id": after} if after else {}))
            records += answer["data"]
            if not answer["has_more"]:
                return records
            after = answer["last_id"]


# ``table.results tbody tr`` in XPath.
RESULT_ROWS = ("//table[contains(concat(' ', normalize-space(@class), ' '), ' results ')]"
               "//tbody//tr")


def walk(client, path: str) -> list[str | None]:
    """The row ids of the view at ``path`` (``row_ids``), following its Next links.

    Its pages are read with lxml's own tree (the same libxml2 parse as ``page``'s): only
    the rows and the Next link are looked at, on pages of hundreds of rows.
    """
    ids: list[str | None] = []
    while True:
        tree = lxml.html.fromstring(body(client, path))
        ids += [tr.get("data-result-id") for tr in tree.xpath(RESULT_ROWS)]
        following = tree.xpath("//a[@rel='next']")
        if not following:
            return ids
        assert len(following) == 1
        path = local(following[0].get("href"))


@pytest.mark.slow
def test_header_sort_orders_every_result_as_the_api_data_says(big):
    app, demo = big
    client = app.test_client()
    kind = LIBRARY
    soup = page(client, view(demo, kind, "?limit=500"))
    header = link_with(soup, "table.results thead th", "Optimization score")
    sort = local(one(header, "a.sort-link")["href"])
    assert "sort=-optimization_score" in sort and "limit=500" in sort
    records = every_record(app, demo, kind)
    assert len(records) == BIG
    expected = sorted(records, key=lambda r: (-r["metrics"]["optimization_score"], r["id"]))
    assert walk(client, sort) == [r["id"] for r in expected]


@pytest.mark.slow
def test_the_filter_form_and_facets_give_exactly_the_matching_set(big):
    app, demo = big
    client = app.test_client()
    kind = "protein_design"
    form = one(page(client, view(demo, kind, "?limit=250")), "details.explore-filters form")
    path = (local(form["action"]).split("?")[0] + "?"
            + form_query(form, iptm__gte="0.6", warnings="none"))
    records = every_record(app, demo, kind)
    wanted = [r for r in records if r["metrics"]["iptm"] >= 0.6 and not r.get("warnings")]
    soup = page(client, path)
    assert number(one(soup, "#match-count")) == str(len(wanted))
    assert sorted(walk(client, path)) == sorted(r["id"] for r in wanted)
    # The facet counts are over the filtered set: "none" is every match.
    none = one(soup, "#plots-panel .facet[data-facet=warnings] .count[data-value=none]")
    assert number(none) == str(len(wanted))


def test_access_is_the_apis_on_every_request(big):
    app, demo = big
    client = app.test_client()
    admin = {"x-api-key": demo["admin_key"]}
    pipeline = demo["pipelines"]["protein_design"]
    created = client.post("/compute/v1/share-links", headers=admin, json={
        "access_parameters": {"access_mode": "public"}, "pipeline_ids": [pipeline],
        "workspace_id": demo["workspace_id"],
        "expires_at": (datetime.now(UTC) + timedelta(days=3)).isoformat(),
    })
    assert created.status_code in (200, 201), created.data[:500]
    link = created.get_json()["id"]
    sorted_view = f"/share/{link}/pipelines/{pipeline}?sort=-iptm"
    assert len(page(client, sorted_view).select("table.results tbody tr")) == 100
    archived = client.post(f"/compute/v1/share-links/{link}/archive", headers=admin)
    assert archived.status_code == 200
    for _ in range(4):  # the process that served the view a moment ago: a 404 at once
        assert client.get(sorted_view).status_code == 404
    email = demo["share_links"]["email"]["id"]
    response = client.get(f"/share/{email}/pipelines/{pipeline}?sort=-iptm",
                          follow_redirects=True)
    assert unquote(response.request.path).startswith(f"/share/{email}/sign-in")
    assert not parse(response).select("table.results")


# The pages of the shared demo, as a visitor reads them.

# Reads the demo: a link over six pipelines and two predictions.

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


def local_path(href: str) -> str:
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


def table_row_ids(soup) -> list[str]:
    """The full result ids of the table's rows, in order."""
    return [tr["data-result-id"] for tr in soup.select("table.results tbody tr")]


def follow(client, soup, selector: str, status: int = 200):
    """Follow the link ``selector`` names (one) on ``soup``; return the parsed page."""
    return page(client, local_path(one(soup, selector)["href"]), status)


@pytest.mark.parametrize("kind", list(COLUMNS))
@pytest.mark.reads_demo
def test_each_kind_has_its_table_columns(app, client, demo, kind):
    soup = page(client, pipeline_path(demo, kind))
    labels = [header_label(th) for th in soup.select("table.results thead th")]
    assert labels == COLUMNS[kind]
    rows = soup.select("table.results tbody tr")
    assert len(rows) == min(100, len(api_records(app, demo, kind)))


@pytest.mark.parametrize("order", ["", "&sort=created_at"])
@pytest.mark.reads_demo
@pytest.mark.slow
def test_pagination_forward_and_back_without_overlap(app, client, demo, order):
    """The default (ranked) view and the as-run order page through every result once."""
    soup = page(client, pipeline_path(demo, "protein_design", f"?limit=100{order}"))
    pages, soups = [table_row_ids(soup)], [soup]
    while soup.select("a[rel=next]"):
        soup = follow(client, soup, "a[rel=next]")
        pages.append(table_row_ids(soup))
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
        assert table_row_ids(soup) == expected
    assert soup.select("a[rel=prev]") == []


@pytest.mark.reads_demo
def test_sorting_a_column_orders_every_result(app, client, demo):
    soup = page(client, pipeline_path(demo, "protein_design"))
    # The page opens ranked by binding confidence (aria-sort says so); ipTM is one click.
    headers = soup.select("table.results thead th")
    ranked = [th for th in headers if "Binding confidence" in text(th)]
    assert len(ranked) == 1 and ranked[0].get("aria-sort") == "descending"
    iptm = [n for n, th in enumerate(headers) if "ipTM" in text(th)]
    assert len(iptm) == 1
    index = iptm[0]
    href = local_path(one(headers[index], "a.sort-link")["href"])
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


@pytest.mark.reads_demo
def test_the_whole_pipeline_downloads_as_csv(client, demo):
    soup = page(client, pipeline_path(demo, "protein_design", "?limit=25"))
    menu = one(soup, ".export-menu")
    # 25 rows per page: the menu's files hold the first 25 of the view, and say so.
    assert "Download the first 25 as" in text(menu)
    csv_links = [a for a in menu.select("a") if text(a) == "CSV"]
    assert len(csv_links) == 1
    first = client.get(local_path(csv_links[0]["href"]))
    assert first.status_code == 200
    first_lines = first.get_data(as_text=True).splitlines()
    assert len(first_lines) == 1 + 25
    every = client.get(local_path(one(menu, "a[data-export-all]")["href"]))
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
@pytest.mark.reads_demo
@pytest.mark.slow
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
    soup = page(client, local_path(as_run[0]["href"]))
    ids_run = [tr["data-result-id"] for tr in soup.select("#results-table tbody tr")]
    assert ids_run == sorted(r["id"] for r in records)[:count]
    assert "in the order they were run" in inline_text(one(soup, ".view-order"))


def glossary_targets(soup, scope: str) -> set[str]:
    """The glossary entries the ``scope``'s "?" links point at."""
    return {a["href"].split("#", 1)[1] for a in soup.select(f"{scope} a.glossary-link")}


@pytest.mark.reads_demo
def test_glossary_entries_are_reachable_from_headers(client, demo):
    glossary = page(client, "/glossary")
    ids = {article["id"] for article in glossary.select("article.glossary-entry")}
    for kind, must in (("protein_design", {"instability_index", "liability_count", "gravy"}),
                       (SCREEN, {"smiles", "clogp", "qed"})):
        soup = page(client, pipeline_path(demo, kind))
        targets = glossary_targets(soup, "table.results thead")
        assert must <= targets, (kind, must - targets)
        assert targets <= ids, targets - ids
        result = page(client, local_path(soup.select("table.results tbody tr th a.rid")[0]["href"]))
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


@pytest.mark.reads_demo
def test_the_table_badge_title_names_every_alert(app, client, demo):
    found = alerts_by_result(app, demo)
    chosen = max(found, key=lambda rid: len(found[rid]))
    assert len(found[chosen]) >= 2, "the demo library has a molecule with two alerts"
    soup = page(client, pipeline_path(demo, SCREEN, "?limit=100"))
    titles = [badge.get("title", "") for badge in
              soup.select(f'tr[data-result-id="{chosen}"] [data-alert-family]')]
    assert titles and all(name in title for title in titles for name in found[chosen])


@pytest.mark.reads_demo
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


@pytest.mark.reads_demo
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
    href = local_path(links[0]["href"])
    assert "liability=deamidation" in href
    assert count_of(one(page(client, href), "#match-count")) == len(wanted)


def ranked_by(records: list[dict], key: str = "binding_confidence") -> list[dict]:
    """Best first by ``key`` (missing last), ties by id: the table's default order."""
    return sorted(records, key=lambda r: (r["metrics"].get(key) is None,
                                          -(r["metrics"].get(key) or 0.0), r["id"]))


def passes_lipinski(mol) -> bool:
    """At most one of Lipinski's four rules broken."""
    shared = QED.properties(mol)
    broken = ((shared.MW > 500) + (shared.ALOGP > 5) + (shared.HBD > 5)
              + (rdMolDescriptors.CalcNumHBA(mol) > 10))
    return broken <= 1


@pytest.mark.reads_demo
def test_carboxylic_acids_passing_lipinski_ranked_as_sdf(app, client, demo):
    """A recipient's task (issue 19): the quick filters, then the export menu's SDF."""
    acid = Chem.MolFromSmarts("[CX3](=O)[OX2H1,OX1-]")
    expected = []
    for record in ranked_by(api_records(app, demo, SCREEN)):
        mol = Chem.MolFromSmiles(record["smiles"])
        if mol is not None and mol.HasSubstructMatch(acid) and passes_lipinski(mol):
            expected.append(record["id"])
    assert len(expected) >= 2, "the demo screen should hold carboxylic acids to rank"
    soup = page(client, pipeline_path(demo, SCREEN))
    for name in ("Carboxylic acid", "Lipinski pass"):
        presets = [a for a in soup.select(".chem-presets a") if name in text(a)]
        assert len(presets) == 1, name
        soup = page(client, local_path(presets[0]["href"]))
    shown = [tr["data-result-id"] for tr in
             soup.select("#results-table tbody tr[data-result-id]")]
    assert shown == expected
    sdf_links = [a for a in soup.select(".export-menu a") if text(a) == "SDF"]
    assert len(sdf_links) == 1
    sdf = client.get(local_path(sdf_links[0]["href"]))
    assert sdf.status_code == 200
    titles = [block.splitlines()[0] for block in sdf.get_data(as_text=True).split("$$$$\n")
              if block.strip()]
    assert [title.split("|")[2] for title in titles] == expected
    assert [title.split("|")[0] for title in titles] == [
        str(i) for i in range(1, len(expected) + 1)]
    # Each title says what the coordinates are: a docked pose or a 2D drawing.
    assert all(title.endswith(("docked 3D pose", "2D depiction")) for title in titles)
