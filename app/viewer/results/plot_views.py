"""The plot of a results view, alone on its page, to embed (``.../plot?x=&y=&embed=1``).

The same view as the results page (filters, search, ids, axes: ``explore_query``) and the
same plot partial and script (``explore_plots.html``, ``static/js/explore.js``), without the
table. Access is checked like every page of the link (``load_pipeline``); a query that
cannot be read is the 400 page naming the parameter (``web.error_pages``).
"""

from __future__ import annotations

from flask import Blueprint, render_template, request

from app.viewer.core.loaders import load_pipeline
from app.viewer.results import query as explore_query
from app.viewer.results import views as explore_views

bp = Blueprint("embeds", __name__)


@bp.get("/share/<link_id>/pipelines/<pipeline_id>/plot")
def plot(link_id: str, pipeline_id: str):
    """Show the scatter plot of a results view (index built first, as on the results page)."""
    query = explore_query.parse(request.args)
    _share, pipeline, kind = load_pipeline(link_id, pipeline_id)
    view = explore_views.panel(link_id, pipeline, kind, query)
    return render_template("share/results/plot.html", link_id=link_id, pipeline=pipeline, kind=kind,
                           explore=view, query=query)
