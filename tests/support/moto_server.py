"""A real S3 server for tests: moto's standalone server process on a free loopback port.

``moto_s3`` (session-scoped; import it into a conftest: ``from tests.support.moto_server import
moto_s3``) starts ``python -m moto.server`` once per test process and yields a ``MotoS3``:
its endpoint URL, a bucket made for the session, fake credentials, and ``env(prefix)``, the
environment that points an app (gunicorn or in-process) at it::

    FLASK_ARTIFACT_STORE=s3://<bucket>/<prefix>, FLASK_S3_ENDPOINT_URL=<endpoint>,
    AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_DEFAULT_REGION

The server keeps objects in memory; each test uses its own prefix (or ``new_bucket()``).
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field

import boto3
import httpx
import pytest
from botocore.config import Config

CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "AKIATESTMOTOSERVER00",
    "AWS_SECRET_ACCESS_KEY": "moto-secret-access-key-for-tests-only",
    "AWS_DEFAULT_REGION": "us-east-1",
}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class MotoS3:
    """A running moto server and the bucket made for this session."""

    endpoint_url: str
    bucket: str
    process: subprocess.Popen
    credentials: dict = field(default_factory=lambda: dict(CREDENTIALS))

    def client(self):
        """Return a boto3 client of the server (path-style, the fake credentials)."""
        return boto3.client(
            "s3", endpoint_url=self.endpoint_url,
            aws_access_key_id=self.credentials["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=self.credentials["AWS_SECRET_ACCESS_KEY"],
            region_name=self.credentials["AWS_DEFAULT_REGION"],
            config=Config(s3={"addressing_style": "path"}),
        )

    def new_bucket(self) -> str:
        """Create and return a fresh, empty bucket."""
        name = f"t-{secrets.token_hex(6)}"
        self.client().create_bucket(Bucket=name)
        return name

    def store_url(self, prefix: str | None = None, bucket: str | None = None) -> str:
        """Return an ``s3://`` store URL in this server (a fresh prefix by default)."""
        return f"s3://{bucket or self.bucket}/{prefix or 'p-' + secrets.token_hex(6)}"

    def env(self, prefix: str | None = None, bucket: str | None = None) -> dict[str, str]:
        """Return the environment that makes an app store its artifacts here."""
        return {**self.credentials, "FLASK_ARTIFACT_STORE": self.store_url(prefix, bucket),
                "FLASK_S3_ENDPOINT_URL": self.endpoint_url}

    def keys(self, prefix: str = "", bucket: str | None = None) -> list[str]:
        """Return every key under ``prefix`` (all pages)."""
        pages = self.client().get_paginator("list_objects_v2").paginate(
            Bucket=bucket or self.bucket, Prefix=prefix)
        return [item["Key"] for page in pages for item in page.get("Contents", [])]


def start_moto(port: int | None = None) -> MotoS3:
    """Start ``python -m moto.server`` on loopback and wait until it answers."""
    port = port or _free_port()
    endpoint = f"http://127.0.0.1:{port}"
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, **CREDENTIALS},
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("moto server exited at start")
        try:
            httpx.get(f"{endpoint}/moto-api/", timeout=1)
            break
        except httpx.HTTPError:
            time.sleep(0.1)
    else:
        process.kill()
        raise RuntimeError("moto server did not answer within 30 s")
    server = MotoS3(endpoint, "", process)
    server.bucket = server.new_bucket()
    return server


def stop_moto(server: MotoS3) -> None:
    """Stop the server process."""
    server.process.terminate()
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.process.kill()


@pytest.fixture(scope="session")
def moto_s3():
    """A moto S3 server for the whole test session (one per xdist worker)."""
    server = start_moto()
    yield server
    stop_moto(server)


@pytest.fixture
def s3_env(moto_s3, monkeypatch):
    """Point this process at the moto server: AWS credentials in the environment and a
    fresh prefix; returns the ``FLASK_*``-prefixed settings (also as config keys)."""
    env = moto_s3.env()
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env
