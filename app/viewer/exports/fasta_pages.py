"""A page of FASTA from the index, made a column at a time: the same text as
``text_writers.fasta_records`` of each record, with fewer Python calls per row.

Writing a record's chains one call at a time (its header's words each through ``_safe``,
its key metrics each through a lookup of its shape's grading) would be most of the cost
of a FASTA export. Here a page's header words are made per column: the labels and ids of a
page checked for unsafe characters in one look at the whole column (``safe_column``), each
grading metric's words formatted over the column when the page's records share one shape,
and each record's text then joined from those pieces. Anything of another shape (mixed
variants, a metric that is not a number) takes the per-record rules of ``text_writers``,
which stay the definition of the file (module docstring there).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

from app import domain
from app.viewer.exports import text_writers
from app.viewer.exports.text_writers import FASTA_WIDTH, sequence_text


def safe_column(values: Sequence) -> list[str]:
    """Return ``text_writers._safe`` of each value: a column of printable texts without
    ``|``, ``>`` or two spaces in a row (the usual labels and ids) checked in one look at
    the whole column, as ``_safe`` checks one text."""
    if all(type(v) is str for v in values):
        whole = "".join(values)
        if whole.isprintable() and "|" not in whole and ">" not in whole \
                and "  " not in whole:
            if " " not in whole and "_" not in whole:
                return list(values)  # nothing to replace, nothing to strip
            return [v.replace(" ", "_").strip("_") for v in values]
    safe = text_writers._safe
    return [safe(v) for v in values]


def _metric_tails(kind: domain.Kind, records: Sequence[dict]) -> list[str]:
    """Return each record's key-metric words, each with the space before it."""
    try:
        shapes = {r.get("type") for r in records}
    except TypeError:  # a shape that is no text: each record by its own
        shapes = set()
    metrics = [r.get("metrics") or {} for r in records]
    if len(shapes) != 1:  # records of several shapes (or none): each by its own grading
        found = []
        for record, values in zip(records, metrics, strict=True):
            words = []
            for key, text in text_writers._grading(kind.metrics_for(record.get("type"))):
                value = values.get(key)
                if type(value) in (int, float):
                    words.append(" " + text(value))
            found.append("".join(words))
        return found
    keys = kind.metrics_for(next(iter(shapes)))
    grading = text_writers._grading(keys)
    columns = [[m.get(key) for m in metrics] for key, _text in grading]
    if columns and all(set(map(type, values)) == {float} for values in columns):
        # The usual page: every grading value a number, a record's words one ``%``.
        return list(map(_row_format(keys), zip(*columns, strict=True)))
    words = []
    for (_key, text), values in zip(grading, columns, strict=True):
        words.append([" " + text(v) if type(v) in (int, float) else "" for v in values])
    if not words:
        return [""] * len(records)
    return list(map("".join, zip(*words, strict=True)))


_ROW_FORMATS: dict[tuple[str, ...], Callable[[tuple], str]] = {}


def _row_format(keys: tuple[str, ...]) -> Callable[[tuple], str]:
    """Return the ``%`` of a record's grading words (`` key=%.Nf`` each, the metric's
    decimals: what ``text_writers._grading``'s ``str.format`` writes of a number, one call
    a record instead of one a value)."""
    found = _ROW_FORMATS.get(keys)
    if found is None:
        found = "".join(f" {key.replace('%', '%%')}=%.{domain.metric(key).decimals}f"
                        for key, _text in text_writers._grading(keys)).__mod__
        if len(_ROW_FORMATS) < 256:
            _ROW_FORMATS[keys] = found
    return found


def _sequences(values: list) -> list[str]:
    """Return ``sequence_text`` of each value: a page of letters only (the usual one)
    checked in one look at the whole page, as ``sequence_text`` checks one."""
    if all(type(v) is str for v in values):
        whole = "".join(values)
        if (whole.isascii() and whole.isalpha()) or text_writers._PLAIN_SEQUENCE.fullmatch(whole):
            return values
    return [sequence_text(v) for v in values]


def _words(name: str, values: Sequence) -> list[str]:
    """Return `` name=value`` (safe) for each value that is set, else an empty text."""
    set_at = [at for at, v in enumerate(values) if v]
    out = [""] * len(values)
    for at, word in zip(set_at, safe_column([values[at] for at in set_at]), strict=True):
        out[at] = f" {name}={word}"
    return out


def page_text(kind: domain.Kind, records: Sequence[dict], ranks: Sequence[int],
              labels: Sequence) -> str:
    """Return the FASTA text of a page's records (stored records, their ranks and labels
    beside them: ``index_source.IndexPage``), equal to ``text_writers.fasta_records`` of
    each record with its (rank, label)."""
    names = [f"{rank}|{label}|{rid}" if type(rank) is int
             else f"{text_writers._safe(rank)}|{label}|{rid}"
             for rank, label, rid in zip(ranks, safe_column(labels),
                                         safe_column([r.get("id") for r in records]),
                                         strict=True)]
    tails = _metric_tails(kind, records)
    variants = _words("variant", [r.get("type") for r in records])
    external = _words("external_id", [r.get("external_id") for r in records])
    designed = []
    for record in records:
        for entity in record.get("entities") or []:
            if entity.get("type") == "protein":
                break
        else:
            entity = None  # no designed chain: no FASTA record
        designed.append(entity)
    sequences = _sequences([(entity.get("value") or "") if entity is not None else ""
                            for entity in designed])
    chain_names: dict[str, str] = {}
    out = []
    for entity, sequence, name, metric, variant, ext in zip(
            designed, sequences, names, tails, variants, external, strict=True):
        if entity is None:
            continue
        if len(sequence) <= FASTA_WIDTH:
            lines = sequence + "\n" if sequence else ""
        else:
            lines = "\n".join([sequence[i:i + FASTA_WIDTH]
                               for i in range(0, len(sequence), FASTA_WIDTH)]) + "\n"
        tail = metric + variant + (" cyclic=true" if entity.get("cyclic") else "") + ext
        for chain in entity.get("chain_ids") or "?":  # none: one chain named "?"
            chain = chain if type(chain) is str else str(chain)
            safe_chain = chain_names.get(chain)
            if safe_chain is None:
                safe_chain = chain_names[chain] = text_writers._safe(chain)
            out.append(">" + name + "|chain=" + safe_chain + tail + "\n" + lines)
    return "".join(out)


def fasta_chunks(kind: domain.Kind, pages: Iterable[list[dict]]) -> Iterator[str]:
    """Yield the FASTA file, one chunk per page of records: a page from the index (rank
    and label kept apart) made a column at a time, an API page record by record
    (``text_writers.fasta_records``, the same text)."""
    for records in pages:
        if hasattr(records, "bare"):
            text = page_text(kind, records.bare, records.ranks, records.labels)
            records.release()  # its records freed now, not at the next page (``collector``)
            yield text
        else:
            yield "".join(text_writers.fasta_records(kind, record) for record in records)
