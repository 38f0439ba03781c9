"""Test mode through the official SDK and the viewer, answered by the app in process (issue 11).

A test key made with the SDK finds synthetic test-mode runs of every kind on its first use,
pages through them, shares one, and the link's viewer pages say they show test data; a
live id with the test key is a 400, a live key gets a 404 for the test-mode link, live
lists never show test-mode runs, and usage shows no test-mode quantity.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import boltz_api
import pytest

from app.platform.db import get_engine
from app.synthetic import test_mode as synthetic_data
from tests.support import factories
from tests.support.sdk_clients import http_client, sdk_client

NOTICE = "<strong>Test data:</strong> these results are synthetic."


def expiry() -> str:
    """Return tomorrow as an ISO 8601 UTC string."""
    return (datetime.now(UTC) + timedelta(days=1)).isoformat()


@pytest.fixture
def live_ids(app, org):
    """A live protein-design pipeline (3 results) and a live ADME prediction."""
    with get_engine(app).begin() as conn:
        pipeline_id, _ = factories.insert_pipeline(conn, org.workspace_id, n_results=3)
        prediction_id = factories.insert_prediction(conn, org.workspace_id, "adme")
    return {"pipeline": pipeline_id, "prediction": prediction_id}


@pytest.mark.slow
def test_a_test_key_lists_shares_and_views_its_synthetic_data(app, org, live_ids):
    with sdk_client(app, org.admin_key) as admin:
        test_key = admin.admin.api_keys.create(name="integration", mode="test").key

    with sdk_client(app, test_key) as sdk:
        # First use: the workspace gets one test-mode run of each kind (protein redesign
        # runs have their own resource, /protein/redesign) and the two predictions.
        designs = list(sdk.protein.design.list(limit=1))
        assert len(designs) == 1 and {run.livemode for run in designs} == {False}
        with http_client(app) as http:
            explore = http.get("/compute/v1/small-molecule/explore",
                               headers={"x-api-key": test_key}).json()["data"]
        assert [run["livemode"] for run in explore] == [False]
        assert len(list(sdk.small_molecule.explore.list_results(explore[0]["id"], limit=2))) \
            == synthetic_data.RESULTS_PER_PIPELINE
        for resource in (sdk.protein.sequence_redesign, sdk.protein.library_screen,
                         sdk.small_molecule.design, sdk.small_molecule.library_screen):
            [run] = list(resource.list())
            assert run.livemode is False and run.status == "succeeded"
            results = list(resource.list_results(run.id, limit=2))  # auto-paging
            assert len(results) == synthetic_data.RESULTS_PER_PIPELINE
        [adme] = list(sdk.predictions.adme.list())
        [complex_] = list(sdk.predictions.structure_and_binding.list())
        assert adme.livemode is False and complex_.livemode is False

        pipeline = designs[0].id
        link = sdk.share_links.create(expires_at=expiry(), pipeline_ids=[pipeline],
                                      prediction_ids=[adme.id, complex_.id])
        assert sdk.share_links.retrieve(link.id).pipeline_ids == [pipeline]
        with pytest.raises(boltz_api.BadRequestError) as refused:
            sdk.share_links.create(expires_at=expiry(), pipeline_ids=[live_ids["pipeline"]])
        assert live_ids["pipeline"] in refused.value.body["message"]
        with pytest.raises(boltz_api.BadRequestError):
            sdk.share_links.create(expires_at=expiry(),
                                   prediction_ids=[live_ids["prediction"]])
        [first_result] = sdk.protein.design.list_results(pipeline, limit=1).data

    with http_client(app) as browser:
        read = browser.get(f"/compute/v1/share/{link.id}").json()
        assert {p["livemode"] for p in read["pipelines"] + read["predictions"]} == {False}
        pages = ["", f"/pipelines/{pipeline}",
                 f"/pipelines/{pipeline}/results/{first_result.id}",
                 f"/predictions/{adme.id}", f"/predictions/{complex_.id}"]
        for page in pages:
            response = browser.get(f"/share/{link.id}{page}")
            assert response.status_code == 200, page
            assert NOTICE in response.text, page

    with sdk_client(app, org.admin_key) as admin:
        with pytest.raises(boltz_api.NotFoundError):
            admin.share_links.retrieve(link.id)
        with pytest.raises(boltz_api.NotFoundError):
            admin.share_links.archive(link.id)
        # Live lists never show the synthetic runs.
        assert [run.id for run in admin.protein.design.list()] == [live_ids["pipeline"]]
        assert [p.id for p in admin.predictions.adme.list()] == [live_ids["prediction"]]
        now = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
        usage = admin.admin.usage.list(starting_at=now - timedelta(days=30),
                                       ending_at=now + timedelta(hours=1), window_size="DAY")
        assert list(usage) == []  # test-mode activity is not billed
        live_link = admin.share_links.create(expires_at=expiry(),
                                             pipeline_ids=[live_ids["pipeline"]])
    with http_client(app) as browser:
        assert NOTICE not in browser.get(f"/share/{live_link.id}").text
