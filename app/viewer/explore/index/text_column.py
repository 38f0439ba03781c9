"""Texts kept as one UTF-8 blob and the end of each, read where they lie.

A frame's distinct SMILES (and its chemistry's scaffold and alert names) are saved as a
blob and its ends (``frame_chemistry.texts_to_arrays``). Decoded into a list, every
worker holding a 1,000,000-molecule index would keep its own copy as ``str`` objects; as a
``TextColumn`` over the frame's memory-mapped arrays (``frame_files``) the bytes are the
kernel's page cache, one copy per machine, and a text is decoded when it is read: a
result's SMILES, the candidates a substructure screen passed. Reading every text (a
frame built before its chemistry was computed) decodes them in blocks.

The arrays are checked when the column is made (a saved file is data): ends rising to
the blob's length, each on a character boundary, the blob valid UTF-8.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator, Sequence

import numpy as np

_BLOCK = 4096  # texts decoded per slice of the blob when iterating
_CHECK_BYTES = 1 << 24


class TextColumn(Sequence[str]):
    """A read-only sequence of texts over ``blob`` (uint8) and ``ends`` (int64)."""

    __slots__ = ("blob", "ends")

    def __init__(self, blob: np.ndarray, ends: np.ndarray):
        if blob.dtype != np.uint8 or ends.dtype != np.int64 or blob.ndim != 1 \
                or ends.ndim != 1:
            raise ValueError("a text column is a uint8 blob and its int64 ends")
        size = len(blob)
        if len(ends) and (int(ends[0]) < 0 or int(ends[-1]) != size
                          or bool(np.any(np.diff(ends) < 0))):
            raise ValueError("the ends of a text column must rise to its blob's length")
        if not len(ends) and size:
            raise ValueError("a text column's blob has no ends")
        inner = ends[ends < size]
        if len(inner) and bool(np.any((blob[inner] & 0xC0) == 0x80)):
            raise UnicodeDecodeError("utf-8", b"", 0, 1, "a text ends inside a character")
        decoder = codecs.getincrementaldecoder("utf-8")()  # in blocks: no copy of it all
        for start in range(0, size, _CHECK_BYTES):
            decoder.decode(blob[start:start + _CHECK_BYTES].tobytes(),
                           final=start + _CHECK_BYTES >= size)
        self.blob, self.ends = blob, ends

    def __len__(self) -> int:
        return len(self.ends)

    def _text(self, at: int) -> str:
        ends = self.ends
        start = ends.item(at - 1) if at else 0
        return self.blob[start:ends.item(at)].tobytes().decode()

    def __getitem__(self, at):
        if isinstance(at, slice):
            return [self._text(i) for i in range(*at.indices(len(self)))]
        at = int(at)
        if at < 0:
            at += len(self)
        if not 0 <= at < len(self):
            raise IndexError("text column index out of range")
        return self._text(at)

    def __iter__(self) -> Iterator[str]:
        for first in range(0, len(self), _BLOCK):
            stops = self.ends[first:first + _BLOCK].tolist()
            base = int(self.ends[first - 1]) if first else 0
            data = self.blob[base:stops[-1]].tobytes()
            start = 0
            for stop in stops:
                yield data[start:stop - base].decode()
                start = stop - base

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other,
                                                                        strict=True))

    __hash__ = None  # type: ignore[assignment]  # mutable-looking, compared by value

    def __repr__(self) -> str:
        return f"TextColumn({len(self)} texts, {len(self.blob)} bytes)"
