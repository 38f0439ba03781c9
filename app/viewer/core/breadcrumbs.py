"""The breadcrumb trails of the share pages: "Shared results" > pipeline > result > ...

A trail is a list of ``(label, url or None)``, what ``share/_partials/breadcrumb.html``
draws: every step a link (``share_url``, so an embedded page's links stay embedded) but
the last, the page itself. One function per place a page can sit under; each takes the
titles of the steps above and ``here``, the page's own label.
"""

from __future__ import annotations

from app import domain
from app.viewer.web.security import share_url

Crumb = tuple[str, str | None]


def _overview(link_id: str) -> list[Crumb]:
    return [("Shared results", share_url("pages.overview", link_id=link_id))]


def _pipeline(link_id: str, pipeline_id: str, title: str, **view_args) -> list[Crumb]:
    return [*_overview(link_id),
            (title, share_url("results.pipeline_results", link_id=link_id,
                              pipeline_id=pipeline_id, **view_args))]


def shared_results(link_id: str, here: str) -> list[Crumb]:
    """Return Shared results > ``here`` (a pipeline's table, a prediction)."""
    return [*_overview(link_id), (here, None)]


def pipeline(link_id: str, pipeline_id: str, title: str, here: str,
             **view_args) -> list[Crumb]:
    """Return Shared results > the pipeline ``title`` > ``here``.

    ``view_args`` go into the pipeline's link (a plot links back to the filtered table).
    """
    return [*_pipeline(link_id, pipeline_id, title, **view_args), (here, None)]


def result(link_id: str, pipeline_id: str, title: str, result_id: str, here: str, *,
           label: str = "Result", view_args: dict | None = None,
           back_args: dict | None = None) -> list[Crumb]:
    """Return Shared results > the pipeline ``title`` > the result ``label`` > ``here``.

    ``view_args`` (the results view the visitor came from) go into the result's link,
    ``back_args`` (that view on the page holding the result) into the pipeline's.
    """
    return [*_pipeline(link_id, pipeline_id, title, **(back_args or view_args or {})),
            (label, share_url("pages.result", link_id=link_id, pipeline_id=pipeline_id,
                              result_id=result_id, **(view_args or {}))),
            (here, None)]


def prediction(link_id: str, prediction_id: str, title: str, here: str) -> list[Crumb]:
    """Return Shared results > the prediction ``title`` > ``here``."""
    return [*_overview(link_id),
            (title, share_url("pages.prediction", link_id=link_id,
                              prediction_id=prediction_id)),
            (here, None)]


def pipeline_title(pipeline: dict, kind: domain.Kind) -> str:
    """Return what a pipeline is called in trails and titles: its kind's label (the share
    read has no name; the kind is recognised from the run record, ``core.run_kinds``)."""
    return kind.label
