"""The viewer says plainly, on every page of a test-mode link, that it shows test data."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
import sqlalchemy as sa

from app.platform.db import get_engine
from app.platform.timeutil import utcnow
from app.store import schema
from app.store.share_links import create_share_link
from app.synthetic import test_mode as synthetic_data

NOTICE = re.compile(r'<p class="notice test-data-notice" role="note">\s*'
                    r"<strong>Test data:</strong> these results are synthetic\.")


@pytest.fixture
def test_link(app, org):
    """A public test-mode link over the synthetic data of the org's workspace."""
    with get_engine(app).begin() as conn:
        synthetic_data.seed_workspace(conn, org.workspace_id, app.config["ARTIFACT_DIR"])
        p, r, pr = schema.pipelines, schema.results, schema.predictions
        pipeline_id = conn.execute(sa.select(p.c.id).where(
            p.c.kind == "small_molecule_design")).scalar_one()
        result_id = conn.execute(sa.select(r.c.id).where(r.c.pipeline_id == pipeline_id)
                                 .order_by(r.c.id)).scalars().first()
        prediction_id = conn.execute(sa.select(pr.c.id).where(
            pr.c.application == "structure_and_binding")).scalar_one()
        link = create_share_link(
            conn, organization_id=org.organization_id, workspace_id=org.workspace_id,
            access_mode="public", allowed_emails=[], pipeline_ids=[pipeline_id],
            prediction_ids=[prediction_id], expires_at=utcnow() + timedelta(days=1),
            livemode=False)
    base = f"/share/{link.id}"
    return [base, f"{base}/pipelines/{pipeline_id}",
            f"{base}/pipelines/{pipeline_id}/results/{result_id}",
            f"{base}/pipelines/{pipeline_id}/results/{result_id}/structure",
            f"{base}/predictions/{prediction_id}",
            f"{base}/predictions/{prediction_id}/structure"]


@pytest.mark.slow
def test_every_page_of_a_test_mode_link_shows_the_notice(client, test_link):
    for path in test_link:
        for query in ("", "?embed=1"):
            response = client.get(path + query)
            assert response.status_code == 200, (path, response.data[:500])
            assert len(NOTICE.findall(response.get_data(as_text=True))) == 1, path + query


def test_pages_of_a_live_link_have_no_notice(client, shared):
    pipeline_id = shared.pipelines["protein_design"]
    for path in (shared.url(), shared.url(f"/pipelines/{pipeline_id}"),
                 shared.url(f"/predictions/{shared.predictions[0]}")):
        response = client.get(path)
        assert response.status_code == 200
        assert "Test data:" not in response.get_data(as_text=True)
