"""Presigned artifact URLs and the download endpoint that honours them.

A URL is ``<API base>/compute/v1/artifacts/<id>?expires=<epoch seconds>&signature=<hex>``:
HMAC-SHA256 over the artifact id and the expiry, keyed with a key derived from
``SECRET_KEY`` (so rotating the secret revokes every outstanding URL). It is a bearer
capability for ``ARTIFACT_URL_TTL`` seconds (default 900) and needs no API key, so a
remote viewer or a browser can fetch it directly. A bad or expired signature is a 403,
an unknown artifact a 404.

In S3 mode (``ARTIFACT_STORE=s3://...``) the API hands out the bucket's own presigned GET
URLs instead (``app.artifact_storage.s3_store``), naming the file and its type, valid
``ARTIFACT_URL_TTL`` seconds; downloads then never pass through this service. A URL of the
form above (signed while the service ran in file mode, or built by hand) still works: its
signature is checked as always and the answer is a 302 to a fresh presigned S3 URL.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from flask import current_app, redirect, send_file, url_for
from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

from app import artifact_storage
from app.platform.db import get_conn
from app.platform.settings import setting
from app.platform.timeutil import isoformat
from app.service.api import ApiBlueprint
from app.service.errors import ApiError, not_found
from app.service.wire import TimestampText
from app.store import results as store

bp = ApiBlueprint("artifacts", __name__)


class ArtifactUrl(TypedDict):
    """A presigned download URL and when it expires."""

    url: str
    url_expires_at: TimestampText


class UrlSigner:
    """HMAC-SHA256 under one key, with the key's padded states hashed once (RFC 2104).

    Signs exactly as ``hmac.new(key, message, "sha256")``; ``hmac`` derives those two
    states again for every message, twice the cost of copying them, and a results page
    signs 200 URLs.
    """

    def __init__(self, key: bytes):
        if len(key) > 64:  # longer keys would first be hashed; ours are 32-byte digests
            raise ValueError("the key must fit in one SHA-256 block")
        key = key.ljust(64, b"\0")
        self._inner = hashlib.sha256(bytes(byte ^ 0x36 for byte in key))
        self._outer = hashlib.sha256(bytes(byte ^ 0x5C for byte in key))

    def signature(self, artifact_id: str, expires: int) -> str:
        """Return the hex signature of ``artifact_id`` valid until ``expires``."""
        inner = self._inner.copy()
        inner.update(f"{artifact_id}\n{expires}".encode())
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.hexdigest()


def url_signer() -> UrlSigner:
    """Return the signer keyed from SECRET_KEY (never use the secret itself twice)."""
    secret = str(setting(current_app, "SECRET_KEY")).encode()
    cached = current_app.extensions.get("artifact_url_signer")
    if cached is None or cached[0] != secret:
        key = hmac.new(secret, b"share-viewer artifact-url v1", hashlib.sha256).digest()
        cached = current_app.extensions["artifact_url_signer"] = (secret, UrlSigner(key))
    return cached[1]


def signature_for(artifact_id: str, expires: int) -> str:
    """Return the hex signature of ``artifact_id`` valid until ``expires`` (epoch seconds)."""
    return url_signer().signature(artifact_id, expires)


@dataclass(frozen=True)
class Presigner:
    """Presigns many URLs with one key, base URL and expiry, read once from the app.

    A results page presigns hundreds of URLs: reading the config, the key and the URL map
    through Flask's context proxies for each one cost a third of the page's time.
    """

    signer: UrlSigner
    base: str  # the download URL up to the artifact id
    expires: int
    expires_at: str
    s3: Any = None  # presigns the bucket's own URLs in S3 mode (an S3Presigner)

    @classmethod
    def for_request(cls, now: float | None = None) -> Presigner:
        """Return a presigner for this request's host; URLs expire ``ARTIFACT_URL_TTL``
        seconds after ``now`` (default: the current time)."""
        ttl = setting(current_app, "ARTIFACT_URL_TTL")
        signed_at = int(now if now is not None else time.time())
        expires = signed_at + ttl
        placeholder = url_for("artifacts.download_artifact", artifact_id="0", _external=True)
        expires_at = datetime.fromtimestamp(expires, UTC)
        store = artifact_storage.open_store(current_app.config)
        s3 = None
        if store.kind == "s3":
            # Signed at the same whole second, so url_expires_at is the URL's own expiry.
            s3 = store.presigner(ttl, datetime.fromtimestamp(signed_at, UTC))
        return cls(url_signer(), placeholder[:-1], expires, isoformat(expires_at), s3=s3)

    def sign(self, artifact_id: str) -> ArtifactUrl:
        """Return the presigned URL of ``artifact_id`` and its expiry."""
        # Both query values are URL-safe as they are (an integer and hex digits).
        signature = self.signer.signature(artifact_id, self.expires)
        return {"url": f"{self.base}{quote(artifact_id, safe='')}?expires={self.expires}"
                       f"&signature={signature}",
                "url_expires_at": self.expires_at}

    def sign_file(self, artifact: Any) -> ArtifactUrl:
        """Return the download URL of a stored file and its expiry: this API's own URL
        in file mode, the bucket's presigned URL in S3 mode.

        ``artifact`` has ``id``, ``storage_path``, ``filename`` and ``content_type`` (an
        ``Artifact`` or an ``ArtifactFile`` of the results store).
        """
        if self.s3 is None:
            return self.sign(artifact.id)
        url = self.s3.url(artifact.storage_path, artifact.filename, artifact.content_type)
        return {"url": url, "url_expires_at": self.expires_at}


def presign(artifact_id: str, now: float | None = None) -> ArtifactUrl:
    """Return ``{"url", "url_expires_at"}`` for one artifact, absolute on this API's host."""
    return Presigner.for_request(now).sign(artifact_id)


class DownloadQuery(BaseModel):
    """The presigned part of an artifact URL."""

    model_config = ConfigDict(extra="ignore")

    expires: int = Field(ge=0, le=2**40, description="Expiry, seconds since the epoch.")
    signature: str = Field(pattern=r"^[0-9a-f]{64}$", description="HMAC-SHA256, hex.")


def _refused() -> ApiError:
    return ApiError(403, "The download link is invalid or has expired")


@bp.operation(
    "GET", "/artifacts/<artifact_id>",
    summary="Download an artifact through a presigned URL", tag="Artifacts", auth="none",
    query=DownloadQuery, response=None,
    description="Streams the file with Content-Type, Content-Length, Content-Disposition "
    "(attachment) and Range support. 403 for a bad or expired signature, 404 for an "
    "unknown artifact. Conditional requests use the ETag (the file's SHA-256): a matching "
    "If-None-Match is a 304, a failed If-Match or If-Unmodified-Since a 412. When the "
    "service stores files in S3, the API hands out the bucket's presigned URLs instead, "
    "and a valid URL of this endpoint answers 302 to a fresh presigned S3 URL.",
    extra_statuses=(206, 302, 304, 403, 404, 412, 416),
)
def download_artifact(artifact_id: str, query: DownloadQuery):
    """Stream one artifact file if the URL's signature is valid and unexpired."""
    expected = signature_for(artifact_id, query.expires)
    if not hmac.compare_digest(expected, query.signature) or query.expires < time.time():
        raise _refused()
    artifact = store.get_artifact(get_conn(), artifact_id)
    if artifact is None:
        raise not_found()
    files = artifact_storage.open_store(current_app.config)
    if files.kind == "s3":
        return _redirect_to_s3(files, artifact)
    try:
        path = artifact_storage.path_for(setting(current_app, "ARTIFACT_DIR"),
                                         artifact.storage_path)
    except ValueError:
        raise not_found() from None
    if not path.is_file():
        raise not_found()
    response = send_file(
        path,
        mimetype=artifact.content_type,
        as_attachment=True,
        download_name=artifact.filename,
        conditional=True,
        etag=artifact.sha256,
        max_age=None,
    )
    if response.status_code == 412:
        # Werkzeug keeps the file as the body of its 412; answer with the envelope instead.
        response.close()
        raise ApiError(412, "The file does not match the If-Match or If-Unmodified-Since "
                       "condition")
    # The URL is a short-lived secret: keep it and the bytes out of shared caches and
    # out of Referer headers of whatever the file links to.
    response.headers["Cache-Control"] = "private, no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def _redirect_to_s3(store, artifact) -> Any:
    """Answer with a 302 to a fresh presigned S3 URL of the artifact (S3 mode)."""
    if not store.exists(artifact.storage_path):
        raise not_found()
    url = store.presign(artifact.storage_path, artifact.filename, artifact.content_type,
                        setting(current_app, "ARTIFACT_URL_TTL"))
    response = redirect(url, code=302)
    # The Location is a bearer capability: never cached, never sent on as a Referer.
    response.headers["Cache-Control"] = "private, no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response
