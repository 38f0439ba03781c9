"""A structure_and_binding prediction in 3D (Mol*) and its downloads, over the seeded demo
data: the structure page, its same-origin file route, and the shared 404."""

from __future__ import annotations

import re
import time

import pytest

from app import artifact_storage
from app.platform.db import get_engine
from app.store import schema
from tests.support.error_pages import without_reference

# Reads the demo: a public link with a structure_and_binding and an adme prediction.
pytestmark = pytest.mark.reads_demo


def prediction_files(app, prediction_id: str) -> dict[str, tuple[bytes, str]]:
    """Return the stored bytes and filename of each artifact of a prediction, by role."""
    with get_engine(app).connect() as conn:
        rows = conn.execute(schema.artifacts.select().where(
            schema.artifacts.c.prediction_id == prediction_id)).all()
    directory = app.config["ARTIFACT_DIR"]
    return {row.role: (artifact_storage.path_for(directory, row.storage_path).read_bytes(),
                       row.filename) for row in rows}


def paths(demo: dict) -> tuple[str, str]:
    """Return the public link's base path and the structure_and_binding prediction id."""
    return (f"/share/{demo['share_links']['public']['id']}",
            demo["predictions"]["structure_and_binding"])


def test_prediction_page_links_3d_view_and_every_file(app, client, demo):
    base, pid = paths(demo)
    body = client.get(f"{base}/predictions/{pid}").get_data(as_text=True)
    assert f'href="{base}/predictions/{pid}/structure"' in body
    files = prediction_files(app, pid)
    # One structure per sample (app.synthetic.predictions), the best also as "structure".
    assert set(files) == {"archive", "structure", "ligand_structure", "structure_sample_1",
                          "structure_sample_2", "structure_sample_3"}
    for role in files:
        assert f'href="{base}/predictions/{pid}/artifacts/{role}" download' in body
    # An ADME prediction has no structure to show.
    adme = client.get(f"{base}/predictions/{demo['predictions']['adme']}")
    assert "/structure\"" not in adme.get_data(as_text=True)


def test_prediction_structure_page_loads_the_file_through_the_viewer(client, demo):
    base, pid = paths(demo)
    response = client.get(f"{base}/predictions/{pid}/structure?embed=1")
    assert response.status_code == 200
    body = response.get_data(as_text=True)
    assert f'data-url="{base}/predictions/{pid}/artifacts/structure"' in body
    assert 'data-format="mmcif"' in body
    assert "/static/vendor/molstar-share-5.11.0/molstar.js" in body
    assert f'href="{base}/predictions/{pid}?embed=1"' in body  # breadcrumb keeps embed
    csp = response.headers["Content-Security-Policy"]
    assert "script-src 'self' 'unsafe-eval' 'sha256-" in csp
    assert response.headers["Referrer-Policy"] == "no-referrer"
    # Every other page, the prediction page included, stays strict.
    strict = client.get(f"{base}/predictions/{pid}")
    assert "unsafe" not in strict.headers["Content-Security-Policy"]


def test_prediction_downloads_are_the_stored_bytes(app, client, demo):
    base, pid = paths(demo)
    for role, (content, _stored_name) in prediction_files(app, pid).items():
        response = client.get(f"{base}/predictions/{pid}/artifacts/{role}", buffered=False)
        assert response.status_code == 200, role
        assert response.is_streamed
        assert response.get_data() == content, role
        # The output names a URL only: the viewer names the file after the prediction.
        assert re.fullmatch(rf'attachment; filename="{pid}_[a-z0-9_]+\.(cif|zip|sdf|pdb)"',
                            response.headers["Content-Disposition"]), role
        assert response.headers["Cache-Control"] == "no-store"


def test_unknown_file_names_and_structureless_predictions_are_the_shared_404(client, demo):
    base, pid = paths(demo)
    email = demo["share_links"]["email"]
    with client.session_transaction() as session:  # signed in, listed on the email link
        session["verified_email"] = email["allowed_emails"][0]
        session["verified_at"] = int(time.time())
    adme = demo["predictions"]["adme"]
    gone = {
        "unknown link": "/share/sl_thisLinkDoesNotExistAtAll0000000",
        "unknown artifact name": f"{base}/predictions/{pid}/artifacts/secret",
        "a path as a name": f"{base}/predictions/{pid}/artifacts/..%2Fstructure",
        "url as a name": f"{base}/predictions/{pid}/artifacts/http%3A%2F%2Fevil",
        "adme structure page": f"{base}/predictions/{adme}/structure",
        "unknown prediction structure": f"{base}/predictions/pred_nope/structure",
        "prediction the email link does not cover": f"/share/{email['id']}/predictions/{pid}"
                                                     "/structure",
        "its file": f"/share/{email['id']}/predictions/{pid}/artifacts/structure",
    }
    bodies = {}
    for why, path in gone.items():
        response = client.get(path)
        assert response.status_code == 404, why
        assert "unsafe" not in response.headers["Content-Security-Policy"], why
        bodies[why] = without_reference(response.get_data(as_text=True))
    first = bodies["unknown link"]
    assert all(body == first for body in bodies.values()), \
        [why for why, body in bodies.items() if body != first]
