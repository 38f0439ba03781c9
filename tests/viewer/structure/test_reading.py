"""A structure file is read in the worker's budgeted child, once per file, and its work
stops when nobody waits for it any more."""

from __future__ import annotations

import threading
import time

import pytest

from app.viewer.runtime import budget
from app.viewer.structure import model as structure_model
from app.viewer.structure import reading
from tests.support import hostile_structures


@pytest.fixture(autouse=True)
def _nothing_kept():
    reading.forget()
    yield
    reading.forget()


@pytest.fixture
def child_runs(monkeypatch) -> list:
    """Each reading the child is asked for (the real child still does it)."""
    calls: list = []
    run_one = budget.ChemistryWorker.run_one

    def counted(self, task, item, *args, **kwargs):
        calls.append(task)
        return run_one(self, task, item, *args, **kwargs)
    monkeypatch.setattr(budget.ChemistryWorker, "run_one", counted)
    return calls


def test_the_child_reads_what_the_page_would_and_a_file_is_read_once(child_runs):
    data = hostile_structures.lattice_complex(3_000, 2)
    expected = structure_model.read(data)
    assert reading.read(data, "mmcif") == expected
    assert reading.read(data, "mmcif") == expected
    assert reading.kept(data, "mmcif").model == expected
    assert child_runs == ["structure"]


def test_concurrent_visitors_of_one_file_share_one_reading(child_runs):
    data = hostile_structures.lattice_complex(20_000, 2)
    models = []
    threads = [threading.Thread(target=lambda: models.append(reading.read(data, "mmcif")))
               for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(models) == 6 and all(m is not None and m.interface for m in models)
    assert child_runs == ["structure"]


def test_a_file_over_its_budget_costs_it_once_and_is_kept_as_unread(monkeypatch,
                                                                      child_runs):
    monkeypatch.setattr(reading, "READ_SECONDS", 0.3)
    data = hostile_structures.lattice_complex(80_000, 2)  # about 2 s quiet
    started = time.perf_counter()
    assert reading.read(data, "mmcif") is None
    assert time.perf_counter() - started < 10
    assert reading.read(data, "mmcif") is None
    assert child_runs == ["structure"]


def test_an_unreadable_file_is_kept_as_unread(child_runs):
    for data in hostile_structures.malformed().values():
        found = reading.read(data, "mmcif")
        assert found is None or found.interface_note
    assert reading.read(b"", "mmcif") is None
    assert len(child_runs) == len(hostile_structures.malformed())


@pytest.mark.slow
def test_a_reading_whose_visitor_left_stops_and_keeps_nothing():
    data = hostile_structures.lattice_complex(80_000, 2)
    asked: list[float] = []

    def left() -> bool:  # the visitor hangs up a quarter of a second in
        asked.append(time.monotonic())
        return asked[-1] - asked[0] > 0.25

    started = time.perf_counter()
    assert reading.read(data, "mmcif", stop=left) is None
    # Stopped (None, not the model) within a poll of the hang-up: not its whole reading.
    assert time.perf_counter() - started < 5
    assert reading.kept(data, "mmcif") is None
    # The next visitor, who stays, gets the whole reading.
    assert reading.read(data, "mmcif").interface
