"""Command-line commands: ``init-db``, ``seed-demo``, ``refresh-demo`` and ``create-org``.

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

from app import artifact_storage
from app.db import get_engine, migrate
from app.settings import setting

SCHEMAS_KEY = "schemas"
PURGES_KEY = "purge_steps"
# seed-demo --results: a million per pipeline already takes many minutes to seed.
MAX_DEMO_RESULTS = 1_000_000


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
    from app import retention

    try:
        now = retention.parse_as_of(as_of)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--as-of") from None
    # Counts per workspace are logged (stderr) as they go; the JSON summary is stdout's.
    logger = logging.getLogger("app.retention")
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


def _result_count(_ctx, _param, value: str | None) -> int | None:
    """Parse ``--results``: one clear message for anything but 1..MAX_DEMO_RESULTS."""
    if value is None:
        return None
    text = value.strip().replace("_", "").replace(",", "")
    if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= MAX_DEMO_RESULTS:
        raise click.BadParameter(
            f"N must be a positive integer, at most {MAX_DEMO_RESULTS:,} (got {value!r})")
    return int(text)


@click.command("seed-demo")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--results", "results", metavar="N", default=None, callback=_result_count,
              help="Give protein_design and small_molecule_library_screen N results each "
              f"(1 to {MAX_DEMO_RESULTS:,}; for tests and benchmarks).")
@with_appcontext
def seed_demo_command(as_json: bool, results: int | None) -> None:
    """Fill the database with a demo organization, results, artifacts and share links."""
    from app.demo import seed_demo

    engine = get_engine()
    migrate(engine)
    summary = seed_demo(engine, store=artifact_storage.open_store(current_app.config),
                        public_url=setting(current_app, "PUBLIC_URL"), results=results)
    if as_json:
        click.echo(json.dumps(summary))
        return
    click.echo(f"Demo organization {summary['organization_id']} created.")
    click.echo(f"Admin key (shown once): {summary['admin_key']}")
    click.echo(f"Public share link: {summary['share_links']['public']['url']}")
    email = summary["share_links"]["email"]
    click.echo(f"Email-mode share link ({', '.join(email['allowed_emails'])}): {email['url']}")


@click.command("refresh-demo")
@click.argument("path", type=click.Path(dir_okay=False), default="instance/demo.json")
@click.option("--banner", is_flag=True,
              help="Print only after a re-seed: the summary and the new links (the loop).")
@with_appcontext
def refresh_demo_command(path: str, banner: bool) -> None:
    """Keep the demo in PATH complete with live links: renew links, or seed a fresh demo.

    ``make run`` runs it at start, and with ``--banner`` after every purge
    (``app.demo_upkeep``).
    """
    from pathlib import Path

    from app import demo_upkeep

    engine = get_engine()
    migrate(engine)
    public_url = setting(current_app, "PUBLIC_URL")
    outcome = demo_upkeep.refresh(engine, Path(path), public_url=public_url,
                                  store=artifact_storage.open_store(current_app.config))
    if not banner:
        click.echo(outcome.summary())
    elif outcome.action == "seeded":
        click.echo(outcome.summary())
        click.echo(demo_upkeep.banner(outcome.demo, public_url or demo_upkeep.DEFAULT_URL,
                                      mail_server=setting(current_app, "MAIL_SERVER")))


def init_service_commands(app: Flask) -> None:
    """Give the service app ``init-db`` (the API schema), ``create-org`` and ``seed-demo``."""
    add_schema(app, "compute API", lambda: migrate(get_engine(app)))
    add_purge(app, lambda context: _api_purge(app, context))
    app.cli.add_command(create_org_command)
    app.cli.add_command(seed_demo_command)
    app.cli.add_command(refresh_demo_command)


def adopt_service_commands(composed: Flask, service: Flask) -> None:
    """Give the composed app the service's commands and schema too (``flask --app app``)."""
    composed.extensions.setdefault(SCHEMAS_KEY, [])[:0] = service.extensions.get(SCHEMAS_KEY, [])
    # The API's purge first: the viewer's step drops the indexes of the pipelines it purged.
    composed.extensions.setdefault(PURGES_KEY, [])[:0] = service.extensions.get(PURGES_KEY, [])
    for name, command in service.cli.commands.items():
        composed.cli.commands.setdefault(name, command)


def _api_purge(app: Flask, context: dict) -> dict:
    """The compute API's step of ``purge-expired`` (imported late: only the command needs it)."""
    from app import retention

    return retention.api_step(app, context)
