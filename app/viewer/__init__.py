"""The share viewer (``/share/<id>`` and below): pages for what a link exposes.

``create_viewer_app(api)`` builds it around an API client: it reads only through the
compute API over HTTP (``api_client``), so it works unchanged against a remote deployment
(``gunicorn 'wsgi:viewer_app'`` with ``FLASK_COMPUTE_API_URL``) or the embedded service
that ``create_app()`` hands it. Sessions, CSRF, sign-in rate limits and HTML error pages
exist only here. What the viewer keeps itself (pending sign-ins) is in its own store.
"""

from __future__ import annotations

from flask import Config, Flask

from app.jobs import cli
from app.platform import base_app
from app.platform.settings import setting
from app.viewer import embeds, error_pages, signin, store
from app.viewer.core import api_client, formatting, requests_in_flight
from app.viewer.depictions import markup as depiction_markup
from app.viewer.depictions import views as depiction_views
from app.viewer.explore import chips, selections
from app.viewer.explore import fields as results_fields
from app.viewer.explore.index import sweep as cache_sweep
from app.viewer.explore.selections import (
    alerts,
    contacts,
    diverse,
    liabilities,
    patch,
    scaffolds,
    similarity,
    substructure,
    text_search,
    warnings,
)
from app.viewer.exports import views as export_views
from app.viewer.pages import downloads
from app.viewer.pages import views as page_views
from app.viewer.proteins import markup as protein_markup
from app.viewer.provenance import init_app as provenance_init_app
from app.viewer.results import views as results_views
from app.viewer.runtime import work_gate
from app.viewer.signin import oidc
from app.viewer.signin import views as signin_views
from app.viewer.structure import contacts as structure_contacts
from app.viewer.structure_pages import views as structure_views
from app.viewer.web import compression, security, static_assets

# Every route of the viewer, in one place: the only importer of modules with a blueprint.
BLUEPRINTS = (page_views.bp, results_views.bp, downloads.bp, export_views.bp, signin_views.bp,
              oidc.bp, depiction_views.bp, structure_views.bp)


# The exploration engine's selections (explore.selections), one line each, in the order
# their keys appear in links. Registered when the viewer is imported, so that every query
# parsed (in a request, a CLI command or a test) knows them.
selections.register(warnings.SELECTION)
selections.register(text_search.SELECTION)
selections.register(substructure.SELECTION)
selections.register(alerts.SELECTION)
selections.register(scaffolds.SCAFFOLD)
selections.register(similarity.SELECTION)
selections.register(scaffolds.GROUP)
selections.register(liabilities.SELECTION)
selections.register(diverse.SELECTION)
selections.register(contacts.SELECTION)
selections.register(patch.SELECTION)


def create_viewer_app(
    api: api_client.ComputeApi | None = None,
    test_config: dict | None = None,
    *,
    instance_path: str | None = None,
    config: Config | None = None,
) -> Flask:
    """Create the viewer app reading through ``api``.

    Without ``api`` the viewer needs ``FLASK_COMPUTE_API_URL`` (a remote deployment);
    ``create_app`` passes a client of its embedded service instead.
    """
    app = base_app.make_flask_app(test_config, instance_path=instance_path, config=config,
                                  pages=True)
    if api is None:
        url = setting(app, "COMPUTE_API_URL")
        if not url:
            raise RuntimeError("the viewer alone needs FLASK_COMPUTE_API_URL (the API to read)")
        api = api_client.remote(url, api_client.timeout_setting(app.config))
    app.extensions["compute_api"] = api
    store.init_app(app)
    # /readyz: the viewer is ready when its store (store.init_app) and the API answer.
    base_app.add_readiness_check(app, "api", lambda: app.extensions["compute_api"].ready())
    error_pages.init_app(app)
    work_gate.init_app(app)
    security.init_app(app)
    # Fingerprinted, cached, precompressed /static; gzip of pages; embedding links.
    static_assets.init_app(app)
    compression.init_app(app)
    embeds.init_app(app)
    formatting.init_app(app)
    depiction_markup.init_app(app)
    results_fields.init_app(app)
    chips.init_app(app)
    protein_markup.init_app(app)
    structure_contacts.init_app(app)  # the one contact cutoff, as the pages state it
    provenance_init_app(app)  # run_title, run_provenance... for the templates
    signin.init_app(app)
    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)
    cli.add_schema(app, "viewer store", lambda: store.migrate(store.get_engine(app)))
    cli.add_purge(app, lambda context: cache_sweep.viewer_step(app, context))
    # Counted: background work (the epitope scan's fetches) waits while a request runs.
    app.wsgi_app = requests_in_flight.Counted(app.wsgi_app)
    return app
