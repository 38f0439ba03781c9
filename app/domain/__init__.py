"""The vocabulary of the compute API: pipeline kinds, result shapes, metrics, applications.

One place lists what the store accepts, what the API models describe and what the viewer
shows: each pipeline kind with the metrics of each of its result variants and the artifact
roles its records name; each metric with its label, unit or range, meaning and which
direction is better; the applications the usage report knows; the ADME fields, solubility
classes, entity types and artifact labels. Labels, ranges and descriptions follow the spec
(section "Metrics").

Pure by design: standard library only (no Flask, SQL or pydantic), so every layer can
import it and a test can pin that it stays so.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from app.domain.adme import (
    ADME_FIELDS,
    ADME_FROM_PREDICTION,
    ADME_FROM_SUMMARY,
    ADME_NO_MODEL,
    SOLUBILITY_CLASSES,
    SOLUBILITY_MEANINGS,
    AdmeField,
    adme_source,
)

Direction = Literal["higher", "lower"]
Family = Literal["protein", "small_molecule"]

# The range of the spec's confidences and fractions (an en dash, as a scientist writes it).
UNIT_RANGE = "0\u20131"


@dataclass(frozen=True)
class Metric:
    """One metric: its key in the API, a short label, its unit and range, its meaning.

    ``direction`` says which way is better ("higher", "lower") or None where neither is
    (secondary-structure fractions describe a design, they do not grade it). ``bands`` are
    the (strong, weak) thresholds that shade table cells, read in that direction.
    """

    key: str
    label: str
    unit: str = ""
    range: str | None = UNIT_RANGE
    description: str = ""
    direction: Direction | None = "higher"
    # Decimals shown in tables; values in 0-1 read best with 2-3.
    decimals: int = 3
    # For 0-1 confidences: strong >= 0.8, weak < 0.5; for PAE: strong < 5 Å, weak > 15 Å.
    bands: tuple[float, float] | None = (0.8, 0.5)
    # What the metric is for each family of pipelines where the spec says it differs:
    # (family label, meaning), e.g. binding confidence of a protein binder and of a molecule.
    by_family: tuple[tuple[str, str], ...] = ()

    @property
    def scale(self) -> str:
        """Return what to print beside a value: its unit, else its range, else ""."""
        return self.unit or self.range or ""


def quality(metric: Metric, value: object) -> str:
    """Return "strong", "weak" or "" for a metric value (drives cell shading)."""
    # bool is an int subclass but never a metric value; type() keeps it out.
    if metric.bands is None or metric.direction is None or type(value) not in (int, float):
        return ""
    strong, weak = metric.bands
    if metric.direction == "higher":
        return "strong" if value >= strong else "weak" if value < weak else ""
    return "strong" if value < strong else "weak" if value > weak else ""


METRICS: dict[str, Metric] = {
    m.key: m
    for m in (
        Metric("binding_confidence", "Binding confidence", description=(
            "Confidence that the binder binds the target, from 0 to 1; the primary metric "
            "for hit discovery (the compute API's specification, which does not say how it "
            "is computed)."), by_family=(
            ("Protein binders (protein design, redesign, sequence redesign, library "
             "screen; structure-and-binding prediction of two proteins)",
             "Confidence that the designed or screened protein binds the target protein. "
             "It is not Boltz-2's affinity probability: Boltz-2's affinity head predicts "
             "small-molecule binding only."),
            ("Small molecules (design, library screen, explore; structure-and-binding "
             "prediction with a ligand)", "Confidence that the molecule binds the target. "
             "Its role is that of Boltz-2's affinity_probability_binary (the predicted "
             "probability that the ligand is a binder rather than a decoy, for hit "
             "discovery); the specification does not say the two are the same number."),
        )),
        Metric("optimization_score", "Optimization score", range=None, decimals=2,
               bands=None, description=(
                   "A ranking score for lead optimisation: higher means stronger predicted "
                   "binding (the compute API's specification). It has no unit and no "
                   "fixed range; the specification gives neither, so read it only against "
                   "other molecules of the same run and target."), by_family=(
            ("Small molecules (design, library screen, explore; structure-and-binding "
             "prediction with a ligand)", "Its role is that of Boltz-2's "
             "affinity_pred_value (for hit-to-lead and lead optimisation), but the scales "
             "differ: Boltz-2's value is log10(IC50 / \u00b5M), lower binds tighter "
             "(pIC50 = 6 \u2212 value), while this score is higher for tighter binding. The "
             "specification gives no conversion: do not read it as an IC50 or a pIC50."),
            ("Protein binders", "Not reported: protein records have no optimization "
             "score."),
        )),
        Metric("iptm", "ipTM", description=(
            "Interface predicted TM score: confidence in the relative placement of the "
            "chains at the interface.")),
        Metric("min_interaction_pae", "Min. interaction PAE", unit="Å", range=None,
               direction="lower", decimals=2, bands=(5.0, 15.0), description=(
                   "Minimum predicted aligned error across the interface, in Ångström; "
                   "lower means higher confidence.")),
        Metric("structure_confidence", "Structure confidence",
               description="Overall confidence in the predicted structure."),
        Metric("ptm", "pTM", description="Predicted TM score of the whole structure."),
        Metric("complex_plddt", "Complex pLDDT", description=(
            "Predicted local distance difference test of the complex, averaged.")),
        Metric("complex_iplddt", "Complex ipLDDT", description=(
            "Interface pLDDT of the complex: local confidence at the interface.")),
        Metric("helix_fraction", "Helix", direction=None, decimals=2, bands=None,
               description="Fraction of residues in alpha helices."),
        Metric("sheet_fraction", "Sheet", direction=None, decimals=2, bands=None,
               description="Fraction of residues in beta sheets."),
        Metric("loop_fraction", "Loop", direction=None, decimals=2, bands=None,
               description="Fraction of residues in loops (neither helix nor sheet)."),
        # Optional: protein results may carry it beyond the spec's metrics; no kind lists
        # it, the viewer shows it where records have it (explore.extra_metrics).
        Metric("ipsae_min", "ipSAE (min)", description=(
            "ipSAE, the interaction prediction Score from Aligned Errors: a TM-score-like "
            "score (0\u20131) of one chain's placement on another, counting only residue "
            "pairs whose predicted aligned error is under a cut-off, with the TM-score's d0 "
            "set by the number of such residues. It is asymmetric (target aligned on "
            "binder, binder aligned on target); this is the lower of the two. The API "
            "reports it; the record does not state the PAE cut-off it used.")),
    )
}

# Metric keys of each record shape, in table order (the spec lists them alphabetically;
# this order puts the metric a scientist ranks by first).
BINDER_METRICS = (
    "binding_confidence", "iptm", "min_interaction_pae", "structure_confidence",
    "helix_fraction", "sheet_fraction", "loop_fraction",
)
GENERIC_METRICS = ("structure_confidence", "helix_fraction", "sheet_fraction", "loop_fraction")
SMALL_MOLECULE_METRICS = (
    "binding_confidence", "optimization_score", "iptm", "ptm", "structure_confidence",
    "complex_plddt", "complex_iplddt",
)


# Metrics only structure-and-binding predictions report (per sample), in the SDK's terms.
# Kept out of METRICS: that dict is also the exploration index's column set.
SAMPLE_ONLY_METRICS: dict[str, Metric] = {
    m.key: m
    for m in (
        Metric("ligand_iptm", "Protein\u2013ligand ipTM", description=(
            "Interface predicted TM score over the protein\u2013ligand interfaces only.")),
        Metric("protein_iptm", "Protein\u2013protein ipTM", description=(
            "Interface predicted TM score over the protein\u2013protein interfaces only; "
            "defined only for a complex of two or more protein chains.")),
        Metric("complex_ipde", "Complex iPDE", unit="\u00c5", range=None, direction="lower",
               decimals=2, bands=None, description=(
                   "Predicted distance error at the interfaces of the complex, in "
                   "\u00c5ngstr\u00f6m; lower is better.")),
        Metric("complex_pde", "Complex PDE", unit="\u00c5", range=None, direction="lower",
               decimals=2, bands=None, description=(
                   "Predicted distance error over the whole complex, in \u00c5ngstr\u00f6m; "
                   "lower is better.")),
    )
}
# A structure-and-binding sample's metrics in table order (the interface first, as
# readers rank complexes), and the prediction's binding metrics.
SAMPLE_METRICS = ("iptm", "ptm", "complex_iplddt", "complex_plddt", "structure_confidence",
                  "ligand_iptm", "protein_iptm", "complex_ipde", "complex_pde")
BINDING_METRICS = ("binding_confidence", "optimization_score")
# What the protein-protein ipTM column says for a complex of fewer than two protein chains:
# it has no protein-protein interface, so the number the record carries scores none.
NO_PROTEIN_INTERFACE = Metric(
    "protein_iptm", "Protein\u2013protein ipTM (no such interface)", direction=None,
    bands=None, description=(
        "This complex has one protein chain, so it has no protein\u2013protein interface: "
        "the value is not an interface score and is not compared between samples."))


def sample_metric(key: str, protein_chains: int) -> Metric:
    """Return metric ``key`` as a prediction of ``protein_chains`` protein chains shows it.

    Protein-protein ipTM scores protein-protein interfaces only: with fewer than two
    protein chains its column says there is none (``NO_PROTEIN_INTERFACE``).
    """
    if key == "protein_iptm" and protein_chains < 2:
        return NO_PROTEIN_INTERFACE
    return metric(key)


def metric(key: str) -> Metric:
    """Return the metric ``key``, inventing a plain one for a key the spec does not list."""
    return METRICS.get(key) or SAMPLE_ONLY_METRICS.get(key) or Metric(
        key, key.replace("_", " ").capitalize(), range=None, direction=None, bands=None)


# What each solubility class says and where ADME values come from: ``app.domain.adme``.

# Artifact roles a result's record can name (``artifacts.<role>``), in download order.
ARTIFACT_LABELS: dict[str, str] = {
    "archive": "All files (zip)",
    "structure": "Structure (mmCIF)",
    "ligand_structure": "Ligand structure",
}
RESULT_ROLES = tuple(ARTIFACT_LABELS)
PROTEIN_ROLES = ("archive", "structure")

ENTITY_TYPES: dict[str, str] = {
    "protein": "Protein",
    "rna": "RNA",
    "dna": "DNA",
    "ligand_ccd": "Ligand (CCD code)",
    "ligand_smiles": "Ligand (SMILES)",
}


@dataclass(frozen=True)
class Kind:
    """A pipeline kind: its plain-language name and the shape of its result records.

    ``variants`` maps each record variant (the ``type`` field of protein_sequence_redesign
    records) to its metric keys; a kind with one shape has none. ``metrics`` is the
    kind's full column set: the union of its variants' metrics, in table order.
    """

    key: str
    label: str
    description: str
    family: Family
    metrics: tuple[str, ...]
    variants: dict[str, tuple[str, ...]] = field(default_factory=dict)
    has_external_id: bool = False
    roles: tuple[str, ...] = PROTEIN_ROLES
    # The metric a recipient ranks this kind's results by first (the default order of its
    # results table, the rank in a result's label): how strongly a design or a screened
    # compound is predicted to bind, or for small-molecule design the score the run
    # optimised.
    primary_metric: str = "binding_confidence"
    # Whether result records carry ADME predictions (small-molecule design and library
    # screen; explore records are library-screen records without them).
    has_adme: bool = False

    @property
    def has_variant(self) -> bool:
        """Whether records carry a ``type`` that selects their shape."""
        return bool(self.variants)

    def metrics_for(self, variant: str | None) -> tuple[str, ...]:
        """Return the metric keys of a record of ``variant`` (the kind's all if unknown)."""
        return self.variants.get(variant or "", self.metrics)

    def metrics_of(self, variants: Iterable[str | None]) -> tuple[str, ...]:
        """Return the metric keys of records of these variants together, in table order.

        No variants (an empty page) gives the kind's full set.
        """
        wanted = {key for variant in set(variants) for key in self.metrics_for(variant)}
        return tuple(key for key in self.metrics if key in wanted) if wanted else self.metrics


_SMALL_MOLECULE_ROLES = RESULT_ROLES

KINDS: dict[str, Kind] = {
    k.key: k
    for k in (
        Kind("protein_design", "Protein design",
             "Proteins designed from scratch to bind a target.", "protein", BINDER_METRICS),
        Kind("protein_redesign", "Protein redesign",
             "Redesigned variants of an existing protein binder.", "protein", BINDER_METRICS),
        # BINDER_METRICS holds every generic metric, so it is the union of both variants.
        Kind("protein_sequence_redesign", "Protein sequence redesign",
             "New sequences for a fixed backbone, as binders or generic designs.", "protein",
             BINDER_METRICS, variants={"binder": BINDER_METRICS, "generic": GENERIC_METRICS}),
        Kind("protein_library_screen", "Protein library screen",
             "A library of proteins screened against a target.", "protein", BINDER_METRICS,
             has_external_id=True),
        Kind("small_molecule_design", "Small-molecule design",
             "Small molecules designed to bind a target.", "small_molecule",
             SMALL_MOLECULE_METRICS, roles=_SMALL_MOLECULE_ROLES,
             primary_metric="optimization_score", has_adme=True),
        Kind("small_molecule_library_screen", "Small-molecule library screen",
             "A library of small molecules screened against a target.", "small_molecule",
             SMALL_MOLECULE_METRICS, has_external_id=True, roles=_SMALL_MOLECULE_ROLES,
             has_adme=True),
        # Records are library-screen records without ADME (boltz-api 0.50.0).
        Kind("small_molecule_explore", "Small-molecule explore",
             "A large library explored by scoring the most promising molecules first.",
             "small_molecule", SMALL_MOLECULE_METRICS, has_external_id=True,
             roles=_SMALL_MOLECULE_ROLES),
    )
}
PIPELINE_KINDS = tuple(KINDS)
PROTEIN_KINDS = tuple(k for k, v in KINDS.items() if v.family == "protein")
SMALL_MOLECULE_KINDS = tuple(k for k, v in KINDS.items() if v.family == "small_molecule")
SCREEN_KINDS = tuple(k for k, v in KINDS.items() if v.has_external_id)


def kind(key: str | None) -> Kind:
    """Return the kind ``key``, or a plain protein kind for one we do not know."""
    if key in KINDS:
        return KINDS[key]
    label = (key or "pipeline").replace("_", " ").capitalize()
    return Kind(key or "unknown", label, "", "protein", BINDER_METRICS)


# Applications the usage report knows, in the order of the usage API. protein_redesign is
# not in the spec's list, but the public SDK offers it as a filter value.
APPLICATIONS: dict[str, str] = {
    "structure_and_binding": "Structure and binding prediction",
    "small_molecule_design": "Small-molecule design",
    "small_molecule_library_screen": "Small-molecule library screen",
    "protein_design": "Protein design",
    "protein_redesign": "Protein redesign",
    "protein_library_screen": "Protein library screen",
    "adme": "ADME prediction",
}

# The warning code a result record carries when values of it that could not be read were
# left out: added by the API to a stored record not in its schema's shape, and by the
# viewer to a record whose values it cannot read. Its message names the fields.
UNREADABLE_VALUES = "unreadable_values"

# Re-exported: every layer reads the ADME vocabulary from ``app.domain``.
__all__ = ["ADME_FIELDS", "ADME_FROM_PREDICTION", "ADME_FROM_SUMMARY", "ADME_NO_MODEL",
           "SOLUBILITY_CLASSES", "SOLUBILITY_MEANINGS", "AdmeField", "adme_source"]

# The longest id the API stores and serves: the width of every id column of its store.
# The ids it makes are shorter (``app.platform.ids``); a record written into the store by
# other means may have any id up to this long, and a page cursor (``after_id``,
# ``before_id``) may be any such id, so that every id the API serves can be paged past.
MAX_ID_LENGTH = 64
