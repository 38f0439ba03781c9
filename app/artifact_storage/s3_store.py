"""Artifact files in an S3-compatible bucket (``ARTIFACT_STORE=s3://bucket/prefix``).

Keys are content-addressed exactly as on disk: ``<prefix>/ab/cd/<sha256>``, and the
database keeps the same ``storage_path`` (``ab/cd/<sha256>``) in both modes. A save hashes
the bytes into a spooled temporary file (constant memory), asks the bucket whether the key
exists (HEAD) and uploads only when it does not, multipart above ``PART_SIZE``. Objects are
stored as opaque bytes: one object may back artifacts with different names and types, so
the name and type are set per download, in the presigned URL
(``ResponseContentDisposition``, ``ResponseContentType``).

One boto3 client per process and configuration (clients are thread-safe, sessions are
not; a forked worker builds its own, since connection pools do not survive a fork), with
explicit timeouts and retries.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import quote, urlsplit

import boto3
from boto3.s3.transfer import TransferConfig
from botocore.config import Config
from botocore.exceptions import ClientError

from app.artifact_storage.file_store import content_path
from app.artifact_storage.s3_presign import UrlBatch

# Multipart above this size, in parts this big, a few in parallel.
PART_SIZE = 16 * 1024 * 1024
_TRANSFER = TransferConfig(multipart_threshold=PART_SIZE, multipart_chunksize=PART_SIZE,
                           max_concurrency=4, use_threads=True)
# Up to this much of a file being saved stays in memory; the rest spills to a temp file.
_SPOOL_BYTES = 8 * 1024 * 1024
# Connect fast or fail; reads of a part may take a while on a slow link. Retries use
# botocore's "standard" mode (exponential backoff with jitter, throttling included).
_CLIENT_CONFIG = {"connect_timeout": 5, "read_timeout": 60,
                  "retries": {"max_attempts": 5, "mode": "standard"},
                  "max_pool_connections": 32}
# Bucket naming rules of S3 (3-63 characters: lowercase letters, digits, dots, hyphens).
_BUCKET = re.compile(r"[a-z0-9][a-z0-9.\-]{1,61}[a-z0-9]")
_PREFIX = re.compile(r"[A-Za-z0-9!\-_.*'()/]*")
_STORAGE_PATH = re.compile(r"[0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{64}")
_NOT_FOUND = {"404", "NoSuchKey", "NotFound"}

# (endpoint, region, pid) -> (session, client); (endpoint, region, bucket, pid) -> URL.
_clients: dict[tuple, tuple] = {}
_base_urls: dict[tuple, str] = {}
_clients_lock = threading.Lock()


@dataclass(frozen=True)
class S3Location:
    """Where the store keeps its objects: a bucket and a key prefix (no slashes around)."""

    bucket: str
    prefix: str

    @classmethod
    def parse(cls, value: str) -> S3Location:
        """Parse ``s3://bucket[/prefix]``; raise ValueError naming what is wrong."""
        if not value.startswith("s3://"):
            raise ValueError("must be 'file' or 's3://bucket/prefix'")
        bucket, _, prefix = value[len("s3://"):].partition("/")
        if not _BUCKET.fullmatch(bucket) or ".." in bucket:
            raise ValueError(f"bucket name {bucket!r} is not a valid S3 bucket name "
                             "(3-63 lowercase letters, digits, dots or hyphens)")
        prefix = prefix.strip("/")
        if not _PREFIX.fullmatch(prefix) or "//" in prefix:
            raise ValueError(f"prefix {prefix!r} holds characters S3 keys should not "
                             "(letters, digits and !-_.*'()/ only, no empty segment)")
        return cls(bucket, prefix)

    def key(self, storage_path: str) -> str:
        """Return the object key of a ``storage_path``; ValueError for any other shape."""
        if not _STORAGE_PATH.fullmatch(storage_path):
            raise ValueError("not a content-addressed storage path")
        return f"{self.prefix}/{storage_path}" if self.prefix else storage_path


def region_from_environment() -> str:
    """Return the region named by ``AWS_REGION`` or ``AWS_DEFAULT_REGION`` (us-east-1)."""
    return os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"


def session_and_client(endpoint_url: str | None, region: str) -> tuple:
    """Return this process's boto3 session and S3 client for an endpoint and region
    (built once).

    Credentials come from boto3's usual chain (``AWS_ACCESS_KEY_ID`` and
    ``AWS_SECRET_ACCESS_KEY``, a profile, an instance role...). A custom endpoint (MinIO,
    moto, other S3-compatible services) is addressed path-style, which all of them accept.
    """
    cache_key = (endpoint_url, region, os.getpid())
    pair = _clients.get(cache_key)
    if pair is None:
        with _clients_lock:
            pair = _clients.get(cache_key)
            if pair is None:
                style = {"addressing_style": "path"} if endpoint_url else {}
                config = Config(region_name=region, signature_version="s3v4", s3=style,
                                **_CLIENT_CONFIG)
                session = boto3.session.Session()
                client = session.client("s3", endpoint_url=endpoint_url, config=config)
                pair = _clients[cache_key] = (session, client)
    return pair


def content_disposition(filename: str) -> str:
    """Return an ``attachment`` Content-Disposition naming ``filename`` (RFC 6266).

    An ASCII fallback without quotes or backslashes, and the exact name in ``filename*``.
    """
    fallback = re.sub(r"[^A-Za-z0-9._\- ]+", "_", filename).strip() or "download"
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(filename, safe='')}"


class S3Store:
    """The artifact store in an S3-compatible bucket (see the module's docstring)."""

    kind = "s3"

    def __init__(self, location: S3Location, endpoint_url: str | None = None,
                 region: str | None = None):
        self.location = location
        self.endpoint_url = endpoint_url or None
        self.region = region or region_from_environment()

    @property
    def client(self):
        """The process's boto3 client for this store's endpoint."""
        return session_and_client(self.endpoint_url, self.region)[1]

    def save(self, chunks: bytes | Iterable[bytes]) -> tuple[str, int, str]:
        """Store a file; return ``(storage_path, size, sha256)``; skip the upload when the
        bucket already holds the same content."""
        if isinstance(chunks, bytes | bytearray | memoryview):
            data = bytes(chunks)
            sha = hashlib.sha256(data).hexdigest()
            storage_path = content_path(sha)
            if not self.exists(storage_path):
                self.client.put_object(Bucket=self.location.bucket,
                                       Key=self.location.key(storage_path), Body=data)
            return storage_path, len(data), sha
        with tempfile.SpooledTemporaryFile(max_size=_SPOOL_BYTES) as spool:
            digest, size = hashlib.sha256(), 0
            for chunk in chunks:
                digest.update(chunk)
                size += len(chunk)
                spool.write(chunk)
            sha = digest.hexdigest()
            storage_path = content_path(sha)
            if not self.exists(storage_path):
                spool.seek(0)
                self.client.upload_fileobj(spool, self.location.bucket,
                                           self.location.key(storage_path), Config=_TRANSFER)
        return storage_path, size, sha

    def exists(self, storage_path: str) -> bool:
        """Tell whether the bucket holds the file (a HEAD request)."""
        try:
            key = self.location.key(storage_path)
        except ValueError:
            return False
        try:
            self.client.head_object(Bucket=self.location.bucket, Key=key)
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") in _NOT_FOUND:
                return False
            raise
        return True

    def delete(self, storage_path: str) -> None:
        """Delete the file; a missing one is fine (S3 deletes are idempotent)."""
        self.client.delete_object(Bucket=self.location.bucket,
                                  Key=self.location.key(storage_path))

    def read(self, storage_path: str) -> bytes:
        """Return a stored file's bytes (tests and small files only: not streamed)."""
        answer = self.client.get_object(Bucket=self.location.bucket,
                                        Key=self.location.key(storage_path))
        with answer["Body"] as body:
            return body.read()

    def presigner(self, expires_in: int, now: datetime | None = None) -> S3Presigner:
        """Return a presigner of this store's files for one page: URLs valid
        ``expires_in`` seconds from ``now`` (default: the current time), signed with the
        current credentials."""
        session, client = session_and_client(self.endpoint_url, self.region)
        credentials = session.get_credentials()
        if credentials is None:
            raise RuntimeError("no AWS credentials found (set AWS_ACCESS_KEY_ID and "
                               "AWS_SECRET_ACCESS_KEY, or a profile or instance role)")
        batch = UrlBatch(self._base_url(client), credentials.get_frozen_credentials(),
                         self.region, int(expires_in), now)
        return S3Presigner(self.location, batch)

    def presign(self, storage_path: str, filename: str, content_type: str,
                expires_in: int) -> str:
        """Return a presigned GET URL of the file, valid ``expires_in`` seconds, whose
        answer names ``filename`` (attachment) and has ``content_type``."""
        return self.presigner(expires_in).url(storage_path, filename, content_type)

    def _base_url(self, client) -> str:
        """Return the URL of the bucket's object ``""``, as boto3 resolves it (endpoint,
        addressing style), asked once per process."""
        cache_key = (self.endpoint_url, self.region, self.location.bucket, os.getpid())
        base = _base_urls.get(cache_key)
        if base is None:
            sample = client.generate_presigned_url(
                "get_object", Params={"Bucket": self.location.bucket, "Key": "k"},
                ExpiresIn=60)
            parts = urlsplit(sample)
            base = _base_urls[cache_key] = (f"{parts.scheme}://{parts.netloc}"
                                            f"{parts.path[:-1]}")
        return base

    def check(self) -> None:
        """Raise unless the bucket answers (a readiness check: one HEAD request)."""
        self.client.head_bucket(Bucket=self.location.bucket)


@dataclass(frozen=True)
class S3Presigner:
    """Presigned GET URLs of one store's files, sharing one signing time and lifetime."""

    location: S3Location
    batch: UrlBatch

    def url(self, storage_path: str, filename: str, content_type: str) -> str:
        """Return the file's presigned URL; its answer names ``filename`` (attachment)
        and has ``content_type``."""
        return self.batch.url(self.location.key(storage_path), {
            "response-content-disposition": content_disposition(filename),
            "response-content-type": content_type,
        })
