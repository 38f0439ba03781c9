"""JSON and FASTA exports: text writers over pages of result records, one chunk per page.

JSON is ``{"pipeline": {"id", "kind", "label"}, "export": {...}, "results": [...]}`` (the
kind as the viewer recognised it from the run record, and its label: the wire has no
name; ``export`` says the order, the limit and the precision of computed numbers). Each
result is the record as the API returned it with ``rank`` and ``label`` first
(``ranking``), and its artifact links replaced by the viewer's own download URLs
(``links.viewer_artifacts``: good for as long as the share link, where the API's are
presigned for minutes). Written record by record, so memory holds one page whatever
the size.

FASTA (protein kinds) has one record per **designed chain**. Result records do not mark
which entity was designed, so the rule is: the designed (or screened) protein is the
record's **first protein entity**, as in the results table and the CSV's ``sequence``
column; the API lists it first, then the target and any fixed partners (in the demo
data: binder chain A, target chain B, glycan C). Every chain id of that entity gets a
record (a homodimeric binder gives two); the target, other proteins, nucleic acids and
ligands get none. The header starts with one word (the name most tools keep):
``rank|label|result id|chain=A`` (``>1|#3_Q7XZ|res_...|chain=A``: the position in the
view, the run-wide label with its space written ``_``, the id, the chain), then the key
metrics of the record's shape (those that grade a design, not the secondary-structure fractions) at
the table's decimals, then ``variant=``, ``cyclic=true`` and ``external_id=`` where they
apply, separated by spaces. The sequence is wrapped at 60 columns.

Values never break a record boundary, whatever the API returns: header words lose
whitespace, control characters, ``|`` and ``>`` (runs become ``_``); in a sequence,
whitespace and control/format characters (Unicode categories Z and C: newlines, tabs,
NUL, U+2028...) are dropped, as they are no residue (a sequence pasted with line
breaks reads as it was meant), and ``>`` and ``;``, which would start a header or a
comment line when wrapping puts them first, become ``X`` (unknown residue), so the
sequence keeps its length and residue positions.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator

from pydantic_core import to_json

from app import domain
from app.viewer.exports import stored_json
from app.viewer.exports.stream import incomplete_text

FASTA_WIDTH = 60
# Header text comes partly from the submitter (external_id): one line, no separators.
_HEADER_UNSAFE = re.compile(r"[\s|>\x00-\x1f\x7f-\x9f]+")
# Characters that start a header or a (legacy) comment line: kept as an unknown residue.
_SEQUENCE_MARKS = {">": "X", ";": "X"}
# A sequence of ASCII letters (and the gap/stop marks) is already safe as it is.
_PLAIN_SEQUENCE = re.compile(r"[A-Za-z*\-]*")


def json_chunks(pipeline: dict, kind: domain.Kind, pages: Iterable[list[dict]],
                export: dict | None = None,
                artifact_links: Callable[[dict], dict] | None = None) -> Iterator[str]:
    """Yield the JSON document: the head, one chunk of records per page, then the end.

    ``export`` is the head's description of the file; ``artifact_links`` returns the
    ``artifacts`` a record is written with (the viewer's URLs), by default the API's.
    """
    head = {"id": pipeline.get("id"), "kind": kind.key, "label": kind.label}
    yield ('{"pipeline": ' + json.dumps(head) + ', "export": '
           + json.dumps(export or {}, ensure_ascii=False) + ', "results": [')
    separator = "\n"
    splicer = stored_json.Splicer(artifact_links) if artifact_links is not None else None
    for records in pages:
        if splicer is not None and hasattr(records, "json_lines"):
            # From the index: the stored texts spliced, the same lines (``stored_json``).
            lines = records.json_lines(splicer)
            records.release()  # any record parsed the long way, freed now (``collector``)
        elif artifact_links is not None:
            lines = [stored_json.long_way(record, artifact_links) for record in records]
        else:
            # pydantic-core, compact, UTF-8 as is; a number the shortest text that reads
            # back the same, NaN and infinities null.
            lines = [to_json(record).decode() for record in records]
        if lines:
            yield separator + ",\n".join(lines)  # one record a line
            separator = ",\n"
    yield "\n]}\n"


def designed_chains(record: dict) -> list[tuple[str, str, dict]]:
    """Return ``(chain id, sequence, entity)`` of each designed chain (module docstring)."""
    for entity in record.get("entities") or []:
        if entity.get("type") == "protein":
            break
    else:
        return []
    chains = [str(c) for c in entity.get("chain_ids") or []] or ["?"]
    return [(chain, entity.get("value") or "", entity) for chain in chains]


def sequence_text(value: str) -> str:
    """Return a sequence safe for FASTA lines (module docstring): one line, no marks."""
    value = str(value)
    if _PLAIN_SEQUENCE.fullmatch(value):  # the usual case: letters only, nothing to do
        return value
    return "".join(_SEQUENCE_MARKS.get(ch, ch) for ch in value
                   if not ch.isspace() and unicodedata.category(ch)[0] not in "CZ")


# The grading metrics of each shape's metric keys: (key, ``key=`` and the value at its
# decimals).
_GRADING: dict[tuple[str, ...], tuple[tuple[str, Callable[[float], str]], ...]] = {}


def _grading(keys: tuple[str, ...]) -> tuple[tuple[str, Callable[[float], str]], ...]:
    found = _GRADING.get(keys)
    if found is None:
        metrics = [(key, domain.metric(key)) for key in keys]
        found = tuple((key, (_literal(key) + f"={{:.{m.decimals}f}}").format)
                      for key, m in metrics if m.direction is not None)
        if len(_GRADING) < 256:
            _GRADING[keys] = found
    return found


def _literal(text: str) -> str:
    """Return ``text`` as literal text of a ``str.format`` template."""
    return text.replace("{", "{{").replace("}", "}}")


def _key_metrics(kind: domain.Kind, record: dict) -> list[str]:
    """Return ``name=value`` for the metrics that grade a design of the record's shape."""
    metrics = record.get("metrics") or {}
    found = []
    for key, text in _grading(kind.metrics_for(record.get("type"))):
        value = metrics.get(key)
        if type(value) in (int, float):
            found.append(text(value))
    return found


def _safe(value) -> str:
    """Return a header word's text: runs of unsafe characters one ``_`` (module docstring).

    A printable text (which holds no control character nor any whitespace but the space)
    without ``|``, ``>`` or two spaces in a row has only single spaces to replace: the
    usual label and id take that path, without the regular expression."""
    text = value if type(value) is str else str(value)
    if text.isprintable() and "|" not in text and ">" not in text and "  " not in text:
        return text.replace(" ", "_").strip("_")
    return _HEADER_UNSAFE.sub("_", text).strip("_")


def fasta_header(kind: domain.Kind, record: dict, chain: str, entity: dict,
                 place: tuple | None = None) -> str:
    """Return the header line of one designed chain (without the newline). ``place`` is
    the record's (rank, label) when the record does not carry them (a page from the index:
    ``index_source.IndexPage.bare``)."""
    if place is None and "rank" in record:
        place = (record["rank"], record.get("label"))
    if place is not None:  # a whole number's text is already safe
        rank, label = place
        name = [str(rank) if type(rank) is int else _safe(rank), _safe(label)]
    else:
        name = []
    name += [_safe(record.get("id")), f"chain={_safe(chain)}"]
    words = [">" + "|".join(name), *_key_metrics(kind, record)]
    if record.get("type"):
        words.append(f"variant={_safe(record['type'])}")
    if entity.get("cyclic"):
        words.append("cyclic=true")
    if record.get("external_id"):
        words.append(f"external_id={_safe(record['external_id'])}")
    return " ".join(words)


def fasta_records(kind: domain.Kind, record: dict, place: tuple | None = None) -> str:
    """Return the FASTA text of a result's designed chains (empty if it has none);
    ``place``: its (rank, label), when the record does not carry them."""
    out = []
    for chain, sequence, entity in designed_chains(record):
        out.append(fasta_header(kind, record, chain, entity, place))
        sequence = sequence_text(sequence)
        out += [sequence[i : i + FASTA_WIDTH] for i in range(0, len(sequence), FASTA_WIDTH)]
    return "\n".join(out) + "\n" if out else ""


def fasta_incomplete(written: int) -> str:
    """Return the last record of a FASTA the API broke off: a header saying so."""
    return ">" + incomplete_text(written, "results") + "\n"
