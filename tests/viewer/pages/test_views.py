"""The plain pages' server HTML, in process over the seeded demo (app/viewer/pages/views.py).

A small molecule's result page: RDKit's properties, its structural alerts named with their
families, the drawing asked with every alert's atoms highlighted, the InChIKey and
canonical SMILES with their copy buttons (issue 20 items 1 and 4). What the footer of each
link's pages says (issue 19 item 9), an email-mode link's after a real sign-in (SMTP).
Chromium keeps the drawings decoded and the screenshots (tests/browser).
"""

from __future__ import annotations

import pytest
from rdkit import Chem
from rdkit.Chem import Descriptors

from tests.rdkit_reference import alert_catalog
from tests.signin.conftest import EmailLink, sign_in, smtp_server
from tests.support.html import one, page, text
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
    assert float(weight.replace("\u2009", "").replace(",", "")) == pytest.approx(expected,
                                                                                abs=0.05)
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
