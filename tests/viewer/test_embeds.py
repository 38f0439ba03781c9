"""Embedding: the embed links of pages, the notice of a framed normal page, the plot page."""

from __future__ import annotations

import html
import re

import pytest

FRAMED = {"Sec-Fetch-Dest": "iframe"}


def _csp(answer) -> str:
    return answer.headers["Content-Security-Policy"]


@pytest.mark.slow
def test_a_framed_normal_page_gets_the_notice_and_nothing_of_the_link(client, shared):
    url = shared.url(f"/pipelines/{shared.pipelines['protein_design']}")
    normal = client.get(url)
    assert b"<h1>Protein design" in normal.data  # the page itself names the pipeline
    notice = client.get(url, headers=FRAMED)
    assert notice.status_code == 200
    text = notice.get_data(as_text=True)
    assert "?embed=1" in text and "cannot be shown inside another page" in text
    assert "Protein design" not in text and "<table" not in text
    assert shared.results["protein_design"][0] not in text
    # The notice may be framed (by the embed ancestors); it opens the page in a new tab.
    assert "frame-ancestors *" in _csp(notice) and "X-Frame-Options" not in notice.headers
    assert notice.headers["Cache-Control"] == "no-store"
    assert "Sec-Fetch-Dest" in notice.headers["Vary"]
    link = re.search(r'<a class="button primary" href="([^"]+)" target="_blank" '
                     r'rel="noopener noreferrer">', text)
    assert link and html.unescape(link.group(1)).endswith(url)


def test_every_other_answer_still_refuses_framing(client, shared):
    for headers in ({}, {"Sec-Fetch-Dest": "document"}):
        page = client.get(shared.url(), headers=headers)
        assert "frame-ancestors 'none'" in _csp(page) and page.headers["X-Frame-Options"] == "DENY"
    embedded = client.get(shared.url("?embed=1"), headers=FRAMED)
    assert b"Shared results</h1>" in embedded.data and "frame-ancestors *" in _csp(embedded)
    # A framed download is not a page: it is not replaced by the notice, nor framable.
    pipeline = shared.pipelines["protein_design"]
    result = shared.results["protein_design"][0]
    css = client.get("/static/css/viewer.css", headers=FRAMED)
    assert css.headers["X-Frame-Options"] == "DENY"
    download = client.get(shared.url(f"/pipelines/{pipeline}/results/{result}/artifacts/archive"),
                          headers={"Sec-Fetch-Dest": "document"})
    assert download.status_code == 200 and download.headers["X-Frame-Options"] == "DENY"


@pytest.mark.parametrize("suffix", ["", "/pipelines/{pd}", "/pipelines/{pd}/results/{rid}",
                                    "/pipelines/{pd}/results/{rid}/structure",
                                    "/predictions/{pred}"])
def test_pages_offer_embed_code_and_embedded_ones_open_the_full_view(client, shared, suffix):
    path = shared.url(suffix.format(pd=shared.pipelines["protein_design"],
                                    rid=shared.results["protein_design"][0],
                                    pred=shared.predictions[0]))
    page = client.get(path).get_data(as_text=True)
    assert "Copy embed code" in page and "Open full view" not in page
    code = html.unescape(re.search(r"<textarea[^>]*data-embed-code>(.*?)</textarea>", page,
                                   re.S).group(1))
    assert f'<iframe src="http://localhost{path}?embed=1"' in code
    assert 'event.origin !== "http://localhost"' in code
    assert "frame.contentWindow === event.source" in code
    assert "share-viewer:height" in code

    embedded = client.get(path + "?embed=1").get_data(as_text=True)
    assert "Copy embed code" not in embedded
    full = re.search(r'<a href="([^"]+)" target="_blank" rel="noopener noreferrer">Open full '
                     r'view', embedded)
    assert full and html.unescape(full.group(1)) == f"http://localhost{path}"
    assert "/static/js/embed.js?v=" in embedded


def test_error_pages_offer_no_embed_code(client, shared):
    gone = client.get(shared.url("/pipelines/pl_nope"))
    assert gone.status_code == 404
    assert b"embed code" not in gone.data and b"Open full view" not in gone.data


def test_the_plot_alone_keeps_the_view_and_checks_its_parameters(client, shared):
    pipeline = shared.pipelines["protein_design"]
    url = shared.url(f"/pipelines/{pipeline}/plot?x=iptm&y=binding_confidence"
                     "&iptm__gte=0.1&embed=1")
    page = client.get(url)
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert 'id="explore"' in text and "plot-alone" in text and "<table" not in text
    explore_url = html.unescape(re.search(r'data-explore-url="([^"]+)"', text).group(1))
    assert "iptm__gte=0.1" in explore_url and "x=iptm" in explore_url
    assert 'value="iptm" selected' in text and 'value="binding_confidence" selected' in text
    # The axis form comes back to the plot page, embedded.
    assert f'action="/share/{shared.link_id}/pipelines/{pipeline}/plot"' in text
    assert '<input type="hidden" name="embed" value="1">' in text
    assert "frame-ancestors *" in _csp(page)

    bad = client.get(shared.url(f"/pipelines/{pipeline}/plot?x=bogus"))
    assert bad.status_code == 400 and b"x" in bad.data and b"bogus" in bad.data
    unknown = client.get(f"/share/sl_thisLinkDoesNotExistAtAll0000000/pipelines/{pipeline}/plot")
    assert unknown.status_code == 404
