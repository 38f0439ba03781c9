"""What a prediction page shows: ADME rows (sortable), structure-and-binding samples.

Pure functions over the prediction record the API returns (the SDK's ``model``, ``input``
and ``output``; its files are read from ``output`` by ``core.prediction_files``): no Flask,
no HTTP, so they are tested on plain dicts. The type comes from ``model``
(``core.run_kinds``). Labels, units and solubility classes come from ``app.domain``, the
same vocabulary as the results tables.

ADME: one row per molecule in request order; ``sort=<key>`` or ``sort=-<key>`` orders them
by one column (``ADME_SORT_KEYS``), missing values last whichever the direction, ties in
request order. Structure and binding: the samples of ``output.all_sample_results``,
numbered 1, 2, ... in that list's order (the numbers of ``?sample=`` on the 3D page and of
the ``structure_sample_<n>`` files), best first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from app import domain
from app.viewer.core import run_kinds
from app.viewer.core.errors import BadRequest
from app.viewer.core.prediction_files import SAMPLE_ROLE, prediction_files
from app.viewer.pages import glossary, sample_metrics
from app.viewer.provenance import prediction_provenance
from app.viewer.results.table import Column  # the results tables' own: one header partial for both

# The columns of the ADME table, which are also its sort keys, in display order.
ADME_SORT_KEYS = ("name", "smiles", *domain.ADME_FIELDS)
# Solubility classes ranked from least to most soluble (ascending order of the column).
_SOLUBILITY_RANK = {value: rank for rank, value in enumerate(reversed(domain.SOLUBILITY_CLASSES))}


class Sort(NamedTuple):
    """A validated ``sort=`` value: the column key and whether it is descending."""

    key: str
    descending: bool

    @property
    def arg(self) -> str:
        """Return the value of ``sort=`` that asks for this order."""
        return f"-{self.key}" if self.descending else self.key


@dataclass(frozen=True)
class AdmeRow:
    """One molecule of an ADME prediction, as the table shows it."""

    position: int  # 1-based place in the request (the order of the outputs)
    name: str | None
    smiles: str
    status: str
    error: str | None
    lipophilicity: float | None
    permeability: float | None
    solubility: str | None

    @property
    def solubility_label(self) -> str:
        """Return the class's label of the results tables (the raw value if unknown)."""
        return domain.SOLUBILITY_CLASSES.get(self.solubility or "", (self.solubility or "",))[0]

    @property
    def solubility_tone(self) -> str:
        """Return the class's CSS tone (``good``, ``fair``, ``risk``) or ""."""
        return domain.SOLUBILITY_CLASSES.get(self.solubility or "", ("", ""))[1]


def adme_columns() -> tuple[Column, ...]:
    """Return the ADME table's columns after the depiction, with labels from the domain."""
    fields = tuple(Column(key, field.label, field.unit, field.description,
                          numeric=key != "solubility")
                   for key, field in domain.ADME_FIELDS.items())
    return (Column("name", "Molecule", "", "The identifier given with the molecule."),
            Column("smiles", "SMILES", "", "The molecule as a SMILES string."), *fields)


def model_phrase(item: dict) -> str:
    """Return the prediction's model as its record names it ("ADME v1, version 1"), or ""."""
    return prediction_provenance(item).engine


def parse_sort(value: str | None) -> Sort | None:
    """Read ``sort=`` of the ADME page: None for no value, else a ``Sort``.

    Raises ``BadRequest`` naming ``sort`` and the keys it accepts for anything else.
    """
    if not value:
        return None
    key = value[1:] if value.startswith("-") else value
    if key not in ADME_SORT_KEYS:
        raise BadRequest(f"sort must be one of {', '.join(ADME_SORT_KEYS)} (with a leading "
                           f"'-' for descending), not {value[:40]!r}")
    return Sort(key, value.startswith("-"))


def _number(value: object) -> float | None:
    """Return ``value`` if it is a finite number (bool excluded), else None."""
    if type(value) not in (int, float) or value != value:  # NaN never equals itself
        return None
    return float(value)


def _text(value: object) -> str | None:
    """Return ``value`` as stripped text, or None for nothing."""
    text = "" if value is None else str(value).strip()
    return text or None


def adme_rows(item: dict) -> list[AdmeRow]:
    """Return one row per molecule of an ADME prediction, in request order.

    The output's molecules carry the results (``adme``, ``status``, ``error``); a molecule
    of the input without output yet still gets a row with its SMILES. The name is the
    client's identifier: ``external_id`` of the output, else the input's ``id``, else the
    output's ``id``.
    """
    given = (item.get("input") or {}).get("molecules") or []
    results = (item.get("output") or {}).get("molecules") or []
    rows = []
    for index in range(max(len(given), len(results))):
        asked = given[index] if index < len(given) and isinstance(given[index], dict) else {}
        result = results[index] if index < len(results) and isinstance(
            results[index], dict) else {}
        adme = result.get("adme") if isinstance(result.get("adme"), dict) else {}
        error = result.get("error")
        rows.append(AdmeRow(
            position=index + 1,
            name=_text(result.get("external_id") or asked.get("id") or result.get("id")),
            smiles=_text(result.get("smiles") or asked.get("smiles")) or "",
            status=_text(result.get("status")) or ("pending" if not result else "unknown"),
            error=_text(error.get("message") if isinstance(error, dict) else error),
            lipophilicity=_number(adme.get("lipophilicity")),
            permeability=_number(adme.get("permeability")),
            solubility=_text(adme.get("solubility")),
        ))
    return rows


def _sort_value(row: AdmeRow, key: str) -> float | str | None:
    """Return the value of ``row`` that ``key`` orders by (None: missing)."""
    if key == "name":
        return row.name.casefold() if row.name else None
    if key == "smiles":
        return row.smiles or None
    if key == "solubility":
        return _SOLUBILITY_RANK.get(row.solubility or "")
    return getattr(row, key)


def sort_adme(rows: list[AdmeRow], sort: Sort | None) -> list[AdmeRow]:
    """Return ``rows`` in the order ``sort`` asks (request order for None).

    Missing values go last in both directions (a visitor sorting by permeability wants
    the measured molecules first); equal values keep request order.
    """
    if sort is None:
        return sorted(rows, key=lambda r: r.position)
    present = [r for r in rows if _sort_value(r, sort.key) is not None]
    missing = [r for r in rows if _sort_value(r, sort.key) is None]
    # Two stable sorts: by position, then by value, so ties stay in request order.
    present.sort(key=lambda r: r.position)
    present.sort(key=lambda r: _sort_value(r, sort.key), reverse=sort.descending)
    return present + sorted(missing, key=lambda r: r.position)


def header_sort(key: str, current: Sort | None) -> tuple[str, str | None]:
    """Return the ``sort=`` a column header links to, and its ``aria-sort`` (or None).

    A click on the sorted column reverses it; any other column starts ascending.
    """
    if current is not None and current.key == key:
        return Sort(key, not current.descending).arg, (
            "descending" if current.descending else "ascending")
    return key, None


def adme_input_summary(item: dict) -> dict:
    """Summarise an ADME request: how many molecules, and any other options given."""
    given = item.get("input") or {}
    molecules = given.get("molecules") or []
    others = {k: v for k, v in given.items() if k != "molecules"}
    return {"molecules": len(molecules),
            "named": sum(1 for m in molecules if isinstance(m, dict) and m.get("id")),
            "options": others}


@dataclass(frozen=True)
class Sample:
    """One structure-and-binding sample: its number, metrics and whether it is the best."""

    number: int  # 1-based position in ``output.all_sample_results``
    metrics: dict
    best: bool


def samples(item: dict) -> list[Sample]:
    """Return a structure-and-binding prediction's samples, best first, then by number.

    The best is the sample whose metrics equal ``output.best_sample``'s; without such a
    match, the one of highest structure confidence (else sample 1).
    """
    output = item.get("output") or {}
    listed = [s.get("metrics") or {} for s in output.get("all_sample_results") or []
              if isinstance(s, dict)]
    best_metrics = (output.get("best_sample") or {}).get("metrics") or {}
    if not listed:
        return [Sample(1, best_metrics, True)] if best_metrics else []
    best = next((n for n, m in enumerate(listed, 1) if best_metrics and m == best_metrics),
                None)
    if best is None:
        scores = [(_number(m.get("structure_confidence")) or 0.0, -n)
                  for n, m in enumerate(listed, 1)]
        best = -max(scores)[1]
    found = [Sample(n, m, n == best) for n, m in enumerate(listed, 1)]
    return sorted(found, key=lambda s: (not s.best, s.number))


def protein_chains(item: dict) -> int:
    """Return how many protein chains the prediction's input names (its entities')."""
    count = 0
    for entity in (item.get("input") or {}).get("entities") or []:
        if isinstance(entity, dict) and entity.get("type") == "protein":
            chains = entity.get("chain_ids")
            count += len(chains) if isinstance(chains, list) and chains else 1
    return count


def sample_columns(found: list[Sample], chains: int = 2) -> tuple[Column, ...]:
    """Return the metric columns of the samples table: the domain's order, then others.

    Labels are ``domain.sample_metric``'s for a complex of ``chains`` protein chains.
    """
    present = {key for s in found for key in s.metrics}
    keys = [k for k in domain.SAMPLE_METRICS if k in present]
    keys += sorted(present.difference(keys))
    return tuple(_metric_column(domain.sample_metric(key, chains)) for key in keys)


def binding_columns(item: dict) -> tuple[Column, ...]:
    """Return the columns of the prediction's binding metrics that it reports."""
    binding = (item.get("output") or {}).get("binding_metrics") or {}
    keys = [k for k in domain.BINDING_METRICS if k in binding]
    keys += sorted(k for k in binding if k not in keys and k != "type")
    return tuple(_metric_column(domain.metric(key)) for key in keys)


def _metric_column(metric: domain.Metric) -> Column:
    return Column(metric.key, metric.label, metric.scale, metric.description, numeric=True)


def sample_structure_artifacts(item: dict) -> list[dict]:
    """Return the structure file of each sample, in sample order, each with ``sample``.

    The files are ``structure_sample_<n>`` of ``core.prediction_files`` (from
    ``output.all_sample_results``). A prediction whose samples have no file but whose best
    sample has one (``structure``) gets that one as sample 1.
    """
    found = [f for f in prediction_files(item) if f["name"].startswith("structure_sample_")]
    if found:
        return found
    single = next((f for f in prediction_files(item) if f["name"] == "structure"), None)
    return [{**single, "sample": 1}] if single else []


def structure_files(item: dict) -> list[dict]:
    """Return the files the 3D page shows: a structure_and_binding prediction's samples'.

    Other types (known from ``model``) have none; a prediction with per-sample files only
    still gets its "View 3D structure" button.
    """
    if run_kinds.prediction_type(item) != "structure_and_binding":
        return []
    return sample_structure_artifacts(item)


def sample_structure_artifact(item: dict, number: int) -> dict | None:
    """Return sample ``number``'s structure file (see above), or None."""
    return next((a for a in sample_structure_artifacts(item) if a["sample"] == number), None)


# What a prediction's file holds, by role (per-sample roles are worked out).
_FILE_LABELS = {
    "structure": "Structure of the best sample",
    "ligand_structure": "Ligand of the best sample",
    "archive": domain.ARTIFACT_LABELS["archive"],
}


def file_label(role: str) -> str:
    """Return what the prediction's file of ``role`` holds, in words."""
    match = SAMPLE_ROLE.fullmatch(role)
    if match:
        what = "Structure" if match.group(1) == "structure" else "Ligand"
        return f"{what} of sample {match.group(2)}"
    return _FILE_LABELS.get(role) or role.replace("_", " ").capitalize()


def files(item: dict) -> list[tuple[dict, str]]:
    """Return the prediction's files in reading order, each with what it holds.

    The best sample's structure and ligand, then each sample's in sample order, then the
    archive (``core.prediction_files``).
    """
    return [(found, file_label(found["name"])) for found in prediction_files(item)]


def shade(key: str, value: object, chains: int = 2) -> str:
    """Return the quality shade ("strong", "weak", "") of metric ``key``'s value in a
    complex of ``chains`` protein chains (``domain.sample_metric``)."""
    return domain.quality(domain.sample_metric(key, chains), value)


def page_content(item: dict, sort: Sort | None) -> dict:
    """Return what the prediction page shows for the item's type (from its ``model``).

    ``files`` lists its files in reading order with labels; ``kind`` says which part
    renders: ``adme`` (rows, columns, sort, input), ``structure_and_binding`` (samples
    best first, their columns, per metric the samples best at it, binding columns with
    what each is for, the numbers of the samples that have a structure file, and
    ``domain`` for the entity partial) or ``other`` (the page falls
    back to the raw values).
    """
    application = run_kinds.prediction_type(item)
    common = {"files": files(item)}
    if application == "adme":
        return {**common, "kind": "adme", "rows": sort_adme(adme_rows(item), sort),
                "columns": adme_columns(), "sort": sort, "header_sort": header_sort,
                "input": adme_input_summary(item),
                "source": domain.adme_source("prediction", model_phrase(item))}
    if application == "structure_and_binding":
        found = samples(item)
        chains = protein_chains(item)
        columns = sample_columns(found, chains)
        # Only metrics with a direction in this complex are compared between samples.
        graded = (c.key for c in columns if domain.sample_metric(c.key, chains).direction)
        return {**common, "kind": "structure_and_binding", "samples": found,
                "best": next((s for s in found if s.best), None), "columns": columns,
                "metric_best": sample_metrics.best_by_metric(found, graded),
                "purpose": glossary.PURPOSE, "binding_columns": binding_columns(item),
                "binding": (item.get("output") or {}).get("binding_metrics") or {},
                # Only these samples link to a 3D view: another number is the 3D page's 400.
                "structure_samples": {a["sample"] for a in sample_structure_artifacts(item)},
                "shade": lambda key, value: shade(key, value, chains), "domain": domain}
    return {**common, "kind": "other"}
