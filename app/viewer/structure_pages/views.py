"""The 3D pages' routes: a result's or a prediction sample's structure, its PAE, two results
compared.

Routes only, and thin: the API says what the link exposes (``core.loaders``), the
structure files, the chosen sample, the PAE and the compared sides are read by
``loading``, the trails come from ``core.breadcrumbs``, and ``rendering`` renders
``share/structure/page.html`` or ``compare.html`` (which hand their scenes to Mol* with
``static/js/structure.js``). ``pae.json`` answers a declared shape (``pae.Heatmap`` or
``pae.NoHeatmap``), read by ``static/js/pae.js``; ``pae.alphafold.json`` the same matrix
as AlphaFold DB's PAE file, a download.
"""

from __future__ import annotations

from flask import Blueprint, Response, request, url_for

from app.viewer.core import breadcrumbs, run_kinds
from app.viewer.core.api_client import api
from app.viewer.core.artifacts import prediction_locator
from app.viewer.core.errors import LinkNotFound
from app.viewer.core.filenames import safe_filename
from app.viewer.core.loaders import bearer, check_ids, load_pipeline, load_prediction
from app.viewer.epitope import structure_mark
from app.viewer.explore.index import indexer
from app.viewer.explore.labels import run_labels
from app.viewer.pages import predictions, result_view
from app.viewer.provenance.roles import prediction_roles, result_roles
from app.viewer.runtime import work_gate
from app.viewer.structure import pae
from app.viewer.structure.model import structure_format
from app.viewer.structure_pages import loading, rendering
from app.viewer.web.security import share_url
from app.viewer.web.stalls import drop_when_stalled

bp = Blueprint("structure", __name__)


@bp.get("/share/<link_id>/pipelines/<pipeline_id>/results/<result_id>/structure")
def result_structure(link_id: str, pipeline_id: str, result_id: str):
    """Show a result's structure in Mol*: confidence colours, chains, interface, PAE beside.

    The results view the visitor came from (``pages.result_view``) is kept: the trail
    leads back to it and "Compare with" names its neighbours.
    """
    pipeline, kind, record, view = result_view.load(link_id, pipeline_id, result_id,
                                                    request.args)
    artifact = loading.result_structure_file(record)
    model = loading.result_model(link_id, pipeline_id, result_id, artifact)
    ids = {"link_id": link_id, "pipeline_id": pipeline_id}
    label = view.label(result_id)
    trail = breadcrumbs.result(link_id, pipeline_id, breadcrumbs.pipeline_title(pipeline, kind),
                               result_id, "3D structure", label=label,
                               view_args=view.args, back_args=view.back_args)
    compare_with = [(f"{word} result, {view.label(other)}",
                     share_url("structure.compare", a=result_id, b=other, **ids,
                               **view.walk_args))
                    for word, other in (("previous", view.prev_id), ("next", view.next_id))
                    if other]
    has_archive = bool((record.get("artifacts") or {}).get("archive"))
    pae_url = url_for("structure.result_pae", result_id=result_id, **ids) if has_archive else None
    pae_download = (url_for("structure.result_pae_alphafold", result_id=result_id, **ids)
                    if has_archive else None)
    url = url_for("downloads.result_artifact", result_id=result_id, name="structure", **ids)
    return rendering.structure_page(
        trail=trail, subject_id=result_id, url=url, fmt=structure_format(artifact),
        model=model, roles=result_roles(record, pipeline), pae_url=pae_url,
        pae_download=pae_download,
        compare_with=compare_with, label=label,
        epitope=structure_mark.mark(pipeline_id, result_id, kind))


@bp.get("/share/<link_id>/predictions/<prediction_id>/structure")
def prediction_structure(link_id: str, prediction_id: str):
    """Show a structure_and_binding prediction's sample (``?sample=N``) in Mol*."""
    item = load_prediction(link_id, prediction_id)
    files = predictions.structure_files(item)
    if not files:
        raise LinkNotFound()
    artifact, name = loading.prediction_sample(item, files, request.args.get("sample"))
    fmt = structure_format(artifact)
    title = run_kinds.prediction_label(item)
    ids = {"link_id": link_id, "prediction_id": prediction_id}
    samples = [(f["sample"], share_url("structure.prediction_structure", sample=f["sample"],
                                       **ids))
               for f in files] if len(files) > 1 else []
    model = loading.read_model(prediction_locator(link_id, prediction_id, name), fmt,
                               known=artifact)
    return rendering.structure_page(
        trail=breadcrumbs.prediction(link_id, prediction_id, title, "3D structure"),
        subject_id=prediction_id, url=url_for("downloads.prediction_artifact", name=name, **ids),
        fmt=fmt, model=model, roles=prediction_roles(item), samples=samples,
        sample=artifact["sample"])


@bp.get("/share/<link_id>/pipelines/<pipeline_id>/results/<result_id>/structure/pae.json")
def result_pae(link_id: str, pipeline_id: str, result_id: str):
    """Return the PAE heatmap of a result (``{"n": 0}`` when its archive has none).

    A matrix too large to read is a 422 ``{"error": why}``; a matrix not read yet when the
    work gate admits no more heavy work, a 503 to retry (``loading.result_pae``).
    """
    check_ids(result_id)
    _share, pipeline, _kind = load_pipeline(link_id, pipeline_id)
    record = api().result(link_id, pipeline_id, result_id, bearer(link_id))
    answer = loading.result_heatmap(link_id, pipeline_id, result_id, record, pipeline)
    return Response(answer.model_dump_json(), mimetype="application/json")


@bp.get("/share/<link_id>/pipelines/<pipeline_id>/results/<result_id>/structure/"
        "pae.alphafold.json")
def result_pae_alphafold(link_id: str, pipeline_id: str, result_id: str):
    """Download a result's PAE in AlphaFold DB's format (the shared 404 without one).

    Streamed a few rows at a time; a matrix larger than the structure's tokens (or than
    ``pae.MAX_TOKENS``) is a 422 page saying so. Admitted by the work gate, held until
    the download closes.
    """
    check_ids(result_id)
    load_pipeline(link_id, pipeline_id)
    record = api().result(link_id, pipeline_id, result_id, bearer(link_id))
    artifact = (record.get("artifacts") or {}).get("structure")
    # The structure and the matrix are read (each gated while read, then kept) before the
    # download's own slot is taken, so that one download never holds two.
    model = (loading.result_model(link_id, pipeline_id, result_id, artifact)
             if artifact else None)
    matrix = loading.result_pae(link_id, pipeline_id, result_id, record,
                                loading.token_count(model))
    if matrix is None:
        raise LinkNotFound()
    release = work_gate.enter("pae download")
    name = safe_filename(f"{result_id}-predicted_aligned_error.json", "pae.json")
    # A visitor who stops reading is dropped (web.stalls): the gate's slot is not held.
    response = Response(drop_when_stalled(pae.alphafold(matrix)), mimetype="application/json",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})
    response.call_on_close(release)
    return response


@bp.get("/share/<link_id>/pipelines/<pipeline_id>/compare")
def compare(link_id: str, pipeline_id: str):
    """Show two results of a pipeline superposed on their target chain, with the RMSD,
    and their metrics side by side, the better value of each marked.

    View args (as on a result page) are kept on the links back to the table and results.
    """
    wanted = loading.compared_ids(request.args)
    query = result_view.view_query(request.args)
    check_ids(*wanted)
    _share, pipeline, kind = load_pipeline(link_id, pipeline_id)
    labels = run_labels(indexer.current(pipeline_id), kind)
    first, second = (loading.compared_side(link_id, pipeline_id, result_id, pipeline,
                                           label=labels.label(result_id))
                     for result_id in wanted)
    view_args = query.args(page=1)
    trail = breadcrumbs.pipeline(link_id, pipeline_id,
                                 breadcrumbs.pipeline_title(pipeline, kind), "Compare in 3D",
                                 **view_args)
    return rendering.compare_page(trail=trail, sides=(first, second), link_id=link_id,
                                  pipeline_id=pipeline_id, kind=kind, view_args=view_args)
