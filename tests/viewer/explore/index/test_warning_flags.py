"""A run's warning codes in its frame (``warning_flags``): the most common listed apart,
the rest grouped under "other", in a word per row whatever the number of codes.

The hostile run: results whose codes embed a detail (``clash_res_<i>_<k>``), thousands
of distinct codes. Its facet lists at most ``MAX_LISTED`` codes and the group;
``warning=<listed code>`` and ``warnings=other`` give exactly the results the records
say; its frame files are as large as those of a run with a few codes; its results keep
every code of their own in exports.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from app.platform.db import get_engine
from app.viewer.explore.index import frame, frame_files, warning_flags
from app.viewer.explore.index.warning_flags import ALWAYS_LISTED, MAX_LISTED, FlagBuilder
from tests.support import factories
from tests.support.html import form_query, one, page, texts
from tests.viewer.explore.test_explore import api_records, viewer_ids

N = 600


def hostile_codes(index: int) -> list[str]:
    """Result ``index``'s codes: four that embed a detail on three results in four, codes
    of falling frequency (``common_00`` on every other result, ``common_59`` on every
    61st: ties among the rarer ones), ``other`` (a code named like the group) on every
    fifth, and an alert code on two results only (always listed)."""
    codes = [f"clash_res_{index}_{k}" for k in range(4)] if index % 4 != 3 else []
    codes += [f"common_{j:02d}" for j in range(60) if index % (j + 2) == 0]
    if index % 5 == 0:
        codes.append("other")
    if index in (5, 7):
        codes.append("pains_substructure")
    return codes


def few_codes(index: int) -> list[str]:
    """Result ``index``'s codes in a run with a few distinct ones."""
    return [f"common_{j:02d}" for j in range(10) if index % (j + 2) == 0]


def _run(app, org, codes_of) -> tuple[str, str]:
    """Seed a protein design run of ``N`` results with ``codes_of(i)`` each; return the
    link and pipeline ids."""
    with get_engine(app).begin() as conn:
        pipeline_id, ids = factories.insert_pipeline(
            conn, org.workspace_id, "protein_design", N, seed=11,
            artifact_dir=app.config["ARTIFACT_DIR"])
        factories.set_warnings(conn, {rid: codes_of(i) for i, rid in enumerate(ids)})
    return factories.make_link(app, org, pipeline_ids=[pipeline_id]).id, pipeline_id


def _frame_file_bytes(app) -> int:
    """Bytes of the frame files this machine holds (not the stored records beside them,
    which an export writes)."""
    root = Path(frame_files.root(app))
    return sum(path.stat().st_size for path in root.rglob("*")
               if path.is_file() and "records" not in path.relative_to(root).parts)


def _expected_listed(counts: Counter) -> list[str]:
    """The rule, from the records: the alert codes present, then the most common others
    (ties by name), ``MAX_LISTED`` in all."""
    always = [code for code in ALWAYS_LISTED if counts[code]]
    others = sorted((code for code in counts if code not in always),
                    key=lambda code: (-counts[code], code))
    return always + others[:MAX_LISTED - len(always)]


@pytest.mark.dialect  # the index's bulk writes and saved frame, on both stores
def test_a_run_with_thousands_of_codes_lists_the_most_common_and_groups_the_rest(
        app, client, org):
    link_id, pipeline_id = _run(app, org, hostile_codes)
    path = f"/share/{link_id}/pipelines/{pipeline_id}"
    records = api_records(client, link_id, pipeline_id)
    codes = {r["id"]: [w["code"] for w in r.get("warnings") or []] for r in records}
    counts = Counter(code for found in codes.values() for code in found)
    assert len(counts) > 1_800  # far more than the facet lists
    listed = _expected_listed(counts)
    grouped = {code for code in counts if code not in listed}
    other = {rid for rid, found in codes.items() if grouped & set(found)}

    answer = client.get(f"{path}/explore.json").get_json()
    facets = answer["facets"]
    assert len(facets["warning"]) <= MAX_LISTED
    assert facets["warning"] == {code: counts[code] for code in listed}
    assert "pains_substructure" in facets["warning"]  # on two results only: always listed
    clean = sum(1 for found in codes.values() if not found)
    assert facets["warnings"] == {"none": clean, "any": N - clean, "other": len(other),
                                  "grouped_codes": len(grouped)}

    # The page lists the listed codes, "None" and the group: never thousands of entries.
    entries = page(client, f"{path}?sort=-iptm").select('[data-facet="warnings"] li')
    assert len(entries) <= MAX_LISTED + 2
    group = [li for li in entries if li.get("data-group") == "other"]
    assert len(group) == 1 and "warnings=other" in group[0].a["href"]
    assert f"({len(grouped):,} codes)".replace(",", "\u2009") in group[0].get_text()

    # Exactly the results the records say: a listed code, a tie-broken one, the code
    # named "other" (a code like any other), and the group.
    for code in (listed[0], listed[-1], "other", "pains_substructure"):
        assert sorted(viewer_ids(client, path, f"warning={code}")) == \
            sorted(rid for rid, found in codes.items() if code in found), code
    assert sorted(viewer_ids(client, path, "warnings=other")) == sorted(other)
    # Its chip says what it is, and the filter form keeps it when applied.
    grouped_page = page(client, f"{path}?warnings=other&sort=-iptm")
    assert texts(grouped_page, '[data-chip-key="warnings"] .chip-label') == [
        "With a less common warning code"]
    form = one(grouped_page, "details.explore-filters form")
    assert "warnings=other" in form_query(form)
    narrowed = client.get(f"{path}/explore.json?warnings=other").get_json()["facets"]
    assert narrowed["warning"] == {
        code: n for code in listed
        if (n := sum(1 for rid in other if code in codes[rid]))}

    # A code the run groups: the index cannot tell its results; a 400 says why.
    refused = client.get(f"{path}?warning=clash_res_0_0")
    assert refused.status_code == 400
    assert "warnings=other" in refused.get_data(as_text=True)

    # The group's results keep every code of their own in an export.
    rows = list(csv.DictReader(io.StringIO(client.get(
        f"{path}/export.csv?warnings=other&sort=id").get_data(as_text=True))))
    assert [row["result_id"] for row in rows] == sorted(other)
    assert all(row["warnings"] == ";".join(codes[row["result_id"]]) for row in rows)

    # Its frame files weigh what those of a run with a few codes weigh: a word per row.
    hostile_bytes = _frame_file_bytes(app)
    link_few, pipeline_few = _run(app, org, few_codes)
    client.get(f"/share/{link_few}/pipelines/{pipeline_few}/explore.json")
    few_bytes = _frame_file_bytes(app) - hostile_bytes
    assert few_bytes > 0
    assert hostile_bytes <= few_bytes + 16 * N + 16_384


def _built(texts: list[str | None], chunk: int = 7) -> warning_flags.WarningFlags:
    builder = FlagBuilder()
    for start in range(0, len(texts), chunk):
        builder.add(texts[start:start + chunk])
    return builder.finish()


def _stored(codes: list[str]) -> str:
    return ";" + ";".join(codes) + ";" if codes else ""


def test_the_listed_codes_and_each_rows_bits_follow_the_rule():
    rows = [hostile_codes(i) for i in range(300)]
    flags = _built([_stored(found) for found in rows])
    counts = Counter(code for found in rows for code in found)
    listed = _expected_listed(counts)
    assert flags.listed == tuple(sorted(listed, key=lambda c: (-counts[c], c)))
    assert flags.grouped == len(counts) - MAX_LISTED
    assert flags.bits.dtype == np.uint64 and flags.bits.nbytes == 8 * 300
    for code in (*listed, "clash_res_0_0", "absent"):
        found = flags.rows_with(code)
        if code in listed:
            assert np.flatnonzero(found).tolist() == [i for i, f in enumerate(rows)
                                                      if code in f]
        else:  # grouped, or absent: the index cannot tell which
            assert found is None
    assert flags.rows_with(ALWAYS_LISTED[-1]).sum() == 0  # always listed: known absent
    other = [i for i, found in enumerate(rows) if set(found) - set(listed)]
    assert np.flatnonzero(flags.other_rows()).tolist() == other
    keep = np.arange(300) % 3 == 0
    per_code, in_other = flags.counts(keep)
    assert per_code == {code: n for code in listed
                        if (n := sum(1 for i in range(0, 300, 3) if code in rows[i]))}
    assert in_other == sum(1 for i in other if i % 3 == 0)


def test_a_run_with_few_codes_groups_none_and_an_absent_code_has_no_row():
    flags = _built([None, "", ";a;b;", ";b;", ";b;a;c", ";a;a;"])
    assert flags.listed == ("a", "b") and flags.grouped == 0  # "c" was cut short
    assert flags.bits.dtype == np.uint8  # a byte a row: two bits and the group's
    assert flags.rows_with("a").tolist() == [False, False, True, False, True, True]
    assert not flags.rows_with("c").any() and not flags.other_rows().any()


def test_bit_counts_count_each_bit():
    rng = np.random.default_rng(3)
    words = rng.integers(0, 2**63, size=1000, dtype=np.uint64) | (
        rng.integers(0, 2, size=1000, dtype=np.uint64) << np.uint64(63))
    naive = [sum(1 for w in words.tolist() if w >> bit & 1) for bit in range(64)]
    assert warning_flags.bit_counts(words).tolist() == naive
    assert warning_flags.bit_counts(words, 13).tolist() == naive[:13]
    assert warning_flags.bit_counts(words, 0).tolist() == []
    low = (words & np.uint64(0xFF)).astype(np.uint8)
    assert warning_flags.bit_counts(low).tolist() == naive[:8]


def test_saved_flags_read_back_and_a_frame_saved_with_one_array_per_code_reads_alike():
    rows = [hostile_codes(i) for i in range(200)]
    flags = _built([_stored(found) for found in rows])
    again = warning_flags.from_arrays(warning_flags.to_arrays(flags), 200)
    assert again.listed == flags.listed and again.grouped == flags.grouped
    assert np.array_equal(again.bits, flags.bits)
    # The layout before: a boolean array per code of the run.
    codes = sorted({code for found in rows for code in found})
    legacy = {code: np.array([code in found for found in rows]) for code in codes}
    before = warning_flags.from_flag_arrays(legacy, 200)
    assert before.listed == flags.listed and before.grouped == flags.grouped
    assert np.array_equal(before.bits, flags.bits)


def test_a_saved_frame_whose_flags_do_not_fit_its_rows_is_refused():
    columns = {key: [None] * 3 for key in (*frame.STORED_NUMBERS, *frame.TEXT_COLUMNS)}
    columns["result_id"] = ["res_1", "res_2", "res_3"]
    columns["warning_codes"] = [";a;", None, ";b;a;"]
    arrays = frame.to_arrays(frame.build([columns]))
    assert frame.from_arrays(arrays).warning_flags.listed == ("a", "b")
    arrays["w:bits"] = arrays["w:bits"][:2]
    with pytest.raises(ValueError, match="do not fit"):
        frame.from_arrays(arrays)
