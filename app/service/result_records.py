"""The six record shapes of pipeline results, and the function that builds them.

The pydantic models document the results endpoint in the OpenAPI document (one page shape
per pipeline kind); the tests validate every record the endpoint returns against the model
of its kind, so the documentation and ``result_json`` cannot drift apart.

Optional fields (``warnings``, ``adme``, ``external_id``, ``artifacts.structure`` where the
spec makes it optional, ``artifacts.ligand_structure``) are omitted when the result has no
value: they are never ``null``.
"""

from __future__ import annotations

import functools
import operator
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, RootModel, create_model

from app.service.artifacts import presign
from app.store.catalog import RESULT_ROLES
from app.store.results import Artifact, Result
from app.timeutil import isoformat

PROTEIN_KINDS = ("protein_design", "protein_redesign", "protein_sequence_redesign",
                 "protein_library_screen")
SMALL_MOLECULE_KINDS = ("small_molecule_design", "small_molecule_library_screen")
SCREEN_KINDS = ("protein_library_screen", "small_molecule_library_screen")


def result_json(kind: str, result: Result, artifacts: list[Artifact]) -> dict[str, Any]:
    """Shape one result as the record of its pipeline kind's page shape."""
    body: dict[str, Any] = {
        "id": result.id,
        "artifacts": {a.role: presign(a.id) for a in artifacts if a.role in RESULT_ROLES},
        "created_at": isoformat(result.created_at),
    }
    if kind in PROTEIN_KINDS:
        body["entities"] = result.entities or []
    if kind == "protein_sequence_redesign":
        body["type"] = result.variant or "binder"
    body["metrics"] = result.metrics
    if kind in SMALL_MOLECULE_KINDS:
        body["smiles"] = result.smiles
        if result.adme is not None:
            body["adme"] = result.adme
    if kind in SCREEN_KINDS and result.external_id is not None:
        body["external_id"] = result.external_id
    if result.warnings is not None:
        body["warnings"] = result.warnings
    return body


# Documentation models (see the module docstring).

class ArtifactUrl(BaseModel):
    """A presigned download URL and when it expires."""

    url: str
    url_expires_at: str


class Modification(BaseModel):
    residue_index: int = Field(description="0-based index of the residue.")
    type: Literal["ccd"]
    value: str = Field(description="CCD code.")


class PolymerEntity(BaseModel):
    type: Literal["protein", "rna", "dna"]
    chain_ids: list[str]
    value: str = Field(description="Sequence (one-letter codes).")
    cyclic: bool | None = None
    modifications: list[Modification] | None = None


class LigandEntity(BaseModel):
    type: Literal["ligand_ccd", "ligand_smiles"]
    chain_ids: list[str]
    value: str = Field(description="CCD code or SMILES string.")


Entity = Annotated[PolymerEntity | LigandEntity, Field(discriminator="type")]


class ResultWarning(BaseModel):
    code: str
    message: str


class BinderMetrics(BaseModel):
    binding_confidence: float
    helix_fraction: float
    iptm: float
    loop_fraction: float
    min_interaction_pae: float
    sheet_fraction: float
    structure_confidence: float


class GenericMetrics(BaseModel):
    helix_fraction: float
    loop_fraction: float
    sheet_fraction: float
    structure_confidence: float


class SmallMoleculeMetrics(BaseModel):
    binding_confidence: float
    complex_iplddt: float
    complex_plddt: float
    iptm: float
    optimization_score: float
    ptm: float
    structure_confidence: float


class Adme(BaseModel):
    lipophilicity: float
    permeability: float
    solubility: Literal["high-confidence", "medium-confidence", "high-risk"]


class ProteinArtifacts(BaseModel):
    archive: ArtifactUrl
    structure: ArtifactUrl | None = None


class ScreenArtifacts(BaseModel):
    archive: ArtifactUrl
    structure: ArtifactUrl


class SmallMoleculeArtifacts(BaseModel):
    archive: ArtifactUrl
    structure: ArtifactUrl
    ligand_structure: ArtifactUrl | None = None


class ProteinDesignResult(BaseModel):
    """A record of protein_design and protein_redesign pipelines."""

    id: str
    artifacts: ProteinArtifacts
    created_at: str
    entities: list[Entity]
    metrics: BinderMetrics
    warnings: list[ResultWarning] | None = None


class BinderRedesignResult(ProteinDesignResult):
    type: Literal["binder"]


class GenericRedesignResult(ProteinDesignResult):
    type: Literal["generic"]
    metrics: GenericMetrics


class ProteinLibraryScreenResult(ProteinDesignResult):
    artifacts: ScreenArtifacts
    external_id: str | None = None


class SmallMoleculeDesignResult(BaseModel):
    id: str
    artifacts: SmallMoleculeArtifacts
    created_at: str
    metrics: SmallMoleculeMetrics
    smiles: str
    adme: Adme | None = None
    warnings: list[ResultWarning] | None = None


class SmallMoleculeScreenResult(SmallMoleculeDesignResult):
    external_id: str | None = None


SequenceRedesignResult = Annotated[BinderRedesignResult | GenericRedesignResult,
                                   Field(discriminator="type")]


def _page(name: str, record: Any) -> type[BaseModel]:
    """Make the page model ``name`` whose ``data`` holds ``record`` items."""
    return create_model(
        name, __module__=__name__, data=(list[record], ...), first_id=(str | None, ...),
        last_id=(str | None, ...), has_more=(bool, ...),
    )


PAGE_MODELS: dict[str, type[BaseModel]] = {
    "protein_design": _page("ProteinDesignResultsResponse", ProteinDesignResult),
    "protein_redesign": _page("ProteinRedesignResultsResponse", ProteinDesignResult),
    "protein_sequence_redesign": _page("ProteinSequenceRedesignResultsResponse",
                                       SequenceRedesignResult),
    "protein_library_screen": _page("ProteinLibraryScreenResultsResponse",
                                    ProteinLibraryScreenResult),
    "small_molecule_design": _page("SmDesignResultsResponse", SmallMoleculeDesignResult),
    "small_molecule_library_screen": _page("SmScreenResultsResponse",
                                           SmallMoleculeScreenResult),
}

_ANY_PAGE = functools.reduce(operator.or_, PAGE_MODELS.values())


class ShareResultsPage(RootModel[_ANY_PAGE]):
    """One page of results: the page shape of the pipeline's ``kind`` (see GET /share/{id})."""


ResultsPage = ShareResultsPage
