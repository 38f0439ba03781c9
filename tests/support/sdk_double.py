"""An API double that sends the viewer only what the official SDK declares.

``SdkOnly(service)`` wraps the compute service's WSGI app. The two answers the viewer
reads as JSON are checked and cut down on their way out:

- ``GET /compute/v1/share/{id}``: validated strictly (``TypeAdapter(...).validate_python``,
  not the SDK's lenient ``construct``) against ``ShareLinkReadResponse``, each pipeline
  entry against the union member its own fields name (``pipeline``/``pipeline_version``
  and the shape of ``progress``/``input``, as the team plan's decision 2 recognises them)
  and each prediction against the member its ``model`` names;
- ``GET /compute/v1/share/{id}/pipelines/{pid}/results``: the page envelope
  ``{data, first_id, last_id, has_more}`` (``app/service/pagination.py``), and each item
  against the ``list_results`` item model of that pipeline's type (the type is read from
  the link's own share read, once per pipeline).

Whatever validates is re-serialised with only the declared fields that the answer set
(JSON names, i.e. aliases): extension fields and ``__pydantic_extra__`` vanish, leaf values
are sent exactly as the service wrote them. Whatever does not validate becomes a loud 502
whose body carries the validation error (and is printed to stderr and kept in
``failures``), so any test reading through the double fails. Every other answer (error
bodies, artifact downloads, other endpoints) passes through untouched.

It is how every test app's viewer reaches the embedded API (``tests/support/apps.py``,
``make_test_app``); a test marked ``api_extensions`` reads the service's answers whole.
"""

from __future__ import annotations

import io
import json
import re
import sys
import typing
from collections.abc import Callable, Iterable
from typing import Any

import pydantic
from boltz_api.types import share_link_read_response as share_read
from boltz_api.types.protein import design_list_results_response as protein_design
from boltz_api.types.protein import library_screen_list_results_response as protein_screen
from boltz_api.types.protein import sequence_redesign_list_results_response as protein_seq
from boltz_api.types.small_molecule import design_list_results_response as sm_design
from boltz_api.types.small_molecule import explore_list_results_response as sm_explore
from boltz_api.types.small_molecule import library_screen_list_results_response as sm_screen

from app.viewer.core import api_client

SHARE_READ_PATH = re.compile(r"^/compute/v1/share/(?P<link>[^/]+)/?$")
SHARE_RESULTS_PATH = re.compile(
    r"^/compute/v1/share/(?P<link>[^/]+)/pipelines/(?P<pipeline>[^/]+)/results/?$")

# Run record model (share read union member) -> item model of its list_results.
RESULT_ITEM_MODELS: dict[type, Any] = {
    share_read.PipelineProteinDesignRunResponse: protein_design.DesignListResultsResponse,
    # The SDK has no redesign resource; its results are protein design results.
    share_read.PipelineProteinRedesignRun: protein_design.DesignListResultsResponse,
    share_read.PipelineProteinSequenceRedesignRun:
        protein_seq.SequenceRedesignListResultsResponse,
    share_read.PipelineProteinLibraryScreen: protein_screen.LibraryScreenListResultsResponse,
    share_read.PipelineSmDesignRun: sm_design.DesignListResultsResponse,
    share_read.PipelineSmScreen: sm_screen.LibraryScreenListResultsResponse,
    share_read.PipelineSmExplore: sm_explore.ExploreListResultsResponse,
}
PIPELINE_MODELS: tuple[type, ...] = tuple(RESULT_ITEM_MODELS)
PREDICTION_MODELS = {
    "boltz-2.1": share_read.PredictionBoltz2Prediction,
    "adme-v1": share_read.PredictionAdmePrediction,
}


class ResultsPage(pydantic.BaseModel):
    """The envelope of a results page, as ``app.service.pagination.Page`` declares it.

    The SDK's ``SyncCursorPage`` reads the same four names; all four must be present.
    """

    model_config = pydantic.ConfigDict(extra="allow")

    data: list[Any]
    first_id: str | None
    last_id: str | None
    has_more: bool


class NotSdkShaped(Exception):
    """An answer the SDK's models reject; its message says where and why."""


_ADAPTERS: dict[Any, pydantic.TypeAdapter] = {}


def _adapter(model: Any) -> pydantic.TypeAdapter:
    """Return a (cached) TypeAdapter of ``model``: building one costs milliseconds."""
    adapter = _ADAPTERS.get(model)
    if adapter is None:
        adapter = _ADAPTERS[model] = pydantic.TypeAdapter(model)
    return adapter


def validate(model: Any, raw: Any, where: str) -> Any:
    """Validate ``raw`` strictly against ``model``; raise NotSdkShaped naming ``where``."""
    try:
        return _adapter(model).validate_python(raw)
    except pydantic.ValidationError as error:
        raise NotSdkShaped(f"{where} does not validate as {_name(model)}:\n{error}") from None


def _name(model: Any) -> str:
    """Return a short name of a model or union, for messages."""
    return getattr(model, "__name__", None) or str(model).replace("boltz_api.types.", "")


def declared_only(value: Any, raw: Any) -> Any:
    """Return ``raw`` with only the fields its validated form ``value`` declares and set.

    Walks both together: for a pydantic model, the fields of ``type(value).model_fields``
    that are in ``model_fields_set`` (under their JSON name, the alias), never its
    ``__pydantic_extra__``; lists and dicts item by item; a leaf is ``raw`` itself, so a
    timestamp or a float goes out exactly as the service wrote it.
    """
    if isinstance(value, pydantic.BaseModel):
        out = {}
        for name, field in type(value).model_fields.items():
            if name not in value.model_fields_set:
                continue
            key = field.alias or name
            if key not in raw:
                key = name
            out[key] = declared_only(getattr(value, name), raw[key])
        return out
    if isinstance(value, (list, tuple)) and isinstance(raw, list):
        return [declared_only(item, raw_item) for item, raw_item in zip(value, raw)]
    if isinstance(value, dict) and isinstance(raw, dict):
        return {key: declared_only(item, raw_item)
                for (key, raw_item), item in zip(raw.items(), value.values())}
    return raw


def pipeline_model(entry: Any) -> type | None:
    """Return the share-read union member an entry's own fields name, or None.

    Decision 2 of the team plan: ``pipeline`` and ``pipeline_version``, then for
    ``boltzprot`` and ``boltzmol`` (same names and version for several types) the shape of
    ``progress`` and ``input``.
    """
    if not isinstance(entry, dict):
        return None
    pipeline, version = entry.get("pipeline"), entry.get("pipeline_version")
    progress = entry.get("progress") if isinstance(entry.get("progress"), dict) else {}
    given = entry.get("input") if isinstance(entry.get("input"), dict) else {}
    if pipeline == "boltz-protein-redesign":
        return {"v2026-03-01": share_read.PipelineProteinRedesignRun,
                "v2026-07-14": share_read.PipelineProteinSequenceRedesignRun}.get(version)
    if pipeline == "boltzprot" and version == "1.0":
        if "num_proteins_screened" in progress or "proteins" in given:
            return share_read.PipelineProteinLibraryScreen
        return share_read.PipelineProteinDesignRunResponse
    if pipeline == "boltzmol" and version == "1.0":
        if "num_molecules_scored" in progress or "phase" in progress \
                or "library" in given or "budget" in given:
            return share_read.PipelineSmExplore
        if "num_molecules_screened" in progress or "molecules" in given:
            return share_read.PipelineSmScreen
        return share_read.PipelineSmDesignRun
    return None


def _same_family(model: type) -> list[type]:
    """Return the other union members with the same ``pipeline``/version literals."""
    def names(member: type) -> tuple:
        fields = member.model_fields
        return (fields["pipeline"].annotation, fields["pipeline_version"].annotation)
    return [member for member in PIPELINE_MODELS if member is not model
            and names(member) == names(model)]


def validated_pipeline(entry: Any, where: str) -> tuple[type, Any]:
    """Validate a run record against its own member; return that member and the record.

    A record the recognised member rejects is tried against the other members of the same
    ``pipeline``/version (a pending run may carry no ``progress``): SDK-valid is SDK-valid.
    The recognised member's error is the one reported.
    """
    model = pipeline_model(entry)
    if model is None:
        pipeline = entry.get("pipeline") if isinstance(entry, dict) else None
        version = entry.get("pipeline_version") if isinstance(entry, dict) else None
        raise NotSdkShaped(f"{where}: no SDK pipeline type is pipeline={pipeline!r} "
                           f"pipeline_version={version!r}")
    try:
        return model, validate(model, entry, where)
    except NotSdkShaped as first:
        for other in _same_family(model):
            try:
                return other, _adapter(other).validate_python(entry)
            except pydantic.ValidationError:
                continue
        raise first


def share_read_body(body: Any) -> dict:
    """Return the declared-only form of a share read, or raise NotSdkShaped."""
    if not isinstance(body, dict):
        raise NotSdkShaped("the share read is not a JSON object")
    envelope = dict(body)
    # The envelope alone first; entries are validated one by one against their members.
    for key in ("pipelines", "predictions"):
        if isinstance(body.get(key), list):
            envelope[key] = []
    out = declared_only(validate(share_read.ShareLinkReadResponse, envelope, "share read"),
                        envelope)
    if "pipelines" in out:
        out["pipelines"] = [
            declared_only(validated_pipeline(entry, f"share read pipelines[{index}]")[1], entry)
            for index, entry in enumerate(body["pipelines"])
        ]
    if "predictions" in out:
        out["predictions"] = [
            declared_only(validated_prediction(entry, f"share read predictions[{index}]"),
                          entry)
            for index, entry in enumerate(body["predictions"])
        ]
    return out


def validated_prediction(entry: Any, where: str) -> Any:
    """Validate a prediction record against the member its ``model`` names."""
    model = PREDICTION_MODELS.get(entry.get("model")) if isinstance(entry, dict) else None
    if model is None:
        raise NotSdkShaped(f"{where}: no SDK prediction type is model="
                           f"{entry.get('model') if isinstance(entry, dict) else None!r}")
    return validate(model, entry, where)


def item_member(item_model: Any, item: Any) -> Any:
    """Return the member of a results item union that the item's ``type`` names.

    Protein design results are a union told apart by ``type`` (``binder``, ``generic``,
    none). Left to pydantic's smart union, a ``generic`` record whose metrics also fit the
    typeless member validates as that member, and its ``type`` would be dropped as an
    extra. A model that is not a union is returned as is.
    """
    members = typing.get_args(item_model)
    if not members or not isinstance(item, dict):
        return item_model
    for member in members:
        field = member.model_fields.get("type")
        names = typing.get_args(field.annotation) if field is not None else (None,)
        if item.get("type") in names:
            return member
    return item_model


def results_page_body(body: Any, item_model: Any) -> dict:
    """Return the declared-only form of a results page, or raise NotSdkShaped."""
    page = validate(ResultsPage, body, "results page")
    out = declared_only(page, body)
    out["data"] = [
        declared_only(validate(item_member(item_model, item), item,
                               f"results page data[{index}]"), item)
        for index, item in enumerate(body["data"])
    ]
    return out


class SdkOnly:
    """WSGI middleware: the wrapped compute service, sending only SDK-declared fields.

    ``failures`` keeps the message of every answer it refused (newest last).
    """

    def __init__(self, service: Callable):
        self.service = service
        self.failures: list[str] = []
        self._item_models: dict[str, Any] = {}

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        """Answer a request: checked and cut down for the share read and results pages."""
        path = environ.get("PATH_INFO", "")
        if environ.get("REQUEST_METHOD") != "GET":
            return self.service(environ, start_response)
        read = SHARE_READ_PATH.match(path)
        results = None if read else SHARE_RESULTS_PATH.match(path)
        if not (read or results):
            return self.service(environ, start_response)
        # Plain JSON, never compressed: the double must read what it passes on.
        environ = {k: v for k, v in environ.items() if k != "HTTP_ACCEPT_ENCODING"}
        status, headers, body = self._call(environ)
        if not _is_json_success(status, headers):
            start_response(status, headers)
            return [body]
        try:
            parsed = json.loads(body)
            if read:
                out = share_read_body(parsed)
            else:
                item_model = self._item_model(environ, results["link"], results["pipeline"])
                out = results_page_body(parsed, item_model)
        except (NotSdkShaped, ValueError) as error:
            return self._refuse(f"GET {path}: {error}", start_response)
        payload = json.dumps(out).encode()
        headers = [(k, v) for k, v in headers
                   if k.lower() not in ("content-length", "etag", "content-encoding")]
        headers.append(("Content-Length", str(len(payload))))
        start_response(status, headers)
        return [payload]

    def _call(self, environ: dict) -> tuple[str, list[tuple[str, str]], bytes]:
        """Run the wrapped service on ``environ``; return its status, headers and body."""
        captured: dict[str, Any] = {}

        def start(status, headers, exc_info=None):
            captured["status"], captured["headers"] = status, list(headers)
            return lambda data: None

        iterable = self.service(environ, start)
        try:
            body = b"".join(iterable)
        finally:
            close = getattr(iterable, "close", None)
            if close is not None:
                close()
        return captured["status"], captured["headers"], body

    def _item_model(self, environ: dict, link_id: str, pipeline_id: str) -> Any:
        """Return the results item model of a pipeline, from the link's own share read.

        The share read is asked with the same credentials (the visitor's bearer) as the
        results page; a pipeline's type never changes, so it is asked once per pipeline.
        """
        model = self._item_models.get(pipeline_id)
        if model is not None:
            return model
        sub = dict(environ)
        sub.update({"PATH_INFO": f"/compute/v1/share/{link_id}", "QUERY_STRING": "",
                    "wsgi.input": io.BytesIO(b""), "CONTENT_LENGTH": "0"})
        for key in ("RAW_URI", "REQUEST_URI"):
            sub.pop(key, None)
        status, headers, body = self._call(sub)
        if not _is_json_success(status, headers):
            raise NotSdkShaped(f"the share read behind this results page answered {status}")
        pipelines = json.loads(body).get("pipelines") or []
        entry = next((p for p in pipelines if isinstance(p, dict) and p.get("id") == pipeline_id),
                     None)
        if entry is None:
            raise NotSdkShaped(f"pipeline {pipeline_id} is not in its link's share read")
        member, _record = validated_pipeline(entry, f"share read pipeline {pipeline_id}")
        model = self._item_models[pipeline_id] = RESULT_ITEM_MODELS[member]
        return model

    def _refuse(self, message: str, start_response: Callable) -> list[bytes]:
        """Answer the loud 502 of an answer the SDK rejects, and record it."""
        self.failures.append(message)
        print(f"[sdk-double] 502: {message}", file=sys.stderr)
        payload = json.dumps({"error": {"type": "sdk_double",
                                        "message": message}}).encode()
        start_response("502 Bad Gateway", [("Content-Type", "application/json"),
                                           ("Content-Length", str(len(payload)))])
        return [payload]


def _is_json_success(status: str, headers: list[tuple[str, str]]) -> bool:
    """Tell whether an answer is a 2xx JSON body (the only kind the double reshapes)."""
    content_type = next((v for k, v in headers if k.lower() == "content-type"), "")
    return status[:1] == "2" and content_type.split(";")[0].strip().endswith("json")


def use_api_double(app) -> SdkOnly:
    """Point the viewer of a composed ``app`` at its embedded service behind SdkOnly.

    Returns the middleware (its ``failures`` list says what it refused).
    """
    service = app.extensions["service_app"]
    double = SdkOnly(service)
    app.extensions["compute_api"] = api_client.embedded(
        double, api_client.timeout_setting(service.config))
    app.extensions["sdk_double"] = double
    return double
