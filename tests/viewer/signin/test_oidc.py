"""OpenID Connect sign-in against real providers on loopback (discovery, code flow)."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx
import pytest

from app import create_app
from app.platform.db import get_engine
from tests.support.oidc_provider import Provider
from tests.support.signin import LISTED, UNLISTED, csrf_token, make_email_link


@pytest.fixture
def providers():
    """Three providers: verified listed address, unverified one, verified unlisted one."""
    started = {
        "corp": Provider(email=LISTED, email_verified=True).start(),
        "shady": Provider(email=LISTED, email_verified=False).start(),
        "other": Provider(email=UNLISTED, email_verified="true").start(),
    }
    yield started
    for provider in started.values():
        provider.stop()


@pytest.fixture
def oidc_app(db_url, tmp_path, providers):
    """The app with the three providers configured as FLASK_OIDC_PROVIDERS would."""
    config = [{"name": name, "label": f"{name.title()} ID",
               "server_metadata_url": p.metadata_url, "client_id": p.client_id,
               "client_secret": p.client_secret} for name, p in providers.items()]
    app = create_app({"TESTING": True, "DATABASE_URL": db_url, "SECRET_KEY": "oidc-secret",
                      "PUBLIC_URL": "http://viewer.test", "OIDC_PROVIDERS": config,
                      "ARTIFACT_DIR": str(tmp_path / "artifacts")},
                     instance_path=str(tmp_path / "instance"))
    yield app
    get_engine(app).dispose()


@pytest.fixture
def link(oidc_app):
    """An email-mode link in the OIDC app's database."""
    from tests.support.apps import make_org

    return make_email_link(oidc_app, make_org(oidc_app))


def through_provider(client, link, name: str, next_path: str | None = None):
    """Start at the viewer, let the provider answer over HTTP, finish at the callback."""
    query = f"?next={next_path}" if next_path else ""
    start = client.get(link.path(f"/sign-in/oidc/{name}{query}"))
    assert start.status_code == 302, start.data[:300]
    authorize = httpx.get(start.headers["Location"], follow_redirects=False, timeout=10)
    assert authorize.status_code == 302
    callback = urlsplit(authorize.headers["Location"])
    assert callback.netloc == "viewer.test"
    # No share id ever reaches the provider: the callback URL is fixed per provider.
    assert link.id not in start.headers["Location"]
    return client.get(f"{callback.path}?{callback.query}")


def test_the_sign_in_page_offers_the_providers(oidc_app, link):
    html = oidc_app.test_client().get(link.path("/sign-in")).get_data(as_text=True)
    assert "Sign in with Corp ID" in html and "Sign in with Shady ID" in html


def test_a_verified_listed_address_reads_the_link(oidc_app, link, providers):
    client = oidc_app.test_client()
    target = link.path(f"/pipelines/{link.pipeline_id}")
    done = through_provider(client, link, "corp", target)
    assert done.status_code == 302
    assert done.headers["Location"] == target
    assert providers["corp"].token_requests == 1
    assert client.get(target).status_code == 200


def test_an_unverified_address_is_refused(oidc_app, link, providers):
    client = oidc_app.test_client()
    done = through_provider(client, link, "shady")
    assert done.status_code == 403
    assert "did not confirm" in done.get_data(as_text=True)
    assert client.get(link.path()).status_code == 302  # still asked to sign in


def test_a_verified_unlisted_address_gets_the_no_access_page(oidc_app, link, providers):
    client = oidc_app.test_client()
    assert through_provider(client, link, "other").status_code == 302
    page = client.get(link.path())
    assert page.status_code == 403
    assert UNLISTED in page.get_data(as_text=True)
    assert link.pipeline_id not in page.get_data(as_text=True)


def test_a_forged_or_replayed_callback_signs_nobody_in(oidc_app, link, providers):
    client = oidc_app.test_client()
    start = client.get(link.path("/sign-in/oidc/corp"))
    authorize = httpx.get(start.headers["Location"], follow_redirects=False, timeout=10)
    callback = urlsplit(authorize.headers["Location"])
    forged_state = callback.query.replace("state=", "state=x")
    refused = client.get(f"{callback.path}?{forged_state}")
    assert refused.status_code == 400
    assert client.get(link.path()).status_code == 302
    # A callback in a browser that never started the flow is refused too.
    stranger = oidc_app.test_client()
    assert stranger.get(f"{callback.path}?{callback.query}").status_code == 400
    assert stranger.get(link.path()).status_code == 302
    # An unknown provider name is a 404.
    page = client.get(link.path("/sign-in"))
    assert csrf_token(page.get_data(as_text=True))
    assert client.get(link.path("/sign-in/oidc/nobody")).status_code == 404


def test_the_callback_never_names_an_untrusted_host(oidc_app, link):
    # The provider would send the visitor, with a valid code, to the callback's host.
    oidc_app.config["PUBLIC_URL"] = None
    start = oidc_app.test_client().get(link.path("/sign-in/oidc/corp"),
                                       base_url="http://evil.example")
    assert start.status_code == 503
    assert "evil.example" not in start.headers.get("Location", "")
