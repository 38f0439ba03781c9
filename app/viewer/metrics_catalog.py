"""What each metric, result kind and application means, in words a scientist reads.

Labels, units/ranges and descriptions come from the compute API spec (section
"Metrics"); the column sets say which metrics each of the six result page shapes carries.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Metric:
    """One metric: its key in the API, a short label, its unit or range, a description."""

    key: str
    label: str
    unit: str
    description: str
    # Decimals shown in tables; ranges 0-1 read best with 2-3.
    decimals: int = 3
    # Whether a higher value is better (for the hint shown beside the header).
    higher_is_better: bool | None = True
    # (strong, weak) thresholds for shading table cells, or None for no shading. For
    # 0-1 confidences: strong >= 0.8, weak < 0.5; for PAE: strong < 5 Å, weak > 15 Å.
    bands: tuple[float, float] | None = (0.8, 0.5)


def quality(metric_def: Metric, value) -> str:
    """Return "strong", "weak" or "" for a metric value (drives cell shading)."""
    if metric_def.bands is None or metric_def.higher_is_better is None \
            or type(value) not in (int, float):
        return ""
    strong, weak = metric_def.bands
    if metric_def.higher_is_better:
        return "strong" if value >= strong else "weak" if value < weak else ""
    return "strong" if value < strong else "weak" if value > weak else ""


METRICS: dict[str, Metric] = {
    m.key: m
    for m in (
        Metric(
            "binding_confidence", "Binding confidence", "0\u20131",
            "Confidence that the binder binds the target; the primary metric for hit "
            "discovery.",
        ),
        Metric(
            "optimization_score", "Optimization score", "score",
            "Higher means stronger predicted binding; used to rank candidates in lead "
            "optimisation.", decimals=2, bands=None,
        ),
        Metric(
            "iptm", "ipTM", "0\u20131",
            "Interface predicted TM score: confidence in the relative placement of the "
            "chains at the interface.",
        ),
        Metric(
            "min_interaction_pae", "Min. interaction PAE", "Å",
            "Minimum predicted aligned error across the interface, in Ångström; lower "
            "means higher confidence.", decimals=2, higher_is_better=False, bands=(5.0, 15.0),
        ),
        Metric(
            "structure_confidence", "Structure confidence", "0\u20131",
            "Overall confidence in the predicted structure.",
        ),
        Metric("ptm", "pTM", "0\u20131", "Predicted TM score of the whole structure."),
        Metric(
            "complex_plddt", "Complex pLDDT", "0\u20131",
            "Predicted local distance difference test of the complex, averaged.",
        ),
        Metric(
            "complex_iplddt", "Complex ipLDDT", "0\u20131",
            "Interface pLDDT of the complex: local confidence at the interface.",
        ),
        Metric(
            "helix_fraction", "Helix", "0\u20131",
            "Fraction of residues in alpha helices.", decimals=2, higher_is_better=None,
            bands=None,
        ),
        Metric(
            "sheet_fraction", "Sheet", "0\u20131",
            "Fraction of residues in beta sheets.", decimals=2, higher_is_better=None,
            bands=None,
        ),
        Metric(
            "loop_fraction", "Loop", "0\u20131",
            "Fraction of residues in loops (neither helix nor sheet).", decimals=2,
            higher_is_better=None, bands=None,
        ),
    )
}

# Metric columns in table order, per metric family.
BINDER_METRICS = (
    "binding_confidence", "iptm", "min_interaction_pae", "structure_confidence",
    "helix_fraction", "sheet_fraction", "loop_fraction",
)
GENERIC_METRICS = ("structure_confidence", "helix_fraction", "sheet_fraction", "loop_fraction")
SMALL_MOLECULE_METRICS = (
    "binding_confidence", "optimization_score", "iptm", "ptm", "structure_confidence",
    "complex_plddt", "complex_iplddt",
)

ADME_FIELDS = {
    "lipophilicity": ("Lipophilicity", "logD", "Predicted lipophilicity (logD)."),
    "permeability": ("Permeability", "", "Predicted membrane permeability."),
    "solubility": ("Solubility", "class", "Predicted solubility class."),
}
SOLUBILITY_CLASSES = {
    "high-confidence": ("Soluble (high confidence)", "good"),
    "medium-confidence": ("Soluble (medium confidence)", "fair"),
    "high-risk": ("Solubility risk", "risk"),
}


@dataclass(frozen=True)
class Kind:
    """A pipeline kind: its plain-language name and the shape of its results."""

    key: str
    label: str
    description: str
    family: str  # protein | small_molecule
    metrics: tuple[str, ...]
    has_external_id: bool = False
    has_variant: bool = False


KINDS: dict[str, Kind] = {
    k.key: k
    for k in (
        Kind("protein_design", "Protein design",
             "Proteins designed from scratch to bind a target.", "protein", BINDER_METRICS),
        Kind("protein_redesign", "Protein redesign",
             "Redesigned variants of an existing protein binder.", "protein", BINDER_METRICS),
        Kind("protein_sequence_redesign", "Protein sequence redesign",
             "New sequences for a fixed backbone, as binders or generic designs.", "protein",
             BINDER_METRICS, has_variant=True),
        Kind("protein_library_screen", "Protein library screen",
             "A library of proteins screened against a target.", "protein", BINDER_METRICS,
             has_external_id=True),
        Kind("small_molecule_design", "Small-molecule design",
             "Small molecules designed to bind a target.", "small_molecule",
             SMALL_MOLECULE_METRICS),
        Kind("small_molecule_library_screen", "Small-molecule library screen",
             "A library of small molecules screened against a target.", "small_molecule",
             SMALL_MOLECULE_METRICS, has_external_id=True),
    )
}

APPLICATIONS = {
    "structure_and_binding": "Structure and binding prediction",
    "small_molecule_design": "Small-molecule design",
    "small_molecule_library_screen": "Small-molecule library screen",
    "protein_design": "Protein design",
    "protein_library_screen": "Protein library screen",
    "adme": "ADME prediction",
}

ENTITY_TYPES = {
    "protein": "Protein",
    "rna": "RNA",
    "dna": "DNA",
    "ligand_ccd": "Ligand (CCD code)",
    "ligand_smiles": "Ligand (SMILES)",
}

ARTIFACT_LABELS = {
    "archive": "All files (zip)",
    "structure": "Structure (mmCIF)",
    "ligand_structure": "Ligand structure",
}
ARTIFACT_NAMES = tuple(ARTIFACT_LABELS)


def kind(key: str | None) -> Kind:
    """Return the kind ``key``, or a generic protein kind for one we do not know."""
    if key in KINDS:
        return KINDS[key]
    label = (key or "pipeline").replace("_", " ").capitalize()
    return Kind(key or "unknown", label, "", "protein", BINDER_METRICS)


def metric(key: str) -> Metric:
    """Return the metric ``key``, inventing a plain one for a key the spec does not list."""
    return METRICS.get(key) or Metric(key, key.replace("_", " ").capitalize(), "", "", 3, None)
