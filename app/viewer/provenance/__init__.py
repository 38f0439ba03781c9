"""Pages say what was run: a run's provenance read from its SDK record.

``runs`` turns a pipeline or prediction record (``input``, ``progress``, ``status``,
engine and versions, times, ``error``) into a ``Provenance`` and gives a pipeline its
title (``run_title``); ``entities`` reads the target and binder entities of any input
shape the SDK declares; ``chains`` says which chain ids the input designs and which it
keeps fixed; ``roles`` which chain is the binder and which the target;
``labels.result_chain_labels`` says it for tables. ``values`` reads hostile JSON values;
``facts``, ``design``, ``library``, ``progress`` and ``titles`` are the parts ``runs``
builds from.
``init_app`` offers them to the templates (``templates/share/_provenance.html``).
"""

from __future__ import annotations

from flask import Flask

from app.viewer.provenance.chains import chain_parts
from app.viewer.provenance.labels import result_chain_labels
from app.viewer.provenance.runs import (
    prediction_provenance,
    prediction_title,
    run_provenance,
    run_title,
)

__all__ = ["chain_parts", "init_app", "prediction_provenance", "prediction_title",
           "result_chain_labels", "run_provenance", "run_title"]


def init_app(app: Flask) -> None:
    """Offer the provenance builders and titles to every template."""
    app.jinja_env.globals.update(
        run_provenance=run_provenance,
        prediction_provenance=prediction_provenance,
        run_title=run_title,
        prediction_title=prediction_title,
        chain_parts=chain_parts,
        result_chain_labels=result_chain_labels,
    )
