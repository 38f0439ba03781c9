"""The results routes: a pipeline's table, its explore.json and its plot alone.

Every route reads the link through the API with the visitor's token first
(``load_pipeline``): an archived or expired link is the shared 404 before the index is
touched, an email-mode link still needs sign-in. A query that cannot be read is a
``BadRequest``, answered by ``web.error_pages``.
"""

from __future__ import annotations

from flask import Blueprint, Response, render_template, request

from app.viewer.core import paging
from app.viewer.core.errors import BadRequest
from app.viewer.core.loaders import load_pipeline
from app.viewer.explore.panel import panel
from app.viewer.explore.query import check_kind, parse
from app.viewer.results import chem_form, page

bp = Blueprint("results", __name__)


@bp.get("/share/<link_id>/pipelines/<pipeline_id>")
def pipeline_results(link_id: str, pipeline_id: str):
    """Show a pipeline's results, ranked by the kind's primary metric unless sorted.

    From the index, or from the API while the index is not ready (``page.results_page``).
    A SMARTS RDKit cannot read, or a ``similar_to`` that is neither a result id nor a
    readable SMILES, is shown beside the filled form, on this page (400, ``chem_form``).
    """
    query, form = chem_form.parse(request.args)
    page_request = paging.parse(request.args)
    _share, pipeline, kind = load_pipeline(link_id, pipeline_id)
    try:
        body = page.results_page(link_id, pipeline, kind, query, page_request)
    except BadRequest as error:
        retry = (chem_form.without_similar(request.args, error)
                 if kind.family == "small_molecule" else None)
        if retry is None:
            raise
        query, form = retry
        body = page.results_page(link_id, pipeline, kind, query, page_request)
    return body, 400 if form.failed else 200


@bp.get("/share/<link_id>/pipelines/<pipeline_id>/explore.json")
def explore_json(link_id: str, pipeline_id: str):
    """Return the view's histograms and scatter points, or the index build's progress."""
    query = parse(request.args)
    _share, pipeline, kind = load_pipeline(link_id, pipeline_id)
    check_kind(query, kind)
    answer = panel(link_id, pipeline, kind, query).explore_answer()
    return Response(answer.model_dump_json(), mimetype="application/json")


@bp.get("/share/<link_id>/pipelines/<pipeline_id>/plot")
def plot(link_id: str, pipeline_id: str):
    """Show the scatter plot of a results view (index built first, as on the results page)."""
    query = parse(request.args)
    _share, pipeline, kind = load_pipeline(link_id, pipeline_id)
    view = panel(link_id, pipeline, kind, query)
    return render_template("share/results/plot.html", link_id=link_id, pipeline=pipeline,
                           kind=kind, explore=view, query=query)
