"""Viewer pages: a link's overview, a pipeline's results, one result, one prediction.

Views are thin: ask the API (through ``api_client``, with the visitor's bearer token from
the sign-in seam), pick the template, hand it values. Formatting lives in ``formatting``
and ``tables``; API failures become pages in ``error_pages``. GET never changes anything.
"""

from __future__ import annotations

from flask import Blueprint, Response, render_template, request

from app import domain
from app.viewer.core import paging
from app.viewer.core.api_client import api
from app.viewer.core.loaders import bearer, check_ids, load_pipeline, load_prediction, load_share
from app.viewer.pages import predictions
from app.viewer.results import query as explore_query
from app.viewer.results import table as tables
from app.viewer.results import views as explore_views
from app.viewer.structure import views as structure_views

bp = Blueprint("viewer", __name__)


@bp.get("/share/<link_id>")
def overview(link_id: str):
    """Show what was shared: pipelines with their results count, and predictions."""
    share = load_share(link_id)
    return render_template(
        "share/overview.html", link_id=link_id, share=share,
        kind=domain.kind, applications=domain.APPLICATIONS,
    )


@bp.get("/share/<link_id>/pipelines/<pipeline_id>")
def pipeline_results(link_id: str, pipeline_id: str):
    """Show a pipeline's results: a page from the API, or a whole-set view from the index.

    Without sort, filter or search the page comes straight from the API (keyset cursors,
    ``ids=``), as the API orders it; anything else is answered by ``explore_views``.
    """
    query = explore_query.parse(request.args)
    page_request = paging.parse(request.args)
    _share, pipeline, kind = load_pipeline(link_id, pipeline_id)
    if not query.is_plain:
        return explore_views.explore_page(link_id, pipeline, kind, query)
    page = api().results(
        link_id, pipeline_id, bearer(link_id), limit=page_request.limit,
        after_id=page_request.after_id, before_id=page_request.before_id,
        ids=list(page_request.ids),
    )
    records = page.get("data") or []
    columns = tables.columns_for(kind, records)  # a generic-only page: generic metrics
    return render_template(
        "share/results/page.html", link_id=link_id, pipeline=pipeline, kind=kind,
        page_request=page_request, columns=columns,
        rows=tables.rows_for(records, columns, link_id),
        links=paging.links(page, page_request), page_sizes=paging.PAGE_SIZES,
        explore=explore_views.panel(link_id, pipeline, kind, query), query=query,
        from_index=False, sort_key=explore_views.sort_key,
        descending_first=explore_views.descending_first,
    )


@bp.get("/share/<link_id>/pipelines/<pipeline_id>/results/<result_id>")
def result(link_id: str, pipeline_id: str, result_id: str):
    """Show one result: entities with full sequences, metrics, warnings, downloads."""
    check_ids(result_id)
    _share, pipeline, kind = load_pipeline(link_id, pipeline_id)
    record, prev_id, next_id = api().result_in_order(link_id, pipeline_id, result_id,
                                                     bearer(link_id))
    return render_template(
        "share/result.html", link_id=link_id, pipeline=pipeline, kind=kind,
        record=record, prev_id=prev_id, next_id=next_id,
        metric_keys=_metric_keys(kind, record), catalog=domain,
    )


@bp.get("/share/<link_id>/pipelines/<pipeline_id>/results/<result_id>/structure")
def structure(link_id: str, pipeline_id: str, result_id: str):
    """Show a result's structure in Mol*: confidence, chains, interface, PAE (see there)."""
    return structure_views.result_page(link_id, pipeline_id, result_id)


def prediction_structure_artifact(item: dict) -> dict | None:
    """Return a structure_and_binding prediction's first structure file, if it has one.

    The files the 3D page can show (``predictions.sample_structure_artifacts``): a
    prediction with per-sample files only still gets its "View 3D structure" button.
    """
    if item.get("application") != "structure_and_binding":
        return None
    files = predictions.sample_structure_artifacts(item)
    return files[0] if files else None


def _metric_keys(kind: domain.Kind, record: dict) -> list[str]:
    """Return the record's metrics, in its variant's order first, then any others."""
    present = list((record.get("metrics") or {}).keys())
    ordered = [k for k in kind.metrics_for(record.get("type")) if k in present]
    return ordered + [k for k in present if k not in ordered]


@bp.get("/share/<link_id>/predictions/<prediction_id>")
def prediction(link_id: str, prediction_id: str):
    """Show one prediction: ADME as a table sorted by ``sort=``, or samples best first."""
    sort = predictions.parse_sort(request.args.get("sort"))
    item = load_prediction(link_id, prediction_id)
    return render_template(
        "share/prediction.html", link_id=link_id, prediction=item,
        applications=domain.APPLICATIONS,
        has_structure=prediction_structure_artifact(item) is not None,
        content=predictions.page_content(item, sort),
    )


@bp.get("/share/<link_id>/predictions/<prediction_id>/structure")
def prediction_structure(link_id: str, prediction_id: str):
    """Show a structure_and_binding prediction's sample (``?sample=N``) in Mol*."""
    return structure_views.prediction_page(link_id, prediction_id)


@bp.get("/robots.txt")
def robots():
    """Tell crawlers to stay out of share pages (they are secrets)."""
    body = "User-agent: *\nDisallow: /share/\n"
    return Response(body, mimetype="text/plain")
