"""End to end with artifacts in S3: ``seed-demo`` writes into moto's server, gunicorn
serves the viewer, whose pages and downloads read the bucket through the presigned URLs
the API returns (byte-exact, Range as 206), and no signature reaches the server's log."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest
import sqlalchemy as sa

from app import artifact_storage
from app.store import schema
from tests.support.databases import ROOT, migrated_database
from tests.support.servers import start_gunicorn, stop_gunicorn

# Its fixtures start gunicorn.
pytestmark = pytest.mark.slow

MIB = 1024 * 1024
BIG = 24 * MIB  # above the multipart threshold, many relay chunks


@pytest.fixture(scope="module")
def deployment(moto_s3, tmp_path_factory):
    """Seed the demo into S3 (``seed-demo --results 20``), give one archive a 24 MiB
    file, and serve it all with gunicorn; yields (server, summary, big result id, store)."""
    tmp = tmp_path_factory.mktemp("s3-gunicorn")
    db_url, drop = migrated_database(tmp)
    env = {**moto_s3.env(), "FLASK_DATABASE_URL": db_url, "FLASK_SECRET_KEY": "s3-secret",
           "FLASK_INSTANCE_PATH": str(tmp / "instance"),
           "FLASK_ARTIFACT_DIR": str(tmp / "unused-artifacts")}
    seeded = subprocess.run(
        [sys.executable, "-m", "flask", "--app", "app", "seed-demo", "--results", "20",
         "--json"], cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True,
        check=True, timeout=300)
    summary = json.loads(seeded.stdout)
    config = {"ARTIFACT_STORE": env["FLASK_ARTIFACT_STORE"],
              "S3_ENDPOINT_URL": env["FLASK_S3_ENDPOINT_URL"]}
    os.environ.update(moto_s3.credentials)  # the fake credentials, for the store here
    store = artifact_storage.open_store(config)
    block = hashlib.sha256(b"big").digest() * (MIB // 32)
    path, size, sha = store.save(block for _ in range(BIG // MIB))
    engine = sa.create_engine(db_url)
    a, r = schema.artifacts, schema.results
    with engine.begin() as conn:
        row = conn.execute(
            sa.select(a.c.id, a.c.result_id).join(r, r.c.id == a.c.result_id)
            .where(r.c.pipeline_id == summary["pipelines"]["protein_design"],
                   a.c.role == "archive").order_by(a.c.result_id).limit(1)).one()
        conn.execute(a.update().where(a.c.id == row.id).values(
            storage_path=path, size=size, sha256=sha))
    engine.dispose()
    server = start_gunicorn(env, tmp, workers=2)
    yield server, summary, row.result_id, store, sha
    stop_gunicorn(server)
    drop()


def api_record(server, summary, result_id: str) -> dict:
    link = summary["share_links"]["public"]["id"]
    pipeline = summary["pipelines"]["protein_design"]
    answer = httpx.get(f"{server.url}/compute/v1/share/{link}/pipelines/{pipeline}/results",
                       params={"ids": result_id})
    assert answer.status_code == 200
    return answer.json()["data"][0]


def viewer_path(summary, result_id: str, role: str = "") -> str:
    link = summary["share_links"]["public"]["id"]
    pipeline = summary["pipelines"]["protein_design"]
    suffix = f"/artifacts/{role}" if role else ""
    return f"/share/{link}/pipelines/{pipeline}/results/{result_id}{suffix}"


def test_seeded_result_page_and_downloads_come_from_the_bucket(deployment, moto_s3):
    server, summary, big_result, _store, _sha = deployment
    page = httpx.get(f"{server.url}/compute/v1/share/{summary['share_links']['public']['id']}"
                     f"/pipelines/{summary['pipelines']['protein_design']}/results",
                     params={"limit": 3}).json()
    result_id = next(r["id"] for r in page["data"] if r["id"] != big_result)
    html = httpx.get(server.url + viewer_path(summary, result_id))
    assert html.status_code == 200 and result_id in html.text
    record = api_record(server, summary, result_id)
    for role in ("archive", "structure"):
        url = record["artifacts"][role]["url"]
        assert url.startswith(moto_s3.endpoint_url)
        direct = httpx.get(url)
        through_viewer = httpx.get(server.url + viewer_path(summary, result_id, role))
        assert through_viewer.status_code == 200
        assert through_viewer.content == direct.content and direct.content
        assert f'filename="{result_id}' in through_viewer.headers["content-disposition"]
    assert through_viewer.headers["content-type"].startswith("chemical/x-mmcif")


def test_a_large_download_streams_byte_exact_and_resumes_with_a_range(deployment):
    server, summary, big_result, _store, sha = deployment
    url = server.url + viewer_path(summary, big_result, "archive")
    digest, total = hashlib.sha256(), 0
    with httpx.stream("GET", url, timeout=60) as response:
        assert response.status_code == 200
        assert response.headers["content-length"] == str(BIG)
        for chunk in response.iter_raw():
            digest.update(chunk)
            total += len(chunk)
    assert total == BIG and digest.hexdigest() == sha
    start, end = 5 * MIB + 3, 7 * MIB
    part = httpx.get(url, headers={"Range": f"bytes={start}-{end}"}, timeout=60)
    assert part.status_code == 206
    assert part.headers["content-range"] == f"bytes {start}-{end}/{BIG}"
    block = hashlib.sha256(b"big").digest() * (MIB // 32)
    whole = block * (BIG // MIB)
    assert part.content == whole[start:end + 1]


def test_no_presigned_signature_or_credential_reaches_the_log(deployment, moto_s3):
    server, summary, big_result, _store, _sha = deployment
    record = api_record(server, summary, big_result)
    query = dict(parse_qsl(urlsplit(record["artifacts"]["archive"]["url"]).query))
    # A download whose object is gone: the viewer asks the API again, then answers 404.
    gone = api_record(server, summary, big_result)["artifacts"]["structure"]["url"]
    moto_s3.client().delete_object(Bucket=moto_s3.bucket,
                                   Key=urlsplit(gone).path.split("/", 2)[2])
    missing = httpx.get(server.url + viewer_path(summary, big_result, "structure"))
    assert missing.status_code == 404
    log = server.log_text()
    assert viewer_path(summary, big_result, "structure").split("/share/")[1] not in log
    assert query["X-Amz-Signature"] not in log
    assert moto_s3.credentials["AWS_ACCESS_KEY_ID"] not in log
