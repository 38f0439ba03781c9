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

from pydantic_core import to_json

from app.viewer.chem import properties
from app.viewer.proteins import columns as protein_columns
from app.viewer.results import extra_metrics
from app.viewer.results.fields import of_group

# Read once: every record of an index goes through ``index_values``.
_METRICS, _ADME, _CHEMISTRY = of_group("metric"), of_group("adme"), of_group("chemistry")


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
    for field in _METRICS:
        values[field.key] = extra_metrics.number(metrics.get(field.key))
    unknown = extra_metrics.unknown_values(metrics)
    values["extra_metrics"] = to_json(unknown).decode() if unknown else None
    for field in _ADME:  # numbers, and the solubility class as text
        value = adme.get(field.key)
        values[field.key] = _number(value) if field.numeric else _short(value, 32)
    smiles = record.get("smiles")
    values["smiles"] = smiles if isinstance(smiles, str) and smiles else None
    # Computed once per distinct SMILES (cached): a set drawn from a pool costs little.
    chemistry = properties.compute(values["smiles"]) or {}
    for field in _CHEMISTRY:
        values[field.key] = chemistry.get(field.key)
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
    kept = {key: value for key, value in record.items() if key != "artifacts"}
    kept["artifacts"] = {role: {} for role in (record.get("artifacts") or {})}
    # pydantic-core's serializer: the same compact JSON several times faster than json's.
    return to_json(kept).decode()
