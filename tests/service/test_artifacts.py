"""Presigned artifact URLs: signature, expiry, headers, ranges."""

from __future__ import annotations

import hmac
import os
import time
from datetime import datetime
from urllib.parse import parse_qs, quote, urlsplit

import pytest

from app.platform.db import get_engine
from app.service.artifacts import UrlSigner, presign, signature_for
from tests.support import factories
from tests.support.factories import assert_envelope

FILENAME = 'résumé "final".zip'
CONTENT = bytes(range(256)) * 40  # 10,240 bytes


@pytest.fixture
def artifact(app, org):
    """An artifact with a non-ASCII file name, owned by a prediction."""
    with get_engine(app).begin() as conn:
        prediction = factories.insert_prediction(conn, org.workspace_id)
        return factories.insert_artifact(
            conn, app.config["ARTIFACT_DIR"], content=CONTENT, role="archive",
            filename=FILENAME, content_type="application/zip",
            prediction_id=prediction,
        )


def signed_path(app, artifact_id: str, now: float | None = None) -> tuple[str, dict]:
    """Return the path+query of a fresh presigned URL and the presign result."""
    # Presigning builds the download URL from the service app's routes.
    with app.extensions["service_app"].test_request_context():
        signed = presign(artifact_id, now=now)
    parts = urlsplit(signed["url"])
    return f"{parts.path}?{parts.query}", signed


def test_presigned_url_serves_the_file_with_its_headers(app, client, artifact):
    path, signed = signed_path(app, artifact)
    assert signed["url"].startswith("http://localhost/compute/v1/artifacts/")
    response = client.get(path)
    assert response.status_code == 200
    assert response.data == CONTENT
    assert response.headers["Content-Type"] == "application/zip"
    assert response.headers["Content-Length"] == str(len(CONTENT))
    disposition = response.headers["Content-Disposition"]
    assert disposition.startswith("attachment;")
    assert "filename*=UTF-8''" + quote(FILENAME) in disposition
    assert response.headers["Cache-Control"] == "private, no-store"
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert response.headers["Accept-Ranges"] == "bytes"


def test_url_expiry_follows_the_configured_ttl(app, artifact):
    app.config["ARTIFACT_URL_TTL"] = 120
    before = time.time()
    _path, signed = signed_path(app, artifact)
    expires = int(parse_qs(urlsplit(signed["url"]).query)["expires"][0])
    assert int(before) + 120 <= expires <= int(time.time()) + 120
    stated = datetime.fromisoformat(signed["url_expires_at"]).timestamp()
    assert stated == expires


def test_range_requests(app, client, artifact):
    path, _ = signed_path(app, artifact)
    response = client.get(path, headers={"Range": "bytes=100-199"})
    assert response.status_code == 206
    assert response.data == CONTENT[100:200]
    assert response.headers["Content-Range"] == f"bytes 100-199/{len(CONTENT)}"
    assert response.headers["Content-Length"] == "100"
    tail = client.get(path, headers={"Range": "bytes=-10"})
    assert tail.data == CONTENT[-10:]
    unsatisfiable = client.get(path, headers={"Range": f"bytes={len(CONTENT) + 5}-"})
    assert unsatisfiable.status_code == 416


def test_head_request(app, client, artifact):
    path, _ = signed_path(app, artifact)
    response = client.head(path)
    assert response.status_code == 200
    assert response.headers["Content-Length"] == str(len(CONTENT))
    assert response.data == b""


def test_expired_url_is_403(app, client, artifact):
    path, _ = signed_path(app, artifact, now=time.time() - 10_000)
    assert_envelope(client.get(path), 403)


def test_tampered_urls_are_403(app, client, artifact):
    path, _ = signed_path(app, artifact)
    query = parse_qs(urlsplit(path).query)
    expires, signature = int(query["expires"][0]), query["signature"][0]
    base = f"/compute/v1/artifacts/{artifact}"
    flipped = ("0" if signature[0] != "0" else "1") + signature[1:]
    cases = [
        f"{base}?expires={expires}&signature={flipped}",
        # A later expiry with the old signature.
        f"{base}?expires={expires + 3600}&signature={signature}",
        # Another artifact's id with this signature.
        f"/compute/v1/artifacts/art_other?expires={expires}&signature={signature}",
    ]
    for case in cases:
        assert_envelope(client.get(case), 403)


def test_signature_depends_on_the_secret_key(app, artifact):
    with app.app_context():
        first = signature_for(artifact, 2_000_000_000)
        app.config["SECRET_KEY"] = "rotated"
        assert signature_for(artifact, 2_000_000_000) != first


def test_url_signer_is_hmac_sha256():
    for size in (0, 1, 32, 63, 64):
        key = os.urandom(size)
        for artifact_id, expires in (("art_x", 0), ("art_01ZZ", 2_000_000_000), ("é", 7)):
            expected = hmac.new(key, f"{artifact_id}\n{expires}".encode(), "sha256").hexdigest()
            assert UrlSigner(key).signature(artifact_id, expires) == expected
    with pytest.raises(ValueError):
        UrlSigner(b"k" * 65)


@pytest.mark.parametrize(
    "query",
    ["", "?expires=1", "?signature=" + "a" * 64, "?expires=soon&signature=" + "a" * 64,
     "?expires=9999999999&signature=xyz"],
)
def test_missing_or_malformed_parameters_are_400(client, artifact, query):
    assert_envelope(client.get(f"/compute/v1/artifacts/{artifact}{query}"), 400)


def test_unknown_artifact_with_a_valid_signature_is_404(app, client):
    path, _ = signed_path(app, "art_01ZZZZZZZZZZZZZZZZZZZZZZZZ")
    assert_envelope(client.get(path), 404)


def test_result_artifact_urls_from_a_page_download(app, client, org):
    with get_engine(app).begin() as conn:
        pipeline, ids = factories.insert_pipeline(conn, org.workspace_id, n_results=2)
        factories.add_result_artifacts(conn, app.config["ARTIFACT_DIR"], ids)
    link = factories.make_link(app, org, pipeline_ids=[pipeline])
    page = client.get(f"/compute/v1/share/{link.id}/pipelines/{pipeline}/results").get_json()
    for record in page["data"]:
        url = urlsplit(record["artifacts"]["structure"]["url"])
        response = client.get(f"{url.path}?{url.query}")
        assert response.status_code == 200
        assert response.data == f"data_{record['id']}\n".encode()
        assert response.headers["Content-Type"] == "chemical/x-mmcif"
