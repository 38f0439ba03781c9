"""A new substructure query counted in a thread (issue 21: chemistry at scale): a broad
one goes on in the background while requests say how far it got (the page and
explore.json a progress bar, exports a 503; never a partial answer), then every request
gets the exact answer, kept for the index version; a selective one is answered within
the request, as before. Refusals (over budget:
``TooBroad``) are kept; failures are not; a second broad count at once is ``Busy``."""

from __future__ import annotations

import re
import threading
from urllib.parse import quote

import numpy as np
import pytest
from rdkit import Chem
from rdkit.rdBase import BlockLogs

from app.viewer.chem import substructure
from app.viewer.explore import substructure_answers, substructure_counting, substructure_first
from app.viewer.explore.index import frame
from app.viewer.runtime import budget, work_gate
from tests.support.molecule_pools import pool_pipeline
from tests.viewer.chem.test_substructure_screen import POOL, _screened


@pytest.fixture(scope="module")
def molecules():
    return _screened(POOL)


@pytest.fixture(autouse=True)
def fresh_counts():
    substructure_counting.clear()
    yield
    for count in list(substructure_counting._counts.values()):
        count.done.wait(60)  # no thread of this test outlives it
    substructure_counting.clear()


def _expected(query: str) -> list[bool]:
    pattern = substructure.parse_query(query)
    with BlockLogs():
        return [(m := Chem.MolFromSmiles(s)) is not None and m.HasSubstructMatch(pattern)
                for s in POOL]


def _counted(key, molecules, smarts: str) -> list[bool]:
    """The answer of ``key`` once its count ended: a background count answers ``Counting``
    until its child is done, which a loaded machine may take longer than one poll for."""
    for _attempt in range(2):
        try:
            return substructure_counting.answer(key, molecules, smarts).tolist()
        except substructure_counting.Counting:
            assert substructure_counting._counts[key].done.wait(60)
    raise AssertionError(f"{key} was still counting after its count ended")


def _broad(monkeypatch) -> None:
    """Every query counts in the background."""
    monkeypatch.setattr(substructure_counting, "INTERACTIVE_CANDIDATES", 0)


@pytest.fixture
def held(monkeypatch) -> threading.Event:
    """Background counts wait for this event before confirming (set: they go on)."""
    release = threading.Event()
    confirmed = substructure_answers.confirmed

    def holding(*args, **options):
        if options.get("worker") == substructure_counting.BACKGROUND_WORKER:
            release.wait(60)
        return confirmed(*args, **options)

    monkeypatch.setattr(substructure_answers, "confirmed", holding)
    yield release
    release.set()


def test_a_selective_query_is_answered_within_the_wait(molecules):
    found = substructure_counting.answer("k", molecules, "c1ccc(Cl)cc1")
    assert found.tolist() == _expected("c1ccc(Cl)cc1")
    count = substructure_counting._counts["k"]
    assert not count.background and count.checked == count.candidates > 0
    assert count.matched == sum(_expected("c1ccc(Cl)cc1"))


def test_a_broad_query_says_how_far_it_got_then_answers_exactly(molecules, monkeypatch,
                                                                 held):
    _broad(monkeypatch)
    with pytest.raises(substructure_counting.Counting) as counting:
        substructure_counting.answer("k", molecules, "c1ccccc1")
    candidates = len(substructure_answers.screened(molecules, "c1ccccc1")[0])
    assert sum(_expected("c1ccccc1")) < candidates < len(POOL)
    assert counting.value.progress() == {"checked": 0, "candidates": candidates,
                                         "matched_so_far": 0}
    assert counting.value.message == ("The substructure search has checked 0 of "
                                      f"{candidates} candidate molecules: 0 match so far, "
                                      "and the count goes on.")
    count = substructure_counting._counts["k"]
    held.set()
    assert count.done.wait(60) and count.background
    assert count.checked == candidates and count.matched == sum(_expected("c1ccccc1"))
    assert budget.worker(substructure_counting.BACKGROUND_WORKER).niceness == \
        substructure_counting.NICENESS
    found = substructure_counting.answer("k", molecules, "c1ccccc1")  # kept: no new count
    assert found.tolist() == _expected("c1ccccc1") and count.matched == sum(found)
    assert substructure_counting._counts["k"] is count


def test_a_second_broad_count_at_once_is_busy_a_selective_one_is_not(molecules, monkeypatch,
                                                                     held):
    monkeypatch.setattr(substructure_counting, "INTERACTIVE_CANDIDATES",
                        sum(_expected("c1ccc(Cl)cc1")) * 2)
    monkeypatch.setattr(substructure_counting, "WAITED_CANDIDATES",
                        substructure_counting.INTERACTIVE_CANDIDATES)
    with pytest.raises(substructure_counting.Counting):
        substructure_counting.answer("broad", molecules, "*")
    with pytest.raises(work_gate.Busy):  # another broad one: refused, not counted later
        substructure_counting.answer("other", molecules, "[#6]")
    assert "other" not in substructure_counting._counts
    assert substructure_counting.answer("chloro", molecules, "c1ccc(Cl)cc1").tolist() == \
        _expected("c1ccc(Cl)cc1")
    held.set()
    assert _counted("broad", molecules, "*") == _expected("*")
    assert _counted("other", molecules, "[#6]") == _expected("[#6]")


def test_a_middling_count_meeting_a_busy_background_child_is_waited_for(molecules,
                                                                         monkeypatch, held):
    """One count in the background at a time: a second query of a middling number of
    candidates is then confirmed in the request's own child and answered, not refused."""
    _broad(monkeypatch)
    with pytest.raises(substructure_counting.Counting):
        substructure_counting.answer("broad", molecules, "*")
    middling = substructure_counting.answer("chloro", molecules, "c1ccc(Cl)cc1")
    assert middling.tolist() == _expected("c1ccc(Cl)cc1")
    assert not substructure_counting._counts["chloro"].background
    held.set()
    assert _counted("broad", molecules, "*") == _expected("*")


def test_a_count_over_its_budget_is_refused_and_the_refusal_kept(molecules, monkeypatch):
    _broad(monkeypatch)
    monkeypatch.setattr(substructure_counting, "BACKGROUND_SECONDS", 0.0)
    screens: list[str] = []
    screened = substructure_answers.screened
    monkeypatch.setattr(substructure_answers, "screened",
                        lambda m, q: screens.append(q) or screened(m, q))
    for _retry in range(3):  # the first may find it counting still, never answered
        with pytest.raises((substructure_counting.Counting, substructure.TooBroad)):
            substructure_counting.answer("k", molecules, "c1ccccc1")
        substructure_counting._counts["k"].done.wait(60)
    with pytest.raises(substructure.TooBroad) as refused:
        substructure_counting.answer("k", molecules, "c1ccccc1")
    assert "within the 0 s a search may take" in refused.value.message
    assert screens == ["c1ccccc1"]


def test_a_failed_count_is_raised_and_counted_again(molecules, monkeypatch):
    calls: list[str] = []

    def failing(m, q):
        calls.append(q)
        raise RuntimeError("the frame went away")

    monkeypatch.setattr(substructure_answers, "screened", failing)
    for _retry in range(2):
        with pytest.raises(RuntimeError):
            substructure_counting.answer("k", molecules, "C")
    assert calls == ["C", "C"]


def test_the_first_rows_are_the_views_first_matches_each_molecule_confirmed_once(
        molecules, monkeypatch):
    rng = np.random.default_rng(21)
    codes = rng.integers(0, len(POOL), 400).astype(np.int32)  # molecules on many rows
    rows = frame.Molecules(codes, molecules.smiles, molecules.chemistry)
    order = rng.permutation(len(codes))  # a view's order of its candidate rows
    sent: list[int] = []
    confirm_each = substructure_answers.confirm_each
    monkeypatch.setattr(substructure_answers, "confirm_each", lambda m, q, indices, **o:
                        sent.extend(indices.tolist()) or confirm_each(m, q, indices, **o))
    monkeypatch.setattr(substructure_first, "BATCH", 7)  # across batches
    for query in ("c1ccc(Cl)cc1", "c1ccccc1", "[Se]"):
        holds = _expected(query)
        truth = [int(r) for r in order if holds[codes[r]]]
        for wanted in (1, 6, 40, 1000):
            sent.clear()
            first = substructure_first.first_rows(rows, query, order, wanted)
            assert first.rows.tolist() == truth[:wanted], (query, wanted)
            last = order.tolist().index(truth[wanted - 1]) if len(truth) >= wanted else None
            assert first.more == (last is not None and last + 1 < len(order))
            assert len(sent) == len(set(sent))  # each molecule confirmed once


def _ids(page) -> list[str]:
    """The result ids of a results page's rows, in order."""
    assert page.status_code == 200
    return re.findall(r'<tr data-result-id="([^"]+)"', page.get_data(as_text=True))


@pytest.mark.slow
def test_the_results_view_waits_for_a_broad_count_saying_how_far(app, client, org,
                                                                 monkeypatch, held):
    path, smiles_of = pool_pipeline(app, org, "small_molecule_library_screen")
    assert client.get(f"{path}?sort=id").status_code == 200  # builds the index
    _broad(monkeypatch)
    query = quote("c1ccccc1", safe="")
    first = client.get(f"{path}/explore.json?smarts={query}")
    assert first.status_code == 200  # the count's progress, as the index build's
    body = first.get_json()
    assert body["state"] == "counting" and body["checked"] == 0 < body["candidates"]
    assert body["matched_so_far"] == 0 and "matched" not in body  # no count before the end
    page = client.get(f"{path}?smarts={query}")
    text = page.get_data(as_text=True)
    assert page.status_code == 200 and 'id="index-progress"' in text
    assert (f"Counting the whole set: 0 of {body['candidates']} candidate molecules "
            "checked") in text
    assert 'id="match-count"' not in text and "of the results match" not in text
    # Meanwhile each page of the view shows its rows, confirmed in the view's order.
    shown = [_ids(client.get(f"{path}?smarts={query}&sort=-mol_weight&limit=5&page={n}"))
             for n in (1, 2)]
    second = client.get(f"{path}?smarts={query}&sort=-mol_weight&limit=5&page=2")
    text = second.get_data(as_text=True)
    assert "page 2 of the results that match in this order, each checked: at least 10 " \
        "match, and the count goes on" in text
    assert 'rel="prev"' in text and 'rel="next"' in text and 'id="index-progress"' in text
    assert "the rows below, the first of this order, are checked already" in text
    waited = client.get(f"{path}/export.csv?smarts={query}")  # waits for the whole answer
    assert waited.status_code == 503 and waited.headers["Retry-After"] == "5"
    assert b"Still counting the substructure matches" in waited.data
    assert b"candidate molecules" in waited.data
    plot = client.get(f"{path}/plot?smarts={query}").get_data(as_text=True)
    assert 'id="index-progress"' in plot and "candidate molecules" in plot
    held.set()
    for count in list(substructure_counting._counts.values()):
        assert count.done.wait(60)
    pattern = substructure.parse_query("c1ccccc1")
    with BlockLogs():
        expected = sum(1 for s in smiles_of.values()
                       if (m := Chem.MolFromSmiles(s)) and m.HasSubstructMatch(pattern))
    done = client.get(f"{path}/explore.json?smarts={query}")
    assert done.status_code == 200 and done.get_json()["matched"] == expected > 10
    assert shown == [_ids(client.get(f"{path}?smarts={query}&sort=-mol_weight&limit=5&"
                                     f"page={n}")) for n in (1, 2)]
    assert all(len(ids) == 5 for ids in shown)
    assert client.get(f"{path}?smarts={query}").status_code == 200
