"""The PAE download in AlphaFold DB's format, on the seeded demo.

The file is a one-element list ``[{"predicted_aligned_error", "max_predicted_aligned_error"}]``
as AlphaFold DB serves it; its matrix is the archive's ``pae.npz`` (rounded to 0.1 Å as
AlphaFold's ``pae_json`` writes it) and the very matrix the heatmap (``pae.json``) draws.
The 3D page links it beside the map; a result without a matrix, another link or a bad id
is the shared 404.
"""

from __future__ import annotations

import base64
import io
import json
import zipfile

import numpy as np
import pytest

from app.viewer.structure import pae
from app.viewer.structure_pages import loading
from tests.viewer.structure_pages.test_structure_views import _file, _results

# Reads the demo (public and email links).
pytestmark = pytest.mark.reads_demo


def _base(demo: dict, kind: str, app) -> tuple[str, object]:
    link = demo["share_links"]["public"]["id"]
    pipeline = demo["pipelines"][kind]
    result = _results(app, pipeline)[0]
    return f"/share/{link}/pipelines/{pipeline}/results/{result.id}/structure", result


@pytest.mark.parametrize("kind", ["small_molecule_design", "protein_design"])
def test_download_is_alphafold_dbs_shape_and_the_heatmaps_matrix(app, client, demo, kind):
    base, result = _base(demo, kind, app)
    response = client.get(f"{base}/pae.alphafold.json")
    assert response.status_code == 200 and response.mimetype == "application/json"
    assert response.headers["Content-Disposition"] == (
        f'attachment; filename="{result.id}-predicted_aligned_error.json"')
    body = response.get_json()
    # AlphaFold DB's PAE file: a list of one object with exactly these two keys.
    assert isinstance(body, list) and len(body) == 1
    assert set(body[0]) == {"predicted_aligned_error", "max_predicted_aligned_error"}
    assert body[0]["max_predicted_aligned_error"] == 31.75
    got = np.array(body[0]["predicted_aligned_error"], dtype=np.float64)
    with zipfile.ZipFile(io.BytesIO(_file(app, result.id, "archive"))) as z:
        matrix = np.load(io.BytesIO(z.read("pae.npz")))["pae"]
    assert got.shape == matrix.shape and got.shape[0] == got.shape[1]
    np.testing.assert_array_equal(got, np.minimum(np.round(matrix.astype(np.float64), 1),
                                                  31.75))
    # The heatmap the page draws holds the same matrix (to its 1/8 Å bytes).
    shown = client.get(f"{base}/pae.json").get_json()
    values = np.frombuffer(base64.b64decode(shown["values"]), np.uint8)
    drawn = values.reshape(got.shape) * shown["step"]
    assert np.abs(drawn - got).max() <= 0.0625 + 0.05 + 1e-9
    assert got.max() <= body[0]["max_predicted_aligned_error"]


def test_the_3d_page_offers_the_download_beside_the_map(app, client, demo):
    base, _result = _base(demo, "small_molecule_design", app)
    body = client.get(base).get_data(as_text=True)
    panel = body[body.index('id="pae-panel"'):]
    assert f'id="pae-download" href="{base}/pae.alphafold.json" download' in panel
    assert 'id="pae-cursor" class="visually-hidden" aria-live="polite"' in panel


def test_no_matrix_another_link_or_a_bad_id_is_the_shared_404(app, client, demo, monkeypatch):
    base, _result = _base(demo, "protein_design", app)
    missing = client.get(base.replace("/results/", "/results/x") + "/pae.alphafold.json")
    assert missing.status_code == 404
    link = demo["share_links"]["public"]["id"]
    other = client.get(base.replace(link, "A" * len(link)) + "/pae.alphafold.json")
    assert other.status_code == 404

    def unreadable(archive, max_tokens):
        raise pae.NoPae("no pae.npz")
    monkeypatch.setattr(pae, "read_npz", unreadable)
    loading.matrices.clear()
    assert client.get(f"{base}/pae.alphafold.json").status_code == 404


def test_a_matrix_too_large_to_read_is_a_422_saying_why(app, client, demo, monkeypatch):
    base, _result = _base(demo, "small_molecule_design", app)
    seen = []

    def too_large(archive, max_tokens):
        seen.append(max_tokens)
        raise pae.TooLarge("The PAE matrix is 300,000 x 300,000 tokens.")
    monkeypatch.setattr(pae, "read_npz", too_large)
    loading.matrices.clear()
    response = client.get(f"{base}/pae.alphafold.json")
    assert response.status_code == 422 and response.get_json() == {
        "error": "The PAE map is unavailable. The PAE matrix is 300,000 x 300,000 tokens."}
    # The cap is the structure's tokens (its residues and ligand atoms), not the hard one.
    assert 0 < seen[0] < pae.MAX_TOKENS
    loading.matrices.clear()


def test_unknown_errors_become_the_largest_predictable_one():
    matrix = np.array([[0.26, np.nan], [np.inf, 3.14]], dtype=np.float32)
    (entry,) = json.loads("".join(pae.alphafold(matrix)))
    assert entry["predicted_aligned_error"] == [[0.3, 31.75], [31.75, 3.1]]
