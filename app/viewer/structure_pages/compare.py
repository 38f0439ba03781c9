"""Two results of a pipeline compared: each side, their metrics side by side, and how B is
fitted onto A in 3D.

A ``Side`` is one result as the compare page shows it. ``metric_rows`` sets their metrics
side by side and says which value is better, by the metric's ``direction`` (none for a
metric without one, such as the secondary-structure fractions, or for values equal at the
precision shown). ``fit`` superposes B onto A on
their target chain (``superpose.fit_on_chain``, Kabsch on the CA atoms), falling back to
the first chain both have, then measures how far each binder chain of B lies from A's
with that fit (``superpose.rmsd_after``): how differently the two binders sit.
"""

from __future__ import annotations

from dataclasses import dataclass

from app import domain
from app.viewer.provenance.roles import Role, result_roles
from app.viewer.structure import superpose
from app.viewer.structure.model import Model


@dataclass(frozen=True)
class Side:
    """One compared result: its record, its structure file's same-origin URL and format,
    and the model read from it (None when the file is too big or unreadable)."""

    result_id: str
    record: dict
    url: str
    format: str  # "mmcif" or "pdb"
    model: Model | None
    pipeline: dict | None = None  # the run record: roles from its input when known
    label: str = ""  # the name a person reads (explore.labels), "" before it is known

    @property
    def roles(self) -> dict[str, Role]:
        """Return {auth chain id: role} of this result."""
        return result_roles(self.record, self.pipeline)

    @property
    def binder_chains(self) -> set[str]:
        """Return the auth ids of the binder or designed chains (drawn strong)."""
        return {chain for chain, role in self.roles.items() if role.is_binder}


@dataclass(frozen=True)
class MetricRow:
    """One metric of both sides: its key, A's and B's value, and the better side."""

    key: str
    values: tuple[object, object]  # None where a side lacks the metric
    better: int | None  # 0 (A), 1 (B), or None: no direction, equal, or a value missing


def metric_rows(first: Side, second: Side, kind: domain.Kind) -> list[MetricRow]:
    """Return the metrics either side has, the kind's order first, with the better marked."""
    metrics = [side.record.get("metrics") or {} for side in (first, second)]
    present = [key for found in metrics for key in found]
    ordered = [k for k in kind.metrics if k in present]
    keys = list(dict.fromkeys(ordered + present))
    return [MetricRow(key, (metrics[0].get(key), metrics[1].get(key)),
                      _better(key, metrics[0].get(key), metrics[1].get(key)))
            for key in keys]


def _better(key: str, a: object, b: object) -> int | None:
    metric = domain.metric(key)
    numbers = all(type(v) in (int, float) for v in (a, b))
    if metric.direction is None or not numbers:
        return None
    # Equal as shown (the table's decimals) is equal: no mark on 0.812 against 0.812.
    shown_a, shown_b = round(a, metric.decimals), round(b, metric.decimals)
    if shown_a == shown_b:
        return None
    higher_wins = metric.direction == "higher"
    return 0 if (shown_a > shown_b) == higher_wins else 1


@dataclass(frozen=True)
class Comparison:
    """How B was fitted onto A, and how far each binder chain then lies from A's."""

    fit: superpose.Fit
    chain: str  # auth id of the chain the fit used
    on_target: bool
    binders: tuple[tuple[str, float, int], ...]  # (auth chain, RMSD in Å, CA pairs)


def fit(first: Side, second: Side) -> Comparison | None:
    """Fit B onto A on the target chain (else the first shared chain), then measure binders.

    None when either model is missing or no shared chain has 3 residues that pair up.
    The roles are A's: the two results come from one pipeline, so they agree.
    """
    model_a, model_b = first.model, second.model
    if model_a is None or model_b is None:
        return None
    roles = first.roles
    shared = [c for c in model_a.chains if c in model_b.chains]
    role = {c: roles.get(model_a.auth.get(c, c)) for c in shared}
    targets = [c for c in shared if role[c] is Role.TARGET]
    for chain in targets + shared:
        found = superpose.fit_on_chain(model_a.ca, model_b.ca, chain, chain)
        if found is None:
            continue
        binders = []
        for other in shared:
            if other != chain and role[other] is not None and role[other].is_binder:
                measured = superpose.rmsd_after(found, model_a.ca, model_b.ca, other, other)
                if measured is not None:
                    binders.append((model_a.auth.get(other, other), *measured))
        return Comparison(found, model_a.auth.get(chain, chain), chain in targets,
                          tuple(binders))
    return None
