"""A pipeline's index held in columns (NumPy) in the worker: whole-set answers in milliseconds.

The index rows live in the viewer's store, shared by every worker and server; a worker
that answers a whole-set question loads them once per index version into a ``Frame``
(one array per key, ~25 MB for 100,000 results) and filters, sorts, counts and bins there:
a mask per filter, one ``lexsort`` per order, ``histogram`` and ``unique`` for the panel.
A SQL scan per question would read every row again; these cost a few milliseconds.

Small-molecule kinds also hold their SMILES as ``Molecules``: each distinct SMILES once and
a code per row, so the substructure filter (``smarts=``) asks RDKit once per distinct
molecule and maps the answer back to the rows with one NumPy index.

Metrics the vocabulary does not know (``extra_metrics``) arrive as each row's JSON
(``extra_metrics`` column) and become number columns like the others: the pipeline's first
``extra_metrics.MAX_EXTRA`` keys in the API's order. The saved frame keeps them, so it is
where the discovered set is stored (``Frame.extras``).

The rows' warning codes are ``warning_flags``: a word per row over the run's listed codes
(at most ``warning_flags.MAX_LISTED``) and a bit for the codes grouped beyond them.

Semantics match the contract (``query``): missing values sort last whichever the
direction; ties are broken by result id; text keys sort by their text.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from app.viewer.explore import extra_metrics
from app.viewer.explore.fields import NUMERIC_KEYS
from app.viewer.explore.index import frame_chemistry, npz_writer, warning_flags
from app.viewer.explore.index.warning_flags import WarningFlags
from app.viewer.explore.query import ExploreQuery, Filter
from app.viewer.proteins.columns import LIABILITY_COLUMNS

TEXT_COLUMNS = ("result_id", "created_at", "external_id", "variant", "solubility",
                "warning_codes")
# The texts a frame keeps as columns: the warning codes become ``warning_flags``.
_KEPT_TEXTS = TEXT_COLUMNS[:-1]
# Held as bytes (one byte a character, not four): ids are URL-safe ASCII by the API's id
# pattern and times are ISO 8601.
_ASCII = ("result_id", "created_at")
_COMPARE = {"gte": np.greater_equal, "gt": np.greater, "lte": np.less_equal,
            "lt": np.less, "eq": np.equal}


@dataclass
class Molecules:
    """The rows' SMILES: each distinct one once (``smiles``: a list, or a ``TextColumn``
    over the saved frame's arrays), a code per row (-1: none), and, when the index build
    computed it, each one's alerts, scaffold and fingerprint (``frame_chemistry``; None
    in a frame saved before, or built on a request)."""

    codes: np.ndarray  # int32
    smiles: Sequence[str]
    chemistry: frame_chemistry.Chemistry | None = None

    def rows_matching(self, matched: np.ndarray) -> np.ndarray:
        """Return which rows' molecule is ``True`` in ``matched`` (one per distinct SMILES)."""
        out = np.zeros(len(self.codes), dtype=bool)
        present = self.codes >= 0
        out[present] = matched[self.codes[present]]
        return out


def _molecules(chunks_smiles: list[list]) -> Molecules:
    index: dict[str, int] = {}
    codes = np.fromiter((-1 if not s else index.setdefault(s, len(index))
                         for part in chunks_smiles for s in part), dtype=np.int32)
    return Molecules(codes, list(index))


@dataclass
class Frame:
    """One version of a pipeline's index, column by column (row i = API position i)."""

    numbers: dict[str, np.ndarray]  # float64, NaN where missing
    texts: dict[str, np.ndarray]  # str (bytes for _ASCII) arrays, "" where missing
    warning_flags: WarningFlags
    molecules: Molecules | None = None
    _ranks: dict[str, np.ndarray] = field(default_factory=dict)
    _categories: dict[str, tuple[list[str], np.ndarray]] = field(default_factory=dict)

    @property
    def size(self) -> int:
        """Number of results."""
        return len(self.texts["result_id"])

    @property
    def extras(self) -> tuple[str, ...]:
        """The unknown metrics found in the set (columns beyond the fixed ones)."""
        return tuple(key for key in self.numbers if key not in _FIXED_NUMBERS)

    def has_values(self, key: str) -> bool:
        """Whether some row has a value of the number ``key``."""
        values = self.numbers.get(key)
        return values is not None and bool((~np.isnan(values)).any())

    @property
    def ids(self) -> np.ndarray:
        """Result ids (bytes), in the API's order."""
        return self.texts["result_id"]

    def id_list(self, rows: np.ndarray) -> list[str]:
        """Return the ids of ``rows`` as text."""
        return [i.decode() for i in self.ids[rows]]

    def categories(self, key: str) -> tuple[list[str], np.ndarray]:
        """Return the distinct texts of ``key`` and each row's code into them (cached: a
        facet is then one ``bincount``; ``np.unique`` sorted 1,000,000 texts per view)."""
        if key not in self._categories:
            index: dict[str, int] = {}
            codes = np.fromiter((index.setdefault(v, len(index))
                                 for v in self.texts[key].tolist()),
                                dtype=np.int32, count=self.size)
            self._categories[key] = (list(index), codes)
        return self._categories[key]

    def rank(self, key: str) -> np.ndarray:
        """Return each row's rank by text ``key`` (missing: after every text)."""
        if key not in self._ranks:
            values = self.texts[key]
            present = values != (b"" if key in _ASCII else "")
            ranks = np.full(self.size, self.size, dtype=np.int64)
            if present.any():
                order = np.argsort(values[present], kind="stable")
                placed = np.empty(len(order), dtype=np.int64)
                placed[order] = np.arange(len(order))
                ranks[present] = placed
            self._ranks[key] = ranks
        return self._ranks[key]


# Stored numbers that are no query key: the per-liability counts (``liability=``).
_HIDDEN_NUMBERS = ("warning_count", *LIABILITY_COLUMNS.values())
# Every number column the store gives a frame (``build``'s input), fixed by the schema.
STORED_NUMBERS = (*NUMERIC_KEYS, *_HIDDEN_NUMBERS)
_FIXED_NUMBERS = frozenset(STORED_NUMBERS)


def _extra_columns(found: dict[str, tuple[list[int], list[float]]], size: int
                   ) -> dict[str, np.ndarray]:
    """Return one float column per unknown metric (NaN where a row has none)."""
    out = {}
    for key, (rows, values) in found.items():
        column = np.full(size, np.nan)
        column[np.array(rows, dtype=np.int64)] = values
        out[key] = column
    return out


def _collect_extras(found: dict[str, tuple[list[int], list[float]]], texts: list,
                    offset: int) -> None:
    """Add the unknown metrics of a chunk's rows (their JSON) to ``found``, bounded."""
    for row, text in enumerate(texts):
        if not text:
            continue
        try:
            values = json.loads(text)
        except ValueError:
            continue
        for key, value in extra_metrics.unknown_values(values).items():
            slot = found.get(key)
            if slot is None:
                if len(found) >= extra_metrics.MAX_EXTRA:
                    continue  # the pipeline's first keys only
                slot = found[key] = ([], [])
            slot[0].append(offset + row)
            slot[1].append(value)


def build(chunks: Iterable[dict[str, list]]) -> Frame:
    """Make a frame from the store's columns, given a chunk of rows at a time."""
    number_parts: dict[str, list[np.ndarray]] = {k: [] for k in STORED_NUMBERS}
    text_parts: dict[str, list[np.ndarray]] = {k: [] for k in _KEPT_TEXTS}
    flags = warning_flags.FlagBuilder()
    smiles_parts: list[list] = []
    extras: dict[str, tuple[list[int], list[float]]] = {}
    size = 0
    for columns in chunks:
        smiles_parts.append(columns.get("smiles") or [])
        _collect_extras(extras, columns.get("extra_metrics") or [], size)
        size += len(columns["result_id"])
        flags.add(columns["warning_codes"])
        for key, parts in number_parts.items():
            column = columns[key]
            # A column with no value in the chunk (a protein page's chemistry, a metric
            # of another kind): NaN at once, not read value by value.
            parts.append(np.full(len(column), np.nan) if column.count(None) == len(column)
                         else np.array(column, dtype=np.float64))  # None reads as NaN
        for key, parts in text_parts.items():
            parts.append(np.array(["" if v is None else v for v in columns[key]],
                                  dtype="S" if key in _ASCII else str))
    numbers = {k: np.concatenate(p) if p else np.zeros(0) for k, p in number_parts.items()}
    numbers.update(_extra_columns(extras, size))
    texts = {k: np.concatenate(p) if p else np.zeros(0, dtype="S" if k in _ASCII else str)
             for k, p in text_parts.items()}
    return Frame(numbers, texts, flags.finish(), _molecules(smiles_parts))


def to_bytes(frame: Frame) -> bytes:
    """Serialise a frame as a compressed .npz (arrays only: loading runs no code).

    ``np.savez_compressed``'s format at zlib's fastest level: faster to write (the end
    of every index build) than the default level, a little larger, read as fast; its
    members compressed two at a time (``npz_writer``)."""
    return npz_writer.write(to_arrays(frame), level=1)


def from_bytes(data: bytes) -> Frame:
    """Load a frame saved by ``to_bytes`` (pickles refused)."""
    with np.load(io.BytesIO(data), allow_pickle=False) as saved:
        return from_arrays({name: saved[name] for name in saved.files})


def to_arrays(frame: Frame) -> dict[str, np.ndarray]:
    """Return the frame as named arrays (what ``to_bytes`` and ``frame_files`` save)."""
    arrays = {f"n:{k}": v for k, v in frame.numbers.items()}
    arrays.update({f"t:{k}": v for k, v in frame.texts.items()})
    arrays.update({f"w:{k}": v for k, v in warning_flags.to_arrays(frame.warning_flags).items()})
    if frame.molecules is not None:  # the distinct SMILES as one UTF-8 blob and its ends
        arrays["m:codes"] = frame.molecules.codes
        arrays["m:blob"], arrays["m:ends"] = frame_chemistry.texts_to_arrays(
            frame.molecules.smiles)
        if frame.molecules.chemistry is not None:
            arrays.update(frame_chemistry.to_arrays(frame.molecules.chemistry))
    return arrays


def from_arrays(saved: dict[str, np.ndarray]) -> Frame:
    """Return the frame of ``to_arrays``'s arrays (as they are: memory maps stay maps)."""
    numbers, texts, codes, flags, mols, chemistry = {}, {}, {}, {}, {}, {}
    for name, array in saved.items():
        part, key = name.split(":", 1)
        {"n": numbers, "t": texts, "c": codes, "w": flags, "m": mols,
         "x": chemistry}[part][key] = array
    for key in _ASCII:  # a frame saved before ids were bytes reads the same
        texts[key] = np.char.encode(texts[key]) if texts[key].dtype.kind == "U" \
            else texts[key]
    texts.pop("warning_codes", None)
    size = len(texts["result_id"])
    for key in _FIXED_NUMBERS - set(numbers):  # a metric added since it was saved
        numbers[key] = np.full(size, np.nan)
    # Only the unknown metrics a build could have made (a saved file is data, not trust).
    for key in [k for k in numbers if k not in _FIXED_NUMBERS]:
        if not extra_metrics.is_unknown_key(key):
            del numbers[key]
    molecules = None
    if mols:
        smiles = frame_chemistry.texts_from_arrays(mols["blob"], mols["ends"])
        molecules = Molecules(mols["codes"], smiles,
                              frame_chemistry.from_arrays(chemistry, len(smiles)))
    # A frame saved with a flag array per code (before ``warning_flags``) reads the same.
    warnings = warning_flags.from_arrays(flags, size) if flags \
        else warning_flags.from_flag_arrays(codes, size)
    return Frame(numbers, texts, warnings, molecules)


def _filter_mask(frame: Frame, item: Filter) -> np.ndarray:
    if item.key in frame.numbers:
        values = frame.numbers[item.key]
        with np.errstate(invalid="ignore"):
            return _COMPARE[item.op](values, float(item.value)) & ~np.isnan(values)
    key = "result_id" if item.key == "id" else item.key
    value = str(item.value)
    return frame.texts[key] == (value.encode() if key in _ASCII else value)


def mask(frame: Frame, query: ExploreQuery) -> np.ndarray:
    """Return which rows match the query's number and text filters and its ``ids``; the
    registered selections narrow it further (``answers.selected``)."""
    keep = np.ones(frame.size, dtype=bool)
    for item in query.filters:
        keep &= _filter_mask(frame, item)
    if query.ids:
        keep &= np.isin(frame.ids, np.array([i.encode() for i in sorted(set(query.ids))],
                                            dtype="S"))
    return keep


def order(frame: Frame, query: ExploreQuery, keep: np.ndarray) -> np.ndarray:
    """Return the row numbers of the matching rows, in the view's order (a pasted list
    without a sort: the order of ``ids``, which a shortlist keeps as picked)."""
    rows = np.flatnonzero(keep)
    if not query.sort and query.ids:  # a list without a sort: the order of the list
        place = {result_id.encode(): at for at, result_id in enumerate(query.ids)}
        return rows[np.argsort([place[i] for i in frame.ids[rows].tolist()], kind="stable")]
    if not query.sort:
        return rows  # the API's order
    id_desc = any(key == "id" and desc for key, desc in query.sort)
    id_rank = frame.rank("result_id")[rows]
    keys = [-id_rank if id_desc else id_rank]  # lexsort: the last key is the primary one
    for key, desc in reversed([s for s in query.sort if s[0] != "id"]):
        if key in frame.numbers:
            values = frame.numbers[key][rows]
            missing = np.isnan(values)
            keys += [np.where(missing, 0.0, -values if desc else values), missing]
        else:
            ranks = frame.rank(key)[rows]
            missing = ranks == frame.size
            keys += [np.where(missing, 0, -ranks if desc else ranks), missing]
    return rows[np.lexsort(keys)]


def facets(frame: Frame, keep: np.ndarray) -> dict[str, dict[str, int]]:
    """Count the matching rows per variant and solubility class (the selections add their
    own facets: ``Selection.facets``)."""
    out: dict[str, dict[str, int]] = {}
    for name in ("variant", "solubility"):
        names, rows = frame.categories(name)
        counts = np.bincount(rows[keep], minlength=len(names))
        out[name] = {v: int(n) for v, n in sorted(zip(names, counts, strict=True))
                     if v and n}
    return out


def value_range(frame: Frame, keep: np.ndarray, key: str) -> tuple[float, float] | None:
    """Return (min, max) of ``key`` over the matching rows, or None if none has it."""
    values = frame.numbers[key][keep]
    values = values[~np.isnan(values)]
    return (float(values.min()), float(values.max())) if len(values) else None


def histogram(frame: Frame, keep: np.ndarray, key: str, low: float, high: float,
              bins: int) -> list[int]:
    """Return counts of ``bins`` equal bins over [low, high] (the top edge included)."""
    values = frame.numbers[key][keep]
    values = values[~np.isnan(values)]
    counts, _edges = np.histogram(values, bins=bins, range=(low, high if high > low
                                                             else low + 1.0))
    return [int(n) for n in counts]
