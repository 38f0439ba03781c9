"""Command-line commands: ``init-db``, ``purge-expired`` and ``create-org``.

``init-db`` upgrades every schema the app object holds: the API's on the service app, the
viewer store's on the viewer app, both on the composed app (``flask --app app init-db``).
Each half registers its schema with ``add_schema``, and its step of ``purge-expired``
(retention: the API's expired data, the viewer store's caches) with ``add_purge``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

import click
from flask import Flask, current_app
from flask.cli import with_appcontext

from app.platform.db import get_engine, migrate

SCHEMAS_KEY = "schemas"
PURGES_KEY = "purge_steps"


def add_schema(app: Flask, name: str, upgrade: Callable[[], None]) -> None:
    """Register a schema that ``init-db`` upgrades on ``app`` by calling ``upgrade()``."""
    app.extensions.setdefault(SCHEMAS_KEY, []).append((name, upgrade))
    app.cli.add_command(init_db_command)


def add_purge(app: Flask, step: Callable[[dict], dict]) -> None:
    """Register a step that ``purge-expired`` runs on ``app``: ``step(context)`` deletes
    what expired as of ``context["now"]`` (counts only if ``context["dry_run"]``) and
    returns its part of the printed summary."""
    app.extensions.setdefault(PURGES_KEY, []).append(step)
    app.cli.add_command(purge_expired_command)


@click.command("purge-expired")
@click.option("--dry-run", is_flag=True, help="Count what would be deleted; delete nothing.")
@click.option("--as-of", "as_of", metavar="ISO-8601",
              help="Purge as if it were this time (with a time zone, e.g. 2026-01-31T12:00Z).")
@with_appcontext
def purge_expired_command(dry_run: bool, as_of: str | None) -> None:
    """Delete what is older than each workspace's data_retention; print the counts (JSON)."""
    from app.jobs import retention

    try:
        now = retention.parse_as_of(as_of)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--as-of") from None
    # Counts per workspace are logged (stderr) as they go; the JSON summary is stdout's.
    logger = logging.getLogger("app.jobs.retention")
    logger.setLevel(logging.INFO)
    if not logger.hasHandlers():
        logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    click.echo(json.dumps(retention.run(current_app.extensions.get(PURGES_KEY, []), now,
                                        dry_run=dry_run)))


@click.command("init-db")
@with_appcontext
def init_db_command() -> None:
    """Create or upgrade the database schemas of this app (safe to repeat)."""
    # Alembic announces its set-up at INFO on every run; the one line below says enough.
    logging.getLogger("alembic").setLevel(logging.WARNING)
    for name, upgrade in current_app.extensions.get(SCHEMAS_KEY, []):
        upgrade()
        click.echo(f"{name}: schema is up to date.")


@click.command("create-org")
@click.argument("name")
@with_appcontext
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def create_org_command(name: str, as_json: bool) -> None:
    """Create an organization with a default workspace and print its admin key."""
    from app.store.organizations import create_organization

    name = name.strip()
    if not name or len(name) > 200:
        raise click.BadParameter("NAME must be 1 to 200 characters", param_hint="NAME")
    engine = get_engine()
    migrate(engine)
    with engine.begin() as conn:
        org, _workspace, _key, secret = create_organization(conn, name)
    if as_json:
        click.echo(json.dumps({"organization_id": org.id, "admin_key": secret}))
    else:
        click.echo(f"Organization {org.id} created.\nAdmin key (shown once): {secret}")


def init_service_commands(app: Flask) -> None:
    """Give the service app ``init-db`` (the API schema), ``purge-expired`` and
    ``create-org`` (the demo's commands are the composed app's: ``app.demo.commands``)."""
    add_schema(app, "compute API", lambda: migrate(get_engine(app)))
    add_purge(app, lambda context: _api_purge(app, context))
    app.cli.add_command(create_org_command)


def adopt_service_commands(composed: Flask, service: Flask) -> None:
    """Give the composed app the service's commands and schema too (``flask --app app``)."""
    composed.extensions.setdefault(SCHEMAS_KEY, [])[:0] = service.extensions.get(SCHEMAS_KEY, [])
    # The API's purge first: the viewer's step drops the indexes of the pipelines it purged.
    composed.extensions.setdefault(PURGES_KEY, [])[:0] = service.extensions.get(PURGES_KEY, [])
    for name, command in service.cli.commands.items():
        composed.cli.commands.setdefault(name, command)


def _api_purge(app: Flask, context: dict) -> dict:
    """The compute API's step of ``purge-expired`` (imported late: only the command needs it)."""
    from app.jobs import retention

    return retention.api_step(app, context)
