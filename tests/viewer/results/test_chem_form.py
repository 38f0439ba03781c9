"""The results page's chemistry form (app/viewer/results/chem_form.py), in process over the
seeded demo (issue 19 item 5): a SMARTS RDKit cannot read (``COOH``) submitted with the
form comes back in it (status 400) with its error beside the field, every other value
kept and the table of the view without it; the carboxylic-acid quick filter finds the
library's acids and none of its esters; ``C(=O)O`` says it also matches esters and links
to the acids. Chromium keeps the focus, the error's place on screen, history and the
screenshots (tests/browser/test_chem_form_browser.py)."""

from __future__ import annotations

import pytest
from rdkit import Chem
from rdkit.rdBase import BlockLogs

from tests.support.html import form_query, one, page, parse, text
from tests.viewer.exports.test_csv_export import api_records

KIND = "small_molecule_library_screen"
ACID = Chem.MolFromSmarts("[CX3](=O)[OX2H1,OX1-]")
ESTER = Chem.MolFromSmarts("[#6][CX3](=O)[OX2][#6]")

# Reads the demo only.
pytestmark = pytest.mark.reads_demo


def _has(smiles: str | None, pattern) -> bool:
    with BlockLogs():
        mol = Chem.MolFromSmiles(smiles or "")
    return mol is not None and mol.HasSubstructMatch(pattern)


def _results(demo: dict, query: str = "") -> str:
    return (f"/share/{demo['share_links']['public']['id']}/pipelines/"
            f"{demo['pipelines'][KIND]}{query}")


def _local(href: str) -> str:
    return href.removeprefix("http://viewer.test")


def _shown_ids(soup) -> set[str | None]:
    return {tr.get("data-result-id") for tr in soup.select("table.results tbody tr")}


def test_cooh_typed_in_the_form_comes_back_with_its_error_beside_the_field(app, client, demo):
    soup = page(client, _results(demo, "?limit=100"))
    form = one(soup, "details.explore-filters form")
    assert one(form, "#f-smarts")["name"] == "smarts"
    assert one(form, "#f-warnings")["name"] == "warnings"
    response = client.get(_local(form["action"]).split("?")[0] + "?"
                          + form_query(form, smarts="COOH", warnings="none"))
    assert response.status_code == 400
    answer = parse(response.get_data(as_text=True))
    assert len(answer.select("h1")) == 1 and len(answer.select("#results-table")) == 1
    field = one(answer, "#f-smarts")
    assert field.get("value") == "COOH"
    assert one(answer, "#f-warnings option[selected]")["value"] == "none"  # others kept
    assert field.get("aria-invalid") == "true"
    # Its error is read with the field, and sits in the same form.
    described = field["aria-describedby"].split()
    error = one(answer, f"#{described[0]}")
    assert "COOH" in text(error) and "not a SMARTS or a SMILES" in text(error)
    assert error.find_parent("form") is field.find_parent("form")
    # The table is the view without the bad filter: the warnings filter still holds.
    clean = {r["id"] for r in api_records(app, demo, KIND) if not r.get("warnings")}
    assert _shown_ids(answer) == clean


def test_the_acid_preset_finds_acids_not_esters_and_the_ester_note(app, client, demo):
    records = api_records(app, demo, KIND)
    acids = {r["id"] for r in records if _has(r.get("smiles"), ACID)}
    esters = {r["id"] for r in records if _has(r.get("smiles"), ESTER)
              and not _has(r.get("smiles"), ACID)}
    assert acids and esters
    soup = page(client, _results(demo, "?limit=100&smarts=C(%3DO)O"))
    shown = _shown_ids(soup)
    assert esters <= shown and acids <= shown  # the plain pattern finds both
    note = one(soup, "p.smarts-note")
    assert "also matches esters" in text(note)
    only_acids = page(client, _local(one(note, "a[data-preset=carboxylic_acid]")["href"]))
    assert _shown_ids(only_acids) == acids
    assert only_acids.select("p.smarts-note") == []
    preset = one(only_acids, ".chem-presets a[data-preset=carboxylic_acid]")
    assert preset.get("aria-current") == "true"
    # From a plain page the preset link alone does it (no JavaScript needed).
    plain = page(client, _results(demo, "?limit=100"))
    preset = one(plain, "details.explore-filters .chem-presets a[data-preset=carboxylic_acid]")
    with_preset = page(client, _local(preset["href"]))
    assert _shown_ids(with_preset) == acids
    assert one(with_preset, "#f-smarts").get("value") == "[CX3](=O)[OX2H1,OX1-]"
