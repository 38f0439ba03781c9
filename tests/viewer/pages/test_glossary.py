"""The metric glossary: one entry for every metric and computed field the tables show,
with meaning, scale, direction, sourced thresholds and the tool; every metric header of
the results, samples and ADME tables links to its entry; the page names no share."""

from __future__ import annotations

import re

import pytest

from app import domain
from app.viewer.explore import fields
from app.viewer.pages import glossary
from tests.viewer.pages.test_prediction_pages import body_of, pages  # noqa: F401 (fixture)


def _entries(body: str) -> dict[str, str]:
    """Return the glossary page's entries: {id: the entry's markup}."""
    return dict(re.findall(r'<article class="glossary-entry" id="([^"]+)"[^>]*>(.*?)</article>',
                           body, re.S))


def _header_links(body: str, table_class: str) -> dict[str, str | None]:
    """Return {column class key: glossary link key or None} of a table's header cells."""
    table = body[body.index(f'<table class="{table_class}'):]
    head = table[:table.index("</thead>")]
    out = {}
    for cls, cell in re.findall(r'<th scope="col" class="([^"]*)"[^>]*>(.*?)</th>', head, re.S):
        column = re.search(r"col-([\w.]+)", cls)
        link = re.search(r'class="glossary-link" href="/glossary#([\w.]+)"', cell)
        if column:
            out[column.group(1)] = link.group(1) if link else None
    return out


def test_the_glossary_lists_every_metric_and_computed_field(client):
    response = client.get("/glossary")
    body = body_of(response)
    entries = _entries(body)
    shown = {*domain.METRICS, *domain.SAMPLE_ONLY_METRICS, *domain.ADME_FIELDS,
             *(k for k, f in fields.FIELDS.items() if f.group != "record")}
    assert shown <= set(entries)
    for key, markup in entries.items():
        assert "<dt>Direction</dt>" in markup and "<dt>Comes from</dt>" in markup, key
    # Direction from the vocabulary; tool by origin; thresholds with their source.
    assert "Lower is better" in entries["complex_pde"]
    assert "Higher is better" in entries["iptm"]
    assert "Boltz" in entries["iptm"] and "RDKit" in entries["tpsa"]
    assert "ADME prediction&#39;s model" in entries["permeability"]
    assert "&gt; 0.8 confident interface" in entries["iptm"]
    assert "140 Å²" in entries["tpsa"] and "Veber" in entries["tpsa"]
    assert "rule of five" in entries["mol_weight"]
    for key, thresholds in glossary.THRESHOLDS.items():
        assert all(t.source for t in thresholds), key
    # Not under a share: the same for everyone, never framed, never sending a Referer.
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]


@pytest.mark.reads_demo
@pytest.mark.parametrize("kind", ["protein_design", "small_molecule_design",
                                  "small_molecule_library_screen"])
def test_every_metric_header_of_a_results_table_links_to_its_entry(client, demo, kind):
    link = demo["share_links"]["public"]["id"]
    body = body_of(client.get(f"/share/{link}/pipelines/{demo['pipelines'][kind]}"))
    entries = set(_entries(body_of(client.get("/glossary"))))
    table = body[body.index('<table class="results'):]
    head = table[:table.index("</thead>")]
    graded = {}
    for group, cell in re.findall(r'<th scope="col" class="[^"]*col-(metric|adme|chemistry|'
                                  r'protein)"[^>]*>(.*?)</th>', head, re.S):
        key = re.search(r"sort=-?([\w.]+)", cell).group(1)
        link = re.search(r'class="glossary-link" href="/glossary#([\w.]+)"', cell)
        graded[key] = link.group(1) if link else None
    assert {"binding_confidence", "iptm"} <= set(graded), graded
    for column, target in graded.items():
        assert target == column.removeprefix("adme."), column
        assert target in entries
    # A glossary link is never nested in the header's sort link.
    assert not re.search(r'<a class="sort-link"[^>]*>(?:(?!</a>).)*glossary-link', body, re.S)


def test_sample_and_adme_headers_link_to_their_entries(client, pages):  # noqa: F811
    for page, table in (("structure_and_binding", "samples"), ("adme", "adme")):
        headers = _header_links(body_of(client.get(pages[page])), table)
        linked = {k: v for k, v in headers.items() if v}
        assert linked and all(k == v for k, v in linked.items()), headers
    sample_keys = _header_links(body_of(client.get(pages["structure_and_binding"])), "samples")
    assert all(v for k, v in sample_keys.items()), sample_keys


def test_binding_confidence_says_what_it_is_for_proteins_and_for_molecules(client):
    entry = _entries(body_of(client.get("/glossary")))["binding_confidence"]
    families = dict(re.findall(r"<dt>([^<]+)</dt><dd>([^<]+)</dd>", entry))
    protein = next(v for k, v in families.items() if k.startswith("Protein binders"))
    molecule = next(v for k, v in families.items() if k.startswith("Small molecules"))
    # A protein binder's confidence is not Boltz-2's small-molecule affinity probability.
    assert "binds the target protein" in protein and "not Boltz-2" in protein
    assert "affinity_probability_binary" in molecule and "decoy" in molecule
    assert "primary metric for hit discovery" in entry
    assert "compute API&#39;s specification" in entry  # its definition's source


def test_the_optimisation_score_has_a_scale_and_is_set_against_boltz2s_affinity(client):
    entry = _entries(body_of(client.get("/glossary")))["optimization_score"]
    scale = re.search(r"<dt>Unit or range</dt><dd>([^<]+)</dd>", entry).group(1)
    assert scale == "No unit, no fixed range (a relative ranking score)"
    assert "log10(IC50 / µM), lower binds tighter" in entry
    assert "pIC50 = 6 \u2212 value" in entry
    assert "higher for tighter binding" in entry and "Higher is better" in entry
    assert "Passaro et al." in entry


def test_net_charge_is_in_elementary_charges_at_a_stated_ph(client):
    entry = _entries(body_of(client.get("/glossary")))["net_charge"]
    assert "<dt>Unit or range</dt><dd>e (elementary charges)</dd>" in entry
    assert "<dt>Condition</dt><dd>pH 7.4</dd>" in entry
    assert fields.FIELDS["net_charge"].unit == "e"


def test_ipsae_is_expanded_as_its_paper_names_it(client):
    entry = _entries(body_of(client.get("/glossary")))["ipsae_min"]
    assert "interaction prediction Score from Aligned Errors" in entry
    assert "Structural Alignment Error" not in entry
    assert "Dunbrack" in entry


def test_per_residue_plddt_and_pae_have_entries_with_the_3d_pages_bands(client):
    entries = _entries(body_of(client.get("/glossary")))
    plddt, pae = entries["plddt"], entries["pae"]
    assert "Very high (pLDDT &gt; 90)" in plddt and "Very low (pLDDT &lt; 50)" in plddt
    assert "0\u2013100 per residue" in plddt and "AlphaFold DB" in plddt
    assert "aligned on residue y" in pae and "Å" in pae and "Lower is better" in pae


def test_every_entry_names_its_sources(client):
    entries = _entries(body_of(client.get("/glossary")))
    for key, markup in entries.items():
        sources = re.search(r'<p class="glossary-sources small"><strong>Sources:</strong> '
                            r'([^<]+)</p>', markup)
        assert sources and sources.group(1).strip(), key


def test_the_way_back_uses_the_history_never_the_share_id(client, pages):  # noqa: F811
    share = body_of(client.get(pages["structure_and_binding"]))
    link_id = pages["base"].rsplit("/", 1)[1]
    glossary_hrefs = re.findall(r'href="(/glossary[^"]*)"', share)
    assert glossary_hrefs and all(link_id not in href for href in glossary_hrefs)
    # Opened in the same tab, so the browser's history holds the share page.
    assert not re.search(r'href="/glossary[^"]*"[^>]*target=', share)
    body = body_of(client.get("/glossary"))
    assert re.search(r'<p class="glossary-back" data-history-back hidden><button', body)
    assert '/static/js/glossary.js' in body and "/share/" not in body


def test_solubility_classes_are_defined_and_adme_names_both_sources(client):
    entries = _entries(body_of(client.get("/glossary")))
    solubility = entries["solubility"]
    for value, (label, _tone) in domain.SOLUBILITY_CLASSES.items():
        assert f"<dt>{label} ({value})</dt><dd>" in solubility, value
    assert "not a warning" in solubility
    for key in domain.ADME_FIELDS:
        assert "ADME summary of each result (its record names no model)" in entries[key]
