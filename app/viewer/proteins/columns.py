"""A protein result's computed index columns: ProtParam properties and liability counts.

Read from the designed chain, the record's first protein entity (the chain the table's
Sequence column and ``length`` describe), up to ``liabilities.MAX_RESIDUES`` letters.
``values`` is cached per distinct sequence: an index build or a table page asks
Biopython once per sequence, not per row or request.
"""

from __future__ import annotations

from functools import lru_cache

from app.viewer.proteins import liabilities, properties

# Per-liability site counts, stored as index columns under these names (prefixed: a
# result's own metric named "oxidation" must never collide with them).
# The designed chain's computed properties (Biopython ProtParam, ``properties``)
# and its sequence liabilities (``liabilities``): columns, filters and plots of
# protein kinds. (key, label, unit, description, descending first)
FIELD_SPECS = (
    ("protein_weight", "Molecular weight", "Da", "Average mass of the designed chain "
     "(Biopython ProtParam; standard residues only).", True),
    ("isoelectric_point", "pI", "", "Isoelectric point of the designed chain "
     "(Biopython ProtParam, Bjellqvist pK values).", False),
    # The unit of a charge is the elementary charge; the pH is the condition it holds at.
    ("net_charge", "Net charge", "e", "Net charge of the designed chain at pH "
     f"{properties.NET_CHARGE_PH:g}, in elementary charges (e) (Biopython ProtParam).",
     False),
    ("gravy", "GRAVY", "", "Grand average of hydropathy (Kyte-Doolittle): above 0 is "
     "hydrophobic.", False),
    ("instability_index", "Instability index", "", "Guruprasad's instability index: above "
     "40 predicts an unstable protein.", False),
    ("extinction_coefficient", "Extinction coeff.", "M⁻¹cm⁻¹",
     "Molar extinction coefficient at 280 nm with cystines formed (oxidised).", True),
    ("liability_count", "Liabilities", "sites", "Sequence liability sites of the designed "
     "chain: N-glycosylation (N-X-S/T), deamidation (NG, NS), isomerisation (DG, DS), an "
     "odd cysteine, and M/W oxidation where the structure shows them exposed (not the "
     "initiator Met 1). Provisional (marked) until the structure is read: oxidation is "
     "then not yet counted.", False),
)


LIABILITY_COLUMNS = {name: f"liability_{name}" for name in liabilities.LIABILITIES}
KEYS = (*properties.KEYS, "liability_count", *LIABILITY_COLUMNS.values())


def designed_sequence(record: dict) -> str | None:
    """Return the sequence of the record's first protein entity, or None."""
    for entity in record.get("entities") or []:
        if isinstance(entity, dict) and entity.get("type") == "protein":
            value = entity.get("value")
            return value if isinstance(value, str) else None
    return None


def values(sequence: object) -> dict[str, float | int | None]:
    """Return every key of ``KEYS`` for ``sequence`` (all None without a sequence).

    The liability columns are ``liabilities.assess(sequence)``: ``liability_count`` its
    total, one column per liability its count. Oxidation needs the structure (exposed M/W
    only): ``liability_oxidation`` is None here, which marks the total provisional, until
    the epitope scan has read the design's structure file (``app.viewer.epitope``;
    ``store.epitopes.save`` fills it in and adds it to the total).
    """
    if not isinstance(sequence, str) or not sequence:
        return dict.fromkeys(KEYS)
    # Capped before the cache: its keys stay small whatever a record holds (4,096 of
    # 5,000 letters at most: ~20 MB in the worst case).
    return dict(_values(sequence[:liabilities.MAX_RESIDUES]))


@lru_cache(maxsize=4096)
def _values(sequence: str) -> tuple[tuple[str, float | int | None], ...]:
    out: dict[str, float | int | None] = dict.fromkeys(properties.KEYS)
    out.update(properties.compute(sequence) or {})
    assessment = liabilities.assess(sequence)  # oxidation: None until the structure is read
    out["liability_count"] = assessment.total
    out.update({LIABILITY_COLUMNS[name]: n for name, n in assessment.counts.items()})
    return tuple(out.items())
