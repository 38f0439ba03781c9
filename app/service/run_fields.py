"""A run's stored ``progress`` and ``error``, read into the SDK's shapes without trusting them.

The engine writes these JSON columns; the API reads them back for every run record (a
run's retrieve, the runs lists, a share read). One run's malformed column must not break
the answers that list it beside other runs, so each is read field by field:

- ``progress``: a stored value that is not an object reads as no stored progress; a
  stored field that does not validate as its SDK type (a list where a count belongs, a
  ``phase`` the SDK does not name, a malformed ``rejection_summary``) reads as if it were
  not stored: its default (see ``build_progress``), or omitted when optional.
- ``error``: a stored object with a string ``code`` and ``message`` is served as stored;
  any other non-null value (a list, a string, an object missing either) is served as
  ``UNREADABLE_ERROR`` with whichever of ``code`` and ``message`` were readable text, so
  a failed run still says it failed.

Each such reading is logged as a warning naming the run and the fields, never their
values (they are the customer's data).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from app.service.wire import omitted_if_none

log = logging.getLogger(__name__)

# The code and message of a stored error that is not an error record.
UNREADABLE_ERROR = "unreadable_error"
UNREADABLE_MESSAGE = "The run's stored error could not be read."


class RunError(BaseModel):
    """Why a run or prediction failed."""

    code: str = Field(description="Machine-readable error code.")
    message: str = Field(description="Human-readable message.")
    details: Any = omitted_if_none("Further details; omitted when there are none.")


def run_error(stored: Any, run_id: str) -> RunError | None:
    """Return a run's stored ``error`` as a ``RunError`` (None when there is none).

    A stored value that is not an error record becomes ``UNREADABLE_ERROR`` keeping its
    readable ``code``, ``message`` and ``details`` (see the module docstring).
    """
    if stored is None:
        return None
    try:
        return RunError.model_validate(stored)
    except ValidationError:
        pass
    fields = stored if isinstance(stored, Mapping) else {}
    code, message = fields.get("code"), fields.get("message")
    log.warning("run %s: stored error is not an error record (%s); served as %s",
                run_id, type(stored).__name__, UNREADABLE_ERROR)
    return RunError(code=code if isinstance(code, str) else UNREADABLE_ERROR,
                    message=message if isinstance(message, str) else UNREADABLE_MESSAGE,
                    details=fields.get("details"))


_LATEST = omitted_if_none("Id of the newest result; omitted while the run has none.")


class DesignProgress(BaseModel):
    """Progress of a protein design, redesign or sequence redesign run."""

    num_proteins_generated: int
    total_proteins_to_generate: int
    latest_result_id: str | None = _LATEST


class ProteinScreenProgress(BaseModel):
    """Progress of a protein library screen."""

    num_proteins_failed: int
    num_proteins_screened: int
    total_proteins_to_screen: int
    latest_result_id: str | None = _LATEST


class MoleculeDesignProgress(BaseModel):
    """Progress of a small-molecule design run."""

    num_molecules_generated: int
    total_molecules_to_generate: int
    latest_result_id: str | None = _LATEST


class ScreenRejections(BaseModel):
    """Library molecules rejected before screening."""

    filtered_count: int
    invalid_count: int


class MoleculeScreenProgress(BaseModel):
    """Progress of a small-molecule library screen."""

    num_molecules_failed: int
    num_molecules_screened: int
    total_molecules_to_screen: int
    latest_result_id: str | None = _LATEST
    rejection_summary: ScreenRejections | None = omitted_if_none(
        "Molecules rejected before screening; omitted when not reported.")


class ExploreRejections(BaseModel):
    """Library molecules rejected before exploring."""

    duplicate_count: int
    filtered_count: int
    invalid_count: int


class MoleculeExploreProgress(BaseModel):
    """Progress of a small-molecule explore run."""

    num_molecules_failed: int
    num_molecules_scored: int
    phase: Literal["preparing_library", "building_graph", "scoring"]
    total_molecules_to_score: int
    latest_result_id: str | None = _LATEST
    library_size: int | None = omitted_if_none("Molecules in the library; omitted when "
                                               "not reported.")
    rejection_summary: ExploreRejections | None = omitted_if_none(
        "Molecules rejected before exploring; omitted when not reported.")


def _defaults(model: type[BaseModel], count: int) -> dict[str, Any]:
    """Return the values ``model``'s fields take when the stored progress does not say."""
    values: dict[str, Any] = {}
    for name in model.model_fields:
        if name.startswith("total_"):
            values[name] = count
        elif name.startswith("num_") and name.endswith("_failed"):
            values[name] = 0
        elif name == "phase":
            values[name] = "scoring"
    return values


def build_progress(model: type[BaseModel], stored: Any, count: int,
                   latest_result_id: str | None, run_id: str = "") -> BaseModel:
    """Return ``model`` filled from a run's stored progress, result count and latest id.

    The done count (the ``num_*`` field that is not ``*_failed``) is always ``count``;
    requested totals default to ``count``, failed counts to 0 and ``phase`` to
    ``scoring`` when the stored progress does not say, or says it in a value that does
    not validate (see the module docstring).
    """
    defaults = _defaults(model, count)
    given = stored if isinstance(stored, Mapping) else {}
    values = {**defaults, **{key: value for key, value in given.items()
                             if key in model.model_fields}}
    for name in model.model_fields:
        if name.startswith("num_") and not name.endswith("_failed"):
            values[name] = count
    values["latest_result_id"] = latest_result_id
    if stored is not None and not isinstance(stored, Mapping):
        log.warning("run %s: stored progress is not an object (%s); read as none",
                    run_id, type(stored).__name__)
    try:
        return model(**values)
    except ValidationError as error:
        unreadable = sorted({str(problem["loc"][0]) for problem in error.errors()
                             if problem["loc"]})
    log.warning("run %s: stored progress fields %s do not validate; read as not stored",
                run_id, ", ".join(unreadable))
    for name in unreadable:
        values.pop(name, None)
        if name in defaults:
            values[name] = defaults[name]
    return model(**values)
