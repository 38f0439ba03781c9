"""Links an export hands to its reader: the viewer's own download URLs.

The API's artifact URLs are presigned for minutes and may name a host only the viewer
reaches (``http://compute.internal/...``): useless in a file sent on to a colleague. An
export links each file through the viewer instead,
``<base>/share/<id>/pipelines/<pid>/results/<rid>/artifacts/<role>``, which streams it
for as long as the share link grants (an email-mode link asks its reader to sign in).

The base is the app's rule for absolute links (``app.platform.public_url``): ``FLASK_PUBLIC_URL``
or a checked request host. Without either the links are root-relative (a ``Host``
header anyone can choose never ends up in a file), and the JSON head says so.
"""

from __future__ import annotations

from flask import request, url_for

from app import domain
from app.platform import public_url
from app.viewer.core.paging import ID

# Per-worker download path patterns, by (link, pipeline, role): a handful at a time.
_patterns: dict[tuple[str, ...], tuple[str, ...]] = {}


def base_url() -> str:
    """Return the base of absolute links, or "" when only root-relative ones are safe."""
    try:
        return public_url.base_url()
    except public_url.PublicUrlMissing:
        return ""


def viewer_artifacts(base: str, link_id: str, pipeline_id: str, record: dict) -> dict:
    """Return the record's ``artifacts`` as ``{role: {"url": viewer download URL}}``.

    Only roles the viewer serves are kept; what the record says beyond the URL (its
    expiry) belonged to the API's link and is dropped.
    """
    out = {}
    for role in (record.get("artifacts") or {}):
        if role in domain.RESULT_ROLES and record.get("id"):
            out[role] = {"url": base + _artifact_path(link_id, pipeline_id,
                                                      str(record["id"]), role)}
    return out


def _artifact_path(link_id: str, pipeline_id: str, result_id: str, role: str) -> str:
    """Return the download path of one result file: ``url_for``'s, built once per link,
    pipeline and role and completed by the result id (an id of the API's alphabet needs
    no quoting; any other is built in full by ``url_for``)."""
    key = (request.script_root, link_id, pipeline_id, role)
    parts = _patterns.get(key)
    if parts is None:
        marker = "RESULTIDMARKER"
        built = url_for("downloads.result_artifact", link_id=link_id,
                        pipeline_id=pipeline_id, result_id=marker, name=role)
        parts = tuple(built.split(marker)) if built.count(marker) == 1 else ()
        if len(_patterns) > 64:
            _patterns.clear()
        _patterns[key] = parts
    if len(parts) != 2 or not ID.fullmatch(result_id):
        return url_for("downloads.result_artifact", link_id=link_id,
                       pipeline_id=pipeline_id, result_id=result_id, name=role)
    return parts[0] + result_id + parts[1]
