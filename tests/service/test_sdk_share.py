"""The public SDK (``boltz_api``), answered by the app in process: share links end to end.

Through gunicorn (the request line of the largest ids filter, a presigned download over
the network): ``tests/test_wsgi.py``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import boltz_api
import pytest

from app.platform import share_tokens
from app.platform.db import get_engine
from tests.support import factories
from tests.support.sdk_clients import base_url, http_client, sdk_client

RESULTS = 257


@pytest.fixture
def seeded(app, org):
    """A protein-design pipeline with 257 results (artifacts on the first 5) and a prediction.

    Seeded through ``app``, the app the SDK's requests reach.
    """
    with get_engine(app).begin() as conn:
        pipeline_id, ids = factories.insert_pipeline(conn, org.workspace_id, n_results=RESULTS)
        factories.add_result_artifacts(conn, app.config["ARTIFACT_DIR"], ids[:5])
        prediction_id = factories.insert_prediction(conn, org.workspace_id)
    return {"pipeline": pipeline_id, "ids": ids, "prediction": prediction_id}


@pytest.fixture
def sdk(app, org):
    """An SDK client authenticated with the org's admin key."""
    with sdk_client(app, org.admin_key) as client:
        yield client


def expiry() -> str:
    """Return tomorrow as an ISO 8601 UTC string."""
    return (datetime.now(UTC) + timedelta(days=1)).isoformat()


def test_create_retrieve_archive(app, sdk, seeded, org):
    link = sdk.share_links.create(
        expires_at=expiry(),
        pipeline_ids=[seeded["pipeline"]],
        prediction_ids=[seeded["prediction"]],
        access_parameters={"access_mode": "email",
                           "allowed_emails": ["ada@example.org", "ADA@example.org"]},
    )
    assert link.id.startswith("sl_")
    assert link.workspace_id == org.workspace_id
    assert link.access_parameters.access_mode == "email"
    assert link.access_parameters.allowed_emails == ["ada@example.org"]
    assert link.url == f"{base_url(app)}/share/{link.id}"
    assert link.archived_at is None
    assert isinstance(link.expires_at, datetime)

    retrieved = sdk.share_links.retrieve(link.id)
    assert retrieved.id == link.id
    assert retrieved.pipeline_ids == [seeded["pipeline"]]
    assert retrieved.prediction_ids == [seeded["prediction"]]

    archived = sdk.share_links.archive(link.id)
    assert archived.archived is True and isinstance(archived.archived_at, datetime)
    again = sdk.share_links.archive(link.id)
    assert again.archived_at == archived.archived_at
    assert sdk.share_links.retrieve(link.id).archived_at == archived.archived_at
    with pytest.raises(boltz_api.NotFoundError):
        sdk.share_links.read(link.id)


def test_sdk_errors_map_to_exceptions(app, sdk, seeded):
    with pytest.raises(boltz_api.BadRequestError) as error:
        sdk.share_links.create(expires_at="2020-01-01T00:00:00Z",
                               pipeline_ids=[seeded["pipeline"]])
    assert "expires_at" in error.value.body["message"]
    with pytest.raises(boltz_api.NotFoundError):
        sdk.share_links.retrieve("sl_unknown")
    with (sdk_client(app, "bz_live_nope") as anonymous,
          pytest.raises(boltz_api.AuthenticationError)):
        anonymous.share_links.retrieve("sl_unknown")


def test_read_without_a_key(app, sdk, seeded):
    link = sdk.share_links.create(expires_at=expiry(), pipeline_ids=[seeded["pipeline"]],
                                  prediction_ids=[seeded["prediction"]])
    with sdk_client(app, "ignored") as reader:
        shared = reader.share_links.read(link.id)
    assert shared.id == link.id
    assert [p.id for p in shared.pipelines] == [seeded["pipeline"]]
    assert [p.id for p in shared.predictions] == [seeded["prediction"]]
    assert isinstance(shared.created_at, datetime)


def test_email_link_through_the_sdk(app, sdk, seeded):
    link = sdk.share_links.create(
        expires_at=expiry(), pipeline_ids=[seeded["pipeline"]],
        access_parameters={"access_mode": "email", "allowed_emails": ["ada@example.org"]},
    )
    with pytest.raises(boltz_api.AuthenticationError):
        sdk.share_links.read(link.id)
    # The SDK's requests reach this very app: the tokens minted here are signed with the
    # key they are verified with (through gunicorn the server would have to share the
    # instance folder, which holds it).
    with app.app_context():
        token = share_tokens.mint(link.id, "Ada@Example.org", app)
        stranger = share_tokens.mint(link.id, "eve@example.org", app)
    shared = sdk.share_links.read(link.id, extra_headers={"Authorization": f"Bearer {token}"})
    assert [p.id for p in shared.pipelines] == [seeded["pipeline"]]
    with pytest.raises(boltz_api.PermissionDeniedError):
        sdk.share_links.read(link.id, extra_headers={"Authorization": f"Bearer {stranger}"})
    page = sdk.share_links.list_pipeline_results(
        seeded["pipeline"], id=link.id, limit=3,
        extra_headers={"Authorization": f"Bearer {token}"},
    )
    assert [r.id for r in page.data] == seeded["ids"][:3]


def test_auto_paging_forward_and_backward(sdk, seeded):
    link = sdk.share_links.create(expires_at=expiry(), pipeline_ids=[seeded["pipeline"]])
    forward = [r.id for r in sdk.share_links.list_pipeline_results(
        seeded["pipeline"], id=link.id, limit=50)]
    assert forward == seeded["ids"]
    default = [r.id for r in sdk.share_links.list_pipeline_results(seeded["pipeline"],
                                                                   id=link.id)]
    assert default == seeded["ids"]
    # Backward: start before an id past the end; the pager follows first_id.
    pages = sdk.share_links.list_pipeline_results(seeded["pipeline"], id=link.id, limit=40,
                                                  before_id="res_Z")
    backward = []
    for page in pages.iter_pages():
        backward = [r.id for r in page.data] + backward
    assert backward == seeded["ids"]
    # From the middle, backward, with the item-level iterator: every earlier result once.
    middle = seeded["ids"][123]
    earlier = list(sdk.share_links.list_pipeline_results(
        seeded["pipeline"], id=link.id, limit=25, before_id=middle))
    assert sorted(r.id for r in earlier) == seeded["ids"][:123]
    assert len(earlier) == 123


def test_the_largest_ids_filter(app, sdk, seeded):
    # 200 ids, the spec's maximum; through gunicorn (whose default request line is too
    # short for them): tests/test_wsgi.py.
    link = sdk.share_links.create(expires_at=expiry(), pipeline_ids=[seeded["pipeline"]])
    wanted = seeded["ids"][:200]
    with http_client(app) as http:
        response = http.get(
            f"/compute/v1/share/{link.id}/pipelines/{seeded['pipeline']}/results",
            params={"ids": ",".join(wanted), "limit": 1000})
    assert response.status_code == 200, response.text[:200]
    assert [r["id"] for r in response.json()["data"]] == wanted


def test_records_parse_with_artifacts(app, sdk, seeded):
    link = sdk.share_links.create(expires_at=expiry(), pipeline_ids=[seeded["pipeline"]])
    page = sdk.share_links.list_pipeline_results(
        seeded["pipeline"], id=link.id, ids=",".join(seeded["ids"][:5]))
    assert [r.id for r in page.data] == seeded["ids"][:5]
    record = page.data[0]
    assert 0 <= record.metrics.binding_confidence <= 1
    assert record.entities[0].type == "protein"
    assert isinstance(record.artifacts.archive.url_expires_at, datetime)
    with http_client(app) as http:
        download = http.get(record.artifacts.structure.url)
    assert download.status_code == 200
    assert download.content == f"data_{record.id}\n".encode()
    assert download.headers["content-type"] == "chemical/x-mmcif"
