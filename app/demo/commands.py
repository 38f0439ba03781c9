"""The demo's commands: ``seed-demo`` and ``refresh-demo`` (``flask --app app ...``).

Registered on the composed app only (``create_app``); the service and viewer apps that a
production deployment serves alone never import the demo.
"""

from __future__ import annotations

import json
from pathlib import Path

import click
from flask import Flask, current_app
from flask.cli import with_appcontext

from app import artifact_storage
from app.demo import seed, upkeep
from app.platform.db import get_engine, migrate
from app.platform.settings import setting

# seed-demo --results: a million per pipeline already takes many minutes to seed.
MAX_DEMO_RESULTS = 1_000_000


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
    engine = get_engine()
    migrate(engine)
    summary = seed.seed_demo(engine, store=artifact_storage.open_store(current_app.config),
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
    (``app.demo.upkeep``).
    """
    engine = get_engine()
    migrate(engine)
    public_url = setting(current_app, "PUBLIC_URL")
    outcome = upkeep.refresh(engine, Path(path), public_url=public_url,
                                  store=artifact_storage.open_store(current_app.config))
    if not banner:
        click.echo(outcome.summary())
    elif outcome.action == "seeded":
        click.echo(outcome.summary())
        click.echo(upkeep.banner(outcome.demo, public_url or upkeep.DEFAULT_URL,
                                      mail_server=setting(current_app, "MAIL_SERVER")))


def init_app(app: Flask) -> None:
    """Give ``app`` (the composed app) ``seed-demo`` and ``refresh-demo``."""
    app.cli.add_command(seed_demo_command)
    app.cli.add_command(refresh_demo_command)
