"""The 3D pages: a result's or a prediction sample's structure, its PAE, two results compared.

Views stay thin: the API says what the link exposes (``loaders``), the structure file is
read through the presigned URL the API gives (``core.artifacts``), ``structure_model``
reads it, ``structure_scene`` turns it into MolViewSpec scenes and a legend, and the page
(``share/structure/page.html`` with ``static/js/structure.js``) hands them to Mol*. Only these
pages relax the CSP (``security.allow_structure_viewer``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from flask import Blueprint, jsonify, render_template, request, url_for

from app import domain
from app.viewer.core.api_client import api
from app.viewer.core.artifacts import (
    ARCHIVE_LIMIT,
    STRUCTURE_LIMIT,
    prediction_locator,
    read_artifact,
    result_locator,
)
from app.viewer.core.errors import BadRequest, LinkNotFound
from app.viewer.core.loaders import bearer, check_ids, load_pipeline, load_prediction
from app.viewer.pages import predictions
from app.viewer.structure import model as structure_model
from app.viewer.structure import pae as pae_data
from app.viewer.structure import roles as chain_roles
from app.viewer.structure import scene as structure_scene
from app.viewer.structure import superpose
from app.viewer.web import security

bp = Blueprint("structure", __name__)
log = logging.getLogger(__name__)


def _format(artifact: dict) -> str:
    """Return the format of a structure file: ``pdb`` or (by default) ``mmcif``."""
    name = str(artifact.get("filename") or "").lower()
    pdb = artifact.get("content_type") == "chemical/x-pdb" or name.endswith((".pdb", ".ent"))
    return "pdb" if pdb else "mmcif"


def _model(locate, fmt: str, interface: bool = True,
           known: dict | None = None) -> structure_model.Model | None:
    """Read the structure file ``locate()`` points at; None if too big or unreadable."""
    data = read_artifact(locate, STRUCTURE_LIMIT, known)
    if data is None:
        return None
    try:
        return structure_model.read(data, fmt, interface=interface)
    except (RuntimeError, ValueError, IndexError) as error:
        # The page still shows the file, coloured by Mol*'s defaults.
        log.info("structure not readable for the legend: %s", type(error).__name__)
        return None


@bp.get("/share/<link_id>/pipelines/<pipeline_id>/results/<result_id>/structure")
def result_structure(link_id: str, pipeline_id: str, result_id: str):
    """Show a result's structure in Mol*: confidence colours, chains, interface, PAE beside."""
    check_ids(result_id)
    _share, pipeline, kind = load_pipeline(link_id, pipeline_id)
    record, prev_id, next_id = api().result_in_order(link_id, pipeline_id, result_id,
                                                     bearer(link_id))
    artifacts = record.get("artifacts") or {}
    if not artifacts.get("structure"):
        raise LinkNotFound()
    fmt = _format(artifacts["structure"])
    model = _model(result_locator(link_id, pipeline_id, result_id, "structure"), fmt,
                   known=artifacts["structure"])
    ids = {"link_id": link_id, "pipeline_id": pipeline_id}
    trail = [
        ("Shared results", security.share_url("pages.overview", link_id=link_id)),
        (pipeline.get("name") or kind.label, security.share_url("results.pipeline_results",
                                                                **ids)),
        ("Result", security.share_url("pages.result", result_id=result_id, **ids)),
        ("3D structure", None),
    ]
    compare = [(label, security.share_url("structure.compare", a=result_id, b=other, **ids))
               for label, other in (("previous", prev_id), ("next", next_id)) if other]
    pae_url = (url_for("structure.result_pae", result_id=result_id, **ids)
               if artifacts.get("archive") else None)
    url = url_for("downloads.result_artifact", result_id=result_id, name="structure", **ids)
    return _page(trail, result_id, url, fmt, model, chain_roles.result_roles(record),
                 pae_url=pae_url, compare=compare)


@bp.get("/share/<link_id>/predictions/<prediction_id>/structure")
def prediction_structure(link_id: str, prediction_id: str):
    """Show a structure_and_binding prediction's sample (``?sample=N``) in Mol*."""
    item = load_prediction(link_id, prediction_id)
    files = predictions.structure_files(item)
    if not files:
        raise LinkNotFound()
    asked = request.args.get("sample")
    number = _sample_number(asked, len(files))
    artifact = next((f for f in files if f["sample"] == number), files[0])
    name = artifact.get("name") or "structure"
    best = next((a for a in item.get("artifacts") or []
                 if a.get("name") == "structure" and a.get("url")), None)
    if asked is None and best is not None:
        # No sample asked: the best sample's file (``structure``), as before samples.
        found = predictions.samples(item)
        artifact = {**best, "sample": found[0].number if found else 1}
        name = "structure"

    fmt = _format(artifact)
    label = item.get("name") or domain.APPLICATIONS.get(item.get("application"),
                                                        "Prediction")
    trail = [
        ("Shared results", security.share_url("pages.overview", link_id=link_id)),
        (label, security.share_url("pages.prediction", link_id=link_id,
                                   prediction_id=prediction_id)),
        ("3D structure", None),
    ]
    samples = [(f["sample"], security.share_url("structure.prediction_structure",
                                                link_id=link_id, prediction_id=prediction_id,
                                                sample=f["sample"]))
               for f in files] if len(files) > 1 else []
    url = url_for("downloads.prediction_artifact", link_id=link_id,
                  prediction_id=prediction_id, name=name)
    locate = prediction_locator(link_id, prediction_id, name)
    return _page(trail, prediction_id, url, fmt, _model(locate, fmt, known=artifact),
                 chain_roles.prediction_roles(item), samples=samples,
                 sample=artifact["sample"])


def _sample_number(value: str | None, count: int) -> int:
    """Return the 1-based sample asked for (default 1); a 400 naming ``sample`` if bad."""
    if value is None:
        return 1
    if not value.isdigit() or not 1 <= int(value) <= count:
        raise BadRequest(f"sample must be a whole number from 1 to {count}")
    return int(value)


def _page(trail, subject_id, url, fmt, model, roles, *, pae_url=None, compare=(),
          samples=(), sample=None):
    """Render ``share/structure/page.html``; only this page and compare relax the CSP."""
    security.allow_structure_viewer()
    chains = structure_scene.chain_infos(model, roles) if model else []
    return render_template(
        "share/structure/page.html", trail=trail, subject_id=subject_id, structure_url=url,
        structure_format=fmt, model=model, chains=chains,
        scenes=structure_scene.result_scenes(url, fmt, model, chains) if model else {},
        bands=structure_scene.band_counts(model) if model else [],
        interface=structure_scene.interface_text(model, chains) if model else [],
        ligand=model.ligands[0] if model and model.ligands else None,
        pae_url=pae_url, compare=compare, samples=samples, sample=sample,
    )


@bp.get("/share/<link_id>/pipelines/<pipeline_id>/results/<result_id>/structure/pae.json")
def result_pae(link_id: str, pipeline_id: str, result_id: str):
    """Return the PAE heatmap data of a result (``{"n": 0}`` when its archive has none)."""
    check_ids(result_id)
    load_pipeline(link_id, pipeline_id)
    record = api().result(link_id, pipeline_id, result_id, bearer(link_id))
    artifacts = record.get("artifacts") or {}
    if not artifacts.get("archive") or not artifacts.get("structure"):
        return jsonify(n=0)
    archive = read_artifact(
        result_locator(link_id, pipeline_id, result_id, "archive"),
        ARCHIVE_LIMIT, artifacts["archive"])
    try:
        matrix = pae_data.read_npz(archive) if archive is not None else None
    except pae_data.NoPae:
        matrix = None
    if matrix is None:
        return jsonify(n=0)
    fmt = _format(artifacts["structure"])
    model = _model(result_locator(link_id, pipeline_id, result_id, "structure"), fmt,
                   interface=False, known=artifacts["structure"])
    if model is None:
        return jsonify(n=0)
    names = {c.chain: f"{c.role} ({c.auth})" for c in structure_scene.chain_infos(
        model, chain_roles.result_roles(record))}
    return jsonify(pae_data.payload(matrix, model, names))


@bp.get("/share/<link_id>/pipelines/<pipeline_id>/compare")
def compare(link_id: str, pipeline_id: str):
    """Show two results of a pipeline superposed on their target chain, with the RMSD."""
    wanted = {key: request.args.get(key, "") for key in ("a", "b")}
    for key, value in wanted.items():
        if not value:
            raise BadRequest(f"{key} must name a result of this pipeline")
    check_ids(*wanted.values())
    _share, pipeline, kind = load_pipeline(link_id, pipeline_id)
    sides = []
    for key in ("a", "b"):
        result_id = wanted[key]
        record = api().result(link_id, pipeline_id, result_id, bearer(link_id))
        artifact = (record.get("artifacts") or {}).get("structure")
        if not artifact:
            raise LinkNotFound()
        fmt = _format(artifact)
        model = _model(result_locator(link_id, pipeline_id, result_id, "structure"), fmt,
                       known=artifact)
        url = url_for("downloads.result_artifact", link_id=link_id, pipeline_id=pipeline_id,
                      result_id=result_id, name="structure")
        sides.append((result_id, record, url, fmt, model))
    security.allow_structure_viewer()
    comparison = _fit(sides)
    fit = comparison.fit if comparison else None
    transform = ({"rotation": fit.mvs_rotation(), "translation": list(fit.translation)}
                 if fit else None)
    binders = tuple({c for c, role in chain_roles.result_roles(s[1]).items()
                     if role in ("Binder", "Designed protein")} for s in sides)
    models_ok = all(s[4] is not None for s in sides)
    scene = structure_scene.compare_scene(
        (sides[0][2], sides[0][3], sides[0][4]), (sides[1][2], sides[1][3], sides[1][4]),
        transform, binders) if models_ok else None
    ids = {"link_id": link_id, "pipeline_id": pipeline_id}
    trail = [
        ("Shared results", security.share_url("pages.overview", link_id=link_id)),
        (pipeline.get("name") or kind.label, security.share_url("results.pipeline_results",
                                                                **ids)),
        ("Compare in 3D", None),
    ]
    return render_template(
        "share/structure/compare.html", trail=trail, sides=sides, comparison=comparison,
        scene=scene, colours=structure_scene.COMPARE_COLOURS, link_id=link_id,
        pipeline_id=pipeline_id,
    )


@dataclass(frozen=True)
class Comparison:
    """How B was fitted onto A, and how far each binder chain then lies from A's."""

    fit: superpose.Fit
    chain: str  # auth id of the chain the fit used
    on_target: bool
    binders: tuple[tuple[str, float, int], ...]  # (auth chain, RMSD in Å, CA pairs)


def _fit(sides) -> Comparison | None:
    """Fit B onto A on the target chain (else the first shared chain), then measure binders."""
    (_ida, record_a, _u, _f, model_a), (_idb, _rb, _u2, _f2, model_b) = sides
    if model_a is None or model_b is None:
        return None
    roles = chain_roles.result_roles(record_a)
    shared = [c for c in model_a.chains if c in model_b.chains]
    role = {c: roles.get(model_a.auth.get(c, c)) for c in shared}
    targets = [c for c in shared if role[c] == "Target"]
    for chain in targets + shared:
        fit = superpose.fit_on_chain(model_a.ca, model_b.ca, chain, chain)
        if fit is None:
            continue
        binders = []
        for other in shared:
            if other != chain and role[other] in ("Binder", "Designed protein"):
                measured = superpose.rmsd_after(fit, model_a.ca, model_b.ca, other, other)
                if measured is not None:
                    binders.append((model_a.auth.get(other, other), *measured))
        return Comparison(fit, model_a.auth.get(chain, chain), chain in targets,
                          tuple(binders))
    return None
