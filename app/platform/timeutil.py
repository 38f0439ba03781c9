"""UTC time helpers: one format on the wire, naive UTC in the database."""

from __future__ import annotations

from datetime import UTC, datetime


def utcnow() -> datetime:
    """Return the current time as a naive UTC datetime, as stored in the database."""
    return to_db_millis(datetime.now(UTC))


def to_db(value: datetime) -> datetime:
    """Convert an aware datetime to the naive UTC form the database stores."""
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value


def to_db_millis(value: datetime) -> datetime:
    """Return ``to_db(value)`` without sub-millisecond digits.

    Millisecond precision: what the wire format (``isoformat``) shows is exactly what is
    stored, so a value read back compares equal to the one that was sent.
    """
    value = to_db(value)
    return value.replace(microsecond=value.microsecond // 1000 * 1000)


def isoformat(value: datetime | None) -> str | None:
    """Format a stored (naive UTC) datetime as ISO 8601 with a ``Z`` suffix."""
    if value is None:
        return None
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value.isoformat(timespec="milliseconds") + "Z"
