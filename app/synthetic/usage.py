"""Usage records for the demo: 30 days of hourly activity with a working-week rhythm.

Quantities are whole billed units per application (predictions run, designs generated,
molecules screened); busier in European and US working hours on weekdays, quieter at
night and at weekends, and a smaller second workspace. Only the six applications of the
usage report appear; protein redesign runs are billed as ``protein_design``.
"""

from __future__ import annotations

import random

# application -> (probability a workspace runs it in a busy hour, quantity range)
PROFILE = {
    "structure_and_binding": (0.35, (1, 12)),
    "adme": (0.2, (10, 250)),
    "small_molecule_design": (0.15, (5, 60)),
    "small_molecule_library_screen": (0.08, (96, 1536)),
    "protein_design": (0.25, (10, 200)),
    "protein_library_screen": (0.06, (96, 384)),
}


def usage_records(organization_id: str, workspaces: dict[str, float], now_s: int) -> list:
    """Return usage rows for the last 30 days; ``workspaces`` maps id to activity level."""
    rng = random.Random(9009)  # noqa: S311 - demo data, not secrets
    end_hour = now_s // 3600
    rows = []
    for hour in range(end_hour - 30 * 24, end_hour):
        hour_of_day = hour % 24
        weekday = (hour // 24 + 3) % 7  # 1970-01-01 was a Thursday (weekday 3)
        busy = 1.0 if 7 <= hour_of_day <= 21 else 0.25
        if weekday >= 5:
            busy *= 0.3
        for workspace_id, level in workspaces.items():
            for application, (chance, (low, high)) in PROFILE.items():
                if rng.random() < chance * busy * level:
                    rows.append({
                        "organization_id": organization_id,
                        "workspace_id": workspace_id,
                        "application": application,
                        "quantity": rng.randint(low, high),
                        "recorded_at": hour * 3600 + rng.randrange(3600),
                    })
    return rows
