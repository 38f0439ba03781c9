"""The JSON, FASTA, SDF and ZIP exports of a view over the seeded demo data (in-process
API), their gating, the id selection, the export menu, and API failures midway (a real
server, and behind gunicorn an aborted body)."""

from __future__ import annotations

import io
import json
import time
import zipfile

import pytest
import sqlalchemy as sa
from flask import render_template
from rdkit import Chem
from rdkit.rdBase import BlockLogs

from app import domain
from app.platform.db import get_engine
from app.store import schema
from app.viewer.exports import sources, stream, text_writers
from tests.support.error_pages import without_reference
from tests.support.fake_api import FakeApi, json_response
from tests.support.links import point_viewer_at
from tests.support.sdk_runs import run_record, share_read
from tests.viewer.exports.test_csv_export import (
    api_records,
    breaking_api,
    broken_download_behind_gunicorn,
)

PROTEIN_KINDS = domain.PROTEIN_KINDS
SMALL_MOLECULE_KINDS = domain.SMALL_MOLECULE_KINDS


# The demo: a link over six pipelines (260 protein_design results). Tests marked reads_demo
# read the shared one; the others take a copy of their own.


def export_path(demo: dict, kind: str, extension: str, link: str = "public",
                query: str = "") -> str:
    """Return the export URL of the demo pipeline of ``kind`` in ``extension``."""
    link_id = demo["share_links"][link]["id"]
    return f"/share/{link_id}/pipelines/{demo['pipelines'][kind]}/export.{extension}{query}"


def ok(response):
    """Assert a 200 and return the response."""
    assert response.status_code == 200, response.data[:500]
    return response


def parse_fasta(text: str) -> list[tuple[str, str]]:
    """Return (header, sequence) pairs; every sequence line at most 60 residues."""
    records = []
    for line in text.splitlines():
        if line.startswith(">"):
            records.append([line[1:], ""])
        else:
            assert 0 < len(line) <= 60 and records
            records[-1][1] += line
    return [(header, sequence) for header, sequence in records]


def fasta_id(header: str) -> str:
    """Return the result id of a FASTA header (``rank|label|id|chain=...``)."""
    return header.split(" ")[0].split("|")[2]


def zip_id(name: str) -> str:
    """Return the result id of a ZIP member name (``<rank>_<id>.cif``)."""
    return name.split("_", 1)[1].removesuffix(".cif").removesuffix("_ligand.sdf")


def parse_sdf(data: bytes) -> list[Chem.Mol]:
    """Return every molecule of an SDF (RDKit); None entries fail the caller's checks."""
    with BlockLogs():
        return list(Chem.ForwardSDMolSupplier(io.BytesIO(data), removeHs=False))


def canonical(smiles: str, stereo: bool = True) -> str:
    """Return RDKit's canonical SMILES."""
    return Chem.MolToSmiles(Chem.MolFromSmiles(smiles), isomericSmiles=stereo)


@pytest.mark.reads_demo
def test_fasta_has_each_designed_chain_of_every_result(app, client, demo):
    for kind in PROTEIN_KINDS:
        response = ok(client.get(export_path(demo, kind, "fasta")))
        assert response.mimetype == "text/x-fasta"
        assert response.headers["Content-Disposition"].endswith('.fasta"')
        records = api_records(app, demo, kind)
        expected = [(r, chain, entity["value"]) for r in records
                    for chain, _seq, entity in text_writers.designed_chains(r)]
        # The binder (first protein entity), never the target chain B or the glycan.
        assert {chain for _r, chain, _v in expected} == {"A"}
        parsed = {fasta_id(h): (h, s) for h, s in parse_fasta(response.get_data(as_text=True))}
        assert len(parsed) == len(expected) == len(records), kind
        for record, chain, value in expected:
            header, sequence = parsed[record["id"]]
            assert sequence == value
            words = header.split(" ")
            assert words[0].split("|")[2:] == [record["id"], f"chain={chain}"]
            fields = dict(word.split("=", 1) for word in words[1:])
            metrics = record["metrics"]
            key = "binding_confidence" if "binding_confidence" in metrics else \
                "structure_confidence"
            assert fields[key] == f"{metrics[key]:.3f}"
            assert "helix_fraction" not in fields
            assert fields.get("external_id") == record.get("external_id")
            assert fields.get("variant") == record.get("type")


def test_designed_chains_rule():
    record = {"entities": [
        {"type": "ligand_ccd", "chain_ids": ["C"], "value": "NAG"},
        {"type": "protein", "chain_ids": ["A", "D"], "value": "MKT"},
        {"type": "protein", "chain_ids": ["B"], "value": "TARGET"}]}
    assert [(c, s) for c, s, _e in text_writers.designed_chains(record)] == [
        ("A", "MKT"), ("D", "MKT")]
    header = text_writers.fasta_header(domain.kind("protein_library_screen"), {
        "id": "res_1", "external_id": "well A1|x", "metrics": {"iptm": 0.5}},
        "A", {"cyclic": True})
    assert header == ">res_1|chain=A iptm=0.500 cyclic=true external_id=well_A1_x"


@pytest.mark.reads_demo
@pytest.mark.slow
def test_sdf_molecules_match_the_api_records(app, client, demo):
    kinds_seen = set()
    for kind in SMALL_MOLECULE_KINDS:
        response = ok(client.get(export_path(demo, kind, "sdf")))
        assert response.mimetype == "chemical/x-mdl-sdfile"
        records = api_records(app, demo, kind)
        molecules = {m.GetProp("_Name").split("|")[2]: m for m in parse_sdf(response.data)}
        assert len(molecules) == len(records), kind
        for record in records:
            mol = molecules[record["id"]]
            assert mol is not None and mol.GetNumAtoms() > 0
            props = mol.GetPropsAsDict()
            assert props["smiles"] == record["smiles"]
            source = props["coordinates"]
            kinds_seen.add(source)
            assert (source == "ligand_structure") == bool(
                record["artifacts"].get("ligand_structure"))
            got = Chem.MolToSmiles(Chem.RemoveHs(mol))
            if source == "2D" or "@" in record["smiles"]:
                assert got == canonical(record["smiles"]), record["id"]
            else:  # a racemic SMILES docked as one enantiomer: the pose fixes the centre
                assert canonical(got, stereo=False) == canonical(record["smiles"], False)
            for key, value in record["metrics"].items():
                assert float(mol.GetProp(key)) == value
            for key, value in (record.get("adme") or {}).items():
                assert mol.GetProp(key) == (value if isinstance(value, str) else repr(value))
            codes = ";".join(w["code"] for w in record.get("warnings") or [])
            assert props.get("warnings", "") == codes
            assert props.get("external_id") == record.get("external_id")
    assert kinds_seen == {"ligand_structure", "2D"}


# Not reads_demo: changes a result.
def test_an_unparsable_smiles_is_still_a_record(app, client, demo):
    pipeline_id = demo["pipelines"]["small_molecule_design"]
    with get_engine(app).begin() as conn:
        first = conn.execute(sa.select(schema.results.c.id).where(
            schema.results.c.pipeline_id == pipeline_id).order_by(schema.results.c.id)
        ).scalars().first()
        conn.execute(schema.results.update().where(schema.results.c.id == first)
                     .values(smiles="C1CC(not a smiles"))
        conn.execute(schema.artifacts.delete().where(
            schema.artifacts.c.result_id == first, schema.artifacts.c.role == "ligand_structure"))
    records = api_records(app, demo, "small_molecule_design")
    molecules = parse_sdf(ok(client.get(export_path(demo, "small_molecule_design", "sdf",
                                                    query="?sort=id"))).data)
    assert len(molecules) == len(records)
    broken = molecules[0]
    assert broken.GetProp("_Name") == f"1|{broken.GetProp('label')}|{first}|no atoms"
    assert broken.GetNumAtoms() == 0
    assert broken.GetProp("smiles") == "C1CC(not a smiles"
    assert broken.GetProp("coordinates") == "none" and broken.HasProp("smiles_error")
    assert all(m.GetNumAtoms() for m in molecules[1:])


# Not reads_demo: a current index would serve the export itself, not the API's pages.
def test_json_is_the_api_records_over_several_pages(app, client, demo, monkeypatch):
    monkeypatch.setattr(sources, "EXPORT_PAGE_SIZE", 100)
    records = api_records(app, demo, "protein_design")
    response = ok(client.get(export_path(demo, "protein_design", "json", query="?sort=id"),
                             buffered=False))
    assert response.is_streamed and "Content-Length" not in response.headers
    document = json.loads(b"".join(response.response))
    response.close()
    pipeline = document["pipeline"]
    assert pipeline == {"id": demo["pipelines"]["protein_design"], "kind": "protein_design",
                        "label": "Protein design"}
    assert len(records) == 260

    def without_urls(record):  # the export links the viewer's URLs, not the API's
        return {**record, "artifacts": sorted(record["artifacts"])}

    exported = [{k: v for k, v in r.items() if k not in ("rank", "label")}
                for r in document["results"]]
    assert [without_urls(r) for r in exported] == [without_urls(r) for r in records]
    assert [r["rank"] for r in document["results"]] == list(range(1, 261))


@pytest.mark.reads_demo
@pytest.mark.slow
def test_zip_holds_the_manifest_and_the_downloads(app, client, demo):
    link_id = demo["share_links"]["public"]["id"]
    for kind in ("protein_library_screen", "small_molecule_design"):
        response = ok(client.get(export_path(demo, kind, "zip", query="?sort=id")))
        assert response.mimetype == "application/zip"
        archive = zipfile.ZipFile(io.BytesIO(response.data))
        assert archive.testzip() is None
        names = archive.namelist()
        assert names[:2] == ["results.csv", "README.txt"]
        csv_body = ok(client.get(export_path(demo, kind, "csv", query="?sort=id"))).data
        assert archive.read("results.csv") == csv_body
        records = api_records(app, demo, kind)
        expected = ["results.csv", "README.txt"]
        for rank, record in enumerate(records, start=1):
            base = f"/share/{link_id}/pipelines/{demo['pipelines'][kind]}/results/{record['id']}"
            for role, name in (("structure", f"{rank:03d}_{record['id']}.cif"),
                               ("ligand_structure", f"{rank:03d}_{record['id']}_ligand.sdf")):
                if record["artifacts"].get(role):
                    expected.append(name)
                    assert archive.read(name) == ok(
                        client.get(f"{base}/artifacts/{role}")).data, name
        assert names == expected
        assert any(n.endswith("_ligand.sdf") for n in names) == kind.startswith("small")


@pytest.mark.reads_demo
@pytest.mark.parametrize("extension", ["json", "fasta", "zip"])
def test_ids_select_exactly_those_results(app, client, demo, extension):
    records = api_records(app, demo, "protein_design")
    wanted = [records[5]["id"], records[250]["id"], records[0]["id"]]
    query = "?ids=" + ",".join([*wanted, "res_notInThisPipeline"])
    response = ok(client.get(export_path(demo, "protein_design", extension, query=query)))
    assert "-selection-" in response.headers["Content-Disposition"]
    if extension == "json":
        got = [r["id"] for r in response.get_json()["results"]]
    elif extension == "fasta":
        got = [fasta_id(h) for h, _s in parse_fasta(response.get_data(as_text=True))]
    else:
        got = [zip_id(n) for n in zipfile.ZipFile(io.BytesIO(response.data)).namelist()[2:]]
    assert sorted(got) == sorted(wanted)


@pytest.mark.reads_demo
def test_ids_select_molecules_too(app, client, demo):
    records = api_records(app, demo, "small_molecule_library_screen")
    wanted = sorted(r["id"] for r in records[3:6])
    response = ok(client.get(export_path(demo, "small_molecule_library_screen", "sdf",
                                         query="?ids=" + "%0A".join(wanted))))
    assert sorted(m.GetProp("_Name").split("|")[2] for m in parse_sdf(response.data)) == wanted


@pytest.mark.reads_demo
def test_the_wrong_family_is_a_400_page(client, demo):
    fasta = client.get(export_path(demo, "small_molecule_design", "fasta"))
    sdf = client.get(export_path(demo, "protein_design", "sdf"))
    assert fasta.status_code == sdf.status_code == 400
    assert fasta.mimetype == sdf.mimetype == "text/html"
    assert "SDF or CSV" in fasta.get_data(as_text=True)
    assert "FASTA or CSV" in sdf.get_data(as_text=True)
    bad = client.get(export_path(demo, "protein_design", "json", query="?ids=%3Cscript%3E"))
    assert bad.status_code == 400


@pytest.mark.reads_demo
def test_an_unknown_link_is_the_shared_404(client, demo):
    pipeline_id = demo["pipelines"]["small_molecule_design"]
    bodies = set()
    for extension in ("json", "fasta", "sdf", "zip"):
        response = client.get(f"/share/sl_thisLinkDoesNotExistAtAll0000000/pipelines/"
                              f"{pipeline_id}/export.{extension}")
        assert response.status_code == 404 and response.mimetype == "text/html"
        bodies.add(without_reference(response.get_data(as_text=True)))
    assert len(bodies) == 1


@pytest.mark.reads_demo
def test_an_unknown_extension_is_the_shared_404(client, demo):
    not_found = client.get(f"/share/{demo['share_links']['public']['id']}/nothing-here")
    paths = [export_path(demo, "protein_design", extension)
             for extension in ("txt", "CSV", "csv.gz", "")]
    # Not a sign-in redirect either: no such export exists for any visitor.
    paths.append(export_path(demo, "protein_design", "txt", link="email"))
    for path in paths:
        response = client.get(path)
        assert response.status_code == 404, path
        assert without_reference(response.get_data(as_text=True)) == \
            without_reference(not_found.get_data(as_text=True))


@pytest.mark.reads_demo
def test_email_link_exports_need_sign_in(client, demo):
    link_id = demo["share_links"]["email"]["id"]
    paths = [export_path(demo, "small_molecule_design", ext, link="email")
             for ext in ("json", "sdf", "zip")]
    paths.append(export_path(demo, "protein_design", "fasta", link="email"))
    for path in paths:
        anonymous = client.get(path)
        assert anonymous.status_code == 302, path
        assert anonymous.headers["Location"].startswith(f"/share/{link_id}/sign-in")
    with client.session_transaction() as session:
        session["verified_email"] = demo["share_links"]["email"]["allowed_emails"][0]
        session["verified_at"] = int(time.time())
    for path in paths:
        assert client.get(path).status_code == 200, path


@pytest.mark.reads_demo
def test_the_export_menu_links_every_format_of_the_family(app, client, demo):
    link_id = demo["share_links"]["public"]["id"]
    for kind, wanted, absent in (("protein_design", "export.fasta", "export.sdf"),
                                 ("small_molecule_design", "export.sdf", "export.fasta")):
        pipeline = {"id": demo["pipelines"][kind]}
        with app.test_request_context(f"/share/{link_id}?embed=1"):
            html = render_template("share/exports/_menu.html", link_id=link_id,
                                   pipeline=pipeline, kind=domain.kind(kind),
                                   export_args={"ids": "res_a,res_b"})
        hrefs = [part.split('"', 1)[0] for part in html.split('href="')[1:]]
        assert len(hrefs) == 4 and wanted in html and absent not in html
        for href in hrefs:
            assert "embed=1" in href and "ids=res_a,res_b" in href
            assert client.get(href.replace("&amp;", "&")).status_code == 200, href


# --- a real API server that breaks off ---------------------------------------------------

def files_api():
    """An API whose results' structure files answer; its results pages answer for the
    manifest, and the files' walk breaks off after the first page (a 500)."""
    share = share_read("sl_fake", [run_record("protein_design", "pipe_fake", 3)])
    later_pages = []

    def handler(request):
        if request.path == "/compute/v1/share/sl_fake":
            return json_response(share)
        if request.path.endswith("/results"):
            if request.args.get("after_id"):
                later_pages.append(request.full_path)
                if len(later_pages) > 1:  # the second walk (the files'): the API fails
                    return json_response({"message": "boom"}, 500)
                return json_response({"data": [], "has_more": False})
            data = [{"id": f"res_00{n}", "metrics": {}, "entities": [], "artifacts": {
                "structure": {"url": f"/files/res_00{n}.cif"}}} for n in range(2)]
            return json_response({"data": data, "has_more": True, "first_id": "res_000",
                                  "last_id": "res_001"})
        return json_response({"cif": request.path})

    return handler


@pytest.mark.parametrize("extension", ["fasta", "zip"])
def test_a_failure_midway_is_marked_and_raised(app, client, extension):
    server = FakeApi(breaking_api() if extension == "fasta" else files_api())
    point_viewer_at(app, server.url)
    try:
        response = client.get(f"/share/sl_fake/pipelines/pipe_fake/export.{extension}"
                              "?sort=id", buffered=False)
        assert response.status_code == 200
        received = []
        with pytest.raises(stream.ExportIncomplete):
            for chunk in response.response:
                received.append(chunk)
    finally:
        server.stop()
    body = b"".join(received)
    if extension == "fasta":
        headers = [h for h, _s in parse_fasta(body.decode())]
        # No index (the API's order needs none): the labels are the ids' tails.
        assert headers[:2] == ["1|000|res_000|chain=A binding_confidence=0.500",
                               "2|001|res_001|chain=A binding_confidence=0.510"]
        assert headers[-1].startswith(stream.INCOMPLETE_MARKER)
        assert "stopped after 2 results" in headers[-1]
    else:
        assert b"results.csv" in body and b"1_res_000.cif" in body
        with pytest.raises(zipfile.BadZipFile):
            zipfile.ZipFile(io.BytesIO(body))


@pytest.mark.slow  # starts gunicorn
def test_behind_gunicorn_a_broken_json_export_is_a_failed_download(db_url, tmp_path):
    """The body ends without its final chunk: the client raises, and no JSON parses."""
    received, _log = broken_download_behind_gunicorn(db_url, tmp_path, "json")
    assert b'"res_001"' in received
    with pytest.raises(ValueError):
        json.loads(received)
