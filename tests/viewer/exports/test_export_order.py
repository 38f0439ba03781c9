"""Exports keep the view's order, say each result's rank and label, and honour ``limit``
(issue 19 item 3); they link the viewer's own downloads, round computed numbers to a
stated precision and say which SDF records are 2D depictions or docked 3D poses (item 8).
Over the seeded demo data (in-process API)."""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile

import pytest

from app import domain
from app.viewer.exports import precision
from tests.viewer.exports.test_csv_export import api_records
from tests.viewer.exports.test_export_formats import parse_fasta, parse_sdf

TOP_10 = "?sort=-binding_confidence&limit=10"
LABEL = re.compile(r"#(\d+) [A-Za-z0-9_\-]{4,}")


# The demo: a link over six pipelines (260 protein_design results). Tests marked reads_demo
# read the shared one; the others take a copy of their own.


def url(demo: dict, kind: str, extension: str, query: str = "") -> str:
    """Return the export URL of the demo pipeline of ``kind``."""
    return (f"/share/{demo['share_links']['public']['id']}/pipelines/"
            f"{demo['pipelines'][kind]}/export.{extension}{query}")


def get(client, path: str):
    """Return a 200 response to ``path``."""
    response = client.get(path)
    assert response.status_code == 200, response.data[:500]
    return response


def ranked(records: list[dict], metric: str) -> list[dict]:
    """Return ``records`` best first by ``metric`` (higher is better), ties by id."""
    return sorted(records, key=lambda r: (-r["metrics"][metric], r["id"]))


def run_ranks(app, demo, kind: str) -> dict[str, int]:
    """Return each result's rank in the run by the kind's primary metric."""
    metric = domain.kind(kind).primary_metric
    return {r["id"]: n for n, r in enumerate(ranked(api_records(app, demo, kind), metric), 1)}


@pytest.mark.reads_demo
def test_the_top_10_come_best_first_with_rank_and_label_in_every_format(app, client, demo):
    kind = "protein_design"
    best = [r["id"] for r in ranked(api_records(app, demo, kind), "binding_confidence")[:10]]
    in_run = run_ranks(app, demo, kind)

    fasta = parse_fasta(get(client, url(demo, kind, "fasta", TOP_10)).get_data(as_text=True))
    names = [header.split(" ")[0].split("|") for header, _seq in fasta]
    assert [n[2] for n in names] == best
    assert [n[0] for n in names] == [str(i) for i in range(1, 11)]
    for (_rank, label, rid, _chain) in names:  # the label, its space written "_"
        assert label == f"#{in_run[rid]}_{rid[-len(label.split('_', 1)[1]):]}"

    rows = list(csv.reader(io.StringIO(get(client, url(demo, kind, "csv", TOP_10))
                                       .get_data(as_text=True))))
    assert rows[0][:3] == ["rank", "label", "result_id"]
    assert [r[2] for r in rows[1:]] == best
    assert [r[0] for r in rows[1:]] == [str(i) for i in range(1, 11)]
    assert all(LABEL.fullmatch(r[1]) and r[2].endswith(r[1].split()[1]) for r in rows[1:])
    assert [int(LABEL.fullmatch(r[1]).group(1)) for r in rows[1:]] == [in_run[i] for i in best]

    document = get(client, url(demo, kind, "json", TOP_10)).get_json()
    assert [(r["rank"], r["id"]) for r in document["results"]] == list(enumerate(best, 1))
    assert [r["label"] for r in document["results"]] == [r[1] for r in rows[1:]]
    assert document["export"]["sort"] == "-binding_confidence"
    assert document["export"]["limit"] == 10

    archive = zipfile.ZipFile(io.BytesIO(get(client, url(demo, kind, "zip", TOP_10)).data))
    cifs = [n for n in archive.namelist() if n.endswith(".cif")]
    assert cifs == [f"{n:03d}_{rid}.cif" for n, rid in enumerate(best, 1)]
    manifest = list(csv.reader(io.StringIO(archive.read("results.csv").decode())))
    assert manifest == rows
    assert "best first" in archive.read("README.txt").decode()


@pytest.mark.reads_demo
def test_the_sdf_of_a_limited_view_is_in_rank_order(app, client, demo):
    kind = "small_molecule_library_screen"
    best = [r["id"] for r in ranked(api_records(app, demo, kind), "optimization_score")[:3]]
    molecules = parse_sdf(get(client, url(demo, kind, "sdf",
                                          "?sort=-optimization_score&limit=3")).data)
    titles = [m.GetProp("_Name").split("|") for m in molecules]
    assert [t[2] for t in titles] == best and [t[0] for t in titles] == ["1", "2", "3"]
    assert [m.GetProp("rank") for m in molecules] == ["1", "2", "3"]
    assert all(LABEL.fullmatch(m.GetProp("label")) for m in molecules)


@pytest.mark.reads_demo
def test_without_a_sort_an_export_is_ranked_by_the_primary_metric(app, client, demo):
    for kind in ("protein_design", "small_molecule_design"):
        metric = domain.kind(kind).primary_metric
        expected = [r["id"] for r in ranked(api_records(app, demo, kind), metric)]
        rows = list(csv.reader(io.StringIO(get(client, url(demo, kind, "csv"))
                                           .get_data(as_text=True))))
        assert [r[2] for r in rows[1:]] == expected, kind
        # Ranked by the run's own metric: the view's rank is the label's.
        assert all(r[1].startswith(f"#{r[0]} ") for r in rows[1:]), kind


@pytest.mark.reads_demo
def test_a_shortlist_export_keeps_the_order_of_its_view(app, client, demo):
    kind = "protein_design"
    records = api_records(app, demo, kind)
    picks = [records[200]["id"], records[3]["id"], records[77]["id"], records[150]["id"]]
    ids = "?ids=" + ",".join(picks)
    by_iptm = sorted((r for r in records if r["id"] in picks),
                     key=lambda r: (-r["metrics"]["iptm"], r["id"]))
    # Without a sort, the order of the list (a shortlist's: as picked).
    as_listed = sorted((r for r in records if r["id"] in picks),
                       key=lambda r: picks.index(r["id"]))
    for query, expected in ((ids + "&sort=-iptm", by_iptm), (ids, as_listed)):
        fasta = parse_fasta(get(client, url(demo, kind, "fasta", query)).get_data(as_text=True))
        assert [h.split("|")[2] for h, _s in fasta] == [r["id"] for r in expected], query
        assert [h.split("|")[0] for h, _s in fasta] == ["1", "2", "3", "4"]
        archive = zipfile.ZipFile(io.BytesIO(get(client, url(demo, kind, "zip", query)).data))
        assert [n for n in archive.namelist() if n.endswith(".cif")] == [
            f"{n:03d}_{r['id']}.cif" for n, r in enumerate(expected, 1)]
    # A limit on a shortlist: its first two in the view's order.
    two = get(client, url(demo, kind, "json", ids + "&sort=-iptm&limit=2")).get_json()
    assert [r["id"] for r in two["results"]] == [r["id"] for r in by_iptm[:2]]


@pytest.mark.reads_demo
@pytest.mark.parametrize("limit", ["0", "-1", "abc", "1001", "\uff11"])
def test_a_bad_limit_is_a_400_naming_it(client, demo, limit):
    response = client.get(url(demo, "protein_design", "csv", f"?limit={limit}"))
    assert response.status_code == 400 and response.mimetype == "text/html"
    assert "page size" in response.get_data(as_text=True).lower()


@pytest.mark.reads_demo
def test_json_artifact_links_are_the_viewers_downloads(app, client, demo):
    link_id = demo["share_links"]["public"]["id"]
    for kind in ("protein_design", "small_molecule_library_screen"):
        response = get(client, url(demo, kind, "json", "?limit=5"))
        text = response.get_data(as_text=True)
        assert "/compute/" not in text and "signature=" not in text
        assert "url_expires_at" not in text
        document = json.loads(text)
        assert "as long as the share link" in document["export"]["artifact_links"]
        pipeline_id = demo["pipelines"][kind]
        for record in document["results"]:
            assert record["artifacts"], record["id"]
            for role, link in record["artifacts"].items():
                assert link == {"url": f"http://viewer.test/share/{link_id}/pipelines/"
                                       f"{pipeline_id}/results/{record['id']}/artifacts/{role}"}
        # Followed through the app, a link downloads the file the result page offers.
        first = document["results"][0]
        role = "ligand_structure" if "ligand_structure" in first["artifacts"] else "structure"
        download = client.get(first["artifacts"][role]["url"].removeprefix("http://viewer.test"))
        assert download.status_code == 200 and download.data
        assert "attachment" in download.headers["Content-Disposition"]


# Not reads_demo: changes the app's config (on the shared app, every later test's).
def test_json_links_are_root_relative_without_a_trusted_base(app, client, demo):
    app.config["PUBLIC_URL"] = None  # no FLASK_PUBLIC_URL, no trusted hosts
    document = get(client, url(demo, "protein_design", "json", "?limit=1")).get_json()
    link = document["results"][0]["artifacts"]["structure"]["url"]
    assert link.startswith("/share/") and "relative" in document["export"]["artifact_links"]


@pytest.mark.reads_demo
def test_computed_numbers_are_rounded_to_the_stated_precision(app, client, demo):
    kind = "small_molecule_design"
    rows = list(csv.DictReader(io.StringIO(get(client, url(demo, kind, "csv"))
                                           .get_data(as_text=True))))
    for key, decimals in (("mol_weight", 2), ("clogp", 2), ("tpsa", 2), ("qed", 3)):
        assert precision.DECIMALS[key] == decimals
        for row in rows:
            if row[key]:
                assert len(row[key].partition(".")[2]) <= decimals, (key, row[key])
    assert any(len(row["mol_weight"].partition(".")[2]) == 2 for row in rows)
    molecules = parse_sdf(get(client, url(demo, kind, "sdf")).data)
    assert all(len(m.GetProp("mol_weight").partition(".")[2]) <= 2 for m in molecules)
    document = get(client, url(demo, kind, "json")).get_json()
    assert "mol_weight to 2 decimals" in document["export"]["precision"]
    archive = zipfile.ZipFile(io.BytesIO(get(client, url(demo, kind, "zip")).data))
    assert "mol_weight to 2 decimals" in archive.read("README.txt").decode()


@pytest.mark.reads_demo
def test_sdf_titles_say_which_records_are_2d_and_which_docked_3d(client, demo):
    seen = set()
    for kind in ("small_molecule_design", "small_molecule_library_screen"):
        body = get(client, url(demo, kind, "sdf")).get_data(as_text=True)
        for block in body.split("$$$$\n")[:-1]:
            lines = block.split("\n")
            title, program = lines[0], lines[1]
            source = re.search(r">  <coordinates>\n(.*)\n", block).group(1)
            expected = {"ligand_structure": "docked 3D pose", "2D": "2D depiction"}[source]
            assert title.endswith("|" + expected), title
            assert program.rstrip().endswith("3D" if source == "ligand_structure" else "2D")
            seen.add(expected)
    assert seen == {"docked 3D pose", "2D depiction"}


@pytest.mark.reads_demo
def test_a_list_without_a_sort_exports_and_shows_in_its_own_order(app, client, demo):
    """A shortlist's ids= (picked BSCA, WGK2, 0XAP, QPZ9, EAY0) keeps that order in
    every file and on the page; a sort given with it still sorts."""
    kind = "protein_design"
    records = api_records(app, demo, kind)
    picked = [records[40]["id"], records[7]["id"], records[200]["id"], records[3]["id"],
              records[121]["id"]]
    ids = "?ids=" + ",".join(picked)
    for extension in ("fasta", "csv", "json", "zip"):
        body = get(client, url(demo, kind, extension, ids)).data
        if extension == "zip":
            body = zipfile.ZipFile(io.BytesIO(body)).read("results.csv")
        text = body.decode()
        assert sorted(picked, key=text.index) == picked, extension
    names = [h.split(" ")[0].split("|") for h, _s in
             parse_fasta(get(client, url(demo, kind, "fasta", ids)).get_data(as_text=True))]
    assert [n[0] for n in names] == ["1", "2", "3", "4", "5"]  # the place in the list
    page = get(client, url(demo, kind, "x", ids).replace("/export.x", "")
               ).get_data(as_text=True)
    assert re.findall(r'<tr data-result-id="([^"]+)"', page) == picked
    assert "in the order of the list" in page
    best = [r["id"] for r in ranked([r for r in records if r["id"] in picked],
                                    "binding_confidence")]
    sorted_ids = ids + "&sort=-binding_confidence"
    names = [h.split(" ")[0].split("|")[2] for h, _s in
             parse_fasta(get(client, url(demo, kind, "fasta", sorted_ids)).get_data(as_text=True))]
    assert names == best
