"""A results page written straight from the stored JSON: no per-record validation.

The stored records are the engine's output, written in the SDK's shape
(``app.store.catalog``), so parsing them into pydantic records and validating them again
would only cost time: a page is written from the stored JSON text itself
(``results_store.results_page(..., raw=True)``), field by field, in the same shape and
order as the kind's record model in ``result_records`` declares:

- ``warnings`` and ``adme`` are omitted when NULL (or JSON ``null``), never ``null``;
  ``external_id`` likewise; ``entities`` of a protein kind is ``[]`` when NULL;
- ``artifacts`` names the roles the kind's records can name (``domain.KINDS[kind].roles``),
  each presigned;
- ``type`` of a protein_sequence_redesign record is its variant (``binder`` unless
  ``generic``).

A stored ``entities``, ``metrics``, ``warnings`` or ``adme`` whose JSON is not the shape
the record model declares (an object for ``metrics`` and ``adme``, an array for
``entities`` and ``warnings``: a look at its first character) is left out (``entities``
``[]``, ``metrics`` ``{}``), as is a small molecule's NULL ``smiles`` (``""``), and the
record gets a warning ``domain.UNREADABLE_VALUES`` naming the fields: one malformed
record never makes a page that SDK clients cannot read.
What is inside a well-shaped field (a metric of ``10^400``, an entity whose ``value`` is a
number, a ``solubility`` that is an object) is written as stored, unread: checking it would
mean parsing every record (see the module's first paragraph); the viewer reads such
values itself (``app.viewer.core.records``).

A stored text holding ``NaN`` or ``Infinity`` (Python's ``json`` writes them; JSON has no
such numbers) is parsed and written again, which turns them into ``null`` as pydantic
did: the page stays JSON. ``tests/service/test_response_models.py`` checks every kind's
page against its declared model, and ``tests/service/test_result_wire.py`` against the
validated models page for page.
"""

from __future__ import annotations

from json.encoder import encode_basestring_ascii
from typing import Any

import pydantic_core

from app import domain
from app.domain import PROTEIN_KINDS, SCREEN_KINDS, SMALL_MOLECULE_KINDS
from app.platform.timeutil import isoformat
from app.service.artifacts import Presigner
from app.service.wire import Serialised
from app.store.results import Result

# json.dumps of a str without its Python wrapper: escapes what JSON requires (and non-ASCII).
_string = encode_basestring_ascii


def _json(text: str | None) -> str | None:
    """Return stored JSON ``text`` as it may go on the wire; None for NULL and ``null``."""
    if text is None or text == "null":
        return None
    if "NaN" in text or "Infinity" in text:  # rare: re-encode (non-finite numbers: null)
        return pydantic_core.to_json(pydantic_core.from_json(text, allow_inf_nan=True),
                                     inf_nan_mode="null").decode()
    return text


def _shaped(text: str | None, opening: str, name: str, lost: list[str]) -> str | None:
    """Return ``text`` if it is JSON opening with ``opening``, else None (noted in ``lost``)."""
    if text is None or text.lstrip()[:1] == opening:
        return text
    lost.append(name)
    return None


def _with_note(warnings: str | None, lost: list[str]) -> str:
    """Return the ``warnings`` array (None: none) with the note that ``lost`` was left out."""
    message = "Stored values that could not be read were left out: " + ", ".join(lost)
    note = f'{{"code":{_string(domain.UNREADABLE_VALUES)},"message":{_string(message)}}}'
    inner = (warnings or "[]").strip()[1:-1].strip()
    return "[" + (inner + "," if inner else "") + note + "]"


def _artifacts(files: dict[str, Any], roles: tuple[str, ...], sign: Any,
               expires_at: str) -> str:
    parts = []
    for role, file in files.items():
        if role in roles:
            signed = sign(file)
            parts.append(f'{_string(role)}:{{"url":{_string(signed["url"])},'
                         f'"url_expires_at":{expires_at}}}')
    return "{" + ",".join(parts) + "}"


def record_json(kind: str, result: Result, artifacts: str) -> str:
    """Return one raw-column ``result`` as the JSON object of ``kind``'s record model.

    ``artifacts`` is the record's ``artifacts`` object, already written.
    """
    head = (f'{{"id":{_string(result.id)},"artifacts":{artifacts},'
            f'"created_at":"{isoformat(result.created_at)}"')
    parts = [head]
    lost: list[str] = []
    if kind in PROTEIN_KINDS:
        entities = _shaped(_json(result.entities), "[", "entities", lost)
        parts.append(f'"entities":{entities or "[]"}')
    parts.append(f'"metrics":{_shaped(_json(result.metrics), "{", "metrics", lost) or "{}"}')
    if kind in SMALL_MOLECULE_KINDS:
        if result.smiles is None:  # the record model requires text
            lost.append("smiles")
        parts.append(f'"smiles":{_string(result.smiles or "")}')
        adme = _json(result.adme) if kind != "small_molecule_explore" else None
        adme = _shaped(adme, "{", "adme", lost)
        if adme is not None:
            parts.append(f'"adme":{adme}')
    if kind in SCREEN_KINDS and result.external_id is not None:
        parts.append(f'"external_id":{_string(result.external_id)}')
    warnings = _shaped(_json(result.warnings), "[", "warnings", lost)
    if lost:
        warnings = _with_note(warnings, lost)
    if warnings is not None:
        parts.append(f'"warnings":{warnings}')
    if kind == "protein_sequence_redesign":
        parts.append('"type":"generic"' if result.variant == "generic" else '"type":"binder"')
    return ",".join(parts) + "}"


def page_json(kind: str, model: type, rows: list[Result], files: dict[str, dict[str, Any]],
              presigner: Presigner, has_more: bool) -> Serialised:
    """Return the page of ``rows`` as ``model`` (``{data, first_id, last_id, has_more}``).

    ``files`` maps result ids to ``{role: file}`` (``artifact_files_for_results``).
    """
    roles = domain.KINDS[kind].roles
    expires_at = _string(presigner.expires_at)
    records = ",".join(
        record_json(kind, row, _artifacts(files.get(row.id, {}), roles, presigner.sign_file,
                                          expires_at))
        for row in rows)
    first = _string(rows[0].id) if rows else "null"
    last = _string(rows[-1].id) if rows else "null"
    body = (f'{{"data":[{records}],"first_id":{first},"last_id":{last},'
            f'"has_more":{"true" if has_more else "false"}}}')
    return Serialised(model, body.encode())
