"""Query models and the response envelope (``Page[T]``) of id-cursor pagination.

Defaults: ``limit`` is 100 on share results and 20 on admin lists; the maximum is 1000
everywhere, and a larger value is a 400 (never silently clamped). ``after_id`` together
with ``before_id`` is a 400.

A cursor is any id the API can serve: 1 to ``domain.MAX_ID_LENGTH`` characters (the width
of the store's id columns), whatever they are. The ids of stored records are not only the
API's own (a record written into the store by other means may have a non-ASCII id, or
``res_02.x``), and every ``first_id``/``last_id`` a page answers must be a cursor the next
request may send back, or an SDK client paging past such a record would get a 400. A
cursor is compared, never interpreted: it is a position in id order whether or not an item
has that id. NUL, which no database text holds, is refused in every parameter (``api``).
"""

from __future__ import annotations

from typing import Generic, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from app.domain import MAX_ID_LENGTH

MAX_LIMIT = 1000
CURSOR = Field(default=None, min_length=1, max_length=MAX_ID_LENGTH,
               description=f"An id (1-{MAX_ID_LENGTH} characters): a position in id order.")
# A filter by one of the API's own ids (a workspace's): the pattern of the ids it makes.
OWN_ID_FILTER = Field(default=None, min_length=1, max_length=MAX_ID_LENGTH,
                      pattern=r"^[A-Za-z0-9_\-]+$")


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
