"""The official SDK (``boltz_api.Boltz``) and plain HTTP clients answered by an app in process.

``httpx.WSGITransport`` hands each request to the app object itself: no server, no port, the
test's own database, instance folder (signing keys) and artifact folder. The base URL is
the app's ``PUBLIC_URL`` (``http://viewer.test`` for ``make_test_app``): the SDK appends
``/compute/v1/...`` to it itself, and the URLs the service hands out (a share link's
``url``, presigned artifact downloads) start with it, so the same client follows them.
The request comes from ``127.0.0.1`` (the transport's ``REMOTE_ADDR``), as a loopback
client of a real server would, which API keys restricted to ``allowed_ips`` see.

Real HTTP (gunicorn, its request line limits, its workers) is tested by ``tests/test_wsgi.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import boltz_api
import httpx
from boltz_api.types import share_link_read_response as R
from pydantic import TypeAdapter


def base_url(app) -> str:
    """Return the base URL the app's links start with (its ``PUBLIC_URL``)."""
    return str(app.config["PUBLIC_URL"]).rstrip("/")


def http_client(app, **options) -> httpx.Client:
    """Return an httpx client whose requests ``app`` answers in process.

    Relative URLs resolve against ``base_url(app)``; absolute ones (a presigned download)
    reach the app too, whatever their host. ``options`` go to ``httpx.Client``.
    """
    return httpx.Client(transport=httpx.WSGITransport(app=app), base_url=base_url(app),
                        **options)


def sdk_client(app, api_key: str, **options) -> boltz_api.Boltz:
    """Return the official SDK authenticated with ``api_key``, answered by ``app`` in process.

    No retries (a test sees the first answer); ``options`` go to ``boltz_api.Boltz``.
    Closing the SDK client (``with``) closes its httpx client.
    """
    return boltz_api.Boltz(api_key=api_key, base_url=base_url(app), max_retries=0,
                           http_client=http_client(app), **options)


def strict(model: Any, body: Any) -> Any:
    """Validate ``body`` strictly with the SDK's ``model`` (a class or a union), not with the
    SDK's lenient ``construct``."""
    return TypeAdapter(model).validate_python(body)


def checked_share_read(sdk: boltz_api.Boltz, link_id: str, base: str,
                       get: Callable[[str], httpx.Response]) -> tuple[dict, dict]:
    """Read share link ``link_id`` with the SDK and check it as the SDK's users rely on.

    The read and each of its small-molecule design runs and structure-and-binding
    predictions validate strictly; each run is what its own retrieve answers (one builder);
    each prediction's structure URL starts at ``base`` and downloads (with ``get``) a 200.
    Returns the read and the downloads, by prediction id.
    """
    read = sdk.share_links.with_raw_response.read(link_id).http_response.json()
    strict(R.ShareLinkReadResponse, read)
    for entry in read["pipelines"]:
        strict(R.PipelineSmDesignRun, entry)
        raw = sdk.small_molecule.design.with_raw_response.retrieve(entry["id"])
        assert raw.http_response.json() == entry  # the same builder
    downloads = {}
    for entry in read["predictions"]:
        strict(R.PredictionBoltz2Prediction, entry)
        url = entry["output"]["best_sample"]["structure"]["url"]
        assert url.startswith(base)
        downloads[entry["id"]] = get(url)
        assert downloads[entry["id"]].status_code == 200
    return read, downloads
