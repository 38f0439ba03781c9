"""ProtParam properties of a designed chain with Biopython (pure: no Flask, no I/O).

``compute`` returns the index's protein columns for one sequence: molecular weight (Da,
average masses), isoelectric point, net charge at pH 7.4, GRAVY (Kyte-Doolittle), the
instability index (Guruprasad) and the molar extinction coefficient at 280 nm **with
cystines formed** (oxidised: W, Y and C pairs; Biopython's second value). Biopython's
``ProteinAnalysis`` reads the 20 standard residues only, so the sequence is cleaned first:
upper case, other letters (X, B, Z, U, O, digits, gaps) dropped, at most ``MAX_RESIDUES``.
Nothing left: None. Answers are cached per distinct sequence (a design set repeats few).
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

from Bio.SeqUtils.ProtParam import ProteinAnalysis

from app.viewer.proteins.liabilities import MAX_RESIDUES

KEYS = ("protein_weight", "isoelectric_point", "net_charge", "gravy",
        "instability_index", "extinction_coefficient")
NET_CHARGE_PH = 7.4
_NOT_STANDARD = re.compile(r"[^ACDEFGHIKLMNPQRSTVWY]+")


def cleaned(sequence: object) -> str:
    """Return the standard residues of ``sequence`` (upper case, capped), "" if none."""
    if not isinstance(sequence, str):
        return ""
    # Cap before and after: a hostile string is never scanned past a bounded prefix.
    return _NOT_STANDARD.sub("", sequence[:4 * MAX_RESIDUES].upper())[:MAX_RESIDUES]


def compute(sequence: object) -> dict[str, float] | None:
    """Return the properties of ``sequence`` (keys ``KEYS``), or None when no standard
    residue remains."""
    text = cleaned(sequence)
    return dict(_compute(text)) if text else None


@lru_cache(maxsize=4096)
def _compute(text: str) -> tuple[tuple[str, float], ...]:
    analysis = ProteinAnalysis(text)
    values = {
        "protein_weight": analysis.molecular_weight(),
        "isoelectric_point": analysis.isoelectric_point(),
        "net_charge": analysis.charge_at_pH(NET_CHARGE_PH),
        "gravy": analysis.gravy(),
        # The instability index reads dipeptides: a one-residue chain has none.
        "instability_index": analysis.instability_index() if len(text) > 1 else None,
        "extinction_coefficient": float(analysis.molar_extinction_coefficient()[1]),
    }
    return tuple((key, round(value, 4) if value is not None and math.isfinite(value)
                  else None) for key, value in values.items())
