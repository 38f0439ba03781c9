"""What an ADME value's class means and where ADME values come from (pure data).

Beside ``app.domain`` (which re-exports these): the meaning of each of the specification's
three solubility values, and the phrase that says a value's source (an ADME prediction,
whose record names its model, or a pipeline result's ADME summary, whose record names none).
"""

from __future__ import annotations

from typing import Literal, NamedTuple


class AdmeField(NamedTuple):
    """One field of a small molecule's ADME summary (unpacks as label, unit, description)."""

    label: str
    unit: str
    description: str


# The spec types lipophilicity and permeability as plain numbers; the ADME model reports
# them as logD at pH 7.4 (a log ratio, so no unit beyond the quantity's name) and as a
# Caco-2 apparent permeability (apical to basolateral) in 10^-6 cm/s, which we print.
ADME_FIELDS: dict[str, AdmeField] = {
    "lipophilicity": AdmeField("Lipophilicity", "logD 7.4", (
        "Predicted lipophilicity: the octanol/water distribution coefficient at pH 7.4.")),
    "permeability": AdmeField("Permeability", "10\u207b\u2076 cm/s", (
        "Predicted Caco-2 apparent permeability, apical to basolateral (A\u2192B).")),
    "solubility": AdmeField("Solubility", "class", (
        "Predicted solubility class, one of three: soluble with high confidence, soluble "
        "with medium confidence, or a high risk of poor solubility.")),
}
# Solubility class -> (label shown, CSS tone). Both "soluble" classes read as good news
# (the same tone): only high-risk flags a problem.
SOLUBILITY_CLASSES: dict[str, tuple[str, str]] = {
    "high-confidence": ("Soluble (high confidence)", "good"),
    "medium-confidence": ("Soluble (medium confidence)", "good"),
    "high-risk": ("Solubility risk", "risk"),
}
# What each of the specification's three solubility values says. The specification and
# the SDK ("solubility judgement") name the values only; no threshold is published.
SOLUBILITY_MEANINGS: dict[str, str] = {
    "high-confidence": "Predicted soluble, and the model is confident of it.",
    "medium-confidence": "Predicted soluble, with less confidence: not a warning; measure "
                         "solubility when it matters.",
    "high-risk": "A high risk of poor solubility: the one class that flags a problem.",
}

# Where an ADME value comes from. An ADME prediction's record names its model (``model``,
# ``version``); a pipeline result's ADME summary (the SDK's "Tier 1 ADME summary") names
# none. The two are different predictions: one molecule can have different values in each.
ADME_FROM_PREDICTION = "this ADME prediction"
ADME_FROM_SUMMARY = "the run's ADME summary of each result"
ADME_NO_MODEL = "the record names no model"


def adme_source(origin: Literal["prediction", "summary"], model: str = "") -> str:
    """Say where ADME values come from: the prediction or a run's summary, and the model
    when the record names one ("From this ADME prediction, model ADME v1, version 1")."""
    where = ADME_FROM_PREDICTION if origin == "prediction" else ADME_FROM_SUMMARY
    return f"From {where}, {f'model {model}' if model else ADME_NO_MODEL}."
