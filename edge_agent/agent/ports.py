"""What a turn needs of its hardware context, its memory and their response cache, as Protocols.

The loop stands on these names only: the memory store in this process and the daemon's services
through its socket both answer them (see :mod:`edge_agent.agent.sources`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from edge_agent.jsontypes import JsonObject


class HardwareSource(Protocol):
    """Pin aliases and datasheet chunks for a message, scoped to boards."""

    def context(self, query: str, boards: Sequence[str]) -> str:
        """The hardware context block for ``query``."""
        ...

    def offline(self, query: str, boards: Sequence[str]) -> JsonObject:
        """What the datasheets say without a model: the best chunk (``index``) and the pins named."""
        ...


class ResponseCacheSource(Protocol):
    """The response cache a turn reads before asking a model and fills after."""

    def get(self, model: str, system_prompt: str, user_prompt: str) -> str | None:
        """The cached response, if any."""
        ...

    def put(self, model: str, system_prompt: str, user_prompt: str, response: str, *,
            tokens: int | None = None) -> str:
        """Store a response; returns its key."""
        ...


class MemorySource(Protocol):
    """What a turn asks of memory: context before the model, the exchange after, and the response cache."""

    def engage(self, query: str, limit: int = 5, *, min_score: float = 0,
               exclude_ids: Sequence[str] = ()) -> JsonObject:
        """The entries relevant to ``query`` (``results``) and the refs they came from (``source_refs``)."""
        ...

    def reflect(self, session_id: str, response: str, captures: Sequence[JsonObject] = (),
                source_refs: Sequence[str] = ()) -> JsonObject:
        """Store the captures of an exchange; returns what was stored (``captures``)."""
        ...

    @property
    def response_cache(self) -> ResponseCacheSource | None:
        """The response cache, when it is on."""
        ...


def records(data: JsonObject, key: str) -> list[JsonObject]:
    """The objects listed under ``key`` of a reply (none when the key is missing or holds something else)."""
    value = data.get(key)
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def strings(data: JsonObject, key: str) -> list[str]:
    """The texts listed under ``key`` of a reply."""
    value = data.get(key)
    return [str(v) for v in value] if isinstance(value, list) else []
