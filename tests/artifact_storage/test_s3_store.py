"""The S3 artifact store against moto's server: content addressing, deduplication by HEAD,
streamed multipart uploads, deletes, the setting's validation, and presigned URLs signed
exactly as boto3 signs them."""

from __future__ import annotations

import hashlib
from contextlib import contextmanager
from datetime import UTC, datetime
from unittest import mock
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest

from app import artifact_storage, create_app
from app.artifact_storage.s3_store import S3Location, S3Store, content_disposition
from app.platform.logging_setup import redact

MIB = 1024 * 1024


@contextmanager
def counting(store):
    """Count the S3 operations the store's client makes, by name, within the block."""
    calls: list[str] = []

    def record(model, **_kwargs):
        calls.append(model.name)

    events = store.client.meta.events
    events.register("before-call.s3", record)
    try:
        yield calls
    finally:
        events.unregister("before-call.s3", record)


def test_save_is_content_addressed_deduplicated_and_deletable(s3_store, moto_s3):
    prefix = s3_store.location.prefix
    with counting(s3_store) as calls:
        path, size, sha = s3_store.save(b"first file")
    assert sha == hashlib.sha256(b"first file").hexdigest() and size == 10
    assert path == f"{sha[:2]}/{sha[2:4]}/{sha}"
    assert moto_s3.keys(prefix) == [f"{prefix}/{path}"]
    assert calls == ["HeadObject", "PutObject"]
    assert s3_store.read(path) == b"first file" and s3_store.exists(path)

    # The same bytes again (here as chunks): found by HEAD, not uploaded a second time.
    with counting(s3_store) as calls:
        assert s3_store.save(iter([b"first ", b"file"])) == (path, size, sha)
    assert calls == ["HeadObject"]

    s3_store.delete(path)
    assert not s3_store.exists(path) and moto_s3.keys(prefix) == []
    s3_store.delete(path)  # deleting a missing file is fine
    assert not s3_store.exists("../../etc/passwd")  # not a storage path: never asked


def test_a_large_file_is_streamed_in_multipart_upload(s3_store):
    block = hashlib.sha256(b"large").digest() * (MIB // 32)
    expected = hashlib.sha256(block * 20).hexdigest()
    with counting(s3_store) as calls:
        path, size, sha = s3_store.save(block for _ in range(20))
    assert (size, sha) == (20 * MIB, expected)
    assert "CreateMultipartUpload" in calls and calls.count("UploadPart") == 2
    assert hashlib.sha256(s3_store.read(path)).hexdigest() == expected


@pytest.mark.parametrize(("value", "message"), [
    ("s3:/bucket", "must be 'file' or 's3://bucket/prefix'"),
    ("disk", "must be 'file' or 's3://bucket/prefix'"),
    ("s3://Bad_Bucket/x", "not a valid S3 bucket name"),
    ("s3://ok-bucket/a//b", "no empty segment"),
])
def test_a_malformed_store_setting_stops_the_app_at_start(tmp_path, value, message):
    with pytest.raises(ValueError, match="FLASK_ARTIFACT_STORE") as error:
        create_app({"TESTING": True, "ARTIFACT_STORE": value, "SECRET_KEY": "x",
                    "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"},
                   instance_path=str(tmp_path))
    assert message in str(error.value)


@pytest.mark.parametrize("endpoint", ["http://127.0.0.1:9000", None,
                                      # Signed as sent: lower case, no default port.
                                      "https://S3.Example.com:443", "http://[::1]:80"])
@pytest.mark.slow
def test_presigned_urls_are_the_ones_boto3_would_sign(monkeypatch, endpoint):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAEXAMPLEKEY000001")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "example-secret")
    monkeypatch.setenv("AWS_REGION", "eu-west-3")
    store = S3Store(S3Location.parse("s3://my.bucket-1/some/prefix"), endpoint_url=endpoint)
    path = "ab/cd/" + "ab" * 32
    now = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    ours = store.presigner(900, now).url(path, "modèle 1.cif", "chemical/x-mmcif")
    with mock.patch("botocore.auth.get_current_datetime", return_value=now.replace(tzinfo=None)):
        reference = store.client.generate_presigned_url("get_object", Params={
            "Bucket": "my.bucket-1", "Key": f"some/prefix/{path}",
            "ResponseContentDisposition": content_disposition("modèle 1.cif"),
            "ResponseContentType": "chemical/x-mmcif"}, ExpiresIn=900)
    ours_parts, reference_parts = urlsplit(ours), urlsplit(reference)
    assert ours_parts[:3] == reference_parts[:3]
    assert sorted(parse_qsl(ours_parts.query)) == sorted(parse_qsl(reference_parts.query))
    assert "eu-west-3" in dict(parse_qsl(ours_parts.query))["X-Amz-Credential"]


def test_a_presigned_url_names_the_file_and_never_reaches_a_log(s3_store):
    path, _size, _sha = s3_store.save(b"data_x\n")
    url = s3_store.presign(path, "result 1.cif", "chemical/x-mmcif", 60)
    response = httpx.get(url)
    assert response.status_code == 200 and response.content == b"data_x\n"
    assert response.headers["content-type"] == "chemical/x-mmcif"
    assert 'filename="result 1.cif"' in response.headers["content-disposition"]
    query = dict(parse_qsl(urlsplit(url).query))
    line = redact(f"GET {url} failed; again: {httpx.URL(url)}")
    for secret in (query["X-Amz-Signature"], query["X-Amz-Credential"],
                   query["X-Amz-Credential"].split("/")[0]):
        assert secret not in line


def test_batched_saves_are_all_stored_when_the_block_ends(s3_store):
    contents = [f"file {n}".encode() for n in range(20)]
    with artifact_storage.batched(s3_store) as saver:
        paths = [saver.save(data)[0] for data in contents]
    assert [s3_store.read(path) for path in paths] == contents
