"""The sign-in ``next`` check over encoded paths (issue 22): a percent-encoded dot
segment, slash or backslash never leads a visitor outside the share link."""

from __future__ import annotations

import pytest

from app.viewer.signin import navigation


@pytest.mark.parametrize("candidate", [
    "/share/sl_abc/%2e%2e/%2e%2e/x", "/share/sl_abc/%2E%2E/%2E%2E/x",
    "/share/sl_abc/%2e./sl_other", "/share/sl_abc/.%2E/sl_other",
    "/share/sl_abc/../sl_other", "/share/sl_abc/..%2f..%2fx", "/share/sl_abc/..%2F..%2Fx",
    "/share/sl_abc%2f..%2f..%2fx", "/share/sl_abc/%2e", "/share/sl_abc/%2fevil.example",
    "/share/sl_abc/..\\..\\x", "/share/sl_abc/%5c..%5cx", "/share/sl_abc/%252e%252e/x",
    "/share/sl_abc/%00", "/share/sl_abc/%0d%0aLocation:x", "/share/sl_abc/sign%2Din",
])
def test_encoded_dot_segments_and_separators_fall_back_to_the_overview(app, candidate):
    with app.test_request_context("/"):
        assert navigation.safe_next("sl_abc", candidate) == "/share/sl_abc"


def test_a_percent_encoded_character_in_a_good_path_is_kept(app):
    with app.test_request_context("/"):
        path = "/share/sl_abc/pipelines/pl_1?q=caf%C3%A9"
        assert navigation.safe_next("sl_abc", path) == path


def test_the_sign_in_redirect_stays_under_the_link(client, email_link):
    """The form's ``next`` goes through the same check (end to end, real sign-in page)."""
    hostile = email_link.path("/%252e%252e/%252e%252e/x")  # %2e%2e once the query is read
    response = client.get(email_link.path(f"/sign-in?next={hostile}"))
    assert response.status_code == 200
    assert b"%2e%2e" not in response.data
    assert email_link.path().encode() in response.data
