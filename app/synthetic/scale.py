"""Demo data at scale (``seed-demo --results N``): many results on a few shared files.

``protein_design`` and ``small_molecule_library_screen`` then hold N results each. Building
a model and an archive per result would take hours at N = 100,000, so each of the two first
builds a small pool of models and stores their files once: binder designs on a couple of
dozen backbones (60-120 residues), or one docked pose per compound.
Every result then draws its own sequence (a point-mutated variant of its model, so its
length and fold are the model's) or its compound, its metrics, warnings and ADME with a
seeded generator, and gets its own artifact rows (named after the result) pointing at its
model's files, so every download works and identical bytes are stored once. A shared
archive holds the model's files and a ``metrics.json`` describing the model (``"model"``
instead of a result id); the result's own numbers are in its row and the API.

Rows come out in chunks (``Chunk``) that the seeder inserts one after the other, so memory
stays flat whatever N is. They are made as the tuples the insert takes, JSON already text
(no ``NewResult`` per row, no per-row conversion or validation: the data is ours), and
PostgreSQL gets them by ``COPY`` (``catalog.insert_serialised``): about 13,000 results a
second of one core, so ``--results 1000000`` (two million results, five million artifact
rows) is a few minutes. Ids are made from the creation times, as everywhere else, so id
order is creation order.
"""

from __future__ import annotations

import json
import os
import queue
import random
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from app import artifact_storage
from app.platform.ids import _ALPHABET  # the record-id alphabet, so both stay one format
from app.synthetic import chemistry, inputs, metrics, proteins
from app.synthetic.archives import build_zip, metrics_json
from app.synthetic.drafts import PipelineDraft, ResultDraft, protein_entity, times
from app.synthetic.molecule_pipelines import BET_INHIBITORS, plate_well
from app.synthetic.molecule_pipelines import _draft as molecule_draft
from app.synthetic.molecule_pipelines import target as molecule_target
from app.synthetic.pae import pae_npz
from app.synthetic.protein_pipelines import (
    DESIGN_LENGTHS,
    _binder_result,
    _topologies,
    _with_cysteine,
    design_input,
)

SCALED_KINDS = ("protein_design", "small_molecule_library_screen")
# Rows per insert: big enough that round trips do not matter, small enough to stay flat.
CHUNK = 2000
BACKBONES = 16
MODELS_PER_BACKBONE = 3
# A screen's hit rate is low: most wells hold library drugs, a few hold JQ1 analogs.
ANALOG_RATE = 0.03

# (result rows, artifact rows) as ``catalog.insert_serialised`` takes them: tuples in
# ``RESULT_COLUMNS`` / ``ARTIFACT_COLUMNS`` order, JSON columns already JSON text. The
# rows are ours (made here), so nothing builds a ``NewResult`` or validates them: a
# million of each made that way cost most of an hour.
Chunk = tuple[list[tuple], list[tuple]]
_dumps = json.JSONEncoder(ensure_ascii=True, separators=(", ", ": ")).encode


@dataclass(frozen=True)
class StoredFile:
    """A file of the pool, stored once: what each result's artifact row repeats."""

    role: str
    suffix: str  # appended to the result id to make the download's file name
    content_type: str
    storage_path: str
    size: int
    sha256: str


@dataclass(frozen=True)
class Model:
    """A pooled model: what results built on it share (files, sequence or compound)."""

    files: dict[str, StoredFile]  # role -> file
    sequence: str = ""
    regions: tuple = ()
    positions: tuple = ()  # proteins.mutable_positions(regions), computed once
    ss: str = ""
    sheet: int = 0  # residues in strands (the cyclic hairpins)
    quality: float = 0.0  # mean latent quality of the results built on it
    spread: float = 1.0  # their standard deviation around it
    smiles: str = ""


def scaled(kind: str, pipeline_id: str, start: datetime, end: datetime, count: int,
           store) -> tuple[PipelineDraft, Iterator[Chunk]]:
    """Return the pipeline's draft (without results) and a lazy stream of its rows.

    The pool's files are stored in ``store`` (an artifact store, or a directory for the
    file store) before this returns; the rows are made as the stream is read, inside the
    caller's transaction.
    """
    store = artifact_storage.as_store(store)
    if kind == "protein_design":
        return _protein_design(pipeline_id, start, end, count, store)
    if kind == "small_molecule_library_screen":
        return _library_screen(pipeline_id, start, end, count, store)
    raise ValueError(f"{kind} is not scaled")


# --- protein_design ------------------------------------------------------------------


def _protein_design(pipeline_id, start, end, count, store):
    rng = random.Random(7007)  # noqa: S311 - demo data, not secrets
    linear = _binder_models(rng, pipeline_id, start, store)
    draft = PipelineDraft(
        kind="protein_design",
        name="IL-6 miniprotein binders, round 1",
        input=design_input(count),
        created_at=start, completed_at=end, results=[],
        progress={"total_proteins_to_generate": count},
    )
    return draft, _chunks(_binder_rows(rng, pipeline_id, start, end, count, linear))


def _binder_models(rng, pipeline_id, start, store) -> list[Model]:
    """Build and store the pool: ``MODELS_PER_BACKBONE`` designs per backbone."""
    linear = []
    for bb in _topologies(rng, BACKBONES, *DESIGN_LENGTHS):
        for _ in range(MODELS_PER_BACKBONE):
            seq = proteins.design_sequence(rng, bb.regions)
            quality = rng.gauss(0.0, 0.6)
            draft = _binder_result(rng, pipeline_id, f"model_{len(linear) + 1:02d}", start, bb,
                                   seq, "IL-6", quality_mean=quality)
            linear.append(Model(_store_model(store, draft, start), seq, bb.regions,
                                proteins.mutable_positions(bb.regions), bb.ss, 0, quality,
                                0.8))
    return linear


def _binder_rows(rng, pipeline_id, start, end, count, linear):
    """Yield (result row, artifact rows): each design its own sequence, metrics and warnings."""
    target = protein_entity("B", proteins.TARGETS["IL-6"])
    # The entities' JSON around the binder's sequence, serialised once (a sequence is
    # upper-case letters: nothing to escape).
    head, tail = json.dumps([protein_entity("A", "\0"), target]).split('"\\u0000"')
    for at_ms, created in times(start, end, count):
        model = rng.choice(linear)
        seq = proteins.mutate(rng, model.sequence, model.regions, rng.randint(2, 10),
                              model.positions)
        seq = _with_cysteine(rng, seq, 0.05)
        # A variant scores near its parent design (spread 0.8 around a mean of sd 0.6
        # makes sd 1 overall, as the demo's designs).
        m = metrics.binder_metrics(rng, rng.gauss(model.quality, model.spread), model.ss,
                                   model.sheet)
        warnings = metrics.protein_warnings(rng, m, seq)
        rid, art_ids = _ids(at_ms, len(model.files))
        result = (rid, pipeline_id, created, None, f'{head}"{seq}"{tail}', _dumps(m),
                  _dumps(warnings) if warnings else None, None, None, None)
        yield result, _artifact_rows(rid, art_ids, created, model.files.values())


# --- small_molecule_library_screen ---------------------------------------------------


def _library_screen(pipeline_id, start, end, count, store):
    rng = random.Random(8008)  # noqa: S311 - demo data, not secrets
    drugs, analogs = _compound_models(rng, pipeline_id, start, store)
    plates = (count - 1) // 80 + 1
    failed = inputs.failed_count(count)
    draft = PipelineDraft(
        kind="small_molecule_library_screen",
        name=f"BRD4 BD1 approved-drug screen ({plates} plates of L1300)",
        input=inputs.small_molecule_library_screen(
            molecule_target(), inputs.input_file(
                pipeline_id, f"L1300_with_JQ1_analogs_{plates}_plates.csv", start)),
        created_at=start, completed_at=end, results=[],
        progress={"total_molecules_to_screen": count + failed,
                  "num_molecules_failed": failed},
    )
    rows = _compound_rows(rng, pipeline_id, start, end, count, drugs, analogs)
    return draft, _chunks(rows)


def _compound_models(rng, pipeline_id, start, store) -> tuple[list[Model], list[Model]]:
    """Build and store one docked pose (with its SDF) per library drug and JQ1 analog."""
    library = dict(chemistry.LIBRARY)
    series = [s for s in chemistry.series_smiles() if s not in library.values()]
    named = [*library.items(), *((f"JQ1 analog {i + 1}", s) for i, s in enumerate(series))]
    drugs, analogs = [], []
    for k, (name, smiles) in enumerate(named):
        if name in BET_INHIBITORS or name.startswith("JQ1"):
            mean, sd = (1.6, 0.3) if name in BET_INHIBITORS else (0.6, 0.7)
        else:
            mean, sd = -0.9, 0.6
        draft = molecule_draft(rng, pipeline_id, f"model_{k + 1:02d}", start, smiles, name,
                               mean, adme_rate=0.0, sdf_rate=1.0)
        model = Model(_store_model(store, draft, start), quality=mean, spread=sd,
                      smiles=smiles)
        (drugs if name in library else analogs).append(model)
    return drugs, analogs


def _compound_rows(rng, pipeline_id, start, end, count, drugs, analogs):
    """Yield (result, artifact rows): each well a drawn compound with its own measurements."""
    for n, (at_ms, created) in enumerate(times(start, end, count)):
        model = rng.choice(analogs if rng.random() < ANALOG_RATE else drugs)
        smiles = model.smiles
        m = metrics.small_molecule_metrics(rng, rng.gauss(model.quality, model.spread))
        adme = chemistry.adme_for(rng, smiles) if rng.random() < 0.5 else None
        files = dict(model.files)
        if rng.random() >= 0.35:  # ligand SDF files on some results only, as in the demo
            del files["ligand_structure"]
        warnings = metrics.small_molecule_warnings(rng, m, smiles)
        rid, art_ids = _ids(at_ms, len(files))
        result = (rid, pipeline_id, created, None, None, _dumps(m),
                  _dumps(warnings) if warnings else None, smiles,
                  _dumps(adme) if adme else None, plate_well(n, count))
        yield result, _artifact_rows(rid, art_ids, created, files.values())


# --- files and rows ------------------------------------------------------------------


def _store_model(store, draft: ResultDraft, when: datetime) -> dict:
    """Store a model's structure, optional ligand SDF and archive; return them by role."""
    model_id = draft.result.id
    cif = draft.structure_cif.encode()
    files = {"structure": (".cif", "chemical/x-mmcif", cif)}
    members = {f"{model_id}.cif": cif}
    if draft.ligand_sdf is not None:
        sdf = draft.ligand_sdf.encode()
        files["ligand_structure"] = ("_ligand.sdf", "chemical/x-mdl-sdfile", sdf)
        members[f"{model_id}_ligand.sdf"] = sdf
    members["pae.npz"] = pae_npz(draft.structure_cif)
    record = {"model": model_id, "metrics": draft.result.metrics}
    for field in ("entities", "smiles"):
        if getattr(draft.result, field) is not None:
            record[field] = getattr(draft.result, field)
    members["metrics.json"] = metrics_json(record)
    files["archive"] = (".zip", "application/zip", build_zip(members, when))
    stored = {}
    for role, (suffix, content_type, data) in files.items():
        path, size, sha256 = store.save(data)
        stored[role] = StoredFile(role, suffix, content_type, path, size, sha256)
    return stored


def _artifact_rows(result_id: str, ids: list[str], created: datetime,
                   files) -> list[tuple]:
    """Return one artifact row per file (``catalog.ARTIFACT_COLUMNS``), owned by the result
    and named after it."""
    return [(art_id, result_id, None, f.role, f"{result_id}{f.suffix}", f.content_type,
             f.size, f.sha256, f.storage_path, created)
            for art_id, f in zip(ids, files, strict=True)]


# Every pair of Crockford base32 characters (the alphabet of app.platform.ids), by 10-bit value.
_PAIRS = [a + b for a in _ALPHABET for b in _ALPHABET]


def _base32(value: int, pairs: int) -> str:
    """Return the low ``10 * pairs`` bits of ``value`` in Crockford base32, big-endian."""
    return "".join([_PAIRS[(value >> shift) & 1023]
                    for shift in range(10 * (pairs - 1), -1, -10)])


def _ids(at_ms: int, artifacts: int) -> tuple[str, list[str]]:
    """Return a result id and ``artifacts`` artifact ids at ``at_ms``, as ``new_id`` would.

    Same shape as ``app.platform.ids.new_id(at_ms=...)``: the 48-bit time in 10 characters, then
    80 random bits in 16. Calling ``new_id`` per id took several seconds at 100,000
    results, so the time is encoded once and the random bits come from one call.
    """
    head = _base32(at_ms, 5)
    bits = int.from_bytes(os.urandom(10 * (artifacts + 1)), "big")
    tails = _base32(bits, 8 * (artifacts + 1))
    ids = [head + tails[16 * i : 16 * (i + 1)] for i in range(artifacts + 1)]
    return "res_" + ids[0], ["art_" + i for i in ids[1:]]


def _chunks(rows) -> Iterator[Chunk]:
    """Group (result, artifact rows) pairs into chunks of ``CHUNK`` results."""
    results, artifacts = [], []
    for result, rows_of_result in rows:
        results.append(result)
        artifacts += rows_of_result
        if len(results) == CHUNK:
            yield results, artifacts
            results, artifacts = [], []
    if results:
        yield results, artifacts


def prefetched(stream: Iterator[Chunk], depth: int = 2) -> Iterator[Chunk]:
    """Yield the chunks of ``stream``, made ahead in a thread while the caller inserts.

    Making rows is Python work and inserting them is mostly the database's (SQLite and
    the PostgreSQL driver release the GIL meanwhile), so on two cores the two overlap.
    The thread touches no connection; an error in it is raised here, and a consumer that
    stops early (a failed insert) stops the thread at its next chunk.
    """
    chunks: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()
    done = object()

    def offer(item) -> bool:
        """Queue ``item`` unless the consumer has stopped; tell whether it was queued."""
        while not stop.is_set():
            try:
                chunks.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for chunk in stream:
                if not offer(chunk):
                    return
            offer(done)
        except BaseException as error:  # handed to the consumer, which raises it
            offer(error)

    worker = threading.Thread(target=produce, name="demo-scale-rows", daemon=True)
    worker.start()
    try:
        while (item := chunks.get()) is not done:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        worker.join()
