"""The substructure screen of a frame's molecules, computed at index time and saved.

Beside ``Molecules.smiles`` (same order), for ``chem.pattern_screen``: each distinct
molecule's pattern fingerprint (``bits``: (n, 256) uint8, ``valid`` False where RDKit could
not read it or its budget ran out) and its record (compressed binary pickle) as one blob
(``records``, uint8) with the end of each (``ends``, int64; an empty record where not
valid), and the RDKit ``scheme`` that made them. Saved in the frame's .npz as ``x:screen_*``
keys (``frame_chemistry``).

A frame saved without a screen has ``Chemistry.screen`` None, and one made by another
RDKit version is not ``current``: its substructure queries confirm every molecule from its
SMILES (``substructure_answers``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.viewer.chem import fingerprint_bits, pattern_screen

_PREFIX = "screen_"


@dataclass
class Screen:
    """Per distinct molecule: pattern fingerprint and record (module doc)."""

    scheme: str
    bits: np.ndarray  # uint8 (n, 256)
    valid: np.ndarray  # bool (n,)
    records: np.ndarray  # uint8, every record one after the other
    ends: np.ndarray  # int64 (n,), the end of each record in ``records``

    @property
    def current(self) -> bool:
        """Whether this RDKit made it (its bits and pickles mean what they say)."""
        return self.scheme == pattern_screen.SCHEME

    def records_of(self, indices: np.ndarray) -> list[bytes]:
        """Return the records of the molecules ``indices`` (b"" where none)."""
        data = memoryview(self.records)
        ends = self.ends[indices].tolist()
        starts = np.where(indices > 0, self.ends[np.maximum(indices - 1, 0)], 0).tolist()
        return [data[a:b].tobytes() for a, b in zip(starts, ends, strict=True)]


def stack(patterns: list[bytes], records: list[bytes]) -> Screen:
    """Return the screen of one pattern (256 packed bytes, or b"") and one record (b""
    where none) per molecule; a molecule lacking either is not valid."""
    rows = [p if p and r else None for p, r in zip(patterns, records, strict=True)]
    bits, valid = fingerprint_bits.stack(rows)
    kept = [r if ok else b"" for r, ok in zip(records, valid.tolist(), strict=True)]
    blob = np.frombuffer(b"".join(kept), dtype=np.uint8)
    ends = np.cumsum([len(r) for r in kept], dtype=np.int64)
    return Screen(pattern_screen.SCHEME, bits, valid, blob, ends)


def answers_of(screen: Screen | None, index: int) -> tuple[bytes, bytes]:
    """Return molecule ``index``'s pattern and record (b"", b"": none, or not current)."""
    if screen is None or not screen.current or not screen.valid[index]:
        return b"", b""
    return screen.bits[index].tobytes(), screen.records_of(np.array([index]))[0]


def to_arrays(screen: Screen) -> dict[str, np.ndarray]:
    """Return the arrays that save ``screen`` (keys without ``x:``)."""
    scheme = np.frombuffer(screen.scheme.encode(), dtype=np.uint8)
    return {f"{_PREFIX}bits": screen.bits, f"{_PREFIX}valid": screen.valid,
            f"{_PREFIX}records": screen.records, f"{_PREFIX}ends": screen.ends,
            f"{_PREFIX}scheme": scheme}


def from_arrays(saved: dict[str, np.ndarray], size: int) -> Screen | None:
    """Return the screen ``to_arrays`` saved, or None when the frame has none (saved before
    it existed) or it does not fit its ``size`` molecules (a saved file is data)."""
    try:
        screen = Screen(saved[f"{_PREFIX}scheme"].tobytes().decode(),
                        *(saved[f"{_PREFIX}{key}"] for key in
                          ("bits", "valid", "records", "ends")))
    except (KeyError, UnicodeDecodeError):
        return None
    ends = screen.ends
    fits = (screen.bits.shape == (size, fingerprint_bits.BYTES)
            and screen.bits.dtype == np.uint8 and screen.valid.shape == (size,)
            and screen.valid.dtype == np.bool_
            and screen.records.dtype == np.uint8 and ends.shape == (size,)
            and ends.dtype == np.int64
            and (size == 0 or (int(ends[0]) >= 0 and bool(np.all(np.diff(ends) >= 0))
                               and int(ends[-1]) == len(screen.records))))
    return screen if fits else None
