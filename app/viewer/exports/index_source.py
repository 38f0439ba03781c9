"""An export's records read from a current exploration index, a chunk at a time.

When the pipeline's index is current (``explore.index.freshness``: read to the end and brought
up to what the run record of this request's link read says), the records a CSV, JSON or
FASTA export needs are the index's stored records (the API's records without their
artifact URLs, which these formats never use: the JSON links files through the viewer).
Reading them costs neither the API nor a lookup per id: the stored texts of the frame's
rows are kept in a file beside the frame's files (``frame_files.save_records``, written
from one ordered scan of the store by the first export of an index version, then mapped
by every worker), and a chunk of ``CHUNK`` rows of the view is sliced out of it in the
view's order. Where the frame has no files of that version on this machine (the frame
cache off or unwritable), each chunk is asked of the store by its ids instead.

Each page is an ``IndexPage``: the texts in the view's order, parsed into records
(``rank`` and ``label`` written in front of each text, so that they come first without a
copy of the record, pydantic-core parsing the page as one JSON array) only when a writer
iterates them; the CSV and FASTA writers read the texts parsed as they are (``bare``)
with the page's ``ranks``, ``labels`` and view's numbers (``view_column``) beside them,
which spares the splice; and the rows' computed values (chemistry, protein properties)
taken from the index's columns (``IndexPage.computed``) instead of being computed again
per row. The JSON writer splices its lines from the texts (``stored_json``) and parses
nothing. A record whose own fields are named ``rank`` or ``label`` is rebuilt the slow
way, so the view's rank and label always win, as in ``ranking.ranked``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
from pydantic_core import from_json, to_json

from app.viewer.chem.properties import PROPERTIES
from app.viewer.explore import answers, selections
from app.viewer.explore.index import frame_files
from app.viewer.explore.index.frame import Frame
from app.viewer.explore.labels import RunLabels
from app.viewer.explore.query import ExploreQuery
from app.viewer.exports import precision, stored_json
from app.viewer.store import get_engine
from app.viewer.store import index_queries as queries
from app.viewer.store.result_index import IndexState

CHUNK = 1000
# Computed columns whose values are whole numbers (the index keeps every number as float).
_WHOLE = frozenset({*(key for key, prop in PROPERTIES.items() if prop.integer),
                    "liability_count", "liability_oxidation"})


class IndexPage(Sequence):
    """A page of the view's records from the index, in its order: the stored JSON texts,
    parsed into records (``rank`` and ``label`` first, the view's numbers last) on first
    use, and ``computed[key][i]``: the index's value of computed column ``key`` for record
    ``i`` (None where it has none). A JSON export splices its lines from the texts
    (``json_lines``) and never parses them."""

    def __init__(self, ids: list[str], texts: list[str], first_rank: int, labels: list[str],
                 extras: dict[str, list], numbers: dict[str, np.ndarray], rows: np.ndarray):
        self.ids, self.texts, self.first_rank, self.labels = ids, texts, first_rank, labels
        self.extras, self._numbers, self._rows = extras, numbers, rows
        self._records: list[dict] | None = None
        self._bare: list[dict] | None = None
        self._computed: dict[str, list] | None = None

    def __len__(self) -> int:
        return len(self.texts)

    def __getitem__(self, at):
        return self.records[at]

    def __iter__(self) -> Iterator[dict]:
        return iter(self.records)

    @property
    def records(self) -> list[dict]:
        """The page's records, parsed once (module docstring)."""
        if self._records is None:
            records = _parsed(self.texts, self.first_rank, self.labels)
            for key, values in self.extras.items():  # the view's numbers, after the rest
                for record, value in zip(records, values, strict=True):
                    record[key] = value
            self._records = records
        return self._records

    @property
    def bare(self) -> list[dict]:
        """The page's records as stored: without ``rank``, ``label`` and the view's
        numbers, which the CSV and FASTA writers take from the page itself (``ranks``,
        ``labels``, ``extras``). One parse of the texts as they are: splicing the rank and
        label into each text cost more than the parse."""
        if self._records is not None:  # parsed already: the view's keys are only extra
            return self._records
        if self._bare is None:
            self._bare = from_json("[" + ",".join(self.texts) + "]", cache_strings="keys")
        return self._bare

    @property
    def ranks(self) -> range:
        """The records' ranks (1-based positions in the view)."""
        return range(self.first_rank, self.first_rank + len(self.texts))

    def view_column(self, key: str) -> list:
        """Return the column of ``key`` as the full records hold it: the view's number
        (``extras``) where the view has one, else each record's own value."""
        if key in self.extras:
            return self.extras[key]
        return [record.get(key) for record in self.bare]

    def has_key(self, key: str) -> bool:
        """Whether the page's first record has ``key`` (as ``key in page[0]``)."""
        return bool(self.texts) and (key in self.extras or key in self.bare[0])

    @property
    def computed(self) -> dict[str, list]:
        """The computed columns of the page's records, read from the index once (only the
        CSV shows them)."""
        if self._computed is None:
            self._computed = _computed(self._numbers, self._rows)
        return self._computed

    def release(self) -> None:
        """Let go of what was parsed of the page: its writer has made its chunk. The page
        itself lives on in the generators that handed it over until the next one comes,
        and with it thousands of young containers, which the cycle collector, on again
        between chunks (``collector``), would walk at every chunk: a sixth of a CSV's
        time. Read again, it is parsed again."""
        self._records = self._bare = self._computed = None

    def json_lines(self, splicer: stored_json.Splicer) -> list[str]:
        """Return each record's line of the JSON export (``stored_json``)."""
        lines = splicer.lines(self.texts, self.first_rank, self.labels, self.ids,
                              list(self.extras.items()))
        return [stored_json.long_way(self.records[at], splicer.links) if line is None
                else line for at, line in enumerate(lines)]


def _computed(numbers: dict[str, np.ndarray], rows: np.ndarray) -> dict[str, list]:
    """Return the computed columns of ``rows`` as the writers show them (module doc)."""
    out = {}
    for key, column in numbers.items():
        values = column[rows].tolist()  # floats: NaN is none (v != v)
        decimals = 0 if key in _WHOLE else precision.DECIMALS.get(key)
        if decimals is None:  # not a computed property: as stored
            out[key] = [None if v != v else v for v in values]
        elif decimals:
            out[key] = [None if v != v else round(v, decimals) for v in values]
        else:
            out[key] = [None if v != v else round(v) for v in values]
    return out


def _parsed(texts: list[str], first_rank: int, labels: list[str]) -> list[dict]:
    """Return the records of ``texts`` (stored JSON) with ``rank`` and ``label`` first."""
    if not any('"rank"' in text or '"label"' in text for text in texts):
        return from_json("[" + ",".join(
            f'{{"rank":{first_rank + at},"label":{to_json(labels[at]).decode()},{text[1:]}'
            if len(text) > 2 else
            f'{{"rank":{first_rank + at},"label":{to_json(labels[at]).decode()}}}'
            for at, text in enumerate(texts)) + "]", cache_strings="keys")
    # A record with fields of those names: rebuilt so the view's own rank and label win.
    records = from_json("[" + ",".join(texts) + "]")
    return [{"rank": first_rank + n, "label": labels[n],
             **{k: v for k, v in record.items() if k not in ("rank", "label")}}
            for n, record in enumerate(records)]


def _looked_up(state: IndexState, ids: list[str]) -> list[str]:
    """Return the stored records of ``ids`` from the store, in that order (one query)."""
    with get_engine().connect() as conn:
        found = queries.record_texts(conn, state.pipeline_id, ids)
    if len(found) != len(ids):  # the index's two tables are written together
        raise RuntimeError("the exploration index lacks records of its rows")
    return [found[i] for i in ids]


def _stored_records(state: IndexState, data: Frame) -> frame_files.RecordTexts | None:
    """Return the records of the frame's rows mapped from beside its files (written now
    from one ordered scan of the store if they are not there yet), or None when the frame
    has no files of this version here (then each chunk is looked up by its ids)."""
    root = frame_files.root()
    with get_engine().connect() as conn:
        key = queries.saved_frame_key(conn, state.pipeline_id)
    if root is None or key is None or key[0] != state.version:
        return None
    found = frame_files.load_records(root, state.pipeline_id, *key, state.generation)
    if found is None:
        with get_engine().connect() as conn:
            texts = _in_row_order(data.ids, queries.ordered_record_texts(conn,
                                                                          state.pipeline_id))
            found = frame_files.save_records(root, state.pipeline_id, *key, state.generation,
                                             texts, data.size)
    return found if found is not None and found.count == data.size else None


def _in_row_order(ids: np.ndarray, chunks: Iterator[Sequence[tuple[str, str]]]
                  ) -> Iterator[list[str]]:
    """Yield the texts of the frame's rows ``ids`` from the store's (id, text) chunks in
    the same order, a list per chunk, skipping any record the frame does not hold (a
    refresh that started meanwhile); stops short when one of the frame's is missing."""
    at, size = 0, len(ids)
    for rows in chunks:
        expected = [i.decode() for i in ids[at:at + len(rows)].tolist()]
        if [result_id for result_id, _text in rows] == expected:  # the usual case
            at += len(rows)
            yield [text for _id, text in rows]
            continue
        kept = []
        for result_id, text in rows:
            if at < size and result_id == ids[at].decode():
                at += 1
                kept.append(text)
        yield kept


def pages(state: IndexState, query: ExploreQuery, labels: RunLabels, limit: int | None,
          computed_keys: tuple[str, ...] = ()) -> Iterator[IndexPage]:
    """Yield the view's records from the index in its order, ``CHUNK`` at a time, up to
    ``limit``, with the computed columns ``computed_keys`` (module docstring)."""
    data, rows = answers.current_frame(state), answers.view_rows(state, query)
    if limit is not None:
        rows = rows[:limit]
    numbers = {key: data.numbers[key] for key in computed_keys if key in data.numbers}
    stored = _stored_records(state, data) if len(rows) else None
    for start in range(0, len(rows), CHUNK):
        chunk = rows[start:start + CHUNK]
        ids_bytes = data.ids[chunk]
        ids = [i.decode() for i in ids_bytes.tolist()]
        if stored is None:
            texts = _looked_up(state, ids)
        else:
            texts = stored.texts(chunk)
            if start % (8 * CHUNK) == 0:
                stored.release()  # the pages read stay cached, not resident (bounded)
        # The view's own numbers beside the record (CSV columns, JSON keys): similarity, ...
        extras = {column: [values.get(i) for i in ids] for column, values
                  in selections.export_values(state, query, ids).items()}
        yield IndexPage(ids, texts, start + 1,
                        labels.label_list(ids_bytes), extras, numbers, chunk)
