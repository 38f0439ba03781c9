"""The CSV's cells: what each holds (``csv_writer.header`` names them), and a page's CSV
text made one column at a time.

A page's values are gathered per column in one pass over its records (``columns``), then
each column becomes fields in one comprehension (``csv_text``) and the rows are joined.
A cell is ``cell_text`` of its value (``None`` empty, a float its ``repr``: the shortest
text that reads back the same, a text through ``defuse_formula``, anything else ``str``),
quoted exactly where ``csv.writer`` (comma, minimal quoting) would quote it. One Python
call per cell was what made a CSV slow (23 columns: 690,000 calls for 30,000 results):
here a float is one ``repr`` and a text whose first character cannot start a formula and
that holds no quote, comma or line break is written as it is; only the rest are looked
at closely (``_field``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from pydantic_core import to_json

from app.viewer.chem import alerts, identifiers, properties
from app.viewer.core import formatting
from app.viewer.proteins import columns as protein_columns
from app.viewer.results.table import Column

_FORMULA_STARTS = ("=", "+", "-", "@")
# A leading tab or line break is itself a known injection vector, whatever follows.
_SPACE_STARTS = ("\t", "\r", "\n")

# A text whose first character is one of these is never changed by ``defuse_formula``:
# printable ASCII other than the formula signs (and not a space, a tab or a line break,
# nor any other character that NFKC or ``lstrip`` could turn into one), or no text at all.
_SAFE_FIRST = frozenset({"", *(chr(c) for c in range(0x21, 0x7F))} - set("=+-@"))


def defuse_formula(text: str) -> str:
    """Keep a spreadsheet from running a cell as a formula (CSV injection).

    Submitter-provided text such as ``external_id`` could start with ``=``; a leading
    apostrophe makes spreadsheets show it as text. Spreadsheets skip leading spaces and
    read fullwidth signs (U+FF1D, U+FF0B, U+FF0D, U+FF20) as their ASCII forms, so the
    check is on the first non-space character after NFKC normalisation; a leading tab or
    line break is defused whatever follows. Numbers ("-1.5", " +2") are written as numbers.
    """
    start = unicodedata.normalize("NFKC", text).lstrip()
    if text.startswith(_SPACE_STARTS) or start.startswith(_FORMULA_STARTS):
        try:
            float(start)
        except ValueError:
            return "'" + text
    return text


def cell_text(value) -> str:
    """Return a cell's text: empty for none, numbers at full precision, text defused."""
    if value is None:
        return ""
    if isinstance(value, str):
        return defuse_formula(value)
    # repr of a float is the shortest text that reads back to the same number.
    return repr(value) if isinstance(value, float) else str(value)


def entities_text(entities: list[dict] | None) -> str:
    """Return every entity as ``chains:value``, joined by ``;`` (full sequences).

    Proteins read ``A:MKT...``; other types name themselves (``C:ligand_ccd:NAG``) so a
    ligand's code is never mistaken for a three-residue peptide.
    """
    parts = []
    for entity in entities or []:
        chains = ",".join(str(c) for c in entity.get("chain_ids") or []) or "?"
        kind = entity.get("type") or ""
        value = entity.get("value") or ""
        parts.append(f"{chains}:{value}" if kind == "protein" else f"{chains}:{kind}:{value}")
    return ";".join(parts)


def alerts_text(smiles: str | None) -> str:
    """Return a molecule's alert names joined by ';' ("" none, "unknown" unread/unchecked;
    ``csv_writer.warm`` has checked the page's molecules in one budgeted call)."""
    if not smiles:
        return ""
    names = alerts.names_of([smiles], alerts.PAGE_SECONDS)[0]
    return "unknown" if names is None else ";".join(names)


# What makes ``csv.writer`` (minimal quoting) quote a field.
_QUOTED = re.compile('[",\r\n]')
_QUOTE_MARKS = ('"', ",", "\r", "\n")


def _sequence_cells(entities) -> tuple:
    """Return the ``sequence_length``, ``chains``, ``sequence`` and ``entities`` values of
    one record: ``entity_summary``'s and ``entities_text``'s in one pass over the entities
    of the usual shape (texts), theirs for any other."""
    chains: list[str] = []
    parts = []
    first = None
    for entity in entities or ():
        kind, value = entity.get("type"), entity.get("value") or ""
        ids = entity.get("chain_ids") or ()
        if not isinstance(value, str) or not (kind is None or isinstance(kind, str)):
            return _sequence_cells_slowly(entities)
        try:  # chain ids are texts: joined as they are, without a ``str`` each
            named = ",".join(ids) or "?"
        except TypeError:
            return _sequence_cells_slowly(entities)
        chains += ids
        if kind == "protein":
            first = value if first is None else first
            parts.append(named + ":" + value)
        else:
            parts.append(f"{named}:{kind or ''}:{value}")
    return (None if first is None else len(first), ",".join(chains), first or "",
            ";".join(parts))


def _sequence_cells_slowly(entities) -> tuple:
    summary = formatting.entity_summary(entities)
    return (summary["length"], ",".join(summary["chains"]), summary["sequence"],
            entities_text(entities))


_OXIDATION = protein_columns.LIABILITY_COLUMNS["oxidation"]


def _protein_values(records: Sequence[dict]) -> list[dict]:
    """Return each record's designed-chain values (Biopython), as the table shows them."""
    return [protein_columns.values(protein_columns.designed_sequence(r)) for r in records]


def columns(columns: list[Column], added: list[str], records: Sequence[dict],
            computed: dict[str, list] | None = None,
            head: list[Sequence] | None = None) -> list[list]:
    """Return the page's columns (raw values: ``cell_text`` makes a cell), in the order of
    ``csv_writer.header(columns)`` with the view's ``added`` keys after ``result_id``.

    ``computed`` (a page from the index, ``index_source.IndexPage.computed``) holds the
    computed columns' values of the page's records: read, not computed again. ``head``
    (a page from the index) holds its rank, label and ``added`` columns, which are then
    not read from the records.
    """
    if head is None:
        head = [[r.get("rank") for r in records], [r.get("label") for r in records],
                *([r.get(key) for r in records] for key in added)]
    out = [head[0], head[1], [r.get("id") for r in records], *head[2:]]
    metrics = adme = chemistry = proteins = None
    for column in columns:
        source, key = column.source, column.key
        if source == "sequence":
            cells = [_sequence_cells(r.get("entities")) for r in records]
            out += [[cell[i] for cell in cells] for i in range(4)]
        elif source == "metric":
            if metrics is None:
                metrics = [r.get("metrics") or {} for r in records]
            out.append([m.get(key) for m in metrics])
        elif source == "adme":
            if adme is None:
                adme = [r.get("adme") or {} for r in records]
            name = key.split(".", 1)[1]
            out.append([a.get(name) for a in adme])
        elif key == "liability_count":  # the total, then oxidation (empty: not yet read)
            if computed is not None and key in computed and _OXIDATION in computed:
                out += [computed[key], computed[_OXIDATION]]
            else:
                if proteins is None:
                    proteins = _protein_values(records)
                out += [[values.get(k) for values in proteins] for k in (key, _OXIDATION)]
        elif computed is not None and key in computed:
            out.append(computed[key])
        elif source == "chemistry":  # computed from the SMILES (RDKit), as the table shows
            if chemistry is None:
                chemistry = [properties.compute(r.get("smiles")) for r in records]
            out.append([values.get(key) for values in chemistry])
        elif source == "protein":  # the designed chain's (Biopython), as the table shows
            if proteins is None:
                proteins = _protein_values(records)
            out.append([values.get(key) for values in proteins])
        elif source == "warnings":
            out.append([";".join([str(w.get("code")) for w in r.get("warnings") or []])
                        for r in records])
        elif source == "smiles":
            smiles = [r.get("smiles") for r in records]
            out += [smiles, [identifiers.inchikey(s) for s in smiles]]
        else:  # external_id, the variant ("type"): plain fields of the record
            out.append([r.get(key) for r in records])
    if any(column.source == "smiles" for column in columns):
        out.append([alerts_text(r.get("smiles")) for r in records])
    return out


def _field(value) -> str:
    """Return the CSV field of a value (``cell_text``, quoted where ``csv.writer`` would)."""
    text = cell_text(value)
    return '"' + text.replace('"', '""') + '"' if _QUOTED.search(text) else text


# What pydantic-core writes of any value but a float in plain decimals or a whole number:
# a text, null, true and false, a list, an object, an exponent, NaN and the infinities.
_NOT_PLAIN = ('"', "n", "t", "f", "[", "{", "e", "N", "I")


def _number_fields(values: list) -> list[str] | None:
    """Return the fields of a column of floats, or of whole numbers, written by pydantic-
    core in one call; None for any other column.

    ``repr`` of each float, and telling a column's types apart value by value, would be
    most of the cost of a CSV's text (14 metric columns). pydantic-core writes a
    list several times faster, with ``repr``'s text wherever ``repr`` writes plain decimals (zero
    and magnitudes from 1e-4 up to 1e16, both the shortest digits that read back the
    same: checked on millions of random bit patterns and decimals,
    tests/viewer/exports/test_index_exports.py) and ``str``'s of a whole number. Its
    text tells which column it was: none of ``_NOT_PLAIN``, no ``0.0000`` (a magnitude
    below 1e-4, which ``repr`` writes with an exponent), and a point in every field
    (floats) or in none (whole numbers). A subclass of float (NumPy's float64) would be
    written as its number where ``repr`` names its type: none reaches a column, whose
    values are parsed JSON, the index's ``tolist()`` or the view's ``float``/``int``."""
    try:
        text = to_json(values).decode()[1:-1]
    except Exception:  # a value pydantic-core does not write: the column value by value
        return None
    if any(mark in text for mark in _NOT_PLAIN) or "0.0000" in text:
        return None
    points = text.count(".")
    if points and points != len(values):  # floats and whole numbers mixed
        return None
    return text.split(",") if values else []


def _column_fields(values: list, safe: frozenset, quoted) -> list:
    """Return one column's CSV fields: a column of one type (floats, whole numbers, or
    texts that need no defusing) in one call over the column, any other value by value."""
    if type(values) is list and values and type(values[0]) in (float, int):
        fields = _number_fields(values)  # a metric's column, a count's
        if fields is not None:
            return fields
    kinds = set(map(type, values))
    if kinds == {float}:  # a metric's column with an exponent, NaN or an infinity
        return list(map(repr, values))
    if kinds == {int}:  # a count's column (not ``bool``: ``type`` is exact)
        return list(map(str, values))
    if kinds == {str} and {v[:1] for v in values} <= safe:
        # One look at the whole column for each character that makes a field quoted
        # (``str.__contains__`` of one character is a memchr; the regular expression
        # walked every character of a column of sequences).
        whole = "".join(values)
        if not any(mark in whole for mark in _QUOTE_MARKS):  # the usual text column
            return values
        if '"' not in whole and "\r" not in whole and "\n" not in whole:
            # Only commas (a column of chain lists): quoted as they are, nothing doubled.
            return ['"' + v + '"' if "," in v else v for v in values]
        return ['"' + v.replace('"', '""') + '"' if quoted(v) else v for v in values]
    return [repr(v) if type(v) is float
            else v if type(v) is str and v[:1] in safe and not quoted(v) else _field(v)
            for v in values]


def csv_text(columns_: list[list]) -> str:
    """Return the CSV text of a page's ``columns`` (at least two): the rows ``csv.writer``
    (comma, minimal quoting, ``\\r\\n``) writes of their ``cell_text``, made a column at a
    time: a float is its ``repr``, a text that neither needs defusing nor quoting is
    itself, anything else is looked at closely (``_field``)."""
    safe, quoted = _SAFE_FIRST, _QUOTED.search
    fields = [_column_fields(values, safe, quoted) for values in columns_]
    rows = "\r\n".join(map(",".join, zip(*fields, strict=True)))
    return rows + "\r\n" if rows else ""
