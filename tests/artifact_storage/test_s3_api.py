"""The API and the in-process viewer with artifacts in S3 (moto's server): the API's
``url`` is the bucket's presigned URL, the service's own download URL redirects there,
the viewer refreshes an expired URL once, test mode's data lands in the bucket, and
``/readyz`` follows the bucket."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import httpx
import sqlalchemy as sa

from app.platform.db import get_engine
from app.service.artifacts import presign
from app.store import schema
from tests.service.test_test_mode import first_use, make_key, rows
from tests.support import factories
from tests.support.expiring_proxy import ExpiringProxy

CONTENT = b"PK\x05\x06" + bytes(range(256)) * 64


def seed_result(app, org, store) -> tuple[str, str, str]:
    """Insert a protein_design pipeline of one result with an archive in ``store``;
    return the pipeline, result and artifact ids."""
    with get_engine(app).begin() as conn:
        pipeline_id, (result_id,) = factories.insert_pipeline(
            conn, org.workspace_id, "protein_design", 1)
        artifact_id = factories.insert_artifact(
            conn, store, content=CONTENT, role="archive", filename=f"{result_id}.zip",
            content_type="application/zip", result_id=result_id)
    return pipeline_id, result_id, artifact_id


def results_via_api(client, link_id: str, pipeline_id: str) -> dict:
    answer = client.get(f"/compute/v1/share/{link_id}/pipelines/{pipeline_id}/results")
    assert answer.status_code == 200
    return answer.get_json()["data"][0]


def test_the_api_hands_out_presigned_s3_urls_that_download_the_bytes(
        s3_app, s3_store, org, moto_s3):
    client = s3_app.test_client()
    pipeline_id, result_id, _artifact = seed_result(s3_app, org, s3_store)
    link = factories.make_link(s3_app, org, pipeline_ids=[pipeline_id])
    before = datetime.now(UTC).replace(microsecond=0)
    archive = results_via_api(client, link.id, pipeline_id)["artifacts"]["archive"]
    url = urlsplit(archive["url"])
    query = dict(parse_qsl(url.query))
    assert f"{url.scheme}://{url.netloc}" == moto_s3.endpoint_url
    assert url.path.startswith(f"/{s3_store.location.bucket}/{s3_store.location.prefix}/")
    assert query["X-Amz-Expires"] == str(s3_app.config["ARTIFACT_URL_TTL"])
    expires_at = datetime.fromisoformat(archive["url_expires_at"].replace("Z", "+00:00"))
    ttl = timedelta(seconds=s3_app.config["ARTIFACT_URL_TTL"])
    assert before + ttl <= expires_at <= datetime.now(UTC) + ttl
    signed = datetime.strptime(query["X-Amz-Date"], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    assert signed + ttl == expires_at  # the announced expiry is the URL's own

    download = httpx.get(archive["url"])
    assert download.status_code == 200 and download.content == CONTENT
    assert download.headers["content-type"] == "application/zip"
    assert f'filename="{result_id}.zip"' in download.headers["content-disposition"]
    # Nothing was written to the local artifact directory.
    assert not any(Path(s3_app.config["ARTIFACT_DIR"]).rglob("*"))


def test_the_services_own_download_url_redirects_to_s3(s3_app, s3_store, org):
    client = s3_app.test_client()
    _pipeline, _result, artifact_id = seed_result(s3_app, org, s3_store)
    with s3_app.extensions["service_app"].test_request_context():
        signed = presign(artifact_id)
    path = urlsplit(signed["url"])
    answer = client.get(f"{path.path}?{path.query}")
    assert answer.status_code == 302
    assert answer.headers["Cache-Control"] == "private, no-store"
    assert httpx.get(answer.headers["Location"]).content == CONTENT
    forged = client.get(f"{path.path}?{path.query[:-4]}beef")
    assert forged.status_code == 403


def test_the_viewer_refreshes_an_expired_presigned_url_once(s3_app, s3_store, org, moto_s3):
    proxy = ExpiringProxy(moto_s3.endpoint_url)
    try:
        # Presigned URLs name the proxy, which refuses expired ones as S3 does. The stale
        # answer's URL lives one second and is held two; the fresh one lives the default
        # 900 s, so a loaded machine cannot expire it too (this test's old flake).
        s3_app.config.update(S3_ENDPOINT_URL=proxy.url, ARTIFACT_URL_TTL=1)
        pipeline_id, result_id, _artifact = seed_result(s3_app, org, s3_store)
        link = factories.make_link(s3_app, org, pipeline_ids=[pipeline_id])
        api = s3_app.extensions["compute_api"]
        real_result = api.result
        stale = [real_result(link.id, pipeline_id, result_id, None)]
        s3_app.config.update(ARTIFACT_URL_TTL=900)
        time.sleep(2.1)
        asked: list[str] = []

        def result(*args):
            asked.append("result")
            return stale.pop() if stale else real_result(*args)

        api.result = result
        answer = s3_app.test_client().get(
            f"/share/{link.id}/pipelines/{pipeline_id}/results/{result_id}/artifacts/archive",
            headers={"Range": "bytes=4-99"})
        assert answer.status_code == 206
        assert answer.get_data() == CONTENT[4:100]
        assert proxy.statuses == [403, 206]  # the expired URL, then the fresh one
        assert asked == ["result", "result"]
    finally:
        proxy.stop()


def test_test_mode_data_is_stored_in_the_bucket(s3_app, s3_store, org, moto_s3):
    first_use(s3_app.test_client(), make_key(s3_app, org, livemode=False))
    artifacts = rows(s3_app, schema.artifacts)
    assert artifacts
    keys = set(moto_s3.keys(s3_store.location.prefix))
    assert {f"{s3_store.location.prefix}/{a.storage_path}" for a in artifacts} == keys
    with get_engine(s3_app).connect() as conn:
        sizes = dict(conn.execute(sa.select(schema.artifacts.c.storage_path,
                                            schema.artifacts.c.size)).all())
    path, size = next(iter(sizes.items()))
    assert len(s3_store.read(path)) == size


def test_readyz_fails_while_the_bucket_does_not_answer(s3_app):
    service = s3_app.extensions["service_app"].test_client()
    assert service.get("/readyz").get_json()["checks"]["artifact_store"] == "ok"
    s3_app.config["ARTIFACT_STORE"] = "s3://no-such-bucket-here/x"
    answer = service.get("/readyz")
    assert answer.status_code == 503
    assert answer.get_json()["checks"]["artifact_store"] == "unavailable"
