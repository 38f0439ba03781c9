"""The plain pages' server HTML, in process over the seeded demo (app/viewer/pages/views.py).

A small molecule's result page: RDKit's properties, its structural alerts named with their
families, the drawing asked with every alert's atoms highlighted, the InChIKey and
canonical SMILES with their copy buttons (issue 20 items 1 and 4). What the footer of each
link's pages says (issue 19 item 9), an email-mode link's after a real sign-in (SMTP).
Chromium keeps the drawings decoded and the screenshots (tests/browser).
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest
from bs4 import Tag
from rdkit import Chem
from rdkit.Chem import Descriptors

from tests.support.html import one, page, text, texts
from tests.support.rdkit_reference import alert_catalog
from tests.support.signin import EmailLink, sign_in, smtp_server
from tests.viewer.exports.test_csv_export import api_records

LIBRARY = "small_molecule_library_screen"
PUBLIC = "Shared through a public link: anyone with this address can see it"
EMAIL = "Shared with specific people: sign-in required"


def result_path(demo: dict, kind: str, result_id: str) -> str:
    """The path of one result of the public demo link's ``kind`` pipeline."""
    return (f"/share/{demo['share_links']['public']['id']}/pipelines/"
            f"{demo['pipelines'][kind]}/results/{result_id}")


@pytest.mark.reads_demo
def test_a_result_page_lists_rdkits_properties_of_its_molecule(app, client, demo):
    kind = "small_molecule_design"
    record = api_records(app, demo, kind)[0]
    soup = page(client, result_path(demo, kind, record["id"]))
    assert one(soup, "figure.mol-large img")["width"] == "320"
    assert len(soup.select("figure.mol img")) == 1
    assert len(soup.select("table.chemistry tbody tr")) == 8
    weight = one(soup, "tr[data-property=mol_weight] td.num").get_text().strip()
    expected = Descriptors.MolWt(Chem.MolFromSmiles(record["smiles"]))
    # Shown to 0.1 g/mol from the value at its stated precision (0.01: chem.properties).
    assert weight.replace("\u2009", "").replace(",", "") == f"{round(expected, 2):.1f}"
    assert one(soup, "tr[data-property=tpsa]").select("td")[1].get_text().strip() == "Å²"


@pytest.mark.reads_demo
def test_a_flagged_molecules_page_names_its_alerts_and_identifiers(app, client, demo):
    catalog = alert_catalog()
    records = api_records(app, demo, LIBRARY)
    expected = {r["id"]: [(e.GetDescription(), e.GetProp("FilterSet"))
                          for e in catalog.GetMatches(Chem.MolFromSmiles(r["smiles"]))]
                for r in records}
    flagged = [rid for rid, found in expected.items() if found]
    assert flagged, "the demo library has flagged drugs"
    # A molecule with a PAINS alert if there is one, else the first flagged.
    pains = [rid for rid in flagged if any(s.startswith("PAINS") for _n, s in expected[rid])]
    chosen = (pains or flagged)[0]
    record = next(r for r in records if r["id"] == chosen)
    soup = page(client, result_path(demo, LIBRARY, chosen))
    for alert_name, filter_set in expected[chosen]:
        item = one(soup, f'li[data-alert="{alert_name}"]')
        assert item.get("data-family") == ("pains" if filter_set.startswith("PAINS")
                                           else "brenk")
    assert "highlight=" in one(soup, "figure.mol-large img")["src"]
    mol = Chem.MolFromSmiles(record["smiles"])
    key = Chem.MolToInchiKey(mol)
    assert one(soup, '[data-identifier="inchikey"] pre').get_text().strip() == key
    one(soup, f'[data-identifier="inchikey"] button.copy-btn[data-copy="{key}"]')
    assert one(soup, '[data-identifier="canonical_smiles"] button.copy-btn')[
        "data-copy"] == Chem.MolToSmiles(mol)


def _footer(soup) -> str:
    footer = soup.select("footer.site-footer")
    return text(footer[0]) if footer else ""


def _copy_embed_buttons(soup) -> int:
    return sum(1 for button in soup.select("button") if "copy embed code" in text(button).lower())


@pytest.fixture
def inbox():
    """A real SMTP server on loopback: the email-mode link's sign-in."""
    with smtp_server() as box:
        yield box


def test_the_footer_says_what_is_true_of_each_link(app, client, demo, inbox):
    # Not the shared demo: signing in writes a session.
    app.config.update(MAIL_SERVER="127.0.0.1", MAIL_PORT=inbox.port)
    public = page(client, f"/share/{demo['share_links']['public']['id']}")
    assert PUBLIC in _footer(public)
    assert _copy_embed_buttons(public) == 1
    missing = page(client, "/share/sl_thislinkdoesnotexistatallreally", status=404)
    assert _footer(missing) == "" and "private link" not in text(one(missing, "body"))
    # The email-mode link: signed in with the code from the real message.
    link = demo["share_links"]["email"]
    path = f"/share/{link['id']}"
    address = link["allowed_emails"][0]
    signing_in = client.get(path, follow_redirects=True)
    assert signing_in.status_code == 200
    assert EMAIL in _footer(page(client, signing_in.request.path))
    done = sign_in(client, inbox, EmailLink(link["id"], "", "", []), address)
    assert done.status_code == 302 and done.headers["Location"].endswith(path), done.headers
    shown = page(client, path)
    assert EMAIL in _footer(shown) and "public link" not in text(one(shown, "body"))
    assert _copy_embed_buttons(shown) == 0
    one(shown, "[data-embed-private]")


# The pages of the shared demo, as a visitor reads them.

# Reads the demo: a link over six pipelines and two predictions.

KIND_LABELS = {
    "protein_design": "Protein design",
    "protein_redesign": "Protein redesign",
    "protein_sequence_redesign": "Protein sequence redesign",
    "protein_library_screen": "Protein library screen",
    "small_molecule_design": "Small-molecule design",
    "small_molecule_library_screen": "Small-molecule library screen",
    "small_molecule_explore": "Small-molecule explore",
}
VIEW = {"sort": "-iptm", "binding_confidence__gte": "0.6", "warnings": "none"}
SCREEN = "small_molecule_library_screen"


def public(demo: dict, suffix: str = "") -> str:
    """The path of the public demo link, plus ``suffix``."""
    return f"/share/{demo['share_links']['public']['id']}{suffix}"


def local(href: str) -> str:
    """The path and query of ``href`` (the pages link with the public URL)."""
    parts = urlsplit(href)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def inline_text(element: Tag) -> str:
    """The element's text as a browser's innerText joins inline elements (no added space)."""
    return " ".join(element.get_text().split())


def query_of(href: str) -> dict:
    """The query of ``href`` as a dict, without the page position."""
    return {k: v for k, v in parse_qsl(urlsplit(href).query) if k != "page"}


def view_ids(soup) -> list[str]:
    """The result ids of a results table's rows, in order."""
    return [tr["data-result-id"] for tr in soup.select("tbody tr[data-result-id]")]


@pytest.mark.reads_demo
def test_overview_shows_all_seven_kinds_and_the_predictions(client, demo):
    soup = page(client, public(demo))
    assert text(one(soup, "h1")) == "Shared results"
    cards = soup.select("#pipelines-heading + ul > li")
    assert len(cards) == len(KIND_LABELS) == 7
    kinds_shown = texts(soup, "#pipelines-heading + ul .card-kind")
    for label in KIND_LABELS.values():
        assert any(shown.startswith(label) for shown in kinds_shown), label
    for pipeline_id in demo["pipelines"].values():
        assert len(soup.select(f"a[href*='/pipelines/{pipeline_id}']")) == 1
    assert len(soup.select("#predictions-heading + ul > li")) == 2
    assert "Link expires in 13 days" in inline_text(one(soup, ".link-meta"))


def pipeline_path(demo: dict, kind: str, suffix: str = "") -> str:
    """The path of the demo pipeline of ``kind``, plus ``suffix``."""
    return public(demo, f"/pipelines/{demo['pipelines'][kind]}{suffix}")


@pytest.mark.reads_demo
def test_result_page_shows_the_full_sequence(app, client, demo):
    table = page(client, pipeline_path(demo, "protein_design"))
    first = table.select("table.results tbody tr")[0]["data-result-id"]
    record = next(r for r in api_records(app, demo, "protein_design") if r["id"] == first)
    href = local(table.select("table.results tbody th a")[0]["href"])
    assert first in href  # the row's result (its page names it by its label)
    soup = page(client, href)
    shown = [element.get_text() for element in soup.select(".entity pre.seq")]
    copies = [button.get("data-copy") for button in soup.select(".entity .copy-btn")]
    for entity in record["entities"]:
        assert entity["value"] in copies
        assert any("".join(seq.split()) == entity["value"] for seq in shown)


@pytest.mark.reads_demo
def test_download_bytes_equal_the_file_behind_the_presigned_url(app, client, demo):
    record = api_records(app, demo, "small_molecule_design")[0]
    soup = page(client, pipeline_path(demo, "small_molecule_design",
                                      f"/results/{record['id']}"))
    for name in ("archive", "structure"):
        download = client.get(local(one(soup, f"a[href$='/artifacts/{name}']")["href"]))
        assert download.status_code == 200
        direct = client.get(local(record["artifacts"][name]["url"]))
        assert direct.status_code == 200
        assert download.get_data() == direct.get_data()
        assert len(direct.get_data()) > 0


@pytest.mark.reads_demo
def test_next_walks_the_sorted_filtered_view_and_the_trail_returns_to_it(client, demo):
    query = "?" + "&".join(f"{k}={v}" for k, v in VIEW.items())
    table = page(client, pipeline_path(demo, "protein_design", query))
    order = view_ids(table)
    assert len(order) >= 3
    soup = page(client, local(table.select("tbody tr[data-result-id] a.rid")[0]["href"]))
    assert text(one(soup, "[data-result-id]")) == order[0]
    label = text(one(soup, "h1 [data-result-label]"))
    assert label.startswith("#")  # "#<rank> <tail>", the run-wide name
    assert order[0].endswith(label.split()[1])
    # The full id stays at hand, its Copy button beside it (where: the browser test).
    assert one(soup, ".link-meta .copy-btn")["data-copy"] == order[0]
    for expected in order[1:3]:
        href = local(one(soup, "a[rel=next]")["href"])
        assert query_of(href) == VIEW
        soup = page(client, href)
        assert text(one(soup, "[data-result-id]")) == expected
    assert text(one(soup, ".pager-place")).startswith("3 of ")
    # Back through the trail: the same view, sort and filters, #3 still on its page.
    back = local(soup.select(".breadcrumb a")[1]["href"])
    assert query_of(back) == VIEW
    assert view_ids(page(client, back))[:3] == order[:3]


@pytest.mark.reads_demo
def test_every_alert_of_a_molecule_is_listed_and_drawn_in_its_colour(app, client, demo):
    catalog = alert_catalog()
    found = {}
    for record in api_records(app, demo, SCREEN):
        mol = Chem.MolFromSmiles(record["smiles"])
        found[record["id"]] = [e.GetDescription() for e in catalog.GetMatches(mol)]
    chosen = max(found, key=lambda rid: len(found[rid]))
    assert len(found[chosen]) >= 2, "the demo library has a molecule with two alerts"
    soup = page(client, pipeline_path(demo, SCREEN, f"/results/{chosen}"))
    items = soup.select("ul.alert-list li")
    assert len(items) == len(found[chosen])
    assert [item.get("data-alert") for item in items] == found[chosen]
    colours = [item.get("data-colour") for item in items]
    assert len(set(colours)) == len(colours)
    drawing = client.get(local(one(soup, "figure.mol-large img")["src"]))
    assert drawing.status_code == 200 and drawing.get_data()
    svg = drawing.get_data(as_text=True).upper()
    for colour in colours:
        assert colour in svg, colour


def prediction_path(demo: dict, application: str, suffix: str = "") -> str:
    """The path of a demo prediction's page under the public link, plus ``suffix``."""
    return public(demo, f"/predictions/{demo['predictions'][application]}{suffix}")


def adme_column(soup, index: int) -> list[str]:
    """The text of the ADME table's cells of column ``index`` (0 = depiction)."""
    return [text(tr.find_all(["th", "td"], recursive=False)[index])
            for tr in soup.select("table.adme tbody tr")]


@pytest.mark.reads_demo
def test_adme_page_lists_every_molecule_and_sorts_by_permeability(client, demo):
    soup = page(client, prediction_path(demo, "adme"))
    rows = soup.select("table.adme tbody tr")
    assert len(rows) == 10
    # One depiction per row (that each is drawn: the browser test).
    assert len(soup.select("table.adme tbody tr td.col-depiction img")) == len(rows)
    headers = texts(soup, "table.adme thead th")
    assert any("logD 7.4" in h for h in headers)
    assert any("Permeability" in h and "10\u207b\u2076 cm/s" in h for h in headers)
    # A plain link in the header sorts on the server; a second click reverses it.
    href = local(one(soup, "th.col-permeability a.sort-link")["href"])
    assert "sort=permeability" in href
    soup = page(client, href)
    values = [float(v) for v in adme_column(soup, 4)]
    assert values == sorted(values) and len(values) == 10
    assert one(soup, "th.col-permeability").get("aria-sort") == "ascending"
    href = local(one(soup, "th.col-permeability a.sort-link")["href"])
    assert "sort=-permeability" in href
    soup = page(client, href)
    assert [float(v) for v in adme_column(soup, 4)] == sorted(values, reverse=True)
    assert one(soup, "th.col-permeability").get("aria-sort") == "descending"


@pytest.mark.reads_demo
def test_structure_and_binding_page_puts_the_best_sample_first(client, demo):
    soup = page(client, prediction_path(demo, "structure_and_binding"))
    assert text(one(soup, "#best-heading")).startswith("Best sample: sample 1")
    labels = texts(soup, "#best-heading ~ dl.metric-facts dt")
    assert labels[:4] == ["ipTM", "pTM", "Complex ipLDDT", "Complex pLDDT"]
    headers = texts(soup, "table.samples thead th")
    assert headers[1].startswith("ipTM") and headers[2].startswith("pTM")
    rows = soup.select("table.samples tbody tr")
    first = rows[0]
    assert "Best" in text(first) and first.get("data-sample") == "1"
    assert len(rows) == 3
    links = [a for a in first.select("a") if "View in 3D" in text(a)]
    assert len(links) == 1 and links[0]["href"].endswith("/structure?sample=1")


@pytest.mark.reads_demo
def test_prediction_samples_and_the_glossary(client, demo):
    soup = page(client, prediction_path(demo, "structure_and_binding"))
    table = one(soup, "table.samples")
    assert len(table.select("tr.best .badge-best")) == 1
    assert len(table.select("td.metric-best")) >= 5
    assert "hit discovery" in text(one(soup, "[data-purpose='binding_confidence']"))
    href = one(table, "th.col-iptm a.glossary-link")["href"]
    assert urlsplit(href).path == "/glossary" and urlsplit(href).fragment == "iptm"
    entry = text(one(page(client, local(href)), "article#iptm"))
    assert "0.8" in entry and "Boltz" in entry


@pytest.mark.reads_demo
def test_a_result_page_marks_each_liability_motif_in_its_designed_chain(app, client, demo):
    records = {r["id"]: r for r in api_records(app, demo, "protein_design")}
    wanted = [rid for rid, r in records.items()
              if any(pair in designed(r).upper() for pair in ("NG", "NS"))]
    assert wanted
    rid = wanted[0]
    soup = page(client, pipeline_path(demo, "protein_design", f"/results/{rid}"))
    report = one(soup, "section.protein-report")
    assert report.select("mark.liab-deamidation")
    assert "Deamidation (NG, NS)" in report.select("pre mark.liab-deamidation")[0]["title"]
    shown = one(report, "pre.seq").get_text().replace(" ", "").replace("\n", "")
    assert shown == designed(records[rid])


def designed(record: dict) -> str:
    """The designed chain's sequence."""
    return next(e["value"] for e in record["entities"] if e["type"] == "protein")


def _cards(demo: dict, client) -> dict[str, str]:
    """Return the overview's pipeline cards' text and markup, by pipeline id."""
    link = demo["share_links"]["public"]["id"]
    body = client.get(f"/share/{link}").get_data(as_text=True)
    cards = {}
    for kind, pipeline_id in demo["pipelines"].items():
        start = body.index(f"<code>{pipeline_id}</code>")
        card = body[body.rindex('<li class="card', 0, start):start]
        cards[kind] = card
    return cards


@pytest.mark.reads_demo
def test_overview_cards_say_what_the_record_says_in_words(client, demo):
    cards = _cards(demo, client)
    link = demo["share_links"]["public"]["id"]
    # The demo's stopped protein design has no error: its card says the record gives none.
    stopped = cards["protein_design"]
    assert "Stopped" in stopped
    assert "The record gives no reason and does not say who stopped it." in stopped
    # The explore run succeeded: no phase, and its library by its file name, in words.
    explore = cards["small_molecule_explore"]
    assert "Phase" not in explore and "Scoring" not in explore
    assert "bet_focused_560.csv, fetched from a web address" in explore
    assert "inputs.demo.invalid" not in "".join(cards.values())
    # The reference ligand (JQ1) is drawn by the share's depiction route, SMILES beside it.
    design = cards["small_molecule_design"]
    assert "Reference ligand" in design
    assert f'src="/share/{link}/depictions/' in design
    assert "Reference ligands</dt><dd>1" not in design


@pytest.mark.reads_demo
def test_a_screens_adme_says_it_is_the_runs_summary_with_no_model_named(client, demo):
    link = demo["share_links"]["public"]["id"]
    pipeline = demo["pipelines"][LIBRARY]
    table = client.get(f"/share/{link}/pipelines/{pipeline}").get_data(as_text=True)
    note = table[table.index("data-adme-source"):]
    note = note[:note.index("</p>")]
    assert "From the run&#39;s ADME summary of each result, the record names no model." in note
    assert "different prediction" in note
