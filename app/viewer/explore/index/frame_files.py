"""Frames shared by every worker of a machine: each saved frame as plain .npy files, mapped.

A worker that loaded a pipeline's saved frame (``frame.from_bytes``) into its own NumPy
arrays would hold a copy of its own: four workers holding one 1,000,000-result index, four
copies. Instead the first worker that loads a version writes its arrays once, uncompressed,
to a folder of the frame cache (``FRAME_CACHE_DIR``, default ``<instance>/frame-cache``) and
every worker maps them read-only (``np.load(mmap_mode="r")``): the pages are the kernel's
page cache, one copy per machine whatever the number of workers. The viewer store's copy
(``viewer_index_frames``) stays the source shared by every node; a node without the files
writes them from it.

- **Which version.** A folder is named by the index's version, the saved frame's size
  in bytes (a frame saved again at the same version, e.g. with its chemistry, differs in
  size) and the index's generation (its creation time: an index deleted and made anew
  counts its versions from 0 again, ``IndexState.generation``), under a folder per
  pipeline (a hash of its id: no data in a path). Array names (warning codes are data)
  are in ``arrays.json``; files are numbered.
- **Concurrent writers.** Each writes to its own temporary folder and renames it into
  place; the rename is atomic, and a writer that finds the folder there already drops its
  own and maps the one that won.
- **Old versions** of the pipeline are removed when a new one is written (a worker still
  mapping one keeps reading it: the kernel frees the pages when the last map goes);
  pipelines no worker loaded for ``EXPLORE_INDEX_IDLE_HOURS`` go when a frame is written
  (every load marks its folder used), and ``purge-expired`` removes those of the indexes
  it deletes (``cache_sweep``; on the node that runs it).
- **Disk full, unwritable folder, ``FRAME_CACHE_DIR=""``:** ``None`` is returned and the
  caller keeps the frame in its own memory; the failure is logged once per
  process.
- **Stored records beside a frame** (``save_records`` / ``load_records``): the index's
  stored JSON text of every row, in the frame's row order, as one UTF-8 file and the
  offsets of each text (a ``records`` folder in the version's folder, renamed into place
  whole), so that an export reads the records of any rows by slicing a map instead of
  asking the store for each id. Written by the first export that needs them (from one
  ordered scan of the store), gone with their version.
"""

from __future__ import annotations

import hashlib
import json
import logging
import mmap
import os
import shutil
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

import numpy as np
from flask import Flask, current_app, has_app_context

from app.platform.settings import instance_folder, setting
from app.viewer.explore.index import frame
from app.viewer.explore.index.frame import Frame

log = logging.getLogger(__name__)
_MANIFEST = "arrays.json"
_RECORDS = "records"
# Arrays smaller than this are read into memory (a map costs a descriptor's worth of
# kernel bookkeeping, and an empty array cannot be mapped).
_MAP_FROM = 64 * 1024
_warned = False
_SWEEP_EVERY_S = 600.0
_last_sweep = [-_SWEEP_EVERY_S]


def root(app: Flask | None = None) -> Path | None:
    """Return the app's frame cache folder (``FRAME_CACHE_DIR``), None when it is off."""
    return instance_folder(app or current_app, "FRAME_CACHE_DIR")


def remove(root: Path | None, pipeline_id: str) -> None:
    """Remove every version of the pipeline's files (its index was deleted)."""
    if root is not None:
        shutil.rmtree(_folder(root, pipeline_id), ignore_errors=True)


def _folder(root: Path, pipeline_id: str) -> Path:
    return root / hashlib.sha256(pipeline_id.encode()).hexdigest()[:32]


def _name(version: int, size: int, generation: int) -> str:
    return f"v{int(version)}-{int(size)}-g{int(generation)}"


def load(root: Path | None, pipeline_id: str, version: int, size: int, generation: int
         ) -> Frame | None:
    """Return the mapped frame of this version and saved size of the index made at
    ``generation`` (``IndexState.generation``), or None if not written."""
    if root is None:
        return None
    place = _folder(root, pipeline_id) / _name(version, size, generation)
    try:
        names = json.loads((place / _MANIFEST).read_text())
        arrays = {}
        for i, name in enumerate(names):
            path = place / f"{i}.npy"
            mapped = "r" if path.stat().st_size >= _MAP_FROM else None
            arrays[name] = np.load(path, mmap_mode=mapped, allow_pickle=False)
        loaded = frame.from_arrays(arrays)
        os.utime(place)  # in use: the idle sweep keeps it
    except (OSError, ValueError, KeyError):
        # Not there, half removed by a newer version's writer, or damaged: the store's.
        return None
    return loaded


def save(root: Path | None, pipeline_id: str, version: int, size: int, generation: int,
         data: Frame) -> Frame | None:
    """Write ``data`` as this version's files and return it mapped from them; None if the
    cache is off or cannot be written (the caller keeps ``data`` in memory)."""
    if root is None:
        return None
    folder = _folder(root, pipeline_id)
    place = folder / _name(version, size, generation)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if not place.exists():
            _write(folder, place, frame.to_arrays(data))
        _remove_others(folder, place.name)
        _sweep_idle(root)
    except OSError as error:
        _warn_once(root, error)
        return None
    return load(root, pipeline_id, version, size, generation)


class RecordTexts:
    """The stored records of a frame's rows, mapped (``save_records``)."""

    def __init__(self, data: mmap.mmap | bytes, offsets: np.ndarray):
        self._data, self._offsets = data, offsets
        self.count = len(offsets) - 1

    def texts(self, rows: np.ndarray) -> list[str]:
        """Return the JSON texts of frame rows ``rows``."""
        data = self._data
        starts, ends = self._offsets[rows].tolist(), self._offsets[rows + 1].tolist()
        return [data[a:b].decode() for a, b in zip(starts, ends, strict=True)]

    def release(self) -> None:
        """Let go of the pages read so far: they stay in the kernel's page cache, but no
        longer count in this worker's resident memory (an export of every row would
        otherwise look like a worker holding the whole file)."""
        if isinstance(self._data, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED"):
            self._data.madvise(mmap.MADV_DONTNEED)


def load_records(root: Path | None, pipeline_id: str, version: int, size: int,
                 generation: int) -> RecordTexts | None:
    """Return the stored records saved beside this version's frame, or None if not there."""
    if root is None:
        return None
    place = _folder(root, pipeline_id) / _name(version, size, generation) / _RECORDS
    try:
        offsets = np.load(place / "offsets.npy", allow_pickle=False)
        with open(place / "records.bin", "rb") as file:
            data = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) \
                if offsets[-1] else b""
    except (OSError, ValueError, IndexError):
        return None
    if len(data) != offsets[-1]:
        return None  # damaged: the store's, the slow way
    return RecordTexts(data, offsets)


def save_records(root: Path | None, pipeline_id: str, version: int, size: int,
                 generation: int, chunks: Iterable[list[str]], count: int
                 ) -> RecordTexts | None:
    """Write ``chunks`` (lists of the records of the frame's ``count`` rows, in row order)
    beside this version's frame and return them mapped; None if the frame has no folder
    here, the texts stop short of ``count`` or the files cannot be written. A chunk is
    written in one call and its offsets summed by NumPy: one write per text would be a large
    part of a first export's cost of the file; an ASCII chunk is encoded whole, its texts' lengths
    their bytes'."""
    if root is None:
        return None
    place = _folder(root, pipeline_id) / _name(version, size, generation)
    if not place.is_dir():
        return None
    temporary = Path(tempfile.mkdtemp(prefix=".writing-records-", dir=place))
    try:
        lengths = [np.zeros(1, dtype=np.int64)]
        with open(temporary / "records.bin", "wb") as file:
            for texts in chunks:
                whole = "".join(texts)
                if whole.isascii():  # the usual chunk: a text's bytes are its characters
                    file.write(whole.encode("ascii"))
                    lengths.append(np.fromiter(map(len, texts), np.int64, len(texts)))
                    continue
                encoded = [text.encode() for text in texts]
                file.write(b"".join(encoded))
                lengths.append(np.fromiter(map(len, encoded), np.int64, len(encoded)))
        offsets = np.cumsum(np.concatenate(lengths))
        if len(offsets) != count + 1:
            return None
        np.save(temporary / "offsets.npy", offsets, allow_pickle=False)
        try:
            os.rename(temporary, place / _RECORDS)
        except OSError:
            if not (place / _RECORDS).exists():
                raise
    except OSError as error:
        _warn_once(root, error)
        return None
    finally:
        shutil.rmtree(temporary, ignore_errors=True)
    return load_records(root, pipeline_id, version, size, generation)


def _write(folder: Path, place: Path, arrays: dict[str, np.ndarray]) -> None:
    """Write the arrays to a temporary folder and rename it to ``place`` (atomic)."""
    temporary = Path(tempfile.mkdtemp(prefix=".writing-", dir=folder))
    try:
        names = list(arrays)
        for i, name in enumerate(names):
            np.save(temporary / f"{i}.npy", np.ascontiguousarray(arrays[name]),
                    allow_pickle=False)
        (temporary / _MANIFEST).write_text(json.dumps(names))
        try:
            os.rename(temporary, place)
        except OSError:
            if not place.exists():
                raise
            # Another worker renamed the same version into place first: theirs is used.
    finally:
        shutil.rmtree(temporary, ignore_errors=True)


def _remove_others(folder: Path, keep: str) -> None:
    """Remove the pipeline's other versions, and temporary folders a crash left behind."""
    for other in folder.iterdir():
        if other.name == keep:
            continue
        if other.name.startswith(".writing-") and _age_s(other) < 3600:
            continue  # another worker is writing it now
        shutil.rmtree(other, ignore_errors=True)


def _sweep_idle(root: Path) -> None:
    """Remove the files of pipelines no worker of this machine loaded for
    ``EXPLORE_INDEX_IDLE_HOURS`` (their index is deleted from the store by then, or will
    be written again from it); at most every ``_SWEEP_EVERY_S`` per process."""
    now = time.monotonic()
    if now - _last_sweep[0] < _SWEEP_EVERY_S:
        return
    _last_sweep[0] = now
    # Outside an app context (a thread without one) the declared default holds.
    app = current_app if has_app_context() else {}
    idle_s = setting(app, "EXPLORE_INDEX_IDLE_HOURS") * 3600
    for folder in root.iterdir():
        if folder.is_dir() and all(_age_s(p) > idle_s for p in (folder, *folder.iterdir())):
            shutil.rmtree(folder, ignore_errors=True)


def _age_s(path: Path) -> float:
    try:
        return time.time() - path.stat().st_mtime
    except OSError:
        return 0.0


def _warn_once(root: Path, error: OSError) -> None:
    global _warned
    if not _warned:
        _warned = True
        log.warning("frame cache %s is not writable (%s): each worker keeps its frames in "
                    "its own memory", root, error)
