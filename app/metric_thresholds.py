"""The thresholds people commonly read each metric by, with their sources (pure data).

Beside ``app.domain`` (the metrics themselves): a table per metric key of the cut-offs
scientists use (ipTM > 0.8, pLDDT 90/70/50, Lipinski's rule of five...), each citing where
it comes from. The viewer's glossary (``app/viewer/pages/glossary.py``) shows them.
"""

from __future__ import annotations

from dataclasses import dataclass

_AF3 = "Abramson et al., Nature 2024 (AlphaFold 3); AlphaFold Server guidance"
_AFDB = "Jumper et al., Nature 2021; AlphaFold DB documentation"
_LIPINSKI = "Lipinski et al., Adv. Drug Deliv. Rev. 1997 (rule of five)"
_VEBER = "Veber et al., J. Med. Chem. 2002"


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
    "complex_pde": (Threshold("No common cut-off: compare samples of one prediction",
                              "Boltz documentation"),),
    "complex_ipde": (Threshold("No common cut-off: compare samples of one prediction",
                               "Boltz documentation"),),
    "binding_confidence": (Threshold(
        "A probability: > 0.5 predicted binder; ≥ 0.8 strong in this viewer's shading",
        "Passaro et al., 2025 (Boltz-2, affinity probability)"),),
    "optimization_score": (Threshold(
        "No absolute cut-off: rank analogues of one series by it",
        "Passaro et al., 2025 (Boltz-2, affinity value)"),),
    "ipsae_min": (Threshold("> 0.6 often taken as a likely interaction; compare designs",
                            "Dunbrack, bioRxiv 2025 (ipSAE)"),),
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
}
