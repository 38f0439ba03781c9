"""The export route: ``/share/<id>/pipelines/<pipeline_id>/export.<extension>``.

One route over the registry (``formats.FORMATS``): CSV, JSON, FASTA (protein kinds), SDF
(small-molecule kinds) and ZIP (structure files). Its URL accepts exactly the registered
extensions, so any other is the shared 404 of an unknown path; ``response`` checks the
request and streams the file.
"""

from __future__ import annotations

from flask import Blueprint

from app.viewer.exports.formats import FORMATS
from app.viewer.exports.response import export_response

bp = Blueprint("exports", __name__)
# The converter ``any(csv, json, ...)``: the URL matches only a registered extension.
_EXTENSIONS = ", ".join(FORMATS)


@bp.get(f"/share/<link_id>/pipelines/<pipeline_id>/export.<any({_EXTENSIONS}):extension>")
def export(link_id: str, pipeline_id: str, extension: str):
    """Stream the view's results as the file of ``extension`` (``formats.FORMATS``)."""
    return export_response(link_id, pipeline_id, FORMATS[extension])
