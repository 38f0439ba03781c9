"""The .npz archive written with members compressed in threads reads back as written."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest

from app.viewer.explore.index import npz_writer


def _arrays() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2)
    return {
        "n:metric": rng.uniform(-1, 1, 5000),
        "n:empty": np.zeros(0),
        "n:nan": np.full(300, np.nan),
        "t:result_id": np.array([f"res_{i:026d}".encode() for i in range(2000)]),
        "t:text": np.array(["", "é", "ß" * 40, "plain"]),
        "c:flag": rng.uniform(0, 1, 777) > 0.5,
        "m:codes": np.arange(12, dtype=np.int32).reshape(3, 4),
        "n:ünknown_métric": np.array([1.5, -0.0, np.inf]),  # a non-ASCII name
    }


def _read(data: bytes) -> dict[str, np.ndarray]:
    assert zipfile.ZipFile(io.BytesIO(data)).testzip() is None  # every CRC checked
    with np.load(io.BytesIO(data), allow_pickle=False) as saved:
        return {name: saved[name] for name in saved.files}


def _same(got: dict[str, np.ndarray], expected: dict[str, np.ndarray]) -> bool:
    return list(got) == list(expected) and all(
        got[k].dtype == expected[k].dtype and got[k].shape == expected[k].shape
        and got[k].tobytes() == expected[k].tobytes() for k in expected)


def test_the_archive_reads_back_as_numpys_own(monkeypatch):
    arrays = _arrays()
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    assert _same(_read(npz_writer.write(arrays)), _read(buffer.getvalue()))
    # Past the classic format's limit, zipfile writes it (ZIP64): the same arrays.
    monkeypatch.setattr(npz_writer, "_LIMIT", 0)
    assert _same(_read(npz_writer.write(arrays)), arrays)


def test_members_are_deflated_as_zipfile_deflates_them():
    arrays = _arrays()
    ours = zipfile.ZipFile(io.BytesIO(npz_writer.write(arrays)))
    theirs = zipfile.ZipFile(io.BytesIO(npz_writer._sequential(arrays, 1)))
    assert [(i.filename, i.CRC, i.compress_size, i.file_size, i.compress_type)
            for i in ours.infolist()] == [
        (i.filename, i.CRC, i.compress_size, i.file_size, i.compress_type)
        for i in theirs.infolist()]


def test_an_array_of_objects_is_refused():
    with pytest.raises(ValueError):
        npz_writer.write({"x": np.array([{"a": 1}], dtype=object)})
