"""One liability definition (``liabilities.assess``) on every page: for demo designs the
result page's header count is the sum of its per-liability list, the table's cell and the
CSV's value, before the structure's exposure is known (marked provisional), while the
epitope scan is storing it (still provisional everywhere) and after the scan finished;
Met 1 is never counted nor marked."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest

from app.platform.timeutil import utcnow
from app.viewer.core.api_client import api
from app.viewer.proteins import columns, liabilities
from app.viewer.store import epitopes as epitope_store
from app.viewer.store import get_engine
from tests.support.html import page, text

# Not reads_demo: the second half stores exposures as the epitope scan would.


def _path(demo: dict) -> str:
    return (f"/share/{demo['share_links']['public']['id']}/pipelines/"
            f"{demo['pipelines']['protein_design']}")


def _table_cells(client, path: str) -> dict[str, tuple[str, bool]]:
    """Return {result id: (liability_count cell's sort value, marked provisional)}."""
    soup = page(client, f"{path}?sort=id&limit=250")
    heads = soup.select("table.results thead th") or soup.select("thead th")
    at = next(n for n, th in enumerate(heads)
              if th.select_one('a[href*="sort=-liability_count"], a[href*="sort=liability_count"]'))
    out = {}
    for row in soup.select("tr[data-result-id]"):
        cell = row.find_all(["td", "th"], recursive=False)[at]
        out[row["data-result-id"]] = (cell.get("data-sort"),
                                      "provisional" in (cell.get("class") or []))
    return out


def _csv(client, path: str) -> dict[str, dict]:
    response = client.get(f"{path}/export.csv?sort=id")
    assert response.status_code == 200
    return {row["result_id"]: row
            for row in csv.DictReader(io.StringIO(response.get_data(as_text=True)))}


def _result_page(client, path: str, result_id: str) -> tuple[int, list, bool, list[str]]:
    """Return the page's header count, per-liability counts, provisional flag and marks."""
    soup = page(client, f"{path}/results/{result_id}")
    report = soup.select_one("section.protein-report")
    total = int(text(report.select_one("[data-liability-total]")))
    counts = [item.select_one("[data-count]")["data-count"]
              for item in report.select("li[data-liability]")]
    marks = [(" ".join(m["class"]), text(m)) for m in report.select("pre.seq mark")]
    return total, counts, report.select_one("[data-provisional]") is not None, marks


def _check(client, path: str, ids: list[str], records: dict, provisional: bool) -> None:
    cells, rows = _table_cells(client, path), _csv(client, path)
    for result_id in ids:
        total, counts, marked, marks = _result_page(client, path, result_id)
        assert total == sum(int(c) for c in counts if c != "")
        assert cells[result_id] == (str(total), provisional)
        assert rows[result_id]["liability_count"] == str(total)
        assert (rows[result_id]["liability_oxidation"] == "") == provisional
        assert marked == provisional
        sequence = columns.designed_sequence(records[result_id])
        first = next(iter(page(client, f"{path}/results/{result_id}")
                          .select_one("pre.seq span").children))
        # Met 1 is never a site: the sequence starts with a plain M, not a mark.
        if sequence.upper().startswith("M"):
            assert isinstance(first, str) and first.startswith("M")
        pending = [m for m in marks if "liab-pending" in m[0]]
        assert bool(pending) == (provisional and bool(liabilities.oxidisable(sequence)))


@pytest.mark.slow
def test_every_page_shows_the_one_count_before_and_after_the_structure(app, client, demo):
    path = _path(demo)
    link, pid = demo["share_links"]["public"]["id"], demo["pipelines"]["protein_design"]
    with app.test_request_context():
        records = {r["id"]: r for r in api().results(link, pid, limit=1000)["data"]}
    client.get(path)  # the index
    with_mw = sorted(rid for rid, r in records.items()
                     if liabilities.oxidisable(columns.designed_sequence(r)))[:3]
    assert len(with_mw) == 3
    _check(client, path, with_mw, records, provisional=True)
    # The scan reads the structures: every M/W exposed, Met 1 reported exposed too.
    designs = []
    for rid in with_mw:
        sequence = columns.designed_sequence(records[rid])
        exposed = (1, *(i + 1 for i in liabilities.oxidisable(sequence)))
        designs.append(epitope_store.Design(rid, "ok", ("B:1",),
                                            liabilities.exposed_sites(sequence, exposed)))
    with get_engine(app).begin() as conn:
        assert epitope_store.claim(conn, pid, "test", utcnow(), timedelta(minutes=5))
        assert epitope_store.save(conn, pid, "test", designs, utcnow(), timedelta(minutes=5))
    # Read but the scan still running: the index (table, filters, CSV) changes when the
    # scan finishes, and the result page keeps the same provisional count until then.
    _check(client, path, with_mw, records, provisional=True)
    with get_engine(app).begin() as conn:
        epitope_store.finish(conn, pid, "test", len(records), utcnow())
    _check(client, path, with_mw, records, provisional=False)
    for rid in with_mw:  # oxidation now counts every M/W but Met 1
        sequence = columns.designed_sequence(records[rid])
        total, _counts, _marked, _marks = _result_page(client, path, rid)
        assert total == liabilities.assess(sequence).total + len(
            liabilities.oxidisable(sequence))
