"""The viewer's error pages (``app.viewer.error_pages``), server HTML read with a real
HTML parser, and the ``Retry-After`` of its "retry later" answers."""

from __future__ import annotations

from app.viewer.core import errors
from app.viewer.web import retry
from tests.support.html import one, page, text


def test_gone_link_page(client):
    soup = page(client, f"/share/sl_{'n' * 32}", 404)
    assert text(one(soup, "h1")) == "This link is not available"
    assert "ask the person who sent you the link for a new one" in str(soup)


def _answer(app, path: str, error: Exception):
    """Return the viewer's answer to ``error`` raised by a view of ``path``."""
    with app.test_request_context(path):
        return app.make_response(app.handle_user_exception(error))


def test_an_unavailable_api_is_its_page_with_the_one_retry_after(app):
    for error in (errors.ApiUnavailable(502), errors.ApiUnavailable(503), errors.ApiTimeout()):
        response = _answer(app, f"/share/sl_{'n' * 32}", error)
        assert response.status_code == error.status
        assert response.mimetype == "text/html"
        assert response.headers["Retry-After"] == str(retry.UNAVAILABLE_SECONDS)


def test_a_retryable_says_its_own_retry_after_on_its_page_and_in_json(app):
    error = errors.Retryable("Busy.", retry_after=7, reason="busy", details={"n": 1})
    html = _answer(app, f"/share/sl_{'n' * 32}", error)
    assert html.status_code == 503 and html.headers["Retry-After"] == "7"
    assert "Busy: please try again" in html.get_data(as_text=True)
    json = _answer(app, f"/share/sl_{'n' * 32}/explore.json", error)
    assert json.status_code == 503 and json.headers["Retry-After"] == "7"
    assert json.get_json() == {"error": "Busy.", "n": 1}
