"""Field types of the response models: how timestamps and absent values reach the wire.

- ``Timestamp``: a stored (naive UTC) or aware datetime, written as ISO 8601 with
  milliseconds and a ``Z`` (``app.platform.timeutil.isoformat``), documented as a date-time string.
  ``TimestampText`` is one already formatted so (a page's URLs share one expiry).
- ``omitted_if_none()``: the default of a field that the spec makes optional. A ``None``
  value is left out of the JSON object, never written as ``null``, and the OpenAPI
  document shows the field as optional and not nullable. Fields that are null by
  contract (``archived_at``, ``first_id`` of an empty page...) are declared ``X | None``
  without this default, so they are required and written as ``null``.
- ``Serialised``: a response body already written as JSON, naming the declared model it
  holds (a results page written from stored JSON, ``result_wire``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any

from pydantic import Field, PlainSerializer, WithJsonSchema

from app.platform.timeutil import isoformat

Timestamp = Annotated[
    datetime,
    PlainSerializer(isoformat, return_type=str),
    WithJsonSchema({"type": "string", "format": "date-time"}, mode="serialization"),
]

TimestampText = Annotated[str, WithJsonSchema({"type": "string", "format": "date-time"})]


def _is_none(value: object) -> bool:
    return value is None


def _not_nullable(schema: dict[str, Any]) -> None:
    """Document an omitted-when-absent field: drop ``null`` from its type and its default."""
    schema.pop("default", None)
    variants = schema.get("anyOf")
    if variants:
        kept = [variant for variant in variants if variant != {"type": "null"}]
        if len(kept) == 1:
            del schema["anyOf"]
            schema.update(kept[0])
        else:
            schema["anyOf"] = kept


def omitted_if_none(description: str | None = None) -> Any:
    """Return the ``Field`` of an optional response field that is omitted when None."""
    return Field(default=None, exclude_if=_is_none, description=description,
                 json_schema_extra=_not_nullable)


@dataclass(frozen=True)
class Serialised:
    """A 200 body already written as JSON bytes, in the shape of response ``model``.

    The endpoint decorator sends ``body`` as is when ``model`` is one the endpoint
    declares; the writer answers for the shape (its tests compare it with the model's).
    """

    model: type
    body: bytes
