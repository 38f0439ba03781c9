"""The link's plain pages: its overview, one result, one prediction, robots.txt.

Views are thin: ask the API (through ``core.api_client``, with the visitor's bearer token
from the sign-in seam), pick the template, hand it values. Formatting lives in
``core.formatting``; API failures and bad queries become pages in ``web.error_pages``.
A pipeline's results table is ``results.views``', the 3D pages ``structure.views``'.
GET never changes anything.
"""

from __future__ import annotations

from flask import Blueprint, Response, render_template, request

from app import domain
from app.viewer.core import breadcrumbs, run_kinds
from app.viewer.core.loaders import load_prediction, load_share
from app.viewer.pages import deleted, glossary, predictions, result_view

bp = Blueprint("pages", __name__)
# Column headers link to their glossary entry (share/_partials/glossary_link.html).
bp.add_app_template_global(glossary.anchor, "glossary_anchor")


@bp.get("/share/<link_id>")
def overview(link_id: str):
    """Show what was shared: pipelines with their results count, and predictions.

    Each pipeline's kind and count are recognised from its run record (the template's
    ``kind`` is ``run_kinds.pipeline_kind``, ``run_count`` its progress count). Runs
    whose data retention deleted are shown as such (``deleted``).
    """
    share = load_share(link_id)
    return render_template(
        "share/overview.html", link_id=link_id, share=share,
        kind=run_kinds.pipeline_kind, applications=domain.APPLICATIONS,
        retained=deleted.retained(share), is_deleted=deleted.is_deleted,
        deleted_on=deleted.deleted_on,
    )


@bp.get("/share/<link_id>/pipelines/<pipeline_id>/results/<result_id>")
def result(link_id: str, pipeline_id: str, result_id: str):
    """Show one result: entities with full sequences, metrics, warnings, downloads.

    Previous/Next walk the results view the visitor came from (its args in the query
    string) and the trail leads back to it (``result_view``).
    """
    found = result_view.load(link_id, pipeline_id, result_id, request.args)
    view, kind = found.view, found.kind
    trail = breadcrumbs.pipeline(link_id, pipeline_id,
                                 breadcrumbs.pipeline_title(found.pipeline, kind),
                                 view.label(result_id), **view.back_args)
    return render_template(
        "share/result.html", link_id=link_id, pipeline=found.pipeline, kind=kind,
        record=found.record, view=view, trail=trail,
        metric_keys=_metric_keys(kind, found.record), domain=domain,
    )


def _metric_keys(kind: domain.Kind, record: dict) -> list[str]:
    """Return the record's metrics, in its variant's order first, then any others."""
    present = list((record.get("metrics") or {}).keys())
    ordered = [k for k in kind.metrics_for(record.get("type")) if k in present]
    return ordered + [k for k in present if k not in ordered]


@bp.get("/share/<link_id>/predictions/<prediction_id>")
def prediction(link_id: str, prediction_id: str):
    """Show one prediction: ADME as a table sorted by ``sort=``, or samples best first.

    Its type comes from ``model`` (``run_kinds``); another model's page lists its values.
    """
    sort = predictions.parse_sort(request.args.get("sort"))
    item = load_prediction(link_id, prediction_id)
    return render_template(
        "share/prediction.html", link_id=link_id, prediction=item,
        app_label=run_kinds.prediction_label(item),
        has_structure=bool(predictions.structure_files(item)),
        content=predictions.page_content(item, sort),
    )


@bp.get("/glossary")
def glossary_page():
    """Show the metric glossary: meaning, scale, direction, thresholds and source of each.

    The same for every link, so outside ``/share/<id>``: a header's link to it names no
    share (and ``Referrer-Policy: no-referrer`` keeps the share page out of the request).
    """
    return render_template("glossary.html", sections=glossary.sections())


@bp.get("/robots.txt")
def robots():
    """Tell crawlers to stay out of share pages (they are secrets)."""
    body = "User-agent: *\nDisallow: /share/\n"
    return Response(body, mimetype="text/plain")
