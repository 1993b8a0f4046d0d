"""What a turn needs of its hardware context, its memory and their response cache, as Protocols.

The loop stands on these names only: the memory store in this process and the daemon's services
through its socket both answer them (see :mod:`edge_agent.agent.sources`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from edge_agent.jsontypes import JsonObject


@dataclass(frozen=True)
class PinFact:
    """A pin name the message names, as the pin index resolved it for one board."""

    board: str
    alias: str  # the name as the datasheet or board file writes it
    pin: str  # the native pin name
    detail: str = ""  # its headers and functions (and the datasheet's own value when it differs)


@dataclass(frozen=True)
class Hardware:
    """A message's hardware context: the prompt block and the pin facts its pin block was written from."""

    text: str = ""
    pins: tuple[PinFact, ...] = ()


class HardwareSource(Protocol):
    """Pin aliases and datasheet chunks for a message, scoped to boards."""

    def context(self, query: str, boards: Sequence[str]) -> Hardware:
        """The hardware context for ``query``."""
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


def pin_facts(data: JsonObject, key: str = "aliases") -> tuple[PinFact, ...]:
    """The pin facts listed under ``key`` of a reply; a record missing a board, a name or a pin is left out
    (it names no pin to state)."""
    out = []
    for r in records(data, key):
        board, alias, pin, detail = (r.get(k) for k in ("board", "alias", "pin", "detail"))
        if isinstance(board, str) and isinstance(alias, str) and isinstance(pin, str) and board and alias and pin:
            out.append(PinFact(board, alias, pin, detail if isinstance(detail, str) else ""))
    return tuple(out)
