"""Two results of a pipeline compared in 3D: each side, and how B is fitted onto A.

A ``Side`` is one result as the compare page shows it. ``fit`` superposes B onto A on
their target chain (``superpose.fit_on_chain``, Kabsch on the CA atoms), falling back to
the first chain both have, then measures how far each binder chain of B lies from A's
with that fit (``superpose.rmsd_after``): how differently the two binders sit.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.viewer.structure import superpose
from app.viewer.structure.model import Model
from app.viewer.structure.roles import Role, result_roles


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

    @property
    def roles(self) -> dict[str, Role]:
        """Return {auth chain id: role} of this result."""
        return result_roles(self.record, self.pipeline)

    @property
    def binder_chains(self) -> set[str]:
        """Return the auth ids of the binder or designed chains (drawn strong)."""
        return {chain for chain, role in self.roles.items() if role.is_binder}


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
