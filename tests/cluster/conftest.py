"""Fixtures of the cluster suite: one two-node cluster for the whole session.

HAProxy (``deploy/haproxy.cfg``) in front of two gunicorn nodes of ``wsgi:app`` sharing
PostgreSQL, Redis and the artifact store, a bucket of moto's S3 server
(``tests/support/cluster_harness.py``, ``tests/support/moto_server.py``), seeded once with
``seed-demo``, sending sign-in mail to a real SMTP server on loopback. Starting it takes
~15 s, so every test of the suite shares it; the tests are marked
``xdist_group("cluster")`` so that one xdist worker runs them all (``--dist loadgroup``).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from tests.support.cluster_harness import Cluster, running_cluster
from tests.support.moto_server import MotoS3, start_moto, stop_moto
from tests.support.signin import Inbox, csrf_token, parse_mail, smtp_server

RESULT_LINK = re.compile(r'href="/share/[^/"]+/pipelines/[^/"]+/results/([A-Za-z0-9_]+)["?]')


@pytest.fixture(scope="session")
def inbox() -> Iterator[Inbox]:
    """A real SMTP server on loopback that both nodes send sign-in mail to."""
    with smtp_server() as server:
        yield server


@pytest.fixture(scope="session")
def s3() -> Iterator[MotoS3]:
    """moto's S3 server on loopback: the artifact store both nodes share."""
    server = start_moto()
    yield server
    stop_moto(server)


@pytest.fixture(scope="session")
def cluster(inbox, s3, tmp_path_factory) -> Iterator[Cluster]:
    """The running cluster, seeded with the demo organization, artifacts in S3 (moto)."""
    artifacts = s3.env(prefix=f"cluster-{secrets.token_hex(5)}")
    with running_cluster(tmp_path_factory.mktemp("cluster"), mail_port=inbox.port,
                         artifact_env=artifacts) as running:
        yield running


@dataclass(frozen=True)
class Demo:
    """What the tests read: the demo's links, a pipeline, one of its results."""

    public_id: str
    email_id: str
    addresses: list[str]
    pipeline_id: str
    result_id: str
    admin_key: str


@pytest.fixture(scope="session")
def demo(cluster) -> Demo:
    """The seeded demo, with a result id of its protein_design pipeline."""
    links = cluster.demo["share_links"]
    pipeline_id = cluster.demo["pipelines"]["protein_design"]
    page = httpx.get(f"{cluster.url}/share/{links['public']['id']}/pipelines/{pipeline_id}",
                     timeout=30)
    assert page.status_code == 200
    return Demo(links["public"]["id"], links["email"]["id"], links["email"]["allowed_emails"],
                pipeline_id, RESULT_LINK.search(page.text).group(1),
                cluster.demo["admin_key"])


def ask_for_code(browser: httpx.Client, base: str, link_id: str, address: str) -> int:
    """Open the sign-in page at ``base`` and ask for a code; return the POST's status."""
    page = browser.get(f"{base}/share/{link_id}/sign-in")
    assert page.status_code == 200, page.text[:300]
    posted = browser.post(f"{base}/share/{link_id}/sign-in",
                          data={"csrf_token": csrf_token(page.text), "email": address})
    return posted.status_code


def sign_in(browser: httpx.Client, base: str, inbox: Inbox, link_id: str, address: str) -> None:
    """Go through the whole e-mail code flow at ``base`` (one node) with ``browser``."""
    received = len(inbox.to(address))
    assert ask_for_code(browser, base, link_id, address) == 302
    code = parse_mail(inbox.wait_for(address, received + 1)).code
    page = browser.get(f"{base}/share/{link_id}/sign-in/code")
    done = browser.post(f"{base}/share/{link_id}/sign-in/code",
                        data={"csrf_token": csrf_token(page.text), "code": code})
    assert done.status_code == 302, done.text[:300]


@pytest.fixture(scope="session")
def signed_in(cluster, demo, inbox) -> Iterator[httpx.Client]:
    """A browser signed in to the demo's email-mode link through node A."""
    with httpx.Client(timeout=30) as browser:
        sign_in(browser, cluster.nodes["a"].url, inbox, demo.email_id, demo.addresses[0])
        yield browser


def new_public_link(cluster, demo) -> str:
    """Create a public link over the demo's protein_design pipeline through the balancer."""
    expires = (datetime.now(UTC) + timedelta(days=1)).isoformat(timespec="seconds")
    created = httpx.post(f"{cluster.url}/compute/v1/share-links",
                         headers={"x-api-key": demo.admin_key},
                         json={"pipeline_ids": [demo.pipeline_id],
                               "expires_at": expires}, timeout=30)
    assert created.status_code == 200, created.text
    return created.json()["id"]


def archive(base: str, demo, link_id: str) -> None:
    """Archive a link through the API of the node at ``base``."""
    done = httpx.post(f"{base}/compute/v1/share-links/{link_id}/archive",
                      headers={"x-api-key": demo.admin_key}, timeout=30)
    assert done.status_code == 200, done.text
