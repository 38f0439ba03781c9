"""``diverse=N`` over small molecules (issue 20 item 8): the best-ranked molecule of each
of N Butina clusters of the view, checked against RDKit's own ``Butina.ClusterData`` over
the molecules of both small-molecule demo pipelines (the library and the design series)."""

from __future__ import annotations

import csv
import io
import re

import numpy as np
import pytest
from rdkit import Chem, DataStructs
from rdkit.Chem import rdFingerprintGenerator
from rdkit.ML.Cluster import Butina
from rdkit.rdBase import BlockLogs

from app.synthetic.chemistry import LIBRARY
from app.viewer.chem import butina
from tests.support.molecule_pools import POOLS, pool_pipeline

ROW_ID = re.compile(r'<tr data-result-id="([^"]+)"')
FAMILY_CELL = re.compile(r'<td class="num col-family">([0-9,]+)</td>')
CUTOFF = 0.6  # the module's documented choice: Tanimoto similarity >= 0.4


@pytest.fixture(params=sorted(POOLS))
def molecules(request, app, org):
    """A pipeline whose results cycle through one demo pool (some twice), public link."""
    return pool_pipeline(app, org, request.param)


def _fp(smiles: str):
    with BlockLogs():
        mol = Chem.MolFromSmiles(smiles)
    generator = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)
    return None if mol is None else generator.GetFingerprint(mol)


def _rdkit_clusters(fps: list) -> tuple:
    """RDKit's Butina clusters of ``fps`` (its lower-triangle distance list)."""
    distances = []
    for i in range(1, len(fps)):
        distances.extend(1.0 - s for s in DataStructs.BulkTanimotoSimilarity(fps[i], fps[:i]))
    return Butina.ClusterData(distances, len(fps), CUTOFF, isDistData=True)


def _expected(order: list[str], smiles_of: dict[str, str], wanted: int):
    """The picks recomputed here: RDKit's clusters of the view's distinct molecules in rank
    order, ordered by their best-ranked member; each pick's row and its family's rows."""
    distinct = list(dict.fromkeys(smiles_of[rid] for rid in order if _fp(smiles_of[rid])))
    found = _rdkit_clusters([_fp(s) for s in distinct])
    chosen = sorted(found, key=min)[:wanted]
    picks, sizes = [], []
    for members in chosen:
        family = {distinct[i] for i in members}
        rows = [rid for rid in order if smiles_of[rid] in family]
        picks.append(rows[0])
        sizes.append(len(rows))
    return picks, sizes


def _bits(fps: list) -> np.ndarray:
    return np.array([np.packbits(np.frombuffer(fp.ToBitString().encode(), np.uint8) - 48,
                                 bitorder="little") for fp in fps])


@pytest.mark.parametrize("name", sorted(POOLS))
def test_butina_clusters_equal_rdkits_cluster_data(name):
    fps = [fp for fp in map(_fp, POOLS[name]) if fp is not None]
    assert [tuple(c) for c in butina.clusters(_bits(fps))] == list(_rdkit_clusters(fps))


@pytest.mark.slow
def test_diverse_view_export_and_limits(client, molecules):
    path, smiles_of = molecules
    for wanted, sort in ((5, "id"), (3, "-id"), (100, "id")):
        order = sorted(smiles_of, reverse=sort.startswith("-"))
        picks, sizes = _expected(order, smiles_of, wanted)
        response = client.get(f"{path}?diverse={wanted}&sort={sort}&limit=250")
        body = response.get_data(as_text=True)
        assert response.status_code == 200, body[:500]
        assert ROW_ID.findall(body) == picks
        assert [int(n.replace(",", "")) for n in FAMILY_CELL.findall(body)] == sizes
        assert 'aria-current="true" class="diverse-on"' in body
        export = client.get(f"{path}/export.csv?diverse={wanted}&sort={sort}")
        rows = list(csv.DictReader(io.StringIO(export.get_data(as_text=True))))
        assert [r["result_id"] for r in rows] == picks
        assert [int(r["family_size"]) for r in rows] == sizes
        document = client.get(f"{path}/export.json?diverse={wanted}&sort={sort}").get_json()
        assert [r["id"] for r in document["results"]] == picks
        assert [r["family_size"] for r in document["results"]] == sizes
        assert f"each of {wanted} families" in document["export"]["diverse"]
    # The toggle beside the order, from a plain view.
    assert "diverse=10" in client.get(f"{path}?sort=id").get_data(as_text=True)
    for bad in ("0", "101", "ten", "-3"):
        answer = client.get(f"{path}?diverse={bad}")
        assert answer.status_code == 400 and "diverse" in answer.get_data(as_text=True)
    both = client.get(f"{path}?diverse=5&group=scaffold")
    assert both.status_code == 400 and "group" in both.get_data(as_text=True)


def _analogues() -> list[str]:
    """Series of analogues: each library drug with short chains added (RDKit-checked), so
    clusters overlap and neighbour counts tie, unlike the demo's few dozen drugs."""
    out: dict[str, None] = {}
    for _name, base in LIBRARY[:12]:
        for tail in ("C", "CC", "CCC", "N", "CN", "O", "CO", "F", "CF", "C(=O)", "CCN",
                     "CCO", "OC", "NC(=O)", "C#N", "Cl"):
            with BlockLogs():
                mol = Chem.MolFromSmiles(base + tail)
            if mol is not None:
                out.setdefault(Chem.MolToSmiles(mol))
    return list(out)


def test_butina_clusters_equal_rdkits_on_overlapping_series():
    fps = [_fp(s) for s in _analogues()]
    assert len(fps) > 100
    expected = list(_rdkit_clusters(fps))
    assert sum(len(c) > 1 for c in expected) > 5  # a real test: several multi-member ones
    assert [tuple(c) for c in butina.clusters(_bits(fps))] == expected
