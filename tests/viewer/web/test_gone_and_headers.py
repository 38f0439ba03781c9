"""The one 404 page for everything gone or not covered, and the hygiene headers of every
viewer route (pages, downloads, error pages, robots.txt)."""

from __future__ import annotations

import base64
import hashlib
import re
from datetime import timedelta

import pytest

from app.platform.db import get_engine
from app.platform.timeutil import utcnow
from tests.support import factories
from tests.support.error_pages import without_reference


def gone_paths(app, org, shared) -> dict[str, str]:
    """Return paths that must all answer the same 404, by what makes them gone."""
    with get_engine(app).begin() as conn:
        other_pipeline, other_results = factories.insert_pipeline(
            conn, org.workspace_id, "protein_design", 1, artifact_dir=app.config["ARTIFACT_DIR"])
    expired = factories.make_link(app, org, pipeline_ids=[shared.pipelines["protein_design"]])
    factories.set_link(app, expired.id, expires_at=utcnow() - timedelta(minutes=1))
    archived = factories.make_link(app, org, pipeline_ids=[shared.pipelines["protein_design"]])
    factories.set_link(app, archived.id, archived_at=utcnow())
    pd = shared.pipelines["protein_design"]
    rid = shared.results["protein_design"][0]
    return {
        "unknown link": "/share/sl_thisLinkDoesNotExistAtAll0000000",
        "expired link": f"/share/{expired.id}",
        "archived link": f"/share/{archived.id}",
        "expired link's pipeline": f"/share/{expired.id}/pipelines/{pd}",
        "uncovered pipeline": shared.url(f"/pipelines/{other_pipeline}"),
        "uncovered pipeline's export": shared.url(f"/pipelines/{other_pipeline}/export.csv"),
        "expired link's export": f"/share/{expired.id}/pipelines/{pd}/export.csv",
        "uncovered pipeline's result": shared.url(
            f"/pipelines/{other_pipeline}/results/{other_results[0]}"),
        "uncovered result download": shared.url(
            f"/pipelines/{other_pipeline}/results/{other_results[0]}/artifacts/archive"),
        "result of another pipeline": shared.url(
            f"/pipelines/{shared.pipelines['protein_redesign']}/results/{rid}"),
        "unknown result": shared.url(f"/pipelines/{pd}/results/res_nope"),
        "unknown artifact name": shared.url(f"/pipelines/{pd}/results/{rid}/artifacts/secret"),
        "absent ligand structure": shared.url(
            f"/pipelines/{pd}/results/{rid}/artifacts/ligand_structure"),
        "unknown prediction": shared.url("/predictions/pred_nope"),
        "malformed id": "/share/%3Cscript%3E",
        "unknown route": shared.url("/nothing-here"),
    }


def test_every_gone_thing_is_the_same_404_page(app, client, org, shared):
    bodies = {}
    for why, path in gone_paths(app, org, shared).items():
        response = client.get(path)
        assert response.status_code == 404, (why, response.status_code)
        assert response.mimetype == "text/html", why
        bodies[why] = without_reference(response.get_data(as_text=True))
    first = next(iter(bodies.values()))
    assert "ask the person who sent you the link for a new one" in first
    for why, body in bodies.items():
        assert body == first, why


HEADERS = {
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
}


def viewer_routes(shared) -> dict[str, tuple[str, int]]:
    """Return a path for every viewer route with its expected status."""
    pd = shared.pipelines["protein_design"]
    rid = shared.results["protein_design"][0]
    return {
        "overview": (shared.url(), 200),
        "results": (shared.url(f"/pipelines/{pd}"), 200),
        "results embed": (shared.url(f"/pipelines/{pd}?embed=1"), 200),
        "csv": (shared.url(f"/pipelines/{pd}/export.csv"), 200),
        "result": (shared.url(f"/pipelines/{pd}/results/{rid}"), 200),
        "download": (shared.url(f"/pipelines/{pd}/results/{rid}/artifacts/archive"), 200),
        "prediction": (shared.url(f"/predictions/{shared.predictions[0]}"), 200),
        "prediction download": (
            shared.url(f"/predictions/{shared.predictions[0]}/artifacts/structure"), 200),
        "404": ("/share/sl_unknownUnknownUnknownUnknown00", 404),
        "400": (shared.url(f"/pipelines/{pd}?limit=abc"), 400),
        "robots": ("/robots.txt", 200),
    }


def test_hygiene_headers_on_every_viewer_route(client, shared):
    for name, (path, status) in viewer_routes(shared).items():
        response = client.get(path)
        assert response.status_code == status, name
        for header, value in HEADERS.items():
            assert response.headers.get(header) == value, (name, header)
        assert "noindex" in response.headers["X-Robots-Tag"], name
        csp = response.headers["Content-Security-Policy"]
        assert "default-src 'none'" in csp and "script-src 'self' 'sha256-" in csp, name
        assert "nonce" not in csp, name
        assert "unsafe-inline" not in csp, name
        if "embed" in name:
            assert "X-Frame-Options" not in response.headers
            assert "frame-ancestors *" in csp
        else:
            assert response.headers["X-Frame-Options"] == "DENY", name
            assert "frame-ancestors 'none'" in csp, name


def test_the_only_inline_script_is_the_import_map_allowed_by_its_hash(client, shared):
    # The CSP names the import map's SHA-256, not a nonce: the same policy and the same
    # markup on every request (whole pages can be kept: results.page_cache), and a
    # script injected inline, even one that copied a page's markup, is refused.
    pipeline = next(iter(shared.pipelines.values()))
    first, second = (client.get(shared.url(f"/pipelines/{pipeline}")) for _ in range(2))
    policy = first.headers["Content-Security-Policy"]
    assert policy == second.headers["Content-Security-Policy"]
    body = first.get_data(as_text=True)
    inline = re.findall(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", body, re.S)
    assert len(inline) == 1 and '<script type="importmap">' in body
    digest = base64.b64encode(hashlib.sha256(inline[0].encode()).digest()).decode()
    assert f"script-src 'self' 'sha256-{digest}';" in policy
    overview = client.get(shared.url()).get_data(as_text=True)
    assert "<script>" not in overview and "<script " in overview
    assert 'src="/static/js/viewer.js?v=' in overview  # fingerprinted (web.static_assets)
    assert "style=" not in body and "style=" not in overview


@pytest.mark.slow
def test_pages_reference_no_third_party_host(client, shared):
    for path, _status in viewer_routes(shared).values():
        body = client.get(path).get_data(as_text=True)
        assert "https://" not in body and "//fonts." not in body, path


def test_only_the_structure_page_relaxes_the_policy_for_mol_star(client, shared):
    pd = shared.pipelines["protein_design"]
    rid = shared.results["protein_design"][0]
    response = client.get(shared.url(f"/pipelines/{pd}/results/{rid}/structure"))
    assert response.status_code == 200
    csp = response.headers["Content-Security-Policy"]
    assert "script-src 'self' 'unsafe-eval' 'sha256-" in csp
    assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["Referrer-Policy"] == "no-referrer"
    body = response.get_data(as_text=True)
    assert "/static/vendor/molstar-share-5.11.0/molstar.js" in body
    assert f'data-url="/share/{shared.link_id}/pipelines/{pd}/results/{rid}/artifacts/structure"' \
        in body
    # The very next page is strict again.
    strict = client.get(shared.url(f"/pipelines/{pd}/results/{rid}"))
    assert "unsafe" not in strict.headers["Content-Security-Policy"]
    assert f"/results/{rid}/structure" in strict.get_data(as_text=True)


def test_structure_page_of_something_gone_is_the_404(client, shared):
    pd = shared.pipelines["protein_design"]
    response = client.get(shared.url(f"/pipelines/{pd}/results/res_nope/structure"))
    assert response.status_code == 404
    assert "unsafe" not in response.headers["Content-Security-Policy"]
