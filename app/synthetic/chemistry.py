"""Small molecules for the demo: real drug SMILES, an analog series, CCD codes, ADME.

The screening library is a set of approved drugs and well-known tool compounds (their
public SMILES). The design series varies the para-substituent of the chlorophenyl ring and
the ester/amide of the BET bromodomain inhibitor (+)-JQ1, a classic lead-optimisation
exercise against BRD4. Every SMILES here is validated with RDKit in the test suite and has
a precomputed 3D conformer in ``conformers.py``.

ADME units (documented in the README): ``lipophilicity`` is logD at pH 7.4;
``permeability`` is the Caco-2 apparent permeability (A to B) in units of 1e-6 cm/s, so
12.5 means 12.5 x 10^-6 cm/s; ``solubility`` is a risk class.
"""

from __future__ import annotations

import random

# (name, SMILES): approved drugs and tool compounds with drug-like properties.
LIBRARY = (
    ("aspirin", "CC(=O)Oc1ccccc1C(=O)O"),
    ("ibuprofen", "CC(C)Cc1ccc(cc1)C(C)C(=O)O"),
    ("paracetamol", "CC(=O)Nc1ccc(O)cc1"),
    ("caffeine", "Cn1cnc2c1c(=O)n(C)c(=O)n2C"),
    ("imatinib", "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1"),
    ("gefitinib", "COc1cc2ncnc(Nc3ccc(F)c(Cl)c3)c2cc1OCCCN1CCOCC1"),
    ("erlotinib", "COCCOc1cc2ncnc(Nc3cccc(c3)C#C)c2cc1OCCOC"),
    ("celecoxib", "Cc1ccc(cc1)-c1cc(nn1-c1ccc(cc1)S(N)(=O)=O)C(F)(F)F"),
    ("sildenafil", "CCCc1nn(C)c2c1nc([nH]c2=O)-c1cc(ccc1OCC)S(=O)(=O)N1CCN(C)CC1"),
    ("diclofenac", "OC(=O)Cc1ccccc1Nc1c(Cl)cccc1Cl"),
    ("naproxen", "COc1ccc2cc(ccc2c1)[C@H](C)C(=O)O"),
    ("fluoxetine", "CNCCC(Oc1ccc(cc1)C(F)(F)F)c1ccccc1"),
    ("sertraline", "CN[C@H]1CC[C@@H](c2ccc(Cl)c(Cl)c2)c2ccccc12"),
    ("lidocaine", "CCN(CC)CC(=O)Nc1c(C)cccc1C"),
    ("propranolol", "CC(C)NCC(O)COc1cccc2ccccc12"),
    ("warfarin", "CC(=O)CC(c1ccccc1)c1c(O)c2ccccc2oc1=O"),
    ("nifedipine", "COC(=O)C1=C(C)NC(C)=C(C1c1ccccc1[N+](=O)[O-])C(=O)OC"),
    ("losartan", "CCCCc1nc(Cl)c(CO)n1Cc1ccc(cc1)-c1ccccc1-c1nn[nH]n1"),
    ("omeprazole", "COc1ccc2[nH]c(nc2c1)S(=O)Cc1ncc(C)c(OC)c1C"),
    ("indomethacin", "COc1ccc2n(C(=O)c3ccc(Cl)cc3)c(C)c(CC(=O)O)c2c1"),
    ("haloperidol", "OC1(CCN(CCCC(=O)c2ccc(F)cc2)CC1)c1ccc(Cl)cc1"),
    ("diazepam", "CN1C(=O)CN=C(c2ccccc2)c2cc(Cl)ccc12"),
    ("carbamazepine", "NC(=O)N1c2ccccc2C=Cc2ccccc12"),
    ("ciprofloxacin", "OC(=O)c1cn(C2CC2)c2cc(N3CCNCC3)c(F)cc2c1=O"),
    ("clopidogrel", "COC(=O)[C@H](c1ccccc1Cl)N1CCc2sccc2C1"),
    ("loratadine", "CCOC(=O)N1CCC(=C2c3ccc(Cl)cc3CCc3cccnc23)CC1"),
    ("sorafenib", "CNC(=O)c1cc(Oc2ccc(NC(=O)Nc3ccc(Cl)c(c3)C(F)(F)F)cc2)ccn1"),
    ("dasatinib", "Cc1nc(Nc2ncc(s2)C(=O)Nc2c(C)cccc2Cl)cc(n1)N1CCN(CCO)CC1"),
    ("vemurafenib", "CCCS(=O)(=O)Nc1ccc(F)c(C(=O)c2c[nH]c3ncc(cc23)-c2ccc(Cl)cc2)c1F"),
    ("ruxolitinib", "N#CC[C@H](C1CCCC1)n1cc(cn1)-c1ncnc2[nH]ccc12"),
    ("tofacitinib", "C[C@@H]1CCN(C[C@@H]1N(C)c1ncnc2[nH]ccc12)C(=O)CC#N"),
    ("osimertinib", "COc1cc(N(C)CCN(C)C)c(NC(=O)C=C)cc1Nc1nccc(n1)-c1cn(C)c2ccccc12"),
    ("olaparib", "O=C(c1cc(Cc2n[nH]c(=O)c3ccccc23)ccc1F)N1CCN(CC1)C(=O)C1CC1"),
    ("crizotinib", "C[C@@H](Oc1cc(cnc1N)-c1cnn(c1)C1CCNCC1)c1c(Cl)ccc(F)c1Cl"),
    ("sitagliptin", "N[C@@H](CC(=O)N1CCn2c(C1)nnc2C(F)(F)F)Cc1cc(F)c(F)cc1F"),
    ("donepezil", "COc1cc2CC(CC3CCN(Cc4ccccc4)CC3)C(=O)c2cc1OC"),
    ("molibresib", "CCNC(=O)C[C@@H]1N=C(c2ccc(Cl)cc2)c2cc(OC)ccc2-n2c(C)nnc12"),
    ("(+)-JQ1", "Cc1sc2c(c1C)C(c1ccc(Cl)cc1)=N[C@@H](CC(=O)OC(C)(C)C)c1nnc(C)n1-2"),
    ("tacrine", "Nc1c2CCCCc2nc2ccccc12"),
    ("ketoprofen", "CC(C(=O)O)c1cccc(c1)C(=O)c1ccccc1"),
)

# The (+)-JQ1 scaffold with two variable positions: aryl para-substituent and side chain.
JQ1_TEMPLATE = "Cc1sc2c(c1C)C(c1ccc({aryl})cc1)=N[C@@H](CC(=O){tail})c1nnc(C)n1-2"
ARYL_GROUPS = ("Cl", "F", "Br", "C", "OC", "C(F)(F)F")
TAIL_GROUPS = ("OC(C)(C)C", "OC", "NCC", "NCCO", "N1CCOCC1", "NC1CC1")

# Chemical Component Dictionary codes used as ligands and modified residues.
LIGAND_CCD = {
    "ATP": "adenosine-5'-triphosphate",
    "HEM": "protoporphyrin IX containing Fe",
    "NAG": "N-acetyl-beta-D-glucosamine",
    "SAH": "S-adenosyl-L-homocysteine",
    "FAD": "flavin-adenine dinucleotide",
    "NAD": "nicotinamide-adenine-dinucleotide",
    "MG": "magnesium ion",
    "ZN": "zinc ion",
}
# SMILES of the CCD ligands that demo structures contain (beta-D-GlcNAc: N-glycan stub).
CCD_SMILES = {"NAG": "CC(=O)N[C@@H]1[C@H]([C@@H]([C@H](O[C@H]1O)CO)O)O"}
# Their atom names in the CCD, in the atom order of the SMILES above.
CCD_ATOM_NAMES = {
    "NAG": ("C8", "C7", "O7", "N2", "C2", "C3", "C4", "C5", "O5", "C1", "O1", "C6", "O6",
            "O4", "O3"),
}
# Modified residues: CCD code -> the standard residue it replaces.
MODIFIED_RESIDUES = {"SEP": "S", "TPO": "T", "PTR": "Y", "MSE": "M"}


def design_series(rng: random.Random, count: int) -> list[str]:
    """Return ``count`` distinct JQ1 analogs, the parent compound first."""
    combos = [(a, t) for a in ARYL_GROUPS for t in TAIL_GROUPS]
    parent = ("Cl", "OC(C)(C)C")
    combos.remove(parent)
    picked = [parent, *rng.sample(combos, count - 1)]
    return [JQ1_TEMPLATE.format(aryl=a, tail=t) for a, t in picked]


def series_smiles() -> list[str]:
    """Return every member of the analog series, in a fixed order."""
    return [JQ1_TEMPLATE.format(aryl=a, tail=t) for a in ARYL_GROUPS for t in TAIL_GROUPS]


def all_smiles() -> list[str]:
    """Return every SMILES the demo can use (for conformer generation and tests)."""
    return [s for _n, s in LIBRARY] + series_smiles() + list(CCD_SMILES.values())


def conformer(smiles: str) -> tuple[list[str], list[int], list[tuple], list[tuple]]:
    """Return (elements, formal charges, xyz, bonds) of the stored conformer of ``smiles``.

    Bonds are ``(i, j, order)`` with 0-based atom indices and Kekule orders.
    """
    from app.synthetic.conformers_library import CONFORMERS as LIBRARY_CONFORMERS
    from app.synthetic.conformers_series import CONFORMERS as SERIES_CONFORMERS

    elements, coords, bonds = LIBRARY_CONFORMERS.get(smiles) or SERIES_CONFORMERS[smiles]
    values = [float(v) for v in coords.split()]
    xyz = [tuple(values[i : i + 3]) for i in range(0, len(values), 3)]
    bond_list = []
    for item in bonds.split():
        pair, order = item.split(":")
        i, j = pair.split("-")
        bond_list.append((int(i), int(j), int(order)))
    tokens = elements.split()
    symbols = [t.rstrip("+-") for t in tokens]
    charges = [t.count("+") - t.count("-") for t in tokens]
    return symbols, charges, xyz, bond_list


def _atom_counts(smiles: str) -> tuple[int, int, int]:
    """Return rough (carbons, halogens, N+O) counts, enough for a logD-like estimate."""
    halogens = smiles.count("Cl") + smiles.count("Br") + smiles.count("F")
    stripped = smiles.replace("Cl", "").replace("Br", "")
    carbons = sum(1 for ch in stripped if ch in "Cc")
    polar = sum(1 for ch in stripped if ch in "NnOo")
    return carbons, halogens, polar


def adme_for(rng: random.Random, smiles: str) -> dict:
    """Return a plausible ADME summary for ``smiles`` (lipophilic molecules permeate better).

    The estimate follows the shape of fragment-based logP methods (carbons and halogens
    raise it, N/O lower it) with noise; it is demo data, not a prediction.
    """
    carbons, halogens, polar = _atom_counts(smiles)
    logd = -0.6 + 0.21 * carbons + 0.45 * halogens - 0.42 * polar + rng.gauss(0, 0.4)
    logd = round(min(5.0, max(-1.0, logd)), 2)
    papp = 10 ** (0.35 + 0.22 * logd - 0.04 * polar + rng.gauss(0, 0.2))
    papp = round(min(45.0, max(0.2, papp)), 1)
    if logd > 3.8 or (carbons > 26 and logd > 3.0):
        solubility = "high-risk"
    elif logd > 2.6 or rng.random() < 0.15:
        solubility = "medium-confidence"
    else:
        solubility = "high-confidence"
    return {"lipophilicity": logd, "permeability": papp, "solubility": solubility}
