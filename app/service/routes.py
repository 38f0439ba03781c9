"""The service's blueprints, in one visible list (registered by ``create_service_app``).

Each resource module declares its operations on its own ``ApiBlueprint``; nothing is
registered by importing a module. The OpenAPI document lists the operations of the
blueprints registered on the app, in this order.
"""

from __future__ import annotations

from app.service import (
    api_keys,
    artifacts,
    openapi,
    pipelines,
    predictions,
    share_links,
    share_read,
    usage,
    workspaces,
)

BLUEPRINTS = (
    share_links.bp,
    share_read.bp,
    artifacts.bp,
    workspaces.bp,
    api_keys.bp,
    usage.bp,
    pipelines.bp,
    predictions.bp,
    openapi.bp,
)
