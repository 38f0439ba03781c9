"""``diverse=N`` over protein designs (issue 20 item 8): greedy families by sequence
identity of the designed chain, checked on hand-counted identities and, over the demo's
protein design pipeline, against Biopython's global alignments recomputed here."""

from __future__ import annotations

import csv
import io
import re

import pytest
from Bio import Align
from Bio.Align import substitution_matrices

from app.viewer.core.api_client import api
from app.viewer.proteins import families

ROW_ID = re.compile(r'<tr data-result-id="([^"]+)"')
FAMILY_CELL = re.compile(r'<td class="num col-family">([0-9,]+)</td>')
BASE = "MKTAYIAKQRQISFVKSHFSRQ"  # 22 residues


@pytest.mark.parametrize(("first", "second", "expected"), [
    (BASE, BASE, 1.0),
    # One substitution (I6V): 21 of 22 positions identical.
    (BASE, BASE[:5] + "V" + BASE[6:], 21 / 22),
    # One residue deleted (I6): all 21 of the shorter chain align to identical letters.
    (BASE, BASE[:5] + BASE[6:], 21 / 21),
    # A truncated chain (the first 11): identity over the shorter, 11 of 11.
    (BASE, BASE[:11], 1.0),
    # Every second residue changed to W (no W in BASE): 11 of 22.
    (BASE, "".join(c if i % 2 else "W" for i, c in enumerate(BASE)), 11 / 22),
    # Lower case reads as upper case.
    (BASE, BASE.lower(), 1.0),
])
def test_identity_hand_checked(first, second, expected):
    assert families.identity(first, second) == pytest.approx(expected)


def test_greedy_families_in_rank_order():
    near = BASE[:5] + "V" + BASE[6:]  # 95% identical to BASE
    other = "GSPEELLKRAEELAKRLGGSPE"  # unrelated: another family
    third = "WWHHCCYYWWHHCCYYWWHHCC"
    found = families.group([BASE, other, None, near, third, BASE, other], 2)
    assert found.founders == [0, 1]  # the third family is beyond the two wanted
    assert found.sizes == [3, 2]  # BASE, near, BASE; other twice
    assert found.examined == 7 and found.complete
    stopped = families.group([BASE, other, near], 3, seconds=-1.0)
    assert not stopped.complete and stopped.founders == []


def _identity(first: str, second: str) -> float:
    """Identity recomputed with Biopython here: needle's defaults, over the shorter."""
    aligner = Align.PairwiseAligner(
        mode="global", substitution_matrix=substitution_matrices.load("BLOSUM62"),
        open_gap_score=-10.0, extend_gap_score=-0.5)
    if first == second:
        return 1.0
    best = aligner.align(first, second)[0]
    return best.counts().identities / min(len(first), len(second))


@pytest.mark.reads_demo
@pytest.mark.slow
def test_diverse_protein_view_matches_biopython(app, client, demo):
    link = demo["share_links"]["public"]["id"]
    path = f"/share/{link}/pipelines/{demo['pipelines']['protein_design']}"
    with app.test_request_context():
        records = api().results(link, demo["pipelines"]["protein_design"], limit=1000)["data"]
    chain = {r["id"]: next(e["value"] for e in r["entities"] if e["type"] == "protein")
             for r in records}
    order = sorted(chain)  # sort=id
    founders: list[str] = []
    sizes: dict[str, int] = {}
    for rid in order:
        home = next((f for f in founders if _identity(chain[f], chain[rid]) >= 0.5), None)
        if home is None and len(founders) < 6:
            founders.append(rid)
            home = rid
        if home is not None:
            sizes[home] = sizes.get(home, 0) + 1
    body = client.get(f"{path}?diverse=6&sort=id&limit=250").get_data(as_text=True)
    assert ROW_ID.findall(body) == founders
    assert [int(n) for n in FAMILY_CELL.findall(body)] == [sizes[f] for f in founders]
    assert "designed chains ≥ 50% identical" in body
    export = client.get(f"{path}/export.csv?diverse=6&sort=id")
    assert [r["result_id"] for r in csv.DictReader(io.StringIO(
        export.get_data(as_text=True)))] == founders
