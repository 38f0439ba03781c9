"""Metrics beyond a kind's (``explore.extra_metrics``): the optional ``ipsae_min`` and keys
the vocabulary does not know (``foo_score``) are shown, sorted, filtered, plotted and
exported under a readable label; hostile keys stay bounded and escaped."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta

import pytest
import sqlalchemy as sa

from app import domain
from app.platform.db import get_engine
from app.platform.timeutil import utcnow
from app.store import schema
from app.viewer.explore import extra_metrics, fields
from app.viewer.explore.index import frame, index_rows, indexer
from app.viewer.proteins.columns import LIABILITY_COLUMNS
from app.viewer.results import table
from app.viewer.store.result_index import IndexState
from tests.support import factories
from tests.viewer.explore.test_explore import api_records, viewer_ids

HEADER_CELLS = re.compile(r"<thead>(.*?)</thead>", re.S)
# Metrics beyond the SDK's declared ones are an extension: the SDK-fields-only API double
# (tests/support/sdk_double.py) drops them, so these tests read the service's answers whole.
BEYOND_SDK = pytest.mark.api_extensions
PROTEIN = domain.KINDS["protein_design"]
# The designed chain's computed columns (app.viewer.proteins), after the metrics.
PROTEIN_KEYS = tuple(f.key for f in fields.of_group("protein"))


def _with_metrics(app, org, kind: str, n: int, extra, *, seed: int = 1):
    """Insert a pipeline of ``kind`` whose i-th result's metrics gain ``extra(i)``."""
    with get_engine(app).begin() as conn:
        pipeline_id, ids = factories.insert_pipeline(
            conn, org.workspace_id, kind, n, seed=seed,
            artifact_dir=app.config["ARTIFACT_DIR"])
        rows = conn.execute(sa.select(schema.results.c.id, schema.results.c.metrics)
                            .where(schema.results.c.pipeline_id == pipeline_id)).all()
        metrics = dict(rows)
        for i, result_id in enumerate(ids):
            conn.execute(schema.results.update().where(schema.results.c.id == result_id)
                         .values(metrics={**metrics[result_id], **extra(i)}))
    link = factories.make_link(app, org, pipeline_ids=[pipeline_id])
    return link.id, pipeline_id


def _extra(i: int) -> dict:
    # ipsae_min on most results (one without), foo_score on every other one, and values
    # that are no metric: text, a bool, a key with odd characters.
    out: dict = {"foo_score": float(i * 7 % 40), "note": "text", "flag": True,
                 "a<script>": 1.0}
    if i != 5:
        out["ipsae_min"] = round((i * 37 % 100) / 100, 2)
    return out


def _sorted_ids(records, key: str, desc: bool) -> list[str]:
    present = [r for r in records if key in r["metrics"]]
    missing = [r for r in records if key not in r["metrics"]]
    ordered = sorted(present, key=lambda r: ((-1 if desc else 1) * r["metrics"][key],
                                             r["id"]))
    return [r["id"] for r in ordered] + sorted(r["id"] for r in missing)


def test_keys_values_and_labels():
    assert extra_metrics.is_unknown_key("foo_score")
    for bad in ("a<script>", "1abc", "foo__gte", "x" * 65, "length", "qed", "id", "", 3,
                "smiles", "warning_count"):
        assert not extra_metrics.is_unknown_key(bad), bad
    assert not extra_metrics.is_unknown_key("ipsae_min")  # known to the vocabulary
    # Every other explorable field's key is taken: a metric cannot shadow it.
    assert {k for k, f in fields.FIELDS.items() if f.group != "metric"} <= extra_metrics.TAKEN
    values = extra_metrics.unknown_values({
        "foo_score": 2, "nan_score": float("nan"), "flag": True, "note": "x",
        "iptm": 0.5, **{f"k{i:04d}": float(i) for i in range(1000)}})
    assert list(values)[:1] == ["foo_score"] and len(values) == extra_metrics.MAX_EXTRA
    assert "nan_score" not in values and "flag" not in values and "iptm" not in values
    assert fields.label("ipsae_min") == "ipSAE (min)"
    assert fields.unit("ipsae_min") == domain.UNIT_RANGE
    assert fields.label("foo_score") == "Foo score" and fields.unit("foo_score") == ""
    assert fields.label("ligand_iptm") == "Protein\u2013ligand ipTM"  # the vocabulary's label
    assert fields.descending_first("ipsae_min") and fields.descending_first("foo_score")
    assert domain.METRICS["ipsae_min"].direction == "higher"
    assert all("ipsae_min" not in kind.metrics for kind in domain.KINDS.values())


def test_index_rows_and_frames_keep_unknown_metrics_bounded():
    record = {"id": "res_1", "metrics": {"iptm": 0.4, "ipsae_min": 0.3, "foo_score": 12,
                                         "a<script>": 1, "note": "x"}}
    values = index_rows.index_values(record)
    assert values["ipsae_min"] == 0.3 and values["iptm"] == 0.4
    assert values["extra_metrics"] == '{"foo_score":12.0}'
    hostile = index_rows.index_values({"id": "res_0", "metrics": {
        f"k{i:04d}": 1.0 for i in range(1000)}})
    rows = [hostile, values]
    columns = {key: [row.get(key) for row in rows] for key in (
        *fields.NUMERIC_KEYS, *frame.TEXT_COLUMNS, "warning_count", "smiles",
        "extra_metrics", *LIABILITY_COLUMNS.values())}
    built = frame.build([columns])
    # The pipeline's first 32 keys (the hostile record came first): foo_score is not one.
    assert len(built.extras) == extra_metrics.MAX_EXTRA and "foo_score" not in built.extras
    again = frame.from_bytes(frame.to_bytes(built))
    assert again.extras == built.extras and again.has_values("ipsae_min")
    assert not again.has_values("binding_confidence")


def test_columns_of_a_page_and_of_extras():
    records = [{"metrics": {"iptm": 1, "ipsae_min": 0.5, "zed": 1, "foo_score": 2}}]
    extras = extra_metrics.of_records(PROTEIN, records)
    assert extras == ("ipsae_min", "foo_score", "zed")
    columns = table.columns_for(PROTEIN, records, extras)
    labels = [c.label for c in columns if c.source == "metric"]
    assert labels[-3:] == ["ipSAE (min)", "Foo score", "Zed"]
    assert fields.plot_keys(PROTEIN, extras) == (*PROTEIN.metrics, *extras, "length",
                                                 *PROTEIN_KEYS)
    # A small molecule's records never carry ipsae_min: no column for it.
    small = domain.KINDS["small_molecule_design"]
    assert extra_metrics.of_records(small, [{"metrics": {"iptm": 1}}]) == ()


@BEYOND_SDK
def test_unknown_metrics_are_shown_sorted_filtered_plotted_and_exported(app, client, org):
    link_id, pipeline_id = _with_metrics(app, org, "protein_design", 40, _extra)
    path = f"/share/{link_id}/pipelines/{pipeline_id}"
    records = api_records(client, link_id, pipeline_id)
    assert records[0]["metrics"]["foo_score"] == 0.0  # the API serves them as stored

    # The plain page (from the API): columns with labels, sortable headers, filters, axes.
    for body in (client.get(path).get_data(as_text=True),
                 client.get(f"{path}?sort=-foo_score").get_data(as_text=True)):
        head = HEADER_CELLS.search(body).group(1)
        assert "ipSAE (min)" in head and "Foo score" in head
        assert "sort=-ipsae_min" in head and re.search(r"sort=-?foo_score", head)
        assert fields.UNKNOWN_METRIC in head
        assert 'name="foo_score__gte"' in body and 'name="ipsae_min__lte"' in body
        assert '<option value="foo_score"' in body and '<option value="ipsae_min"' in body
        assert "Note" not in head and "Flag" not in head and "a<script>" not in body

    # Whole-set sort by each, both ways, missing values last; a filter.
    for key in ("foo_score", "ipsae_min"):
        assert viewer_ids(client, path, f"sort=-{key}") == _sorted_ids(records, key, True)
        assert viewer_ids(client, path, f"sort={key}") == _sorted_ids(records, key, False)
    wanted = sorted(r["id"] for r in records if r["metrics"]["foo_score"] >= 20)
    assert viewer_ids(client, path, "foo_score__gte=20&sort=id") == wanted
    assert viewer_ids(client, path, "ipsae_min__gte=0.5&foo_score__lt=20&sort=id") == sorted(
        r["id"] for r in records
        if r["metrics"].get("ipsae_min", -1) >= 0.5 and r["metrics"]["foo_score"] < 20)

    # explore.json: histograms with labels, the scatter on the extra axes.
    body = client.get(f"{path}/explore.json?x=foo_score&y=ipsae_min").get_json()
    histograms = {h["key"]: h for h in body["histograms"]}
    assert histograms["ipsae_min"]["label"] == "ipSAE (min)"
    assert histograms["ipsae_min"]["unit"] == domain.UNIT_RANGE
    assert histograms["ipsae_min"]["missing"] == 1
    assert histograms["foo_score"]["label"] == "Foo score"
    assert sum(b["count"] for b in histograms["foo_score"]["bins"]) == 40
    points = body["points"]
    assert (points["x_label"], points["y_label"]) == ("Foo score", "ipSAE (min)")
    assert len(points["data"]) == 39
    plot = client.get(f"{path}/plot?x=foo_score&y=ipsae_min").get_data(as_text=True)
    assert "ipSAE (min) against Foo score" in plot

    # Exports: CSV columns named by the keys, at full precision; JSON records whole.
    text = client.get(f"{path}/export.csv?sort=-foo_score").get_data(as_text=True)
    rows = list(csv.DictReader(io.StringIO(text)))
    # The protein columns end with the count and its provisional marker (liabilities.assess).
    assert list(rows[0])[-5 - len(PROTEIN_KEYS):] == [
        "loop_fraction", "ipsae_min", "foo_score", *PROTEIN_KEYS, "liability_oxidation",
        "warnings"]
    by_id = {r["id"]: r["metrics"] for r in records}
    assert [float(row["foo_score"]) for row in rows] == sorted(
        (m["foo_score"] for m in by_id.values()), reverse=True)
    assert all(row["ipsae_min"] == repr(by_id[row["result_id"]].get("ipsae_min", ""))
               .strip("'") for row in rows)
    exported = client.get(f"{path}/export.json?sort=id").get_json()["results"]
    assert [r["metrics"]["foo_score"] for r in exported] == [
        r["metrics"]["foo_score"] for r in records]


@BEYOND_SDK
def test_a_page_from_the_api_shows_its_records_metrics_before_the_index(app, client, org,
                                                                      monkeypatch):
    link_id, pipeline_id = _with_metrics(app, org, "protein_design", 8, _extra)
    now = utcnow()
    building = IndexState(pipeline_id, "protein_design", "building", 8, "succeeded", 0,
                          None, 0, "another-worker", now + timedelta(minutes=5), None,
                          now)
    monkeypatch.setattr(indexer, "ensure", lambda _link_id, _pipeline: building)
    body = client.get(f"/share/{link_id}/pipelines/{pipeline_id}").get_data(as_text=True)
    head = HEADER_CELLS.search(body).group(1)
    assert "ipSAE (min)" in head and "sort=-foo_score" in head
    assert 'name="foo_score__gte"' in body  # the filter form knows it too
    assert "data-explore-histograms" not in body  # no plots until the index is ready
    assert "index_progress.js" in body


@pytest.mark.parametrize(("query", "named"), [
    ("sort=-note", "note"), ("nope_score__gte=1", "nope_score"), ("x=flag", "flag"),
    ("sort=a%3Cscript%3E", "a&lt;script&gt;"),
])
def test_a_metric_the_results_lack_is_a_400(app, client, org, query, named):
    link_id, pipeline_id = _with_metrics(app, org, "protein_design", 5, _extra)
    response = client.get(f"/share/{link_id}/pipelines/{pipeline_id}?{query}")
    assert response.status_code == 400
    body = response.get_data(as_text=True)
    assert named in body and "a<script>" not in body


@BEYOND_SDK
def test_small_molecules_do_not_show_ipsae(app, client, org):
    link_id, pipeline_id = _with_metrics(app, org, "small_molecule_design", 6,
                                         lambda i: {"foo_score": float(i)})
    body = client.get(f"/share/{link_id}/pipelines/{pipeline_id}?sort=-foo_score"
                      ).get_data(as_text=True)
    head = HEADER_CELLS.search(body).group(1)
    assert "Foo score" in head and "ipSAE" not in head


@BEYOND_SDK
@pytest.mark.slow
def test_a_hostile_record_stays_bounded_and_escaped(app, client, org):
    def hostile(i: int) -> dict:
        if i == 0:  # the API's first record: a thousand keys and odd ones
            return {**{f"k{n:04d}": float(n) for n in range(1000)}, "a<script>": 1.0,
                    "b\" onmouseover=\"x": 2.0, "ünïcode": 3.0}
        return {"foo_score": float(i)}

    link_id, pipeline_id = _with_metrics(app, org, "protein_design", 12, hostile)
    path = f"/share/{link_id}/pipelines/{pipeline_id}"
    limit = len(PROTEIN.metrics) + extra_metrics.MAX_EXTRA
    for url in (path, f"{path}?sort=-k0000"):
        body = client.get(url).get_data(as_text=True)
        head = HEADER_CELLS.search(body).group(1)
        assert head.count('class="num col-metric"') <= limit
        assert "a<script>" not in body and "onmouseover" not in body
        assert "ünïcode" not in body
    histograms = client.get(f"{path}/explore.json").get_json()["histograms"]
    assert len(histograms) <= limit + 1 + len(PROTEIN_KEYS)  # the length, the proteins
    header = client.get(f"{path}/export.csv").get_data(as_text=True).splitlines()[0]
    # rank, label, id, 4 sequence columns, warnings, the protein columns and the
    # liability count's provisional marker (liability_oxidation)
    assert len(header.split(",")) <= 7 + limit + 1 + len(PROTEIN_KEYS) + 1
    assert "script" not in header
