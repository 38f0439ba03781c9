"""The chemistry of each distinct molecule of a frame, computed at index time and saved.

The index build (``indexer``) asks the budgeted chemistry child for every distinct SMILES's
structural alerts, Bemis-Murcko scaffold and Morgan fingerprint (``chem.index_chemistry``)
once, and the frame keeps the answers beside ``Molecules.smiles`` (same order), so no
visitor request runs RDKit for them and a restarted worker or another node reads them
with the frame:

- alerts as a code table (``alert_names``, each name's SMARTS in ``alert_smarts``, "" if
  unknown) and per molecule a run of codes (``alert_codes[alert_offsets[i]:
  alert_offsets[i + 1]]``), ``alerts_known`` False where RDKit could not read the SMILES or
  the check overran its budget ("unknown");
- scaffolds as a code per molecule (``scaffold_codes``, -1: none) into ``scaffold_names``
  (canonical SMILES, "" for the acyclic scaffold);
- fingerprints as packed bits (``fingerprint_bits``: (n, 256) uint8) and ``fingerprint_valid``;
- the substructure screen (``screen``: pattern fingerprints and records, ``frame_screen``),
  None in a frame saved before it existed (its queries confirm every molecule).

A frame saved before this existed has ``Molecules.chemistry`` None: its answers are
computed lazily, as they were (``alert_answers``, ``chem_answers``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from app.viewer.chem import fingerprint_bits
from app.viewer.chem.index_chemistry import MoleculeAnswer
from app.viewer.explore.index import frame_screen
from app.viewer.explore.index.frame_screen import Screen
from app.viewer.explore.index.text_column import TextColumn


@dataclass
class Chemistry:
    """Per distinct molecule (``Molecules.smiles`` order): alerts, scaffold, fingerprint."""

    alert_names: Sequence[str]
    alert_smarts: Sequence[str]
    alert_offsets: np.ndarray  # int64 (n + 1,)
    alert_codes: np.ndarray  # int32, codes into alert_names
    alerts_known: np.ndarray  # bool (n,)
    scaffold_codes: np.ndarray  # int32 (n,), -1: none
    scaffold_names: Sequence[str]
    fingerprint_bits: np.ndarray  # uint8 (n, 256)
    fingerprint_valid: np.ndarray  # bool (n,)
    screen: Screen | None = None  # None: saved before the screen existed

    @property
    def size(self) -> int:
        """Number of molecules."""
        return len(self.alerts_known)

    def alert_owners(self) -> np.ndarray:
        """Return the molecule of each entry of ``alert_codes``."""
        return np.repeat(np.arange(self.size), np.diff(self.alert_offsets))

    def with_alerts(self, names: set[str] | None = None) -> np.ndarray:
        """Return which molecules have an alert among ``names`` (any alert if None)."""
        owners = self.alert_owners()
        if names is not None:
            wanted = [i for i, name in enumerate(self.alert_names) if name in names]
            owners = owners[np.isin(self.alert_codes, wanted)]
        out = np.zeros(self.size, dtype=bool)
        out[owners] = True
        return out

    def names_of(self, index: int) -> tuple[str, ...] | None:
        """Return the alert names of molecule ``index`` (None: unknown)."""
        if not self.alerts_known[index]:
            return None
        start, end = self.alert_offsets[index], self.alert_offsets[index + 1]
        return tuple(self.alert_names[c] for c in self.alert_codes[start:end])


def assemble(smiles: list[str], answers: Mapping[str, MoleculeAnswer]) -> Chemistry:
    """Return the chemistry of ``smiles`` from each one's answer (missing: unknown)."""
    names: dict[str, int] = {}
    smarts: dict[str, str] = {}
    scaffold_names: dict[str, int] = {}
    offsets, codes = [0], []
    known = np.zeros(len(smiles), dtype=bool)
    scaffold_codes = np.full(len(smiles), -1, dtype=np.int32)
    rows: list[bytes | None] = []
    patterns: list[bytes] = []
    records: list[bytes] = []
    for index, text in enumerate(smiles):
        answer = answers.get(text)
        alerts, scaffold, fingerprint, pattern, record = answer if answer is not None \
            else (None, None, b"", b"", b"")
        patterns.append(pattern)
        records.append(record)
        if alerts is not None:
            known[index] = True
            for name, pattern in alerts:
                codes.append(names.setdefault(name, len(names)))
                if pattern:
                    smarts.setdefault(name, pattern)
        offsets.append(len(codes))
        if scaffold is not None:
            scaffold_codes[index] = scaffold_names.setdefault(scaffold, len(scaffold_names))
        rows.append(fingerprint or None)
    bits, valid = fingerprint_bits.stack(rows)
    return Chemistry(list(names), [smarts.get(n, "") for n in names],
                     np.array(offsets, dtype=np.int64), np.array(codes, dtype=np.int32),
                     known, scaffold_codes, list(scaffold_names), bits, valid,
                     frame_screen.stack(patterns, records))


def answers_of(smiles: list[str], chemistry: Chemistry) -> dict[str, MoleculeAnswer]:
    """Return the answer of each molecule ``chemistry`` knows (the reverse of ``assemble``):
    a rebuilt frame keeps what an earlier one computed (pattern and record b"" when its
    screen is missing or not ``current``: ``chem_index`` computes them again)."""
    out: dict[str, MoleculeAnswer] = {}
    for index, text in enumerate(smiles):
        if not chemistry.alerts_known[index]:
            continue  # unknown: computed again by the next build
        start, end = chemistry.alert_offsets[index], chemistry.alert_offsets[index + 1]
        alerts = tuple((chemistry.alert_names[c], chemistry.alert_smarts[c] or None)
                       for c in chemistry.alert_codes[start:end])
        code = chemistry.scaffold_codes[index]
        scaffold = None if code < 0 else chemistry.scaffold_names[code]
        fingerprint = chemistry.fingerprint_bits[index].tobytes() \
            if chemistry.fingerprint_valid[index] else b""
        out[text] = (alerts, scaffold, fingerprint,
                     *frame_screen.answers_of(chemistry.screen, index))
    return out


def texts_to_arrays(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Return texts as one UTF-8 blob (uint8) and the end of each (int64)."""
    if isinstance(texts, TextColumn):  # read from such arrays: the same ones
        return texts.blob, texts.ends
    encoded = [t.encode() for t in texts]
    return (np.frombuffer(b"".join(encoded), dtype=np.uint8),
            np.cumsum([len(e) for e in encoded], dtype=np.int64))


def texts_from_arrays(blob: np.ndarray, ends: np.ndarray) -> TextColumn:
    """Return the texts ``texts_to_arrays`` wrote, read where they lie (``text_column``:
    a memory map stays one). Raises ValueError or UnicodeDecodeError for arrays that do
    not hold texts."""
    return TextColumn(blob, ends)


_ARRAYS = ("alert_offsets", "alert_codes", "alerts_known", "scaffold_codes",
           "fingerprint_bits", "fingerprint_valid")
_TEXTS = ("alert_names", "alert_smarts", "scaffold_names")


def to_arrays(chemistry: Chemistry) -> dict[str, np.ndarray]:
    """Return the arrays that save ``chemistry`` in a frame's .npz (keys ``x:...``)."""
    out = {f"x:{key}": getattr(chemistry, key) for key in _ARRAYS}
    for key in _TEXTS:
        out[f"x:{key}.blob"], out[f"x:{key}.ends"] = texts_to_arrays(getattr(chemistry, key))
    if chemistry.screen is not None:
        out.update({f"x:{key}": value for key, value in
                    frame_screen.to_arrays(chemistry.screen).items()})
    return out


def from_arrays(saved: dict[str, np.ndarray], size: int) -> Chemistry | None:
    """Return the chemistry saved by ``to_arrays`` (keys without ``x:``), or None when the
    frame has none or it does not fit its ``size`` molecules (a saved file is data)."""
    if not saved:
        return None
    try:
        texts = {key: texts_from_arrays(saved[f"{key}.blob"], saved[f"{key}.ends"])
                 for key in _TEXTS}
        chemistry = Chemistry(**texts, **{key: saved[key] for key in _ARRAYS},
                              screen=frame_screen.from_arrays(saved, size))
    except (KeyError, ValueError):  # UnicodeDecodeError is a ValueError
        return None
    fits = (len(chemistry.alert_offsets) == size + 1 and chemistry.size == size
            and chemistry.fingerprint_bits.shape == (size, fingerprint_bits.BYTES)
            and len(chemistry.scaffold_codes) == size
            and len(chemistry.fingerprint_valid) == size
            and (len(chemistry.alert_codes) == 0 or (
                int(chemistry.alert_codes.max()) < len(chemistry.alert_names)
                and int(chemistry.alert_codes.min()) >= 0))
            and int(chemistry.scaffold_codes.max(initial=-1)) < len(
                chemistry.scaffold_names)
            and int(chemistry.alert_offsets[-1]) == len(chemistry.alert_codes))
    return chemistry if fits else None
