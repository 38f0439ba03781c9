"""The service's blueprints, in one visible list (registered by ``create_service_app``)."""

from __future__ import annotations

from app.service import (  # noqa: F401  (importing them registers their endpoints)
    api_keys,
    artifacts,
    openapi,
    share_links,
    share_read,
    usage,
    workspaces,
)
from app.service.api import bp

BLUEPRINTS = (bp,)
