"""The share viewer (``/share/<id>`` and below): pages for what a link exposes."""

from __future__ import annotations

from flask import Flask


def init_app(app: Flask) -> None:
    """Register the viewer blueprint (placeholder until the viewer lands)."""
