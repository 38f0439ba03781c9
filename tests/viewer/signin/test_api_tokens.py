"""The JWT contract between viewer and API, end to end.

The viewer mints with ``identity.bearer_for``; the API (``app.service.share_read``)
verifies. Each defect gets the status the design fixes: 401 for a missing or invalid
token, 403 for a valid one whose address is not listed. The service's own tests cover
more token defects; these pin the contract end to end: the statuses through the composed
app's HTTP interface in process, the JWKS route over real HTTP (gunicorn), since an API
elsewhere fetches it from a URL.
"""

from __future__ import annotations

import base64
import json
import time

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from app import create_app, create_service_app
from app.platform import share_tokens
from app.platform.db import get_engine
from app.viewer.access import identity
from tests.support.sdk_clients import http_client
from tests.support.servers import start_gunicorn, stop_gunicorn
from tests.support.signin import LISTED, UNLISTED, make_email_link

# Its fixtures start gunicorn.
pytestmark = pytest.mark.slow


@pytest.fixture
def linked(db_url, tmp_path, org):
    """The composed app (no SDK double: the tokens are the subject) and an email link."""
    instance = tmp_path / "instance"
    instance.mkdir(exist_ok=True)
    app = create_app({"TESTING": True, "DATABASE_URL": db_url, "SECRET_KEY": "live-secret",
                      "ARTIFACT_DIR": str(tmp_path / "a"), "PUBLIC_URL": "http://viewer.test"},
                     instance_path=str(instance))
    link = make_email_link(app, org)
    yield app, link
    get_engine(app).dispose()


@pytest.fixture
def served(linked, db_url, tmp_path):
    """A gunicorn server sharing the app's instance folder (hence its key), the app and
    the link."""
    app, link = linked
    server = start_gunicorn({
        "FLASK_DATABASE_URL": db_url, "FLASK_SECRET_KEY": "live-secret",
        "FLASK_INSTANCE_PATH": app.instance_path, "FLASK_ARTIFACT_DIR": str(tmp_path / "a"),
    }, tmp_path, workers=1)
    yield server, app, link
    stop_gunicorn(server)


def _viewer_token(app, link_id: str, email: str) -> str:
    with app.test_request_context("/"):
        from flask import session

        session[identity.SESSION_EMAIL_KEY] = email
        session["verified_at"] = int(time.time())
        return identity.bearer_for(link_id)


def _claims(app, link_id: str, email: str, **overrides) -> dict:
    now = int(time.time())
    return {"email": email, "share_link_id": link_id, "aud": app.config["JWT_AUDIENCE"],
            "iss": app.config["JWT_ISSUER"], "iat": now, "nbf": now, "exp": now + 300,
            **overrides}


def _b64(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def test_viewer_tokens_carry_the_agreed_claims(linked):
    app, link = linked
    token = _viewer_token(app, link.id, LISTED)
    header = jwt.get_unverified_header(token)
    claims = jwt.decode(token, options={"verify_signature": False})
    assert header["alg"] == "EdDSA"
    assert claims["email"] == LISTED and claims["share_link_id"] == link.id
    assert claims["aud"] == "compute-api" and claims["iss"] == "share-viewer"
    assert 0 < claims["exp"] - claims["iat"] <= 600
    with app.test_request_context("/"):
        assert identity.bearer_for(link.id) is None  # anonymous: no token at all


def test_each_token_gets_the_right_status(linked):
    app, link = linked
    with app.app_context():
        key = share_tokens.private_key(app)
    good = _claims(app, link.id, LISTED)
    cases = {
        "viewer token, listed address": (_viewer_token(app, link.id, LISTED), 200),
        "listed, other case": (_viewer_token(app, link.id, "ADA@example.ORG"), 200),
        "no token": (None, 401),
        "signed by another key": (
            jwt.encode(good, ed25519.Ed25519PrivateKey.generate(), algorithm="EdDSA"), 401),
        "alg none": (f"{_b64({'alg': 'none', 'typ': 'JWT'})}.{_b64(good)}.", 401),
        "expired": (jwt.encode(_claims(app, link.id, LISTED, exp=int(time.time()) - 60,
                                       iat=int(time.time()) - 400,
                                       nbf=int(time.time()) - 400), key, algorithm="EdDSA"),
                    401),
        "another link's token": (_viewer_token(app, link.public_id, LISTED), 401),
        "address not listed": (_viewer_token(app, link.id, UNLISTED), 403),
    }
    paths = (f"/compute/v1/share/{link.id}",
             f"/compute/v1/share/{link.id}/pipelines/{link.pipeline_id}/results")
    with http_client(app) as http:
        for label, (token, status) in cases.items():
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            for path in paths:
                response = http.get(path, headers=headers)
                assert response.status_code == status, (label, path, response.text)
                if status != 200:
                    assert link.pipeline_id not in response.text, label


def test_an_api_elsewhere_verifies_through_the_viewers_jwks(served, db_url, tmp_path):
    server, app, link = served
    keys = httpx.get(f"{server.url}/.well-known/jwks.json", timeout=10).json()["keys"]
    assert keys[0]["kty"] == "OKP" and "d" not in keys[0]
    # A separate service with no private key at all: only the viewer's JWKS URL.
    service = create_service_app({"TESTING": True, "DATABASE_URL": db_url, "SECRET_KEY": "other",
                                  "JWT_JWKS_URL": f"{server.url}/.well-known/jwks.json"},
                                 instance_path=str(tmp_path / "service-instance"))
    client = service.test_client()
    path = f"/compute/v1/share/{link.id}"
    token = _viewer_token(app, link.id, LISTED)
    assert client.get(path, headers={"Authorization": f"Bearer {token}"}).status_code == 200
    forged = jwt.encode(_claims(app, link.id, LISTED), ed25519.Ed25519PrivateKey.generate(),
                        algorithm="EdDSA", headers={"kid": keys[0].get("kid", "x")})
    assert client.get(path, headers={"Authorization": f"Bearer {forged}"}).status_code == 401
    get_engine(service).dispose()
