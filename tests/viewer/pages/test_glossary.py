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
    assert "ADME model" in entries["permeability"]
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
