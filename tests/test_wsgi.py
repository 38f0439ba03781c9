"""Each entry point of ``wsgi.py`` served by gunicorn, as a deployment runs it: the smoke
tests of real HTTP. Everything else reaches the apps in process (the SDK through
``tests/support/sdk_clients.py``, pages through Flask's test client).

One database for the module (a link over every kind, a pipeline of 200 results) and one
server per entry point, shared by the module's tests:

- ``wsgi:app``, the composition: the official SDK over HTTP gets answers that validate
  strictly, a viewer page, a presigned download through gunicorn, the largest ids filter
  (200 ids of 64 characters, longer than gunicorn's own cap on a request line) through
  the SDK and on a viewer page, the bound on a request line (``REQUEST_LINE_LIMIT``), and
  the error contract for oversized, malformed and misrouted requests;
- ``wsgi:service_app``: the API alone, no pages;
- ``wsgi:viewer_app``: the viewer alone, reading that service over HTTP through
  ``FLASK_COMPUTE_API_URL`` (pages, an export, a prediction, a download streamed from the
  service, and the largest ids filter it passes on to the API), serving no API.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import boltz_api
import httpx
import pytest
from boltz_api.types import share_link_read_response as R

from app.platform.db import get_engine
from app.store import schema
from tests.support import factories
from tests.support.apps import OrgFixture, make_org, make_test_app
from tests.support.databases import dispose_engines, migrated_database
from tests.support.links import Shared, seed_link
from tests.support.sdk_clients import checked_share_read, strict
from tests.support.servers import LiveServer, raw_request, start_gunicorn, stop_gunicorn

# Three gunicorn servers to start: more than a few seconds.
pytestmark = pytest.mark.slow

TIMEOUT = 60  # seconds: a loaded 2-core machine answers slowly, not wrongly
MAX_IDS = 200  # the spec's maximum of the ids filter
LONGEST_ID = 64  # the longest id the ids filter takes
REQUEST_LINE_LIMIT = 32 * 1024  # gunicorn.conf.py: the longest request line served


@dataclass(frozen=True)
class Site:
    """The module's data: the environment of its servers and what was seeded."""

    env: dict
    folder: Path
    shared: Shared
    # A pipeline of MAX_IDS results whose ids are LONGEST_ID characters, and a public link
    # over it.
    big_pipeline: str
    big_results: list[str]
    big_link: str
    # An organization nothing else touches: the error contract checks nothing was created.
    quiet: OrgFixture


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A migrated database seeded through a test app, and the servers' environment."""
    folder = tmp_path_factory.mktemp("wsgi")
    url, drop = migrated_database(folder)
    application = make_test_app(url, folder)
    org = make_org(application)
    shared = seed_link(application, org)
    with get_engine(application).begin() as conn:
        big, made = factories.insert_pipeline(conn, org.workspace_id, n_results=MAX_IDS)
        # Time-ordered ids padded at their end: still in creation order.
        big_results = [result_id.ljust(LONGEST_ID, "0") for result_id in made]
        for old, new in zip(made, big_results, strict=True):
            conn.execute(schema.results.update().where(schema.results.c.id == old)
                         .values(id=new))
    big_link = factories.make_link(application, org, pipeline_ids=[big]).id
    quiet = make_org(application, "Quiet Org")
    dispose_engines(application)
    # The artifact and instance folders are the test app's: the files seeded are served.
    env = {"FLASK_DATABASE_URL": url, "FLASK_SECRET_KEY": "wsgi-secret",
           "FLASK_ARTIFACT_DIR": str(folder / "artifacts"),
           "FLASK_INSTANCE_PATH": str(folder / "instance")}
    yield Site(env, folder, shared, big, big_results, big_link, quiet)
    drop()


@pytest.fixture(scope="module")
def composed(site) -> LiveServer:
    """``gunicorn wsgi:app`` with two workers, as ``make run`` serves it."""
    server = start_gunicorn(site.env, site.folder, workers=2, target="wsgi:app")
    yield server
    stop_gunicorn(server)


@pytest.fixture(scope="module")
def service(site) -> LiveServer:
    """``gunicorn 'wsgi:service_app'``: the compute API alone."""
    server = start_gunicorn(site.env, site.folder, workers=1, target="wsgi:service_app")
    yield server
    stop_gunicorn(server)


@pytest.fixture(scope="module")
def viewer(site, service) -> LiveServer:
    """``gunicorn 'wsgi:viewer_app'`` reading ``service`` over HTTP. Both share one
    instance folder (the JWT key pair)."""
    server = start_gunicorn({**site.env, "FLASK_COMPUTE_API_URL": service.url}, site.folder,
                            workers=1, target="wsgi:viewer_app")
    yield server
    stop_gunicorn(server)


def test_app_answers_the_sdk_strictly_and_serves_pages_and_files(site, composed):
    admin_key = site.shared.org.admin_key
    expires = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    with (boltz_api.Boltz(api_key=admin_key, base_url=composed.url, max_retries=0,
                          timeout=TIMEOUT) as sdk,
          httpx.Client(base_url=composed.url, timeout=TIMEOUT) as http):
        runs = [run.id for run in sdk.small_molecule.design.list()]
        assert runs == [site.shared.pipelines["small_molecule_design"]]
        link = sdk.share_links.create(
            expires_at=expires, pipeline_ids=runs,
            prediction_ids=[p.id for p in sdk.predictions.structure_and_binding.list()])
        # FLASK_PUBLIC_URL (the server's address here) is the base of the links handed out.
        assert link.url == f"{composed.url}/share/{link.id}"
        # Presigned at the server's address: the structure downloads through gunicorn.
        read, downloads = checked_share_read(sdk, link.id, composed.url, http.get)
        assert read["predictions"]
        for prediction_id, download in downloads.items():
            assert download.content == f"data_pred\n{prediction_id}".encode()

        # The viewer half of the same process: the link's page.
        page = http.get(f"/share/{link.id}")
        assert page.status_code == 200 and "Small-molecule design" in page.text



def test_the_largest_ids_filter_passes_and_the_request_line_is_bounded(site, composed):
    # 200 ids of 64 characters: 13.4 KB of query string once the SDK has percent-encoded
    # its commas, over gunicorn's own cap of 8190 bytes on a request line.
    wanted = site.big_results
    assert len(wanted) == MAX_IDS and {len(result_id) for result_id in wanted} == {LONGEST_ID}
    with boltz_api.Boltz(api_key=site.shared.org.admin_key, base_url=composed.url,
                         max_retries=0, timeout=TIMEOUT) as sdk:
        page = sdk.share_links.list_pipeline_results(
            site.big_pipeline, id=site.big_link, ids=",".join(wanted), limit=1000)
    assert [record.id for record in page.data] == wanted
    with httpx.Client(base_url=composed.url, timeout=TIMEOUT) as http:
        # The viewer's URL of the same filter, pasted ids and all.
        table = http.get(f"/share/{site.big_link}/pipelines/{site.big_pipeline}",
                         params={"ids": ",".join(wanted), "limit": 250})
    assert table.status_code == 200, table.text[:300]
    assert f"{MAX_IDS} of the {MAX_IDS} pasted found" in table.text
    assert all(f"/results/{result_id}" in table.text for result_id in wanted)

    # The bound: a line of REQUEST_LINE_LIMIT bytes is served (the API ignores a parameter
    # it does not know), one byte more is gunicorn's 414.
    path = f"/compute/v1/share/{site.big_link}/pipelines/{site.big_pipeline}/results?pad="
    fill = REQUEST_LINE_LIMIT - len(f"GET {path} HTTP/1.1")
    for extra, status in ((0, 200), (1, 414)):
        head = (f"GET {path}{'x' * (fill + extra)} HTTP/1.1\r\n"
                f"Host: {composed.url.split('//')[1]}\r\nConnection: close")
        assert raw_request(composed.url, head, TIMEOUT) == status


def test_app_keeps_the_error_contract(site, composed):
    """Through gunicorn too: oversized, malformed and misrouted requests get the envelope."""
    url = f"{composed.url}/compute/v1/admin/workspaces"
    headers = site.quiet.headers
    cases = [
        (413, {"content": b'{"name": "' + b"x" * (2 * 1024 * 1024) + b'"}'}),
        (400, {"content": b'{"name": '}),
        (400, {"content": b"[]"}),
        (400, {"content": b'{"name": "a\\u0000b"}'}),
    ]
    for status, kwargs in cases:
        response = httpx.post(url, headers={**headers, "content-type": "application/json"},
                              timeout=TIMEOUT, **kwargs)
        assert response.status_code == status, response.text[:200]
        assert set(response.json()) == {"statusCode", "error", "message"}
    response = httpx.delete(url, headers=headers, timeout=TIMEOUT)
    assert response.status_code == 405 and response.json()["statusCode"] == 405
    # Nothing was created by any of them.
    listed = httpx.get(url, headers=headers, timeout=TIMEOUT).json()["data"]
    assert [w["id"] for w in listed] == [site.quiet.workspace_id]


def test_service_app_serves_the_api_and_no_pages(site, service):
    shared = site.shared
    with httpx.Client(base_url=service.url, timeout=TIMEOUT) as http:
        assert http.get(shared.url()).status_code == 404
        read = http.get(f"/compute/v1/share/{shared.link_id}")
        assert read.status_code == 200
        assert [p["id"] for p in read.json()["pipelines"]] == list(shared.pipelines.values())
        strict(R.ShareLinkReadResponse, read.json())


def test_viewer_app_reads_the_service_over_http(site, service, viewer):
    shared = site.shared
    protein = shared.pipelines["protein_design"]
    result = shared.results["protein_design"][1]
    molecule = shared.pipelines["small_molecule_design"]
    with httpx.Client(base_url=viewer.url, timeout=TIMEOUT) as browser:
        overview = browser.get(shared.url())
        assert overview.status_code == 200
        assert "Protein design" in overview.text
        table = browser.get(shared.url(f"/pipelines/{protein}"))
        assert table.status_code == 200 and result in table.text
        page = browser.get(shared.url(f"/pipelines/{protein}/results/{result}"))
        assert page.status_code == 200
        # The presigned URL names the service: the viewer streams the file from it.
        download = browser.get(shared.url(f"/pipelines/{protein}/results/{result}"
                                          "/artifacts/structure"))
        assert download.status_code == 200
        assert download.content == f"data_{result}\n".encode()
        for path in (shared.url(f"/pipelines/{molecule}"),
                     shared.url(f"/pipelines/{molecule}/export.sdf"),
                     shared.url(f"/predictions/{shared.predictions[0]}")):
            response = browser.get(path)
            assert response.status_code == 200, (path, response.text[:2000],
                                                  service.log_text()[-3000:])
            assert response.content, path
        # The largest ids filter, which the viewer passes on to the API over HTTP: for the
        # page, and for an export in the API's order (its walk asks for the same ids).
        big = f"/share/{site.big_link}/pipelines/{site.big_pipeline}"
        ids = ",".join(site.big_results)
        table = browser.get(big, params={"ids": ids, "limit": 250})
        assert table.status_code == 200, table.text[:300]
        assert all(f"/results/{result_id}" in table.text for result_id in site.big_results)
        exported = browser.get(f"{big}/export.csv", params={"ids": ids, "sort": "id"})
        assert exported.status_code == 200
        assert all(result_id in exported.text for result_id in site.big_results)
        # The viewer serves no API: each half is alone.
        assert browser.get("/compute/v1/openapi.json").status_code == 404
    # The viewer's requests reached the service: its access log has the API calls.
    assert "GET /compute/v1/share/[redacted]" in service.log_text()
