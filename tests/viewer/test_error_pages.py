"""The viewer's error pages (``app.viewer.error_pages``), server HTML read with a real
HTML parser. Moved from the Chromium test of the gone link's page."""

from __future__ import annotations

from tests.support.html import one, page, text


def test_gone_link_page(client):
    soup = page(client, f"/share/sl_{'n' * 32}", 404)
    assert text(one(soup, "h1")) == "This link is not available"
    assert "ask the person who sent you the link for a new one" in str(soup)
