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

from collections import Counter
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from Bio import Align
from Bio.Align import substitution_matrices
from rdkit import Chem, DataStructs
from rdkit.Chem import rdFingerprintGenerator
from rdkit.Chem.Scaffolds import MurckoScaffold
from rdkit.ML.Cluster import Butina
from rdkit.rdBase import BlockLogs

from app.db import get_engine
from app.demo import seed_demo
from app.viewer.core.api_client import api
from tests.rdkit_reference import alert_catalog
from tests.support.apps import make_test_app
from tests.support.databases import dispose_engines, migrated_database
from tests.support.demo import PUBLIC_URL
from tests.support.html import form_query, one, page, parse, text
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
def test_alert_badges_and_the_alert_facet_are_rdkits(app, client, demo):
    expected = _expected_alerts(api_records(app, demo, LIBRARY))
    soup = page(client, view(demo, LIBRARY, "?limit=100"))
    badged = {tr.get("data-result-id"): [badge.get_text() + " " + badge.get("title", "")
                                         for badge in tr.select("[data-alert-family]")]
              for tr in soup.select("table.results tbody tr")}
    assert set(badged) == set(expected)
    for rid, titles in badged.items():
        families = {"PAINS" if s.startswith("PAINS") else "Brenk" for _n, s in expected[rid]}
        assert {t.split(" ")[0] for t in titles} == families, rid
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
    assert len(soup.select("figure.mol img")) == drawable
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
    sources = [img["src"] for img in answer.select("figure.mol img")]
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


def walk(client, path: str) -> list[str]:
    """The row ids of the view at ``path``, following its Next links."""
    ids: list[str] = []
    while True:
        soup = page(client, path)
        ids += row_ids(soup)
        following = soup.select("a[rel=next]")
        if not following:
            return ids
        assert len(following) == 1
        path = local(following[0]["href"])


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

