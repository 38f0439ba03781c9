"""Links an export hands to its reader: the viewer's own download URLs (issue 19 item 8).

The API's artifact URLs are presigned for minutes and may name a host only the viewer
reaches (``http://compute.internal/...``): useless in a file sent on to a colleague. An
export links each file through the viewer instead,
``<base>/share/<id>/pipelines/<pid>/results/<rid>/artifacts/<role>``, which streams it
for as long as the share link grants (an email-mode link asks its reader to sign in).

The base is the app's rule for absolute links (``app.public_url``): ``FLASK_PUBLIC_URL``
or a checked request host. Without either the links are root-relative (a ``Host``
header anyone can choose never ends up in a file), and the JSON head says so.
"""

from __future__ import annotations

from flask import url_for

from app import domain, public_url


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
            path = url_for("downloads.result_artifact", link_id=link_id,
                           pipeline_id=pipeline_id, result_id=str(record["id"]), name=role)
            out[role] = {"url": base + path}
    return out
