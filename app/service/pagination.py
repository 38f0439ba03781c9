"""Query models and the response envelope (``Page[T]``) of id-cursor pagination.

Defaults: ``limit`` is 100 on share results and 20 on admin lists; the maximum is 1000
everywhere, and a larger value is a 400 (never silently clamped). ``after_id`` together
with ``before_id`` is a 400.
"""

from __future__ import annotations

from typing import Generic, Self, TypeVar

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


T = TypeVar("T")


class Page(BaseModel, Generic[T]):
    """One page of an id-cursor walk: ``{data, first_id, last_id, has_more}``.

    Name a page model by subclassing a parametrisation (``class WorkspacePage(Page[
    WorkspaceOut])``): the subclass name is its schema name in the OpenAPI document.
    """

    model_config = ConfigDict(extra="forbid")

    data: list[T]
    first_id: str | None = Field(description="Id of the first item; null on an empty page.")
    last_id: str | None = Field(description="Id of the last item; null on an empty page.")
    has_more: bool = Field(description="Whether another page lies in the walk direction.")

    @classmethod
    def of(cls, items: list[T], has_more: bool) -> Self:
        """Return the page holding ``items`` (each has an ``id``)."""
        return cls(data=items, first_id=items[0].id if items else None,
                   last_id=items[-1].id if items else None, has_more=has_more)
