"""Which sample of a structure-and-binding prediction is best at each metric.

The API names one best sample (``output.best_sample``, ``predictions.samples`` marks it);
a reader comparing samples side by side also wants to see, per metric, which sample
scores best by that metric's own direction (``domain.metric(key).direction``: ipTM
higher, PDE lower). Pure: tested on plain ``Sample`` lists.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from app import domain
from app.viewer.core.records import is_number


class _Sample(Protocol):
    number: int
    metrics: dict


def _finite(value: object) -> float | None:
    """Return ``value`` as a float if it is a finite number a float holds
    (``records.is_number``), else None."""
    return float(value) if is_number(value) else None


def best_by_metric(samples: Iterable[_Sample], keys: Iterable[str]) -> dict[str, set[int]]:
    """Return, per metric key, the numbers of the samples with its best value.

    Only metrics with a better direction and at least two samples reporting a number are
    judged (one value is best of nothing); ties mark every sample that reaches the best.
    """
    found = list(samples)
    best: dict[str, set[int]] = {}
    for key in keys:
        direction = domain.metric(key).direction
        values = {s.number: v for s in found
                  if (v := _finite((s.metrics or {}).get(key))) is not None}
        if direction is None or len(values) < 2:
            continue
        top = max(values.values()) if direction == "higher" else min(values.values())
        best[key] = {number for number, value in values.items() if value == top}
    return best
