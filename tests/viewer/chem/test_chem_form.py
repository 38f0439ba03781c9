"""The chemistry of a results page's filter form (issue 19 item 5): an unreadable SMARTS
shown beside the filled form on the results page (not a bare 400 page), the quick-filter
presets (carboxylic acid without esters, primary amine, Lipinski pass, no PAINS), the
``alerts=`` filter and the note when a pattern also matches esters."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
import sqlalchemy as sa

from app.platform.db import get_engine
from app.store import schema
from app.viewer.chem import alerts, presets, substructure
from tests.support import factories

ROW_ID = re.compile(r'<tr data-result-id="([^"]+)"')
# name -> SMILES: acids, esters, amines and two PAINS compounds (a 5-benzylidene rhodanine,
# a catechol ketone), and one SMILES RDKit cannot read.
POOL = {
    "aspirin": "CC(=O)Oc1ccccc1C(=O)O",           # acid (and an ester)
    "ibuprofen": "CC(C)Cc1ccc(cc1)C(C)C(=O)O",     # acid
    "nifedipine": "COC(=O)C1=C(C)NC(C)=C(C1c1ccccc1[N+](=O)[O-])C(=O)OC",  # esters only
    "clopidogrel": "COC(=O)[C@H](c1ccccc1Cl)N1CCc2sccc2C1",  # ester
    "tacrine": "Nc1c2CCCCc2nc2ccccc12",            # primary (aromatic) amine
    "sitagliptin": "N[C@@H](CC(=O)N1CCn2c(C1)nnc2C(F)(F)F)Cc1cc(F)c(F)cc1F",
    "paracetamol": "CC(=O)Nc1ccc(O)cc1",           # amide NH: no primary amine
    "rhodanine": "O=C1NC(=S)SC1=Cc1ccccc1",        # PAINS ene_rhod_A
    "catechol": "CC(C)=CC(=O)c1ccc(O)c(O)c1",      # PAINS catechol_A
    "sorafenib": "CNC(=O)c1cc(Oc2ccc(NC(=O)Nc3ccc(Cl)c(c3)C(F)(F)F)cc2)ccn1",
    "unreadable": "C1CC(=O",
}


@pytest.fixture
def molecules(app, org):
    """A small-molecule library screen of POOL's molecules behind a public link."""
    names = list(POOL)
    with get_engine(app).begin() as conn:
        pipeline_id, ids = factories.insert_pipeline(
            conn, org.workspace_id, "small_molecule_library_screen", len(names), seed=3,
            artifact_dir=app.config["ARTIFACT_DIR"])
        for result_id, name in zip(ids, names, strict=True):
            conn.execute(sa.update(schema.results).where(schema.results.c.id == result_id)
                         .values(smiles=POOL[name]))
    link = factories.make_link(app, org, pipeline_ids=[pipeline_id])
    alerts.clear_cache()
    return f"/share/{link.id}/pipelines/{pipeline_id}", dict(zip(ids, names, strict=True))


def _by_name(found: set[str], names: dict[str, str]) -> set[str]:
    return {names[rid] for rid in found}


def test_an_unreadable_smarts_is_shown_beside_the_filled_form(client, molecules):
    path, names = molecules
    response = client.get(f"{path}?smarts=COOH&q=&tpsa__lte=200&warnings=")
    assert response.status_code == 400
    body = response.get_data(as_text=True)
    # The results page itself: the form holds what was typed, the error beside the field.
    assert 'id="f-smarts"' in body and 'value="COOH"' in body
    assert 'aria-describedby="f-smarts-error f-smarts-hint"' in body
    assert 'aria-invalid="true"' in body
    assert re.search(r'id="f-smarts-error"[^>]*>.*COOH.*is not a SMARTS or a SMILES', body)
    assert 'value="200"' in body  # the other filter kept, in its box and applied
    # The table of the view without the bad filter: every readable-or-not row passes TPSA.
    shown = _by_name(set(ROW_ID.findall(body)), names)
    assert "aspirin" in shown and "nifedipine" in shown
    # Links of the view (presets, sort headers, pages) never carry the bad SMARTS.
    hrefs = re.findall(r'<a [^>]*href="([^"]*)"', body)
    assert hrefs and not [href for href in hrefs if "smarts=COOH" in href]


def test_explore_json_and_exports_keep_their_400(client, molecules):
    path, _names_of = molecules
    answer = client.get(f"{path}/explore.json?smarts=COOH")
    assert answer.status_code == 400 and answer.is_json
    assert "smarts" in answer.get_json()["error"]
    assert client.get(f"{path}/export.csv?smarts=COOH").status_code == 400


def test_the_carboxylic_acid_preset_finds_acids_and_not_esters(client, molecules):
    path, names = molecules
    body = client.get(path).get_data(as_text=True)
    link = re.search(r'data-preset="carboxylic_acid"[^>]*\s+href="([^"]+)"', body)
    assert link, "the preset is a plain link"
    href = link.group(1).replace("&amp;", "&")
    found = client.get(href).get_data(as_text=True)
    assert _by_name(set(ROW_ID.findall(found)), names) == {"aspirin", "ibuprofen"}
    assert not presets.also_matches_esters(presets.CARBOXYLIC_ACID)
    query = substructure.parse_query(presets.CARBOXYLIC_ACID)
    assert substructure.match_each(["CC(=O)O", "CC(=O)OC", "CC(=O)[O-]"], query) == \
        [True, False, True]


def test_the_other_presets(client, molecules):
    path, names = molecules
    amines = client.get(f"{path}?smarts={quote(presets.PRIMARY_AMINE, safe='')}")
    assert _by_name(set(ROW_ID.findall(amines.get_data(as_text=True))), names) == \
        {"tacrine", "sitagliptin"}
    body = client.get(path).get_data(as_text=True)
    for key, value in (("lipinski", "lipinski_violations__lte=1"), ("no_pains", "alerts=none")):
        href = re.search(rf'data-preset="{key}"[^>]*\s+href="([^"]+)"', body).group(1)
        assert value in href.replace("&amp;", "&")
    # A preset that is on links to its removal, the view's other values kept.
    on = client.get(f"{path}?alerts=none&alert_family=pains&mol_weight__lte=600").get_data(
        as_text=True)
    href = re.search(r'data-preset="no_pains"[^>]*\s+href="([^"]+)"', on).group(1)
    assert 'aria-current="true"' in on and "alerts" not in href and "mol_weight__lte=600" in href


def test_alerts_none_excludes_pains_molecules_and_any_keeps_only_them(client, molecules):
    path, names = molecules
    clean = _by_name(set(ROW_ID.findall(client.get(f"{path}?alerts=none&alert_family=pains")
                                        .get_data(as_text=True))), names)
    flagged = _by_name(set(ROW_ID.findall(client.get(f"{path}?alerts=any&alert_family=pains")
                                          .get_data(as_text=True))), names)
    assert flagged == {"rhodanine", "catechol"}
    assert clean == set(POOL) - {"rhodanine", "catechol", "unreadable"}
    # With the acid preset and Lipinski, in exports too (the CSV keeps the view).
    csv = client.get(f"{path}/export.csv?alerts=none&alert_family=pains&"
                     "lipinski_violations__lte=1&smarts="
                     "%5BCX3%5D(%3DO)%5BOX2H1,OX1-%5D").get_data(as_text=True)
    rows = [line for line in csv.splitlines()[1:] if line.strip()]
    assert len(rows) == 2
    assert client.get(f"{path}?alerts=some").status_code == 400


def test_alerts_on_protein_results_is_a_400(app, client, org):
    with get_engine(app).begin() as conn:
        pipeline_id, _ids = factories.insert_pipeline(conn, org.workspace_id,
                                                      "protein_design", 3,
                                                      artifact_dir=app.config["ARTIFACT_DIR"])
    link = factories.make_link(app, org, pipeline_ids=[pipeline_id])
    response = client.get(f"/share/{link.id}/pipelines/{pipeline_id}?alerts=none")
    assert response.status_code == 400 and "alerts" in response.get_data(as_text=True)


def test_a_pattern_that_also_matches_esters_says_so_with_a_switch_to_acids(client, molecules):
    path, names = molecules
    body = client.get(f"{path}?smarts=C(%3DO)O").get_data(as_text=True)
    assert _by_name(set(ROW_ID.findall(body)), names) >= {"nifedipine", "clopidogrel"}
    note = re.search(r'<p class="notice smarts-note".*?</p>', body, re.S).group(0)
    assert "also matches esters" in note
    href = re.search(r'href="([^"]+)"', note).group(1).replace("&amp;", "&")
    assert _by_name(set(ROW_ID.findall(client.get(href).get_data(as_text=True))), names) \
        == {"aspirin", "ibuprofen"}
    # No note for the acid preset, nor for a pattern about something else.
    for query in ("smarts=%5BCX3%5D(%3DO)%5BOX2H1,OX1-%5D", "smarts=c1ccccc1", "smarts=O"):
        assert "smarts-note" not in client.get(f"{path}?{query}").get_data(as_text=True)
