"""What a share read's records are, recognised from the fields the SDK declares alone.

The compute API's share read (``GET /compute/v1/share/{id}``, the SDK's
``ShareLinkReadResponse``) carries the full run record of each pipeline and the full record
of each prediction, and no word of ours (no ``kind``, ``result_count``, ``name`` or
``application``). So the viewer works out what each one is:

- a pipeline's kind from ``pipeline`` and ``pipeline_version`` (else the deprecated
  ``engine`` and ``engine_version``), and where one pipeline serves several kinds, from the
  shape of ``progress`` and ``input``:

  ===========================  ============  ===========================================
  pipeline                     version       kind
  ===========================  ============  ===========================================
  ``boltz-protein-redesign``   v2026-03-01   protein_redesign
  ``boltz-protein-redesign``   v2026-07-14   protein_sequence_redesign
  ``boltzprot``                1.0           protein_library_screen when progress has
                                             ``num_proteins_screened`` (or input
                                             ``proteins``), else protein_design
  ``boltzmol``                 1.0           small_molecule_explore when progress has
                                             ``num_molecules_scored`` or ``phase`` (or
                                             input ``library``/``budget``);
                                             small_molecule_library_screen when it has
                                             ``num_molecules_screened`` (or input
                                             ``molecules``); else small_molecule_design
  ===========================  ============  ===========================================

  Any other pipeline or version is an ``UnknownKind``: a plain kind with no metrics of its
  own, whose pages list the record's fields and its results as a generic table. So is a
  ``boltzprot``/``boltzmol`` run whose data retention deleted (``data_deleted_at``,
  ``input`` null) when its ``progress`` is null too: nothing tells its kind, and a guess
  would name the wrong one (our API keeps a stub's progress, so this is rare).
- a prediction's type from ``model``: ``boltz-2.1`` is structure_and_binding, ``adme-v1``
  is adme, anything else unknown (None).
- a pipeline's result count from ``progress`` (``num_*_generated``, ``num_*_screened`` or
  ``num_molecules_scored``), and the freshness of an exploration index from
  (``progress.latest_result_id``, ``status``, that count).

Pure functions over plain dicts (what the API client returns): no Flask, no HTTP.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from app import domain

UNKNOWN = "unknown"

# (pipeline, version) -> kind, for pipelines whose version alone names the kind.
_BY_VERSION = {
    ("boltz-protein-redesign", "v2026-03-01"): "protein_redesign",
    ("boltz-protein-redesign", "v2026-07-14"): "protein_sequence_redesign",
}
# Prediction ``model`` -> prediction type (the application keys of ``domain.APPLICATIONS``).
PREDICTION_MODELS = {"boltz-2.1": "structure_and_binding", "adme-v1": "adme"}

# Progress counters of results produced so far, in the order they are looked for.
COUNT_FIELDS = ("num_proteins_generated", "num_proteins_screened",
                "num_molecules_generated", "num_molecules_screened",
                "num_molecules_scored")
# Any other pipeline's counter of results produced (a type this viewer does not know yet).
_ANY_COUNT = re.compile(r"num_[a-z_]+_(generated|screened|scored)")


@dataclass(frozen=True)
class UnknownKind(domain.Kind):
    """A pipeline type or version this viewer does not know.

    A plain protein-family kind without metrics of its own (the results table shows the
    metrics its records carry), labelled after the record's ``pipeline`` and version.
    """

    pipeline: str = ""
    version: str = ""


def _text(value: object) -> str:
    """Return ``value`` as text ("" for None)."""
    return "" if value is None else str(value)


def _mapping(value: object) -> dict:
    """Return ``value`` if it is a dict, else an empty one."""
    return value if isinstance(value, dict) else {}


def pipeline_and_version(record: dict) -> tuple[str, str]:
    """Return the record's ``pipeline`` and ``pipeline_version`` (else ``engine``'s)."""
    name = _text(record.get("pipeline") or record.get("engine"))
    version = _text(record.get("pipeline_version") or record.get("engine_version"))
    return name, version


def pipeline_kind_key(record: dict) -> str | None:
    """Return the ``domain.KINDS`` key of a pipeline run record, or None if unknown."""
    name, version = pipeline_and_version(record)
    if (name, version) in _BY_VERSION:
        return _BY_VERSION[(name, version)]
    progress, given = _mapping(record.get("progress")), _mapping(record.get("input"))
    if not (progress or given) and record.get("data_deleted_at"):
        return None  # a deleted run of a shared pipeline name: nothing says which kind
    if (name, version) == ("boltzprot", "1.0"):
        if "num_proteins_screened" in progress or "proteins" in given:
            return "protein_library_screen"
        return "protein_design"
    if (name, version) == ("boltzmol", "1.0"):
        if ("num_molecules_scored" in progress or "phase" in progress
                or "library" in given or "budget" in given):
            return "small_molecule_explore"
        if "num_molecules_screened" in progress or "molecules" in given:
            return "small_molecule_library_screen"
        return "small_molecule_design"
    return None


def unknown_kind(record: dict) -> UnknownKind:
    """Return the plain kind of a pipeline record of a type or version we do not know."""
    name, version = pipeline_and_version(record)
    shown = " ".join(part for part in (name, version) if part) or "unnamed"
    return UnknownKind(
        UNKNOWN, f"Pipeline {shown}",
        "A pipeline type this viewer does not know: its fields are listed as the API "
        "sent them.", "protein", (), pipeline=name, version=version)


def pipeline_kind(record: dict) -> domain.Kind:
    """Return the kind of a pipeline run record (an ``UnknownKind`` if not recognised)."""
    key = pipeline_kind_key(record)
    return domain.KINDS[key] if key else unknown_kind(record)


def is_known(kind: domain.Kind) -> bool:
    """Tell whether ``kind`` is one of the seven the viewer knows (not an UnknownKind)."""
    return not isinstance(kind, UnknownKind) and kind.key in domain.KINDS


def result_count(record: dict) -> int | None:
    """Return how many results a pipeline has produced so far, from its ``progress``.

    None when the record says nothing about it (no progress yet, or a type whose progress
    has no ``num_*_generated``/``screened``/``scored`` counter).
    """
    progress = _mapping(record.get("progress"))
    for key in COUNT_FIELDS:
        if type(progress.get(key)) is int:
            return progress[key]
    for key, value in progress.items():
        if _ANY_COUNT.fullmatch(str(key)) and type(value) is int:
            return value
    return None


def latest_result_id(record: dict) -> str | None:
    """Return ``progress.latest_result_id`` of a pipeline record, or None."""
    value = _mapping(record.get("progress")).get("latest_result_id")
    return str(value) if value else None


class Freshness(NamedTuple):
    """What an exploration index must match to be current: the API's latest result id,
    the pipeline's status and its result count (None: the API gives none, see
    ``freshness``)."""

    latest_result_id: str | None
    status: str
    count: int | None


def freshness(record: dict) -> Freshness:
    """Return the (latest result id, status, count) of a pipeline record: the one reading
    of it that the index's builder and its "current" check compare.

    The count is ``result_count``; a kind the viewer knows whose record has no count yet
    (no progress) has 0, a kind it does not know None (its progress may name its count in
    a way the viewer cannot read, so only the latest id and the status tell).
    """
    count = result_count(record)
    if count is None and is_known(pipeline_kind(record)):
        count = 0
    return Freshness(latest_result_id(record), _text(record.get("status")), count)


def prediction_type(record: dict) -> str | None:
    """Return a prediction's type from its ``model`` (``structure_and_binding``, ``adme``),
    or None for a model the viewer does not know."""
    return PREDICTION_MODELS.get(_text(record.get("model")))


def prediction_label(record: dict) -> str:
    """Return what a prediction is called: its type's label, else its model's name."""
    known = prediction_type(record)
    if known:
        return domain.APPLICATIONS[known]
    model = _text(record.get("model"))
    return f"Prediction ({model})" if model else "Prediction"
