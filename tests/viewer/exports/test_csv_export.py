"""The whole-pipeline CSV export over the seeded demo data (in-process API), and against a
real misbehaving API server when the walk breaks off midway."""

from __future__ import annotations

import csv
import io
import re
import time
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa

from app.platform.db import get_engine
from app.store import schema
from app.viewer.core.api_client import api
from app.viewer.exports import csv_writer, sources, stream
from tests.support.error_pages import without_reference
from tests.support.fake_api import FakeApi, json_response
from tests.support.links import point_viewer_at
from tests.support.sdk_runs import run_record, share_read

# Its fixtures start gunicorn.
pytestmark = pytest.mark.slow

# The designed chain's computed properties and liability count (app.viewer.proteins).
PROTEIN = ["protein_weight", "isoelectric_point", "net_charge", "gravy", "instability_index",
           "extinction_coefficient", "liability_count", "liability_oxidation"]
EXPECTED_HEADERS = {
    "protein_design": [
        "result_id", "sequence_length", "chains", "sequence", "entities",
        "binding_confidence", "iptm", "min_interaction_pae", "structure_confidence",
        "helix_fraction", "sheet_fraction", "loop_fraction", "ipsae_min", *PROTEIN, "warnings"],
    "protein_redesign": [
        "result_id", "sequence_length", "chains", "sequence", "entities",
        "binding_confidence", "iptm", "min_interaction_pae", "structure_confidence",
        "helix_fraction", "sheet_fraction", "loop_fraction", "ipsae_min", *PROTEIN, "warnings"],
    "protein_sequence_redesign": [
        "result_id", "variant", "sequence_length", "chains", "sequence", "entities",
        "binding_confidence", "iptm", "min_interaction_pae", "structure_confidence",
        "helix_fraction", "sheet_fraction", "loop_fraction", "ipsae_min", *PROTEIN, "warnings"],
    "protein_library_screen": [
        "result_id", "external_id", "sequence_length", "chains", "sequence", "entities",
        "binding_confidence", "iptm", "min_interaction_pae", "structure_confidence",
        "helix_fraction", "sheet_fraction", "loop_fraction", "ipsae_min", *PROTEIN, "warnings"],
    "small_molecule_design": [
        "result_id", "smiles", "inchikey", "binding_confidence", "optimization_score", "iptm",
        "ptm",
        "structure_confidence", "complex_plddt", "complex_iplddt", "mol_weight", "clogp",
        "tpsa", "qed", "lipophilicity", "permeability", "solubility", "warnings", "alerts"],
    "small_molecule_library_screen": [
        "result_id", "external_id", "smiles", "inchikey", "binding_confidence",
        "optimization_score",
        "iptm", "ptm", "structure_confidence", "complex_plddt", "complex_iplddt",
        "mol_weight", "clogp", "tpsa", "qed", "lipophilicity", "permeability", "solubility",
        "warnings", "alerts"],
}
EXPECTED_HEADERS = {kind: ["rank", "label", *names] for kind, names in EXPECTED_HEADERS.items()}
# The API's own order (ids are time-ordered): exports walk the API's pages without an index.
IN_ID_ORDER = "?sort=id"


# The demo: a link over six pipelines (260 protein_design results). Tests marked reads_demo
# read the shared one; the others take a copy of their own.


def by_id(rows: list[list[str]]) -> dict[str, dict[str, str]]:
    """Return the CSV's rows (after the header) as cells by column, keyed by result id."""
    return {row[2]: dict(zip(rows[0], row, strict=True)) for row in rows[1:]}


def export_path(demo: dict, kind: str, link: str = "public", query: str = "") -> str:
    """Return the export URL of the demo pipeline of ``kind`` through a demo link."""
    link_id = demo["share_links"][link]["id"]
    return f"/share/{link_id}/pipelines/{demo['pipelines'][kind]}/export.csv{query}"


def parse(response) -> list[list[str]]:
    """Return the rows of a CSV response, asserting it is one."""
    assert response.status_code == 200, response.data[:500]
    return list(csv.reader(io.StringIO(response.get_data(as_text=True))))


def api_records(app, demo: dict, kind: str) -> list[dict]:
    """Return every result of a demo pipeline, straight from the API."""
    link_id = demo["share_links"]["public"]["id"]
    with app.test_request_context():
        return api().results(link_id, demo["pipelines"][kind], limit=1000)["data"]


def spy_results_calls(app, monkeypatch) -> list[dict]:
    """Record the keyword arguments of every results-page call the viewer makes."""
    with app.test_request_context():
        client = api()
    calls: list[dict] = []
    original = client.results

    def spy(*args, **kwargs):
        calls.append(kwargs)
        return original(*args, **kwargs)

    monkeypatch.setattr(client, "results", spy)
    return calls


# Not reads_demo: counts the API's pages, which a current index would answer instead.
def test_every_result_of_a_260_result_pipeline_over_several_api_pages(
        app, client, demo, monkeypatch):
    monkeypatch.setattr(sources, "EXPORT_PAGE_SIZE", 100)
    records = api_records(app, demo, "protein_design")
    calls = spy_results_calls(app, monkeypatch)
    rows = parse(client.get(export_path(demo, "protein_design", query=IN_ID_ORDER)))
    assert len(records) == 260
    assert rows[0] == EXPECTED_HEADERS["protein_design"]
    assert len(rows) - 1 == 260
    # Every result exactly once, in the API's order: no page skipped or repeated.
    assert [row[2] for row in rows[1:]] == [r["id"] for r in records]
    assert [row[0] for row in rows[1:]] == [str(n) for n in range(1, 261)]
    assert [c.get("after_id") for c in calls] == [None, records[99]["id"], records[199]["id"]]
    assert all(c["limit"] == 100 for c in calls)


@pytest.mark.reads_demo
def test_columns_of_each_kind_with_full_values(app, client, demo):
    for kind, expected in EXPECTED_HEADERS.items():
        rows = parse(client.get(export_path(demo, kind)))
        assert rows[0] == expected, kind
        records = api_records(app, demo, kind)
        assert len(rows) - 1 == len(records), kind
        cells = by_id(rows)
        assert set(cells) == {r["id"] for r in records}
        for record in records:
            cell = cells[record["id"]]
            for key, value in (record.get("metrics") or {}).items():
                # Full precision: the text reads back to exactly the API's number.
                assert float(cell[key]) == value, (kind, key)
            codes = [w["code"] for w in record.get("warnings") or []]
            assert cell["warnings"] == ";".join(codes)
            if kind.startswith("small"):
                assert cell["smiles"] == record["smiles"]
                adme = record.get("adme") or {}
                assert cell["solubility"] == (adme.get("solubility") or "")
                if adme.get("lipophilicity") is not None:
                    assert float(cell["lipophilicity"]) == adme["lipophilicity"]
            else:
                proteins = [e for e in record["entities"] if e["type"] == "protein"]
                assert cell["sequence"] == proteins[0]["value"]
                assert cell["sequence_length"] == str(len(proteins[0]["value"]))
                for entity in record["entities"]:
                    assert entity["value"] in cell["entities"]
            if kind.endswith("library_screen"):
                assert cell["external_id"] == record["external_id"]
            if kind == "protein_sequence_redesign":
                assert cell["variant"] == record["type"] in ("binder", "generic")


def test_entities_in_compact_chain_form():
    text = csv_writer.entities_text([
        {"type": "protein", "chain_ids": ["A"], "value": "MKT"},
        {"type": "protein", "chain_ids": ["B", "C"], "value": "GSS"},
        {"type": "ligand_ccd", "chain_ids": ["D"], "value": "NAG"},
    ])
    assert text == "A:MKT;B,C:GSS;D:ligand_ccd:NAG"


@pytest.mark.reads_demo
def test_ids_filter_exports_just_those_results(app, client, demo):
    records = api_records(app, demo, "protein_design")
    wanted = [records[5]["id"], records[250]["id"], records[0]["id"]]
    query = "?ids=" + ",".join([*wanted, "res_notInThisPipeline"])
    response = client.get(export_path(demo, "protein_design", query=query))
    rows = parse(response)
    assert sorted(row[2] for row in rows[1:]) == sorted(wanted)
    assert "-selection-" in response.headers["Content-Disposition"]
    bad = client.get(export_path(demo, "protein_design", query="?ids=%3Cscript%3E"))
    assert bad.status_code == 400 and bad.mimetype == "text/html"


# Not reads_demo: changes a result.
def test_submitter_text_that_starts_a_formula_is_written_as_text(app, client, demo):
    pipeline_id = demo["pipelines"]["small_molecule_library_screen"]
    with get_engine(app).begin() as conn:
        first = conn.execute(sa.select(schema.results.c.id).where(
            schema.results.c.pipeline_id == pipeline_id).order_by(schema.results.c.id)
        ).scalars().first()
        conn.execute(schema.results.update().where(schema.results.c.id == first)
                     .values(external_id='=HYPERLINK("http://evil.example","x")'))
    rows = parse(client.get(export_path(demo, "small_molecule_library_screen")))
    cell = by_id(rows)[first]
    assert cell["external_id"] == '\'=HYPERLINK("http://evil.example","x")'
    # Negative numbers stay numbers.
    assert any(float(r[rows[0].index("optimization_score")]) < 0 for r in rows[1:])
    assert not any(c[:1] in "=+@" for r in rows[1:] for c in r if c)


def test_formula_guard_on_cells():
    assert csv_writer.defuse_formula("=1+1") == "'=1+1"
    assert csv_writer.defuse_formula("@SUM(A1)") == "'@SUM(A1)"
    assert csv_writer.defuse_formula("-1.5") == "-1.5"
    assert csv_writer.defuse_formula("+cmd|' /C calc'!A0") == "'+cmd|' /C calc'!A0"
    assert csv_writer.defuse_formula("L1300-01-A02") == "L1300-01-A02"


@pytest.mark.reads_demo
def test_headers_name_the_file_after_the_pipeline_and_keep_the_hygiene(client, demo):
    response = client.get(export_path(demo, "protein_design"))
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "text/csv; charset=utf-8"
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    assert response.headers["Content-Disposition"] == (
        f'attachment; filename="Protein_design-{today}.csv"')  # the kind's label: no name
    assert demo["share_links"]["public"]["id"] not in response.headers["Content-Disposition"]
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert response.headers["Cache-Control"] == "no-store"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert "noindex" in response.headers["X-Robots-Tag"]
    assert response.headers["X-Frame-Options"] == "DENY"
    csp = response.headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "unsafe" not in csp


# Not reads_demo: counts the API's pages, which a current index would answer instead.
def test_the_body_streams_one_api_page_at_a_time(app, client, demo, monkeypatch):
    monkeypatch.setattr(sources, "EXPORT_PAGE_SIZE", 100)
    calls = spy_results_calls(app, monkeypatch)
    response = client.get(export_path(demo, "protein_design", query=IN_ID_ORDER),
                          buffered=False)
    assert response.status_code == 200
    assert response.is_streamed and "Content-Length" not in response.headers
    # Only the first page was read before the headers went out; the rest follow the body.
    assert len(calls) == 1
    chunks = iter(response.response)
    assert next(chunks).startswith(b"rank,label,result_id,")
    assert len(next(chunks).splitlines()) == 100
    assert len(calls) == 1
    assert len(next(chunks).splitlines()) == 100
    assert len(calls) == 2
    rest = b"".join(chunks)
    assert len(rest.splitlines()) == 60 and len(calls) == 3
    response.close()


@pytest.mark.reads_demo
def test_the_download_link_on_the_results_page(client, demo):
    link_id = demo["share_links"]["public"]["id"]
    pd = demo["pipelines"]["protein_design"]
    body = client.get(f"/share/{link_id}/pipelines/{pd}").get_data(as_text=True)
    # The whole pipeline: no query on the link (the default page size is no limit).
    assert re.search(rf'href="/share/{link_id}/pipelines/{pd}/export.csv" download[^>]*>'
                     r"CSV<", body)
    embedded = client.get(f"/share/{link_id}/pipelines/{pd}?embed=1&ids=res_a,res_b&limit=25")
    body = embedded.get_data(as_text=True)
    href = re.search(r'href="([^"]*export\.csv[^"]*)" download[^>]*>CSV<', body).group(1)
    assert "embed=1" in href and "ids=res_a,res_b" in href.replace("%2C", ",")
    # A view of 25 a page exports its first 25 (the menu says so): "the top 25".
    assert "limit=25" in href and "Download the first 25" in body


@pytest.mark.reads_demo
def test_email_link_export_needs_a_listed_verified_address(app, client, demo, monkeypatch):
    monkeypatch.setattr(sources, "EXPORT_PAGE_SIZE", 100)  # a token per page, 3 pages
    path = export_path(demo, "protein_design", link="email")
    link_id = demo["share_links"]["email"]["id"]
    anonymous = client.get(path)
    assert anonymous.status_code == 302
    assert anonymous.headers["Location"].startswith(f"/share/{link_id}/sign-in")
    with client.session_transaction() as session:
        session["verified_email"] = "mallory@example.net"
        session["verified_at"] = int(time.time())
    refused = client.get(path)
    assert refused.status_code == 403 and refused.mimetype == "text/html"
    assert b"result_id" not in refused.data
    with client.session_transaction() as session:
        session["verified_email"] = demo["share_links"]["email"]["allowed_emails"][0]
    rows = parse(client.get(path))
    assert len(rows) - 1 == 260


@pytest.mark.reads_demo
def test_unknown_link_or_uncovered_pipeline_is_the_shared_404(client, demo):
    public = demo["share_links"]["public"]["id"]
    not_found = client.get(f"/share/{public}/pipelines/pipe_nope/export.csv")
    unknown = client.get("/share/sl_thisLinkDoesNotExistAtAll0000000/pipelines/"
                         f"{demo['pipelines']['protein_design']}/export.csv")
    assert not_found.status_code == unknown.status_code == 404
    assert without_reference(not_found.get_data(as_text=True)) == \
        without_reference(unknown.get_data(as_text=True))
    assert not_found.mimetype == "text/html"


# --- a real API server that breaks off ---------------------------------------------------

SHARE = share_read("sl_fake", [run_record("protein_design", "pipe_fake", 5)])


def record(index: int) -> dict:
    """Return a minimal protein_design result."""
    return {"id": f"res_{index:03d}", "metrics": {"binding_confidence": 0.5 + index / 100},
            "entities": [{"type": "protein", "chain_ids": ["A"], "value": "MKT"}]}


def breaking_api(fail_first: bool = False):
    """An API answering the share, a first page of two results, then 500 for the next."""

    def handler(request):
        if request.path == "/compute/v1/share/sl_fake":
            return json_response(SHARE)
        if request.path.endswith("/results") and not request.args.get("after_id") \
                and not fail_first:
            return json_response({"data": [record(0), record(1)], "has_more": True,
                                  "first_id": "res_000", "last_id": "res_001"})
        return json_response({"statusCode": 500, "error": "Error", "message": "boom"}, 500)

    return handler


@pytest.fixture
def broken_api(app):
    """Point the viewer at a real HTTP server that fails after the first page."""
    server = FakeApi(breaking_api())
    point_viewer_at(app, server.url)
    yield server
    server.stop()


def test_a_failure_midway_ends_with_a_marker_row_and_an_aborted_body(client, broken_api):
    response = client.get("/share/sl_fake/pipelines/pipe_fake/export.csv?sort=id",
                          buffered=False)
    assert response.status_code == 200
    received = []
    with pytest.raises(stream.ExportIncomplete):
        for chunk in response.response:
            received.append(chunk)
    rows = list(csv.reader(io.StringIO(b"".join(received).decode())))
    assert [row[2] for row in rows[1:3]] == ["res_000", "res_001"]
    assert rows[-1][0].startswith(stream.INCOMPLETE_MARKER)
    assert "stopped after 2 rows" in rows[-1][0]
    assert len(rows) == 4
    assert any("after_id=res_001" in call for call in broken_api.calls)


def test_a_failure_on_the_first_page_is_an_error_page_not_a_csv(app, client):
    server = FakeApi(breaking_api(fail_first=True))
    point_viewer_at(app, server.url)
    try:
        response = client.get("/share/sl_fake/pipelines/pipe_fake/export.csv?sort=id")
    finally:
        server.stop()
    assert response.status_code == 502
    assert response.mimetype == "text/html"
    assert response.headers["Retry-After"] == "10"


def broken_download_behind_gunicorn(db_url: str, tmp_path, extension: str
                                    ) -> tuple[bytes, str]:
    """Download ``export.<extension>`` through gunicorn from an API that breaks midway.

    Asserts what every format shares: the answer starts as a chunked 200, and the body
    ends without its final chunk, so the visitor's HTTP client raises. Returns the bytes
    received and the server's log.
    """
    import httpx

    from tests.support.servers import start_gunicorn, stop_gunicorn

    api_server = FakeApi(breaking_api())
    instance = tmp_path / "instance"
    instance.mkdir()
    server = start_gunicorn({
        "FLASK_DATABASE_URL": db_url, "FLASK_SECRET_KEY": "live-secret",
        "FLASK_INSTANCE_PATH": str(instance), "FLASK_COMPUTE_API_URL": api_server.url,
    }, tmp_path, workers=1)
    received = bytearray()
    try:
        with pytest.raises(httpx.RemoteProtocolError), httpx.stream(
                "GET",
                f"{server.url}/share/sl_fake/pipelines/pipe_fake/export.{extension}?sort=id",
                timeout=20) as response:
            assert response.status_code == 200
            assert response.headers["Transfer-Encoding"] == "chunked"
            for chunk in response.iter_raw():
                received += chunk
    finally:
        stop_gunicorn(server)
        api_server.stop()
    log = server.log_text()
    assert "ExportIncomplete" in log and "sl_fake" not in log
    return bytes(received), log


def test_behind_gunicorn_a_broken_export_is_a_failed_download(db_url, tmp_path):
    """The visitor's HTTP client sees the body end without its final chunk: an error."""
    received, _log = broken_download_behind_gunicorn(db_url, tmp_path, "csv")
    assert b"res_001" in received
    assert stream.INCOMPLETE_MARKER.encode() in received
