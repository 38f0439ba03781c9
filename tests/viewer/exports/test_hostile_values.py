"""Exports over hostile values and failing files (issue 22): a value never breaks a record
boundary (FASTA, SDF) or starts a spreadsheet formula (CSV), and one result file the API
cannot serve is skipped and said so (ZIP, SDF) instead of ending the download."""

from __future__ import annotations

import csv
import io
import zipfile

import pytest
from rdkit import Chem
from rdkit.rdBase import BlockLogs
from werkzeug.wrappers import Response

from app.viewer.exports import csv_writer, sdf_writer
from tests.support.fake_api import FakeApi, json_response
from tests.support.links import point_viewer_at
from tests.support.sdk_runs import run_record, share_read

LIGAND = Chem.MolToMolBlock(Chem.AddHs(Chem.MolFromSmiles("CCO"))) + "$$$$\n"


def scripted_api(kind: str, records: list[dict], files: dict[str, int | bytes]) -> FakeApi:
    """A real API server: one pipeline of ``kind`` with ``records`` on one page, and the
    result files at ``/files/<name>`` (bytes, or an HTTP status for a failing file)."""
    share = share_read("sl_fake", [run_record(kind, "pipe_fake", len(records))])

    def handler(request):
        if request.path == "/compute/v1/share/sl_fake":
            return json_response(share)
        if request.path.endswith("/results"):
            return json_response({"data": records, "has_more": False,
                                  "first_id": records[0]["id"], "last_id": records[-1]["id"]})
        if request.path.startswith("/compute/v1/share/sl_fake/pipelines/pipe_fake/results/"):
            wanted = request.path.rsplit("/", 1)[1]
            return json_response(next(r for r in records if r["id"] == wanted))
        body = files.get(request.path.removeprefix("/files/"), 404)
        if isinstance(body, int):
            return json_response({"statusCode": body, "error": "Error", "message": "x"}, body)
        return Response(body, mimetype="application/octet-stream")

    return FakeApi(handler)


@pytest.fixture
def serve(app):
    """Start a scripted API for the test and point the viewer at it."""
    servers = []

    def start(kind, records, files=None):
        servers.append(scripted_api(kind, records, files or {}))
        point_viewer_at(app, servers[-1].url)

    yield start
    for server in servers:
        server.stop()


def export(client, extension: str) -> bytes:
    """Return a whole export's body in the API's order (an aborted one raises)."""
    response = client.get(f"/share/sl_fake/pipelines/pipe_fake/export.{extension}?sort=id")
    assert response.status_code == 200, response.data[:300]
    return response.data


# --- a) FASTA ------------------------------------------------------------------------

HOSTILE_TEXT = ["MKT\n>evil|chain=Z\nAAA", "MK T\r\nLL", "M\x00K\x1eT\u2028>X\x85Y",
                ">" * 70, "A" * 59 + ">B", "MKT;comment", "MKT", "\tMKT ", "M\u2029K", ""]


def test_fasta_sequences_never_start_a_record(client, serve):
    records = [{"id": f"res_{n:03d}", "metrics": {}, "type": f"v\n>{n}",
                "external_id": f"ext\r>{n}\u2028x\x00y",
                "entities": [{"type": "protein", "chain_ids": [f"A\n>{n}"], "value": value}]}
               for n, value in enumerate(HOSTILE_TEXT)]
    serve("protein_design", records)
    text = export(client, "fasta").decode()
    lines = text.split("\n")
    assert lines[-1] == "" and len(text.splitlines()) == len(lines) - 1  # no other breaks
    headers = [line for line in lines if line.startswith(">")]
    assert [h.split("|")[2] for h in headers] == [f"res_{n:03d}" for n in range(10)]
    assert [h.split("|")[0] for h in headers] == [f">{n}" for n in range(1, 11)]
    assert all(line.isprintable() for line in lines)
    sequences, current = [], None
    for line in lines[:-1]:
        if line.startswith(">"):
            current = []
            sequences.append(current)
        else:
            assert 0 < len(line) <= 60 and not line.startswith((">", ";"))
            current.append(line)
    joined = ["".join(parts) for parts in sequences]
    assert joined[0] == "MKTXevil|chain=ZAAA"  # whitespace dropped, ">" as X
    assert joined[1] == "MKTLL" and joined[6] == "MKT" and joined[7] == "MKT"
    assert joined[2] == "MKTXXY" and joined[3] == "X" * 70 and joined[5] == "MKTXcomment"
    assert joined[4] == "A" * 59 + "XB" and joined[8] == "MK"
    assert joined[9] == ""
    assert "external_id=ext_0_x_y" in headers[0]


# --- b) SDF --------------------------------------------------------------------------

SDF_VALUES = ["$$$$", "a\n$$$$\nb", "x\n\ny", ">  <smiles>", "M  END", "  ", "$$$$ tail",
              "a\x00b\u2028c", "plain"]


def test_sdf_values_never_end_a_record_or_a_data_item(client, serve):
    records = [{"id": f"res_{n:03d}", "smiles": "CCO", "external_id": value,
                "metrics": {"docking_score": -7.5, f"bad\n>  <x{n}>": 1.0}}
               for n, value in enumerate(SDF_VALUES)]
    serve("small_molecule_library_screen", records)
    body = export(client, "sdf")
    assert body.count(b"\n$$$$\n") == 9
    supplier = Chem.SDMolSupplier()
    with BlockLogs():
        supplier.SetData(body.decode(), removeHs=False)
        mols = list(supplier)
    assert len(mols) == 9 and all(m is not None for m in mols)
    assert [m.GetProp("_Name").split("|")[2] for m in mols] == [r["id"] for r in records]
    values = [m.GetProp("external_id") if m.HasProp("external_id") else None for m in mols]
    assert values == [" $$$$", "a $$$$ b", "x y", " > <smiles>", "M END", None,
                      " $$$$ tail", "ab c", "plain"]
    assert all(m.GetProp("docking_score") == "-7.5" for m in mols)
    assert all(m.GetProp(f"bad_x{n}_") == "1.0" for n, m in enumerate(mols))


# --- c) one failing file -------------------------------------------------------------

def test_a_failing_ligand_file_is_a_record_without_its_pose(client, serve):
    records = [{"id": f"res_00{n}", "smiles": "CCO", "metrics": {}, "artifacts": {
        "ligand_structure": {"url": f"/files/res_00{n}.sdf"}}} for n in range(3)]
    serve("small_molecule_library_screen", records,
          {"res_000.sdf": LIGAND.encode(), "res_001.sdf": 500, "res_002.sdf": LIGAND.encode()})
    with BlockLogs():
        mols = list(Chem.ForwardSDMolSupplier(io.BytesIO(export(client, "sdf"))))
    assert [m.GetProp("_Name").split("|")[2:] for m in mols] == [
        ["res_000", "docked 3D pose"], ["res_001", "2D depiction"], ["res_002", "docked 3D pose"]]
    assert [m.GetProp("coordinates") for m in mols] == ["ligand_structure", "2D",
                                                        "ligand_structure"]
    assert "could not be read" in mols[1].GetProp("ligand_file_error")
    assert not mols[0].HasProp("ligand_file_error")


def test_only_a_ligand_files_first_molecule_is_read(client, serve):
    sent = []

    def huge_file():  # the pose, then 256 MB more records
        yield LIGAND.encode()
        for _ in range(4096):
            sent.append(1)
            yield LIGAND.encode() * (64 * 1024 // len(LIGAND))
    records = [{"id": "res_000", "smiles": "CCO", "metrics": {}, "artifacts": {
        "ligand_structure": {"url": "/files/res_000.sdf"}}}]
    serve("small_molecule_library_screen", records, {"res_000.sdf": huge_file()})
    with BlockLogs():
        (mol,) = Chem.ForwardSDMolSupplier(io.BytesIO(export(client, "sdf")), removeHs=False)
    assert mol.GetProp("coordinates") == "ligand_structure" and mol.GetNumAtoms() == 9
    # The download was closed after the first molecule: socket buffers, not 256 MB.
    assert len(sent) * 64 * 1024 < 32 * 1024 * 1024


def test_a_ligand_molecule_past_the_limit_is_2d_with_the_reason(client, serve, monkeypatch):
    monkeypatch.setattr(sdf_writer, "LIGAND_RECORD_LIMIT", 4096)
    big = Chem.MolToMolBlock(Chem.AddHs(Chem.MolFromSmiles("C" * 60))) + "$$$$\n"
    assert len(big) > 4096
    records = [{"id": f"res_00{n}", "smiles": "CCO", "metrics": {}, "artifacts": {
        "ligand_structure": {"url": f"/files/res_00{n}.sdf"}}} for n in range(2)]
    serve("small_molecule_library_screen", records,
          {"res_000.sdf": big.encode(), "res_001.sdf": LIGAND.encode()})
    with BlockLogs():
        mols = list(Chem.ForwardSDMolSupplier(io.BytesIO(export(client, "sdf"))))
    assert [m.GetProp("coordinates") for m in mols] == ["2D", "ligand_structure"]
    assert mols[0].GetProp("ligand_file_error") == (
        "the ligand file could not be read (its first record is over 4 KB); coordinates "
        "from the SMILES instead")


@pytest.mark.parametrize("failure", [404, 403, 500, 503])
def test_a_failing_structure_file_is_skipped_and_listed(client, serve, failure):
    records = [{"id": f"res_00{n}", "metrics": {}, "entities": [], "artifacts": {
        "structure": {"url": f"/files/res_00{n}.cif"}}} for n in range(3)]
    serve("protein_design", records, {"res_000.cif": b"data_res_000\n",
                                      "res_001.cif": failure, "res_002.cif": b"data_res_002\n"})
    archive = zipfile.ZipFile(io.BytesIO(export(client, "zip")))
    assert archive.namelist() == ["results.csv", "README.txt", "001_res_000.cif",
                                  "003_res_002.cif", "missing_files.txt"]
    assert archive.read("003_res_002.cif") == b"data_res_002\n"
    missing = archive.read("missing_files.txt").decode()
    assert "002_res_001.cif" in missing and "res_000" not in missing
    manifest = list(csv.reader(io.StringIO(archive.read("results.csv").decode())))
    assert [row[2] for row in manifest[1:]] == ["res_000", "res_001", "res_002"]


def test_a_whole_zip_has_no_missing_files_list(client, serve):
    records = [{"id": "res_000", "metrics": {}, "entities": [], "artifacts": {
        "structure": {"url": "/files/res_000.cif"}}}]
    serve("protein_design", records, {"res_000.cif": b"data_res_000\n"})
    archive = zipfile.ZipFile(io.BytesIO(export(client, "zip")))
    assert archive.namelist() == ["results.csv", "README.txt", "001_res_000.cif"]


# --- e) CSV --------------------------------------------------------------------------

@pytest.mark.parametrize("text", [" =1+1", "\u3000=1+1", "\uff1d1+1", "\uff0b1+1",
                                  "\uff0dA1", "\uff20SUM(A1)",
                                  "\t=1", "\r=1", "\n=1", " @x", "  +cmd|' /C calc'!A0"])
def test_formula_guard_sees_through_spaces_and_fullwidth_signs(text):
    assert csv_writer.defuse_formula(text) == "'" + text


@pytest.mark.parametrize("text", ["-1.5", "+2", " -1.5", "1e-3", "L1300-01-A02", "A=B", ""])
def test_formula_guard_leaves_numbers_and_plain_text(text):
    assert csv_writer.defuse_formula(text) == text
