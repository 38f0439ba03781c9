"""What the exploration index keeps of one API result record (pure functions).

``index_values`` turns a record into the index's values: one per field of
``fields.FIELDS`` (metrics, ADME, computed chemistry, variant, external id, the designed
chain's length...), the warning codes and what ``q=`` searches;
``stored_record`` is the record kept for rendering a page of a sorted view: everything but
the artifact URLs, which expire within minutes (result pages and downloads always ask the
API for fresh ones).

``smiles`` and the computed chemistry (``chem.properties``: weight, cLogP, TPSA, donors,
acceptors, rotatable bonds, Lipinski violations, QED) are set for small molecules; a
SMILES RDKit cannot read has none.

The protein columns (``proteins.columns``: ProtParam properties, liability counts) are
read from that same chain, for protein kinds.

``length`` is the residues of the first protein entity, the designed chain: the number the
table's Sequence column shows, so sorting by it orders what the visitor sees.

``extra_metrics`` holds the record's metrics the vocabulary does not know
(``extra_metrics.unknown_values``: valid keys, finite numbers, at most 32) as compact JSON,
or None; ``frame.build`` makes them columns. Metrics the vocabulary knows, ``ipsae_min``
included, have columns of their own.
"""

from __future__ import annotations

import numpy as np
from pydantic_core import to_json

from app import domain
from app.viewer.chem import properties
from app.viewer.core.records import is_number
from app.viewer.explore import extra_metrics
from app.viewer.explore.fields import of_group
from app.viewer.proteins import batch
from app.viewer.proteins import columns as protein_columns

# Read once: every record of an index goes through ``index_values``.
_METRIC_KEYS = tuple(field.key for field in of_group("metric"))
_ADME_KEYS = tuple((field.key, field.numeric) for field in of_group("adme"))
_CHEMISTRY_KEYS = tuple(field.key for field in of_group("chemistry"))
_NO_ADME = dict.fromkeys(key for key, _numeric in _ADME_KEYS)
_NO_CHEMISTRY = dict.fromkeys(_CHEMISTRY_KEYS)
_KNOWN_METRICS = frozenset(domain.METRICS)


def _number(value) -> float | None:
    # bool is an int subclass, never a metric value.
    return float(value) if type(value) in (int, float) else None


def warning_codes(record: dict) -> list[str]:
    """Return the record's warning codes, in order, without repeats."""
    codes: dict[str, None] = {}
    for warning in record.get("warnings") or []:
        code = str(warning.get("code") or "").strip()
        if code:
            codes.setdefault(code[:64], None)
    return list(codes)


def index_values(record: dict, proteins: dict | None = None) -> dict:
    """Return the index columns of one result record (``position`` is set by the caller).

    ``proteins``: the designed chain's protein columns when the caller computed them with
    the rest of its page (``proteins.batch.values_many``); else computed here.
    """
    metrics = record.get("metrics") or {}
    adme = record.get("adme") or {}
    entities = record.get("entities") or []
    codes = warning_codes(record)
    designed = next((e for e in entities if e.get("type") == "protein"), None)
    search = " ".join(str(part) for part in (
        record.get("id"), record.get("external_id"), record.get("smiles"),
        *(entity.get("value") for entity in entities),
    ) if part)
    values = {
        "result_id": str(record.get("id")),
        "created_at": record.get("created_at"),
        "external_id": _short(record.get("external_id"), 200),
        "variant": _short(record.get("type"), 32),
        "warning_codes": (";" + ";".join(codes) + ";" if codes else "")[:2000],
        "warning_count": len(record.get("warnings") or []),
        "search": search.lower(),
        # The table's Sequence column number (formatting.entity_summary): the first protein.
        "length": len(designed.get("value") or "") if designed else None,
    }
    if not isinstance(metrics, dict):
        metrics = {}
    # extra_metrics.number, inlined: a dozen metrics per record, every record of an index.
    for key in _METRIC_KEYS:
        value = metrics.get(key)
        values[key] = float(value) if is_number(value) else None
    # Every key known (the usual record): no unknown metrics, decided in one set operation.
    unknown = None if _KNOWN_METRICS.issuperset(metrics) \
        else extra_metrics.unknown_values(metrics)
    values["extra_metrics"] = to_json(unknown).decode() if unknown else None
    if adme:
        for key, numeric in _ADME_KEYS:  # numbers, and the solubility class as text
            value = adme.get(key)
            values[key] = _number(value) if numeric else _short(value, 32)
    else:
        values.update(_NO_ADME)
    smiles = record.get("smiles")
    values["smiles"] = smiles if isinstance(smiles, str) and smiles else None
    if values["smiles"] is None:
        values.update(_NO_CHEMISTRY)
    else:  # computed once per distinct SMILES (cached): a set drawn from a pool costs little
        chemistry = properties.compute(values["smiles"]) or {}
        for key in _CHEMISTRY_KEYS:
            values[key] = chemistry.get(key)
    # The designed chain's properties and liabilities (cached per distinct sequence).
    sequence = designed.get("value") if designed else None
    values.update(proteins if proteins is not None else protein_columns.values(sequence))
    return values


def _short(value, size: int) -> str | None:
    return None if value is None else str(value)[:size]


def stored_record(record: dict) -> str:
    """Return the record as kept in the index: JSON without the artifacts' URLs.

    The roles stay (``{"structure": {}}``) so that a page can still tell which files a
    result has.
    """
    kept = dict(record)  # a copy in C; ``artifacts`` moved last, as the JSON keeps it
    artifacts = kept.pop("artifacts", None)
    kept["artifacts"] = {role: {} for role in (artifacts or {})}
    # pydantic-core's serializer: the same compact JSON several times faster than json's.
    return to_json(kept).decode()


_FLOAT_OR_NONE = frozenset((float, type(None)))


def _metric_column(values: list) -> list[float | None]:
    """Return ``index_values``' metric values of one column: each a float if a finite
    number (bool is not one), else None. A column of finite floats and Nones only (the
    usual one) is checked at once and kept as it is (``float`` of a float is itself)."""
    if _FLOAT_OR_NONE.issuperset(map(type, values)):
        finite = np.isfinite(np.array(values, dtype=np.float64))  # None reads as NaN
        if len(values) - int(np.count_nonzero(finite)) == values.count(None):
            return values
    return [float(v) if is_number(v) else None for v in values]


def page_rows(records: list[dict], position: int
              ) -> tuple[dict[str, list], list[tuple[str, str]]]:
    """Return one API page's index columns (``index_values``' keys and ``position``,
    numbered from ``position``: a list per key, a value per record) and its (result id,
    stored record) pairs.

    Column by column, the same values as ``index_values`` record by record: a list built
    per key costs a fraction of a dict built per record, and the store's insert and the
    frame both read columns."""
    ids, searches, codes_column, counts, lengths = [], [], [], [], []
    sequences = []
    for record in records:
        get = record.get
        entities = get("entities") or []
        warnings = get("warnings")
        codes = warning_codes(record) if warnings else []
        designed = None  # the first protein entity
        values = []
        for entity in entities:
            if designed is None and entity.get("type") == "protein":
                designed = entity
            values.append(entity.get("value"))
        rid = get("id")
        ids.append(str(rid))
        searches.append(" ".join([str(part) for part in (
            rid, get("external_id"), get("smiles"), *values) if part]).lower())
        codes_column.append((";" + ";".join(codes) + ";" if codes else "")[:2000])
        counts.append(len(warnings or []))
        # ``designed_sequence``'s chain: every entity before it was read as a dict above.
        chain = designed.get("value") if designed else None
        lengths.append(len(chain or "") if designed else None)
        sequences.append(chain if isinstance(chain, str) else None)
    columns: dict[str, list] = {
        "result_id": ids,
        "created_at": [r.get("created_at") for r in records],
        "external_id": [_short(r.get("external_id"), 200) for r in records],
        "variant": [_short(r.get("type"), 32) for r in records],
        "warning_codes": codes_column, "warning_count": counts, "search": searches,
        "length": lengths,
    }
    metrics = [m if isinstance(m := r.get("metrics") or {}, dict) else {} for r in records]
    for key in _METRIC_KEYS:
        columns[key] = _metric_column([m.get(key) for m in metrics])
    unknown = [None if _KNOWN_METRICS.issuperset(m) else extra_metrics.unknown_values(m)
               for m in metrics]
    columns["extra_metrics"] = [to_json(u).decode() if u else None for u in unknown]
    adme = [r.get("adme") or {} for r in records]
    # A page without ADME or SMILES (a protein page) has those columns empty: None each.
    some = any(adme)
    for key, numeric in _ADME_KEYS:  # numbers, and the solubility class as text
        columns[key] = [None if not a else _number(a.get(key)) if numeric
                        else _short(a.get(key), 32) for a in adme] if some \
            else [None] * len(records)
    smiles = [s if isinstance(s := r.get("smiles"), str) and s else None for r in records]
    columns["smiles"] = smiles
    some = smiles.count(None) != len(smiles)
    chemistry = [(properties.compute(s) or {}) if s is not None else {} for s in smiles] \
        if some else []
    for key in _CHEMISTRY_KEYS:
        columns[key] = [c.get(key) for c in chemistry] if some else [None] * len(records)
    # The page's designed chains at once: a third of Biopython's time per chain.
    columns.update(batch.columns_many(sequences))
    columns["position"] = list(range(position, position + len(records)))
    stored = [(rid, stored_record(record)) for rid, record in zip(ids, records, strict=True)]
    return columns, stored
