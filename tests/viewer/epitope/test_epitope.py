"""Epitopes over the demo's protein design pipeline (260 designs): the scan, the
``contacts=`` / ``contacts_any=`` filters against contacts recomputed here from the
structure files with Biopython, exposure against Biopython's own ShrakeRupley, the strip.
"""

from __future__ import annotations

import io
import re
import time
from collections import Counter

import pytest
from Bio.Data.PDBData import residue_sasa_scales
from Bio.PDB import MMCIFParser, NeighborSearch
from Bio.PDB.SASA import ShrakeRupley

from app.platform.db import get_engine
from app.viewer.core.api_client import api
from app.viewer.epitope import contacts, scan
from app.viewer.proteins import columns
from app.viewer.store import epitopes as epitope_store
from tests.support.apps import make_test_app
from tests.support.databases import dispose_engines, migrated_database
from tests.support.demo import seeded_demo
from tests.support.view_rows import view_ids

# The module fixture seeds a demo and scans all its 260 structures: a minute on 2 cores.
pytestmark = pytest.mark.slow

BACKBONE = {"N", "CA", "C", "O", "CB", "OXT"}


@pytest.fixture(scope="module")
def demo_app(tmp_path_factory):
    """One app, demo seeded and scanned, for the module (the scan reads 260 files).

    Not the shared demo of ``reads_demo``: the scan is on here (off in every other test
    app) and writes what it reads; a copy of the demo (``seeded_demo``) of its own.
    """
    root = tmp_path_factory.mktemp("epitope")
    url, drop = migrated_database(root)
    app = make_test_app(url, root)
    app.config["EPITOPE_SCAN"] = True  # off in the other tests (tests/conftest.py)
    demo = seeded_demo(app)  # seed_demo(..., public_url="http://viewer.test"), copied
    client = app.test_client()
    path = _path(demo)
    assert client.get(path).status_code == 200  # starts the scan in the background
    pid = demo["pipelines"]["protein_design"]
    deadline = time.monotonic() + 300
    while True:
        with app.app_context():
            progress = scan.progress(pid)
        if progress is not None and progress.finished_count == 260:
            break
        assert time.monotonic() < deadline and not (progress and progress.failure), progress
        time.sleep(0.5)
    yield app, demo
    dispose_engines(app)
    drop()


def _path(demo: dict, kind: str = "protein_design") -> str:
    return f"/share/{demo['share_links']['public']['id']}/pipelines/{demo['pipelines'][kind]}"


def _structures(app, demo) -> dict[str, object]:
    """Each design's structure, read with Biopython from the file the link serves."""
    link, pid = demo["share_links"]["public"]["id"], demo["pipelines"]["protein_design"]
    with app.test_request_context():
        records = api().results(link, pid, limit=1000)["data"]
    client, parser, out = app.test_client(), MMCIFParser(QUIET=True), {}
    for record in records:
        body = client.get(f"/share/{link}/pipelines/{pid}/results/{record['id']}"
                          "/artifacts/structure").get_data(as_text=True)
        out[record["id"]] = parser.get_structure(record["id"], io.StringIO(body))
    return out


def _contacts(structure) -> set[tuple[str, int]]:
    """Target (B) residues with a heavy atom within 4.5 A of binder (A) heavy atoms, or,
    the binder or the target having no side chains, a CB (CA for Gly) within 8 A of a
    binder CB."""
    model = structure[0]
    binder = [a for a in model["A"].get_atoms() if a.element != "H"]
    target = [a for a in model["B"].get_atoms() if a.element != "H"]
    backbone_only = (all(a.get_id() in BACKBONE for a in binder)
                     or all(a.get_id() in BACKBONE for a in target))
    search = NeighborSearch(target)
    found = {("B", a.get_parent().id[1]) for b in binder for a in search.search(b.coord, 4.5)}
    if backbone_only:
        def beta(residue):
            return residue["CB"] if "CB" in residue else residue["CA"]
        for residue in model["A"]:
            for a in search.search(beta(residue).coord, 8.0):
                if a is beta(a.get_parent()):
                    found.add(("B", a.get_parent().id[1]))
    return found


@pytest.fixture(scope="module")
def structures(demo_app) -> dict[str, object]:
    """Each design's structure, parsed once for the module."""
    return _structures(*demo_app)


@pytest.fixture(scope="module")
def recomputed(structures):
    return {rid: _contacts(s) for rid, s in structures.items()}


def _most_contacted(recomputed) -> list[tuple[str, int]]:
    """The target residues the designs contact, most contacted first (ties in order)."""
    counts = Counter(r for residues in recomputed.values() for r in residues)
    return sorted(counts, key=lambda r: (-counts[r], r))


def test_designs_have_their_own_epitopes(recomputed):
    distinct = {frozenset(c) for c in recomputed.values()}
    assert len(distinct) > 100  # not one pose per backbone topology any more
    assert all(recomputed.values())  # every design touches its target


def test_contacts_filter_matches_contacts_recomputed_from_the_files(demo_app, recomputed):
    app, demo = demo_app
    client, path = app.test_client(), _path(demo)
    top = _most_contacted(recomputed)
    one, two = top[0], top[1]
    for query, want in (
        ([one], {rid for rid, c in recomputed.items() if one in c}),
        ([one, two], {rid for rid, c in recomputed.items() if one in c and two in c}),
    ):
        text = ",".join(f"{c}:{n}" for c, n in query)
        assert sorted(view_ids(client, path, f"contacts={text}")) == sorted(want), text
    rare = top[-1]
    either = {rid for rid, c in recomputed.items() if one in c or rare in c}
    got = view_ids(client, path, f"contacts_any=B:{one[1]},B:{rare[1]}")
    assert sorted(got) == sorted(either)


def test_a_patch_keeps_designs_contacting_at_least_k_of_it(demo_app, recomputed):
    # The patch selection (explore.selections.patch) over this module's scanned demo: its
    # contacts are the epitope scan's, like contacts= and contacts_any=.
    app, demo = demo_app
    client, path = app.test_client(), _path(demo)
    patch = _most_contacted(recomputed)[:4]
    text = ",".join(f"{c}:{n}" for c, n in patch)
    sizes = {rid: len(set(patch) & c) for rid, c in recomputed.items()}
    for k in (1, 2, 3, 4):
        want = {rid for rid, n in sizes.items() if n >= k}
        assert sorted(view_ids(client, path, f"patch={text}&patch_min={k}")) == sorted(want)
    assert sorted(view_ids(client, path, f"patch={text}")) == sorted(
        view_ids(client, path, f"contacts={text}"))
    assert sorted(view_ids(client, path, f"patch={text}&patch_min=1")) == sorted(
        view_ids(client, path, f"contacts_any={text}"))
    assert client.get(f"{path}?patch={text}&patch_min=5").status_code == 400
    assert client.get(f"{path}?patch_min=2").status_code == 400


def test_strip_shows_the_main_epitope_and_links_to_it(demo_app, recomputed):
    app, demo = demo_app
    body = app.test_client().get(_path(demo)).get_data(as_text=True)
    assert 'id="epitope"' in body
    counts: dict[int, int] = {}
    for residues in recomputed.values():
        for _chain, n in residues:
            counts[n] = counts.get(n, 0) + 1
    best = max(counts, key=lambda n: (counts[n], -n))
    share = round(100 * counts[best] / len(recomputed))
    assert f'aria-label="B:{best} ' in body
    assert f"{share}% of designs ({counts[best]})" in body
    assert f"contacts_any=B%3A{best}" in body or f"contacts_any=B:{best}" in body
    assert "Most contacted:" in body


def test_exposed_oxidation_sites_match_biopython(demo_app, structures):
    app, demo = demo_app
    link, pid = demo["share_links"]["public"]["id"], demo["pipelines"]["protein_design"]
    client, path = app.test_client(), _path(demo)
    found = set(view_ids(client, path, "liability=oxidation"))
    # Biopython's full Shrake-Rupley costs ~0.8 s a chain: five designs the view lists and
    # five it leaves out (the first in id order of each) are checked against it.
    listed = sorted(rid for rid in structures if rid in found)[:5]
    left_out = sorted(rid for rid in structures if rid not in found)[:5]
    sample = {rid: structures[rid] for rid in listed + left_out}
    want_with = set()
    for rid, structure in sample.items():
        chain = structure[0]["A"]
        ShrakeRupley().compute(chain, level="R")
        # The initiator Met 1 is not a site (exposure.py): every design starts with it.
        exposed = [r for r in chain if r.get_resname() in ("MET", "TRP")
                   and (r.id[1], r.get_resname()) != (1, "MET")
                   and r.sasa / residue_sasa_scales["Wilke"][r.get_resname()] >= 0.20]
        if exposed:
            want_with.add(rid)
    # Some designs have an exposed M/W beyond Met 1, and some none: both filters answer.
    assert len(listed) == len(left_out) == 5
    assert found & set(sample) == want_with
    data = client.get(f"{path}/explore.json").get_json()
    assert data["facets"]["liability"]["oxidation"] == len(found)
    assert link and pid


def _column(body: str, key: str) -> dict[str, str]:
    """Return the ``data-sort`` text of column ``key`` in each row of a results page."""
    head = body.split("<thead>", 1)[1].split("</thead>", 1)[0]
    names = re.findall(r"<th[ >].*?</th>", head, re.S)
    at = next(n for n, th in enumerate(names) if f"sort=-{key}" in th or f"sort={key}" in th)
    out = {}
    for rid, row in re.findall(r'<tr data-result-id="([^"]+)"[^>]*>(.*?)</tr>', body, re.S):
        cells = re.findall(r"<t[hd][ >].*?</t[hd]>", row, re.S)
        out[rid] = re.search(r'data-sort="([^"]+)"', cells[at]).group(1)
    return out


def test_the_liabilities_shown_are_those_the_view_sorts_by(demo_app):
    # The scan adds exposed M/W to the index's liability count; the table's cells show the
    # index's values, so a view sorted by liabilities reads in the order its cells say.
    app, demo = demo_app
    link, pid = demo["share_links"]["public"]["id"], demo["pipelines"]["protein_design"]
    body = app.test_client().get(f"{_path(demo)}?sort=-liability_count&limit=250"
                                 ).get_data(as_text=True)
    shown = {rid: int(text) for rid, text in _column(body, "liability_count").items()}
    assert len(shown) == 250  # whole numbers, as the sequence's counts are ("8", not "8.0")
    counts = list(shown.values())
    assert counts == sorted(counts, reverse=True)
    with app.test_request_context():
        records = {r["id"]: r for r in api().results(link, pid, limit=1000)["data"]}
    from_sequence = {rid: columns.values(columns.designed_sequence(records[rid]))
                     ["liability_count"] for rid in shown}
    assert all(shown[rid] >= from_sequence[rid] for rid in shown)
    assert any(shown[rid] > from_sequence[rid] for rid in shown)  # exposed M/W counted


@pytest.mark.parametrize("value", ["B", "B:x", "B:0", ":12", "B:12;B:13",
                                   ",".join(f"B:{i}" for i in range(1, 60))])
def test_bad_contacts_are_a_400_naming_the_key(demo_app, value):
    app, demo = demo_app
    for key in ("contacts", "contacts_any"):
        response = app.test_client().get(f"{_path(demo)}?{key}={value}")
        assert response.status_code == 400
        assert key in response.get_data(as_text=True)


def test_contacts_are_refused_on_small_molecules(demo_app):
    app, demo = demo_app
    response = app.test_client().get(f"{_path(demo, 'small_molecule_design')}?contacts=B:1")
    assert response.status_code == 400


def test_the_3d_page_marks_the_designs_epitope(demo_app, recomputed):
    app, demo = demo_app
    rid, residues = next((rid, c) for rid, c in sorted(recomputed.items()) if len(c) >= 3)
    body = app.test_client().get(f"{_path(demo)}/results/{rid}/structure").get_data(
        as_text=True)
    assert 'id="epitope-legend"' in body
    listed = re.search(r'<ul class="plain epitope-list"><li>Chain B: ([^<]+)</li>', body)
    numbers = set()
    for span in listed.group(1).split(", "):
        first, _, last = span.partition("-")
        numbers.update(range(int(first), int(last or first) + 1))
    assert numbers == {n for _c, n in residues}
    assert '"spacefill"' in body or "&#34;spacefill&#34;" in body


def test_the_files_are_read_outside_the_worker_process(demo_app, monkeypatch):
    """The scan's CPU work (gemmi, NumPy) runs in a child process, so a worker's requests
    never wait for the GIL behind it: the readings are the same with ``contacts.read``
    broken in this process, and a file gemmi cannot read is "unreadable", not an error."""
    app, demo = demo_app
    link, pid = demo["share_links"]["public"]["id"], demo["pipelines"]["protein_design"]
    with app.test_request_context():
        records = api().results(link, pid, limit=6)["data"]
        pipeline = next(p for p in api().share(link)["pipelines"] if p["id"] == pid)
        with get_engine(app).connect() as conn:
            stored = {r["id"]: epitope_store.design(conn, pid, r["id"]) for r in records}
        one = scan.Scan(app, api(), link, pipeline, None, "test", len(records))
        fetched = [one._fetch(r["id"], {r["id"]: r}) for r in records]
        assert all(isinstance(item, tuple) for item in fetched)
        expected = [contacts.read(*item) for item in fetched]
        fetched.append((b"data_x\nnot a structure", "cif", {"A"}, {"B"}))

        def broken(*_args):
            raise AssertionError("read in the worker process")

        monkeypatch.setattr(contacts, "read", broken)
        ids = [r["id"] for r in records] + ["res_hostile"]
        designs = one._readings(ids, fetched)
    assert [d.result_id for d in designs] == ids
    assert [(d.contacts, d.exposed) for d in designs[:-1]] == [
        (tuple(f"{c}:{n}" for c, n in reading.contacts), reading.exposed)
        for reading in expected]
    assert all(d.state == "ok" for d in designs[:-1])
    assert designs[-1].state == "unreadable"
    for design in designs[:-1]:  # and as the background scan saved them
        saved = stored[design.result_id]
        assert (saved.state, saved.contacts, saved.exposed) == (
            design.state, design.contacts, design.exposed)
