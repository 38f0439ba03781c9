"""Metrics that result records carry beyond their kind's: found in the data, bounded.

Records may hold metrics their kind does not list: a metric of the vocabulary that is
optional (``ipsae_min`` on protein results: ``app.domain.METRICS``, a column of the index
like every known metric) or a key the vocabulary does not know at all (``foo_score``).
Both are shown, sorted, filtered, plotted and exported like the kind's own metrics, under
the vocabulary's label or, for an unknown key, a label made from the key
(``domain.metric``: no unit, no better direction, no shading).

Records come from the API, which may send anything, so only some keys count:

- a key matches ``KEY`` (a letter, then letters, digits and single underscores, at most 64
  characters): safe in a URL, a CSS class, a CSV header and a NumPy file without escaping;
- it is not the name of another explorable field or index column (``length``, ``qed``,
  ``result_id``...), which a query could not tell apart;
- its value is a finite number (not a bool); anything else is ignored;
- at most ``MAX_EXTRA`` unknown keys per record and per pipeline: the first ones met, in
  the API's order (a record with a thousand keys cannot make a thousand columns).

While indexing, ``unknown_values`` gives each row its unknown metrics (kept as JSON beside
the row's values); ``frame.build`` collects them into columns (the pipeline's first
``MAX_EXTRA`` keys) and the saved frame keeps them, so the discovered set is stored with
the index and ``present`` reads it back. A page served from the API without a ready index
shows the metrics of its own records (``of_records``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping

from app import domain
from app.viewer.chem import properties
from app.viewer.proteins import columns as protein_columns

KEY = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
MAX_EXTRA = 32
# Names a query or the index already uses for something else than a metric: the other
# explorable fields (``fields.FIELDS``, which imports this module; a test pins that every
# one of its keys is here), the index's columns and the table's other column keys.
TAKEN = frozenset({
    *domain.ADME_FIELDS, *properties.PROPERTIES, "id", "created_at", "length", "variant",
    "external_id", "result_id", "position", "search", "smiles", "warning_count",
    "warning_codes", "pipeline_id", "extra_metrics", "sequence", "warnings", "type",
    "adme", "metrics", *protein_columns.KEYS,
})


def number(value: object) -> float | None:
    """Return ``value`` as a float if it is a finite number (never a bool), else None."""
    if type(value) not in (int, float):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def is_key(key: object) -> bool:
    """Whether ``key`` may name a metric beyond a kind's (module docstring)."""
    return (isinstance(key, str) and KEY.fullmatch(key) is not None and "__" not in key
            and key not in TAKEN)


def is_unknown_key(key: object) -> bool:
    """Whether ``key`` may name a metric that the vocabulary does not know."""
    return is_key(key) and key not in domain.METRICS


def unknown_values(metrics: object) -> dict[str, float]:
    """Return a record's unknown metrics (valid keys, finite numbers), at most ``MAX_EXTRA``."""
    found: dict[str, float] = {}
    if not isinstance(metrics, Mapping):
        return found
    for key, value in metrics.items():
        if len(found) >= MAX_EXTRA:
            break
        if key in domain.METRICS:
            continue  # the usual case, decided without the pattern (every record passes)
        checked = number(value)
        if checked is not None and is_unknown_key(key):
            found[key] = checked
    return found


def ordered(kind: domain.Kind, known: Iterable[str], unknown: Iterable[str]
            ) -> tuple[str, ...]:
    """Return the extra metric keys in table order: the vocabulary's (in its order), then
    the unknown ones by name; the kind's own metrics are left out."""
    known_set, own = set(known), set(kind.metrics)
    first = [key for key in domain.METRICS if key in known_set and key not in own]
    rest = sorted(key for key in set(unknown) if is_unknown_key(key))[:MAX_EXTRA]
    return (*first, *rest)


def of_records(kind: domain.Kind, records: Iterable[dict]) -> tuple[str, ...]:
    """Return the metrics beyond ``kind``'s that these records carry (a page of the API)."""
    known: set[str] = set()
    unknown: dict[str, None] = {}
    for record in records:
        metrics = record.get("metrics") if isinstance(record, Mapping) else None
        if not isinstance(metrics, Mapping):
            continue
        known.update(key for key, value in metrics.items()
                     if key in domain.METRICS and number(value) is not None)
        for key in unknown_values(metrics):
            if len(unknown) < MAX_EXTRA:
                unknown.setdefault(key, None)
    return ordered(kind, known, unknown)


def merged(kind: domain.Kind, *key_sets: Iterable[str]) -> tuple[str, ...]:
    """Return the union of several extra-metric key sets, in table order, bounded."""
    keys = {key for keys in key_sets for key in keys}
    return ordered(kind, (k for k in keys if k in domain.METRICS),
                   (k for k in keys if k not in domain.METRICS))

