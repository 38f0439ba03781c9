"""The 3D page's scenes as MolViewSpec trees, and the legend that explains them.

Mol* 5.11 loads a MolViewSpec (MVS) state with ``Viewer.loadMvsData``: a tree of
download -> parse -> structure -> component -> representation -> color nodes. The
colours are decided here, on the server, from the parsed model (``model.Model``), so the
legend on the page and the picture are made from the same numbers:

- ``plddt``: each residue in its AlphaFold DB band colour (residues without a value grey);
- ``chain``: each chain its own colour, binder and target named in the legend.

Interface residues get a ball-and-stick layer over the cartoon in the same colours;
ligands are ball-and-stick in one colour; spheres and sticks are drawn as meshes (``MESH``:
the first frame compiles fewer shader programs). The compare page's scene holds two results
(``compare.Side``), the second moved by the fit. URLs in the trees are same-origin paths;
the page's script makes them absolute before loading.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.viewer.provenance.roles import Role
from app.viewer.structure.model import PLDDT_BANDS, Model, band, ranges
from app.viewer.structure_pages.compare import Side

UNKNOWN = "#B0B0B0"
LIGAND = "#AE3EC9"
EPITOPE = "#C2255C"  # the target residues a design contacts (app.viewer.epitope)
CHAIN_COLOURS = ("#E8590C", "#4263EB", "#12B886", "#FAB005", "#868E96", "#D6336C")
# Compare page: result A in blues, result B in oranges (binder strong, target light).
COMPARE_COLOURS = (("#1864AB", "#74C0FC"), ("#D9480F", "#FFC078"))


@dataclass(frozen=True)
class ChainInfo:
    """One chain of the legend: its label id, role and description, and colour."""

    chain: str  # label_asym_id
    auth: str
    role: Role
    description: str
    colour: str
    ligand: bool = False

    @property
    def name(self) -> str:
        """Return the chain as the page names it: "Binder (A)"."""
        return f"{self.role.label} ({self.auth})"


def chain_infos(model: Model, roles: dict[str, Role]) -> list[ChainInfo]:
    """Return the legend's chains: polymers first, then ligands; ``roles`` by auth id."""
    out = []
    for index, chain in enumerate(model.chains):
        auth = model.auth.get(chain, chain)
        out.append(ChainInfo(chain, auth, roles.get(auth, Role.PROTEIN),
                             model.descriptions.get(chain, ""),
                             CHAIN_COLOURS[index % len(CHAIN_COLOURS)]))
    for chain in model.ligands:
        auth = model.auth.get(chain, chain)
        out.append(ChainInfo(chain, auth, roles.get(auth, Role.LIGAND),
                             model.descriptions.get(chain, ""), LIGAND, ligand=True))
    return out


def _selector(runs: list[tuple[str, int, int]]) -> list[dict]:
    return [{"label_asym_id": c, "beg_label_seq_id": b, "end_label_seq_id": e}
            for c, b, e in runs]


def _colour_nodes(model: Model, mode: str, chains: list[ChainInfo]) -> list[dict]:
    """Return the color nodes of a polymer representation in ``mode``."""
    if mode == "chain":
        return [_node("color", color=c.colour, selector={"label_asym_id": c.chain})
                for c in chains if not c.ligand]
    groups: dict[str, list] = {}
    for residue in model.residues:
        colour = UNKNOWN if residue.plddt is None else PLDDT_BANDS[band(residue.plddt)][2]
        groups.setdefault(colour, []).append((residue.chain, residue.seq))
    return [_node("color", color=colour, selector=_selector(ranges(keys)))
            for colour, keys in groups.items()]


def _node(kind: str, children: list | None = None, **params) -> dict:
    node: dict = {"kind": kind}
    if params:
        node["params"] = params
    if children:
        node["children"] = children
    return node


# Mol* draws spheres and sticks as impostors (shader programs of their own, compiled on
# the first frame: in software WebGL, where the 3D page's first frame is bound by shader
# compilation, seconds). As meshes they share the cartoon's program; the few residues of
# the interface, ligand and epitope make small meshes.
MESH = {"molstar_representation_params": {"tryUseImpostor": False}}


def _representation(kind: str, colours: list[dict]) -> dict:
    """Return a representation node of ``kind`` with ``colours``; spheres and sticks as
    meshes (``MESH``)."""
    node = _node("representation", colours, type=kind)
    if kind != "cartoon":
        node["custom"] = MESH
    return node


def structure_node(url: str, fmt: str, components: list[dict],
                   transform: dict | None = None) -> dict:
    """Return download -> parse -> structure (-> transform) with ``components`` under it."""
    children = ([_node("transform", **transform)] if transform else []) + components
    return _node("download", [
        _node("parse", [_node("structure", children, type="model")], format=fmt)], url=url)


def components(model: Model, mode: str, chains: list[ChainInfo],
               polymer_colours: list[dict] | None = None,
               epitope: tuple[tuple[str, int], ...] = ()) -> list[dict]:
    """Return the polymer cartoon, the interface sticks and the ligand, coloured; the
    ``epitope`` residues ((auth chain, residue number): what the design contacts) as
    spheres in ``EPITOPE`` over them."""
    colours = polymer_colours if polymer_colours is not None else \
        _colour_nodes(model, mode, chains)
    out = [_node("component", [_node("representation", list(colours), type="cartoon")],
                 selector="polymer")]
    if model.interface:
        out.append(_node("component", [
            _representation("ball_and_stick", list(colours)),
        ], selector=_selector(ranges(sorted(model.interface)))))
    if model.ligands:
        out.append(_node("component", [
            _representation("ball_and_stick", [_node("color", color=LIGAND)]),
        ], selector="ligand"))
    if epitope:
        label = {auth: chain for chain, auth in model.auth.items()}
        keys = sorted((label.get(chain, chain), number) for chain, number in epitope)
        out.append(_node("component", [
            _representation("spacefill", [_node("color", color=EPITOPE)]),
        ], selector=_selector(ranges(keys))))
    return out


# Mol*'s MolViewSpec loader resets the canvas to Mol*'s defaults on every load, which turns
# ambient occlusion (SSAO) back on whatever the page created the canvas with; a canvas node
# says otherwise only through these keys. Flat: occlusion darkens the colours the legend
# explains, and without a GPU its three passes cost most of every frame.
FLAT = {"molstar_postprocessing": {"enable_ssao": False, "enable_bloom": False,
                                   "enable_outline": False, "enable_shadow": False,
                                   "enable_depth_of_field": False}}


def scene(roots: list[dict]) -> dict:
    """Return an MVS state (version 1) of a white, flat canvas (``FLAT``) and ``roots``."""
    canvas = _node("canvas", background_color="#ffffff")
    canvas["custom"] = FLAT
    return {"metadata": {"version": "1", "title": "Share Viewer"},
            "root": _node("root", [canvas, *roots])}


def result_scenes(url: str, fmt: str, model: Model, chains: list[ChainInfo],
                  epitope: tuple[tuple[str, int], ...] = ()) -> dict:
    """Return {mode: MVS state} of one structure: ``plddt`` (if known) and ``chain``."""
    modes = (["plddt"] if model.confidence_source else []) + ["chain"]
    return {mode: scene([structure_node(url, fmt, components(model, mode, chains,
                                                             epitope=epitope))])
            for mode in modes}


def compare_scene(sides: tuple[Side, Side], transform: dict | None) -> dict:
    """Return the MVS state of two read structures, the second moved by ``transform``.

    Each side's binder chains are in its strong colour, the rest in its light one.
    """
    roots = []
    for index, side in enumerate(sides):
        model, binders = side.model, side.binder_chains
        if model is None:
            raise ValueError("compare_scene needs both models read")
        strong, light = COMPARE_COLOURS[index]
        colours = [_node("color", color=strong if model.auth.get(c, c) in binders else light,
                         selector={"label_asym_id": c}) for c in model.chains]
        roots.append(structure_node(side.url, side.format,
                                    components(model, "chain", [], colours),
                                    transform if index else None))
    return scene(roots)


def band_counts(model: Model) -> list[dict]:
    """Return the legend of the confidence bands, with how many residues fall in each."""
    counts = [0] * len(PLDDT_BANDS)
    for residue in model.residues:
        if residue.plddt is not None:
            counts[band(residue.plddt)] += 1
    return [{"label": label, "colour": colour, "count": count}
            for (_low, label, colour), count in zip(PLDDT_BANDS, counts, strict=True)]


def interface_text(model: Model, chains: list[ChainInfo]) -> list[str]:
    """Return the interface residues as short ranges per chain ("A 12-15, 40")."""
    by_chain: dict[str, list[str]] = {}
    for chain, first, last in ranges(sorted(model.interface)):
        by_chain.setdefault(chain, []).append(str(first) if first == last else
                                              f"{first}-{last}")
    names = {c.chain: c.name for c in chains}
    return [f"{names.get(chain, chain)}: {', '.join(spans)}"
            for chain, spans in by_chain.items()]
