"""The chains of a result as tables name them: designed binder, target, ligand...

``result_chain_labels(record, pipeline)`` joins what the run's input says
(``chains.chain_parts``) with the chains' roles (``roles.result_roles``). It lives apart
from ``chains`` because ``roles`` reads ``chains``: this module depends on both, neither
on it.
"""

from __future__ import annotations

from app.viewer.provenance.chains import BINDER_PART, DESIGNED_PART, chain_parts
from app.viewer.provenance.roles import Role, result_roles
from app.viewer.provenance.values import as_dict


def result_chain_labels(record, pipeline=None) -> dict[str, str]:
    """Return {chain id: label} of a result's chains, designed vs fixed, for tables.

    "Designed binder" / "Designed" for the chains the run's input designs, "Screened
    binder" for a library protein beside the target, "Target (fixed)", "Ligand (fixed)",
    "Fixed" otherwise. The roles are ``roles.result_roles`` (input first, the
    old guess without one).
    """
    parts = chain_parts(pipeline) if pipeline else {}
    labels = {}
    for chain, role in result_roles(as_dict(record), as_dict(pipeline) or None).items():
        designed = parts.get(chain) in (BINDER_PART, DESIGNED_PART) or (
            not parts and role in (Role.BINDER, Role.DESIGNED))
        if role is Role.BINDER:
            labels[chain] = "Designed binder" if designed else "Screened binder"
        elif role is Role.DESIGNED:
            labels[chain] = "Designed"
        elif role is Role.TARGET:
            labels[chain] = "Target (fixed)"
        elif role is Role.LIGAND:
            labels[chain] = "Ligand (fixed)"
        else:
            labels[chain] = "Fixed"
    return labels
