"""Downloads through the viewer: the bytes of the stored file, its name and type."""

from __future__ import annotations

import re

from app import artifact_storage
from app.platform.db import get_engine
from app.store import schema
from app.viewer.pages import downloads
from app.viewer.runtime import work_gate
from tests.support import factories


def stored_bytes(app, result_id: str, role: str) -> tuple[bytes, str]:
    """Return the file behind a result's artifact and its recorded filename."""
    with get_engine(app).connect() as conn:
        row = conn.execute(schema.artifacts.select().where(
            schema.artifacts.c.result_id == result_id, schema.artifacts.c.role == role)).one()
    path = artifact_storage.path_for(app.config["ARTIFACT_DIR"], row.storage_path)
    return path.read_bytes(), row.filename


def test_download_streams_the_stored_file(app, client, shared):
    for kind, role in (("protein_design", "archive"), ("protein_design", "structure"),
                       ("small_molecule_design", "ligand_structure")):
        result_id = shared.results[kind][1]
        response = client.get(shared.url(
            f"/pipelines/{shared.pipelines[kind]}/results/{result_id}/artifacts/{role}"),
            buffered=False)
        expected, filename = stored_bytes(app, result_id, role)
        assert response.status_code == 200
        assert response.is_streamed
        assert response.get_data() == expected
        assert response.headers["Content-Length"] == str(len(expected))
        assert response.headers["Content-Disposition"] == f'attachment; filename="{filename}"'
        assert response.headers["Cache-Control"] == "no-store"


def test_content_types_follow_the_artifact(client, shared):
    pd = shared.pipelines["protein_design"]
    rid = shared.results["protein_design"][0]
    archive = client.get(shared.url(f"/pipelines/{pd}/results/{rid}/artifacts/archive"))
    structure = client.get(shared.url(f"/pipelines/{pd}/results/{rid}/artifacts/structure"))
    assert archive.mimetype == "application/zip"
    assert structure.mimetype == "chemical/x-mmcif"


def test_prediction_download(client, shared):
    """A prediction's file is the URL its ``output`` names; the viewer names the file."""
    prediction_id = shared.predictions[0]  # structure and binding
    response = client.get(shared.url(f"/predictions/{prediction_id}/artifacts/structure"))
    assert response.status_code == 200
    assert response.get_data() == b"data_pred\n" + prediction_id.encode()
    assert re.search(rf'filename="{prediction_id}_best_sample\.cif"',
                     response.headers["Content-Disposition"])
    assert response.mimetype == "chemical/x-mmcif"
    # An ADME prediction's output names no file; an unknown role is no file either.
    adme = shared.predictions[1]
    assert client.get(shared.url(f"/predictions/{adme}/artifacts/structure")
                      ).status_code == 404
    assert client.get(shared.url(f"/predictions/{prediction_id}/artifacts/report")
                      ).status_code == 404


def test_a_url_from_the_visitor_is_never_followed(client, shared):
    pd = shared.pipelines["protein_design"]
    rid = shared.results["protein_design"][0]
    response = client.get(shared.url(f"/pipelines/{pd}/results/{rid}/artifacts/archive"),
                          query_string={"url": "http://127.0.0.1:1/evil"})
    # The query is ignored: the file still comes from the URL the API returned.
    assert response.status_code == 200
    assert response.get_data().startswith(b"PK\x05\x06")


def test_a_download_can_resume_with_a_byte_range(app, client, shared):
    pd = shared.pipelines["protein_design"]
    rid = shared.results["protein_design"][2]
    path = shared.url(f"/pipelines/{pd}/results/{rid}/artifacts/structure")
    expected, _filename = stored_bytes(app, rid, "structure")
    response = client.get(path, headers={"Range": "bytes=5-9"})
    assert response.status_code == 206
    assert response.get_data() == expected[5:10]
    assert response.headers["Content-Range"] == f"bytes 5-9/{len(expected)}"
    tail = client.get(path, headers={"Range": "bytes=7-"})
    assert tail.status_code == 206 and tail.get_data() == expected[7:]
    beyond = client.get(path, headers={"Range": f"bytes={len(expected) + 10}-"})
    assert beyond.status_code == 416
    # A range the viewer does not pass on (several parts) gets the whole file.
    whole = client.get(path, headers={"Range": "bytes=0-1,4-5"})
    assert whole.status_code == 200 and whole.get_data() == expected


def test_head_and_abandoned_downloads_close_the_upstream(app, client, shared, monkeypatch):
    from contextlib import contextmanager

    from app.viewer.core.api_client import api

    pd = shared.pipelines["protein_design"]
    rid = shared.results["protein_design"][3]
    path = shared.url(f"/pipelines/{pd}/results/{rid}/artifacts/archive")
    expected, _filename = stored_bytes(app, rid, "archive")
    with app.test_request_context():
        compute = api()
    opened, closed = [], []
    original = compute.open_download

    @contextmanager
    def spy(url, range_header=None):
        opened.append(url)
        try:
            with original(url, range_header) as response:
                yield response
        finally:
            closed.append(url)

    monkeypatch.setattr(compute, "open_download", spy)
    head = client.head(path)
    assert head.status_code == 200 and head.get_data() == b""
    assert head.headers["Content-Length"] == str(len(expected))
    assert len(opened) == 1 and not closed
    head.close()  # what a WSGI server does when it is done with a response
    assert len(closed) == 1  # closed though no body was read
    # A visitor who hangs up after the headers: the server closes the response.
    abandoned = client.get(path, buffered=False)
    assert abandoned.status_code == 200
    assert len(closed) == 1
    abandoned.close()
    assert len(opened) == 2 and len(closed) == 2


def test_only_large_downloads_wait_for_the_work_gate(app, org, client):
    """A page's own small files (a structure, a ligand) never meet "busy"; a download over
    SMALL_DOWNLOAD_BYTES is admitted like an export."""
    with get_engine(app).begin() as conn:
        pipeline, (small, large) = factories.insert_pipeline(
            conn, org.workspace_id, "protein_design", 2, artifact_dir=app.config["ARTIFACT_DIR"])
        factories.insert_artifact(
            conn, app.config["ARTIFACT_DIR"], content=b"x" * (downloads.SMALL_DOWNLOAD_BYTES + 1),
            role="structure", filename="big.cif", content_type="chemical/x-mmcif",
            result_id=large)
    link = factories.make_link(app, org, pipeline_ids=[pipeline]).id
    app.extensions["work_gate"] = work_gate.WorkGate(1, 1)
    with app.test_request_context(environ_base={"REMOTE_ADDR": "10.0.0.9"}):
        held = work_gate.enter("export")  # another visitor's export holds the only slot
    try:
        base = f"/share/{link}/pipelines/{pipeline}/results"
        assert client.get(f"{base}/{small}/artifacts/structure").status_code == 200
        busy = client.get(f"{base}/{large}/artifacts/structure")
        assert busy.status_code == 503 and busy.headers["Retry-After"]
    finally:
        held()
    answer = client.get(f"{base}/{large}/artifacts/structure")
    assert answer.status_code == 200
    assert len(answer.get_data()) == downloads.SMALL_DOWNLOAD_BYTES + 1
