"""Query models and the response envelope of id-cursor pagination.

Defaults: ``limit`` is 100 on share results and 20 on admin lists; the maximum is 1000
everywhere, and a larger value is a 400 (never silently clamped). ``after_id`` together
with ``before_id`` is a 400.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

MAX_LIMIT = 1000
CURSOR = Field(default=None, min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_\-]+$")


class PageQuery(BaseModel):
    """``limit``, ``after_id`` and ``before_id`` of an admin list (default limit 20)."""

    model_config = ConfigDict(extra="ignore")

    limit: int = Field(default=20, ge=1, le=MAX_LIMIT, description="Items per page (1-1000).")
    after_id: str | None = CURSOR
    before_id: str | None = CURSOR

    @model_validator(mode="after")
    def _one_direction(self):
        if self.after_id is not None and self.before_id is not None:
            raise ValueError("after_id and before_id cannot be used together")
        return self


class ResultsPageQuery(PageQuery):
    """Paging of share-link results (default limit 100)."""

    limit: int = Field(default=100, ge=1, le=MAX_LIMIT, description="Results per page (1-1000).")


def page_envelope(data: list[dict[str, Any]], has_more: bool) -> dict[str, Any]:
    """Build ``{data, first_id, last_id, has_more}``; ids are null on an empty page."""
    return {
        "data": data,
        "first_id": data[0]["id"] if data else None,
        "last_id": data[-1]["id"] if data else None,
        "has_more": has_more,
    }
