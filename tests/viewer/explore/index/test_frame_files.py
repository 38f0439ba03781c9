"""Frames shared through mapped files (``frame_files``): one copy per machine, named by
version, written atomically, old versions removed, and an unwritable folder falls back to
the worker's own memory. ``answers.load_frame`` reads the store once, then the files."""

from __future__ import annotations

import logging
import mmap
import os
import time

import numpy as np
import pytest
from werkzeug.datastructures import MultiDict

from app.viewer.explore import answers, fields
from app.viewer.explore.index import frame, frame_files
from app.viewer.explore.query import parse
from app.viewer.proteins.columns import LIABILITY_COLUMNS
from app.viewer.store import get_engine
from app.viewer.store import index_queries as queries

SIZE = 10_000  # big enough that the columns are mapped (frame_files._MAP_FROM)


def small_frame(n: int = SIZE) -> frame.Frame:
    """Return a frame of ``n`` made-up rows (two warning codes, one a hostile name)."""
    rng = np.random.default_rng(5)
    columns = {key: [None] * n for key in (*fields.NUMERIC_KEYS, *frame.TEXT_COLUMNS,
                                           "smiles", "extra_metrics",
                                           *LIABILITY_COLUMNS.values())}
    columns["result_id"] = [f"res_{i:08d}" for i in range(n)]
    columns["iptm"] = list(rng.random(n))
    columns["binding_confidence"] = [None if i % 7 == 0 else float(v)
                                     for i, v in enumerate(rng.random(n))]
    columns["warning_count"] = [i % 3 for i in range(n)]
    columns["warning_codes"] = [("", ";../evil;", ";low_iptm;")[i % 3] for i in range(n)]
    return frame.build([columns])


def mapped(array: np.ndarray) -> bool:
    """Whether ``array``'s memory is a file map (pages shared between processes)."""
    return isinstance(array, np.memmap) and isinstance(array._mmap, mmap.mmap)


def same_answers(a: frame.Frame, b: frame.Frame) -> None:
    query = parse(MultiDict({"sort": "-binding_confidence,iptm", "iptm__gte": "0.3",
                             "warning": "low_iptm"}))
    keep_a, keep_b = frame.mask(a, query), frame.mask(b, query)
    assert np.array_equal(keep_a, keep_b) and keep_a.any()
    assert np.array_equal(frame.order(a, query, keep_a), frame.order(b, query, keep_b))
    assert frame.facets(a, keep_a) == frame.facets(b, keep_b)


def test_a_saved_version_is_mapped_by_every_later_load_and_answers_alike(tmp_path):
    built = small_frame()
    shared = frame_files.save(tmp_path, "pipe_1", 3, 1234, 1, built)
    again = frame_files.load(tmp_path, "pipe_1", 3, 1234, 1)
    for loaded in (shared, again):
        assert mapped(loaded.numbers["iptm"]) and mapped(loaded.ids)
        assert not loaded.numbers["iptm"].flags.writeable
        same_answers(built, loaded)
    # Names are data (a warning code): they stay in the manifest, never in a path.
    assert {p.name for p in tmp_path.rglob("*") if p.is_file()} <= {
        "arrays.json", *(f"{i}.npy" for i in range(200))}
    assert frame_files.load(tmp_path, "pipe_1", 4, 1234, 1) is None  # another version
    assert frame_files.load(tmp_path, "pipe_1", 3, 999, 1) is None  # saved again, other bytes
    assert frame_files.load(tmp_path, "pipe_2", 3, 1234, 1) is None
    # The pipeline's index deleted and made anew reaches version 3 again, maybe with a
    # frame of the same size: the earlier index's files are not it.
    assert frame_files.load(tmp_path, "pipe_1", 3, 1234, 2) is None


def test_a_new_version_removes_the_old_and_a_late_writer_keeps_the_winner(tmp_path):
    built = small_frame(100)
    frame_files.save(tmp_path, "pipe_1", 1, 10, 1, built)
    frame_files.save(tmp_path, "pipe_1", 2, 10, 1, built)
    assert frame_files.load(tmp_path, "pipe_1", 1, 10, 1) is None
    [folder] = list(tmp_path.iterdir())
    assert [p.name for p in folder.iterdir()] == ["v2-10-g1"]
    # A second worker writing the same version after the first renamed it into place.
    place = folder / "v2-10-g1"
    frame_files._write(folder, place, frame.to_arrays(small_frame(50)))
    assert frame_files.load(tmp_path, "pipe_1", 2, 10, 1).size == 100  # the first one's
    assert [p.name for p in folder.iterdir()] == ["v2-10-g1"]  # its temporary folder gone


def test_an_unwritable_cache_falls_back_to_memory_and_says_so_once(tmp_path, caplog,
                                                                    monkeypatch):
    monkeypatch.setattr(frame_files, "_warned", False)
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x")
    with caplog.at_level(logging.WARNING):
        assert frame_files.save(not_a_folder, "pipe_1", 1, 10, 1, small_frame(10)) is None
        assert frame_files.save(not_a_folder, "pipe_1", 2, 10, 1, small_frame(10)) is None
    assert sum("frame cache" in r.getMessage() for r in caplog.records) == 1
    assert frame_files.save(None, "pipe_1", 1, 10, 1, small_frame(10)) is None  # turned off


@pytest.mark.parametrize("setting", [None, ""])
@pytest.mark.dialect  # the frame's bytes in the store
def test_load_frame_reads_the_store_once_then_the_files(app, setting, monkeypatch):
    app.config["FRAME_CACHE_DIR"] = setting
    built = small_frame()
    data = frame.to_bytes(built)
    with app.app_context():
        with get_engine().begin() as conn:
            queries.save_frame(conn, "pipe_s", 7, data)
        reads = []
        original = queries.saved_frame
        monkeypatch.setattr(queries, "saved_frame",
                            lambda *a: reads.append(1) or original(*a))
        first = answers.load_frame("pipe_s", 7, generation=1)
        second = answers.load_frame("pipe_s", 7, generation=1)  # a second worker
    assert first[0] == second[0] == 7
    same_answers(built, second[1])
    if setting is None:  # <instance>/frame-cache: read from the store once, then mapped
        assert len(reads) == 1 and mapped(second[1].numbers["iptm"])
        assert (frame_files.Path(app.instance_path) / "frame-cache").is_dir()
    else:  # sharing off: every worker reads the store into its own memory
        assert len(reads) == 2 and not mapped(second[1].numbers["iptm"])


@pytest.mark.dialect
def test_files_no_worker_loaded_for_the_idle_hours_go_when_a_frame_is_written(
        app, tmp_path, monkeypatch):
    monkeypatch.setattr(frame_files, "_last_sweep", [-1e9])
    with app.app_context():
        frame_files.save(tmp_path, "pipe_idle", 1, 10, 1, small_frame(10))
        frame_files.save(tmp_path, "pipe_used", 1, 10, 1, small_frame(10))
        idle = frame_files._folder(tmp_path, "pipe_idle")
        day_ago = time.time() - 25 * 3600  # EXPLORE_INDEX_IDLE_HOURS: 24
        for folder in (frame_files._folder(tmp_path, "pipe_used"), idle):
            for path in (folder, *folder.iterdir()):
                os.utime(path, (day_ago, day_ago))
        assert frame_files.load(tmp_path, "pipe_used", 1, 10, 1) is not None  # marks it used
        monkeypatch.setattr(frame_files, "_last_sweep", [-1e9])
        frame_files.save(tmp_path, "pipe_new", 1, 10, 1, small_frame(10))
    assert not idle.exists()
    assert frame_files.load(tmp_path, "pipe_used", 1, 10, 1) is not None
    frame_files.remove(tmp_path, "pipe_used")  # purge-expired deleted its index
    assert frame_files.load(tmp_path, "pipe_used", 1, 10, 1) is None
