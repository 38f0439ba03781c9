"""The thresholds people commonly read each metric by, with their sources (pure data).

Beside ``app.domain`` (the metrics themselves): a table per key of the cut-offs scientists
use (ipTM > 0.8, pLDDT 90/70/50, Lipinski's rule of five, instability index > 40...), each
citing where it comes from (``THRESHOLDS``), and a table of the exact tool and function
each computed value comes from (``TOOLS``: RDKit's, Biopython ProtParam's, this viewer's
motif search). Keys are the exploration keys: metrics, ADME fields, computed chemistry and
protein properties, the liabilities and the chemistry filters (``alerts``, ``scaffold``,
``similarity``). The viewer's glossary (``app/viewer/pages/glossary.py``) shows them.
"""

from __future__ import annotations

from dataclasses import dataclass

_AF3 = "Abramson et al., Nature 2024 (AlphaFold 3); AlphaFold Server guidance"
_AFDB = "Jumper et al., Nature 2021; AlphaFold DB documentation"
_LIPINSKI = "Lipinski et al., Adv. Drug Deliv. Rev. 1997 (rule of five)"
_VEBER = "Veber et al., J. Med. Chem. 2002"
_PROTPARAM = "Gasteiger et al., The Proteomics Protocols Handbook 2005 (ExPASy ProtParam)"
_LIABILITIES = "Lu et al., mAbs 2019 (deamidation and isomerization in 131 clinical antibodies)"
_DEVELOPABILITY = "Jarasch et al., J. Pharm. Sci. 2015 (developability assessment)"
_SPEC = "The compute API's specification (section Metrics)"
_SDK = "The compute API's SDK field descriptions (boltz-api 0.50.0)"
_BOLTZ2 = ("Passaro et al., bioRxiv 2025 (Boltz-2: affinity_probability_binary and "
           "affinity_pred_value)")
_BOLTZ = "Boltz documentation (confidence outputs)"
_IPSAE = ("Dunbrack, bioRxiv 2025 (\"R\u0113s ipSAE loquunt\": ipSAE, interaction prediction "
          "Score from Aligned Errors)")
_TM = ("Zhang & Skolnick, Proteins 2004 (TM-score); Evans et al., bioRxiv 2021 "
       "(ipTM, AlphaFold-Multimer)")
_LDDT = "Mariani et al., Bioinformatics 2013 (lDDT); Jumper et al., Nature 2021 (pLDDT)"


@dataclass(frozen=True)
class Threshold:
    """A cut-off people commonly read a metric by, and where it comes from."""

    text: str
    source: str


# key -> thresholds. Confidences of Boltz are on 0-1 (AlphaFold prints pLDDT on 0-100).
THRESHOLDS: dict[str, tuple[Threshold, ...]] = {
    "iptm": (Threshold("> 0.8 confident interface; 0.6\u20130.8 grey zone; < 0.6 likely wrong",
                       _AF3),),
    "ligand_iptm": (Threshold("Read as ipTM: > 0.8 confident, < 0.6 likely wrong", _AF3),),
    "protein_iptm": (Threshold("Read as ipTM: > 0.8 confident, < 0.6 likely wrong", _AF3),),
    "ptm": (Threshold("> 0.5: the overall fold is likely similar to the true one", _AF3),),
    "complex_plddt": (Threshold(
        "> 0.9 very high; 0.7\u20130.9 confident; 0.5\u20130.7 low; < 0.5 very low (pLDDT 90/70/50 "
        "on AlphaFold's 0\u2013100 scale)", _AFDB),),
    "complex_iplddt": (Threshold("Read as pLDDT, at the interface: > 0.7 confident", _AFDB),),
    "structure_confidence": (Threshold(
        "Boltz's ranking score, 0.8 \u00d7 complex pLDDT + 0.2 \u00d7 ipTM (pTM for one chain); "
        "> 0.8 strong in this viewer's shading", "Boltz documentation (confidence_score)"),),
    "min_interaction_pae": (Threshold(
        "< 5 Å confident relative placement; > 15 Å placement unknown", _AFDB),),
    "pae": (Threshold("Between two chains: low (< 5 \u00c5) means their relative placement "
                      "is confident; high (> 15 \u00c5) means it is unknown, however good "
                      "each chain's fold", _AFDB),
            Threshold("Within a chain: low blocks on the diagonal are well-defined domains",
                      _AFDB)),
    "complex_pde": (Threshold("No common cut-off: compare samples of one prediction",
                              "Boltz documentation"),),
    "complex_ipde": (Threshold("No common cut-off: compare samples of one prediction",
                               "Boltz documentation"),),
    "binding_confidence": (
        Threshold("No cut-off in the specification: \u2265 0.8 is shaded strong and < 0.5 "
                  "weak in this viewer's tables (a reading aid, not a calibrated rule)",
                  _SPEC),
        Threshold("For a small molecule, Boltz-2's analogous binder-vs-decoy probability is "
                  "for hit discovery (telling binders from decoys), not for ranking "
                  "potency", _BOLTZ2)),
    "optimization_score": (Threshold(
        "No absolute cut-off and no unit: rank analogues of one series, against one target, "
        "by it", _SPEC),
        Threshold("Boltz-2's affinity_pred_value, the analogous quantity, is log10(IC50 in "
                  "\u00b5M): \u22122 is 10 nM, 0 is 1 \u00b5M, 2 is 100 \u00b5M (pIC50 = "
                  "6 \u2212 value); this score is not on that scale", _BOLTZ2)),
    "ipsae_min": (Threshold("No universal cut-off: it separates true from false pairs "
                            "better than ipTM; compare designs of one campaign", _IPSAE),),
    "lipophilicity": (Threshold("logD 7.4 of 1\u20133 is the usual sweet spot for oral drugs",
                                "Waring, Expert Opin. Drug Discov. 2010"),),
    "permeability": (Threshold("< 1 low; 1\u201310 moderate; > 10 high (\u00d7 10⁻⁶ cm/s)",
                               "Yee, Pharm. Res. 1997 (Caco-2)"),),
    "mol_weight": (Threshold("≤ 500 g/mol", _LIPINSKI),),
    "clogp": (Threshold("≤ 5", _LIPINSKI),),
    "hbd": (Threshold("≤ 5", _LIPINSKI),),
    "hba": (Threshold("≤ 10", _LIPINSKI),),
    "tpsa": (Threshold("≤ 140 Å² for oral absorption", _VEBER),
             Threshold("< 90 Å² to cross the blood-brain barrier",
                       "Hitchcock & Pennington, J. Med. Chem. 2006")),
    "rotatable_bonds": (Threshold("≤ 10 for oral bioavailability", _VEBER),),
    "lipinski_violations": (Threshold("≤ 1: more than one makes poor absorption likely",
                                      _LIPINSKI),),
    "instability_index": (Threshold("> 40 predicts an unstable protein",
                                    "Guruprasad et al., Protein Eng. 1990"),),
    "gravy": (Threshold("> 0 hydrophobic; most soluble proteins are below 0",
                        "Kyte & Doolittle, J. Mol. Biol. 1982"),),
    "liability_count": (Threshold("0 is the goal; each site is a manufacturability risk",
                                  "Lu et al., mAbs 2019 (sequence liabilities)"),),
    "qed": (Threshold("0\u20131; approved oral drugs average about 0.5\u20130.7",
                      "Bickerton et al., Nature Chem. 2012"),),
    # Computed protein properties (Biopython ProtParam).
    "protein_weight": (Threshold(
        "Descriptive: the expected intact mass to check by mass spectrometry; designed "
        "mini-binders are often 5\u201315 kDa", _PROTPARAM),),
    "isoelectric_point": (Threshold(
        "Keep the pI at least 1 unit from the buffer's pH: a protein is least soluble at its "
        "pI", _PROTPARAM),
        Threshold("An estimate from Bjellqvist's pK values: confirm by isoelectric "
                  "focusing when it matters", "Bjellqvist et al., Electrophoresis 1993"),),
    "net_charge": (Threshold(
        "Near 0 at the working pH: aggregation-prone; a large |charge| resists aggregation "
        "but can bind non-specifically", "Lawrence et al., J. Am. Chem. Soc. 2007 "
        "(supercharged proteins)"),),
    "extinction_coefficient": (Threshold(
        "0 (no W, Y or C): A280 cannot give the concentration; use another assay",
        "Pace et al., Protein Sci. 1995"),
        Threshold("Computed with every cysteine pair as a cystine: a reduced protein "
                  "absorbs a little less", "Pace et al., Protein Sci. 1995"),),
    # Sequence liabilities of the designed chain (motif search).
    "n_glycosylation": (Threshold(
        "Any sequon at or near the interface: remove it (N\u2192Q, or S/T\u2192A) unless the "
        "design is made in E. coli, which does not N-glycosylate",
        "Gavel & von Heijne, Protein Eng. 1990 (N-X-S/T sequon, X not P)"),),
    "deamidation": (Threshold(
        "NG is the fastest (half-life of about a day in peptides at pH 7.4, 37 \u00b0C); NS "
        "slower; a risk when exposed or in a flexible loop",
        "Robinson & Robinson, PNAS 2001"),
        Threshold("Flagged in clinical antibodies when in the CDRs", _LIABILITIES),),
    "isomerization": (Threshold(
        "DG the fastest, then DS: aspartate to isoaspartate through a succinimide; a risk "
        "when exposed or in a flexible loop", _LIABILITIES),),
    "unpaired_cysteine": (Threshold(
        "An odd count always leaves a free thiol (mispaired disulfides, dimers, "
        "aggregation); an even count can still mispair", _DEVELOPABILITY),),
    "oxidation": (Threshold(
        "A risk when solvent-exposed, especially in the binding site; these are every M "
        "and W, exposure is not checked", _DEVELOPABILITY),),
    # The chemistry filters.
    "alerts": (Threshold(
        "Any PAINS alert: confirm a hit in an orthogonal assay before trusting it",
        "Baell & Holloway, J. Med. Chem. 2010 (PAINS)"),
        Threshold("Alerts flag, not condemn: many approved drugs carry one",
                  "Capuzzi et al., J. Chem. Inf. Model. 2017"),
        Threshold("Brenk: groups to avoid for toxicity, reactivity or poor "
                  "pharmacokinetics in a screening library", "Brenk et al., ChemMedChem 2008"),),
    "scaffold": (Threshold(
        "Descriptive: a hit list spread over many scaffolds is more robust than many "
        "analogues of one", "Bemis & Murcko, J. Med. Chem. 1996"),),
    "similarity": (Threshold(
        "\u2265 0.4 on Morgan radius-2 bits is a common cut-off for likely related "
        "molecules; unrelated drug-like pairs rarely score above about 0.3",
        "Landrum, RDKit blog 2021 (thresholds for \"random\" in fingerprints)"),
        Threshold("1 means the same fingerprint, not always the same molecule "
                  "(stereoisomers)", "Rogers & Hahn, J. Chem. Inf. Model. 2010 (ECFP)"),),
}

# key -> where a key's definition comes from (each entry also cites its thresholds'
# sources); keys not here are defined by their group's source (``glossary``).
SOURCES: dict[str, str] = {
    "binding_confidence": f"{_SPEC}; {_SDK}",
    "optimization_score": f"{_SPEC}; {_SDK}; {_BOLTZ2}",
    "iptm": f"{_SPEC}; {_TM}",
    "ptm": f"{_SDK}; {_TM}",
    "ligand_iptm": f"{_SDK}; {_BOLTZ}",
    "protein_iptm": f"{_SDK}; {_BOLTZ}",
    "complex_plddt": f"{_SDK}; {_LDDT}",
    "complex_iplddt": f"{_SPEC}; {_BOLTZ}",
    "structure_confidence": f"{_SPEC}; {_BOLTZ}",
    "complex_pde": f"{_SDK}; {_BOLTZ}",
    "complex_ipde": f"{_SDK}; {_BOLTZ}",
    "min_interaction_pae": f"{_SPEC}; {_AFDB}",
    "ipsae_min": _IPSAE,
    "plddt": f"{_LDDT}; AlphaFold DB documentation (pLDDT bands)",
    "pae": f"{_AFDB} (predicted aligned error, PAE JSON)",
}

# key -> the tool (and function) that computes it, where the glossary names more than
# its group's tool (``glossary._TOOLS``).
TOOLS: dict[str, str] = {
    "mol_weight": "RDKit (QED.properties: average molecular weight)",
    "clogp": "RDKit (Crippen.MolLogP, Wildman & Crippen 1999)",
    "tpsa": "RDKit (MolSurf.TPSA, Ertl et al. 2000; N and O only)",
    "hbd": "RDKit (rdMolDescriptors.CalcNumHBD)",
    "hba": "RDKit (rdMolDescriptors.CalcNumHBA)",
    "rotatable_bonds": "RDKit (rdMolDescriptors.CalcNumRotatableBonds, strict)",
    "lipinski_violations": "Counted by this viewer from RDKit's weight, cLogP, donors "
                           "and acceptors",
    "qed": "RDKit (QED.qed, Bickerton et al. 2012)",
    "protein_weight": "Biopython ProtParam (ProteinAnalysis.molecular_weight)",
    "isoelectric_point": "Biopython ProtParam (ProteinAnalysis.isoelectric_point)",
    "net_charge": "Biopython ProtParam (ProteinAnalysis.charge_at_pH(7.4))",
    "gravy": "Biopython ProtParam (ProteinAnalysis.gravy, Kyte-Doolittle scale)",
    "instability_index": "Biopython ProtParam (ProteinAnalysis.instability_index)",
    "extinction_coefficient": "Biopython ProtParam "
                              "(ProteinAnalysis.molar_extinction_coefficient, cystines)",
    "liability_count": "This viewer: a motif search over the designed chain's sequence",
    "alerts": "RDKit FilterCatalog (PAINS A, B, C and Brenk catalogs)",
    "scaffold": "RDKit (MurckoScaffold.GetScaffoldForMol, canonical SMILES)",
    "similarity": "RDKit (Morgan fingerprint radius 2, 2048 bits; "
                  "DataStructs.BulkTanimotoSimilarity)",
    "smiles": "RDKit (MolDraw2DSVG drawing, CoordGen layout)",
}
