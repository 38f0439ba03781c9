"""Keep the ``make run`` demo whole: check what ``instance/demo.json`` names, renew or re-seed.

``flask --app app refresh-demo instance/demo.json`` runs ``refresh`` at every ``make run``
start and after every hourly ``purge-expired``. The demo's runs are backdated (up to 5.6
days, so that it looks lived-in) and retention deletes data older than the workspace's
``data_retention``; its links expire (public 14 days, email 7). The demo is kept
**complete for at least ``HORIZON`` ahead**:

- a link that is not archived but expires within ``HORIZON`` (or already expired) is
  renewed to its demo life from now (``app.demo.LINK_LIFE``); the ids stay, so links
  printed earlier keep working;
- when anything is missing (no file, an organization, workspace, pipeline or prediction
  gone, a pipeline with fewer results than seeded, an archived link) or some of its data
  reaches the workspace's retention within ``HORIZON``, a fresh demo is seeded (a new
  organization, new links) and the file rewritten. Data is never moved forward in time:
  a re-seed is honest where rewriting ``created_at`` would not be.

Functions take the API database's engine (``app.platform.db.get_engine``); the SQL is
``app.store.demo_upkeep``'s. The file is ``seed-demo --json``'s object plus
``result_counts`` ({kind: results seeded}), which the check compares with what is stored;
its URLs are rewritten for the current public URL. The demo workspace keeps data 14 days
(``app.demo.seed``), the most the API allows, so a running server re-seeds about once a week.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from app.demo import seed as demo_seed
from app.platform.timeutil import isoformat, utcnow
from app.store import demo_upkeep as rows
from app.store.share_links import get_for_owner

# How long the demo must stay complete after a check (more than one PURGE_EVERY).
HORIZON = timedelta(days=1)
DEFAULT_URL = demo_seed.DEFAULT_PUBLIC_URL
_KEYS = ("organization_id", "workspace_id", "pipelines", "predictions", "share_links",
         "result_counts")


@dataclass
class Outcome:
    """What ``refresh`` did: ``action`` is "kept", "renewed" or "seeded"."""

    action: str
    demo: dict
    reasons: list[str] = field(default_factory=list)
    renewed: list[str] = field(default_factory=list)  # "public" / "email"

    def summary(self) -> str:
        """One line for the terminal."""
        public = self.demo["share_links"]["public"]
        links = f"links live until {public['expires_at']} (public)"
        if self.action == "seeded":
            return f"Demo seeded ({'; '.join(self.reasons)}); {links}."
        if self.action == "renewed":
            return f"Demo complete; renewed the {' and '.join(self.renewed)} link; {links}."
        return f"Demo complete; {links}."


def load(path: Path) -> dict | None:
    """Return the demo file's object, or None when it is missing, empty or not one."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def refresh(engine, path: Path, *, store, public_url: str | None,
            now: datetime | None = None) -> Outcome:
    """Check the demo ``path`` names; renew its links or seed a fresh one; rewrite the file."""
    now = now or utcnow()
    demo = load(path)
    reasons = stale_reasons(engine, demo, now) if demo else ["no demo yet"]
    if reasons:
        demo = seed(engine, store=store, public_url=public_url)
        outcome = Outcome("seeded", demo, reasons)
    else:
        renewed = renew_links(engine, demo, now)
        outcome = Outcome("renewed" if renewed else "kept", demo, renewed=renewed)
    _note_links(engine, outcome.demo, public_url)
    write(path, outcome.demo)
    return outcome


def seed(engine, *, store, public_url: str | None) -> dict:
    """Seed a fresh demo and return its summary with the result counts it was seeded with."""
    summary = demo_seed.seed_demo(engine, store=store, public_url=public_url)
    with engine.connect() as conn:
        found = rows.runs(conn, list(summary["pipelines"].values()), [])
    summary["result_counts"] = {kind: found[pipeline_id].result_count
                                for kind, pipeline_id in summary["pipelines"].items()}
    return summary


def stale_reasons(engine, demo: dict, now: datetime) -> list[str]:
    """Return why the demo cannot serve for ``HORIZON`` more (empty: it can)."""
    if any(key not in demo for key in _KEYS):
        return ["the demo file predates result counts"]
    cutoff = now + HORIZON
    with engine.connect() as conn:
        retention = rows.retention(conn, demo["workspace_id"])
        if retention is None or retention.archived:
            return ["the demo workspace is gone"]
        keep = timedelta(**{retention.unit: retention.value})
        found = rows.runs(conn, list(demo["pipelines"].values()),
                          list(demo["predictions"].values()))
        reasons = []
        for kind, run_id in [*demo["pipelines"].items(), *demo["predictions"].items()]:
            run = found.get(run_id)
            if run is None:
                reasons.append(f"{kind} was deleted under retention")
            elif kind in demo["pipelines"] and run.result_count < demo["result_counts"][kind]:
                reasons.append(f"{kind} lost results under retention")
            elif run.created_at + keep < cutoff:
                reasons.append(f"{kind} reaches the workspace's retention within a day")
        for mode, link in demo["share_links"].items():
            stored = get_for_owner(conn, link["id"], organization_id=demo["organization_id"])
            if stored is None or stored.archived_at is not None:
                reasons.append(f"the {mode} link is gone or archived")
    return reasons


def renew_links(engine, demo: dict, now: datetime) -> list[str]:
    """Renew the demo links that expire within ``HORIZON``; return their modes."""
    renewed = []
    with engine.begin() as conn:
        for mode, link in demo["share_links"].items():
            stored = get_for_owner(conn, link["id"], organization_id=demo["organization_id"])
            expiring = stored is not None and stored.expires_at < now + HORIZON
            if expiring and rows.renew_link(conn, link["id"], now + demo_seed.LINK_LIFE[mode]):
                renewed.append(mode)
    return renewed


def _note_links(engine, demo: dict, public_url: str | None) -> None:
    """Write each link's current expiry and its URL for ``public_url`` into ``demo``."""
    base = (public_url or DEFAULT_URL).rstrip("/")
    with engine.connect() as conn:
        for link in demo["share_links"].values():
            stored = get_for_owner(conn, link["id"], organization_id=demo["organization_id"])
            link["url"] = f"{base}/share/{link['id']}"
            if stored is not None:
                link["expires_at"] = isoformat(stored.expires_at)


def write(path: Path, demo: dict) -> None:
    """Write the demo file atomically (a server reading it never sees half of it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".demo-", suffix=".json")
    with os.fdopen(handle, "w") as out:
        json.dump(demo, out, indent=2)
        out.write("\n")
    os.replace(temporary, path)


def banner(demo: dict, base_url: str, *, mail_server: str | None) -> str:
    """Return what ``make run`` prints once the server answers: the links for ``base_url``
    (the address actually served), where the email link's sign-in code shows, the key."""
    base = base_url.rstrip("/")
    public, email = demo["share_links"]["public"], demo["share_links"]["email"]
    first, *others = email["allowed_emails"]
    also = f" (or {', '.join(others)})" if others else ""
    if mail_server:
        code = f"the sign-in code is mailed through {mail_server}."
    else:
        code = ("no mail is sent (FLASK_MAIL_SERVER is unset): the sign-in code appears "
                "in this terminal, in the server's log line\n"
                f"    \"MAIL_SERVER is not set: sign-in message to {first} was not sent. "
                "Its code is ABCD-EFGH\".")
    return (f"\nOpen the demo share link: {base}/share/{public['id']}\n"
            f"Email-mode link: {base}/share/{email['id']}\n"
            f"  Sign in as {first}{also}; {code}\n"
            f"Admin API key: {demo['admin_key']}\n"
            "Stop the server with Ctrl-C.\n")
