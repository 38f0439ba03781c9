"""The 3D pages through the Flask test client, on the seeded demo: what they hand Mol*.

The scenes on the page colour every residue by its band (read back from the structure
file), the PAE JSON is the archive's matrix, compare and ``?sample=`` check their inputs,
and everything about another link or pipeline is the shared 404.
"""

from __future__ import annotations

import base64
import io
import json
import re
import zipfile
from pathlib import Path

import gemmi
import numpy as np
import pytest

from app import artifact_storage
from app.platform.db import get_engine
from app.store import schema
from app.viewer.runtime.work_gate import WorkGate
from app.viewer.structure import pae
from app.viewer.structure.model import PLDDT_BANDS, band
from app.viewer.structure_pages import loading
from tests.support.error_pages import without_reference
from tests.support.hostile_archives import declared_shape
from tests.support.view_rows import ROW_ID

# Tests marked reads_demo read the shared demo; the others take a copy of their own.


def _results(app, pipeline_id: str) -> list:
    with get_engine(app).connect() as conn:
        return list(conn.execute(schema.results.select().where(
            schema.results.c.pipeline_id == pipeline_id).order_by(schema.results.c.id)))


def _file(app, owner: str, role: str) -> bytes:
    with get_engine(app).connect() as conn:
        row = conn.execute(schema.artifacts.select().where(
            (schema.artifacts.c.result_id == owner) & (schema.artifacts.c.role == role))).one()
    return artifact_storage.path_for(app.config["ARTIFACT_DIR"], row.storage_path).read_bytes()


def _scenes(body: str) -> dict:
    found = re.search(r'<script type="application/json" id="structure-scenes">(.*?)</script>',
                      body, re.S)
    return json.loads(found.group(1))


def _colours(node: dict, out: dict) -> dict:
    """Collect {(chain, seq): colour} from the cartoon's color nodes of an MVS tree."""
    if node.get("kind") == "representation" and node["params"]["type"] == "cartoon":
        for color in node.get("children", []):
            selectors = color["params"]["selector"]
            for s in selectors if isinstance(selectors, list) else [selectors]:
                for seq in range(s["beg_label_seq_id"], s["end_label_seq_id"] + 1):
                    out[(s["label_asym_id"], seq)] = color["params"]["color"]
    for child in node.get("children", []):
        _colours(child, out)
    return out


def _representations(node: dict) -> list[dict]:
    """Return the representation nodes of an MVS tree."""
    own = [node] if node.get("kind") == "representation" else []
    return own + [r for child in node.get("children", []) for r in _representations(child)]


@pytest.mark.reads_demo
def test_result_page_colours_every_residue_by_its_band_and_names_the_chains(app, client, demo):
    link = demo["share_links"]["public"]["id"]
    pipeline = demo["pipelines"]["protein_design"]
    # The first two rows of the results view in its default order: the 3D page of the first
    # offers to compare it with the next.
    listing = client.get(f"/share/{link}/pipelines/{pipeline}").get_data(as_text=True)
    first, second = ROW_ID.findall(listing)[:2]
    base = f"/share/{link}/pipelines/{pipeline}/results/{first}"
    response = client.get(f"{base}/structure")
    assert response.status_code == 200
    body = response.get_data(as_text=True)
    scenes = _scenes(body)
    assert set(scenes) == {"plddt", "chain"}
    st = gemmi.make_structure_from_block(gemmi.cif.read_string(
        _file(app, first, "structure").decode())[0])
    expected = {(ch.name, res.seqid.num): PLDDT_BANDS[band(res[0].b_iso)][2]
                for ch in st[0] for res in ch}
    assert _colours(scenes["plddt"]["root"], {}) == expected
    # The interface's sticks are meshes, as the cartoon (software WebGL compiles one
    # program for both on the first frame, not an impostor program more for each).
    extras = [r for r in _representations(scenes["plddt"]["root"])
              if r["params"]["type"] != "cartoon"]
    assert extras and all(r["custom"]["molstar_representation_params"]["tryUseImpostor"]
                          is False for r in extras)
    # Flat: Mol*'s MolViewSpec loader turns ambient occlusion back on at every load unless
    # the scene's canvas node switches it off (it darkens the legend's colours).
    for scene in scenes.values():
        canvas = scene["root"]["children"][0]
        assert canvas["kind"] == "canvas"
        assert canvas["custom"]["molstar_postprocessing"]["enable_ssao"] is False
    download = scenes["plddt"]["root"]["children"][1]
    assert download["params"]["url"] == f"{base}/artifacts/structure"
    assert "<strong>Binder</strong> · chain A · designed binder" in body
    assert "<strong>Target</strong> · chain B · Interleukin-6" in body
    assert f'data-url="{base}/structure/pae.json"' in body
    # The previous/next result's comparison, the page's own PAE link, Mol*'s CSP.
    assert f"compare?a={first}&amp;b={second}" in body
    assert "'unsafe-eval'" in response.headers["Content-Security-Policy"]
    assert "connect-src 'self';" in response.headers["Content-Security-Policy"]
    _assert_loads_molstar(body)


def _assert_loads_molstar(body: str) -> None:
    """Both 3D pages preload Mol*'s bundle (no script tag of it blocks the page) and load
    its style, and the deferred script that runs and drives it."""
    found = re.findall(r'(?:src|href)="/static/(vendor/molstar-[^/]+/molstar\.(?:js|css)'
                       r'|js/structure\.js|css/structure\.css)\?v=', body)
    assert sorted(found) == sorted(["vendor/molstar-share-5.11.0/molstar.css",
                                    "css/structure.css",
                                    "vendor/molstar-share-5.11.0/molstar.js",
                                    "js/structure.js"])
    assert re.search(r'<link rel="preload" as="script" id="molstar-bundle" '
                     r'href="/static/vendor/molstar-share-5\.11\.0/molstar\.js\?v=', body)
    assert re.search(r'<script src="/static/js/structure\.js\?v=\w+" defer>', body)
    assert body.index("molstar.js") < body.index("js/structure.js")


def test_molstar_bundle_is_our_build_of_the_npm_package():
    """The 3D pages run Mol* built from its npm package by the committed recipe
    (tools/molstar-build/): the version the folder names, with its licence, and only what
    the pages use. The full viewer bundle carried a dozen unused extensions, among them the
    MP4 export's WebAssembly module (0.7 MB, as a data: URL), all run on every load."""
    root = Path(__file__).resolve().parents[3]
    recipe = json.loads((root / "tools/molstar-build/package.json").read_text())
    version = recipe["devDependencies"]["molstar"]
    folder = root / f"static/vendor/molstar-share-{version}"
    bundle = (folder / "molstar.js").read_bytes()
    assert b"Copyright (c) 2017 - now, Mol* contributors" in (folder / "LICENSE").read_bytes()
    assert (folder / "molstar.css").stat().st_size > 10_000
    assert b"\0asm" not in bundle and b"AGFzbQ" not in bundle  # no WebAssembly module
    for unused in (b"h264-mp4-encoder", b"dnatco", b"tunnels"):
        assert unused not in bundle, unused
    assert bundle.count(b"MolViewSpec") > 0
    assert len(bundle) < 4_000_000


@pytest.mark.reads_demo
def test_pae_json_is_the_archives_matrix(app, client, demo):
    link = demo["share_links"]["public"]["id"]
    pipeline = demo["pipelines"]["small_molecule_design"]
    result = _results(app, pipeline)[0]
    payload = client.get(f"/share/{link}/pipelines/{pipeline}/results/{result.id}"
                         "/structure/pae.json").get_json()
    with zipfile.ZipFile(io.BytesIO(_file(app, result.id, "archive"))) as z:
        matrix = np.load(io.BytesIO(z.read("pae.npz")))["pae"]
    assert payload["n"] == len(matrix) and payload["linked"]
    values = np.frombuffer(base64.b64decode(payload["values"]), np.uint8)
    assert np.abs(values.reshape(matrix.shape) * payload["step"] - matrix).max() <= 0.0625
    assert [c["label"] for c in payload["chains"]] == ["Target (A)", "Binder (B)"]


@pytest.mark.reads_demo
def test_pae_json_without_a_matrix_is_n_zero(app, client, demo, monkeypatch):
    def unreadable(archive, max_tokens):
        raise pae.NoPae("no pae.npz")
    monkeypatch.setattr(pae, "read_npz", unreadable)
    loading.matrices.clear()
    link = demo["share_links"]["public"]["id"]
    pipeline = demo["pipelines"]["protein_design"]
    result = _results(app, pipeline)[0]
    response = client.get(f"/share/{link}/pipelines/{pipeline}/results/{result.id}"
                          "/structure/pae.json")
    assert response.status_code == 200 and response.mimetype == "application/json"
    assert response.get_json() == {"n": 0}


def _pae_url(app, demo) -> str:
    link = demo["share_links"]["public"]["id"]
    pipeline = demo["pipelines"]["small_molecule_design"]
    result = _results(app, pipeline)[0]
    return f"/share/{link}/pipelines/{pipeline}/results/{result.id}/structure/pae.json"


@pytest.mark.reads_demo
def test_a_pae_larger_than_the_structure_is_a_422_saying_why(app, client, demo, monkeypatch):
    # A 1 KB archive whose matrix is 300,000 tokens square, as its header declares.
    real = pae.read_npz
    monkeypatch.setattr(pae, "read_npz", lambda archive, max_tokens: real(
        declared_shape((300_000, 300_000)), max_tokens))
    loading.matrices.clear()
    response = client.get(_pae_url(app, demo))
    loading.matrices.clear()
    assert response.status_code == 422 and response.mimetype == "application/json"
    assert response.get_json()["error"].startswith(
        "The PAE map is unavailable. The PAE matrix is 300,000 x 300,000 tokens; this "
        "viewer reads at most")
    page = client.get(_pae_url(app, demo).removesuffix("/pae.json")).get_data(as_text=True)
    assert '<p id="pae-unavailable" class="notice" role="status" hidden></p>' in page


@pytest.mark.reads_demo
def test_a_pae_is_read_once_per_result_and_its_reading_gated(app, client, demo, monkeypatch):
    reads = []
    real = pae.read_npz

    def counted(archive, max_tokens):
        reads.append(max_tokens)
        return real(archive, max_tokens)
    monkeypatch.setattr(pae, "read_npz", counted)
    loading.matrices.clear()
    first = client.get(_pae_url(app, demo)).get_json()
    assert client.get(_pae_url(app, demo)).get_json() == first and first["n"] > 0
    assert len(reads) == 1
    # No slot left for heavy work: a kept matrix still answers (every 3D page asks for
    # its map), one not read yet is a 503 to retry, which pae.js shows as the reason.
    gate = WorkGate(slots=1, per_client=1)
    monkeypatch.setitem(app.extensions, "work_gate", gate)
    assert gate.try_enter("someone else")
    assert client.get(_pae_url(app, demo)).get_json() == first
    loading.matrices.clear()
    busy = client.get(_pae_url(app, demo))
    assert busy.status_code == 503 and busy.headers["Retry-After"] == "5"
    assert "busy" in busy.get_json()["error"]
    gate.leave("someone else")
    assert client.get(_pae_url(app, demo)).status_code == 200 and gate.running == 0
    assert len(reads) == 2
    loading.matrices.clear()


def _trail(body: str) -> list[tuple[str, str | None]]:
    """Return the breadcrumb as (label, href or None), as the partial draws it."""
    nav = re.search(r'<nav class="breadcrumb".*?</nav>', body, re.S).group(0)
    return [(label, href.replace("&amp;", "&") if href else None) for href, label in
            re.findall(r'<li>(?:<a href="([^"]*)">|<span aria-current="page">)([^<]*)<', nav)]


# Not reads_demo: the labels are the ids' tails only until the pipeline's index is built.
def test_the_3d_pages_sit_under_their_result_pipeline_or_prediction(app, client, demo):
    link = demo["share_links"]["public"]["id"]
    pipeline = demo["pipelines"]["protein_redesign"]
    a, b = (r.id for r in _results(app, pipeline)[:2])
    base = f"/share/{link}/pipelines/{pipeline}"
    overview = ("Shared results", f"/share/{link}")
    title = _trail(client.get(f"{base}/results/{a}").get_data(as_text=True))[1]
    assert title[1] == base  # the pipeline's results table
    trail = _trail(client.get(f"{base}/results/{a}/structure").get_data(as_text=True))
    label = trail[2][0]  # the result's label: its id's tail here (no index built yet)
    assert a.endswith(label) and len(label) >= 4
    assert trail == [overview, title, (label, f"{base}/results/{a}"), ("3D structure", None)]
    assert _trail(client.get(f"{base}/compare?a={a}&b={b}").get_data(as_text=True)) == [
        overview, title, ("Compare in 3D", None)]
    pid = demo["predictions"]["structure_and_binding"]
    trail = _trail(client.get(f"/share/{link}/predictions/{pid}/structure?embed=1")
                   .get_data(as_text=True))
    assert [href for _label, href in trail] == [
        f"/share/{link}?embed=1", f"/share/{link}/predictions/{pid}?embed=1", None]
    assert trail[-1][0] == "3D structure"


@pytest.mark.reads_demo
def test_compare_checks_its_inputs(app, client, demo):
    link = demo["share_links"]["public"]["id"]
    pipeline = demo["pipelines"]["protein_redesign"]
    a, b = (r.id for r in _results(app, pipeline)[:2])
    base = f"/share/{link}/pipelines/{pipeline}/compare"
    page = client.get(f"{base}?a={a}&b={b}")
    assert page.status_code == 200
    body = page.get_data(as_text=True)
    assert re.search(r'id="compare-rmsd">\d+\.\d\d</span> Å', body)
    # The binder is measured where the target fit puts it (the math: test_structure_data).
    # The demo's redesigns keep the designed backbone, so the two binders coincide.
    assert re.search(r'Binder, chain A</strong>, then: C. RMSD\s*'
                     r'<span data-binder-rmsd="A">0\.00</span>', body)
    _assert_loads_molstar(body)
    scene = _scenes(body)["compare"]["root"]
    downloads = [n for n in scene["children"] if n["kind"] == "download"]
    assert [d["params"]["url"].rsplit("/", 3)[1] for d in downloads] == [a, b]
    structure_b = downloads[1]["children"][0]["children"][0]
    assert structure_b["children"][0]["kind"] == "transform"
    missing = client.get(f"{base}?a={a}")
    assert missing.status_code == 400 and "b must name a result" in missing.get_data(as_text=True)
    other = _results(app, demo["pipelines"]["protein_design"])[0].id
    gone = client.get(f"{base}?a={a}&b={other}")
    nowhere = client.get("/share/sl_thisLinkDoesNotExistAtAll0000000")
    assert gone.status_code == 404
    assert without_reference(gone.get_data(as_text=True)) == \
        without_reference(nowhere.get_data(as_text=True))


@pytest.mark.reads_demo
def test_prediction_sample_is_chosen_with_sample(client, demo):
    link = demo["share_links"]["public"]["id"]
    pid = demo["predictions"]["structure_and_binding"]
    base = f"/share/{link}/predictions/{pid}"
    body = client.get(f"{base}/structure?sample=2").get_data(as_text=True)
    assert f'data-url="{base}/artifacts/structure_sample_2"' in body
    assert 'aria-current="page">2</a>' in body and 'id="focus-ligand" data-chain="B"' in body
    for bad in ("0", "4", "two", "-1"):
        response = client.get(f"{base}/structure?sample={bad}")
        assert response.status_code == 400, bad
        assert "sample must be a whole number from 1 to 3" in response.get_data(as_text=True)
