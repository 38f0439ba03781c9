"""Issue 21 item 5: the plain page of a current index is rendered once, then kept whole
(``results.page_cache``): every anonymous visitor gets the same markup and its gzip, and
anything the page shows (a new result, the embed code's host, embed mode, a signed-in
visitor's account box and CSRF token) makes or keeps a page of its own."""

from __future__ import annotations

import gzip
import re
import time

import pytest

from app.platform.db import get_engine
from app.viewer.results import page, page_cache
from tests.support import factories

FIRST_ROW = re.compile(r'<tr data-result-id="([^"]+)"')


@pytest.fixture
def renders(monkeypatch):
    """The number of times the results page template was rendered."""
    count = [0]
    original = page.render

    def counted(*args, **kwargs):
        count[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(page, "render", counted)
    return count


def _pipeline(app, org, **link):
    with get_engine(app).begin() as conn:
        pipeline_id, _ids = factories.insert_pipeline(
            conn, org.workspace_id, "protein_design", 30, seed=8,
            artifact_dir=app.config["ARTIFACT_DIR"])
    link_id = factories.make_link(app, org, pipeline_ids=[pipeline_id], **link).id
    return f"/share/{link_id}/pipelines/{pipeline_id}"


def test_anonymous_visits_get_one_rendering_and_its_gzip(app, client, org, renders):
    path = _pipeline(app, org)
    built = client.get(path)  # builds the index, then renders the page from it
    assert renders[0] == 1
    first = client.get(path)
    again = client.get(path, headers={"Accept-Encoding": "gzip"})
    assert built.status_code == first.status_code == again.status_code == 200
    assert renders[0] == 1 and first.data == built.data
    assert again.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(again.data) == first.data
    assert len(FIRST_ROW.findall(first.get_data(as_text=True))) == 30
    # A view of its own (another page size) is rendered, then kept too.
    client.get(f"{path}?limit=10")
    client.get(f"{path}?limit=10")
    assert renders[0] == 2


def test_a_sorted_and_filtered_view_is_kept_and_equal_to_a_fresh_rendering(
        app, client, org, renders):
    path = _pipeline(app, org)
    client.get(path)
    view = f"{path}?sort=-iptm&iptm__gte=0.3&limit=10&page=2"
    renders[0] = 0
    first, again = client.get(view), client.get(view)
    assert renders[0] == 1 and first.data == again.data
    rows = FIRST_ROW.findall(first.get_data(as_text=True))
    assert 0 < len(rows) <= 10
    client.get(f"{path}?sort=-iptm&iptm__gte=0.4&limit=10&page=2")  # another filter
    assert renders[0] == 2
    page_cache.clear(app)
    assert client.get(view).data == first.data and renders[0] == 3


def test_embed_mode_and_the_host_make_pages_of_their_own(app, client, org, renders):
    path = _pipeline(app, org)
    client.get(path)
    plain = client.get(path).get_data(as_text=True)
    embedded = client.get(f"{path}?embed=1").get_data(as_text=True)
    elsewhere = client.get(path, base_url="https://viewer.example.org").get_data(as_text=True)
    assert '<body class="page">' in plain and '<body class="embed">' in embedded
    assert "https://viewer.example.org/share/" in elsewhere
    assert "https://viewer.example.org" not in plain


def test_signed_in_visitors_get_their_own_page_never_a_kept_one(app, client, org, renders):
    path = _pipeline(app, org, access_mode="email",
                     allowed_emails=["ada@example.com", "grace@example.com"])
    pages = {}
    for email in ("ada@example.com", "grace@example.com", "ada@example.com"):
        with client.session_transaction() as session:
            session["verified_email"] = email
            session["verified_at"] = int(time.time())
        response = client.get(path)
        assert response.status_code == 200
        pages.setdefault(email, []).append(response.get_data(as_text=True))
    assert "grace@example.com" in pages["grace@example.com"][0]
    assert "grace@example.com" not in pages["ada@example.com"][1]
    assert all('name="csrf_token"' in body for bodies in pages.values() for body in bodies)
    assert renders[0] == 3  # each visit rendered its own page (the first built the index)


def test_an_equivalent_address_gets_a_page_naming_its_own_address(app, client, org, renders):
    """Two addresses of one view (the default order spelt out, or not) share the view but
    not the page: its embed code and "Open full view" name the address asked for. A CI
    run's embed test was once handed the embed code of ``?sort=...`` for the bare page."""
    path = _pipeline(app, org)
    client.get(path)
    spelt = client.get(f"{path}?page=1").get_data(as_text=True)
    bare = client.get(path).get_data(as_text=True)
    # The code is shown escaped in a textarea: & is &amp;amp; there, " is &#34;.
    assert f'{path}?page=1&amp;amp;embed=1&#34;' in spelt
    assert f'{path}?embed=1&#34;' in bare and "page=1" not in bare
    assert FIRST_ROW.findall(spelt) == FIRST_ROW.findall(bare)
