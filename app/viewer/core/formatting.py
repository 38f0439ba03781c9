"""Turn API values into text for pages: numbers, dates, durations, sizes, sequences.

Pure functions, registered as Jinja filters by ``init_app``; views stay thin and templates
never do arithmetic.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

from flask import Flask

from app import domain
from app.viewer.core import prediction_files, run_kinds


def parse_time(value: str | None) -> datetime | None:
    """Parse an ISO 8601 timestamp from the API (naive values are taken as UTC)."""
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def format_datetime(value: str | None) -> str:
    """Format a timestamp as ``2026-05-04 13:07 UTC``; empty for none."""
    parsed = parse_time(value)
    return parsed.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC") if parsed else ""


def _plural(count: int, unit: str) -> str:
    return f"{count} {unit}{'' if count == 1 else 's'}"


def _span(seconds: float) -> str:
    """Say a duration in its largest sensible unit ("3 days", "5 hours", "a minute")."""
    seconds = abs(seconds)
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            return _plural(round(seconds / size) if unit != "day" else int(seconds // size), unit)
    return "less than a minute"


def relative_time(value: str | None, now: datetime | None = None) -> str:
    """Say when ``value`` is relative to now: "in 3 days" or "2 hours ago"."""
    parsed = parse_time(value)
    if parsed is None:
        return ""
    delta = (parsed - (now or datetime.now(UTC))).total_seconds()
    return f"in {_span(delta)}" if delta >= 0 else f"{_span(delta)} ago"


def expiry_phrase(value: str | None, now: datetime | None = None) -> str:
    """Say when a link expires: "expires in 3 days" or "expired 2 hours ago"."""
    parsed = parse_time(value)
    if parsed is None:
        return "no expiry date"
    if parsed <= (now or datetime.now(UTC)):
        return f"expired {relative_time(value, now)}"
    return f"expires {relative_time(value, now)}"


_INFINITIES = (math.inf, -math.inf)


def format_number(value, decimals: int = 3) -> str:
    """Format a number with a fixed count of decimals; a dash for missing, text unchanged.

    Hot path of the results table (a thousand calls a page): exact type checks, no
    isinstance over unions.
    """
    kind = type(value)
    if kind is float:
        if value != value or value in _INFINITIES:  # NaN never equals itself
            return "\u2013"
    elif kind is not int:
        return "\u2013" if value is None or value == "" else str(value)
    text = f"{value:,.{decimals}f}"
    return text.replace(",", "\u2009") if "," in text else text  # thin space for thousands


def format_metric(value, key: str) -> str:
    """Format a metric value with the decimals its ``app.domain`` entry asks for."""
    return format_number(value, domain.metric(key).decimals)


def format_size(size) -> str:
    """Format a byte count as ``1.4 MB``."""
    if not isinstance(size, int | float) or isinstance(size, bool):
        return ""
    value = float(size)
    for unit in ("bytes", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{int(value)} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return ""  # unreachable; keeps type checkers content


def humanize(key: str | None) -> str:
    """Turn a machine word (``in_progress``) into words (``In progress``)."""
    return (key or "").replace("_", " ").replace("-", " ").strip().capitalize()


POLYMERS = ("protein", "rna", "dna")


def entity_summary(entities: list[dict] | None) -> dict:
    """Summarise the entities of a protein result for one table cell.

    Returns the first protein's ``length`` and ``sequence``, every entity's ``chains``
    and their ``chain_count``, and a short ``text`` like "A: 84 aa · B: 120 aa".
    """
    entities = entities or []
    parts = []
    chains: list[str] = []
    for entity in entities:
        ids = [str(c) for c in entity.get("chain_ids") or []]
        chains.extend(ids)
        kind = entity.get("type")
        value = entity.get("value") or ""
        if kind in POLYMERS:
            unit = "aa" if kind == "protein" else "nt"
            parts.append(f"{','.join(ids) or '?'}: {len(value)} {unit}")
        else:
            parts.append(f"{','.join(ids) or '?'}: {value if kind == 'ligand_ccd' else 'ligand'}")
    first_protein = next((e for e in entities if e.get("type") == "protein"), None)
    return {
        "chains": chains,
        "chain_count": len(chains),
        "length": len(first_protein.get("value") or "") if first_protein else None,
        "sequence": (first_protein.get("value") or "") if first_protein else "",
        "text": " · ".join(parts),
    }


def chunk_sequence(value: str, size: int = 10) -> list[str]:
    """Split a sequence into groups of ``size`` residues for reading (copy keeps it whole)."""
    return [value[i : i + size] for i in range(0, len(value or ""), size)]


def shorten(value: str | None, length: int = 24) -> str:
    """Shorten a long string with an ellipsis in the middle."""
    value = value or ""
    if len(value) <= length:
        return value
    half = (length - 1) // 2
    return f"{value[:half]}…{value[-half:]}"


def init_app(app: Flask) -> None:
    """Register the filters used by the viewer templates, and the globals that say what a
    share read's records are (``core.run_kinds``, ``core.prediction_files``)."""
    app.jinja_env.globals.update(
        pipeline_kind=run_kinds.pipeline_kind,
        kind_known=run_kinds.is_known,
        run_count=run_kinds.result_count,
        prediction_label=run_kinds.prediction_label,
        prediction_files=prediction_files.prediction_files,
    )
    app.jinja_env.filters.update(
        datetime=format_datetime,
        relative=relative_time,
        expiry=expiry_phrase,
        number=format_number,
        metric=format_metric,
        filesize=format_size,
        humanize=humanize,
        shorten=shorten,
        chunks=chunk_sequence,
    )
