"""The two 3D pages rendered: one structure (``share/structure/page.html``) and two
results superposed (``share/structure/compare.html``).

Both hand Mol* MolViewSpec scenes built by ``scene`` (``static/js/structure.js`` loads
them) and relax the Content-Security-Policy for Mol* (``security.allow_structure_viewer``);
no other page does. The routes call these last, once everything that may be the shared
404 has been read, so a 404 keeps the strict policy.
"""

from __future__ import annotations

from flask import render_template

from app import domain
from app.viewer.core.breadcrumbs import Crumb
from app.viewer.provenance.roles import Role
from app.viewer.structure.model import Model
from app.viewer.structure_pages import compare, scene
from app.viewer.web import security


def structure_page(*, trail: list[Crumb], subject_id: str, url: str, fmt: str,
                   model: Model | None, roles: dict[str, Role], pae_url: str | None = None,
                   pae_download: str | None = None,
                   compare_with=(), samples=(), sample: int | None = None,
                   label: str | None = None, epitope=None) -> str:
    """Render the 3D page of one structure file (``url``, same origin, in format ``fmt``).

    ``model`` is the file read (None: Mol*'s own colours, no legend), ``roles`` its
    chains' roles by auth id, ``compare_with`` [(label, url)] the compare links and
    ``samples`` [(number, url)] a prediction's sample switcher, ``pae_download`` the
    AlphaFold DB PAE file's URL, ``label`` the name a
    person reads (a result's ``explore.labels`` label; None: the id), ``epitope`` the
    design's epitope (``epitope.structure_mark.Mark``; None where there is none).
    """
    security.allow_structure_viewer()
    chains = scene.chain_infos(model, roles) if model else []
    return render_template(
        "share/structure/page.html", trail=trail, subject_id=subject_id, structure_url=url,
        structure_format=fmt, model=model, chains=chains,
        scenes=scene.result_scenes(url, fmt, model, chains,
                                   epitope.residues if epitope else ()) if model else {},
        epitope=epitope,
        bands=scene.band_counts(model) if model else [],
        interface=scene.interface_text(model, chains) if model else [],
        ligand=model.ligands[0] if model and model.ligands else None,
        pae_url=pae_url, pae_download=pae_download, compare=compare_with, samples=samples,
        sample=sample,
        label=label or subject_id,
    )


def compare_page(*, trail: list[Crumb], sides: tuple[compare.Side, compare.Side],
                 link_id: str, pipeline_id: str, kind: domain.Kind,
                 view_args: dict | None = None) -> str:
    """Render two results superposed: B fitted onto A, the RMSDs, one Mol* scene, and
    their metrics side by side (``compare.metric_rows``). ``view_args``: the results
    view the visitor came from, kept on the links to the results.

    Without both models read there is no scene; without a chain to fit on, the two are
    shown as they are.
    """
    security.allow_structure_viewer()
    comparison = compare.fit(*sides)
    transform = comparison.fit.mvs_transform() if comparison else None
    both_read = all(side.model is not None for side in sides)
    return render_template(
        "share/structure/compare.html", trail=trail, sides=sides, comparison=comparison,
        scene=scene.compare_scene(sides, transform) if both_read else None,
        colours=scene.COMPARE_COLOURS, link_id=link_id, pipeline_id=pipeline_id,
        metrics=compare.metric_rows(*sides, kind), metric=domain.metric,
        primary=kind.primary_metric,
        view_args=view_args or {},
    )
