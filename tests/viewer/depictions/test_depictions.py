"""Depictions: the drawing cache's bound, undrawable SMILES, and the signed route under the share
path (a forged or altered URL, an archived link, an email link without a session: 404)."""

from __future__ import annotations

import re

from app.platform.timeutil import utcnow
from app.viewer.chem import depict
from app.viewer.depictions.markup import molecule_html
from app.viewer.depictions.signing import depiction_url
from app.viewer.depictions.views import MAX_AGE
from tests.support import factories
from tests.support.error_pages import without_reference

ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O"


def test_the_drawing_cache_stays_within_its_bound():
    depict._drawings.clear()
    bound = depict._drawings.maxsize
    smiles = ["C" * n for n in range(1, 40)]
    original, depict._drawings.maxsize = bound, 16
    try:
        for s in smiles:
            assert depict.svg(s) is not None
        assert len(depict._drawings) == 16
    finally:
        depict._drawings.maxsize = original
    assert 1000 <= bound <= 10000
    assert depict._drawings.maxweight <= 64 * 1024 * 1024


def test_svg_has_no_background_box_and_highlights_the_match():
    plain = depict.svg(ASPIRIN)
    assert plain.lstrip().startswith("<?xml") and "<svg" in plain
    assert "<rect" not in plain  # no white box over the page's background
    highlighted = depict.svg(ASPIRIN, "C(=O)O")
    assert depict.HIGHLIGHT_HEX in highlighted and depict.HIGHLIGHT_HEX not in plain
    large = depict.svg(ASPIRIN, size="large")
    assert "width='320px' height='240px'" in large


def test_unparsable_or_too_long_smiles_is_text_and_a_note_never_a_blank_box(app):
    for smiles in ("C1CC", "not a smiles", "C" * (depict.MAX_SMILES + 1)):
        assert depict.svg(smiles) is None
        with app.test_request_context():
            html = molecule_html("sl_x", smiles)
        assert "<img" not in html
        assert "could not be drawn" in html
        assert smiles[:50] in html


def test_macro_renders_a_lazy_sized_image_with_alt_text(app):
    from flask import render_template_string
    with app.test_request_context():
        html = render_template_string(
            '{% from "share/_partials/molecule.html" import molecule %}'
            '{{ molecule("sl_abc", smiles, highlight="c1ccccc1", size="large") }}',
            smiles=ASPIRIN)
    img = re.search(r"<img [^>]+>", html).group(0)
    for attribute in ('loading="lazy"', 'width="320"', 'height="240"',
                      f'alt="2D structure of {ASPIRIN}"'):
        assert attribute in img
    assert "/share/sl_abc/depictions/" in img


def _image_path(app, link_id, smiles=ASPIRIN, highlight=None, size="row"):
    with app.test_request_context():
        return depiction_url(link_id, smiles, highlight, size)


def test_signed_depiction_is_an_svg_with_strict_headers(app, client, shared):
    response = client.get(_image_path(app, shared.link_id))
    assert response.status_code == 200
    assert response.mimetype == "image/svg+xml"
    assert "<svg" in response.get_data(as_text=True)
    headers = response.headers
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert "script-src" not in headers["Content-Security-Policy"]
    assert headers["Content-Security-Policy"].startswith("default-src 'none'")
    assert headers["Cache-Control"] == f"private, max-age={MAX_AGE}"
    assert headers["Referrer-Policy"] == "no-referrer"


def test_a_url_the_page_did_not_sign_is_the_shared_404(app, client, shared):
    good = _image_path(app, shared.link_id)
    not_found = without_reference(client.get(shared.url("/nothing-here")).get_data(as_text=True))
    altered = [
        good.replace("smiles=CC", "smiles=CCC"),  # another molecule, same signature
        good.replace("size=row", "size=large"),
        good + "&highlight=C",
        re.sub(r"depictions/[0-9a-f]{8}", "depictions/00000000", good),
        re.sub(r"depictions/[0-9a-f]{2}", "depictions/%C3%A9", good),  # not ASCII
        good.replace(shared.link_id, "sl_thisLinkDoesNotExistAtAll0000000"),
    ]
    for path in altered:
        response = client.get(path)
        assert response.status_code == 404, path
        assert without_reference(response.get_data(as_text=True)) == not_found


def test_archived_link_and_email_link_without_session_are_404(app, client, org, shared):
    pipeline = shared.pipelines["small_molecule_library_screen"]
    archived = factories.make_link(app, org, pipeline_ids=[pipeline])
    assert client.get(_image_path(app, archived.id)).status_code == 200
    factories.set_link(app, archived.id, archived_at=utcnow())
    assert client.get(_image_path(app, archived.id)).status_code == 404
    email = factories.make_link(app, org, pipeline_ids=[pipeline], access_mode="email",
                                allowed_emails=["ada@example.com"])
    response = client.get(_image_path(app, email.id))
    assert response.status_code == 404  # not a redirect to the sign-in page
