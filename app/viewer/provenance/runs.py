"""What was run, in a scientist's words: a pipeline's or prediction's provenance.

``run_provenance(record)`` turns a pipeline run record as the SDK declares it (an entry of
``ShareLinkReadResponse.pipelines``: ``input``, ``progress``, ``status``,
``engine``/``pipeline`` and their versions, ``started_at``, ``completed_at``,
``stopped_at``, ``error``) into a ``Provenance``: its target and binder entities, the
design asked for (binder modality, length range, number requested), the library screened
(source and size), the progress ("260 of 300 requested"), the engine, the times and the
error. ``prediction_provenance(record)`` does the same for a prediction record (its
``input`` entities, binding, ``num_samples``, ADME molecules; ``model`` and ``version``).
``run_title(record, kind)`` is a pipeline's title: its kind's label and its target.

Every field is optional: a missing or unexpected value is simply not shown.
"""

from __future__ import annotations

from datetime import datetime

from app.viewer.core.formatting import format_number, parse_time
from app.viewer.provenance.design import design_facts
from app.viewer.provenance.entities import (
    BINDER,
    TARGET,
    prediction_entities,
    run_entities,
)
from app.viewer.provenance.facts import Fact, Provenance, count_phrase
from app.viewer.provenance.library import library_facts
from app.viewer.provenance.progress import progress_facts
from app.viewer.provenance.titles import prediction_title, run_title, target_phrase
from app.viewer.provenance.values import as_dict, as_list, count, text

# Re-exported: the titles and the provenance shapes are read from here too.
__all__ = ["Fact", "Provenance", "duration_phrase", "prediction_provenance",
           "prediction_title", "run_provenance", "run_title", "target_phrase"]

BINDINGS = {
    "ligand_protein_binding": "Ligand-protein binding",
    "protein_protein_binding": "Protein-protein binding",
}
PREDICTION_MODELS = {"boltz-2.1": "Boltz-2.1", "adme-v1": "ADME v1"}


def duration_phrase(start: datetime | None, end: datetime | None) -> str:
    """Say how long from ``start`` to ``end``: "2 h 5 min", "45 s", "3 d 4 h", or ""."""
    if start is None or end is None or end < start:
        return ""
    seconds = int((end - start).total_seconds())
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days} d {hours} h" if hours else f"{days} d"
    if hours:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    if minutes:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    return f"{secs} s"


def _engine(record: dict) -> str:
    """Return "boltzprot 1.0" (and the pipeline when it differs from the engine)."""
    parts = []
    for name_key, version_key in (("engine", "engine_version"), ("pipeline", "pipeline_version"),
                                  ("model", "version")):
        name, version = text(record.get(name_key)), text(record.get(version_key))
        if not name:
            continue
        if name_key == "model":
            name = PREDICTION_MODELS.get(name, name)
            phrase = f"{name}, version {version}" if version else name
        else:
            phrase = f"{name} {version}".strip()
        if phrase not in parts:
            parts.append(phrase)
    return " · ".join(parts)


def _times(record: dict) -> dict:
    started = parse_time(text(record.get("started_at")))
    ended = parse_time(text(record.get("completed_at")) or text(record.get("stopped_at")))
    return {
        "created_at": text(record.get("created_at")),
        "started_at": text(record.get("started_at")),
        "completed_at": text(record.get("completed_at")),
        "stopped_at": text(record.get("stopped_at")),
        "duration": duration_phrase(started, ended),
    }


def _error(record: dict) -> tuple[str, str]:
    error = as_dict(record.get("error"))
    return text(error.get("message")), text(error.get("code"))


def run_provenance(record) -> Provenance:
    """Return the provenance of a pipeline run record (empty parts when unknown)."""
    record = as_dict(record)
    data = as_dict(record.get("input"))
    progress = as_dict(record.get("progress"))
    entities = run_entities(record)
    progress_lines, headline = progress_facts(data, progress, text(record.get("status")))
    message, code = _error(record)
    references = as_dict(data.get("target")).get("reference_ligands")
    return Provenance(
        targets=tuple(e for e in entities if e.side == TARGET),
        binders=tuple(e for e in entities if e.side == BINDER),
        design=tuple(design_facts(data, progress)) if data else (),
        reference_ligands=tuple(r for r in as_list(references) if text(r)),
        library=tuple(library_facts(data, progress)),
        progress=tuple(progress_lines),
        headline=headline,
        engine=_engine(record),
        status=text(record.get("status")),
        error=message,
        error_code=code,
        **_times(record),
    )


def prediction_provenance(record) -> Provenance:
    """Return the provenance of a prediction record: entities, binding, samples, model."""
    record = as_dict(record)
    data = as_dict(record.get("input"))
    entities = prediction_entities(record)
    facts: list[Fact] = []
    binding = as_dict(data.get("binding"))
    if binding:
        chains = [c for c in as_list(binding.get("binder_chain_ids")) if isinstance(c, str)]
        if isinstance(binding.get("binder_chain_id"), str):
            chains.append(binding["binder_chain_id"])
        name = BINDINGS.get(text(binding.get("type")), "Binding")
        facts.append(Fact("Binding", f"{name}, binder chain{'s' if len(chains) != 1 else ''} "
                          f"{', '.join(chains)}" if chains else name))
    samples = count(data.get("num_samples"))
    if samples is not None:
        facts.append(Fact("Samples", count_phrase(samples)))
    options = as_dict(data.get("model_options"))
    for key, label in (("recycling_steps", "Recycling steps"), ("sampling_steps", "Sampling steps"),
                       ("step_scale", "Step scale")):
        value = options.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            facts.append(Fact(label, format_number(value, 0 if isinstance(value, int) else 2)))
    templates = as_list(data.get("templates"))
    if templates:
        facts.append(Fact("Templates", count_phrase(len(templates))))
    constraints = as_list(data.get("constraints"))
    if constraints:
        facts.append(Fact("Constraints", count_phrase(len(constraints))))
    molecules = [as_dict(m) for m in as_list(data.get("molecules"))]
    molecules = [m for m in molecules if text(m.get("smiles"))]
    if molecules:
        facts.append(Fact("Molecules", count_phrase(len(molecules))))
    message, code = _error(record)
    return Provenance(
        targets=tuple(e for e in entities if e.side != BINDER),
        binders=tuple(e for e in entities if e.side == BINDER),
        design=tuple(facts),
        engine=_engine(record),
        status=text(record.get("status")),
        error=message,
        error_code=code,
        extra=tuple(Fact(text(m.get("id")) or f"Molecule {i}", text(m.get("smiles")))
                    for i, m in enumerate(molecules, start=1)),
        **_times(record),
    )
