"""A compressed .npz archive of named arrays, its members compressed two at a time.

``frame.to_bytes`` saves a whole index's frame at the end of its build, after the last
page: nothing else runs then, and compressing the arrays one after another (``zipfile``
allows one member open for writing) would be most of that wait. Here each member's ``.npy``
bytes (``np.lib.format.write_array``: the same header and data as ``np.savez``) are
raw-deflated in a thread of their own (zlib lets go of the interpreter's lock while it
compresses), at zlib's level as ``zipfile``'s ``ZIP_DEFLATED`` compresses them, and the
archive is laid out around them: what ``np.load`` (``zipfile``) reads, CRCs checked.

An archive whose sizes could reach the classic zip format's 4 GB fields is written by
``zipfile`` itself (its ZIP64 records), one member at a time.
"""

from __future__ import annotations

import io
import struct
import time
import zipfile
import zlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np

# zipfile's own record layouts (local file header, central directory entry, end record).
_LOCAL = struct.Struct("<4s2B4HL2L2H")
_CENTRAL = struct.Struct("<4s4B4HL2L5H2L")
_END = struct.Struct("<4s4H2LH")
_DEFLATED, _VERSION, _UNIX, _UTF8 = 8, 20, 3, 0x800
# The classic format's limit, with room for the headers (past it: ``zipfile``, ZIP64).
_LIMIT = 0xFFFFFFFF - (1 << 24)
_THREADS = 2


class _Deflate:
    """A file-like sink for ``write_array``: raw deflate (``zipfile``'s ``-15`` window),
    its CRC-32 and size as it goes."""

    def __init__(self, level: int):
        self._compressor = zlib.compressobj(level, zlib.DEFLATED, -15)
        self._parts: list[bytes] = []
        self.crc = self.size = 0

    def write(self, data) -> int:
        self.crc = zlib.crc32(data, self.crc)
        self.size += len(data)
        self._parts.append(self._compressor.compress(data))
        return len(data)

    def finish(self) -> bytes:
        self._parts.append(self._compressor.flush())
        return b"".join(self._parts)


def _member(array: np.ndarray, level: int) -> tuple[bytes, int, int]:
    """Return ``array``'s .npy bytes deflated, their CRC-32 and their size."""
    sink = _Deflate(level)
    np.lib.format.write_array(sink, array, allow_pickle=False)
    return sink.finish(), sink.crc, sink.size


def _dos_time() -> tuple[int, int]:
    """Now as the zip format's (time, date) fields (``zipfile`` stamps members so)."""
    year, month, day, hour, minute, second = time.localtime()[:6]
    return hour << 11 | minute << 5 | second // 2, (year - 1980) << 9 | month << 5 | day


def _sequential(arrays: dict[str, np.ndarray], level: int) -> bytes:
    """The archive written by ``zipfile``, one member after another (ZIP64 as needed)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=level) as archive:
        for name, array in arrays.items():
            with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, array, allow_pickle=False)
    return out.getvalue()


def write(arrays: dict[str, np.ndarray], level: int = 1) -> bytes:
    """Return an .npz archive of ``arrays`` (member ``name.npy`` each, in their order),
    deflated at ``level``; an array of objects is refused (it would need a pickle)."""
    arrays = {name: np.asanyarray(array) for name, array in arrays.items()}
    if sum(a.nbytes for a in arrays.values()) > _LIMIT or len(arrays) >= 0xFFFF:
        return _sequential(arrays, level)
    with ThreadPoolExecutor(_THREADS, thread_name_prefix="npz") as pool:
        members = list(pool.map(lambda array: _member(array, level), arrays.values()))
    clock, date = _dos_time()
    out, central = bytearray(), []
    for name, (data, crc, size) in zip(arrays, members, strict=True):
        path = f"{name}.npy"
        flags = 0 if path.isascii() else _UTF8
        encoded = path.encode("ascii" if not flags else "utf-8")
        central.append(_CENTRAL.pack(
            b"PK\x01\x02", _VERSION, _UNIX, _VERSION, 0, flags, _DEFLATED, clock, date, crc,
            len(data), size, len(encoded), 0, 0, 0, 0, 0o600 << 16, len(out)) + encoded)
        out += _LOCAL.pack(b"PK\x03\x04", _VERSION, 0, flags, _DEFLATED, clock, date, crc,
                           len(data), size, len(encoded), 0)
        out += encoded
        out += data
    start = len(out)
    for entry in central:
        out += entry
    out += _END.pack(b"PK\x05\x06", 0, 0, len(central), len(central), len(out) - start,
                     start, 0)
    return bytes(out)
