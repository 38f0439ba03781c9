"""What the 3D routes read: structure files, the chosen sample, the PAE, compared sides.

Files are read through the presigned URLs the API gives (``core.artifacts``, bounded by
``STRUCTURE_LIMIT`` and ``ARCHIVE_LIMIT``) and parsed by ``structure.reading`` (in a
budgeted child process, once per file and worker); a file too big, unreadable or over its
budget gives no model, and the page then shows it in Mol*'s own colours. A file not read
yet is expensive work: admitted by the work gate (``runtime.work_gate``: "busy, retry"
past its slots), and stopped when its visitor hangs up (``web.departure``). What the
link does not expose is the shared 404 (``LinkNotFound``); a bad query a 400
(``BadRequest``).
"""

from __future__ import annotations

from flask import url_for
from werkzeug.datastructures import MultiDict

from app.viewer.core.api_client import api, restart_deadline
from app.viewer.core.artifacts import ARCHIVE_LIMIT, STRUCTURE_LIMIT, read_artifact, result_locator
from app.viewer.core.errors import BadRequest, LinkNotFound, TooLarge
from app.viewer.core.loaders import bearer
from app.viewer.core.prediction_files import prediction_file
from app.viewer.pages import predictions
from app.viewer.provenance.roles import result_roles
from app.viewer.runtime import work_gate
from app.viewer.runtime.cache import BoundedCache, approximate_bytes
from app.viewer.structure import model as structure_model
from app.viewer.structure import pae, reading
from app.viewer.structure.model import structure_format
from app.viewer.structure_pages.compare import Side
from app.viewer.structure_pages.scene import chain_infos
from app.viewer.web import departure


def read_model(locate, fmt: str, *, known: dict | None = None
               ) -> structure_model.Model | None:
    """Read the structure file ``locate()`` points at; None if too big, unreadable or over
    its budget (the page still shows the file, coloured by Mol*'s defaults).

    A file not read yet takes a slot of the work gate while it is read
    (``work_gate.Busy``, a 503 to retry, when there is none). Its reading is not time
    spent waiting on the API: the page's later API calls get a fresh deadline
    (``api_client.restart_deadline``).
    """
    data = read_artifact(locate, STRUCTURE_LIMIT, known)
    if data is None:
        return None
    found = reading.kept(data, fmt)
    if found is not None:
        return found.model
    release = work_gate.enter("structure")
    try:
        return reading.read(data, fmt, stop=departure.watcher())
    finally:
        release()
        restart_deadline()


def result_structure_file(record: dict) -> dict:
    """Return a result's structure artifact; the shared 404 if it has none."""
    artifact = (record.get("artifacts") or {}).get("structure")
    if not artifact:
        raise LinkNotFound()
    return artifact


def result_model(link_id: str, pipeline_id: str, result_id: str, artifact: dict
                 ) -> structure_model.Model | None:
    """Read a result's structure file (``artifact``, its record's entry)."""
    return read_model(result_locator(link_id, pipeline_id, result_id, "structure"),
                      structure_format(artifact), known=artifact)


def compared_ids(args: MultiDict) -> tuple[str, str]:
    """Return the results ``?a=`` and ``?b=`` of compare; a 400 naming the missing one."""
    wanted = {key: args.get(key, "") for key in ("a", "b")}
    for key, value in wanted.items():
        if not value:
            raise BadRequest(f"{key} must name a result of this pipeline")
    return wanted["a"], wanted["b"]


def compared_side(link_id: str, pipeline_id: str, result_id: str,
                  pipeline: dict | None = None, label: str = "") -> Side:
    """Return one side of compare: the result's record and its structure, read.

    ``pipeline`` (the run record) lets the roles come from its input; ``label`` is the
    result's name as people read it (``explore.labels``).
    """
    record = api().result(link_id, pipeline_id, result_id, bearer(link_id))
    artifact = result_structure_file(record)
    url = url_for("downloads.result_artifact", link_id=link_id, pipeline_id=pipeline_id,
                  result_id=result_id, name="structure")
    return Side(result_id, record, url, structure_format(artifact),
                result_model(link_id, pipeline_id, result_id, artifact), pipeline,
                label or result_id)


# Matrices read, per worker: one of MAX_TOKENS (64 MB of float32) or many small ones. A
# heatmap and its download, or a page opened again, read the archive once.
PAE_CACHE_BYTES = pae.MAX_TOKENS * pae.MAX_TOKENS * 4
matrices: BoundedCache = BoundedCache(256, maxweight=PAE_CACHE_BYTES, weight=approximate_bytes)


def token_count(model: structure_model.Model | None) -> int:
    """Return the most PAE tokens a structure can have: residues and ligand atoms.

    Without a readable structure, ``pae.MAX_TOKENS``.
    """
    if model is None:
        return pae.MAX_TOKENS
    return len(model.residues) + model.ligand_atoms


def result_pae(link_id: str, pipeline_id: str, result_id: str, record: dict,
               max_tokens: int = pae.MAX_TOKENS):
    """Return a result's PAE matrix (its archive's ``pae.npz``), or None without one.

    The one reading of the matrix: the heatmap and the AlphaFold DB download both use it,
    with ``max_tokens`` the structure's ``token_count``. A matrix larger than that (or
    than ``pae.MAX_TOKENS``) is ``TooLarge`` (422), whose message says why. The outcome
    is kept per result (``matrices``); reading one not kept takes a work-gate slot. The
    caller has already checked the link.
    """
    artifacts = record.get("artifacts") or {}
    if not artifacts.get("archive"):
        return None

    def read():
        # Only a matrix not kept yet is heavy work: admitted by the work gate (Busy, a 503).
        release = work_gate.enter("pae")
        try:
            archive = read_artifact(result_locator(link_id, pipeline_id, result_id, "archive"),
                                    ARCHIVE_LIMIT, artifacts["archive"])
            return pae.read_npz(archive, max_tokens) if archive is not None else None
        except pae.TooLarge as error:
            return error
        except pae.NoPae:
            return None
        finally:
            release()
    found = matrices.get_or_compute((pipeline_id, result_id, max_tokens), read)
    if isinstance(found, pae.TooLarge):
        raise TooLarge(f"The PAE map is unavailable. {found}")
    return found


def result_heatmap(link_id: str, pipeline_id: str, result_id: str,
                   record: dict, pipeline: dict | None = None) -> pae.Heatmap | pae.NoHeatmap:
    """Return the PAE heatmap of a result; ``NoHeatmap`` without a readable one.

    The structure (the reading the 3D page keeps) gives the tokens, the chains' names and
    the most tokens the matrix may have; the matrix is the archive's ``pae.npz``
    (``result_pae``: ``TooLarge`` beyond that).
    """
    artifacts = record.get("artifacts") or {}
    if not artifacts.get("structure"):
        return pae.NoHeatmap()
    model = result_model(link_id, pipeline_id, result_id, artifacts["structure"])
    if model is None:
        return pae.NoHeatmap()
    matrix = result_pae(link_id, pipeline_id, result_id, record, token_count(model))
    if matrix is None:
        return pae.NoHeatmap()
    names = {c.chain: c.name for c in chain_infos(model, result_roles(record, pipeline))}
    return pae.heatmap(matrix, model, names)


def prediction_sample(item: dict, files: list[dict], asked: str | None) -> tuple[dict, str]:
    """Return the structure artifact to show of a prediction, and its artifact name.

    ``files`` are its samples' files (``predictions.structure_files``), ``asked`` the
    ``?sample=`` value. No sample asked: the best sample's file (``structure``, from
    ``output.best_sample``), shown as the best sample's number.
    """
    number = _sample_number(asked, len(files))
    artifact = next((f for f in files if f["sample"] == number), files[0])
    best = prediction_file(item, "structure")
    if asked is None and best is not None:
        found = predictions.samples(item)
        return {**best, "sample": found[0].number if found else 1}, "structure"
    return artifact, artifact.get("name") or "structure"


def _sample_number(value: str | None, count: int) -> int:
    """Return the 1-based sample asked for (default 1); a 400 naming ``sample`` if bad."""
    if value is None:
        return 1
    if not value.isdigit() or not 1 <= int(value) <= count:
        raise BadRequest(f"sample must be a whole number from 1 to {count}")
    return int(value)
