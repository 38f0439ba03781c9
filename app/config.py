"""Configuration defaults and the secrets generated once into the instance folder.

Every setting can be overridden with a ``FLASK_``-prefixed environment variable
(``FLASK_DATABASE_URL=...``), read by ``Flask.config.from_prefixed_env``. The table in
README.md documents each one. This module defines the defaults of every setting except
the sign-in ones (``SIGNIN_*``, ``MAIL_TIMEOUT``, ``OIDC_PROVIDERS``), which live beside
their code in ``app.viewer.signin`` (``DEFAULTS`` and ``limits.DEFAULT_LIMITS``).
"""

from __future__ import annotations

import os
import secrets
import tempfile
from collections.abc import Callable
from pathlib import Path

DEFAULTS: dict[str, object] = {
    # Session signing; generated into the instance folder when unset (see ensure_secret_key).
    "SECRET_KEY": None,
    # SQLAlchemy URL; None means a SQLite file in the instance folder.
    "DATABASE_URL": None,
    # The viewer's own store (sign-ins; app.viewer.store); None means the same database
    # as DATABASE_URL, where its tables and Alembic history sit beside the API's.
    "VIEWER_DATABASE_URL": None,
    # Public base URL of the viewer, used for share ``url`` and e-mail links.
    "PUBLIC_URL": None,
    # API the viewer reads from; None means the embedded service, in-process.
    "COMPUTE_API_URL": None,
    # Seconds the viewer waits on any API call before answering 503/504.
    "COMPUTE_API_TIMEOUT": 10.0,
    # Where the embedded service keeps artifact files; None means <instance>/artifacts.
    "ARTIFACT_DIR": None,
    # Lifetime of a presigned artifact URL, seconds.
    "ARTIFACT_URL_TTL": 900,
    # Where artifact files live: "file" (ARTIFACT_DIR) or "s3://bucket/prefix"
    # (app.artifact_storage; credentials and region from the usual AWS_* variables).
    "ARTIFACT_STORE": "file",
    # An S3-compatible endpoint (MinIO, moto, ...); None means AWS S3 itself.
    "S3_ENDPOINT_URL": None,
    # Origins allowed to frame ?embed=1 pages (CSP frame-ancestors syntax).
    "EMBED_FRAME_ANCESTORS": "*",
    # SMTP for sign-in mail; unset server means the message is written to the log.
    "MAIL_SERVER": None,
    "MAIL_PORT": 25,
    "MAIL_USERNAME": None,
    "MAIL_PASSWORD": None,
    "MAIL_USE_TLS": False,
    "MAIL_USE_SSL": False,
    "MAIL_SENDER": "Share Viewer <no-reply@localhost>",
    "PRODUCT_NAME": "Share Viewer",
    # Share-link JWTs: the viewer signs with the private key, the service verifies with
    # the public key (PEM) or a JWKS URL. Unset keys are generated into the instance folder.
    "JWT_PRIVATE_KEY": None,
    "JWT_PUBLIC_KEY": None,
    "JWT_JWKS_URL": None,
    "JWT_ALGORITHM": "EdDSA",
    "JWT_ISSUER": "share-viewer",
    "JWT_AUDIENCE": "compute-api",
    "JWT_TTL_SECONDS": 300,
    # Host names the app answers to (Flask's TRUSTED_HOSTS): a JSON list, or names separated
    # by commas ("share.example.org,.example.net"; a leading dot admits subdomains). Any
    # other Host header is a 400. None admits every host; links then come from PUBLIC_URL
    # only (app.public_url). Not derived from PUBLIC_URL: load balancers' health checks and
    # a viewer reading this API at an internal address send other names.
    "TRUSTED_HOSTS": None,
    # Proxies in front of the app whose X-Forwarded-For is trusted (count of hops).
    "TRUSTED_PROXY_COUNT": 0,
    # Networks (CIDR, comma-separated) that may read /metrics (app.metrics.endpoint); any
    # other client gets the shared 404. None: loopback only.
    "METRICS_NETWORKS": None,
    # Where sign-in rate limits count: None (or memory://) means the viewer store, exact
    # across workers and servers; redis://host:port means Redis (app.viewer.signin.limits).
    "RATELIMIT_STORAGE_URI": None,
    # Exploration index (app.viewer.results.indexer): an index nobody used for this many hours is
    # deleted (the viewer keeps no copy of results longer than it needs one).
    "EXPLORE_INDEX_IDLE_HOURS": 24,
    # Pipelines of at most this many results are indexed inside the first request; larger
    # ones in the background while the visitor sees a progress bar.
    "EXPLORE_SYNC_LIMIT": 2000,
    # Where workers share the exploration frames as mapped files (app.viewer.results.
    # frame_files): None is <instance>/frame-cache, "" turns sharing off (each worker keeps
    # its own copy in memory). Local disk, per machine; the viewer store stays the source.
    "FRAME_CACHE_DIR": None,
    # Read protein designs' structures in the background for their epitopes and exposed
    # M/W (app.viewer.epitope.scan), started by a ready index's results page.
    "EPITOPE_SCAN": True,
    # Expensive requests (exports, new substructure searches) one process runs at once, and
    # how many of them one client address may hold; one more is a 503 "busy, retry"
    # (app.viewer.runtime.work_gate). With gunicorn's 4 threads, 2 leave 2 for pages.
    "EXPENSIVE_WORK_SLOTS": 2,
    "EXPENSIVE_WORK_PER_CLIENT": 2,
    # Largest JSON request body the service accepts, bytes.
    "MAX_CONTENT_LENGTH": 1024 * 1024,
}


def write_once(path: Path, make_content: Callable[[], bytes]) -> bytes:
    """Return the content of ``path``, creating it with ``make_content()`` if it is absent.

    Race-safe for workers starting at once: the content is written to a private temporary
    file first and then hard-linked into place, which fails if another process won the
    race; every process then reads the one complete file (never an empty, half-written one).
    The file is readable by its owner only (0600).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(make_content())
            os.link(tmp_name, path)
        except FileExistsError:
            pass
        finally:
            os.unlink(tmp_name)
    return path.read_bytes()


def ensure_instance_secret(instance_path: str, filename: str, length: int = 32) -> str:
    """Return a secret stored in the instance folder, creating it on first use."""
    content = write_once(Path(instance_path) / filename,
                         lambda: secrets.token_urlsafe(length).encode())
    return content.decode().strip()
